//! The steps of a flow: a request, and the flow controls around requests (`mix`, `think`,
//! `flow`, `set`, `loop`, `if`/`then`/`else`, `once`, `group`, `write`), with the per-user slots
//! the builder allocates for them.

use super::check::check_var_name;
use super::node::Node;
use super::*;
use crate::plan::build::Slot;
use crate::plan::condition;
use crate::plan::flow::{Assign, Cond, Group, If, Loop, Once};
use crate::plan::sampler::Sampler;
use crate::plan::template;

const STEP_KEYS: &[&str] =
    &["request", "mix", "think", "flow", "set", "loop", "if", "then", "else", "once", "group", "transaction", "write"];
const KINDS: [&str; 10] = ["request", "mix", "think", "flow", "set", "loop", "if", "once", "group", "write"];
const BRANCH_KEYS: &[&str] = &["weight", "request", "flow"];
const LOOP_KEYS: &[&str] = &["count", "while", "flow"];
const GROUP_KEYS: &[&str] = &["name", "flow"];
const WRITE_KEYS: &[&str] = &["file", "values", "header"];

impl Cx {
    pub(super) fn steps(&mut self, docs: &[Node], el: &str) -> Result<Vec<Step>, Error> {
        docs.iter().enumerate().map(|(i, d)| self.step(d, &format!("{el}[{i}]"))).collect()
    }

    /// A list of steps given under `key` (a null or empty one is no steps).
    fn sub_steps(&mut self, n: &Node, el: &str) -> Result<Vec<Step>, Error> {
        let items = self.seq(Some(n), el)?;
        self.steps(items, el)
    }

    fn step(&mut self, n: &Node, el: &str) -> Result<Step, Error> {
        let d = self.fields(n, el, "StepDoc", STEP_KEYS)?;
        let group = d.get("group").or(d.get("transaction"));
        let given = KINDS.iter().filter(|k| if **k == "group" { group.is_some() } else { d.has(k) }).count();
        if given != 1 {
            return Err(self.invalid(
                n,
                el,
                "a step has exactly one of `request`, `flow`, `mix`, `think`, `set`, `loop`, `if`, `once`, `group`, `write`",
            ));
        }
        if (d.has("then") || d.has("else")) && !d.has("if") {
            return Err(self.invalid(n, el, "`then` and `else` belong to an `if` step"));
        }
        if let Some(r) = d.get("request") {
            return Ok(Step::Sample(Sampler::Http(Box::new(self.request(r, &format!("{el}.request"))?))));
        }
        if let Some(m) = d.get("mix") {
            return self.mix(m, &format!("{el}.mix"));
        }
        if let Some(t) = d.get("think") {
            return self.think(t, &format!("{el}.think")).map(Step::Think);
        }
        if let Some(f) = d.get("flow") {
            return Ok(Step::Sequence(self.sub_steps(f, &format!("{el}.flow"))?));
        }
        if let Some(m) = d.get("set") {
            let mut out = Vec::new();
            for (k, v) in self.map(Some(m), &format!("{el}.set"))? {
                let name = k.scalar_text().unwrap_or_default();
                let sel = format!("{el}.set.{name}");
                check_var_name(&name).map_err(|m| self.invalid(k, &sel, m))?;
                let value = self.tmpl(v, &sel)?;
                let var = self.b.vars().assign(&name);
                out.push(Assign { var, name: name.clone(), value: (name, value) });
            }
            return Ok(Step::Set(out));
        }
        if let Some(l) = d.get("loop") {
            return self.r#loop(l, &format!("{el}.loop"));
        }
        if let Some(c) = d.get("if") {
            let condition = self.cond(c, &format!("{el}.if"))?;
            let then = match d.get("then") {
                Some(t) => self.sub_steps(t, &format!("{el}.then"))?,
                None => {
                    return Err(Error::new(
                        ErrorKind::Missing,
                        self.loc(n, el),
                        "an `if` step needs `then` (and may have `else`)",
                    ))
                }
            };
            let otherwise = match d.get("else") {
                Some(e) => self.sub_steps(e, &format!("{el}.else"))?,
                None => Vec::new(),
            };
            return Ok(Step::If(Box::new(If { condition, then, otherwise })));
        }
        if let Some(o) = d.get("once") {
            let steps = self.sub_steps(o, &format!("{el}.once"))?;
            let slot = self.b.slot(Slot::Once);
            return Ok(Step::Once(Box::new(Once { steps, per_loop: false, slot })));
        }
        if let Some(g) = group {
            return self.group(g, &format!("{el}.group"));
        }
        self.write(d.get("write").expect("one kind is given, checked above"), &format!("{el}.write"))
    }

    fn mix(&mut self, n: &Node, el: &str) -> Result<Step, Error> {
        let mut out = Vec::new();
        for (i, bn) in self.seq(Some(n), el)?.iter().enumerate() {
            let bel = format!("{el}[{i}]");
            let b = self.fields(bn, &bel, "BranchDoc", BRANCH_KEYS)?;
            let w = self.required(&b, "weight", &bel)?;
            let weight = self.parse(w, &format!("{bel}.weight"), "a weight (a number >= 0)", |s| {
                s.parse::<f64>().ok().filter(|w| w.is_finite() && *w >= 0.0)
            })?;
            let steps = match (b.get("request"), b.get("flow")) {
                (Some(r), None) => {
                    vec![Step::Sample(Sampler::Http(Box::new(self.request(r, &format!("{bel}.request"))?)))]
                }
                (None, Some(f)) => self.sub_steps(f, &format!("{bel}.flow"))?,
                _ => {
                    return Err(self.invalid(
                        bn,
                        &bel,
                        "a mix branch has `weight` and exactly one of `request` or `flow`",
                    ))
                }
            };
            out.push(Branch { weight, steps });
        }
        if out.iter().map(|b| b.weight).sum::<f64>() <= 0.0 {
            return Err(self.invalid(n, el, "a mix needs at least one branch with a weight above 0"));
        }
        Ok(Step::Mix(out))
    }

    fn r#loop(&mut self, n: &Node, el: &str) -> Result<Step, Error> {
        let l = self.fields(n, el, "LoopDoc", LOOP_KEYS)?;
        let flow_node = self.required(&l, "flow", el)?;
        if !l.has("count") && !l.has("while") {
            return Err(Error::new(ErrorKind::Missing, self.loc(n, el), "a loop needs `count`, `while`, or both"));
        }
        let cel = format!("{el}.count");
        let count = l.get("count").map(|v| self.tmpl(v, &cel)).transpose()?;
        if let Some(n) = count.as_ref().and_then(|c| c.as_const()) {
            if n.trim().parse::<u64>().is_err() {
                return Err(self.invalid(
                    l.get("count").expect("a count"),
                    &cel,
                    format!("`{n}` is not a whole number"),
                ));
            }
        }
        let condition = l.get("while").map(|v| self.cond(v, &format!("{el}.while"))).transpose()?;
        let steps = self.steps(self.seq(Some(flow_node), &format!("{el}.flow"))?, &format!("{el}.flow"))?;
        let slot = self.b.slot(Slot::Loop);
        Ok(Step::Loop(Box::new(Loop { count, condition, steps, enter_first: false, slot, index: None })))
    }

    fn group(&mut self, n: &Node, el: &str) -> Result<Step, Error> {
        let g = self.fields(n, el, "GroupDoc", GROUP_KEYS)?;
        let name = self.required(&g, "name", el)?;
        let flow_node = self.required(&g, "flow", el)?;
        let name = self.text(name, &format!("{el}.name"))?;
        let label = self.b.label(&name);
        let steps = self.steps(self.seq(Some(flow_node), &format!("{el}.flow"))?, &format!("{el}.flow"))?;
        if !flow::has_request(&steps) {
            return Err(self.invalid(n, el, "a group needs at least one request"));
        }
        let slot = self.b.slot(Slot::Group);
        Ok(Step::Group(Box::new(Group { label, parent: false, wall_clock: false, steps, slot })))
    }

    fn write(&mut self, n: &Node, el: &str) -> Result<Step, Error> {
        let w = self.fields(n, el, "WriteDoc", WRITE_KEYS)?;
        let file = self.required(&w, "file", el)?;
        let values_node = self.required(&w, "values", el)?;
        let header = w.get("header").map(|h| self.strings(h, &format!("{el}.header"))).transpose()?;
        let items = self.seq(Some(values_node), &format!("{el}.values"))?;
        let path = self.path(file, &format!("{el}.file"))?;
        let values = items
            .iter()
            .enumerate()
            .map(|(i, v)| self.tmpl(v, &format!("{el}.values[{i}]")))
            .collect::<Result<_, _>>()?;
        if let Some(h) = &header {
            if h.len() != items.len() {
                return Err(self.invalid(
                    w.get("header").expect("a header"),
                    &format!("{el}.header"),
                    format!("{} header names for {} values", h.len(), items.len()),
                ));
            }
        }
        let writer = self.b.writer(path, header);
        Ok(Step::Write(Box::new(flow::Write { writer, values })))
    }

    fn cond(&mut self, v: &Node, el: &str) -> Result<Cond, Error> {
        let src = self.raw(v, el)?;
        let loc = self.loc(v, el);
        self.places.entry(el.to_string()).or_insert(v.pos);
        let mut failed = None;
        let expr = condition::parse(&src, |operand| {
            template::compile(operand, &mut self.b.sym, el).inspect_err(|m| failed = Some(m.clone()))
        })
        .map_err(|m| Error::new(if failed.is_some() { ErrorKind::Template } else { ErrorKind::Invalid }, loc, m))?;
        Ok(Cond { src, expr })
    }

    fn think(&mut self, v: &Node, el: &str) -> Result<Think, Error> {
        let Value::Map(entries) = &v.value else {
            return Ok(Think::Constant(self.duration(v, el)?));
        };
        for (k, _) in entries {
            let k_text = k.scalar_text().unwrap_or_default();
            if k_text != "min" && k_text != "max" {
                return Err(Error::new(
                    ErrorKind::UnknownField,
                    self.loc(k, el),
                    format!(
                        "unknown field `{k_text}` in think; expected `min` and `max` (uniform) or a single duration"
                    ),
                ));
            }
        }
        let get = |key: &str| entries.iter().find(|(k, _)| k.scalar_text().as_deref() == Some(key)).map(|(_, v)| v);
        let (Some(min), Some(max)) = (get("min"), get("max")) else {
            return Err(Error::new(ErrorKind::Missing, self.loc(v, el), "a uniform think time needs `min` and `max`"));
        };
        let (min, max) = (self.duration(min, &format!("{el}.min"))?, self.duration(max, &format!("{el}.max"))?);
        if min > max {
            return Err(self.invalid(v, el, "think time `min` is above `max`"));
        }
        Ok(Think::Uniform { min, max })
    }
}
