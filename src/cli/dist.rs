//! `stampede run --agents` / `--listen-agents`: what the command line says of a run on agents
//! (how to reach them, their token, the job they are sent), for [`crate::dist::controller`].
//! The run itself is the same as a local one (`run::run_plan`): only its executor differs.

use super::run::{DataMode, OnAgentLoss, RunArgs};
use crate::dist::controller::{self, Agents, Reach, SampleFiles};
use crate::dist::link::{AgentLink, Gathering};
use crate::dist::protocol::{self, Job, JobFile};
use crate::error::Error;
use crate::plan::Plan;
use base64::Engine as _;
use std::path::{Path, PathBuf};
use tokio_util::sync::CancellationToken;

/// `--agents` and the flags that go with it, for `run` and for each step of `sweep`.
#[derive(Debug, clap::Args, Clone, Default)]
pub struct AgentFlags {
    /// Run the plan on these agents (`stampede agent`), part i/N on the i-th: `HOST:PORT,...`.
    /// The plan's directory and every file the plan reads outside it (wherever they are; quick
    /// mode: the plan --url makes) are sent to each; their run directories are kept under the run's `agents/` and merged
    /// into the run's, second by second, which the progress line, --watch, --export and the
    /// goals (--threshold, --stop-on) take as on one generator.
    #[arg(long, value_delimiter = ',', value_name = "ADDR,...", help_heading = "Several generators")]
    pub agents: Vec<String>,
    /// With --agents or --listen-agents: also send this folder (repeatable). Without it the
    /// plan's directory (hidden files and run directories left out), where names the plan makes
    /// only while it runs are read, and every file it reads when it loads are sent, wherever
    /// they are; --ship adds what they leave out (a hidden folder, a plan in your home directory).
    #[arg(long, value_name = "DIR", help_heading = "Several generators")]
    pub ship: Vec<PathBuf>,
    /// Instead of --agents: wait on this address for --agent-count agents to join
    /// (`stampede agent --join HOST:PORT`), then run the plan on them as on --agents, part i/N on
    /// the i-th to join.
    #[arg(
        long,
        value_name = "ADDR",
        conflicts_with = "agents",
        requires = "agent_count",
        help_heading = "Several generators"
    )]
    pub listen_agents: Option<String>,
    /// With --listen-agents: how many agents the run waits for.
    #[arg(long, value_name = "N", requires = "listen_agents", value_parser = clap::value_parser!(u32).range(1..=10000), help_heading = "Several generators")]
    pub agent_count: Option<u32>,
    /// With --listen-agents: how long to wait for them all before giving up (nothing is sent).
    #[arg(long, value_name = "DURATION", default_value = "5m", value_parser = humantime::parse_duration, requires = "listen_agents", help_heading = "Several generators")]
    pub agent_wait: std::time::Duration,
    /// With --listen-agents: speak TLS to the agents with this certificate (PEM, the chain);
    /// they give `--controller-ca`. Needs --agent-key.
    #[arg(long, value_name = "FILE", requires_all = ["agent_key", "listen_agents"], help_heading = "Several generators")]
    pub agent_cert: Option<PathBuf>,
    /// The private key (PEM) of --agent-cert.
    #[arg(long, value_name = "FILE", requires = "agent_cert", help_heading = "Several generators")]
    pub agent_key: Option<PathBuf>,
    /// With --agents or --listen-agents: what the others do when an agent is lost (killed, its network gone):
    /// `continue` (what it sent until then is kept) or `abort` (every agent stops).
    #[arg(long, value_enum, default_value = "continue", value_name = "WHAT", help_heading = "Several generators")]
    pub on_agent_loss: OnAgentLoss,
    /// With --agents: speak TLS to the agents, trusting the certificates in this file (PEM):
    /// the agents' own, or the CA that signed them. Each agent's certificate must name the host
    /// given in --agents.
    #[arg(long, value_name = "FILE", requires = "agents", help_heading = "Several generators")]
    pub agent_ca: Option<PathBuf>,
    /// With --agents or --listen-agents: the file holding the agents' shared token (its first line).
    #[arg(long, value_name = "FILE", help_heading = "Several generators")]
    pub token_file: Option<PathBuf>,
}

impl AgentFlags {
    /// Whether the run goes to agents.
    pub fn on(&self) -> bool {
        !self.agents.is_empty() || self.listen_agents.is_some()
    }
}

/// A run on agents as the command line asks for it, checked and its job made, before any
/// agent is reached.
pub(crate) struct OnAgents {
    addresses: Vec<String>,
    agent_ca: Option<PathBuf>,
    listen: Option<String>,
    count: usize,
    wait: std::time::Duration,
    cert: Option<(PathBuf, PathBuf)>,
    token: String,
    job: Job,
    abort_on_loss: bool,
    quiet: bool,
}

impl RunArgs {
    /// The run on agents these arguments ask for, `None` without `--agents`/`--listen-agents`.
    /// A plan file is shipped with every file it reads; quick mode (`--url`) as the YAML plan it makes.
    pub(crate) fn on_agents(&self, plan: &Plan) -> Result<Option<OnAgents>, Error> {
        if self.dist.agents.is_empty() && self.dist.listen_agents.is_none() {
            return Ok(None);
        }
        let token_file =
            self.dist.token_file.as_ref().ok_or_else(|| {
                Error::Usage("--agents and --listen-agents need --token-file (the agents' token)".into())
            })?;
        let token = super::agent::read_token(token_file)?;
        let (name, root, files, overrides) = match &self.plan {
            // The plan's directory, what the plan reads wherever it is, and the folders of --ship.
            Some(_) => {
                let j = crate::dist::ship::job_files(plan, &self.dist.ship, std::slice::from_ref(token_file))
                    .map_err(Error::Usage)?;
                if let Some(note) = j.note.filter(|_| !self.quiet) {
                    eprintln!("note: {note}");
                }
                (j.plan, j.root, j.files, true)
            }
            None => {
                let (yaml, body) = self.quick_plan()?.to_yaml()?;
                let file = |path: &str, bytes: &[u8]| JobFile {
                    path: path.into(),
                    base64: base64::engine::general_purpose::STANDARD.encode(bytes),
                };
                let mut files = vec![file("quick.yaml", yaml.as_bytes())];
                files.extend(body.map(|b| file(crate::plan::QUICK_BODY, &b)));
                // The workload flags are in the plan made of them: not applied twice.
                ("quick.yaml".to_string(), String::new(), files, false)
            }
        };
        if !self.quiet {
            let bytes: usize = files.iter().map(|f| f.base64.len() / 4 * 3).sum();
            let under = if root.is_empty() { String::new() } else { format!(" under {root}") };
            eprintln!("sending {} files ({} KiB){under} to each agent", files.len(), bytes / 1024);
        }
        for what in super::run::whole_plan_rates(plan) {
            eprintln!("warning: {what} is kept by each agent, not split: the agents together run it once per agent");
        }
        let opts = self.plan_args.load_options()?;
        let job = Job {
            plan: name,
            root,
            files,
            properties: self.agent_properties.clone().unwrap_or_else(|| opts.properties.into_iter().collect()),
            replacements: opts.replacements,
            skip_unsupported: opts.skip_unsupported,
            users: self.users.filter(|_| overrides),
            duration_ms: self.duration.filter(|_| overrides).map(|d| d.as_millis() as u64),
            iterations: self.iterations.filter(|_| overrides),
            ramp_up_ms: self.ramp_up.filter(|_| overrides).map(|d| d.as_millis() as u64),
            segment: String::new(),
            data_split: self.data == DataMode::Split,
            samples: !plan.result_files.is_empty(),
            setup_once: None,
        };
        Ok(Some(OnAgents {
            addresses: self.dist.agents.clone(),
            agent_ca: self.dist.agent_ca.clone(),
            listen: self.dist.listen_agents.clone(),
            count: self.dist.agent_count.unwrap_or(1) as usize,
            wait: self.dist.agent_wait,
            cert: self.dist.agent_cert.clone().zip(self.dist.agent_key.clone()),
            token,
            job,
            abort_on_loss: self.dist.on_agent_loss == OnAgentLoss::Abort,
            quiet: self.quiet,
        }))
    }
}

impl OnAgents {
    /// Reaches the agents, saying each that joins; `None` when Ctrl-C came first.
    pub(crate) async fn reach(&self) -> Result<Option<Vec<AgentLink>>, Error> {
        let reach = match &self.listen {
            Some(listen) => {
                let tls = match &self.cert {
                    Some((cert, key)) => Some(
                        protocol::server_tls(&read_file(cert)?, &read_file(key)?)
                            .map_err(|e| Error::Usage(format!("--agent-cert: {e}")))?,
                    ),
                    None => None,
                };
                let listener = tokio::net::TcpListener::bind(listen)
                    .await
                    .map_err(|source| Error::Io { what: format!("cannot listen on {listen}"), source })?;
                let at = listener.local_addr().map_or(listen.to_string(), |l| l.to_string());
                // Said on stdout even with -q: whoever starts the agents may need the port.
                let n = self.count;
                super::say(&format!("waiting on {at} for {n} agents to join (stampede agent --join HOST:PORT)\n"));
                Reach::Listen { listener, tls, count: n, wait: self.wait }
            }
            None => {
                let tls = match &self.agent_ca {
                    Some(ca) => Some(
                        protocol::client_tls(&read_file(ca)?).map_err(|e| Error::Usage(format!("--agent-ca: {e}")))?,
                    ),
                    None => None,
                };
                Reach::Dial { addresses: self.addresses.clone(), tls }
            }
        };
        let stop = CancellationToken::new();
        let signals = tokio::spawn({
            let stop = stop.clone();
            async move {
                super::interrupted().await;
                stop.cancel();
            }
        });
        let (quiet, n) = (self.quiet, self.count);
        let heard = move |g: Gathering<'_>| match g {
            Gathering::Joined(l, k) if !quiet => eprintln!("  agent {k}/{n} joined from {} ({})", l.address, l.host),
            Gathering::Joined(..) => {}
            Gathering::Note(note) => eprintln!("{note}"),
        };
        let links = controller::reach(reach, &self.token, &stop, heard).await;
        signals.abort();
        let links = links.map_err(|e| Error::Usage(e.to_string()))?;
        if links.is_none() {
            eprintln!("interrupted while waiting for the agents: nothing was sent");
        }
        Ok(links)
    }

    /// The results files the agents' rows are written to (the plan's, --jtl), when the job
    /// asks for rows; opened before any agent is reached.
    pub(crate) fn results(&self, result_files: &[PathBuf]) -> Result<SampleFiles, Error> {
        SampleFiles::open(if self.job.samples { result_files } else { &[] }).map_err(Error::Usage)
    }

    /// The agents reached, as the run's executor, writing into the run directory `dir`.
    pub(crate) fn remote(self, links: Vec<AgentLink>, dir: &Path, samples: SampleFiles) -> Agents {
        Agents::new(links, self.job, dir, self.abort_on_loss, samples)
    }
}

/// Says which agent runs which part.
pub(super) fn banner(plan: &str, links: &[AgentLink]) {
    let n = links.len();
    eprintln!("stampede {} — plan {plan} on {n} agents", env!("CARGO_PKG_VERSION"));
    for (i, l) in links.iter().enumerate() {
        eprintln!("  part {}/{n}: {} ({})", i + 1, l.address, l.host);
    }
}

fn read_file(path: &Path) -> Result<Vec<u8>, Error> {
    std::fs::read(path).map_err(|e| Error::Usage(format!("cannot read {}: {e}", path.display())))
}
