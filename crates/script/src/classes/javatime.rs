//! Java `SimpleDateFormat` patterns, and the `java.time.format.DateTimeFormatter` patterns of
//! JMeter 5.6.3's `__time`, `__timeShift`, `__dateTimeConvert` and `__RandomDate` where their
//! letters agree ([`JavaDateFormat::compile_java_time`]), which can
//! also be read back ([`JavaDateFormat::parse`]).
//!
//! A pattern is compiled once when the plan is loaded; [`JavaDateFormat::format`] then runs per
//! request, so it only appends to the caller's `String` (no temporary allocations).
//!
//! The output matches `new SimpleDateFormat(pattern, Locale.US)` on Java 17 with the JVM time zone
//! set to the instant's offset, with these unavoidable differences:
//! - `z` can only know an offset, not a zone: it prints `UTC` / `Coordinated Universal Time` for a
//!   zero offset and Java's custom-zone name (`GMT+05:30`) otherwise, where Java would print the
//!   JVM zone's name (`IST`, `PST`, ...).
//! - Dates before the 1582 Gregorian cutover are proleptic Gregorian; Java switches to Julian.

use time::{Date, Month, OffsetDateTime, Time, Weekday};

/// A compiled `SimpleDateFormat` pattern.
#[derive(Debug, Clone, PartialEq)]
pub struct JavaDateFormat {
    items: Vec<Item>,
}

#[derive(Debug, Clone, PartialEq)]
enum Item {
    /// Adjacent literal characters (quoted or not) merged into one string.
    Literal(Box<str>),
    /// A run of one pattern letter; the run length selects the style / minimum digits.
    Field(Field, usize),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Field {
    Era,
    Year,
    WeekYear,
    Month,
    WeekOfYear,
    WeekOfMonth,
    DayOfYear,
    DayOfMonth,
    DayOfWeekInMonth,
    DayName,
    IsoDayOfWeek,
    AmPm,
    Hour0To23,
    Hour1To24,
    Hour0To11,
    Hour1To12,
    Minute,
    Second,
    Millisecond,
    ZoneName,
    ZoneRfc822,
    ZoneIso8601,
    /// java.time's `S`: the fraction of the second, as many digits as letters.
    Fraction,
}

impl Field {
    /// Java's `DateFormatSymbols.patternChars` ("GyMdkHmsSEDFwWahKzZYuXL").
    fn from_letter(c: char) -> Option<Field> {
        Some(match c {
            'G' => Field::Era,
            'y' => Field::Year,
            'Y' => Field::WeekYear,
            // In English the stand-alone month names (L) are the same as the format ones (M).
            'M' | 'L' => Field::Month,
            'w' => Field::WeekOfYear,
            'W' => Field::WeekOfMonth,
            'D' => Field::DayOfYear,
            'd' => Field::DayOfMonth,
            'F' => Field::DayOfWeekInMonth,
            'E' => Field::DayName,
            'u' => Field::IsoDayOfWeek,
            'a' => Field::AmPm,
            'H' => Field::Hour0To23,
            'k' => Field::Hour1To24,
            'K' => Field::Hour0To11,
            'h' => Field::Hour1To12,
            'm' => Field::Minute,
            's' => Field::Second,
            'S' => Field::Millisecond,
            'z' => Field::ZoneName,
            'Z' => Field::ZoneRfc822,
            'X' => Field::ZoneIso8601,
            _ => return None,
        })
    }
}

/// `DecimalFormat` never pads a `long` beyond 309 digits, however long the letter run is.
const MAX_PADDING: usize = 309;

const MONTHS: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];

const DAYS_FROM_SUNDAY: [&str; 7] = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];

/// Why a SimpleDateFormat pattern cannot be used; the messages are Java's.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PatternError {
    #[error("invalid ISO 8601 format: length={count} ('{letter}' run at index {at}; at most XXX)")]
    /// An ISO offset letter (`X`) repeated more than three times.
    IsoLength {
        /// The letter.
        letter: char,
        /// How many times it is repeated.
        count: usize,
        /// Where the run starts in the pattern.
        at: usize,
    },
    #[error("Illegal pattern character '{letter}' at index {at}")]
    /// A letter that is no field of a date pattern.
    IllegalLetter {
        /// The letter.
        letter: char,
        /// Where it is in the pattern.
        at: usize,
    },
    #[error("Unterminated quote (opened at index {at})")]
    /// A quote (`'`) that is never closed.
    UnterminatedQuote {
        /// Where the quote opens in the pattern.
        at: usize,
    },
}

impl JavaDateFormat {
    /// Compiles a SimpleDateFormat pattern; the error names the offending letter/position.
    pub(crate) fn compile(pattern: &str) -> Result<JavaDateFormat, PatternError> {
        let mut items = Vec::new();
        let mut literal = String::new();
        // (letter, field, count, index of the run's first letter)
        let mut run: Option<(char, Field, usize, usize)> = None;
        let mut quote_start: Option<usize> = None;
        let mut chars = pattern.chars().enumerate().peekable();

        let flush_run = |run: &mut Option<(char, Field, usize, usize)>, items: &mut Vec<Item>| {
            if let Some((letter, field, count, at)) = run.take() {
                // Java rejects this when the run ends (SimpleDateFormat.encode), not per letter.
                if field == Field::ZoneIso8601 && count > 3 {
                    return Err(PatternError::IsoLength { letter, count, at });
                }
                items.push(Item::Field(field, count));
            }
            Ok(())
        };
        let flush_literal = |literal: &mut String, items: &mut Vec<Item>| {
            if !literal.is_empty() {
                items.push(Item::Literal(std::mem::take(literal).into_boxed_str()));
            }
        };

        while let Some((i, c)) = chars.next() {
            if c == '\'' {
                flush_run(&mut run, &mut items)?;
                // Java reads '' as one quote both inside and outside quoted text, so "'o''clock'" is
                // o'clock and the quoted section stays open.
                if chars.next_if(|&(_, next)| next == '\'').is_some() {
                    literal.push('\'');
                } else if quote_start.is_some() {
                    quote_start = None;
                } else {
                    quote_start = Some(i);
                }
                continue;
            }
            if quote_start.is_some() || !c.is_ascii_alphabetic() {
                flush_run(&mut run, &mut items)?;
                literal.push(c);
                continue;
            }
            let field = Field::from_letter(c).ok_or(PatternError::IllegalLetter { letter: c, at: i })?;
            match &mut run {
                Some((letter, _, count, _)) if *letter == c => *count += 1,
                _ => {
                    flush_run(&mut run, &mut items)?;
                    flush_literal(&mut literal, &mut items);
                    run = Some((c, field, 1, i));
                }
            }
        }
        if let Some(at) = quote_start {
            return Err(PatternError::UnterminatedQuote { at });
        }
        flush_run(&mut run, &mut items)?;
        flush_literal(&mut literal, &mut items);
        Ok(JavaDateFormat { items })
    }

    /// Appends `t` formatted (in t's own UTC offset) to `out`.
    pub fn format(&self, t: OffsetDateTime, out: &mut String) {
        let date = t.date();
        let clock = t.time();
        let offset_seconds = t.offset().whole_seconds();
        for item in &self.items {
            match item {
                Item::Literal(text) => out.push_str(text),
                Item::Field(field, count) => format_field(*field, *count, date, clock, offset_seconds, out),
            }
        }
    }
}

fn format_field(field: Field, count: usize, date: Date, clock: Time, offset_seconds: i32, out: &mut String) {
    let number = |out: &mut String, value: u32| push_number(out, i64::from(value), count, false);
    match field {
        Field::Era => out.push_str(if date.year() <= 0 { "BC" } else { "AD" }),
        // Java's YEAR field is the year of the era: 1 BC is year 0 in proleptic numbering.
        Field::Year => {
            let year = date.year();
            let year_of_era = if year <= 0 { 1 - year } else { year };
            push_number(out, i64::from(year_of_era), count, count == 2);
        }
        Field::WeekYear => push_number(out, i64::from(us_week(date).0), count, count == 2),
        Field::Month => {
            let month = u8::from(date.month());
            match count {
                1 | 2 => number(out, u32::from(month)),
                3 => out.push_str(short(month_name(date.month()))),
                _ => out.push_str(month_name(date.month())),
            }
        }
        Field::WeekOfYear => number(out, us_week(date).1),
        Field::WeekOfMonth => {
            let day = i32::from(date.day());
            let first_of_month = (sunday_index(date.weekday()) - (day - 1)).rem_euclid(7);
            number(out, ((day - 1 + first_of_month) / 7 + 1) as u32);
        }
        Field::DayOfYear => number(out, u32::from(date.ordinal())),
        Field::DayOfMonth => number(out, u32::from(date.day())),
        Field::DayOfWeekInMonth => number(out, (u32::from(date.day()) - 1) / 7 + 1),
        Field::DayName => {
            let name = DAYS_FROM_SUNDAY[usize::from(date.weekday().number_days_from_sunday())];
            out.push_str(if count >= 4 { name } else { short(name) });
        }
        Field::IsoDayOfWeek => number(out, u32::from(date.weekday().number_from_monday())),
        Field::AmPm => out.push_str(if clock.hour() < 12 { "AM" } else { "PM" }),
        Field::Hour0To23 => number(out, u32::from(clock.hour())),
        Field::Hour1To24 => number(out, if clock.hour() == 0 { 24 } else { u32::from(clock.hour()) }),
        Field::Hour0To11 => number(out, u32::from(clock.hour() % 12)),
        Field::Hour1To12 => match clock.hour() % 12 {
            0 => number(out, 12),
            hour => number(out, u32::from(hour)),
        },
        Field::Minute => number(out, u32::from(clock.minute())),
        Field::Second => number(out, u32::from(clock.second())),
        // Java's S is the millisecond count, padded like any number: it is not a fraction.
        Field::Millisecond => number(out, u32::from(clock.millisecond())),
        Field::Fraction => {
            let digits = count.min(9);
            let value = clock.nanosecond() / 10u32.pow(9 - digits as u32);
            push_number(out, i64::from(value), digits, false);
        }
        Field::ZoneName => {
            if offset_seconds == 0 {
                out.push_str(if count >= 4 { "Coordinated Universal Time" } else { "UTC" });
            } else {
                // A zone without a name displays as its custom ID, "GMT+hh:mm".
                out.push_str("GMT");
                push_signed_hours_minutes(out, offset_seconds, true);
            }
        }
        Field::ZoneRfc822 => push_signed_hours_minutes(out, offset_seconds, false),
        Field::ZoneIso8601 => {
            // "Z" only for an exactly zero offset; a sub-minute offset still prints "+00".
            if offset_seconds == 0 {
                out.push('Z');
            } else if count == 1 {
                let minutes = offset_seconds / 60;
                out.push(if minutes < 0 { '-' } else { '+' });
                push_number(out, i64::from(minutes.abs() / 60), 2, false);
            } else {
                push_signed_hours_minutes(out, offset_seconds, count == 3);
            }
        }
    }
}

/// "+05:30" or "+0530". Java truncates the offset to whole minutes toward zero and then takes the
/// sign of what is left, so -00:30 is "-00:30" but -00:00:30 is "+00:00".
fn push_signed_hours_minutes(out: &mut String, offset_seconds: i32, colon: bool) {
    let minutes = offset_seconds / 60;
    out.push(if minutes < 0 { '-' } else { '+' });
    push_number(out, i64::from(minutes.abs() / 60), 2, false);
    if colon {
        out.push(':');
    }
    push_number(out, i64::from(minutes.abs() % 60), 2, false);
}

fn month_name(month: Month) -> &'static str {
    MONTHS[usize::from(u8::from(month)).saturating_sub(1) % 12]
}

/// English abbreviations are the first three letters of the full name ("Sep", "Thu").
fn short(name: &'static str) -> &'static str {
    name.get(..3).unwrap_or(name)
}

fn sunday_index(day: Weekday) -> i32 {
    i32::from(day.number_days_from_sunday())
}

/// (week year, week of year) under Java's US rules: weeks run Sunday to Saturday and week 1 is the
/// one containing January 1, so the last days of December can be week 1 of the next year.
fn us_week(date: Date) -> (i32, u32) {
    let year = date.year();
    let ordinal = i32::from(date.ordinal());
    let weekday = sunday_index(date.weekday());
    let saturday = ordinal + (6 - weekday);
    if saturday > i32::from(time::util::days_in_year(year)) {
        return (year + 1, 1);
    }
    let jan1 = (weekday - (ordinal - 1)).rem_euclid(7);
    (year, ((ordinal - 1 + jan1) / 7 + 1) as u32)
}

/// Java's `zeroPaddingNumber`: grouping-free digits, at least `min_digits` of them (capped like
/// `DecimalFormat`), and only the last two when `last_two` ("yy" clips 2001 to 01).
fn push_number(out: &mut String, value: i64, min_digits: usize, last_two: bool) {
    let mut magnitude = value.unsigned_abs();
    if last_two {
        magnitude %= 100;
    }
    if value < 0 {
        out.push('-');
    }
    let mut digits = [0u8; 20];
    let mut start = digits.len();
    loop {
        start -= 1;
        digits[start] = b'0' + (magnitude % 10) as u8;
        magnitude /= 10;
        if magnitude == 0 {
            break;
        }
    }
    let len = digits.len() - start;
    for _ in len..min_digits.min(MAX_PADDING) {
        out.push('0');
    }
    for &digit in &digits[start..] {
        out.push(char::from(digit));
    }
}

/// The fields a text read by [`JavaDateFormat::parse`] gave; what it did not give is `None`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Parsed {
    /// The year.
    pub year: Option<i32>,
    /// The month, 1 to 12.
    pub month: Option<u8>,
    /// The day of the month, from 1.
    pub day: Option<u8>,
    /// The hour of the day, 0 to 23.
    pub hour: Option<u8>,
    /// The minute.
    pub minute: Option<u8>,
    /// The second.
    pub second: Option<u8>,
    /// The fraction of the second, in nanoseconds.
    pub nano: Option<u32>,
    /// The offset from UTC, in seconds.
    pub offset_seconds: Option<i32>,
}

impl Parsed {
    /// The date, when year, month and day are all known (and make a date).
    pub fn date(&self) -> Option<Date> {
        Date::from_calendar_date(self.year?, Month::try_from(self.month?).ok()?, self.day?).ok()
    }

    /// The time of day, when the hour is known (java.time fills the rest with zeros).
    pub fn time(&self) -> Option<Time> {
        Time::from_hms_nano(self.hour?, self.minute.unwrap_or(0), self.second.unwrap_or(0), self.nano.unwrap_or(0)).ok()
    }
}

impl JavaDateFormat {
    /// Compiles a `java.time.format.DateTimeFormatter` pattern (as `__timeShift`,
    /// `__dateTimeConvert` and `__RandomDate` use) where its letters mean what they mean in
    /// SimpleDateFormat, with `S` the fraction of the second and `u` the year; letters and widths
    /// stampede does not know (optional sections, `n`, `V`, `ZZZZ`, narrow text...) are an error.
    pub fn compile_java_time(pattern: &str) -> Result<JavaDateFormat, String> {
        let mut quoted = false;
        let mut prev: Option<(char, usize)> = None;
        let check = |run: Option<(char, usize)>| -> Result<(), String> {
            let Some((c, n)) = run else { return Ok(()) };
            let max = match c {
                'a' => 1,
                'H' | 'h' | 'K' | 'k' | 'm' | 's' | 'd' | 'W' => 2,
                'D' | 'G' | 'Z' | 'X' => 3,
                'E' | 'M' | 'L' | 'z' => 4,
                'S' => 9,
                'y' | 'u' | 'Y' | 'w' => 19,
                _ => return Err(format!("the pattern letter '{c}' is not supported by stampede")),
            };
            if n > max {
                return Err(format!("{n} pattern letters '{c}' are not supported by stampede (at most {max})"));
            }
            Ok(())
        };
        for c in pattern.chars() {
            if c == '\'' {
                quoted = !quoted;
            }
            if !quoted && matches!(c, '[' | ']' | '{' | '}' | '#') {
                return Err(format!("'{c}' (optional sections, reserved characters) is not supported by stampede"));
            }
            let letter = (!quoted && c.is_ascii_alphabetic()).then_some(c);
            match (prev, letter) {
                (Some((p, n)), Some(l)) if p == l => prev = Some((p, n + 1)),
                (run, l) => {
                    check(run)?;
                    prev = l.map(|l| (l, 1));
                }
            }
        }
        check(prev)?;
        // `u` is the year in java.time; `S` a fraction.
        let mut quoted = false;
        let pattern: String = pattern
            .chars()
            .map(|c| {
                quoted ^= c == '\'';
                if c == 'u' && !quoted {
                    'y'
                } else {
                    c
                }
            })
            .collect();
        let mut f = JavaDateFormat::compile(&pattern).map_err(|e| e.to_string())?;
        for item in &mut f.items {
            if let Item::Field(field @ Field::Millisecond, _) = item {
                *field = Field::Fraction;
            }
        }
        Ok(f)
    }

    /// (needs a date, needs a time of day, needs an offset) to format.
    pub fn needs(&self) -> (bool, bool, bool) {
        let (mut date, mut clock, mut zone) = (false, false, false);
        for item in &self.items {
            if let Item::Field(field, _) = item {
                match field {
                    Field::AmPm
                    | Field::Hour0To23
                    | Field::Hour1To24
                    | Field::Hour0To11
                    | Field::Hour1To12
                    | Field::Minute
                    | Field::Second
                    | Field::Millisecond
                    | Field::Fraction => clock = true,
                    Field::ZoneName | Field::ZoneRfc822 | Field::ZoneIso8601 => zone = true,
                    _ => date = true,
                }
            }
        }
        (date, clock, zone)
    }

    /// Reads `text` by the pattern, java.time's way for the common fields: a two-letter number
    /// has exactly two digits (`yy` is 2000-2099), a number followed by another number has as
    /// many digits as letters, others take every digit; month and day names are English. `None`
    /// when the text does not match, or the pattern has a field stampede cannot read back.
    pub fn parse(&self, text: &str) -> Option<Parsed> {
        let mut p = Parsed::default();
        let (mut pm, mut hour12) = (None, None);
        let mut rest = text;
        for (i, item) in self.items.iter().enumerate() {
            let (field, count) = match item {
                Item::Literal(lit) => {
                    rest = rest.strip_prefix(&**lit)?;
                    continue;
                }
                Item::Field(f, c) => (*f, *c),
            };
            let next_is_number = matches!(self.items.get(i + 1), Some(Item::Field(f, c)) if is_numeric(*f, *c));
            if is_numeric(field, count) {
                let (min, max) = match (field, count) {
                    (Field::Fraction, n) => (n, n),
                    (_, 2) => (2, 2),
                    (_, n) if next_is_number => (n, n),
                    (_, n) => (n.min(1), 10),
                };
                let len = rest.bytes().take(max).take_while(u8::is_ascii_digit).count();
                if len < min {
                    return None;
                }
                let value: i64 = rest[..len].parse().ok()?;
                rest = &rest[len..];
                let small = u8::try_from(value).ok();
                match field {
                    Field::Year if count == 2 => p.year = Some(2000 + value as i32),
                    Field::Year => p.year = Some(i32::try_from(value).ok()?),
                    Field::Month => p.month = small,
                    Field::DayOfMonth => p.day = small,
                    Field::Hour0To23 => p.hour = small,
                    Field::Hour1To24 => p.hour = small.map(|h| h % 24),
                    Field::Hour0To11 | Field::Hour1To12 => hour12 = small.map(|h| h % 12),
                    Field::Minute => p.minute = small,
                    Field::Second => p.second = small,
                    Field::Millisecond => p.nano = Some(u32::try_from(value).ok()?.checked_mul(1_000_000)?),
                    Field::Fraction => p.nano = Some(value as u32 * 10u32.pow(9 - count.min(9) as u32)),
                    _ => return None,
                }
                continue;
            }
            match field {
                Field::Month => {
                    let (n, len) = MONTHS.iter().enumerate().find_map(|(i, m)| {
                        let name = if count >= 4 { *m } else { short(m) };
                        rest.starts_with(name).then_some((i as u8 + 1, name.len()))
                    })?;
                    p.month = Some(n);
                    rest = &rest[len..];
                }
                Field::DayName => {
                    let len = DAYS_FROM_SUNDAY.iter().find_map(|d| {
                        let name = if count >= 4 { *d } else { short(d) };
                        rest.starts_with(name).then_some(name.len())
                    })?;
                    rest = &rest[len..];
                }
                Field::AmPm => {
                    pm = Some(rest.starts_with("PM"));
                    rest = rest.strip_prefix("AM").or_else(|| rest.strip_prefix("PM"))?;
                }
                Field::Era => rest = rest.strip_prefix("AD")?,
                Field::ZoneRfc822 | Field::ZoneIso8601 => {
                    if let Some(r) = rest.strip_prefix('Z').filter(|_| field == Field::ZoneIso8601) {
                        p.offset_seconds = Some(0);
                        rest = r;
                        continue;
                    }
                    let sign = match rest.as_bytes().first()? {
                        b'+' => 1,
                        b'-' => -1,
                        _ => return None,
                    };
                    let digits: String = rest[1..].chars().take(5).filter(char::is_ascii_digit).collect();
                    let used = rest[1..].chars().take_while(|c| c.is_ascii_digit() || *c == ':').count().min(5);
                    let (h, m) = match digits.len() {
                        2 => (digits.parse::<i32>().ok()?, 0),
                        4 => (digits[..2].parse::<i32>().ok()?, digits[2..].parse::<i32>().ok()?),
                        _ => return None,
                    };
                    p.offset_seconds = Some(sign * (h * 3600 + m * 60));
                    rest = &rest[1 + used..];
                }
                _ => return None,
            }
        }
        if !rest.is_empty() {
            return None;
        }
        if let Some(h) = hour12 {
            p.hour = Some(h + if pm == Some(true) { 12 } else { 0 });
        }
        Some(p)
    }
}

/// Whether a field is written as a number at this width.
fn is_numeric(field: Field, count: usize) -> bool {
    match field {
        Field::Month => count <= 2,
        Field::Era | Field::DayName | Field::AmPm | Field::ZoneName | Field::ZoneRfc822 | Field::ZoneIso8601 => false,
        _ => true,
    }
}

#[cfg(test)]
mod tests {
    use super::JavaDateFormat;
    use time::macros::datetime;
    use time::OffsetDateTime;

    fn fmt(pattern: &str, t: OffsetDateTime) -> String {
        let compiled = JavaDateFormat::compile(pattern).unwrap_or_else(|e| panic!("{pattern:?}: {e}"));
        let mut out = String::new();
        compiled.format(t, &mut out);
        out
    }

    // Every expectation below was produced by Java 17: new SimpleDateFormat(pattern, Locale.US)
    // with the JVM zone set to UTC or to the custom zone "GMT±hh:mm" matching the offset.
    #[test]
    fn javadoc_examples() {
        let t = datetime!(2001-07-04 12:08:56.235 UTC);
        let cases = [
            ("yyyy.MM.dd G 'at' HH:mm:ss z", "2001.07.04 AD at 12:08:56 UTC"),
            ("EEE, MMM d, ''yy", "Wed, Jul 4, '01"),
            ("h:mm a", "12:08 PM"),
            ("hh 'o''clock' a, zzzz", "12 o'clock PM, Coordinated Universal Time"),
            ("K:mm a, z", "0:08 PM, UTC"),
            ("yyyyy.MMMMM.dd GGG hh:mm aaa", "02001.July.04 AD 12:08 PM"),
            ("EEE, d MMM yyyy HH:mm:ss Z", "Wed, 4 Jul 2001 12:08:56 +0000"),
            ("yyMMddHHmmssZ", "010704120856+0000"),
            ("yyyy-MM-dd'T'HH:mm:ss.SSSZ", "2001-07-04T12:08:56.235+0000"),
            ("yyyy-MM-dd'T'HH:mm:ss.SSSXXX", "2001-07-04T12:08:56.235Z"),
            ("YYYY-'W'ww-u", "2001-W27-3"),
        ];
        for (pattern, expected) in cases {
            assert_eq!(fmt(pattern, t), expected, "{pattern:?}");
        }
    }

    #[test]
    fn every_letter_and_width() {
        let t = datetime!(2001-07-04 12:08:56.235 UTC);
        let cases = [
            ("G GG GGGG GGGGG", "AD AD AD AD"),
            ("y yy yyy yyyy yyyyy", "2001 01 2001 2001 02001"),
            ("Y YY YYY YYYY YYYYY", "2001 01 2001 2001 02001"),
            ("M MM MMM MMMM MMMMM", "7 07 Jul July July"),
            ("L LL LLL LLLL", "7 07 Jul July"),
            ("MMMM", "July"),
            ("w ww www W WW", "27 27 027 1 01"),
            ("D DD DDD DDDD d dd ddd F FF", "185 185 185 0185 4 04 004 1 01"),
            ("E EE EEE EEEE EEEEE", "Wed Wed Wed Wednesday Wednesday"),
            ("u uu uuu", "3 03 003"),
            ("a aa aaaa", "PM PM PM"),
            ("m mm s ss", "8 08 56 56"),
            ("S SS SSS SSSS", "235 235 235 0235"),
            ("z zz zzz zzzz zzzzz", "UTC UTC UTC Coordinated Universal Time Coordinated Universal Time"),
            ("Z ZZ ZZZZZ X XX XXX", "+0000 +0000 +0000 Z Z Z"),
        ];
        for (pattern, expected) in cases {
            assert_eq!(fmt(pattern, t), expected, "{pattern:?}");
        }
    }

    #[test]
    fn milliseconds_are_a_padded_count_not_a_fraction() {
        let t = datetime!(2001-07-04 12:08:56.005 UTC);
        assert_eq!(fmt("S SS SSS SSSSSS", t), "5 05 005 000005");
        // Sub-millisecond digits are dropped, never rounded up.
        assert_eq!(fmt("SSS", datetime!(2001-07-04 12:08:56.999_999_999 UTC)), "999");
    }

    #[test]
    fn offsets() {
        let pattern = "yyyy-MM-dd'T'HH:mm:ss.SSSZ z zzzz X XX XXX";
        let cases = [
            (
                datetime!(2001-07-04 12:08:56.235 +05:30),
                "2001-07-04T12:08:56.235+0530 GMT+05:30 GMT+05:30 +05 +0530 +05:30",
            ),
            (
                datetime!(2001-07-04 12:08:56.235 -08:00),
                "2001-07-04T12:08:56.235-0800 GMT-08:00 GMT-08:00 -08 -0800 -08:00",
            ),
            (
                datetime!(2001-07-04 12:08:56.235 -00:30),
                "2001-07-04T12:08:56.235-0030 GMT-00:30 GMT-00:30 -00 -0030 -00:30",
            ),
            (
                datetime!(2001-07-04 12:08:56.235 +14:00),
                "2001-07-04T12:08:56.235+1400 GMT+14:00 GMT+14:00 +14 +1400 +14:00",
            ),
            // Java drops sub-minute offset seconds; only an exactly zero offset is "Z" / "UTC".
            (
                datetime!(2001-07-04 12:08:56.235 -00:00:30),
                "2001-07-04T12:08:56.235+0000 GMT+00:00 GMT+00:00 +00 +0000 +00:00",
            ),
            (
                datetime!(2001-07-04 12:08:56.235 +05:30:15),
                "2001-07-04T12:08:56.235+0530 GMT+05:30 GMT+05:30 +05 +0530 +05:30",
            ),
        ];
        for (t, expected) in cases {
            assert_eq!(fmt(pattern, t), expected, "{t}");
        }
        // The fields are those of the instant's own offset.
        assert_eq!(
            fmt("EEE, d MMM yyyy HH:mm:ss Z", datetime!(2001-07-04 23:30 -08:00)),
            "Wed, 4 Jul 2001 23:30:00 -0800"
        );
    }

    #[test]
    fn twelve_and_twenty_four_hour_clocks() {
        let cases = [
            (datetime!(2001-07-04 00:00 UTC), "0 24 0 12 AM|00 24 00 12"),
            (datetime!(2001-07-04 00:30 UTC), "0 24 0 12 AM|00 24 00 12"),
            (datetime!(2001-07-04 01:00 UTC), "1 1 1 1 AM|01 01 01 01"),
            (datetime!(2001-07-04 11:59 UTC), "11 11 11 11 AM|11 11 11 11"),
            (datetime!(2001-07-04 12:00 UTC), "12 12 0 12 PM|12 12 00 12"),
            (datetime!(2001-07-04 12:30 UTC), "12 12 0 12 PM|12 12 00 12"),
            (datetime!(2001-07-04 13:00 UTC), "13 13 1 1 PM|13 13 01 01"),
            (datetime!(2001-07-04 23:59 UTC), "23 23 11 11 PM|23 23 11 11"),
        ];
        for (t, expected) in cases {
            assert_eq!(fmt("H k K h a|HH kk KK hh", t), expected, "{t}");
        }
    }

    #[test]
    fn us_week_rules_at_year_boundaries() {
        let pattern = "YYYY-'W'ww-u w W F D E yyyy";
        let cases = [
            (datetime!(2026-12-26 10:00 UTC), "2026-W52-6 52 4 4 360 Sat 2026"),
            (datetime!(2026-12-27 10:00 UTC), "2027-W01-7 1 5 4 361 Sun 2026"),
            (datetime!(2026-12-31 10:00 UTC), "2027-W01-4 1 5 5 365 Thu 2026"),
            (datetime!(2027-01-01 10:00 UTC), "2027-W01-5 1 1 1 1 Fri 2027"),
            (datetime!(2027-01-02 10:00 UTC), "2027-W01-6 1 1 1 2 Sat 2027"),
            (datetime!(2027-01-03 10:00 UTC), "2027-W02-7 2 2 1 3 Sun 2027"),
            (datetime!(2020-12-26 10:00 UTC), "2020-W52-6 52 4 4 361 Sat 2020"),
            (datetime!(2020-12-27 10:00 UTC), "2021-W01-7 1 5 4 362 Sun 2020"),
            (datetime!(2020-12-31 10:00 UTC), "2021-W01-4 1 5 5 366 Thu 2020"),
            // ISO would put these in 2020-W53; Java's US rules start week 1 on the Sunday before.
            (datetime!(2021-01-01 10:00 UTC), "2021-W01-5 1 1 1 1 Fri 2021"),
            (datetime!(2021-01-03 10:00 UTC), "2021-W02-7 2 2 1 3 Sun 2021"),
            (datetime!(2022-01-01 10:00 UTC), "2022-W01-6 1 1 1 1 Sat 2022"),
            (datetime!(2022-12-31 10:00 UTC), "2022-W53-6 53 5 5 365 Sat 2022"),
            (datetime!(2023-01-01 10:00 UTC), "2023-W01-7 1 1 1 1 Sun 2023"),
            (datetime!(2024-12-29 10:00 UTC), "2025-W01-7 1 5 5 364 Sun 2024"),
            (datetime!(2024-12-31 10:00 UTC), "2025-W01-2 1 5 5 366 Tue 2024"),
            (datetime!(2025-03-31 10:00 UTC), "2025-W14-1 14 6 5 90 Mon 2025"),
        ];
        for (t, expected) in cases {
            assert_eq!(fmt(pattern, t), expected, "{t}");
        }
        // The local date decides the week, not the UTC one.
        assert_eq!(fmt("YYYY-ww", datetime!(2026-12-26 23:30 -08:00)), "2026-52");
        assert_eq!(fmt("YYYY-ww", datetime!(2026-12-26 23:30 +05:30)), "2026-52");
        assert_eq!(fmt("YYYY-ww", datetime!(2026-12-27 00:30 +05:30)), "2027-01");
    }

    #[test]
    fn years() {
        assert_eq!(fmt("yy yyy", datetime!(2009-07-04 12:00 UTC)), "09 2009");
        // Java counts years of the era: proleptic year 0 is 1 BC.
        assert_eq!(fmt("G yyyy yy y", datetime!(0000-07-01 12:00 UTC)), "BC 0001 01 1");
        assert_eq!(fmt("G yyyy yy y", datetime!(-0099-07-01 12:00 UTC)), "BC 0100 00 100");
        // DecimalFormat pads a long to at most 309 digits.
        assert_eq!(fmt(&"y".repeat(400), datetime!(2001-07-04 12:00 UTC)).len(), 309);
    }

    #[test]
    fn quoting_and_literals() {
        let t = datetime!(2001-07-04 12:08:56.235 UTC);
        let cases = [
            ("", ""),
            ("''", "'"),
            ("''''", "''"),
            ("'a''b'", "a'b"),
            ("'''a'''", "'a'"),
            ("''yy''", "'01'"),
            ("yyyy''MM", "2001'07"),
            ("'yyyy'yyyy", "yyyy2001"),
            ("'It''s' h 'o''clock'", "It's 12 o'clock"),
            // Only ASCII letters are pattern letters; everything else is copied.
            ("é€ä -:./,0", "é€ä -:./,0"),
            ("HH:mm:ss é", "12:08:56 é"),
        ];
        for (pattern, expected) in cases {
            assert_eq!(fmt(pattern, t), expected, "{pattern:?}");
        }
    }

    #[test]
    fn format_appends() {
        let compiled = JavaDateFormat::compile("yyyy").unwrap();
        let mut out = String::from("at ");
        compiled.format(datetime!(2001-07-04 12:00 UTC), &mut out);
        compiled.format(datetime!(2002-07-04 12:00 UTC), &mut out);
        assert_eq!(out, "at 20012002");
    }

    #[test]
    fn errors() {
        let cases = [
            ("b", "Illegal pattern character 'b' at index 0"),
            ("yyyy-MM-dd q", "Illegal pattern character 'q' at index 11"),
            ("a'b'c", "Illegal pattern character 'c' at index 4"),
            ("'", "Unterminated quote"),
            ("'abc", "Unterminated quote"),
            ("yyyy'", "Unterminated quote"),
            ("'''", "Unterminated quote"),
            ("'a''", "Unterminated quote"),
            ("XXXX", "invalid ISO 8601 format: length=4"),
            ("HH:mm XXXXX", "invalid ISO 8601 format: length=5"),
        ];
        for (pattern, expected) in cases {
            let err = JavaDateFormat::compile(pattern).expect_err(pattern).to_string();
            assert!(err.contains(expected), "{pattern:?}: {err}");
        }
        // Letters inside quotes are text, and an illegal letter is caught after a valid run too.
        assert!(JavaDateFormat::compile("'bcq'").is_ok());
        assert!(JavaDateFormat::compile("yyyyj").is_err());
    }

    #[test]
    fn parsed_numbers_too_large_for_their_field_do_not_panic() {
        // 4295 ms and more overflowed the nanoseconds (a panic in a debug build).
        for (pattern, text) in [("S", "5000"), ("S", "9999999999"), ("ss.SSSSSSSSSSSS", "01.999999999999")] {
            let _ = JavaDateFormat::compile(pattern).unwrap().parse(text);
        }
        assert!(JavaDateFormat::compile("S").unwrap().parse("5000").is_none());
        assert!(JavaDateFormat::compile("S").unwrap().parse("999").is_some());
    }
}
