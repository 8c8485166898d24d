//! `stampede agent` as a process: a [`crate::dist::agent::Agent`] listening for controllers
//! until Ctrl-C, or joining one for one job, under the process's signals. Nothing here prints:
//! the lines go to the caller's [`Say`]s.

use super::{interrupted, Say};
use crate::dist::{agent::Agent, protocol};
use crate::error::Error;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;
use tokio_util::sync::CancellationToken;

/// An agent as asked: its token, its TLS, where its jobs go, its group, where it speaks.
pub(crate) struct Serving {
    pub token: String,
    /// `--tls-cert` and `--tls-key`: listening with TLS.
    pub tls: Option<(PathBuf, PathBuf)>,
    /// Where each job's files go (default: the system's temporary directory).
    pub work_dir: Option<PathBuf>,
    pub group: Option<String>,
    /// Where the agent's lines go (the command line's stderr).
    pub say: Say,
    /// Where the address it listens on or joins goes (the command line's stdout).
    pub out: Say,
    /// Called on a second interrupt while joined: the process leaves at once.
    pub leave: Arc<dyn Fn() + Send + Sync>,
}

/// How the agent meets its controllers.
pub(crate) enum Meet<'a> {
    /// Listens on this address for controllers, until Ctrl-C.
    Listen(&'a str),
    /// Joins the controller waiting at `address`, runs the part it sends, and returns.
    Join { address: &'a str, controller_ca: Option<&'a Path>, timeout: Duration },
}

fn read(p: &Path) -> Result<Vec<u8>, Error> {
    std::fs::read(p).map_err(|e| Error::Usage(format!("cannot read {}: {e}", p.display())))
}

impl Serving {
    /// Serves as `meet` says.
    pub(crate) async fn serve(self, meet: Meet<'_>) -> Result<(), Error> {
        let tls = match &self.tls {
            Some((cert, key)) => Some(
                protocol::server_tls(&read(cert)?, &read(key)?)
                    .map_err(|e| Error::Usage(format!("--tls-cert: {e}")))?,
            ),
            None => None,
        };
        let ca = matches!(meet, Meet::Join { controller_ca: Some(_), .. });
        let secure = if tls.is_some() || ca { "TLS" } else { "plain TCP: use it on a private network" };
        let work = self.work_dir.clone().unwrap_or_else(|| std::env::temp_dir().join("stampede-agent"));
        std::fs::create_dir_all(&work)
            .map_err(|e| Error::Usage(format!("cannot make the work directory {}: {e}", work.display())))?;
        // Jobs' files may hold logins and tokens: this user's only.
        crate::dist::agent::private(&work);
        // As `run` does: a generator with thousands of users needs a descriptor each.
        crate::run::raise_fd_limit();
        match meet {
            Meet::Listen(address) => self.listen(address, work, tls, secure).await,
            Meet::Join { address, controller_ca, timeout } => {
                self.join(address, controller_ca, timeout, work, secure).await
            }
        }
    }

    fn agent(&self, work: PathBuf, tls: Option<tokio_rustls::TlsAcceptor>) -> Agent {
        let mut agent = Agent::new(self.token.clone(), work, tls);
        agent.group = self.group.clone();
        agent.log = self.say.clone();
        agent
    }

    async fn listen(
        &self,
        address: &str,
        work: PathBuf,
        tls: Option<tokio_rustls::TlsAcceptor>,
        secure: &str,
    ) -> Result<(), Error> {
        let listener = tokio::net::TcpListener::bind(address)
            .await
            .map_err(|source| Error::Io { what: format!("cannot listen on {address}"), source })?;
        let addr = listener.local_addr().map_err(|source| Error::Io { what: "listening".into(), source })?;
        (self.out)(&format!(
            "stampede agent listening on {addr} (protocol {}, stampede {}, {secure}); Ctrl-C to stop",
            protocol::PROTOCOL,
            env!("CARGO_PKG_VERSION")
        ));
        let shutdown = CancellationToken::new();
        let agent = Arc::new(self.agent(work, tls));
        let serve = tokio::spawn(agent.clone().serve(listener, shutdown.clone()));
        interrupted().await;
        shutdown.cancel();
        let _ = serve.await;
        // A job in progress stops gracefully with the agent's shutdown (its requests in flight
        // get their graceful stop); a second Ctrl-C leaves at once.
        if agent.is_busy() {
            (self.say)("stopping the job in progress (Ctrl-C again to leave at once)");
            let wait = async {
                while agent.is_busy() {
                    tokio::time::sleep(Duration::from_millis(100)).await;
                }
            };
            tokio::select! {
                _ = wait => {}
                _ = interrupted() => {}
                _ = tokio::time::sleep(Duration::from_secs(120)) => {}
            }
        }
        // A job left running when the process leaves keeps none of its files.
        for e in agent.jobs().delete() {
            (self.say)(&e);
        }
        Ok(())
    }

    /// One job from the controller at `address`, then return.
    async fn join(
        &self,
        address: &str,
        controller_ca: Option<&Path>,
        timeout: Duration,
        work: PathBuf,
        secure: &str,
    ) -> Result<(), Error> {
        let tls = match controller_ca {
            Some(ca) => {
                Some(protocol::client_tls(&read(ca)?).map_err(|e| Error::Usage(format!("--controller-ca: {e}")))?)
            }
            None => None,
        };
        (self.out)(&format!(
            "stampede agent joining {address} (protocol {}, stampede {}, {secure}); Ctrl-C to stop",
            protocol::PROTOCOL,
            env!("CARGO_PKG_VERSION")
        ));
        let agent = self.agent(work, None);
        let shutdown = CancellationToken::new();
        let signals = tokio::spawn({
            let (shutdown, jobs, say, leave) = (shutdown.clone(), agent.jobs(), self.say.clone(), self.leave.clone());
            async move {
                interrupted().await;
                say("stopping the job in progress (Ctrl-C again to leave at once)");
                shutdown.cancel();
                interrupted().await;
                for e in jobs.delete() {
                    say(&e);
                }
                leave();
            }
        });
        let result = agent.join(address, tls.as_ref(), timeout, shutdown).await;
        signals.abort();
        match result {
            Ok(()) => Ok(()),
            Err(protocol::Error::Refused(why)) => Err(Error::Usage(format!("the controller at {why}"))),
            Err(e) => Err(Error::Usage(format!("joining {address}: {e}"))),
        }
    }
}
