//! A sweep (or several, compared) as one self-contained HTML page: the seed studies' two
//! charts against the load — "Throughput & Concurrent Users" and "Average Response Time &
//! Concurrent Users", with p95 and p99 beside the average — the USL model over the measured
//! throughput, and the sweep's tables.

use super::esc;
use super::html::page;
use super::svg::{render, Chart, Line, XAxis};
use crate::sweep::{analysis, cells, header, Load, Record};
use std::fmt::Write;

/// The page of `sweeps`, each with the name it is shown by; several are overlaid.
pub(crate) fn document(sweeps: &[(String, &Record)]) -> String {
    let Some((_, first)) = sweeps.first() else { return page("stampede sweep", "") };
    let x_label = if first.load == Load::Users { "concurrent users" } else { "arrivals per second" };
    let one = sweeps.len() == 1;
    let name = |n: &str, what: &str| if one { what.to_string() } else { format!("{n} {what}") };
    let mut throughput = Vec::new();
    let mut times = Vec::new();
    for (i, (n, r)) in sweeps.iter().enumerate() {
        let points = |f: &dyn Fn(&crate::sweep::Step) -> f64| -> Vec<(f64, f64)> {
            r.steps.iter().map(|s| (s.load, f(s))).collect()
        };
        let dashed = i > 0;
        throughput.push(Line { name: name(n, "throughput"), points: points(&|s| s.total.throughput_rps), dashed });
        times.push(Line { name: name(n, "average"), points: points(&|s| s.total.mean_ms), dashed });
        if one {
            times.push(Line { name: "p95".into(), points: points(&|s| s.total.p95_ms), dashed });
            times.push(Line { name: "p99".into(), points: points(&|s| s.total.p99_ms), dashed });
            // The model over the measured points, where it was fitted against the load itself.
            if let Some(u) = r.usl.as_ref().filter(|_| r.load == Load::Users) {
                // A smooth curve from the first load to the last, not only at the steps.
                let (lo, hi) = (r.steps.first().map_or(0.0, |s| s.load), r.steps.last().map_or(0.0, |s| s.load));
                let model = (0..=60).map(|k| lo + (hi - lo) * f64::from(k) / 60.0).map(|n| (n, u.predict(n))).collect();
                throughput.push(Line { name: "USL model".into(), points: model, dashed: true });
            }
        }
    }
    let charts = [
        Chart {
            id: "chart-sweep-throughput".into(),
            title: format!(
                "Throughput & {}",
                if first.load == Load::Users { "Concurrent Users" } else { "Arrival Rate" }
            ),
            x: XAxis::Linear,
            x_label: x_label.into(),
            y_label: "requests/s".into(),
            lines: throughput,
        },
        Chart {
            id: "chart-sweep-latency".into(),
            title: format!(
                "Average Response Time & {}",
                if first.load == Load::Users { "Concurrent Users" } else { "Arrival Rate" }
            ),
            x: XAxis::Linear,
            x_label: x_label.into(),
            y_label: "ms".into(),
            lines: times,
        },
    ];
    let title = if one {
        format!("Sweep: {}", first.plan_name)
    } else {
        format!("Sweeps: {}", sweeps.iter().map(|(n, _)| n.as_str()).collect::<Vec<_>>().join(", "))
    };
    let mut body = format!("<h1>{}</h1>", esc(&title));
    for c in &charts {
        let _ = write!(body, "<figure>{}</figure>", render(c));
    }
    for (n, r) in sweeps {
        let _ = write!(body, "<section class=\"sweep\"><h2>{}</h2>", esc(if one { "Steps" } else { n }));
        body.push_str("<div class=\"scroll\"><table class=\"num\"><thead><tr>");
        for h in header(r.load) {
            let _ = write!(body, "<th>{}</th>", esc(h));
        }
        body.push_str("</tr></thead><tbody>");
        for s in &r.steps {
            body.push_str("<tr>");
            for (k, c) in cells(r.load, s, &s.total).iter().enumerate() {
                let _ = write!(body, "<td{}>{}</td>", if k == 0 { " class=\"name\"" } else { "" }, esc(c));
            }
            body.push_str("</tr>");
        }
        body.push_str("</tbody></table></div>");
        for line in analysis(r) {
            let _ = write!(body, "<p>{}</p>", esc(&line));
        }
        body.push_str(
            "<p class=\"note\">Times in ms. Each step is a run directory of its own in the sweep's.</p></section>",
        );
    }
    page(&title, &body)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sweep::{Figures, Step};

    fn record(name: &str, points: &[(f64, f64, f64)]) -> Record {
        let steps = points
            .iter()
            .map(|(n, x, ms)| Step {
                load: *n,
                dir: format!("step-{n}"),
                status: "completed".into(),
                total: Figures {
                    label: "Total".into(),
                    throughput_rps: *x,
                    ok_rps: *x,
                    mean_ms: *ms,
                    ..Default::default()
                },
                labels: Vec::new(),
                cpu_pct: None,
                concurrency: *n,
                broke: None,
                failed: Vec::new(),
                refine: false,
            })
            .collect();
        let mut r = Record {
            format: crate::sweep::FORMAT,
            tool: "stampede".into(),
            version: "0".into(),
            plan_name: name.into(),
            load: Load::Users,
            planned: points.iter().map(|p| p.0).collect(),
            step_duration_s: 60.0,
            warmup_s: None,
            until: None,
            steps,
            knee: None,
            usl: None,
            highest_good: None,
            finished: true,
        };
        r.analyse();
        r
    }

    #[test]
    fn a_sweep_page_has_the_two_charts_the_model_and_its_table() {
        let a = record("<gw> A", &[(50.0, 1000.0, 50.0), (100.0, 1900.0, 52.0), (250.0, 2000.0, 125.0)]);
        let page = document(&[("A".into(), &a)]);
        assert!(page.contains("id=\"chart-sweep-throughput\"") && page.contains("id=\"chart-sweep-latency\""));
        assert!(page.contains("Throughput &amp; Concurrent Users"), "titles as the seed's");
        assert!(page.contains("USL model") && page.contains("p95"));
        assert!(page.contains("Sweep: &lt;gw&gt; A"), "names are escaped");
        assert!(page.contains("Knee: 100 users"));
        let b = record("B", &[(50.0, 800.0, 60.0), (100.0, 1500.0, 66.0), (250.0, 1600.0, 150.0)]);
        let both = document(&[("A".into(), &a), ("B".into(), &b)]);
        assert!(both.contains("A throughput") && both.contains("B throughput") && !both.contains("USL model"));
    }
}
