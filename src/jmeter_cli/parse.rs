//! JMeter's argv read as JMeter's parser (`CLArgsParser`) reads it.

use super::options::{Opt, Takes, ALLOW_COMMANDS, OPTIONS};
use super::{usage, Error};
use std::path::PathBuf;

/// One `-J`, `-G` or `-D`, in command-line order (a later one wins; an empty value removes).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Prop {
    Jmeter(String, String),
    Global(String, String),
    GlobalFile(PathBuf),
    System(String, String),
}

/// A JMeter command line, read.
#[derive(Debug, Default)]
pub(crate) struct Invocation {
    pub(crate) help: bool,
    pub(crate) version: bool,
    pub(crate) nongui: bool,
    pub(crate) plan: Option<PathBuf>,
    pub(crate) results: Option<PathBuf>,
    pub(crate) log: Option<PathBuf>,
    pub(crate) propfile: Option<PathBuf>,
    pub(crate) addprops: Vec<PathBuf>,
    pub(crate) system_files: Vec<PathBuf>,
    pub(crate) props: Vec<Prop>,
    pub(crate) remote: Option<String>,
    pub(crate) run_remote: bool,
    pub(crate) report_only: Option<PathBuf>,
    pub(crate) report_at_end: bool,
    pub(crate) report_dir: Option<PathBuf>,
    pub(crate) force: bool,
    pub(crate) home: Option<PathBuf>,
    /// `-L [category=]level`: accepted (stampede has one log); a level JMeter does not know is
    /// warned of, as JMeter does.
    pub(crate) log_levels: Vec<String>,
    /// `--allow-commands`, stampede's own: OS Process Samplers run their commands.
    pub(crate) allow_commands: bool,
}

/// Reads JMeter's argv as JMeter's parser does: short options clustered (`-nt plan.jmx`), a
/// value attached or in the next word, long options with `=` or a space.
pub(crate) fn parse(args: &[String]) -> Result<Invocation, Error> {
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
        return Err(Error(format!("-{}/--{} is not available in stampede: {why}", o.short, o.long)));
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
        return Err(Error(format!(
            "-{} LAST: JMeter takes the plan its GUI opened last (its recent-files list); stampede has no GUI and no such list: name the file",
            o.short
        )));
    }
    assign(inv, o, value, args, i)
}

/// Puts an option's value where the invocation keeps it.
fn assign(inv: &mut Invocation, o: &Opt, value: Option<String>, args: &[String], i: &mut usize) -> Result<(), Error> {
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
