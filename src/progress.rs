//! The live progress display, one more [`Output`] of a run: on a terminal a bar with a status
//! line that changes every second, elsewhere (CI logs) a plain line every 10 seconds at most;
//! and the run's notices (warnings, an output that failed), printed without breaking the bar.
//! It is the terminal's output: the one place below the CLI that prints during a run, and only
//! what the run hands it as an [`Output`]; nothing else calls it to print. Script log lines are
//! not among them (they go to the run directory's `scripts.log`).

use crate::record::{Interval, LabelStats};
use crate::run::{End, Output, OutputError, Start};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::time::{Duration, Instant};

/// The live progress line on stderr: a bar on a terminal, a line now and then otherwise; an output
/// of the run.
pub struct Progress {
    bar: Option<ProgressBar>,
    planned: Option<Duration>,
    plain: bool,
    last_line: Option<Instant>,
    samples: u64,
    errors: u64,
    /// The generator has already been said to be behind the rate.
    said_behind: bool,
    quiet: bool,
    /// A run on agents: how many, how many lost.
    agents: Option<(usize, usize)>,
}

/// How often a non-terminal gets a line.
const PLAIN_EVERY: Duration = Duration::from_secs(10);

impl Progress {
    /// A progress display for a run, drawn from its start. `quiet` shows nothing but notices.
    pub fn new(quiet: bool) -> Progress {
        Progress {
            bar: None,
            planned: None,
            plain: false,
            last_line: None,
            samples: 0,
            errors: 0,
            said_behind: false,
            quiet,
            agents: None,
        }
    }

    /// `planned` is the run's scheduled length, if it has one.
    fn begin(&mut self, planned: Option<Duration>) {
        let quiet = self.quiet;
        let tty = std::io::stderr().is_terminal();
        let bar = (!quiet && tty).then(|| {
            let len = planned.map_or(0, |d| d.as_secs().max(1));
            let bar = if planned.is_some() { ProgressBar::new(len) } else { ProgressBar::new_spinner() };
            bar.set_draw_target(ProgressDrawTarget::stderr());
            let template = if planned.is_some() { "{bar:16.cyan/blue} {msg}" } else { "{spinner} {msg}" };
            bar.set_style(ProgressStyle::with_template(template).expect("static template").progress_chars("█▉▊▋▌▍▎▏ "));
            bar
        });
        self.bar = bar;
        self.planned = planned;
        self.plain = !quiet && !tty;
    }

    /// Counts one more interval and redraws.
    pub fn update(&mut self, iv: &Interval) {
        let t: &LabelStats = &iv.total;
        self.samples += t.samples;
        self.errors += t.errors;
        let undispatched: u64 = iv.scenarios.iter().map(|s| s.undispatched).sum();
        if undispatched > 0 && !self.said_behind && !self.quiet {
            self.said_behind = true;
            self.notice(&format!(
                "warning: the generator cannot start arrivals at this rate on time: {undispatched} arrivals in the last \
                 interval were not sent (counted as undispatched; the run still ends on time)"
            ));
        }
        let secs = (iv.end_us.saturating_sub(iv.start_us)) as f64 / 1e6;
        let elapsed = Duration::from_micros(iv.end_us);
        let msg = self.line(
            elapsed,
            iv.active_users.iter().sum(),
            if secs > 0.0 { t.samples as f64 / secs } else { 0.0 },
            t.quantile_us(0.95),
        );
        if let Some(bar) = &self.bar {
            bar.set_position(elapsed.as_secs());
            bar.set_message(msg);
        } else if self.plain && !iv.last && self.last_line.is_none_or(|l| l.elapsed() >= PLAIN_EVERY) {
            self.last_line = Some(Instant::now());
            eprintln!("{msg}");
        }
    }

    fn line(&self, elapsed: Duration, users: u64, rps: f64, p95_us: u64) -> String {
        let e = elapsed.as_secs();
        let clock = match self.planned {
            Some(p) => format!("{e}s/{}s ({}s left)", p.as_secs(), p.as_secs().saturating_sub(e)),
            None => format!("{e}s"),
        };
        let pct = if self.samples > 0 { self.errors as f64 * 100.0 / self.samples as f64 } else { 0.0 };
        let agents = self.agents.map(|(of, lost)| format!(" · {}", agents(of, lost))).unwrap_or_default();
        format!(
            "{clock} · {users} users · {rps:.0} req/s · {} requests · {} KO ({pct:.2}%) · p95 {:.1} ms{agents}",
            self.samples,
            self.errors,
            p95_us as f64 / 1000.0
        )
    }

    /// Clears the bar.
    pub fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }

    /// Prints a notice without breaking the bar.
    pub fn notice(&self, msg: &str) {
        match &self.bar {
            Some(bar) => bar.println(msg),
            None => eprintln!("{msg}"),
        }
    }
}

impl Output for Progress {
    fn name(&self) -> &str {
        "progress line"
    }

    fn start(&mut self, start: &Start<'_>) -> Result<(), OutputError> {
        let planned = start
            .plan
            .scenarios
            .iter()
            .map(|s| s.workload.planned_duration())
            .try_fold(Duration::ZERO, |acc, d| d.map(|d| acc.max(d)));
        self.begin(planned);
        Ok(())
    }

    fn interval(&mut self, interval: &Interval) -> Result<(), OutputError> {
        self.update(interval);
        Ok(())
    }

    fn notice(&mut self, text: &str) {
        Progress::notice(self, text);
    }

    fn generators(&mut self, of: usize, lost: usize) {
        // A lost agent is news: a plain (non-terminal) line says it at the next second.
        if self.agents.is_some_and(|(_, before)| before != lost) {
            self.last_line = None;
        }
        self.agents = Some((of, lost));
    }

    fn finish(&mut self, _: &End<'_>) -> Result<(), OutputError> {
        Progress::finish(self);
        Ok(())
    }
}

/// The agents of a run on agents, as its progress line says them: `3 agents`, and once some
/// are lost the ones still sending, `2 of 3 agents`.
pub(crate) fn agents(n: usize, lost: usize) -> String {
    match lost {
        0 => format!("{n} agents"),
        lost => format!("{} of {n} agents", n.saturating_sub(lost)),
    }
}

impl Drop for Progress {
    /// A run that could not start leaves no bar behind.
    fn drop(&mut self) {
        Progress::finish(self);
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_line_of_a_run_on_agents_counts_those_still_sending() {
        assert_eq!(super::agents(3, 0), "3 agents");
        assert_eq!(super::agents(3, 1), "2 of 3 agents");
        assert_eq!(super::agents(3, 3), "0 of 3 agents");
    }
}
