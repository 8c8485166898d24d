//! What a sample is made of: one [`Sampler`] per sampler element of a plan, of one kind per
//! protocol (a file each here), and its [`After`] part, the same for every kind. A flow holds
//! each as one [`Step::Sample`](crate::plan::Step::Sample); `docs/architecture.md` ("Add a
//! sampler") says how a new protocol joins.

pub mod after;
pub mod http;
pub mod script;
pub mod socket;
pub mod synthetic;
pub mod websocket;

use crate::plan::LabelId;
pub use after::After;
use serde::Serialize;

/// A sampler of a flow: the kind's model (what is sent, how), each holding its [`After`]
/// part. Every kind is boxed, so a step stays two words whatever the protocol.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Sampler {
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
    /// What is done with the sample once it is made.
    pub fn after(&self) -> &After {
        match self {
            Sampler::Http(x) => &x.after,
            Sampler::Synthetic(x) => &x.after,
            Sampler::WebSocket(x) => &x.after,
            Sampler::Socket(x) => &x.after,
            Sampler::Script(x) => &x.after,
        }
    }

    /// The label the sample is recorded under.
    pub fn label(&self) -> LabelId {
        match self {
            Sampler::Http(x) => x.label,
            Sampler::Synthetic(x) => x.label,
            Sampler::WebSocket(x) => x.label,
            Sampler::Socket(x) => x.label,
            Sampler::Script(x) => x.label,
        }
    }
}
