//! Many load generators, one run: the agent, its protocol and the controller (issue 33).

pub mod agent;
