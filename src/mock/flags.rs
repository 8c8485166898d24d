//! The mock's configuration as `stampede mock`'s flags give it: a YAML file, the default
//! route's status, body, headers and delay over it, and routes `PATH:STATUS[:DELAY[:BODY]]`.

use super::{parse_delay, Config, ConfigDoc, ConfigError, Route};
use std::path::Path;

/// The default route's status and body when no flag names them (`200 OK`).
pub(crate) const STATUS: u16 = 200;
pub(crate) const BODY: &str = "OK";

/// `--mirror`'s `--listen`: a loopback address only, since the mirror echoes what it receives.
pub(crate) fn mirror_address(listen: &str) -> Result<std::net::SocketAddr, String> {
    let addr: std::net::SocketAddr =
        listen.parse().map_err(|_| format!("--listen `{listen}` is not an address (127.0.0.1:PORT or [::1]:PORT)"))?;
    if addr.ip() != std::net::Ipv4Addr::LOCALHOST && addr.ip() != std::net::Ipv6Addr::LOCALHOST {
        return Err(format!(
            "--mirror listens on 127.0.0.1 or [::1] only, not {}: it echoes what it receives",
            addr.ip()
        ));
    }
    Ok(addr)
}

/// The flags, as given.
#[derive(Debug)]
pub(crate) struct Flags<'a> {
    /// `--config FILE`: `default:` and `routes:`, which the flags below then change.
    pub config: Option<&'a Path>,
    pub status: u16,
    pub body: &'a str,
    /// `Name: value` each.
    pub headers: &'a [String],
    pub delay: Option<&'a str>,
    /// `PATH:STATUS[:DELAY[:BODY]]` each.
    pub routes: &'a [String],
}

/// A flag that does not read, named.
#[derive(Debug, thiserror::Error)]
pub(crate) enum FlagError {
    #[error("{}: {source}", path.display())]
    Read { path: std::path::PathBuf, source: std::io::Error },
    #[error("{}: {source}", path.display())]
    Config { path: std::path::PathBuf, source: ConfigError },
    #[error("--header `{0}` is not `Name: value`")]
    Header(String),
    #[error("--delay: {0}")]
    Delay(ConfigError),
    #[error("--route `{0}` is not PATH:STATUS[:DELAY[:BODY]]")]
    Route(String),
    #[error("--route `{spec}`: {source}")]
    RouteDelay { spec: String, source: ConfigError },
}

impl Flags<'_> {
    /// The configuration the flags give: the file's (or the default's), its default route
    /// replaced when there is no file or a flag of the default route is given, each route
    /// added.
    pub(crate) fn config(&self) -> Result<Config, FlagError> {
        let mut config = match self.config {
            Some(p) => {
                let text =
                    std::fs::read_to_string(p).map_err(|source| FlagError::Read { path: p.to_path_buf(), source })?;
                ConfigDoc::parse(&text).map_err(|source| FlagError::Config { path: p.to_path_buf(), source })?
            }
            None => Config::default(),
        };
        let given = self.status != STATUS || self.body != BODY || !self.headers.is_empty() || self.delay.is_some();
        if self.config.is_none() || given {
            config.default = self.default_route()?;
        }
        for spec in self.routes {
            let (path, r) = route(spec)?;
            config.routes.insert(path, r);
        }
        Ok(config)
    }

    fn default_route(&self) -> Result<Route, FlagError> {
        let mut r = Route { status: self.status, body: self.body.as_bytes().to_vec(), ..Route::default() };
        for h in self.headers {
            let (k, v) = h.split_once(':').ok_or_else(|| FlagError::Header(h.clone()))?;
            r.headers.push((k.trim().into(), v.trim().into()));
        }
        if let Some(d) = self.delay {
            r.delay = parse_delay(d).map_err(FlagError::Delay)?;
        }
        Ok(r)
    }
}

/// `PATH:STATUS[:DELAY[:BODY]]`.
fn route(spec: &str) -> Result<(String, Route), FlagError> {
    let mut parts = spec.splitn(4, ':');
    let path = parts.next().unwrap_or_default();
    let status = parts.next().and_then(|s| s.parse().ok());
    let (Some(status), true) = (status, path.starts_with('/')) else {
        return Err(FlagError::Route(spec.to_string()));
    };
    let mut r = Route { status, ..Route::default() };
    if let Some(d) = parts.next().filter(|d| !d.is_empty()) {
        r.delay = parse_delay(d).map_err(|source| FlagError::RouteDelay { spec: spec.to_string(), source })?;
    }
    if let Some(b) = parts.next() {
        r.body = b.as_bytes().to_vec();
    }
    Ok((path.to_string(), r))
}
