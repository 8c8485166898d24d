//! What a plan will do, in words (`stampede check`): its scenarios and their steps, its data
//! files; for a JMX, each element with its status; and whether it can run as it is.

use super::jmx::{ElementReport, Status};
use super::sampler::socket::SocketKind;
use super::{Body, Error, Inspected, Plan, RequestSpec, Step};
use crate::plan::sampler::Sampler;
use serde::Serialize;
use std::fmt::Write as _;
use std::path::Path;

/// What `check --format json` writes.
#[derive(Debug, Serialize)]
struct Report<'a> {
    plan: String,
    /// Every element of a JMX plan (none for YAML).
    elements: &'a [ElementReport],
    /// Every reason `run` refuses the plan.
    problems: Vec<Problem>,
    /// Files the plan reads that cannot be read here: `run` refuses the plan until they can.
    needs: Vec<Problem>,
    /// Whether `run` would start it as it is, here.
    can_run: bool,
}

#[derive(Debug, Serialize)]
struct Problem {
    file: Option<String>,
    line: Option<usize>,
    element: Option<String>,
    message: String,
}

impl Problem {
    fn of(e: &Error) -> Problem {
        Problem {
            file: e.location.file.as_ref().map(|f| f.display().to_string()),
            line: e.location.line,
            element: e.location.element.clone(),
            message: e.message.clone(),
        }
    }
}

/// Every element, problem and file needed of a plan read by `Plan::inspect_with`, as JSON for
/// scripts.
pub(crate) fn json(plan: &Path, found: &Inspected) -> String {
    let report = Report {
        plan: plan.display().to_string(),
        elements: found.elements.as_deref().unwrap_or_default(),
        problems: found.problems.iter().map(Problem::of).collect(),
        needs: found.needs.iter().map(Problem::of).collect(),
        can_run: found.plan.is_ok() && found.needs.is_empty(),
    };
    let mut text = serde_json::to_string_pretty(&report).unwrap_or_default();
    text.push('\n');
    text
}

/// A plan read by `Plan::inspect_with`, for people: its elements' table (JMX), what it will do
/// (with `warnings` of it under its name) and whether it can run.
pub(crate) fn text(found: &Inspected, warnings: impl Fn(&Plan) -> Vec<String>) -> String {
    let mut out = String::new();
    if let Some(elements) = &found.elements {
        out.push_str(&elements_table(elements));
        out.push('\n');
    }
    if let Ok(p) = &found.plan {
        out.push_str(&describe(p, &warnings(p)));
        out.push_str(&verdict(&found.needs));
    }
    out
}

/// Whether the plan can run: at once, or once the files it reads can be read.
fn verdict(needs: &[Error]) -> String {
    if needs.is_empty() {
        return "\nThe plan can run.\n".into();
    }
    let mut out = format!(
        "\nThe plan cannot run here as it is: `run` refuses it until {} it reads can be read:\n",
        if needs.len() == 1 { "this file" } else { "these files" }
    );
    for n in needs {
        let _ = writeln!(out, "  {n}");
    }
    out
}

fn elements_table(elements: &[ElementReport]) -> String {
    let mut out = String::from("Elements (line, element, status):\n");
    for r in elements {
        let indent = "  ".repeat(r.depth);
        let name = if r.name.is_empty() { String::new() } else { format!(" \"{}\"", r.name) };
        let _ = writeln!(out, "{:>5}  {indent}{}{name}  [{}] {}", r.line, r.class, r.status.as_str(), r.note);
    }
    let count = |s: Status| elements.iter().filter(|r| r.status == s).count();
    let _ = writeln!(
        out,
        "{} supported, {} partial, {} with a warning, {} ignored, {} disabled, {} skipped, {} unsupported, {} in error",
        count(Status::Supported),
        count(Status::Partial),
        count(Status::Warning),
        count(Status::Ignored),
        count(Status::Disabled),
        count(Status::Skipped),
        count(Status::Unsupported),
        count(Status::Error)
    );
    out
}

/// What the plan will do: scenarios, workloads, requests per label, data files, checks;
/// `warnings` (of the plan as a whole) under its name.
pub(crate) fn describe(p: &Plan, warnings: &[String]) -> String {
    let mut out = format!("Plan: {}\n", p.name);
    for w in warnings {
        let _ = writeln!(out, "{w}");
    }
    for s in &p.scenarios {
        let _ = writeln!(out, "Scenario \"{}\": {}", s.name, s.workload.describe());
        let mut lines = Vec::new();
        steps(p, &s.flow, 1, &mut lines);
        for l in lines {
            let _ = writeln!(out, "{l}");
        }
    }
    for d in &p.data {
        let _ = writeln!(
            out,
            "Data file {}: {} rows of {} ({:?}, {:?})",
            d.path.display(),
            d.file.rows(),
            d.names.join(", "),
            d.share,
            d.on_eof
        );
    }
    if !p.checks.is_empty() {
        let _ = writeln!(out, "Checks: {}", p.checks.join("; "));
    }
    let _ = writeln!(out, "Cookies: {}", if p.cookies { "a jar per user" } else { "off" });
    out
}

/// How a step is written: a line, its steps in its place, or a heading over its steps (one
/// level in) or over its branches (each named one level in, its steps two).
enum Shape<'a> {
    Line(String),
    Inline(&'a [Step]),
    Block(String, &'a [Step]),
    Branches(String, Vec<(String, &'a [Step])>),
}

fn steps(p: &Plan, flow: &[Step], depth: usize, out: &mut Vec<String>) {
    let pad = "  ".repeat(depth);
    for s in flow {
        match shape(p, s) {
            Shape::Line(l) => out.push(format!("{pad}{l}")),
            Shape::Inline(inner) => steps(p, inner, depth, out),
            Shape::Block(head, inner) => {
                out.push(format!("{pad}{head}"));
                steps(p, inner, depth + 1, out);
            }
            Shape::Branches(head, branches) => {
                out.push(format!("{pad}{head}"));
                for (name, inner) in branches {
                    out.push(format!("{pad}  {name}"));
                    steps(p, inner, depth + 2, out);
                }
            }
        }
    }
}

fn shape<'a>(p: &Plan, s: &'a Step) -> Shape<'a> {
    let unnamed = |branches: &'a [Vec<Step>]| branches.iter().map(|b| ("-".to_string(), b.as_slice())).collect();
    match s {
        Step::Sequence(s) => Shape::Inline(s),
        Step::Mix(b) => Shape::Branches(
            "one of (by weight):".into(),
            b.iter().map(|br| (format!("weight {}:", br.weight), br.steps.as_slice())).collect(),
        ),
        Step::Loop(l) => {
            let count = l.count.as_ref().map_or("forever".to_string(), |c| c.source().to_string());
            Shape::Block(format!("loop ({count}):"), &l.steps)
        }
        Step::If(i) => Shape::Block(format!("if {}:", i.condition.src), &i.then),
        Step::Once(o) => Shape::Block("once per user:".into(), &o.steps),
        Step::Group(g) => Shape::Block(format!("group \"{}\":", p.label(g.label)), &g.steps),
        Step::Critical(c) => Shape::Block(format!("one user at a time (lock {}):", c.lock.source()), &c.steps),
        Step::Runtime(r) => Shape::Block(format!("again and again for {} s:", r.seconds.source()), &r.steps),
        Step::Throughput(t) => Shape::Block(format!("on {:?} of passes:", t.share), &t.steps),
        Step::Parallel(pl) => Shape::Branches("at the same time:".into(), unnamed(&pl.branches)),
        Step::Shuffle(s) => Shape::Branches("each once, in random order:".into(), unnamed(&s.branches)),
        Step::Switch(s) => Shape::Branches(
            format!("switch on {}:", s.value.source()),
            s.branches.iter().map(|(name, b)| (format!("\"{name}\":"), b.as_slice())).collect(),
        ),
        leaf => Shape::Line(line(p, leaf)),
    }
}

/// The line of a step that holds no steps.
fn line(p: &Plan, s: &Step) -> String {
    match s {
        Step::Sample(Sampler::Http(r)) => request(p, r),
        Step::Think(t) => format!("think {t:?}"),
        Step::Feed(n) => format!("next row of {}", p.data[*n].path.display()),
        Step::Set(a) => format!("set {}", a.iter().map(|a| a.name.as_str()).collect::<Vec<_>>().join(", ")),
        Step::Write(w) => format!("write to {}", p.writers[w.writer].path.display()),
        Step::UserParams(u) => format!("user parameters {}", u.names.join(", ")),
        Step::Counter(c) => format!("counter {}", c.name),
        Step::SeededRandom(r) => format!("seeded random {}", r.name),
        Step::Stop(k) => format!("stop: {k:?}"),
        Step::Pick(pk) => format!("set {} to the pass's value", pk.name),
        Step::Sample(Sampler::Synthetic(x)) => format!("{}: a {} sample, nothing sent", p.label(x.label), x.class),
        Step::Sample(Sampler::Script(x)) => {
            format!("{}: a {} sample, nothing sent", p.label(x.label), x.script.0.class)
        }
        Step::Script(x) => format!("script {} \"{}\"", x.script.0.class, x.script.0.name),
        Step::Anchor(a) if a.spider.is_some() => format!("spider pre-processor \"{}\"", a.name),
        Step::Anchor(a) => format!("HTML link parser \"{}\"", a.name),
        Step::Sample(Sampler::WebSocket(w)) => format!("{}: WebSocket: {}", p.label(w.label), w.op.name()),
        Step::Sample(Sampler::Socket(x)) => match &x.kind {
            SocketKind::Ftp(f) => {
                let command = if f.upload { "STOR" } else { "RETR" };
                format!("{}: FTP {command} {}", p.label(x.label), f.remote.source())
            }
            _ => format!("{}: a {} over a raw socket", p.label(x.label), x.class),
        },
        Step::RawSource(r) => format!("next chunk of {} into {}", r.file.source(), r.name),
        Step::Fifo(q) => match &q.action {
            super::flow::FifoAction::Put(v) => format!("put {} into queue {}", v.source(), q.queue.source()),
            super::flow::FifoAction::Pop { name, .. } => format!("take {name} from queue {}", q.queue.source()),
        },
        _ => unreachable!("a step that holds steps is shaped as a block"),
    }
}

fn request(p: &Plan, r: &RequestSpec) -> String {
    let body = match &r.body {
        Body::None => String::new(),
        Body::Text(t) => format!(" (body: {} bytes of text)", t.source().len()),
        Body::Bytes(b) => format!(" (body: {} bytes)", b.len()),
        Body::Form(f) => format!(" (form: {} fields)", f.len()),
        Body::Multipart(m) => format!(" (multipart: {} parts)", m.len()),
        Body::File { path, .. } => format!(" (body: the file {} when sent)", path.source()),
    };
    format!("{}: {} {}{body}", p.label(r.label), r.method, crate::redact::url(&r.url()))
}
