//! `stampede agent`: a load generator that runs the parts of plans a controller
//! (`stampede run --agents`) sends it (see [`crate::dist::agent`]), served as
//! [`crate::launch::serve`] says.

use crate::error::{exit, Error};
use crate::launch::serve::{Meet, Serving};
use clap::Args;
use std::path::PathBuf;
use std::sync::Arc;

#[derive(Debug, Args)]
pub(crate) struct AgentArgs {
    /// Address to listen on for a controller (loopback by default; `0.0.0.0:7700` for others).
    #[arg(long, default_value = "127.0.0.1:7700", conflicts_with = "join")]
    pub listen: String,
    /// A file holding the shared token a controller must present (its first line).
    #[arg(long, value_name = "FILE")]
    pub token_file: PathBuf,
    /// Speak TLS on the control connection with this certificate (PEM, the chain); controllers
    /// then give `--agent-ca`. Needs --tls-key.
    #[arg(long, value_name = "FILE", requires = "tls_key")]
    pub tls_cert: Option<PathBuf>,
    /// The private key (PEM) of --tls-cert.
    #[arg(long, value_name = "FILE", requires = "tls_cert")]
    pub tls_key: Option<PathBuf>,
    /// Where each job's files and its own run directory go (default: the system's temporary
    /// directory).
    #[arg(long, value_name = "DIR")]
    pub work_dir: Option<PathBuf>,
    /// Instead of listening, join the controller waiting at HOST:PORT (`run --listen-agents`),
    /// run the part it sends, and exit: no list of agents' addresses needed (a Kubernetes Job).
    #[arg(long, value_name = "HOST:PORT", conflicts_with_all = ["tls_cert", "tls_key"])]
    pub join: Option<String>,
    /// With --join: speak TLS to the controller, trusting the certificates in this file (PEM);
    /// the controller's certificate must name HOST.
    #[arg(long, value_name = "FILE", requires = "join")]
    pub controller_ca: Option<PathBuf>,
    /// The group of generators this agent is in (a cloud, a region): its parts record it, and
    /// `report --by group` makes a table per group.
    #[arg(long, value_name = "NAME")]
    pub group: Option<String>,
    /// With --join: how long to keep trying while the controller is not there yet.
    #[arg(long, value_name = "DURATION", default_value = "10m", value_parser = humantime::parse_duration, requires = "join")]
    pub join_timeout: std::time::Duration,
}

pub(super) async fn execute(a: AgentArgs) -> Result<u8, Error> {
    let serving = Serving {
        token: crate::launch::agents::read_token(&a.token_file)?,
        tls: a.tls_cert.clone().zip(a.tls_key.clone()),
        work_dir: a.work_dir.clone(),
        group: a.group.clone(),
        say: Arc::new(|line| eprintln!("{line}")),
        out: Arc::new(|line| super::say(&format!("{line}\n"))),
        leave: Arc::new(|| std::process::exit(i32::from(exit::INTERRUPTED))),
    };
    serving
        .serve(match &a.join {
            Some(address) => Meet::Join { address, controller_ca: a.controller_ca.as_deref(), timeout: a.join_timeout },
            None => Meet::Listen(&a.listen),
        })
        .await?;
    Ok(exit::OK)
}
