//! `StringBuilder` and `StringBuffer`: a buffer appended in place.

use super::*;

// ---- StringBuilder ----

/// `StringBuilder` / `StringBuffer`: a buffer appended in place (amortised O(1), as Java's),
/// which knows its length in characters while only appends change it, so that `append` and
/// `length()` in a loop stay linear.
#[derive(Debug)]
pub(crate) struct StringBuilder {
    pub(super) class: &'static str,
    pub(super) text: Mutex<Buf>,
    pub(super) me: Weak<StringBuilder>,
}

#[derive(Debug)]
pub(super) struct Buf {
    pub(super) text: String,
    /// The length in characters, when known (an edit other than an append forgets it).
    pub(super) chars: Option<usize>,
}

impl Buf {
    pub(super) fn chars(&mut self) -> usize {
        *self.chars.get_or_insert_with(|| self.text.chars().count())
    }

    pub(super) fn push(&mut self, s: &str) {
        self.text.push_str(s);
        if let Some(n) = &mut self.chars {
            *n += s.chars().count();
        }
    }
}

impl StringBuilder {
    pub(super) fn value(class: &'static str, text: String) -> Value {
        let buf = Buf { text, chars: None };
        Value::Object(Arc::new_cyclic(|me| StringBuilder { class, text: Mutex::new(buf), me: me.clone() }))
    }

    pub(super) fn this(&self) -> Value {
        self.me.upgrade().map(|a| Value::Object(a as Arc<dyn Native>)).unwrap_or(Value::Null)
    }
}

/// The byte offset of the `i`-th character (the end for `i` = length); `None` past it.
pub(crate) fn char_offset(s: &str, i: i64) -> Option<usize> {
    if i < 0 {
        return None;
    }
    let i = i as usize;
    if i == 0 {
        return Some(0);
    }
    s.char_indices().map(|(b, _)| b).chain(std::iter::once(s.len())).nth(i)
}

pub(super) fn index_error(i: i64, len: usize) -> Thrown {
    Thrown::new("java.lang.StringIndexOutOfBoundsException", format!("index {i}, length {len}"))
}

impl Native for StringBuilder {
    fn class_name(&self) -> &'static str {
        self.class
    }
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
    fn to_string(&self) -> String {
        lock(&self.text).text.clone()
    }
    fn call(&self, _cx: &mut Ctx<'_>, method: &str, args: Vec<Value>) -> Result<Value, Thrown> {
        let mut b = lock(&self.text);
        let before = b.text.len();
        match (method, args.len()) {
            // Groovy's `sb << x` is `leftShift`, an append.
            ("append" | "leftShift", 1) => match &args[0] {
                Value::List(l)
                    if l.kind == crate::value::ListKind::Array
                        && lock(&l.items).iter().all(|c| matches!(c, Value::Char(_))) =>
                {
                    let s: String = lock(&l.items).iter().map(|c| c.to_string()).collect();
                    b.push(&s)
                }
                Value::Str(s) => b.push(s),
                v => b.push(&v.to_string()),
            },
            ("toString", 0) => return Ok(Value::str(b.text.as_str())),
            ("length", 0) => return Ok(Value::Int(b.chars() as i32)),
            ("isEmpty", 0) => return Ok(Value::Bool(b.text.is_empty())),
            _ => {
                let len = b.chars();
                let r = self.edit(&mut b.text, len, method, &args);
                let read_only = matches!(
                    method,
                    "charAt"
                        | "indexOf"
                        | "lastIndexOf"
                        | "substring"
                        | "capacity"
                        | "chars"
                        | "equals"
                        | "hashCode"
                        | "compareTo"
                        | "trimToSize"
                        | "ensureCapacity"
                );
                if read_only || r.is_err() {
                    return r;
                }
                b.chars = None;
                let after = b.text.len();
                drop(b);
                grown(before, after)?;
                return r;
            }
        }
        let after = b.text.len();
        drop(b);
        grown(before, after)?;
        Ok(self.this())
    }
}

/// What a buffer grew by is the execution's (and work: bytes copied in); what it lost is not.
pub(super) fn grown(before: usize, after: usize) -> Result<(), Thrown> {
    if after > before {
        budget::grew((after - before) as u64)
    } else {
        budget::release((before - after) as u64);
        Ok(())
    }
}

impl StringBuilder {
    /// Every method but the hot ones (`append`, `toString`, `length`): `t` is the text, `len`
    /// its length in characters.
    pub(super) fn edit(&self, t: &mut String, len: usize, method: &str, args: &[Value]) -> Result<Value, Thrown> {
        let at = |t: &str, i: usize| -> Result<usize, Thrown> {
            let n = int_arg(args, i)?;
            char_offset(t, n).ok_or_else(|| index_error(n, len))
        };
        match (method, args.len()) {
            ("append", 3) => {
                let s = args[0].to_string();
                let (a, b) = (int_arg(args, 1)?, int_arg(args, 2)?);
                let sub: String = s.chars().skip(a as usize).take(b.saturating_sub(a).max(0) as usize).collect();
                t.push_str(&sub);
                Ok(self.this())
            }
            ("insert", 2) => {
                let o = at(t, 0)?;
                t.insert_str(o, &args[1].to_string());
                Ok(self.this())
            }
            ("charAt", 1) => {
                let i = int_arg(args, 0)?;
                t.chars().nth(i.max(0) as usize).filter(|_| i >= 0).map(Value::Char).ok_or_else(|| index_error(i, len))
            }
            ("deleteCharAt", 1) => {
                let i = int_arg(args, 0)?;
                if i < 0 || i as usize >= len {
                    return Err(index_error(i, len));
                }
                let o = at(t, 0)?;
                t.remove(o);
                Ok(self.this())
            }
            ("delete", 2) => {
                let a = at(t, 0)?;
                let end = int_arg(args, 1)?.min(len as i64);
                let b = char_offset(t, end).ok_or_else(|| index_error(end, len))?;
                if a > b {
                    return Err(index_error(end, len));
                }
                t.replace_range(a..b, "");
                Ok(self.this())
            }
            ("replace", 3) => {
                let a = at(t, 0)?;
                let end = int_arg(args, 1)?.min(len as i64);
                let b = char_offset(t, end).ok_or_else(|| index_error(end, len))?;
                t.replace_range(a..b.max(a), &args[2].to_string());
                Ok(self.this())
            }
            ("reverse", 0) => {
                *t = t.chars().rev().collect();
                Ok(self.this())
            }
            ("setLength", 1) => {
                let n = int_arg(args, 0)?;
                if n < 0 {
                    return Err(index_error(n, len));
                }
                let n = crate::methods::checked_size(n as u64)?;
                if n <= len {
                    let o = char_offset(t, n as i64).unwrap_or(t.len());
                    t.truncate(o);
                } else {
                    t.extend(std::iter::repeat_n('\0', n - len));
                }
                Ok(Value::Null)
            }
            ("setCharAt", 2) => {
                let i = int_arg(args, 0)?;
                if i < 0 || i as usize >= len {
                    return Err(index_error(i, len));
                }
                let c = char_arg(args, 1)?;
                let o = at(t, 0)?;
                let old = t[o..].chars().next().map(char::len_utf8).unwrap_or(0);
                t.replace_range(o..o + old, &c.to_string());
                Ok(Value::Null)
            }
            ("indexOf" | "lastIndexOf", 1 | 2) => {
                let needle = args[0].to_string();
                let found = if method == "indexOf" {
                    let from = args.get(1).and_then(Value::as_i64).unwrap_or(0).max(0);
                    char_offset(t, from).and_then(|o| t[o..].find(&needle).map(|b| b + o))
                } else {
                    t.rfind(&needle)
                };
                Ok(Value::Int(found.map(|b| t[..b].chars().count() as i32).unwrap_or(-1)))
            }
            ("substring", 1 | 2) => {
                let a = at(t, 0)?;
                let b = if args.len() == 2 { at(t, 1)? } else { t.len() };
                if a > b {
                    return Err(index_error(int_arg(args, 0)?, len));
                }
                Ok(Value::str(&t[a..b]))
            }
            ("capacity", 0) => Ok(Value::Int(len.max(16) as i32)),
            ("trimToSize" | "ensureCapacity", _) => Ok(Value::Null),
            ("chars", 0) => Ok(Value::list(t.chars().map(|c| Value::Int(c as i32)).collect())),
            ("equals", 1) => Ok(Value::Bool(
                matches!(&args[0], Value::Object(o) if std::ptr::addr_eq(Arc::as_ptr(o), self as *const Self)),
            )),
            ("hashCode", 0) => Ok(Value::Int(self as *const Self as usize as i32)),
            ("compareTo", 1) => Ok(Value::Int(t.as_str().cmp(args[0].to_string().as_str()) as i32)),
            _ => Err(no_method(self.class, method)),
        }
    }
}
