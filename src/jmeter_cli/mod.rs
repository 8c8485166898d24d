//! JMeter 5.6.3's non-GUI command line (`jmeter -n -t plan.jmx -l out.jtl -e -o report ...`),
//! read as JMeter reads it and translated into what stampede does: a run (with its results
//! file, properties, agents and report folder) or a report of a results file. `stampede jmeter`
//! (and a link named `jmeter` to the binary) hands its arguments here, so that a team's
//! scripts and CI jobs run unchanged with `jmeter` pointing at stampede.
//!
//! Every option JMeter has is known by its short and long name ([`options`]): those stampede
//! honours map onto a run; those it cannot honour are refused by name with the reason; anything
//! else is refused as unknown. Nothing given is silently dropped.

mod folders;
pub(crate) mod log;
mod options;
mod parse;
mod props;
#[cfg(test)]
mod tests;

pub(crate) use options::help;
pub(crate) use parse::{parse, Invocation};

use folders::{claim_run_dir, prepare};
use options::{TOKEN_ENV, TOKEN_PROPERTY};
use parse::Prop;
use props::{agent_addresses, global_properties, local_properties, property};
use std::path::{Path, PathBuf};

/// A process's arguments `args`, with `jmeter` put first when the binary was started as
/// `jmeter` (a link of that name).
pub(crate) fn as_called(mut args: Vec<std::ffi::OsString>) -> Vec<std::ffi::OsString> {
    let called = args.first().and_then(|a| Path::new(a).file_stem().map(|s| s.to_string_lossy().into_owned()));
    if called.as_deref() == Some("jmeter") {
        args.insert(1, "jmeter".into());
    }
    args
}

/// A JMeter command line stampede refuses, in words that name the option: bad input, nothing
/// was sent.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub(crate) struct Error(pub(crate) String);

fn usage(msg: String) -> Error {
    Error(format!("{msg} (`stampede jmeter -?` lists JMeter's options)"))
}

/// What a JMeter command line asks for.
#[derive(Debug)]
pub(crate) enum Action {
    /// `-?`, `-h`, `-v`: this text on standard output, and nothing else.
    Say(String),
    /// `-g RESULTS -o DIR`: the report of a results file into a folder made ready, no run.
    ReportOnly {
        results: PathBuf,
        dir: PathBuf,
    },
    Run(Request),
}

/// A run as `-n -t ...` asks for it, its report folder made ready and its run directory claimed.
#[derive(Debug)]
pub(crate) struct Request {
    pub(crate) plan: PathBuf,
    /// The run directory, claimed (empty) so that its name is known for `-e`.
    pub(crate) out: PathBuf,
    /// `-l`: the JTL file, appended to unless `force`.
    pub(crate) results: Option<PathBuf>,
    /// `-f`: the results file deleted before the run.
    pub(crate) force: bool,
    /// Resolved in JMeter's order, an empty one a real "": not `-J` to be read again.
    pub(crate) properties: Vec<(String, String)>,
    pub(crate) allow_commands: bool,
    pub(crate) agents: Option<Agents>,
    /// `-e -o DIR`: the HTML report's folder, written after the run.
    pub(crate) report_dir: Option<PathBuf>,
}

/// `-R`/`-r`: the agents to run on.
#[derive(Debug)]
pub(crate) struct Agents {
    pub(crate) addresses: Vec<String>,
    pub(crate) token_file: PathBuf,
    /// Only `-G` ones, as JMeter sends only its global properties to its servers.
    pub(crate) properties: Vec<(String, String)>,
}

impl Invocation {
    /// What the command line asks for; `run_base` is where a new run directory would go
    /// (`runs/<timestamp>`). Warnings go to `warn` as they arise, before any error after them,
    /// as JMeter prints them.
    pub(crate) fn action(&self, run_base: &Path, warn: &mut dyn FnMut(&str)) -> Result<Action, Error> {
        if self.help {
            return Ok(Action::Say(help()));
        }
        if self.version {
            return Ok(Action::Say(format!("stampede {} (JMeter 5.6.3's command line)\n", env!("CARGO_PKG_VERSION"))));
        }
        self.accepted_only(warn)?;
        match &self.report_only {
            Some(results) => self.report_only(results, run_base),
            None => self.run(run_base, warn).map(Action::Run),
        }
    }

    /// `-L` and `-D`/`-S`: accepted, and said to do nothing here.
    fn accepted_only(&self, warn: &mut dyn FnMut(&str)) -> Result<(), Error> {
        for level in &self.log_levels {
            let l = level.rsplit_once('=').map_or(level.as_str(), |(_, l)| l);
            if !["OFF", "FATAL", "ERROR", "WARN", "INFO", "DEBUG", "TRACE", "ALL"].contains(&l.to_uppercase().as_str())
            {
                warn(&format!(
                    "warning: -L {level}: invalid log level '{l}' (JMeter warns and goes on; so does stampede)"
                ));
            }
        }
        for f in &self.system_files {
            std::fs::metadata(f).map_err(|e| Error(format!("-S {}: {e}", f.display())))?;
        }
        if self.props.iter().any(|p| matches!(p, Prop::System(..))) || !self.system_files.is_empty() {
            warn("note: Java system properties (-D, -S) are accepted; stampede runs no JVM and nothing in a plan reads them (give -J for ${__P()})");
        }
        Ok(())
    }

    /// `-g RESULTS -o DIR`: the report of a results file, no run.
    fn report_only(&self, results: &Path, run_base: &Path) -> Result<Action, Error> {
        let dir = self.report_dir.as_ref().ok_or_else(|| usage("-g needs -o DIR, the report's folder".into()))?;
        if self.nongui {
            // JMeter's own refusal: the report alone is not a non-GUI run.
            return Err(usage("incompatible options -n/--nongui and -g/--reportonly found".into()));
        }
        if self.plan.is_some() || self.results.is_some() || self.report_at_end {
            return Err(usage("-g makes a report from a results file: it does not go with -t, -l or -e".into()));
        }
        prepare(dir, self.force, &[results], run_base)?;
        Ok(Action::ReportOnly { results: results.to_path_buf(), dir: dir.clone() })
    }

    /// `-n -t PLAN ...`: checked whole before anything is deleted or claimed.
    fn run(&self, run_base: &Path, warn: &mut dyn FnMut(&str)) -> Result<Request, Error> {
        let plan = self.plan.clone().ok_or_else(|| usage("non-GUI runs require a test plan: give -t PLAN".into()))?;
        if !plan.is_file() {
            return Err(Error(format!("the file {} doesn't exist or can't be opened", plan.display())));
        }
        if self.report_at_end && self.results.is_none() {
            return Err(usage("option -e requires -l option".into()));
        }
        let properties = local_properties(self)?;
        let agents = self.agents(&properties, warn)?;
        let report_dir = match (&self.report_dir, self.report_at_end) {
            (Some(o), true) => Some(o.clone()),
            (None, true) => return Err(usage("-e needs -o DIR, the report's folder".into())),
            _ => None,
        };
        // JMeter deletes before it starts, and refuses a report folder in use before any load;
        // it checks (and makes) the folder of -o even without -e, which alone writes in it.
        if let Some(o) = &self.report_dir {
            let mut kept = vec![plan.as_path()];
            kept.extend(self.results.as_deref());
            prepare(o, self.force, &kept, run_base)?;
        }
        Ok(Request {
            out: claim_run_dir(run_base)?,
            plan,
            results: self.results.clone(),
            force: self.force,
            properties,
            allow_commands: self.allow_commands,
            agents,
            report_dir,
        })
    }

    /// `-R HOSTS`, or `-r` and the property `remote_hosts`: the agents, their token and the
    /// properties they get.
    fn agents(&self, props: &[(String, String)], warn: &mut dyn FnMut(&str)) -> Result<Option<Agents>, Error> {
        let addresses = match (&self.remote, self.run_remote) {
            (Some(list), _) => agent_addresses(list),
            (None, true) => agent_addresses(property(props, "remote_hosts").unwrap_or("127.0.0.1")),
            (None, false) => return Ok(None),
        };
        let local_only: Vec<&str> = self
            .props
            .iter()
            .filter_map(|p| if let Prop::Jmeter(k, _) = p { Some(k.as_str()) } else { None })
            .collect();
        if !local_only.is_empty() || self.propfile.is_some() || !self.addprops.is_empty() {
            warn(&format!(
                "warning: -J, -p and -q properties apply on this machine only, as in JMeter: the agents get only -G ones{}",
                if local_only.is_empty() { String::new() } else { format!(" (not given to them: {})", local_only.join(", ")) }
            ));
        }
        let token = std::env::var_os(TOKEN_ENV)
            .map(PathBuf::from)
            .or_else(|| property(props, TOKEN_PROPERTY).map(PathBuf::from));
        let token_file = token.ok_or_else(|| {
            Error(format!(
                "-R/-r run on stampede agents, which need their shared token: set {TOKEN_ENV}=FILE (or the property {TOKEN_PROPERTY})"
            ))
        })?;
        Ok(Some(Agents { addresses, token_file, properties: global_properties(self)? }))
    }
}
