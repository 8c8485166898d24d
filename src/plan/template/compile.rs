//! Compiling `${...}` text into a [`Template`]'s segments, and expanding text needed while the
//! plan loads.

use super::table::function;
use super::{LoadScope, Seg, Symbols, Template, TemplateError};

/// Compiles `src`, a whole value of the plan: as JMeter's `ReplaceStringWithFunctions`, a
/// value in which JMeter's parser finds no reference keeps its text as it is (escapes and
/// all). `element` names where it is, for the error when a variable it uses is never defined
/// (checked once the whole plan is read, since an extractor may come later in the file).
pub(crate) fn compile(src: &str, sym: &mut Symbols, element: &str) -> Result<Template, TemplateError> {
    compile_text(src, sym, element, false)
}

/// Compiles a function's argument: JMeter reads its escapes whether or not it holds a reference.
pub(super) fn compile_arg(src: &str, sym: &mut Symbols, element: &str) -> Result<Template, TemplateError> {
    compile_text(src, sym, element, true)
}

/// JMeter's `FunctionParser.compileString`: `\$`, `\,` and `\\` lose their backslash (any other
/// stays), `${` starts a reference; one never closed (`${host`) is its text without `${`
/// (JMeter logs "Probably an invalid function string" and goes on).
fn compile_text(src: &str, sym: &mut Symbols, element: &str, arg: bool) -> Result<Template, TemplateError> {
    if !(src.contains("${") || (arg && src.contains('\\'))) {
        return Ok(Template::literal(src));
    }
    let mut segs = Vec::new();
    let mut lit = String::new();
    // JMeter's list of parts: a value made of one plain string keeps its source text.
    let (mut refs, mut open_after_text) = (false, false);
    let b = src.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let next = src[i..].find(['\\', '$']).map_or(b.len(), |j| i + j);
        lit.push_str(&src[i..next]);
        i = next;
        if i >= b.len() {
            break;
        }
        if b[i] == b'\\' && !arg && !sym.jmeter_text {
            // A YAML plan's value: only `\${` is an escape.
            if src[i + 1..].starts_with("${") {
                lit.push_str("${");
                i += 3;
            } else {
                lit.push('\\');
                i += 1;
            }
            continue;
        }
        if b[i] == b'\\' {
            match b.get(i + 1) {
                Some(c @ (b'$' | b',' | b'\\')) => {
                    lit.push(*c as char);
                    i += 2;
                }
                _ => {
                    lit.push('\\');
                    i += 1;
                }
            }
            continue;
        }
        if b.get(i + 1) != Some(&b'{') {
            lit.push('$');
            i += 1;
            continue;
        }
        let body = i + 2;
        match reference_end(&src[body..]) {
            RefEnd::Closed(end) => {
                refs = true;
                match reference(&src[body..body + end], sym, element)? {
                    Seg::Lit(s) => lit.push_str(&s),
                    seg => {
                        if !lit.is_empty() {
                            segs.push(Seg::Lit(std::mem::take(&mut lit)));
                        }
                        segs.push(seg);
                    }
                }
                i = body + end + 1;
            }
            RefEnd::Open(_) if !sym.jmeter_text => return Err(TemplateError::Unterminated(src.to_string())),
            RefEnd::Open(text) => {
                open_after_text = !lit.is_empty() || !segs.is_empty();
                lit.push_str(&text);
                i = b.len();
            }
            RefEnd::CallNotClosed => return Err(TemplateError::UnclosedCall(src[body..].trim().to_string())),
        }
    }
    if !arg && !refs && !open_after_text && sym.jmeter_text {
        return Ok(Template::literal(src));
    }
    // An argument with escapes only: its text is what it says.
    if !refs && segs.is_empty() {
        return Ok(Template::literal(lit));
    }
    if !lit.is_empty() {
        segs.push(Seg::Lit(lit));
    }
    Ok(Template { src: src.to_string(), segs })
}

/// Where a reference that starts after `${` ends, by JMeter's `FunctionParser.makeFunction`.
enum RefEnd {
    /// At this `}`.
    Closed(usize),
    /// Never: the text read, escapes undone.
    Open(String),
    /// A function call whose `)` is not followed by `}` (JMeter refuses the plan: "Expected }
    /// after ... function call").
    CallNotClosed,
}

/// A name with `(` after it (and no space before) is a call: its arguments run to the `)` that
/// closes it (`)` inside `${...}`, a nested `(...)` or after `\\` does not), then `}` after
/// spaces; any other name runs to the first `}`.
fn reference_end(s: &str) -> RefEnd {
    let b = s.as_bytes();
    let mut name = String::new();
    let mut prev = b' ';
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'\\' => {
                i += 1;
                match s[i..].chars().next() {
                    Some(c) => {
                        name.push(c);
                        i += c.len_utf8();
                    }
                    None => name.push('\\'),
                }
                prev = b' ';
            }
            b'(' if prev != b' ' && name.trim_start().starts_with("__") => {
                let Some(close) = params_end(&s[i + 1..]) else { return RefEnd::CallNotClosed };
                let after = i + 1 + close + 1;
                let rest = &s[after..];
                let spaces = rest.len() - rest.trim_start_matches(is_space_char).len();
                return match rest[spaces..].starts_with('}') {
                    true => RefEnd::Closed(after + spaces),
                    false => RefEnd::CallNotClosed,
                };
            }
            b'}' => return RefEnd::Closed(i),
            _ => {
                let c = s[i..].chars().next().unwrap_or_default();
                name.push(c);
                prev = b[i];
                i += c.len_utf8();
            }
        }
    }
    RefEnd::Open(name)
}

/// JMeter's `parseParams`: the index of the `)` that ends a call's arguments.
fn params_end(s: &str) -> Option<usize> {
    let b = s.as_bytes();
    let (mut refs, mut parens, mut prev, mut i) = (0usize, 0usize, b' ', 0usize);
    while i < b.len() {
        let c = b[i];
        match c {
            b'\\' => {
                i += 2;
                prev = b' ';
                continue;
            }
            // A comma between arguments leaves `prev` as it was.
            b',' if refs == 0 => {
                i += 1;
                continue;
            }
            b')' if refs == 0 && parens == 0 => return Some(i),
            b'{' if prev == b'$' => refs += 1,
            b'}' if refs > 0 => refs -= 1,
            b')' if refs == 0 => parens -= 1,
            b'(' if refs == 0 => parens += 1,
            _ => {}
        }
        prev = c;
        i += 1;
    }
    None
}

/// Java's `Character.isSpaceChar`.
fn is_space_char(c: char) -> bool {
    matches!(
        c,
        ' ' | '\u{a0}' | '\u{1680}' | '\u{2000}'
            ..='\u{200a}' | '\u{2028}' | '\u{2029}' | '\u{202f}' | '\u{205f}' | '\u{3000}'
    )
}

/// Expands a value needed while loading (a duration, a count, a file name, a host): every
/// reference must be known now. Run-time functions are evaluated once.
pub(crate) fn expand(src: &str, sym: &mut Symbols) -> Result<String, TemplateError> {
    expand_text(src, sym, false)
}

/// [`expand`] for a function's argument (its escapes always read, as [`compile_arg`]).
pub(super) fn expand_arg(src: &str, sym: &mut Symbols) -> Result<String, TemplateError> {
    expand_text(src, sym, true)
}

fn expand_text(src: &str, sym: &mut Symbols, arg: bool) -> Result<String, TemplateError> {
    let mut t = compile_text(src, sym, "", arg)?;
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
    let text = t.render_string(&mut u);
    sym.load_log.append(&mut u.log);
    Ok(text)
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
            // JMeter keeps a value in which it finds no reference as it is, escapes and all.
            ("\\${host}", "\\${host}"),
            ("x\\y\\\\z", "x\\y\\\\z"),
            ("${host", "${host"),
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
        assert_eq!(
            text(expand("${__P(x}", &mut s)),
            "function call `${__P(x}` is not closed by `)` then `}` (JMeter refuses it too: \"Expected } after ... function call\")"
        );
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

    /// JMeter 5.6.3's FunctionParser, as the values it sent (a POST body per case): a call's
    /// arguments run to the `)` that closes it, then `}`; a `}` or a nested `(...)` inside
    /// the arguments is text; `\\` keeps its backslash before anything but `$`, `,` and `\\`.
    #[test]
    fn function_arguments_are_read_as_jmeter_s_parser_reads_them() {
        let mut s = symbols();
        let cases = [
            ("c=${__P(X,0})}", "c=0}"),
            ("e=${__P(x,(a)b)}", "e=(a)b"),
            ("f=${__P(x,a\\,b)}", "f=a,b"),
            ("g=${__P(x,a\\)b)}", "g=a\\)b"),
            ("j=${__P(x,{a})}", "j={a}"),
            ("r=${__P(x,a\\\\)}", "r=a\\"),
            ("s=${__P(x,)}", "s="),
            ("t=${__P(x,0})} ${__P(y,1)}", "t=0} 1"),
            ("w=${__P(x,a) }", "w=a"),
            ("v=${__P(x,a} )}", "v=a}"),
            ("n=${__P(x,${port})}", "n=8080"),
            // A reference never closed is its text, once the value holds something else.
            ("a=${host", "a=host"),
            ("h=\\${x}${host}", "h=${x}127.0.0.1"),
            ("q=${host}\\q\\\\", "q=127.0.0.1\\q\\"),
        ];
        for (src, want) in cases {
            assert_eq!(expand(src, &mut s).unwrap(), want, "{src}");
        }
    }

    /// What JMeter refuses to run ("Expected } after __P function call in ..."): still refused.
    #[test]
    fn a_call_not_closed_by_a_brace_is_refused_as_jmeter_refuses_it() {
        let mut s = symbols();
        for src in ["b=${__P(a,b)", "d=${__P(x,a)b)}", "o=${__P(x}", "p=${__P(x,${y)}", "u=${__P(x,a(b)}z"] {
            let e = expand(src, &mut s).unwrap_err().to_string();
            assert!(e.contains("is not closed by"), "{src}: {e}");
        }
    }

    /// A YAML plan keeps its own rules: `\${` is a literal `${` and the only escape outside a
    /// function's arguments; a `${` never closed is an error.
    #[test]
    fn a_yaml_plan_keeps_its_escape_and_refuses_an_unclosed_reference() {
        let mut s = Symbols { jmeter_text: false, ..symbols() };
        assert_eq!(expand("\\${host}", &mut s).unwrap(), "${host}");
        assert_eq!(expand("a\\\\b ${host}", &mut s).unwrap(), "a\\\\b 127.0.0.1");
        assert_eq!(expand("${__P(x,a\\,b)}", &mut s).unwrap(), "a,b");
        assert!(expand("a=${host", &mut s).unwrap_err().to_string().contains("unterminated"));
    }
}
