//! One HTTP request of a flow, fully resolved at load time: target, method, path, headers and
//! body bytes, plus the connection settings that apply to it.

use super::LabelId;
use serde::{Serialize, Serializer};
use std::time::Duration;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum HttpVersion {
    #[serde(rename = "1.0")]
    Http10,
    #[serde(rename = "1.1")]
    Http11,
}

impl HttpVersion {
    pub fn as_str(self) -> &'static str {
        match self {
            HttpVersion::Http10 => "HTTP/1.0",
            HttpVersion::Http11 => "HTTP/1.1",
        }
    }
}

/// Where a request goes. Two requests with equal targets may share a user's connection.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
pub struct Target {
    pub tls: bool,
    pub host: String,
    pub port: u16,
}

impl Target {
    /// The `Host` header value: the port is left out when it is the scheme's default.
    pub fn authority(&self) -> String {
        let host = if self.host.contains(':') { format!("[{}]", self.host) } else { self.host.clone() };
        let default_port = if self.tls { 443 } else { 80 };
        if self.port == default_port {
            host
        } else {
            format!("{host}:{}", self.port)
        }
    }

    pub fn scheme(&self) -> &'static str {
        if self.tls {
            "https"
        } else {
            "http"
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RequestSpec {
    pub label: LabelId,
    pub method: String,
    pub target: Target,
    /// Path and query, percent-encoded, as sent on the request line.
    pub path: String,
    #[serde(serialize_with = "redacted_headers")]
    pub headers: Vec<(String, String)>,
    /// Body bytes as sent (already gzipped when the plan asked for it).
    #[serde(serialize_with = "body_summary")]
    pub body: Option<Vec<u8>>,
    pub keep_alive: bool,
    pub http_version: HttpVersion,
    #[serde(with = "super::serde_duration")]
    pub connect_timeout: Duration,
    #[serde(with = "super::serde_duration")]
    pub response_timeout: Duration,
    /// Responses larger than this (headers + body) fail with `too_large`.
    pub max_response_size: u64,
}

impl RequestSpec {
    pub fn url(&self) -> String {
        format!("{}://{}{}", self.target.scheme(), self.target.authority(), self.path)
    }

    /// HEAD responses carry no body whatever their headers say.
    pub fn is_head(&self) -> bool {
        self.method == "HEAD"
    }
}

/// Header names whose values are secrets: they never reach a report, a log or a run directory.
pub fn is_secret_header(name: &str) -> bool {
    let n = name.to_ascii_lowercase();
    n == "authorization"
        || n == "proxy-authorization"
        || n == "cookie"
        || n == "set-cookie"
        || ["token", "secret", "password", "passwd", "api-key", "apikey", "x-api-key", "session"]
            .iter()
            .any(|s| n.contains(s))
}

/// Replaces secret header values with `***`.
pub fn redact_header(name: &str, value: &str) -> String {
    if is_secret_header(name) {
        "***".to_string()
    } else {
        value.to_string()
    }
}

fn redacted_headers<S: Serializer>(h: &[(String, String)], s: S) -> Result<S::Ok, S::Error> {
    use serde::ser::SerializeMap;
    let mut map = s.serialize_map(Some(h.len()))?;
    for (k, v) in h {
        map.serialize_entry(k, &redact_header(k, v))?;
    }
    map.end()
}

fn body_summary<S: Serializer>(b: &Option<Vec<u8>>, s: S) -> Result<S::Ok, S::Error> {
    match b {
        None => s.serialize_none(),
        Some(b) => s.serialize_str(&format!("<{} bytes>", b.len())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn authority_omits_default_ports() {
        let t = |tls, host: &str, port| Target { tls, host: host.into(), port }.authority();
        assert_eq!(t(false, "127.0.0.1", 80), "127.0.0.1");
        assert_eq!(t(false, "127.0.0.1", 8080), "127.0.0.1:8080");
        assert_eq!(t(true, "localhost", 443), "localhost");
        assert_eq!(t(false, "::1", 8080), "[::1]:8080");
    }

    #[test]
    fn secrets_are_recognised() {
        for h in ["Authorization", "x-authenticated-user-token", "X-Api-Key", "Cookie", "password"] {
            assert!(is_secret_header(h), "{h}");
        }
        for h in ["Accept", "Content-Type", "X-Channel-Id"] {
            assert!(!is_secret_header(h), "{h}");
        }
    }
}
