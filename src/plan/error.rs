//! Plan errors: what went wrong and where (file, line, element), so a user can fix a plan
//! without guessing.

use std::fmt;
use std::path::PathBuf;

/// Where in a plan an error was found. Every part is optional because some errors have no
/// line (a missing file) and some have no file (a quick-mode `--url`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Location {
    /// The plan file (or the file it names) the error is in.
    pub file: Option<PathBuf>,
    /// The line, from 1.
    pub line: Option<usize>,
    /// The column, from 1.
    pub column: Option<usize>,
    /// A path to the element, e.g. `scenarios[0].flow[2].request`.
    pub element: Option<String>,
}

impl Location {
    /// The whole of a file: no line, no element.
    pub fn file(file: impl Into<PathBuf>) -> Self {
        Location { file: Some(file.into()), ..Default::default() }
    }

    /// A place in a file: line and column from 1.
    pub fn at(file: impl Into<PathBuf>, line: usize, column: usize) -> Self {
        Location { file: Some(file.into()), line: Some(line), column: Some(column), element: None }
    }

    /// The same place, narrowed to an element.
    pub fn element(mut self, element: impl Into<String>) -> Self {
        self.element = Some(element.into());
        self
    }
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut wrote = false;
        if let Some(file) = &self.file {
            write!(f, "{}", file.display())?;
            wrote = true;
        }
        if let Some(line) = self.line {
            write!(f, ":{line}")?;
            if let Some(col) = self.column {
                write!(f, ":{col}")?;
            }
            wrote = true;
        }
        if let Some(el) = &self.element {
            if wrote {
                write!(f, ": ")?;
            }
            write!(f, "{el}")?;
        }
        Ok(())
    }
}

/// What kind of problem a plan has; callers branch on this (exit codes, tests).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The file could not be read (missing plan, body file).
    Io,
    /// The file is not valid YAML (or XML), or a key is given twice.
    Syntax,
    /// A key (field) the format does not have.
    UnknownField,
    /// A value of the wrong shape: a list where text belongs, text where a map belongs.
    WrongType,
    /// A value that is out of range or does not parse (a duration, a URL, a status).
    Invalid,
    /// A field the element needs is not given.
    Missing,
    /// A name that refers to nothing: a threshold for a label no request or group has.
    UnknownReference,
    /// A `${...}` template that does not resolve.
    Template,
    /// A data file that is missing or malformed.
    Data,
}

/// An error in a plan, with the place it was found.
#[derive(Debug, Clone)]
pub struct Error {
    /// What kind of error it is (what a caller branches on).
    pub kind: ErrorKind,
    /// Where it was found.
    pub location: Location,
    /// What is wrong, in words.
    pub message: String,
}

impl Error {
    /// An error of `kind` at `location`; `message` is a text or a typed error of a part of
    /// the plan (a condition, a URL, a date format), shown as it displays.
    pub fn new(kind: ErrorKind, location: Location, message: impl fmt::Display) -> Self {
        Error { kind, location, message: message.to_string() }
    }

    /// An [`ErrorKind::Invalid`] error: a value the plan cannot have.
    pub fn invalid(location: Location, message: impl fmt::Display) -> Self {
        Error::new(ErrorKind::Invalid, location, message)
    }
}

impl Error {
    /// One error for several problems: the only one as it is, or a list of all, each with its
    /// place (file:line: element: message), under the count.
    pub(crate) fn combine(mut problems: Vec<Error>) -> Error {
        if problems.len() == 1 {
            return problems.remove(0);
        }
        let mut message = format!("{} problems:", problems.len());
        for p in &problems {
            message.push_str("\n  ");
            message.push_str(&p.to_string());
        }
        let kind = problems.first().map_or(ErrorKind::Invalid, |p| p.kind);
        let location = problems.iter().find_map(|p| p.location.file.clone()).map(Location::file).unwrap_or_default();
        Error { kind, location, message }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let loc = self.location.to_string();
        if loc.is_empty() {
            write!(f, "{}", self.message)
        } else {
            write!(f, "{loc}: {}", self.message)
        }
    }
}

impl std::error::Error for Error {}

/// The closest of `candidates` to `word`, if it is close enough to be a plausible typo.
pub(crate) fn closest<'a>(word: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    candidates
        .into_iter()
        .map(|c| (strsim::jaro_winkler(word, c), c))
        .filter(|(score, _)| *score > 0.75)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, c)| c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn location_display() {
        let loc = Location { file: Some("p.yaml".into()), line: Some(3), column: Some(7), element: None };
        assert_eq!(loc.to_string(), "p.yaml:3:7");
        let loc = Location::file("p.yaml").element("scenarios[0].flow[1]");
        assert_eq!(loc.to_string(), "p.yaml: scenarios[0].flow[1]");
    }

    #[test]
    fn closest_suggests_typos_only() {
        let c = ["users", "ramp_up", "duration", "iterations"];
        assert_eq!(closest("usres", c), Some("users"));
        assert_eq!(closest("duraton", c), Some("duration"));
        assert_eq!(closest("zzz", c), None);
    }
}
