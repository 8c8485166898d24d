//! Per-sample results in JMeter's CSV (JTL) format, for the files a JMeter plan's listeners name
//! and for `run --jtl FILE`: one line per sample (redirect hops and groups included, as JMeter's
//! sub-results), written on a thread of its own so the load never waits for the disk.

use crate::record::{ErrorKind, SampleRow};
use std::fs::{File, OpenOptions};
use std::io::{BufWriter, Write};
use std::path::PathBuf;
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// JMeter's default CSV columns, in order.
pub const HEADER: &str = "timeStamp,elapsed,label,responseCode,responseMessage,threadName,dataType,success,failureMessage,bytes,sentBytes,grpThreads,allThreads,URL,Latency,IdleTime,Connect";

/// What turns rows into lines: names of labels, checks and scenarios, and the plan's known
/// secret values, masked in the URL column.
pub struct Names {
    pub labels: Vec<String>,
    pub checks: Vec<String>,
    pub scenarios: Vec<String>,
    pub secrets: crate::redact::Secrets,
}

/// Writes rows from `rx` to every file until the sender side is dropped; flushes each second.
/// Files are appended to; the header is written to a new or empty file.
pub fn spawn(
    paths: Vec<PathBuf>,
    names: Names,
    rx: mpsc::Receiver<SampleRow>,
) -> Result<std::thread::JoinHandle<Result<u64, String>>, String> {
    let mut files: Vec<(PathBuf, BufWriter<File>)> = Vec::new();
    for p in paths {
        if let Some(dir) = p.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        }
        let f = OpenOptions::new()
            .create(true)
            .append(true)
            .open(&p)
            .map_err(|e| format!("cannot open {}: {e}", p.display()))?;
        let empty = f.metadata().map(|m| m.len() == 0).unwrap_or(true);
        let mut w = BufWriter::new(f);
        if empty {
            writeln!(w, "{HEADER}").map_err(|e| format!("cannot write {}: {e}", p.display()))?;
        }
        files.push((p, w));
    }
    Ok(std::thread::spawn(move || {
        let mut written = 0u64;
        let mut last_flush = Instant::now();
        let mut line = String::new();
        loop {
            let row = match rx.recv_timeout(Duration::from_secs(1)) {
                Ok(r) => Some(r),
                Err(mpsc::RecvTimeoutError::Timeout) => None,
                Err(mpsc::RecvTimeoutError::Disconnected) => break,
            };
            if let Some(r) = row {
                line.clear();
                format_row(&r, &names, &mut line);
                for (p, w) in &mut files {
                    w.write_all(line.as_bytes()).map_err(|e| format!("cannot write {}: {e}", p.display()))?;
                }
                written += 1;
            }
            if last_flush.elapsed() >= Duration::from_secs(1) {
                last_flush = Instant::now();
                for (p, w) in &mut files {
                    w.flush().map_err(|e| format!("cannot write {}: {e}", p.display()))?;
                }
            }
        }
        for (p, w) in &mut files {
            w.flush().map_err(|e| format!("cannot write {}: {e}", p.display()))?;
        }
        Ok(written)
    }))
}

fn csv(field: &str, out: &mut String) {
    if field.contains([',', '"', '\n', '\r']) {
        out.push('"');
        out.push_str(&field.replace('"', "\"\""));
        out.push('"');
    } else {
        out.push_str(field);
    }
}

/// One JTL line, as JMeter writes it.
pub fn format_row(r: &SampleRow, names: &Names, out: &mut String) {
    use std::fmt::Write as _;
    let label = names.labels.get(r.label as usize).map_or("", String::as_str);
    let scenario = names.scenarios.get(r.scenario).map_or("", String::as_str);
    let (code, message, failure) = match r.error {
        None => (r.status.to_string(), crate::mock::reason(r.status).to_string(), String::new()),
        Some(ErrorKind::Status(s)) => (s.to_string(), crate::mock::reason(s).to_string(), String::new()),
        Some(ErrorKind::Check(id)) => (
            r.status.to_string(),
            crate::mock::reason(r.status).to_string(),
            names.checks.get(id as usize).cloned().unwrap_or_default(),
        ),
        Some(k) => (
            format!("Non HTTP response code: {}", k.name()),
            format!("Non HTTP response message: {}", k.name()),
            String::new(),
        ),
    };
    let _ = write!(out, "{},{},", r.timestamp_ms, r.elapsed_ms);
    csv(label, out);
    out.push(',');
    csv(&code, out);
    out.push(',');
    csv(&message, out);
    out.push(',');
    csv(&format!("{scenario} 1-{}", r.user), out);
    let _ = write!(out, ",text,{},", r.error.is_none());
    csv(&failure, out);
    let _ = write!(out, ",{},{},{},{},", r.bytes, r.sent_bytes, r.group_users, r.all_users);
    // A results file is shared: the URL as the redaction rule shows it (`?token=***`).
    csv(&names.secrets.scrub(&crate::redact::url(&r.url)), out);
    let _ = writeln!(out, ",{},0,{}", r.latency_ms, r.connect_ms);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_look_like_jmeter_s() {
        let names = Names {
            labels: vec!["Read, all".into()],
            checks: vec!["body contains \"ok\"".into()],
            scenarios: vec!["Users".into()],
            secrets: Default::default(),
        };
        let mut r = SampleRow {
            timestamp_ms: 1_700_000_000_123,
            elapsed_ms: 12,
            label: 0,
            status: 200,
            error: None,
            scenario: 0,
            user: 3,
            bytes: 120,
            sent_bytes: 80,
            group_users: 2,
            all_users: 2,
            url: "http://127.0.0.1:8080/read?a=1".into(),
            latency_ms: 10,
            connect_ms: 1,
        };
        let mut line = String::new();
        format_row(&r, &names, &mut line);
        assert_eq!(
            line,
            "1700000000123,12,\"Read, all\",200,OK,Users 1-3,text,true,,120,80,2,2,http://127.0.0.1:8080/read?a=1,10,0,1\n"
        );
        r.error = Some(ErrorKind::Check(0));
        line.clear();
        format_row(&r, &names, &mut line);
        assert!(line.contains(",text,false,\"body contains \"\"ok\"\"\","), "{line}");
        r.error = Some(ErrorKind::Refused);
        line.clear();
        format_row(&r, &names, &mut line);
        assert!(line.contains(",Non HTTP response code: refused,"), "{line}");
        assert_eq!(HEADER.split(',').count(), line.trim_end().split(',').count() - 1, "the label holds a comma");
        // The URL column holds no secret: by name in the query, or a known value wherever it is.
        let mut names = names;
        names.secrets.add("from-the-environment");
        r.url = "http://127.0.0.1:8080/r?access_token=t0k3n&Api_Key=k3y&q=from-the-environment&page=2".into();
        line.clear();
        format_row(&r, &names, &mut line);
        assert!(line.contains(",http://127.0.0.1:8080/r?access_token=***&Api_Key=***&q=***&page=2,"), "{line}");
    }
}
