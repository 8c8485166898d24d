//! `--agents` / `--listen-agents` and the flags that go with them: what the command line says
//! of a run on agents, made into a [`crate::launch::agents::OnAgents`]. The run itself is the
//! same as a local one: only its executor differs.

use super::run::{DataMode, OnAgentLoss, RunArgs};
use crate::error::Error;
use crate::launch::agents::{OnAgents, Reading, Sent, Spec};
use crate::plan::Plan;
use std::path::PathBuf;

/// `--agents` and the flags that go with it, for `run` and for each step of `sweep`.
#[derive(Debug, clap::Args, Clone, Default)]
pub(crate) struct AgentFlags {
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
    pub(crate) fn on(&self) -> bool {
        !self.agents.is_empty() || self.listen_agents.is_some()
    }

    /// Where the agents are and how to speak to them.
    pub(super) fn spec(&self, quiet: bool) -> Result<Spec, Error> {
        let token_file = self
            .token_file
            .clone()
            .ok_or_else(|| Error::Usage("--agents and --listen-agents need --token-file (the agents' token)".into()))?;
        Ok(Spec {
            addresses: self.agents.clone(),
            agent_ca: self.agent_ca.clone(),
            listen: self.listen_agents.clone(),
            count: self.agent_count.unwrap_or(1) as usize,
            wait: self.agent_wait,
            cert: self.agent_cert.clone().zip(self.agent_key.clone()),
            token_file,
            ship: self.ship.clone(),
            abort_on_loss: self.on_agent_loss == OnAgentLoss::Abort,
            quiet,
        })
    }
}

impl RunArgs {
    /// The run on agents these arguments ask for, `None` without `--agents`/`--listen-agents`.
    /// A plan file is shipped with every file it reads; quick mode (`--url`) as the YAML plan it makes.
    pub(crate) fn on_agents(&self, plan: &Plan) -> Result<Option<OnAgents>, Error> {
        if !self.dist.on() {
            return Ok(None);
        }
        let spec = self.dist.spec(self.quiet)?;
        let sent = match &self.plan {
            Some(_) => Sent::PlanFile { overrides: self.overrides() },
            None => Sent::Quick(self.quick_plan()?),
        };
        let opts = self.plan_args.load_options()?;
        let reading = Reading {
            properties: self.agent_properties.clone().unwrap_or_else(|| opts.properties.into_iter().collect()),
            replacements: opts.replacements,
            skip_unsupported: opts.skip_unsupported,
            data_split: self.data == DataMode::Split,
        };
        OnAgents::new(spec, plan, sent, reading, &|line| eprintln!("{line}")).map(Some)
    }
}
