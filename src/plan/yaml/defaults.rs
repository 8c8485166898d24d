//! `defaults:` — what every request has unless it says otherwise, cookies, and TLS.

use super::node::Node;
use super::*;

const DEFAULTS_KEYS: &[&str] = &[
    "base_url",
    "headers",
    "connect_timeout",
    "response_timeout",
    "keep_alive",
    "http_version",
    "max_response_size",
    "follow_redirects",
    "max_redirects",
    "cookies",
    "tls",
    "timing_headers",
];
const TLS_KEYS: &[&str] = &["insecure", "ca", "client_cert", "client_key"];

impl Cx {
    /// Reads `defaults:` into `self.defaults`; returns the TLS options, whether users keep
    /// cookies, and the headers that tell the upstream's time.
    pub(super) fn defaults_doc(
        &mut self,
        n: Option<&Node>,
    ) -> Result<(TlsOptions, bool, timing::TimingHeaders), Error> {
        let empty = Node { pos: Default::default(), value: Value::Null { empty: true }, raw: None };
        let d = self.fields(n.unwrap_or(&empty), "defaults", "DefaultsDoc", DEFAULTS_KEYS)?;
        let mut out = Defaults::default();
        if let Some(v) = d.get("base_url") {
            // An address names a server: environment values in it are not masked as secrets.
            let kept = self.b.sym.secrets.clone();
            let base = self.text(v, "defaults.base_url")?;
            self.b.sym.secrets = kept;
            resolve_url(&base, None).map_err(|m| self.invalid(v, "defaults.base_url", m))?;
            out.base_url = Some(base);
        }
        out.headers = self.headers(d.raw("headers"), "defaults.headers")?;
        if let Some(t) = self.opt_timeout(d.get("connect_timeout"), "defaults.connect_timeout")? {
            out.connect_timeout = t;
        }
        if let Some(t) = self.opt_timeout(d.get("response_timeout"), "defaults.response_timeout")? {
            out.response_timeout = t;
        }
        out.keep_alive = self.opt_bool(d.get("keep_alive"), "defaults.keep_alive", out.keep_alive)?;
        if let Some(v) = d.get("http_version") {
            out.http_version = self.version(v, "defaults.http_version")?;
        }
        if let Some(v) = d.get("max_response_size") {
            out.max_response_size = self.size(v, "defaults.max_response_size")?;
        }
        out.follow_redirects =
            self.opt_bool(d.get("follow_redirects"), "defaults.follow_redirects", out.follow_redirects)?;
        if let Some(v) = d.get("max_redirects") {
            out.max_redirects = self.count(v, "defaults.max_redirects")?;
        }
        self.defaults = out;
        let tls = match d.get("tls") {
            Some(t) => self.tls(t)?,
            None => TlsOptions::default(),
        };
        let cookies = match d.get("cookies") {
            Some(v) => self.bool(v, "defaults.cookies")?,
            None => true,
        };
        let mut sources = Vec::new();
        for (i, v) in self.seq(d.raw("timing_headers"), "defaults.timing_headers")?.iter().enumerate() {
            let el = format!("defaults.timing_headers[{i}]");
            let text = self.string(v, &el)?;
            sources.push(timing::parse_source(&text).map_err(|m| self.invalid(v, &el, m))?);
        }
        Ok((tls, cookies, timing::TimingHeaders::with_plan(sources)))
    }

    fn tls(&mut self, n: &Node) -> Result<TlsOptions, Error> {
        let t = self.fields(n, "defaults.tls", "TlsDoc", TLS_KEYS)?;
        let mut out = TlsOptions {
            insecure: self.opt_bool(t.get("insecure"), "defaults.tls.insecure", false)?,
            ..Default::default()
        };
        for (v, path, pem, el) in [
            (t.get("ca"), &mut out.ca, &mut out.ca_pem, "defaults.tls.ca"),
            (t.get("client_cert"), &mut out.client_cert, &mut out.client_cert_pem, "defaults.tls.client_cert"),
            (t.get("client_key"), &mut out.client_key, &mut out.client_key_pem, "defaults.tls.client_key"),
        ] {
            if let Some(v) = v {
                let (p, bytes) = self.read_file(v, el, "PEM file")?;
                *path = Some(p);
                *pem = Some(bytes);
            }
        }
        if out.client_cert.is_some() != out.client_key.is_some() {
            return Err(Error::new(
                ErrorKind::Missing,
                self.loc(n, "defaults.tls"),
                "mutual TLS needs both `client_cert` and `client_key`",
            ));
        }
        // The engine parses the PEM text when the run starts (`engine::tls`); a file that holds
        // no PEM is a plan error here, before a run directory is made.
        if let Some(ca) = t.get("ca") {
            out.check_ca().map_err(|m| Error::invalid(self.loc(ca, "defaults.tls.ca"), m))?;
        }
        out.check_client_auth().map_err(|m| Error::invalid(self.loc(n, "defaults.tls"), m))?;
        Ok(out)
    }
}
