//! The Open Model Thread Group's schedule (JMeter 5.5+): `rate(10/sec) random_arrivals(1 min)
//! pause(5 s) ...`, read as JMeter 5.6.3's `Tokenizer` and `ScheduleParser` read it, then paired
//! into arrival steps as its `ThreadScheduleProcessGenerator` pairs them: each arrivals step runs
//! from the last `rate()` before it to the `rate()` right after it (the same rate when none
//! follows). A string JMeter refuses is refused with JMeter's message.

use crate::plan::workload::{ArrivalProcess, ProcessStep};

/// One step as JMeter's parser makes it.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Step {
    /// Arrivals a second.
    Rate(f64),
    /// Arrivals (random or even) over seconds.
    Arrivals { random: bool, secs: f64 },
}

#[derive(Debug, Clone, PartialEq)]
enum Token {
    Ident(String),
    Number(String),
    Open,
    Close,
    Divide,
}

impl std::fmt::Display for Token {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Token::Ident(s) => write!(f, "Identifier({s})"),
            Token::Number(s) => write!(f, "Number({s})"),
            Token::Open => f.write_str("("),
            Token::Close => f.write_str(")"),
            Token::Divide => f.write_str("/"),
        }
    }
}

/// JMeter's message: what, where (a character offset) and the text from there.
fn problem(input: &str, pos: usize, message: &str) -> String {
    let tail: String = input.chars().skip(pos).take(20).collect();
    format!("{message} at position {pos}: '{tail}' in '{input}'")
}

/// Whitespace and comments (`/* ... */`, `// ...` to the end of the line) at `i`: where they end.
fn skip_blank(c: &[char], i: usize) -> Option<usize> {
    // Java's `\s`: ASCII whitespace only.
    let blank = |ch: char| matches!(ch, ' ' | '\t' | '\n' | '\u{b}' | '\u{c}' | '\r');
    if blank(c[i]) {
        let mut j = i;
        while j < c.len() && blank(c[j]) {
            j += 1;
        }
        return Some(j);
    }
    if c[i] == '/' && c.get(i + 1) == Some(&'*') {
        // Java's `.` stops at a line end: a comment spanning lines is no comment.
        let mut j = i + 2;
        while j + 1 < c.len() && !(c[j] == '*' && c[j + 1] == '/') {
            if matches!(c[j], '\n' | '\r' | '\u{85}' | '\u{2028}' | '\u{2029}') {
                return None;
            }
            j += 1;
        }
        return (j + 1 < c.len()).then_some(j + 2);
    }
    if c[i] == '/' && c.get(i + 1) == Some(&'/') {
        let mut j = i + 2;
        while j < c.len() && !matches!(c[j], '\n' | '\r') {
            j += 1;
        }
        while j < c.len() && matches!(c[j], '\n' | '\r') {
            j += 1;
        }
        return Some(j);
    }
    None
}

fn tokenize(input: &str) -> Result<Vec<(usize, Token)>, String> {
    let c: Vec<char> = input.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < c.len() {
        if let Some(j) = skip_blank(&c, i) {
            i = j;
            continue;
        }
        let start = i;
        let token = match c[i] {
            '(' => Token::Open,
            ')' => Token::Close,
            '/' => Token::Divide,
            ch if ch.is_ascii_digit() || (ch == '.' && c.get(i + 1).is_some_and(char::is_ascii_digit)) => {
                let digits = |mut j: usize| {
                    while j < c.len() && c[j].is_ascii_digit() {
                        j += 1;
                    }
                    j
                };
                let mut j = digits(i);
                if j < c.len() && c[j] == '.' && c.get(j + 1).is_some_and(char::is_ascii_digit) {
                    j = digits(j + 1);
                }
                Token::Number(c[start..j].iter().collect())
            }
            ch if ch.is_ascii_alphabetic() => {
                let mut j = i + 1;
                while j < c.len() && (c[j].is_ascii_alphanumeric() || c[j] == '_') {
                    j += 1;
                }
                Token::Ident(c[start..j].iter().collect())
            }
            _ => return Err(problem(input, i, "Unexpected input")),
        };
        i += match &token {
            Token::Ident(s) | Token::Number(s) => s.len(),
            _ => 1,
        };
        out.push((start, token));
    }
    Ok(out)
}

struct Parser<'a> {
    input: &'a str,
    tokens: Vec<(usize, Token)>,
    pos: usize,
    last_rate: f64,
}

impl Parser<'_> {
    fn token(&self) -> Option<&Token> {
        self.tokens.get(self.pos).map(|t| &t.1)
    }

    fn fail(&self, message: &str) -> String {
        problem(self.input, self.tokens.get(self.pos).map_or(0, |t| t.0), message)
    }

    fn got(&self) -> String {
        self.token().map_or("null".into(), Token::to_string)
    }

    fn is_word(&self, word: &str) -> bool {
        matches!(self.token(), Some(Token::Ident(s)) if s.eq_ignore_ascii_case(word))
    }

    fn expect(&mut self, ok: bool, expected: &str) -> Result<(), String> {
        if !ok {
            return Err(self.fail(&format!("Unexpected input. Expected {expected} got {}", self.got())));
        }
        self.pos += 1;
        Ok(())
    }

    fn number(&mut self, what: &str) -> Result<f64, String> {
        match self.token() {
            Some(Token::Number(n)) => {
                let v = n.parse().unwrap_or(0.0);
                self.pos += 1;
                Ok(v)
            }
            _ => self.wrong(what),
        }
    }

    /// JMeter's typed `consume` steps past the token before it reports it, so its message
    /// names the token after the one that is wrong (`null` at position 0 past the end).
    fn wrong<T>(&mut self, expected: &str) -> Result<T, String> {
        self.pos += 1;
        Err(self.fail(&format!("Unexpected input. Expected {expected} got {}", self.got())))
    }

    /// Seconds in the unit JMeter reads: `ms`, `s`/`sec...`, `m`/`min...`, `h`/`hour...`,
    /// `d`/`day...` (any case).
    fn unit(&mut self) -> Result<f64, String> {
        let Some(Token::Ident(word)) = self.token().cloned() else {
            return self.wrong("unit for duration: sec, min, hour, day");
        };
        let w = word.to_ascii_lowercase();
        let secs = if w == "ms" {
            0.001
        } else if w == "s" || w.starts_with("sec") {
            1.0
        } else if w == "m" || w.starts_with("min") {
            60.0
        } else if w == "h" || w.starts_with("hour") {
            3600.0
        } else if w == "d" || w.starts_with("day") {
            86400.0
        } else {
            // JMeter reports the position after the unit it consumed.
            self.pos += 1;
            return Err(self.fail(&format!("Unexpected time unit {word}")));
        };
        self.pos += 1;
        Ok(secs)
    }

    /// `1 min 30 s`: each number with its unit, summed; a lone `0` needs none.
    fn duration(&mut self) -> Result<f64, String> {
        let mut total = 0.0;
        loop {
            let v = self.number("float number for duration")?;
            if v == 0.0 && self.token() == Some(&Token::Close) {
                break;
            }
            total += v * self.unit()?;
            if !matches!(self.token(), Some(Token::Number(_))) {
                break;
            }
        }
        Ok(total)
    }

    fn call_duration(&mut self) -> Result<f64, String> {
        self.pos += 1;
        let open = self.token() == Some(&Token::Open);
        self.expect(open, "(")?;
        let d = self.duration()?;
        let close = self.token() == Some(&Token::Close);
        self.expect(close, ")")?;
        Ok(d)
    }

    fn parse(mut self) -> Result<Vec<Step>, String> {
        let mut steps = Vec::new();
        while self.pos < self.tokens.len() {
            if self.is_word("pause") {
                let secs = self.call_duration()?;
                let arrivals = Step::Arrivals { random: false, secs };
                if self.last_rate == 0.0 {
                    steps.extend([arrivals, Step::Rate(self.last_rate)]);
                } else {
                    let last = Step::Rate(self.last_rate);
                    steps.extend([last, Step::Rate(0.0), arrivals, Step::Rate(0.0), last]);
                }
            } else if self.is_word("rate") {
                self.pos += 1;
                let open = self.token() == Some(&Token::Open);
                self.expect(open, "(")?;
                let rate = self.number("float number for rate")?;
                // `rate(0)` needs no unit: 0 is 0 in any.
                let per = if rate == 0.0 && self.token() == Some(&Token::Close) {
                    1.0
                } else {
                    let divide = self.token() == Some(&Token::Divide) || self.is_word("per");
                    self.expect(divide, "/, Identifier(per)")?;
                    self.unit()?
                };
                let close = self.token() == Some(&Token::Close);
                self.expect(close, ")")?;
                self.last_rate = rate / per;
                steps.push(Step::Rate(rate / per));
            } else if self.is_word("random_arrivals") || self.is_word("even_arrivals") {
                let random = self.is_word("random_arrivals");
                let secs = self.call_duration()?;
                steps.push(Step::Arrivals { random, secs });
            } else {
                return Err(self.fail("Unexpected input (expecting rate, random_arrivals, even_arrivals, or pause)"));
            }
        }
        Ok(steps)
    }
}

fn parse_steps(schedule: &str) -> Result<Vec<Step>, String> {
    // An integer alone is JMeter's undocumented "validation mode": that many arrivals evenly
    // over 1 s, then an hour at rate 0 for them to finish.
    if let Some(n) = java_int(schedule) {
        let rate = f64::from(n);
        return Ok(vec![
            Step::Rate(rate),
            Step::Arrivals { random: false, secs: 1.0 },
            Step::Rate(rate),
            Step::Rate(0.0),
            Step::Arrivals { random: false, secs: 3600.0 },
        ]);
    }
    let tokens = tokenize(schedule)?;
    Parser { input: schedule, tokens, pos: 0, last_rate: 0.0 }.parse()
}

/// Kotlin's `String.toIntOrNull`: an optional sign and decimal digits, within an `Int`.
fn java_int(s: &str) -> Option<i32> {
    let digits = s.strip_prefix(['+', '-']).unwrap_or(s);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

/// The schedule as arrival steps, each with the rates it moves between (JMeter's
/// `ThreadScheduleProcessGenerator`: the rate before an arrivals step is the last `rate()`
/// seen, 0 at first; it ends at the `rate()` right after it, else where it began).
pub(super) fn parse(schedule: &str, seed: i64) -> Result<ArrivalProcess, String> {
    let steps = parse_steps(schedule)?;
    let mut out = Vec::new();
    let mut begin = 0.0;
    for (i, s) in steps.iter().enumerate() {
        match *s {
            Step::Rate(r) => begin = r,
            Step::Arrivals { random, secs } => {
                let end = match steps.get(i + 1) {
                    Some(Step::Rate(r)) => *r,
                    _ => begin,
                };
                out.push(ProcessStep { random, from: begin, to: end, secs });
            }
        }
    }
    Ok(ArrivalProcess { steps: out, seed })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn steps(s: &str) -> Vec<(bool, f64, f64, f64)> {
        parse(s, 0).unwrap().steps.iter().map(|p| (p.random, p.from, p.to, p.secs)).collect()
    }

    fn error(s: &str) -> String {
        parse(s, 0).unwrap_err()
    }

    #[test]
    fn every_rate_and_duration_unit_reads_as_jmeter() {
        assert_eq!(steps("rate(10/sec) random_arrivals(1 min)"), [(true, 10.0, 10.0, 60.0)]);
        assert_eq!(steps("RATE(120/min) Even_Arrivals(2 s)"), [(false, 2.0, 2.0, 2.0)]);
        assert_eq!(steps("rate(3600 per hour) even_arrivals(1 h)"), [(false, 1.0, 1.0, 3600.0)]);
        assert_eq!(steps("rate(86400/d) even_arrivals(1 day)"), [(false, 1.0, 1.0, 86400.0)]);
        assert_eq!(steps("rate(1/ms) even_arrivals(500 ms)"), [(false, 1000.0, 1000.0, 0.5)]);
        assert_eq!(steps("rate(.5/m) even_arrivals(1 minutes 30s)"), [(false, 0.5 / 60.0, 0.5 / 60.0, 90.0)]);
        assert_eq!(steps("rate(1.5/s) even_arrivals(0)"), [(false, 1.5, 1.5, 0.0)]);
        assert_eq!(steps("rate(0) even_arrivals(2 hours)"), [(false, 0.0, 0.0, 7200.0)]);
    }

    #[test]
    fn an_arrivals_step_ramps_to_the_rate_right_after_it() {
        // A rate after the arrivals ends their ramp; two arrivals in a row: the first is flat.
        assert_eq!(steps("rate(0) random_arrivals(10 s) rate(50/s)"), [(true, 0.0, 50.0, 10.0)]);
        assert_eq!(
            steps("rate(2/s) even_arrivals(1 min) even_arrivals(2 min) rate(3/s)"),
            [(false, 2.0, 2.0, 60.0), (false, 2.0, 3.0, 120.0)]
        );
        // Of two rates in a row, the last starts the next arrivals.
        assert_eq!(
            steps("rate(1/s) rate(2/s) even_arrivals(1 s) rate(3/s) rate(4/s) even_arrivals(2 s) rate(5/s)"),
            [(false, 2.0, 3.0, 1.0), (false, 4.0, 5.0, 2.0)]
        );
        // Arrivals before any rate run at 0.
        assert_eq!(steps("random_arrivals(5 s)"), [(true, 0.0, 0.0, 5.0)]);
        assert_eq!(steps(""), []);
    }

    #[test]
    fn a_pause_holds_rate_zero_then_resumes_the_last_rate() {
        assert_eq!(
            steps("rate(10/s) random_arrivals(1 s) pause(2 s) random_arrivals(1 s)"),
            [(true, 10.0, 10.0, 1.0), (false, 0.0, 0.0, 2.0), (true, 10.0, 10.0, 1.0)]
        );
        assert_eq!(steps("pause(1 s) rate(5/s) even_arrivals(1 s)"), [(false, 0.0, 0.0, 1.0), (false, 5.0, 5.0, 1.0)]);
    }

    #[test]
    fn comments_and_line_breaks_are_blank() {
        assert_eq!(
            steps("/* warm */ rate(1/s) // a comment\n even_arrivals(/* x */ 2 s)\r\n// end"),
            [(false, 1.0, 1.0, 2.0)]
        );
    }

    #[test]
    fn an_integer_alone_is_jmeters_validation_mode() {
        assert_eq!(steps("7"), [(false, 7.0, 7.0, 1.0), (false, 0.0, 0.0, 3600.0)]);
        assert_eq!(steps("+3"), [(false, 3.0, 3.0, 1.0), (false, 0.0, 0.0, 3600.0)]);
    }

    /// Each message as JMeter 5.6.3's `ThreadSchedule(String)` throws it for the same string.
    #[test]
    fn each_bad_schedule_is_refused_with_jmeters_message() {
        let cases = [
            ("rate(20/sec) random_arrivals(3 parsecs)", "Unexpected time unit parsecs at position 38: ')' in 'rate(20/sec) random_arrivals(3 parsecs)'"),
            ("rate(-1/s)", "Unexpected input at position 5: '-1/s)' in 'rate(-1/s)'"),
            ("rate(5)", "Unexpected input. Expected /, Identifier(per) got ) at position 6: ')' in 'rate(5)'"),
            ("rate 5/s", "Unexpected input. Expected ( got Number(5) at position 5: '5/s' in 'rate 5/s'"),
            ("rate(/s)", "Unexpected input. Expected float number for rate got Identifier(s) at position 6: 's)' in 'rate(/s)'"),
            ("rate(5/s", "Unexpected input. Expected ) got null at position 0: 'rate(5/s' in 'rate(5/s'"),
            ("even_arrivals(5)", "Unexpected input. Expected unit for duration: sec, min, hour, day got null at position 0: 'even_arrivals(5)' in 'even_arrivals(5)'"),
            ("even_arrivals(s)", "Unexpected input. Expected float number for duration got ) at position 15: ')' in 'even_arrivals(s)'"),
            ("ramp(5 s)", "Unexpected input (expecting rate, random_arrivals, even_arrivals, or pause) at position 0: 'ramp(5 s)' in 'ramp(5 s)'"),
            ("rate(1/s) ${rate}", "Unexpected input at position 10: '${rate}' in 'rate(1/s) ${rate}'"),
            ("/* open comment", "Unexpected input at position 1: '* open comment' in '/* open comment'"),
            ("/* two\nlines */", "Unexpected input at position 1: '* two\nlines */' in '/* two\nlines */'"),
            (" 7", "Unexpected input (expecting rate, random_arrivals, even_arrivals, or pause) at position 1: '7' in ' 7'"),
        ];
        for (schedule, jmeter) in cases {
            assert_eq!(error(schedule), jmeter, "{schedule:?}");
        }
    }
}
