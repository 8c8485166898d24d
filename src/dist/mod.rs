//! Many load generators, one run (issue 33): `agent` is a load generator that runs the parts of
//! plans a controller sends it; `controller` reaches the agents and carries a run out on them, a
//! [`crate::run::Remote`]: the run, its outputs and goals are the same as on one generator.
//! See `docs/distributed.md`.
//!
//! # Layout
//! - `protocol`: the wire (JSON lines over TCP or TLS), its messages and the handshake that
//!   proves the token both ways;
//! - `agent`: the agent: it takes a job, runs its part and streams the part's run directory back;
//! - `link`: the controller's side of the wire: reaching agents, sending their jobs, following
//!   their streams;
//! - `ship`: the files a job carries (the plan's, wherever it reads them);
//! - `controller`: the run on agents ([`controller::Agents`]), merging their streams live.

pub(crate) mod agent;
pub(crate) mod controller;
pub(crate) mod link;
pub(crate) mod protocol;
pub(crate) mod ship;
