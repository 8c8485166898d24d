//! JMeter's Access Log Sampler: an HTTP request (JMeter's old `HTTPSampler`, so the Java
//! implementation) whose path, method and arguments each sample takes from the next entry of
//! a log; see [`crate::plan::accesslog`].

use super::http::non_http;
use super::*;
use crate::plan::accesslog::{log_text, parse_log, AccessLog, Source, MAX_LOG_BYTES};
use crate::plan::sampler::Sampler;
use std::sync::Arc;

const PACKAGE: &str = "org.apache.jmeter.protocol.http.util.accesslog.";

impl Cx {
    pub(super) fn access_log_sampler(&mut self, c: &El, scope: &Scope, depth: usize) -> Result<Vec<Step>, Error> {
        let parser = c.text_or_empty("parserClassName").trim().to_string();
        let filter = c.text_or_empty("filterClassName").trim().to_string();
        let shared = match parser.strip_prefix(PACKAGE).unwrap_or(&parser) {
            "" => None,
            "TCLogParser" => Some(false),
            "SharedTCLogParser" | "OrderPreservingLogParser" => Some(true),
            _ => {
                self.unsupported(
                    c,
                    depth,
                    &format!("the log parser class `{parser}` is user code stampede cannot run"),
                );
                return Ok(Vec::new());
            }
        };
        let filtered = match filter.strip_prefix(PACKAGE).unwrap_or(&filter) {
            "" => false,
            // The sampler gives its filter no patterns: `LogFilter` keeps every line; only its
            // presence counts (the end of the log starts it again).
            "LogFilter" => true,
            _ => {
                let why = format!("the log filter class `{filter}` is not run by stampede (only LogFilter is)");
                self.unsupported(c, depth, &why);
                return Ok(Vec::new());
            }
        };
        let mut notes = Vec::new();
        let file = self.expand(c, c.text_or_empty("logFile"))?;
        let source = match shared {
            // `instantiateParser`: no parser without a class and a file; each sample fails.
            Some(shared) if !file.trim().is_empty() => self.access_log_source(c, depth, &file, shared, &mut notes)?,
            _ => {
                let why = non_http("org.apache.jorphan.util.JMeterException", "No Parser available");
                self.warn(c, depth, format!("no log file or parser: each sample fails unsent, as in JMeter ({why})"));
                Source::Fails(self.b.check(why))
            }
        };
        let shared = shared.unwrap_or(false);
        // A shared parser's position is JMeter's FileServer's, one per file name for the run.
        let slot = match shared {
            true => match self.access_logs.iter().find(|(f, _)| *f == file) {
                Some((_, slot)) => *slot,
                None => {
                    let slot = self.b.slot(Slot::Counter);
                    self.access_logs.push((file.clone(), slot));
                    slot
                }
            },
            false => self.b.slot(Slot::Counter),
        };

        let own = self.scope_of(&c.children, scope, depth + 1)?;
        // The bean's server, port and protocol are set on the sampler as each sample starts,
        // over what HTTP Request Defaults merged in (an empty one too); the defaults'
        // arguments, timeouts and embedded-resource filters stay.
        let mut sub = own.clone();
        sub.http.domain.clear();
        sub.http.port.clear();
        sub.http.protocol.clear();
        let mut el = c.clone();
        el.props.clear();
        let props = [
            ("HTTPSampler.domain", c.text_or_empty("domain")),
            ("HTTPSampler.port", c.text_or_empty("portString")),
            ("HTTPSampler.protocol", c.text_or_empty("protocol")),
            ("HTTPSampler.path", "/"),
            ("HTTPSampler.method", "GET"),
            // `HTTPSampler` (the class it extends) sends with Java's HttpURLConnection, and its
            // flags are off unless set: no keep-alive, no redirects followed.
            ("HTTPSampler.implementation", "Java"),
            ("HTTPSampler.use_keepalive", "false"),
            ("HTTPSampler.follow_redirects", "false"),
            ("HTTPSampler.auto_redirects", "false"),
            ("HTTPSampler.image_parser", if c.flag("imageParsing") == Some(true) { "true" } else { "false" }),
        ];
        for (name, value) in props {
            el.props.push(Prop { name: name.into(), value: Value::Text(value.into()) });
        }
        let mut req = self.http_request(&el, &sub)?;
        req.after.scripts = own.scripts.clone();
        if let Some(e) = self.embedded(&el, &sub, depth)? {
            req.embedded = Some(Box::new(e));
            notes.push("with each page's embedded resources".into());
        }
        // The sample is named by its URL, rendered from a variable the step sets; under a
        // label of its own, so that another sampler of the same name keeps its name.
        req.label = self.b.label(&format!("{} (access log)", c.name));
        let url_name = format!("stampede.accesslog.{}", req.label.index());
        let url_var = self.b.sym.vars.assign(&url_name);
        let label_t = self.tmpl(c, &format!("${{{url_name}}}"))?;
        self.b.run_time_label(req.label, label_t);
        let unlabelled = self.b.label("");
        let no_entries = self.b.check(non_http("java.lang.Error", "No entries found"));
        req.access_log =
            Some(Box::new(AccessLog { source, shared, filter: filtered, slot, url_var, unlabelled, no_entries }));

        let end = match (shared, filtered) {
            (true, _) => "one position for all threads, the log starting again at its end",
            (false, false) => {
                "each thread reads the log from its start; past its end a failed sample and the thread stops"
            }
            (false, true) => {
                "each thread reads the log from its start; past its end a failed sample, the thread's cookies cleared, \
                 and the log again"
            }
        };
        // A log that gives no entry was reported with its warning: each sample fails.
        if let Some(AccessLog { source: Source::Entries(_), .. }) = req.access_log.as_deref() {
            notes.insert(0, format!("each sample the log's next entry (method, path, query as written), {end}"));
            notes.push("labelled by its URL".into());
            self.report(c, depth, Status::Supported, notes.join("; "));
        }
        let mut steps = own.pre.clone();
        steps.extend(super::script::for_sampler(&own.before, &req, &c.name));
        steps.extend(own.timers.iter().map(|t| Step::Think(*t)));
        steps.push(Step::Sample(Sampler::Http(Box::new(req))));
        steps.extend(own.after.iter().cloned());
        Ok(steps)
    }

    /// The entries of the log file, read now. A relative name is the plan directory's (JMeter
    /// opens it from its working directory); a link out of it is refused, as for every file a
    /// plan reads. A file that cannot be read makes samples that fail, as in JMeter.
    fn access_log_source(
        &mut self,
        c: &El,
        depth: usize,
        file: &str,
        shared: bool,
        notes: &mut Vec<String>,
    ) -> Result<Source, Error> {
        let real = crate::confine::PlanDir::of_plan(&self.file)
            .named(Path::new(file.trim()))
            .map_err(|e| self.err(c, format!("the log file cannot be read: {e}")))?;
        if std::fs::symlink_metadata(&real).is_ok_and(|m| !m.is_file() && !m.is_dir()) {
            return Err(self.err(c, format!("the log file {} is not a regular file", real.display())));
        }
        let read = crate::confine::open(&real, crate::confine::Access::Read).and_then(|f| {
            let mut bytes = Vec::new();
            std::io::Read::read_to_end(&mut std::io::Read::take(f, MAX_LOG_BYTES + 1), &mut bytes)?;
            crate::plan::accesslog::too_big(bytes.len())?;
            log_text(&bytes, !shared)
        });
        match read {
            Ok(text) => {
                let entries = parse_log(&text);
                notes.push(format!("{} entries in {}", entries.len(), real.display()));
                Ok(Source::Entries(Arc::from(entries)))
            }
            Err(e) => {
                let why = non_http("java.lang.Error", "Problem parsing the log file");
                self.warn(
                    c,
                    depth,
                    format!("{} cannot be read ({e}): each sample fails unsent, as in JMeter ({why})", real.display()),
                );
                Ok(Source::Fails(self.b.check(why)))
            }
        }
    }
}
