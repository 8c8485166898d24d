//! `stampede mock`: the built-in upstream, until Ctrl-C/SIGTERM; then prints what it served.

use crate::error::{exit, Error};
use crate::mirror;
use crate::mock::{self, Counters};
use clap::Args;
use std::path::PathBuf;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use tokio_util::sync::CancellationToken;

#[derive(Debug, Args)]
pub(crate) struct MockArgs {
    /// Address to listen on (loopback by default).
    #[arg(long, default_value = "127.0.0.1:8080")]
    pub listen: String,
    /// Status of the default route.
    #[arg(long, default_value_t = mock::flags::STATUS)]
    pub status: u16,
    /// Body of the default route.
    #[arg(long, default_value = mock::flags::BODY)]
    pub body: String,
    /// A response header of the default route, `Name: value` (repeatable).
    #[arg(long = "header", value_name = "NAME: VALUE")]
    pub headers: Vec<String>,
    /// Delay before answering: fixed (`20ms`) or uniform random (`10ms..50ms`).
    #[arg(long)]
    pub delay: Option<String>,
    /// A route: `PATH:STATUS[:DELAY[:BODY]]`, e.g. `/api/slow:200:20ms` (repeatable).
    #[arg(long = "route", value_name = "PATH:STATUS[:DELAY[:BODY]]")]
    pub routes: Vec<String>,
    /// A YAML file with `default:` and `routes:` (path, status, body, headers, delay).
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// Answer as JMeter's HTTP Mirror Server does: each request's own bytes echoed back, and its
    /// `X-ResponseStatus`, `X-SetHeaders`, `X-Sleep`... honoured (loopback addresses only).
    #[arg(long, conflicts_with_all = ["status", "body", "headers", "delay", "routes", "config"])]
    pub mirror: bool,
}

pub(super) async fn execute(a: MockArgs) -> Result<u8, Error> {
    if a.mirror {
        return mirror(&a.listen).await;
    }
    let flags = mock::flags::Flags {
        config: a.config.as_deref(),
        status: a.status,
        body: &a.body,
        headers: &a.headers,
        delay: a.delay.as_deref(),
        routes: &a.routes,
    };
    let config = flags.config().map_err(|e| Error::Usage(e.to_string()))?;
    let listener = tokio::net::TcpListener::bind(&a.listen)
        .await
        .map_err(|e| Error::Usage(format!("cannot listen on {}: {e}", a.listen)))?;
    let addr =
        listener.local_addr().map_err(|source| Error::Io { what: format!("cannot listen on {}", a.listen), source })?;
    eprintln!(
        "stampede mock listening on http://{addr}/ ({} routes + default {}); Ctrl-C to stop",
        config.routes.len(),
        config.default.status
    );
    let counters = Arc::new(Counters::default());
    let witness = counters.clone();
    let server = move |shutdown| async move { mock::run(listener, &config, shutdown, counters).await };
    serve(server, move || (witness.served.load(Ordering::Relaxed), witness.connections.load(Ordering::Relaxed))).await
}

/// `stampede mock --mirror`: JMeter's HTTP Mirror Server, on a loopback address only.
async fn mirror(listen: &str) -> Result<u8, Error> {
    let addr = mock::flags::mirror_address(listen).map_err(Error::Usage)?;
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|e| Error::Usage(format!("cannot listen on {listen}: {e}")))?;
    let addr =
        listener.local_addr().map_err(|source| Error::Io { what: format!("cannot listen on {listen}"), source })?;
    eprintln!("stampede mock --mirror listening on http://{addr}/ (JMeter's HTTP Mirror Server); Ctrl-C to stop");
    let verbose: mirror::Verbose = Arc::new(|line: &str| println!("{line}"));
    let options = mirror::Options { verbose: Some(verbose), ..Default::default() };
    let counters = Arc::new(mirror::Counters::default());
    let witness = counters.clone();
    let server = move |shutdown| mirror::run(listener, options, shutdown, counters);
    serve(server, move || (witness.served.load(Ordering::Relaxed), witness.connections.load(Ordering::Relaxed))).await
}

/// Serves with `server` until Ctrl-C/SIGTERM, stops it and prints what it served (`served`:
/// requests, connections).
async fn serve<S, F>(server: S, served: impl FnOnce() -> (u64, u64)) -> Result<u8, Error>
where
    S: FnOnce(CancellationToken) -> F,
    F: std::future::Future<Output = ()> + Send + 'static,
{
    let shutdown = CancellationToken::new();
    let server = tokio::spawn(server(shutdown.clone()));
    super::interrupted().await;
    shutdown.cancel();
    let _ = server.await;
    let (requests, connections) = served();
    super::say(&format!("served {requests} requests on {connections} connections\n"));
    Ok(exit::OK)
}
