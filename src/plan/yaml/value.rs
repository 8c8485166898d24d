//! Scalars: text, templates, durations, sizes, booleans, files named in the plan; each error
//! at the value's line and column.

use super::node::Node;
use super::*;
use crate::plan::template;

impl Cx {
    pub(super) fn raw(&self, v: &Node, el: &str) -> Result<String, Error> {
        v.scalar_text().ok_or_else(|| {
            Error::new(
                ErrorKind::WrongType,
                self.loc(v, el),
                "expected a single value (text or number), not a list or map",
            )
        })
    }

    /// A value needed while loading: expanded now.
    pub(super) fn text(&mut self, v: &Node, el: &str) -> Result<String, Error> {
        let raw = self.raw(v, el)?;
        template::expand(&raw, &mut self.b.sym).map_err(|m| Error::new(ErrorKind::Template, self.loc(v, el), m))
    }

    /// A value rendered per use while the test runs.
    pub(super) fn tmpl(&mut self, v: &Node, el: &str) -> Result<Template, Error> {
        let raw = self.raw(v, el)?;
        self.tmpl_str(&raw, el, v)
    }

    /// A template from text the reader made of `v` (a `json:` body).
    pub(super) fn tmpl_str(&mut self, raw: &str, el: &str, v: &Node) -> Result<Template, Error> {
        self.places.entry(el.to_string()).or_insert(v.pos);
        template::compile(raw, &mut self.b.sym, el).map_err(|m| Error::new(ErrorKind::Template, self.loc(v, el), m))
    }

    pub(super) fn parse<T>(
        &mut self,
        v: &Node,
        el: &str,
        what: &str,
        f: impl Fn(&str) -> Option<T>,
    ) -> Result<T, Error> {
        let t = self.text(v, el)?;
        f(t.trim()).ok_or_else(|| self.invalid(v, el, format!("`{t}` is not {what}")))
    }

    pub(super) fn duration(&mut self, v: &Node, el: &str) -> Result<Duration, Error> {
        self.parse(
            v,
            el,
            "a duration (e.g. 30s, 1m30s, 250ms; a bare number is seconds; at most 365 days)",
            parse_duration,
        )
    }

    pub(super) fn opt_duration(&mut self, v: Option<&Node>, el: &str) -> Result<Option<Duration>, Error> {
        v.map(|v| self.duration(v, el)).transpose()
    }

    /// A workload's run time: above zero (a zero run time still sends: each user starts an
    /// iteration), like `users`.
    pub(super) fn run_time(&mut self, v: &Node, el: &str) -> Result<Duration, Error> {
        match self.duration(v, el)? {
            d if d.is_zero() => Err(self.invalid(v, el, "`duration` must be above zero")),
            d => Ok(d),
        }
    }

    /// A timeout: a duration above zero (a zero timeout would fail every request at once).
    pub(super) fn opt_timeout(&mut self, v: Option<&Node>, el: &str) -> Result<Option<Duration>, Error> {
        match v {
            Some(v) => match self.duration(v, el)? {
                d if d.is_zero() => Err(self.invalid(v, el, "a timeout must be above zero")),
                d => Ok(Some(d)),
            },
            None => Ok(None),
        }
    }

    pub(super) fn count<T: std::str::FromStr>(&mut self, v: &Node, el: &str) -> Result<T, Error> {
        self.parse(v, el, "a whole number", |s| s.parse().ok())
    }

    pub(super) fn rate(&mut self, v: &Node, el: &str) -> Result<f64, Error> {
        let rate = self.parse(v, el, "a rate in iterations per second", |s| {
            s.trim_end_matches("/s").parse::<f64>().ok().filter(|r| r.is_finite() && *r >= 0.0)
        })?;
        match crate::plan::workload::rate_problem(&format!("`{el}`"), rate) {
            Some(problem) => Err(self.invalid(v, el, &problem)),
            None => Ok(rate),
        }
    }

    pub(super) fn bool(&mut self, v: &Node, el: &str) -> Result<bool, Error> {
        self.parse(v, el, "true or false", |s| match s.to_ascii_lowercase().as_str() {
            "true" | "yes" | "on" => Some(true),
            "false" | "no" | "off" => Some(false),
            _ => None,
        })
    }

    pub(super) fn opt_bool(&mut self, v: Option<&Node>, el: &str, default: bool) -> Result<bool, Error> {
        v.map(|v| self.bool(v, el)).transpose().map(|o| o.unwrap_or(default))
    }

    pub(super) fn version(&mut self, v: &Node, el: &str) -> Result<HttpVersion, Error> {
        self.parse(v, el, "an HTTP version (1.1 or 1.0)", |s| match s.trim_start_matches("HTTP/") {
            "1.1" => Some(HttpVersion::Http11),
            "1.0" | "1" => Some(HttpVersion::Http10),
            _ => None,
        })
    }

    pub(super) fn size(&mut self, v: &Node, el: &str) -> Result<u64, Error> {
        self.parse(v, el, "a size (e.g. 10MiB, 512KB, or bytes)", parse_size)
    }

    /// A file named in the plan: relative to the plan's directory. One named inside it may not
    /// lead out of it through a link ([`crate::confine`]). The path is resolved (no link left
    /// in it), to open with [`crate::confine::open`]: the one judged is the one opened.
    pub(super) fn path(&mut self, v: &Node, el: &str) -> Result<PathBuf, Error> {
        let name = self.text(v, el)?;
        crate::confine::PlanDir::of_plan(&self.file)
            .named(Path::new(&name))
            .map_err(|e| self.invalid(v, el, e.to_string()))
    }

    pub(super) fn read_file(&mut self, v: &Node, el: &str, what: &str) -> Result<(PathBuf, Vec<u8>), Error> {
        let p = self.path(v, el)?;
        let read = |p: &Path| -> std::io::Result<Vec<u8>> {
            let mut bytes = Vec::new();
            std::io::Read::read_to_end(&mut crate::confine::open(p, crate::confine::Access::Read)?, &mut bytes)?;
            Ok(bytes)
        };
        let bytes = read(&p).map_err(|e| {
            Error::new(ErrorKind::Io, self.loc(v, el), format!("cannot read {what} {}: {e}", p.display()))
        })?;
        Ok((p, bytes))
    }
}

/// The longest duration a plan may give (a year): longer is certainly a typo, and keeping
/// every deadline within it means adding one to a clock reading cannot overflow.
pub(crate) const MAX_DURATION: Duration = Duration::from_secs(365 * 24 * 3600);

/// "30s", "1m30s", "250ms", "1.5" (seconds), "90" (seconds); at most [`MAX_DURATION`].
pub(crate) fn parse_duration(s: &str) -> Option<Duration> {
    let d = match s.parse::<f64>() {
        Ok(secs) if secs >= 0.0 => Duration::try_from_secs_f64(secs).ok()?,
        Ok(_) => return None,
        Err(_) => humantime::parse_duration(s).ok()?,
    };
    (d <= MAX_DURATION).then_some(d)
}

/// "10MiB", "512KB", "1GB", "1000" (bytes). KB/MB/GB are read as binary multiples, as most
/// users mean them for buffer limits.
pub(crate) fn parse_size(s: &str) -> Option<u64> {
    let s = s.trim();
    let split = s.find(|c: char| !c.is_ascii_digit() && c != '.').unwrap_or(s.len());
    let (num, unit) = s.split_at(split);
    let n: f64 = num.parse().ok()?;
    let mult = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1u64,
        "k" | "kb" | "kib" => 1 << 10,
        "m" | "mb" | "mib" => 1 << 20,
        "g" | "gb" | "gib" => 1 << 30,
        _ => return None,
    };
    Some((n * mult as f64) as u64)
}
