//! The `stampede` binary: parse the command line, build the runtime, run, map to an exit code.

use clap::Parser;
use stampede::cli::{self, Cli};
use std::process::ExitCode;

fn main() -> ExitCode {
    let cli = Cli::parse_from(cli::argv());
    // All cores (as the process's CPU affinity allows): virtual users are tasks spread over them.
    let runtime = match tokio::runtime::Builder::new_multi_thread().enable_all().build() {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("error: cannot start the runtime: {e}");
            return ExitCode::from(stampede::error::exit::RUNTIME);
        }
    };
    let result = runtime.block_on(cli::run(cli));
    // Users abandoned after the grace time may still hold sockets; don't wait for them.
    runtime.shutdown_background();
    match result {
        Ok(code) => ExitCode::from(code),
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(e.exit_code())
        }
    }
}
