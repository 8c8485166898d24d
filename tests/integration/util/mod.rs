//! Test utilities shared by the integration tests.
//!
//! - [`browser`]: a headless Chromium over the DevTools protocol, to check what a page does when
//!   a real browser loads it (errors, requests, screenshot, print).
//! - [`jmx`]: JMX plan text (the elements many tests build, the plan around them) and running
//!   a plan with a results file.
//! - [`server`]: `TestServer`, the loopback HTTP/1.x server that independently counts what
//!   stampede did (connections, requests, responses) so tests can compare exactly.
//! - [`ws_server`]: `WsServer`, a loopback WebSocket server that counts upgrades and frames.
//! - [`socket`]: TCP and UDP servers for the raw socket samplers, counting connections,
//!   messages and bytes.
//! - [`stampede`]: running the real binary with a hard timeout, and reading its run directory.

// Each test module uses a different subset of these helpers; unused ones are not a defect.
#![allow(dead_code)]

pub mod browser;
pub mod golden;
pub mod jmx;
pub mod server;
pub mod socket;
pub mod stampede;
pub mod ws_server;

/// Held by the tests whose figures depend on timing (a median, a rate) and by the ones that
/// load the machine (hundreds of processes), so that on a 2-core CI machine the first never run
/// beside the second. Poisoning is ignored: a failed test must not fail the others.
pub fn exclusive() -> std::sync::MutexGuard<'static, ()> {
    static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
    LOCK.lock().unwrap_or_else(|e| e.into_inner())
}
