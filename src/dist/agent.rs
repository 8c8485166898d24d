//! Agents and their controller (issue 15): `stampede agent` runs parts of plans a controller
//! sends it; `stampede run --agents` is that controller. An agent's part is an ordinary
//! `run --segment I/N` whose run directory is streamed to the controller as it is written; the
//! controller keeps each agent's directory and merges them into the run's ([`crate::rundir::merge`]),
//! so a distributed run and a local one share one code path. See `docs/distributed.md`.
//!
//! The protocol is JSON lines over TCP, [`PROTOCOL`] versioned: `hello` each way (the
//! controller's carries the token), `job`, `ready`, `start`, then the agent streams `meta`,
//! `line` (an interval) and `summary`, and `done`; each side pings the other every second. A
//! controller marks an agent it has not heard from for [`SILENCE`] lost; an agent stops its load
//! by itself when its controller closes the connection or is silent for [`ORPHANED`]. Silence is
//! judged on what arrives, in the judge's own running time (see `Reader::read`).

use crate::plan::{LoadOptions, Overrides, Plan};
use crate::record::Interval;
use crate::run::{End, Output, OutputError, Run, RunDirOutput, RunOptions, Start};
use crate::rundir::{IntervalLines, RunMeta};
use base64::Engine as _;
use serde::{Deserialize, Serialize};
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

/// The protocol's version: a controller and an agent of different versions refuse each other.
pub const PROTOCOL: u32 = 4;
/// How long a controller waits without hearing from an agent (which pings every second) before
/// it marks the agent lost; also the bound on connecting and greeting.
pub const SILENCE: Duration = Duration::from_secs(5);
/// How long an agent runs its load without hearing from its controller. Far longer than
/// [`SILENCE`]: a controller that is gone closes its connection (its kernel does, when it is
/// killed) and is heard at once; silence alone is a network gone, or a controller stopped for a
/// while (SIGSTOP, a suspended machine, a long pause) whose lines wait in its sockets and which
/// goes on when it resumes.
pub const ORPHANED: Duration = Duration::from_secs(30);
/// How often a reader that waits looks at the clock, and how late a look must be for this
/// process to have stalled (its own silence, not the other side's).
const TICK: Duration = Duration::from_millis(250);
const STALL: Duration = Duration::from_secs(1);
/// The most a job's files may weigh together.
const MAX_JOB_BYTES: u64 = 256 << 20;
/// The longest job line an agent reads, once the controller has shown its token (base64 of
/// [`MAX_JOB_BYTES`] and the rest).
const MAX_JOB_LINE: usize = 360 << 20;
/// The longest interval line a controller reads from an agent it chose (many labels' histograms).
const MAX_STREAM_LINE: usize = 64 << 20;
/// The longest of any other line: a hello, a ping, a start.
const MAX_SHORT_LINE: usize = 64 << 10;
/// How long an agent waits for its job once greeted without hearing from the controller (a
/// controller gathering agents that join pings them until the last has joined).
const JOB_WAIT: Duration = Duration::from_secs(60);
/// The most greetings (connections that have not proved the token yet) a listener keeps from one
/// address, and in all (see [`Greetings`]).
const GREETINGS_PER_PEER: usize = 32;
const GREETINGS: usize = 256;
/// How long a listener waits for a dialer's hello: a dialer says it at once.
const HELLO_WAIT: Duration = Duration::from_secs(1);

/// One line of the protocol.
#[derive(Debug, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Msg {
    /// The first line each way: the dialer's carries its nonce; the listener's its own nonce
    /// and its proof of the token for the dialer's nonce.
    Hello {
        protocol: u32,
        version: String,
        #[serde(default, skip_serializing_if = "String::is_empty")]
        host: String,
        #[serde(default)]
        nonce: String,
        #[serde(default, skip_serializing_if = "String::is_empty")]
        proof: String,
    },
    /// The dialer's proof of the token for the listener's nonce.
    Proof {
        proof: String,
    },
    /// The listener took the dialer (the token is right, there is room).
    Welcome,
    Refused {
        reason: String,
    },
    Job(Box<Job>),
    Ready,
    Failed {
        message: String,
    },
    Start {
        at: String,
    },
    Meta {
        meta: Box<RunMeta>,
    },
    Line {
        line: String,
    },
    Summary {
        summary: serde_json::Value,
    },
    /// Rows of the part's results file (JTL lines, no header), after its summary, when the job
    /// asks for them (`Job::samples`).
    Samples {
        rows: String,
    },
    Done,
    Ping,
    /// Stop the load: as an interrupt, or (`finish`) as a run that ends by itself, a threshold
    /// having stopped it.
    Stop {
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        finish: bool,
    },
}

/// What a controller asks an agent to run: the plan with every file it reads, and how.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Job {
    /// The plan file, relative to the files' root.
    pub plan: String,
    /// The files' root on the controller's machine (absolute): what the plan names under it by
    /// an absolute path is read from the agent's copy (protocol 4).
    #[serde(default)]
    pub root: String,
    pub files: Vec<JobFile>,
    pub properties: Vec<(String, String)>,
    pub replacements: Vec<(String, String)>,
    pub skip_unsupported: bool,
    pub users: Option<u32>,
    pub duration_ms: Option<u64>,
    pub iterations: Option<u64>,
    pub ramp_up_ms: Option<u64>,
    /// `I/N`.
    pub segment: String,
    pub data_split: bool,
    /// Send every sample back as results-file rows (the controller writes the plan's results
    /// files, as JMeter's master does; the agent then writes none of them).
    #[serde(default)]
    pub samples: bool,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct JobFile {
    /// Relative to the files' root, `/`-separated.
    pub path: String,
    pub base64: String,
}

/// Why a controller or an agent could not go on.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("{0}")]
    Io(#[from] std::io::Error),
    #[error("{0}")]
    Protocol(String),
    /// The other side said no (a wrong token, another protocol version, busy): trying again
    /// will not help.
    #[error("{0}")]
    Refused(String),
    /// Nothing answers at the address (yet): a joining agent tries again.
    #[error("{0}")]
    Unreachable(String),
    /// The listener closed the connection without a word: not stampede, or a stampede whose
    /// greetings are flooded (another attempt may pass).
    #[error("{0}")]
    Closed(String),
    /// A connection to a listener that said nothing at all before it closed or its time was up
    /// (a port scan, a health check, an idle client).
    #[error("said nothing")]
    Silent,
}

fn proto(msg: impl Into<String>) -> Error {
    Error::Protocol(msg.into())
}

/// A control connection: TCP, or TLS over it.
pub trait Conn: AsyncRead + AsyncWrite + Unpin + Send + 'static {}
impl<T: AsyncRead + AsyncWrite + Unpin + Send + 'static> Conn for T {}

/// A connection's reading side: the lines it brings, read so that waiting can be cut at any
/// point without losing a partly read line (it stays in `line` for the next read).
pub struct Reader {
    r: BufReader<tokio::io::ReadHalf<Box<dyn Conn>>>,
    line: Vec<u8>,
    /// Nothing has come yet.
    fresh: bool,
}

impl Reader {
    /// Whatever has come: `Some` with a whole line (its newline left off) or, at the end of the
    /// connection, what came after the last one (`None` when nothing did). Cancel-safe: it
    /// awaits only `fill_buf`, which consumes nothing.
    async fn step(&mut self, limit: usize) -> Result<Option<Option<Vec<u8>>>, Error> {
        let avail = self.r.fill_buf().await?;
        if avail.is_empty() {
            let rest = std::mem::take(&mut self.line);
            return Ok(Some((!rest.is_empty()).then_some(rest)));
        }
        self.fresh = false;
        let (take, whole) = match avail.iter().position(|b| *b == b'\n') {
            Some(i) => (i + 1, true),
            None => (avail.len(), false),
        };
        self.line.extend_from_slice(&avail[..take]);
        self.r.consume(take);
        if self.line.len() > limit {
            self.line = Vec::new();
            return Err(proto(format!("a message longer than {limit} bytes")));
        }
        Ok(whole.then(|| {
            let mut line = std::mem::take(&mut self.line);
            line.pop();
            Some(line)
        }))
    }
}

/// A connection's reading side, and a sender of messages to its writing side.
fn split(c: Box<dyn Conn>) -> (Reader, Tx, Written) {
    let (r, w) = tokio::io::split(c);
    let (tx, written) = writer(w);
    (Reader { r: BufReader::new(r), line: Vec::new(), fresh: true }, tx, written)
}

/// The task writing a connection's messages: it ends when every sender is gone and what they
/// sent is written (a process about to exit waits for it).
type Written = tokio::task::JoinHandle<()>;

/// The agent's side of TLS: its certificate chain and key (PEM).
pub fn server_tls(cert_pem: &[u8], key_pem: &[u8]) -> Result<tokio_rustls::TlsAcceptor, String> {
    use rustls::pki_types::pem::PemObject;
    use rustls::pki_types::{CertificateDer, PrivateKeyDer};
    let chain: Vec<CertificateDer<'static>> = CertificateDer::pem_slice_iter(cert_pem)
        .collect::<Result<_, _>>()
        .map_err(|e| format!("the certificate: {e}"))?;
    if chain.is_empty() {
        return Err("the certificate file holds no certificate".into());
    }
    let key = PrivateKeyDer::from_pem_slice(key_pem).map_err(|e| format!("the key: {e}"))?;
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| e.to_string())?
        .with_no_client_auth()
        .with_single_cert(chain, key)
        .map_err(|e| format!("the certificate and key: {e}"))?;
    Ok(tokio_rustls::TlsAcceptor::from(Arc::new(config)))
}

/// The controller's side of TLS: the certificates (PEM) it trusts for agents.
pub fn client_tls(ca_pem: &[u8]) -> Result<tokio_rustls::TlsConnector, String> {
    use rustls::pki_types::pem::PemObject;
    use rustls::pki_types::CertificateDer;
    let mut roots = rustls::RootCertStore::empty();
    for cert in CertificateDer::pem_slice_iter(ca_pem) {
        roots.add(cert.map_err(|e| format!("the CA file: {e}"))?).map_err(|e| format!("the CA file: {e}"))?;
    }
    if roots.is_empty() {
        return Err("the CA file holds no certificate".into());
    }
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| e.to_string())?
        .with_root_certificates(roots)
        .with_no_client_auth();
    Ok(tokio_rustls::TlsConnector::from(Arc::new(config)))
}

/// The sending side of a connection's writer. Outputs (which are synchronous) send without
/// waiting; the bytes of result rows ([`Msg::Samples`]) waiting to be written are counted, so
/// that a sender of a whole results file can wait for room ([`Tx::room`]) instead of holding
/// the file in memory.
#[derive(Clone)]
struct Tx {
    tx: mpsc::UnboundedSender<Msg>,
    queued: Arc<Queued>,
}

/// The bytes of rows sent and not yet written, and a signal each time some are written.
#[derive(Default)]
struct Queued {
    bytes: AtomicUsize,
    written: tokio::sync::Notify,
}

impl Tx {
    fn send(&self, m: Msg) -> Result<(), mpsc::error::SendError<Msg>> {
        let rows = rows_len(&m);
        self.queued.bytes.fetch_add(rows, Ordering::SeqCst);
        let sent = self.tx.send(m);
        if sent.is_err() {
            self.queued.bytes.fetch_sub(rows, Ordering::SeqCst);
        }
        sent
    }

    fn is_closed(&self) -> bool {
        self.tx.is_closed()
    }

    /// Waits while more than `bound` bytes of rows wait to be written (or until the writer is
    /// gone: nothing will be written then, and the sender finds out on its next send).
    async fn room(&self, bound: usize) {
        loop {
            // Made before the count is read, so a write between the two still wakes it.
            let written = self.queued.written.notified();
            if self.queued.bytes.load(Ordering::SeqCst) <= bound || self.is_closed() {
                return;
            }
            written.await;
        }
    }
}

fn rows_len(m: &Msg) -> usize {
    match m {
        Msg::Samples { rows } => rows.len(),
        _ => 0,
    }
}

/// Wakes every sender waiting for room when the writer ends, however it ends.
struct Ended(Arc<Queued>);

impl Drop for Ended {
    fn drop(&mut self) {
        self.0.written.notify_waiters();
    }
}

/// Writes messages to one side of a connection from a task of its own, so that outputs (which
/// are synchronous) can send without waiting on the network.
fn writer(mut w: tokio::io::WriteHalf<Box<dyn Conn>>) -> (Tx, Written) {
    let (tx, mut rx) = mpsc::unbounded_channel::<Msg>();
    let queued = Arc::new(Queued::default());
    let ended = Ended(queued.clone());
    let written = tokio::spawn(async move {
        let _ended = ended;
        while let Some(m) = rx.recv().await {
            let mut line = serde_json::to_vec(&m).expect("messages serialise");
            line.push(b'\n');
            let ok = w.write_all(&line).await.is_ok();
            let rows = rows_len(&m);
            if rows > 0 {
                _ended.0.bytes.fetch_sub(rows, Ordering::SeqCst);
                _ended.0.written.notify_waiters();
            }
            if !ok {
                return;
            }
        }
        let _ = w.shutdown().await;
    });
    (Tx { tx, queued }, written)
}

/// Reads one message of at most `limit` bytes; `None` at the end of the connection. An error
/// when the other side has sent nothing for `wait` of this process's own running time: a
/// stall of ours (SIGSTOP, a suspended machine) is not the other side's silence, and what it
/// sent meanwhile, waiting in the socket, is read before anything is judged. A runtime starved
/// by our own load is not a stall: its silence counts (see [`forgiven`]), so an agent whose
/// controller is cut off without a word still stops its load.
async fn read(r: &mut Reader, wait: Duration, limit: usize) -> Result<Option<Msg>, Error> {
    let mut heard = tokio::time::Instant::now();
    let mut awake = heard;
    let mut cpu_awake = cpu_time();
    let mut deferred = false;
    let line = loop {
        match tokio::time::timeout(TICK, r.step(limit)).await {
            Ok(Ok(Some(line))) => break line,
            Ok(Ok(None)) => {
                heard = tokio::time::Instant::now();
                awake = heard;
                cpu_awake = cpu_time();
            }
            Ok(Err(e)) => return Err(e),
            Err(_) => {
                let now = tokio::time::Instant::now();
                let cpu = cpu_time();
                let gap = now.duration_since(awake);
                // Without a CPU clock every gap counts as busy: never forgiven.
                let cpu_gap = cpu.zip(cpu_awake).map_or(gap, |(c, a)| c.saturating_sub(a));
                heard = (heard + forgiven(gap, cpu_gap)).min(now);
                (awake, cpu_awake) = (now, cpu);
                // A late wake-up judges on the next one, once the bytes that waited in the
                // socket meanwhile are read; every other one at most, so a starved runtime
                // whose every wake-up is late still judges.
                if gap > TICK + STALL && !deferred {
                    deferred = true;
                    continue;
                }
                deferred = false;
                if now.duration_since(heard) >= wait {
                    return Err(proto(format!("nothing heard for {}", humantime::format_duration(wait))));
                }
            }
        }
    };
    let Some(line) = line else { return Ok(None) };
    serde_json::from_slice(&line).map(Some).map_err(|e| proto(format!("a message that does not read: {e}")))
}

/// How much of a wake-up `wall` later than the last one, over which this process used `cpu` of
/// processor time (all its threads), is a stall of ours rather than the other side's silence:
/// the lateness (all but the [`TICK`] asked for) when the wake-up is late and the process was
/// stopped (SIGSTOP, a suspended machine: it used next to no processor time, under a tenth of
/// the gap); nothing when it was late because it was busy (a runtime saturated by our own load
/// is running, and the other side's silence over that time is silence).
fn forgiven(wall: Duration, cpu: Duration) -> Duration {
    if wall <= TICK + STALL || cpu >= wall / 10 {
        return Duration::ZERO;
    }
    wall - TICK
}

/// The processor time this process (all its threads) has used; `None` if the clock is missing.
fn cpu_time() -> Option<Duration> {
    let mut t = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: `t` is a valid timespec for the call to write.
    if unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut t) } != 0 {
        return None;
    }
    Some(Duration::new(u64::try_from(t.tv_sec).ok()?, u32::try_from(t.tv_nsec).ok()?))
}

/// The next message other than a ping, each waited for at most `wait`; `None` at the end of
/// the connection, or when `shutdown` comes first.
async fn next_message(
    r: &mut Reader,
    wait: Duration,
    limit: usize,
    shutdown: &CancellationToken,
) -> Result<Option<Msg>, Error> {
    loop {
        let m = tokio::select! {
            m = read(r, wait, limit) => m?,
            _ = shutdown.cancelled() => return Ok(None),
        };
        if !matches!(m, Some(Msg::Ping)) {
            return Ok(m);
        }
    }
}

/// A message's kind, for errors: never its content (a job's files, a hello's token).
fn kind(m: &Option<Msg>) -> &'static str {
    match m {
        None => "the end of the connection",
        Some(Msg::Hello { .. }) => "hello",
        Some(Msg::Proof { .. }) => "proof",
        Some(Msg::Welcome) => "welcome",
        Some(Msg::Refused { .. }) => "refused",
        Some(Msg::Job(_)) => "job",
        Some(Msg::Ready) => "ready",
        Some(Msg::Failed { .. }) => "failed",
        Some(Msg::Start { .. }) => "start",
        Some(Msg::Meta { .. }) => "meta",
        Some(Msg::Line { .. }) => "line",
        Some(Msg::Summary { .. }) => "summary",
        Some(Msg::Samples { .. }) => "samples",
        Some(Msg::Done) => "done",
        Some(Msg::Ping) => "ping",
        Some(Msg::Stop { .. }) => "stop",
    }
}

/// This side's hello, with its nonce and (the listener's) proof.
fn hello(nonce: &str, proof: String) -> Msg {
    Msg::Hello {
        protocol: PROTOCOL,
        version: env!("CARGO_PKG_VERSION").into(),
        host: crate::run::hostname(),
        nonce: nonce.to_string(),
        proof,
    }
}

/// A fresh nonce for a greeting.
fn nonce() -> String {
    base64::engine::general_purpose::STANDARD.encode(rand::random::<[u8; 16]>())
}

/// Proof of holding `token` for `nonce`, as the side `role` (`dialer`/`listener`: one side's
/// proof is never the other's): HMAC-SHA256, so the token never crosses the wire.
fn proof(token: &str, role: &str, nonce: &str) -> String {
    let key = ring::hmac::Key::new(ring::hmac::HMAC_SHA256, token.as_bytes());
    let tag = ring::hmac::sign(&key, format!("stampede {PROTOCOL} {role} {nonce}").as_bytes());
    base64::engine::general_purpose::STANDARD.encode(tag.as_ref())
}

/// Whether `given` proves `token` for `nonce` as `role` (compared in constant time).
fn proves(token: &str, role: &str, nonce: &str, given: &str) -> bool {
    let Ok(tag) = base64::engine::general_purpose::STANDARD.decode(given) else { return false };
    let key = ring::hmac::Key::new(ring::hmac::HMAC_SHA256, token.as_bytes());
    ring::hmac::verify(&key, format!("stampede {PROTOCOL} {role} {nonce}").as_bytes(), &tag).is_ok()
}

/// The listening side of a connection's first exchange (an agent a controller dials, or a
/// controller its agents join): TLS when given; the dialer's hello, whose protocol must be ours;
/// our hello with our proof of the token for its nonce; its proof for ours; then `admit` (is
/// there room?) and `welcome`. Returns the connection and the dialer's host.
/// `spoke` is set once the dialer's hello has come.
async fn greet(
    stream: TcpStream,
    tls: Option<&tokio_rustls::TlsAcceptor>,
    token: &str,
    spoke: &AtomicBool,
    admit: impl FnOnce() -> Result<(), String>,
) -> Result<(Reader, Tx, Written, String), Error> {
    let _ = stream.set_nodelay(true);
    let conn: Box<dyn Conn> = match tls {
        Some(acceptor) => Box::new(
            tokio::time::timeout(SILENCE, acceptor.accept(stream))
                .await
                .map_err(|_| proto("no TLS handshake within 5 s"))?
                .map_err(|e| proto(format!("TLS: {e}")))?,
        ),
        None => Box::new(stream),
    };
    let (mut r, tx, written) = split(conn);
    let refuse = |reason: String| {
        let _ = tx.send(Msg::Refused { reason: reason.clone() });
        Err(Error::Refused(format!("refused: {reason}")))
    };
    let first = read(&mut r, HELLO_WAIT, MAX_SHORT_LINE).await;
    if r.fresh && matches!(first, Ok(None) | Err(_)) {
        return Err(Error::Silent);
    }
    let (host, theirs) = match first? {
        Some(Msg::Hello { protocol, version, host, nonce, .. }) => {
            if protocol != PROTOCOL {
                return refuse(version_mismatch(protocol, &version));
            }
            (host, nonce)
        }
        _ => return refuse("say hello first".into()),
    };
    spoke.store(true, Ordering::SeqCst);
    let ours = nonce();
    let _ = tx.send(hello(&ours, proof(token, "listener", &theirs)));
    match read(&mut r, SILENCE, MAX_SHORT_LINE).await? {
        Some(Msg::Proof { proof }) if proves(token, "dialer", &ours, &proof) => {}
        Some(Msg::Proof { .. }) => return refuse("wrong token".into()),
        // The dialer found our proof wrong: its token is not ours.
        Some(Msg::Refused { reason }) => return Err(Error::Refused(format!("refused by the other side: {reason}"))),
        other => return refuse(format!("expected a proof, got {}", kind(&other))),
    }
    if let Err(reason) = admit() {
        return refuse(reason);
    }
    let _ = tx.send(Msg::Welcome);
    Ok((r, tx, written, host))
}

/// The greetings a listener has in progress: connections that have not proved the token yet,
/// bounded per peer address and in all. A connection beyond a bound takes the place of the oldest
/// other one of that peer (or of all) that has said nothing yet (no hello read, no byte waiting
/// in its socket), else of the oldest: idle connections, however many and however often
/// re-opened, cannot keep out a dialer that proves the token, whose hello comes at once, even
/// before its greeting's task has run (a flood of connections can outrun the tasks). A
/// connection that said nothing is silently dropped within [`HELLO_WAIT`] anyway.
#[derive(Default)]
struct Greetings {
    pending: std::sync::Mutex<Vec<Pending>>,
    next: std::sync::atomic::AtomicU64,
}

struct Pending {
    id: u64,
    peer: std::net::IpAddr,
    spoke: Arc<AtomicBool>,
    /// Its socket (a second descriptor of it), to see whether bytes wait there unread.
    socket: Option<std::net::TcpStream>,
    evict: CancellationToken,
}

impl Pending {
    fn said_something(&self) -> bool {
        // The socket is non-blocking (tokio's): an empty one says `WouldBlock`, a closed one 0.
        self.spoke.load(Ordering::SeqCst)
            || self.socket.as_ref().is_some_and(|s| s.peek(&mut [0u8]).is_ok_and(|n| n > 0))
    }
}

/// A greeting's place among [`Greetings`], given up when dropped.
struct Greeting {
    pool: Arc<Greetings>,
    id: u64,
    spoke: Arc<AtomicBool>,
    evicted: CancellationToken,
}

impl Greetings {
    fn enter(self: &Arc<Self>, peer: std::net::IpAddr, socket: Option<std::net::TcpStream>) -> Greeting {
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        let (spoke, evicted) = (Arc::new(AtomicBool::new(false)), CancellationToken::new());
        let mut pending = self.pending.lock().unwrap_or_else(|e| e.into_inner());
        pending.push(Pending { id, peer, spoke: spoke.clone(), socket, evict: evicted.clone() });
        let evict = |pending: &mut Vec<Pending>, of_peer: bool| {
            let others = || pending.iter().enumerate().filter(|(_, p)| p.id != id && (!of_peer || p.peer == peer));
            let victim = others().find(|(_, p)| !p.said_something()).or_else(|| others().next());
            if let Some((i, _)) = victim {
                pending.remove(i).evict.cancel();
            }
        };
        while pending.iter().filter(|p| p.peer == peer).count() > GREETINGS_PER_PEER {
            evict(&mut pending, true);
        }
        while pending.len() > GREETINGS {
            evict(&mut pending, false);
        }
        drop(pending);
        Greeting { pool: self.clone(), id, spoke, evicted }
    }
}

impl Drop for Greeting {
    fn drop(&mut self) {
        self.pool.pending.lock().unwrap_or_else(|e| e.into_inner()).retain(|p| p.id != self.id);
    }
}

/// A second descriptor of `stream`, to peek at (none when the system has no descriptor to spare).
fn peek_handle(stream: &TcpStream) -> Option<std::net::TcpStream> {
    #[cfg(unix)]
    {
        use std::os::fd::AsFd;
        stream.as_fd().try_clone_to_owned().ok().map(std::net::TcpStream::from)
    }
    #[cfg(not(unix))]
    {
        let _ = stream;
        None
    }
}

/// [`greet`] in `greeting`'s place: `None` when another connection took it (nothing is said to
/// a connection dropped so).
async fn greet_in(
    greeting: Greeting,
    stream: TcpStream,
    tls: Option<&tokio_rustls::TlsAcceptor>,
    token: &str,
    admit: impl FnOnce() -> Result<(), String>,
) -> Option<Result<(Reader, Tx, Written, String), Error>> {
    let greeted = tokio::select! {
        g = greet(stream, tls, token, &greeting.spoke, admit) => g,
        _ = greeting.evicted.cancelled() => return None,
    };
    // A connection that said nothing is not worth a line of the log each.
    match greeted {
        Err(Error::Silent) => None,
        g => Some(g),
    }
}

fn version_mismatch(theirs: u32, their_version: &str) -> String {
    format!(
        "protocol {theirs} (stampede {their_version}) against protocol {PROTOCOL} (stampede {}): run the same stampede version on the controller and every agent",
        env!("CARGO_PKG_VERSION")
    )
}

// ------------------------------------------------------------------------------------- agent

/// An agent: serves one controller at a time, each job in a directory of its own under `work`.
pub struct Agent {
    pub token: String,
    pub work: PathBuf,
    /// TLS on every control connection, when the agent has a certificate.
    pub tls: Option<tokio_rustls::TlsAcceptor>,
    /// The group of generators it is in (`--group`), recorded in its parts.
    pub group: Option<String>,
    /// Where it says what happens to its connections (nowhere by default).
    pub log: Log,
    busy: AtomicBool,
    greetings: Arc<Greetings>,
    jobs: JobDirs,
}

impl Agent {
    pub fn new(token: String, work: PathBuf, tls: Option<tokio_rustls::TlsAcceptor>) -> Agent {
        Agent {
            token,
            work,
            tls,
            group: None,
            log: Arc::new(|_| {}),
            busy: AtomicBool::new(false),
            greetings: Arc::default(),
            jobs: JobDirs::default(),
        }
    }

    /// The directories of the jobs in progress, for a process about to leave without waiting
    /// for them (whose tasks are not dropped, so their guards do not run): [`JobDirs::delete`].
    pub fn jobs(&self) -> JobDirs {
        self.jobs.clone()
    }

    /// Whether a job is running (a stopping agent waits for it).
    pub fn is_busy(&self) -> bool {
        self.busy.load(Ordering::SeqCst)
    }

    /// Accepts controllers until `shutdown`; a controller that comes while a job runs is refused.
    pub async fn serve(self: Arc<Self>, listener: TcpListener, shutdown: CancellationToken) -> std::io::Result<()> {
        loop {
            let accepted = tokio::select! {
                a = listener.accept() => a,
                _ = shutdown.cancelled() => return Ok(()),
            };
            let (stream, peer) = match accepted {
                Ok(a) => a,
                // Out of descriptors, a connection reset before it was taken: keep listening.
                Err(e) => {
                    (self.log)(&format!("agent: accepting a connection: {e}"));
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    continue;
                }
            };
            let greeting = self.greetings.enter(peer.ip(), peek_handle(&stream));
            let agent = self.clone();
            let shutdown = shutdown.clone();
            tokio::spawn(async move {
                if let Err(e) = agent.handle(stream, greeting, shutdown).await {
                    (agent.log)(&format!("agent: controller {peer}: {e}"));
                }
            });
        }
    }

    async fn handle(&self, stream: TcpStream, greeting: Greeting, shutdown: CancellationToken) -> Result<(), Error> {
        let greeted = greet_in(greeting, stream, self.tls.as_ref(), &self.token, || {
            if self.busy.swap(true, Ordering::SeqCst) {
                Err("busy with another controller's job".to_string())
            } else {
                Ok(())
            }
        })
        .await;
        let Some(greeted) = greeted else { return Ok(()) };
        let (r, tx, written, _) = greeted?;
        let _free = Free(&self.busy);
        self.session(r, tx, written, shutdown).await
    }

    /// Dials a controller that waits for its agents (`run --listen-agents`), retrying until
    /// `give_up` while nothing answers, and runs the job it sends. A refusal (a wrong token,
    /// another version, a run that has its agents) ends it at once.
    pub async fn join(
        &self,
        address: &str,
        tls: Option<&tokio_rustls::TlsConnector>,
        give_up: Duration,
        shutdown: CancellationToken,
    ) -> Result<(), Error> {
        let deadline = Instant::now() + give_up;
        let mut said = false;
        let link = loop {
            let tried = tokio::select! {
                l = connect(address, &self.token, tls) => l,
                _ = shutdown.cancelled() => return Ok(()),
            };
            match tried {
                Ok(l) => break l,
                // Something answered and it went wrong (a refusal, TLS, not stampede): say so now.
                Err(e @ (Error::Refused(_) | Error::Protocol(_) | Error::Io(_) | Error::Closed(_))) => return Err(e),
                Err(e) if Instant::now() >= deadline => {
                    return Err(proto(format!("{e}; gave up after {}", humantime::format_duration(give_up))))
                }
                Err(e) => {
                    if !said {
                        (self.log)(&format!("agent: {e}; trying again every second"));
                        said = true;
                    }
                    tokio::select! {
                        _ = tokio::time::sleep(Duration::from_secs(1)) => {}
                        _ = shutdown.cancelled() => return Ok(()),
                    }
                }
            }
        };
        (self.log)(&format!("agent: joined the controller at {address}"));
        self.busy.store(true, Ordering::SeqCst);
        let _free = Free(&self.busy);
        self.session(link.r, link.tx, link.written, shutdown).await
    }

    /// One controller's job, after the greetings: receive it, run it, stream its run directory.
    async fn session(&self, r: Reader, tx: Tx, written: Written, shutdown: CancellationToken) -> Result<(), Error> {
        let result = self.job(r, &tx, shutdown).await;
        // What was said reaches the controller before the connection (or the process) ends: a
        // controller stopped for a while takes it when it resumes; one that is gone fails the
        // writes at once, or (its network gone) within the orphan bound.
        drop(tx);
        let _ = tokio::time::timeout(ORPHANED, written).await;
        result
    }

    async fn job(&self, mut r: Reader, tx: &Tx, shutdown: CancellationToken) -> Result<(), Error> {
        let job = match next_message(&mut r, JOB_WAIT, MAX_JOB_LINE, &shutdown).await? {
            Some(Msg::Job(job)) => job,
            None if shutdown.is_cancelled() => return Ok(()),
            other => return Err(proto(format!("expected a job, got {}", kind(&other)))),
        };
        let dir = match JobDir::new(&self.work, &self.jobs, self.log.clone()) {
            Ok(d) => d,
            Err(message) => {
                let _ = tx.send(Msg::Failed { message: message.clone() });
                return Err(proto(message));
            }
        };
        let prepared = prepare(&job, &dir.0);
        let (plan, segment) = match prepared {
            Ok(p) => p,
            Err(message) => {
                let _ = tx.send(Msg::Failed { message: message.clone() });
                return Err(proto(message));
            }
        };
        let _ = tx.send(Msg::Ready);
        // The controller waits for every agent to be ready, each up to 2 minutes.
        let at = match next_message(&mut r, Duration::from_secs(600), MAX_SHORT_LINE, &shutdown).await? {
            Some(Msg::Start { at }) => at,
            Some(Msg::Stop { .. }) | None => return Ok(()),
            other => return Err(proto(format!("expected start, got {}", kind(&other)))),
        };
        let at = time::OffsetDateTime::parse(&at, &time::format_description::well_known::Rfc3339)
            .map_err(|_| proto(format!("a start that is not an instant: {at}")))?;

        let stop = shutdown.child_token();
        let abort = CancellationToken::new();
        let finish = CancellationToken::new();
        let listen = listen(r, stop.clone(), abort.clone(), finish.clone(), self.log.clone());
        let seg_meta = crate::rundir::PartMeta {
            segment: Some(job.segment.clone()),
            start_at: at.format(&time::format_description::well_known::Rfc3339).ok(),
            start_skew_ms: None,
            data_split: job.data_split,
            group: self.group.clone(),
        };
        let options = RunOptions {
            engine: crate::engine::Options { segment, stop: finish, ..Default::default() },
            command_line: vec!["stampede".into(), "agent".into()],
            part: Some(seg_meta),
            start_at: Some(std::time::SystemTime::from(at)),
            watch: Vec::new(),
        };
        let run = Run::new(plan, options);
        let local = RunDirOutput::create(&crate::rundir::Place::Unique(dir.0.join("run")), run.meta(), run.plan())
            .map_err(|e| proto(e.to_string()))?;
        let stream = Stream { tx: tx.clone(), lines: None };
        // Beside the job's files, so that it goes with them however the job ends.
        let samples = job.samples.then(|| dir.0.join("files").join(".stampede-samples.jtl"));
        let heartbeat = heartbeat(tx.clone());
        let mut run = run.output(local).output(stream);
        if let Some(path) = &samples {
            run = run.output(crate::run::JtlOutput::new(vec![path.clone()]));
        }
        let result = run.execute(stop, abort).await;
        heartbeat.abort();
        // Sent however the run ended: its rows were measured.
        let sent = match &samples {
            Some(path) => send_samples(tx, path, ROWS_QUEUED).await,
            None => Ok(()),
        };
        listen.abort();
        drop(dir);
        if let Err(e) = result {
            let _ = tx.send(Msg::Failed { message: e.to_string() });
        } else if let Err(message) = sent {
            let _ = tx.send(Msg::Failed { message });
        }
        let _ = tx.send(Msg::Done);
        Ok(())
    }
}

/// Hears the controller's pings and stop while a part runs; silence or a closed connection
/// stops the load (`stop`), and `abort` cuts its graceful stop short 5 s later.
fn listen(
    mut r: Reader,
    stop: CancellationToken,
    abort: CancellationToken,
    finish: CancellationToken,
    log: Log,
) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        loop {
            match read(&mut r, ORPHANED, MAX_SHORT_LINE).await {
                Ok(Some(Msg::Ping)) => {}
                Ok(Some(Msg::Stop { finish: true })) => finish.cancel(),
                Ok(Some(Msg::Stop { finish: false })) => stop.cancel(),
                Ok(Some(_)) => {}
                Ok(None) | Err(_) => {
                    if !stop.is_cancelled() {
                        log("agent: the controller is gone: stopping the load");
                    }
                    stop.cancel();
                    tokio::time::sleep(SILENCE).await;
                    abort.cancel();
                    return;
                }
            }
        }
    })
}

/// A heartbeat of the agent's own, so that its controller hears from it while it waits for the
/// start or runs a long graceful stop.
fn heartbeat(tx: Tx) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        loop {
            tokio::time::sleep(Duration::from_secs(1)).await;
            if tx.send(Msg::Ping).is_err() {
                return;
            }
        }
    })
}

/// Where an agent's own lines go (its process's log: the CLI prints them to stderr).
pub type Log = Arc<dyn Fn(&str) + Send + Sync>;

/// The bytes of rows an agent lets wait for its connection: a results file is read as fast as
/// the controller takes it, never whole into memory (an hour at 10k requests/s is gigabytes).
const ROWS_QUEUED: usize = 4 << 20;

/// The size of one [`Msg::Samples`].
const ROWS_BATCH: usize = 1 << 20;

/// Sends the rows of the part's results file to the controller, in batches of about
/// `ROWS_BATCH`, with at most about `bound` bytes of them waiting to be written.
async fn send_samples(tx: &Tx, path: &Path, bound: usize) -> Result<(), String> {
    let cannot = |e: std::io::Error| format!("its results file cannot be read: {e}");
    let file = tokio::fs::File::open(path).await.map_err(cannot)?;
    let mut lines = BufReader::with_capacity(1 << 16, file).lines();
    let mut batch = String::new();
    let mut first = true;
    while let Some(line) = lines.next_line().await.map_err(cannot)? {
        if std::mem::take(&mut first) && line == crate::rundir::jtl::HEADER {
            continue;
        }
        batch.push_str(&line);
        batch.push('\n');
        if batch.len() >= ROWS_BATCH {
            tx.room(bound).await;
            let _ = tx.send(Msg::Samples { rows: std::mem::take(&mut batch) });
        }
    }
    if !batch.is_empty() {
        tx.room(bound).await;
        let _ = tx.send(Msg::Samples { rows: batch });
    }
    Ok(())
}

/// Marks the agent free again when a job's connection ends, however it ends.
struct Free<'a>(&'a AtomicBool);

impl Drop for Free<'_> {
    fn drop(&mut self) {
        self.0.store(false, Ordering::SeqCst);
    }
}

/// A job's directory under the agent's work directory: the plan's files in `files/`, the part's
/// run directory in `run/`. Dropped, it deletes the files (a plan, a CSV of logins) and, when no
/// run was made, the directory itself: however the job ends (it ran, its plan did not load, its
/// controller left before the start, an error, a panic unwinding), nothing of it but a run stays;
/// files it cannot delete are said through the agent's log.
struct JobDir(PathBuf, JobDirs, Log);

/// The job directories an agent has in progress (its own: the work directory may be shared).
#[derive(Clone, Default)]
pub struct JobDirs(Arc<std::sync::Mutex<Vec<PathBuf>>>);

impl JobDirs {
    /// Deletes the files of every job in progress (a process about to leave); says which could
    /// not be deleted.
    pub fn delete(&self) -> Vec<String> {
        let dirs: Vec<PathBuf> = self.0.lock().unwrap_or_else(|e| e.into_inner()).drain(..).collect();
        dirs.iter().filter_map(|dir| delete_job_files(dir)).collect()
    }
}

impl JobDir {
    /// A new directory of its own for a job under `work`, readable by this user only.
    fn new(work: &Path, jobs: &JobDirs, log: Log) -> Result<JobDir, String> {
        for _ in 0..100 {
            let dir = work.join(format!("job-{:016x}", rand::random::<u64>()));
            match std::fs::create_dir(&dir) {
                Ok(()) => {
                    private(&dir);
                    jobs.0.lock().unwrap_or_else(|e| e.into_inner()).push(dir.clone());
                    return Ok(JobDir(dir, jobs.clone(), log));
                }
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(format!("cannot make a job directory in {}: {e}", work.display())),
            }
        }
        Err(format!("cannot make a job directory in {}", work.display()))
    }
}

impl Drop for JobDir {
    fn drop(&mut self) {
        self.1 .0.lock().unwrap_or_else(|e| e.into_inner()).retain(|d| *d != self.0);
        if let Some(e) = delete_job_files(&self.0) {
            (self.2)(&e);
        }
    }
}

/// Deletes a job's files and, when nothing else is in it (no run was made), its directory; says
/// why the files stay, when they do.
fn delete_job_files(dir: &Path) -> Option<String> {
    let files = dir.join("files");
    let failed = match std::fs::remove_dir_all(&files) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
            Some(format!("agent: cannot delete the job's files in {}: {e}", files.display()))
        }
        _ => None,
    };
    // Only when empty: a part's run directory stays.
    let _ = std::fs::remove_dir(dir);
    failed
}

/// Makes `dir` readable by this user only: a job's files may hold logins and tokens.
pub fn private(dir: &Path) {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let _ = std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700));
    }
}

/// Whether `path` is relative and stays below the directory it is joined to: a job's file stays
/// inside the root its files were shipped under.
fn inside(path: &str) -> bool {
    let p = Path::new(path);
    !path.is_empty() && p.components().all(|c| matches!(c, Component::Normal(_)))
}

/// Writes the job's files under `dir` and loads its plan for its segment.
fn prepare(job: &Job, dir: &Path) -> Result<(Plan, crate::engine::segment::Segment), String> {
    let files = dir.join("files");
    if !inside(&job.plan) {
        return Err("the job's plan is outside its directory".into());
    }
    let mut total = 0u64;
    for f in &job.files {
        let rel = Path::new(&f.path);
        if !inside(&f.path) {
            return Err(format!("the job names a file outside its directory: {}", f.path));
        }
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(&f.base64)
            .map_err(|e| format!("{}: not base64: {e}", f.path))?;
        total += bytes.len() as u64;
        if total > MAX_JOB_BYTES {
            return Err(format!("the job's files weigh more than {} MiB", MAX_JOB_BYTES >> 20));
        }
        let path = files.join(rel);
        if let Some(p) = path.parent() {
            std::fs::create_dir_all(p).map_err(|e| format!("{}: {e}", p.display()))?;
        }
        std::fs::write(&path, bytes).map_err(|e| format!("{}: {e}", path.display()))?;
    }
    let segment = crate::engine::segment::Segment::parse(&job.segment).map_err(|e| e.to_string())?;
    let opts = LoadOptions {
        properties: job.properties.iter().cloned().collect(),
        replacements: job.replacements.clone(),
        skip_unsupported: job.skip_unsupported,
        lenient_files: false,
        strict: false,
        // The controller's --allow-commands is not the agent machine's owner's consent: an
        // OS Process Sampler's samples fail unrun on an agent.
        allow_commands: false,
    };
    let load = || Plan::load_with(&files.join(&job.plan), &opts).map_err(|e| e.to_string());
    let root = std::path::absolute(&files).map_err(|e| format!("{}: {e}", files.display()))?;
    let mut plan = crate::confine::moved(Path::new(&job.root), &root, load)?.plan;
    let overrides = Overrides {
        users: job.users,
        duration: job.duration_ms.map(Duration::from_millis),
        iterations: job.iterations,
        ramp_up: job.ramp_up_ms.map(Duration::from_millis),
    };
    if !overrides.is_empty() {
        for s in &mut plan.scenarios {
            s.workload = s.workload.bounded(&overrides);
        }
    }
    if job.data_split {
        crate::run::split_rows(&mut plan, &segment);
    }
    if job.samples {
        // The controller writes them from the rows sent back.
        plan.result_files.clear();
    }
    // Goals that stop the run are judged by the controller, on every agent's numbers.
    for t in &mut plan.thresholds {
        t.abort = None;
    }
    plan.stop_on.clear();
    Ok((plan, segment))
}

/// The output that streams an agent's run directory to its controller.
struct Stream {
    tx: Tx,
    lines: Option<IntervalLines>,
}

impl Output for Stream {
    fn name(&self) -> &str {
        "stream to the controller"
    }

    fn start(&mut self, start: &Start<'_>) -> Result<(), OutputError> {
        self.lines = Some(IntervalLines::new(start.meta));
        let _ = self.tx.send(Msg::Meta { meta: Box::new(start.meta.clone()) });
        Ok(())
    }

    fn begins(&mut self, meta: &RunMeta) -> Result<(), OutputError> {
        let _ = self.tx.send(Msg::Meta { meta: Box::new(meta.clone()) });
        Ok(())
    }

    fn interval(&mut self, iv: &Interval) -> Result<(), OutputError> {
        if let Some(l) = self.lines.as_mut() {
            let _ = self.tx.send(Msg::Line { line: l.line(iv) });
        }
        Ok(())
    }

    fn finish(&mut self, end: &End<'_>) -> Result<(), OutputError> {
        let summary = serde_json::to_value(end.summary).expect("a summary serialises");
        let _ = self.tx.send(Msg::Summary { summary });
        let _ = self.tx.send(Msg::Meta { meta: Box::new(end.meta.clone()) });
        Ok(())
    }
}

// -------------------------------------------------------------------------------- controller

/// What a job ships, and where.
#[derive(Debug)]
pub struct JobFiles {
    /// The plan, relative to the root.
    pub plan: String,
    /// The common root on the controller's machine.
    pub root: String,
    pub files: Vec<JobFile>,
    /// Said to the user: the plan's directory was not sent whole (it is the home directory).
    pub note: Option<String>,
}

/// What a job ships: the plan's directory (and below: names made while the plan runs, such as
/// `bodies/${id}.json`, are read there) and every file the plan reads outside it, with the
/// folders of `--ship`, under their common root. Hidden files and folders, run directories and
/// the files in `never` (the token file) stay behind; so does the rest of the plan's directory
/// when it is the home directory.
pub fn job_files(plan: &Plan, ship: &[PathBuf], never: &[PathBuf]) -> Result<JobFiles, String> {
    use crate::plan::files::{files_under, is_home, Folder};
    let run_dir = |d: &Path| d.join(crate::rundir::META).exists();
    let mut extra = Vec::new();
    let mut refused = Vec::new();
    let mut note = None;
    if let Some(dir) = plan.source.as_deref().map(|p| p.parent().unwrap_or(Path::new(""))) {
        if is_home(dir) {
            note = Some(
                "the plan is in your home directory, which is not sent whole: only the files the plan reads when it loads (--ship DIR sends a folder)"
                    .to_string(),
            );
        } else {
            match files_under(dir, Folder::PlansOwn, run_dir) {
                Ok(f) => extra.extend(f),
                Err(e) => refused.extend(e),
            }
        }
    }
    for dir in ship {
        match files_under(dir, Folder::Chosen, run_dir) {
            Ok(f) => extra.extend(f),
            Err(e) => refused.extend(e),
        }
    }
    // Every refusal at once: the folders' and the files'.
    let s = match (crate::plan::files::Shipment::new(plan, extra, never, MAX_JOB_BYTES), refused.is_empty()) {
        (Ok(s), true) => s,
        (Ok(_), false) => {
            return Err(format!("cannot send the plan's files to the agents:\n  {}", refused.join("\n  ")))
        }
        (Err(e), _) => return Err([e].into_iter().chain(refused).collect::<Vec<_>>().join("\n  ")),
    };
    let mut files = Vec::new();
    for f in &s.files {
        let mut bytes = Vec::new();
        crate::confine::open(&f.real, crate::confine::Access::Read)
            .and_then(|mut h| std::io::Read::read_to_end(&mut h, &mut bytes))
            .map_err(|e| format!("{}: cannot be read: {e}", s.root.join(&f.path).display()))?;
        files.push(JobFile { path: f.path.clone(), base64: base64::engine::general_purpose::STANDARD.encode(bytes) });
    }
    Ok(JobFiles { plan: s.plan, root: s.root.display().to_string(), files, note })
}

/// What the controller hears from an agent as its part runs.
pub enum Heard<'a> {
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
pub type Progress = Arc<dyn Fn(usize, Heard<'_>) + Send + Sync>;

/// One agent as the controller sees it.
pub struct AgentLink {
    pub address: String,
    pub host: String,
    r: Reader,
    tx: Tx,
    written: Written,
}

/// Connects to an agent (over TLS when `tls` is given, checking the agent's certificate for
/// the address's host) and says hello with `token`.
pub async fn connect(address: &str, token: &str, tls: Option<&tokio_rustls::TlsConnector>) -> Result<AgentLink, Error> {
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
pub async fn gather(
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
pub enum Gathering<'a> {
    /// The k-th agent joined.
    Joined(&'a AgentLink, usize),
    /// A connection that came to nothing, an agent gone before the start.
    Note(String),
}

/// What became of one agent's part.
#[derive(Debug, Clone)]
pub struct AgentEnd {
    pub address: String,
    pub dir: PathBuf,
    /// When the controller stopped hearing from it before it finished, and why.
    pub lost: Option<String>,
}

/// How the controller stops its agents: `interrupt` (Ctrl-C, an agent lost with
/// `--on-agent-loss abort`) stops them as an interrupt; `finish` (a threshold that aborts the
/// run) as a run that ends.
#[derive(Clone, Default)]
pub struct Stops {
    pub interrupt: CancellationToken,
    pub finish: CancellationToken,
}

/// Sends each agent its job (segment i/N), waits for all to be ready, starts them together
/// and writes each agent's stream into the `i`-th directory `claim` gives (called once every
/// agent is ready, before the start: an error there stops them all) until it is done or lost. Each of `stops`
/// sends `stop` to every agent; with `abort_on_loss`, so does an agent lost. `progress` hears
/// of every interval line (agent index, line).
pub async fn control(
    agents: Vec<AgentLink>,
    job: Job,
    claim: impl FnOnce() -> Result<Vec<PathBuf>, String>,
    stops: Stops,
    abort_on_loss: bool,
    progress: Progress,
) -> Result<Vec<AgentEnd>, Error> {
    let stop = stops.interrupt.clone();
    let n = agents.len();
    let mut agents = agents;
    for (i, a) in agents.iter_mut().enumerate() {
        let mut j = job.clone();
        j.segment = format!("{}/{n}", i + 1);
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
    let mut tasks = Vec::new();
    for ((i, a), dir) in agents.into_iter().enumerate().zip(dirs) {
        let (stops, progress) = (stops.clone(), progress.clone());
        tasks.push(tokio::spawn(async move {
            let end = follow(i, a, dir, stops.clone(), progress).await;
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

/// Writes one agent's stream into its run directory `dir`, pinging it, until it is done or lost.
async fn follow(i: usize, mut a: AgentLink, dir: PathBuf, stops: Stops, progress: Progress) -> AgentEnd {
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A connection whose other end the test writes.
    fn pipe() -> (Reader, tokio::io::DuplexStream) {
        let (ours, theirs) = tokio::io::duplex(1 << 16);
        let (r, _tx, _written) = split(Box::new(ours));
        (r, theirs)
    }

    /// A part's results file reaches a slow controller whole, row for row, with never more than
    /// the bound (and the batch being sent) of its rows in memory: not the whole file.
    #[tokio::test]
    async fn results_rows_reach_a_slow_controller_whole_with_bounded_rows_in_memory() {
        use tokio::io::AsyncReadExt;
        let path = std::env::temp_dir().join(format!("stampede-agent-rows-{}.jtl", std::process::id()));
        let row = format!("{}\n", "x".repeat(99));
        let rows = 100_000;
        let mut text = format!("{}\n", crate::rundir::jtl::HEADER);
        for _ in 0..rows {
            text.push_str(&row);
        }
        std::fs::write(&path, &text).unwrap();
        drop(text);
        let (ours, mut theirs) = tokio::io::duplex(1 << 16);
        let (_r, tx, written) = split(Box::new(ours));
        let queued = tx.queued.clone();
        let controller = tokio::spawn(async move {
            let (mut got, mut buf, mut most) = (Vec::new(), vec![0; 1 << 16], 0);
            loop {
                let n = theirs.read(&mut buf).await.unwrap();
                if n == 0 {
                    return (got, most);
                }
                got.extend_from_slice(&buf[..n]);
                most = most.max(queued.bytes.load(Ordering::SeqCst));
                tokio::time::sleep(Duration::from_micros(200)).await;
            }
        });
        let bound = 2 << 20;
        send_samples(&tx, &path, bound).await.unwrap();
        drop(tx);
        written.await.unwrap();
        let (got, most) = controller.await.unwrap();
        let _ = std::fs::remove_file(&path);
        let mut seen = 0;
        for line in got.split(|b| *b == b'\n').filter(|l| !l.is_empty()) {
            match serde_json::from_slice::<Msg>(line).unwrap() {
                Msg::Samples { rows } => seen += rows.lines().inspect(|l| assert_eq!(*l, &row[..99])).count(),
                other => panic!("unexpected {}", kind(&Some(other))),
            }
        }
        assert_eq!(seen, rows);
        assert!(most <= bound + ROWS_BATCH + row.len(), "{most} bytes of rows waited");
        // The controller was slow enough for the bound to matter.
        assert!(most > bound / 2, "{most}");
    }

    #[tokio::test(start_paused = true)]
    async fn a_stall_of_ours_is_not_the_other_side_s_silence() {
        let (mut r, mut theirs) = pipe();
        let reader = tokio::spawn(async move { read(&mut r, SILENCE, MAX_SHORT_LINE).await.map(|m| kind(&m)) });
        tokio::task::yield_now().await;
        // This process did not run for 9 s (SIGSTOP): the reader wakes long past its bound...
        tokio::time::advance(Duration::from_secs(9)).await;
        tokio::task::yield_now().await;
        // ...and what the other side sent meanwhile is read, not judged silence.
        theirs.write_all(b"{\"type\":\"ping\"}\n").await.unwrap();
        assert_eq!(reader.await.unwrap().unwrap(), "ping");
    }

    #[test]
    fn only_a_late_wake_up_of_a_stopped_process_is_forgiven() {
        let s = Duration::from_secs;
        let ms = Duration::from_millis;
        for (wall, cpu, forgiven_) in [
            // Stopped (SIGSTOP, suspended): the lateness is ours, not the other side's silence.
            (s(9), ms(0), s(9) - TICK),
            (s(9), ms(800), s(9) - TICK),
            (s(600), s(2), s(600) - TICK),
            // Late because busy (a runtime saturated by our own load, on one core or many):
            // the silence counts.
            (s(2), ms(200), ms(0)),
            (s(2), s(2), ms(0)),
            (s(9), ms(900), ms(0)),
            (s(9), s(70), ms(0)),
            // On time, busy or not: nothing to forgive.
            (TICK, ms(0), ms(0)),
            (TICK + STALL, ms(0), ms(0)),
            (TICK, s(1), ms(0)),
        ] {
            assert_eq!(forgiven(wall, cpu), forgiven_, "{wall:?} of which {cpu:?} of processor time");
        }
    }

    #[tokio::test(start_paused = true)]
    async fn a_reader_starved_by_its_own_load_still_hears_the_silence() {
        let (mut r, _theirs) = pipe();
        let reader = tokio::spawn(async move { read(&mut r, SILENCE, MAX_SHORT_LINE).await });
        tokio::task::yield_now().await;
        // Every wake-up 1.5 s late, this process busy for a fifth of it: the silence is the other
        // side's, and after SILENCE of it (and a wake-up more) the reader gives up.
        let mut turns = 0;
        while !reader.is_finished() && turns < 20 {
            let t0 = cpu_time().unwrap();
            while cpu_time().unwrap() - t0 < Duration::from_millis(300) {
                std::hint::black_box(0u64);
            }
            tokio::time::advance(Duration::from_millis(1500)).await;
            tokio::task::yield_now().await;
            turns += 1;
        }
        assert!(reader.is_finished(), "still waiting after {turns} late and busy wake-ups");
        let e = reader.await.unwrap().unwrap_err();
        assert!(e.to_string().contains("nothing heard for 5s"), "{e}");
        assert!(turns <= 5, "{turns} wake-ups of 1.5 s to hear 5 s of silence");
    }

    #[tokio::test(start_paused = true)]
    async fn silence_while_we_run_is_silence() {
        let (mut r, _theirs) = pipe();
        let t0 = tokio::time::Instant::now();
        let e = read(&mut r, SILENCE, MAX_SHORT_LINE).await.unwrap_err();
        assert!(e.to_string().contains("nothing heard for 5s"), "{e}");
        assert!(t0.elapsed() >= SILENCE && t0.elapsed() < SILENCE + STALL, "{:?}", t0.elapsed());
    }

    #[tokio::test(start_paused = true)]
    async fn a_line_cut_by_a_wait_is_read_whole_by_the_next_read() {
        let (mut r, mut theirs) = pipe();
        theirs.write_all(b"{\"type\":\"st").await.unwrap();
        assert!(read(&mut r, Duration::from_secs(1), MAX_SHORT_LINE).await.is_err());
        theirs.write_all(b"op\"}\n{\"type\":\"done\"}\n").await.unwrap();
        assert_eq!(kind(&read(&mut r, SILENCE, MAX_SHORT_LINE).await.unwrap()), "stop");
        assert_eq!(kind(&read(&mut r, SILENCE, MAX_SHORT_LINE).await.unwrap()), "done");
        drop(theirs);
        assert!(read(&mut r, SILENCE, MAX_SHORT_LINE).await.unwrap().is_none());
    }

    #[test]
    fn a_greeting_beyond_the_bound_takes_the_place_of_the_oldest_that_said_nothing() {
        let pool = Arc::new(Greetings::default());
        let (a, b): (std::net::IpAddr, std::net::IpAddr) = ("10.0.0.1".parse().unwrap(), "10.0.0.2".parse().unwrap());
        let mut held: Vec<Greeting> = (0..GREETINGS_PER_PEER).map(|_| pool.enter(a, None)).collect();
        // The second one said hello: the oldest that did not goes first, then the next.
        held[1].spoke.store(true, Ordering::SeqCst);
        held.push(pool.enter(a, None));
        assert!(held[0].evicted.is_cancelled() && !held[1].evicted.is_cancelled());
        held.push(pool.enter(a, None));
        assert!(held[2].evicted.is_cancelled() && !held[1].evicted.is_cancelled());
        // Another address is not bounded by this one's.
        let other = pool.enter(b, None);
        assert!(!other.evicted.is_cancelled());
        // When every other one has spoken, the oldest goes; never the newcomer.
        for g in &held {
            g.spoke.store(true, Ordering::SeqCst);
        }
        let newest = pool.enter(a, None);
        assert!(held[1].evicted.is_cancelled() && !newest.evicted.is_cancelled());
        // A greeting that ends gives its place up.
        let before = pool.pending.lock().unwrap().len();
        drop(newest);
        assert_eq!(pool.pending.lock().unwrap().len(), before - 1);
        // In all, the bound holds over every address.
        let many: Vec<Greeting> = (0..2 * GREETINGS)
            .map(|i| pool.enter(std::net::IpAddr::from([10, 1, (i / 250) as u8, (i % 250) as u8]), None))
            .collect();
        assert_eq!(pool.pending.lock().unwrap().len(), GREETINGS);
        assert!(!many.last().unwrap().evicted.is_cancelled());
    }

    #[tokio::test]
    async fn a_connection_whose_hello_waits_unread_keeps_its_place_before_silent_ones() {
        use std::io::Write as _;
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let pool = Arc::new(Greetings::default());
        let (mut clients, mut held) = (Vec::new(), Vec::new());
        // The dialer first, its hello sent but not read yet (its task has not run); then silent ones.
        for i in 0..=GREETINGS_PER_PEER {
            let mut c = std::net::TcpStream::connect(addr).unwrap();
            let (s, peer) = listener.accept().await.unwrap();
            if i == 0 {
                c.write_all(b"{\"type\":\"hello\"}\n").unwrap();
                s.readable().await.unwrap();
            }
            held.push((pool.enter(peer.ip(), peek_handle(&s)), s));
            clients.push(c);
        }
        assert!(!held[0].0.evicted.is_cancelled());
        assert!(held[1].0.evicted.is_cancelled());
    }

    #[test]
    fn a_job_s_files_go_when_it_ends_and_its_run_stays() {
        let work = std::env::temp_dir().join(format!("stampede-agent-jobs-{}", std::process::id()));
        std::fs::create_dir_all(&work).unwrap();
        let jobs = JobDirs::default();
        let ran = JobDir::new(&work, &jobs, Arc::new(|_| {})).unwrap();
        let failed = JobDir::new(&work, &jobs, Arc::new(|_| {})).unwrap();
        let (ran_dir, failed_dir) = (ran.0.clone(), failed.0.clone());
        for d in [&ran_dir, &failed_dir] {
            std::fs::create_dir_all(d.join("files/data")).unwrap();
            std::fs::write(d.join("files/data/logins.csv"), "u,p\n").unwrap();
        }
        std::fs::create_dir_all(ran_dir.join("run")).unwrap();
        drop(ran);
        assert!(!ran_dir.join("files").exists() && ran_dir.join("run").is_dir());
        drop(failed);
        assert!(!failed_dir.exists());
        // A process leaving with a job in progress deletes its files too.
        let left = JobDir::new(&work, &jobs, Arc::new(|_| {})).unwrap();
        std::fs::create_dir_all(left.0.join("files")).unwrap();
        let left_dir = left.0.clone();
        std::mem::forget(left);
        assert!(jobs.delete().is_empty());
        assert!(!left_dir.exists());
        let _ = std::fs::remove_dir_all(&work);
    }
}
