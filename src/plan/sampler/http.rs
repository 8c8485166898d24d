//! One HTTP request of a flow, fully resolved at load time: target, method, path, headers and
//! body bytes, plus the connection settings that apply to it.

use super::after::After;
use crate::plan::compare::CmpOp;
pub(crate) use crate::plan::jregex::Pattern;
pub(crate) use crate::plan::jsonpath::JsonPathExpr;
pub(crate) use crate::plan::markup::{CssExpr, XPathExpr};
use crate::plan::template::{Template, VarId};
use crate::plan::LabelId;
use serde::{Serialize, Serializer};
use std::time::Duration;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub(crate) enum HttpVersion {
    #[serde(rename = "1.0")]
    Http10,
    #[serde(rename = "1.1")]
    Http11,
}

impl HttpVersion {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            HttpVersion::Http10 => "HTTP/1.0",
            HttpVersion::Http11 => "HTTP/1.1",
        }
    }
}

/// Where a request goes. Two requests with equal targets may share a user's connection.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
pub(crate) struct Target {
    pub tls: bool,
    pub host: String,
    pub port: u16,
}

impl Target {
    /// The `Host` header value: the port is left out when it is the scheme's default.
    pub(crate) fn authority(&self) -> String {
        let host = if self.host.contains(':') { format!("[{}]", self.host) } else { self.host.clone() };
        let default_port = if self.tls { 443 } else { 80 };
        if self.port == default_port {
            host
        } else {
            format!("{host}:{}", self.port)
        }
    }

    pub(crate) fn scheme(&self) -> &'static str {
        if self.tls {
            "https"
        } else {
            "http"
        }
    }
}

/// Which embedded resources a page's sample fetches: those whose whole URL matches `allow`
/// (any when none) and not `exclude` (JMeter's `embedded_url_re`, `embedded_url_exclude_re`).
#[derive(Debug, Clone)]
pub(crate) struct Embedded {
    pub allow: Option<regex::Regex>,
    pub exclude: Option<regex::Regex>,
}

impl PartialEq for Embedded {
    fn eq(&self, o: &Self) -> bool {
        let p = |r: &Option<regex::Regex>| r.as_ref().map(|r| r.as_str().to_string());
        p(&self.allow) == p(&o.allow) && p(&self.exclude) == p(&o.exclude)
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct RequestSpec {
    pub label: LabelId,
    pub method: String,
    /// Where the request goes; a placeholder when `origin` is set.
    pub target: Target,
    /// `scheme://host:port` as a template, when it uses run-time variables (a host read from a
    /// data file): rendered for each send, and the target taken from it.
    #[serde(serialize_with = "redacted_origin")]
    pub origin: Option<Template>,
    /// Path and query as sent on the request line; literal parts are percent-encoded already,
    /// values of variables are encoded when rendered.
    #[serde(serialize_with = "redacted_url")]
    pub path: Template,
    /// Query parameters added to `path` (names and values form-encoded when rendered).
    #[serde(serialize_with = "form_summary")]
    pub query: Vec<Param>,
    #[serde(serialize_with = "redacted_headers")]
    pub headers: Vec<(String, Template)>,
    pub body: Body,
    /// Compress the body with gzip (and say so in `Content-Encoding`).
    pub gzip: bool,
    pub keep_alive: bool,
    /// Say `Connection: keep-alive` on an HTTP/1.1 request that keeps its connection too, as
    /// JMeter's HTTP samplers do (HTTP/1.1 means it without saying; JMeter's "request headers"
    /// show the line, and assertions read it there).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub say_keep_alive: bool,
    pub http_version: HttpVersion,
    #[serde(with = "crate::plan::serde_duration")]
    pub connect_timeout: Duration,
    #[serde(with = "crate::plan::serde_duration")]
    pub response_timeout: Duration,
    /// The response timeout is a JMX Sample Timeout's: a sample that reaches it is interrupted
    /// and recorded as JMeter records it.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub sample_timeout: bool,
    /// Responses larger than this (headers + body) fail with `too_large`.
    pub max_response_size: u64,
    /// Follow 3xx redirects; the chain is one sample, each hop also a sample `label-N`.
    pub follow_redirects: bool,
    /// Labels of the hops of a followed chain: `label-0`, `label-1`, ... (empty when not
    /// following). Their number is the most redirects followed, plus one.
    #[serde(skip)]
    pub hop_labels: Vec<LabelId>,
    /// Extractors, checks, scripts and the failure policy (of the whole chain when it
    /// follows redirects).
    #[serde(flatten)]
    pub after: After,
    /// The check that fails when a followed chain has more redirects than `hop_labels` allow.
    #[serde(skip)]
    pub too_many_redirects: Option<CheckId>,
    /// JMeter's "Retrieve All Embedded Resources": after a successful HTML or CSS response,
    /// a GET of each resource it names, sub-results of this sample (`engine::embedded`).
    #[serde(skip)]
    pub embedded: Option<Box<Embedded>>,
    /// An Access Log Sampler's request: each sample sends the log's next entry in place of
    /// its path, method and arguments (`engine::sampler::accesslog`).
    #[serde(skip)]
    pub access_log: Option<Box<crate::plan::accesslog::AccessLog>>,
    /// A request JMeter loads but cannot send (a method it does not know, an upload file it
    /// cannot read, no server name): each sample fails unsent with this check, whose message
    /// is JMeter's non-HTTP code and message ([`non_http`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fault: Option<CheckId>,
    /// The fault fails the sample once the request is sent, whatever the response: JMeter's
    /// HttpClient sends the head of a file body it then cannot open (`Content-Length: 0`).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub fault_after_head: bool,
    /// JMeter's rule for the URL of each sample: the path's spaces sent as `%20`, and a URL
    /// `java.net.URI` refuses (a `{`, `|` or `<` in the path, a bad `%` escape) fails the
    /// sample unsent with `java.net.URISyntaxException` (`plan::java_uri`). Without it,
    /// such characters are percent-encoded and sent.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub java_uri: bool,
    /// Runs of `/` in the path are sent as one (`//a//b` as `/a/b`), as JMeter's HttpClient 4
    /// sends them (its URI normalisation); the Java implementation sends them as they are.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub collapse_slashes: bool,
    /// A status >= 400 is not a failure by itself; the checks decide (JMeter's Response
    /// Assertion "Ignore Status"). A `status` check implies it.
    pub ignore_status: bool,
    /// JMeter's HTTP Cache, Authorization and DNS Cache Managers in the request's scope.
    #[serde(skip)]
    pub managers: crate::plan::managers::Managers,
    /// Parameters whose values a RegEx User Parameters pre-processor in scope replaces, in
    /// scope order (a later one wins).
    #[serde(skip)]
    pub param_overrides: Vec<ParamOverride>,
    /// HTTP URL Re-writing Modifiers in scope, outer first.
    #[serde(skip)]
    pub url_rewrites: Vec<UrlRewrite>,
}

/// JMeter's HTTP URL Re-writing Modifier: the session id found in the previous sample's
/// response (by an extractor every request of the thread group carries) is sent as the
/// parameter `name` (replacing one of that name, at the end) or as the path extension
/// `;name=value` (`;namevalue` with `no_equals`).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct UrlRewrite {
    pub name: String,
    pub path_extension: bool,
    pub no_equals: bool,
    /// Sent as found; otherwise URL-decoded first (JMeter's `HTTPArgument` "already encoded").
    pub encode: bool,
    /// What the previous response gave ("" when nothing); [`UrlRewrite::NO_PREVIOUS`] before
    /// the user's first sample, when JMeter changes nothing.
    pub found: VarId,
    /// The last value found, used when the previous response gave none ("Cache value").
    pub saved: Option<VarId>,
}

impl UrlRewrite {
    pub(crate) const NO_PREVIOUS: &'static str = "\u{0}";
}

/// JMeter's RegEx User Parameters: when the regular expression extractor `ref` (match number
/// -1) found its matches, each query or form parameter named as group `names` of a match is
/// sent with group `values` of that match instead (the last match of a name wins).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ParamOverride {
    /// `ref_matchNr`.
    pub count: VarId,
    /// `ref_i_gN`, i = 1 ... [`MAX_ALL_MATCHES`].
    pub names: Vec<VarId>,
    /// `ref_i_gV`, i = 1 ... [`MAX_ALL_MATCHES`].
    pub values: Vec<VarId>,
}

/// A query or form parameter.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Param {
    pub name: String,
    pub value: Template,
    /// Written already URL-encoded (JMeter's "URL Encode?" unchecked): a query string takes
    /// it as it is, a form decodes it first (JMeter sends it decoded and re-encoded).
    pub encoded: bool,
    /// In a query string, sent as `name` alone when its value is empty (JMeter's "Include Equals?"
    /// unchecked: HTTPSamplerBase.getQueryString writes the argument's metadata, `=` or nothing).
    pub bare_when_empty: bool,
}

impl Param {
    pub(crate) fn new(name: impl Into<String>, value: Template) -> Param {
        Param { name: name.into(), value, encoded: false, bare_when_empty: false }
    }
}

/// The boundary between multipart parts (fixed, so a run's requests are reproducible).
pub(crate) const MULTIPART_BOUNDARY: &str = "----stampede-7d4a1f0c9b3e";

/// A request body.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Body {
    None,
    /// Text with templates (also JSON written in the plan).
    #[serde(serialize_with = "text_summary")]
    Text(Template),
    /// Bytes sent as they are (a file).
    #[serde(serialize_with = "bytes_summary")]
    Bytes(Vec<u8>),
    /// `application/x-www-form-urlencoded` fields.
    #[serde(serialize_with = "form_summary")]
    Form(Vec<Param>),
    /// `multipart/form-data` parts.
    Multipart(Vec<Part>),
    /// A file sent as the body ("send file as body") whose name holds a variable set while
    /// running: named and read per sample, as JMeter reads it. It may only be a file under the
    /// plan's directory; one that cannot be read is sent as an empty body (`Content-Length:
    /// 0`, as JMeter's HttpClient announces the size of no file) and fails the sample with
    /// `fault`, as JMeter fails it once the head is sent.
    #[serde(serialize_with = "file_summary")]
    File {
        path: Template,
        dir: crate::confine::PlanDir,
        fault: CheckId,
    },
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct Part {
    pub name: String,
    /// The file name announced for a file part.
    pub filename: Option<String>,
    pub content_type: Option<String>,
    /// A `Content-Transfer-Encoding` line (JMeter's RFC 6532 multipart writes `8bit` for text,
    /// `binary` for files).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub transfer_encoding: Option<&'static str>,
    #[serde(serialize_with = "part_summary")]
    pub content: PartContent,
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) enum PartContent {
    Text(Template),
    Bytes(Vec<u8>),
    /// A file whose name holds a variable set while running (an extractor's, a CSV row's):
    /// named, read and sent per sample, as JMeter reads its Files Upload paths. It may only be
    /// a file under the plan's directory ([`crate::confine`]); one that cannot be read fails the
    /// sample with `fault`. The part's `filename` is then the rendered name's last component.
    File {
        path: Template,
        dir: crate::confine::PlanDir,
        fault: CheckId,
    },
}

/// Takes a value from a response into a variable.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct Extractor {
    #[serde(skip)]
    pub var: VarId,
    pub into: String,
    pub source: ExtractSource,
    /// Which match: 1 is the first, 0 a random one.
    #[serde(rename = "match")]
    pub match_no: u32,
    /// The value when nothing matches (JMeter leaves the variable as it was when there is none).
    pub default: Option<Template>,
    /// When set, finding nothing fails the sample with this check.
    pub required: Option<CheckId>,
    /// Every match (JMeter's match number -1): `name_1`, `name_2`, ... and `name_matchNr`.
    #[serde(skip)]
    pub all: Option<AllMatches>,
    /// What a default that renders empty at run time does (each JMeter extractor's rule).
    #[serde(skip)]
    pub empty_default: EmptyDefault,
    /// A Regular Expression Extractor's groups (`name_g`, `name_g0`..), when the plan reads them.
    #[serde(skip)]
    pub groups: Option<Box<MatchGroups>>,
}

/// What an extractor does with a default that renders empty when it runs (`${maybe}`):
/// JMeter tests the rendered text, each extractor in its own way.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) enum EmptyDefault {
    /// Sets it, `""` included (JSON, XPath and jmeter-plugins' extractors; any extractor whose
    /// "Use empty default value" is ticked).
    #[default]
    Set,
    /// Leaves the variable as it was (Regular Expression and CSS Selector Extractors:
    /// `!defaultValue.isEmpty()`).
    Leave,
    /// Leaves it as it was when blank, spaces included (Boundary Extractor: `isNotBlank`).
    LeaveBlank,
}

impl EmptyDefault {
    /// Whether a default that rendered as `value` is set.
    pub(crate) fn sets(self, value: &str) -> bool {
        match self {
            EmptyDefault::Set => true,
            EmptyDefault::Leave => !value.is_empty(),
            EmptyDefault::LeaveBlank => !value.trim().is_empty(),
        }
    }
}

/// The variables JMeter's Regular Expression Extractor sets beside the name for the match it
/// keeps (match number 0 or N): `name_g` (how many groups, group 0 aside), `name_g0` (the
/// whole match), `name_g1`..; a sample without a match unsets them. With match number -1 it
/// unsets them too (it keeps `name_i_gK` instead).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct MatchGroups {
    /// `name_g`.
    pub count: VarId,
    /// `name_g0` ... `name_gN`.
    pub groups: Vec<VarId>,
    /// `name_matchNr` and `name_1`.. of a match number -1 extractor into the same name: a
    /// single-match one unsets them (JMeter removes what an earlier -1 left).
    pub list: Option<AllMatches>,
}

/// Where all the matches of an extractor go.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct AllMatches {
    /// `name_1` ... `name_N`, as many as are kept.
    pub vars: Vec<VarId>,
    /// `name_matchNr`: how many matched.
    pub count: VarId,
    /// `name_ALL`: the matches joined with `,` (JMeter's JSON Extractor "Compute concatenation
    /// var").
    pub concat: Option<VarId>,
    /// A regular expression's groups kept per match: (group K, `name_i_gK` for i = 1 ...), the
    /// ones a RegEx User Parameters of the plan reads.
    pub groups: Vec<(usize, Vec<VarId>)>,
}

/// The match number of an extractor that takes every match (JMeter's -1).
pub(crate) const ALL: u32 = u32::MAX;

/// The most matches an extractor with match number -1 keeps (`name_1` ... `name_64`).
pub(crate) const MAX_ALL_MATCHES: usize = 64;

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum ExtractSource {
    /// A JSONPath (RFC 9535) over the body; strings are taken without quotes, other values as
    /// JSON text.
    Json(#[serde(serialize_with = "json_path_source")] JsonPathExpr),
    /// A JSONPath read as jmeter-plugins' JSON Path Extractor reads it: an array found (or
    /// the values of an indefinite path) goes whole into the variable, its items into `all`.
    JsonPlugin(#[serde(serialize_with = "json_path_source")] JsonPathExpr),
    /// A regular expression and JMeter's template (`$1$`, `$0$` for the whole match).
    Regex { regex: Pattern, template: String, from: Field },
    /// A regular expression written with variables set while the test runs, compiled for each
    /// sample as JMeter does; one that does not compile finds nothing (JMeter logs it, and the
    /// default stays).
    RegexRunTime { regex: RunTime<Pattern>, template: String, from: Field },
    /// An XPath query over the body (JMeter's XPath Extractor): with an `all` list, its
    /// values go to `name_1`.. and their count to `name_matchNr` whatever the match number.
    /// A body that does not parse finds nothing (JMeter adds a failed assertion result but
    /// leaves the sample successful).
    XPath(#[serde(serialize_with = "xpath_source")] XPathExpr),
    /// An XPath query written with variables set while the test runs, compiled for each
    /// sample as JMeter evaluates it; one that does not compile finds nothing (JMeter logs it,
    /// and the default stays).
    XPathRunTime(RunTime<XPathExpr>),
    /// A CSS selector over the body (JMeter's CSS Selector Extractor).
    Css(#[serde(serialize_with = "css_source")] CssExpr),
    /// A CSS selector (the `RunTime`'s template) and attribute (the second template) written
    /// with variables set while the test runs, each rendered for each sample and compiled as
    /// `selector\0attribute`; a selector that does not parse finds nothing (JMeter logs it,
    /// and the default stays). Boxed: rare, and the enum stays as small as its other variants.
    CssRunTime(RunTime<CssExpr>, Box<Template>),
    /// The source read over a user's variable instead of the response's body (JMeter's
    /// extractor scope "JMeter Variable").
    FromVar {
        #[serde(skip)]
        var: VarId,
        source: Box<ExtractSource>,
    },
    /// A JSONPath written with variables set while the test runs, compiled for each sample
    /// (JMeter evaluates `${}` in the path per sample); one that does not compile finds
    /// nothing (JMeter logs it and sets the default).
    JsonRunTime(RunTimeJsonPath),
    /// A JMESPath over the body (JMeter's JSON JMESPath Extractor): the match number picks
    /// among the values found (an array's items), `count` is `name_matchNr`.
    JmesPath {
        path: JmesPath,
        #[serde(skip)]
        count: VarId,
    },
    /// JMeter's extractor throws when it runs (a JSON Extractor whose lists do not match):
    /// nothing is set, and the extractors after it and the sample's checks do not run; the
    /// text says why.
    Throws(String),
    /// Finds nothing: what JMeter does with an expression it cannot compile (it logs the error
    /// and the default is set); the text says why.
    Invalid(String),
    /// The value of a response header (the first one of that name).
    Header(String),
    /// The value of a cookie the response set.
    Cookie(String),
}

/// A compiled JMESPath expression (JMeter's JMESPath Extractor and Assertion), shown as written.
#[derive(Clone)]
pub(crate) struct JmesPath {
    pub src: String,
    expr: std::sync::Arc<jmespath::Expression<'static>>,
}

impl JmesPath {
    /// The expression, or the compiler's message (JMeter logs it and finds nothing).
    pub(crate) fn compile(src: &str) -> Result<JmesPath, String> {
        let expr = jmespath::compile(src).map_err(|e| e.to_string())?;
        Ok(JmesPath { src: src.to_string(), expr: std::sync::Arc::new(expr) })
    }

    /// The expression's result over a JSON text; `Err` when the text is not JSON or the search
    /// fails (JMeter's extractor then sets the default, its assertion fails).
    pub(crate) fn search(&self, json: &str) -> Result<jmespath::Rcvar, String> {
        let data = jmespath::Variable::from_json(json)?;
        self.expr.search(data).map_err(|e| e.to_string())
    }

    /// A value as JMeter's Jackson writes it: a string bare, anything else as compact JSON.
    pub(crate) fn text(v: &jmespath::Variable) -> String {
        match v.as_string() {
            Some(s) => s.clone(),
            None => serde_json::to_string(v).unwrap_or_default(),
        }
    }
}

impl std::fmt::Debug for JmesPath {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "JmesPath({:?})", self.src)
    }
}

impl PartialEq for JmesPath {
    fn eq(&self, o: &Self) -> bool {
        self.src == o.src
    }
}

impl Serialize for JmesPath {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.src)
    }
}

impl ExtractSource {
    /// The source itself, whatever it reads.
    pub(crate) fn base(&self) -> &ExtractSource {
        match self {
            ExtractSource::FromVar { source, .. } => source.base(),
            other => other,
        }
    }

    fn base_mut(&mut self) -> &mut ExtractSource {
        match self {
            ExtractSource::FromVar { source, .. } => source.base_mut(),
            other => other,
        }
    }
}

impl PartialEq for ExtractSource {
    fn eq(&self, o: &Self) -> bool {
        match (self, o) {
            (ExtractSource::Json(a), ExtractSource::Json(b))
            | (ExtractSource::JsonPlugin(a), ExtractSource::JsonPlugin(b)) => a.src == b.src,
            (
                ExtractSource::Regex { regex: a, template: ta, from: fa },
                ExtractSource::Regex { regex: b, template: tb, from: fb },
            ) => a == b && ta == tb && fa == fb,
            (ExtractSource::XPath(a), ExtractSource::XPath(b)) => a == b,
            (ExtractSource::XPathRunTime(a), ExtractSource::XPathRunTime(b)) => a.src == b.src,
            (ExtractSource::CssRunTime(a, x), ExtractSource::CssRunTime(b, y)) => a.src == b.src && x == y,
            (ExtractSource::JsonRunTime(a), ExtractSource::JsonRunTime(b)) => a.src == b.src,
            (
                ExtractSource::RegexRunTime { regex: a, template: ta, from: fa },
                ExtractSource::RegexRunTime { regex: b, template: tb, from: fb },
            ) => a.src == b.src && ta == tb && fa == fb,
            (ExtractSource::FromVar { var: a, source: x }, ExtractSource::FromVar { var: b, source: y }) => {
                a == b && x == y
            }
            (ExtractSource::Css(a), ExtractSource::Css(b)) => a == b,
            (ExtractSource::JmesPath { path: a, count: x }, ExtractSource::JmesPath { path: b, count: y }) => {
                a == b && x == y
            }
            (ExtractSource::Header(a), ExtractSource::Header(b))
            | (ExtractSource::Cookie(a), ExtractSource::Cookie(b))
            | (ExtractSource::Invalid(a), ExtractSource::Invalid(b))
            | (ExtractSource::Throws(a), ExtractSource::Throws(b)) => a == b,
            _ => false,
        }
    }
}

/// An expression (a JSONPath, a regular expression) compiled from its text for each sample, as
/// JMeter compiles one holding `${}` set while the test runs. The last compilation is kept,
/// shared by the users of the step, so an expression that renders the same text every sample
/// compiles once; one that varies compiles when it changes (a cache keyed by every text seen
/// would grow with a soak test).
pub(crate) struct RunTime<T> {
    pub src: Template,
    /// Shared, so that an element's settings (an XPath's namespaces, a selector's attribute
    /// implementation) travel with the clones of the step.
    compile: std::sync::Arc<CompileFn<T>>,
    last: std::sync::Mutex<Option<std::sync::Arc<Compiled<T>>>>,
}

/// What compiles an expression's rendered text.
type CompileFn<T> = dyn Fn(&str) -> Result<T, String> + Send + Sync;

/// A JSONPath compiled for each sample.
pub(crate) type RunTimeJsonPath = RunTime<JsonPathExpr>;

/// An expression's text and what it compiled to (or why it did not).
pub(crate) type Compiled<T> = (String, Result<T, String>);

impl<T> RunTime<T> {
    /// `compile` reads the rendered text (with the dialect and limits of the element).
    pub(crate) fn new(src: Template, compile: impl Fn(&str) -> Result<T, String> + Send + Sync + 'static) -> Self {
        RunTime { src, compile: std::sync::Arc::new(compile), last: std::sync::Mutex::new(None) }
    }

    /// The expression for this text, compiled now unless it is the text compiled last.
    /// The lock is held only to compare and to store: every user of the step meets on it, and
    /// a text that varies per user (a value from a CSV) compiles nearly every sample.
    pub(crate) fn compiled(&self, text: String) -> std::sync::Arc<Compiled<T>> {
        if let Some(c) = self.last.lock().unwrap_or_else(|e| e.into_inner()).as_ref().filter(|c| c.0 == text) {
            return c.clone();
        }
        let r = (self.compile)(&text);
        let c = std::sync::Arc::new((text, r));
        *self.last.lock().unwrap_or_else(|e| e.into_inner()) = Some(c.clone());
        c
    }
}

impl<T> Clone for RunTime<T> {
    fn clone(&self) -> Self {
        RunTime { src: self.src.clone(), compile: self.compile.clone(), last: std::sync::Mutex::new(None) }
    }
}

impl<T> std::fmt::Debug for RunTime<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "RunTime({:?})", self.src.source())
    }
}

impl<T> Serialize for RunTime<T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.src.source())
    }
}

/// Which part of a response a regex or a text check reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Field {
    Body,
    /// The body with HTML character references decoded (JMeter's "Body (unescaped)").
    BodyUnescaped,
    /// The response headers, as `Name: value` lines.
    Headers,
    /// The request headers as sent, as `Name: value` lines.
    RequestHeaders,
    /// JMeter's sampler data: for HTTP the method and URL, the body, the cookies sent.
    RequestData,
    /// The URL of the request that got the response.
    Url,
    /// The status code as text.
    Status,
    /// The reason phrase of the status line (JMeter's "Response Message").
    Message,
    /// A user's variable, as it is when the check runs (JMeter's assertion scope "JMeter
    /// Variable").
    Var(VarId),
}

/// An index into `Plan::checks` (the check messages): failures are counted per message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub(crate) struct CheckId(pub u16);

/// A pass/fail test of a response; a failure makes the sample KO with the check's message.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct Check {
    pub id: CheckId,
    pub test: CheckTest,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum CheckTest {
    /// The status is in one of the inclusive ranges.
    Status(Vec<(u16, u16)>),
    /// The field contains the text (or, negated, does not).
    Contains { field: Field, text: Template, negate: bool },
    /// The regex finds a match in the field (or, negated, does not).
    Matches { field: Field, regex: Pattern, negate: bool },
    /// The field equals the text exactly.
    Equals { field: Field, text: Template, negate: bool },
    /// A regex that uses variables set during the run, compiled when it is checked; `whole`
    /// anchors it to the whole text. A pattern that does not compile fails the check.
    MatchesTemplate { field: Field, pattern: Template, whole: bool, negate: bool },
    /// The JSONPath finds a value in the body; with `equals`, the first value's text equals it.
    Json {
        #[serde(serialize_with = "json_path_source")]
        path: JsonPathExpr,
        equals: Option<Template>,
        negate: bool,
    },
    /// The sample took at most this long.
    MaxDuration(#[serde(with = "crate::plan::serde_duration")] Duration),
    /// A Duration Assertion whose limit holds variables set while the test runs: read per
    /// sample in milliseconds, as JMeter reads it (not a whole number above 0: no limit).
    MaxDurationAt(Template),
    /// A size in bytes compares to a number (JMeter's Size Assertion).
    Size { part: SizePart, op: CmpOp, bytes: i64 },
    /// A Size Assertion whose size holds variables set while the test runs: read per sample
    /// as JMeter's `Long.parseLong` reads it; not a number, the check fails (JMeter's
    /// assertion throws NumberFormatException, which fails the sample).
    SizeAt { part: SizePart, op: CmpOp, size: Template },
    /// JMeter's JSON Assertion (`plugin`: jmeter-plugins' one): the path is found (an
    /// indefinite one finds something, for JMeter's), and with `validate` the value or one of
    /// the array's items equals `expected` (as JSON; as text for the plugin's), or matches it
    /// whole as a regex, or is null when `expect_null`. `path` is `None` when it does not
    /// compile: it fails. An empty body fails, negated or not. `at`: the path is written
    /// with variables set while the test runs, compiled for each sample (`path` is `None`).
    JsonAssert {
        #[serde(serialize_with = "json_path_option")]
        path: Option<JsonPathExpr>,
        #[serde(skip_serializing_if = "Option::is_none")]
        at: Option<Box<RunTimeJsonPath>>,
        validate: bool,
        expected: Template,
        regex: bool,
        expect_null: bool,
        negate: bool,
        plugin: bool,
    },
    /// JMeter's JSON JMESPath Assertion: the expression's result exists (is not null), or with
    /// `validate` is null (`expect_null`) or equals `expected` (its text, or as JSON; with
    /// `regex`, matches it whole); `negate` inverts. A path that does not compile (`None`), a
    /// body that is not JSON, or an expected value that is neither equal text nor JSON fail
    /// it, and pass it inverted (JMeter's exception is an error unless inverted).
    JmesPath {
        path: Option<JmesPath>,
        validate: bool,
        expected: Template,
        regex: bool,
        expect_null: bool,
        negate: bool,
    },
    /// Passes when any of the checks passes (JMeter's Response Assertion with "Or").
    Any(Vec<CheckTest>),
    /// The XPath query finds a node, or is true (JMeter's XPath Assertion); negated, the
    /// opposite. A body that does not parse fails it either way.
    XPath {
        #[serde(serialize_with = "xpath_source")]
        path: XPathExpr,
        field: Field,
        negate: bool,
        /// JMeter's XPath2 Assertion: a result that is neither nodes nor a boolean (a number,
        /// a string) is one item, and holds.
        xpath2: bool,
    },
    /// An XPath Assertion whose query holds variables set while the test runs, compiled for
    /// each sample; one that does not compile fails the check, negated or not (JMeter's
    /// assertion reports the error).
    XPathAt { path: Box<RunTime<XPathExpr>>, field: Field, negate: bool, xpath2: bool },
    /// The MD5 of the body, as lowercase hex, equals the expected hex ignoring case (JMeter's
    /// MD5Hex Assertion); an empty expected value never holds.
    Md5Hex(Template),
    /// The body is well-formed XML with no DOCTYPE (JMeter's XML Assertion: a SAX parse of
    /// the text, DOCTYPE declarations disallowed). A failure counts under the parser's
    /// message where it is one of these two, else under the check's own.
    WellFormedXml { doctype: CheckId, prolog: CheckId },
}

/// Which size a size check reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum SizePart {
    /// Everything received: status line, headers, body.
    Whole,
    Headers,
    Body,
    /// The status code's length (JMeter's "Response Code" field: 3).
    Code,
    /// The reason phrase's length.
    Message,
    /// A user's variable read as a number (JMeter's scope "JMeter Variable"): one that is not
    /// a whole number fails the check.
    Var(#[serde(skip)] VarId),
}

/// A body compressed with gzip (a request with `gzip: true`).
pub(crate) fn gzip(data: &[u8]) -> Vec<u8> {
    use std::io::Write;
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    enc.write_all(data).expect("writing to a Vec cannot fail");
    enc.finish().expect("writing to a Vec cannot fail")
}

impl PartialEq for CheckTest {
    fn eq(&self, o: &Self) -> bool {
        // Compiled regexes and paths compare by their source text.
        format!("{self:?}") == format!("{o:?}")
    }
}

impl RequestSpec {
    /// A request with the connection settings of `defaults`, no query, headers, body, checks
    /// or extractors, and redirects not followed (the plan builder turns them on, as it names
    /// the hops: [`crate::plan::build::Builder::follow_redirects`]).
    pub(crate) fn new(
        label: LabelId,
        method: String,
        target: Target,
        path: Template,
        defaults: &crate::plan::Defaults,
    ) -> Self {
        RequestSpec {
            label,
            method,
            target,
            origin: None,
            path,
            query: Vec::new(),
            headers: Vec::new(),
            body: Body::None,
            gzip: false,
            keep_alive: defaults.keep_alive,
            say_keep_alive: false,
            http_version: defaults.http_version,
            connect_timeout: defaults.connect_timeout,
            response_timeout: defaults.response_timeout,
            sample_timeout: false,
            max_response_size: defaults.max_response_size,
            follow_redirects: false,
            hop_labels: Vec::new(),
            after: After::default(),
            too_many_redirects: None,
            embedded: None,
            access_log: None,
            fault: None,
            fault_after_head: false,
            java_uri: false,
            collapse_slashes: false,
            ignore_status: false,
            managers: Default::default(),
            param_overrides: Vec::new(),
            url_rewrites: Vec::new(),
        }
    }

    /// The URL as written for messages: scheme, authority and the path's source text.
    pub(crate) fn url(&self) -> String {
        match &self.origin {
            Some(o) => format!("{}{}", o.source(), self.path.source()),
            // No server name: the path is the whole URL (or turns into one while running).
            None if self.target.host.is_empty() && self.path.source().contains("://") => self.path.source().to_string(),
            None => format!("{}://{}{}", self.target.scheme(), self.target.authority(), self.path.source()),
        }
    }

    /// HEAD responses carry no body whatever their headers say.
    pub(crate) fn is_head(&self) -> bool {
        self.method == "HEAD"
    }

    pub(crate) fn for_each_template_mut(&mut self, f: &mut impl FnMut(&mut Template)) {
        f(&mut self.path);
        if let Some(o) = &mut self.origin {
            f(o);
        }
        self.query.iter_mut().for_each(|p| f(&mut p.value));
        self.headers.iter_mut().for_each(|(_, t)| f(t));
        match &mut self.body {
            Body::Text(t) => f(t),
            Body::Form(fields) => fields.iter_mut().for_each(|p| f(&mut p.value)),
            Body::Multipart(parts) => parts.iter_mut().for_each(|p| {
                if let PartContent::Text(t) | PartContent::File { path: t, .. } = &mut p.content {
                    f(t)
                }
            }),
            Body::File { path, .. } => f(path),
            Body::None | Body::Bytes(_) => {}
        }
        for e in &mut self.after.extract {
            if let Some(d) = &mut e.default {
                f(d);
            }
            match e.source.base_mut() {
                ExtractSource::JsonRunTime(p) => f(&mut p.src),
                ExtractSource::RegexRunTime { regex, .. } => f(&mut regex.src),
                ExtractSource::XPathRunTime(x) => f(&mut x.src),
                ExtractSource::CssRunTime(c, attribute) => {
                    f(&mut c.src);
                    f(attribute);
                }
                _ => {}
            }
        }
        for c in &mut self.after.checks {
            c.test.for_each_template_mut(f);
        }
    }

    /// Whether handling the response needs its body kept (extractors or checks read it).
    pub(crate) fn reads_body(&self) -> bool {
        let field_body = |f: &Field| *f == Field::Body;
        self.after.extract.iter().any(|e| match &e.source {
            ExtractSource::Json(_)
            | ExtractSource::JsonRunTime(_)
            | ExtractSource::JsonPlugin(_)
            | ExtractSource::JmesPath { .. }
            | ExtractSource::XPath(_)
            | ExtractSource::XPathRunTime(_)
            | ExtractSource::Css(_)
            | ExtractSource::CssRunTime(..) => true,
            ExtractSource::Regex { from, .. } | ExtractSource::RegexRunTime { from, .. } => {
                field_body(from) || *from == Field::BodyUnescaped
            }
            _ => false,
        }) || self.after.checks.iter().any(|c| c.test.reads_body())
            // A script may read the body (`prev.getResponseDataAsString()`).
            || !self.after.scripts.is_empty()
            // The page names its embedded resources.
            || self.embedded.is_some()
    }
}

impl CheckTest {
    fn for_each_template_mut(&mut self, f: &mut impl FnMut(&mut Template)) {
        match self {
            CheckTest::Contains { text, .. }
            | CheckTest::Equals { text, .. }
            | CheckTest::MatchesTemplate { pattern: text, .. } => f(text),
            CheckTest::Json { equals: Some(t), .. } => f(t),
            CheckTest::MaxDurationAt(t) | CheckTest::SizeAt { size: t, .. } => f(t),
            CheckTest::XPathAt { path, .. } => f(&mut path.src),
            CheckTest::JmesPath { expected, .. } | CheckTest::Md5Hex(expected) => f(expected),
            CheckTest::JsonAssert { expected, at, .. } => {
                f(expected);
                if let Some(p) = at {
                    f(&mut p.src);
                }
            }
            CheckTest::Any(tests) => tests.iter_mut().for_each(|t| t.for_each_template_mut(f)),
            _ => {}
        }
    }

    fn reads_body(&self) -> bool {
        match self {
            CheckTest::Contains { field, .. }
            | CheckTest::Matches { field, .. }
            | CheckTest::Equals { field, .. }
            | CheckTest::MatchesTemplate { field, .. }
            | CheckTest::XPath { field, .. }
            | CheckTest::XPathAt { field, .. } => matches!(field, Field::Body | Field::BodyUnescaped),
            CheckTest::Json { .. }
            | CheckTest::JsonAssert { .. }
            | CheckTest::JmesPath { .. }
            | CheckTest::Md5Hex(_)
            | CheckTest::WellFormedXml { .. } => true,
            CheckTest::Size { part, .. } | CheckTest::SizeAt { part, .. } => *part == SizePart::Body,
            CheckTest::Any(tests) => tests.iter().any(CheckTest::reads_body),
            _ => false,
        }
    }
}

fn json_path_option<S: Serializer>(p: &Option<JsonPathExpr>, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(p.as_ref().map_or("<invalid>", |p| &p.src))
}

fn xpath_source<S: Serializer>(p: &XPathExpr, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&p.src)
}

fn css_source<S: Serializer>(p: &CssExpr, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&p.src)
}

fn json_path_source<S: Serializer>(p: &JsonPathExpr, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&p.src)
}

pub(super) fn text_summary<S: Serializer>(t: &Template, s: S) -> Result<S::Ok, S::Error> {
    if t.is_const() {
        s.serialize_str(&format!("<{} bytes>", t.source().len()))
    } else {
        s.serialize_str(&format!("<template of {} bytes>", t.source().len()))
    }
}

fn bytes_summary<S: Serializer>(b: &[u8], s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&format!("<{} bytes>", b.len()))
}

fn form_summary<S: Serializer>(fields: &[Param], s: S) -> Result<S::Ok, S::Error> {
    use serde::ser::SerializeMap;
    let mut map = s.serialize_map(Some(fields.len()))?;
    for p in fields {
        map.serialize_entry(&p.name, crate::redact::header(&p.name, p.value.source()))?;
    }
    map.end()
}

fn file_summary<S: Serializer>(
    path: &Template,
    _: &crate::confine::PlanDir,
    _: &CheckId,
    s: S,
) -> Result<S::Ok, S::Error> {
    s.serialize_str(&format!("<the file {} when sent>", path.source()))
}

fn part_summary<S: Serializer>(c: &PartContent, s: S) -> Result<S::Ok, S::Error> {
    match c {
        PartContent::Text(t) => s.serialize_str(&format!("<{} bytes of text>", t.source().len())),
        PartContent::Bytes(b) => s.serialize_str(&format!("<{} bytes>", b.len())),
        PartContent::File { path, .. } => s.serialize_str(&format!("<the file {} when sent>", path.source())),
    }
}

pub(super) fn redacted_url<S: Serializer>(t: &Template, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&crate::redact::url(t.source()))
}

fn redacted_origin<S: Serializer>(t: &Option<Template>, s: S) -> Result<S::Ok, S::Error> {
    match t {
        Some(t) => redacted_url(t, s),
        None => s.serialize_none(),
    }
}

pub(super) fn redacted_headers<S: Serializer>(h: &[(String, Template)], s: S) -> Result<S::Ok, S::Error> {
    use serde::ser::SerializeMap;
    let mut map = s.serialize_map(Some(h.len()))?;
    for (k, v) in h {
        map.serialize_entry(k, crate::redact::header(k, v.source()))?;
    }
    map.end()
}

/// The message of a check that stands for a sample JMeter fails on an exception `class` with
/// `message` before sending anything, as JMeter writes it (HTTPSamplerBase.errorResult); the
/// results file writes it back as JMeter's response code and message
/// (`record::error_kind::split_non_http` reads this form).
pub(crate) fn non_http(class: &str, message: &str) -> String {
    format!("Non HTTP response code: {class}, Non HTTP response message: {message}")
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

    /// A user compiling a new text must not stop another user from reading (or compiling)
    /// meanwhile: the compile of "a" waits until the other user has got "b".
    #[test]
    fn run_time_compiles_outside_the_shared_lock() {
        use std::sync::{mpsc, Arc, Mutex};
        let (entered_tx, entered_rx) = mpsc::channel::<()>();
        let (done_tx, done_rx) = mpsc::channel::<()>();
        let (entered_tx, done_rx) = (Mutex::new(entered_tx), Mutex::new(done_rx));
        let rt = Arc::new(RunTime::new(Template::literal("x"), move |t: &str| {
            if t != "a" {
                return Ok(true);
            }
            entered_tx.lock().unwrap().send(()).unwrap();
            Ok(done_rx.lock().unwrap().recv_timeout(Duration::from_secs(3)).is_ok())
        }));
        let a = {
            let rt = rt.clone();
            std::thread::spawn(move || rt.compiled("a".into()))
        };
        entered_rx.recv_timeout(Duration::from_secs(3)).unwrap();
        assert_eq!(rt.compiled("b".into()).1, Ok(true));
        done_tx.send(()).unwrap();
        assert_eq!(a.join().unwrap().1, Ok(true), "the compile of \"a\" held the lock");
    }
}
