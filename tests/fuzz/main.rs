//! Fuzz targets (#11): the readers of what users hand stampede — YAML and JMX plans, CSV data
//! files, JTL results files, run directories — are fed the files under `tests/fuzz/corpus/<target>/` as
//! they are, then mutated for a bounded time. Every input must end in a result or in an error
//! that names the file it came from; never in a panic (on any thread) or a hang.
//!
//! Hand-rolled rather than `cargo fuzz`: it runs on the stable toolchain inside `cargo test`
//! (CI's `./test.sh`), with no instrumentation, so it finds what byte-level mutation finds; the
//! readers' own unit tests pin what a finding taught.
//!
//! - `STAMPEDE_FUZZ_SECS`: seconds of mutation per target (default 4; 0: only the corpus).
//! - `STAMPEDE_FUZZ_SEED`: the seed (default: from the clock; a failure prints it, and the same
//!   seed and corpus give the same inputs).
//! - A failing input is written to `target/fuzz-found/`; once its bug is fixed, copy it into
//!   the target's corpus directory, where it stays a regression case (the corpus grows so).

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use stampede::internals::{self, JmxOptions};
use stampede::plan::{self, Plan};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{mpsc, Mutex, OnceLock};
use std::time::{Duration, Instant};

/// The longest one input may take before it counts as a hang.
const HANG: Duration = Duration::from_secs(10);

/// Panics seen on any thread since the last [`take_panics`] (reader threads included).
static PANICS: Mutex<Vec<String>> = Mutex::new(Vec::new());
/// One target at a time: the panic hook is the process's.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

fn install_hook() {
    static HOOK: OnceLock<()> = OnceLock::new();
    HOOK.get_or_init(|| {
        let default = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            // The test's own thread (its verdict) speaks as usual; the others are recorded.
            let name = std::thread::current().name().unwrap_or("").to_string();
            if name == "main" || name.starts_with("fuzz_") {
                return default(info);
            }
            let at = info.location().map(|l| format!(" at {}:{}", l.file(), l.line())).unwrap_or_default();
            let msg = info
                .payload()
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| info.payload().downcast_ref::<String>().cloned())
                .unwrap_or_default();
            PANICS.lock().unwrap_or_else(|e| e.into_inner()).push(format!("{msg}{at}"));
        }));
    });
}

fn take_panics() -> Vec<String> {
    std::mem::take(&mut *PANICS.lock().unwrap_or_else(|e| e.into_inner()))
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn corpus(target: &str) -> Vec<(String, Vec<u8>)> {
    let dir = root().join("tests/fuzz/corpus").join(target);
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|p| (p.file_name().unwrap().to_string_lossy().into_owned(), std::fs::read(&p).unwrap()))
        .collect()
}

fn env_u64(name: &str) -> Option<u64> {
    std::env::var(name).ok().and_then(|v| v.trim().parse().ok())
}

/// Syntax worth splicing in: template and markup, non-ASCII text, line ends, a byte-order mark.
#[rustfmt::skip]
const TOKENS: &[&str] = &[
    "${", "}", "${__UUID()}", "${__RandomString(", "${__Random(", "${__P(", "${__time(", "${x}", "\\,", "(", ")",
    "é", "\u{feff}", "\u{10ffff}", "日本", "\r\n", "\n", "\r", "\0", "\t", " ", "\"", "'", ",", ":", "- ", "{", "}",
    "[", "]", "<", ">", "</", "/>", "&amp;", "&#0;", "&", "%", "%ZZ", "?", "#", "true", "false", "null", "~",
    "!!binary", "*a", "&a ", "<<: ",
];

/// Numbers at the edges of their types, and durations.
#[rustfmt::skip]
const NUMBERS: &[&str] = &[
    "0", "-1", "-5", "1e308", "NaN", "-0", "0.0000001", "4294967296", "18446744073709551616",
    "99999999999999999999", "9223372036854775807", "-9223372036854775808", "0s", "1ms", "365d", "0.5",
];

/// Whole values, as a user might write them.
#[rustfmt::skip]
const VALUES: &[&str] = &[
    "é${__UUID()}", "/café/${id}", "${__Random(1,${count})}", "${__RandomString(${count},é)}", "${__time(yyyy-MM)}",
    "${__counter(FALSE,c)}", "${__P(a,${b})}", "${__env(HOME,x)}", "${__V(id)}", "${__threadNum}", "\\${x}",
    "http://${host}:${__P(port,1)}/é", "https://[::1]:0/", "http://u:p@h/", "${role} == 'admin' && (",
    "$..*", "$[", "(a|b", "[^\"]+", "$1$-$2$", "200-299", "2xx", "1MB",
];

/// One mutation of `data`; `others` are the rest of the corpus, for splicing.
fn mutate(rng: &mut SmallRng, data: &[u8], others: &[&[u8]]) -> Vec<u8> {
    let mut d = data.to_vec();
    for _ in 0..rng.random_range(1..=4) {
        let at = |rng: &mut SmallRng, d: &Vec<u8>| if d.is_empty() { 0 } else { rng.random_range(0..=d.len()) };
        match rng.random_range(0..10) {
            0 if !d.is_empty() => {
                let i = rng.random_range(0..d.len());
                d[i] ^= 1 << rng.random_range(0..8);
            }
            1 => {
                let i = at(rng, &d);
                d.insert(i, rng.random());
            }
            2 if !d.is_empty() => {
                let i = rng.random_range(0..d.len());
                let n = rng.random_range(1..=(d.len() - i).min(64));
                d.drain(i..i + n);
            }
            3 if !d.is_empty() => {
                let i = rng.random_range(0..d.len());
                let n = rng.random_range(1..=(d.len() - i).min(256));
                let chunk = d[i..i + n].to_vec();
                let j = at(rng, &d);
                d.splice(j..j, chunk);
            }
            4 | 5 => {
                let set = [TOKENS, NUMBERS, VALUES][rng.random_range(0..3)];
                let t = set[rng.random_range(0..set.len())].as_bytes();
                let i = at(rng, &d);
                d.splice(i..i, t.iter().copied());
            }
            6 => {
                // A number replaced by an edge value.
                let digits: Vec<usize> = (0..d.len()).filter(|&i| d[i].is_ascii_digit()).collect();
                if let Some(&i) = digits.get(rng.random_range(0..digits.len().max(1))) {
                    let end = (i..d.len()).find(|&j| !d[j].is_ascii_digit()).unwrap_or(d.len());
                    let t = NUMBERS[rng.random_range(0..NUMBERS.len())].as_bytes();
                    d.splice(i..end, t.iter().copied());
                }
            }
            7 if !others.is_empty() => {
                let o = others[rng.random_range(0..others.len())];
                if !o.is_empty() {
                    let i = rng.random_range(0..o.len());
                    let n = rng.random_range(1..=(o.len() - i).min(512));
                    let j = at(rng, &d);
                    d.splice(j..j, o[i..i + n].iter().copied());
                }
            }
            8 => {
                // A value (after `: `, `="` or `>`) replaced whole, up to its end.
                let starts: Vec<usize> = (1..d.len())
                    .filter(|&i| matches!((d[i - 1], d[i]), (b':', b' ') | (b'=', b'"') | (b'>', _)))
                    .map(|i| i + 1)
                    .collect();
                if let Some(&i) = starts.get(rng.random_range(0..starts.len().max(1))) {
                    let end = (i..d.len()).find(|&j| b",}]\n<\"".contains(&d[j])).unwrap_or(d.len());
                    let set = [NUMBERS, VALUES][rng.random_range(0..2)];
                    let t = set[rng.random_range(0..set.len())].as_bytes();
                    d.splice(i..end, t.iter().copied());
                }
            }
            _ if !d.is_empty() => {
                // Cut short, as a crash or a full disk leaves a file.
                let keep = rng.random_range(0..d.len());
                d.truncate(keep);
            }
            _ => {}
        }
    }
    d
}

/// What a target checks for one input: `Err` says what is wrong (besides a panic or a hang).
type Check = fn(&[u8], &Path) -> Result<(), String>;

/// Runs `check` on every corpus file of `target`, then on mutations of them until the time is
/// up; panics with every failing input's file (in `target/fuzz-found/`) and what went wrong.
fn fuzz(target: &str, ext: &str, check: Check) {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    install_hook();
    let seeds = corpus(target);
    assert!(!seeds.is_empty(), "no corpus for {target}");
    let seed = env_u64("STAMPEDE_FUZZ_SEED").unwrap_or_else(|| {
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos() as u64
    });
    let budget = Duration::from_secs(env_u64("STAMPEDE_FUZZ_SECS").unwrap_or(4));
    let mut rng = SmallRng::seed_from_u64(seed);
    let scratch = root().join("target/fuzz-scratch").join(format!("{target}-{}", std::process::id()));
    let found_dir = root().join("target/fuzz-found");
    let mut failures: Vec<String> = Vec::new();
    let started = Instant::now();
    let mut runs = 0u64;
    let all: Vec<&[u8]> = seeds.iter().map(|(_, d)| d.as_slice()).collect();
    let mut next = 0usize;
    loop {
        let (name, input) = if next < seeds.len() {
            (seeds[next].0.clone(), seeds[next].1.clone())
        } else {
            if started.elapsed() >= budget {
                break;
            }
            let i = rng.random_range(0..seeds.len());
            (format!("{} mutated", seeds[i].0), mutate(&mut rng, &seeds[i].1, &all))
        };
        next += 1;
        runs += 1;
        let dir = scratch.join(runs.to_string());
        std::fs::create_dir_all(&dir).unwrap();
        let (tx, rx) = mpsc::channel();
        let (inp, d) = (input.clone(), dir.clone());
        std::thread::Builder::new()
            .name("fuzz-input".into())
            .spawn(move || {
                let _ = tx.send(check(&inp, &d));
            })
            .unwrap();
        let outcome = match rx.recv_timeout(HANG) {
            Ok(r) => r,
            Err(mpsc::RecvTimeoutError::Timeout) => Err(format!("no answer within {HANG:?} (a hang)")),
            Err(mpsc::RecvTimeoutError::Disconnected) => Err("panicked".to_string()),
        };
        let panics = take_panics();
        let problem = match (outcome, panics.is_empty()) {
            (Ok(()), true) => None,
            (Ok(()), false) => Some(format!("a reader thread panicked: {}", panics.join("; "))),
            (Err(e), _) => Some(if panics.is_empty() { e } else { format!("{e}: {}", panics.join("; ")) }),
        };
        let _ = std::fs::remove_dir_all(&dir);
        if let Some(problem) = problem {
            std::fs::create_dir_all(&found_dir).unwrap();
            let file = found_dir.join(format!("{target}-{seed}-{runs}.{ext}"));
            std::fs::write(&file, &input).unwrap();
            failures.push(format!("{name} → {problem}\n    input: {}", file.display()));
            if failures.len() >= 10 || problem.contains("a hang") {
                break;
            }
        }
    }
    let _ = std::fs::remove_dir_all(&scratch);
    eprintln!("fuzz {target}: {runs} inputs in {:.1?}, seed {seed}", started.elapsed());
    assert!(failures.is_empty(), "fuzz {target} (STAMPEDE_FUZZ_SEED={seed}):\n{}", failures.join("\n"));
}

/// A plan read, then what `run` does with it before sending: resolve it for the run
/// directory, compile each scenario's flow.
fn exercise(plan: &Plan) {
    internals::prepare(plan);
}

/// A plan error must name the plan file (and, for the reader's own text, where in it).
fn names_file(e: &plan::Error, file: &Path) -> Result<(), String> {
    let m = e.to_string();
    let name = file.file_name().unwrap().to_string_lossy();
    if m.contains(&*name) || e.location.file.is_some() {
        Ok(())
    } else {
        Err(format!("the error does not name the file: {m}"))
    }
}

/// YAML plans are read beside `examples/`, so the data files the seeds name are found.
fn yaml(input: &[u8], _dir: &Path) -> Result<(), String> {
    let text = String::from_utf8_lossy(input);
    let file = root().join("examples/fuzz.yaml");
    let props = HashMap::from([("port".to_string(), "8080".to_string())]);
    match Plan::from_yaml_str(&text, &file, &props) {
        Ok(p) => {
            exercise(&p);
            Ok(())
        }
        Err(e) => names_file(&e, &file),
    }
}

fn jmx(input: &[u8], _dir: &Path) -> Result<(), String> {
    let text = String::from_utf8_lossy(input);
    let file = root().join("tests/fuzz/corpus/jmx/fuzz.jmx");
    for skip_unsupported in [false, true] {
        let opts = JmxOptions { skip_unsupported, lenient_files: true, ..Default::default() };
        match internals::read_jmx(&text, &file, &opts) {
            Ok((p, _)) => exercise(&p),
            Err(e) => names_file(&e, &file)?,
        }
    }
    Ok(())
}

/// A report's error must name the file or directory it could not read; what it reads must
/// render (`report`'s Markdown and HTML formats).
fn load_report(path: &Path) -> Result<(), String> {
    match stampede::report::load(path) {
        Ok(data) => {
            let _ = stampede::report::markdown::document(&data);
            let _ = stampede::report::html::document(&data);
            Ok(())
        }
        Err(e) => {
            let m = e.to_string();
            if m.contains(&*path.to_string_lossy()) {
                Ok(())
            } else {
                Err(format!("the error does not name {}: {m}", path.display()))
            }
        }
    }
}

fn jtl(input: &[u8], dir: &Path) -> Result<(), String> {
    let file = dir.join("results.jtl");
    std::fs::write(&file, input).unwrap();
    load_report(&file)
}

/// The input is a run directory packed in one file: each of its files after a line
/// `=== NAME` (`meta.json`, `intervals.jsonl`, `summary.json`, the roll-ups and `tail.jsonl`;
/// other names are ignored). A
/// seed without `summary.json` is a run that crashed, read from its intervals.
fn rundir(input: &[u8], dir: &Path) -> Result<(), String> {
    let mut current: Option<std::fs::File> = None;
    for line in input.split_inclusive(|b| *b == b'\n') {
        if let Some(name) = line.strip_prefix(b"=== ") {
            let name = String::from_utf8_lossy(name).trim().to_string();
            current = [
                "meta.json",
                "intervals.jsonl",
                "summary.json",
                "intervals-60s.jsonl",
                "intervals-600s.jsonl",
                "intervals-3600s.jsonl",
                "tail.jsonl",
            ]
            .contains(&name.as_str())
            .then(|| std::fs::File::create(dir.join(&name)).unwrap());
        } else if let Some(f) = &mut current {
            std::io::Write::write_all(f, line).unwrap();
        }
    }
    drop(current);
    load_report(dir)
}

/// A plan's CSV data file, read with options drawn from the input's length (so a saved input
/// replays the same way): each delimiter, quoted or not, header or given names, ragged or not.
fn csv(input: &[u8], dir: &Path) -> Result<(), String> {
    use stampede::internals::{read_csv, CsvOptions};
    let file = dir.join("data.csv");
    std::fs::write(&file, input).unwrap();
    let n = input.len();
    let opts = CsvOptions {
        delimiter: [",", "||", "\t", "é", ";"][n % 5].to_string(),
        quoted: n % 2 == 0,
        names: (n % 3 == 0).then(|| vec!["a".to_string(), "b".to_string()]),
        skip_first_line: n % 7 < 3,
        ragged: n % 11 < 5,
    };
    let _ = read_csv(&file, &opts);
    Ok(())
}

#[test]
fn fuzz_csv_data_files() {
    fuzz("csv", "csv", csv);
}

#[test]
fn fuzz_yaml_plans() {
    fuzz("yaml", "yaml", yaml);
}

#[test]
fn fuzz_jmx_plans() {
    fuzz("jmx", "jmx", jmx);
}

#[test]
fn fuzz_jtl_files() {
    fuzz("jtl", "jtl", jtl);
}

#[test]
fn fuzz_run_directories() {
    fuzz("rundir", "txt", rundir);
}
