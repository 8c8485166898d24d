//! Reports: pure functions from what a run directory (or a JMeter results file, read by
//! `rundir::jtl`) holds to text — Markdown, HTML with SVG charts, CSV, JUnit, comparisons.
//! `stampede run` prints its end-of-run table through the same functions `stampede report` uses
//! on a directory. Depends on `rundir` only (and `record` for its stats); it judges nothing
//! (`crate::run::judge::evaluate` does) and writes no files.

pub(crate) mod compare;
pub(crate) mod compose;
pub(crate) mod csv;
pub mod html;
pub(crate) mod imported;
pub(crate) mod jmeter;
pub(crate) mod junit;
pub(crate) mod lost;
pub mod markdown;
pub(crate) mod series;
pub(crate) mod svg;
pub(crate) mod sweep_html;
pub(crate) mod thresholds;
pub(crate) mod watch;

pub(crate) use markdown::{facts, table};

use crate::rundir::reader::Grain;
use crate::rundir::{self, Model, RunMeta, Summary};
use series::{IntervalView, Series, SeriesBuilder};
use std::path::Path;

/// One run as every report sees it: facts, numbers, and the run over time.
#[derive(Debug)]
pub struct RunData {
    /// The run's facts (`meta.json`).
    pub meta: RunMeta,
    /// The run's numbers (`summary.json`, or rebuilt from the interval log).
    pub summary: Summary,
    /// The run over time, as the charts draw it.
    pub(crate) series: Series,
    /// The agents a run on agents lost (its `lost.json`), when it lost any.
    pub(crate) lost: Option<rundir::lost::Lost>,
}

/// What a report can be made from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SourceKind {
    RunDir,
    ResultsFile,
}

pub(crate) fn source_kind(path: &Path) -> SourceKind {
    if path.is_dir() {
        SourceKind::RunDir
    } else {
        SourceKind::ResultsFile
    }
}

/// Reads a run directory (finished, interrupted or killed) or a JMeter results file, in one
/// streaming pass.
pub fn load(path: &Path) -> Result<RunData, rundir::Error> {
    match source_kind(path) {
        SourceKind::RunDir => load_runs(&[path]),
        SourceKind::ResultsFile => imported::load(&[path]),
    }
}

/// Reads run directories as one run, exactly: their interval logs' histograms and counters
/// add up (one directory reads as [`load`] reads it).
pub fn load_runs(dirs: &[&Path]) -> Result<RunData, rundir::Error> {
    load_runs_window(dirs, None)
}

/// [`load_runs`] of the intervals that start in `window` (µs from the run's start, `from..to`)
/// only: the numbers and charts of that part of the run (its steady state, say), summed from
/// the interval log whatever `summary.json` says.
pub(crate) fn load_runs_window(dirs: &[&Path], window: Option<std::ops::Range<u64>>) -> Result<RunData, rundir::Error> {
    Ok(load_runs_cut(dirs, window, None)?.0)
}

/// How a report cuts a run into windows for its tables over time (`report --every 1h`,
/// `--windows 10`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Cut {
    /// Windows of this many µs (rounded up to whole seconds: intervals are), from the start
    /// (of the run, or of `--from`).
    Every(u64),
    /// At most this many equal windows over the run (or over `--from`/`--to`), each a whole
    /// number of seconds (10 s in 6 windows are 5 of 2 s).
    Windows(u32),
}

/// One window of a table over time: the intervals that start in `from_us..to_us` (µs from
/// the run's start), summed exactly.
#[derive(Debug, Clone, serde::Serialize)]
pub(crate) struct Window {
    #[serde(rename = "from_s", serialize_with = "as_secs")]
    pub from_us: u64,
    /// The end of the last interval in it (at most the window's end).
    #[serde(rename = "to_s", serialize_with = "as_secs")]
    pub to_us: u64,
    pub summary: Summary,
}

fn as_secs<S: serde::Serializer>(us: &u64, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_f64(*us as f64 / 1e6)
}

/// [`load_runs_window`], and with `cut` the window's numbers cut into [`Window`]s, in one pass
/// over the logs (two for [`Cut::Windows`] of a run whose length `meta.json` does not give).
pub(crate) fn load_runs_cut(
    dirs: &[&Path],
    window: Option<std::ops::Range<u64>>,
    cut: Option<Cut>,
) -> Result<(RunData, Vec<Window>), rundir::Error> {
    let mut open = false;
    let mut length_us = Some(0u64);
    let mut metas = Vec::with_capacity(dirs.len());
    for dir in dirs {
        let meta = rundir::reader::read_meta(dir)?;
        open |= meta.scenarios.iter().any(|s| s.model == Model::Open);
        length_us = length_us.zip(meta.duration_s).map(|(l, d)| l.max((d * 1e6).ceil() as u64));
        metas.push(meta);
    }
    // The run's end on its clock: from meta.json, else (a killed run) from its coarsest lines.
    let mut known_end = length_us.filter(|_| dirs.len() == 1);
    let mut end_us = || -> Result<u64, rundir::Error> {
        if known_end.is_none() {
            known_end = Some(rundir::merge::end_us(dirs)?);
        }
        Ok(known_end.unwrap_or_default())
    };
    let from = window.as_ref().map_or(0, |w| w.start);
    // A run directory of roll-ups (see rundir::LogFormat) keeps its seconds for its first hour:
    // past them, its finest lines are minutes.
    let rolled = metas.iter().any(|m| m.log.is_some());
    let end = if rolled || matches!(cut, Some(Cut::Windows(_))) { Some(end_us()?) } else { None };
    let kept = kept_us(&metas);
    let finest = finest_rollup_us(&metas);
    let stop = window.as_ref().map_or(u64::MAX, |w| w.end).min(end.unwrap_or(u64::MAX));
    let width = match cut {
        None => u64::MAX,
        Some(Cut::Every(us)) => us.div_ceil(1_000_000).max(1).saturating_mul(1_000_000),
        Some(Cut::Windows(n)) => {
            // Whole seconds, whole minutes past the seconds kept: a window must not split a line.
            let unit = if stop > kept { finest } else { 1_000_000 };
            stop.saturating_sub(from).div_ceil(u64::from(n.max(1))).div_ceil(unit).max(1) * unit
        }
    };
    if cut.is_some() {
        let end = stop.min(length_us.unwrap_or(u64::MAX));
        if end != u64::MAX && end.saturating_sub(from) / width >= MAX_WINDOWS as u64 {
            return Err(rundir::Error::Cannot(format!(
                "more than {MAX_WINDOWS} windows of {} s: give a longer --every, or --from/--to",
                width / 1_000_000
            )));
        }
    }
    // Every time the report cuts the run at, before the run's end.
    let mut edges: Vec<(String, u64)> = Vec::new();
    if let Some(w) = &window {
        edges.push(("--from".into(), w.start));
        edges.push(("--to".into(), w.end));
    }
    if let Some(cut) = cut.filter(|_| rolled) {
        let what = match cut {
            Cut::Every(_) => format!("--every {} s", width / 1_000_000),
            Cut::Windows(n) => format!("--windows {n} (of {} s)", width / 1_000_000),
        };
        let mut at = from;
        while at < stop && edges.len() <= MAX_WINDOWS + 2 {
            at = at.saturating_add(width);
            edges.push((format!("{what} from {} s puts a window's edge", from as f64 / 1e6), at));
        }
    }
    edges.retain(|(_, at)| *at < end.unwrap_or(u64::MAX));
    if let Some((flag, at)) = edges.iter().find(|(_, at)| *at > kept && at % finest != 0) {
        return Err(rundir::Error::Cannot(format!(
            "{flag} at {} s: this run keeps its seconds for its first {} s, and lines of {} s past them: a time past {} s must be a whole multiple of {} s",
            *at as f64 / 1e6,
            kept / 1_000_000,
            finest / 1_000_000,
            kept / 1_000_000,
            finest / 1_000_000
        )));
    }
    let grain = match end.filter(|_| rolled) {
        Some(end) => {
            let stop = stop.min(end);
            match coarsest_for(&metas, stop.saturating_sub(from), &edges, MIN_CHART_POINTS) {
                // Seconds then minutes would chart unevenly and batch the noise unevenly: past
                // the seconds kept by more than a line, minutes throughout where the edges let.
                Grain::SECOND if stop > kept.saturating_add(finest) => {
                    coarsest_for(&metas, finest, &edges, 1).min(Grain(finest / 1_000_000))
                }
                g => g,
            }
        }
        None => Grain::SECOND,
    };
    let mut builder = if open { SeriesBuilder::for_open_workload() } else { SeriesBuilder::default() };
    let mut tally = crate::record::Tally::new(0, 0);
    let mut cuts: Vec<(crate::record::Tally, u64)> = Vec::new();
    let mut run = rundir::merge::read_runs_with(dirs, grain, |iv| {
        if window.as_ref().is_some_and(|w| !w.contains(&iv.start_us)) {
            return;
        }
        if cut.is_some() {
            let k = usize::try_from(iv.start_us.saturating_sub(from) / width).unwrap_or(usize::MAX);
            if k < MAX_WINDOWS {
                if cuts.len() <= k {
                    cuts.resize_with(k + 1, || (crate::record::Tally::new(0, 0), 0));
                }
                let (t, end) = &mut cuts[k];
                for (i, s) in &iv.labels {
                    *t.label_mut(*i) += s;
                }
                t.total += &iv.total;
                *end = (*end).max(iv.end_us);
            }
        }
        if window.is_some() {
            for (i, s) in &iv.labels {
                *tally.label_mut(*i) += s;
            }
            tally.total += &iv.total;
        }
        add(&mut builder, iv);
    })?;
    let windows = cuts
        .iter()
        .enumerate()
        .filter(|(_, (_, end))| *end > 0)
        .map(|(k, (t, end))| {
            let start = from + k as u64 * width;
            Window {
                from_us: start,
                to_us: (*end).min(start.saturating_add(width)),
                summary: rundir::Summary::from_tally(t, &run.meta.labels, &run.meta.checks, &[], run.summary.complete),
            }
        })
        .collect();
    if let Some(w) = &window {
        let thresholds = std::mem::take(&mut run.summary.thresholds);
        let damage = std::mem::take(&mut run.summary.damage);
        // The scenarios' counts are the whole run's: a window has the labels' numbers only.
        run.summary =
            rundir::Summary::from_tally(&tally, &run.meta.labels, &run.meta.checks, &[], run.summary.complete);
        run.summary.thresholds = thresholds;
        run.summary.damage = damage;
        let to = if w.end == u64::MAX { String::new() } else { format!(" to {} s", w.end as f64 / 1e6) };
        run.meta.plan_name = format!("{} (from {} s{to})", run.meta.plan_name, w.start as f64 / 1e6);
    }
    let series = builder.finish(&run.meta.labels);
    // One run's watch log; parts merged from several generators have none (`--watch` is a
    // single process's).
    if let [dir] = dirs {
        let span = window.as_ref().map(|w| w.start as f64 / 1e6..w.end as f64 / 1e6);
        run.summary.watch = rundir::watch::read_summary_window(dir, span)?;
    }
    // A run on agents that lost one says so; several runs read as one are not that run.
    let lost = match dirs {
        [dir] => rundir::lost::read(dir)?,
        _ => None,
    };
    Ok((RunData { meta: run.meta, summary: run.summary, series, lost }, windows))
}

/// The fewest chart points a report reads a long run's log for: it reads the coarsest roll-up
/// that still gives this many over what it shows (a 60-hour run: its 10-minute lines).
const MIN_CHART_POINTS: u64 = 200;

/// The coarsest roll-up all of `metas` keep that gives `points` over `span_us` and on whose
/// lines every edge falls; else a second.
fn coarsest_for(metas: &[RunMeta], span_us: u64, edges: &[(String, u64)], points: u64) -> Grain {
    let Some(first) = metas.first().and_then(|m| m.log.as_ref()) else { return Grain::SECOND };
    let mut widths: Vec<u64> = first
        .rollups_s
        .iter()
        .copied()
        .filter(|w| metas.iter().all(|m| m.log.as_ref().is_some_and(|l| l.rollups_s.contains(w))))
        .collect();
    widths.sort_unstable_by(|a, b| b.cmp(a));
    widths
        .into_iter()
        .find(|w| {
            let us = w.saturating_mul(1_000_000);
            span_us / us >= points && edges.iter().all(|(_, at)| at % us == 0)
        })
        .map_or(Grain::SECOND, Grain)
}

/// The width of the finest roll-up of the runs in `metas` (µs): what they keep past their seconds.
fn finest_rollup_us(metas: &[RunMeta]) -> u64 {
    let widths = metas.iter().filter_map(|m| m.log.as_ref()).filter_map(|l| l.rollups_s.iter().min().copied());
    widths.max().unwrap_or(1).saturating_mul(1_000_000)
}

/// How far every run in `metas` keeps every second (µs).
fn kept_us(metas: &[RunMeta]) -> u64 {
    metas
        .iter()
        .map(|m| m.log.as_ref().map_or(u64::MAX, |l| l.seconds_kept_s.saturating_mul(1_000_000)))
        .min()
        .unwrap_or(u64::MAX)
}

/// The most windows a table over time has: a window past it is left out (far more rows than
/// any document holds; `--every 1s` of a day is 86,400).
pub(crate) const MAX_WINDOWS: usize = 100_000;

/// Adds a logged interval to a report's series.
fn add(builder: &mut SeriesBuilder, iv: &rundir::reader::LoggedInterval) {
    builder.add(&IntervalView {
        start_us: iv.start_us,
        end_us: iv.end_us,
        total: &iv.total,
        labels: iv.labels.iter().map(|(i, s)| (*i, s)).collect(),
        active_users: iv.active_users,
        last: iv.last,
    })
}

/// Text escaped for XML and HTML (text and attribute values); characters XML 1.0 forbids (most
/// C0 controls) are dropped and line breaks become spaces. Names in reports come from users'
/// plans and results files, so everything they write goes through here.
pub(crate) fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\t' | '\n' | '\r' => out.push(' '),
            c if (c as u32) < 0x20 || c == '\u{FFFE}' || c == '\u{FFFF}' => {}
            c => out.push(c),
        }
    }
    out
}

/// Whether keep-alive was in effect, from connections opened against requests sent: the check
/// the seed studies had to make by hand. `None` when nothing was sent. A run directory always
/// records the connections it opened; a results file shows a connection only as a Connect time
/// above 0 ms (JMeter writes 0 for a reused one, and for a loopback connect under 1 ms).
pub(crate) fn keep_alive(meta: &RunMeta, t: &rundir::LabelSummary) -> Option<String> {
    if t.samples == 0 {
        return None;
    }
    let verdict = if t.connections_opened == 0 {
        return Some(if records_connections(meta) {
            format!("none opened for {} requests: no request got as far as a connection (see the errors)", t.samples)
        } else {
            format!("not recorded for {} requests (the file has no Connect time above 0 ms)", t.samples)
        });
    } else if t.connections_opened >= t.samples {
        "keep-alive NOT in effect: every request opened a connection"
    } else {
        "keep-alive in effect"
    };
    Some(format!(
        "{} opened for {} requests ({:.1} requests per connection): {verdict}",
        t.connections_opened,
        t.samples,
        t.samples as f64 / t.connections_opened as f64
    ))
}

/// The open model's dispatch facts for a scenario: how late the generator sent arrivals, and
/// how many it could not dispatch at all; `None` for a closed scenario or an old run.
pub(crate) fn dispatch(sc: &crate::rundir::ScenarioSummary) -> Option<String> {
    let late = sc.dispatch_lateness;
    if late.is_none() && sc.undispatched_iterations == 0 {
        return None;
    }
    let mut text = match late {
        Some(l) => format!(
            "sent {:.3} ms after due on average (p50 {:.3}, p99 {:.3}, max {:.3} ms)",
            l.mean_ms, l.p50_ms, l.p99_ms, l.max_ms
        ),
        None => "no arrival sent".to_string(),
    };
    if sc.undispatched_iterations > 0 {
        text.push_str(&format!(
            "; {} arrivals not dispatched on time: the rate is beyond this generator",
            sc.undispatched_iterations
        ));
    }
    Some(text)
}

/// Whether the run's source counted every connection it opened: a run directory does; a
/// results file imported from elsewhere only shows the connects that took a whole millisecond.
pub(crate) fn records_connections(meta: &RunMeta) -> bool {
    meta.tool == crate::rundir::TOOL
}

/// The facts of a run made by several generators: a part's segment and start skew, or each
/// part of a merged run (where it came from, its samples, its generator's load), as rows.
pub(crate) fn part_facts(meta: &rundir::RunMeta) -> Vec<(String, String)> {
    let skew = |p: &rundir::PartMeta| match (&p.start_at, p.start_skew_ms) {
        (Some(at), Some(ms)) => format!("{ms:.1} ms after the common start {at}"),
        _ => String::new(),
    };
    let mut rows = Vec::new();
    if let Some(p) = &meta.part {
        let start = if p.start_skew_ms.is_some() { format!("; load started {}", skew(p)) } else { String::new() };
        let what =
            p.segment.as_ref().map_or_else(|| "the whole plan".to_string(), |s| format!("{s} of every workload"));
        let group = p.group.as_ref().map_or_else(String::new, |g| format!(" in group {g}"));
        rows.push(("Part".to_string(), format!("{what}{group}{start}")));
    }
    for (i, p) in meta.parts.iter().enumerate() {
        let key = match p.part.as_ref().and_then(|m| m.segment.as_ref()) {
            Some(seg) => format!("Part {seg}"),
            None => format!("Merged run {}", i + 1),
        };
        let mut on = p.host.clone();
        match (&p.agent, p.part.as_ref().and_then(|m| m.group.as_ref())) {
            (Some(a), Some(g)) => on.push_str(&format!(" (agent {a}, group {g})")),
            (Some(a), None) => on.push_str(&format!(" (agent {a})")),
            (None, Some(g)) => on.push_str(&format!(" (group {g})")),
            (None, None) => {}
        }
        let mut v = format!(
            "{} on {on}: {} samples, {} KO, {} connections, started {}",
            p.dir, p.samples, p.errors, p.connections, p.started_at
        );
        if let Some(m) = p.part.as_ref().filter(|m| m.start_skew_ms.is_some()) {
            v.push_str(&format!(" ({})", skew(m)));
        }
        if p.status != rundir::Status::Completed {
            v.push_str(&format!(" ({})", p.status.as_str()));
        }
        if let Some(g) = &p.generator {
            v.push_str(&format!("; generator {}", generator_load(g)));
        }
        rows.push((key, v));
    }
    rows
}

/// The load generator's own CPU and memory, with a warning when it was saturated, so a busy
/// generator is never mistaken for a slow server.
pub(crate) fn generator_load(g: &rundir::GeneratorUsage) -> String {
    format!(
        "CPU {:.0}% of {} cores ({:.1} s user + {:.1} s system), peak memory {:.1} MiB{}",
        g.cpu_pct_of_cores,
        g.cores,
        g.cpu_user_s,
        g.cpu_system_s,
        g.peak_rss_mib,
        if g.cpu_pct_of_cores > 90.0 { " — saturated: the numbers may understate the system" } else { "" }
    )
}

/// Errors by kind, most frequent first: the kind, its count, its share of the errors and of all
/// samples (percent).
pub(crate) fn error_rows(t: &rundir::LabelSummary) -> Vec<(&str, u64, f64, f64)> {
    let mut kinds: Vec<(&str, u64, f64, f64)> = t
        .errors_by_kind
        .iter()
        .map(|(k, n)| {
            (k.as_str(), *n, *n as f64 * 100.0 / t.errors.max(1) as f64, *n as f64 * 100.0 / t.samples.max(1) as f64)
        })
        .collect();
    kinds.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    kinds
}

#[cfg(test)]
mod tests {
    use super::*;

    fn meta(tool: &str) -> RunMeta {
        RunMeta {
            tool: tool.into(),
            version: String::new(),
            command_line: Vec::new(),
            plan_path: None,
            plan_name: "p".into(),
            host: String::new(),
            started_at: String::new(),
            ended_at: None,
            duration_s: None,
            status: crate::rundir::Status::Completed,
            interval_s: 1.0,
            scenarios: Vec::new(),
            labels: Vec::new(),
            checks: Vec::new(),
            generator: None,
            thresholds: Vec::new(),
            stopped_by: None,
            part: None,
            parts: Vec::new(),
            log: None,
            watch: Vec::new(),
        }
    }

    #[test]
    fn a_run_that_opened_no_connection_says_so_and_a_results_file_says_it_cannot_tell() {
        let stats = crate::record::LabelStats { samples: 5, ..Default::default() };
        let t = rundir::LabelSummary::from_stats("Total", &stats, &[]);
        let run = keep_alive(&meta(rundir::TOOL), &t).unwrap();
        assert!(run.starts_with("none opened for 5 requests") && !run.contains("not recorded"), "{run}");
        let file = keep_alive(&meta("JMeter results file"), &t).unwrap();
        assert!(file.starts_with("not recorded for 5 requests"), "{file}");
    }
}

#[cfg(test)]
mod long_run_tests {
    use super::*;
    use crate::rundir::writer::tests::{long_run, sum, temp_dir};
    use crate::rundir::{LabelSummary, SECONDS_KEPT_S};

    /// The figures of a row that must be exactly the witness's.
    fn row(s: &LabelSummary) -> (u64, u64, f64, f64, f64, f64, f64) {
        (s.samples, s.errors, s.mean_ms, s.max_ms, s.p50_ms, s.p99_ms, s.p999_ms)
    }

    fn witness(seconds: &[crate::record::LabelStats]) -> (u64, u64, f64, f64, f64, f64, f64) {
        row(&LabelSummary::from_stats("Total", &sum(seconds), &[]))
    }

    #[test]
    fn a_long_run_reports_from_its_rollups_exactly_and_refuses_windows_it_does_not_keep() {
        let kept = SECONDS_KEPT_S as usize;
        let dir = temp_dir("report-long");
        let seconds = long_run(&dir.0, kept as u64 + 1200, true);
        let s = |n: u64| n * 1_000_000;
        // Per 10 minutes, from the 10-minute lines: each window is its seconds' sum.
        let (run, windows) = load_runs_cut(&[&dir.0], None, Some(Cut::Every(s(600)))).unwrap();
        assert_eq!(windows.len(), 8);
        for (k, w) in windows.iter().enumerate() {
            assert_eq!(row(&w.summary.total), witness(&seconds[k * 600..(k + 1) * 600]), "window {k}");
        }
        assert_eq!(row(&run.summary.total), witness(&seconds));
        // Past the kept hour by more than a minute: the chart is of minutes throughout (not
        // seconds then minutes), to the end.
        assert_eq!(run.series.points.len(), 80);
        let last = run.series.points.last().unwrap();
        assert!((last.t_s + last.dur_s - 4800.0).abs() < 1.0, "{last:?}");
        // Any second inside the kept hour: the seconds are read (and the minutes past them).
        let run = load_runs_window(&[&dir.0], Some(s(90)..s(1001))).unwrap();
        assert_eq!(row(&run.summary.total), witness(&seconds[90..1001]));
        let run = load_runs_window(&[&dir.0], Some(s(90)..u64::MAX)).unwrap();
        assert_eq!(row(&run.summary.total), witness(&seconds[90..]));
        // Past it, whole minutes: exact from the minute lines; anything else is refused, named.
        let run = load_runs_window(&[&dir.0], Some(s(1800)..s(4020))).unwrap();
        assert_eq!(row(&run.summary.total), witness(&seconds[1800..4020]));
        for (window, cut, says) in [
            (Some(s(3690)..u64::MAX), None, "--from at 3690 s"),
            (Some(s(60)..s(3700)), None, "--to at 3700 s"),
            (None, Some(Cut::Every(s(90))), "--every 90 s from 0 s puts a window's edge at 3690 s"),
            (
                Some(s(30)..u64::MAX),
                Some(Cut::Windows(4)),
                "--windows 4 (of 1200 s) from 30 s puts a window's edge at 3630 s",
            ),
        ] {
            let e = load_runs_cut(&[&dir.0], window, cut).unwrap_err().to_string();
            assert!(e.contains(says) && e.contains("must be a whole multiple of 60 s"), "{e}");
        }
        // Past the run's end, any time.
        let run = load_runs_window(&[&dir.0], Some(s(1800)..s(100_001))).unwrap();
        assert_eq!(row(&run.summary.total), witness(&seconds[1800..]));
        // N equal windows past the kept hour are whole minutes each.
        let (_, windows) = load_runs_cut(&[&dir.0], None, Some(Cut::Windows(7))).unwrap();
        assert!(
            windows.iter().all(|w| w.from_us % s(60) == 0),
            "{:?}",
            windows.iter().map(|w| w.from_us).collect::<Vec<_>>()
        );
        let samples: u64 = windows.iter().map(|w| w.summary.total.samples).sum();
        assert_eq!(samples, sum(&seconds).samples);
    }
}
