//! `thresholds:` — a row (`Total` or a label of the plan) maps to one goal or a list of them;
//! `stop_on:` — conditions that end the run early, one or a list.

use super::node::Node;
use super::*;
use crate::plan::threshold::{self, StopOn, Threshold, TOTAL};

impl Cx {
    pub(super) fn thresholds(&mut self, n: Option<&Node>, labels: &[String]) -> Result<Vec<Threshold>, Error> {
        let mut out = Vec::new();
        for (k, v) in self.map(n, "thresholds")? {
            let row = self.raw(k, "thresholds")?;
            let el = format!("thresholds.{row}");
            if row != TOTAL && !labels.contains(&row) {
                let mut msg = format!("no request or group is labelled `{row}` (use `Total` for the whole run)");
                if let Some(s) = error::closest(&row, labels.iter().map(String::as_str)) {
                    msg.push_str(&format!("; did you mean `{s}`?"));
                }
                return Err(Error::new(ErrorKind::UnknownReference, self.loc(k, &el), msg));
            }
            let goals: Vec<&Node> = match &v.value {
                Value::Seq(items) => items.iter().collect(),
                _ => vec![v],
            };
            for g in goals {
                let text = self.text(g, &el)?;
                let mut t = threshold::parse(&text).map_err(|m| self.invalid(g, &el, m))?;
                if t.label.is_some() {
                    return Err(self.invalid(
                        g,
                        &el,
                        format!("`{text}`: the row is `{row}` already; write the goal alone, e.g. `p95 < 300ms`"),
                    ));
                }
                t.label = (row != TOTAL).then(|| row.clone());
                out.push(t);
            }
        }
        Ok(out)
    }

    pub(super) fn stop_on(&mut self, n: Option<&Node>, labels: &[String]) -> Result<Vec<StopOn>, Error> {
        let Some(n) = n else { return Ok(Vec::new()) };
        let items: Vec<&Node> = match &n.value {
            Value::Seq(items) => items.iter().collect(),
            _ => vec![n],
        };
        let mut out = Vec::new();
        for item in items {
            let text = self.text(item, "stop_on")?;
            let s = threshold::parse_stop_on(&text).map_err(|m| self.invalid(item, "stop_on", m))?;
            if let Some(l) = s.when.label.as_ref().filter(|l| !labels.contains(l)) {
                let mut msg = format!("`{text}`: no request or group is labelled `{l}`");
                if let Some(s) = error::closest(l, labels.iter().map(String::as_str)) {
                    msg.push_str(&format!("; did you mean `{s}`?"));
                }
                return Err(Error::new(ErrorKind::UnknownReference, self.loc(item, "stop_on"), msg));
            }
            out.push(s);
        }
        Ok(out)
    }
}
