//! What a command says when its run has ended: the results table and facts, the goals, what a
//! run on agents that lost one misses, the watched system's summary, and what went wrong
//! beside them. The caller prints it (results on stdout, the rest on stderr).

use super::Finished;
use crate::report;
use crate::run::RunDirOutput;
use crate::rundir;

/// A piece of what is said at a run's end.
#[derive(Debug, PartialEq)]
pub(crate) enum Said {
    /// The results, as they are (the command line's stdout).
    Out(String),
    /// A line beside them (a warning, an error: the command line's stderr).
    Note(String),
}

impl Finished {
    /// What is said at the run's end, in order. A run directory not written whole ends it
    /// early: nothing after would read.
    pub(crate) fn conclusion(&self) -> Vec<Said> {
        let (r, out) = (&self.result, self.dir.as_path());
        let mut said: Vec<Said> = self.watch_failures.iter().map(|w| Said::Note(format!("warning: {w}"))).collect();
        // The results file's failure first, as before the table.
        for e in r.failures.iter().filter(|f| f.output != RunDirOutput::NAME) {
            said.push(Said::Note(format!("error: {e}")));
        }
        said.push(Said::Out(format!("{}\n{}", report::table(&r.summary), report::facts(&r.meta, &r.summary))));
        said.push(Said::Out(report::thresholds::lines(&r.summary.thresholds)));
        // A run on agents that lost one says what its figures miss (`lost.json`, by the controller).
        match rundir::lost::read(out) {
            Ok(Some(lost)) => said.push(Said::Out(report::lost::terminal(&lost))),
            Ok(None) => {}
            Err(e) => said.push(Said::Note(format!("warning: {e}"))),
        }
        if self.out_of_fds() > 0 {
            said.push(Said::Note(format!(
                "warning: {} requests failed because the generator ran out of file descriptors (limit {}): \
                 those are not failures of the server; raise the limit with `ulimit -n`",
                self.out_of_fds(),
                self.fd_limit.map_or("unknown".into(), |l| l.to_string())
            )));
        }
        if let Some(e) = self.run_dir_failure() {
            said.push(Said::Note(format!("error: {e}")));
            return said;
        }
        if !r.meta.watch.is_empty() {
            match rundir::watch::read_summary(out) {
                Ok(Some(w)) => {
                    if let Some(why) = &w.warning {
                        said.push(Said::Note(format!("warning: {why}")));
                    }
                    said.push(Said::Out(format!("\n{}", report::watch::markdown(&w))))
                }
                Ok(None) => {}
                Err(e) => said.push(Said::Note(format!("warning: {e}"))),
            }
        }
        said.push(Said::Out(format!("Run directory: {}\n", out.display())));
        said
    }
}
