//! `java.util.Date`, `Calendar`, `SimpleDateFormat` and `DecimalFormat` objects.

use super::*;

// ---- Date ----

/// `java.util.Date`: milliseconds since the epoch.
#[derive(Debug)]
pub(crate) struct DateObj(pub(super) Mutex<i64>);

pub(crate) fn date(millis: i64) -> Value {
    obj(DateObj(Mutex::new(millis)))
}

/// The milliseconds of a `Date` or `Calendar` (for JSON and formatting).
pub(crate) fn date_millis(v: &Value) -> Option<i64> {
    if let Some(d) = super::super::downcast::<DateObj>(v) {
        return Some(*lock(&d.0));
    }
    if let Some(c) = super::super::downcast::<CalendarObj>(v) {
        return Some(*lock(&c.millis));
    }
    super::super::downcast::<Temporal>(v).map(|t| t.epoch_nanos().div_euclid(1_000_000) as i64)
}

/// Formats an instant by a SimpleDateFormat pattern at an offset; a bad pattern gives its
/// error text.
pub(crate) fn format_millis(millis: i64, pattern: &str, offset_seconds: i32) -> String {
    match JavaDateFormat::compile(pattern) {
        Ok(f) => format_with(&f, millis, offset_seconds),
        Err(e) => e.to_string(),
    }
}

pub(super) fn format_with(f: &JavaDateFormat, millis: i64, offset_seconds: i32) -> String {
    let nanos = millis as i128 * 1_000_000;
    let t = time::OffsetDateTime::from_unix_timestamp_nanos(nanos).unwrap_or(time::OffsetDateTime::UNIX_EPOCH);
    let t = t.to_offset(time::UtcOffset::from_whole_seconds(offset_seconds).unwrap_or(time::UtcOffset::UTC));
    let mut out = String::new();
    f.format(t, &mut out);
    out
}

pub(super) fn pattern_error(e: impl std::fmt::Display) -> Thrown {
    illegal_arg(e.to_string())
}

impl Native for DateObj {
    native_base!("java.util.Date");
    fn call(&self, _cx: &mut Ctx<'_>, method: &str, args: Vec<Value>) -> Result<Value, Thrown> {
        let ms = *lock(&self.0);
        let other =
            || date_millis(arg(&args, 0)).ok_or_else(|| illegal_arg(format!("Date.{method}: a Date was expected")));
        match (method, args.len()) {
            ("getTime", 0) => Ok(Value::Long(ms)),
            ("setTime", 1) => {
                *lock(&self.0) = int_arg(&args, 0)?;
                Ok(Value::Null)
            }
            ("toString", 0) => Ok(Value::str(Native::to_string(self))),
            ("before", 1) => Ok(Value::Bool(ms < other()?)),
            ("after", 1) => Ok(Value::Bool(ms > other()?)),
            ("compareTo", 1) => Ok(Value::Int(ms.cmp(&other()?) as i32)),
            ("equals", 1) => Ok(Value::Bool(date_millis(&args[0]) == Some(ms))),
            ("hashCode", 0) => Ok(Value::Int((ms ^ (ms >> 32)) as i32)),
            ("format", 1 | 2) => {
                let f = JavaDateFormat::compile(&str_arg(&args, 0)?).map_err(pattern_error)?;
                let zone = match args.get(1) {
                    Some(z) => zone_arg(z)?,
                    None => Zone::default_zone(),
                };
                Ok(Value::str(format_with(&f, ms, zone.offset_at(ms))))
            }
            ("plus" | "minus", 1) if args[0].as_i64().is_some() => {
                let days = int_arg(&args, 0)? * if method == "plus" { 1 } else { -1 };
                let zone = Zone::default_zone();
                let local = ms + zone.offset_at(ms) as i64 * 1000 + days * 86_400_000;
                Ok(date(local - zone.offset_for_local(local) as i64 * 1000))
            }
            ("minus", 1) => Ok(Value::Int(((ms - other()?) as f64 / 86_400_000.0).floor() as i32)),
            ("toInstant", 0) => Ok(Temporal::instant(ms as i128 * 1_000_000)),
            ("clone", 0) => Ok(date(ms)),
            ("getYear" | "getMonth" | "getDate" | "getHours" | "getMinutes" | "getSeconds" | "getDay", 0) => {
                let zone = Zone::default_zone();
                let local = ms + zone.offset_at(ms) as i64 * 1000;
                let days = local.div_euclid(86_400_000);
                let (y, m, d) = civil_from_days(days);
                let secs = local.rem_euclid(86_400_000) / 1000;
                Ok(Value::Int(match method {
                    "getYear" => y - 1900,
                    "getMonth" => m - 1,
                    "getDate" => d,
                    "getHours" => secs / 3600,
                    "getMinutes" => secs / 60 % 60,
                    "getSeconds" => secs % 60,
                    _ => iso_weekday(days) % 7,
                } as i32))
            }
            _ => Err(no_method("java.util.Date", method)),
        }
    }
    /// Java's `Date.toString()`: `Tue Nov 24 08:02:40 UTC 2026` in the default zone.
    fn to_string(&self) -> String {
        let ms = *lock(&self.0);
        let zone = Zone::default_zone();
        format_millis(ms, "EEE MMM dd HH:mm:ss zzz yyyy", zone.offset_at(ms))
    }
    fn equals(&self, other: &dyn Native) -> bool {
        other.as_any().downcast_ref::<DateObj>().is_some_and(|o| *lock(&o.0) == *lock(&self.0))
    }
}

// ---- Calendar ----

#[derive(Debug)]
pub(super) struct CalendarObj {
    pub(super) millis: Mutex<i64>,
    pub(super) zone: Mutex<Zone>,
}

/// A calendar's local fields: year, month (1-based), day, and milliseconds of the day.
pub(super) struct Fields {
    pub(super) y: i64,
    pub(super) m: i64,
    pub(super) d: i64,
    pub(super) ms: i64,
}

impl CalendarObj {
    pub(super) fn fields(&self) -> (Fields, i64, i32) {
        let ms = *lock(&self.millis);
        let off = lock(&self.zone).offset_at(ms);
        let local = ms + off as i64 * 1000;
        let days = local.div_euclid(86_400_000);
        let (y, m, d) = civil_from_days(days);
        (Fields { y, m, d, ms: local.rem_euclid(86_400_000) }, days, off)
    }

    pub(super) fn store(&self, f: Fields) {
        let local = lenient_days(f.y, f.m, f.d) * 86_400_000 + f.ms;
        let off = lock(&self.zone).offset_for_local(local);
        *lock(&self.millis) = local - off as i64 * 1000;
    }

    pub(super) fn get(&self, field: i64) -> Result<i64, Thrown> {
        let (f, days, off) = self.fields();
        let h = f.ms / 3_600_000;
        Ok(match field {
            0 => 1,
            1 => f.y,
            2 => f.m - 1,
            3 => {
                // US weeks: week 1 holds January 1st, weeks start on Sunday.
                let jan1 = days_from_civil(f.y, 1, 1);
                let offset = iso_weekday(jan1) % 7;
                (days - jan1 + offset) / 7 + 1
            }
            5 => f.d,
            6 => days - days_from_civil(f.y, 1, 1) + 1,
            7 => iso_weekday(days) % 7 + 1,
            9 => (h >= 12) as i64,
            10 => h % 12,
            11 => h,
            12 => f.ms / 60_000 % 60,
            13 => f.ms / 1000 % 60,
            14 => f.ms % 1000,
            15 => lock(&self.zone).base as i64 * 1000,
            16 => (off - lock(&self.zone).base) as i64 * 1000,
            _ => return Err(illegal_arg(format!("Calendar field {field} is not supported"))),
        })
    }

    pub(super) fn set(&self, field: i64, v: i64) -> Result<(), Thrown> {
        let (mut f, days, _) = self.fields();
        let keep = |ms: i64, unit: i64, span: i64| ms - (ms / unit % span) * unit;
        match field {
            1 => f.y = v,
            2 => f.m = v + 1,
            5 => f.d = v,
            6 => {
                f.m = 1;
                f.d = v;
            }
            7 => f.d += v - (iso_weekday(days) % 7 + 1),
            10 | 11 => {
                f.ms = keep(f.ms, 3_600_000, 24)
                    + v * 3_600_000
                    + if field == 10 && f.ms >= 43_200_000 { 43_200_000 } else { 0 }
            }
            12 => f.ms = keep(f.ms, 60_000, 60) + v * 60_000,
            13 => f.ms = keep(f.ms, 1000, 60) + v * 1000,
            14 => f.ms = f.ms - f.ms % 1000 + v,
            _ => return Err(illegal_arg(format!("Calendar field {field} cannot be set"))),
        }
        self.store(f);
        Ok(())
    }

    pub(super) fn add(&self, field: i64, n: i64) -> Result<(), Thrown> {
        let (mut f, _, _) = self.fields();
        match field {
            1 | 2 => {
                let months = f.y * 12 + f.m - 1 + if field == 1 { n * 12 } else { n };
                f.y = months.div_euclid(12);
                f.m = months.rem_euclid(12) + 1;
                f.d = f.d.min(month_length(f.y, f.m));
            }
            3 => f.d += 7 * n,
            5..=7 => f.d += n,
            10 | 11 => f.ms += n * 3_600_000,
            12 => f.ms += n * 60_000,
            13 => f.ms += n * 1000,
            14 => f.ms += n,
            _ => return Err(illegal_arg(format!("Calendar field {field} cannot be added to"))),
        }
        let day_ms = f.ms.div_euclid(86_400_000);
        f.d += day_ms;
        f.ms = f.ms.rem_euclid(86_400_000);
        self.store(f);
        Ok(())
    }
}

impl Native for CalendarObj {
    native_base!("java.util.GregorianCalendar");
    fn call(&self, _cx: &mut Ctx<'_>, method: &str, args: Vec<Value>) -> Result<Value, Thrown> {
        let i = |n: usize| int_arg(&args, n);
        match (method, args.len()) {
            ("get", 1) => Ok(Value::Int(self.get(i(0)?)? as i32)),
            ("set", 2) => self.set(i(0)?, i(1)?).map(|_| Value::Null),
            ("set", 3 | 5 | 6) => {
                let (f, _, _) = self.fields();
                let (h, mi, s) = if args.len() >= 5 {
                    (i(3)?, i(4)?, if args.len() == 6 { i(5)? } else { 0 })
                } else {
                    (f.ms / 3_600_000, f.ms / 60_000 % 60, f.ms / 1000 % 60)
                };
                self.store(Fields {
                    y: i(0)?,
                    m: i(1)? + 1,
                    d: i(2)?,
                    ms: ((h * 60 + mi) * 60 + s) * 1000 + if args.len() == 3 { f.ms % 1000 } else { 0 },
                });
                Ok(Value::Null)
            }
            ("add", 2) => self.add(i(0)?, i(1)?).map(|_| Value::Null),
            ("getTime", 0) => Ok(date(*lock(&self.millis))),
            ("getTimeInMillis", 0) => Ok(Value::Long(*lock(&self.millis))),
            ("setTime", 1) => {
                *lock(&self.millis) =
                    date_millis(&args[0]).ok_or_else(|| illegal_arg("setTime: a Date was expected"))?;
                Ok(Value::Null)
            }
            ("setTimeInMillis", 1) => {
                *lock(&self.millis) = i(0)?;
                Ok(Value::Null)
            }
            ("getTimeZone", 0) => Ok(obj(ZoneObj { class: "java.util.TimeZone", zone: lock(&self.zone).clone() })),
            ("setTimeZone", 1) => {
                *lock(&self.zone) = zone_arg(&args[0])?;
                Ok(Value::Null)
            }
            ("getActualMaximum", 1) => {
                let (f, _, _) = self.fields();
                Ok(Value::Int(match i(0)? {
                    5 => month_length(f.y, f.m),
                    6 => days_from_civil(f.y + 1, 1, 1) - days_from_civil(f.y, 1, 1),
                    2 => 11,
                    11 => 23,
                    12 | 13 => 59,
                    14 => 999,
                    other => return Err(illegal_arg(format!("getActualMaximum({other}) is not supported"))),
                } as i32))
            }
            ("getActualMinimum", 1) => Ok(Value::Int(if matches!(i(0)?, 5..=7) { 1 } else { 0 })),
            ("before" | "after" | "compareTo", 1) => {
                let (a, b) =
                    (*lock(&self.millis), date_millis(&args[0]).ok_or_else(|| illegal_arg("a Calendar was expected"))?);
                Ok(match method {
                    "before" => Value::Bool(a < b),
                    "after" => Value::Bool(a > b),
                    _ => Value::Int(a.cmp(&b) as i32),
                })
            }
            ("clone", 0) => Ok(obj(CalendarObj {
                millis: Mutex::new(*lock(&self.millis)),
                zone: Mutex::new(lock(&self.zone).clone()),
            })),
            ("clear", 0) => {
                *lock(&self.millis) = -(lock(&self.zone).base as i64) * 1000;
                Ok(Value::Null)
            }
            ("setLenient" | "setFirstDayOfWeek" | "setMinimalDaysInFirstWeek", 1) => Ok(Value::Null),
            ("toString", 0) => Ok(Value::str(Native::to_string(self))),
            _ => Err(no_method("java.util.Calendar", method)),
        }
    }
    fn to_string(&self) -> String {
        format!("java.util.GregorianCalendar[time={}]", lock(&self.millis))
    }
}

// ---- SimpleDateFormat ----

#[derive(Debug)]
pub(super) struct DateFormatObj {
    pub(super) pattern: String,
    pub(super) fmt: JavaDateFormat,
    pub(super) zone: Mutex<Zone>,
}

/// The instant a parse gave, filling what the text did not say as Java does (1970-01-01,
/// midnight, the format's zone).
pub(super) fn parsed_millis(p: &super::super::javatime::Parsed, zone: &Zone) -> i64 {
    let days = lenient_days(p.year.unwrap_or(1970) as i64, p.month.unwrap_or(1) as i64, p.day.unwrap_or(1) as i64);
    let ms = ((p.hour.unwrap_or(0) as i64 * 60 + p.minute.unwrap_or(0) as i64) * 60 + p.second.unwrap_or(0) as i64)
        * 1000
        + p.nano.unwrap_or(0) as i64 / 1_000_000;
    let local = days * 86_400_000 + ms;
    let off = p.offset_seconds.unwrap_or_else(|| zone.offset_for_local(local));
    local - off as i64 * 1000
}

impl Native for DateFormatObj {
    native_base!("java.text.SimpleDateFormat");
    fn call(&self, _cx: &mut Ctx<'_>, method: &str, args: Vec<Value>) -> Result<Value, Thrown> {
        match (method, args.len()) {
            ("format", 1) => {
                let ms = date_millis(&args[0])
                    .or_else(|| if args[0].is_number() { args[0].as_i64() } else { None })
                    .ok_or_else(|| illegal_arg("Cannot format given Object as a Date"))?;
                let zone = lock(&self.zone).clone();
                Ok(Value::str(format_with(&self.fmt, ms, zone.offset_at(ms))))
            }
            ("parse", 1) => {
                let text = str_arg(&args, 0)?;
                let p = self
                    .fmt
                    .parse(&text)
                    .ok_or_else(|| Thrown::new("java.text.ParseException", format!("Unparseable date: \"{text}\"")))?;
                Ok(date(parsed_millis(&p, &lock(&self.zone))))
            }
            ("setTimeZone", 1) => {
                *lock(&self.zone) = zone_arg(&args[0])?;
                Ok(Value::Null)
            }
            ("getTimeZone", 0) => Ok(obj(ZoneObj { class: "java.util.TimeZone", zone: lock(&self.zone).clone() })),
            ("toPattern", 0) => Ok(Value::str(self.pattern.as_str())),
            ("setLenient", 1) => Ok(Value::Null),
            _ => Err(no_method("java.text.SimpleDateFormat", method)),
        }
    }
}

// ---- DecimalFormat ----

/// A `DecimalFormat` pattern: prefix, integer digits, grouping, fraction digits, suffix.
#[derive(Debug)]
pub(super) struct DecimalFormatObj {
    pub(super) pattern: String,
    pub(super) prefix: String,
    pub(super) suffix: String,
    pub(super) min_int: usize,
    pub(super) group: usize,
    pub(super) min_frac: u32,
    pub(super) max_frac: u32,
    pub(super) percent: bool,
    pub(super) rounding: Mutex<rust_decimal::RoundingStrategy>,
}

impl DecimalFormatObj {
    pub(super) fn new(pattern: &str) -> DecimalFormatObj {
        let positive = pattern.split(';').next().unwrap_or("");
        let is_num = |c: char| matches!(c, '#' | '0' | ',' | '.');
        let start = positive.find(is_num).unwrap_or(positive.len());
        let end = positive.rfind(is_num).map(|i| i + 1).unwrap_or(start);
        let (prefix, body, suffix) = (&positive[..start], &positive[start..end], &positive[end..]);
        let (int, frac) = body.split_once('.').unwrap_or((body, ""));
        DecimalFormatObj {
            pattern: pattern.to_string(),
            prefix: prefix.replace('\'', ""),
            suffix: suffix.replace('\'', ""),
            min_int: int.chars().filter(|&c| c == '0').count(),
            group: int.rfind(',').map(|i| int.len() - i - 1).unwrap_or(0),
            min_frac: frac.chars().filter(|&c| c == '0').count() as u32,
            max_frac: frac.chars().filter(|&c| c == '0' || c == '#').count() as u32,
            percent: positive.contains('%'),
            rounding: Mutex::new(rust_decimal::RoundingStrategy::MidpointNearestEven),
        }
    }

    pub(super) fn format(&self, v: &Value) -> Result<String, Thrown> {
        let d = match v {
            Value::Double(d) if !d.is_finite() => {
                return Ok(if d.is_nan() {
                    "NaN".into()
                } else if *d > 0.0 {
                    "∞".into()
                } else {
                    "-∞".into()
                })
            }
            // The double's exact binary value, as Java rounds it.
            Value::Double(d) => Decimal::from_f64_retain(*d).unwrap_or_default(),
            other => super::super::lang::to_decimal(other)
                .ok_or_else(|| illegal_arg("Cannot format given Object as a Number"))?,
        };
        let d = if self.percent { d * Decimal::ONE_HUNDRED } else { d };
        let r = d.round_dp_with_strategy(self.max_frac, *lock(&self.rounding));
        let neg = r.is_sign_negative() && !r.is_zero();
        let text = r.abs().to_string();
        let (int, frac) = text.split_once('.').unwrap_or((&text, ""));
        let mut frac = frac.trim_end_matches('0').to_string();
        while (frac.len() as u32) < self.min_frac {
            frac.push('0');
        }
        let int = int.trim_start_matches('0');
        let mut int = format!("{}{int}", "0".repeat(self.min_int.saturating_sub(int.len())));
        if self.group > 0 && int.len() > self.group {
            let digits: Vec<char> = int.chars().collect();
            int = digits.chunks(self.group).map(|c| c.iter().collect::<String>()).collect::<Vec<_>>().join(",");
            let first = digits.len() % self.group;
            if first != 0 {
                let (a, b) = digits.split_at(first);
                int = std::iter::once(a.iter().collect::<String>())
                    .chain(b.chunks(self.group).map(|c| c.iter().collect()))
                    .collect::<Vec<_>>()
                    .join(",");
            }
        }
        if int.is_empty() && frac.is_empty() {
            int.push('0');
        }
        let sep = if frac.is_empty() { "" } else { "." };
        Ok(format!("{}{}{int}{sep}{frac}{}", if neg { "-" } else { "" }, self.prefix, self.suffix))
    }
}

/// `new DecimalFormat(pattern).format(n)`, as JMeter's Counter formats its value.
pub fn format_decimal(pattern: &str, n: i64) -> String {
    DecimalFormatObj::new(pattern).format(&Value::Long(n)).unwrap_or_else(|_| n.to_string())
}

impl Native for DecimalFormatObj {
    native_base!("java.text.DecimalFormat");
    fn call(&self, _cx: &mut Ctx<'_>, method: &str, args: Vec<Value>) -> Result<Value, Thrown> {
        match (method, args.len()) {
            ("format", 1) => Ok(Value::str(self.format(&args[0])?)),
            ("parse", 1) => {
                let t = str_arg(&args, 0)?.replace(',', "");
                let t = t.trim_start_matches(self.prefix.as_str()).trim_end_matches(self.suffix.as_str());
                match t.parse::<i64>() {
                    Ok(n) => Ok(Value::Long(n)),
                    Err(_) => t
                        .parse::<f64>()
                        .map(Value::Double)
                        .map_err(|_| Thrown::new("java.text.ParseException", format!("Unparseable number: \"{t}\""))),
                }
            }
            ("setRoundingMode", 1) => {
                use rust_decimal::RoundingStrategy as R;
                *lock(&self.rounding) = match args[0].to_string().as_str() {
                    "HALF_UP" => R::MidpointAwayFromZero,
                    "HALF_DOWN" => R::MidpointTowardZero,
                    "UP" => R::AwayFromZero,
                    "DOWN" => R::ToZero,
                    "CEILING" => R::ToPositiveInfinity,
                    "FLOOR" => R::ToNegativeInfinity,
                    _ => R::MidpointNearestEven,
                };
                Ok(Value::Null)
            }
            ("toPattern", 0) => Ok(Value::str(self.pattern.as_str())),
            ("setGroupingUsed" | "setMaximumFractionDigits" | "setMinimumFractionDigits" | "setParseBigDecimal", 1) => {
                Err(no_method("java.text.DecimalFormat", method))
            }
            _ => Err(no_method("java.text.DecimalFormat", method)),
        }
    }
}
