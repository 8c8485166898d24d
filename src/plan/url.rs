//! Request URLs: split into a [`Target`] and the path sent, checked when the plan loads; a
//! URL whose host comes from a run-time variable stays a template.

use super::template::{self, Template};
use super::{ErrorKind, Target};

/// Why a URL cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub(crate) struct UrlError(String);

/// Splits an absolute URL, or a path joined to `base`, into a [`Target`] and the path+query
/// sent on the request line.
pub(crate) fn resolve_url(url: &str, base: Option<&str>) -> Result<(Target, String), UrlError> {
    // Messages show the URL as the redaction rule allows (a token in its query is masked);
    // worked out only for a message, as engines resolve URLs from data files per request.
    let shown = || crate::redact::url(url);
    let parsed = match url::Url::parse(url) {
        Ok(u) => u,
        Err(url::ParseError::RelativeUrlWithoutBase) => {
            let base = base.ok_or_else(|| {
                UrlError(format!("`{}` is a relative URL and the plan has no `defaults.base_url`", shown()))
            })?;
            let base = url::Url::parse(base).map_err(|e| UrlError(format!("invalid base_url `{base}`: {e}")))?;
            // Join as a path under the base's path, as users of base URLs expect
            // (base http://h/api + /v1/x → http://h/api/v1/x).
            let joined = format!("{}{}", base.as_str().trim_end_matches('/'), ensure_slash(url));
            url::Url::parse(&joined)
                .map_err(|e| UrlError(format!("invalid URL `{}`: {e}", crate::redact::url(&joined))))?
        }
        Err(e) => return Err(UrlError(format!("invalid URL `{}`: {e}", shown()))),
    };
    if !parsed.username().is_empty() || parsed.password().is_some() {
        return Err(UrlError(format!(
            "`{}` has credentials in it (user:password@); stampede does not send them from a URL: give an Authorization header instead",
            shown()
        )));
    }
    let tls = match parsed.scheme() {
        "http" => false,
        "https" => true,
        other => return Err(UrlError(format!("unsupported scheme `{other}` in `{}` (use http or https)", shown()))),
    };
    let host = parsed
        .host_str()
        .ok_or_else(|| UrlError(format!("URL `{}` has no host", shown())))?
        .trim_start_matches('[')
        .trim_end_matches(']')
        .to_string();
    let port = parsed.port_or_known_default().unwrap_or(if tls { 443 } else { 80 });
    let mut path = parsed.path().to_string();
    if let Some(q) = parsed.query() {
        path.push('?');
        path.push_str(q);
    }
    Ok((Target { tls, host, port }, path))
}

/// Compiles a request URL: its scheme, host and port are fixed now (they may use plan
/// variables, properties and the environment); its path and query stay a template, folded into
/// constant text once the plan is read if nothing assigns their variables while running.
pub(crate) fn compile_url(
    raw: &str,
    base: Option<&str>,
    sym: &mut template::Symbols,
    el: &str,
) -> Result<(Target, Template, Option<Template>), (ErrorKind, String)> {
    if !raw.contains("${") {
        let (target, path) = resolve_url(raw, base).map_err(|m| (ErrorKind::Invalid, m.to_string()))?;
        return Ok((target, Template::literal(path), None));
    }
    let (prefix, rest) = raw.split_at(url_path_start(raw));
    // The scheme, host and port name a server: environment values there are not secrets.
    let kept = sym.secrets.clone();
    // A host taken from a data file or a response (JMeter allows it): the origin is rendered
    // for each request instead.
    let probe = template::compile(prefix, sym, el).map_err(|m| (ErrorKind::Template, m.to_string()))?;
    sym.secrets = kept.clone();
    if !prefix.is_empty() && probe.is_dynamic(&sym.vars) {
        let tls = prefix.trim_start().to_ascii_lowercase().starts_with("https");
        let rest = if rest.starts_with('/') || rest.starts_with('?') { rest.to_string() } else { format!("/{rest}") };
        let path = template::compile(&rest, sym, el).map_err(|m| (ErrorKind::Template, m.to_string()))?;
        let placeholder = Target { tls, host: String::new(), port: 0 };
        return Ok((placeholder, path, Some(probe)));
    }
    let prefix = template::expand(prefix, sym).map_err(|m| {
        (ErrorKind::Template, format!("the scheme, host and port must be known when the plan loads: {m}"))
    })?;
    sym.secrets = kept;
    let start = if prefix.is_empty() { "/" } else { prefix.as_str() };
    let (target, base_path) = resolve_url(start, base)
        .map_err(|m| (ErrorKind::Invalid, m.to_string().replace("`/`", &format!("`{raw}`"))))?;
    let path = if rest.is_empty() {
        base_path
    } else {
        let rest = if rest.starts_with('/') || rest.starts_with('?') { rest.to_string() } else { format!("/{rest}") };
        format!("{}{rest}", base_path.trim_end_matches('/'))
    };
    let path = template::compile(&path, sym, el).map_err(|m| (ErrorKind::Template, m.to_string()))?;
    Ok((target, path, None))
}

/// Where a URL's path starts in its source text: after `scheme://authority`; after a leading
/// `${...}`, which then holds the scheme and host; or at once, for a path.
pub(crate) fn url_path_start(raw: &str) -> usize {
    let b = raw.as_bytes();
    // Byte offsets outside `${...}`, with the byte there.
    let mut top = Vec::new();
    let (mut depth, mut i, mut first_ref_end) = (0usize, 0usize, None);
    while i < b.len() {
        if b[i] == b'$' && b.get(i + 1) == Some(&b'{') {
            depth += 1;
            i += 2;
            continue;
        }
        if b[i] == b'}' && depth > 0 {
            depth -= 1;
            if depth == 0 && first_ref_end.is_none() {
                first_ref_end = Some(i + 1);
            }
        } else if depth == 0 {
            top.push(i);
        }
        i += 1;
    }
    // Byte offsets, never `str` slices: a non-ASCII character puts non-boundaries in `top`.
    if let Some(scheme) = top.iter().position(|&j| b[j..].starts_with(b"://")) {
        let after = top[scheme] + 3;
        return top.iter().find(|&&j| j >= after && (b[j] == b'/' || b[j] == b'?')).copied().unwrap_or(raw.len());
    }
    if raw.starts_with("${") {
        return first_ref_end.unwrap_or(raw.len());
    }
    0
}

fn ensure_slash(p: &str) -> String {
    if p.starts_with('/') || p.starts_with('?') {
        p.to_string()
    } else {
        format!("/{p}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    #[test]
    fn resolve_url_table() {
        let cases = [
            ("http://127.0.0.1:8080/ok", None, (false, "127.0.0.1", 8080, "/ok")),
            ("http://127.0.0.1/a?b=1&c=2", None, (false, "127.0.0.1", 80, "/a?b=1&c=2")),
            ("https://localhost/", None, (true, "localhost", 443, "/")),
            ("http://[::1]:9000", None, (false, "::1", 9000, "/")),
            ("/v1/read", Some("http://127.0.0.1:8080/api"), (false, "127.0.0.1", 8080, "/api/v1/read")),
            ("v1/read?x=1", Some("http://127.0.0.1:8080/"), (false, "127.0.0.1", 8080, "/v1/read?x=1")),
        ];
        for (url, base, (tls, host, port, path)) in cases {
            let (t, p) = resolve_url(url, base).unwrap();
            assert_eq!((t.tls, t.host.as_str(), t.port, p.as_str()), (tls, host, port, path), "{url}");
        }
        assert!(resolve_url("ftp://x/", None).unwrap_err().to_string().contains("unsupported scheme"));
        assert!(resolve_url("/x", None).unwrap_err().to_string().contains("base_url"));
        assert!(resolve_url("http://", None).is_err());
        let e = resolve_url("http://bob:hunter2@127.0.0.1/", None).unwrap_err().to_string();
        assert!(e.contains("Authorization") && !e.contains("hunter2"), "{e}");
    }

    #[test]
    fn environment_values_naming_a_server_are_not_secrets_those_in_the_path_are() {
        let mut sym = template::Symbols { env: Some(HashMap::new()), ..Default::default() };
        let env = sym.env.as_mut().unwrap();
        env.insert("HOST".into(), "localhost".into());
        env.insert("TOKEN".into(), "t0k3n-from-env".into());
        let raw = "http://${__env(HOST)}:8080/x?q=${__env(TOKEN)}";
        let (target, path, _) = compile_url(raw, None, &mut sym, "url").unwrap();
        assert_eq!((target.host.as_str(), path.source()), ("localhost", "/x?q=${__env(TOKEN)}"));
        assert_eq!(sym.secrets.scrub("http://localhost:8080/x?q=t0k3n-from-env"), "http://localhost:8080/x?q=***");
    }
}
