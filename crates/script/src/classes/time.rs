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
use super::{
    arg, fd, illegal_arg, int_arg, native_base, no_method, no_property, obj, st, str_arg, Class, Field, Static, VAR,
};
use crate::value::{lock, Native, Value};
use crate::{Ctx, Thrown};
use rust_decimal::Decimal;
use std::sync::{Mutex, OnceLock};

pub(super) mod date;
use date::*;
mod java_time;
use java_time::*;

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

const CALENDAR_STATICS: &[Static] = &[st("getInstance", 0, VAR, call_static)];

const CALENDAR_STATIC_FIELDS: &[Field] = &[
    fd("ERA", get_static),
    fd("YEAR", get_static),
    fd("MONTH", get_static),
    fd("WEEK_OF_YEAR", get_static),
    fd("DATE", get_static),
    fd("DAY_OF_MONTH", get_static),
    fd("DAY_OF_YEAR", get_static),
    fd("DAY_OF_WEEK", get_static),
    fd("AM_PM", get_static),
    fd("HOUR", get_static),
    fd("HOUR_OF_DAY", get_static),
    fd("MINUTE", get_static),
    fd("SECOND", get_static),
    fd("MILLISECOND", get_static),
    fd("ZONE_OFFSET", get_static),
    fd("DST_OFFSET", get_static),
    fd("JANUARY", get_static),
    fd("FEBRUARY", get_static),
    fd("MARCH", get_static),
    fd("APRIL", get_static),
    fd("MAY", get_static),
    fd("JUNE", get_static),
    fd("JULY", get_static),
    fd("AUGUST", get_static),
    fd("SEPTEMBER", get_static),
    fd("OCTOBER", get_static),
    fd("NOVEMBER", get_static),
    fd("DECEMBER", get_static),
    fd("SUNDAY", get_static),
    fd("MONDAY", get_static),
    fd("TUESDAY", get_static),
    fd("WEDNESDAY", get_static),
    fd("THURSDAY", get_static),
    fd("FRIDAY", get_static),
    fd("SATURDAY", get_static),
    fd("AM", get_static),
    fd("PM", get_static),
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

const NOW_OF_PARSE: &[Static] = &[
    st("now", 0, 0, call_static),
    st("of", 3, VAR, call_static),
    st("parse", 0, VAR, call_static),
    st("ofEpochMilli", 1, VAR, call_static),
    st("ofEpochSecond", 1, VAR, call_static),
    st("ofInstant", 0, VAR, call_static),
    st("ofEpochDay", 1, VAR, call_static),
];

/// `Instant.EPOCH` (the other classes' `EPOCH`, `MIN` and `MAX` are not here).
const EPOCH: &[Field] = &[fd("EPOCH", get_static)];

pub(super) const CLASSES: &[Class] = &[
    Class { name: "java.util.Date", new: Some(construct), statics: &[st("from", 0, VAR, call_static)], fields: &[] },
    Class {
        name: "java.util.Calendar",
        new: Some(construct),
        statics: CALENDAR_STATICS,
        fields: CALENDAR_STATIC_FIELDS,
    },
    Class {
        name: "java.util.GregorianCalendar",
        new: Some(construct),
        statics: CALENDAR_STATICS,
        fields: CALENDAR_STATIC_FIELDS,
    },
    Class {
        name: "java.util.TimeZone",
        new: None,
        statics: &[st("getTimeZone", 1, VAR, call_static), st("getDefault", 0, VAR, call_static)],
        fields: &[],
    },
    Class { name: "java.text.SimpleDateFormat", new: Some(construct), statics: &[], fields: &[] },
    Class { name: "java.text.DateFormat", new: Some(construct), statics: &[], fields: &[] },
    Class { name: "java.text.DecimalFormat", new: Some(construct), statics: &[], fields: &[] },
    Class {
        name: "java.text.NumberFormat",
        new: None,
        statics: &[
            st("getInstance", 0, VAR, call_static),
            st("getNumberInstance", 0, VAR, call_static),
            st("getIntegerInstance", 0, VAR, call_static),
        ],
        fields: &[],
    },
    Class { name: "java.time.Instant", new: None, statics: NOW_OF_PARSE, fields: EPOCH },
    Class { name: "java.time.LocalDate", new: None, statics: NOW_OF_PARSE, fields: &[] },
    Class { name: "java.time.LocalDateTime", new: None, statics: NOW_OF_PARSE, fields: &[] },
    Class { name: "java.time.ZonedDateTime", new: None, statics: NOW_OF_PARSE, fields: &[] },
    Class { name: "java.time.OffsetDateTime", new: None, statics: NOW_OF_PARSE, fields: &[] },
    Class {
        name: "java.time.ZoneId",
        new: None,
        statics: &[st("of", 0, VAR, call_static), st("systemDefault", 0, VAR, call_static)],
        fields: &[],
    },
    Class {
        name: "java.time.ZoneOffset",
        new: None,
        statics: &[
            st("of", 0, VAR, call_static),
            st("ofHours", 1, VAR, call_static),
            st("ofHoursMinutes", 1, VAR, call_static),
        ],
        fields: &[fd("UTC", get_static)],
    },
    Class {
        name: "java.time.format.DateTimeFormatter",
        new: None,
        statics: &[st("ofPattern", 1, 2, call_static)],
        fields: &[
            fd("ISO_LOCAL_DATE", get_static),
            fd("ISO_LOCAL_DATE_TIME", get_static),
            fd("ISO_LOCAL_TIME", get_static),
            fd("ISO_DATE", get_static),
            fd("ISO_DATE_TIME", get_static),
            fd("ISO_OFFSET_DATE_TIME", get_static),
            fd("ISO_ZONED_DATE_TIME", get_static),
            fd("ISO_INSTANT", get_static),
            fd("BASIC_ISO_DATE", get_static),
        ],
    },
    Class {
        name: "java.time.Duration",
        new: None,
        statics: &[
            st("ofDays", 1, VAR, call_static),
            st("ofHours", 1, VAR, call_static),
            st("ofMinutes", 1, VAR, call_static),
            st("ofSeconds", 1, VAR, call_static),
            st("ofMillis", 1, VAR, call_static),
            st("ofNanos", 1, VAR, call_static),
            st("between", 0, VAR, call_static),
        ],
        fields: &[fd("ZERO", get_static)],
    },
    Class {
        name: "java.time.temporal.ChronoUnit",
        new: None,
        statics: &[st("valueOf", 0, VAR, call_static)],
        fields: &[
            fd("NANOS", get_static),
            fd("MICROS", get_static),
            fd("MILLIS", get_static),
            fd("SECONDS", get_static),
            fd("MINUTES", get_static),
            fd("HOURS", get_static),
            fd("HALF_DAYS", get_static),
            fd("DAYS", get_static),
            fd("WEEKS", get_static),
            fd("MONTHS", get_static),
            fd("YEARS", get_static),
            fd("DECADES", get_static),
            fd("CENTURIES", get_static),
        ],
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

fn get_static(_cx: &mut Ctx<'_>, class: &'static str, name: &'static str) -> Result<Value, Thrown> {
    match class {
        "java.util.Calendar" | "java.util.GregorianCalendar" => CALENDAR_FIELDS
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| Value::Int(*v as i32))
            .ok_or_else(|| no_property(class, name)),
        "java.time.ZoneOffset" if name == "UTC" => Ok(obj(ZoneObj { class, zone: Zone::offset(0) })),
        "java.time.format.DateTimeFormatter" => Ok(obj(Formatter { pattern: None, iso: Some(name), zone: None })),
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
        ("java.time.temporal.ChronoUnit", "valueOf") => {
            let name = str_arg(&args, 0)?;
            UNITS
                .iter()
                .find(|(n, _)| *n == name)
                .map(|(n, _)| obj(ChronoUnit(n)))
                .ok_or_else(|| no_property(class, &name))
        }
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
