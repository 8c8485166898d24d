#![warn(unreachable_pub, missing_docs)]
//! stampede: a load-testing and API-benchmarking tool with JMeter-grade numbers.
//!
//! # The map
//!
//! ```text
//!   plan.yaml / plan.jmx / --url                                        summary.json, intervals.jsonl
//!        │                                                                    │
//!        ▼                                                                    ▼
//!   plan::Plan ──► run::Run ──► engine::run ──► record ──► Interval/s ──► run::Output s ──► rundir ──► report
//!   (readers +     (outputs,    (executors,     (samples,   (one per      (run directory,   (the only   (Markdown,
//!    builder)       thresholds,  segments,       HDR        second)       progress line,    thing       HTML, CSV,
//!                   signals in)  users, HTTP)    stats)                   JTL, your own)    reports     compare)
//!                                                                                           read)
//! ```
//!
//! Data flows left to right. Dependencies point one way, and `layering.rs` is a test that fails
//! on an import against them:
//!
//! ```text
//!   cli      ─► everything
//!   run      ─► engine, plan, record, rundir      progress ─► run, record
//!   engine   ─► plan, record                       report   ─► rundir, record, sweep
//!   rundir   ─► record                             mock     ─► http1, mirror
//!   sweep    ─► rundir, plan, run::judge, report  dist     ─► run, engine, plan, record, rundir
//!   export   ─► run, record                       launch   ─► run, dist, engine, plan, rundir, outputs
//!   watch    ─► run, rundir, record
//!   record   ─► plan::LabelId only (a dense index fixed at load)
//!   jmeter_cli ─► plan (its properties files)
//!   plan     ─► nothing of ours but the leaves (metric, redact, confine, http1, mirror, script),
//!              which every module may use
//! ```
//!
//! The rooms, in the order data passes through them:
//!
//! - [`plan`]: the one in-memory model of a load test, and its readers: YAML (positioned, every
//!   error at file:line:column), JMX (one file per element family) and quick mode, all through
//!   one builder (`plan::build`). Nothing downstream knows a file format.
//! - [`run`]: runs a plan with a set of [`run::Output`]s — the run directory, the progress line,
//!   JMeter results files, or one's own — judges its thresholds, measures the generator. Where
//!   sweeps, agents, live metrics and target monitoring plug in: a run is carried out by the
//!   local engine or by agents (`run::Remote`, `dist::controller::Agents`), its outputs
//!   and goals the same either way.
//! - `engine`: turns a plan (or a `engine::segment::Segment` of it) into traffic: executors
//!   for the closed and open models over a user factory, virtual users, the HTTP client; hands
//!   out one [`record::Interval`] per second.
//! - [`record`]: samples, per-label stats (HDR histograms + counters, merged exactly) and the
//!   lock-free recorder.
//! - [`rundir`]: the run directory, the only thing reports read: crash-safe interval log,
//!   meta, summary; JMeter results files (write, read, import); merging runs.
//! - [`report`]: pure functions from run data to text (the seed documents' table shape, HTML
//!   with charts, comparisons).
//! - [`progress`]: the live progress line, an output of the run; `export`: live metrics out
//!   (Prometheus remote write and `/metrics`, InfluxDB, OTLP/HTTP), outputs of the run too.
//! - `sweep`: what is read across the steps of a sweep (its record, the knee, the USL fit),
//!   and its driver, the steps run one after another through a runner (local, or on agents);
//!   `dist`: a run's parts on several machines, one protocol both ways.
//! - Leaves that depend on nothing of ours: `metric` (the figures goals and comparisons
//!   name), `redact` (the one rule for secrets), `confine` (the one rule for where a plan's
//!   files may lead: no link out of its directory), `http1` (HTTP/1 framing and reason phrases;
//!   `http1::client`, the small blocking client `export` and `watch` send with),
//!   `mirror` (JMeter's HTTP Mirror Server: `stampede mock --mirror`, and a script's
//!   `HttpMirrorServer`, so the engine does not depend on the mock).
//! - `script`: the script interpreter (Groovy, BeanShell/Java, JavaScript, JEXL for JMeter's
//!   JSR223, BeanShell and `__groovy`-family elements), a crate of its own (`crates/script`,
//!   `stampede_script`) that depends on nothing of stampede's; the engine and the plan's
//!   functions implement its `Host`.
//! - `watch`: the system under test's resources (`run --watch`: `/proc`, Prometheus
//!   endpoints and queries), sampled beside the load into the run directory; an output of the run.
//! - `mock`: the built-in upstream for calibration, the demo and tests.
//! - `jmeter_cli`: JMeter's non-GUI command line (`stampede jmeter`), read as JMeter reads it and
//!   translated into a run or a report.
//! - `launch`: a run as a command asks for it, composed once: its run directory claimed, its
//!   part or agents, the outputs picked (progress, `--watch`, `--export`), carried out under the
//!   process's interrupts, its outcome's exit code; what `run`, `sweep`, `demo` and `jmeter` share.
//! - [`cli`]: argument parsing, picking the outputs, printing, exit codes. [`error`]: the
//!   top-level error and the exit codes.
//!
//! `docs/architecture.md` says where each kind of new feature goes.
//!
//! # The library's API
//!
//! The binary is a thin `main` over [`cli`]; the library is there too for a program that runs
//! load itself. Its API is what such a program needs, and nothing else is `pub`: every other
//! item is `pub(crate)` (`layering::pub_items_do_not_grow` keeps the count from growing back),
//! and every `pub` item has a doc comment (`missing_docs`).
//!
//! - A plan: [`plan::Plan::load`], [`plan::Plan::load_with`] (with [`plan::LoadOptions`]) or
//!   [`plan::Plan::from_yaml_str`] read one, [`plan::QuickPlan`] makes one from a URL and a few
//!   numbers (quick mode); what goes wrong is a [`plan::Error`] at a [`plan::Location`]. The plan
//!   is opaque: its model (steps, samplers, templates, workloads) is the crate's, free to change.
//! - A run: [`run::Run`] runs a plan with [`run::RunOptions`] and a set of [`run::Output`]s (one's
//!   own, or [`run::RunDirOutput`], [`run::JtlOutput`], [`progress::Progress`]) and returns a
//!   [`run::RunResult`]. [`run::Output`] is three required methods (`name`, `interval`, `finish`);
//!   the others are optional, with defaults that do nothing. An output reads each second as a
//!   [`record::Interval`] of [`record::LabelStats`]. See the example in [`run`].
//! - A run's results: [`rundir::read_run`] reads a run directory's facts ([`rundir::RunMeta`])
//!   and numbers ([`rundir::Summary`]).
//! - Reports: [`report::load`] reads a run directory as a report sees it, and
//!   [`report::markdown::document`] and [`report::html::document`] render it.
//! - The binary's: [`cli::Cli`], [`cli::run`] and [`cli::argv`], [`error::Error`] and the exit
//!   codes in [`error::exit`].
//!
//! `internals` is hidden and is not API: what the fuzz targets, the script benchmark and the
//! soak generators drive directly.

pub mod cli;
pub(crate) mod confine;
pub(crate) mod dist;
pub(crate) mod engine;
pub mod error;
pub(crate) mod export;
mod http1;
mod jmeter_cli;
pub(crate) mod launch;
pub(crate) mod metric;
pub(crate) mod mirror;

#[cfg(test)]
mod layering;
pub(crate) mod mock;
pub mod plan;
pub mod progress;
pub mod record;
pub(crate) mod redact;
pub mod report;
pub mod run;
pub mod rundir;
// The interpreter, a crate of its own (crates/script); named `script` here as it was a module.
pub(crate) use stampede_script as script;
pub(crate) mod sweep;
pub(crate) mod watch;

/// Not API, and not covered by any promise: the internals the fuzz targets (`tests/fuzz`), the
/// script benchmark (`benches/script.rs`), the soak generators (`examples/soak_*.rs`) and a
/// synthetic run (`tests/integration/compare.rs`) drive directly, because the API reaches them
/// only through a whole run.
#[doc(hidden)]
pub mod internals {
    pub use crate::plan::csv_data::{read_csv, CsvOptions};
    pub use crate::plan::jmx::{read as read_jmx, Options as JmxOptions};
    pub use crate::plan::script_host::{CTX, FIRST_FREE, LOG, PROPS, VARS};
    pub use crate::plan::template::{Scope, VarId};
    pub use crate::record::interval::Tally;
    pub use crate::rundir::copy::PartCopy;
    pub use crate::rundir::writer::{IntervalLines, Place, RunWriter};

    /// Calls a method of one of the objects every script shares (`vars`, `props`, `log`, `ctx`),
    /// its log lines and prints dropped; `None` when `target` is not one of them.
    pub fn call_shared<S: Scope>(
        scope: &mut S,
        target: crate::script::HostRef,
        method: &str,
        args: Vec<crate::script::Value>,
        lang: crate::script::Lang,
    ) -> Option<Result<crate::script::Value, crate::script::Thrown>> {
        crate::plan::script_host::call_shared(scope, target, method, args, lang, &mut |_, _| {}, &mut |_| {})
    }

    /// A template compiled as a sampler's path is (variables and `${__functions}`), to be
    /// rendered as each request renders it: what the template benchmark times.
    pub struct CompiledTemplate(crate::plan::template::Template);

    impl CompiledTemplate {
        /// Compiles `src` against empty symbols; the error is the plan reader's message.
        pub fn compile(src: &str) -> Result<CompiledTemplate, String> {
            let mut sym = crate::plan::template::Symbols::default();
            crate::plan::template::compile(src, &mut sym, "bench").map(CompiledTemplate).map_err(|e| e.to_string())
        }

        /// Renders the template for `scope` into `out`, as a request renders its path.
        pub fn render<S: Scope>(&self, scope: &mut S, out: &mut String) {
            self.0.render(scope, out)
        }
    }

    /// What a run does with a plan before it sends: each scenario's flow compiled into the
    /// engine's program, its workload described, the plan resolved for the run directory.
    pub fn prepare(plan: &crate::plan::Plan) {
        let _ = plan.to_resolved_yaml();
        for s in &plan.scenarios {
            let _ = crate::engine::program::Program::compile(&s.flow);
            let _ = s.workload.describe();
        }
    }
}
