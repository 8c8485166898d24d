//! `stampede agent`: a load generator that runs the parts of plans a controller
//! (`stampede run --agents`) sends it (see [`crate::dist::agent`]).

use crate::error::Error;
use clap::Args;
use std::path::PathBuf;
use std::sync::Arc;
use tokio_util::sync::CancellationToken;

#[derive(Debug, Args)]
pub struct AgentArgs {
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
    let token = crate::launch::agents::read_token(&a.token_file)?;
    let tls = match (&a.tls_cert, &a.tls_key) {
        (Some(cert), Some(key)) => {
            let read =
                |p: &PathBuf| std::fs::read(p).map_err(|e| Error::Usage(format!("cannot read {}: {e}", p.display())));
            Some(
                crate::dist::protocol::server_tls(&read(cert)?, &read(key)?)
                    .map_err(|e| Error::Usage(format!("--tls-cert: {e}")))?,
            )
        }
        _ => None,
    };
    let secure =
        if tls.is_some() || a.controller_ca.is_some() { "TLS" } else { "plain TCP: use it on a private network" };
    let work = a.work_dir.clone().unwrap_or_else(|| std::env::temp_dir().join("stampede-agent"));
    std::fs::create_dir_all(&work)
        .map_err(|e| Error::Usage(format!("cannot make the work directory {}: {e}", work.display())))?;
    // Jobs' files may hold logins and tokens: this user's only.
    crate::dist::agent::private(&work);
    // As `run` does: a generator with thousands of users needs a descriptor each.
    crate::run::raise_fd_limit();
    if let Some(address) = &a.join {
        return join(&a, address, token, work, secure).await;
    }
    let listener = tokio::net::TcpListener::bind(&a.listen)
        .await
        .map_err(|source| Error::Io { what: format!("cannot listen on {}", a.listen), source })?;
    let addr = listener.local_addr().map_err(|source| Error::Io { what: "listening".into(), source })?;
    super::say(&format!(
        "stampede agent listening on {addr} (protocol {}, stampede {}, {secure}); Ctrl-C to stop\n",
        crate::dist::protocol::PROTOCOL,
        env!("CARGO_PKG_VERSION")
    ));
    let shutdown = CancellationToken::new();
    let mut agent = crate::dist::agent::Agent::new(token, work, tls);
    agent.group = a.group.clone();
    agent.log = Arc::new(|line| eprintln!("{line}"));
    let agent = Arc::new(agent);
    let serve = tokio::spawn(agent.clone().serve(listener, shutdown.clone()));
    super::interrupted().await;
    shutdown.cancel();
    let _ = serve.await;
    // A job in progress stops gracefully with the agent's shutdown (its requests in flight get
    // their graceful stop); a second Ctrl-C leaves at once.
    if agent.is_busy() {
        eprintln!("stopping the job in progress (Ctrl-C again to leave at once)");
        let wait = async {
            while agent.is_busy() {
                tokio::time::sleep(std::time::Duration::from_millis(100)).await;
            }
        };
        tokio::select! {
            _ = wait => {}
            _ = super::interrupted() => {}
            _ = tokio::time::sleep(std::time::Duration::from_secs(120)) => {}
        }
    }
    // A job left running when the process leaves keeps none of its files.
    for e in agent.jobs().delete() {
        eprintln!("{e}");
    }
    Ok(crate::error::exit::OK)
}

/// `--join`: one job from the controller at `address`, then exit.
async fn join(a: &AgentArgs, address: &str, token: String, work: PathBuf, secure: &str) -> Result<u8, Error> {
    let tls = match &a.controller_ca {
        Some(ca) => {
            let pem = std::fs::read(ca).map_err(|e| Error::Usage(format!("cannot read {}: {e}", ca.display())))?;
            Some(crate::dist::protocol::client_tls(&pem).map_err(|e| Error::Usage(format!("--controller-ca: {e}")))?)
        }
        None => None,
    };
    super::say(&format!(
        "stampede agent joining {address} (protocol {}, stampede {}, {secure}); Ctrl-C to stop\n",
        crate::dist::protocol::PROTOCOL,
        env!("CARGO_PKG_VERSION")
    ));
    let mut agent = crate::dist::agent::Agent::new(token, work, None);
    agent.group = a.group.clone();
    agent.log = Arc::new(|line| eprintln!("{line}"));
    let shutdown = CancellationToken::new();
    let signals = tokio::spawn({
        let (shutdown, jobs) = (shutdown.clone(), agent.jobs());
        async move {
            super::interrupted().await;
            eprintln!("stopping the job in progress (Ctrl-C again to leave at once)");
            shutdown.cancel();
            super::interrupted().await;
            for e in jobs.delete() {
                eprintln!("{e}");
            }
            std::process::exit(i32::from(crate::error::exit::INTERRUPTED));
        }
    });
    let result = agent.join(address, tls.as_ref(), a.join_timeout, shutdown).await;
    signals.abort();
    match result {
        Ok(()) => Ok(crate::error::exit::OK),
        Err(crate::dist::protocol::Error::Refused(why)) => Err(Error::Usage(format!("the controller at {why}"))),
        Err(e) => Err(Error::Usage(format!("joining {address}: {e}"))),
    }
}
