//! `stampede mock`: the built-in upstream, until Ctrl-C/SIGTERM; then prints what it served.

use crate::error::{exit, Error};
use crate::mock::{self, Config, ConfigDoc, Counters, Route};
use clap::Args;
use std::path::PathBuf;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use tokio_util::sync::CancellationToken;

#[derive(Debug, Args)]
pub struct MockArgs {
    /// Address to listen on (loopback by default).
    #[arg(long, default_value = "127.0.0.1:8080")]
    pub listen: String,
    /// Status of the default route.
    #[arg(long, default_value_t = 200)]
    pub status: u16,
    /// Body of the default route.
    #[arg(long, default_value = "OK")]
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

pub(super) fn config_from(a: &MockArgs) -> Result<Config, Error> {
    let mut config = match &a.config {
        Some(p) => {
            let text = std::fs::read_to_string(p).map_err(|e| Error::Usage(format!("{}: {e}", p.display())))?;
            ConfigDoc::parse(&text).map_err(|e| Error::Usage(format!("{}: {e}", p.display())))?
        }
        None => Config::default(),
    };
    if a.config.is_none() || a.status != 200 || a.body != "OK" || !a.headers.is_empty() || a.delay.is_some() {
        let mut r = Route { status: a.status, body: a.body.clone().into_bytes(), ..Route::default() };
        for h in &a.headers {
            let (k, v) =
                h.split_once(':').ok_or_else(|| Error::Usage(format!("--header `{h}` is not `Name: value`")))?;
            r.headers.push((k.trim().into(), v.trim().into()));
        }
        if let Some(d) = &a.delay {
            r.delay = mock::parse_delay(d).map_err(|e| Error::Usage(format!("--delay: {e}")))?;
        }
        config.default = r;
    }
    for spec in &a.routes {
        let mut parts = spec.splitn(4, ':');
        let path = parts.next().unwrap_or_default();
        let status = parts.next().and_then(|s| s.parse().ok());
        let (Some(status), true) = (status, path.starts_with('/')) else {
            return Err(Error::Usage(format!("--route `{spec}` is not PATH:STATUS[:DELAY[:BODY]]")));
        };
        let mut r = Route { status, ..Route::default() };
        if let Some(d) = parts.next().filter(|d| !d.is_empty()) {
            r.delay = mock::parse_delay(d).map_err(|e| Error::Usage(format!("--route `{spec}`: {e}")))?;
        }
        if let Some(b) = parts.next() {
            r.body = b.as_bytes().to_vec();
        }
        config.routes.insert(path.to_string(), r);
    }
    Ok(config)
}

pub(super) async fn execute(a: MockArgs) -> Result<u8, Error> {
    if a.mirror {
        return mirror(&a.listen).await;
    }
    let config = config_from(&a)?;
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
    let shutdown = CancellationToken::new();
    let server = tokio::spawn({
        let (counters, shutdown) = (counters.clone(), shutdown.clone());
        async move { mock::run(listener, &config, shutdown, counters).await }
    });
    stop_and_report(server, shutdown, &counters).await
}

/// `stampede mock --mirror`: JMeter's HTTP Mirror Server, on a loopback address only.
async fn mirror(listen: &str) -> Result<u8, Error> {
    let addr: std::net::SocketAddr = listen
        .parse()
        .map_err(|_| Error::Usage(format!("--listen `{listen}` is not an address (127.0.0.1:PORT or [::1]:PORT)")))?;
    if addr.ip() != std::net::Ipv4Addr::LOCALHOST && addr.ip() != std::net::Ipv6Addr::LOCALHOST {
        return Err(Error::Usage(format!(
            "--mirror listens on 127.0.0.1 or [::1] only, not {}: it echoes what it receives",
            addr.ip()
        )));
    }
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|e| Error::Usage(format!("cannot listen on {listen}: {e}")))?;
    let addr =
        listener.local_addr().map_err(|source| Error::Io { what: format!("cannot listen on {listen}"), source })?;
    eprintln!("stampede mock --mirror listening on http://{addr}/ (JMeter's HTTP Mirror Server); Ctrl-C to stop");
    let counters = Arc::new(Counters::default());
    let shutdown = CancellationToken::new();
    let verbose: mock::mirror::Verbose = Arc::new(|line: &str| println!("{line}"));
    let options = mock::mirror::Options { verbose: Some(verbose), ..Default::default() };
    let server = tokio::spawn({
        let (counters, shutdown) = (counters.clone(), shutdown.clone());
        async move { mock::mirror::run(listener, options, shutdown, counters).await }
    });
    stop_and_report(server, shutdown, &counters).await
}

/// Waits for Ctrl-C/SIGTERM, stops the server and prints what it served.
async fn stop_and_report(
    server: tokio::task::JoinHandle<()>,
    shutdown: CancellationToken,
    counters: &Counters,
) -> Result<u8, Error> {
    super::interrupted().await;
    shutdown.cancel();
    let _ = server.await;
    super::say(&format!(
        "served {} requests on {} connections\n",
        counters.served.load(Ordering::Relaxed),
        counters.connections.load(Ordering::Relaxed)
    ));
    Ok(exit::OK)
}
