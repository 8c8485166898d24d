//! `String`'s statics and Java's `Formatter` (`String.format`).

use super::*;

pub(super) fn string_static(cx: &mut Ctx<'_>, method: &str, args: Vec<Value>) -> Result<Value, Thrown> {
    match (method, args.len()) {
        ("valueOf" | "copyValueOf", 1) => match &args[0] {
            // Java's `String.valueOf` calls `toString()`: JSON for json-smart's JSONArray.
            v @ Value::List(l) if l.json => Ok(Value::str(super::super::json_smart_text(v))),
            Value::List(l) if lock(&l.items).iter().all(|c| matches!(c, Value::Char(_))) => {
                Ok(Value::str(lock(&l.items).iter().map(|c| c.to_string()).collect::<String>()))
            }
            // An object of a declared class (at any depth) by its `toString()`.
            v => Ok(Value::str(crate::interp::text_of(cx, v)?)),
        },
        ("valueOf" | "copyValueOf", 3) => {
            let chars: Vec<Value> = items_of(&args[0]).unwrap_or_default();
            let (from, n) = (int_arg(&args, 1)?, int_arg(&args, 2)?);
            let range =
                usize::try_from(from).ok().zip(usize::try_from(n).ok()).and_then(|(a, n)| Some(a..a.checked_add(n)?));
            let slice = range
                .and_then(|r| chars.get(r))
                .ok_or_else(|| Thrown::new("java.lang.StringIndexOutOfBoundsException", "offset/count out of range"))?;
            Ok(Value::str(slice.iter().map(|c| c.to_string()).collect::<String>()))
        }
        ("format", n) if n >= 1 => {
            // `String.format(Locale, fmt, args...)`: a locale is a string here; skip it when
            // the next argument is the format.
            let mut args = args;
            let first = args.remove(0);
            let fmt_args = match &first {
                Value::Str(_) => collect_varargs(args),
                _ => Vec::new(),
            };
            Ok(Value::str(format(&first.to_string(), &fmt_args)?))
        }
        ("join", n) if n >= 2 => {
            let sep = args[0].to_string();
            let parts: Vec<Value> =
                if n == 2 { items_of(&args[1]).unwrap_or_else(|| vec![args[1].clone()]) } else { args[1..].to_vec() };
            Ok(Value::str(crate::methods::join_texts(&parts, &sep, "null")?))
        }
        _ => Err(no_method("java.lang.String", method)),
    }
}

/// Varargs passed as one array (`String.format(fmt, arr)`) spread as Java does; a list stays
/// one argument (Groovy passes it as an Object).
pub(super) fn collect_varargs(args: Vec<Value>) -> Vec<Value> {
    if let [Value::List(l)] = args.as_slice() {
        if l.kind == crate::value::ListKind::Array {
            return lock(&l.items).clone();
        }
    }
    args
}

// ---- java.util.Formatter ----

/// Java's `String.format(fmt, args)`: `%s %d %5d %-5s %05d %,d %.2f %e %x %X %c %b %n %% %1$s %<s`.
pub(crate) fn format(fmt: &str, args: &[Value]) -> Result<String, Thrown> {
    let mut out = String::new();
    let mut chars = fmt.char_indices().peekable();
    let mut next_arg = 0usize;
    let mut last_arg: Option<usize> = None;
    while let Some((start, c)) = chars.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        // %[index$][flags][width][.precision]conversion
        let mut spec = String::new();
        let mut conv = None;
        for (_, ch) in chars.by_ref() {
            if ch.is_ascii_alphabetic() || ch == '%' {
                conv = Some(ch);
                break;
            }
            spec.push(ch);
        }
        let conv = conv.ok_or_else(|| {
            format_error("UnknownFormatConversionException", format!("Conversion = '{}'", &fmt[start..]))
        })?;
        let (index, rest) =
            match spec.split_once('$') {
                Some((i, rest)) => (
                    Some(i.parse::<usize>().map_err(|_| {
                        format_error("UnknownFormatConversionException", format!("Conversion = '{spec}'"))
                    })?),
                    rest.to_string(),
                ),
                None => (None, spec.clone()),
            };
        let relative = rest.starts_with('<');
        let rest = rest.trim_start_matches('<');
        let flags: String = rest.chars().take_while(|c| "-#+ 0,(".contains(*c)).collect();
        let rest = &rest[flags.len()..];
        let (width, precision) = match rest.split_once('.') {
            Some((w, p)) => (
                w.parse::<usize>().ok(),
                Some(p.parse::<usize>().map_err(|_| format_error("IllegalFormatPrecisionException", p.to_string()))?),
            ),
            None => (rest.parse::<usize>().ok(), None),
        };
        // A width or precision is text made before it is padded: `%0999999999d` must not ask
        // for a gigabyte.
        let size =
            (out.len() as u64).saturating_add(width.unwrap_or(0) as u64).saturating_add(precision.unwrap_or(0) as u64);
        crate::methods::checked_size(size)?;
        let spec_text = format!("%{spec}{conv}");
        let text = match conv {
            '%' => "%".to_string(),
            'n' => "\n".to_string(),
            _ => {
                let i = if relative {
                    last_arg.ok_or_else(|| {
                        format_error("MissingFormatArgumentException", format!("Format specifier '{spec_text}'"))
                    })?
                } else if let Some(i) = index {
                    i.saturating_sub(1)
                } else {
                    next_arg += 1;
                    next_arg - 1
                };
                last_arg = Some(i);
                let v = args.get(i).ok_or_else(|| {
                    format_error("MissingFormatArgumentException", format!("Format specifier '{spec_text}'"))
                })?;
                convert(conv, v, &flags, precision, &spec_text)?
            }
        };
        pad(&mut out, &text, width, &flags, conv);
    }
    Ok(out)
}

pub(super) fn format_error(class: &str, message: String) -> Thrown {
    Thrown::new(&format!("java.util.{class}"), message)
}

pub(super) fn pad(out: &mut String, text: &str, width: Option<usize>, flags: &str, conv: char) {
    let len = text.chars().count();
    let fill = width.unwrap_or(0).saturating_sub(len);
    if fill == 0 {
        out.push_str(text);
    } else if flags.contains('-') {
        out.push_str(text);
        out.extend(std::iter::repeat_n(' ', fill));
    } else if flags.contains('0') && "dxXofeEgG".contains(conv) {
        let digits_at = text.find(|c: char| c.is_ascii_alphanumeric()).unwrap_or(0);
        let (sign, digits) = text.split_at(digits_at);
        let (prefix, digits) =
            if digits.starts_with("0x") || digits.starts_with("0X") { digits.split_at(2) } else { ("", digits) };
        out.push_str(sign);
        out.push_str(prefix);
        out.extend(std::iter::repeat_n('0', fill));
        out.push_str(digits);
    } else {
        out.extend(std::iter::repeat_n(' ', fill));
        out.push_str(text);
    }
}

pub(super) fn convert(
    conv: char,
    v: &Value,
    flags: &str,
    precision: Option<usize>,
    spec: &str,
) -> Result<String, Thrown> {
    let mismatch =
        || format_error("IllegalFormatConversionException", format!("{} != java.lang.{}", conv, v.type_name()));
    let upper = conv.is_ascii_uppercase();
    let text = match conv.to_ascii_lowercase() {
        's' => {
            let s = v.to_string();
            match precision {
                Some(p) => s.chars().take(p).collect(),
                None => s,
            }
        }
        'b' => match v {
            Value::Null => "false".into(),
            Value::Bool(b) => b.to_string(),
            _ => "true".into(),
        },
        'h' => match v {
            Value::Null => "null".into(),
            Value::Str(s) => {
                format!("{:x}", s.encode_utf16().fold(0i32, |h, c| h.wrapping_mul(31).wrapping_add(c as i32)))
            }
            other => format!("{:x}", other.as_i64().unwrap_or(0) as i32),
        },
        'c' => match v {
            Value::Null => "null".into(),
            Value::Char(c) => c.to_string(),
            Value::Int(n) => char::from_u32(*n as u32).ok_or_else(mismatch)?.to_string(),
            _ => return Err(mismatch()),
        },
        'd' => {
            let digits = match v {
                Value::Null => return Ok("null".into()),
                Value::Int(_) | Value::Long(_) => v.as_i64().unwrap_or(0).to_string(),
                Value::Decimal(d) if d.fract().is_zero() => d.trunc().to_string(),
                _ => return Err(mismatch()),
            };
            signed(digits, flags)
        }
        'x' | 'o' => {
            let radix = if conv.eq_ignore_ascii_case(&'x') { 16 } else { 8 };
            let s = match v {
                Value::Null => return Ok("null".into()),
                Value::Int(n) => unsigned_radix("java.lang.Integer", *n as i64, radix),
                Value::Long(n) => unsigned_radix("java.lang.Long", *n, radix),
                _ => return Err(mismatch()),
            };
            let prefix = match (flags.contains('#'), radix) {
                (true, 16) => "0x",
                (true, _) => "0",
                _ => "",
            };
            format!("{prefix}{s}")
        }
        'f' | 'e' | 'g' => {
            if v.is_null() {
                return Ok("null".into());
            }
            if !matches!(v, Value::Double(_) | Value::Decimal(_)) {
                return Err(mismatch());
            }
            let p = precision.unwrap_or(6);
            if let Value::Double(d) = v {
                if d.is_nan() || d.is_infinite() {
                    return Ok(java_double(*d));
                }
            }
            match conv.to_ascii_lowercase() {
                'f' => signed(fixed(v, p), flags),
                'e' => signed(scientific(v, p), flags),
                _ => {
                    let x = v.as_f64().unwrap_or(0.0).abs();
                    let p = if p == 0 { 1 } else { p };
                    if x != 0.0 && (x < 1e-4 || x >= 10f64.powi(p as i32)) {
                        signed(scientific(v, p - 1), flags)
                    } else {
                        let exp = if x == 0.0 { 0 } else { x.log10().floor() as i32 };
                        signed(fixed(v, (p as i32 - 1 - exp).max(0) as usize), flags)
                    }
                }
            }
        }
        _ => return Err(format_error("UnknownFormatConversionException", format!("Conversion = '{conv}' in {spec}"))),
    };
    Ok(if upper { text.to_uppercase() } else { text })
}

/// Applies the sign flags (`+`, ` `, `(`) and grouping (`,`) to a number's digits.
pub(super) fn signed(digits: String, flags: &str) -> String {
    let (neg, body) = match digits.strip_prefix('-') {
        Some(b) => (true, b.to_string()),
        None => (false, digits),
    };
    let body = if flags.contains(',') { group(&body) } else { body };
    match (neg, flags) {
        (true, f) if f.contains('(') => format!("({body})"),
        (true, _) => format!("-{body}"),
        (false, f) if f.contains('+') => format!("+{body}"),
        (false, f) if f.contains(' ') => format!(" {body}"),
        _ => body,
    }
}

/// `1234567.5` → `1,234,567.5`.
pub(crate) fn group(body: &str) -> String {
    let (int, frac) = match body.find('.') {
        Some(i) => body.split_at(i),
        None => (body, ""),
    };
    let mut out = String::new();
    for (i, c) in int.chars().enumerate() {
        if i > 0 && (int.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out + frac
}

/// The decimal value Java's Formatter starts from: a double's shortest representation
/// (`Double.toString`'s digits), a BigDecimal as it is.
pub(super) fn decimal_of(v: &Value) -> Option<Decimal> {
    match v {
        Value::Decimal(d) => Some(*d),
        Value::Double(d) => Decimal::from_str_exact(&format!("{d}")).ok().or_else(|| Decimal::from_f64(*d)),
        other => other.as_i64().map(Decimal::from),
    }
}

/// `%.{p}f`: rounded half-up, as Java does.
pub(super) fn fixed(v: &Value, p: usize) -> String {
    match decimal_of(v) {
        Some(d) => {
            let r = d.round_dp_with_strategy(p as u32, rust_decimal::RoundingStrategy::MidpointAwayFromZero);
            let s = format!("{r:.p$}");
            if s.starts_with('-') && r.is_zero() {
                s[1..].to_string()
            } else {
                s
            }
        }
        None => format!("{:.p$}", v.as_f64().unwrap_or(0.0)),
    }
}

/// `%.{p}e`: `1.234560e+01`.
pub(super) fn scientific(v: &Value, p: usize) -> String {
    let x = v.as_f64().unwrap_or(0.0);
    if x == 0.0 {
        return format!("{:.p$}e+00", 0.0);
    }
    let mut exp = x.abs().log10().floor() as i32;
    let scaled = |exp: i32| {
        decimal_of(&Value::Double(x / 10f64.powi(exp)))
            .map(|d| d.round_dp_with_strategy(p as u32, rust_decimal::RoundingStrategy::MidpointAwayFromZero))
    };
    let mut m = scaled(exp).unwrap_or_default();
    if m.abs() >= Decimal::TEN {
        exp += 1;
        m = scaled(exp).unwrap_or_default();
    }
    let sign = if exp < 0 { '-' } else { '+' };
    format!("{m:.p$}e{sign}{:02}", exp.abs())
}
