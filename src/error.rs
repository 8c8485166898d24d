//! The process's exit codes (stable, documented in the README) and the top-level error.

/// Exit codes. They are part of stampede's interface: scripts and CI branch on them.
pub mod exit {
    /// The run completed (whatever its error rate; thresholds decide pass/fail).
    pub const OK: u8 = 0;
    /// A threshold failed (`run`, or `report` judging a run or results file).
    pub const THRESHOLDS_FAILED: u8 = 1;
    /// Bad command line or plan: nothing was sent.
    pub const USAGE: u8 = 2;
    /// The run could not be carried out or its results not written (I/O, runtime failure).
    pub const RUNTIME: u8 = 3;
    /// Stopped by Ctrl-C or SIGTERM; everything measured until then was written.
    pub const INTERRUPTED: u8 = 130;
}

/// What can end a command, mapped to an exit code by `main`.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("{0}")]
    Plan(#[from] crate::plan::Error),
    #[error("{0}")]
    Usage(String),
    #[error("{0}")]
    RunDir(#[from] crate::rundir::Error),
    #[error("{0}")]
    Runtime(String),
}

impl Error {
    pub fn exit_code(&self) -> u8 {
        match self {
            Error::Plan(_) | Error::Usage(_) => exit::USAGE,
            Error::RunDir(_) | Error::Runtime(_) => exit::RUNTIME,
        }
    }
}
