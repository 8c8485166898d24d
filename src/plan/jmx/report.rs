//! The report of a JMX plan's elements that `stampede check` prints: what became of each
//! element (supported, partial, ignored, unsupported) and why.

use super::*;

/// What became of one element of the plan.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ElementReport {
    pub line: usize,
    /// The element's byte offset in the plan (`El::at`): its identity and order.
    #[serde(skip)]
    pub at: usize,
    pub depth: usize,
    pub class: String,
    pub name: String,
    pub status: Status,
    /// Why it is ignored or unsupported, or how it maps.
    pub note: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    Supported,
    /// Read, but with a difference from JMeter the note names.
    Partial,
    /// Loads as JMeter loads it, and goes wrong at run time as it does in JMeter (each sample
    /// fails, a default is read, a controller is skipped); the note says what will happen.
    /// `--strict` refuses the plan instead.
    Warning,
    /// Has no effect on the load (a GUI listener, a comment).
    Ignored,
    Disabled,
    /// Cannot run; the plan is refused unless unsupported elements are skipped.
    Unsupported,
    /// Unsupported and skipped on request.
    Skipped,
    /// Cannot be read as it is (a value JMeter refuses too); the note says why, and the plan
    /// is refused with the others.
    Error,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Supported => "supported",
            Status::Partial => "partial",
            Status::Warning => "WARNING",
            Status::Ignored => "ignored",
            Status::Disabled => "disabled",
            Status::Unsupported => "UNSUPPORTED",
            Status::Skipped => "skipped",
            Status::Error => "ERROR",
        }
    }
}

impl Cx {
    /// Records what became of an element.
    pub(super) fn report(&mut self, el: &El, depth: usize, status: Status, note: impl Into<String>) {
        self.report.push(ElementReport {
            line: el.line,
            at: el.at,
            depth,
            class: el.class.clone(),
            name: el.name.clone(),
            status,
            note: note.into(),
        });
    }

    /// Records an element that cannot be read as it is: its report says why (replacing what
    /// it said of itself before the error), and the error is kept for the end of the walk,
    /// unless the element sits under one skipped on request (it does not run).
    pub(super) fn failed(&mut self, el: &El, depth: usize, e: Error) {
        let note = e.message.clone();
        match self.report.iter_mut().rev().find(|r| r.at == el.at) {
            Some(r) => {
                r.status = Status::Error;
                r.note = note;
            }
            None => self.report(el, depth, Status::Error, note),
        }
        if !(self.skip && self.inert > 0) {
            self.errors.push(e);
        }
    }

    /// Records a file the plan reads that cannot be read now (`check` with files elsewhere):
    /// the element is partial, and a run needs the file.
    pub(super) fn cannot_read_now(&mut self, el: &El, depth: usize, e: Error) {
        let why = if e.location.file.as_ref() == Some(&self.file) { e.message.clone() } else { e.to_string() };
        self.report(el, depth, Status::Partial, format!("cannot be read now: {why}"));
        if self.inert == 0 {
            self.needs.push(e);
        }
    }

    /// Records an element that loads, as in JMeter, and will go wrong at run time as it does
    /// in JMeter: `what` says what will happen ("each sample fails: ..."). `--strict` refuses
    /// the plan with it.
    pub(super) fn warn(&mut self, el: &El, depth: usize, what: impl Into<String>) {
        let what = what.into();
        if self.strict && self.inert == 0 {
            self.errors.push(Error::invalid(self.loc(el), format!("{what} (refused by --strict)")));
        }
        self.report(el, depth, Status::Warning, what);
    }

    /// Records an element that cannot run: skipped on request, else the plan is refused.
    pub(super) fn unsupported(&mut self, el: &El, depth: usize, why: &str) {
        let status = if self.skip { Status::Skipped } else { Status::Unsupported };
        self.report(el, depth, status, why);
        if !self.skip {
            self.unsupported.push((el.line, describe(el), format!("not supported: {why}")));
        }
    }
}
