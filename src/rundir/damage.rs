//! Cross-checks of a run directory's log: its tiers (the seconds, each roll-up, the tail; see
//! [`super::LogFormat`]) against each other and against `summary.json`. Each tier holds the
//! same run at its own grain, so their sums must agree exactly; a tier missing, cut, out of
//! order, or a `log` in `meta.json` that does not describe the files, would otherwise make a
//! report count less than the run measured, silently. What does not hold together is a
//! [`Damage`] naming the file; the reader then says so with the lower bound it could count.
//!
//! Only counts are read (where each line starts and ends and its Total's samples), most without
//! parsing the line, so a check costs a scan of the files, not a parse.

use super::{rollup_file, LogFormat, RunMeta, INTERVALS, META, TAIL};
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

/// A file of a run directory's log that does not hold together with the rest.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Damage {
    pub path: PathBuf,
    pub problem: String,
}

impl Damage {
    /// The warning a report gives: the file, what is wrong, and what the figures summed from the
    /// log count (`read` samples) against what `summary.json` records, when the run has one.
    pub(crate) fn warning(&self, read: u64, recorded: Option<u64>) -> String {
        let bound = match recorded {
            Some(m) => format!(
                "read from the log (charts, --from/--to, --every, merges) it counts {read} of the {m} samples summary.json records: a lower bound"
            ),
            None => format!("with no summary.json, its figures ({read} samples) are a lower bound"),
        };
        format!("{}: {}; {bound}", self.path.display(), self.problem)
    }
}

/// What a check reads of a line: its span and its Total's samples.
#[derive(Debug, Clone, Copy)]
struct Counts {
    start_us: u64,
    end_us: u64,
    samples: u64,
}

/// One file of the log, as counted.
struct Tier {
    file: String,
    /// 0: seconds.
    width_us: u64,
    exists: bool,
    lines: Vec<Counts>,
    /// Line numbers (1-based) of lines that are not lines of a log, and whether the last one
    /// is the file's last line (a write cut short).
    broken: Vec<usize>,
    last_broken: bool,
}

impl Tier {
    fn read(dir: &Path, file: &str, width_us: u64) -> Tier {
        let mut t = Tier {
            file: file.to_string(),
            width_us,
            exists: false,
            lines: Vec::new(),
            broken: Vec::new(),
            last_broken: false,
        };
        let Ok(f) = std::fs::File::open(dir.join(file)) else { return t };
        t.exists = true;
        let mut reader = BufReader::with_capacity(1 << 20, f);
        let mut bytes = Vec::new();
        let mut n = 0;
        loop {
            bytes.clear();
            // A line past what the reader takes is the reader's error; here it is broken.
            match reader.by_ref().take(MAX_LINE).read_until(b'\n', &mut bytes) {
                Ok(0) | Err(_) => break,
                Ok(_) => {}
            }
            n += 1;
            // A line that is not UTF-8 is broken, and the lines after it are still counted:
            // stopping there would report the damage smaller than it is.
            let Ok(text) = std::str::from_utf8(&bytes) else {
                t.broken.push(n);
                t.last_broken = true;
                continue;
            };
            if text.trim().is_empty() {
                continue;
            }
            match counts(text) {
                Some(c) => {
                    t.lines.push(c);
                    t.last_broken = false;
                }
                None => {
                    t.broken.push(n);
                    t.last_broken = true;
                }
            }
        }
        t
    }

    fn sum(&self, until_us: u64) -> u128 {
        self.lines.iter().filter(|l| l.end_us <= until_us).map(|l| u128::from(l.samples)).sum()
    }

    fn total(&self) -> u128 {
        self.sum(u64::MAX)
    }

    /// Where its lines end (0 with none).
    fn end_us(&self) -> u64 {
        self.lines.iter().map(|l| l.end_us).max().unwrap_or(0)
    }

    fn width_s(&self) -> u64 {
        self.width_us / 1_000_000
    }
}

const MAX_LINE: u64 = 64 << 20;

/// A line's counts, from the fields a run writes first and its Total (written last) without
/// parsing the rest; a line written otherwise is parsed.
fn counts(text: &str) -> Option<Counts> {
    let number = |key: &str, from: &str| -> Option<u64> {
        let at = from.find(key)? + key.len();
        let digits = from[at..].trim_start();
        let end = digits.find(|c: char| !c.is_ascii_digit()).unwrap_or(digits.len());
        digits[..end].parse().ok()
    };
    let fast = || -> Option<Counts> {
        let head = text.get(..text.len().min(96))?;
        let total = &text[text.rfind("\"total\":{\"label\":\"Total\",")?..];
        // The line must be whole: a cut one has no closing brace of its own.
        if !text.trim_end().ends_with("}}") {
            return None;
        }
        Some(Counts {
            start_us: number("\"start_us\":", head)?,
            end_us: number("\"end_us\":", head)?,
            samples: number("\"samples\":", total)?,
        })
    };
    fast().or_else(|| {
        #[derive(serde::Deserialize)]
        struct Samples {
            samples: u64,
        }
        #[derive(serde::Deserialize)]
        struct Line {
            start_us: u64,
            end_us: u64,
            #[serde(default)]
            labels: Vec<Samples>,
            total: Option<Samples>,
        }
        let l: Line = serde_json::from_str(text).ok()?;
        let samples = match l.total {
            Some(t) => t.samples,
            None => l.labels.iter().map(|s| s.samples).fold(0u64, u64::saturating_add),
        };
        Some(Counts { start_us: l.start_us, end_us: l.end_us, samples })
    })
}

fn secs(us: u64) -> String {
    format!("{} s", us as f64 / 1e6)
}

/// Checks the log of the run in `dir` (`recorded`: the samples its `summary.json` records, when
/// it finished). Every problem found, each naming its file.
pub(crate) fn check(dir: &Path, meta: &RunMeta, recorded: Option<u64>) -> Vec<Damage> {
    let mut out = Vec::new();
    let mut damage = |file: &str, problem: String| out.push(Damage { path: dir.join(file), problem });
    let finished = recorded.is_some();
    let Some(format) = &meta.log else {
        // Every second in one file (a run of before roll-ups).
        let seconds = Tier::read(dir, INTERVALS, 0);
        let none = LogFormat { version: 2, seconds_kept_s: 0, rollups_s: Vec::new() };
        for (_, problem) in extra_rollups(dir, &none) {
            damage(META, format!("{problem}, and no log layout: a reader takes every second to be in {INTERVALS}"));
        }
        for (file, problem) in in_itself(&seconds, finished, None) {
            damage(&file, problem);
        }
        if let Some(m) = recorded.filter(|_| seconds.exists) {
            if seconds.total() != u128::from(m) {
                damage(INTERVALS, format!("its lines hold {} samples, summary.json {m}", seconds.total()));
            }
        }
        return out;
    };
    let kept_us = format.seconds_kept_s.saturating_mul(1_000_000);
    // Coarsest first, the seconds last: a run still being written puts a second in the seconds
    // before any roll-up's line holds it, and a finer line before a coarser one, so a tier read
    // later is never behind one read before it.
    let mut rollups: Vec<Tier> =
        format.rollups_s.iter().rev().map(|w| Tier::read(dir, &rollup_file(*w), w.saturating_mul(1_000_000))).collect();
    rollups.reverse();
    let seconds = Tier::read(dir, INTERVALS, 0);
    for (file, problem) in extra_rollups(dir, format) {
        damage(&file, problem);
    }
    for t in std::iter::once(&seconds).chain(&rollups) {
        if !t.exists {
            damage(&t.file, "missing: a run writes it from its start".into());
        }
        for (file, problem) in in_itself(t, finished, Some(kept_us)) {
            damage(&file, problem);
        }
    }
    let present: Vec<&Tier> = rollups.iter().filter(|t| t.exists).collect();
    match recorded {
        Some(m) => {
            // Each roll-up holds the whole run.
            for t in &present {
                if t.total() != u128::from(m) {
                    damage(&t.file, format!("its lines hold {} samples, summary.json {m}", t.total()));
                }
            }
            // The seconds kept are the first lines of any whole roll-up whose lines they fill.
            let whole = present.iter().find(|t| t.total() == u128::from(m) && kept_us % t.width_us.max(1) == 0);
            if let Some(r) = whole.filter(|_| seconds.exists) {
                let first = r.lines.iter().filter(|l| l.start_us < kept_us).map(|l| u128::from(l.samples)).sum();
                if seconds.total() != first {
                    damage(
                        INTERVALS,
                        format!(
                            "its lines hold {} samples, but the first {} ({META}'s log says it keeps them) hold {first} in {}",
                            seconds.total(),
                            secs(kept_us),
                            r.file
                        ),
                    );
                }
            }
        }
        None => {
            // A killed run: each tier as far as it got. A finer one is written first, so it
            // reaches at least as far as a coarser one; where both reach, they agree.
            let mut finer: Vec<&Tier> = Vec::new();
            if seconds.exists {
                finer.push(&seconds);
            }
            for b in &present {
                for a in &finer {
                    let (a_end, b_end) = (a.end_us(), b.end_us());
                    // The seconds reach only as far as they are kept: past that, a coarser
                    // line is the finest roll-up's and the tail's.
                    if b_end > a_end && (a.width_us > 0 || a_end < kept_us) {
                        damage(
                            &a.file,
                            format!(
                                "its lines end at {}, before those of {} (to {}): lines are missing",
                                secs(a.end_us()),
                                b.file,
                                secs(b_end)
                            ),
                        );
                        continue;
                    }
                    let upto = b.lines.iter().map(|l| l.end_us).filter(|e| *e <= a_end).max().unwrap_or(0);
                    let (sa, sb) = (a.sum(upto), b.sum(upto));
                    if sa != sb {
                        let (short, other) = if sa < sb { (a, b) } else { (b, a) };
                        damage(
                            &short.file,
                            format!(
                                "its lines to {} hold {} samples, those of {} {}",
                                secs(upto),
                                sa.min(sb),
                                other.file,
                                sa.max(sb)
                            ),
                        );
                    }
                }
                finer.push(b);
            }
        }
    }
    if finished && dir.join(TAIL).exists() {
        // A finished run's seconds are all in its roll-ups: its writer removes the tail.
        let tail = Tier::read(dir, TAIL, 0);
        if !tail.lines.is_empty() {
            damage(TAIL, "the run finished, and yet its tail is there: it may be another run's".into());
        }
    }
    out.sort_by(|a, b| a.path.cmp(&b.path));
    out.dedup_by(|a, b| a.path == b.path);
    out
}

/// What is wrong with a tier by itself: broken lines, lines out of order, lines that do not fit
/// its width (or, for the seconds, start past those kept).
fn in_itself(t: &Tier, finished: bool, kept_us: Option<u64>) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let file = || t.file.clone();
    for n in &t.broken {
        let last = t.last_broken && Some(n) == t.broken.last();
        // A killed run's last line may be cut short by its death; a finished run's is whole.
        if last && !finished {
            continue;
        }
        let what = if last { "is cut short" } else { "is not a line of a log" };
        out.push((file(), format!("line {n} {what}")));
    }
    for (i, w) in t.lines.windows(2).enumerate() {
        let (a, b) = (w[0], w[1]);
        // Seconds by their start, a roll-up's lines by the line of its width each starts in.
        let (out_of_order, one_line) = match (b.start_us.checked_div(t.width_us), a.start_us.checked_div(t.width_us)) {
            (Some(kb), Some(ka)) => (kb < ka, kb == ka),
            _ => (b.start_us <= a.start_us, false),
        };
        if one_line {
            out.push((
                file(),
                format!(
                    "two of its lines start in one line of {} s (at {} and {}): {META}'s log does not describe this file",
                    t.width_s(),
                    secs(a.start_us),
                    secs(b.start_us)
                ),
            ));
            break;
        }
        if out_of_order {
            out.push((
                file(),
                format!(
                    "its lines are out of order: one starts at {}, after one at {} (line {} of its lines)",
                    secs(b.start_us),
                    secs(a.start_us),
                    i + 2
                ),
            ));
            break;
        }
    }
    if t.width_us > 0 {
        // A line ends where its last second ended: past its bucket by less than a second (a
        // second's end is a little after its nominal end; merged seconds are offset).
        let past = |l: &&Counts| l.end_us > (l.start_us / t.width_us + 1).saturating_mul(t.width_us) + 1_000_000;
        if let Some(l) = t.lines.iter().find(past) {
            out.push((
                file(),
                format!(
                    "a line spans {} to {}, more than the {} s of its lines: {META}'s log does not describe this file",
                    secs(l.start_us),
                    secs(l.end_us),
                    t.width_s()
                ),
            ));
        }
    } else if let Some(kept) = kept_us {
        if let Some(l) = t.lines.iter().find(|l| l.start_us >= kept) {
            out.push((
                file(),
                format!(
                    "a line starts at {}, past the first {} that {META}'s log says it keeps",
                    secs(l.start_us),
                    secs(kept)
                ),
            ));
        }
    }
    out
}

/// Roll-up files in `dir` that `format` does not list: a `log` in `meta.json` that leaves a
/// tier out would have a reader skip it.
fn extra_rollups(dir: &Path, format: &LogFormat) -> Vec<(String, String)> {
    let Ok(entries) = std::fs::read_dir(dir) else { return Vec::new() };
    let mut out = Vec::new();
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        let width =
            name.strip_prefix("intervals-").and_then(|r| r.strip_suffix("s.jsonl")).and_then(|w| w.parse().ok());
        if let Some(w) = width.filter(|w: &u64| !format.rollups_s.contains(w)) {
            out.push((
                META.to_string(),
                format!("its log lists roll-ups of {:?} s, but the directory has {name} ({w} s) too", format.rollups_s),
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rundir::reader::{read_run_with, Grain};
    use crate::rundir::writer::tests::{long_run, sum, temp_dir};
    use crate::rundir::{merge, SECONDS_KEPT_S};

    fn damage_of(dir: &Path) -> (Vec<String>, u64) {
        let mut read = 0;
        let run = read_run_with(dir, Grain::SECOND, |iv| read += iv.total.samples).unwrap();
        (run.summary.damage, read)
    }

    fn drop_line(dir: &Path, file: &str, n: usize) {
        let text = std::fs::read_to_string(dir.join(file)).unwrap();
        let kept: String = text.lines().enumerate().filter(|(i, _)| *i != n).map(|(_, l)| format!("{l}\n")).collect();
        std::fs::write(dir.join(file), kept).unwrap();
    }

    #[test]
    fn issue31_whole_logs_finished_or_killed_anywhere_have_no_damage() {
        let kept = SECONDS_KEPT_S;
        for (seconds, finish) in [(kept + 150, true), (kept + 90, false), (kept + 121, false), (30, false)] {
            let dir = temp_dir("whole");
            let witness = sum(&long_run(&dir.0, seconds, finish));
            let (damage, read) = damage_of(&dir.0);
            assert_eq!((damage, read), (Vec::<String>::new(), witness.samples), "{seconds} s, finished: {finish}");
        }
    }

    #[test]
    fn issue31_a_tier_short_of_lines_is_named_finished_or_killed_and_so_is_its_merge() {
        let kept = SECONDS_KEPT_S;
        for finish in [true, false] {
            let dir = temp_dir("short-tier");
            let witness = sum(&long_run(&dir.0, kept + 150, finish));
            // A minute in the middle of the seconds kept is gone from the 60-s roll-up.
            drop_line(&dir.0, &rollup_file(60), 10);
            let (damage, read) = damage_of(&dir.0);
            assert_eq!(damage.len(), 1, "{damage:?}");
            let path = dir.0.join(rollup_file(60)).display().to_string();
            assert!(damage[0].starts_with(&format!("{path}: ")), "{damage:?}");
            let bound = if finish {
                format!("counts {read} of the {} samples summary.json records", witness.samples)
            } else {
                format!("its figures ({read} samples) are a lower bound")
            };
            assert!(damage[0].contains(&bound), "{damage:?}");
            // Read as one of several runs (merge, report of parts): the same warning.
            let other = temp_dir("short-tier-other");
            long_run(&other.0, 30, true);
            let merged = merge::read_many(&[&dir.0, &other.0], Grain::SECOND, |_, _| {}).unwrap();
            assert_eq!(merged.summary.damage.len(), 1, "{:?}", merged.summary.damage);
            assert!(merged.summary.damage[0].starts_with(&format!("{path}: ")), "{:?}", merged.summary.damage);
        }
    }

    #[test]
    fn issue31_a_line_that_is_not_utf8_is_broken_and_the_lines_after_it_count() {
        let dir = temp_dir("not-utf8");
        long_run(&dir.0, 30, true);
        let whole = Tier::read(&dir.0, INTERVALS, 0);
        assert!(whole.broken.is_empty() && whole.lines.len() >= 10, "{:?}", whole.broken);
        let path = dir.0.join(INTERVALS);
        let mut bytes = std::fs::read(&path).unwrap();
        // An invalid byte inside line 3.
        let third = bytes.iter().enumerate().filter(|(_, b)| **b == b'\n').nth(1).unwrap().0 + 5;
        bytes[third] = 0xff;
        std::fs::write(&path, bytes).unwrap();
        let t = Tier::read(&dir.0, INTERVALS, 0);
        assert_eq!((t.broken.clone(), t.last_broken, t.lines.len()), (vec![3], false, whole.lines.len() - 1));
        let problems = in_itself(&t, true, None);
        assert!(problems.iter().any(|(f, p)| f == INTERVALS && p == "line 3 is not a line of a log"), "{problems:?}");
    }

    #[test]
    fn issue31_a_log_that_leaves_out_a_tier_it_has_names_meta_json() {
        let dir = temp_dir("lying-log");
        long_run(&dir.0, 100, true);
        let path = dir.0.join(META);
        let mut meta: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        meta["log"]["rollups_s"] = serde_json::json!([60, 600]);
        std::fs::write(&path, meta.to_string()).unwrap();
        let (damage, _) = damage_of(&dir.0);
        assert!(
            damage
                .iter()
                .any(|d| d.starts_with(&format!("{}: ", path.display())) && d.contains("intervals-3600s.jsonl")),
            "{damage:?}"
        );
    }
}
