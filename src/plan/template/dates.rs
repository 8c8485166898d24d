//! JMeter's date functions over java.time: `__timeShift(format,date,shift,locale,var)`,
//! `__dateTimeConvert(date,from,to,var)` and `__RandomDate(format,start,end,locale,var)`.
//! Formats are java.time `DateTimeFormatter` patterns, compiled when the plan loads; English is
//! the only locale; times are in the machine's offset.

use super::{local_offset, Scope, Template, TemplateError, VarTable};
use crate::script::{JavaDateFormat, Parsed};
use rand::Rng;
use std::fmt::Write as _;
use time::{Date, Duration, OffsetDateTime, Time, UtcOffset};

#[derive(Debug, Clone, PartialEq)]
pub(super) enum DateFn {
    /// `None` format: milliseconds since the epoch, read and written.
    Shift {
        format: Option<JavaDateFormat>,
        date: Template,
        amount: Template,
    },
    /// `None` source: the date is milliseconds since the epoch.
    Convert {
        date: Template,
        source: Option<JavaDateFormat>,
        target: JavaDateFormat,
    },
    Random {
        format: JavaDateFormat,
        start: Template,
        end: Template,
    },
}

fn arg(message: impl Into<String>) -> TemplateError {
    TemplateError::Argument(message.into())
}

/// A pattern given as constant text, compiled; `None` when empty.
pub(super) fn pattern(t: &Template, what: &str) -> Result<Option<JavaDateFormat>, TemplateError> {
    let text = t.as_const().ok_or_else(|| arg(format!("the {what} must be known when the plan loads")))?.trim();
    if text.is_empty() {
        return Ok(None);
    }
    JavaDateFormat::compile_java_time(text).map(Some).map_err(|e| arg(format!("the {what} `{text}`: {e}")))
}

/// The locale argument: English (or none) is all stampede formats in.
pub(super) fn locale(t: Option<&Template>) -> Result<(), TemplateError> {
    match t.map(|t| t.as_const().map(str::trim)) {
        None | Some(Some("")) => Ok(()),
        Some(Some(l)) if l.starts_with("en") => Ok(()),
        _ => Err(arg("only an English locale (`en`, `en_US`, ...) given as constant text is supported")),
    }
}

fn now() -> OffsetDateTime {
    OffsetDateTime::now_utc().to_offset(local_offset())
}

fn from_epoch_ms(text: &str) -> Option<OffsetDateTime> {
    let ms: i64 = text.parse().ok()?;
    let t = OffsetDateTime::from_unix_timestamp_nanos(i128::from(ms) * 1_000_000).ok()?;
    Some(t.to_offset(local_offset()))
}

impl DateFn {
    pub(super) fn call<S: Scope + ?Sized>(&self, u: &mut S, out: &mut String) -> bool {
        match self {
            DateFn::Shift { format, date, amount } => {
                let date = date.render_string(u);
                let amount = amount.render_string(u);
                let (date, amount) = (date.trim(), amount.trim());
                let mut t = now();
                if !date.is_empty() {
                    // A date that does not parse is now (JMeter logs the error).
                    let parsed = match format {
                        Some(f) => f.parse(date).and_then(|p| with_defaults(p, t)),
                        None => from_epoch_ms(date),
                    };
                    t = parsed.unwrap_or(t);
                }
                if let Some(d) = java_duration(amount) {
                    t = t.checked_add(d).unwrap_or(t);
                }
                match format {
                    Some(f) => f.format(t, out),
                    None => {
                        let _ = write!(out, "{}", t.unix_timestamp_nanos() / 1_000_000);
                    }
                }
            }
            DateFn::Convert { date, source, target } => {
                let text = date.render_string(u);
                let t = match source {
                    None => from_epoch_ms(text.trim()),
                    Some(f) => f.parse(&text).and_then(|p| read_fields(p, target)),
                };
                // A date that does not parse, or lacks a field the target writes: JMeter
                // catches the exception and returns empty text.
                match t {
                    Some(t) => target.format(t, out),
                    None => return false,
                }
            }
            DateFn::Random { format, start, end } => {
                let start = start.render_string(u);
                let end = end.render_string(u);
                let today = now();
                // A date that does not parse is day 0 (1970-01-01), as JMeter's.
                let day =
                    |s: &str| format.parse(s).and_then(|p| with_defaults(p, today)).map_or(0, |t| epoch_day(t.date()));
                let from = if start.trim().is_empty() { epoch_day(today.date()) } else { day(start.trim()) };
                let to = day(end.trim());
                let (_, nt, nz) = format.needs();
                if to <= from || nt || nz {
                    return false;
                }
                let pick = u.rng().random_range(from..to);
                let Ok(d) = Date::from_julian_day((pick + UNIX_EPOCH_JULIAN) as i32) else { return false };
                format.format(d.midnight().assume_offset(local_offset()), out);
            }
        }
        true
    }

    pub(super) fn templates(&self) -> Vec<&Template> {
        match self {
            DateFn::Shift { date, amount, .. } => vec![date, amount],
            DateFn::Convert { date, .. } => vec![date],
            DateFn::Random { start, end, .. } => vec![start, end],
        }
    }

    pub(super) fn fold(&mut self, vars: &VarTable) {
        match self {
            DateFn::Shift { date, amount, .. } => {
                date.fold(vars);
                amount.fold(vars);
            }
            DateFn::Convert { date, .. } => date.fold(vars),
            DateFn::Random { start, end, .. } => {
                start.fold(vars);
                end.fold(vars);
            }
        }
    }
}

/// The instant a source format read (a date and a time, in the offset read or the machine's),
/// or the fields it read when the target writes no others.
fn read_fields(p: Parsed, target: &JavaDateFormat) -> Option<OffsetDateTime> {
    let (d, c) = (p.date(), p.time());
    if let (Some(d), Some(c)) = (d, c) {
        let offset = match p.offset_seconds {
            Some(o) => UtcOffset::from_whole_seconds(o).ok()?,
            None => local_offset(),
        };
        return Some(d.with_time(c).assume_offset(offset).to_offset(local_offset()));
    }
    let (nd, nt, nz) = target.needs();
    if nd && d.is_none() || nt && c.is_none() || nz {
        return None;
    }
    Some(d.unwrap_or(Date::MIN).with_time(c.unwrap_or(Time::MIDNIGHT)).assume_offset(local_offset()))
}

const UNIX_EPOCH_JULIAN: i64 = 2_440_588;

fn epoch_day(d: Date) -> i64 {
    i64::from(d.to_julian_day()) - UNIX_EPOCH_JULIAN
}

/// The parsed fields over `__timeShift`'s defaults: midnight, the 1st, January, this year,
/// the machine's offset.
fn with_defaults(p: Parsed, now: OffsetDateTime) -> Option<OffsetDateTime> {
    let p = Parsed {
        year: p.year.or(Some(now.year())),
        month: p.month.or(Some(1)),
        day: p.day.or(Some(1)),
        hour: p.hour.or(Some(0)),
        ..p
    };
    let offset = UtcOffset::from_whole_seconds(p.offset_seconds.unwrap_or(now.offset().whole_seconds())).ok()?;
    Some(p.date()?.with_time(p.time()?).assume_offset(offset))
}

/// `java.time.Duration.parse`: `[-]P[nD][T[nH][nM][n[.f]S]]`, letters in any case, each number
/// with an optional sign; `None` when the text is not one (JMeter then shifts nothing).
pub(super) fn java_duration(s: &str) -> Option<Duration> {
    static RE: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    let re = RE.get_or_init(|| {
        regex::Regex::new(
            r"(?i)^([-+]?)P(?:([-+]?[0-9]+)D)?(T(?:([-+]?[0-9]+)H)?(?:([-+]?[0-9]+)M)?(?:([-+]?[0-9]+)(?:[.,]([0-9]{0,9}))?S)?)?$",
        )
        .expect("a valid regex")
    });
    let c = re.captures(s)?;
    let t = c.get(3).map_or("", |m| m.as_str());
    if c.get(2).is_none() && (t.is_empty() || t.eq_ignore_ascii_case("T")) {
        return None;
    }
    let n = |i: usize| c.get(i).map_or(Some(0), |m| m.as_str().parse::<i64>().ok());
    let secs = n(2)?.checked_mul(86_400)?.checked_add(n(4)?.checked_mul(3600)?)?.checked_add(n(5)?.checked_mul(60)?)?;
    let whole = n(6)?;
    let nanos = match c.get(7) {
        Some(f) if !f.as_str().is_empty() => {
            let v: i64 = format!("{:0<9}", f.as_str()).parse().ok()?;
            if c.get(6).is_some_and(|m| m.as_str().starts_with('-')) {
                -v
            } else {
                v
            }
        }
        _ => 0,
    };
    // Beyond what a duration holds, Java throws: none here too (adding or negating panics).
    let d = Duration::seconds(secs.checked_add(whole)?).checked_add(Duration::nanoseconds(nanos))?;
    if &c[1] == "-" {
        d.checked_neg()
    } else {
        Some(d)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_are_javas() {
        assert_eq!(java_duration("P1D"), Some(Duration::days(1)));
        assert_eq!(java_duration("PT-6H3M"), Some(Duration::hours(-6) + Duration::minutes(3)));
        assert_eq!(java_duration("-pt1.5s"), Some(Duration::milliseconds(-1500)));
        assert_eq!(java_duration("PT-0.5S"), Some(Duration::milliseconds(-500)));
        assert_eq!(java_duration("P2DT3H4M"), Some(Duration::seconds(2 * 86400 + 3 * 3600 + 4 * 60)));
        for bad in ["", "P", "PT", "P1M2D", "1D", "P1W", "PT1H "] {
            assert_eq!(java_duration(bad), None, "{bad:?}");
        }
        // Beyond what a duration holds (Java throws an ArithmeticException): none, no panic.
        for huge in ["-PT-9223372036854775808S", "PT9223372036854775807.999999999S", "PT-9223372036854775808.5S"] {
            let _ = java_duration(huge);
        }
        assert_eq!(java_duration("-PT-9223372036854775808S"), None);
    }

    #[test]
    fn java_time_patterns_parse_and_format() {
        let f = JavaDateFormat::compile_java_time("yyyy-MM-dd'T'HH:mm:ss.SSS").unwrap();
        let p = f.parse("2024-02-29T13:04:05.120").unwrap();
        assert_eq!(
            (p.year, p.month, p.day, p.hour, p.minute, p.second, p.nano),
            (Some(2024), Some(2), Some(29), Some(13), Some(4), Some(5), Some(120_000_000))
        );
        let t = p.date().unwrap().with_time(p.time().unwrap()).assume_utc();
        let mut out = String::new();
        JavaDateFormat::compile_java_time("dd/MM/uuuu h:mm a S 'u'").unwrap().format(t, &mut out);
        assert_eq!(out, "29/02/2024 1:04 PM 1 u");
        let compact = JavaDateFormat::compile_java_time("yyyyMMddHHmm").unwrap().parse("202403010930").unwrap();
        assert_eq!(
            (compact.year, compact.month, compact.day, compact.hour, compact.minute),
            (Some(2024), Some(3), Some(1), Some(9), Some(30))
        );
        assert_eq!(
            JavaDateFormat::compile_java_time("dd MMM yy").unwrap().parse("05 Jan 24").unwrap().year,
            Some(2024)
        );
        assert!(JavaDateFormat::compile_java_time("yyyy-MM-dd").unwrap().parse("2024-1-05").is_none());
        assert!(JavaDateFormat::compile_java_time("yyyy[-MM]").is_err());
        assert!(JavaDateFormat::compile_java_time("HHH").is_err());
        assert!(JavaDateFormat::compile_java_time("n").is_err());
    }
}
