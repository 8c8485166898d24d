//! `stampede report RUN`: a run directory (finished or interrupted) or a JMeter results file,
//! as Markdown, JSON or CSV.

use crate::error::{exit, Error};
use crate::report;
use crate::rundir;
use clap::{Args, ValueEnum};
use std::path::PathBuf;

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// The seed documents' table with the run's facts under it.
    Md,
    /// The shape of a run's summary.json (`total` and `labels`).
    Json,
    /// A row per label, the Total first.
    Csv,
}

#[derive(Debug, Args)]
pub struct ReportArgs {
    /// A run directory (as written by `stampede run --out DIR`), or a JMeter results file
    /// (JTL/CSV with JMeter's default columns, with or without its header line).
    pub run: PathBuf,
    #[arg(long, value_enum, default_value = "md")]
    pub format: Format,
    /// Write the report to this file instead of standard output.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: Option<PathBuf>,
}

pub fn execute(a: ReportArgs) -> Result<u8, Error> {
    let (meta, summary) = if a.run.is_dir() {
        let run = rundir::read_run(&a.run)?;
        (run.meta, run.summary)
    } else {
        // A results file that cannot be read is bad input, as a bad plan is.
        let imported = report::jtl_import::import(&a.run).map_err(|e| Error::Usage(e.to_string()))?;
        (imported.meta, imported.summary)
    };
    let text = match a.format {
        Format::Md => format!("{}\n{}", report::table(&summary), report::facts(&meta, &summary)),
        Format::Json => {
            let mut s = serde_json::to_string_pretty(&summary).expect("a summary serializes");
            s.push('\n');
            s
        }
        Format::Csv => report::csv::table(&summary),
    };
    match &a.output {
        Some(path) => {
            std::fs::write(path, text.as_bytes())
                .map_err(|source| Error::from(rundir::Error::Io { path: path.clone(), source }))?;
        }
        None => super::say(text.trim_end_matches('\n')),
    }
    Ok(exit::OK)
}
