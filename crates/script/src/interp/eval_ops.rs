//! Operators on values: text (`text_of`), equality and comparison in each language,
//! binary and unary operators, `==~`, `in`, `instanceof`.

use super::*;

/// Text of a value as string concatenation and GStrings render it (Groovy's
/// `InvokerHelper.toString`): an object of a declared class by its `toString()`, at any depth
/// of the lists and maps that hold it. Containers nested past [`budget::MAX_SHOW_DEPTH`] (or
/// inside themselves, other than directly) are `StackOverflowError`, as Groovy's recursion is.
pub(crate) fn text_of(cx: &mut Ctx<'_>, v: &Value) -> R<String> {
    let s = show(cx, v);
    if budget::take_deep() {
        return Err(budget::too_deep());
    }
    Ok(s)
}

pub(super) fn show(cx: &mut Ctx<'_>, v: &Value) -> String {
    match v {
        Value::Str(s) => s.to_string(),
        Value::Host(h) => cx.host.describe(*h),
        // A declared class's `toString()`; one that throws shows as `Object`'s would.
        Value::Object(o) if object::of(v).is_some() => match object::of(v).map(|o| o.text(cx)) {
            Some(Ok(s)) => s,
            _ => o.to_string(),
        },
        // Each item by index, the lock not held while it is written: an item's `toString()`
        // may reach this list again.
        Value::List(l) if cx.lang == Lang::Groovy => {
            let Some(_showing) = budget::show_nested(Arc::as_ptr(l) as usize) else {
                return "[...]".into();
            };
            let mut s = String::from("[");
            for i in 0.. {
                let Some(v) = lock(&l.items).get(i).cloned() else { break };
                if !budget::show(value::shown_size(&v)) {
                    break;
                }
                if i > 0 {
                    s.push_str(", ");
                }
                match &v {
                    Value::List(x) if Arc::ptr_eq(x, l) => s.push_str("(this Collection)"),
                    v => s.push_str(&show(cx, v)),
                }
            }
            s.push(']');
            s
        }
        Value::Map(m) if cx.lang == Lang::Groovy => {
            let Some(_showing) = budget::show_nested(Arc::as_ptr(m) as usize) else {
                return "[...]".into();
            };
            let mut s = String::from("[");
            for i in 0.. {
                let Some((k, v)) = lock(&m.entries).get_index(i).map(|(k, v)| (k.0.clone(), v.clone())) else {
                    break;
                };
                if !budget::show(value::shown_size(&k) + value::shown_size(&v)) {
                    break;
                }
                if i > 0 {
                    s.push_str(", ");
                }
                s.push_str(&show(cx, &k));
                s.push(':');
                match &v {
                    Value::Map(x) if Arc::ptr_eq(x, m) => s.push_str("(this Map)"),
                    v => s.push_str(&show(cx, v)),
                }
            }
            if s.len() == 1 {
                s.push(':');
            }
            s.push(']');
            s
        }
        Value::Double(d) if cx.lang == Lang::JavaScript => ops::js_number(*d),
        // JavaScript's Array.prototype.toString: the items joined by `,`, null as empty.
        Value::List(l) if cx.lang == Lang::JavaScript => {
            let Some(_showing) = budget::show_nested(Arc::as_ptr(l) as usize) else {
                return String::new();
            };
            let items = lock(&l.items).clone();
            let texts: Vec<String> =
                items.iter().map(|v| if v.is_null() { String::new() } else { show(cx, v) }).collect();
            texts.join(",")
        }
        other => other.to_string(),
    }
}

pub(super) fn equals(lang: Lang, a: &Value, b: &Value) -> bool {
    if lang == Lang::JavaScript {
        match (a, b) {
            (Value::Str(_), x) | (x, Value::Str(_)) if x.is_number() || matches!(x, Value::Bool(_)) => {
                return ops::js_to_number(a) == ops::js_to_number(b);
            }
            _ => {}
        }
    }
    value::equals(a, b)
}

pub(super) fn strict_equals(lang: Lang, a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::List(x), Value::List(y)) => Arc::ptr_eq(x, y),
        (Value::Map(x), Value::Map(y)) => Arc::ptr_eq(x, y),
        (Value::Object(x), Value::Object(y)) => std::ptr::addr_eq(Arc::as_ptr(x), Arc::as_ptr(y)),
        (Value::Str(_), x) | (x, Value::Str(_))
            if lang == Lang::JavaScript && !matches!(x, Value::Str(_) | Value::Char(_)) =>
        {
            false
        }
        _ => value::equals(a, b),
    }
}

pub(super) fn compare(cx: &mut Ctx<'_>, a: &Value, b: &Value) -> R<Option<Ordering>> {
    if let Some(o) = value::compare(a, b) {
        return Ok(Some(o));
    }
    // Library objects that are `Comparable` (dates, ...).
    if let (Value::Object(_) | Value::Host(_), false) = (a, b.is_null()) {
        match call_method_value(cx, a, "compareTo", vec![b.clone()]) {
            Ok(v) => return Ok(v.as_i64().map(|i| i.cmp(&0))),
            Err(e) if !e.is_no_method() => return Err(e),
            Err(_) => {}
        }
    }
    if cx.lang == Lang::JavaScript {
        return Ok(ops::js_to_number(a).zip(ops::js_to_number(b)).and_then(|(x, y)| x.partial_cmp(&y)));
    }
    Err(Thrown::new(
        "java.lang.IllegalArgumentException",
        format!("Cannot compare {} with value '{a}' and {} with value '{b}'", a.type_name(), b.type_name()),
    ))
}

pub(super) fn is_text(v: &Value) -> bool {
    matches!(v, Value::Str(_))
}

pub(crate) fn binop(cx: &mut Ctx<'_>, op: BinOp, l: Value, r: Value) -> R<Value> {
    use BinOp::*;
    let lang = cx.lang;
    if let (Eq | Ne, Some(o)) = (op, object::of(&l)) {
        return Ok(Value::Bool(o.equals_value(cx, &r)? == (op == Eq)));
    }
    Ok(match op {
        Eq => Value::Bool(equals(lang, &l, &r)),
        Ne => Value::Bool(!equals(lang, &l, &r)),
        StrictEq => Value::Bool(strict_equals(lang, &l, &r)),
        StrictNe => Value::Bool(!strict_equals(lang, &l, &r)),
        Lt | Le | Gt | Ge => match compare(cx, &l, &r)? {
            None => Value::Bool(false),
            Some(o) => Value::Bool(match op {
                Lt => o == Ordering::Less,
                Le => o != Ordering::Greater,
                Gt => o == Ordering::Greater,
                _ => o != Ordering::Less,
            }),
        },
        Cmp => Value::Int(compare(cx, &l, &r)?.map_or(0, |o| o as i32)),
        In => Value::Bool(contains(cx, &r, &l)?),
        NotIn => Value::Bool(!contains(cx, &r, &l)?),
        Find => {
            let (p, t) = (text_of(cx, &r)?, text_of(cx, &l)?);
            classes::matcher(cx, &p, &t)?
        }
        Match => Value::Bool(whole_match(cx, &r, &l)?),
        Add if is_text(&l)
            || is_text(&r)
            || (lang != Lang::Groovy && matches!((&l, &r), (Value::Char(_), Value::Str(_)))) =>
        {
            let (a, b) = (text_of(cx, &l)?, text_of(cx, &r)?);
            budget::check((a.len() + b.len()) as u64)?;
            let mut s = a;
            s.push_str(&b);
            Value::Str(s.into())
        }
        And => Value::Bool(truth(cx, &l)? && truth(cx, &r)?),
        Or => Value::Bool(truth(cx, &l)? || truth(cx, &r)?),
        _ => {
            if let Some(v) = ops::arith(op, &l, &r, lang) {
                return v;
            }
            if lang == Lang::JavaScript {
                if let (Some(x), Some(y)) = (ops::js_to_number(&l), ops::js_to_number(&r)) {
                    return ops::arith(op, &Value::Double(x), &Value::Double(y), lang).unwrap_or(Ok(Value::Null));
                }
            }
            return operator_method(cx, op, l, r);
        }
    })
}

/// An operator on values that are not numbers: collections inline, booleans, then the
/// operator's method (`plus`, `leftShift`, ...), as Groovy does.
pub(super) fn operator_method(cx: &mut Ctx<'_>, op: BinOp, l: Value, r: Value) -> R<Value> {
    use BinOp::*;
    match (op, &l, &r) {
        (BitAnd, Value::Bool(a), Value::Bool(b)) => return Ok(Value::Bool(*a & *b)),
        (BitOr, Value::Bool(a), Value::Bool(b)) => return Ok(Value::Bool(*a | *b)),
        (BitXor, Value::Bool(a), Value::Bool(b)) => return Ok(Value::Bool(*a ^ *b)),
        (Shl, Value::List(list), _) => {
            budget::charge(budget::VALUE_BYTES)?;
            lock(&list.items).push(r.clone());
            return Ok(l.clone());
        }
        (Add, Value::List(a), _) => {
            let more = match &r {
                Value::List(b) => lock(&b.items).len(),
                _ => 1,
            };
            budget::check((lock(&a.items).len() + more) as u64 * budget::VALUE_BYTES)?;
            let mut items = lock(&a.items).clone();
            match &r {
                Value::List(b) if !Arc::ptr_eq(a, b) => items.extend(lock(&b.items).iter().cloned()),
                Value::List(_) => items.extend(items.clone()),
                other => items.push(other.clone()),
            }
            return Ok(Value::List(Arc::new(ListObj { json: false, kind: a.kind, items: Mutex::new(items) })));
        }
        (Sub, Value::List(a), _) => {
            let drop: Vec<Value> = match &r {
                Value::List(b) => lock(&b.items).clone(),
                other => vec![other.clone()],
            };
            let items = lock(&a.items).iter().filter(|x| !drop.iter().any(|d| value::equals(x, d))).cloned().collect();
            return Ok(Value::List(Arc::new(ListObj { json: false, kind: a.kind, items: Mutex::new(items) })));
        }
        (Add, Value::Map(a), Value::Map(b)) => {
            budget::check((lock(&a.entries).len() + lock(&b.entries).len()) as u64 * budget::ENTRY_BYTES)?;
            let mut m = lock(&a.entries).clone();
            let add = lock(&b.entries).clone();
            m.extend(add);
            return Ok(Value::Map(Arc::new(MapObj { sorted: a.sorted, entries: Mutex::new(m) })));
        }
        (Sub, Value::Str(s), other) => {
            let t = text_of(cx, other)?;
            return Ok(Value::Str(s.replacen(&t, "", 1).into()));
        }
        (_, Value::Null, _) | (_, _, Value::Null) if op != Shl => {
            return Err(npe(format!(
                "Cannot execute null{}",
                op_method(op).map(|m| format!(".{m}()")).unwrap_or_default()
            )));
        }
        _ => {}
    }
    if let (Shl, Value::Object(_)) = (op, &l) {
        // Groovy's `<<` on builders and writers (`leftShift` in the GDK) appends.
        return match call_method_value(cx, &l, "leftShift", vec![r.clone()]) {
            Err(e) if e.is_no_method() => call_method_value(cx, &l, "append", vec![r]).map(|_| l),
            other => other,
        };
    }
    match op_method(op) {
        Some(m) => call_method_value(cx, &l, m, vec![r]),
        None => Err(Thrown::no_method(l.type_name(), &format!("{op:?}"))),
    }
}

pub(super) fn op_method(op: BinOp) -> Option<&'static str> {
    use BinOp::*;
    Some(match op {
        Add => "plus",
        Sub => "minus",
        Mul => "multiply",
        Div => "div",
        Rem => "mod",
        Pow => "power",
        Shl => "leftShift",
        Shr => "rightShift",
        UShr => "rightShiftUnsigned",
        BitAnd => "and",
        BitOr => "or",
        BitXor => "xor",
        _ => return None,
    })
}

pub(super) fn unary(cx: &mut Ctx<'_>, op: UnOp, v: Value) -> R<Value> {
    Ok(match op {
        UnOp::Not => Value::Bool(!truth(cx, &v)?),
        UnOp::Plus => v,
        UnOp::Neg => match v {
            Value::Int(i) if cx.lang == Lang::JavaScript => {
                ops::arith(BinOp::Sub, &Value::Int(0), &Value::Int(i), cx.lang).unwrap_or(Ok(Value::Null))?
            }
            Value::Int(i) => Value::Int(i.wrapping_neg()),
            Value::Long(i) => Value::Long(i.wrapping_neg()),
            Value::Double(d) => Value::Double(-d),
            Value::Decimal(d) => Value::Decimal(-d),
            Value::Char(c) => Value::Int(-(c as i32)),
            other => call_method_value(cx, &other, "negative", Vec::new())?,
        },
        UnOp::BitNot => match v {
            Value::Int(i) => Value::Int(!i),
            Value::Long(i) => Value::Long(!i),
            // Groovy's `~/re/`: a compiled Pattern.
            Value::Str(_) if cx.lang == Lang::Groovy => match classes::resolve("java.util.regex.Pattern", &[]) {
                Some(pattern) => classes::call_static(cx, pattern, "compile", vec![v])?,
                None => call_method_value(cx, &v, "bitwiseNegate", Vec::new())?,
            },
            other => call_method_value(cx, &other, "bitwiseNegate", Vec::new())?,
        },
        UnOp::TypeOf => Value::str(match v {
            Value::Null => "object",
            Value::Bool(_) => "boolean",
            Value::Int(_) | Value::Long(_) | Value::Double(_) | Value::Decimal(_) => "number",
            Value::Str(_) | Value::Char(_) => "string",
            Value::Closure(_) => "function",
            _ => "object",
        }),
    })
}

/// `subject ==~ pattern`, and a `~/re/` pattern as a `case` label.
pub(super) fn whole_match(cx: &mut Ctx<'_>, pattern: &Value, subject: &Value) -> R<bool> {
    if subject.is_null() {
        return Ok(false);
    }
    let (p, t) = (text_of(cx, pattern)?, text_of(cx, subject)?);
    let m = classes::matcher(cx, &p, &t)?;
    Ok(call_method_value(cx, &m, "matches", Vec::new())?.truthy())
}

/// Groovy's `x in coll` (`coll.isCase(x)`).
pub(super) fn contains(cx: &mut Ctx<'_>, coll: &Value, x: &Value) -> R<bool> {
    Ok(match coll {
        Value::Null => x.is_null(),
        Value::List(l) => lock(&l.items).iter().any(|i| value::equals(i, x)),
        Value::Map(m) => lock(&m.entries).contains_key(&Key(x.clone())),
        Value::Range(a, b) => x.as_i64().is_some_and(|i| (*a.min(b)..=*a.max(b)).contains(&i)) && x.is_number(),
        Value::Str(_) => value::equals(coll, x),
        Value::Class(c) => instance_of_class(x, c),
        other => call_method_value(cx, other, "contains", vec![x.clone()])?.truthy(),
    })
}

pub(super) fn instance_of_class(v: &Value, class: &'static str) -> bool {
    classes::is_instance(v, class) || builtin_instance(v, class.rsplit('.').next().unwrap_or(class), 0) == Some(true)
}

/// `instanceof` for the built-in value types; `None` when the type is a library class.
pub(super) fn builtin_instance(v: &Value, simple: &str, dims: u8) -> Option<bool> {
    if v.is_null() {
        return Some(false);
    }
    if dims > 0 {
        return Some(matches!(v, Value::Bytes(_)) || matches!(v, Value::List(l) if l.kind == ListKind::Array));
    }
    Some(match simple {
        "String" | "CharSequence" | "GString" => matches!(v, Value::Str(_)),
        "Integer" | "int" => matches!(v, Value::Int(_)),
        "Long" | "long" => matches!(v, Value::Long(_)),
        "Double" | "double" => matches!(v, Value::Double(_)),
        "BigDecimal" => matches!(v, Value::Decimal(_)),
        "Number" => v.is_number(),
        "Boolean" | "boolean" => matches!(v, Value::Bool(_)),
        "Character" | "char" => matches!(v, Value::Char(_)),
        "List" | "ArrayList" | "LinkedList" => {
            matches!(v, Value::List(l) if l.kind == ListKind::List) || matches!(v, Value::Range(..))
        }
        "Set" | "HashSet" | "LinkedHashSet" => matches!(v, Value::List(l) if l.kind == ListKind::Set),
        "Collection" | "Iterable" => {
            matches!(v, Value::List(l) if l.kind != ListKind::Array) || matches!(v, Value::Range(..))
        }
        "Map" | "HashMap" | "LinkedHashMap" => matches!(v, Value::Map(_)),
        "TreeMap" | "SortedMap" => matches!(v, Value::Map(m) if m.sorted),
        "Closure" => matches!(v, Value::Closure(_)),
        "Object" => true,
        _ => return None,
    })
}

pub(super) fn instance_of(v: &Value, ty: &Ty) -> bool {
    if let (Some(o), 0) = (object::of(v), ty.dims) {
        return o.is_a(&ty.name);
    }
    let simple = ty.name.rsplit('.').next().unwrap_or(&ty.name);
    if let Some(b) = builtin_instance(v, simple, ty.dims) {
        return b;
    }
    ty.class.is_some_and(|c| classes::is_instance(v, c))
}
