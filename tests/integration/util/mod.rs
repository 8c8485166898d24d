//! Test utilities shared by the integration tests.
//!
//! - [`server`]: `TestServer`, the loopback HTTP/1.x server that independently counts what
//!   stampede did (connections, requests, responses) so tests can compare exactly.
//! - [`stampede`]: running the real binary with a hard timeout, and reading its run directory.

// Each test module uses a different subset of these helpers; unused ones are not a defect.
#![allow(dead_code)]

pub mod server;
pub mod stampede;
