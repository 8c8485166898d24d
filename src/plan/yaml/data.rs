//! `data:` — CSV files whose rows feed variables, one row per iteration.

use super::node::Node;
use super::*;
use crate::plan::csv_data::CsvOptions;

const DATA_KEYS: &[&str] = &["file", "names", "delimiter", "quoted", "skip_first_line", "share", "on_eof"];

impl Cx {
    /// Reads a data file; returns its index for [`Step::Feed`].
    pub(super) fn data(&mut self, n: &Node, el: &str) -> Result<usize, Error> {
        let d = self.fields(n, el, "DataDoc", DATA_KEYS)?;
        let file = self.required(&d, "file", el)?;
        let names = d.get("names").map(|v| self.strings(v, &format!("{el}.names"))).transpose()?;
        let path = self.path(file, &format!("{el}.file"))?;
        let mut opts = CsvOptions::default();
        if let Some(v) = d.get("delimiter") {
            // `\t` written in the plan means a tab, as in JMeter's dialog.
            let del = format!("{el}.delimiter");
            opts.delimiter = self.text(v, &del)?.replace("\\t", "\t");
            if opts.delimiter.is_empty() {
                return Err(self.invalid(v, &del, "the delimiter is empty"));
            }
        }
        opts.quoted = self.opt_bool(d.get("quoted"), &format!("{el}.quoted"), opts.quoted)?;
        opts.skip_first_line = self.opt_bool(d.get("skip_first_line"), &format!("{el}.skip_first_line"), false)?;
        opts.names = names;
        let data = self.b.open_data(&path, &opts).map_err(|e| {
            let mut loc = Location::file(&path).element(format!("{el} of {}", self.file.display()));
            loc.line = e.line;
            Error::new(ErrorKind::Data, loc, e.message)
        })?;
        let share = match d.get("share") {
            None => Share::All,
            Some(v) => {
                self.parse(v, &format!("{el}.share"), "a sharing mode (all, scenario or user)", |s| match s {
                    "all" => Some(Share::All),
                    "scenario" => Some(Share::Scenario),
                    "user" => Some(Share::User),
                    _ => None,
                })?
            }
        };
        let on_eof = match d.get("on_eof") {
            None => OnEof::Recycle,
            Some(v) => self.parse(v, &format!("{el}.on_eof"), "recycle, stop_user, stop_run or eof", |s| match s {
                "recycle" => Some(OnEof::Recycle),
                "stop_user" => Some(OnEof::StopUser),
                "stop_run" => Some(OnEof::StopRun),
                "eof" => Some(OnEof::MarkEof),
                _ => None,
            })?,
        };
        Ok(self.b.data(data, share, on_eof))
    }
}
