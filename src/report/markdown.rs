//! The results table in the shape of the seed documents
//! (`API | Samples | KO | Error % | Average | ... | Received | Sent`, Total row first), as
//! Markdown that reads well in a terminal and pastes straight into a document; the run's facts
//! (keep-alive check, errors by kind, dropped iterations, generator load); and the whole report
//! as one Markdown document.

use super::RunData;
use crate::rundir::{LabelSummary, Model, RunMeta, Status, Summary};
use std::fmt::Write;

/// The report as a document: what ran, the results table, and what stands behind the numbers
/// (connections, errors by kind, dropped iterations, the generator's load, thresholds).
pub fn document(run: &RunData) -> String {
    let (meta, summary) = (&run.meta, &run.summary);
    let t = &summary.total;
    let mut out = String::new();
    let _ = writeln!(out, "### {}\n", cell(&meta.plan_name));
    if let Some(lost) = &run.lost {
        out.push_str(&super::lost::markdown(lost));
    }
    let _ = writeln!(out, "| Run | |\n|:--|:--|");
    let mut plan = cell(&meta.plan_name);
    if let Some(p) = &meta.plan_path {
        let _ = write!(plan, " (`{}`)", cell(&p.replace('`', "'")));
    }
    let _ = writeln!(out, "| Plan | {plan} |");
    let _ = writeln!(out, "| Started | {} |", when(&meta.started_at));
    if let Some(d) = meta.duration_s {
        let _ = writeln!(out, "| Duration | {} |", duration(d));
    }
    let status = if summary.complete && meta.status != Status::Interrupted {
        meta.status.to_string()
    } else {
        format!(
            "{} — figures are from the intervals it recorded",
            if meta.status == Status::Running { "did not finish" } else { meta.status.as_str() }
        )
    };
    let _ = writeln!(out, "| Status | {status} |");
    if let Some(why) = &meta.stopped_by {
        let _ = writeln!(out, "| Stopped by | {} |", cell(why));
    }
    for sc in &meta.scenarios {
        let _ = writeln!(out, "| Workload ({}) | {} |", cell(&sc.name), cell(&sc.workload));
    }
    let tool = format!("{} {}", meta.tool, meta.version);
    let generator =
        if meta.host.is_empty() { tool.trim().to_string() } else { format!("{}, {}", cell(&meta.host), tool.trim()) };
    let _ = writeln!(out, "| Generator | {generator} |");
    if let Some(g) = summary.generator.or(meta.generator) {
        let _ = writeln!(out, "| Generator load | {} |", super::generator_load(&g));
    }
    for (k, v) in super::part_facts(meta) {
        let _ = writeln!(out, "| {} | {} |", cell(&k), cell(&v));
    }
    let _ = writeln!(out, "\n{}", table(summary));
    let _ = writeln!(out, "Times in ms; Received and Sent in KB/s.\n");
    if let Some(k) = super::keep_alive(meta, t) {
        let _ = writeln!(out, "**Connections:** {k}.\n");
    }
    if t.samples > 0 {
        let _ = writeln!(out, "{}\n{TIMING_NOTE}\n", timing_table(summary));
    }
    if let Some(table) = upstream_table(summary) {
        let _ = writeln!(out, "{table}\n{UPSTREAM_NOTE}\n");
    }
    for sc in summary.scenarios.iter().filter(|s| s.model == Model::Open) {
        let arrivals = sc.dropped_iterations + sc.iterations;
        let _ = writeln!(
            out,
            "**Dropped iterations ({}):** {} of {arrivals} arrivals{}.\n",
            cell(&sc.name),
            sc.dropped_iterations,
            if sc.dropped_iterations > 0 {
                " found no free user (raise max_users, or the system is slower than the rate)"
            } else {
                ""
            }
        );
        if let Some(d) = super::dispatch(sc) {
            let _ = writeln!(out, "**Dispatch ({}):** {d}.\n", cell(&sc.name));
        }
    }
    if !t.errors_by_kind.is_empty() {
        let _ = writeln!(out, "| Error | Count | % of errors | % of samples |\n|:--|--:|--:|--:|");
        for (k, n, of_errors, of_samples) in super::error_rows(t) {
            let _ = writeln!(out, "| {} | {n} | {of_errors:.2}% | {of_samples:.2}% |", cell(k));
        }
        out.push('\n');
    }
    if !summary.thresholds.is_empty() {
        let _ = writeln!(out, "| Threshold | Measured | Result |\n|:--|--:|:--|");
        for r in &summary.thresholds {
            let seen = r.actual.map_or_else(|| "no samples".to_string(), |a| format!("{a:.2}"));
            let _ =
                writeln!(out, "| {} | {seen} | {} |", cell(&r.threshold), if r.passed { "pass" } else { "**FAIL**" });
        }
        out.push('\n');
    }
    if let Some(w) = &summary.watch {
        out.push_str(&super::watch::markdown(w));
    }
    out
}

/// Text made safe for a Markdown table cell.
pub(crate) fn cell(s: &str) -> String {
    s.replace('|', "\\|").replace(['\n', '\r'], " ")
}

/// `2026-11-22T10:00:00.123Z` → `2026-11-22 10:00:00 UTC`.
pub(crate) fn when(rfc3339: &str) -> String {
    match rfc3339.get(..19) {
        Some(head) if rfc3339.ends_with('Z') => format!("{} UTC", head.replace('T', " ")),
        Some(head) => head.replace('T', " "),
        None => rfc3339.to_string(),
    }
}

/// `3.0 s`, `22 min 5 s`, `9 h 20 min`.
pub(crate) fn duration(s: f64) -> String {
    if s < 60.0 {
        return format!("{s:.1} s");
    }
    let whole = s.round() as u64;
    let (h, m, sec) = (whole / 3600, whole / 60 % 60, whole % 60);
    match (h, sec) {
        (0, 0) => format!("{m} min"),
        (0, _) => format!("{m} min {sec} s"),
        _ => format!("{h} h {m} min"),
    }
}

pub(crate) const HEADER: [&str; 14] = [
    "API",
    "Samples",
    "KO",
    "Error %",
    "Average",
    "Min",
    "Max",
    "Median",
    "90th pct",
    "95th pct",
    "99th pct",
    "Transactions/s",
    "Received",
    "Sent",
];

/// A row's figures as the table shows them (2 decimals; Error % with its sign), label excluded.
pub(crate) fn numbers(s: &LabelSummary) -> [String; 13] {
    let f = |x: f64| format!("{x:.2}");
    [
        s.samples.to_string(),
        s.errors.to_string(),
        format!("{:.2}%", s.error_pct),
        f(s.mean_ms),
        f(s.min_ms),
        f(s.max_ms),
        f(s.p50_ms),
        f(s.p90_ms),
        f(s.p95_ms),
        f(s.p99_ms),
        f(s.throughput_rps),
        f(s.received_kbps),
        f(s.sent_kbps),
    ]
}

fn row(s: &LabelSummary) -> [String; 14] {
    let [a, b, c, d, e, f, g, h, i, j, k, l, m] = numbers(s);
    [cell(&s.label), a, b, c, d, e, f, g, h, i, j, k, l, m]
}

/// The table: times in ms, Received/Sent in KB/s. Columns are padded so the Markdown source is
/// itself readable.
pub(crate) fn table(summary: &Summary) -> String {
    let rows: Vec<[String; 14]> = std::iter::once(&summary.total).chain(&summary.labels).map(row).collect();
    padded(&HEADER, &rows)
}

/// Tables over time (`report --every 1h`): for the Total, then each label (in the order of
/// `rows`), a row per window with the figures of the main table, the seed's soak tables.
pub(crate) fn over_time(windows: &[super::Window], rows: &[String]) -> String {
    let mut out = String::new();
    let mut head = HEADER;
    head[0] = "Window";
    for name in rows {
        let lines: Vec<[String; 14]> = windows
            .iter()
            .filter_map(|w| {
                let s = if name == crate::metric::TOTAL {
                    Some(&w.summary.total)
                } else {
                    w.summary.labels.iter().find(|l| &l.label == name)
                }?;
                let [a, b, c, d, e, f, g, h, i, j, k, l, m] = numbers(s);
                Some([span(w.from_us, w.to_us), a, b, c, d, e, f, g, h, i, j, k, l, m])
            })
            .collect();
        if lines.is_empty() {
            continue;
        }
        out.push_str(&format!("\n#### {}\n\n{}", cell(name), padded(&head, &lines)));
    }
    out
}

/// `01:00:00–02:00:00`: a window as times since the run's start.
pub(crate) fn span(from_us: u64, to_us: u64) -> String {
    let hms = |us: u64| {
        let s = us / 1_000_000;
        format!("{:02}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
    };
    format!("{}–{}", hms(from_us), hms(to_us.div_ceil(1_000_000) * 1_000_000))
}

/// Connect time and time to first byte beside elapsed, per label: where a slow response spent
/// its time (a ~1 s connect from a full SYN backlog shows here, not only in the maxima).
pub(crate) const TIMING_HEADER: [&str; 11] = [
    "API",
    "Average",
    "99th pct",
    "Max",
    "Latency avg",
    "Latency 99th",
    "Latency max",
    "Connections",
    "Connect avg",
    "Connect 99th",
    "Connect max",
];

/// A row's timing figures (2 decimals, `—` where not recorded or no connection), label excluded.
pub(crate) fn timing_numbers(s: &LabelSummary) -> [String; 10] {
    let f = |x: f64| format!("{x:.2}");
    let opt = |x: Option<f64>| x.map_or_else(|| "—".to_string(), f);
    let connected = s.connections_opened > 0 || s.p99_connect_ms.is_some();
    [
        f(s.mean_ms),
        f(s.p99_ms),
        f(s.max_ms),
        f(s.mean_latency_ms),
        opt(s.p99_latency_ms),
        opt(s.max_latency_ms),
        s.connections_opened.to_string(),
        if connected { f(s.mean_connect_ms) } else { "—".into() },
        opt(s.p99_connect_ms),
        opt(s.max_connect_ms),
    ]
}

/// The timing table: a row per label, the Total first; times in ms.
pub(crate) fn timing_table(summary: &Summary) -> String {
    let rows: Vec<Vec<String>> = std::iter::once(&summary.total)
        .chain(&summary.labels)
        .map(|s| std::iter::once(cell(&s.label)).chain(timing_numbers(s)).collect())
        .collect();
    padded(&TIMING_HEADER, &rows)
}

/// Where the timing table's figures come from, under it.
pub(crate) const TIMING_NOTE: &str =
    "Elapsed, latency (time to first byte) and connect times in ms; connect times over the \
     samples that opened a connection.";

/// Upstream time vs the overhead in front of it, per label whose responses told the
/// upstream's time (through a gateway, a proxy, a sidecar).
pub(crate) const UPSTREAM_HEADER: [&str; 11] = [
    "API",
    "With timing",
    "Total avg",
    "Upstream avg",
    "Upstream 95th",
    "Upstream max",
    "Overhead avg",
    "Overhead 95th",
    "Overhead 99th",
    "Overhead max",
    "Overhead %",
];

/// A row's upstream split (2 decimals), label excluded; `None` for a row without one.
pub(crate) fn upstream_numbers(s: &LabelSummary) -> Option<[String; 10]> {
    let u = s.upstream.as_ref()?;
    let f = |x: f64| format!("{x:.2}");
    let share = if u.mean_total_ms > 0.0 { u.mean_overhead_ms * 100.0 / u.mean_total_ms } else { 0.0 };
    Some([
        format!("{} of {}", u.samples, s.samples),
        f(u.mean_total_ms),
        f(u.mean_ms),
        f(u.p95_ms),
        f(u.max_ms),
        f(u.mean_overhead_ms),
        f(u.p95_overhead_ms),
        f(u.p99_overhead_ms),
        f(u.max_overhead_ms),
        format!("{share:.1}%"),
    ])
}

/// The upstream table (rows with a split, the Total first), or `None` when no response told
/// the upstream's time.
pub(crate) fn upstream_table(summary: &Summary) -> Option<String> {
    let rows: Vec<Vec<String>> = std::iter::once(&summary.total)
        .chain(&summary.labels)
        .filter_map(|s| Some(std::iter::once(cell(&s.label)).chain(upstream_numbers(s)?).collect()))
        .collect();
    (!rows.is_empty()).then(|| padded(&UPSTREAM_HEADER, &rows))
}

/// What the upstream table's figures are, under it.
pub(crate) const UPSTREAM_NOTE: &str =
    "Upstream: the time the response's headers say the upstream took (Server-Timing, \
     X-Kong-Upstream-Latency, x-envoy-upstream-service-time, or the plan's timing_headers); overhead: elapsed − \
     upstream per sample (the gateway or proxy, and the network to it). In ms, over the samples with timing; \
     Overhead % of their Total avg.";

fn padded<R: AsRef<[String]>>(header: &[&str], rows: &[R]) -> String {
    let mut width: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
    for r in rows {
        for (w, c) in width.iter_mut().zip(r.as_ref()) {
            *w = (*w).max(c.chars().count());
        }
    }
    let mut out = String::new();
    let line = |out: &mut String, cells: &mut dyn Iterator<Item = (usize, String)>| {
        out.push('|');
        for (i, c) in cells {
            // Names left, numbers right.
            if i == 0 {
                let _ = write!(out, " {c:<w$} |", w = width[i]);
            } else {
                let _ = write!(out, " {c:>w$} |", w = width[i]);
            }
        }
        out.push('\n');
    };
    line(&mut out, &mut header.iter().map(|h| h.to_string()).enumerate());
    out.push('|');
    for (i, w) in width.iter().enumerate() {
        out.push_str(if i == 0 { ":" } else { "" });
        out.push_str(&"-".repeat(*w + 1));
        out.push_str(if i == 0 { "|" } else { ":|" });
    }
    out.push('\n');
    for r in rows {
        line(&mut out, &mut r.as_ref().iter().cloned().enumerate());
    }
    out
}

/// The lines under the table: what the seed studies had to discover by hand.
pub(crate) fn facts(meta: &RunMeta, summary: &Summary) -> String {
    let t = &summary.total;
    let mut out = String::new();
    let _ = writeln!(out, "Times in ms; Received and Sent in KB/s.");
    // The facts a document states next to its table: what ran, when, for how long, from where.
    let mut run = format!("Run: {}", meta.plan_name);
    if let Some(p) = &meta.plan_path {
        let _ = write!(run, " ({p})");
    }
    let _ = write!(run, "; started {}", meta.started_at);
    if let Some(d) = meta.duration_s {
        let _ = write!(run, ", {d:.1} s");
    }
    if !meta.host.is_empty() {
        let _ = write!(run, "; generator host {}", meta.host);
    }
    let _ = write!(run, "; {}", format!("{} {}", meta.tool, meta.version).trim());
    let _ = writeln!(out, "{run}");
    if !summary.complete {
        let _ = writeln!(out, "Run did not finish ({}): figures are from the intervals it recorded.", meta.status);
    }
    if let Some(why) = &meta.stopped_by {
        let _ = writeln!(out, "Stopped by: {why}");
    }
    for sc in &meta.scenarios {
        let _ = writeln!(out, "Scenario {}: {}", sc.name, sc.workload);
    }
    for (k, v) in super::part_facts(meta) {
        let _ = writeln!(out, "{k}: {v}");
    }
    if let Some(k) = super::keep_alive(meta, t) {
        let _ = writeln!(out, "Connections: {k}");
    }
    if !t.errors_by_kind.is_empty() {
        let kinds: Vec<String> = t.errors_by_kind.iter().map(|(k, v)| format!("{k} {v}")).collect();
        let _ = writeln!(out, "Errors by kind: {}", kinds.join(", "));
    }
    for sc in summary.scenarios.iter().filter(|s| s.model == Model::Open) {
        let _ = writeln!(
            out,
            "Dropped iterations ({}): {} of {} arrivals{}",
            sc.name,
            sc.dropped_iterations,
            sc.dropped_iterations + sc.iterations,
            if sc.dropped_iterations > 0 { " (no free user: raise max_users or expect a slower system)" } else { "" }
        );
        if let Some(d) = super::dispatch(sc) {
            let _ = writeln!(out, "Dispatch ({}): {d}", sc.name);
        }
    }
    if let Some(g) = summary.generator.or(meta.generator) {
        let _ = writeln!(out, "Generator: {}", super::generator_load(&g));
    }
    if t.samples > 0 {
        let _ = write!(out, "\n{}{TIMING_NOTE}\n", timing_table(summary));
    }
    if let Some(table) = upstream_table(summary) {
        let _ = write!(out, "\n{table}{UPSTREAM_NOTE}\n");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::{LabelStats, Sample, Tally};

    #[test]
    fn table_has_the_seed_shape() {
        let mut tally = Tally::new(2, 1);
        for i in 0..10u64 {
            let s = Sample {
                label: crate::plan::LabelId((i % 2) as u32),
                start_us: i * 1000,
                end_us: i * 1000 + 2000,
                ttfb_us: 1000,
                connect_us: 0,
                bytes_sent: 100,
                bytes_received: 200,
                new_connection: i < 2,
                error: None,
                in_total: true,
                upstream_us: None,
            };
            tally.record(&s);
        }
        let _ = LabelStats::default();
        let summary = Summary::from_tally(&tally, &["ContentRead".into(), "Org|Search".into()], &[], &[], true);
        let t = table(&summary);
        let lines: Vec<&str> = t.lines().collect();
        assert_eq!(lines.len(), 5);
        let header: Vec<&str> = lines[0].trim_matches('|').split('|').map(str::trim).collect();
        assert_eq!(header, HEADER);
        assert!(lines[2].starts_with("| Total "));
        assert!(lines[4].contains("Org\\|Search"));
        let total: Vec<&str> = lines[2].trim_matches('|').split(" |").map(str::trim).collect();
        assert_eq!(&total[1..4], ["10", "0", "0.00%"]);
        assert_eq!(total[4], "2.00");
    }
}
