//! The wire between a controller and its agents, and its handshake: JSON lines over TCP (or TLS
//! over it), [`PROTOCOL`] versioned. `hello` each way (each proving the shared token for the
//! other's nonce, so the token never crosses the wire), `job`, `ready`, `start`, then the agent
//! streams `meta`, `line` (an interval) and `summary`, and `done`; each side pings the other every
//! second. A controller marks an agent it has not heard from for [`SILENCE`] lost; an agent stops
//! its load by itself when its controller closes the connection or is silent for [`ORPHANED`].
//! Silence is judged on what arrives, in the judge's own running time (see `read`).

use crate::rundir::RunMeta;
use base64::Engine as _;
use serde::{Deserialize, Serialize};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

/// The protocol's version: a controller and an agent of different versions refuse each other.
pub(crate) const PROTOCOL: u32 = 5;
/// How long a controller waits without hearing from an agent (which pings every second) before
/// it marks the agent lost; also the bound on connecting and greeting.
pub(crate) const SILENCE: Duration = Duration::from_secs(5);
/// How long an agent runs its load without hearing from its controller. Far longer than
/// [`SILENCE`]: a controller that is gone closes its connection (its kernel does, when it is
/// killed) and is heard at once; silence alone is a network gone, or a controller stopped for a
/// while (SIGSTOP, a suspended machine, a long pause) whose lines wait in its sockets and which
/// goes on when it resumes.
pub(crate) const ORPHANED: Duration = Duration::from_secs(30);
/// How often a reader that waits looks at the clock, and how late a look must be for this
/// process to have stalled (its own silence, not the other side's).
pub(super) const TICK: Duration = Duration::from_millis(250);
pub(super) const STALL: Duration = Duration::from_secs(1);
/// The most a job's files may weigh together.
pub(super) const MAX_JOB_BYTES: u64 = 256 << 20;
/// The longest job line an agent reads, once the controller has shown its token (base64 of
/// [`MAX_JOB_BYTES`] and the rest).
pub(super) const MAX_JOB_LINE: usize = 360 << 20;
/// The longest interval line a controller reads from an agent it chose (many labels' histograms).
pub(super) const MAX_STREAM_LINE: usize = 64 << 20;
/// The longest of any other line: a hello, a ping, a start.
pub(super) const MAX_SHORT_LINE: usize = 64 << 10;
/// The most greetings (connections that have not proved the token yet) a listener keeps from one
/// address, and in all (see [`Greetings`]).
pub(super) const GREETINGS_PER_PEER: usize = 32;
pub(super) const GREETINGS: usize = 256;
/// How long a listener waits for a dialer's hello: a dialer says it at once.
pub(super) const HELLO_WAIT: Duration = Duration::from_secs(1);

/// One line of the protocol.
#[derive(Debug, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub(crate) enum Msg {
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
    /// The run's JMeter properties once setup has ended: from the agent that ran it, then from
    /// the controller to every other agent, which begins its main load with them (protocol 5).
    Properties {
        properties: Vec<(String, String)>,
    },
    /// From the agent that runs teardown: its main load has ended; it waits for [`Msg::Teardown`].
    MainEnded,
    /// To that agent: every agent's main load has ended, run teardown.
    Teardown,
}

/// What a controller asks an agent to run: the plan with every file it reads, and how.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Job {
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
    /// The plan's setup and teardown scenarios run once for the run, on the first agent: `true`
    /// to the agent that runs them (whole), `false` to those that skip them and begin their main
    /// load with the properties setup set; `None` when the plan has neither (protocol 5).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub setup_once: Option<bool>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct JobFile {
    /// Relative to the files' root, `/`-separated.
    pub path: String,
    pub base64: String,
}

/// Why a controller or an agent could not go on.
#[derive(Debug, thiserror::Error)]
pub(crate) enum Error {
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

pub(super) fn proto(msg: impl Into<String>) -> Error {
    Error::Protocol(msg.into())
}

/// A control connection: TCP, or TLS over it.
pub(crate) trait Conn: AsyncRead + AsyncWrite + Unpin + Send + 'static {}
impl<T: AsyncRead + AsyncWrite + Unpin + Send + 'static> Conn for T {}

/// A connection's reading side: the lines it brings, read so that waiting can be cut at any
/// point without losing a partly read line (it stays in `line` for the next read).
pub(crate) struct Reader {
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
pub(super) fn split(c: Box<dyn Conn>) -> (Reader, Tx, Written) {
    let (r, w) = tokio::io::split(c);
    let (tx, written) = writer(w);
    (Reader { r: BufReader::new(r), line: Vec::new(), fresh: true }, tx, written)
}

/// The task writing a connection's messages: it ends when every sender is gone and what they
/// sent is written (a process about to exit waits for it).
pub(super) type Written = tokio::task::JoinHandle<()>;

/// The agent's side of TLS: its certificate chain and key (PEM).
pub(crate) fn server_tls(cert_pem: &[u8], key_pem: &[u8]) -> Result<tokio_rustls::TlsAcceptor, String> {
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
pub(crate) fn client_tls(ca_pem: &[u8]) -> Result<tokio_rustls::TlsConnector, String> {
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
pub(super) struct Tx {
    tx: mpsc::UnboundedSender<Msg>,
    pub(super) queued: Arc<Queued>,
}

/// The bytes of rows sent and not yet written, and a signal each time some are written.
#[derive(Default)]
pub(super) struct Queued {
    pub(super) bytes: AtomicUsize,
    written: tokio::sync::Notify,
}

impl Tx {
    pub(super) fn send(&self, m: Msg) -> Result<(), mpsc::error::SendError<Msg>> {
        let rows = rows_len(&m);
        self.queued.bytes.fetch_add(rows, Ordering::SeqCst);
        let sent = self.tx.send(m);
        if sent.is_err() {
            self.queued.bytes.fetch_sub(rows, Ordering::SeqCst);
        }
        sent
    }

    pub(super) fn is_closed(&self) -> bool {
        self.tx.is_closed()
    }

    /// Waits while more than `bound` bytes of rows wait to be written (or until the writer is
    /// gone: nothing will be written then, and the sender finds out on its next send).
    pub(super) async fn room(&self, bound: usize) {
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

pub(super) fn rows_len(m: &Msg) -> usize {
    match m {
        Msg::Samples { rows } => rows.len(),
        _ => 0,
    }
}

/// Wakes every sender waiting for room when the writer ends, however it ends.
pub(super) struct Ended(Arc<Queued>);

impl Drop for Ended {
    fn drop(&mut self) {
        self.0.written.notify_waiters();
    }
}

/// Writes messages to one side of a connection from a task of its own, so that outputs (which
/// are synchronous) can send without waiting on the network.
pub(super) fn writer(mut w: tokio::io::WriteHalf<Box<dyn Conn>>) -> (Tx, Written) {
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
pub(super) async fn read(r: &mut Reader, wait: Duration, limit: usize) -> Result<Option<Msg>, Error> {
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
pub(super) fn forgiven(wall: Duration, cpu: Duration) -> Duration {
    if wall <= TICK + STALL || cpu >= wall / 10 {
        return Duration::ZERO;
    }
    wall - TICK
}

/// The processor time this process (all its threads) has used; `None` if the clock is missing.
pub(super) fn cpu_time() -> Option<Duration> {
    let mut t = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: `t` is a valid timespec for the call to write.
    if unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut t) } != 0 {
        return None;
    }
    Some(Duration::new(u64::try_from(t.tv_sec).ok()?, u32::try_from(t.tv_nsec).ok()?))
}

/// The next message other than a ping, each waited for at most `wait`; `None` at the end of
/// the connection, or when `shutdown` comes first.
pub(super) async fn next_message(
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
pub(super) fn kind(m: &Option<Msg>) -> &'static str {
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
        Some(Msg::Properties { .. }) => "properties",
        Some(Msg::MainEnded) => "main ended",
        Some(Msg::Teardown) => "teardown",
    }
}

/// This side's hello, with its nonce and (the listener's) proof.
pub(super) fn hello(nonce: &str, proof: String) -> Msg {
    Msg::Hello {
        protocol: PROTOCOL,
        version: env!("CARGO_PKG_VERSION").into(),
        host: crate::run::hostname(),
        nonce: nonce.to_string(),
        proof,
    }
}

/// A fresh nonce for a greeting.
pub(super) fn nonce() -> String {
    base64::engine::general_purpose::STANDARD.encode(rand::random::<[u8; 16]>())
}

/// Proof of holding `token` for `nonce`, as the side `role` (`dialer`/`listener`: one side's
/// proof is never the other's): HMAC-SHA256, so the token never crosses the wire.
pub(super) fn proof(token: &str, role: &str, nonce: &str) -> String {
    let key = ring::hmac::Key::new(ring::hmac::HMAC_SHA256, token.as_bytes());
    let tag = ring::hmac::sign(&key, format!("stampede {PROTOCOL} {role} {nonce}").as_bytes());
    base64::engine::general_purpose::STANDARD.encode(tag.as_ref())
}

/// Whether `given` proves `token` for `nonce` as `role` (compared in constant time).
pub(super) fn proves(token: &str, role: &str, nonce: &str, given: &str) -> bool {
    let Ok(tag) = base64::engine::general_purpose::STANDARD.decode(given) else { return false };
    let key = ring::hmac::Key::new(ring::hmac::HMAC_SHA256, token.as_bytes());
    ring::hmac::verify(&key, format!("stampede {PROTOCOL} {role} {nonce}").as_bytes(), &tag).is_ok()
}

/// The listening side of a connection's first exchange (an agent a controller dials, or a
/// controller its agents join): TLS when given; the dialer's hello, whose protocol must be ours;
/// our hello with our proof of the token for its nonce; its proof for ours; then `admit` (is
/// there room?) and `welcome`. Returns the connection and the dialer's host.
/// `spoke` is set once the dialer's hello has come.
pub(super) async fn greet(
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
pub(super) struct Greetings {
    pending: std::sync::Mutex<Vec<Pending>>,
    next: std::sync::atomic::AtomicU64,
}

pub(super) struct Pending {
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
pub(super) struct Greeting {
    pool: Arc<Greetings>,
    id: u64,
    spoke: Arc<AtomicBool>,
    evicted: CancellationToken,
}

impl Greetings {
    pub(super) fn enter(self: &Arc<Self>, peer: std::net::IpAddr, socket: Option<std::net::TcpStream>) -> Greeting {
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
pub(super) fn peek_handle(stream: &TcpStream) -> Option<std::net::TcpStream> {
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
pub(super) async fn greet_in(
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

pub(super) fn version_mismatch(theirs: u32, their_version: &str) -> String {
    format!(
        "protocol {theirs} (stampede {their_version}) against protocol {PROTOCOL} (stampede {}): run the same stampede version on the controller and every agent",
        env!("CARGO_PKG_VERSION")
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::net::TcpListener;

    /// A connection whose other end the test writes.
    fn pipe() -> (Reader, tokio::io::DuplexStream) {
        let (ours, theirs) = tokio::io::duplex(1 << 16);
        let (r, _tx, _written) = split(Box::new(ours));
        (r, theirs)
    }

    /// A part's results file reaches a slow controller whole, row for row, with never more than

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
}
