//! `stampede report DIR`: the results table again, from a run directory.

use crate::error::{exit, Error};
use crate::report;
use crate::rundir;
use clap::Args;
use std::path::PathBuf;

#[derive(Debug, Args)]
pub struct ReportArgs {
    /// A run directory (as written by `stampede run --out DIR`).
    pub dir: PathBuf,
}

pub fn execute(a: ReportArgs) -> Result<u8, Error> {
    let run = rundir::read_run(&a.dir)?;
    super::say(&format!("{}\n{}", report::table(&run.summary), report::facts(&run.meta, &run.summary)));
    Ok(exit::OK)
}
