//! Dates and times: `Date` (with Groovy's `format`), `Calendar`, `TimeZone`,
//! `SimpleDateFormat`, `DecimalFormat`, and java.time (`Instant`, `LocalDate`,
//! `LocalDateTime`, `ZonedDateTime`, `OffsetDateTime`, `ZoneId`, `ZoneOffset`,
//! `DateTimeFormatter`, `Duration`, `ChronoUnit`).
//!
//! Time zones: UTC, fixed offsets (`GMT+05:30`, `+02:00`), zones without daylight saving
//! (`Asia/Kolkata`, `Asia/Tokyo`, ...) and the European, North American and south-east
//! Australian zones with today's daylight-saving rules. Other zone names are an error (stampede
//! has no tz database). The default zone is `TZ` when it names one of these, else UTC.

use super::javatime::JavaDateFormat;
use super::{arg, illegal_arg, int_arg, native_base, no_method, no_property, obj, str_arg, ClassDef, Family};
use crate::value::{lock, Native, Value};
use crate::{Ctx, Thrown};
use rust_decimal::Decimal;
use std::sync::{Mutex, OnceLock};

const FAMILY: Family = Family { construct, call_static, get_static };

const CALENDAR_FIELDS: &[(&str, i64)] = &[
    ("ERA", 0),
    ("YEAR", 1),
    ("MONTH", 2),
    ("WEEK_OF_YEAR", 3),
    ("DATE", 5),
    ("DAY_OF_MONTH", 5),
    ("DAY_OF_YEAR", 6),
    ("DAY_OF_WEEK", 7),
    ("AM_PM", 9),
    ("HOUR", 10),
    ("HOUR_OF_DAY", 11),
    ("MINUTE", 12),
    ("SECOND", 13),
    ("MILLISECOND", 14),
    ("ZONE_OFFSET", 15),
    ("DST_OFFSET", 16),
    ("JANUARY", 0),
    ("FEBRUARY", 1),
    ("MARCH", 2),
    ("APRIL", 3),
    ("MAY", 4),
    ("JUNE", 5),
    ("JULY", 6),
    ("AUGUST", 7),
    ("SEPTEMBER", 8),
    ("OCTOBER", 9),
    ("NOVEMBER", 10),
    ("DECEMBER", 11),
    ("SUNDAY", 1),
    ("MONDAY", 2),
    ("TUESDAY", 3),
    ("WEDNESDAY", 4),
    ("THURSDAY", 5),
    ("FRIDAY", 6),
    ("SATURDAY", 7),
    ("AM", 0),
    ("PM", 1),
];

const CALENDAR_STATICS: &[&str] = &[
    "getInstance",
    "ERA",
    "YEAR",
    "MONTH",
    "WEEK_OF_YEAR",
    "DATE",
    "DAY_OF_MONTH",
    "DAY_OF_YEAR",
    "DAY_OF_WEEK",
    "AM_PM",
    "HOUR",
    "HOUR_OF_DAY",
    "MINUTE",
    "SECOND",
    "MILLISECOND",
    "ZONE_OFFSET",
    "DST_OFFSET",
    "JANUARY",
    "FEBRUARY",
    "MARCH",
    "APRIL",
    "MAY",
    "JUNE",
    "JULY",
    "AUGUST",
    "SEPTEMBER",
    "OCTOBER",
    "NOVEMBER",
    "DECEMBER",
    "SUNDAY",
    "MONDAY",
    "TUESDAY",
    "WEDNESDAY",
    "THURSDAY",
    "FRIDAY",
    "SATURDAY",
    "AM",
    "PM",
];

const UNITS: &[(&str, i128)] = &[
    ("NANOS", 1),
    ("MICROS", 1_000),
    ("MILLIS", 1_000_000),
    ("SECONDS", 1_000_000_000),
    ("MINUTES", 60_000_000_000),
    ("HOURS", 3_600_000_000_000),
    ("HALF_DAYS", 43_200_000_000_000),
    ("DAYS", 86_400_000_000_000),
    ("WEEKS", 604_800_000_000_000),
    ("MONTHS", 0),
    ("YEARS", 0),
    ("DECADES", 0),
    ("CENTURIES", 0),
];

const NOW_OF_PARSE: &[&str] =
    &["now", "of", "parse", "ofEpochMilli", "ofEpochSecond", "ofInstant", "ofEpochDay", "MIN", "MAX", "EPOCH"];

pub(super) const CLASSES: &[ClassDef] = &[
    ClassDef { name: "java.util.Date", statics: &["from"], family: &FAMILY },
    ClassDef { name: "java.util.Calendar", statics: CALENDAR_STATICS, family: &FAMILY },
    ClassDef { name: "java.util.GregorianCalendar", statics: CALENDAR_STATICS, family: &FAMILY },
    ClassDef { name: "java.util.TimeZone", statics: &["getTimeZone", "getDefault"], family: &FAMILY },
    ClassDef { name: "java.text.SimpleDateFormat", statics: &[], family: &FAMILY },
    ClassDef { name: "java.text.DateFormat", statics: &[], family: &FAMILY },
    ClassDef { name: "java.text.DecimalFormat", statics: &[], family: &FAMILY },
    ClassDef {
        name: "java.text.NumberFormat",
        statics: &["getInstance", "getNumberInstance", "getIntegerInstance"],
        family: &FAMILY,
    },
    ClassDef { name: "java.time.Instant", statics: NOW_OF_PARSE, family: &FAMILY },
    ClassDef { name: "java.time.LocalDate", statics: NOW_OF_PARSE, family: &FAMILY },
    ClassDef { name: "java.time.LocalDateTime", statics: NOW_OF_PARSE, family: &FAMILY },
    ClassDef { name: "java.time.ZonedDateTime", statics: NOW_OF_PARSE, family: &FAMILY },
    ClassDef { name: "java.time.OffsetDateTime", statics: NOW_OF_PARSE, family: &FAMILY },
    ClassDef { name: "java.time.ZoneId", statics: &["of", "systemDefault"], family: &FAMILY },
    ClassDef { name: "java.time.ZoneOffset", statics: &["UTC", "of", "ofHours", "ofHoursMinutes"], family: &FAMILY },
    ClassDef {
        name: "java.time.format.DateTimeFormatter",
        statics: &[
            "ofPattern",
            "ISO_LOCAL_DATE",
            "ISO_LOCAL_DATE_TIME",
            "ISO_LOCAL_TIME",
            "ISO_DATE",
            "ISO_DATE_TIME",
            "ISO_OFFSET_DATE_TIME",
            "ISO_ZONED_DATE_TIME",
            "ISO_INSTANT",
            "BASIC_ISO_DATE",
        ],
        family: &FAMILY,
    },
    ClassDef {
        name: "java.time.Duration",
        statics: &["ofDays", "ofHours", "ofMinutes", "ofSeconds", "ofMillis", "ofNanos", "between", "ZERO"],
        family: &FAMILY,
    },
    ClassDef {
        name: "java.time.temporal.ChronoUnit",
        statics: &[
            "NANOS",
            "MICROS",
            "MILLIS",
            "SECONDS",
            "MINUTES",
            "HOURS",
            "HALF_DAYS",
            "DAYS",
            "WEEKS",
            "MONTHS",
            "YEARS",
            "DECADES",
            "CENTURIES",
            "valueOf",
        ],
        family: &FAMILY,
    },
];

// ---- calendar arithmetic (proleptic Gregorian, days since 1970-01-01) ----

fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146097 + doe - 719468
}

fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719468;
    let era = z.div_euclid(146097);
    let doe = z - era * 146097;
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (if m <= 2 { yoe + era * 400 + 1 } else { yoe + era * 400 }, m, d)
}

fn month_length(y: i64, m: i64) -> i64 {
    let (ny, nm) = if m == 12 { (y + 1, 1) } else { (y, m + 1) };
    days_from_civil(ny, nm, 1) - days_from_civil(y, m, 1)
}

/// Days since the epoch of a (possibly out-of-range, lenient) year, month (1-based) and day.
fn lenient_days(y: i64, m: i64, d: i64) -> i64 {
    let months = y * 12 + (m - 1);
    days_from_civil(months.div_euclid(12), months.rem_euclid(12) + 1, 1) + d - 1
}

/// The weekday of an epoch day: 1 = Monday ... 7 = Sunday.
fn iso_weekday(days: i64) -> i64 {
    (days + 3).rem_euclid(7) + 1
}

/// The `n`-th (1-based; 0 = last) `weekday` (1 = Monday ... 7 = Sunday) of a month.
fn nth_weekday(y: i64, m: i64, weekday: i64, n: i64) -> i64 {
    if n == 0 {
        let last = days_from_civil(y, m, month_length(y, m));
        return last - (iso_weekday(last) - weekday).rem_euclid(7);
    }
    let first = days_from_civil(y, m, 1);
    first + (weekday - iso_weekday(first)).rem_euclid(7) + 7 * (n - 1)
}

// ---- zones ----

#[derive(Debug, Clone, Copy, PartialEq)]
enum Dst {
    None,
    /// EU: last Sunday of March to last Sunday of October, 01:00 UTC.
    Eu,
    /// US/Canada: second Sunday of March 02:00 to first Sunday of November 02:00, local.
    Us,
    /// South-east Australia: first Sunday of October 02:00 to first Sunday of April 03:00, local.
    AuSouth,
}

/// A time zone: its ID, standard offset and daylight-saving rule.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Zone {
    id: String,
    base: i32,
    dst: Dst,
    /// A `ZoneOffset` (prints as its offset, not `[id]`).
    fixed: bool,
}

const NAMED_ZONES: &[(&str, i32, Dst)] = &[
    ("Europe/London", 0, Dst::Eu),
    ("Europe/Dublin", 0, Dst::Eu),
    ("Europe/Lisbon", 0, Dst::Eu),
    ("WET", 0, Dst::Eu),
    ("Europe/Berlin", 3600, Dst::Eu),
    ("Europe/Paris", 3600, Dst::Eu),
    ("Europe/Madrid", 3600, Dst::Eu),
    ("Europe/Rome", 3600, Dst::Eu),
    ("Europe/Amsterdam", 3600, Dst::Eu),
    ("Europe/Brussels", 3600, Dst::Eu),
    ("Europe/Vienna", 3600, Dst::Eu),
    ("Europe/Zurich", 3600, Dst::Eu),
    ("Europe/Stockholm", 3600, Dst::Eu),
    ("Europe/Oslo", 3600, Dst::Eu),
    ("Europe/Copenhagen", 3600, Dst::Eu),
    ("Europe/Warsaw", 3600, Dst::Eu),
    ("Europe/Prague", 3600, Dst::Eu),
    ("Europe/Budapest", 3600, Dst::Eu),
    ("CET", 3600, Dst::Eu),
    ("MET", 3600, Dst::Eu),
    ("Europe/Athens", 7200, Dst::Eu),
    ("Europe/Helsinki", 7200, Dst::Eu),
    ("Europe/Kiev", 7200, Dst::Eu),
    ("Europe/Kyiv", 7200, Dst::Eu),
    ("Europe/Bucharest", 7200, Dst::Eu),
    ("Europe/Sofia", 7200, Dst::Eu),
    ("EET", 7200, Dst::Eu),
    ("Europe/Moscow", 10800, Dst::None),
    ("Europe/Istanbul", 10800, Dst::None),
    ("America/New_York", -18000, Dst::Us),
    ("America/Toronto", -18000, Dst::Us),
    ("America/Detroit", -18000, Dst::Us),
    ("US/Eastern", -18000, Dst::Us),
    ("America/Chicago", -21600, Dst::Us),
    ("US/Central", -21600, Dst::Us),
    ("America/Denver", -25200, Dst::Us),
    ("US/Mountain", -25200, Dst::Us),
    ("America/Phoenix", -25200, Dst::None),
    ("America/Los_Angeles", -28800, Dst::Us),
    ("America/Vancouver", -28800, Dst::Us),
    ("US/Pacific", -28800, Dst::Us),
    ("America/Anchorage", -32400, Dst::Us),
    ("Pacific/Honolulu", -36000, Dst::None),
    ("America/Sao_Paulo", -10800, Dst::None),
    ("America/Argentina/Buenos_Aires", -10800, Dst::None),
    ("America/Bogota", -18000, Dst::None),
    ("America/Lima", -18000, Dst::None),
    ("America/Mexico_City", -21600, Dst::None),
    ("Asia/Kolkata", 19800, Dst::None),
    ("Asia/Calcutta", 19800, Dst::None),
    ("IST", 19800, Dst::None),
    ("Asia/Kathmandu", 20700, Dst::None),
    ("Asia/Dhaka", 21600, Dst::None),
    ("Asia/Karachi", 18000, Dst::None),
    ("Asia/Dubai", 14400, Dst::None),
    ("Asia/Riyadh", 10800, Dst::None),
    ("Asia/Bangkok", 25200, Dst::None),
    ("Asia/Jakarta", 25200, Dst::None),
    ("Asia/Ho_Chi_Minh", 25200, Dst::None),
    ("Asia/Shanghai", 28800, Dst::None),
    ("Asia/Hong_Kong", 28800, Dst::None),
    ("Asia/Singapore", 28800, Dst::None),
    ("Asia/Taipei", 28800, Dst::None),
    ("Asia/Manila", 28800, Dst::None),
    ("Australia/Perth", 28800, Dst::None),
    ("Asia/Tokyo", 32400, Dst::None),
    ("JST", 32400, Dst::None),
    ("Asia/Seoul", 32400, Dst::None),
    ("Australia/Brisbane", 36000, Dst::None),
    ("Australia/Sydney", 36000, Dst::AuSouth),
    ("Australia/Melbourne", 36000, Dst::AuSouth),
    ("Africa/Johannesburg", 7200, Dst::None),
    ("Africa/Cairo", 7200, Dst::None),
    ("Africa/Lagos", 3600, Dst::None),
    ("Africa/Nairobi", 10800, Dst::None),
    ("EST", -18000, Dst::None),
    ("MST", -25200, Dst::None),
    ("HST", -36000, Dst::None),
];

impl Zone {
    fn utc() -> Zone {
        Zone { id: "UTC".into(), base: 0, dst: Dst::None, fixed: false }
    }

    fn offset(secs: i32) -> Zone {
        let id = if secs == 0 { "Z".to_string() } else { offset_text(secs) };
        Zone { id, base: secs, dst: Dst::None, fixed: true }
    }

    /// A zone by Java's ID; `None` for one stampede does not know.
    fn named(id: &str) -> Option<Zone> {
        let id = id.trim();
        if matches!(
            id,
            "UTC" | "GMT" | "UT" | "Etc/UTC" | "Etc/GMT" | "Z" | "Universal" | "Zulu" | "GMT0" | "Etc/Universal"
        ) {
            return Some(Zone { id: id.to_string(), base: 0, dst: Dst::None, fixed: id == "Z" });
        }
        if let Some((_, base, dst)) = NAMED_ZONES.iter().find(|(n, _, _)| *n == id) {
            return Some(Zone { id: id.to_string(), base: *base, dst: *dst, fixed: false });
        }
        let (prefix, rest) = ["GMT", "UTC", "UT", ""].iter().find_map(|p| id.strip_prefix(p).map(|r| (*p, r)))?;
        let secs = parse_offset(rest)?;
        Some(Zone {
            id: if prefix.is_empty() { offset_text(secs) } else { id.to_string() },
            base: secs,
            dst: Dst::None,
            fixed: prefix.is_empty(),
        })
    }

    /// The zone the machine runs in: `TZ` when it names a zone stampede knows, else UTC.
    pub(crate) fn default_zone() -> Zone {
        static DEFAULT: OnceLock<Zone> = OnceLock::new();
        DEFAULT
            .get_or_init(|| {
                std::env::var("TZ")
                    .ok()
                    .and_then(|tz| Zone::named(tz.trim_start_matches(':')))
                    .unwrap_or_else(Zone::utc)
            })
            .clone()
    }

    fn in_dst(&self, utc_secs: i64) -> bool {
        let (y, _, _) = civil_from_days(utc_secs.div_euclid(86400));
        let at = |days: i64, secs: i64| days * 86400 + secs;
        let base = self.base as i64;
        match self.dst {
            Dst::None => false,
            Dst::Eu => (at(nth_weekday(y, 3, 7, 0), 3600)..at(nth_weekday(y, 10, 7, 0), 3600)).contains(&utc_secs),
            Dst::Us => (at(nth_weekday(y, 3, 7, 2), 7200 - base)..at(nth_weekday(y, 11, 7, 1), 7200 - base - 3600))
                .contains(&utc_secs),
            Dst::AuSouth => !(at(nth_weekday(y, 4, 7, 1), 10800 - base - 3600)
                ..at(nth_weekday(y, 10, 7, 1), 7200 - base))
                .contains(&utc_secs),
        }
    }

    /// The offset from UTC, in seconds, at an instant.
    fn offset_at(&self, utc_millis: i64) -> i32 {
        self.base + if self.in_dst(utc_millis.div_euclid(1000)) { 3600 } else { 0 }
    }

    /// The offset for a local time (the earlier one when it is ambiguous).
    fn offset_for_local(&self, local_millis: i64) -> i32 {
        let guess = self.offset_at(local_millis - self.base as i64 * 1000);
        self.offset_at(local_millis - guess as i64 * 1000)
    }
}

/// `+05:30`, `-08:00`, `+01:00:30`.
fn offset_text(secs: i32) -> String {
    let sign = if secs < 0 { '-' } else { '+' };
    let a = secs.unsigned_abs();
    let mut s = format!("{sign}{:02}:{:02}", a / 3600, a / 60 % 60);
    if a % 60 != 0 {
        s.push_str(&format!(":{:02}", a % 60));
    }
    s
}

/// `+5`, `+05:30`, `-0800`, `+05`.
fn parse_offset(s: &str) -> Option<i32> {
    let sign = match s.chars().next()? {
        '+' => 1,
        '-' => -1,
        _ => return None,
    };
    let body = &s[1..];
    let (h, m) = match body.split_once(':') {
        Some((h, m)) => (h.parse::<i32>().ok()?, m.parse::<i32>().ok()?),
        None if body.len() == 4 => (body[..2].parse().ok()?, body[2..].parse().ok()?),
        None => (body.parse().ok()?, 0),
    };
    (h <= 18 && m < 60).then_some(sign * (h * 3600 + m * 60))
}

fn zone_arg(v: &Value) -> Result<Zone, Thrown> {
    if let Some(z) = super::downcast::<ZoneObj>(v) {
        return Ok(z.zone.clone());
    }
    let id = v.to_string();
    Zone::named(&id).ok_or_else(|| {
        Thrown::new(
            "java.time.zone.ZoneRulesException",
            format!("Unknown time-zone ID: {id} (stampede knows UTC, fixed offsets and common zones)"),
        )
    })
}

/// `TimeZone`, `ZoneId`, `ZoneOffset`.
#[derive(Debug)]
struct ZoneObj {
    class: &'static str,
    zone: Zone,
}

impl Native for ZoneObj {
    fn class_name(&self) -> &'static str {
        self.class
    }
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
    fn call(&self, _cx: &mut Ctx<'_>, method: &str, args: Vec<Value>) -> Result<Value, Thrown> {
        match method {
            "getID" | "getId" | "toString" | "getDisplayName" => Ok(Value::str(Native::to_string(self))),
            "getRawOffset" => Ok(Value::Int(self.zone.base * 1000)),
            "getTotalSeconds" => Ok(Value::Int(self.zone.base)),
            "getOffset" => Ok(Value::Int(
                self.zone.offset_at(args.first().and_then(Value::as_i64).unwrap_or_else(super::lang::now_millis))
                    * 1000,
            )),
            "useDaylightTime" | "observesDaylightTime" => Ok(Value::Bool(self.zone.dst != Dst::None)),
            "inDaylightTime" => {
                Ok(Value::Bool(date_millis(arg(&args, 0)).is_some_and(|m| self.zone.in_dst(m.div_euclid(1000)))))
            }
            "toZoneId" => Ok(obj(ZoneObj { class: "java.time.ZoneId", zone: self.zone.clone() })),
            "normalized" => Ok(obj(ZoneObj { class: self.class, zone: self.zone.clone() })),
            _ => Err(no_method(self.class, method)),
        }
    }
    fn to_string(&self) -> String {
        self.zone.id.clone()
    }
    fn equals(&self, other: &dyn Native) -> bool {
        other.as_any().downcast_ref::<ZoneObj>().is_some_and(|o| o.zone == self.zone)
    }
}

// ---- Date ----

/// `java.util.Date`: milliseconds since the epoch.
#[derive(Debug)]
pub(crate) struct DateObj(Mutex<i64>);

pub(crate) fn date(millis: i64) -> Value {
    obj(DateObj(Mutex::new(millis)))
}

/// The milliseconds of a `Date` or `Calendar` (for JSON and formatting).
pub(crate) fn date_millis(v: &Value) -> Option<i64> {
    if let Some(d) = super::downcast::<DateObj>(v) {
        return Some(*lock(&d.0));
    }
    if let Some(c) = super::downcast::<CalendarObj>(v) {
        return Some(*lock(&c.millis));
    }
    super::downcast::<Temporal>(v).map(|t| t.epoch_nanos().div_euclid(1_000_000) as i64)
}

/// Formats an instant by a SimpleDateFormat pattern at an offset; a bad pattern gives its
/// error text.
pub(crate) fn format_millis(millis: i64, pattern: &str, offset_seconds: i32) -> String {
    match JavaDateFormat::compile(pattern) {
        Ok(f) => format_with(&f, millis, offset_seconds),
        Err(e) => e.to_string(),
    }
}

fn format_with(f: &JavaDateFormat, millis: i64, offset_seconds: i32) -> String {
    let nanos = millis as i128 * 1_000_000;
    let t = time::OffsetDateTime::from_unix_timestamp_nanos(nanos).unwrap_or(time::OffsetDateTime::UNIX_EPOCH);
    let t = t.to_offset(time::UtcOffset::from_whole_seconds(offset_seconds).unwrap_or(time::UtcOffset::UTC));
    let mut out = String::new();
    f.format(t, &mut out);
    out
}

fn pattern_error(e: impl std::fmt::Display) -> Thrown {
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
struct CalendarObj {
    millis: Mutex<i64>,
    zone: Mutex<Zone>,
}

/// A calendar's local fields: year, month (1-based), day, and milliseconds of the day.
struct Fields {
    y: i64,
    m: i64,
    d: i64,
    ms: i64,
}

impl CalendarObj {
    fn fields(&self) -> (Fields, i64, i32) {
        let ms = *lock(&self.millis);
        let off = lock(&self.zone).offset_at(ms);
        let local = ms + off as i64 * 1000;
        let days = local.div_euclid(86_400_000);
        let (y, m, d) = civil_from_days(days);
        (Fields { y, m, d, ms: local.rem_euclid(86_400_000) }, days, off)
    }

    fn store(&self, f: Fields) {
        let local = lenient_days(f.y, f.m, f.d) * 86_400_000 + f.ms;
        let off = lock(&self.zone).offset_for_local(local);
        *lock(&self.millis) = local - off as i64 * 1000;
    }

    fn get(&self, field: i64) -> Result<i64, Thrown> {
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

    fn set(&self, field: i64, v: i64) -> Result<(), Thrown> {
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

    fn add(&self, field: i64, n: i64) -> Result<(), Thrown> {
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
struct DateFormatObj {
    pattern: String,
    fmt: JavaDateFormat,
    zone: Mutex<Zone>,
}

/// The instant a parse gave, filling what the text did not say as Java does (1970-01-01,
/// midnight, the format's zone).
fn parsed_millis(p: &super::javatime::Parsed, zone: &Zone) -> i64 {
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
struct DecimalFormatObj {
    pattern: String,
    prefix: String,
    suffix: String,
    min_int: usize,
    group: usize,
    min_frac: u32,
    max_frac: u32,
    percent: bool,
    rounding: Mutex<rust_decimal::RoundingStrategy>,
}

impl DecimalFormatObj {
    fn new(pattern: &str) -> DecimalFormatObj {
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

    fn format(&self, v: &Value) -> Result<String, Thrown> {
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
            other => {
                super::lang::to_decimal(other).ok_or_else(|| illegal_arg("Cannot format given Object as a Number"))?
            }
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

// ---- java.time ----

#[derive(Debug, Clone, Copy, PartialEq)]
enum Kind {
    Instant,
    LocalDate,
    LocalDateTime,
    Zoned,
    Offset,
}

impl Kind {
    fn class(self) -> &'static str {
        match self {
            Kind::Instant => "java.time.Instant",
            Kind::LocalDate => "java.time.LocalDate",
            Kind::LocalDateTime => "java.time.LocalDateTime",
            Kind::Zoned => "java.time.ZonedDateTime",
            Kind::Offset => "java.time.OffsetDateTime",
        }
    }

    fn of(class: &str) -> Kind {
        match class {
            "java.time.Instant" => Kind::Instant,
            "java.time.LocalDate" => Kind::LocalDate,
            "java.time.ZonedDateTime" => Kind::Zoned,
            "java.time.OffsetDateTime" => Kind::Offset,
            _ => Kind::LocalDateTime,
        }
    }
}

const DAY_NANOS: i128 = 86_400_000_000_000;

/// A java.time value: local date-time as nanoseconds since 1970-01-01T00:00 local, and its
/// zone (UTC for an `Instant`; none for local values).
#[derive(Debug, Clone)]
struct Temporal {
    kind: Kind,
    local: i128,
    zone: Option<Zone>,
}

impl Temporal {
    fn value(self) -> Value {
        obj(self)
    }

    fn instant(epoch_nanos: i128) -> Value {
        Temporal { kind: Kind::Instant, local: epoch_nanos, zone: Some(Zone::utc()) }.value()
    }

    fn offset(&self) -> i32 {
        match &self.zone {
            Some(z) => z.offset_for_local(self.local.div_euclid(1_000_000) as i64),
            None => Zone::default_zone().offset_for_local(self.local.div_euclid(1_000_000) as i64),
        }
    }

    fn epoch_nanos(&self) -> i128 {
        self.local - self.offset() as i128 * 1_000_000_000
    }

    fn from_epoch(kind: Kind, epoch_nanos: i128, zone: Zone) -> Temporal {
        let off = zone.offset_at(epoch_nanos.div_euclid(1_000_000) as i64);
        let local = epoch_nanos + off as i128 * 1_000_000_000;
        let local = if kind == Kind::LocalDate { local - local.rem_euclid(DAY_NANOS) } else { local };
        Temporal { kind, local, zone: matches!(kind, Kind::Zoned | Kind::Offset | Kind::Instant).then_some(zone) }
    }

    fn parts(&self) -> (i64, i64, i64, i128) {
        let days = self.local.div_euclid(DAY_NANOS) as i64;
        let (y, m, d) = civil_from_days(days);
        (y, m, d, self.local.rem_euclid(DAY_NANOS))
    }

    fn with_local(&self, local: i128) -> Temporal {
        Temporal { local, ..self.clone() }
    }

    fn plus_months(&self, n: i64) -> Temporal {
        let (y, m, d, t) = self.parts();
        let months = y * 12 + m - 1 + n;
        let (y, m) = (months.div_euclid(12), months.rem_euclid(12) + 1);
        self.with_local(days_from_civil(y, m, d.min(month_length(y, m))) as i128 * DAY_NANOS + t)
    }

    fn plus(&self, n: i64, unit: &str) -> Result<Temporal, Thrown> {
        Ok(match unit {
            "MONTHS" => self.plus_months(n),
            "YEARS" => self.plus_months(n * 12),
            "DECADES" => self.plus_months(n * 120),
            "CENTURIES" => self.plus_months(n * 1200),
            u => {
                let per = UNITS
                    .iter()
                    .find(|(name, _)| *name == u)
                    .map(|(_, n)| *n)
                    .filter(|n| *n > 0)
                    .ok_or_else(|| illegal_arg(format!("Unsupported unit: {u}")))?;
                if self.kind == Kind::LocalDate && per < DAY_NANOS {
                    return Err(Thrown::new(
                        "java.time.temporal.UnsupportedTemporalTypeException",
                        format!("Unsupported unit: {}", capitalize_unit(u)),
                    ));
                }
                self.with_local(self.local + n as i128 * per)
            }
        })
    }

    fn iso(&self) -> String {
        let (y, m, d, t) = self.parts();
        let date =
            if (0..=9999).contains(&y) { format!("{y:04}-{m:02}-{d:02}") } else { format!("{y:+05}-{m:02}-{d:02}") };
        if self.kind == Kind::LocalDate {
            return date;
        }
        let secs = (t / 1_000_000_000) as i64;
        let nanos = (t % 1_000_000_000) as i64;
        let mut time = format!("{:02}:{:02}", secs / 3600, secs / 60 % 60);
        if secs % 60 != 0 || nanos != 0 || self.kind == Kind::Instant {
            time.push_str(&format!(":{:02}", secs % 60));
        }
        if nanos != 0 {
            let f = format!("{nanos:09}");
            let keep = if f.ends_with("000000") {
                3
            } else if f.ends_with("000") {
                6
            } else {
                9
            };
            time.push('.');
            time.push_str(&f[..keep]);
        }
        let mut s = format!("{date}T{time}");
        match (&self.zone, self.kind) {
            (_, Kind::Instant) => s.push('Z'),
            (Some(z), Kind::Zoned | Kind::Offset) => {
                let off = self.offset();
                s.push_str(&if off == 0 { "Z".to_string() } else { offset_text(off) });
                if self.kind == Kind::Zoned && !z.fixed {
                    s.push_str(&format!("[{}]", z.id));
                }
            }
            _ => {}
        }
        s
    }

    /// Parses ISO text for this kind: `2026-11-24`, `2026-11-24T08:02[:40[.5]]`, with `Z` or
    /// `+01:00` (and `[Zone]`) for instants and zoned values.
    fn parse_iso(kind: Kind, text: &str) -> Option<Temporal> {
        let t = text.trim();
        let (date, rest) = t.split_at(t.find('T').unwrap_or(t.len()));
        let mut dp = date.splitn(3, '-');
        let (y, m, d): (i64, i64, i64) = (dp.next()?.parse().ok()?, dp.next()?.parse().ok()?, dp.next()?.parse().ok()?);
        if !(1..=12).contains(&m) || d < 1 || d > month_length(y, m) {
            return None;
        }
        let days = days_from_civil(y, m, d) as i128;
        if kind == Kind::LocalDate {
            return rest.is_empty().then_some(Temporal { kind, local: days * DAY_NANOS, zone: None });
        }
        let rest = rest.strip_prefix('T')?;
        let (rest, zone_id) = match rest.split_once('[') {
            Some((r, z)) => (r, Some(z.trim_end_matches(']'))),
            None => (rest, None),
        };
        let zone_at = rest.find(['Z', '+', '-']).unwrap_or(rest.len());
        let (clock, off) = rest.split_at(zone_at);
        let mut cp = clock.splitn(3, ':');
        let h: i128 = cp.next()?.parse().ok()?;
        let mi: i128 = cp.next()?.parse().ok()?;
        let (s, n) = match cp.next() {
            Some(sec) => {
                let (s, f) = sec.split_once('.').unwrap_or((sec, ""));
                let f9 = format!("{f:0<9}");
                (s.parse::<i128>().ok()?, if f.is_empty() { 0 } else { f9.get(..9)?.parse::<i128>().ok()? })
            }
            None => (0, 0),
        };
        if h > 23 || mi > 59 || s > 59 {
            return None;
        }
        let local = days * DAY_NANOS + ((h * 60 + mi) * 60 + s) * 1_000_000_000 + n;
        let offset = match off {
            "" => None,
            "Z" => Some(0),
            o => Some(parse_offset(o)?),
        };
        match kind {
            Kind::LocalDateTime => offset.is_none().then_some(Temporal { kind, local, zone: None }),
            _ => {
                let off = offset?;
                let epoch = local - off as i128 * 1_000_000_000;
                let zone = match zone_id {
                    Some(id) => Zone::named(id)?,
                    None => Zone::offset(off),
                };
                Some(Temporal::from_epoch(kind, epoch, if kind == Kind::Instant { Zone::utc() } else { zone }))
            }
        }
    }
}

fn capitalize_unit(u: &str) -> String {
    crate::value::capitalize(&u.to_lowercase())
}

fn temporal_arg(v: &Value) -> Result<Temporal, Thrown> {
    if let Some(t) = super::downcast::<Temporal>(v) {
        return Ok(t.clone());
    }
    date_millis(v)
        .map(|ms| Temporal { kind: Kind::Instant, local: ms as i128 * 1_000_000, zone: Some(Zone::utc()) })
        .ok_or_else(|| illegal_arg(format!("a date or time was expected, not {}", v.type_name())))
}

const MONTH_NAMES: [&str; 12] = [
    "JANUARY",
    "FEBRUARY",
    "MARCH",
    "APRIL",
    "MAY",
    "JUNE",
    "JULY",
    "AUGUST",
    "SEPTEMBER",
    "OCTOBER",
    "NOVEMBER",
    "DECEMBER",
];
const DAY_NAMES: [&str; 7] = ["MONDAY", "TUESDAY", "WEDNESDAY", "THURSDAY", "FRIDAY", "SATURDAY", "SUNDAY"];

impl Native for Temporal {
    fn class_name(&self) -> &'static str {
        self.kind.class()
    }
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
    fn call(&self, _cx: &mut Ctx<'_>, method: &str, args: Vec<Value>) -> Result<Value, Thrown> {
        let (y, m, d, t) = self.parts();
        let n = || int_arg(&args, 0);
        let secs = (t / 1_000_000_000) as i64;
        let plus_unit = |name: &str| -> Option<&'static str> {
            Some(match name {
                "Nanos" => "NANOS",
                "Millis" => "MILLIS",
                "Seconds" => "SECONDS",
                "Minutes" => "MINUTES",
                "Hours" => "HOURS",
                "Days" => "DAYS",
                "Weeks" => "WEEKS",
                "Months" => "MONTHS",
                "Years" => "YEARS",
                _ => return None,
            })
        };
        if let Some((sign, unit)) =
            method.strip_prefix("plus").map(|u| (1, u)).or_else(|| method.strip_prefix("minus").map(|u| (-1, u)))
        {
            if let Some(u) = plus_unit(unit).filter(|_| args.len() == 1) {
                return Ok(self.plus(sign * n()?, u)?.value());
            }
            if unit.is_empty() && args.len() == 2 {
                let u =
                    super::downcast::<ChronoUnit>(&args[1]).ok_or_else(|| illegal_arg("a ChronoUnit was expected"))?;
                return Ok(self.plus(sign * n()?, u.0)?.value());
            }
            if unit.is_empty() && args.len() == 1 {
                let dur =
                    super::downcast::<Duration>(&args[0]).ok_or_else(|| illegal_arg("a Duration was expected"))?;
                return Ok(self.with_local(self.local + sign as i128 * dur.0).value());
            }
        }
        let cmp = || -> Result<std::cmp::Ordering, Thrown> {
            let o = temporal_arg(arg(&args, 0))?;
            Ok(if matches!(self.kind, Kind::LocalDate | Kind::LocalDateTime) {
                self.local.cmp(&o.local)
            } else {
                self.epoch_nanos().cmp(&o.epoch_nanos())
            })
        };
        Ok(match (method, args.len()) {
            ("toString", 0) => Value::str(self.iso()),
            ("getYear", 0) => Value::Int(y as i32),
            ("getMonthValue", 0) => Value::Int(m as i32),
            ("getMonth", 0) => Value::str(MONTH_NAMES[(m - 1) as usize]),
            ("getDayOfMonth", 0) => Value::Int(d as i32),
            ("getDayOfYear", 0) => Value::Int((days_from_civil(y, m, d) - days_from_civil(y, 1, 1) + 1) as i32),
            ("getDayOfWeek", 0) => Value::str(DAY_NAMES[(iso_weekday(days_from_civil(y, m, d)) - 1) as usize]),
            ("getHour", 0) => Value::Int((secs / 3600) as i32),
            ("getMinute", 0) => Value::Int((secs / 60 % 60) as i32),
            ("getSecond", 0) => Value::Int((secs % 60) as i32),
            ("getNano", 0) => Value::Int((t % 1_000_000_000) as i32),
            ("lengthOfMonth", 0) => Value::Int(month_length(y, m) as i32),
            ("toEpochMilli", 0) => Value::Long(self.epoch_nanos().div_euclid(1_000_000) as i64),
            ("getEpochSecond" | "toEpochSecond", 0) => Value::Long(self.epoch_nanos().div_euclid(1_000_000_000) as i64),
            ("toEpochDay", 0) => Value::Long(self.local.div_euclid(DAY_NANOS) as i64),
            ("toLocalDate", 0) => Temporal { kind: Kind::LocalDate, local: self.local - t, zone: None }.value(),
            ("toLocalDateTime", 0) => Temporal { kind: Kind::LocalDateTime, local: self.local, zone: None }.value(),
            ("toInstant", 0 | 1) => Temporal::instant(match args.first() {
                Some(z) => {
                    self.local
                        - zone_arg(z)?.offset_for_local(self.local.div_euclid(1_000_000) as i64) as i128 * 1_000_000_000
                }
                None => self.epoch_nanos(),
            }),
            ("atStartOfDay", 0) => Temporal { kind: Kind::LocalDateTime, local: self.local - t, zone: None }.value(),
            ("atStartOfDay" | "atZone", 1) => {
                let zone = zone_arg(&args[0])?;
                let local = if method == "atStartOfDay" { self.local - t } else { self.local };
                match self.kind {
                    Kind::Instant => Temporal::from_epoch(Kind::Zoned, self.local, zone).value(),
                    _ => Temporal { kind: Kind::Zoned, local, zone: Some(zone) }.value(),
                }
            }
            ("atOffset", 1) => {
                let zone = zone_arg(&args[0])?;
                Temporal::from_epoch(
                    Kind::Offset,
                    if self.kind == Kind::Instant {
                        self.local
                    } else {
                        self.local - zone.base as i128 * 1_000_000_000
                    },
                    zone,
                )
                .value()
            }
            ("withZoneSameInstant", 1) => {
                Temporal::from_epoch(self.kind, self.epoch_nanos(), zone_arg(&args[0])?).value()
            }
            ("getZone" | "getOffset", 0) => match &self.zone {
                Some(z) if method == "getZone" => obj(ZoneObj { class: "java.time.ZoneId", zone: z.clone() }),
                _ => obj(ZoneObj { class: "java.time.ZoneOffset", zone: Zone::offset(self.offset()) }),
            },
            ("withDayOfMonth", 1) => self.with_local(days_from_civil(y, m, n()?) as i128 * DAY_NANOS + t).value(),
            ("withHour" | "withMinute" | "withSecond" | "withNano", 1) => {
                let (h, mi, s, ns) = (secs / 3600, secs / 60 % 60, secs % 60, (t % 1_000_000_000) as i64);
                let v = n()?;
                let (h, mi, s, ns) = match method {
                    "withHour" => (v, mi, s, ns),
                    "withMinute" => (h, v, s, ns),
                    "withSecond" => (h, mi, v, ns),
                    _ => (h, mi, s, v),
                };
                self.with_local(self.local - t + (((h * 60 + mi) * 60 + s) as i128) * 1_000_000_000 + ns as i128)
                    .value()
            }
            ("format", 1) => Value::str(format_temporal(self, &args[0])?),
            ("isBefore", 1) => Value::Bool(cmp()?.is_lt()),
            ("isAfter", 1) => Value::Bool(cmp()?.is_gt()),
            ("isEqual", 1) => Value::Bool(cmp()?.is_eq()),
            ("compareTo", 1) => Value::Int(cmp()? as i32),
            ("equals", 1) => Value::Bool(
                super::downcast::<Temporal>(&args[0])
                    .is_some_and(|o| o.kind == self.kind && o.local == self.local && o.zone == self.zone),
            ),
            ("isLeapYear", 0) => Value::Bool(month_length(y, 2) == 29),
            _ => return Err(no_method(self.kind.class(), method)),
        })
    }
    fn to_string(&self) -> String {
        self.iso()
    }
    fn equals(&self, other: &dyn Native) -> bool {
        other
            .as_any()
            .downcast_ref::<Temporal>()
            .is_some_and(|o| o.kind == self.kind && o.local == self.local && o.zone == self.zone)
    }
}

/// `DateTimeFormatter`: a pattern, or one of the ISO formats (by the kind it prints as).
#[derive(Debug)]
struct Formatter {
    pattern: Option<(String, JavaDateFormat)>,
    iso: Option<&'static str>,
    zone: Option<Zone>,
}

fn format_temporal(t: &Temporal, f: &Value) -> Result<String, Thrown> {
    let f = super::downcast::<Formatter>(f).ok_or_else(|| illegal_arg("format: a DateTimeFormatter was expected"))?;
    let t = match (&f.zone, t.kind) {
        (Some(z), Kind::Instant) => Temporal::from_epoch(Kind::Zoned, t.local, z.clone()),
        _ => t.clone(),
    };
    match (&f.pattern, f.iso) {
        (Some((_, fmt)), _) => {
            let (needs_date, _, needs_zone) = fmt.needs();
            if t.kind == Kind::Instant && f.zone.is_none() && (needs_date || needs_zone) {
                return Err(Thrown::new(
                    "java.time.temporal.UnsupportedTemporalTypeException",
                    "Unsupported field: YearOfEra (format an Instant with formatter.withZone(zone))",
                ));
            }
            if needs_zone && t.zone.is_none() {
                return Err(Thrown::new(
                    "java.time.DateTimeException",
                    "Unable to extract ZoneId from temporal (a local date-time has no zone)",
                ));
            }
            let off = if t.zone.is_some() { t.offset() } else { 0 };
            Ok(format_with(fmt, (t.local.div_euclid(1_000_000) - off as i128 * 1000) as i64, off))
        }
        (None, Some(iso)) => {
            let kind = match iso {
                "ISO_LOCAL_DATE" | "ISO_DATE" => Kind::LocalDate,
                "ISO_LOCAL_DATE_TIME" => Kind::LocalDateTime,
                "ISO_INSTANT" => Kind::Instant,
                "ISO_OFFSET_DATE_TIME" => Kind::Offset,
                "BASIC_ISO_DATE" => return Ok(t.iso()[..10].replace('-', "")),
                "ISO_LOCAL_TIME" => return Ok(t.iso().split_once('T').map(|(_, b)| b.to_string()).unwrap_or_default()),
                _ => t.kind,
            };
            let shown = if kind == Kind::Instant { Temporal::instant_of(&t) } else { Temporal { kind, ..t } };
            Ok(shown.iso())
        }
        _ => Ok(t.iso()),
    }
}

impl Temporal {
    fn instant_of(t: &Temporal) -> Temporal {
        Temporal { kind: Kind::Instant, local: t.epoch_nanos(), zone: Some(Zone::utc()) }
    }
}

impl Native for Formatter {
    native_base!("java.time.format.DateTimeFormatter");
    fn call(&self, _cx: &mut Ctx<'_>, method: &str, args: Vec<Value>) -> Result<Value, Thrown> {
        match (method, args.len()) {
            ("format", 1) => Ok(Value::str(format_temporal(
                &temporal_arg(&args[0])?,
                &obj(Formatter { pattern: self.pattern.clone(), iso: self.iso, zone: self.zone.clone() }),
            )?)),
            ("withZone", 1) => {
                Ok(obj(Formatter { pattern: self.pattern.clone(), iso: self.iso, zone: Some(zone_arg(&args[0])?) }))
            }
            ("withLocale" | "withResolverStyle", 1) => {
                Ok(obj(Formatter { pattern: self.pattern.clone(), iso: self.iso, zone: self.zone.clone() }))
            }
            ("toString", 0) => Ok(Value::str(Native::to_string(self))),
            _ => Err(no_method("java.time.format.DateTimeFormatter", method)),
        }
    }
    fn to_string(&self) -> String {
        self.pattern.as_ref().map(|p| p.0.clone()).or(self.iso.map(str::to_string)).unwrap_or_default()
    }
}

/// Parses text by a formatter into a value of this kind.
fn parse_with(kind: Kind, text: &str, f: &Formatter) -> Result<Temporal, Thrown> {
    let err = || Thrown::new("java.time.format.DateTimeParseException", format!("Text '{text}' could not be parsed"));
    let Some((_, fmt)) = &f.pattern else {
        return Temporal::parse_iso(kind, text).ok_or_else(err);
    };
    let p = fmt.parse(text).ok_or_else(err)?;
    let days =
        days_from_civil(p.year.ok_or_else(err)? as i64, p.month.ok_or_else(err)? as i64, p.day.unwrap_or(1) as i64)
            as i128;
    let clock = ((p.hour.unwrap_or(0) as i128 * 60 + p.minute.unwrap_or(0) as i128) * 60
        + p.second.unwrap_or(0) as i128)
        * 1_000_000_000
        + p.nano.unwrap_or(0) as i128;
    let local = days * DAY_NANOS + if kind == Kind::LocalDate { 0 } else { clock };
    Ok(match kind {
        Kind::LocalDate | Kind::LocalDateTime => Temporal { kind, local, zone: None },
        _ => {
            let zone = match (p.offset_seconds, &f.zone) {
                (Some(o), _) => Zone::offset(o),
                (None, Some(z)) => z.clone(),
                (None, None) => return Err(err()),
            };
            let off = zone.offset_for_local(local.div_euclid(1_000_000) as i64);
            Temporal::from_epoch(kind, local - off as i128 * 1_000_000_000, zone)
        }
    })
}

/// `java.time.Duration`: nanoseconds.
#[derive(Debug)]
struct Duration(i128);

impl Native for Duration {
    native_base!("java.time.Duration");
    fn call(&self, _cx: &mut Ctx<'_>, method: &str, args: Vec<Value>) -> Result<Value, Thrown> {
        let n = self.0;
        let long = |v: i128| Value::Long(v as i64);
        match (method, args.len()) {
            ("toMillis", 0) => Ok(long(n.div_euclid(1_000_000))),
            ("toNanos", 0) => Ok(long(n)),
            ("getSeconds" | "toSeconds", 0) => Ok(long(n.div_euclid(1_000_000_000))),
            ("toMinutes", 0) => Ok(long(n / 60_000_000_000)),
            ("toHours", 0) => Ok(long(n / 3_600_000_000_000)),
            ("toDays", 0) => Ok(long(n / DAY_NANOS)),
            ("getNano", 0) => Ok(Value::Int(n.rem_euclid(1_000_000_000) as i32)),
            ("isNegative", 0) => Ok(Value::Bool(n < 0)),
            ("isZero", 0) => Ok(Value::Bool(n == 0)),
            ("abs", 0) => Ok(obj(Duration(n.abs()))),
            ("negated", 0) => Ok(obj(Duration(-n))),
            ("plus" | "minus", 1) => {
                let o = super::downcast::<Duration>(&args[0]).ok_or_else(|| illegal_arg("a Duration was expected"))?.0;
                Ok(obj(Duration(if method == "plus" { n + o } else { n - o })))
            }
            ("plusMillis" | "plusSeconds" | "plusMinutes" | "plusHours" | "plusDays", 1) => {
                let per = match method {
                    "plusMillis" => 1_000_000,
                    "plusSeconds" => 1_000_000_000,
                    "plusMinutes" => 60_000_000_000,
                    "plusHours" => 3_600_000_000_000,
                    _ => DAY_NANOS,
                };
                Ok(obj(Duration(n + int_arg(&args, 0)? as i128 * per)))
            }
            ("compareTo", 1) => {
                Ok(Value::Int(n.cmp(&super::downcast::<Duration>(&args[0]).map(|d| d.0).unwrap_or(0)) as i32))
            }
            ("toString", 0) => Ok(Value::str(Native::to_string(self))),
            _ => Err(no_method("java.time.Duration", method)),
        }
    }
    /// `PT8H6M12.345S`.
    fn to_string(&self) -> String {
        if self.0 == 0 {
            return "PT0S".into();
        }
        let secs = self.0.div_euclid(1_000_000_000);
        let nanos = self.0.rem_euclid(1_000_000_000);
        let (h, m, s) = (secs / 3600, secs % 3600 / 60, secs % 60);
        let mut out = "PT".to_string();
        if h != 0 {
            out.push_str(&format!("{h}H"));
        }
        if m != 0 {
            out.push_str(&format!("{m}M"));
        }
        if s != 0 || nanos != 0 {
            if nanos == 0 {
                out.push_str(&format!("{s}S"));
            } else {
                let (s, nanos) = if s < 0 { (s + 1, 1_000_000_000 - nanos) } else { (s, nanos) };
                let sign = if s == 0 && self.0 < 0 { "-" } else { "" };
                out.push_str(&format!("{sign}{s}.{}S", format!("{nanos:09}").trim_end_matches('0')));
            }
        }
        out
    }
}

/// `ChronoUnit.X`.
#[derive(Debug)]
struct ChronoUnit(&'static str);

impl Native for ChronoUnit {
    native_base!("java.time.temporal.ChronoUnit");
    fn call(&self, _cx: &mut Ctx<'_>, method: &str, args: Vec<Value>) -> Result<Value, Thrown> {
        match (method, args.len()) {
            ("between", 2) => {
                let (a, b) = (temporal_arg(&args[0])?, temporal_arg(&args[1])?);
                let (na, nb) = if matches!(a.kind, Kind::LocalDate | Kind::LocalDateTime) {
                    (a.local, b.local)
                } else {
                    (a.epoch_nanos(), b.epoch_nanos())
                };
                let months = |x: &Temporal, y: &Temporal| -> i64 {
                    let (ya, ma, da, ta) = x.parts();
                    let (yb, mb, db, tb) = y.parts();
                    let mut m = (yb * 12 + mb) - (ya * 12 + ma);
                    if m > 0 && (db, tb) < (da, ta) {
                        m -= 1;
                    } else if m < 0 && (db, tb) > (da, ta) {
                        m += 1;
                    }
                    m
                };
                Ok(Value::Long(match self.0 {
                    "MONTHS" => months(&a, &b),
                    "YEARS" => months(&a, &b) / 12,
                    "DECADES" => months(&a, &b) / 120,
                    "CENTURIES" => months(&a, &b) / 1200,
                    u => ((nb - na) / UNITS.iter().find(|(n, _)| *n == u).map(|(_, n)| *n).unwrap_or(1)) as i64,
                }))
            }
            ("getDuration", 0) => {
                Ok(obj(Duration(UNITS.iter().find(|(n, _)| *n == self.0).map(|(_, n)| *n).unwrap_or(0))))
            }
            ("name" | "toString", 0) => Ok(Value::str(capitalize_unit(self.0))),
            _ => Err(no_method("java.time.temporal.ChronoUnit", method)),
        }
    }
    fn to_string(&self) -> String {
        capitalize_unit(self.0)
    }
    fn equals(&self, other: &dyn Native) -> bool {
        other.as_any().downcast_ref::<ChronoUnit>().is_some_and(|o| o.0 == self.0)
    }
}

// ---- construction and statics ----

fn calendar(zone: Zone, millis: i64) -> Value {
    obj(CalendarObj { millis: Mutex::new(millis), zone: Mutex::new(zone) })
}

fn construct(_cx: &mut Ctx<'_>, class: &'static str, args: Vec<Value>) -> Result<Value, Thrown> {
    match class {
        "java.util.Date" => match args.first() {
            None => Ok(date(super::lang::now_millis())),
            Some(v) if v.is_number() => Ok(date(int_arg(&args, 0)?)),
            Some(v) => Err(illegal_arg(format!(
                "new Date({}) is not supported: use new Date(millis) or SimpleDateFormat.parse",
                v.type_name()
            ))),
        },
        "java.util.GregorianCalendar" | "java.util.Calendar" => {
            let cal =
                CalendarObj { millis: Mutex::new(super::lang::now_millis()), zone: Mutex::new(Zone::default_zone()) };
            if args.len() >= 3 {
                let i = |n: usize| int_arg(&args, n);
                let (h, mi, s) = (
                    if args.len() > 3 { i(3)? } else { 0 },
                    if args.len() > 4 { i(4)? } else { 0 },
                    if args.len() > 5 { i(5)? } else { 0 },
                );
                cal.store(Fields { y: i(0)?, m: i(1)? + 1, d: i(2)?, ms: ((h * 60 + mi) * 60 + s) * 1000 });
            }
            Ok(obj(cal))
        }
        "java.text.SimpleDateFormat" | "java.text.DateFormat" => {
            let pattern = if args.is_empty() { "M/d/yy, h:mm a".to_string() } else { str_arg(&args, 0)? };
            let fmt = JavaDateFormat::compile(&pattern).map_err(pattern_error)?;
            Ok(obj(DateFormatObj { pattern, fmt, zone: Mutex::new(Zone::default_zone()) }))
        }
        "java.text.DecimalFormat" => {
            Ok(obj(DecimalFormatObj::new(&if args.is_empty() { "#,##0.###".to_string() } else { str_arg(&args, 0)? })))
        }
        _ => Err(illegal_arg(format!("{class} has no public constructor"))),
    }
}

fn get_static(_cx: &mut Ctx<'_>, class: &'static str, name: &str) -> Result<Value, Thrown> {
    match class {
        "java.util.Calendar" | "java.util.GregorianCalendar" => CALENDAR_FIELDS
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| Value::Int(*v as i32))
            .ok_or_else(|| no_property(class, name)),
        "java.time.ZoneOffset" if name == "UTC" => Ok(obj(ZoneObj { class, zone: Zone::offset(0) })),
        "java.time.format.DateTimeFormatter" if has_static(class, name) => Ok(obj(Formatter {
            pattern: None,
            iso: CLASSES.iter().find(|c| c.name == class).and_then(|c| c.statics.iter().find(|s| **s == name).copied()),
            zone: None,
        })),
        "java.time.temporal.ChronoUnit" => UNITS
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(n, _)| obj(ChronoUnit(n)))
            .ok_or_else(|| no_property(class, name)),
        "java.time.Duration" if name == "ZERO" => Ok(obj(Duration(0))),
        "java.time.Instant" if name == "EPOCH" => Ok(Temporal::instant(0)),
        _ => Err(no_property(class, name)),
    }
}

fn has_static(class: &str, name: &str) -> bool {
    CLASSES.iter().any(|c| c.name == class && c.statics.contains(&name))
}

fn call_static(_cx: &mut Ctx<'_>, class: &'static str, method: &str, args: Vec<Value>) -> Result<Value, Thrown> {
    let i = |n: usize| int_arg(&args, n);
    let now_nanos = || super::lang::now_millis() as i128 * 1_000_000;
    match (class, method) {
        ("java.util.Date", "from") => Ok(date(temporal_arg(arg(&args, 0))?.epoch_nanos().div_euclid(1_000_000) as i64)),
        ("java.util.Calendar" | "java.util.GregorianCalendar", "getInstance") => {
            let zone = match args.iter().find(|a| super::downcast::<ZoneObj>(a).is_some()) {
                Some(z) => zone_arg(z)?,
                None => Zone::default_zone(),
            };
            Ok(calendar(zone, super::lang::now_millis()))
        }
        ("java.util.TimeZone", "getTimeZone") | ("java.time.ZoneId", "of") | ("java.time.ZoneOffset", "of") => {
            let id = str_arg(&args, 0)?;
            let zone = match Zone::named(&id) {
                Some(z) => z,
                // Java's TimeZone.getTimeZone gives GMT for an ID it does not know.
                None if class == "java.util.TimeZone" => {
                    Zone { id: "GMT".into(), base: 0, dst: Dst::None, fixed: false }
                }
                None => return Err(zone_arg(&args[0]).unwrap_err()),
            };
            Ok(obj(ZoneObj { class, zone }))
        }
        ("java.util.TimeZone" | "java.time.ZoneId", "getDefault" | "systemDefault") => {
            Ok(obj(ZoneObj { class, zone: Zone::default_zone() }))
        }
        ("java.time.ZoneOffset", "ofHours" | "ofHoursMinutes") => {
            let secs = i(0)? * 3600 + if args.len() > 1 { i(1)? * 60 } else { 0 };
            Ok(obj(ZoneObj { class, zone: Zone::offset(secs as i32) }))
        }
        ("java.text.NumberFormat", _) => {
            Ok(obj(DecimalFormatObj::new(if method == "getIntegerInstance" { "#,##0" } else { "#,##0.###" })))
        }
        ("java.time.format.DateTimeFormatter", "ofPattern") => {
            let p = str_arg(&args, 0)?;
            let f = JavaDateFormat::compile_java_time(&p).map_err(illegal_arg)?;
            Ok(obj(Formatter { pattern: Some((p, f)), iso: None, zone: None }))
        }
        ("java.time.Duration", _) => {
            let per: i128 = match method {
                "ofDays" => DAY_NANOS,
                "ofHours" => 3_600_000_000_000,
                "ofMinutes" => 60_000_000_000,
                "ofSeconds" => 1_000_000_000,
                "ofMillis" => 1_000_000,
                "ofNanos" => 1,
                "between" => {
                    let (a, b) = (temporal_arg(arg(&args, 0))?, temporal_arg(arg(&args, 1))?);
                    let d = if a.zone.is_none() && b.zone.is_none() {
                        b.local - a.local
                    } else {
                        b.epoch_nanos() - a.epoch_nanos()
                    };
                    return Ok(obj(Duration(d)));
                }
                _ => return Err(no_method(class, method)),
            };
            Ok(obj(Duration(
                i(0)? as i128 * per + if method == "ofSeconds" && args.len() > 1 { i(1)? as i128 } else { 0 },
            )))
        }
        ("java.time.temporal.ChronoUnit", "valueOf") => get_static(_cx, class, &str_arg(&args, 0)?),
        (_, "now") => {
            let kind = Kind::of(class);
            let zone = match args.first() {
                Some(z) => zone_arg(z)?,
                None if kind == Kind::Instant => Zone::utc(),
                None => Zone::default_zone(),
            };
            Ok(Temporal::from_epoch(kind, now_nanos(), zone).value())
        }
        (_, "ofEpochMilli") => Ok(Temporal::instant(i(0)? as i128 * 1_000_000)),
        (_, "ofEpochSecond") => {
            Ok(Temporal::instant(i(0)? as i128 * 1_000_000_000 + if args.len() > 1 { i(1)? as i128 } else { 0 }))
        }
        (_, "ofEpochDay") => {
            Ok(Temporal { kind: Kind::LocalDate, local: i(0)? as i128 * DAY_NANOS, zone: None }.value())
        }
        (_, "ofInstant") => Ok(Temporal::from_epoch(
            Kind::of(class),
            temporal_arg(arg(&args, 0))?.epoch_nanos(),
            zone_arg(arg(&args, 1))?,
        )
        .value()),
        (_, "parse") => {
            let text = str_arg(&args, 0)?;
            let kind = Kind::of(class);
            match args.get(1).and_then(super::downcast::<Formatter>) {
                Some(f) => Ok(parse_with(kind, &text, f)?.value()),
                None => Temporal::parse_iso(kind, &text).map(Temporal::value).ok_or_else(|| {
                    Thrown::new("java.time.format.DateTimeParseException", format!("Text '{text}' could not be parsed"))
                }),
            }
        }
        (_, "of") => {
            let kind = Kind::of(class);
            if args.len() < 3 {
                return Err(no_method(class, method));
            }
            let (y, m, d) = (i(0)?, i(1)?, i(2)?);
            if !(1..=12).contains(&m) || d < 1 || d > month_length(y, m) {
                return Err(Thrown::new("java.time.DateTimeException", format!("Invalid date: {y}-{m}-{d}")));
            }
            let clock = |n: usize| args.get(n).filter(|v| v.is_number()).and_then(Value::as_i64).unwrap_or(0) as i128;
            let local = days_from_civil(y, m, d) as i128 * DAY_NANOS
                + if kind == Kind::LocalDate {
                    0
                } else {
                    ((clock(3) * 60 + clock(4)) * 60 + clock(5)) * 1_000_000_000 + clock(6)
                };
            let zone = match args.last().filter(|v| !v.is_number()) {
                Some(z) => Some(zone_arg(z)?),
                None => None,
            };
            Ok(match (kind, zone) {
                (Kind::Zoned | Kind::Offset, Some(z)) => Temporal { kind, local, zone: Some(z) }.value(),
                (Kind::Zoned | Kind::Offset, None) => return Err(no_method(class, method)),
                (k, _) => Temporal { kind: k, local, zone: None }.value(),
            })
        }
        _ => Err(no_method(class, method)),
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{call, s, try_call, with_cx};
    use super::super::{call_static, construct, get_static};
    use super::*;

    #[test]
    fn dates_print_as_java_does() {
        with_cx(|cx| {
            // Java 17, TZ=UTC: new Date(1795507360000L) prints "Tue Nov 24 08:02:40 UTC 2026".
            let d = construct(cx, "java.util.Date", vec![Value::Long(1795507360000)]).unwrap();
            if Zone::default_zone().base == 0 && Zone::default_zone().dst == Dst::None {
                assert_eq!(d.to_string(), "Tue Nov 24 08:02:40 UTC 2026");
            }
            let utc = call_static(cx, "java.util.TimeZone", "getTimeZone", vec![s("UTC")]).unwrap();
            assert_eq!(
                call(cx, &d, "format", vec![s("yyyy-MM-dd'T'HH:mm:ss.SSSZ"), utc.clone()]).to_string(),
                "2026-11-24T08:02:40.000+0000"
            );
            let sdf = construct(cx, "java.text.SimpleDateFormat", vec![s("dd/MM/yyyy HH:mm")]).unwrap();
            call(cx, &sdf, "setTimeZone", vec![s("Asia/Kolkata")]);
            assert_eq!(call(cx, &sdf, "format", vec![d.clone()]).to_string(), "24/11/2026 13:32");
            let parsed = call(cx, &sdf, "parse", vec![s("24/11/2026 13:32")]);
            assert_eq!(call(cx, &parsed, "getTime", vec![]).to_string(), "1795507320000");
            assert_eq!(try_call(cx, &sdf, "parse", vec![s("nope")]).unwrap_err().class, "java.text.ParseException");
            // Daylight saving: New York is UTC-4 in July, UTC-5 in November.
            let ny = Zone::named("America/New_York").unwrap();
            assert_eq!(ny.offset_at(1_784_000_000_000), -4 * 3600);
            assert_eq!(ny.offset_at(1_795_507_360_000), -5 * 3600);
            let paris = Zone::named("Europe/Paris").unwrap();
            assert_eq!(paris.offset_at(1_784_000_000_000), 7200);
        })
    }

    #[test]
    fn calendars_add_and_set_leniently() {
        with_cx(|cx| {
            let utc = call_static(cx, "java.util.TimeZone", "getTimeZone", vec![s("UTC")]).unwrap();
            let cal = call_static(cx, "java.util.Calendar", "getInstance", vec![utc]).unwrap();
            call(cx, &cal, "setTimeInMillis", vec![Value::Long(1795507360000)]);
            let f = |cx: &mut Ctx<'_>, n: &str| get_static(cx, "java.util.Calendar", n).unwrap();
            let date = f(cx, "DATE");
            let month = f(cx, "MONTH");
            assert_eq!(call(cx, &cal, "get", vec![month.clone()]).to_string(), "10");
            let dow = f(cx, "DAY_OF_WEEK");
            assert_eq!(call(cx, &cal, "get", vec![dow]).to_string(), "3");
            call(cx, &cal, "add", vec![date.clone(), Value::Int(7)]);
            assert_eq!(call(cx, &cal, "get", vec![date.clone()]).to_string(), "1");
            assert_eq!(call(cx, &cal, "get", vec![month.clone()]).to_string(), "11");
            call(cx, &cal, "set", vec![Value::Int(2024), Value::Int(0), Value::Int(31)]);
            call(cx, &cal, "add", vec![month.clone(), Value::Int(1)]);
            assert_eq!(call(cx, &cal, "get", vec![date.clone()]).to_string(), "29");
            call(cx, &cal, "set", vec![date.clone(), Value::Int(0)]);
            assert_eq!(call(cx, &cal, "get", vec![date]).to_string(), "31");
        })
    }

    #[test]
    fn java_time_values() {
        with_cx(|cx| {
            let i = call_static(cx, "java.time.Instant", "ofEpochMilli", vec![Value::Long(1795507360123)]).unwrap();
            assert_eq!(i.to_string(), "2026-11-24T08:02:40.123Z");
            let ld =
                call_static(cx, "java.time.LocalDate", "of", vec![Value::Int(2024), Value::Int(1), Value::Int(31)])
                    .unwrap();
            assert_eq!(call(cx, &ld, "plusMonths", vec![Value::Int(1)]).to_string(), "2024-02-29");
            assert_eq!(call(cx, &ld, "getDayOfWeek", vec![]).to_string(), "WEDNESDAY");
            let ldt = call_static(cx, "java.time.LocalDateTime", "parse", vec![s("2026-11-24T08:02:40")]).unwrap();
            assert_eq!(call(cx, &ldt, "plusHours", vec![Value::Int(20)]).to_string(), "2026-11-25T04:02:40");
            let f =
                call_static(cx, "java.time.format.DateTimeFormatter", "ofPattern", vec![s("yyyy/MM/dd HH:mm:ss.SSS")])
                    .unwrap();
            assert_eq!(call(cx, &ldt, "format", vec![f.clone()]).to_string(), "2026/11/24 08:02:40.000");
            let back =
                call_static(cx, "java.time.LocalDateTime", "parse", vec![s("2026/11/24 08:02:40.000"), f]).unwrap();
            assert!(crate::value::equals(&back, &ldt));
            let z = call_static(cx, "java.time.ZoneId", "of", vec![s("Asia/Tokyo")]).unwrap();
            let zdt = call(cx, &i, "atZone", vec![z]);
            assert_eq!(zdt.to_string(), "2026-11-24T17:02:40.123+09:00[Asia/Tokyo]");
            let iso = get_static(cx, "java.time.format.DateTimeFormatter", "ISO_LOCAL_DATE").unwrap();
            assert_eq!(call(cx, &zdt, "format", vec![iso]).to_string(), "2026-11-24");
            let days = get_static(cx, "java.time.temporal.ChronoUnit", "DAYS").unwrap();
            let later = call(cx, &ld, "plusDays", vec![Value::Int(40)]);
            assert_eq!(call(cx, &days, "between", vec![ld, later]).to_string(), "40");
            let d = call_static(cx, "java.time.Duration", "ofMillis", vec![Value::Long(29_172_345)]).unwrap();
            assert_eq!(d.to_string(), "PT8H6M12.345S");
            assert_eq!(call(cx, &d, "toMinutes", vec![]).to_string(), "486");
        })
    }

    #[test]
    fn decimal_formats() {
        with_cx(|cx| {
            let f = |cx: &mut Ctx<'_>, p: &str, v: Value| {
                let df = construct(cx, "java.text.DecimalFormat", vec![s(p)]).unwrap();
                call(cx, &df, "format", vec![v]).to_string()
            };
            assert_eq!(f(cx, "#.##", Value::Double(3.14259)), "3.14");
            assert_eq!(f(cx, "#.##", Value::Double(2.0)), "2");
            assert_eq!(f(cx, "0.00", Value::Double(2.5)), "2.50");
            assert_eq!(f(cx, "#,##0", Value::Long(1234567)), "1,234,567");
            assert_eq!(f(cx, "#,##0.00", Value::Double(-1234.5)), "-1,234.50");
            assert_eq!(f(cx, "0.00", Value::Double(0.125)), "0.12");
            assert_eq!(f(cx, "0.00", Value::Double(2.675)), "2.67");
            assert_eq!(f(cx, "000", Value::Int(7)), "007");
            assert_eq!(f(cx, "#.#%", Value::Double(0.256)), "25.6%");
        })
    }
}
