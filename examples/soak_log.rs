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
use rand::SeedableRng;
use stampede::internals::{Place, RunWriter, Tally};
use stampede::rundir::{RunMeta, Summary};

#[path = "common/soak.rs"]
mod soak;

fn main() {
    let (out, arg) = soak::args("soak_log OUT_DIR HOURS [LABELS] [RATE] [SEED]");
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
        let iv = soak::second(&mut rng, sec, labels.len(), per_label, 900, sec + 1 == seconds);
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
