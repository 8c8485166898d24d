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
            let path = texts(c.collection("ModuleController.node_path").unwrap_or_default());
            match find_node(&self.root, &path) {
                Some(t) => vec![t.clone()],
                None => {
                    self.unsupported(c, depth, &format!("its target `{}` is not in the plan", path.join(" > ")));
                    return Ok(Vec::new());
                }
            }
        } else {
            let name = self.expand(c, c.text_or_empty("IncludeController.includepath"))?;
            if name.trim().is_empty() {
                // JMeter loads nothing for an Include Controller without a file.
                self.report(c, depth, Status::Ignored, "no file named: includes nothing, as in JMeter");
                return Ok(Vec::new());
            }
            let file = self.file.parent().unwrap_or(Path::new(".")).join(name.trim());
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
            let t = &target[0];
            if is_sampler_or_controller(&t.class) {
                self.sampler_or_controller(t, scope, depth + 1)
            } else {
                self.controller_body(&t.children, scope, depth + 1)
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

/// The element a Module Controller's path names: test plan name first, then each child's name.
/// (Plans saved by old JMeter versions start the path with the WorkBench.)
fn find_node<'a>(root: &'a El, path: &[String]) -> Option<&'a El> {
    let start = path.iter().position(|p| *p == root.name)?;
    let mut node = root;
    for name in &path[start + 1..] {
        node = node.children.iter().find(|c| c.name == *name)?;
    }
    (!std::ptr::eq(node, root)).then_some(node)
}
