//! The results table in the shape of the seed documents
//! (`API | Samples | KO | Error % | Average | ... | Received | Sent`, Total row first), as
//! Markdown that reads well in a terminal and pastes straight into a document; and the run's
//! facts beneath it (keep-alive check, errors by kind, dropped iterations, generator load).

use crate::rundir::{LabelSummary, RunMeta, Summary};
use std::fmt::Write;

pub const HEADER: [&str; 14] = [
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

fn row(s: &LabelSummary) -> [String; 14] {
    let f = |x: f64| format!("{x:.2}");
    [
        s.label.replace('|', "\\|"),
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

/// The table: times in ms, Received/Sent in KB/s. Columns are padded so the Markdown source is
/// itself readable.
pub fn table(summary: &Summary) -> String {
    let rows: Vec<[String; 14]> = std::iter::once(&summary.total).chain(&summary.labels).map(row).collect();
    let mut width: Vec<usize> = HEADER.iter().map(|h| h.chars().count()).collect();
    for r in &rows {
        for (w, c) in width.iter_mut().zip(r) {
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
    line(&mut out, &mut HEADER.iter().map(|h| h.to_string()).enumerate());
    out.push('|');
    for (i, w) in width.iter().enumerate() {
        out.push_str(if i == 0 { ":" } else { "" });
        out.push_str(&"-".repeat(*w + 1));
        out.push_str(if i == 0 { "|" } else { ":|" });
    }
    out.push('\n');
    for r in rows {
        line(&mut out, &mut r.into_iter().enumerate());
    }
    out
}

/// The lines under the table: what the seed studies had to discover by hand.
pub fn facts(meta: &RunMeta, summary: &Summary) -> String {
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
    for sc in &meta.scenarios {
        let _ = writeln!(out, "Scenario {}: {}", sc.name, sc.workload);
    }
    let per_conn = if t.connections_opened > 0 { t.samples as f64 / t.connections_opened as f64 } else { 0.0 };
    let _ = writeln!(
        out,
        "Connections opened: {} for {} requests ({:.1} requests per connection{})",
        t.connections_opened,
        t.samples,
        per_conn,
        if t.samples > 0 && t.connections_opened >= t.samples { "; keep-alive NOT in effect" } else { "" }
    );
    if !t.errors_by_kind.is_empty() {
        let kinds: Vec<String> = t.errors_by_kind.iter().map(|(k, v)| format!("{k} {v}")).collect();
        let _ = writeln!(out, "Errors by kind: {}", kinds.join(", "));
    }
    for sc in summary.scenarios.iter().filter(|s| s.model == "open") {
        let _ = writeln!(
            out,
            "Dropped iterations ({}): {} of {} arrivals{}",
            sc.name,
            sc.dropped_iterations,
            sc.dropped_iterations + sc.iterations,
            if sc.dropped_iterations > 0 { " (no free user: raise max_users or expect a slower system)" } else { "" }
        );
    }
    if let Some(g) = summary.generator.or(meta.generator) {
        let _ = writeln!(
            out,
            "Generator: CPU {:.1}s user + {:.1}s system ({:.0}% of {} cores), peak memory {:.1} MiB{}",
            g.cpu_user_s,
            g.cpu_system_s,
            g.cpu_pct_of_cores,
            g.cores,
            g.peak_rss_mib,
            if g.cpu_pct_of_cores > 90.0 {
                " — the generator was saturated: numbers may understate the system"
            } else {
                ""
            }
        );
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
