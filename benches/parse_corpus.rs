//! How long reading the whole JMX corpus takes (`cargo bench --bench parse_corpus`): every plan
//! of tests/corpus, with its `--set` values, read into a `Plan` 20 times over; prints the time per
//! pass. Not a test: a number to compare between versions (the target is well under a second).

use stampede::plan::{LoadOptions, Plan};
use std::path::Path;
use std::time::Instant;

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus");
    let corpus = root.join("sunbird-perf-tests");
    let table = std::fs::read_to_string(root.join("sets.tsv")).expect("tests/corpus/sets.tsv");
    let plans: Vec<(std::path::PathBuf, LoadOptions)> = table
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let mut cells = l.split('\t');
            let plan = corpus.join(cells.next().unwrap_or_default());
            let replacements = cells
                .filter(|c| !c.is_empty())
                .filter_map(|c| c.split_once('='))
                .map(|(k, v)| (k.to_string(), v.replace("{corpus}", corpus.to_str().unwrap_or_default())))
                .collect();
            (plan, LoadOptions { replacements, lenient_files: true, ..Default::default() })
        })
        .collect();
    let passes = 20;
    let mut loaded = 0;
    let started = Instant::now();
    for _ in 0..passes {
        for (plan, opts) in &plans {
            if Plan::load_with(plan, opts).is_ok() {
                loaded += 1;
            }
        }
    }
    let per_pass = started.elapsed() / passes;
    println!(
        "read {} plans ({} loaded per pass) in {:.1} ms per pass over the corpus",
        plans.len(),
        loaded / passes,
        per_pass.as_secs_f64() * 1000.0
    );
}
