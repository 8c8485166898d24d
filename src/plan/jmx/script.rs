//! Script elements (BeanShell, JSR223, BSF): none can run, except the one kind of BeanShell
//! post-processor that appends variables to a file, which becomes a `write` step.

use super::*;

/// The script elements stampede reads, by class; other scripts are [`is_script`].
pub(super) const ELEMENTS: &[(&str, ScopeFn)] = &[("BeanShellPostProcessor", Cx::bean_shell_post_processor)];

/// Whether a class is a script element (which cannot run).
pub(super) fn is_script(class: &str) -> bool {
    class.contains("BeanShell") || class.contains("JSR223") || class.starts_with("BSF")
}

impl Cx {
    /// A post-processor that appends variables to a file is a write step; another script is not run.
    pub(super) fn bean_shell_post_processor(&mut self, c: &El, s: &mut Scope, depth: usize) -> Result<(), Error> {
        if write_back(c.text_or_empty("script")).is_none() {
            return self.script(c, s, depth);
        }
        let (path, vars) = write_back(c.text_or_empty("script")).expect("checked by the guard");
        let path = self.file.parent().unwrap_or(Path::new(".")).join(path);
        let values: Vec<Template> = vars.iter().map(|v| Template::literal(format!("${{{v}}}"))).collect();
        let mut compiled = Vec::new();
        for v in values {
            compiled.push(self.tmpl(c, v.source())?);
        }
        let writer = self.b.writer(path.clone(), None);
        s.after.push(Step::Write(Box::new(flow::Write { writer, values: compiled })));
        self.report(
            c,
            depth,
            Status::Supported,
            format!("a script that appends {} to {}: run as a write step", vars.join(", "), path.display()),
        );
        Ok(())
    }

    /// A script: reported as unsupported.
    pub(super) fn script(&mut self, c: &El, _s: &mut Scope, depth: usize) -> Result<(), Error> {
        self.unsupported(c, depth, "scripts cannot run; a script that appends variables to a file is a `write` step in a YAML plan (docs/jmx.md)");
        Ok(())
    }
}

/// Recognises the one kind of script the corpus uses: read some variables and append them,
/// comma-separated, to a file. Returns the file and the variables, in order.
pub(super) fn write_back(script: &str) -> Option<(String, Vec<String>)> {
    let assign = regex::Regex::new(r#"^(\w+)\s*=\s*vars\.get\("([^"]+)"\)\s*;$"#).ok()?;
    let open = regex::Regex::new(r#"^FileWriter\s+(\w+)\s*=\s*new\s+FileWriter\("([^"]+)"\s*,\s*true\)\s*;$"#).ok()?;
    let write = regex::Regex::new(r#"^(\w+)\.write\((.*)\)\s*;$"#).ok()?;
    let close = regex::Regex::new(r#"^(\w+)\.close\(\)\s*;$"#).ok()?;
    let mut vars: HashMap<String, String> = HashMap::new();
    let (mut file, mut stream, mut values) = (None, None, None);
    for line in script.lines().map(str::trim) {
        if line.is_empty() || line.starts_with("//") || line.starts_with("import ") {
            continue;
        }
        if let Some(c) = assign.captures(line) {
            vars.insert(c[1].to_string(), c[2].to_string());
        } else if let Some(c) = open.captures(line) {
            stream = Some(c[1].to_string());
            file = Some(c[2].to_string());
        } else if let Some(c) = write.captures(line) {
            if stream.as_deref() != Some(&c[1]) {
                return None;
            }
            // a + "," + b + "\n": variables separated by commas, ending with a newline.
            let parts: Vec<&str> = c[2].split('+').map(str::trim).collect();
            let (last, fields) = parts.split_last()?;
            if *last != r#""\n""# {
                return None;
            }
            let mut out = Vec::new();
            for (i, p) in fields.iter().enumerate() {
                if i % 2 == 1 {
                    if *p != r#"",""# {
                        return None;
                    }
                } else {
                    out.push(vars.get(*p)?.clone());
                }
            }
            if fields.len() % 2 == 0 {
                return None;
            }
            values = Some(out);
        } else if close.is_match(line) {
            continue;
        } else {
            return None;
        }
    }
    Some((file?, values?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recognises_scripts_that_append_variables_to_a_file() {
        let script = "import org.apache.jmeter.services.FileServer;\n\nemailid = vars.get(\"em\");\nuserid = vars.get(\"uid\");\nFileWriter fstream = new FileWriter(\"~/out.csv\",true);\nfstream.write(emailid+\",\"+userid+\"\\n\");\n// Close File(s)\nfstream.close();";
        assert_eq!(write_back(script), Some(("~/out.csv".to_string(), vec!["em".to_string(), "uid".to_string()])));
        assert_eq!(write_back("log.info(vars.get(\"x\"));"), None);
        assert_eq!(write_back(&script.replace("+\",\"+", "+")), None);
    }
}
