//! A sample over a raw socket: JMeter's TCP Sampler and FTP Request, and the plugins' HTTP Raw
//! Request and UDP Request. Each is a row of the results like a request's, with the response
//! code and message its JMeter class sets ("200"/"500" and the Java exception, the FTP reply),
//! and the extractors and assertions of its scope read the response data as the JMeter class
//! makes it (text, or a hex string for the binary clients, or a DNS message written out).

use super::after::After;
use crate::plan::template::Template;
use crate::plan::LabelId;
use serde::Serialize;

/// The family as the engine runs it, one op for both: a sample, or the Raw Data Source
/// pre-processor that feeds one (in a flow, a `Sampler::Socket` and a `Step::RawSource`).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum SocketStep {
    Sample(Socket),
    RawSource(RawSource),
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct Socket {
    pub label: LabelId,
    /// The JMeter class it comes from (for `check`'s listing).
    pub class: String,
    pub kind: SocketKind,
    #[serde(flatten)]
    pub after: After,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum SocketKind {
    Tcp(Box<Tcp>),
    HttpRaw(Box<HttpRaw>),
    Udp(Box<Udp>),
    Ftp(Box<Ftp>),
    /// JMeter's OS Process Sampler: not a socket, but its result is made as theirs are.
    Process(Box<crate::plan::process::OsProcess>),
}

/// JMeter's TCPSampler with its client class. Every text field is rendered when the sample
/// runs; numbers that are not numbers are 0 (JMeter's `getPropertyAsInt`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct Tcp {
    pub server: Template,
    pub port: Template,
    /// What is sent: shown by its size only (it may hold secrets).
    #[serde(serialize_with = "super::http::text_summary")]
    pub request: Template,
    pub client: TcpClient,
    /// `TCPSampler.EolByte` when set (else the client's default from `tcp.eolByte` /
    /// `tcp.BinaryTCPClient.eomByte`): a value outside -128..=127 means none.
    pub eol: Option<Template>,
    /// The end byte the client class has without `TCPSampler.EolByte` (its JMeter property).
    pub default_eol: Option<i64>,
    pub reuse: bool,
    pub close: bool,
    pub nodelay: bool,
    /// `TCPSampler.soLinger`, read only for the sampler data JMeter shows before it sends.
    pub so_linger: Template,
    /// Read timeout (SO_TIMEOUT) and connect timeout, ms; 0: none.
    pub timeout: Template,
    pub connect_timeout: Template,
    /// The connection is kept per user by server, port, user name and password (JMeter's
    /// socket key), so samplers to one server share it. Not in the resolved plan: a password.
    #[serde(skip)]
    pub user: String,
    /// `tcp.status.prefix` / `tcp.status.suffix`: the response code is read from the response
    /// between them.
    pub status_prefix: String,
    pub status_suffix: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum TcpClient {
    /// TCPClientImpl: the request as UTF-8 text; reads until the end byte or end of stream.
    Text,
    /// BinaryTCPClientImpl: the request is a hex string; the response is written as one.
    Binary,
    /// LengthPrefixedBinaryTCPClientImpl: hex, each message after its length in `prefix`
    /// big-endian bytes (`tcp.binarylength.prefix.length`, 2).
    LengthPrefixed { prefix: usize },
    /// A class that is none of JMeter's: JMeter loads the plan (TCPSampler.getProtocol logs
    /// "Could not find protocol class") and each sample connects, then fails with 500
    /// "Protocol handler not found" (the check message), sending nothing.
    Missing { failure: super::http::CheckId },
}

/// The plugins' HTTP Raw Request (`kg.apc.jmeter.samplers.HTTPRawSampler`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct HttpRaw {
    pub host: Template,
    pub port: Template,
    /// Sent as it is (the plugin's GUI already wrote its line ends as CRLF); shown by its size
    /// only (it may hold credentials).
    #[serde(serialize_with = "super::http::text_summary")]
    pub data: Template,
    /// A file sent after the data (empty: none); relative to the plan's directory.
    pub file: Template,
    pub base_dir: crate::confine::PlanDir,
    pub keepalive: bool,
    /// Connect and read timeout, ms; 0 or not a number: none.
    pub timeout: Template,
    /// Read the status line and headers out of the response.
    pub parse: bool,
    /// The user's saved connection for this sampler.
    #[serde(skip)]
    pub slot: u32,
}

/// JMeter's FTP Request (`FTPSampler`): one control connection per sample (connect, log in,
/// one RETR or STOR in passive mode, QUIT), as commons-net's `FTPClient` does it for JMeter.
/// Text fields are rendered when the sample runs.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct Ftp {
    pub server: Template,
    /// Empty or not a positive number: 21.
    pub port: Template,
    /// The remote file.
    pub remote: Template,
    /// The local file: written with what is downloaded, or uploaded when `input` is empty;
    /// relative to the plan's directory.
    pub local: Template,
    /// What is uploaded, when not empty: shown by its size only.
    #[serde(serialize_with = "super::http::text_summary")]
    pub input: Template,
    pub binary: bool,
    /// Keep the downloaded file as the response data (else only its size is counted).
    pub save: bool,
    pub upload: bool,
    /// Never in the resolved plan: credentials.
    #[serde(skip)]
    pub user: Template,
    #[serde(skip)]
    pub password: Template,
    pub base_dir: crate::confine::PlanDir,
}

/// The plugins' UDP Request (`kg.apc.jmeter.samplers.UDPSampler`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct Udp {
    pub host: Template,
    pub port: Template,
    #[serde(serialize_with = "super::http::text_summary")]
    pub data: Template,
    pub codec: UdpCodec,
    pub wait: bool,
    pub timeout: Template,
    pub bind_address: Template,
    pub bind_port: Template,
    /// Close the channel after each sample (else it is kept for the user's next one).
    pub close: bool,
    /// The user's channel for this sampler.
    #[serde(skip)]
    pub slot: u32,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum UdpCodec {
    /// The sampler's own: the data as Windows-1252 bytes, the response as it came.
    Raw,
    /// HexStringUDPDecoder: hex both ways.
    Hex,
    /// DNSJavaDecoder: lines `name. TYPE CLASS` (or a flag number) make a DNS query; the
    /// response is written out as dnsjava's `Message.toString`.
    Dns,
}

/// The plugins' Raw Data Source pre-processor
/// (`kg.apc.jmeter.modifiers.RawRequestSourcePreProcessor`): each pass reads the next chunk of
/// its file, a line holding the chunk's length in bytes then that many bytes, into a variable.
/// One file position for the whole run (the element is shared by every thread); at the end of
/// the file (or a chunk of length 0) it starts again with `rewind`, else the user stops.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct RawSource {
    pub name: String,
    #[serde(skip)]
    pub var: crate::plan::VarId,
    pub file: Template,
    pub base_dir: crate::confine::PlanDir,
    pub rewind: bool,
    /// Each chunk as a hex string (else as UTF-8 text).
    pub hex: bool,
    #[serde(skip)]
    pub state: RawFile,
}

/// The file a Raw Data Source reads and its position, opened on first use (a file the plan
/// writes before it is read, as JMeter's element opens it then).
#[derive(Debug, Clone, Default)]
pub(crate) struct RawFile(pub std::sync::Arc<std::sync::Mutex<Option<RawRead>>>);

/// A Raw Data Source's file, read whole, and the position of its next chunk.
#[derive(Debug, Clone)]
pub(crate) struct RawRead {
    pub data: Vec<u8>,
    pub pos: usize,
}

impl PartialEq for RawFile {
    fn eq(&self, _: &RawFile) -> bool {
        // Run-time state: two plans read the same whatever their positions.
        true
    }
}
