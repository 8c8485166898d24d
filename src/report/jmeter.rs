//! What JMeter prints and writes of a run, for the scripts that read them: its summariser's last
//! `summary =` line and its dashboard's `statistics.json`.

use crate::rundir;

/// JMeter's dashboard `statistics.json` (what CI scripts read): an object per label and `Total`,
/// with its field names.
pub(crate) fn statistics(s: &rundir::Summary) -> String {
    let row = |l: &rundir::LabelSummary, name: &str| {
        serde_json::json!({
            "transaction": name,
            "sampleCount": l.samples,
            "errorCount": l.errors,
            "errorPct": l.error_pct,
            "meanResTime": l.mean_ms,
            "medianResTime": l.p50_ms,
            "minResTime": l.min_ms,
            "maxResTime": l.max_ms,
            "pct1ResTime": l.p90_ms,
            "pct2ResTime": l.p95_ms,
            "pct3ResTime": l.p99_ms,
            "throughput": l.throughput_rps,
            "receivedKBytesPerSec": l.received_kbps,
            "sentKBytesPerSec": l.sent_kbps,
        })
    };
    let mut map = serde_json::Map::new();
    map.insert("Total".into(), row(&s.total, "Total"));
    for l in &s.labels {
        map.insert(l.label.clone(), row(l, &l.label));
    }
    serde_json::to_string_pretty(&serde_json::Value::Object(map)).expect("numbers serialise")
}

/// What JMeter's `summary =` line gives of a run.
pub(crate) struct Totals {
    pub seconds: f64,
    pub samples: u64,
    pub errors: u64,
    pub error_pct: f64,
    pub mean_ms: f64,
    pub min_ms: f64,
    pub max_ms: f64,
    pub rate: f64,
}

impl Totals {
    pub(crate) fn of(meta: &rundir::RunMeta, t: &rundir::LabelSummary) -> Totals {
        Totals {
            seconds: meta.duration_s.unwrap_or(0.0),
            samples: t.samples,
            errors: t.errors,
            error_pct: t.error_pct,
            mean_ms: t.mean_ms,
            min_ms: t.min_ms,
            max_ms: t.max_ms,
            rate: t.throughput_rps,
        }
    }

    /// JMeter's `summary =` line (its Summariser's total at the end of a non-GUI run): whole
    /// milliseconds, as JMeter's are (its samples' times are whole ms, its average their
    /// integer mean), the run's length in whole seconds.
    pub(crate) fn line(&self) -> String {
        if self.samples == 0 {
            // JMeter's Summariser with no sample (a plan that starts no thread): no elapsed
            // time, so "******" for the rate, and its min and max still at their start values.
            return "summary =      0 in 00:00:00 = ******/s Avg:     0 Min: 9223372036854775807 Max: -9223372036854775808 Err:     0 (0.00%)".into();
        }
        let secs = self.seconds.round() as u64;
        format!(
            "summary = {:>6} in {:02}:{:02}:{:02} = {:>6.1}/s Avg: {:>5} Min: {:>5} Max: {:>5} Err: {:>5} ({:.2}%)",
            self.samples,
            secs / 3600,
            secs / 60 % 60,
            secs % 60,
            self.rate,
            self.mean_ms.floor() as u64,
            self.min_ms.floor() as u64,
            self.max_ms.floor() as u64,
            self.errors,
            self.error_pct
        )
    }
}

/// Writes JMeter's dashboard of `run` into `dir`: `index.html` (the run's HTML report), and
/// `statistics.json` in the shape of JMeter's (what CI scripts read).
pub(crate) fn write_dashboard(run: &super::RunData, dir: &std::path::Path) -> Result<(), rundir::Error> {
    let io = |path: std::path::PathBuf| move |source| rundir::Error::Io { path, source };
    let index = dir.join("index.html");
    std::fs::write(&index, super::html::document(run)).map_err(io(index.clone()))?;
    let stats = dir.join("statistics.json");
    std::fs::write(&stats, statistics(&run.summary)).map_err(io(stats.clone()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_summary_line_is_jmeters() {
        let t = Totals {
            seconds: 3725.4,
            samples: 14,
            errors: 14,
            error_pct: 100.0,
            mean_ms: 12.9,
            min_ms: 3.2,
            max_ms: 58.7,
            rate: 35.04,
        };
        // As JMeter 5.6.3 printed it for 14 failed samples (the length here 1 h 2 min 5 s).
        assert_eq!(
            t.line(),
            "summary =     14 in 01:02:05 =   35.0/s Avg:    12 Min:     3 Max:    58 Err:    14 (100.00%)"
        );
        // And for a run that sent nothing (every thread group of 0 threads), as JMeter printed it.
        let none =
            Totals { samples: 0, errors: 0, error_pct: 0.0, mean_ms: 0.0, min_ms: 0.0, max_ms: 0.0, rate: 0.0, ..t };
        assert_eq!(
            none.line(),
            "summary =      0 in 00:00:00 = ******/s Avg:     0 Min: 9223372036854775807 Max: -9223372036854775808 Err:     0 (0.00%)"
        );
    }
}
