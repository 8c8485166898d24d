//! YAML → [`Plan`]. The document is read into a tree whose every node knows its line and
//! column ([`node`]), then each element is checked and translated into calls of the shared
//! plan builder ([`super::build::Builder`]), so every error names file:line:column and the
//! element it is about.
//!
//! One file per element family: [`workload`], [`step`] (flow controls), [`request`],
//! [`check`] (extractors and checks), [`data`] (data files), [`defaults`] (defaults and TLS),
//! [`threshold`]; [`value`] reads scalars (durations, sizes, templates).

mod check;
mod data;
mod defaults;
mod node;
mod request;
mod step;
mod threshold;
mod value;
mod workload;

use super::build::Builder;
use super::flow;
use super::*;
use node::{Node, Pos, Value};

#[cfg(test)]
use value::parse_size;
pub(crate) use value::{parse_duration, MAX_DURATION};

const PLAN_KEYS: &[&str] = &["name", "variables", "defaults", "data", "scenarios", "thresholds", "stop_on"];
const SCENARIO_KEYS: &[&str] = &["name", "workload", "pacing", "on_error", "data", "flow"];

pub(super) fn read(src: &str, file: &Path, properties: &HashMap<String, String>) -> Result<Plan, Error> {
    // A byte-order mark (Windows editors write one) is not part of the document.
    let src = src.strip_prefix('\u{feff}').unwrap_or(src);
    let root = node::load(src).map_err(|e| {
        let mut loc = Location::file(file);
        let mut message = e.message;
        if let Some(p) = e.pos {
            (loc.line, loc.column) = (Some(p.line), Some(p.column));
            if let Some((line, quoted)) = node::unquoted_expression_in_flow(src, p.line) {
                message.push_str(&format!(
                    "; {}:{line}: a `${{...}}` inside {{ }} or [ ] must be quoted (YAML ends it at its first brace or comma): quote it: {quoted}",
                    file.display()
                ));
            }
        }
        Error::new(ErrorKind::Syntax, loc, message)
    })?;
    let mut cx = Cx {
        file: file.to_path_buf(),
        b: Builder::new(properties.clone()),
        defaults: Defaults::default(),
        places: HashMap::new(),
    };
    let doc = cx.fields(&root, "", "PlanDoc", PLAN_KEYS)?;
    let scenarios_node = cx.required(&doc, "scenarios", "")?;
    for (k, v) in cx.map(doc.raw("variables"), "variables")? {
        let name = k.scalar_text().unwrap_or_default();
        let el = format!("variables.{name}");
        let value = cx.text(v, &el)?;
        cx.b.vars().define(&name, value);
    }
    let (tls, cookies, timing_headers) = cx.defaults_doc(doc.raw("defaults"))?;
    let plan_data: Vec<usize> = cx
        .seq(doc.raw("data"), "data")?
        .iter()
        .enumerate()
        .map(|(i, d)| cx.data(d, &format!("data[{i}]")))
        .collect::<Result<_, _>>()?;
    let scenarios = cx.seq(Some(scenarios_node), "scenarios")?;
    if scenarios.is_empty() {
        return Err(cx.invalid(
            doc.key("scenarios").unwrap_or(&root),
            "scenarios",
            "a plan needs at least one scenario",
        ));
    }
    for (i, s) in scenarios.iter().enumerate() {
        cx.scenario(s, i, &plan_data)?;
    }
    if let Some((element, msg)) = cx.b.sym.vars.undefined() {
        let mut loc = Location::file(&cx.file).element(&element);
        if let Some(p) = cx.places.get(&element) {
            (loc.line, loc.column) = (Some(p.line), Some(p.column));
        }
        return Err(Error::new(ErrorKind::Template, loc, msg));
    }
    let name = match doc.get("name") {
        Some(n) => cx.string(n, "name")?,
        None => file.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_else(|| "plan".into()),
    };
    let labels = cx.b.labels().to_vec();
    let thresholds = cx.thresholds(doc.raw("thresholds"), &labels)?;
    let stop_on = cx.stop_on(doc.raw("stop_on"), &labels)?;
    let mut plan = cx.b.finish(name, Some(file.to_path_buf()));
    plan.thresholds = thresholds;
    plan.stop_on = stop_on;
    plan.tls = tls;
    plan.cookies = cookies;
    plan.timing_headers = timing_headers;
    Ok(plan)
}

/// The reader's state: the builder, where the file is, the plan's defaults, and where each
/// template was written (for errors found once the whole plan is read).
struct Cx {
    file: PathBuf,
    b: Builder,
    defaults: Defaults,
    places: HashMap<String, Pos>,
}

/// A YAML map read as an element whose keys are known (checked by [`Cx::fields`]).
struct Fields<'a> {
    node: &'a Node,
    entries: &'a [(Node, Node)],
}

impl<'a> Fields<'a> {
    /// A key's value as written, null included.
    fn raw(&self, key: &str) -> Option<&'a Node> {
        self.entries.iter().find(|(k, _)| k.scalar_text().as_deref() == Some(key)).map(|(_, v)| v)
    }

    /// A key's value, if it is given and not null.
    fn get(&self, key: &str) -> Option<&'a Node> {
        self.raw(key).filter(|v| !v.is_null())
    }

    fn has(&self, key: &str) -> bool {
        self.get(key).is_some()
    }

    /// The key itself, for errors about it.
    fn key(&self, key: &str) -> Option<&'a Node> {
        self.entries.iter().find(|(k, _)| k.scalar_text().as_deref() == Some(key)).map(|(k, _)| k)
    }
}

impl Cx {
    fn scenario(&mut self, s: &Node, i: usize, plan_data: &[usize]) -> Result<(), Error> {
        let f = self.fields(s, &format!("scenarios[{i}]"), "ScenarioDoc", SCENARIO_KEYS)?;
        let name = match f.get("name") {
            Some(n) => self.string(n, &format!("scenarios[{i}].name"))?,
            None => format!("scenario-{}", i + 1),
        };
        let el = format!("scenarios[{i}] ({name})");
        if self.b.has_scenario(&name) {
            return Err(self.invalid(f.get("name").unwrap_or(s), &el, format!("two scenarios are named `{name}`")));
        }
        let wl = self.required(&f, "workload", &format!("scenarios[{i}]"))?;
        let flow_node = self.required(&f, "flow", &format!("scenarios[{i}]"))?;
        let workload = self.workload(wl, &format!("{el}.workload"))?;
        let pel = format!("{el}.pacing");
        let pacing = self.opt_duration(f.get("pacing"), &pel)?.filter(|d| !d.is_zero());
        if pacing.is_some() && matches!(workload, Workload::Open(_)) {
            return Err(self.invalid(
                f.get("pacing").unwrap_or(s),
                &pel,
                "pacing applies to the closed model; an open workload already sets when iterations start",
            ));
        }
        let own_data: Vec<usize> = self
            .seq(f.raw("data"), &format!("scenarios[{i}].data"))?
            .iter()
            .enumerate()
            .map(|(j, d)| self.data(d, &format!("{el}.data[{j}]")))
            .collect::<Result<_, _>>()?;
        // Data files move to their next row as each iteration starts (JMeter's CSV Data Set).
        let mut steps: Vec<Step> = plan_data.iter().chain(&own_data).map(|d| Step::Feed(*d)).collect();
        let fel = format!("{el}.flow");
        steps.extend(self.steps(self.seq(Some(flow_node), &format!("scenarios[{i}].flow"))?, &fel)?);
        if !flow::has_request(&steps) {
            return Err(self.invalid(flow_node, &fel, "the flow sends no request"));
        }
        let on_error = match f.get("on_error") {
            None => flow::StopKind::Continue,
            Some(v) => self.parse(
                v,
                &format!("{el}.on_error"),
                "continue, next_iteration, stop_user or stop_run",
                |s| match s {
                    "continue" => Some(flow::StopKind::Continue),
                    "next_iteration" => Some(flow::StopKind::NextIteration),
                    "stop_user" => Some(flow::StopKind::User),
                    "stop_run" => Some(flow::StopKind::Run),
                    _ => None,
                },
            )?,
        };
        self.b.scenario(Scenario { name, workload, pacing, on_error, phase: Phase::Main, flow: steps });
        Ok(())
    }

    /// Where `n` is, about `element`.
    fn loc(&self, n: &Node, element: &str) -> Location {
        let loc = Location::at(&self.file, n.pos.line, n.pos.column);
        if element.is_empty() {
            loc
        } else {
            loc.element(element)
        }
    }

    fn invalid(&self, n: &Node, element: &str, message: impl std::fmt::Display) -> Error {
        Error::invalid(self.loc(n, element), message)
    }

    fn wrong_type(&self, n: &Node, element: &str, expected: &str) -> Error {
        Error::new(
            ErrorKind::WrongType,
            self.loc(n, element),
            format!("invalid type: {}, expected {expected}", n.unexpected()),
        )
    }

    /// `n` as an element of kind `what` whose keys are `known`: a key not among them is an
    /// error at that key, with the closest known one suggested.
    fn fields<'a>(&self, n: &'a Node, el: &str, what: &str, known: &[&str]) -> Result<Fields<'a>, Error> {
        let entries: &[(Node, Node)] = match &n.value {
            Value::Map(e) => e,
            Value::Null { empty: true } => &[],
            _ => return Err(self.wrong_type(n, el, &format!("struct {what}"))),
        };
        for (k, _) in entries {
            let name = k.scalar_text().unwrap_or_default();
            if !known.contains(&name.as_str()) {
                let mut msg = format!("unknown field `{name}`, {}", expected(known));
                if let Some(s) = error::closest(&name, known.iter().copied()) {
                    msg.push_str(&format!("; did you mean `{s}`?"));
                }
                return Err(Error::new(ErrorKind::UnknownField, self.loc(k, el), msg));
            }
        }
        Ok(Fields { node: n, entries })
    }

    /// A key the element cannot do without (a null value counts as given).
    fn required<'a>(&self, f: &Fields<'a>, key: &str, el: &str) -> Result<&'a Node, Error> {
        f.raw(key).ok_or_else(|| Error::new(ErrorKind::Missing, self.loc(f.node, el), format!("missing field `{key}`")))
    }

    /// A list; not given or left empty is an empty list.
    fn seq<'a>(&self, n: Option<&'a Node>, el: &str) -> Result<&'a [Node], Error> {
        match n.map(|n| (n, &n.value)) {
            None | Some((_, Value::Null { empty: true })) => Ok(&[]),
            Some((_, Value::Seq(items))) => Ok(items),
            Some((n, _)) => Err(self.wrong_type(n, el, "a sequence")),
        }
    }

    /// A map of names to values; not given or left empty is an empty map.
    fn map<'a>(&self, n: Option<&'a Node>, el: &str) -> Result<&'a [(Node, Node)], Error> {
        match n.map(|n| (n, &n.value)) {
            None | Some((_, Value::Null { empty: true })) => Ok(&[]),
            Some((_, Value::Map(entries))) => Ok(entries),
            Some((n, _)) => Err(self.wrong_type(n, el, "a YAML mapping")),
        }
    }

    /// Text taken as written (a name, a message): any scalar, not a list or map.
    fn string(&self, n: &Node, el: &str) -> Result<String, Error> {
        match (&n.value, &n.raw) {
            (Value::Seq(_) | Value::Map(_), _) => Err(self.wrong_type(n, el, "a string")),
            (_, Some(raw)) => Ok(raw.clone()),
            (_, None) => Ok(n.scalar_text().unwrap_or_default()),
        }
    }

    /// A list of texts taken as written.
    fn strings(&self, n: &Node, el: &str) -> Result<Vec<String>, Error> {
        self.seq(Some(n), el)?.iter().enumerate().map(|(i, s)| self.string(s, &format!("{el}[{i}]"))).collect()
    }
}

/// serde's wording for the keys an element has.
fn expected(known: &[&str]) -> String {
    match known {
        [] => "there are no fields".into(),
        [a] => format!("expected `{a}`"),
        [a, b] => format!("expected `{a}` or `{b}`"),
        _ => format!("expected one of {}", known.iter().map(|k| format!("`{k}`")).collect::<Vec<_>>().join(", ")),
    }
}

#[cfg(test)]
mod tests;
