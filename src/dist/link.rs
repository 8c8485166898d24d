//! The controller's side of the protocol: reaching agents (dialing them, or gathering those that
//! join), sending each its job, starting them together and following what each streams back
//! until it is done or lost.

use super::protocol::*;
use crate::rundir::RunMeta;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

/// What the controller hears from an agent as its part runs.
pub(crate) enum Heard<'a> {
    /// The facts of its run (at its start, once its load begins, at its end).
    Meta(&'a RunMeta),
    /// An interval line of its log.
    Line(&'a str),
    /// Rows of its results file (JTL lines).
    Samples(&'a str),
    /// The end of its part: its summary came, or it was lost.
    Ended,
    /// It was lost (why), before [`Heard::Ended`].
    Lost(&'a str),
}

/// Hears what each agent streams (the agent's index, what it sent).
pub(crate) type Progress = Arc<dyn Fn(usize, Heard<'_>) + Send + Sync>;

/// One agent as the controller sees it.
pub(crate) struct AgentLink {
    pub address: String,
    pub host: String,
    pub(super) r: Reader,
    pub(super) tx: Tx,
    pub(super) written: Written,
}

/// Connects to an agent (over TLS when `tls` is given, checking the agent's certificate for
/// the address's host) and says hello with `token`.
pub(crate) async fn connect(
    address: &str,
    token: &str,
    tls: Option<&tokio_rustls::TlsConnector>,
) -> Result<AgentLink, Error> {
    let stream = tokio::time::timeout(SILENCE, TcpStream::connect(address))
        .await
        .map_err(|_| {
            Error::Unreachable(format!("{address}: no connection within {}", humantime::format_duration(SILENCE)))
        })?
        .map_err(|e| Error::Unreachable(format!("{address}: {e}")))?;
    let _ = stream.set_nodelay(true);
    let conn: Box<dyn Conn> = match tls {
        Some(connector) => {
            let host =
                address.rsplit_once(':').map_or(address, |(h, _)| h).trim_start_matches('[').trim_end_matches(']');
            let name = rustls::pki_types::ServerName::try_from(host.to_string())
                .map_err(|e| proto(format!("{address}: {e}")))?;
            Box::new(
                tokio::time::timeout(SILENCE, connector.connect(name, stream))
                    .await
                    .map_err(|_| proto(format!("{address}: no TLS handshake within 5 s")))?
                    .map_err(|e| proto(format!("{address}: TLS: {e}")))?,
            )
        }
        None => Box::new(stream),
    };
    let (mut r, tx, written) = split(conn);
    let ours = nonce();
    let _ = tx.send(hello(&ours, String::new()));
    let host = match read(&mut r, SILENCE, MAX_SHORT_LINE).await? {
        Some(Msg::Hello { protocol, host, nonce: theirs, proof: p, .. }) if protocol == PROTOCOL => {
            if !proves(token, "listener", &ours, &p) {
                let _ = tx.send(Msg::Refused { reason: "wrong token".into() });
                // Said before this process may exit: the other side logs why.
                drop(tx);
                let _ = tokio::time::timeout(Duration::from_secs(1), written).await;
                return Err(Error::Refused(format!("{address}: wrong token (it holds another token than ours)")));
            }
            let _ = tx.send(Msg::Proof { proof: proof(token, "dialer", &theirs) });
            host
        }
        Some(Msg::Hello { protocol, version, .. }) => {
            return Err(Error::Refused(format!("{address}: {}", version_mismatch(protocol, &version))))
        }
        Some(Msg::Refused { reason }) => return Err(Error::Refused(format!("{address} refused: {reason}"))),
        None => {
            return Err(Error::Closed(format!("{address}: closed the connection before its hello (not stampede?)")))
        }
        _ => return Err(proto(format!("{address}: not stampede (no hello)"))),
    };
    match read(&mut r, SILENCE, MAX_SHORT_LINE).await? {
        Some(Msg::Welcome) => Ok(AgentLink { address: address.into(), host, r, tx, written }),
        Some(Msg::Refused { reason }) => Err(Error::Refused(format!("{address} refused: {reason}"))),
        other => Err(proto(format!("{address}: expected welcome, got {}", kind(&other)))),
    }
}

/// Waits on `listener` for `n` agents to join (`stampede agent --join`), each proving `token`
/// (over TLS when given), for at most `wait` or until `stop`; `heard` hears of each. Agents
/// that have joined are pinged every second (one that has gone is dropped, and another awaited);
/// agents beyond `n` are refused.
pub(crate) async fn gather(
    listener: TcpListener,
    token: &str,
    tls: Option<tokio_rustls::TlsAcceptor>,
    n: usize,
    wait: Duration,
    stop: &CancellationToken,
    heard: impl Fn(Gathering<'_>),
) -> Result<Vec<AgentLink>, Error> {
    // Agents taken so far (less those gone): a greeting that passes is admitted while below `n`.
    let admitted = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let (found, mut links) = mpsc::unbounded_channel::<Result<AgentLink, String>>();
    let deadline = tokio::time::Instant::now() + wait;
    let greetings = Arc::new(Greetings::default());
    let mut ping = tokio::time::interval(Duration::from_secs(1));
    let mut out: Vec<AgentLink> = Vec::new();
    while out.len() < n {
        tokio::select! {
            accepted = listener.accept() => {
                let (stream, peer) = match accepted {
                    Ok(a) => a,
                    Err(e) => {
                        heard(Gathering::Note(format!("accepting an agent: {e}")));
                        tokio::time::sleep(Duration::from_millis(100)).await;
                        continue;
                    }
                };
                let greeting = greetings.enter(peer.ip(), peek_handle(&stream));
                let (token, tls, admitted, found) = (token.to_string(), tls.clone(), admitted.clone(), found.clone());
                // Each greeting apart: a silent connection does not hold up the others.
                tokio::spawn(async move {
                    let admit = || {
                        let taken = admitted.fetch_update(Ordering::SeqCst, Ordering::SeqCst, |k| (k < n).then_some(k + 1));
                        match taken {
                            Ok(_) => Ok(()),
                            Err(_) => Err(format!("the run has its {n} agents already")),
                        }
                    };
                    match greet_in(greeting, stream, tls.as_ref(), &token, admit).await {
                        Some(Ok((r, tx, written, host))) => {
                            let _ = found.send(Ok(AgentLink { address: peer.to_string(), host, r, tx, written }));
                        }
                        Some(Err(e)) => {
                            let _ = found.send(Err(format!("an agent from {peer}: {e}")));
                        }
                        None => {}
                    }
                });
            }
            Some(link) = links.recv() => match link {
                Ok(link) => {
                    heard(Gathering::Joined(&link, out.len() + 1));
                    out.push(link);
                }
                Err(note) => heard(Gathering::Note(note)),
            },
            _ = ping.tick() => drop_gone(&mut out, &admitted, &heard),
            _ = tokio::time::sleep_until(deadline) => {
                return Err(proto(format!(
                    "{} of {n} agents joined within {}",
                    out.len(),
                    humantime::format_duration(wait)
                )));
            }
            _ = stop.cancelled() => return Err(proto(format!("interrupted while {} of {n} agents had joined", out.len()))),
        }
    }
    Ok(out)
}

/// Pings the agents that have joined; one whose connection's writer has stopped is gone: it is
/// dropped (said), and its place awaits another.
fn drop_gone(out: &mut Vec<AgentLink>, admitted: &AtomicUsize, heard: &impl Fn(Gathering<'_>)) {
    for l in out.iter() {
        let _ = l.tx.send(Msg::Ping);
    }
    let before = out.len();
    out.retain(|l| {
        let gone = l.tx.is_closed();
        if gone {
            heard(Gathering::Note(format!(
                "the agent from {} ({}) is gone before the start: waiting for another",
                l.address, l.host
            )));
        }
        !gone
    });
    admitted.fetch_sub(before - out.len(), Ordering::SeqCst);
}

/// What a controller gathering agents hears (`run --listen-agents`), for the user.
pub(crate) enum Gathering<'a> {
    /// The k-th agent joined.
    Joined(&'a AgentLink, usize),
    /// A connection that came to nothing, an agent gone before the start.
    Note(String),
}

/// What became of one agent's part.
#[derive(Debug, Clone)]
pub(crate) struct AgentEnd {
    pub address: String,
    pub dir: PathBuf,
    /// When the controller stopped hearing from it before it finished, and why.
    pub lost: Option<String>,
}

/// How the controller stops its agents: `interrupt` (Ctrl-C, an agent lost with
/// `--on-agent-loss abort`) stops them as an interrupt; `finish` (a threshold that aborts the
/// run) as a run that ends.
#[derive(Clone, Default)]
pub(crate) struct Stops {
    pub interrupt: CancellationToken,
    pub finish: CancellationToken,
}

/// Sends each agent its job (segment i/N), waits for all to be ready, starts them together
/// and writes each agent's stream into the `i`-th directory `claim` gives (called once every
/// agent is ready, before the start: an error there stops them all) until it is done or lost. Each of `stops`
/// sends `stop` to every agent; with `abort_on_loss`, so does an agent lost. `progress` hears
/// of every interval line (agent index, line). The plan's setup and teardown (`once`) run on
/// the first agent only, the others waiting for what its setup set (see [`Relay`]).
pub(crate) async fn control(
    agents: Vec<AgentLink>,
    job: Job,
    claim: impl FnOnce() -> Result<Vec<PathBuf>, String>,
    stops: Stops,
    abort_on_loss: bool,
    progress: Progress,
    once: Option<Once>,
) -> Result<Vec<AgentEnd>, Error> {
    let stop = stops.interrupt.clone();
    let n = agents.len();
    let mut agents = agents;
    for (i, a) in agents.iter_mut().enumerate() {
        let mut j = job.clone();
        j.segment = format!("{}/{n}", i + 1);
        j.setup_once = once.map(|_| i == 0);
        let _ = a.tx.send(Msg::Job(Box::new(j)));
    }
    for a in agents.iter_mut() {
        let ready = tokio::select! {
            r = read(&mut a.r, Duration::from_secs(120), MAX_SHORT_LINE) => r?,
            _ = stop.cancelled() => return Err(proto("interrupted before the start: no agent sent anything")),
        };
        match ready {
            Some(Msg::Ready) => {}
            Some(Msg::Failed { message }) => return Err(proto(format!("agent {}: {message}", a.address))),
            other => return Err(proto(format!("agent {}: expected ready, got {}", a.address, kind(&other)))),
        }
    }
    let dirs = match claim() {
        Ok(dirs) => dirs,
        Err(why) => {
            for a in &agents {
                let _ = a.tx.send(Msg::Stop { finish: false });
            }
            return Err(proto(why));
        }
    };
    // Every agent is ready: a start far enough ahead for the message to reach them all.
    let at = time::OffsetDateTime::now_utc() + time::Duration::seconds(2);
    let at = at.format(&time::format_description::well_known::Rfc3339).unwrap_or_default();
    for a in &agents {
        let _ = a.tx.send(Msg::Start { at: at.clone() });
    }
    let relay = once.map(|once| Arc::new(Relay::new(once, &agents, stops.interrupt.clone())));
    let mut tasks = Vec::new();
    for ((i, a), dir) in agents.into_iter().enumerate().zip(dirs) {
        let (stops, progress, relay) = (stops.clone(), progress.clone(), relay.clone());
        tasks.push(tokio::spawn(async move {
            let mut end = follow(i, a, dir, stops.clone(), progress, relay.as_deref()).await;
            if let Some(relay) = &relay {
                relay.ended(i, &mut end);
            }
            if end.lost.is_some() && abort_on_loss {
                stops.interrupt.cancel();
            }
            end
        }));
    }
    let mut ends = Vec::new();
    for t in tasks {
        ends.push(t.await.map_err(|e| proto(e.to_string()))?);
    }
    Ok(ends)
}

/// The plan's setup and teardown scenarios, which run once for a run on agents.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Once {
    pub setup: bool,
    pub teardown: bool,
}

impl Once {
    /// `None` for a plan with neither: its agents run as they would alone, waiting for nothing.
    /// `None` too when `data_split` and a setup or teardown scenario reads a data file (see
    /// [`Once::reads_split_data`]).
    pub(crate) fn of(plan: &crate::plan::Plan, data_split: bool) -> Option<Once> {
        use crate::plan::Phase;
        let has = |p: Phase| plan.scenarios.iter().any(|s| s.phase == p);
        let once = Once { setup: has(Phase::Setup), teardown: has(Phase::Teardown) };
        let split = data_split && Once::reads_split_data(plan);
        ((once.setup || once.teardown) && !split).then_some(once)
    }

    /// Whether a setup or teardown scenario reads a data file. With `--data split` each agent
    /// reads only its rows of it, so the setup run once would prepare a third of the rows of 3
    /// agents while the others' main load uses the rest: setup and teardown then run on every
    /// agent, on its own rows, as each JMeter server runs its setUp Thread Group.
    pub(crate) fn reads_split_data(plan: &crate::plan::Plan) -> bool {
        plan.scenarios.iter().any(|s| s.phase != crate::plan::Phase::Main && s.reads_data())
    }
}

/// The controller's part in a run whose setup and teardown run once, on the first agent (as a
/// JMeter setUp Thread Group runs once on one machine): it hands the properties the first
/// agent's setup set to every other agent, which begins its main load with them, and tells the
/// first agent to run teardown once every agent's main load has ended. The first agent lost
/// before its setup ended stops every agent (nobody has what setup made); ended without
/// sending the properties (its setup was stopped), it ends the others as a run that ends.
pub(crate) struct Relay {
    once: Once,
    txs: Vec<Tx>,
    interrupt: CancellationToken,
    state: std::sync::Mutex<RelayState>,
}

#[derive(Default)]
struct RelayState {
    /// The first agent's setup ended and its properties were handed on.
    handed: bool,
    /// The first agent's main load ended.
    main_ended: bool,
    ended: Vec<bool>,
    teardown: bool,
}

impl Relay {
    fn new(once: Once, agents: &[AgentLink], interrupt: CancellationToken) -> Relay {
        let state = RelayState { ended: vec![false; agents.len()], ..Default::default() };
        Relay { once, txs: agents.iter().map(|a| a.tx.clone()).collect(), interrupt, state: state.into() }
    }

    fn state(&self) -> std::sync::MutexGuard<'_, RelayState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// What agent `i` said of the phases (only the first agent's counts).
    fn heard(&self, i: usize, m: Msg) {
        if i != 0 {
            return;
        }
        let mut st = self.state();
        match m {
            Msg::Properties { properties } if !st.handed => {
                st.handed = true;
                for tx in &self.txs[1..] {
                    let _ = tx.send(Msg::Properties { properties: properties.clone() });
                }
            }
            Msg::MainEnded => st.main_ended = true,
            _ => {}
        }
        self.teardown(&mut st);
    }

    /// Agent `i`'s part ended (`end`: lost or not); the first agent's loss before its setup
    /// ended is said in `end`.
    fn ended(&self, i: usize, end: &mut AgentEnd) {
        let mut st = self.state();
        st.ended[i] = true;
        if i == 0 && self.once.setup && !st.handed {
            st.handed = true;
            match &mut end.lost {
                Some(why) => {
                    *why = format!(
                        "{why}, before the plan's setup (setUp Thread Groups), which it runs for the whole run, ended: every agent was stopped"
                    );
                    self.interrupt.cancel();
                }
                None => {
                    for tx in &self.txs[1..] {
                        let _ = tx.send(Msg::Stop { finish: true });
                    }
                }
            }
        }
        self.teardown(&mut st);
    }

    /// Tells the first agent to run teardown once its main load and every other agent's part
    /// have ended.
    fn teardown(&self, st: &mut RelayState) {
        if self.once.teardown && st.main_ended && !st.teardown && st.ended[1..].iter().all(|e| *e) {
            st.teardown = true;
            let _ = self.txs[0].send(Msg::Teardown);
        }
    }
}

/// Writes one agent's stream into its run directory `dir`, pinging it, until it is done or lost.
async fn follow(
    i: usize,
    mut a: AgentLink,
    dir: PathBuf,
    stops: Stops,
    progress: Progress,
    relay: Option<&Relay>,
) -> AgentEnd {
    let end = |lost: Option<String>, a: &AgentLink, dir: &Path| AgentEnd {
        address: a.address.clone(),
        dir: dir.to_path_buf(),
        lost,
    };
    // The agent's run, with roll-ups (see `rundir::copy`).
    let mut copy = match crate::rundir::copy::PartCopy::create(&dir) {
        Ok(c) => c,
        Err(e) => return end(Some(format!("cannot write {}: {e}", dir.display())), &a, &dir),
    };
    let pinger = tokio::spawn({
        let tx = a.tx.clone();
        async move {
            let (mut interrupted, mut finished) = (false, false);
            loop {
                tokio::select! {
                    _ = tokio::time::sleep(Duration::from_secs(1)) => { if tx.send(Msg::Ping).is_err() { return; } }
                    _ = stops.interrupt.cancelled(), if !interrupted => {
                        interrupted = true;
                        let _ = tx.send(Msg::Stop { finish: false });
                    }
                    _ = stops.finish.cancelled(), if !finished => {
                        finished = true;
                        let _ = tx.send(Msg::Stop { finish: true });
                    }
                }
            }
        }
    });
    let started = Instant::now();
    let lost = loop {
        match read(&mut a.r, SILENCE, MAX_STREAM_LINE).await {
            Ok(Some(Msg::Meta { meta })) => {
                if let Err(e) = copy.meta(&meta) {
                    break Some(format!("what it sent cannot be written: {e}"));
                }
                progress(i, Heard::Meta(&meta));
            }
            Ok(Some(Msg::Line { line })) => {
                if let Err(e) = copy.line(&line) {
                    break Some(format!("what it sent cannot be written: {e}"));
                }
                progress(i, Heard::Line(&line));
            }
            Ok(Some(Msg::Summary { summary })) => {
                progress(i, Heard::Ended);
                if let Err(e) = copy.summary(&summary) {
                    break Some(format!("what it sent cannot be written: {e}"));
                }
            }
            Ok(Some(Msg::Samples { rows })) => progress(i, Heard::Samples(&rows)),
            Ok(Some(m @ (Msg::Properties { .. } | Msg::MainEnded))) => {
                if let Some(relay) = relay {
                    relay.heard(i, m);
                }
            }
            Ok(Some(Msg::Done)) => break None,
            Ok(Some(Msg::Failed { message })) => break Some(format!("failed: {message}")),
            Ok(Some(_)) => {}
            Ok(None) => break Some(format!("connection closed after {:.1} s", started.elapsed().as_secs_f64())),
            Err(e) => break Some(format!("{e} after {:.1} s", started.elapsed().as_secs_f64())),
        }
    };
    pinger.abort();
    if let Some(why) = &lost {
        progress(i, Heard::Lost(why));
    }
    progress(i, Heard::Ended);
    end(lost, &a, &dir)
}
