//! Module and Include Controllers, which run elements found elsewhere (in the plan, in
//! another file), and the test fragments they point to.

use super::*;

/// The controllers that run other elements, by class.
pub(super) const ELEMENTS: &[(&str, StepsFn)] = &[
    ("ModuleController", Cx::module_or_include),
    ("IncludeController", Cx::module_or_include),
    ("TestFragmentController", Cx::test_fragment),
];

impl Cx {
    pub(super) fn module_or_include(&mut self, c: &El, scope: &Scope, depth: usize) -> Result<Vec<Step>, Error> {
        if self.expanding >= 8 {
            return Err(self.err(c, "modules or includes nested more than 8 deep: does the module contain itself?"));
        }
        let target: Vec<El> = if c.class == "ModuleController" {
            // JMeter replaces the module's own subtree by its target: its children never run.
            self.ignore_tree(&c.children, depth + 1);
            let Some(t) = module_target(&self.root, c) else {
                return Err(self.err(c, no_selected_controller(c)));
            };
            vec![t.clone()]
        } else {
            let name = self.expand(c, c.text_or_empty("IncludeController.includepath"))?;
            if name.trim().is_empty() {
                // JMeter loads nothing for an Include Controller without a file.
                self.report(c, depth, Status::Ignored, "no file named: includes nothing, as in JMeter");
                return Ok(Vec::new());
            }
            // An absolute name on an agent: where the controller shipped it.
            let file = crate::confine::moved_path(&self.file.parent().unwrap_or(Path::new(".")).join(name.trim()));
            crate::confine::note_read(&file);
            let text = match std::fs::read_to_string(&file) {
                Ok(t) => t,
                Err(e) => {
                    let e = self.err(c, format!("cannot read {}: {e}", file.display()));
                    if !self.lenient {
                        return Err(e);
                    }
                    self.cannot_read_now(c, depth, e);
                    return Ok(Vec::new());
                }
            };
            let top = tree::parse(&text).map_err(|e| {
                let mut loc = Location::file(&file);
                loc.line = Some(e.line);
                loc.column = Some(e.column);
                Error::new(ErrorKind::Syntax, loc, format!("malformed XML: {}", e.message))
            })?;
            // The included plan's elements (inside its test plan or fragment).
            top.into_iter()
                .flat_map(|t| if t.class == "TestPlan" { t.children } else { vec![t] })
                .flat_map(|t| if t.class == "TestFragmentController" { t.children } else { vec![t] })
                .collect()
        };
        self.report(c, depth, Status::Supported, "runs the elements it points to, here");
        self.expanding += 1;
        let steps = if c.class == "ModuleController" {
            // The target runs even if it is disabled (JMeter runs an enabled copy of it); its
            // own disabled children do not.
            let t = &target[0];
            if t.class == "TestFragmentController" || is_thread_group(&t.class) {
                self.controller_body(&t.children, scope, depth + 1)
            } else if is_sampler_or_controller(&t.class) {
                self.sampler_or_controller(t, scope, depth + 1)
            } else {
                // A config element, timer or listener alone: nothing to run.
                Ok(Vec::new())
            }
        } else {
            self.controller_body(&target, scope, depth + 1)
        };
        self.expanding -= 1;
        steps
    }

    pub(super) fn test_fragment(&mut self, c: &El, _scope: &Scope, depth: usize) -> Result<Vec<Step>, Error> {
        // A fragment runs only through a Module or Include Controller.
        self.report(c, depth, Status::Ignored, "a test fragment: runs where a module or include points to it");
        Ok(Vec::new())
    }
}

/// The element a Module Controller's path names, as JMeter 5.6.3 finds it
/// (`ModuleController.traverse`): the first name is the root of JMeter's tree, above the test
/// plan, and is not compared; the second is the test plan's; then each element's name among
/// the children of the one before, disabled ones included. Several elements of one name are
/// all searched, and the last found wins; a Module Controller is never part of a path.
fn module_target<'a>(root: &'a El, c: &El) -> Option<&'a El> {
    let path = texts(c.collection("ModuleController.node_path").unwrap_or_default());
    if path.len() < 2 || path[1] != root.name {
        return None;
    }
    fn traverse<'a>(node: &'a El, path: &[String], level: usize, found: &mut Option<&'a El>) {
        let Some(name) = path.get(level) else { return };
        for cur in node.children.iter().filter(|c| c.class != "ModuleController" && c.name == *name) {
            if level + 1 == path.len() {
                *found = Some(cur);
            }
            traverse(cur, path, level + 1, found);
        }
    }
    let mut found = (path.len() == 2).then_some(root);
    traverse(root, &path, 2, &mut found);
    found
}

/// JMeter's refusal of a plan with a Module Controller whose path names nothing (an empty
/// path too), word for word.
fn no_selected_controller(c: &El) -> String {
    format!(
        "ModuleController:{} has no selected Controller (did you rename some element in the path to target controller?), test was shutdown as a consequence",
        c.name
    )
}

impl Cx {
    /// Lists elements that do not run (a Module Controller's own children), with their own.
    fn ignore_tree(&mut self, els: &[El], depth: usize) {
        for el in els {
            self.report(el, depth, Status::Ignored, "a Module Controller's own child: JMeter runs its target instead");
            self.ignore_tree(&el.children, depth + 1);
        }
    }

    /// JMeter resolves every Module Controller of the plan before it runs, disabled ones and
    /// ones the test never reaches too, and refuses the plan when one names nothing: those the
    /// walk did not read are checked here.
    pub(super) fn unresolved_modules(&mut self) {
        fn each<'a>(el: &'a El, depth: usize, out: &mut Vec<(&'a El, usize)>) {
            for c in &el.children {
                if c.class == "ModuleController" {
                    out.push((c, depth));
                }
                each(c, depth + 1, out);
            }
        }
        let root = self.root.clone();
        let mut all = Vec::new();
        each(&root, 1, &mut all);
        for (c, depth) in all {
            let reported = self.report.iter().any(|r| r.at == c.at && r.status == Status::Error);
            if !reported && module_target(&root, c).is_none() {
                let e = self.err(c, no_selected_controller(c));
                self.failed(c, depth, e);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn http(n: &str, enabled: bool) -> String {
        format!(
            r#"<HTTPSamplerProxy testclass="HTTPSamplerProxy" testname="{n}" enabled="{enabled}"><stringProp name="HTTPSampler.domain">127.0.0.1</stringProp><stringProp name="HTTPSampler.path">/{n}</stringProp></HTTPSamplerProxy><hashTree/>"#
        )
    }

    fn el(class: &str, name: &str, enabled: bool, children: &str) -> String {
        format!(
            r#"<{class} testclass="{class}" testname="{name}" enabled="{enabled}"/><hashTree>{children}</hashTree>"#
        )
    }

    fn module(name: &str, path: &[&str], enabled: bool, children: &str) -> String {
        let path: String = path.iter().map(|p| format!(r#"<stringProp name="x">{p}</stringProp>"#)).collect();
        format!(
            r#"<ModuleController testclass="ModuleController" testname="{name}" enabled="{enabled}"><collectionProp name="ModuleController.node_path">{path}</collectionProp></ModuleController><hashTree>{children}</hashTree>"#
        )
    }

    fn plan(body: &str) -> String {
        format!(
            r#"<jmeterTestPlan><hashTree><TestPlan testclass="TestPlan" testname="TP" enabled="true"/><hashTree>{body}</hashTree></hashTree></jmeterTestPlan>"#
        )
    }

    fn paths(p: &Plan) -> Vec<String> {
        let mut out = Vec::new();
        flow::for_each_request(&p.scenarios[0].flow, &mut |r| out.push(r.url()));
        out.into_iter().map(|u| u.trim_start_matches("http://127.0.0.1").to_string()).collect()
    }

    /// #13, checked against JMeter 5.6.3: the path's first name is not compared (the root above
    /// the test plan), the second is the test plan's; a disabled target runs (in a disabled
    /// thread group too), its disabled children do not; a test fragment runs its children;
    /// the module's own children never run.
    #[test]
    fn a_module_runs_its_target_as_jmeter_finds_it() {
        let target = el("GenericController", "Target", true, &(http("t1", true) + &http("t2", false)));
        let group = |name: &str, enabled: bool, body: &str| {
            format!(
                r#"<ThreadGroup testclass="ThreadGroup" testname="{name}" enabled="{enabled}"><stringProp name="ThreadGroup.num_threads">1</stringProp></ThreadGroup><hashTree>{body}</hashTree>"#
            )
        };
        let body = [
            module("M", &["whatever", "TP", "Frag", "Target"], true, &http("own-child", true)),
            module("M2", &["z", "TP", "G2", "Disabled"], true, ""),
            module("M3", &["z", "TP", "Frag"], true, ""),
        ]
        .concat();
        let text = plan(
            &[
                group("G", true, &body),
                el("TestFragmentController", "Frag", false, &target),
                group("G2", false, &el("GenericController", "Disabled", false, &http("d1", true))),
            ]
            .concat(),
        );
        let i = inspect(&text, Path::new("t.jmx"), &Options::default());
        assert!(i.problems.is_empty(), "{:?}", i.problems);
        assert_eq!(paths(i.plan.as_ref().unwrap()), ["/t1", "/d1", "/t1"]);
        let own = i.elements.iter().find(|r| r.name == "own-child").unwrap();
        assert_eq!(own.status, Status::Ignored);
    }

    /// #13: JMeter refuses a plan with a Module Controller whose path names nothing, an empty
    /// path, or a path through another module, disabled or not, with its own words.
    #[test]
    fn a_module_naming_nothing_refuses_the_plan_as_jmeter() {
        let group = |body: &str| {
            format!(
                r#"<ThreadGroup testclass="ThreadGroup" testname="G" enabled="true"><stringProp name="ThreadGroup.num_threads">1</stringProp></ThreadGroup><hashTree>{}{body}</hashTree>"#,
                http("ok", true)
            )
        };
        for m in [
            module("MB", &["TP", "TP", "nothing"], true, ""),
            module("MB", &["TP", "G", "ok"], false, ""),
            module("MB", &[], true, ""),
            module("MB", &["x", "TP", "G", "Mod", "ok"], true, "") + &module("Mod", &["x", "TP", "G"], true, ""),
        ] {
            let text = plan(&group(&m));
            let e = read(&text, Path::new("t.jmx"), &Options::default()).unwrap_err();
            let want = "ModuleController:MB has no selected Controller (did you rename some element in the path to target controller?), test was shutdown as a consequence";
            assert!(e.to_string().contains(want), "{m}: {e}");
        }
    }

    /// Plans written by tools may hold a whole tree on one line: each element is still told
    /// apart from a neighbour of its class on that line (by its offset), so an error is
    /// reported on the element that has it, and `check` lists them in the plan's order.
    #[test]
    fn an_error_lands_on_its_own_element_when_elements_share_a_line() {
        let body = format!(
            r#"<ThreadGroup testclass="ThreadGroup" testname="G" enabled="true"><stringProp name="ThreadGroup.num_threads">1</stringProp></ThreadGroup><hashTree>{}{}{}</hashTree>"#,
            http("ok", true),
            module("MA", &["x", "TP", "G", "ok"], true, ""),
            module("MB", &["x", "TP", "nothing"], true, "")
        );
        let text = plan(&body);
        assert_eq!(text.lines().count(), 1);
        let i = inspect(&text, Path::new("t.jmx"), &Options::default());
        let status = |name: &str| {
            let r: Vec<_> = i.elements.iter().filter(|r| r.name == name).collect();
            assert_eq!(r.len(), 1, "{name}: {:?}", i.elements);
            (r[0].status, r[0].note.clone())
        };
        assert_ne!(status("MA").0, Status::Error, "{:?}", i.elements);
        let (mb, note) = status("MB");
        assert_eq!(mb, Status::Error, "{:?}", i.elements);
        assert!(note.contains("ModuleController:MB has no selected Controller"), "{note}");
        // The module's target is listed again where the module runs it.
        let order: Vec<&str> = i.elements.iter().map(|r| r.name.as_str()).collect();
        assert_eq!(order, ["TP", "G", "ok", "ok", "MA", "MB"]);
    }
}
