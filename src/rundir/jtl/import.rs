//! Reading a JMeter results file (JTL in CSV form, with or without its header line) into the
//! same [`Summary`] a run directory holds, and run facts made from what the file says. Rows are streamed into per-label stats: memory
//! depends on the number of labels, never on the number of rows.

use super::read::{Block, Columns, Reader, Row, BLOCK};
use crate::plan::LabelId;
use crate::record::{ErrorKind, LabelStats, Sample, Tally, LABEL_CAP, OVERFLOW_LABEL};
use crate::rundir::{Error, LabelSummary, RunMeta, ScenarioMeta, Summary};
use std::collections::HashMap;
use std::io::BufRead;
use std::path::Path;

/// JMeter 5's default CSV columns, in the order it writes them when there is no header.
const DEFAULT_COLUMNS: [&str; 17] = [
    "timeStamp",
    "elapsed",
    "label",
    "responseCode",
    "responseMessage",
    "threadName",
    "dataType",
    "success",
    "failureMessage",
    "bytes",
    "sentBytes",
    "grpThreads",
    "allThreads",
    "URL",
    "Latency",
    "IdleTime",
    "Connect",
];

/// The smallest block read when several files share the memory of one.
const MIN_BLOCK: usize = 256 << 10;

/// Distinct failure messages kept apart; the rest are counted together.
const MAX_MESSAGES: usize = 1000;

/// A results file read back: its summary, and run facts made from what the file says.
#[derive(Debug)]
pub(crate) struct Imported {
    pub meta: RunMeta,
    pub summary: Summary,
    /// The Total row's stats (histograms included), for charts of the distribution.
    pub total: LabelStats,
}

/// One results file being read: its reader, the block it is in, and its labels' ids.
struct Source<'a> {
    path: &'a Path,
    reader: Reader,
    block: Option<Block>,
    at: usize,
    lines_before: u64,
    /// The reader's label ids → the import's.
    label_of: Vec<Option<u32>>,
}

impl<'a> Source<'a> {
    /// Opens `path`, read in blocks of `block` bytes.
    fn open(path: &'a Path, block: usize) -> Result<Source<'a>, Error> {
        let io = |source| Error::Io { path: path.to_path_buf(), source };
        // The first line says whether there is a header, and so where each value is.
        let mut first = Vec::new();
        std::io::BufReader::new(std::fs::File::open(path).map_err(io)?).read_until(b'\n', &mut first).map_err(io)?;
        let first = String::from_utf8_lossy(&first);
        let header: Vec<&str> =
            first.trim_start_matches('\u{feff}').trim_end_matches(['\n', '\r']).split(',').collect();
        let has_header = header.first().map(|f| f.trim()) == Some("timeStamp");
        let cols = if has_header {
            Columns::from_names(&header).map_err(|m| format_error(path, 1, m.to_string()))?
        } else {
            Columns::from_names(&DEFAULT_COLUMNS).expect("the default columns are complete")
        };
        let reader = Reader::start_with(std::fs::File::open(path).map_err(io)?, cols, has_header, block);
        Ok(Source { path, reader, block: None, at: 0, lines_before: 0, label_of: Vec::new() })
    }

    /// The next row, without taking it; `None` at the end of the file. The error names the
    /// file and line of the first row it cannot read.
    fn peek(&mut self) -> Result<Option<&Row>, Error> {
        loop {
            if let Some(b) = &self.block {
                if self.at < b.rows.len() {
                    break;
                }
                if let Some((line, message)) = &b.error {
                    return Err(format_error(self.path, self.lines_before + line, message.to_string()));
                }
                let b = self.block.take().expect("a block");
                self.lines_before += b.lines;
                self.reader.recycle(b);
            }
            match self.reader.next_block() {
                Some(b) => (self.block, self.at) = (Some(b), 0),
                None => return Ok(None),
            }
        }
        Ok(self.block.as_ref().map(|b| &b.rows[self.at]))
    }
}

fn format_error(path: &Path, line: u64, message: String) -> Error {
    Error::Format { path: path.to_path_buf(), line: line as usize, message }
}

/// Reads `path`. The error names the file and line of the first row it cannot read.
#[cfg(test)]
pub(crate) fn import(path: &Path) -> Result<Imported, Error> {
    import_all(&[path])
}

/// Reads several results files as one (files written at the same time by several load
/// generators, say): their rows are taken in order of end time across the files, so the
/// figures are those of one file holding every row.
#[cfg(test)]
pub(crate) fn import_all(paths: &[&Path]) -> Result<Imported, Error> {
    import_all_with(paths, |_, _| {})
}

/// [`import_all`], handing each row to `visit` as it is read, in order of end time give or take
/// a few milliseconds, with the threads active when it was taken (what charts are made of).
pub(crate) fn import_all_with(paths: &[&Path], mut visit: impl FnMut(&Sample, u64)) -> Result<Imported, Error> {
    // The files share one file's memory for blocks: memory stays flat however many there are.
    let block = (BLOCK / paths.len().max(1)).max(MIN_BLOCK);
    let mut sources = paths.iter().map(|p| Source::open(p, block)).collect::<Result<Vec<_>, _>>()?;
    // Labels are numbered in the order the rows show them, whichever parser met them first.
    let mut labels: Vec<String> = Vec::new();
    let mut label_ids: HashMap<String, u32> = HashMap::new();
    let mut messages: Vec<String> = Vec::new();
    let mut message_ids: HashMap<String, u16> = HashMap::new();
    let mut peak_threads = vec![0u64; sources.len()];
    let mut tally = Tally::new(0, 0);
    // Times are kept as µs after `base`, a day before the first row: rows are written when
    // samples end, so a later row may have started earlier.
    let mut base_ms: Option<u64> = None;
    let (mut first_ms, mut last_end_ms) = (u64::MAX, 0u64);
    loop {
        // The file whose next row ends first (with one file: that file, row by row).
        let mut next: Option<(usize, u64)> = None;
        for (i, src) in sources.iter_mut().enumerate() {
            if let Some(r) = src.peek()? {
                let end = r.timestamp_ms + r.elapsed_ms;
                if next.is_none_or(|(_, e)| end < e) {
                    next = Some((i, end));
                }
            }
        }
        let Some((i, _)) = next else { break };
        let src = &mut sources[i];
        let Some(block) = &src.block else { break };
        let r = &block.rows[src.at];
        src.at += 1;
        let parsed = r.label as usize;
        if src.label_of.len() <= parsed {
            src.label_of.resize(parsed + 1, None);
        }
        let label = match src.label_of[parsed] {
            Some(id) => id,
            None => {
                let name = String::from_utf8_lossy(&src.reader.label_name(r.label)).into_owned();
                let id = match label_ids.get(&name) {
                    Some(id) => *id,
                    // Past the label cap (in file order), labels share the overflow row.
                    None if labels.len() >= LABEL_CAP => {
                        if labels.len() == LABEL_CAP {
                            labels.push(OVERFLOW_LABEL.to_string());
                        }
                        // Not remembered: past the cap a name costs nothing here (the file's own
                        // id maps it, below).
                        LABEL_CAP as u32
                    }
                    None => {
                        let id = labels.len() as u32;
                        label_ids.insert(name.clone(), id);
                        labels.push(name);
                        id
                    }
                };
                src.label_of[parsed] = Some(id);
                id
            }
        };
        let base = *base_ms.get_or_insert(r.timestamp_ms.saturating_sub(86_400_000));
        first_ms = first_ms.min(r.timestamp_ms);
        last_end_ms = last_end_ms.max(r.timestamp_ms + r.elapsed_ms);
        let error = r.failure.as_ref().map(|f| match f.code.parse::<u16>() {
            Ok(status) if status >= 400 || !crate::record::error_kind::valid_status(status) => {
                ErrorKind::Status(status)
            }
            _ => {
                let text = if !f.failure_message.is_empty() {
                    f.failure_message.as_str()
                } else if !f.response_message.is_empty() {
                    f.response_message.as_str()
                } else {
                    ""
                };
                // A message may quote what a check looked for (a token, say): it is kept, and
                // told apart, as redacted, so messages that differ only by a secret are one.
                let text = if text.is_empty() {
                    format!("response code {}", f.code)
                } else {
                    crate::redact::text(text).into_owned()
                };
                match message_ids.get(&text) {
                    Some(id) => ErrorKind::Check(*id),
                    None if messages.len() < MAX_MESSAGES => {
                        let id = messages.len() as u16;
                        messages.push(text.clone());
                        message_ids.insert(text, id);
                        ErrorKind::Check(id)
                    }
                    None => ErrorKind::Io,
                }
            }
        });
        let start_us = (r.timestamp_ms - base.min(r.timestamp_ms)) * 1000;
        peak_threads[i] = peak_threads[i].max(r.threads);
        let sample = Sample {
            label: LabelId(label),
            start_us,
            end_us: start_us + r.elapsed_ms * 1000,
            ttfb_us: r.latency_ms * 1000,
            connect_us: r.connect_ms * 1000,
            bytes_sent: r.sent,
            bytes_received: r.bytes,
            // JMeter writes a connect time only for a sample that opened a connection.
            new_connection: r.connect_ms > 0,
            error,
            in_total: r.in_total,
            upstream_us: None,
        };
        tally.record(&sample);
        visit(&sample, r.threads);
    }
    let first_path = paths.first().copied().unwrap_or(Path::new(""));
    if labels.is_empty() {
        return Err(format_error(first_path, 1, "no samples: an empty file, or not a JMeter CSV results file".into()));
    }
    // Files written side by side ran their threads at the same time.
    let peak_threads: u64 = peak_threads.iter().sum();
    let scenarios = vec![ScenarioMeta {
        name: "JTL".into(),
        model: crate::rundir::Model::Imported,
        workload: if peak_threads > 0 {
            let whose = if paths.len() > 1 { "the files' allThreads, added" } else { "the file's allThreads" };
            format!("up to {peak_threads} threads active ({whose})")
        } else {
            "threads not recorded in the file".into()
        },
    }];
    let mut summary = Summary::from_tally(&tally, &labels, &messages, &[], true);
    summary.total.dropped_iterations = None;
    whole_ms_percentiles(&mut summary.total, &tally.total);
    // The summary's rows are the tally's labels that have samples, in order.
    for (row, stats) in summary.labels.iter_mut().zip(tally.labels().map(|(_, s)| s).filter(|s| s.samples > 0)) {
        whole_ms_percentiles(row, stats);
    }
    let duration_s = (last_end_ms.saturating_sub(first_ms)) as f64 / 1000.0;
    // The files' names only: reports of the same files read the same wherever they lie.
    let names: Vec<String> =
        paths.iter().map(|p| p.file_name().map_or_else(String::new, |n| n.to_string_lossy().into_owned())).collect();
    let meta = RunMeta {
        tool: "JMeter results file".into(),
        version: String::new(),
        command_line: Vec::new(),
        plan_path: None,
        plan_name: names.join(" + "),
        host: String::new(),
        started_at: rfc3339_ms(first_ms),
        ended_at: Some(rfc3339_ms(last_end_ms)),
        duration_s: Some(duration_s),
        status: crate::rundir::Status::Completed,
        interval_s: 0.0,
        scenarios,
        labels,
        checks: messages,
        generator: None,
        thresholds: Vec::new(),
        stopped_by: None,
        part: None,
        parts: Vec::new(),
        log: None,
        watch: Vec::new(),
    };
    Ok(Imported { meta, summary, total: tally.total })
}

/// A results file holds whole milliseconds, so its percentiles are whole milliseconds too (as
/// JMeter's own reports show them), not a histogram bucket's edge such as 12.007.
fn whole_ms_percentiles(row: &mut LabelSummary, s: &LabelStats) {
    let at = |q| s.quantile_us_at(q, 1000) as f64 / 1000.0;
    row.p50_ms = at(0.50);
    row.p90_ms = at(0.90);
    row.p95_ms = at(0.95);
    row.p99_ms = at(0.99);
    row.p999_ms = at(0.999);
    row.p99_latency_ms =
        s.timing.ttfb_quantile_us_at(0.99, 1000).map(|us| us.min(s.quantile_us_at(0.99, 1000)) as f64 / 1000.0);
    row.p99_connect_ms = s.timing.connect_quantile_us_at(0.99, 1000).map(|us| us as f64 / 1000.0);
}

fn rfc3339_ms(ms: u64) -> String {
    time::OffsetDateTime::from_unix_timestamp_nanos(i128::from(ms) * 1_000_000)
        .ok()
        .and_then(|t| t.format(&time::format_description::well_known::Rfc3339).ok())
        .unwrap_or_default()
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A file in the temp directory, removed when dropped.
    pub(crate) struct TempPath(pub std::path::PathBuf);

    impl Drop for TempPath {
        fn drop(&mut self) {
            let _ = std::fs::remove_file(&self.0);
        }
    }

    /// `text` in a results file of its own in the temp directory.
    pub(crate) fn write(text: &str) -> TempPath {
        static N: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
        let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let p = std::env::temp_dir().join(format!("stampede-jtl-{}-{n}.jtl", std::process::id()));
        std::fs::write(&p, text).unwrap();
        TempPath(p)
    }

    #[test]
    fn header_or_not_gives_the_same_figures() {
        let rows = "1700000000000,10,A,200,OK,t 1-1,text,true,,100,50,1,1,http://h/a,5,0,3\n\
                    1700000000010,30,A,500,Server Error,t 1-1,text,false,,100,50,1,1,http://h/a,20,0,0\n\
                    1700000000020,20,\"B, with comma\",200,OK,t 1-2,text,true,,200,60,2,2,http://h/b,10,0,0\n";
        let header = format!("{}\n", DEFAULT_COLUMNS.join(","));
        let a = import(&write(rows).0).unwrap();
        let b = import(&write(&format!("{header}{rows}")).0).unwrap();
        assert_eq!(a.summary, b.summary);
        let s = &a.summary;
        assert_eq!((s.total.samples, s.total.errors, s.labels.len()), (3, 1, 2));
        assert_eq!(s.labels[1].label, "B, with comma");
        assert_eq!(s.total.mean_ms, 20.0);
        assert_eq!((s.total.min_ms, s.total.max_ms), (10.0, 30.0));
        // 3 samples from the first start to the last end (40 ms).
        assert!((s.total.throughput_rps - 75.0).abs() < 1e-9, "{}", s.total.throughput_rps);
        assert_eq!(s.total.connections_opened, 1);
        assert_eq!(s.total.errors_by_kind.get("http_500"), Some(&1), "{:?}", s.total.errors_by_kind);
    }

    #[test]
    fn failures_without_a_status_are_counted_by_message_and_transactions_stay_out_of_the_total() {
        let rows = "timeStamp,elapsed,label,responseCode,responseMessage,success,failureMessage\n\
                    1700000000000,10,A,200,OK,false,Test failed: text expected to contain /x/\n\
                    1700000000000,10,A,200,OK,false,Test failed: text expected to contain /x/\n\
                    1700000000000,10,A,Non HTTP response code: java.net.ConnectException,refused,false,\n\
                    1700000000000,20,T,200,\"Number of samples in transaction : 3, number of failing samples : 3\",false,\n";
        let s = import(&write(rows).0).unwrap().summary;
        assert_eq!(s.total.samples, 3);
        assert_eq!(s.labels.iter().map(|l| (l.label.as_str(), l.samples)).collect::<Vec<_>>(), [("A", 3), ("T", 1)]);
        let kinds = &s.total.errors_by_kind;
        assert_eq!(kinds.get("check: Test failed: text expected to contain /x/"), Some(&2), "{kinds:?}");
        assert_eq!(kinds.get("check: refused"), Some(&1), "{kinds:?}");
    }

    #[test]
    fn bad_rows_name_their_line() {
        let e = import(&write("timeStamp,elapsed,label,success\n1700000000000,x,A,true\n").0).unwrap_err();
        assert!(e.to_string().contains(":2: elapsed `x`"), "{e}");
        let e = import(&write("2024/01/01 10:00:00,5,A,200,OK,t,text,true\n").0).unwrap_err();
        assert!(e.to_string().contains(":1: timeStamp"), "{e}");
        let e = import(&write("").0).unwrap_err();
        assert!(e.to_string().contains("no samples"), "{e}");
    }

    /// Issue 11: several files read as one give the figures of one file holding all their rows
    /// (whatever the order of the rows), labels and failure messages matched by name.
    #[test]
    fn several_files_read_as_one_are_the_file_of_all_their_rows() {
        let header = format!("{}\n", DEFAULT_COLUMNS.join(","));
        let a = "1700000000000,10,A,200,OK,t 1-1,text,true,,100,50,1,1,http://h/a,5,0,3\n\
                 1700000000500,31,B,200,OK,t 1-1,text,false,no \"ok\",100,50,1,1,http://h/b,5,0,0\n\
                 1700000002000,7,A,503,Busy,t 1-1,text,false,,100,50,1,1,http://h/a,5,0,0\n";
        let b = "1700000000100,12,B,200,OK,t 2-1,text,true,,100,50,2,2,http://h/b,5,0,1\n\
                 1700000000200,44,A,200,OK,t 2-1,text,false,no \"ok\",100,50,2,2,http://h/a,5,0,0\n\
                 1700000003000,9,C,200,OK,t 2-2,text,true,,100,50,2,2,http://h/c,5,0,0\n";
        let (fa, fb) = (write(&format!("{header}{a}")), write(b));
        let both = import_all(&[fa.0.as_path(), fb.0.as_path()]).unwrap();
        let one = import(&write(&format!("{header}{a}{b}")).0).unwrap();
        let rows = |i: &Imported| {
            i.summary.labels.iter().map(|l| (l.label.clone(), l.samples, l.errors, l.p50_ms)).collect::<Vec<_>>()
        };
        let mut by_name = rows(&both);
        by_name.sort_by(|x, y| x.0.cmp(&y.0));
        let mut want = rows(&one);
        want.sort_by(|x, y| x.0.cmp(&y.0));
        assert_eq!(by_name, want);
        assert_eq!(both.summary.total, one.summary.total);
        assert_eq!(both.summary.total.errors_by_kind.get("check: no \"ok\""), Some(&2), "{:?}", both.summary.total);
        assert_eq!(both.meta.scenarios[0].workload, "up to 3 threads active (the files' allThreads, added)");
        // A bad row in the second file names that file and its line.
        let bad = write("1700000000100,12,B,200,OK,t 2-1,text,true,,100,50,2,2,http://h/b,5,0,1\n1700000000200,x,A\n");
        let e = import_all(&[fa.0.as_path(), bad.0.as_path()]).unwrap_err().to_string();
        assert!(e.contains(&format!("{}:2: elapsed `x`", bad.0.display())), "{e}");
    }
}
