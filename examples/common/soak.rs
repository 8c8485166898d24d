//! What the soak examples share (`#[path]`-included by each): their arguments and one second
//! of a synthetic soak, each sample drawn one by one.

use rand::rngs::SmallRng;
use rand::Rng;
use stampede::plan::LabelId;
use stampede::record::{Interval, LabelStats, Sample, ScenarioCounts};
use std::path::PathBuf;

/// The output directory (the first argument; else `usage` is said and the process exits) and
/// the numbers after it: `arg(i, default)` is the i-th argument (1: the one after the directory).
pub fn args(usage: &str) -> (PathBuf, impl Fn(usize, f64) -> f64) {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(out) = args.first().map(PathBuf::from) else {
        eprintln!("usage: {usage}");
        std::process::exit(2);
    };
    let arg = move |i: usize, default: f64| args.get(i).map(|a| a.parse::<f64>().expect("a number")).unwrap_or(default);
    (out, arg)
}

/// Second `sec`: per label, `per_label` samples drawn one by one (log-normal times, medians from
/// 8 to 200 ms drifting ±20% over 6 hours, 0.1% errors, a new connection now and then).
pub fn second(rng: &mut SmallRng, sec: u64, n_labels: usize, per_label: u64, users: u64, last: bool) -> Interval {
    let start_us = sec * 1_000_000;
    let drift = 1.0 + 0.2 * (sec as f64 / 21_600.0 * std::f64::consts::TAU).sin();
    let mut labels = Vec::with_capacity(n_labels);
    let mut total = LabelStats::default();
    for l in 0..n_labels {
        let median_us = 8_000.0 * (25f64).powf(l as f64 / (n_labels.max(2) - 1) as f64) * drift;
        let mut st = LabelStats::default();
        for k in 0..per_label {
            let z = normal(rng);
            let elapsed = (median_us * (0.45 * z).exp()).max(50.0) as u64;
            let begin = start_us + k * 1_000_000 / per_label;
            let new_connection = rng.random_ratio(1, 5_000);
            st.record(&Sample {
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
            });
        }
        total += &st;
        labels.push((LabelId(l as u32), st));
    }
    Interval {
        index: sec,
        start_us,
        end_us: start_us + 1_000_000,
        labels,
        new_labels: Vec::new(),
        total,
        scenarios: vec![ScenarioCounts { iterations: per_label * n_labels as u64, dropped: 0, undispatched: 0 }],
        lateness: Vec::new(),
        active_users: vec![users],
        last,
    }
}

/// A standard normal draw (Box–Muller).
fn normal(rng: &mut SmallRng) -> f64 {
    let u: f64 = rng.random_range(f64::EPSILON..1.0);
    let v: f64 = rng.random();
    (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()
}
