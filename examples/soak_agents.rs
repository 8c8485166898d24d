//! Builds what a soak on agents leaves, without running one, for `bench/soak/agents.sh`: AGENTS
//! agents, each HOURS hours of one-second intervals with LABELS labels and RATE samples a second
//! (each drawn one by one as `soak_log` draws them, a seed per agent), written twice, as each side
//! writes it: the agent's own run directory (`OUT/agent-I`, the run's writer) and the
//! controller's copy (`OUT/controller/agents/I-agentI`, `rundir::copy::PartCopy` fed the lines the
//! agent streams).
//!
//! ```sh
//! cargo run --example soak_agents -- OUT HOURS [AGENTS] [LABELS] [RATE]
//! ```

use rand::rngs::SmallRng;
use rand::SeedableRng;
use stampede::internals::{IntervalLines, PartCopy, Place, RunWriter, Tally};
use stampede::rundir::{RunMeta, Status, Summary};
use std::path::Path;

#[path = "common/soak.rs"]
mod soak;

fn main() {
    let (out, arg) = soak::args("soak_agents OUT HOURS [AGENTS] [LABELS] [RATE]");
    // By default the seed's 60-hour soak (~11,600 samples a second) on 8 agents, an hour of it.
    let (agents, n_labels, rate) = (arg(2, 8.0) as usize, arg(3, 9.0) as usize, arg(4, 1_450.0) as u64);
    let seconds = (arg(1, 1.0) * 3600.0).round() as u64;
    // Two agents at a time: the machine's cores.
    let next = std::sync::atomic::AtomicUsize::new(0);
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                if i >= agents {
                    return;
                }
                agent(&out, i, agents, seconds, n_labels, rate);
            });
        }
    });
}

/// Agent `i`'s part, in its own directory and the controller's copy.
fn agent(out: &Path, i: usize, agents: usize, seconds: u64, n_labels: usize, rate: u64) {
    let labels: Vec<String> = (1..=n_labels).map(|l| format!("API {l:02} /v1/resource/{l}")).collect();
    let meta: RunMeta = serde_json::from_value(serde_json::json!({
        "tool": "stampede", "version": env!("CARGO_PKG_VERSION"),
        "command_line": ["stampede", "agent"], "plan_path": null, "plan_name": "synthetic soak",
        "host": format!("agent{}", i + 1), "started_at": "2026-11-20T00:00:00Z", "ended_at": null,
        "duration_s": null, "status": "running", "interval_s": 1.0,
        "scenarios": [{"name": "soak", "model": "closed", "workload": "closed: 900 users"}],
        "labels": labels, "checks": [], "generator": null,
        "part": {"segment": format!("{}/{agents}", i + 1), "start_at": "2026-11-20T00:00:00Z"}
    }))
    .expect("a valid meta");
    let place = Place::Exact { dir: out.join(format!("agent-{}", i + 1)), replace: false };
    let mut own = RunWriter::create(&place, &meta, "name: synthetic soak\n").expect("the agent's directory");
    let mut copy = PartCopy::create(&out.join("controller/agents").join(format!("{}-agent{}", i + 1, i + 1)))
        .expect("the controller's copy");
    copy.meta(&meta).expect("meta");
    let mut stream = IntervalLines::new(&meta);
    let mut rng = SmallRng::seed_from_u64(i as u64 + 1);
    let mut tally = Tally::new(labels.len(), 1);
    let per_label = rate / labels.len().max(1) as u64;
    for sec in 0..seconds {
        let iv = soak::second(&mut rng, sec, labels.len(), per_label, 900 / 8, sec + 1 == seconds);
        tally.add_interval(&iv);
        own.append(&iv).expect("append");
        copy.line(&stream.line(&iv)).expect("line");
        if sec % 3600 == 3599 {
            eprintln!("agent {}: {} h written", i + 1, (sec + 1) / 3600);
        }
    }
    let summary = Summary::from_tally(&tally, &meta.labels, &meta.checks, &meta.scenarios, true);
    let mut meta = meta;
    meta.status = Status::Completed;
    meta.duration_s = Some(seconds as f64);
    copy.summary(&serde_json::to_value(&summary).expect("a summary serialises")).expect("summary");
    copy.meta(&meta).expect("meta");
    own.finish(&meta, &summary).expect("finish");
}
