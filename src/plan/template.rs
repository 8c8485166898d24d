//! `${...}` templates: plan variables, `-J` properties (`${__P(name,default)}`) and environment
//! variables (`${__env(NAME,default)}`), expanded once when the plan is loaded so nothing is
//! parsed per request.

use std::collections::HashMap;

/// What a template may refer to while a plan is being loaded.
#[derive(Debug, Default, Clone)]
pub struct Scope {
    /// Plan variables already resolved, in declaration order.
    pub variables: HashMap<String, String>,
    /// `-J name=value` properties.
    pub properties: HashMap<String, String>,
    /// Environment variables; `None` means "read the process environment".
    pub env: Option<HashMap<String, String>>,
}

impl Scope {
    fn env_var(&self, name: &str) -> Option<String> {
        match &self.env {
            Some(map) => map.get(name).cloned(),
            None => std::env::var(name).ok(),
        }
    }
}

/// Expands every `${...}` in `src`. `\${` is a literal `${`.
///
/// Errors name the reference that failed, and suggest a close variable name for a typo.
pub fn expand(src: &str, scope: &Scope) -> Result<String, String> {
    if !src.contains("${") {
        return Ok(src.to_string());
    }
    let mut out = String::with_capacity(src.len());
    let mut rest = src;
    while let Some(pos) = rest.find("${") {
        if pos > 0 && rest.as_bytes()[pos - 1] == b'\\' {
            out.push_str(&rest[..pos - 1]);
            out.push_str("${");
            rest = &rest[pos + 2..];
            continue;
        }
        out.push_str(&rest[..pos]);
        let body_start = pos + 2;
        let end = find_close(&rest[body_start..]).ok_or_else(|| format!("unterminated `${{` in {src:?}"))?;
        let inner = &rest[body_start..body_start + end];
        out.push_str(&resolve(inner, scope)?);
        rest = &rest[body_start + end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

/// The index of the `}` that closes a reference, allowing nested `${...}` inside function
/// arguments (`${__P(port,${default_port})}`).
fn find_close(s: &str) -> Option<usize> {
    let mut depth = 0usize;
    let bytes = s.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'$' if bytes.get(i + 1) == Some(&b'{') => {
                depth += 1;
                i += 1;
            }
            b'}' if depth == 0 => return Some(i),
            b'}' => depth -= 1,
            _ => {}
        }
        i += 1;
    }
    None
}

fn resolve(inner: &str, scope: &Scope) -> Result<String, String> {
    let inner = inner.trim();
    if let Some(call) = inner.strip_prefix("__") {
        let open = call.find('(').ok_or_else(|| format!("function `${{{inner}}}` has no argument list"))?;
        if !call.ends_with(')') {
            return Err(format!("function `${{{inner}}}` is missing its closing `)`"));
        }
        let name = &call[..open];
        let args: Vec<String> = split_args(&call[open + 1..call.len() - 1])
            .into_iter()
            .map(|a| expand(a, scope))
            .collect::<Result<_, _>>()?;
        return call_function(name, &args, scope);
    }
    if let Some(v) = scope.variables.get(inner) {
        return Ok(v.clone());
    }
    let mut msg = format!("unknown variable `${{{inner}}}`");
    if let Some(s) = super::error::closest(inner, scope.variables.keys().map(String::as_str)) {
        msg.push_str(&format!("; did you mean `${{{s}}}`?"));
    } else if scope.properties.contains_key(inner) {
        msg.push_str(&format!("; `{inner}` is a property: write `${{__P({inner})}}`"));
    }
    Err(msg)
}

/// Splits function arguments on commas that are not inside a nested `${...}`; `\,` is a
/// literal comma (JMeter's rule).
fn split_args(s: &str) -> Vec<&str> {
    let mut args = Vec::new();
    let bytes = s.as_bytes();
    let (mut depth, mut start, mut i) = (0usize, 0usize, 0usize);
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 1,
            b'$' if bytes.get(i + 1) == Some(&b'{') => depth += 1,
            b'}' if depth > 0 => depth -= 1,
            b',' if depth == 0 => {
                args.push(&s[start..i]);
                start = i + 1;
            }
            _ => {}
        }
        i += 1;
    }
    if !s.is_empty() {
        args.push(&s[start..]);
    }
    args
}

fn call_function(name: &str, args: &[String], scope: &Scope) -> Result<String, String> {
    let arg = |i: usize| args.get(i).map(|a| a.replace("\\,", ",")).filter(|a| !a.is_empty());
    match name {
        "P" | "property" => {
            let key = arg(0).ok_or_else(|| format!("`__{name}` needs a property name"))?;
            let default = if name == "P" { arg(1) } else { arg(2) };
            match scope.properties.get(key.trim()) {
                Some(v) => Ok(v.clone()),
                // JMeter's __P falls back to "1" when neither value nor default exists.
                None => Ok(default.unwrap_or_else(|| if name == "P" { "1".into() } else { String::new() })),
            }
        }
        "env" => {
            let key = arg(0).ok_or("`__env` needs a variable name")?;
            match scope.env_var(key.trim()) {
                Some(v) => Ok(v),
                None => arg(1).ok_or_else(|| {
                    format!("environment variable `{}` is not set and `__env` has no default", key.trim())
                }),
            }
        }
        other => {
            let known = ["P", "property", "env"];
            let mut msg = format!("unknown function `__{other}`");
            if let Some(s) = super::error::closest(other, known) {
                msg.push_str(&format!("; did you mean `__{s}`?"));
            }
            Err(msg)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scope() -> Scope {
        let mut s = Scope { env: Some(HashMap::new()), ..Default::default() };
        s.variables.insert("host".into(), "127.0.0.1".into());
        s.variables.insert("port".into(), "8080".into());
        s.properties.insert("threads".into(), "50".into());
        s.env.as_mut().unwrap().insert("TOKEN_FILE".into(), "/tmp/t".into());
        s
    }

    #[test]
    fn expands_table() {
        let s = scope();
        let cases = [
            ("plain", "plain"),
            ("http://${host}:${port}/", "http://127.0.0.1:8080/"),
            ("${__P(threads,10)}", "50"),
            ("${__P(missing,10)}", "10"),
            ("${__P(missing)}", "1"),
            ("${__P(missing,${port})}", "8080"),
            ("${__env(TOKEN_FILE)}", "/tmp/t"),
            ("${__env(NOPE,x\\,y)}", "x,y"),
            ("\\${host}", "${host}"),
            ("${ host }", "127.0.0.1"),
        ];
        for (src, want) in cases {
            assert_eq!(expand(src, &s).unwrap(), want, "{src}");
        }
    }

    #[test]
    fn errors_name_the_reference() {
        let s = scope();
        assert!(expand("${hots}", &s).unwrap_err().contains("did you mean `${host}`"));
        assert!(expand("${threads}", &s).unwrap_err().contains("__P(threads)"));
        assert!(expand("${__Q(x)}", &s).unwrap_err().contains("unknown function `__Q`"));
        assert!(expand("${host", &s).unwrap_err().contains("unterminated"));
        assert!(expand("${__env(NOPE)}", &s).unwrap_err().contains("NOPE"));
    }
}
