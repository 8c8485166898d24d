//! The process's exit codes (stable, documented in the README) and the top-level error.

/// Exit codes. They are part of stampede's interface: scripts and CI branch on them.
pub mod exit {
    /// The run completed (whatever its error rate; thresholds decide pass/fail).
    pub const OK: u8 = 0;
    /// A threshold failed (`run`, or `report` judging a run or results file).
    pub(crate) const THRESHOLDS_FAILED: u8 = 1;
    /// Bad command line or plan: nothing was sent.
    pub(crate) const USAGE: u8 = 2;
    /// The run could not be carried out or its results not written (I/O, runtime failure).
    pub const RUNTIME: u8 = 3;
    /// Stopped by Ctrl-C or SIGTERM; everything measured until then was written.
    pub(crate) const INTERRUPTED: u8 = 130;
}

/// What can end a command, mapped to an exit code by `main`.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The plan could not be read.
    #[error("{0}")]
    Plan(#[from] crate::plan::Error),
    /// The command line asks for something that cannot be done.
    #[error("{0}")]
    Usage(String),
    /// A run directory could not be read or written.
    #[error("{0}")]
    RunDir(#[from] crate::rundir::Error),
    /// The run could not be carried out: an output could not start, the engine could not.
    #[error("{0}")]
    Run(#[from] crate::run::Error),
    /// The demo's bundled mock configuration is wrong (a broken build).
    #[error("bundled mock config: {0}")]
    Mock(#[from] crate::mock::ConfigError),
    /// The process could not do something it needs (listen on a socket), in its own words.
    #[error("{what}: {source}")]
    Io {
        /// What it was doing.
        what: String,
        /// What went wrong.
        source: std::io::Error,
    },
}

impl Error {
    /// The process exit code for this error (see [`exit`]).
    pub fn exit_code(&self) -> u8 {
        match self {
            Error::Plan(_)
            | Error::Usage(_)
            | Error::RunDir(crate::rundir::Error::Merge(_) | crate::rundir::Error::Cannot(_)) => exit::USAGE,
            Error::RunDir(_) | Error::Run(_) | Error::Mock(_) | Error::Io { .. } => exit::RUNTIME,
        }
    }
}

/// A JMeter command line refused is bad input, as a bad `run` command line is.
impl From<crate::jmeter_cli::Error> for Error {
    fn from(e: crate::jmeter_cli::Error) -> Error {
        Error::Usage(e.0)
    }
}

/// A report that cannot be made: bad input, or a run directory that does not read.
impl From<crate::report::compose::Error> for Error {
    fn from(e: crate::report::compose::Error) -> Error {
        use crate::report::compose::Error as Report;
        match e {
            Report::Refused(m) => Error::Usage(m),
            Report::RunDir(e) => Error::RunDir(e),
        }
    }
}

/// A sweep's own errors are those a run's command had before the sweep was a library: the same
/// messages and exit codes.
impl From<crate::sweep::driver::Error> for Error {
    fn from(e: crate::sweep::driver::Error) -> Error {
        use crate::sweep::driver::Error as Sweep;
        match e {
            Sweep::Usage(m) => Error::Usage(m),
            Sweep::RunDir(e) => Error::RunDir(e),
            Sweep::Io { what, source } => Error::Io { what, source },
        }
    }
}
