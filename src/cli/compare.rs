//! `stampede compare RUN_A RUN_B [RUN_C...]`: runs side by side, with differences from the
//! first weighed against the runs' own noise.

use crate::error::{exit, Error};
use crate::report::{self, compare::Layout};
use clap::{Args, ValueEnum};
use std::path::PathBuf;

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    Md,
    /// One self-contained page with the runs' charts overlaid.
    Html,
    Json,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum LayoutArg {
    /// A row per run under each label, differences beside ("Without OPA / With OPA").
    Rows,
    /// A row per label, each figure's runs side by side.
    Columns,
    /// A column per run: `Throughput/sec @ avg resp time` ("1 Server / 2 Servers").
    Scaling,
}

#[derive(Debug, Args)]
pub struct CompareArgs {
    /// Run directories or JMeter results files; the first is the baseline.
    #[arg(required = true, num_args = 2..)]
    pub runs: Vec<PathBuf>,
    /// Names for the runs, comma-separated, in order (default: their directory or file names).
    #[arg(long, value_name = "A,B,...")]
    pub names: Option<String>,
    #[arg(long, value_enum, default_value = "md")]
    pub format: Format,
    /// The Markdown table's shape.
    #[arg(long, value_enum, default_value = "rows")]
    pub layout: LayoutArg,
    /// Write to this file instead of standard output.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: Option<PathBuf>,
}

pub(super) fn execute(a: CompareArgs) -> Result<u8, Error> {
    let names: Vec<String> = match &a.names {
        Some(n) => {
            let names: Vec<String> = n.split(',').map(|s| s.trim().to_string()).collect();
            if names.len() != a.runs.len() || names.iter().any(String::is_empty) {
                return Err(Error::Usage(format!(
                    "--names gives {} name(s) for {} runs; give one non-empty name per run, comma-separated",
                    names.len(),
                    a.runs.len()
                )));
            }
            names
        }
        None => a
            .runs
            .iter()
            .map(|p| p.file_name().map_or_else(|| p.display().to_string(), |n| n.to_string_lossy().into_owned()))
            .collect(),
    };
    let sweeps = a.runs.iter().filter(|r| crate::sweep::is_sweep(r)).count();
    if sweeps == a.runs.len() {
        return compare_sweeps(&a, names);
    } else if sweeps > 0 {
        return Err(Error::Usage("compare sweeps with sweeps, or runs with runs (a step of a sweep is a run)".into()));
    }
    let mut loaded = Vec::new();
    let mut damaged = false;
    for path in &a.runs {
        let run = super::report::load(path)?;
        super::report::warn_watch(&run);
        damaged |= super::report::warn_damage(&run);
        loaded.push(run);
    }
    let runs: Vec<(String, String, &report::RunData)> =
        names.iter().zip(&a.runs).zip(&loaded).map(|((n, p), r)| (n.clone(), p.display().to_string(), r)).collect();
    let c = report::compare::compare(&runs);
    let text = match a.format {
        Format::Md => report::compare::markdown(
            &c,
            match a.layout {
                LayoutArg::Rows => Layout::Rows,
                LayoutArg::Columns => Layout::Columns,
                LayoutArg::Scaling => Layout::Scaling,
            },
        ),
        Format::Html => report::html::comparison(&c, &loaded.iter().collect::<Vec<_>>()),
        Format::Json => serde_json::to_string_pretty(&c).expect("a comparison serializes") + "\n",
    };
    super::report::write(a.output.as_deref(), &text)?;
    Ok(if damaged { exit::RUNTIME } else { exit::OK })
}

/// Sweeps side by side: a column per sweep at each load (Markdown), their charts overlaid
/// (HTML), or their records (JSON).
fn compare_sweeps(a: &CompareArgs, names: Vec<String>) -> Result<u8, Error> {
    let records = a.runs.iter().map(|r| crate::sweep::read(r)).collect::<Result<Vec<_>, _>>().map_err(Error::Usage)?;
    if records.iter().any(|r| r.load != records[0].load) {
        return Err(Error::Usage("these sweeps vary different loads (users and rates): compare alike sweeps".into()));
    }
    let sweeps: Vec<(String, &crate::sweep::Record)> = names.into_iter().zip(&records).collect();
    let text = match a.format {
        Format::Md => crate::sweep::compare_markdown(&sweeps),
        Format::Html => report::sweep_html::document(&sweeps),
        Format::Json => {
            let named: Vec<serde_json::Value> =
                sweeps.iter().map(|(n, r)| serde_json::json!({"name": n, "sweep": r})).collect();
            serde_json::to_string_pretty(&named).expect("records serialise") + "\n"
        }
    };
    super::report::write(a.output.as_deref(), &text)?;
    Ok(exit::OK)
}
