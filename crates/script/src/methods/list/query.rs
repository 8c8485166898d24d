//! Lists' methods that ask and convert: `contains`, `indexOf`, `subList`, `toSet`, `equals`, ...

use super::*;

pub(super) fn contains(_cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    let Value::List(l) = recv else { return Ok(None) };
    Ok(Some(match (name, args) {
        ("contains" | "isCase", [x]) => Value::Bool(lock(&l.items).iter().any(|y| value::equals(y, x))),
        _ => return Ok(None),
    }))
}

pub(super) fn contains_all(_cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    let Value::List(l) = recv else { return Ok(None) };
    let items = || lock(&l.items).clone();
    Ok(Some(match (name, args) {
        ("containsAll", [c]) => {
            let want = elements(c)?;
            let have = items();
            Value::Bool(want.iter().all(|x| have.iter().any(|y| value::equals(x, y))))
        }
        _ => return Ok(None),
    }))
}

pub(super) fn index_of(_cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    let Value::List(l) = recv else { return Ok(None) };
    Ok(Some(match (name, args) {
        ("indexOf", [x]) => {
            Value::Int(lock(&l.items).iter().position(|y| value::equals(y, x)).map_or(-1, |p| p as i32))
        }
        _ => return Ok(None),
    }))
}

pub(super) fn last_index_of(_cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    let Value::List(l) = recv else { return Ok(None) };
    Ok(Some(match (name, args) {
        ("lastIndexOf", [x]) => {
            Value::Int(lock(&l.items).iter().rposition(|y| value::equals(y, x)).map_or(-1, |p| p as i32))
        }
        _ => return Ok(None),
    }))
}

pub(super) fn sub_list(_cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    let Value::List(l) = recv else { return Ok(None) };
    let items = || lock(&l.items).clone();
    let bad = || bad_args(recv, name, args);
    Ok(Some(match (name, args) {
        ("subList", [a, b]) => {
            let all = items();
            let (a, b) = (int_arg(a).ok_or_else(bad)?, int_arg(b).ok_or_else(bad)?);
            if a < 0 || b as usize > all.len() || a > b {
                return Err(Thrown::new(
                    "java.lang.IndexOutOfBoundsException",
                    format!("fromIndex: {a}, toIndex: {b}, size: {}", all.len()),
                ));
            }
            Value::list(all[a as usize..b as usize].to_vec())
        }
        _ => return Ok(None),
    }))
}

pub(super) fn to_array(_cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    let Value::List(l) = recv else { return Ok(None) };
    let items = || lock(&l.items).clone();
    Ok(Some(match (name, args) {
        ("toArray", [] | [_]) => Value::array(items()),
        _ => return Ok(None),
    }))
}

pub(super) fn to_list(_cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    let Value::List(l) = recv else { return Ok(None) };
    let items = || lock(&l.items).clone();
    Ok(Some(match (name, args) {
        ("toList" | "asList" | "collect" | "toArrayList", []) => Value::list(items()),
        _ => return Ok(None),
    }))
}

pub(super) fn to_set(_cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    let Value::List(l) = recv else { return Ok(None) };
    let items = || lock(&l.items).clone();
    Ok(Some(match (name, args) {
        ("toSet" | "asUnique", []) => make_set(items()),
        _ => return Ok(None),
    }))
}

pub(super) fn to_sorted(cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    let Value::List(l) = recv else { return Ok(None) };
    let items = || lock(&l.items).clone();
    Ok(Some(match (name, args) {
        ("toSorted", []) => Value::list(sort_values(cx, items(), None)?),
        _ => return Ok(None),
    }))
}

pub(super) fn to_sorted_2(cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    let Value::List(l) = recv else { return Ok(None) };
    let items = || lock(&l.items).clone();
    Ok(Some(match (name, args) {
        ("toSorted", [f]) if is_fn(f) => Value::list(sort_values(cx, items(), Some(f))?),
        _ => return Ok(None),
    }))
}

pub(super) fn as_immutable(_cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    Ok(Some(match (name, args) {
        ("asImmutable" | "asUnmodifiable" | "asSynchronized" | "stream" | "parallelStream", []) => recv.clone(),
        _ => return Ok(None),
    }))
}

pub(super) fn equals(_cx: &mut Ctx<'_>, recv: &Value, name: &str, args: &[Value]) -> Found {
    let Value::List(l) = recv else { return Ok(None) };
    let kind = l.kind;
    Ok(Some(match (name, args) {
        ("equals", [x]) => Value::Bool(match x {
            Value::List(o) if (o.kind == ListKind::Set) == (kind == ListKind::Set) => value::equals(recv, x),
            _ => false,
        }),
        _ => return Ok(None),
    }))
}
