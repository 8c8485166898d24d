//! Assertions: checks on each response in their scope (response, JSONPath (JMeter's and
//! jmeter-plugins'), XPath, XPath2, size and duration assertions).

use super::*;
use crate::plan::sampler::http::{Pattern, RunTime, RunTimeJsonPath, XPathExpr};

/// The assertions, by class.
pub(super) const ELEMENTS: &[(&str, ScopeFn)] = &[
    ("ResponseAssertion", Cx::response_assertion),
    ("JSONPathAssertion", Cx::json_path_assertion),
    ("SizeAssertion", Cx::size_assertion),
    ("DurationAssertion", Cx::duration_assertion),
    ("XPathAssertion", Cx::xpath_assertion),
    ("XPath2Assertion", Cx::xpath2_assertion),
    ("JMESPathAssertion", Cx::jmespath_assertion),
    ("MD5HexAssertion", Cx::md5hex_assertion),
    ("XMLAssertion", Cx::xml_assertion),
    ("com.atlantbh.jmeter.plugins.jsonutils.jsonpathassertion.JSONPathAssertion", Cx::plugin_json_path_assertion),
];

/// What an assertion scoped to a JMeter variable with no name does in JMeter.
const UNNAMED_SCOPE_FAILS: &str =
    "scoped to a JMeter variable with no name: each sample fails (\"Response was null\"), as in JMeter";

impl Cx {
    /// JMeter's MD5Hex Assertion: the body's MD5 equals the hex given, ignoring case. An empty
    /// body fails first ("Response was null"), then an empty hex ("MD5Hex to test against is
    /// empty"), as `MD5HexAssertion.getResult` orders them.
    pub(super) fn md5hex_assertion(&mut self, c: &El, s: &mut Scope, depth: usize) -> Result<(), Error> {
        let raw = c.text_or_empty("MD5HexAssertion.size");
        let expected = self.tmpl(c, raw)?;
        s.checks.push(self.response_was_null(c));
        let empty = expected.is_const() && self.expand(c, raw)?.is_empty();
        // Failures count under one message each: the body's own MD5, which JMeter's message
        // quotes, is not part of it.
        let message = if empty {
            format!("{}: MD5Hex to test against is empty", c.name)
        } else {
            format!("{}: Error asserting MD5 sum : got (the response's MD5) but should have been {raw}", c.name)
        };
        let id = self.b.check(message);
        s.checks.push(Check { id, test: CheckTest::Md5Hex(expected) });
        if empty {
            self.warn(
                c,
                depth,
                "no MD5 to compare with: each sample fails (\"MD5Hex to test against is empty\"), as in JMeter",
            );
        } else {
            self.report(c, depth, Status::Supported, "an MD5 check of the body");
        }
        Ok(())
    }

    /// JMeter's XML Assertion: the body parses as well-formed XML, with no DOCTYPE (JMeter
    /// 5.6.3's reader disallows one). An empty body fails with "Response was null"
    /// (`setResultForNull`); one that does not parse fails with the parser's message: Xerces'
    /// own for text before the first tag and for a DOCTYPE, one message for the rest.
    pub(super) fn xml_assertion(&mut self, c: &El, s: &mut Scope, depth: usize) -> Result<(), Error> {
        s.checks.push(self.response_was_null(c));
        let id = self.b.check(format!("{}: the response is not well-formed XML", c.name));
        let prolog = self.b.check(format!("{}: Content is not allowed in prolog.", c.name));
        let doctype = self.b.check(format!(
            "{}: DOCTYPE is disallowed when the feature \"http://apache.org/xml/features/disallow-doctype-decl\" set to true.",
            c.name
        ));
        s.checks.push(Check { id, test: CheckTest::WellFormedXml { doctype, prolog } });
        self.report(c, depth, Status::Supported, "a well-formedness check of the body as XML");
        Ok(())
    }

    /// The check an assertion's `setResultForNull` makes: an empty body fails.
    fn response_was_null(&mut self, c: &El) -> Check {
        use super::super::compare::CmpOp;
        let id = self.b.check(format!("{}: Response was null", c.name));
        Check { id, test: CheckTest::Size { part: http::SizePart::Body, op: CmpOp::Gt, bytes: 0 } }
    }

    /// JMeter's JSON JMESPath Assertion; its failure message is JMeter's `buildFailureMessage`.
    pub(super) fn jmespath_assertion(&mut self, c: &El, s: &mut Scope, depth: usize) -> Result<(), Error> {
        let raw = self.expand(c, c.text_or_empty("JMES_PATH"))?;
        let expected_raw = c.text_or_empty("EXPECTED_VALUE").to_string();
        let expected = self.tmpl(c, &expected_raw)?;
        let flag = |name: &str| c.flag(name).unwrap_or(false);
        let (validate, expect_null, negate, regex) =
            (flag("JSONVALIDATION"), flag("EXPECT_NULL"), flag("INVERT"), flag("ISREGEX"));
        let not = if negate { " not" } else { "" };
        let message = if !validate {
            format!("JMESPATH {raw} expected{not} to exist")
        } else if expect_null {
            format!("Value expected{not} to be null")
        } else if regex {
            format!("Value expected{not} to match {expected_raw}")
        } else {
            format!("Value expected{not} to be equal to {expected_raw}")
        };
        let mut note = message.clone();
        let path = match crate::plan::sampler::http::JmesPath::compile(&raw) {
            Ok(p) => Some(p),
            Err(e) => {
                note =
                    format!("the expression does not compile ({e}): each sample fails, as in JMeter (passes inverted)");
                None
            }
        };
        let id = self.b.check(format!("{}: {message}", c.name));
        s.checks.push(Check { id, test: CheckTest::JmesPath { path, validate, expected, regex, expect_null, negate } });
        self.report(c, depth, Status::Supported, note);
        Ok(())
    }

    pub(super) fn response_assertion(&mut self, c: &El, s: &mut Scope, depth: usize) -> Result<(), Error> {
        match self.response_assertion_checks(c)? {
            Ok((checks, ignore, status, note)) => {
                s.checks.extend(checks);
                s.ignore_status |= ignore;
                match status {
                    Status::Warning => self.warn(c, depth, note),
                    status => self.report(c, depth, status, note),
                }
            }
            Err(why) => self.unsupported(c, depth, &why),
        };
        Ok(())
    }

    pub(super) fn json_path_assertion(&mut self, c: &El, s: &mut Scope, depth: usize) -> Result<(), Error> {
        self.json_assertion(c, s, depth, false)
    }

    pub(super) fn plugin_json_path_assertion(&mut self, c: &El, s: &mut Scope, depth: usize) -> Result<(), Error> {
        if c.text_or_empty("INPUT_FORMAT") == "YAML" {
            self.unsupported(c, depth, "YAML input is not read");
            return Ok(());
        }
        self.json_assertion(c, s, depth, true)
    }

    /// JMeter's JSON Assertion and jmeter-plugins' (same properties; the plugin compares
    /// values as text, JMeter's as JSON).
    fn json_assertion(&mut self, c: &El, s: &mut Scope, depth: usize, plugin: bool) -> Result<(), Error> {
        let raw_path = c.text_or_empty("JSON_PATH");
        let negate = c.flag("INVERT").unwrap_or(false);
        let validate = c.flag("JSONVALIDATION").unwrap_or(false);
        let expect_null = c.flag("EXPECT_NULL").unwrap_or(false);
        let regex = c.flag("ISREGEX").unwrap_or(true);
        let raw = c.text_or_empty("EXPECTED_VALUE").to_string();
        let expected = self.tmpl(c, &raw)?;
        let mut note = String::from("a JSONPath check");
        // JMeter evaluates `${}` in the path for each sample: one set while the test runs is
        // compiled then; a path that does not compile fails the assertion (JMeter catches it).
        let t = self.tmpl(c, raw_path)?;
        let (src, path, at) = if t.is_dynamic(&self.b.sym.vars) {
            note.push_str(" (the path is read for each sample)");
            let at = RunTimeJsonPath::new(t, super::extractor::jayway);
            (raw_path.to_string(), None, Some(Box::new(at)))
        } else {
            let src = self.expand(c, raw_path)?;
            let path = match super::extractor::jayway(&src) {
                Ok(p) => Some(p),
                Err(e) => {
                    note = format!("{e}: the assertion fails, as in JMeter");
                    None
                }
            };
            (src, path, None)
        };
        let what = match (validate, expect_null, regex) {
            (false, ..) => format!("{src} exists"),
            (true, true, _) => format!("{src} is null"),
            (true, false, true) => format!("{src} matches {raw:?}"),
            (true, false, false) => format!("{src} equals {raw:?}"),
        };
        let id = self.b.check(format!("{}: {}{what}", c.name, if negate { "not " } else { "" }));
        let invalid = path.is_none() && at.is_none();
        let test = CheckTest::JsonAssert { path, at, validate, expected, regex, expect_null, negate, plugin };
        s.checks.push(Check { id, test });
        if invalid {
            self.warn(c, depth, note);
        } else {
            self.report(c, depth, Status::Supported, note);
        }
        Ok(())
    }

    /// XPath Assertion: the query finds a node (or is true) in the body or a variable.
    pub(super) fn xpath_assertion(&mut self, c: &El, s: &mut Scope, depth: usize) -> Result<(), Error> {
        let raw = c.text_or_empty("XPath.xpath").to_string();
        let tolerant = c.flag("XPath.tolerant").unwrap_or(false);
        let namespaces = c.flag("XPath.namespace").unwrap_or(false);
        let validate = c.flag("XPath.validate") == Some(true);
        self.xpath_check(c, s, depth, &raw, (tolerant, namespaces, validate, false))
    }

    /// XPath2 Assertion (JMeter's `XPath2Assertion`): the query must find something, or be
    /// true; negated, the opposite. JMeter evaluates it with Saxon but takes its type from
    /// Xalan (XPath 1.0), which throws on what XPath 1.0 does not know, failing the sample: so
    /// the XPath 1.0 engine here reads what JMeter runs. A result that is neither nodes nor a
    /// boolean (a number, a string) is one item: it holds. An empty query passes (JMeter logs
    /// it); an absent one is `/`.
    pub(super) fn xpath2_assertion(&mut self, c: &El, s: &mut Scope, depth: usize) -> Result<(), Error> {
        // Absent is `/`; present and empty is empty (`getPropertyAsString(key, default)`).
        let raw = match c.prop("XPath.xpath") {
            Some(Value::Text(t)) => t.clone(),
            _ => "/".to_string(),
        };
        if raw.is_empty() {
            self.warn(c, depth, "the query is empty: the assertion passes, as in JMeter (it logs an error)");
            return Ok(());
        }
        // Namespaces are `prefix=uri` lines in JMeter; the prefixes the response declares
        // are used here.
        let namespaces = !c.text_or_empty("XPath.namespaces").trim().is_empty();
        self.xpath_check(c, s, depth, &raw, (false, namespaces, false, true))
    }

    /// The check of an XPath or XPath2 Assertion on `raw`: `(tolerant, namespaces, validate,
    /// xpath2)` as the element says.
    fn xpath_check(
        &mut self,
        c: &El,
        s: &mut Scope,
        depth: usize,
        raw: &str,
        (tolerant, namespaces, validate, xpath2): (bool, bool, bool, bool),
    ) -> Result<(), Error> {
        let negate = c.flag("XPath.negate").unwrap_or(false);
        let scoped = self.scope_variable(c)?;
        let unnamed = scoped.as_ref().is_some_and(|v| v.1.is_empty());
        let field = scoped.map_or(Field::Body, |v| v.0);
        let mut note = String::from(if xpath2 {
            "an XPath check (XPath 2.0 read as XPath 1.0, as JMeter types it)"
        } else {
            "an XPath check"
        });
        // JMeter evaluates `${}` in the query for each sample: one set while the test runs is
        // compiled then.
        let probe = self.tmpl(c, raw)?;
        let mut invalid = false;
        let (query, test) = if probe.is_dynamic(&self.b.sym.vars) {
            note.push_str(", its query read for each sample");
            let compile = move |q: &str| XPathExpr::new(q, tolerant, namespaces, false).map_err(|e| e.to_string());
            let path = Box::new(RunTime::new(probe, compile));
            (raw.to_string(), CheckTest::XPathAt { path, field, negate, xpath2 })
        } else {
            let query = self.expand(c, raw)?;
            let test = match XPathExpr::new(&query, tolerant, namespaces, false) {
                Ok(path) => CheckTest::XPath { path, field, negate, xpath2 },
                Err(e) => {
                    note = format!("{e}: the assertion fails, as in JMeter");
                    invalid = true;
                    // No alternative: never holds.
                    CheckTest::Any(Vec::new())
                }
            };
            (query, test)
        };
        let id = self.b.check(match xpath2 {
            // XPath2Assertion's own failure message.
            true => format!("{}: {} for {query}", c.name, if negate { "Nodes Matched" } else { "No Nodes Matched" }),
            false => format!("{}: {}XPath {query}", c.name, if negate { "not " } else { "" }),
        });
        s.checks.push(Check { id, test });
        // "Validate XML" checks the body against its DTD: not done here.
        let status = if validate {
            note.push_str("; the body is not validated against its DTD");
            Status::Partial
        } else {
            Status::Supported
        };
        if unnamed {
            // Neither assertion reads data from the unnamed variable: "Response was null".
            self.warn(c, depth, UNNAMED_SCOPE_FAILS);
        } else if invalid {
            self.warn(c, depth, note);
        } else {
            self.report(c, depth, status, note);
        }
        Ok(())
    }

    pub(super) fn size_assertion(&mut self, c: &El, s: &mut Scope, depth: usize) -> Result<(), Error> {
        use super::super::compare::CmpOp;
        use http::SizePart;
        // None or empty is JMeter's `Long.parseLong("")`, which throws: the "not a number" path.
        let raw = c.text("SizeAssertion.size").unwrap_or("");
        let op = match c.text("SizeAssertion.operator").unwrap_or("1").trim() {
            "2" => CmpOp::Ne,
            "3" => CmpOp::Gt,
            "4" => CmpOp::Lt,
            "5" => CmpOp::Ge,
            "6" => CmpOp::Le,
            _ => CmpOp::Eq,
        };
        // SizeAssertion.getResult: a variable's value is read as the size (a number).
        let mut unnamed = false;
        let (part, what) = match self.scope_variable(c)? {
            Some((Field::Var(v), name)) => {
                unnamed = name.is_empty();
                (SizePart::Var(v), format!("variable {name} (as a number)"))
            }
            _ => match c.text("Assertion.test_field").unwrap_or("SizeAssertion.response_network_size") {
                "SizeAssertion.response_headers" => (SizePart::Headers, "headers".to_string()),
                "SizeAssertion.response_data" => (SizePart::Body, "body".to_string()),
                "SizeAssertion.response_code" => (SizePart::Code, "response code".to_string()),
                "SizeAssertion.response_message" => (SizePart::Message, "response message".to_string()),
                // Any other field: the whole response.
                _ => (SizePart::Whole, "response".to_string()),
            },
        };
        // JMeter reads the size for each sample (`Long.parseLong`, no spaces): one set while
        // the test runs is read then; one that is no number throws, failing each sample.
        let size = self.tmpl(c, raw)?;
        let (test, shown) = if size.is_dynamic(&self.b.sym.vars) {
            (CheckTest::SizeAt { part, op, size }, raw.to_string())
        } else {
            let v = self.expand(c, raw)?;
            match v.parse::<i64>() {
                Ok(bytes) => (CheckTest::Size { part, op, bytes }, bytes.to_string()),
                Err(_) => {
                    let why = format!(
                        "size `{v}` is not a number: each sample fails (java.lang.NumberFormatException: For input \
                         string: \"{v}\"), as in JMeter"
                    );
                    let id =
                        self.b.check(format!("{}: java.lang.NumberFormatException: For input string: \"{v}\"", c.name));
                    s.checks.push(Check { id, test: CheckTest::Any(Vec::new()) });
                    self.warn(c, depth, why);
                    return Ok(());
                }
            }
        };
        let id = self.b.check(format!("{}: {what} size {op:?} {shown} bytes", c.name));
        s.checks.push(Check { id, test });
        if unnamed {
            // SizeAssertion: Long.parseLong(null) throws, which fails the sample.
            let what = "scoped to a JMeter variable with no name: each sample fails (\"Error parsing variable \
                        name:  value: null\"), as in JMeter";
            self.warn(c, depth, what);
        } else {
            self.report(c, depth, Status::Supported, "a size check");
        }
        Ok(())
    }

    pub(super) fn duration_assertion(&mut self, c: &El, s: &mut Scope, depth: usize) -> Result<(), Error> {
        // JMeter reads the duration as a long (0 when it is not one) and checks only one above 0.
        let raw = c.text("DurationAssertion.duration").unwrap_or("0");
        // JMeter reads it for each sample: a limit set while the test runs is read then.
        let t = self.tmpl(c, raw)?;
        if t.is_dynamic(&self.b.sym.vars) {
            let id = self.b.check(format!("{}: duration at most {raw} ms", c.name));
            s.checks.push(Check { id, test: CheckTest::MaxDurationAt(t) });
            self.report(c, depth, Status::Supported, "a duration check, its limit read for each sample");
            return Ok(());
        }
        let ms = self.expand(c, raw).ok().and_then(|v| v.trim().parse::<i64>().ok()).unwrap_or(0);
        if ms <= 0 {
            self.report(c, depth, Status::Supported, "no limit: a duration of 0, as JMeter checks only one above 0");
            return Ok(());
        }
        let d = self.millis(c, ms as f64, "duration")?;
        let id = self.b.check(format!("{}: duration at most {}", c.name, humantime::format_duration(d)));
        s.checks.push(Check { id, test: CheckTest::MaxDuration(d) });
        self.report(c, depth, Status::Supported, "a duration check");
        Ok(())
    }

    /// The checks of a Response Assertion, whether it ignores the status, and its report; or
    /// why it cannot be checked.
    #[allow(clippy::type_complexity)]
    pub(super) fn response_assertion_checks(
        &mut self,
        c: &El,
    ) -> Result<Result<(Vec<Check>, bool, Status, String), String>, Error> {
        let field = c.text("Assertion.test_field").unwrap_or("Assertion.response_data");
        let (mut field, mut field_name) = match field {
            "Assertion.response_data" | "Assertion.response_data_as_document" => (Field::Body, "body"),
            "Assertion.response_code" => (Field::Status, "status"),
            "Assertion.response_headers" => (Field::Headers, "headers"),
            "Assertion.response_message" => (Field::Message, "response message"),
            // With scope "JMeter Variable" the field is not read.
            _ if c.text("Assertion.scope") == Some("variable") => (Field::Body, "body"),
            "Assertion.request_headers" => (Field::RequestHeaders, "request headers"),
            "Assertion.request_data" => (Field::RequestData, "request data"),
            // ResponseAssertion.getStringToCheck: any other field is the URL.
            _ => (Field::Url, "URL"),
        };
        // Scope "JMeter Variable": the variable's value is checked instead of the field.
        let scoped_var;
        let mut unnamed = false;
        if let Some(name) = self.scope_variable(c)? {
            field = name.0;
            unnamed = name.1.is_empty();
            scoped_var = format!("variable {}", name.1);
            field_name = &scoped_var;
        }
        let ty: u32 = c.text("Assertion.test_type").unwrap_or("2").trim().parse().unwrap_or(2);
        let negate = ty & 4 != 0;
        let any = ty & 32 != 0;
        let strings =
            texts(c.collection("Asserion.test_strings").or(c.collection("Assertion.test_strings")).unwrap_or_default());
        let mut checks = Vec::new();
        let mut bad = Vec::new();
        let mut custom = c.text("Assertion.custom_message").map(str::to_string);
        if unnamed && !negate {
            // setResultForNull replaces any custom message.
            custom = Some(format!("{}: Response was null", c.name));
        }
        for s in &strings {
            let (test, what) = if ty & 16 != 0 {
                (CheckTest::Contains { field, text: self.tmpl(c, s)?, negate }, "contains")
            } else if ty & 8 != 0 {
                (CheckTest::Equals { field, text: self.tmpl(c, s)?, negate }, "equals")
            } else {
                // MATCH is a whole-text match; CONTAINS finds the pattern anywhere (Perl5 regex).
                let whole = ty & 1 != 0;
                let what = if whole { "matches" } else { "contains" };
                let probe = self.tmpl(c, s)?;
                if probe.is_dynamic(&self.b.sym.vars) {
                    (CheckTest::MatchesTemplate { field, pattern: probe, whole, negate }, what)
                } else {
                    let pattern = self.expand(c, s)?;
                    let src = if whole { format!("^(?:{pattern})$") } else { pattern.clone() };
                    match Pattern::perl5(&src) {
                        Ok(regex) => (CheckTest::Matches { field, regex, negate }, what),
                        // JMeter compiles it at run time: "Bad test configuration", the
                        // sample fails. A template check that never compiles does the same.
                        Err(e) => {
                            bad.push(format!(
                                "invalid pattern `{pattern}` ({}): the check fails, as in JMeter",
                                e.lines().last().unwrap_or(&e)
                            ));
                            (
                                CheckTest::MatchesTemplate {
                                    field,
                                    pattern: Template::literal(&pattern),
                                    whole,
                                    negate,
                                },
                                what,
                            )
                        }
                    }
                }
            };
            let msg = custom.clone().unwrap_or_else(|| {
                format!("{}: {field_name} {}{what} {s:?}", c.name, if negate { "not " } else { "" })
            });
            checks.push(Check { id: self.b.check(msg), test });
        }
        let ignore = c.flag("Assertion.assume_success") == Some(true);
        let mut note = format!("{} check(s) on the {field_name}", checks.len());
        if any && checks.len() > 1 {
            // "Or": one check that holds when any pattern does (negated ones included).
            let msg = custom
                .unwrap_or_else(|| format!("{}: {field_name} matches none of {} patterns", c.name, strings.len()));
            let tests = checks.into_iter().map(|c| c.test).collect();
            checks = vec![Check { id: self.b.check(msg), test: CheckTest::Any(tests) }];
            note = format!("any of {} checks on the {field_name}", strings.len());
        }
        // JMeter loads a pattern that does not compile and fails the assertion at run time.
        let status = if bad.is_empty() { Status::Supported } else { Status::Warning };
        for b in bad {
            note.push_str(&format!("; {b}"));
        }
        if unnamed {
            // ResponseAssertion reads `vars.get("")`, null: a NOT test holds, any other fails.
            let what = if negate {
                "scoped to a JMeter variable with no name: the NOT check always holds, as in JMeter"
            } else {
                UNNAMED_SCOPE_FAILS
            };
            return Ok(Ok((checks, ignore, Status::Warning, what.to_string())));
        }
        Ok(Ok((checks, ignore, status, note)))
    }

    /// An assertion scoped to a JMeter variable (`Assertion.scope` = `variable`): the variable
    /// to check and its name (empty: none named, a variable never set); `None` for the other
    /// scopes (the sample and its sub-samples).
    pub(super) fn scope_variable(&mut self, c: &El) -> Result<Option<(Field, String)>, Error> {
        if c.text("Assertion.scope") != Some("variable") {
            return Ok(None);
        }
        let name = c.text_or_empty("Scope.variable").trim().to_string();
        if name.is_empty() {
            // JMeter reads `vars.get("")`, which nothing sets: a variable never set here.
            return Ok(Some((Field::Var(self.b.sym.vars.assign("")), name)));
        }
        // Read as `${name}` reads it, so the plan knows the variable is used here.
        self.tmpl(c, &format!("${{{name}}}"))?;
        match self.b.sym.vars.get(&name) {
            Some(id) => Ok(Some((Field::Var(id), name))),
            _ => {
                Err(self.err(c, format!("the assertion is scoped to variable `{name}`, which is not a variable name")))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::extractor::tests::{plan_with, regex_into};
    use super::*;

    fn inspect_with(children: &str) -> Inspection {
        inspect(&plan_with(children), Path::new("t.jmx"), &Options::default())
    }

    /// The checks of the first request.
    fn checks(i: &Inspection) -> Vec<Check> {
        let plan = i.plan.as_ref().expect("the plan loads");
        let mut out = Vec::new();
        crate::plan::flow::for_each_request(&plan.scenarios[0].flow, &mut |r| {
            if out.is_empty() {
                out = r.after.checks.clone();
            }
        });
        out
    }

    fn response_assertion(scope_var: &str, test_type: u32) -> String {
        format!(
            r#"<ResponseAssertion testclass="ResponseAssertion" testname="ra" enabled="true"><collectionProp name="Asserion.test_strings"><stringProp name="1">OK</stringProp></collectionProp><intProp name="Assertion.test_type">{test_type}</intProp><stringProp name="Assertion.scope">variable</stringProp><stringProp name="Scope.variable">{scope_var}</stringProp></ResponseAssertion><hashTree/>"#
        )
    }

    /// An assertion whose expression does not compile loads, as in JMeter, and fails each
    /// sample: a WARNING, which `--strict` refuses (it was Supported, the warning only a note).
    #[test]
    fn an_assertion_whose_expression_does_not_compile_is_a_warning() {
        let ra = r#"<ResponseAssertion testclass="ResponseAssertion" testname="ra" enabled="true"><collectionProp name="Asserion.test_strings"><stringProp name="1">(</stringProp></collectionProp><intProp name="Assertion.test_type">2</intProp><stringProp name="Assertion.test_field">Assertion.response_data</stringProp></ResponseAssertion><hashTree/>"#;
        let ja = r#"<JSONPathAssertion testclass="JSONPathAssertion" testname="ja" enabled="true"><stringProp name="JSON_PATH">$.a[</stringProp></JSONPathAssertion><hashTree/>"#;
        let xa = r#"<XPathAssertion testclass="XPathAssertion" testname="xa" enabled="true"><stringProp name="XPath.xpath">//a[</stringProp></XPathAssertion><hashTree/>"#;
        for a in [ra, ja, xa] {
            let i = inspect_with(a);
            assert!(i.problems.is_empty(), "{:?}", i.problems);
            let r = i.elements.iter().find(|r| a.contains(&format!("testclass=\"{}\"", r.class))).unwrap();
            assert_eq!(r.status, Status::Warning, "{a}: {}", r.note);
            let strict = inspect(&plan_with(a), Path::new("t.jmx"), &Options { strict: true, ..Default::default() });
            assert!(strict.plan.is_none(), "{a}");
        }
    }

    /// The MD5Hex Assertion checks a non-empty body, then the digest; an empty hex loads, warned,
    /// and fails each sample with JMeter's message. The XML Assertion checks a non-empty body,
    /// then well-formedness.
    #[test]
    fn md5hex_and_xml_assertions_load_as_checks_of_the_body() {
        let md5 = |hex: &str| {
            format!(
                r#"<MD5HexAssertion testclass="MD5HexAssertion" testname="m" enabled="true"><stringProp name="MD5HexAssertion.size">{hex}</stringProp></MD5HexAssertion><hashTree/>"#
            )
        };
        let i = inspect_with(&md5("5D41402ABC4B2A76B9719D911017C592"));
        assert!(i.problems.is_empty(), "{:?}", i.problems);
        let r = i.elements.iter().find(|r| r.class == "MD5HexAssertion").unwrap();
        assert_eq!(r.status, Status::Supported);
        let c = checks(&i);
        assert!(matches!(c[0].test, CheckTest::Size { bytes: 0, .. }), "{:?}", c[0].test);
        assert!(matches!(&c[1].test, CheckTest::Md5Hex(t) if t.source() == "5D41402ABC4B2A76B9719D911017C592"));
        let p = i.plan.as_ref().unwrap();
        assert_eq!(p.checks[c[0].id.0 as usize], "m: Response was null");
        let i = inspect_with(&md5(""));
        let r = i.elements.iter().find(|r| r.class == "MD5HexAssertion").unwrap();
        assert_eq!(r.status, Status::Warning, "{}", r.note);
        let c = checks(&i);
        assert_eq!(i.plan.as_ref().unwrap().checks[c[1].id.0 as usize], "m: MD5Hex to test against is empty");

        let x = r#"<XMLAssertion testclass="XMLAssertion" testname="x" enabled="true"/><hashTree/>"#;
        let i = inspect_with(x);
        assert!(i.problems.is_empty(), "{:?}", i.problems);
        let c = checks(&i);
        let CheckTest::WellFormedXml { doctype, prolog } = &c[1].test else { panic!("{:?}", c[1].test) };
        let p = i.plan.as_ref().unwrap();
        assert_eq!(p.checks[prolog.0 as usize], "x: Content is not allowed in prolog.");
        assert!(p.checks[doctype.0 as usize].starts_with("x: DOCTYPE is disallowed"));
    }

    /// The XPath2 Assertion loads as JMeter's: a check named by its failure message, an
    /// absent query read as `/`, an empty one passing (a warning, no check), one the XPath 1.0
    /// engine cannot read failing each sample (JMeter's Xalan typing throws on it too).
    #[test]
    fn an_xpath2_assertion_is_a_check_with_jmeters_failure_message() {
        let x2 = |props: &str| {
            format!(
                r#"<XPath2Assertion testclass="XPath2Assertion" testname="x2" enabled="true">{props}</XPath2Assertion><hashTree/>"#
            )
        };
        let i = inspect_with(&x2(
            r#"<stringProp name="XPath.xpath">count(//b)</stringProp><boolProp name="XPath.negate">true</boolProp>"#,
        ));
        assert!(i.problems.is_empty(), "{:?}", i.problems);
        let c = checks(&i);
        let x = c.iter().find(|c| matches!(c.test, CheckTest::XPath { .. })).expect("an XPath check");
        let CheckTest::XPath { negate: true, xpath2: true, .. } = &x.test else { panic!("{:?}", x.test) };
        let plan = i.plan.as_ref().unwrap();
        assert_eq!(plan.checks[x.id.0 as usize], "x2: Nodes Matched for count(//b)");
        let absent = inspect_with(&x2(""));
        let absent = checks(&absent);
        let Some(CheckTest::XPath { path, negate: false, .. }) =
            absent.iter().map(|c| &c.test).find(|t| matches!(t, CheckTest::XPath { .. }))
        else {
            panic!("{absent:?}")
        };
        assert_eq!(path.src, "/");
        let empty = inspect_with(&x2(r#"<stringProp name="XPath.xpath"></stringProp>"#));
        assert!(!checks(&empty).iter().any(|c| matches!(c.test, CheckTest::XPath { .. })), "{:?}", checks(&empty));
        assert_eq!(empty.elements.iter().find(|r| r.class == "XPath2Assertion").unwrap().status, Status::Warning);
        let xp2 = inspect_with(&x2(r#"<stringProp name="XPath.xpath">//b[ends-with(., 'x')]</stringProp>"#));
        let r = xp2.elements.iter().find(|r| r.class == "XPath2Assertion").unwrap();
        if r.status == Status::Warning {
            assert!(checks(&xp2).iter().any(|c| matches!(&c.test, CheckTest::Any(v) if v.is_empty())));
        }
    }

    #[test]
    fn a_json_assertion_path_with_a_variable_set_at_run_time_is_compiled_per_sample() {
        let a = r#"<JSONPathAssertion testclass="JSONPathAssertion" testname="ja" enabled="true"><stringProp name="JSON_PATH">$.result.${key}</stringProp><stringProp name="EXPECTED_VALUE">${key}</stringProp><boolProp name="JSONVALIDATION">true</boolProp></JSONPathAssertion><hashTree/>"#;
        let i = inspect_with(&format!("{}{a}", regex_into("key")));
        assert!(i.problems.is_empty(), "{:?}", i.problems);
        let c = checks(&i);
        let CheckTest::JsonAssert { path: None, at: Some(at), .. } = &c[0].test else { panic!("{:?}", c[0].test) };
        assert_eq!(at.src.source(), "$.result.${key}");
    }

    /// An XPath Assertion's query and a Size Assertion's size set while the test runs are read
    /// per sample, not refused as needed at load; a constant size that is no number loads,
    /// warned, and fails each sample (JMeter's NumberFormatException).
    #[test]
    fn xpath_queries_and_sizes_set_at_run_time_are_read_per_sample() {
        let x = r#"<XPathAssertion testclass="XPathAssertion" testname="x" enabled="true"><stringProp name="XPath.xpath">/r/${v}</stringProp></XPathAssertion><hashTree/>"#;
        let size = |n: &str| {
            format!(
                r#"<SizeAssertion testclass="SizeAssertion" testname="s" enabled="true"><stringProp name="SizeAssertion.size">{n}</stringProp><intProp name="SizeAssertion.operator">1</intProp></SizeAssertion><hashTree/>"#
            )
        };
        let i = inspect_with(&format!("{}{x}{}", regex_into("v"), size("${v}")));
        assert!(i.problems.is_empty(), "{:?}", i.problems);
        let c = checks(&i);
        assert!(
            matches!(&c[0].test, CheckTest::XPathAt { path, .. } if path.src.source() == "/r/${v}"),
            "{:?}",
            c[0].test
        );
        let compiled = match &c[0].test {
            CheckTest::XPathAt { path, .. } => path.compiled("/r/[".into()),
            _ => unreachable!(),
        };
        assert!(compiled.1.is_err());
        assert!(matches!(&c[1].test, CheckTest::SizeAt { size, .. } if size.source() == "${v}"), "{:?}", c[1].test);
        let i = inspect_with(&size("12"));
        assert!(matches!(&checks(&i)[0].test, CheckTest::Size { bytes: 12, .. }));
        let i = inspect_with(&size(" 12"));
        assert!(i.problems.is_empty(), "{:?}", i.problems);
        let r = i.elements.iter().find(|r| r.class == "SizeAssertion").unwrap();
        assert_eq!(r.status, Status::Warning, "{}", r.note);
        assert!(matches!(&checks(&i)[0].test, CheckTest::Any(t) if t.is_empty()));
        let p = i.plan.as_ref().unwrap();
        assert!(
            p.checks.iter().any(|m| m.ends_with(r#"java.lang.NumberFormatException: For input string: " 12""#)),
            "{:?}",
            p.checks
        );
    }

    /// An empty size is no number to JMeter (`Long.parseLong("")` throws): warned at load, and
    /// each sample fails with JMeter's message, not a check of size 0.
    #[test]
    fn an_empty_size_fails_each_sample_as_no_number() {
        let s = r#"<SizeAssertion testclass="SizeAssertion" testname="s" enabled="true"><stringProp name="SizeAssertion.size"></stringProp><intProp name="SizeAssertion.operator">1</intProp></SizeAssertion><hashTree/>"#;
        let i = inspect_with(s);
        assert!(i.problems.is_empty(), "{:?}", i.problems);
        let r = i.elements.iter().find(|r| r.class == "SizeAssertion").unwrap();
        assert_eq!(r.status, Status::Warning, "{}", r.note);
        assert!(matches!(&checks(&i)[0].test, CheckTest::Any(t) if t.is_empty()), "{:?}", checks(&i)[0].test);
        let p = i.plan.as_ref().unwrap();
        assert!(
            p.checks.iter().any(|m| m.ends_with(r#"java.lang.NumberFormatException: For input string: """#)),
            "{:?}",
            p.checks
        );
    }

    /// A Duration Assertion's limit set while the test runs is read per sample, not taken as 0.
    #[test]
    fn a_duration_limit_set_at_run_time_is_read_per_sample() {
        let d = r#"<DurationAssertion testclass="DurationAssertion" testname="d" enabled="true"><stringProp name="DurationAssertion.duration">${v}</stringProp></DurationAssertion><hashTree/>"#;
        let i = inspect_with(&format!("{}{d}", regex_into("v")));
        assert!(i.problems.is_empty(), "{:?}", i.problems);
        let c = checks(&i);
        assert!(matches!(&c[0].test, CheckTest::MaxDurationAt(t) if t.source() == "${v}"), "{:?}", c[0].test);
    }

    #[test]
    fn an_assertion_scoped_to_an_unnamed_variable_loads_and_fails_each_sample() {
        let i = inspect_with(&response_assertion("", 16));
        assert!(i.problems.is_empty(), "{:?}", i.problems);
        let r = i.elements.iter().find(|r| r.class == "ResponseAssertion").unwrap();
        assert_eq!((r.status, r.note.as_str()), (Status::Warning, UNNAMED_SCOPE_FAILS));
        let c = checks(&i);
        assert!(matches!(c[0].test, CheckTest::Contains { field: Field::Var(_), negate: false, .. }));
        // NOT holds on an empty value.
        let i = inspect_with(&response_assertion(" ", 20));
        let r = i.elements.iter().find(|r| r.class == "ResponseAssertion").unwrap();
        assert!(r.note.contains("always holds"), "{}", r.note);
        // A named variable is as before.
        let i = inspect_with(&format!("{}{}", regex_into("v"), response_assertion("v", 16)));
        let r = i.elements.iter().find(|r| r.class == "ResponseAssertion").unwrap();
        assert_eq!(r.status, Status::Supported);
    }
}
