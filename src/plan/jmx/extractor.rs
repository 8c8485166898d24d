//! Post-processors that extract values from responses into variables: regular expression,
//! JSON and boundary extractors.

use super::*;

/// The extractors, by class.
pub(super) const ELEMENTS: &[(&str, ScopeFn)] = &[
    ("RegexExtractor", Cx::regex_extractor),
    ("JSONPostProcessor", Cx::json_extractor),
    ("BoundaryExtractor", Cx::boundary_extractor),
];

impl Cx {
    pub(super) fn regex_extractor(&mut self, c: &El, s: &mut Scope, depth: usize) -> Result<(), Error> {
        let e = self.read_regex_extractor(c)?;
        s.extract.push(e.0);
        self.report(c, depth, e.1, e.2);
        Ok(())
    }

    pub(super) fn json_extractor(&mut self, c: &El, s: &mut Scope, depth: usize) -> Result<(), Error> {
        let (list, status, note) = self.read_json_extractor(c)?;
        s.extract.extend(list);
        self.report(c, depth, status, note);
        Ok(())
    }

    pub(super) fn boundary_extractor(&mut self, c: &El, s: &mut Scope, depth: usize) -> Result<(), Error> {
        let name = c.text_or_empty("BoundaryExtractor.refname").trim().to_string();
        if name.is_empty() {
            return Err(self.err(c, "the Boundary Extractor has no reference name"));
        }
        let left = self.expand(c, c.text_or_empty("BoundaryExtractor.lboundary"))?;
        let right = self.expand(c, c.text_or_empty("BoundaryExtractor.rboundary"))?;
        let regex = regex::Regex::new(&format!("(?s){}(.*?){}", regex::escape(&left), regex::escape(&right)))
            .map_err(|e| self.err(c, format!("cannot match the boundaries: {e}")))?;
        let from = match c.text("BoundaryExtractor.useHeaders").unwrap_or("false") {
            "true" => Field::Headers,
            "URL" => Field::Url,
            "code" => Field::Status,
            _ => Field::Body,
        };
        let match_no = match c.text("BoundaryExtractor.match_number").map(str::trim) {
            None | Some("") => 0,
            Some(n) => n.parse::<i64>().map(|n| n.max(1) as u32).unwrap_or(1),
        };
        let default = match (c.text("BoundaryExtractor.default"), c.flag("BoundaryExtractor.default_empty_value")) {
            (Some(d), _) => Some(self.tmpl(c, d)?),
            (None, Some(true)) => Some(Template::literal("")),
            _ => None,
        };
        let var = self.b.sym.vars.assign(&name);
        s.extract.push(Extractor {
            var,
            into: name.clone(),
            source: ExtractSource::Regex { regex, template: "$1$".into(), from },
            match_no,
            default,
            required: None,
            all: None,
        });
        self.report(c, depth, Status::Supported, format!("into ${{{name}}}"));
        Ok(())
    }

    pub(super) fn read_regex_extractor(&mut self, c: &El) -> Result<(Extractor, Status, String), Error> {
        let name = c.text_or_empty("RegexExtractor.refname").trim().to_string();
        if name.is_empty() {
            return Err(self.err(c, "the Regular Expression Extractor has no reference name"));
        }
        let re_src = self.expand(c, c.text_or_empty("RegexExtractor.regex"))?;
        let regex = regex::Regex::new(&re_src).map_err(|e| self.err(c, format!("invalid regular expression: {e}")))?;
        let template = c.text("RegexExtractor.template").unwrap_or("$1$").to_string();
        let (from, status, mut note) = match c.text("RegexExtractor.useHeaders").unwrap_or("false") {
            "true" => (Field::Headers, Status::Supported, String::new()),
            "URL" => (Field::Url, Status::Supported, String::new()),
            "code" => (Field::Status, Status::Supported, String::new()),
            "false" => (Field::Body, Status::Supported, String::new()),
            other => (Field::Body, Status::Partial, format!("field `{other}` is read as the body; ")),
        };
        let mut all = None;
        let match_no = match c.text("RegexExtractor.match_number").map(str::trim) {
            None | Some("") => 0,
            Some(n) => match n.parse::<i64>() {
                Ok(n) if n >= 0 => n as u32,
                Ok(_) => {
                    all = Some(self.b.all_matches(&name));
                    note.push_str(&format!("all matches into ${{{name}_1}}.. and ${{{name}_matchNr}}; "));
                    1
                }
                Err(_) => return Err(self.err(c, format!("match number `{n}` is not a number"))),
            },
        };
        let default = match (c.text("RegexExtractor.default"), c.flag("RegexExtractor.default_empty_value")) {
            (Some(d), _) => Some(self.tmpl(c, d)?),
            (None, Some(true)) => Some(Template::literal("")),
            _ => None,
        };
        let var = self.b.sym.vars.assign(&name);
        note.push_str(&format!("into ${{{name}}}"));
        Ok((
            Extractor {
                var,
                into: name,
                source: ExtractSource::Regex { regex, template, from },
                match_no,
                default,
                required: None,
                all,
            },
            status,
            note,
        ))
    }

    pub(super) fn read_json_extractor(&mut self, c: &El) -> Result<(Vec<Extractor>, Status, String), Error> {
        let split = |s: &str| -> Vec<String> { s.split(';').map(|x| x.trim().to_string()).collect() };
        let names = split(c.text_or_empty("JSONPostProcessor.referenceNames"));
        let paths = split(c.text_or_empty("JSONPostProcessor.jsonPathExprs"));
        let matches = split(c.text_or_empty("JSONPostProcessor.match_numbers"));
        let defaults = split(c.text_or_empty("JSONPostProcessor.defaultValues"));
        if names.iter().all(|n| n.is_empty()) {
            return Err(self.err(c, "the JSON Extractor has no variable names"));
        }
        if names.len() != paths.len() {
            return Err(self.err(c, format!("{} variable names for {} JSON paths", names.len(), paths.len())));
        }
        let mut out = Vec::new();
        let status = Status::Supported;
        let mut note = String::new();
        for (i, name) in names.iter().enumerate() {
            let src = self.expand(c, &paths[i])?;
            let path = serde_json_path::JsonPath::parse(&src)
                .map_err(|e| self.err(c, format!("invalid JSONPath `{src}`: {e}")))?;
            // JMeter: 0 (the default) is a random match, -1 all of them.
            let mut all = None;
            let match_no = match matches.get(i).map(String::as_str).unwrap_or("") {
                "" => 0,
                n => match n.parse::<i64>() {
                    Ok(n) if n >= 0 => n as u32,
                    Ok(_) => {
                        all = Some(self.b.all_matches(name));
                        note.push_str(&format!("all matches into ${{{name}_1}}.. and ${{{name}_matchNr}}; "));
                        1
                    }
                    Err(_) => return Err(self.err(c, format!("match number `{n}` is not a number"))),
                },
            };
            // JMeter sets the default (even empty) when nothing matches.
            let default = Some(self.tmpl(c, defaults.get(i).map(String::as_str).unwrap_or(""))?);
            let var = self.b.sym.vars.assign(name);
            out.push(Extractor {
                var,
                into: name.clone(),
                source: ExtractSource::Json(JsonPathExpr { src, path }),
                match_no,
                default,
                required: None,
                all,
            });
        }
        note.push_str(&format!("into {}", names.iter().map(|n| format!("${{{n}}}")).collect::<Vec<_>>().join(", ")));
        Ok((out, status, note))
    }
}
