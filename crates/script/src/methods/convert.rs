//! Casts and coercions: Java's casts (`(int) 3.7` is 3, `(String) 5` a `ClassCastException`
//! in Java dialects) and Groovy's (`"12" as int`, `x as List`, `String s = 5` is "5").

use super::list::{elements, make_set};
use super::number::{self, to_decimal, to_i32, to_i64};
use super::{call_method, class_name};
use crate::value::{lock, ListKind, MapObj, Value};
use crate::{Ctx, Thrown};
use std::sync::{Arc, Mutex};

/// A cast or coercion to a type as written: `(int) x`, `x as Integer`, `int n = x`,
/// `String s = 5` (`coerce` is `as` and typed declarations in Groovy, which convert more
/// than a cast does: `"12" as int` is 12). `type_name` is as written (`int`, `Integer`,
/// `java.util.List`, `String`), `dims` its array dimensions. `null` stays `null`; a type
/// this module does not know (a library class) leaves the value as it is.
pub(crate) fn cast(cx: &mut Ctx<'_>, value: Value, type_name: &str, dims: u8, coerce: bool) -> Result<Value, Thrown> {
    if value.is_null() {
        return Ok(Value::Null);
    }
    let base = type_name.split('<').next().unwrap_or(type_name).trim();
    let t = base.rsplit('.').next().unwrap_or(base);
    if dims > 0 {
        return cast_array(cx, value, t, dims, coerce);
    }
    // Groovy converts on every cast; Java only between primitives.
    let converts = coerce || !cx.lang.is_java_like();
    let java = cx.lang.is_java_like();
    let fail = |v: &Value| cast_error(java, v, type_name);
    let is_num =
        |v: &Value| matches!(v, Value::Int(_) | Value::Long(_) | Value::Double(_) | Value::Decimal(_) | Value::Char(_));
    Ok(match t {
        "def" | "Object" | "var" | "let" | "const" | "" => value,
        "int" | "Integer" | "short" | "Short" | "byte" | "Byte" => {
            let i = match &value {
                v if is_num(v) => to_i32(v).unwrap_or(0),
                Value::Str(_) if coerce => match call_method(cx, &value, "toInteger", Vec::new())? {
                    Value::Int(i) => i,
                    _ => return Err(fail(&value)),
                },
                _ => return Err(fail(&value)),
            };
            Value::Int(match t {
                "short" | "Short" => i as i16 as i32,
                "byte" | "Byte" => i as i8 as i32,
                _ => i,
            })
        }
        "long" | "Long" | "BigInteger" => match &value {
            v if is_num(v) => Value::Long(to_i64(v).unwrap_or(0)),
            Value::Str(_) if coerce => call_method(cx, &value, "toLong", Vec::new())?,
            _ => return Err(fail(&value)),
        },
        "double" | "Double" | "float" | "Float" => {
            let d = match &value {
                v if is_num(v) => v.as_f64().unwrap_or(0.0),
                Value::Str(s) if coerce => number::parse_double(s)?,
                _ => return Err(fail(&value)),
            };
            Value::Double(if t.eq_ignore_ascii_case("float") { number::to_float(d) } else { d })
        }
        "BigDecimal" => match &value {
            v if is_num(v) => Value::Decimal(to_decimal(v).unwrap_or_default()),
            Value::Str(s) if coerce => Value::Decimal(number::parse_decimal(s.trim())?),
            _ => return Err(fail(&value)),
        },
        "Number" => match &value {
            v if v.is_number() => value,
            Value::Str(s) if coerce => Value::Decimal(number::parse_decimal(s.trim())?),
            _ => return Err(fail(&value)),
        },
        "char" | "Character" => match &value {
            Value::Char(_) => value,
            Value::Int(_) | Value::Long(_) => {
                let code = to_i32(&value).unwrap_or(0) as u16 as u32;
                Value::Char(char::from_u32(code).unwrap_or('\u{FFFD}'))
            }
            Value::Str(s) if s.chars().count() == 1 || (coerce && !s.is_empty()) => {
                Value::Char(s.chars().next().unwrap_or('\0'))
            }
            _ => return Err(fail(&value)),
        },
        "boolean" | "Boolean" => match &value {
            Value::Bool(_) => value,
            v if converts => Value::Bool(v.truthy()),
            _ => return Err(fail(&value)),
        },
        "String" | "CharSequence" | "GString" => match &value {
            Value::Str(_) => value,
            // Groovy's `as String` formats a collection itself (`[a, b]`), where a cast calls
            // `toString()` (JSON for json-smart's JSONArray), as JMeter's Groovy does.
            Value::List(l) if coerce && l.json => Value::from(value.to_string()),
            // Groovy's own formatting, which shows a declared class's object by its `toString()`.
            v if converts && (crate::interp::is_script_object(v) || matches!(v, Value::Map(_))) => {
                Value::from(crate::interp::text_of(cx, v)?)
            }
            Value::List(l) if converts && !l.json => Value::from(crate::interp::text_of(cx, &value)?),
            v if converts => Value::from(call_method(cx, v, "toString", Vec::new())?.to_string()),
            _ => return Err(fail(&value)),
        },
        "List" | "ArrayList" | "LinkedList" | "Collection" | "Iterable" | "AbstractList" | "Vector" | "Queue"
        | "Deque" | "ArrayDeque" => match &value {
            Value::List(l) if l.kind == ListKind::List => value,
            Value::List(_) | Value::Range(..) if converts => Value::list(elements(&value)?),
            Value::Str(_) | Value::Bytes(_) if coerce => Value::list(elements(&value)?),
            Value::List(_) | Value::Range(..) => value,
            _ => return Err(fail(&value)),
        },
        "Set" | "HashSet" | "LinkedHashSet" | "SortedSet" | "TreeSet" => {
            let sorted = t.contains("Sorted") || t.starts_with("Tree");
            match &value {
                Value::List(l) if l.kind == ListKind::Set && !sorted => value,
                Value::List(_) | Value::Range(..) | Value::Str(_) if converts => {
                    let mut items = elements(&value)?;
                    if sorted {
                        items = crate::value::sort_natural(items);
                    }
                    make_set(items)
                }
                Value::List(_) => value,
                _ => return Err(fail(&value)),
            }
        }
        "Map" | "HashMap" | "LinkedHashMap" | "SortedMap" | "TreeMap" | "AbstractMap" | "ConcurrentHashMap" => {
            let sorted = t == "SortedMap" || t == "TreeMap";
            match &value {
                Value::Map(m) if !sorted || m.sorted => value,
                Value::Map(m) => {
                    let mut entries = lock(&m.entries).clone();
                    crate::value::sort_entries(&mut entries);
                    Value::Map(Arc::new(MapObj { sorted: true, entries: Mutex::new(entries) }))
                }
                _ => return Err(fail(&value)),
            }
        }
        _ => value,
    })
}

/// `x as String[]`, `(byte[]) x`, `new int[]{...}` conversions: each element cast.
fn cast_array(cx: &mut Ctx<'_>, value: Value, t: &str, dims: u8, coerce: bool) -> Result<Value, Thrown> {
    if dims == 1 && matches!(t, "byte" | "Byte") {
        return match &value {
            Value::Bytes(_) => Ok(value),
            Value::List(_) | Value::Range(..) => {
                let mut out = Vec::new();
                for x in elements(&value)? {
                    out.push(to_i32(&x).ok_or_else(|| cast_error(cx.lang.is_java_like(), &x, "byte"))? as u8);
                }
                Ok(Value::Bytes(Arc::new(out)))
            }
            Value::Str(s) if coerce => Ok(Value::Bytes(Arc::new(s.as_bytes().to_vec()))),
            _ => Err(cast_error(cx.lang.is_java_like(), &value, "byte[]")),
        };
    }
    match &value {
        Value::List(l) if l.kind == ListKind::Array && (!coerce || matches!(t, "Object" | "def")) => Ok(value),
        Value::List(_) | Value::Range(..) | Value::Str(_) | Value::Bytes(_)
            if coerce || matches!(&value, Value::List(_)) =>
        {
            let items = match (&value, t) {
                (Value::Str(s), "char" | "Character") => s.chars().map(Value::Char).collect(),
                _ => elements(&value)?,
            };
            let mut out = Vec::with_capacity(items.len());
            for x in items {
                out.push(cast(cx, x, t, dims - 1, true)?);
            }
            Ok(Value::array(out))
        }
        _ => Err(cast_error(cx.lang.is_java_like(), &value, &format!("{t}{}", "[]".repeat(dims as usize)))),
    }
}

fn cast_error(java: bool, v: &Value, to: &str) -> Thrown {
    if java {
        Thrown::new("java.lang.ClassCastException", format!("class {} cannot be cast to class {to}", class_name(v)))
    } else {
        Thrown::new(
            "org.codehaus.groovy.runtime.typehandling.GroovyCastException",
            format!("Cannot cast object '{v}' with class '{}' to class '{to}'", class_name(v)),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;
    use super::*;
    use crate::Lang;

    fn g(v: Value, t: &str) -> Result<Value, Thrown> {
        cast_in(Lang::Groovy, v, t, 0, true)
    }

    #[test]
    fn java_casts() {
        assert!(matches!(cast_in(Lang::Java, Value::Double(3.7), "int", 0, false), Ok(Value::Int(3))));
        assert!(matches!(cast_in(Lang::Java, Value::Double(-3.7), "long", 0, false), Ok(Value::Long(-3))));
        assert!(matches!(cast_in(Lang::Java, Value::Int(65), "char", 0, false), Ok(Value::Char('A'))));
        assert!(matches!(cast_in(Lang::Java, Value::Char('A'), "int", 0, false), Ok(Value::Int(65))));
        assert!(matches!(cast_in(Lang::Java, Value::Int(300), "byte", 0, false), Ok(Value::Int(44))));
        assert!(matches!(cast_in(Lang::Java, Value::Long(1 << 32), "int", 0, false), Ok(Value::Int(0))));
        let e = cast_in(Lang::Java, Value::Int(5), "String", 0, false).unwrap_err();
        assert_eq!(e.class, "java.lang.ClassCastException");
        assert!(cast_in(Lang::BeanShell, Value::str("1"), "int", 0, false).is_err());
        // Groovy casts a string to a number only with `as` (or a typed declaration).
        assert!(cast_in(Lang::Groovy, Value::str("1"), "Integer", 0, false).is_err());
        assert_eq!(cast_in(Lang::Java, Value::str("a"), "String", 0, false).unwrap().to_string(), "a");
        assert!(cast_in(Lang::Java, Value::Null, "int", 0, false).unwrap().is_null());
    }

    #[test]
    fn groovy_coercions() {
        assert!(matches!(g(Value::str("12"), "int"), Ok(Value::Int(12))));
        assert!(matches!(g(Value::str(" 12 "), "Integer"), Ok(Value::Int(12))));
        assert_eq!(g(Value::str("x"), "int").unwrap_err().class, "java.lang.NumberFormatException");
        assert!(matches!(g(Value::str("12"), "long"), Ok(Value::Long(12))));
        assert_eq!(g(Value::str("1.50"), "BigDecimal").unwrap().to_string(), "1.50");
        assert_eq!(g(Value::Int(5), "String").unwrap().to_string(), "5");
        assert_eq!(cast_in(Lang::Groovy, Value::Int(5), "String", 0, false).unwrap().to_string(), "5");
        assert_eq!(g(Value::Double(2.0), "java.lang.String").unwrap().to_string(), "2.0");
        assert!(matches!(g(Value::str("false"), "boolean"), Ok(Value::Bool(true))));
        assert!(matches!(g(Value::str(""), "boolean"), Ok(Value::Bool(false))));
        assert_eq!(g(Value::Range(1, 3), "List").unwrap().to_string(), "[1, 2, 3]");
        assert_eq!(g(ints(&[1, 1, 2]), "Set").unwrap().to_string(), "[1, 2]");
        assert_eq!(g(ints(&[3, 1, 3]), "TreeSet").unwrap().to_string(), "[1, 3]");
        assert_eq!(g(Value::str("ab"), "List").unwrap().to_string(), "[a, b]");
        assert_eq!(g(Value::Double(3.9), "int").unwrap().to_string(), "3");
        assert_eq!(g(Value::Int(3), "BigDecimal").unwrap().type_name(), "BigDecimal");
        assert!(matches!(g(Value::str("a"), "char"), Ok(Value::Char('a'))));
        assert!(matches!(g(Value::Int(7), "def"), Ok(Value::Int(7))));
        assert!(matches!(g(Value::Int(7), "java.util.Random"), Ok(Value::Int(7))));
        let l = ints(&[1]);
        let same = g(l.clone(), "java.util.List<Integer>").unwrap();
        assert!(super::super::identical(&l, &same));
    }

    #[test]
    fn arrays() {
        let a = cast_in(Lang::Groovy, ints(&[1, 2]), "String", 1, true).unwrap();
        assert_eq!(a.type_name(), "Object[]");
        assert_eq!(super::super::inspect(&a), "['1', '2']");
        let b = cast_in(Lang::Java, ints(&[104, 105]), "byte", 1, false).unwrap();
        assert!(matches!(&b, Value::Bytes(b) if b.as_slice() == b"hi"));
        let c = cast_in(Lang::Groovy, Value::str("ab"), "char", 1, true).unwrap();
        assert_eq!(c.to_string(), "[a, b]");
    }
}
