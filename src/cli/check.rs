//! `stampede check PLAN`: reads a YAML or JMX plan without sending anything and prints what it
//! will do; for a JMX, every element with its status.

use super::plan_args::PlanArgs;
use crate::engine::program::Program;
use crate::error::{exit, Error};
use crate::plan::jmx::{ElementReport, Status};
use crate::plan::{self, Body, Plan, Step};
use clap::Args;
use serde::Serialize;
use std::fmt::Write as _;
use std::path::PathBuf;

#[derive(Debug, Args)]
pub struct CheckArgs {
    /// A YAML or JMX plan.
    pub plan: PathBuf,
    #[command(flatten)]
    pub plan_args: PlanArgs,
    /// `text` (a table for people) or `json` (every element, problem and file needed, for
    /// scripts).
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    Text,
    Json,
}

/// What `check` found, as `--format json` writes it.
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
    fn of(e: &plan::Error) -> Problem {
        Problem {
            file: e.location.file.as_ref().map(|f| f.display().to_string()),
            line: e.location.line,
            element: e.location.element.clone(),
            message: e.message.clone(),
        }
    }
}

pub(super) fn execute(a: CheckArgs) -> Result<u8, Error> {
    let mut opts = a.plan_args.load_options()?;
    // A plan whose data files live on another machine can still be checked: what a run needs
    // is said instead.
    opts.lenient_files = true;
    let mut found = Plan::inspect_with(&a.plan, &opts);
    // What `run` refuses once the plan is loaded: its TLS settings, its results files.
    if let Ok(p) = &found.plan {
        let starts = start_problems(p);
        if !starts.is_empty() {
            found.problems.extend(starts.iter().cloned());
            found.plan = Err(plan::Error::combine(starts));
        }
    }
    // What functions evaluated while loading logged: a run keeps it in `scripts.log`.
    if let Ok(p) = &found.plan {
        for line in &p.load_log {
            eprintln!("{}", found.secrets.scrub(line));
        }
    }
    let elements = found.elements.as_deref().unwrap_or_default();
    let can_run = found.plan.is_ok() && found.needs.is_empty();
    let out = match a.format {
        Format::Json => {
            let report = Report {
                plan: a.plan.display().to_string(),
                elements,
                problems: found.problems.iter().map(Problem::of).collect(),
                needs: found.needs.iter().map(Problem::of).collect(),
                can_run,
            };
            let mut text = serde_json::to_string_pretty(&report).unwrap_or_default();
            text.push('\n');
            text
        }
        Format::Text => {
            let mut out = String::new();
            if found.elements.is_some() {
                out.push_str(&elements_table(elements));
                out.push('\n');
            }
            if let Ok(p) = &found.plan {
                out.push_str(&describe(p));
                out.push_str(&verdict(&found.needs));
            }
            out
        }
    };
    // Values from the environment and secret-named properties, wherever they landed.
    super::say(&found.secrets.scrub(&out));
    if found.plan.is_ok() {
        return Ok(exit::OK);
    }
    if a.format == Format::Text {
        // Every problem, each with its place, as `run` would list them.
        let n = found.problems.len();
        for p in &found.problems {
            eprintln!("error: {}", found.secrets.scrub(&p.to_string()));
        }
        if n > 1 {
            eprintln!("{n} problems: `run` refuses the plan until each is fixed");
        }
    }
    Ok(exit::USAGE)
}

/// Whether the plan can run: at once, or once the files it reads can be read.
fn verdict(needs: &[plan::Error]) -> String {
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

/// What `run` refuses after loading the plan, before it sends anything: TLS settings that do
/// not load, a results file that cannot be written.
fn start_problems(p: &Plan) -> Vec<plan::Error> {
    let at = || p.source.as_ref().map(plan::Location::file).unwrap_or_default();
    let mut out = Vec::new();
    if let Some(m) = crate::engine::start_problem(p) {
        out.push(plan::Error::invalid(at(), format!("cannot start the run: {m}")));
    }
    for f in &p.result_files {
        let writable = if f.is_dir() {
            Err("it is a directory".to_string())
        } else if f.exists() {
            std::fs::OpenOptions::new().append(true).open(f).map(|_| ()).map_err(|e| e.to_string())
        } else {
            Ok(())
        };
        if let Err(why) = writable {
            out.push(plan::Error::invalid(at(), format!("cannot write the results file {}: {why}", f.display())));
        }
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

/// The warnings `run` prints for the elements that load as in JMeter and go wrong at run time
/// as in JMeter (each sample fails, a default is read): the first few, then how many more and
/// where all are listed, so that a plan of 300 such samplers does not bury the progress line.
pub(super) fn run_time_warnings(elements: &[ElementReport], plan: &str) -> Vec<String> {
    const SHOWN: usize = 5;
    let warned: Vec<&ElementReport> = elements.iter().filter(|r| r.status == Status::Warning).collect();
    let mut out: Vec<String> = warned
        .iter()
        .take(SHOWN)
        .map(|r| format!("warning: line {}: {} \"{}\": {}", r.line, r.class, r.name, r.note))
        .collect();
    if warned.len() > SHOWN {
        out.push(format!("warning: and {} more; `stampede check {plan}` lists them all", warned.len() - SHOWN));
    }
    if !warned.is_empty() {
        out.push("warning: these run as JMeter runs them; --strict refuses such a plan instead".into());
    }
    out
}

/// A warning for each scenario left with nothing to send (every sampler disabled or
/// skipped): its users run one iteration (taking their CSV rows) and end, as JMeter's
/// threads without a sampler.
pub(super) fn idle_warnings(p: &Plan) -> Vec<String> {
    p.scenarios
        .iter()
        .filter(|s| Program::compile(&s.flow).idle)
        .map(|s| {
            format!("warning: scenario \"{}\" has no request to send: each user runs one iteration (taking its data rows) and ends, as JMeter's threads without a sampler", s.name)
        })
        .collect()
}

/// What the plan will do: scenarios, workloads, requests per label, data files, checks.
pub(super) fn describe(p: &Plan) -> String {
    let mut out = format!("Plan: {}\n", p.name);
    for w in idle_warnings(p) {
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

fn steps(p: &Plan, flow: &[Step], depth: usize, out: &mut Vec<String>) {
    let pad = "  ".repeat(depth);
    for s in flow {
        match s {
            Step::Request(r) => {
                let body = match &r.body {
                    Body::None => String::new(),
                    Body::Text(t) => format!(" (body: {} bytes of text)", t.source().len()),
                    Body::Bytes(b) => format!(" (body: {} bytes)", b.len()),
                    Body::Form(f) => format!(" (form: {} fields)", f.len()),
                    Body::Multipart(m) => format!(" (multipart: {} parts)", m.len()),
                    Body::File { path, .. } => format!(" (body: the file {} when sent)", path.source()),
                };
                out.push(format!("{pad}{}: {} {}{body}", p.label(r.label), r.method, crate::redact::url(&r.url())));
            }
            Step::Sequence(s) => steps(p, s, depth, out),
            Step::Mix(b) => {
                out.push(format!("{pad}one of (by weight):"));
                for br in b {
                    out.push(format!("{pad}  weight {}:", br.weight));
                    steps(p, &br.steps, depth + 2, out);
                }
            }
            Step::Think(t) => out.push(format!("{pad}think {t:?}")),
            Step::Feed(n) => out.push(format!("{pad}next row of {}", p.data[*n].path.display())),
            Step::Set(a) => {
                out.push(format!("{pad}set {}", a.iter().map(|a| a.name.as_str()).collect::<Vec<_>>().join(", ")))
            }
            Step::Loop(l) => {
                let count = l.count.as_ref().map_or("forever".to_string(), |c| c.source().to_string());
                out.push(format!("{pad}loop ({count}):"));
                steps(p, &l.steps, depth + 1, out);
            }
            Step::If(i) => {
                out.push(format!("{pad}if {}:", i.condition.src));
                steps(p, &i.then, depth + 1, out);
            }
            Step::Once(o) => {
                out.push(format!("{pad}once per user:"));
                steps(p, &o.steps, depth + 1, out);
            }
            Step::Group(g) => {
                out.push(format!("{pad}group \"{}\":", p.label(g.label)));
                steps(p, &g.steps, depth + 1, out);
            }
            Step::Write(w) => out.push(format!("{pad}write to {}", p.writers[w.writer].path.display())),
            Step::UserParams(u) => out.push(format!("{pad}user parameters {}", u.names.join(", "))),
            Step::Counter(c) => out.push(format!("{pad}counter {}", c.name)),
            Step::SeededRandom(r) => out.push(format!("{pad}seeded random {}", r.name)),
            Step::Stop(k) => out.push(format!("{pad}stop: {k:?}")),
            Step::Pick(pk) => out.push(format!("{pad}set {} to the pass's value", pk.name)),
            Step::Sample(x) => out.push(format!("{pad}{}: a {} sample, nothing sent", p.label(x.label), x.class)),
            Step::Script(x) => match x.label {
                Some(l) => out.push(format!("{pad}{}: a {} sample, nothing sent", p.label(l), x.script.0.class)),
                None => out.push(format!("{pad}script {} \"{}\"", x.script.0.class, x.script.0.name)),
            },
            Step::Anchor(a) if a.spider.is_some() => out.push(format!("{pad}spider pre-processor \"{}\"", a.name)),
            Step::Anchor(a) => out.push(format!("{pad}HTML link parser \"{}\"", a.name)),
            Step::WebSocket(w) => out.push(format!("{pad}{}: WebSocket: {}", p.label(w.label), w.op.name())),
            Step::Socket(x) => out.push(match &**x {
                crate::plan::socket::SocketStep::Sample(x) => match &x.kind {
                    crate::plan::socket::SocketKind::Ftp(f) => {
                        let command = if f.upload { "STOR" } else { "RETR" };
                        format!("{pad}{}: FTP {command} {}", p.label(x.label), f.remote.source())
                    }
                    _ => format!("{pad}{}: a {} over a raw socket", p.label(x.label), x.class),
                },
                crate::plan::socket::SocketStep::RawSource(r) => {
                    format!("{pad}next chunk of {} into {}", r.file.source(), r.name)
                }
            }),
            Step::Fifo(q) => out.push(match &q.action {
                crate::plan::flow::FifoAction::Put(v) => {
                    format!("{pad}put {} into queue {}", v.source(), q.queue.source())
                }
                crate::plan::flow::FifoAction::Pop { name, .. } => {
                    format!("{pad}take {name} from queue {}", q.queue.source())
                }
            }),
            Step::Critical(c) => {
                out.push(format!("{pad}one user at a time (lock {}):", c.lock.source()));
                steps(p, &c.steps, depth + 1, out);
            }
            Step::Parallel(pl) => {
                out.push(format!("{pad}at the same time:"));
                for b in &pl.branches {
                    out.push(format!("{pad}  -"));
                    steps(p, b, depth + 2, out);
                }
            }
            Step::Runtime(r) => {
                out.push(format!("{pad}again and again for {} s:", r.seconds.source()));
                steps(p, &r.steps, depth + 1, out);
            }
            Step::Shuffle(s) => {
                out.push(format!("{pad}each once, in random order:"));
                for b in &s.branches {
                    out.push(format!("{pad}  -"));
                    steps(p, b, depth + 2, out);
                }
            }
            Step::Switch(s) => {
                out.push(format!("{pad}switch on {}:", s.value.source()));
                for (name, b) in &s.branches {
                    out.push(format!("{pad}  \"{name}\":"));
                    steps(p, b, depth + 2, out);
                }
            }
            Step::Throughput(t) => {
                out.push(format!("{pad}on {:?} of passes:", t.share));
                steps(p, &t.steps, depth + 1, out);
            }
        }
    }
}
