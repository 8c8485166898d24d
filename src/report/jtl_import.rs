//! Reading a JMeter results file (JTL in CSV form, with or without its header line) into the
//! same [`Summary`] a run directory holds. Rows are streamed into per-label stats: memory
//! depends on the number of labels, never on the number of rows.

use super::jtl_read::{Columns, Reader};
use super::series::{Frame, Series, SeriesBuilder};
use crate::plan::LabelId;
use crate::record::{ErrorKind, LabelStats, Sample, Tally, LABEL_CAP, OVERFLOW_LABEL};
use crate::rundir::{Error, LabelSummary, RunMeta, ScenarioMeta, Summary};
use std::collections::{HashMap, VecDeque};
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

/// Distinct failure messages kept apart; the rest are counted together.
const MAX_MESSAGES: usize = 1000;

/// A results file read back: its summary, run facts made from what the file says, and the
/// run over time.
#[derive(Debug)]
pub struct Imported {
    pub meta: RunMeta,
    pub summary: Summary,
    pub series: Series,
}

/// Seconds kept open for rows that arrive out of order. JMeter writes a row when its sample
/// ends, from many threads through one buffer, so rows are in end-time order give or take a
/// few milliseconds; a row later than this (merged files from several generators) is counted
/// in the oldest open second, so counts stay exact and only its place on a chart shifts.
const OPEN_SECONDS: usize = 3;

/// Rows cut into seconds of their end time, as a live run's intervals are, for the series.
#[derive(Default)]
struct Seconds {
    /// Consecutive seconds from `first`.
    open: VecDeque<Frame>,
    first: u64,
    spare: Vec<Frame>,
    builder: SeriesBuilder,
}

impl Seconds {
    fn add(&mut self, s: &Sample, threads: u64) {
        let sec = s.end_us / 1_000_000;
        // A pause (a file appended to on another day, or one wild timestamp) is not walked
        // second by second: it becomes one break in the charts.
        if !self.open.is_empty() && sec > self.first + (self.open.len() + OPEN_SECONDS) as u64 {
            while !self.open.is_empty() {
                self.close_oldest(false);
            }
            self.builder.add_gap(self.first * 1_000_000, sec * 1_000_000);
        }
        if self.open.is_empty() {
            self.first = sec;
        }
        while sec >= self.first + self.open.len() as u64 {
            let start = (self.first + self.open.len() as u64) * 1_000_000;
            let frame = match self.spare.pop() {
                Some(mut f) => {
                    f.reset(start, start + 1_000_000);
                    f
                }
                None => Frame::new(start, start + 1_000_000),
            };
            self.open.push_back(frame);
            if self.open.len() > OPEN_SECONDS {
                self.close_oldest(false);
            }
        }
        let at = sec.saturating_sub(self.first) as usize;
        self.open[at].record(s, threads);
    }

    fn close_oldest(&mut self, last: bool) {
        let Some(frame) = self.open.pop_front() else { return };
        self.builder.add_frame(&frame, last);
        self.first += 1;
        self.spare.push(frame);
    }

    fn finish(mut self, labels: &[String], total: &LabelStats) -> Series {
        while !self.open.is_empty() {
            let last = self.open.len() == 1;
            self.close_oldest(last);
        }
        self.builder.distribution_from(total);
        self.builder.finish(labels)
    }
}

/// Reads `path`. The error names the file and line of the first row it cannot read.
pub fn import(path: &Path) -> Result<Imported, Error> {
    let io = |source| Error::Io { path: path.to_path_buf(), source };
    let format = |line: u64, message: String| Error::Format { path: path.to_path_buf(), line: line as usize, message };
    // The first line says whether there is a header, and so where each value is.
    let mut first = Vec::new();
    std::io::BufReader::new(std::fs::File::open(path).map_err(io)?).read_until(b'\n', &mut first).map_err(io)?;
    let first = String::from_utf8_lossy(&first);
    let header: Vec<&str> = first.trim_start_matches('\u{feff}').trim_end_matches(['\n', '\r']).split(',').collect();
    let has_header = header.first().map(|f| f.trim()) == Some("timeStamp");
    let cols = if has_header {
        Columns::from_names(&header).map_err(|m| format(1, m))?
    } else {
        Columns::from_names(&DEFAULT_COLUMNS).expect("the default columns are complete")
    };
    let mut reader = Reader::start(std::fs::File::open(path).map_err(io)?, cols, has_header);
    // Labels are numbered in the order the file first shows them, whichever parser met them first.
    let mut label_of: Vec<Option<u32>> = Vec::new();
    let mut labels: Vec<String> = Vec::new();
    let mut messages: Vec<String> = Vec::new();
    let mut message_ids: HashMap<String, u16> = HashMap::new();
    let mut peak_threads = 0u64;
    let mut tally = Tally::new(0, 0);
    let mut seconds = Seconds::default();
    // Times are kept as µs after `base`, a day before the first row: rows are written when
    // samples end, so a later row may have started earlier.
    let mut base_ms: Option<u64> = None;
    let (mut first_ms, mut last_end_ms) = (u64::MAX, 0u64);
    let mut lines_before = 0u64;
    while let Some(block) = reader.next_block() {
        for r in &block.rows {
            let parsed = r.label as usize;
            if label_of.len() <= parsed {
                label_of.resize(parsed + 1, None);
            }
            let label = match label_of[parsed] {
                Some(id) => id,
                // Past the label cap (in file order), labels share the overflow row.
                None if labels.len() >= LABEL_CAP => {
                    if labels.len() == LABEL_CAP {
                        labels.push(OVERFLOW_LABEL.to_string());
                    }
                    label_of[parsed] = Some(LABEL_CAP as u32);
                    LABEL_CAP as u32
                }
                None => {
                    let id = labels.len() as u32;
                    labels.push(String::from_utf8_lossy(&reader.label_name(r.label)).into_owned());
                    label_of[parsed] = Some(id);
                    id
                }
            };
            let base = *base_ms.get_or_insert(r.timestamp_ms.saturating_sub(86_400_000));
            first_ms = first_ms.min(r.timestamp_ms);
            last_end_ms = last_end_ms.max(r.timestamp_ms + r.elapsed_ms);
            let error = r.failure.as_ref().map(|f| match f.code.parse::<u16>() {
                Ok(status) if status >= 400 => ErrorKind::Status(status),
                _ => {
                    let text = if !f.failure_message.is_empty() {
                        f.failure_message.clone()
                    } else if !f.response_message.is_empty() {
                        f.response_message.clone()
                    } else {
                        format!("response code {}", f.code)
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
            peak_threads = peak_threads.max(r.threads);
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
            };
            tally.record(&sample);
            seconds.add(&sample, r.threads);
        }
        if let Some((line, message)) = &block.error {
            return Err(format(lines_before + line, message.clone()));
        }
        lines_before += block.lines;
        reader.recycle(block);
    }
    if labels.is_empty() {
        return Err(format(1, "no samples: an empty file, or not a JMeter CSV results file".into()));
    }
    let scenarios = vec![ScenarioMeta {
        name: "JTL".into(),
        model: "imported".into(),
        workload: if peak_threads > 0 {
            format!("up to {peak_threads} threads active (the file's allThreads)")
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
    let series = seconds.finish(&labels, &tally.total);
    let duration_s = (last_end_ms.saturating_sub(first_ms)) as f64 / 1000.0;
    let meta = RunMeta {
        tool: "JMeter results file".into(),
        version: String::new(),
        command_line: Vec::new(),
        // The file's name only: reports of the same file read the same wherever it lies.
        plan_path: None,
        plan_name: path.file_name().map_or_else(String::new, |n| n.to_string_lossy().into_owned()),
        host: String::new(),
        started_at: rfc3339_ms(first_ms),
        ended_at: Some(rfc3339_ms(last_end_ms)),
        duration_s: Some(duration_s),
        status: "completed".into(),
        interval_s: 0.0,
        scenarios,
        labels,
        checks: messages,
        generator: None,
        thresholds: Vec::new(),
    };
    Ok(Imported { meta, summary, series })
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
}

fn rfc3339_ms(ms: u64) -> String {
    time::OffsetDateTime::from_unix_timestamp_nanos(i128::from(ms) * 1_000_000)
        .ok()
        .and_then(|t| t.format(&time::format_description::well_known::Rfc3339).ok())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A file in the temp directory, removed when dropped.
    struct TempPath(std::path::PathBuf);

    impl Drop for TempPath {
        fn drop(&mut self) {
            let _ = std::fs::remove_file(&self.0);
        }
    }

    fn write(text: &str) -> TempPath {
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
    fn a_pause_of_a_year_is_one_break_in_the_charts() {
        let rows = "timeStamp,elapsed,label,success\n\
                    1700000000000,10,A,true\n1700000001000,10,A,true\n\
                    1731536000000,10,A,true\n1731536001000,10,A,true\n";
        let started = std::time::Instant::now();
        let i = import(&write(rows).0).unwrap();
        assert!(started.elapsed() < std::time::Duration::from_secs(5), "{:?}", started.elapsed());
        assert_eq!(i.summary.total.samples, 4);
        let gaps = i.series.points.iter().filter(|p| p.rps.is_nan()).count();
        assert!(gaps >= 1 && i.series.points.len() < 20, "{:?}", i.series.points);
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
}
