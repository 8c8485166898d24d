//! java.time: `Instant`, `LocalDate`, `LocalDateTime`, `ZonedDateTime`, `OffsetDateTime`, `DateTimeFormatter`, `Duration`, `ChronoUnit`.

use super::*;

// ---- java.time ----

#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Kind {
    Instant,
    LocalDate,
    LocalDateTime,
    Zoned,
    Offset,
}

impl Kind {
    pub(super) fn class(self) -> &'static str {
        match self {
            Kind::Instant => "java.time.Instant",
            Kind::LocalDate => "java.time.LocalDate",
            Kind::LocalDateTime => "java.time.LocalDateTime",
            Kind::Zoned => "java.time.ZonedDateTime",
            Kind::Offset => "java.time.OffsetDateTime",
        }
    }

    pub(super) fn of(class: &str) -> Kind {
        match class {
            "java.time.Instant" => Kind::Instant,
            "java.time.LocalDate" => Kind::LocalDate,
            "java.time.ZonedDateTime" => Kind::Zoned,
            "java.time.OffsetDateTime" => Kind::Offset,
            _ => Kind::LocalDateTime,
        }
    }
}

pub(super) const DAY_NANOS: i128 = 86_400_000_000_000;

/// A java.time value: local date-time as nanoseconds since 1970-01-01T00:00 local, and its
/// zone (UTC for an `Instant`; none for local values).
#[derive(Debug, Clone)]
pub(super) struct Temporal {
    pub(super) kind: Kind,
    pub(super) local: i128,
    pub(super) zone: Option<Zone>,
}

impl Temporal {
    pub(super) fn value(self) -> Value {
        obj(self)
    }

    pub(super) fn instant(epoch_nanos: i128) -> Value {
        Temporal { kind: Kind::Instant, local: epoch_nanos, zone: Some(Zone::utc()) }.value()
    }

    pub(super) fn offset(&self) -> i32 {
        match &self.zone {
            Some(z) => z.offset_for_local(self.local.div_euclid(1_000_000) as i64),
            None => Zone::default_zone().offset_for_local(self.local.div_euclid(1_000_000) as i64),
        }
    }

    pub(super) fn epoch_nanos(&self) -> i128 {
        self.local - self.offset() as i128 * 1_000_000_000
    }

    pub(super) fn from_epoch(kind: Kind, epoch_nanos: i128, zone: Zone) -> Temporal {
        let off = zone.offset_at(epoch_nanos.div_euclid(1_000_000) as i64);
        let local = epoch_nanos + off as i128 * 1_000_000_000;
        let local = if kind == Kind::LocalDate { local - local.rem_euclid(DAY_NANOS) } else { local };
        Temporal { kind, local, zone: matches!(kind, Kind::Zoned | Kind::Offset | Kind::Instant).then_some(zone) }
    }

    pub(super) fn parts(&self) -> (i64, i64, i64, i128) {
        let days = self.local.div_euclid(DAY_NANOS) as i64;
        let (y, m, d) = civil_from_days(days);
        (y, m, d, self.local.rem_euclid(DAY_NANOS))
    }

    pub(super) fn with_local(&self, local: i128) -> Temporal {
        Temporal { local, ..self.clone() }
    }

    pub(super) fn plus_months(&self, n: i64) -> Temporal {
        let (y, m, d, t) = self.parts();
        let months = y * 12 + m - 1 + n;
        let (y, m) = (months.div_euclid(12), months.rem_euclid(12) + 1);
        self.with_local(days_from_civil(y, m, d.min(month_length(y, m))) as i128 * DAY_NANOS + t)
    }

    pub(super) fn plus(&self, n: i64, unit: &str) -> Result<Temporal, Thrown> {
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

    pub(super) fn iso(&self) -> String {
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
    pub(super) fn parse_iso(kind: Kind, text: &str) -> Option<Temporal> {
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

pub(super) fn capitalize_unit(u: &str) -> String {
    crate::value::capitalize(&u.to_lowercase())
}

pub(super) fn temporal_arg(v: &Value) -> Result<Temporal, Thrown> {
    if let Some(t) = super::super::downcast::<Temporal>(v) {
        return Ok(t.clone());
    }
    date_millis(v)
        .map(|ms| Temporal { kind: Kind::Instant, local: ms as i128 * 1_000_000, zone: Some(Zone::utc()) })
        .ok_or_else(|| illegal_arg(format!("a date or time was expected, not {}", v.type_name())))
}

pub(super) const MONTH_NAMES: [&str; 12] = [
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
pub(super) const DAY_NAMES: [&str; 7] = ["MONDAY", "TUESDAY", "WEDNESDAY", "THURSDAY", "FRIDAY", "SATURDAY", "SUNDAY"];

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
                let u = super::super::downcast::<ChronoUnit>(&args[1])
                    .ok_or_else(|| illegal_arg("a ChronoUnit was expected"))?;
                return Ok(self.plus(sign * n()?, u.0)?.value());
            }
            if unit.is_empty() && args.len() == 1 {
                let dur = super::super::downcast::<Duration>(&args[0])
                    .ok_or_else(|| illegal_arg("a Duration was expected"))?;
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
                super::super::downcast::<Temporal>(&args[0])
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
pub(super) struct Formatter {
    pub(super) pattern: Option<(String, JavaDateFormat)>,
    pub(super) iso: Option<&'static str>,
    pub(super) zone: Option<Zone>,
}

pub(super) fn format_temporal(t: &Temporal, f: &Value) -> Result<String, Thrown> {
    let f = super::super::downcast::<Formatter>(f)
        .ok_or_else(|| illegal_arg("format: a DateTimeFormatter was expected"))?;
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
    pub(super) fn instant_of(t: &Temporal) -> Temporal {
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
pub(super) fn parse_with(kind: Kind, text: &str, f: &Formatter) -> Result<Temporal, Thrown> {
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
pub(super) struct Duration(pub(super) i128);

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
                let o = super::super::downcast::<Duration>(&args[0])
                    .ok_or_else(|| illegal_arg("a Duration was expected"))?
                    .0;
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
                Ok(Value::Int(n.cmp(&super::super::downcast::<Duration>(&args[0]).map(|d| d.0).unwrap_or(0)) as i32))
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
pub(super) struct ChronoUnit(pub(super) &'static str);

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
