//! What a sample is made of: one [`Sampler`] per sampler element of a plan, of one kind per
//! protocol (a file each here), and its [`After`](after::After) part, the same for every kind. A flow holds
//! each as one [`Step::Sample`](crate::plan::Step::Sample); `docs/architecture.md` ("Add a
//! sampler") says how a new protocol joins.

pub(crate) mod after;
pub(crate) mod http;
pub(crate) mod script;
pub(crate) mod socket;
pub(crate) mod synthetic;
pub(crate) mod websocket;

use crate::plan::LabelId;
use serde::Serialize;

/// A sampler of a flow: the kind's model (what is sent, how), each holding its [`After`](after::After)
/// part. Every kind is boxed, so a step stays two words whatever the protocol.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Sampler {
    /// An HTTP request (and the Access Log Sampler's, which reads its requests from a log).
    #[serde(rename = "request")]
    Http(Box<http::RequestSpec>),
    /// A sample made without a connection (Debug, Dummy and Java test samplers).
    #[serde(rename = "sample")]
    Synthetic(Box<synthetic::Synthetic>),
    /// A WebSocket sample on the user's WebSocket connection (the eu.luminis samplers).
    WebSocket(Box<websocket::WebSocket>),
    /// A sample over a raw socket (TCP Sampler, FTP Request, HTTP Raw Request, UDP Request,
    /// OS Process Sampler).
    Socket(Box<socket::Socket>),
    /// A script sampler's sample (JSR223 and BeanShell Samplers).
    Script(Box<script::ScriptSample>),
}

impl Sampler {
    /// The label the sample is recorded under.
    pub(crate) fn label(&self) -> LabelId {
        match self {
            Sampler::Http(x) => x.label,
            Sampler::Synthetic(x) => x.label,
            Sampler::WebSocket(x) => x.label,
            Sampler::Socket(x) => x.label,
            Sampler::Script(x) => x.label,
        }
    }
}
