//! The one-way dependency rule of `lib.rs`, checked on the source: each top-level module may
//! name only the modules its row below allows. A new `use crate::…` that points the wrong way
//! (storage importing a report, the engine importing the CLI) fails this test, so the rule
//! stays true as the code grows instead of only being written down.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// Leaves: modules that depend on nothing of ours, which every module may use. `script` is the
/// interpreter's crate (`crates/script`), which cannot name stampede at all.
const LEAVES: &[&str] = &["metric", "redact", "confine", "http1", "mirror", "script"];

/// Module → the modules of ours it may name besides the leaves (`*`: all). A module without a
/// row fails the test, so a new top-level module must take its place in the rule.
const ALLOWED: &[(&str, &[&str])] = &[
    ("cli", &["*"]),
    ("error", &["*"]),
    ("run", &["engine", "plan", "record", "rundir"]),
    // A distributed run: an agent is a run of its part; the controller merges run directories.
    ("dist", &["run", "engine", "plan", "record", "rundir"]),
    // A script may start JMeter's HTTP Mirror Server for the run: `mirror`, a leaf of its own,
    // so the engine never names the mock (the calibration upstream).
    ("engine", &["plan", "record"]),
    ("plan", &[]),
    // `record` names `plan::LabelId`, a plain dense index fixed at load time, and nothing else.
    ("record", &["plan::LabelId"]),
    ("rundir", &["record", "plan::LabelId"]),
    // A sweep's page charts its record.
    ("report", &["rundir", "record", "plan::LabelId", "sweep"]),
    // A sweep's record reads its steps' run directories' summaries; its driver loads each
    // step's plan through its caller and judges the step's goals as a run does, after a
    // warm-up read as `report --from` reads it.
    ("sweep", &["rundir", "plan", "run::judge", "report::load_runs_window"]),
    // The progress line is one of the run's outputs.
    ("progress", &["record", "run"]),
    // A run as a command asks for it: its run directory, its outputs, here or on agents, and
    // what is said at its end (the report's table); a sweep's steps, each a run.
    (
        "launch",
        &[
            "run", "dist", "engine", "plan", "record", "rundir", "export", "watch", "progress", "error", "report",
            "sweep",
        ],
    ),
    // Live metrics out: outputs of the run, reading its intervals.
    ("export", &["record", "run"]),
    // The system under test's resources: an output of the run, writing to the run directory.
    ("watch", &["run", "rundir", "record"]),
    // JMeter's command line, read into a run: its properties files are the plan's.
    ("jmeter_cli", &["plan"]),
    ("mock", &[]),
    ("metric", &[]),
    ("redact", &[]),
    ("confine", &[]),
    ("http1", &[]),
    ("mirror", &[]),
];

/// The crate-level paths a source text names: `crate::a::b`, and each `a::b` of
/// `crate::{a::b, c}` (one level of braces is all the code uses).
fn named_paths(src: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = src;
    while let Some(at) = rest.find("crate::") {
        // `other_crate::x` is not ours: the match must not continue an identifier.
        let before = rest[..at].chars().next_back();
        rest = &rest[at + "crate::".len()..];
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            continue;
        }
        if let Some(inner) = rest.strip_prefix('{') {
            let end = inner.find('}').unwrap_or(inner.len());
            out.extend(inner[..end].split(',').map(|p| path_prefix(p.trim())).filter(|p| !p.is_empty()));
        } else {
            out.push(path_prefix(rest));
        }
    }
    out
}

/// The leading `a::B` of a path (the module and the next name), enough to tell a module from
/// the one item a row may allow.
fn path_prefix(s: &str) -> String {
    let end = s.find(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':')).unwrap_or(s.len());
    let path = s[..end].trim_end_matches(':');
    let mut parts = path.split("::");
    match (parts.next(), parts.next()) {
        (Some(a), Some(b)) => format!("{a}::{b}"),
        (Some(a), None) => a.to_string(),
        _ => String::new(),
    }
}

/// The lines of a source file that are code outside its test module: no comments, nothing
/// from a `#[cfg(test)] mod …` on (a `#[cfg(test)]` on anything else hides nothing).
fn code_of(text: &str) -> String {
    let mut out = String::new();
    let mut cfg_test = false;
    for line in text.lines() {
        let t = line.trim_start();
        if t.is_empty() || t.starts_with("//") {
            continue;
        }
        if cfg_test && (t.starts_with("mod ") || t.starts_with("pub(crate) mod ")) {
            break;
        }
        cfg_test = t.starts_with("#[cfg(test)]");
        out.push_str(line);
        out.push('\n');
    }
    out
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

#[test]
fn modules_depend_one_way() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut broken = BTreeSet::new();
    let mut seen = BTreeSet::new();
    for file in files {
        let rel = file.strip_prefix(&src).unwrap();
        let first = rel.components().next().unwrap().as_os_str().to_string_lossy();
        let module = first.trim_end_matches(".rs");
        if matches!(module, "lib" | "main" | "layering") {
            continue;
        }
        let allowed = ALLOWED
            .iter()
            .find(|(m, _)| *m == module)
            .unwrap_or_else(|| panic!("src/{}: module `{module}` has no row in ALLOWED", rel.display()))
            .1;
        seen.insert(module.to_string());
        // Tests may use anything (the mock is their witness server); doc links are not imports.
        if rel.file_name().is_some_and(|n| n == "tests.rs") {
            continue;
        }
        let text = std::fs::read_to_string(&file).unwrap();
        let code = code_of(&text);
        for path in named_paths(&code) {
            let target = path.split("::").next().unwrap_or_default();
            if target == module || allowed.contains(&"*") || (LEAVES.contains(&target) && !LEAVES.contains(&module)) {
                continue;
            }
            if !(allowed.contains(&target) || allowed.contains(&path.as_str())) {
                broken.insert(format!("src/{}: `{module}` names `crate::{path}`", rel.display()));
            }
        }
    }
    assert!(
        broken.is_empty(),
        "imports against the dependency rule:\n{}",
        broken.into_iter().collect::<Vec<_>>().join("\n")
    );
    assert!(seen.len() > 5, "the test found no modules under {}", src.display());
}

#[test]
fn test_modules_and_comments_are_not_code() {
    let src = "use crate::plan;\n/// [`crate::report`]\n#[cfg(test)]\nmod tests { use crate::mock; }";
    assert_eq!(named_paths(&code_of(src)), vec!["plan"]);
}

#[test]
fn finds_the_paths_a_use_names() {
    let src = "use crate::{plan::Plan, record};\nlet x = crate::rundir::open(p);\nuse other_crate::engine;";
    assert_eq!(named_paths(src), vec!["plan::Plan", "record", "rundir::open"]);
}

/// Rules inside a module: the files under `src/<dir>` may not name these paths (as
/// `crate::…` or through `super::`). Issue 34: the plan's model files formed a circle through
/// `flow::StopKind`; a sampler's model is named by the flow (a sample is a step), never the
/// other way, so a new protocol's model stands on its own.
const INSIDE: &[(&str, &[&str])] = &[("plan/sampler", &["plan::flow"])];

/// The paths a source text names from the crate root: `crate::a::b` as `a::b`, and each
/// `super::…` resolved against `module` (the file's own path: `plan::sampler::http`).
fn absolute_paths(src: &str, module: &[&str]) -> Vec<String> {
    let mut out: Vec<String> = named_paths(src);
    let mut rest = src;
    while let Some(at) = rest.find("super::") {
        let before = rest[..at].chars().next_back();
        rest = &rest[at..];
        let mut up = 0;
        while let Some(r) = rest.strip_prefix("super::") {
            rest = r;
            up += 1;
        }
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') || up > module.len() {
            continue;
        }
        let end = rest.find(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':')).unwrap_or(rest.len());
        let mut path = module[..module.len() - up].to_vec();
        path.extend(rest[..end].split("::").filter(|p| !p.is_empty()));
        out.push(path.join("::"));
    }
    out
}

#[test]
fn rules_inside_modules_hold() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut broken = BTreeSet::new();
    for (dir, banned) in INSIDE {
        let mut files = Vec::new();
        rust_files(&src.join(dir), &mut files);
        assert!(!files.is_empty(), "src/{dir}: no files");
        for file in files {
            let rel = file.strip_prefix(&src).unwrap().with_extension("");
            let mut module: Vec<&str> = rel.iter().map(|c| c.to_str().unwrap()).collect();
            if module.last() == Some(&"mod") {
                module.pop();
            }
            let code = code_of(&std::fs::read_to_string(&file).unwrap());
            for path in absolute_paths(&code, &module) {
                if let Some(b) = banned.iter().find(|b| path == **b || path.starts_with(&format!("{b}::"))) {
                    broken
                        .insert(format!("src/{}: names `crate::{path}` (src/{dir} may not name `{b}`)", rel.display()));
                }
            }
        }
    }
    assert!(
        broken.is_empty(),
        "imports against the rules inside modules:\n{}",
        broken.into_iter().collect::<Vec<_>>().join("\n")
    );
}

#[test]
fn super_paths_resolve_against_the_file() {
    let src = "use super::http::Check;\nlet k: super::super::flow::StopKind;\nuse crate::plan::flow;";
    assert_eq!(
        absolute_paths(src, &["plan", "sampler", "after"]),
        vec!["plan::flow", "plan::sampler::http::Check", "plan::flow::StopKind"]
    );
}

/// The lines of each function in `text` (a `fn` at any indentation, to the `}` at its own):
/// (name, lines).
fn function_lengths(text: &str) -> Vec<(String, usize)> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let code = line.trim_start();
        let indent = &line[..line.len() - code.len()];
        let rest = ["pub(crate) ", "pub(super) ", "pub "].iter().find_map(|p| code.strip_prefix(p)).unwrap_or(code);
        let rest = rest.strip_prefix("async ").unwrap_or(rest);
        let Some(name) = rest.strip_prefix("fn ") else { continue };
        let name = name.split(|c: char| !(c.is_alphanumeric() || c == '_')).next().unwrap_or_default();
        let close = format!("{indent}}}");
        let end = if line.trim_end().ends_with('}') {
            Some(i)
        } else {
            lines[i..].iter().position(|l| *l == close).map(|n| i + n)
        };
        out.extend(end.map(|end| (name.to_string(), end - i + 1)));
    }
    out
}

/// The modules below the command line that write to the terminal themselves, and why. Any
/// other says what the user should hear through an output or its caller's callback.
const PRINTS: &[(&str, &str)] = &[
    ("progress.rs", "the progress line is the run's terminal output, an output of the run"),
    ("plan/template/script.rs", "a script's `println` goes to standard output as it runs, as JMeter's System.out"),
];

/// Issue 33: the command line parses arguments, picks outputs and maps errors to exit codes;
/// what else a command does is a library's. `src/cli/` is at most 1,600 lines, no function in
/// it over 80; no module below it prints (`PRINTS` names the exceptions), and the library
/// modules the commands' logic went to keep their functions short too.
#[test]
fn commands_keep_to_arguments_outputs_and_exit_codes() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let read = |p: &Path| std::fs::read_to_string(p).unwrap();
    let (mut cli, mut all) = (Vec::new(), Vec::new());
    rust_files(&src.join("cli"), &mut cli);
    let mut total = 0;
    for path in &cli {
        let text = read(path);
        total += text.lines().count();
        for (name, n) in function_lengths(&text) {
            assert!(n <= 80, "{}: fn {name} is {n} lines (at most 80)", path.display());
        }
    }
    assert!(total <= 1600, "src/cli is {total} lines (at most 1,600)");
    rust_files(&src, &mut all);
    let mut printing = BTreeSet::new();
    for path in &all {
        let rel = path.strip_prefix(&src).unwrap().to_string_lossy().replace('\\', "/");
        // Test modules (`tests.rs` files, declared under `#[cfg(test)]`) print as they like.
        let below = !(rel.starts_with("cli/") || rel == "main.rs" || rel == "layering.rs" || rel.ends_with("tests.rs"));
        let code = code_of(&read(path));
        if below
            && ["println!", "eprintln!", "print!(", "eprint!(", "stdout()", "stderr()"].iter().any(|p| code.contains(p))
        {
            printing.insert(rel);
        }
    }
    let allowed: BTreeSet<String> = PRINTS.iter().map(|(f, _)| f.to_string()).collect();
    assert_eq!(printing, allowed, "only the command line prints; the rest says what it has to say through an output");
    let mut library: Vec<PathBuf> = ["plan/describe.rs", "run/preflight.rs", "run/merge.rs", "report/compose.rs"]
        .into_iter()
        .chain(["report/jmeter.rs", "mock/flags.rs", "plan/properties.rs", "launch/conclude.rs"])
        .chain(["launch/serve.rs", "launch/steps.rs"])
        .map(|p| src.join(p))
        .collect();
    rust_files(&src.join("jmeter_cli"), &mut library);
    for path in library {
        for (name, n) in function_lengths(&code_of(&read(&path))) {
            assert!(n <= 80, "{}: fn {name} is {n} lines", path.display());
        }
    }
}

#[test]
fn function_lengths_run_from_fn_to_its_closing_brace() {
    let src = "fn a() {\n    x;\n}\n    pub(super) async fn b(\n        y: u8,\n    ) {\n    }\nfn c() {}\n";
    assert_eq!(function_lengths(src), vec![("a".into(), 3), ("b".into(), 4), ("c".into(), 1)]);
}

/// The rooms of the crate: `src/lib.rs`'s top-level modules (`mod`, `pub mod`, and a
/// workspace crate named in as a module by `use … as name`), without this test's own.
fn rooms(lib: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for line in lib.lines().map(str::trim_start) {
        let rest = ["pub(crate) ", "pub "].iter().find_map(|p| line.strip_prefix(p)).unwrap_or(line);
        let name = if let Some(m) = rest.strip_prefix("mod ") {
            m.trim_end_matches(';')
        } else if let Some((_, alias)) = rest.strip_prefix("use ").and_then(|u| u.split_once(" as ")) {
            alias.trim_end_matches(';')
        } else {
            continue;
        };
        if name != "layering" && name.chars().all(|c| c.is_alphanumeric() || c == '_') {
            out.insert(name.to_string());
        }
    }
    out
}

/// The workspace's member crates (`crates/…`), from the `members` list of `Cargo.toml`.
fn workspace_crates(manifest: &str) -> Vec<String> {
    let Some(at) = manifest.find("members") else { return Vec::new() };
    let list = &manifest[at..];
    let list = &list[list.find('[').unwrap_or(0) + 1..list.find(']').unwrap_or(list.len())];
    list.split(',').map(|m| m.trim().trim_matches('"').to_string()).filter(|m| !m.is_empty()).collect()
}

/// The names in backticks of the first cell of each row of `docs/architecture.md`'s "Rooms" table.
fn architecture_rooms(doc: &str) -> BTreeSet<String> {
    let table = doc.split("## Rooms").nth(1).unwrap_or_default();
    let mut out = BTreeSet::new();
    for row in table.lines().take_while(|l| l.is_empty() || l.starts_with('|')).filter(|l| l.starts_with("| ")) {
        let first = row[1..].split('|').next().unwrap_or_default();
        out.extend(first.split('`').skip(1).step_by(2).map(str::to_string));
    }
    out
}

/// Issue 34: the maps name every room. `src/lib.rs`'s module doc (the map) and
/// `docs/architecture.md`'s "Rooms" table each name every top-level module and every workspace
/// crate, so a room added to the code cannot be missing from the maps a newcomer reads.
#[test]
fn the_maps_name_every_room() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let read = |p: &str| std::fs::read_to_string(root.join(p)).unwrap();
    let lib = read("src/lib.rs");
    let map: String = lib.lines().filter_map(|l| l.strip_prefix("//!")).collect::<Vec<_>>().join("\n");
    let doc = read("docs/architecture.md");
    let table = architecture_rooms(&doc);
    let rooms = rooms(&lib);
    assert!(rooms.len() > 10, "found no rooms in src/lib.rs: {rooms:?}");
    let mut missing = Vec::new();
    for room in &rooms {
        if !(map.contains(&format!("`{room}`")) || map.contains(&format!("[`{room}`]"))) {
            missing.push(format!("src/lib.rs's map does not name `{room}`"));
        }
        if !table.contains(room) {
            missing.push(format!("docs/architecture.md's Rooms table has no row for `{room}`"));
        }
    }
    let crates = workspace_crates(&read("Cargo.toml"));
    assert!(!crates.is_empty(), "found no workspace members in Cargo.toml");
    for krate in crates {
        if !map.contains(&krate) {
            missing.push(format!("src/lib.rs's map does not name the workspace crate {krate}"));
        }
        if !doc.contains(&krate) {
            missing.push(format!("docs/architecture.md does not name the workspace crate {krate}"));
        }
    }
    assert!(missing.is_empty(), "{}", missing.join("\n"));
}

#[test]
fn rooms_are_read_from_mod_lines_and_aliased_crates() {
    let lib = "//! doc\npub mod a;\nmod b;\n#[cfg(test)]\nmod layering;\npub(crate) use other as c;\nuse std::x;\n";
    assert_eq!(rooms(lib), ["a", "b", "c"].into_iter().map(String::from).collect());
    assert_eq!(workspace_crates("[workspace]\nmembers = [\"crates/x\", \"crates/y\"]\n"), ["crates/x", "crates/y"]);
    let doc = "## Rooms\n\n| module | owns |\n|---|---|\n| `a`, `b` | x `z` |\n| `c` | y |\n\n## Next\n| `d` | |\n";
    assert_eq!(architecture_rooms(doc), ["a", "b", "c"].into_iter().map(String::from).collect());
}

/// The methods of `trait Output` in `src/run/output.rs` that have no default (a `fn` line
/// ending in `;`), in order.
fn required_output_methods(text: &str) -> Vec<String> {
    let body = text.split("pub trait Output").nth(1).unwrap_or_default();
    let body = &body[..body.find("\n}\n").unwrap_or(body.len())];
    body.lines()
        .map(str::trim)
        .filter(|l| l.starts_with("fn ") && l.ends_with(';'))
        .filter_map(|l| l["fn ".len()..].split('(').next().map(str::to_string))
        .collect()
}

/// Issue 34: `Output` is a small core plus optional methods, and `lib.rs` says which: the
/// methods it names as required are exactly those without a default.
#[test]
fn lib_rs_names_the_required_methods_of_output() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let required = required_output_methods(&std::fs::read_to_string(root.join("src/run/output.rs")).unwrap());
    assert_eq!(required, ["name", "interval", "finish"], "the core of `Output` changed: say so in src/lib.rs");
    let lib: String = std::fs::read_to_string(root.join("src/lib.rs"))
        .unwrap()
        .lines()
        .filter_map(|l| l.strip_prefix("//! "))
        .collect::<Vec<_>>()
        .join(" ");
    let said = "[`run::Output`] is three required methods (`name`, `interval`, `finish`)";
    assert!(lib.contains(said), "src/lib.rs does not say: {said}");
}

/// The `pub` items of the crate: lines that open with `pub fn`, `pub struct`, … (not
/// `pub(crate)`, not fields), as issue 34 counts them.
fn pub_items(text: &str) -> usize {
    const KINDS: &[&str] = &["fn ", "struct ", "enum ", "trait ", "type ", "const ", "static ", "mod ", "use "];
    text.lines()
        .filter_map(|l| l.trim_start().strip_prefix("pub "))
        .filter(|rest| KINDS.iter().any(|k| rest.starts_with(k)))
        .count()
}

/// Issue 34: `pub(crate)` by default. The crate's `pub` items are the API `lib.rs` lists (and the
/// hidden `internals`); the rest is `pub(crate)`, and the count only goes down. Lower the bound
/// as items are narrowed; raise it only for a new item of the library's API, with its doc comment.
#[test]
fn pub_items_do_not_grow() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let n: usize = files.iter().map(|f| pub_items(&std::fs::read_to_string(f).unwrap())).sum();
    assert!(n <= 208, "{n} `pub` items in src/ (at most 208): is the new one the library's API?");
    assert_eq!(pub_items("pub fn a() {}\n    pub(crate) fn b() {}\n    pub struct C;\n    pub x: u8,\n"), 2);
}

/// The lines of `text` holding a path of the machine that wrote it (`/work/`, `/tmp/`, `/root/`,
/// `/home/` starting a path, not inside one such as `bench/tmp/`).
fn absolute_path_lines(text: &str) -> Vec<usize> {
    let starts_path = |line: &str| {
        ["/work/", "/tmp/", "/root/", "/home/"].iter().any(|p| {
            line.match_indices(p).any(|(i, _)| {
                line[..i].chars().next_back().is_none_or(|c| !(c.is_alphanumeric() || "_.~>-".contains(c)))
            })
        })
    };
    text.lines().enumerate().filter(|(_, l)| starts_path(l)).map(|(i, _)| i + 1).collect()
}

#[test]
fn absolute_paths_are_found_where_a_path_starts() {
    let text = "ok bench/runs/x\n`/tmp/a`\nBEFORE=/work/b\nbench/tmp/c and <tmp>/d\n\"/root/.cache\"\n";
    assert_eq!(absolute_path_lines(text), vec![2, 3, 5]);
}

/// Reports are committed and read on other machines: the directories of the one that wrote
/// them mean nothing there (the writers make them relative: `report_paths` in
/// `bench/jmeter/corpus.py` and `bench/compare/run.sh`).
#[test]
fn bench_reports_hold_no_absolute_paths() {
    fn walk(dir: &Path, in_report: bool, out: &mut Vec<PathBuf>) {
        for e in std::fs::read_dir(dir).unwrap().flatten() {
            let p = e.path();
            let report = in_report || matches!(p.file_name().and_then(|n| n.to_str()), Some("runs" | "results"));
            if p.is_dir() {
                walk(&p, report, out);
            } else if report
                && p.extension()
                    .is_some_and(|x| ["md", "json", "tsv", "txt", "csv"].contains(&x.to_str().unwrap_or("")))
            {
                out.push(p);
            }
        }
    }
    let bench = Path::new(env!("CARGO_MANIFEST_DIR")).join("bench");
    let mut files = Vec::new();
    walk(&bench, false, &mut files);
    assert!(files.len() > 100, "bench reports not found under {}", bench.display());
    let bad: Vec<String> = files
        .iter()
        .flat_map(|f| {
            let text = String::from_utf8_lossy(&std::fs::read(f).unwrap()).into_owned();
            let name = f.strip_prefix(&bench).unwrap().display().to_string();
            absolute_path_lines(&text).into_iter().map(move |l| format!("{name}:{l}"))
        })
        .collect();
    assert!(bad.is_empty(), "absolute paths in bench reports (make them relative or <tmp>/): {bad:?}");
}

/// The integration binary's table of contents (`tests/integration/main.rs`) is where a newcomer
/// looks first: every file there is a `mod`, and every `mod` has its line.
#[test]
fn the_integration_contents_name_every_file() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/integration");
    let main = std::fs::read_to_string(dir.join("main.rs")).unwrap();
    let mods: BTreeSet<String> = main
        .lines()
        .filter_map(|l| l.strip_prefix("mod ").and_then(|m| m.strip_suffix(';')))
        .map(String::from)
        .collect();
    let files: BTreeSet<String> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .filter_map(|e| {
            let p = e.path();
            let name = p.file_name()?.to_str()?.to_string();
            if p.is_dir() {
                p.join("mod.rs").exists().then_some(name)
            } else {
                name.strip_suffix(".rs").filter(|n| *n != "main").map(String::from)
            }
        })
        .collect();
    assert_eq!(mods, files, "every file of tests/integration a `mod` of main.rs, and only those");
    let listed: BTreeSet<String> = main
        .lines()
        .filter_map(|l| l.strip_prefix("//! - `").and_then(|r| r.split('`').next()))
        .map(String::from)
        .collect();
    let missing: Vec<&String> = mods.difference(&listed).collect();
    assert!(missing.is_empty(), "mods without a line in main.rs's contents: {missing:?}");
}
