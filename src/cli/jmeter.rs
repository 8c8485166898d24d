//! `stampede jmeter`: JMeter 5.6.3's non-GUI command line (`jmeter -n -t plan.jmx -l out.jtl -e
//! -o report ...`), read as JMeter reads it and translated into `run` (and `report`), so that
//! a team's scripts and CI jobs run unchanged with `jmeter` pointing at stampede (a link named
//! `jmeter` to the binary behaves as `stampede jmeter`, see [`super::argv`]).
//!
//! Every option JMeter has is known here by its short and long name: those stampede honours map
//! onto `run`'s machinery; those it cannot honour are refused by name with the reason; anything
//! else is refused as unknown. Nothing given is silently dropped.

use super::run::RunArgs;
use crate::error::{exit, Error};
use std::path::{Path, PathBuf};

#[derive(Debug, clap::Args)]
#[command(disable_help_flag = true, disable_version_flag = true)]
pub struct JmeterArgs {
    /// JMeter's options, as `jmeter` takes them (`stampede jmeter -?` lists them), e.g.
    /// `-n -t plan.jmx -l results.jtl -e -o report`.
    #[arg(trailing_var_arg = true, allow_hyphen_values = true, value_name = "JMETER OPTIONS")]
    pub args: Vec<String>,
}

/// The port of a `-R` host given without one: `stampede agent`'s default (JMeter's servers
/// listen on RMI's 1099, which is not what a stampede agent speaks).
const AGENT_PORT: u16 = 7700;

/// Where the agents' token file is named for `-R`/`-r` (JMeter's servers have no token).
const TOKEN_ENV: &str = "STAMPEDE_TOKEN_FILE";
const TOKEN_PROPERTY: &str = "stampede.token_file";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Takes {
    Nothing,
    /// One value: `-tPLAN`, `-t PLAN`, `--testfile PLAN`, `--testfile=PLAN`.
    One,
    /// `name=value` (`-Jname=value`, `-J name=value`, `-J name value`), or one word for `-G`
    /// (a file) and `-L` (the root level).
    Pair,
}

struct Opt {
    short: char,
    long: &'static str,
    takes: Takes,
    /// JMeter allows the option more than once; the others given twice are refused, as JMeter
    /// refuses them ("Duplicate options for -t/--testfile found.").
    repeat: bool,
    /// Why stampede refuses the option.
    refused: Option<&'static str>,
}

const PROXY: &str =
    "stampede sends to the servers a plan names; it has no HTTP proxy (set the plan's proxy fields in an HTTP Request if it must go through one)";

const fn opt(short: char, long: &'static str, takes: Takes, repeat: bool) -> Opt {
    Opt { short, long, takes, repeat, refused: None }
}

const fn no(short: char, long: &'static str, takes: Takes, why: &'static str) -> Opt {
    Opt { short, long, takes, repeat: false, refused: Some(why) }
}

/// JMeter 5.6.3's options (`jmeter -?`), in its order.
const OPTIONS: &[Opt] = &[
    opt('?', "?", Takes::Nothing, false),
    opt('h', "help", Takes::Nothing, false),
    opt('v', "version", Takes::Nothing, false),
    opt('p', "propfile", Takes::One, false),
    opt('q', "addprop", Takes::One, true),
    opt('t', "testfile", Takes::One, false),
    opt('l', "logfile", Takes::One, false),
    no('i', "jmeterlogconf", Takes::One, "stampede does not log through log4j2: give -j FILE for its messages"),
    opt('j', "jmeterlogfile", Takes::One, false),
    opt('n', "nongui", Takes::Nothing, false),
    no(
        's',
        "server",
        Takes::Nothing,
        "stampede's load generator for other machines is `stampede agent --listen HOST:PORT --token-file FILE`",
    ),
    no('E', "proxyScheme", Takes::One, PROXY),
    no('H', "proxyHost", Takes::One, PROXY),
    no('P', "proxyPort", Takes::One, PROXY),
    no('N', "nonProxyHosts", Takes::One, PROXY),
    no('u', "username", Takes::One, PROXY),
    no('a', "password", Takes::One, PROXY),
    opt('J', "jmeterproperty", Takes::Pair, true),
    opt('G', "globalproperty", Takes::Pair, true),
    opt('D', "systemproperty", Takes::Pair, true),
    opt('S', "systemPropertyFile", Takes::One, true),
    opt('f', "forceDeleteResultFile", Takes::Nothing, false),
    opt('L', "loglevel", Takes::Pair, true),
    opt('r', "runremote", Takes::Nothing, false),
    opt('R', "remotestart", Takes::One, false),
    opt('d', "homedir", Takes::One, false),
    opt('X', "remoteexit", Takes::Nothing, false),
    opt('g', "reportonly", Takes::One, false),
    opt('e', "reportatendofloadtests", Takes::Nothing, false),
    opt('o', "reportoutputfolder", Takes::One, false),
];

/// One `-J`, `-G` or `-D`, in command-line order (a later one wins; an empty value removes).
#[derive(Debug, Clone, PartialEq, Eq)]
enum Prop {
    Jmeter(String, String),
    Global(String, String),
    GlobalFile(PathBuf),
    System(String, String),
}

/// A JMeter command line, read.
#[derive(Debug, Default)]
struct Invocation {
    help: bool,
    version: bool,
    nongui: bool,
    plan: Option<PathBuf>,
    results: Option<PathBuf>,
    log: Option<PathBuf>,
    propfile: Option<PathBuf>,
    addprops: Vec<PathBuf>,
    system_files: Vec<PathBuf>,
    props: Vec<Prop>,
    remote: Option<String>,
    run_remote: bool,
    report_only: Option<PathBuf>,
    report_at_end: bool,
    report_dir: Option<PathBuf>,
    force: bool,
    home: Option<PathBuf>,
    /// `-L [category=]level`: accepted (stampede has one log); a level JMeter does not know is
    /// warned of, as JMeter does.
    log_levels: Vec<String>,
    /// `--allow-commands`, stampede's own: OS Process Samplers run their commands.
    allow_commands: bool,
}

/// stampede's own option, which JMeter has not: JMeter runs an OS Process Sampler's command
/// unasked; stampede only when told.
const ALLOW_COMMANDS: &str = "allow-commands";

fn usage(msg: String) -> Error {
    Error::Usage(format!("{msg} (`stampede jmeter -?` lists JMeter's options)"))
}

/// Reads JMeter's argv as JMeter's parser does: short options clustered (`-nt plan.jmx`), a
/// value attached or in the next word, long options with `=` or a space.
fn parse(args: &[String]) -> Result<Invocation, Error> {
    let mut inv = Invocation::default();
    let mut seen: Vec<char> = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let arg = &args[i];
        i += 1;
        if arg.strip_prefix("--") == Some(ALLOW_COMMANDS) {
            inv.allow_commands = true;
            continue;
        }
        if let Some(long) = arg.strip_prefix("--").filter(|l| !l.is_empty()) {
            let (name, inline) = match long.split_once('=') {
                Some((n, v)) => (n, Some(v.to_string())),
                None => (long, None),
            };
            let o = OPTIONS.iter().find(|o| o.long == name).ok_or_else(|| usage(format!("unknown option --{name}")))?;
            let value = match (o.takes, inline) {
                (Takes::Nothing, Some(_)) => return Err(usage(format!("--{name} takes no value"))),
                (Takes::Nothing, None) => None,
                (_, Some(v)) => Some(v),
                (_, None) => Some(next(args, &mut i, o)?),
            };
            take(&mut inv, &mut seen, o, value, args, &mut i)?;
        } else if let Some(shorts) = arg.strip_prefix('-').filter(|s| !s.is_empty() && *arg != "--") {
            let mut rest = shorts;
            while let Some(c) = rest.chars().next() {
                rest = &rest[c.len_utf8()..];
                let o = OPTIONS.iter().find(|o| o.short == c).ok_or_else(|| usage(format!("unknown option -{c}")))?;
                if o.takes == Takes::Nothing {
                    take(&mut inv, &mut seen, o, None, args, &mut i)?;
                    continue;
                }
                // JMeter's parser skips one `=` between a short option and its attached value
                // (`-t=plan.jmx`); a value in the next word is taken whole.
                let value = match rest.strip_prefix('=').filter(|_| o.takes == Takes::One) {
                    _ if rest.is_empty() => next(args, &mut i, o)?,
                    Some(v) => v.to_string(),
                    None => rest.to_string(),
                };
                take(&mut inv, &mut seen, o, Some(value), args, &mut i)?;
                break;
            }
        } else {
            return Err(usage(format!("unexpected argument `{arg}`: JMeter's options start with -")));
        }
    }
    Ok(inv)
}

fn next(args: &[String], i: &mut usize, o: &Opt) -> Result<String, Error> {
    let v = args.get(*i).ok_or_else(|| usage(format!("-{}/--{} needs a value", o.short, o.long)))?;
    *i += 1;
    Ok(v.clone())
}

/// `name=value`, or `name` alone followed by the value as the next word when that is not an
/// option (JMeter reads `-J foo bar` as foo=bar); a name alone is an empty value.
fn pair(text: &str, args: &[String], i: &mut usize) -> (String, String) {
    match text.split_once('=') {
        Some((n, v)) => (n.to_string(), v.to_string()),
        None => match args.get(*i).filter(|a| !a.starts_with('-')) {
            Some(v) => {
                *i += 1;
                (text.to_string(), v.clone())
            }
            None => (text.to_string(), String::new()),
        },
    }
}

fn take(
    inv: &mut Invocation,
    seen: &mut Vec<char>,
    o: &Opt,
    value: Option<String>,
    args: &[String],
    i: &mut usize,
) -> Result<(), Error> {
    if let Some(why) = o.refused {
        return Err(Error::Usage(format!("-{}/--{} is not available in stampede: {why}", o.short, o.long)));
    }
    if !o.repeat && seen.contains(&o.short) {
        return Err(usage(format!("duplicate options for -{}/--{} found", o.short, o.long)));
    }
    seen.push(o.short);
    // JMeter reads `LAST` (`-t`, and `LAST`/`LAST.jtl`/`LAST.log` for `-l`/`-j`) as the plan its
    // GUI opened last (its recent-files list); stampede has no GUI, so no such list.
    if matches!(
        (o.short, value.as_deref()),
        ('t', Some("LAST")) | ('l', Some("LAST" | "LAST.jtl")) | ('j', Some("LAST" | "LAST.log"))
    ) {
        return Err(Error::Usage(format!(
            "-{} LAST: JMeter takes the plan its GUI opened last (its recent-files list); stampede has no GUI and no such list: name the file",
            o.short
        )));
    }
    let path = || PathBuf::from(value.clone().unwrap_or_default());
    match o.short {
        '?' | 'h' => inv.help = true,
        'v' => inv.version = true,
        'p' => inv.propfile = Some(path()),
        'q' => inv.addprops.push(path()),
        't' => inv.plan = Some(path()),
        'l' => inv.results = Some(path()),
        'j' => inv.log = Some(path()),
        // Non-GUI is the only mode there is; only -g minds it.
        'n' => inv.nongui = true,
        'J' | 'D' => {
            let (name, v) = pair(value.as_deref().unwrap_or_default(), args, i);
            if name.is_empty() {
                return Err(usage(format!("-{}: `{}` has no property name", o.short, value.unwrap_or_default())));
            }
            inv.props.push(if o.short == 'J' { Prop::Jmeter(name, v) } else { Prop::System(name, v) });
        }
        'G' => {
            // Two words as -J (`-G name value`); a name alone is a properties file.
            let text = value.unwrap_or_default();
            let named = text.contains('=');
            inv.props.push(match pair(&text, args, i) {
                (n, _) if n.is_empty() => return Err(usage(format!("-G: `{text}` has no property name"))),
                (n, v) if named || !v.is_empty() => Prop::Global(n, v),
                (n, _) => Prop::GlobalFile(PathBuf::from(n)),
            });
        }
        'S' => inv.system_files.push(path()),
        'f' => inv.force = true,
        // Two words as -J: `-L category level`, or a level alone for the root.
        'L' => inv.log_levels.push(match pair(value.as_deref().unwrap_or_default(), args, i) {
            (level, v) if v.is_empty() => level,
            (category, level) => format!("{category}={level}"),
        }),
        'r' => inv.run_remote = true,
        'R' => inv.remote = value,
        'd' => inv.home = Some(path()),
        // stampede's agents end their job at the end of the run and wait for the next.
        'X' => {}
        'g' => inv.report_only = Some(path()),
        'e' => inv.report_at_end = true,
        'o' => inv.report_dir = Some(path()),
        _ => unreachable!("every option of the table is taken"),
    }
    Ok(())
}

/// The usage `-?` and `-h` print.
fn help() -> String {
    let mut s = String::from(
        "stampede jmeter: JMeter 5.6.3's non-GUI command line, run by stampede\n\n  \
         stampede jmeter -n -t PLAN.jmx [-l RESULTS.jtl] [-j LOG] [-J name=value]... [-e -o DIR]\n  \
         stampede jmeter -g RESULTS.jtl -o DIR\n\n\
         (a link named `jmeter` to the stampede binary takes the same options)\n\n",
    );
    for o in OPTIONS {
        let arg = match o.takes {
            Takes::Nothing => "",
            Takes::One => " <argument>",
            Takes::Pair => " <argument>=<value>",
        };
        let what = match o.refused {
            Some(why) => format!("refused: {why}"),
            None => meaning(o.short).to_string(),
        };
        s.push_str(&format!("  -{}, --{}{arg}\n      {what}\n", o.short, o.long));
    }
    s.push_str(&format!(
        "\nstampede's own:\n  --{ALLOW_COMMANDS}\n      let OS Process Samplers run their commands (without it each of their samples fails)\n"
    ));
    s
}

fn meaning(short: char) -> &'static str {
    match short {
        '?' | 'h' => "print this and exit",
        'v' => "print the version and exit",
        'p' => "a properties file for ${__P()} (JMeter's jmeter.properties)",
        'q' => "more properties files, read after -p",
        't' => "the plan (.jmx or stampede's YAML) to run",
        'l' => "write every sample to this JTL file (JMeter's CSV columns), appending unless -f; with agents, from the rows they send back",
        'j' => "stampede's messages go to this file too",
        'n' => "non-GUI mode: the only mode stampede has",
        'J' => "a property for ${__P()}",
        'G' => "a property on every agent (-R/-r) and here; or a properties file (-Gfile)",
        'D' => "a Java system property: accepted; nothing in stampede reads one",
        'S' => "a Java system properties file: accepted; nothing in stampede reads one",
        'f' => "delete the -l file and the -o folder before starting",
        'L' => "a log level: accepted; stampede has one log",
        'r' => "run on the agents of the property remote_hosts (default 127.0.0.1)",
        'R' => "run on these agents (`stampede agent`), HOST[:PORT],...; default port 7700",
        'd' => "JMeter's home: its bin/jmeter.properties and bin/user.properties are read",
        'X' => "accepted: agents end their job at the end of the run",
        'g' => "the HTML report of a JTL file into -o, without a run (not with -n, as in JMeter)",
        'e' => "the HTML report into -o after the run (needs -l, as in JMeter)",
        'o' => "the report's folder: new or empty (or -f), checked even without -e, as JMeter",
        _ => "",
    }
}

/// Properties in the order JMeter reads them: the home's jmeter.properties (or -p), its
/// user.properties, each -q, then -J and -G in command-line order (an empty value removes).
/// `-G` applies here too: without agents it is what a user giving it means.
fn local_properties(inv: &Invocation) -> Result<Vec<(String, String)>, Error> {
    let mut files: Vec<(PathBuf, bool)> = Vec::new();
    let bin = inv.home.as_ref().map(|h| h.join("bin"));
    match (&inv.propfile, &bin) {
        (Some(p), _) => files.push((p.clone(), true)),
        (None, Some(bin)) => files.push((bin.join("jmeter.properties"), false)),
        _ => {}
    }
    if let Some(bin) = &bin {
        files.push((bin.join("user.properties"), false));
    }
    files.extend(inv.addprops.iter().map(|p| (p.clone(), true)));
    let mut out: Vec<(String, String)> = Vec::new();
    for (f, needed) in files {
        match std::fs::read_to_string(&f) {
            Ok(text) => super::plan_args::parse_properties(&text).into_iter().for_each(|(k, v)| put(&mut out, k, v)),
            Err(_) if !needed => {}
            Err(e) => return Err(Error::Usage(format!("cannot read properties file {}: {e}", f.display()))),
        }
    }
    for p in &inv.props {
        match p {
            Prop::Jmeter(k, v) | Prop::Global(k, v) => set(&mut out, k.clone(), v.clone()),
            Prop::GlobalFile(f) => global_file(f)?.into_iter().for_each(|(k, v)| put(&mut out, k, v)),
            Prop::System(..) => {}
        }
    }
    Ok(out)
}

/// What the agents get: only `-G`, as JMeter sends only its global properties to its servers.
fn global_properties(inv: &Invocation) -> Result<Vec<(String, String)>, Error> {
    let mut out = Vec::new();
    for p in &inv.props {
        match p {
            Prop::Global(k, v) => set(&mut out, k.clone(), v.clone()),
            Prop::GlobalFile(f) => global_file(f)?.into_iter().for_each(|(k, v)| put(&mut out, k, v)),
            _ => {}
        }
    }
    Ok(out)
}

fn global_file(f: &Path) -> Result<Vec<(String, String)>, Error> {
    let text = std::fs::read_to_string(f)
        .map_err(|e| Error::Usage(format!("-G {}: cannot read the properties file: {e}", f.display())))?;
    Ok(super::plan_args::parse_properties(&text))
}

/// Sets a property from the command line, later values winning; an empty value removes it, as
/// JMeter's `-Jname=` does.
fn set(props: &mut Vec<(String, String)>, k: String, v: String) {
    props.retain(|(n, _)| *n != k);
    if !v.is_empty() {
        props.push((k, v));
    }
}

/// Sets a property from a file, later values winning; `name=` is "", as Java's
/// `Properties.load` reads it (only `-J` removes).
fn put(props: &mut Vec<(String, String)>, k: String, v: String) {
    props.retain(|(n, _)| *n != k);
    props.push((k, v));
}

fn property<'a>(props: &'a [(String, String)], name: &str) -> Option<&'a str> {
    props.iter().rev().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
}

/// `HOST[:PORT],...` as agents' addresses, the port defaulting to the agent's.
fn agent_addresses(list: &str) -> Vec<String> {
    list.split(',')
        .map(str::trim)
        .filter(|h| !h.is_empty())
        .map(|h| {
            let has_port = match h.rsplit_once(':') {
                Some((host, port)) => port.parse::<u16>().is_ok() && (!host.contains(':') || host.ends_with(']')),
                None => false,
            };
            if has_port {
                h.to_string()
            } else {
                format!("{h}:{AGENT_PORT}")
            }
        })
        .collect()
}

/// JMeter's check of a report folder: new, or empty; it is made (parents too).
fn report_folder(dir: &Path) -> Result<(), Error> {
    if dir.is_file() {
        return Err(Error::Usage(format!("cannot write to '{}' as it is not a folder", dir.display())));
    }
    if std::fs::read_dir(dir).is_ok_and(|mut d| d.next().is_some()) {
        return Err(Error::Usage(format!(
            "cannot write to '{}' as folder is not empty (give another -o, or -f to delete it first, as JMeter)",
            dir.display()
        )));
    }
    std::fs::create_dir_all(dir)
        .map_err(|e| Error::Usage(format!("cannot make the report folder {}: {e}", dir.display())))
}

/// `-f -o DIR`: deletes what is in the report folder, not the folder (as JMeter's
/// `canSafelyWriteToFolder`), and refuses a folder that is or holds the working directory, the
/// runs, or one of `kept` (the plan, the results file): `-o .` or `-o runs` would delete them.
fn empty_report_folder(dir: &Path, kept: &[&Path]) -> Result<(), Error> {
    if !dir.is_dir() {
        return Ok(());
    }
    let o = absolute(dir);
    let runs = match super::run::run_place(None, false) {
        crate::rundir::Place::Unique(base) | crate::rundir::Place::Exact { dir: base, .. } => {
            base.parent().map(absolute)
        }
    };
    let cwd = absolute(Path::new("."));
    let held = std::iter::once(("the working directory", cwd.clone()))
        .chain(runs.clone().map(|r| ("the runs directory", r)))
        .chain(kept.iter().map(|k| ("a file of this command line", absolute(k))))
        .find(|(_, p)| p.starts_with(&o))
        .or_else(|| {
            // Inside the runs directory is inside a run: a run never overwrites another.
            runs.filter(|r| !cwd.starts_with(r) && o.starts_with(r)).map(|r| ("the runs directory", r))
        });
    if let Some((what, p)) = held {
        return Err(Error::Usage(format!(
            "-f -o {}: not deleting it, it is or holds {what} ({}): give a folder of its own for the report",
            dir.display(),
            p.display()
        )));
    }
    let cannot = |e: std::io::Error| Error::Usage(format!("could not delete the report folder {}: {e}", dir.display()));
    for entry in std::fs::read_dir(dir).map_err(cannot)? {
        let entry = entry.map_err(cannot)?;
        let path = entry.path();
        if entry.file_type().map_err(cannot)?.is_dir() {
            std::fs::remove_dir_all(&path).map_err(cannot)?;
        } else {
            std::fs::remove_file(&path).map_err(cannot)?;
        }
    }
    Ok(())
}

/// `p` absolute with its links resolved as far as it exists (a results file yet to be made).
fn absolute(p: &Path) -> PathBuf {
    let p = std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf());
    let mut rest = Vec::new();
    let mut at = p.as_path();
    loop {
        if let Ok(real) = at.canonicalize() {
            return rest.iter().rev().fold(real, |acc, c| acc.join(c));
        }
        match (at.parent(), at.file_name()) {
            (Some(parent), Some(name)) => {
                rest.push(name.to_os_string());
                at = parent;
            }
            _ => return p,
        }
    }
}

/// Writes the report of `run` into `dir`: `index.html`, and `statistics.json` in the shape of
/// JMeter's dashboard (what CI scripts read).
fn write_report(run: &crate::report::RunData, dir: &Path) -> Result<(), Error> {
    let io = |path: PathBuf| move |source| Error::from(crate::rundir::Error::Io { path, source });
    let index = dir.join("index.html");
    std::fs::write(&index, crate::report::html::document(run)).map_err(io(index.clone()))?;
    let stats = dir.join("statistics.json");
    let json = serde_json::to_string_pretty(&statistics(&run.summary)).expect("numbers serialise");
    std::fs::write(&stats, json).map_err(io(stats.clone()))
}

/// JMeter's dashboard `statistics.json`: an object per label and `Total`, with its field names.
fn statistics(s: &crate::rundir::Summary) -> serde_json::Value {
    let row = |l: &crate::rundir::LabelSummary, name: &str| {
        serde_json::json!({
            "transaction": name,
            "sampleCount": l.samples,
            "errorCount": l.errors,
            "errorPct": l.error_pct,
            "meanResTime": l.mean_ms,
            "medianResTime": l.p50_ms,
            "minResTime": l.min_ms,
            "maxResTime": l.max_ms,
            "pct1ResTime": l.p90_ms,
            "pct2ResTime": l.p95_ms,
            "pct3ResTime": l.p99_ms,
            "throughput": l.throughput_rps,
            "receivedKBytesPerSec": l.received_kbps,
            "sentKBytesPerSec": l.sent_kbps,
        })
    };
    let mut map = serde_json::Map::new();
    map.insert("Total".into(), row(&s.total, "Total"));
    for l in &s.labels {
        map.insert(l.label.clone(), row(l, &l.label));
    }
    serde_json::Value::Object(map)
}

/// What JMeter's `summary =` line gives of a run.
struct Totals {
    seconds: f64,
    samples: u64,
    errors: u64,
    error_pct: f64,
    mean_ms: f64,
    min_ms: f64,
    max_ms: f64,
    rate: f64,
}

impl Totals {
    fn of(meta: &crate::rundir::RunMeta, t: &crate::rundir::LabelSummary) -> Totals {
        Totals {
            seconds: meta.duration_s.unwrap_or(0.0),
            samples: t.samples,
            errors: t.errors,
            error_pct: t.error_pct,
            mean_ms: t.mean_ms,
            min_ms: t.min_ms,
            max_ms: t.max_ms,
            rate: t.throughput_rps,
        }
    }

    /// JMeter's `summary =` line (its Summariser's total at the end of a non-GUI run): whole
    /// milliseconds, as JMeter's are (its samples' times are whole ms, its average their
    /// integer mean), the run's length in whole seconds.
    fn line(&self) -> String {
        if self.samples == 0 {
            // JMeter's Summariser with no sample (a plan that starts no thread): no elapsed
            // time, so "******" for the rate, and its min and max still at their start values.
            return "summary =      0 in 00:00:00 = ******/s Avg:     0 Min: 9223372036854775807 Max: -9223372036854775808 Err:     0 (0.00%)".into();
        }
        let secs = self.seconds.round() as u64;
        format!(
            "summary = {:>6} in {:02}:{:02}:{:02} = {:>6.1}/s Avg: {:>5} Min: {:>5} Max: {:>5} Err: {:>5} ({:.2}%)",
            self.samples,
            secs / 3600,
            secs / 60 % 60,
            secs % 60,
            self.rate,
            self.mean_ms.floor() as u64,
            self.min_ms.floor() as u64,
            self.max_ms.floor() as u64,
            self.errors,
            self.error_pct
        )
    }
}

/// A new directory under `runs/` for the run, claimed now so that its name is known for `-e`
/// (the same names `run` gives: `runs/<timestamp>`, then `-2`, `-3`...).
fn claim_run_dir() -> Result<PathBuf, Error> {
    let base = match super::run::run_place(None, false) {
        crate::rundir::Place::Unique(base) => base,
        crate::rundir::Place::Exact { dir, .. } => dir,
    };
    if let Some(parent) = base.parent() {
        std::fs::create_dir_all(parent).map_err(|e| Error::Usage(format!("cannot make {}: {e}", parent.display())))?;
    }
    for n in 1..=10_000u32 {
        let dir = if n == 1 { base.clone() } else { PathBuf::from(format!("{}-{n}", base.display())) };
        match std::fs::create_dir(&dir) {
            Ok(()) => return Ok(dir),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(Error::Usage(format!("cannot make {}: {e}", dir.display()))),
        }
    }
    Err(Error::Usage(format!("no free run directory name after {}", base.display())))
}

/// Runs a JMeter command line.
pub(super) async fn execute(a: JmeterArgs) -> Result<u8, Error> {
    let inv = parse(&a.args)?;
    let _log = match &inv.log {
        Some(path) => Some(log::Tee::start(path)?),
        None => None,
    };
    let result = execute_parsed(inv).await;
    if let (Err(e), Some(tee)) = (&result, _log) {
        // The error main prints goes to the log too: the tee ends first, and main prints after.
        tee.finish(&format!("error: {e}\n"));
    }
    result
}

async fn execute_parsed(inv: Invocation) -> Result<u8, Error> {
    if inv.help {
        super::say(&help());
        return Ok(exit::OK);
    }
    if inv.version {
        super::say(&format!("stampede {} (JMeter 5.6.3's command line)\n", env!("CARGO_PKG_VERSION")));
        return Ok(exit::OK);
    }
    for level in &inv.log_levels {
        let l = level.rsplit_once('=').map_or(level.as_str(), |(_, l)| l);
        if !["OFF", "FATAL", "ERROR", "WARN", "INFO", "DEBUG", "TRACE", "ALL"].contains(&l.to_uppercase().as_str()) {
            eprintln!("warning: -L {level}: invalid log level '{l}' (JMeter warns and goes on; so does stampede)");
        }
    }
    let system: Vec<&str> =
        inv.props.iter().filter_map(|p| if let Prop::System(k, _) = p { Some(k.as_str()) } else { None }).collect();
    for f in &inv.system_files {
        std::fs::metadata(f).map_err(|e| Error::Usage(format!("-S {}: {e}", f.display())))?;
    }
    if !system.is_empty() || !inv.system_files.is_empty() {
        eprintln!(
            "note: Java system properties (-D, -S) are accepted; stampede runs no JVM and nothing in a plan reads them (give -J for ${{__P()}})"
        );
    }
    if let Some(jtl) = &inv.report_only {
        return report_only(&inv, jtl);
    }
    let plan = inv.plan.clone().ok_or_else(|| usage("non-GUI runs require a test plan: give -t PLAN".into()))?;
    if !plan.is_file() {
        return Err(Error::Usage(format!("the file {} doesn't exist or can't be opened", plan.display())));
    }
    if inv.report_at_end && inv.results.is_none() {
        return Err(usage("option -e requires -l option".into()));
    }
    let props = local_properties(&inv)?;
    let agents = match (&inv.remote, inv.run_remote) {
        (Some(list), _) => Some(agent_addresses(list)),
        (None, true) => Some(agent_addresses(property(&props, "remote_hosts").unwrap_or("127.0.0.1"))),
        (None, false) => None,
    };
    if agents.is_some() {
        let local_only: Vec<&str> =
            inv.props.iter().filter_map(|p| if let Prop::Jmeter(k, _) = p { Some(k.as_str()) } else { None }).collect();
        if !local_only.is_empty() || inv.propfile.is_some() || !inv.addprops.is_empty() {
            eprintln!(
                "warning: -J, -p and -q properties apply on this machine only, as in JMeter: the agents get only -G ones{}",
                if local_only.is_empty() { String::new() } else { format!(" (not given to them: {})", local_only.join(", ")) }
            );
        }
    }
    // JMeter deletes before it starts, and refuses a report folder in use before any load.
    if inv.force {
        if let Some(o) = &inv.report_dir {
            let mut kept = vec![plan.as_path()];
            kept.extend(inv.results.as_deref());
            empty_report_folder(o, &kept)?;
        }
    }
    // JMeter checks (and makes) the folder of -o even without -e, which alone writes in it.
    if let Some(o) = &inv.report_dir {
        report_folder(o)?;
    }
    let report_dir = match (&inv.report_dir, inv.report_at_end) {
        (Some(o), true) => Some(o.clone()),
        (None, true) => return Err(usage("-e needs -o DIR, the report's folder".into())),
        _ => None,
    };
    let out = claim_run_dir()?;
    let mut args = RunArgs { plan: Some(plan), out: Some(out.clone()), ..Default::default() };
    // Resolved here in JMeter's order, an empty one a real "": not -J to be read again.
    args.plan_args.resolved_properties = props.clone();
    args.plan_args.allow_commands = inv.allow_commands;
    args.jtl = inv.results.iter().cloned().collect();
    args.delete_results = inv.force;
    if let Some(agents) = agents {
        let token = std::env::var_os(TOKEN_ENV)
            .map(PathBuf::from)
            .or_else(|| property(&props, TOKEN_PROPERTY).map(PathBuf::from));
        args.dist.token_file = Some(token.ok_or_else(|| {
            Error::Usage(format!(
                "-R/-r run on stampede agents, which need their shared token: set {TOKEN_ENV}=FILE (or the property {TOKEN_PROPERTY})"
            ))
        })?);
        args.dist.agents = agents;
        args.agent_properties = Some(global_properties(&inv)?);
    }
    let code = match super::run::execute(args).await {
        Ok(code) => code,
        Err(e) => {
            // Nothing measured: the directory claimed for the run goes (only if still empty).
            let _ = std::fs::remove_dir(&out);
            return Err(e);
        }
    };
    // What JMeter's summariser prints last, for the scripts that read it.
    let run = super::report::load(&out)?;
    super::say(&format!("{}\n", Totals::of(&run.meta, &run.summary.total).line()));
    if let Some(dir) = report_dir {
        write_report(&run, &dir)?;
        eprintln!("the report is in {}", dir.display());
    }
    Ok(code)
}

/// `-g RESULTS -o DIR`: the report of a results file, no run.
fn report_only(inv: &Invocation, jtl: &Path) -> Result<u8, Error> {
    let dir = inv.report_dir.as_ref().ok_or_else(|| usage("-g needs -o DIR, the report's folder".into()))?;
    if inv.nongui {
        // JMeter's own refusal: the report alone is not a non-GUI run.
        return Err(usage("incompatible options -n/--nongui and -g/--reportonly found".into()));
    }
    if inv.plan.is_some() || inv.results.is_some() || inv.report_at_end {
        return Err(usage("-g makes a report from a results file: it does not go with -t, -l or -e".into()));
    }
    if inv.force {
        empty_report_folder(dir, &[jtl])?;
    }
    report_folder(dir)?;
    let run = super::report::load(jtl)?;
    write_report(&run, dir)?;
    eprintln!("the report is in {}", dir.display());
    Ok(exit::OK)
}

/// `-j LOGFILE`: what stampede says on stderr goes to the file as well.
mod log {
    use crate::error::Error;
    use std::io::{Read, Write};
    use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
    use std::path::Path;

    /// stderr duplicated into a file: a pipe stands as fd 2, a thread copies what comes into
    /// it to the real stderr and to the file. Ended (fd 2 given back, the copy drained) when
    /// dropped or by [`Tee::finish`].
    pub(super) struct Tee {
        saved: Option<OwnedFd>,
        thread: Option<std::thread::JoinHandle<std::fs::File>>,
    }

    impl Tee {
        pub(super) fn start(path: &Path) -> Result<Tee, Error> {
            let cannot = |e: std::io::Error| Error::Usage(format!("-j {}: {e}", path.display()));
            let mut file = std::fs::File::create(path).map_err(cannot)?;
            let mut fds = [0; 2];
            // SAFETY: pipe fills two descriptors this process then owns; dup and dup2 act on
            // descriptors that are open.
            let (read, saved) = unsafe {
                if libc::pipe(fds.as_mut_ptr()) != 0 {
                    return Err(cannot(std::io::Error::last_os_error()));
                }
                let read = OwnedFd::from_raw_fd(fds[0]);
                let write = OwnedFd::from_raw_fd(fds[1]);
                let saved = libc::dup(2);
                if saved < 0 || libc::dup2(write.as_raw_fd(), 2) < 0 {
                    return Err(cannot(std::io::Error::last_os_error()));
                }
                (read, OwnedFd::from_raw_fd(saved))
            };
            let mut terminal = std::fs::File::from(saved.try_clone().map_err(cannot)?);
            let mut pipe = std::fs::File::from(read);
            let thread = std::thread::spawn(move || {
                let mut buf = [0u8; 8192];
                while let Ok(n) = pipe.read(&mut buf) {
                    if n == 0 {
                        break;
                    }
                    let _ = terminal.write_all(&buf[..n]);
                    let _ = file.write_all(&buf[..n]);
                }
                file
            });
            Ok(Tee { saved: Some(saved), thread: Some(thread) })
        }

        /// Ends the copy, then appends `last` to the file only.
        pub(super) fn finish(mut self, last: &str) {
            if let Some(mut file) = self.end() {
                let _ = file.write_all(last.as_bytes());
            }
        }

        fn end(&mut self) -> Option<std::fs::File> {
            let saved = self.saved.take()?;
            // SAFETY: both descriptors are open; fd 2 becomes the terminal again, which closes
            // the pipe's last writer so the copying thread sees its end.
            unsafe { libc::dup2(saved.as_raw_fd(), 2) };
            self.thread.take().and_then(|t| t.join().ok())
        }
    }

    impl Drop for Tee {
        fn drop(&mut self) {
            self.end();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(s: &str) -> Vec<String> {
        s.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn jmeter_forms_of_options_read_as_jmeter_reads_them() {
        let inv = parse(&args(
            "-nt plan.jmx -lout.jtl --jmeterproperty=a=1 -J b=2 -J c 3 -Jd= -Gg=4 -Gglobal.properties -Dx=y -Ljmeter=DEBUG -L INFO -q one -q two -X -f -e -o rep",
        ))
        .unwrap();
        assert_eq!(inv.plan, Some(PathBuf::from("plan.jmx")));
        assert_eq!(inv.results, Some(PathBuf::from("out.jtl")));
        assert_eq!(
            inv.props,
            vec![
                Prop::Jmeter("a".into(), "1".into()),
                Prop::Jmeter("b".into(), "2".into()),
                Prop::Jmeter("c".into(), "3".into()),
                Prop::Jmeter("d".into(), "".into()),
                Prop::Global("g".into(), "4".into()),
                Prop::GlobalFile("global.properties".into()),
                Prop::System("x".into(), "y".into()),
            ]
        );
        assert_eq!(inv.log_levels, vec!["jmeter=DEBUG".to_string(), "INFO".to_string()]);
        assert_eq!(inv.addprops.len(), 2);
        assert!(inv.force && inv.report_at_end && inv.report_dir == Some(PathBuf::from("rep")));
    }

    /// stampede's own `--allow-commands` is taken beside JMeter's options; JMeter has no such.
    #[test]
    fn allow_commands_is_stampedes_own_option() {
        assert!(parse(&args("-n -t p.jmx --allow-commands")).unwrap().allow_commands);
        assert!(!parse(&args("-n -t p.jmx")).unwrap().allow_commands);
        assert!(help().contains("--allow-commands"));
    }

    #[test]
    fn unknown_refused_and_duplicate_options_are_errors_naming_the_option() {
        let err = |s: &str| parse(&args(s)).unwrap_err().to_string();
        assert!(err("-n -t p.jmx -Z").contains("unknown option -Z"), "{}", err("-Z"));
        assert!(err("--bogus").contains("unknown option --bogus"));
        assert!(err("-H proxy -P 8080").contains("-H/--proxyHost is not available"));
        assert!(err("-s").contains("stampede agent"));
        assert!(err("-t a.jmx -t b.jmx").contains("duplicate options for -t/--testfile"));
        assert!(err("-n plan.jmx").contains("unexpected argument `plan.jmx`"));
        assert!(err("-t").contains("-t/--testfile needs a value"));
    }

    /// As JMeter 5.6.3's CLArgsParser: -G and -L take a second word as -J does, one `=` after a
    /// short option is skipped, and LAST (the GUI's last plan) is refused by name.
    #[test]
    fn g_and_l_take_two_words_an_attached_equals_is_skipped_and_last_is_refused() {
        let inv =
            parse(&args("-G name value -L jmeter.util DEBUG -L INFO -Gfile.properties -t=plan.jmx -l==x.jtl")).unwrap();
        assert_eq!(
            inv.props,
            vec![Prop::Global("name".into(), "value".into()), Prop::GlobalFile("file.properties".into())]
        );
        assert_eq!(inv.log_levels, vec!["jmeter.util=DEBUG".to_string(), "INFO".to_string()]);
        assert_eq!(inv.plan, Some(PathBuf::from("plan.jmx")));
        assert_eq!(inv.results, Some(PathBuf::from("=x.jtl")));
        assert_eq!(parse(&args("-t =x.jmx")).unwrap().plan, Some(PathBuf::from("=x.jmx")));
        for last in ["-t LAST", "-l LAST", "-lLAST.jtl", "-j LAST.log"] {
            let e = parse(&args(last)).unwrap_err().to_string();
            assert!(e.contains("LAST") && e.contains("no GUI"), "{last}: {e}");
        }
    }

    #[test]
    fn later_properties_win_and_an_empty_value_removes() {
        let inv = parse(&args("-Ja=1 -Jb=2 -Ja=3 -Jb= -Gc=4")).unwrap();
        assert_eq!(
            local_properties(&inv).unwrap(),
            vec![("a".to_string(), "3".to_string()), ("c".to_string(), "4".to_string())]
        );
        assert_eq!(global_properties(&inv).unwrap(), vec![("c".to_string(), "4".to_string())]);
    }

    /// JMeter 5.6.3 with `-q` holding `h=`: `${__P(h,dflt)}` is "" (sent `/p/`); only `-J h=`
    /// removes it.
    #[test]
    fn an_empty_value_in_a_properties_file_is_kept_as_empty() {
        let dir = std::env::temp_dir().join(format!("stampede-jmeter-props-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let q = dir.join("q.properties");
        std::fs::write(&q, "h=\ngone=1\n").unwrap();
        let g = dir.join("g.properties");
        std::fs::write(&g, "gh=\n").unwrap();
        let inv =
            parse(&["-q".into(), q.display().to_string(), "-Jgone=".into(), "-G".into(), g.display().to_string()])
                .unwrap();
        let kv = |k: &str| (k.to_string(), String::new());
        assert_eq!(local_properties(&inv).unwrap(), vec![kv("h"), kv("gh")]);
        assert_eq!(global_properties(&inv).unwrap(), vec![kv("gh")]);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn the_summary_line_is_jmeters() {
        let t = Totals {
            seconds: 3725.4,
            samples: 14,
            errors: 14,
            error_pct: 100.0,
            mean_ms: 12.9,
            min_ms: 3.2,
            max_ms: 58.7,
            rate: 35.04,
        };
        // As JMeter 5.6.3 printed it for 14 failed samples (the length here 1 h 2 min 5 s).
        assert_eq!(
            t.line(),
            "summary =     14 in 01:02:05 =   35.0/s Avg:    12 Min:     3 Max:    58 Err:    14 (100.00%)"
        );
        // And for a run that sent nothing (every thread group of 0 threads), as JMeter printed it.
        let none =
            Totals { samples: 0, errors: 0, error_pct: 0.0, mean_ms: 0.0, min_ms: 0.0, max_ms: 0.0, rate: 0.0, ..t };
        assert_eq!(
            none.line(),
            "summary =      0 in 00:00:00 = ******/s Avg:     0 Min: 9223372036854775807 Max: -9223372036854775808 Err:     0 (0.00%)"
        );
    }

    #[test]
    fn remote_hosts_get_the_agent_port_when_they_name_none() {
        assert_eq!(
            agent_addresses("h1, 10.0.0.2:9000,[::1],[::1]:8000"),
            vec!["h1:7700", "10.0.0.2:9000", "[::1]:7700", "[::1]:8000"]
        );
    }
}
