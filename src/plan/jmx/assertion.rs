//! Assertions: checks on each response in their scope (response, JSONPath, size and
//! duration assertions).

use super::*;

/// The assertions, by class.
pub(super) const ELEMENTS: &[(&str, ScopeFn)] = &[
    ("ResponseAssertion", Cx::response_assertion),
    ("JSONPathAssertion", Cx::json_path_assertion),
    ("SizeAssertion", Cx::size_assertion),
    ("DurationAssertion", Cx::duration_assertion),
];

impl Cx {
    pub(super) fn response_assertion(&mut self, c: &El, s: &mut Scope, depth: usize) -> Result<(), Error> {
        match self.response_assertion_checks(c)? {
            Ok((checks, ignore, status, note)) => {
                s.checks.extend(checks);
                s.ignore_status |= ignore;
                self.report(c, depth, status, note);
            }
            Err(why) => self.unsupported(c, depth, &why),
        };
        Ok(())
    }

    pub(super) fn json_path_assertion(&mut self, c: &El, s: &mut Scope, depth: usize) -> Result<(), Error> {
        let src = self.expand(c, c.text_or_empty("JSON_PATH"))?;
        let path = serde_json_path::JsonPath::parse(&src)
            .map_err(|e| self.err(c, format!("invalid JSONPath `{src}`: {e}")))?;
        let negate = c.flag("INVERT").unwrap_or(false);
        let compare = c.flag("JSONVALIDATION").unwrap_or(false) && !c.flag("EXPECT_NULL").unwrap_or(false);
        let expected = c.text_or_empty("EXPECTED_VALUE").to_string();
        let regex_like =
            c.flag("ISREGEX").unwrap_or(true) && expected.contains(['*', '+', '?', '[', '(', '|', '^', '$', '\\']);
        let equals = if compare { Some(self.tmpl(c, &expected)?) } else { None };
        let what = match &equals {
            Some(_) => format!("{src} equals {expected:?}"),
            None => format!("{src} exists"),
        };
        let id = self.b.check(format!("{}: {}{what}", c.name, if negate { "not " } else { "" }));
        s.checks.push(Check { id, test: CheckTest::Json { path: JsonPathExpr { src, path }, equals, negate } });
        if compare && regex_like {
            self.report(
                c,
                depth,
                Status::Partial,
                "the expected value is compared as text, not as a regular expression",
            );
        } else {
            self.report(c, depth, Status::Supported, "a JSONPath check");
        }
        Ok(())
    }

    pub(super) fn size_assertion(&mut self, c: &El, s: &mut Scope, depth: usize) -> Result<(), Error> {
        use super::super::compare::CmpOp;
        use request::SizePart;
        let bytes: u64 = self.number(c, c.text("SizeAssertion.size").unwrap_or("0"), "size")?;
        let op = match c.text("SizeAssertion.operator").unwrap_or("1").trim() {
            "2" => CmpOp::Ne,
            "3" => CmpOp::Gt,
            "4" => CmpOp::Lt,
            "5" => CmpOp::Ge,
            "6" => CmpOp::Le,
            _ => CmpOp::Eq,
        };
        if c.text("Assertion.scope") == Some("variable") {
            self.unsupported(c, depth, "the size of a JMeter variable is not checked");
            return Ok(());
        }
        let (part, what) = match c.text("Assertion.test_field").unwrap_or("SizeAssertion.response_network_size") {
            "SizeAssertion.response_headers" => (SizePart::Headers, "headers"),
            "SizeAssertion.response_data" => (SizePart::Body, "body"),
            "SizeAssertion.response_network_size" => (SizePart::Whole, "response"),
            other => {
                self.unsupported(c, depth, &format!("the size of `{other}` is not measured"));
                return Ok(());
            }
        };
        let id = self.b.check(format!("{}: {what} size {op:?} {bytes} bytes", c.name));
        s.checks.push(Check { id, test: CheckTest::Size { part, op, bytes } });
        self.report(c, depth, Status::Supported, "a size check");
        Ok(())
    }

    pub(super) fn duration_assertion(&mut self, c: &El, s: &mut Scope, depth: usize) -> Result<(), Error> {
        let ms: f64 = self.number(c, c.text("DurationAssertion.duration").unwrap_or("0"), "duration")?;
        let d = self.millis(c, ms, "duration")?;
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
            "Assertion.sample_label" => (Field::Url, "URL"),
            // With scope "JMeter Variable" the field is not read.
            _ if c.text("Assertion.scope") == Some("variable") => (Field::Body, "body"),
            other => return Ok(Err(format!("field `{other}` cannot be checked"))),
        };
        // Scope "JMeter Variable": the variable's value is checked instead of the field.
        let scoped_var;
        if let Some(name) = self.scope_variable(c)? {
            field = name.0;
            scoped_var = format!("variable {}", name.1);
            field_name = &scoped_var;
        }
        let ty: u32 = c.text("Assertion.test_type").unwrap_or("2").trim().parse().unwrap_or(2);
        let negate = ty & 4 != 0;
        let any = ty & 32 != 0;
        let strings =
            texts(c.collection("Asserion.test_strings").or(c.collection("Assertion.test_strings")).unwrap_or_default());
        let mut checks = Vec::new();
        let custom = c.text("Assertion.custom_message").map(str::to_string);
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
                    let src = if whole { format!("^(?:{pattern})$") } else { pattern };
                    let regex = regex::Regex::new(&src).map_err(|e| self.err(c, format!("invalid pattern: {e}")))?;
                    (CheckTest::Matches { field, regex, negate }, what)
                }
            };
            let msg = custom.clone().unwrap_or_else(|| {
                format!("{}: {field_name} {}{what} {s:?}", c.name, if negate { "not " } else { "" })
            });
            checks.push(Check { id: self.b.check(msg), test });
        }
        let ignore = c.flag("Assertion.assume_success") == Some(true);
        let (status, note) = if any && strings.len() > 1 {
            (Status::Partial, "`Or` of several patterns is checked as `And`".to_string())
        } else {
            (Status::Supported, format!("{} check(s) on the {field_name}", checks.len()))
        };
        Ok(Ok((checks, ignore, status, note)))
    }

    /// An assertion scoped to a JMeter variable (`Assertion.scope` = `variable`): the variable
    /// to check and its name; `None` for the other scopes (the sample and its sub-samples).
    pub(super) fn scope_variable(&mut self, c: &El) -> Result<Option<(Field, String)>, Error> {
        if c.text("Assertion.scope") != Some("variable") {
            return Ok(None);
        }
        let name = c.text_or_empty("Scope.variable").trim().to_string();
        if name.is_empty() {
            return Err(self.err(c, "the assertion is scoped to a JMeter variable but names none"));
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
