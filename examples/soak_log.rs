//! Builds the run directory of a long soak without running one, for `bench/soak`: HOURS hours
//! of one-second intervals with LABELS labels and RATE samples a second, each sample drawn one
//! by one (log-normal response times, a median per label that drifts over the hours, 0.1%
//! errors, a new connection now and then), written through the same writer a run uses, so the
//! interval log, its roll-ups and the summary are what a real soak of that shape leaves.
//!
//! ```sh
//! cargo run --release --example soak_log -- OUT_DIR HOURS [LABELS] [RATE] [SEED]
//! ```

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use stampede::plan::LabelId;
use stampede::record::{Interval, LabelStats, Sample, ScenarioCounts, Tally};
use stampede::rundir::{Place, RunMeta, RunWriter, Summary};
use std::path::PathBuf;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(out) = args.first().map(PathBuf::from) else {
        eprintln!("usage: soak_log OUT_DIR HOURS [LABELS] [RATE] [SEED]");
        std::process::exit(2);
    };
    let arg = |i: usize, default: f64| args.get(i).map(|a| a.parse::<f64>().expect("a number")).unwrap_or(default);
    let hours = arg(1, 1.0);
    let n_labels = arg(2, 9.0) as usize;
    // The seed's 60-hour soak: 2.5 billion samples, ~11,600 a second.
    let rate = arg(3, 11_600.0) as u64;
    let seed = arg(4, 1.0) as u64;
    let seconds = (hours * 3600.0).round() as u64;
    let labels: Vec<String> = (1..=n_labels).map(|i| format!("API {i:02} /v1/resource/{i}")).collect();
    let meta: RunMeta = serde_json::from_value(serde_json::json!({
        "tool": "stampede", "version": env!("CARGO_PKG_VERSION"),
        "command_line": ["soak_log", out.display().to_string(), hours.to_string()],
        "plan_path": null, "plan_name": "synthetic soak", "host": "bench",
        "started_at": "2026-11-20T00:00:00Z", "ended_at": null, "duration_s": null,
        "status": "running", "interval_s": 1.0,
        "scenarios": [{"name": "soak", "model": "closed", "workload": "closed: 900 users"}],
        "labels": labels, "checks": [], "generator": null
    }))
    .expect("a valid meta");
    let place = Place::Exact { dir: out.clone(), replace: false };
    let mut writer = RunWriter::create(&place, &meta, "name: synthetic soak\n").unwrap_or_else(|e| {
        eprintln!("{e}");
        std::process::exit(1);
    });
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut tally = Tally::new(labels.len(), 1);
    let per_label = rate / labels.len().max(1) as u64;
    for sec in 0..seconds {
        let start_us = sec * 1_000_000;
        // Medians from 8 ms to 200 ms across labels, drifting ±20% over each 6 hours.
        let drift = 1.0 + 0.2 * (sec as f64 / 21_600.0 * std::f64::consts::TAU).sin();
        let mut iv_labels = Vec::with_capacity(labels.len());
        let mut total = LabelStats::default();
        for l in 0..labels.len() {
            let median_us = 8_000.0 * (25f64).powf(l as f64 / (labels.len().max(2) - 1) as f64) * drift;
            let mut st = LabelStats::default();
            for k in 0..per_label {
                let z = normal(&mut rng);
                let elapsed = (median_us * (0.45 * z).exp()).max(50.0) as u64;
                let begin = start_us + k * 1_000_000 / per_label;
                let new_connection = rng.random_ratio(1, 5_000);
                let s = Sample {
                    label: LabelId(l as u32),
                    start_us: begin,
                    end_us: begin + elapsed,
                    ttfb_us: elapsed * 9 / 10,
                    connect_us: if new_connection { 300 + rng.random_range(0..400) } else { 0 },
                    bytes_sent: 310,
                    bytes_received: 2_048 + rng.random_range(0..512),
                    new_connection,
                    error: rng.random_ratio(1, 1_000).then_some(stampede::record::ErrorKind::Status(503)),
                    in_total: true,
                    upstream_us: None,
                };
                st.record(&s);
            }
            total += &st;
            iv_labels.push((LabelId(l as u32), st));
        }
        let iv = Interval {
            index: sec,
            start_us,
            end_us: start_us + 1_000_000,
            labels: iv_labels,
            new_labels: Vec::new(),
            total,
            scenarios: vec![ScenarioCounts {
                iterations: per_label * labels.len() as u64,
                dropped: 0,
                undispatched: 0,
            }],
            lateness: Vec::new(),
            active_users: vec![900],
            last: sec + 1 == seconds,
        };
        tally.add_interval(&iv);
        writer.append(&iv).expect("append");
        if sec % 3600 == 3599 {
            eprintln!("{} h written", (sec + 1) / 3600);
        }
    }
    let summary = Summary::from_tally(&tally, &meta.labels, &meta.checks, &meta.scenarios, true);
    let mut meta = meta;
    meta.status = stampede::rundir::Status::Completed;
    meta.duration_s = Some(seconds as f64);
    meta.ended_at = Some("2026-11-22T12:00:00Z".into());
    writer.finish(&meta, &summary).expect("finish");
}

/// A standard normal draw (Box–Muller).
fn normal(rng: &mut SmallRng) -> f64 {
    let u: f64 = rng.random_range(f64::EPSILON..1.0);
    let v: f64 = rng.random();
    (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()
}
