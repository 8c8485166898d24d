//! Many load generators, one run (issue 33): `agent` is a load generator that runs the parts of
//! plans a controller sends it, and the protocol both ways (JSON lines over TCP or TLS, the
//! token proved both ways); `controller` reaches the agents and carries a run out on them, a
//! [`crate::run::Remote`]: the run, its outputs and goals are the same as on one generator.
//! See `docs/distributed.md`.

pub mod agent;
pub mod controller;
