//! `stampede check PLAN`: reads a YAML or JMX plan without sending anything and prints what it
//! will do; for a JMX, every element with its status.

use super::plan_args::PlanArgs;
use crate::engine::program::Program;
use crate::error::{exit, Error};
use crate::plan::jmx::{ElementReport, Status};
use crate::plan::{self, Body, Plan, Step};
use clap::Args;
use std::fmt::Write as _;
use std::path::PathBuf;

#[derive(Debug, Args)]
pub struct CheckArgs {
    /// A YAML or JMX plan.
    pub plan: PathBuf,
    #[command(flatten)]
    pub plan_args: PlanArgs,
}

pub(super) fn execute(a: CheckArgs) -> Result<u8, Error> {
    let mut opts = a.plan_args.load_options()?;
    // A plan whose data files live on another machine can still be checked.
    opts.lenient_files = true;
    match Plan::load_with(&a.plan, &opts) {
        Ok(loaded) => {
            let mut out = String::new();
            if let Some(elements) = &loaded.elements {
                out.push_str(&elements_table(elements));
                out.push('\n');
            }
            out.push_str(&describe(&loaded.plan));
            out.push_str("\nThe plan can run.\n");
            // Values from the environment and secret-named properties, wherever they landed.
            super::say(&loaded.plan.secrets.scrub(&out));
            Ok(exit::OK)
        }
        Err(e) => {
            // For a JMX refused for its unsupported elements, still show every element.
            if !opts.skip_unsupported && e.message.contains("--skip-unsupported") {
                let skip = plan::LoadOptions { skip_unsupported: true, ..opts.clone() };
                if let Ok(loaded) = Plan::load_with(&a.plan, &skip) {
                    if let Some(elements) = &loaded.elements {
                        let unsupported = elements.iter().map(|r| match r.status {
                            Status::Skipped => ElementReport { status: Status::Unsupported, ..r.clone() },
                            _ => r.clone(),
                        });
                        super::say(&elements_table(&unsupported.collect::<Vec<_>>()));
                    }
                }
            }
            Err(e.into())
        }
    }
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
        "{} supported, {} partial, {} ignored, {} disabled, {} skipped, {} unsupported",
        count(Status::Supported),
        count(Status::Partial),
        count(Status::Ignored),
        count(Status::Disabled),
        count(Status::Skipped),
        count(Status::Unsupported)
    );
    out
}

/// A warning for each scenario left with nothing to send (every sampler disabled or
/// skipped): its users end at once, as JMeter ends a thread without samplers.
pub(super) fn idle_warnings(p: &Plan) -> Vec<String> {
    p.scenarios
        .iter()
        .filter(|s| Program::compile(&s.flow).idle)
        .map(|s| {
            format!("warning: scenario \"{}\" has no request to send: its users end at once (as JMeter's threads without a sampler)", s.name)
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
            d.rows.len(),
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
