//! Script elements in a plan (JMeter's JSR223, BeanShell and BSF samplers, pre-processors,
//! post-processors, assertions, timers and listeners): the script, compiled once when the plan
//! loads, and what the element is. The engine runs them (`engine::script`) with JMeter's
//! semantics for each place.

use super::after::After;
use super::http::CheckId;
use crate::plan::template::{Scope, Template};
use crate::plan::LabelId;
use crate::script::{CompileError, Lang, Script};
use serde::{Serialize, Serializer};
use std::sync::{Arc, RwLock};

/// Where a script runs, which decides what it sees and what its result means.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Place {
    /// Makes a sample: its return value is the response data.
    Sampler,
    /// Runs before its sampler; what it changes on `sampler` is sent.
    Pre,
    /// Runs after its sampler, before assertions: sees `prev` and may change it.
    Post,
    /// Fails the sample with its message.
    Assertion,
    /// Returns the delay before its sampler, in ms.
    Timer,
    /// Sees each sample in its scope; changes nothing recorded.
    Listener,
}

/// The text of a script: compiled once, or (when it holds `${...}`, which JMeter replaces
/// before each execution) compiled per distinct rendered text.
#[derive(Debug)]
pub(crate) enum Code {
    Fixed(Script),
    Rendered {
        text: Template,
        /// Rendered texts seen so far, compiled (or why not); a few, the first ones kept.
        cache: RwLock<Vec<Compiled>>,
        /// A JSR223 element with "Cache compiled script": the key of the user's side table
        /// entry (`UserVars::first_scripts`, outside its variables: JMeter has no such
        /// variable) holding the text its first run rendered, compiled, which every later run of
        /// that user runs again. JMeter keys its compiled-script cache by the MD5 of the text,
        /// computed once per element of each thread (`JSR223TestElement.computeScriptMD5`), so
        /// each thread keeps its first rendering (bench/jmeter/plans/files-cache.jmx). `None`:
        /// rendered on each run.
        first: Option<u32>,
    },
}

/// A rendered text and what compiling it gave.
pub(crate) type Compiled = (Arc<str>, Result<Script, CompileError>);

/// How many distinct renderings of one script are kept compiled for all users.
const CACHE: usize = 16;

/// A key for a new element's first renderings, distinct from every other's in the process.
pub(crate) fn first_key() -> u32 {
    static NEXT: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
    NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}

impl Code {
    /// The script to run now when the user keeps no first rendering of it: the fixed one, or
    /// the rendering of the text compiled.
    pub(crate) fn script<S: Scope + ?Sized>(&self, lang: Lang, scope: &mut S) -> Result<Script, CompileError> {
        match self {
            Code::Fixed(s) => Ok(s.clone()),
            Code::Rendered { .. } => self.render(lang, scope).1,
        }
    }

    /// The key of the first rendering each user keeps, if it keeps one.
    pub(crate) fn first(&self) -> Option<u32> {
        match self {
            Code::Rendered { first, .. } => *first,
            Code::Fixed(_) => None,
        }
    }

    /// The text rendered now and compiled (a fixed script: its empty text and the script).
    pub(crate) fn render<S: Scope + ?Sized>(&self, lang: Lang, scope: &mut S) -> Compiled {
        let (text, cache) = match self {
            Code::Fixed(s) => return (Arc::from(""), Ok(s.clone())),
            Code::Rendered { text, cache, .. } => (text, cache),
        };
        let src = text.render_string(scope);
        let seen = cache
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .iter()
            .find(|(t, _)| **t == *src)
            .map(|(t, r)| (t.clone(), r.clone()));
        if let Some(c) = seen {
            return c;
        }
        let r = Script::compile(&src, lang);
        let src: Arc<str> = src.into();
        let mut c = cache.write().unwrap_or_else(|e| e.into_inner());
        if c.len() < CACHE {
            c.push((src.clone(), r.clone()));
        }
        (src, r)
    }
}

/// A script element of a plan.
#[derive(Debug)]
pub(crate) struct ScriptEl {
    pub place: Place,
    /// The JMeter class (`JSR223PostProcessor`), for messages.
    pub class: String,
    /// The element's name: `Label`, the sample's label, the logger's name.
    pub name: String,
    pub lang: Lang,
    pub code: Code,
    /// `FileName`: the script file as named in the plan ("" for an inline script).
    pub file_name: String,
    /// `Parameters` (`args` split on whitespace).
    pub parameters: Template,
    /// A BeanShell element: its sampler and assertion read and write the globals
    /// `ResponseCode`, `IsSuccess`, `Failure`, `FailureMessage`, ...
    pub bean_shell: bool,
    /// Failure messages the script names as literals (an assertion's), each counted apart;
    /// another message counts as `failure`.
    pub messages: Vec<(String, CheckId)>,
    /// The message a failure is counted under when it is not one of `messages`.
    pub failure: CheckId,
    /// Files the script names as literals (resolved against the plan's directory): it may
    /// append to them and write them.
    pub writes: Vec<std::path::PathBuf>,
    /// The `-J` properties the plan was read with: what `props` holds when the run starts.
    pub properties: Arc<std::collections::HashMap<String, String>>,
    /// How many of its scope's extractors (a post-processor) or checks (an assertion) come
    /// before it in the tree: JMeter runs post-processors, then assertions, each in tree order.
    pub follows: usize,
}

impl ScriptEl {
    /// The check a failure message counts as.
    pub(crate) fn check_for(&self, message: &str) -> CheckId {
        self.messages.iter().find(|(m, _)| m == message).map_or(self.failure, |(_, id)| *id)
    }

    /// The check an exception's message counts as: one the script names that it starts with
    /// (Groovy's `assert c : "msg"` throws `msg. Expression: c`), else `failure`.
    pub(crate) fn check_for_thrown(&self, message: &str) -> CheckId {
        self.messages.iter().find(|(m, _)| message.starts_with(m.as_str())).map_or(self.failure, |(_, id)| *id)
    }
}

/// A script element as a plan holds it: shared by every user (the compiled script is too).
#[derive(Debug, Clone)]
pub(crate) struct ScriptRef(pub Arc<ScriptEl>);

impl PartialEq for ScriptRef {
    fn eq(&self, other: &ScriptRef) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

/// Serialises as the element's class and name (the text may hold secrets).
impl Serialize for ScriptRef {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&format!("{} \"{}\"", self.0.class, self.0.name))
    }
}

/// A script pre-processor or timer, run before the sampler that follows it (not a sample).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct ScriptStep {
    pub script: ScriptRef,
    /// The sampler a pre-processor runs before: what `sampler` answers.
    #[serde(skip)]
    pub sampler: Option<SamplerInfo>,
}

/// A script sampler's sample (JSR223 and BeanShell Samplers): the script makes the result.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct ScriptSample {
    pub script: ScriptRef,
    pub label: LabelId,
    #[serde(flatten)]
    pub after: After,
}

/// What a pre-processor's `sampler` knows of the sampler it runs before.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct SamplerInfo {
    pub name: String,
    /// An HTTP request: protocol, domain, port, path and method as written in the plan.
    pub http: Option<HttpInfo>,
}

#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct HttpInfo {
    pub protocol: String,
    pub domain: String,
    pub port: u16,
    pub path: String,
    pub method: String,
    pub args: Vec<(String, String)>,
}

/// Whether a script sets variables by names it computes (`vars.put(name, ...)`,
/// `vars.put("a_" + i, ...)`, `vars.putAll(map)`): which ones, nobody knows before it runs.
/// (The names it sets as literals: `script_host::assigned_variables`.)
pub(crate) fn sets_computed_names(source: &str) -> bool {
    static PUT: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    let put = PUT.get_or_init(|| {
        regex::Regex::new(r#"vars\s*\.\s*put(?:Object)?\s*\(\s*(?:"[^"\\$]*"\s*,|'[^'\\]*'\s*,|())"#)
            .expect("a valid regex")
    });
    put.captures_iter(source).any(|c| c.get(1).is_some()) || source.contains("vars.putAll")
}

/// Failure messages a script names as string literals: `setFailureMessage("...")`,
/// `FailureMessage = "..."`, `assert ... : "..."`, `fail("...")`.
pub(crate) fn literal_messages(source: &str) -> Vec<String> {
    static MSG: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    let re = MSG.get_or_init(|| {
        regex::Regex::new(r#"(?:setFailureMessage\s*\(|FailureMessage\s*=|failureMessage\s*=|:)\s*(?:"([^"\\$]*)"|'([^'\\]*)')\s*(?:[;)\n]|$)"#)
            .expect("a valid regex")
    });
    let mut out: Vec<String> = Vec::new();
    for c in re.captures_iter(source) {
        if let Some(m) = c.get(1).or(c.get(2)) {
            if !m.as_str().is_empty() && !out.iter().any(|o| o == m.as_str()) {
                out.push(m.as_str().to_string());
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_computed_at_run_time_are_seen() {
        assert!(!sets_computed_names("vars.put(\"token\", t)\nvars.putObject('obj', m);"));
        assert!(sets_computed_names("vars.put(name, v)"));
        assert!(sets_computed_names("vars.put(\"a_\" + i, v)"), "a name made at run time");
        assert!(sets_computed_names("vars.putAll(m)"));
    }

    #[test]
    fn literal_failure_messages_are_found() {
        let src = "if (x) { AssertionResult.setFailureMessage(\"no token\"); }\nFailureMessage = 'bad code';\nassert a == b : \"differs\"\n";
        assert_eq!(literal_messages(src), ["no token", "bad code", "differs"]);
        assert_eq!(literal_messages("assert a : 'at the end'"), ["at the end"]);
    }
}
