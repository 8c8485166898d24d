//! stampede: a load-testing and API-benchmarking tool with JMeter-grade numbers.
//!
//! # Architecture
//!
//! ```text
//!  plan.yaml / --url ─► plan::Plan ─► engine ─► record ─► rundir ─► report
//!                       scenarios,    executors,  per-thread     run directory:   tables
//!                       workloads,    virtual     HDR histograms meta, interval    (Markdown,
//!                       flows         users, HTTP merged exactly log, summary      terminal)
//! ```
//!
//! - [`plan`]: the one in-memory model and its readers (YAML, CLI quick mode).
//! - [`engine`]: runs a plan: closed and open executors, virtual users, the HTTP client, and the
//!   collector that hands out one [`record::Interval`] per second.
//! - [`record`]: samples, per-label stats (HDR histograms + counters) and the lock-free recorder.
//! - [`run`]: runs a plan with a set of outputs (run directory, progress line, JTL writer, or
//!   one's own), judges its thresholds, measures the generator.
//! - [`rundir`]: the run directory, the only thing reports read; crash-safe interval log.
//! - [`report`]: pure functions from run data to text (the seed documents' table shape).
//! - [`progress`]: the live progress line.
//! - [`redact`]: the one rule for secrets, applied to everything written or printed.
//! - [`mock`]: the built-in upstream used for calibration and the demo.
//! - [`cli`]: argument parsing and the subcommands; the only module that touches the process.
//!
//! Dependencies point one way: `cli` → everything; `engine` → `plan`, `record`;
//! `rundir` → `record`; `report` → `rundir`; `plan` and `record` depend on nothing of ours
//! (but `record` names `plan::LabelId`, a plain index).

pub mod cli;
pub mod engine;
pub mod error;
pub mod http1;
pub mod metric;
pub mod mock;
pub mod plan;
pub mod progress;
pub mod record;
pub mod redact;
pub mod report;
pub mod run;
pub mod rundir;
