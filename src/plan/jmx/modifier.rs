//! The HTTP modifiers, pre-processors that change the request of each HTTP sampler in their
//! scope: RegEx User Parameters and the HTTP URL Re-writing Modifier.

use super::*;
use crate::plan::sampler::http::{ParamOverride, Pattern, UrlRewrite, MAX_ALL_MATCHES};

pub(super) const ELEMENTS: &[(&str, ScopeFn)] = &[
    ("RegExUserParameters", Cx::regex_user_parameters),
    ("URLRewritingModifier", Cx::url_rewriting_modifier),
    ("AnchorModifier", Cx::anchor_modifier),
    ("kg.apc.jmeter.modifiers.AnchorModifier", Cx::spider),
    ("SampleTimeout", Cx::sample_timeout),
];

const SAMPLE_TIMEOUT: &str = "InterruptTimer.timeout";

const URL_REWRITING: &str = "URLRewritingModifier";

const REF: &str = "RegExUserParameters.regex_ref_name";
const NAMES: &str = "RegExUserParameters.param_names_gr_nr";
const VALUES: &str = "RegExUserParameters.param_values_gr_nr";

impl Cx {
    /// A Sample Timeout is a SampleMonitor: JMeter's thread finds every one in its thread
    /// group's tree and the test plan's (not only in scope) and each schedules an interrupt as
    /// any sampler starts; HTTP samplers are interrupted (see `sample_timeout_of`).
    pub(super) fn sample_timeout(&mut self, c: &El, _s: &mut Scope, depth: usize) -> Result<(), Error> {
        let note = match self.sample_timeout_ms(c) {
            Ok(Some(ms)) => format!(
                "interrupts each HTTP sample of its thread group (wherever it stands, as JMeter's) running longer than {ms} ms: \
                 `java.net.SocketException`, `Socket closed`"
            ),
            Ok(None) => "a timeout of 0 or less, or no whole number: interrupts nothing, as in JMeter".to_string(),
            Err(raw) => {
                let why = format!("timeout `{raw}` is known only while running: not applied");
                self.report(c, depth, Status::Partial, why);
                return Ok(());
            }
        };
        self.report(c, depth, Status::Supported, note);
        Ok(())
    }

    /// A Sample Timeout's milliseconds, as JMeter reads them (`getPropertyAsLong`: a value
    /// `Long.parseLong` does not take is 0); none when 0 or less; `Err` when it needs a
    /// variable set while running.
    fn sample_timeout_ms(&mut self, c: &El) -> Result<Option<u64>, String> {
        let raw = c.text_or_empty(SAMPLE_TIMEOUT).to_string();
        let v = self.expand(c, &raw).map_err(|_| raw.clone())?;
        Ok(v.parse::<i64>().ok().filter(|ms| *ms > 0).map(|ms| ms as u64))
    }

    /// The shortest Sample Timeout an HTTP sampler of thread group `tg` is interrupted after:
    /// of every enabled one in the group's tree and in the test plan's other elements.
    pub(super) fn sample_timeout_of(&mut self, test_plan: &El, tg: &El) -> Option<Duration> {
        if !self.text.contains("SampleTimeout") {
            return None;
        }
        fn collect<'a>(els: &'a [El], out: &mut Vec<&'a El>) {
            for el in els.iter().filter(|e| e.enabled) {
                if el.class == "SampleTimeout" {
                    out.push(el);
                }
                collect(&el.children, out);
            }
        }
        let mut found = Vec::new();
        for el in test_plan.children.iter().filter(|e| !super::thread_group::is_thread_group(&e.class)) {
            collect(std::slice::from_ref(el), &mut found);
        }
        collect(&tg.children, &mut found);
        found.into_iter().filter_map(|el| self.sample_timeout_ms(el).ok().flatten()).min().map(Duration::from_millis)
    }

    /// RegEx User Parameters: before each HTTP sample in scope, when the Regular Expression
    /// Extractor `ref` (match number -1) has found matches (`ref_matchNr`, `ref_1_gN` and
    /// `ref_1_gV` are set), a parameter named as group N of a match is sent with group V of
    /// that match (`RegExUserParameters.process`; the last match of a name wins).
    pub(super) fn regex_user_parameters(&mut self, c: &El, s: &mut Scope, depth: usize) -> Result<(), Error> {
        let Some((name, names, values)) = regex_user_parameters_of(c) else {
            let why = "its groups are not numbers: the variables it reads are never set, so it changes nothing";
            self.report(c, depth, Status::Ignored, why);
            return Ok(());
        };
        let (names_v, values_v) = (self.match_groups(&name, names), self.match_groups(&name, values));
        let count = self.b.sym.vars.assign(&format!("{name}_matchNr"));
        s.param_overrides.push(ParamOverride { count, names: names_v, values: values_v });
        let note = format!(
            "query and form parameters named as group {names} of each match of `{name}` (match number -1) \
             are sent with its group {values}"
        );
        self.report(c, depth, Status::Supported, note);
        Ok(())
    }

    /// Group `g` of each match an extractor into `name` keeps: `name_1_gG` ... (JMeter's
    /// RegexExtractor.saveGroups).
    pub(super) fn match_groups(&mut self, name: &str, g: usize) -> Vec<VarId> {
        let vars = &mut self.b.sym.vars;
        (1..=MAX_ALL_MATCHES)
            .map(|i| {
                let id = vars.assign(&format!("{name}_{i}_g{g}"));
                vars.quiet(id);
                id
            })
            .collect()
    }

    /// The groups the plan's RegEx User Parameters read of the extractor into `name`, to keep
    /// per match (`name_i_gK`).
    pub(super) fn groups_read_of(&self, name: &str) -> Vec<usize> {
        fn walk(el: &El, name: &str, out: &mut Vec<usize>) {
            for c in el.children.iter().filter(|c| c.enabled) {
                if c.class == "RegExUserParameters" {
                    if let Some((r, n, v)) = regex_user_parameters_of(c) {
                        if r == name {
                            out.extend([n, v]);
                        }
                    }
                }
                walk(c, name, out);
            }
        }
        let mut out = Vec::new();
        walk(&self.root, name, &mut out);
        out.sort_unstable();
        out.dedup();
        out
    }
}

impl Cx {
    /// The HTML Link Parser: before each HTTP sampler in scope, a link, form or frame of the
    /// previous HTTP sample's page that matches the sampler is drawn and sent instead
    /// (`AnchorModifier.process`; see `plan::anchor`). It keeps the user's last sample, as a
    /// script pre-processor does.
    pub(super) fn anchor_modifier(&mut self, c: &El, s: &mut Scope, depth: usize) -> Result<(), Error> {
        let anchor = crate::plan::anchor::Anchor { name: c.name.clone(), spider: None, sampler: None };
        s.before.push(Step::Anchor(Box::new(anchor)));
        let note = "each HTTP sampler in scope is sent to a link or form of the previous HTTP page that matches its \
                    domain, path and argument names (regular expressions), drawn at random; unchanged when none does";
        self.report(c, depth, Status::Supported, note);
        Ok(())
    }

    /// The jmeter-plugins Spider PreProcessor: the HTML Link Parser's candidates, remembered by
    /// each user, followed depth first (`kg.apc.jmeter.modifiers.AnchorModifier`; see
    /// `plan::anchor::Spider`). It has no property of its own.
    pub(super) fn spider(&mut self, c: &El, s: &mut Scope, depth: usize) -> Result<(), Error> {
        let anchor = crate::plan::anchor::Anchor { name: c.name.clone(), spider: Some(self.spiders), sampler: None };
        self.spiders += 1;
        s.before.push(Step::Anchor(Box::new(anchor)));
        let note = "each HTTP sampler in scope is sent to the last link kept and not yet followed, of those on the \
                    previous HTTP pages on the domain of the first one kept (every link; forms and frames that match \
                    the sampler); with none left the sampler is sent as it is and the test stops";
        self.report(c, depth, Status::Supported, note);
        Ok(())
    }

    /// The HTTP URL Re-writing Modifier: before each HTTP sample in scope (but the user's first
    /// sample), the session id found in the previous sample's response is sent as the
    /// parameter `argument_name` or as a path extension (`URLRewritingModifier.process`).
    pub(super) fn url_rewriting_modifier(&mut self, c: &El, s: &mut Scope, depth: usize) -> Result<(), Error> {
        let name = c.text_or_empty("argument_name").to_string();
        let path_extension = c.flag("path_extension").unwrap_or(false);
        let cache = c.flag("cache_value").unwrap_or(true);
        let found = self.url_rewrite_var(c);
        // The modifier's own state (no value saved yet is `""`), never unset.
        let saved = cache.then(|| {
            let state = format!("{}_saved", url_rewrite_name(c));
            self.b.sym.vars.define(&state, String::new());
            self.b.sym.vars.assign(&state)
        });
        s.url_rewrites.push(UrlRewrite {
            name: name.clone(),
            path_extension,
            no_equals: c.flag("path_extension_no_equals").unwrap_or(false),
            encode: c.flag("encode").unwrap_or(false),
            found,
            saved,
        });
        let how =
            if path_extension { format!("the path extension `;{name}`") } else { format!("the parameter `{name}`") };
        let note = format!(
            "the session id in the previous HTTP response is sent as {how}{}; a sample made without a \
             connection (Debug, Dummy, Java) is not the previous response here",
            if cache { ", the last one found when it has none" } else { "" }
        );
        self.report(c, depth, Status::Partial, note);
        Ok(())
    }

    /// The variable a modifier's session id is found into (initially "no previous sample").
    fn url_rewrite_var(&mut self, c: &El) -> VarId {
        let name = url_rewrite_name(c);
        self.b.sym.vars.define(&name, UrlRewrite::NO_PREVIOUS.to_string());
        self.b.sym.vars.assign(&name)
    }

    /// What every request of a plan with URL Re-writing Modifiers carries: for each modifier,
    /// the extractor of its session id from the response, for the next sample (the previous
    /// result JMeter's modifier reads is any sample of the thread, in its scope or not). Every
    /// modifier of the plan, not only those of the sampler's thread group: one at the test
    /// plan's level applies to every group, and a sampler a Module Controller runs from a Test
    /// Fragment is in no group of the tree; a modifier whose scope a user never reaches only
    /// sets a variable nothing reads.
    pub(super) fn url_rewriting_extractors(&mut self) -> Vec<Extractor> {
        fn modifiers<'a>(el: &'a El, out: &mut Vec<&'a El>) {
            // A disabled Test Fragment runs through a Module Controller.
            for c in el.children.iter().filter(|c| c.enabled || c.class == "TestFragmentController") {
                if c.class == URL_REWRITING {
                    out.push(c);
                }
                modifiers(c, out);
            }
        }
        let found = match &self.url_rewriters {
            Some(found) => found.clone(),
            None => {
                let mut found = Vec::new();
                modifiers(&self.root, &mut found);
                // The modifiers alone, not the tree, outlive the walk.
                let found: std::sync::Arc<[El]> = found.into_iter().cloned().collect();
                self.url_rewriters = Some(found.clone());
                found
            }
        };
        let mut out = Vec::new();
        for m in found.iter() {
            let q = regex::escape(m.text_or_empty("argument_name"));
            let (src, template) = if m.flag("path_extension").unwrap_or(false) {
                let eq = if m.flag("path_extension_no_equals").unwrap_or(false) { "" } else { "=" };
                let qm = if m.flag("path_extension_no_questionmark").unwrap_or(false) { "?" } else { "" };
                (format!(r#";{q}{eq}([^"'<>&\s;{qm}]*)"#), "$1$")
            } else {
                (
                    format!(
                        r#"[;\?&]{q}=([^"'<>&\s;\\]*)|\s[Nn][Aa][Mm][Ee]\s*=\s*["']{q}["'][^>]*\s[vV][Aa][Ll][Uu][Ee]\s*=\s*["']([^"']*)["']|\s[vV][Aa][Ll][Uu][Ee]\s*=\s*["']([^"']*)["'][^>]*\s[Nn][Aa][Mm][Ee]\s*=\s*["']{q}["']"#
                    ),
                    "$1$$2$$3$",
                )
            };
            let Ok(regex) = Pattern::perl5(&src) else { continue };
            let var = self.url_rewrite_var(m);
            out.push(Extractor {
                var,
                into: url_rewrite_name(m),
                source: ExtractSource::Regex { regex, template: template.into(), from: Field::Body },
                match_no: 1,
                default: Some(Template::literal("")),
                required: None,
                all: None,
                empty_default: crate::plan::sampler::http::EmptyDefault::Set,
                groups: None,
            });
        }
        out
    }
}

/// The variable of a URL Re-writing Modifier's session id: one per element.
fn url_rewrite_name(c: &El) -> String {
    format!("__url_rewrite_{}", c.line)
}

/// (reference name, names group, values group) of a RegEx User Parameters; `None` when a group
/// is not a number as the extractor writes one (JMeter reads the variable `ref_1_g` + the field
/// as written: `ref_1_g01` or `ref_1_g 1` is never set).
fn regex_user_parameters_of(c: &El) -> Option<(String, usize, usize)> {
    let group = |p: &str| {
        let raw = c.text_or_empty(p);
        raw.parse::<usize>().ok().filter(|g| g.to_string() == raw)
    };
    Some((c.text_or_empty(REF).trim().to_string(), group(NAMES)?, group(VALUES)?))
}

#[cfg(test)]
mod tests {
    use super::super::{inspect, Options};
    use super::*;

    fn plan(names_group: &str) -> String {
        format!(
            r#"<jmeterTestPlan><hashTree><TestPlan testclass="TestPlan" testname="P" enabled="true"/><hashTree>
            <ThreadGroup testclass="ThreadGroup" testname="T" enabled="true"><stringProp name="ThreadGroup.num_threads">1</stringProp></ThreadGroup>
            <hashTree>
              <HTTPSamplerProxy testclass="HTTPSamplerProxy" testname="form" enabled="true"><stringProp name="HTTPSampler.domain">127.0.0.1</stringProp></HTTPSamplerProxy>
              <hashTree><RegexExtractor testclass="RegexExtractor" testname="x" enabled="true">
                <stringProp name="RegexExtractor.refname">p</stringProp><stringProp name="RegexExtractor.regex">(a)(b)</stringProp>
                <stringProp name="RegexExtractor.match_number">-1</stringProp></RegexExtractor><hashTree/></hashTree>
              <HTTPSamplerProxy testclass="HTTPSamplerProxy" testname="send" enabled="true"><stringProp name="HTTPSampler.domain">127.0.0.1</stringProp></HTTPSamplerProxy>
              <hashTree><RegExUserParameters testclass="RegExUserParameters" testname="E" enabled="true">
                <stringProp name="RegExUserParameters.regex_ref_name">p</stringProp>
                <stringProp name="RegExUserParameters.param_names_gr_nr">{names_group}</stringProp>
                <stringProp name="RegExUserParameters.param_values_gr_nr">2</stringProp></RegExUserParameters><hashTree/></hashTree>
            </hashTree></hashTree></hashTree></jmeterTestPlan>"#
        )
    }

    /// A URL Re-writing Modifier finds its session id in the previous response of the user's
    /// thread whichever sampler made it: placed at the test plan's level, or applied to the
    /// samplers a Module Controller runs from a Test Fragment, every request carries its
    /// extractor (else it would never find one and never change a request).
    #[test]
    fn every_request_carries_the_extractor_of_a_modifier_outside_its_thread_group() {
        let http = |n: &str| {
            format!(
                r#"<HTTPSamplerProxy testclass="HTTPSamplerProxy" testname="{n}" enabled="true"><stringProp name="HTTPSampler.domain">127.0.0.1</stringProp></HTTPSamplerProxy><hashTree/>"#
            )
        };
        let modifier = r#"<URLRewritingModifier testclass="URLRewritingModifier" testname="rw" enabled="true">
            <stringProp name="argument_name">sid</stringProp></URLRewritingModifier><hashTree/>"#;
        let text = format!(
            r#"<jmeterTestPlan><hashTree><TestPlan testclass="TestPlan" testname="P" enabled="true"/><hashTree>
            {modifier}
            <TestFragmentController testclass="TestFragmentController" testname="F" enabled="false"/><hashTree>{}{}</hashTree>
            <ThreadGroup testclass="ThreadGroup" testname="T" enabled="true"><stringProp name="ThreadGroup.num_threads">1</stringProp></ThreadGroup>
            <hashTree>{}
              <ModuleController testclass="ModuleController" testname="M" enabled="true"><collectionProp name="ModuleController.node_path">
                <stringProp name="1">Test Plan</stringProp><stringProp name="2">P</stringProp><stringProp name="3">F</stringProp></collectionProp></ModuleController><hashTree/>
            </hashTree></hashTree></hashTree></jmeterTestPlan>"#,
            http("from-fragment"),
            modifier.replace("\"rw\"", "\"in-fragment\""),
            http("own"),
        );
        let i = inspect(&text, Path::new("t.jmx"), &Options::default());
        assert!(i.problems.is_empty(), "{:?}", i.problems);
        let p = i.plan.expect("loads");
        let mut requests = Vec::new();
        flow::for_each_request(&p.scenarios[0].flow, &mut |r| requests.push(r.clone()));
        let rewrites: Vec<usize> = requests.iter().map(|r| r.url_rewrites.len()).collect();
        assert_eq!(rewrites, [1, 2], "the fragment's sampler is in the scope of both");
        for r in &requests {
            for rw in &r.url_rewrites {
                assert!(r.after.extract.iter().any(|e| e.var == rw.found), "{}: {:?}", r.url(), r.after.extract);
            }
        }
    }

    /// The extractor keeps the groups the modifier reads (`p_i_g1`, `p_i_g2`), and the modifier
    /// reads those same variables; groups that are not numbers name variables never set.
    #[test]
    fn the_extractor_keeps_the_groups_the_modifier_reads() {
        let i = inspect(&plan("1"), Path::new("t.jmx"), &Options::default());
        let p = i.plan.expect("loads");
        let mut requests = Vec::new();
        flow::for_each_request(&p.scenarios[0].flow, &mut |r| requests.push(r.clone()));
        let all = requests[0].after.extract[0].all.as_ref().unwrap();
        assert_eq!(all.groups.iter().map(|(g, v)| (*g, v.len())).collect::<Vec<_>>(), [(1, 64), (2, 64)]);
        let o = &requests[1].param_overrides[0];
        assert_eq!((o.count, &o.names, &o.values), (all.count, &all.groups[0].1, &all.groups[1].1));
        assert!(requests[0].param_overrides.is_empty(), "only the sampler in its scope");
        for not_a_group in ["one", "01", " 1", "+1"] {
            let i = inspect(&plan(not_a_group), Path::new("t.jmx"), &Options::default());
            assert_eq!(i.elements.iter().find(|r| r.name == "E").unwrap().status, Status::Ignored, "{not_a_group:?}");
            assert!(i.plan.is_some());
        }
    }

    /// Each Spider PreProcessor has its own index (its memory in each user), the same before
    /// every sampler in its scope; an HTML Link Parser has none.
    #[test]
    fn each_spider_pre_processor_has_one_memory_for_every_sampler_in_its_scope() {
        let spider = |n: &str| {
            format!(
                r#"<kg.apc.jmeter.modifiers.AnchorModifier testclass="kg.apc.jmeter.modifiers.AnchorModifier" testname="{n}" enabled="true"/><hashTree/>"#
            )
        };
        let http = |n: &str, children: &str| {
            format!(
                r#"<HTTPSamplerProxy testclass="HTTPSamplerProxy" testname="{n}" enabled="true"><stringProp name="HTTPSampler.domain">127.0.0.1</stringProp></HTTPSamplerProxy><hashTree>{children}</hashTree>"#
            )
        };
        let parser = r#"<AnchorModifier testclass="AnchorModifier" testname="parser" enabled="true"/><hashTree/>"#;
        let text = format!(
            r#"<jmeterTestPlan><hashTree><TestPlan testclass="TestPlan" testname="P" enabled="true"/><hashTree>
            <ThreadGroup testclass="ThreadGroup" testname="T" enabled="true"><stringProp name="ThreadGroup.num_threads">1</stringProp></ThreadGroup>
            <hashTree>{}{}{}</hashTree></hashTree></hashTree></jmeterTestPlan>"#,
            spider("outer"),
            http("a", parser),
            http("b", &spider("inner")),
        );
        let i = inspect(&text, Path::new("t.jmx"), &Options::default());
        assert!(i.problems.is_empty(), "{:?}", i.problems);
        let outer = i.elements.iter().find(|r| r.name == "outer").unwrap();
        assert_eq!(outer.status, Status::Supported);
        let p = i.plan.expect("loads");
        let anchors: Vec<(&str, Option<u32>)> = p.scenarios[0]
            .flow
            .iter()
            .filter_map(|s| match s {
                Step::Anchor(a) => Some((a.name.as_str(), a.spider)),
                _ => None,
            })
            .collect();
        assert_eq!(anchors, [("outer", Some(0)), ("parser", None), ("outer", Some(0)), ("inner", Some(1))]);
    }
}
