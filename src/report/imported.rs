//! A JMeter results file as reports see it: the import that [`rundir::jtl`] does, with its rows
//! cut into seconds of their end time, as a live run's intervals are, for the charts.

use super::series::{Frame, Series, SeriesBuilder};
use super::RunData;
use crate::record::{LabelStats, Sample};
use crate::rundir::{self, jtl};
use std::collections::VecDeque;
use std::path::Path;

/// Reads results files as one run (see [`jtl::import_all`]), and its series.
pub(crate) fn load(paths: &[&Path]) -> Result<RunData, rundir::Error> {
    let mut seconds = Seconds::default();
    let i = jtl::import_all_with(paths, |s, threads| seconds.add(s, threads))?;
    let series = seconds.finish(&i.meta.labels, &i.total);
    Ok(RunData { meta: i.meta, summary: i.summary, series, lost: None })
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rundir::jtl::temp_jtl as write;

    #[test]
    fn a_pause_of_a_year_is_one_break_in_the_charts() {
        let rows = "timeStamp,elapsed,label,success\n\
                    1700000000000,10,A,true\n1700000001000,10,A,true\n\
                    1731536000000,10,A,true\n1731536001000,10,A,true\n";
        let started = std::time::Instant::now();
        let i = load(&[write(rows).0.as_path()]).unwrap();
        assert!(started.elapsed() < std::time::Duration::from_secs(5), "{:?}", started.elapsed());
        assert_eq!(i.summary.total.samples, 4);
        let gaps = i.series.points.iter().filter(|p| p.rps.is_nan()).count();
        assert!(gaps >= 1 && i.series.points.len() < 20, "{:?}", i.series.points);
    }
}
