//! [`PreparedRequest`]: a [`RequestSpec`] rendered to the exact bytes sent on the wire, once per
//! plan, so sending it is one write.

use crate::plan::{HttpVersion, LabelId, RequestSpec, Target};
use std::time::Duration;

#[derive(Debug, Clone)]
pub struct PreparedRequest {
    pub label: LabelId,
    pub target: Target,
    /// Request line, headers and body.
    pub bytes: Vec<u8>,
    pub keep_alive: bool,
    pub is_head: bool,
    pub connect_timeout: Duration,
    pub response_timeout: Duration,
    pub max_response_size: u64,
}

pub const USER_AGENT: &str = concat!("stampede/", env!("CARGO_PKG_VERSION"));

impl PreparedRequest {
    pub fn new(spec: &RequestSpec) -> PreparedRequest {
        let mut head = String::with_capacity(256);
        head.push_str(&spec.method);
        head.push(' ');
        head.push_str(&spec.path);
        head.push(' ');
        head.push_str(spec.http_version.as_str());
        head.push_str("\r\n");
        let has = |name: &str| spec.headers.iter().any(|(k, _)| k.eq_ignore_ascii_case(name));
        if !has("host") {
            head.push_str("Host: ");
            head.push_str(&spec.target.authority());
            head.push_str("\r\n");
        }
        if !has("user-agent") {
            head.push_str("User-Agent: ");
            head.push_str(USER_AGENT);
            head.push_str("\r\n");
        }
        for (k, v) in &spec.headers {
            if k.eq_ignore_ascii_case("content-length") || k.eq_ignore_ascii_case("connection") {
                continue; // stampede frames the body and manages the connection itself
            }
            head.push_str(k);
            head.push_str(": ");
            head.push_str(v);
            head.push_str("\r\n");
        }
        match (spec.http_version, spec.keep_alive) {
            (HttpVersion::Http11, false) => head.push_str("Connection: close\r\n"),
            (HttpVersion::Http10, true) => head.push_str("Connection: keep-alive\r\n"),
            _ => {}
        }
        let body = spec.body.as_deref().unwrap_or_default();
        // Methods that carry a body announce its length even when it is empty, as browsers do.
        if !body.is_empty() || matches!(spec.method.as_str(), "POST" | "PUT" | "PATCH") {
            head.push_str("Content-Length: ");
            head.push_str(&body.len().to_string());
            head.push_str("\r\n");
        }
        head.push_str("\r\n");
        let mut bytes = head.into_bytes();
        bytes.extend_from_slice(body);
        PreparedRequest {
            label: spec.label,
            target: spec.target.clone(),
            bytes,
            keep_alive: spec.keep_alive,
            is_head: spec.is_head(),
            connect_timeout: spec.connect_timeout,
            response_timeout: spec.response_timeout,
            max_response_size: spec.max_response_size,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec() -> RequestSpec {
        RequestSpec {
            label: LabelId(0),
            method: "POST".into(),
            target: Target { tls: false, host: "127.0.0.1".into(), port: 8080 },
            path: "/a?b=1".into(),
            headers: vec![("X-Channel-Id".into(), "in.ekstep".into())],
            body: Some(b"{}".to_vec()),
            keep_alive: true,
            http_version: HttpVersion::Http11,
            connect_timeout: Duration::from_secs(1),
            response_timeout: Duration::from_secs(1),
            max_response_size: 1 << 20,
        }
    }

    #[test]
    fn renders_exact_bytes() {
        let r = PreparedRequest::new(&spec());
        let want = format!("POST /a?b=1 HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nUser-Agent: {USER_AGENT}\r\nX-Channel-Id: in.ekstep\r\nContent-Length: 2\r\n\r\n{{}}");
        assert_eq!(String::from_utf8(r.bytes).unwrap(), want);
    }

    #[test]
    fn connection_header_follows_version_and_keep_alive() {
        let mut s = spec();
        s.keep_alive = false;
        assert!(String::from_utf8(PreparedRequest::new(&s).bytes).unwrap().contains("Connection: close\r\n"));
        s.http_version = HttpVersion::Http10;
        let text = String::from_utf8(PreparedRequest::new(&s).bytes).unwrap();
        assert!(text.starts_with("POST /a?b=1 HTTP/1.0\r\n") && !text.contains("Connection:"));
        s.keep_alive = true;
        assert!(String::from_utf8(PreparedRequest::new(&s).bytes).unwrap().contains("Connection: keep-alive\r\n"));
    }
}
