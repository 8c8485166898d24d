//! A run on agents as a command asks for it (`run --agents` / `--listen-agents`, `sweep`,
//! `demo`): how to reach them, their token, the job they are sent, made and checked before any
//! agent is reached; then reached, and handed to the run as its executor
//! ([`crate::dist::controller::Agents`]).

use super::Say;
use crate::dist::controller::{self, Agents, Reach, SampleFiles};
use crate::dist::link::{AgentLink, Gathering};
use crate::dist::protocol::{self, Job, JobFile};
use crate::error::Error;
use crate::plan::{Overrides, Plan, QuickPlan};
use base64::Engine as _;
use std::path::{Path, PathBuf};
use tokio_util::sync::CancellationToken;

/// Where the agents are and how to speak to them.
#[derive(Debug, Clone, Default)]
pub(crate) struct Spec {
    /// `--agents`: dialled, part i/N on the i-th.
    pub addresses: Vec<String>,
    /// `--agent-ca`: TLS to the dialled agents.
    pub agent_ca: Option<PathBuf>,
    /// `--listen-agents`: wait here for `count` agents to join, at most `wait`.
    pub listen: Option<String>,
    pub count: usize,
    pub wait: std::time::Duration,
    /// `--agent-cert`, `--agent-key`: TLS to the joining agents.
    pub cert: Option<(PathBuf, PathBuf)>,
    pub token_file: PathBuf,
    /// `--ship`: folders sent besides what the plan reads.
    pub ship: Vec<PathBuf>,
    pub abort_on_loss: bool,
    pub quiet: bool,
}

/// What the agents load: the plan file the run loaded, or a plan made here, sent as its text.
pub(crate) enum Sent {
    /// The plan's file, every file it reads and the folders of `--ship`; `overrides` are the
    /// workload flags each agent applies to it.
    PlanFile { overrides: Overrides },
    /// Quick mode (`--url`): the YAML plan it makes (its workload flags are in it).
    Quick(QuickPlan),
    /// A plan given as YAML text (the demo's), named `name`.
    Yaml { name: String, text: String },
}

/// How the agents read the plan: properties, `--set`, `--skip-unsupported`, `--data split`.
#[derive(Debug, Clone, Default)]
pub(crate) struct Reading {
    pub properties: Vec<(String, String)>,
    pub replacements: Vec<(String, String)>,
    pub skip_unsupported: bool,
    pub data_split: bool,
}

/// A run on agents, checked and its job made, before any agent is reached.
pub(crate) struct OnAgents {
    spec: Spec,
    token: String,
    job: Job,
}

impl OnAgents {
    /// The run of `plan` on the agents of `spec`, sending them `sent` read as `reading` says.
    pub(crate) fn new(
        spec: Spec,
        plan: &Plan,
        sent: Sent,
        reading: Reading,
        say: &dyn Fn(&str),
    ) -> Result<OnAgents, Error> {
        let token = read_token(&spec.token_file)?;
        let file = |path: &str, bytes: &[u8]| JobFile {
            path: path.into(),
            base64: base64::engine::general_purpose::STANDARD.encode(bytes),
        };
        let (name, root, files, overrides) = match sent {
            Sent::PlanFile { overrides } => {
                let j = crate::dist::ship::job_files(plan, &spec.ship, std::slice::from_ref(&spec.token_file))
                    .map_err(Error::Usage)?;
                if let Some(note) = j.note.filter(|_| !spec.quiet) {
                    say(&format!("note: {note}"));
                }
                (j.plan, j.root, j.files, overrides)
            }
            Sent::Quick(quick) => {
                let (yaml, body) = quick.to_yaml()?;
                let mut files = vec![file("quick.yaml", yaml.as_bytes())];
                files.extend(body.map(|b| file(crate::plan::QUICK_BODY, &b)));
                ("quick.yaml".to_string(), String::new(), files, Overrides::default())
            }
            Sent::Yaml { name, text } => {
                let files = vec![file(&name, text.as_bytes())];
                (name, String::new(), files, Overrides::default())
            }
        };
        if !spec.quiet {
            let bytes: usize = files.iter().map(|f| f.base64.len() / 4 * 3).sum();
            let under = if root.is_empty() { String::new() } else { format!(" under {root}") };
            say(&format!("sending {} files ({} KiB){under} to each agent", files.len(), bytes / 1024));
        }
        for what in super::whole_plan_rates(plan) {
            say(&format!(
                "warning: {what} is kept by each agent, not split: the agents together run it once per agent"
            ));
        }
        let job = Job {
            plan: name,
            root,
            files,
            properties: reading.properties,
            replacements: reading.replacements,
            skip_unsupported: reading.skip_unsupported,
            users: overrides.users,
            duration_ms: overrides.duration.map(|d| d.as_millis() as u64),
            iterations: overrides.iterations,
            ramp_up_ms: overrides.ramp_up.map(|d| d.as_millis() as u64),
            segment: String::new(),
            data_split: reading.data_split,
            samples: !plan.result_files.is_empty(),
            setup_once: None,
        };
        Ok(OnAgents { spec, token, job })
    }

    /// Reaches the agents, saying each that joins; `None` when Ctrl-C came first.
    pub(super) async fn reach(&self, say: &Say, out: &Say) -> Result<Option<Vec<AgentLink>>, Error> {
        let reach = self.how(out).await?;
        let stop = CancellationToken::new();
        let signals = tokio::spawn({
            let stop = stop.clone();
            async move {
                super::interrupted().await;
                stop.cancel();
            }
        });
        let (quiet, n) = (self.spec.quiet, self.spec.count);
        let heard = move |g: Gathering<'_>| match g {
            Gathering::Joined(l, k) if !quiet => {
                say(&format!("  agent {k}/{n} joined from {} ({})", l.address, l.host))
            }
            Gathering::Joined(..) => {}
            Gathering::Note(note) => say(&note.to_string()),
        };
        let links = controller::reach(reach, &self.token, &stop, heard).await;
        signals.abort();
        let links = links.map_err(|e| Error::Usage(e.to_string()))?;
        if links.is_none() {
            say("interrupted while waiting for the agents: nothing was sent");
        }
        Ok(links)
    }

    /// How the agents are reached: dialled, or awaited on a listener (bound now; its address
    /// said on `out` even with -q: whoever starts the agents may need the port).
    async fn how(&self, out: &Say) -> Result<Reach, Error> {
        let spec = &self.spec;
        let Some(listen) = &spec.listen else {
            let tls = match &spec.agent_ca {
                Some(ca) => {
                    Some(protocol::client_tls(&read(ca)?).map_err(|e| Error::Usage(format!("--agent-ca: {e}")))?)
                }
                None => None,
            };
            return Ok(Reach::Dial { addresses: spec.addresses.clone(), tls });
        };
        let tls = match &spec.cert {
            Some((cert, key)) => Some(
                protocol::server_tls(&read(cert)?, &read(key)?)
                    .map_err(|e| Error::Usage(format!("--agent-cert: {e}")))?,
            ),
            None => None,
        };
        let listener = tokio::net::TcpListener::bind(listen)
            .await
            .map_err(|source| Error::Io { what: format!("cannot listen on {listen}"), source })?;
        let at = listener.local_addr().map_or(listen.to_string(), |l| l.to_string());
        let n = spec.count;
        out(&format!("waiting on {at} for {n} agents to join (stampede agent --join HOST:PORT)"));
        Ok(Reach::Listen { listener, tls, count: n, wait: spec.wait })
    }

    /// The results files the agents' rows are written to (the plan's, --jtl), when the job
    /// asks for rows; opened before any agent is reached.
    pub(super) fn results(&self, result_files: &[PathBuf]) -> Result<SampleFiles, Error> {
        SampleFiles::open(if self.job.samples { result_files } else { &[] }).map_err(|e| Error::Usage(e.to_string()))
    }

    /// The agents reached, as the run's executor, writing into the run directory `dir`;
    /// `ready` is called once every agent has accepted the job, before the start.
    pub(super) fn remote(
        self,
        links: Vec<AgentLink>,
        dir: &Path,
        samples: SampleFiles,
        ready: Option<controller::Ready>,
    ) -> Agents {
        let agents = Agents::new(links, self.job, dir, self.spec.abort_on_loss, samples);
        match ready {
            Some(ready) => agents.when_ready(ready),
            None => agents,
        }
    }
}

/// Which agent runs which part.
pub(super) fn banner(plan: &str, links: &[AgentLink]) -> String {
    let n = links.len();
    let mut lines = vec![format!("stampede {} — plan {plan} on {n} agents", env!("CARGO_PKG_VERSION"))];
    for (i, l) in links.iter().enumerate() {
        lines.push(format!("  part {}/{n}: {} ({})", i + 1, l.address, l.host));
    }
    lines.join("\n")
}

/// The shared token in `path`: its first line, which must not be empty.
pub(crate) fn read_token(path: &Path) -> Result<String, Error> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| Error::Usage(format!("cannot read the token file {}: {e}", path.display())))?;
    let token = text.lines().next().unwrap_or("").trim().to_string();
    if token.is_empty() {
        return Err(Error::Usage(format!("the token file {} is empty", path.display())));
    }
    Ok(token)
}

fn read(path: &Path) -> Result<Vec<u8>, Error> {
    std::fs::read(path).map_err(|e| Error::Usage(format!("cannot read {}: {e}", path.display())))
}
