//! Compiling `${...}` text into a [`Template`]'s segments, and expanding text needed while the
//! plan loads.

use super::functions::function;
use super::{LoadScope, Seg, Symbols, Template, TemplateError};

/// Compiles `src`. `element` names where it is, for the error when a variable it uses is never
/// defined (checked once the whole plan is read, since an extractor may come later in the file).
pub fn compile(src: &str, sym: &mut Symbols, element: &str) -> Result<Template, TemplateError> {
    let mut segs = Vec::new();
    if !src.contains("${") {
        return Ok(Template::literal(src));
    }
    let mut lit = String::new();
    let mut rest = src;
    while let Some(pos) = rest.find("${") {
        if pos > 0 && rest.as_bytes()[pos - 1] == b'\\' {
            lit.push_str(&rest[..pos - 1]);
            lit.push_str("${");
            rest = &rest[pos + 2..];
            continue;
        }
        lit.push_str(&rest[..pos]);
        let body_start = pos + 2;
        let end = find_close(&rest[body_start..]).ok_or_else(|| TemplateError::Unterminated(src.to_string()))?;
        let inner = &rest[body_start..body_start + end];
        match reference(inner, sym, element)? {
            Seg::Lit(s) => lit.push_str(&s),
            seg => {
                if !lit.is_empty() {
                    segs.push(Seg::Lit(std::mem::take(&mut lit)));
                }
                segs.push(seg);
            }
        }
        rest = &rest[body_start + end + 1..];
    }
    lit.push_str(rest);
    if !lit.is_empty() {
        segs.push(Seg::Lit(lit));
    }
    Ok(Template { src: src.to_string(), segs })
}

/// Expands a value needed while loading (a duration, a count, a file name, a host): every
/// reference must be known now. Run-time functions are evaluated once.
pub fn expand(src: &str, sym: &mut Symbols) -> Result<String, TemplateError> {
    let mut t = compile(src, sym, "")?;
    for id in t.vars() {
        if sym.vars.initial(id).is_none() {
            let name = sym.vars.name(id).to_string();
            let mut msg = if sym.vars.is_assigned(id) {
                format!("`${{{name}}}` is set while the test runs, but this value is needed when the plan loads")
            } else {
                format!("unknown variable `${{{name}}}`")
            };
            if !sym.vars.is_assigned(id) {
                if let Some(s) = crate::plan::error::closest(&name, sym.vars.defined_names()) {
                    msg.push_str(&format!("; did you mean `${{{s}}}`?"));
                } else if sym.properties.contains_key(&name) {
                    msg.push_str(&format!("; `{name}` is a property: write `${{__P({name})}}`"));
                }
                sym.vars.forget_unused(id);
            }
            return Err(TemplateError::NotKnownAtLoad(msg));
        }
    }
    // Load-time values use the variables' initial values, whatever the run assigns later.
    let mut frozen = sym.vars.clone();
    frozen.assigned.iter_mut().for_each(|a| *a = false);
    t.fold(&frozen);
    if let Some(s) = t.as_const() {
        return Ok(s.to_string());
    }
    let mut u = LoadScope::new(sym);
    Ok(t.render_string(&mut u))
}
/// The index of the `}` that closes a reference, allowing nested `${...}` inside function
/// arguments (`${__P(port,${default_port})}`).
pub(super) fn find_close(s: &str) -> Option<usize> {
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

fn reference(inner: &str, sym: &mut Symbols, element: &str) -> Result<Seg, TemplateError> {
    let inner = inner.trim();
    // JMeter 5's loop index `${__jm__<controller name>__idx}` is a variable (the name may
    // hold spaces), not a function call: JMeter has no function of that name.
    if inner.starts_with("__jm__") && inner.ends_with("__idx") && !inner.contains(['(', ')', '{', '$']) {
        return Ok(Seg::Var(sym.vars.use_var(inner, element)));
    }
    if let Some(call) = inner.strip_prefix("__") {
        // JMeter allows `${__UUID}` and `${__threadNum}` without parentheses.
        let (name, args_src) = match call.find('(') {
            Some(open) => {
                if !call.ends_with(')') {
                    return Err(TemplateError::UnclosedCall(inner.to_string()));
                }
                (&call[..open], Some(&call[open + 1..call.len() - 1]))
            }
            None => (call, None),
        };
        let args: Vec<&str> = args_src.map(split_args).unwrap_or_default();
        return function(name, &args, sym, element)
            .map_err(|e| TemplateError::InFunction { call: inner.to_string(), error: Box::new(e) });
    }
    if inner.is_empty() || inner.contains(['(', ')', '{', '$', ' ']) {
        return Err(TemplateError::NotAVariableName(inner.to_string()));
    }
    Ok(Seg::Var(sym.vars.use_var(inner, element)))
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::template::tests::symbols;

    #[test]
    fn load_time_expansion_table() {
        let mut s = symbols();
        let cases = [
            ("plain", "plain"),
            ("http://${host}:${port}/", "http://127.0.0.1:8080/"),
            ("${__P(threads,10)}", "50"),
            ("${__P(missing,10)}", "10"),
            ("${__P(missing)}", "1"),
            ("${__P(missing,${port})}", "8080"),
            ("${__property(threads)}", "50"),
            // JMeter's __property defaults to the name; an empty third argument is the default.
            ("${__property(missing)}", "missing"),
            ("${__property(missing,,)}", ""),
            ("${__env(TOKEN_FILE)}", "/tmp/t"),
            ("${__env(NOPE,x\\,y)}", "x,y"),
            ("\\${host}", "${host}"),
            ("${ host }", "127.0.0.1"),
        ];
        for (src, want) in cases {
            assert_eq!(expand(src, &mut s).unwrap(), want, "{src}");
        }
    }

    #[test]
    fn load_time_errors_name_the_reference() {
        let mut s = symbols();
        assert!(expand("${hots}", &mut s).unwrap_err().to_string().contains("did you mean `${host}`"));
        assert!(expand("${threads}", &mut s).unwrap_err().to_string().contains("__P(threads)"));
        assert!(expand("${__Q(x)}", &mut s).unwrap_err().to_string().contains("unknown function `__Q`"));
        assert!(expand("${__UUId()}", &mut s).unwrap_err().to_string().contains("did you mean `__UUID`"));
        assert!(expand("${host", &mut s).unwrap_err().to_string().contains("unterminated"));
        assert!(expand("${__env(NOPE)}", &mut s).unwrap_err().to_string().contains("NOPE"));
        s.vars.assign("token");
        assert!(expand("${token}", &mut s).unwrap_err().to_string().contains("needed when the plan loads"));
        // A failed load-time lookup is not reported a second time as a run-time one.
        assert!(s.vars.undefined().is_none(), "{:?}", s.vars.undefined());
    }

    /// The typed errors read as the text they replaced, word for word.
    #[test]
    fn error_texts() {
        let mut s = symbols();
        let text = |r: Result<String, TemplateError>| r.unwrap_err().to_string();
        assert_eq!(text(expand("${host", &mut s)), "unterminated `${` in \"${host\"");
        assert_eq!(text(expand("${__P(x", &mut s)), "unterminated `${` in \"${__P(x\"");
        assert_eq!(text(expand("${__P(x}", &mut s)), "function `${__P(x}` is missing its closing `)`");
        assert_eq!(text(expand("${a b}", &mut s)), "`${a b}` is not a variable name");
        assert_eq!(
            text(expand("${__Random(1)}", &mut s)),
            "in `${__Random(1)}`: `__Random(min,max)` needs two numbers"
        );
        assert_eq!(
            text(expand("${__time(qq)}", &mut s)),
            "in `${__time(qq)}`: the pattern letter 'q' is not supported by stampede"
        );
        assert_eq!(text(expand("${nope}", &mut s)), "unknown variable `${nope}`");
    }
}
