//! Per-sample results in JMeter's CSV (JTL) format, for the files a JMeter plan's listeners name
//! and for `run --jtl FILE`: one line per sample (redirect hops and groups included, as JMeter's
//! sub-results), written on a thread of its own so the load never waits for the disk.

use crate::record::error_kind::split_non_http;
use crate::record::{ErrorKind, SampleRow};
use std::fs::{File, OpenOptions};
use std::io::{BufWriter, Write};
use std::path::PathBuf;
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// JMeter's default CSV columns, in order.
pub(crate) const HEADER: &str = "timeStamp,elapsed,label,responseCode,responseMessage,threadName,dataType,success,failureMessage,bytes,sentBytes,grpThreads,allThreads,URL,Latency,IdleTime,Connect";

/// What turns rows into lines: names of labels, checks and scenarios, and the plan's known
/// secret values, masked in the URL column.
pub(crate) struct Names {
    pub labels: Vec<String>,
    pub checks: Vec<String>,
    pub scenarios: Vec<String>,
    pub secrets: crate::redact::Secrets,
}

/// A results file that could not be written.
#[derive(Debug, thiserror::Error)]
pub(crate) enum Error {
    #[error("cannot create {}: {source}", path.display())]
    Create { path: PathBuf, source: std::io::Error },
    #[error("cannot open {}: {source}", path.display())]
    Open { path: PathBuf, source: std::io::Error },
    #[error("cannot write {}: {source}", path.display())]
    Write { path: PathBuf, source: std::io::Error },
}

fn write_error(path: &std::path::Path) -> impl FnOnce(std::io::Error) -> Error + '_ {
    move |source| Error::Write { path: path.to_path_buf(), source }
}

/// Writes rows from `rx` to every file until the sender side is dropped; flushes each second.
/// Files are appended to; the header is written to a new or empty file.
pub(crate) fn spawn(
    paths: Vec<PathBuf>,
    names: Names,
    rx: mpsc::Receiver<SampleRow>,
) -> Result<std::thread::JoinHandle<Result<u64, Error>>, Error> {
    let mut files: Vec<(PathBuf, BufWriter<File>)> = Vec::new();
    for p in paths {
        if let Some(dir) = p.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|source| Error::Create { path: dir.to_path_buf(), source })?;
        }
        let f = OpenOptions::new()
            .create(true)
            .append(true)
            .open(&p)
            .map_err(|source| Error::Open { path: p.clone(), source })?;
        let empty = f.metadata().map(|m| m.len() == 0).unwrap_or(true);
        let mut w = BufWriter::new(f);
        if empty {
            writeln!(w, "{HEADER}").map_err(write_error(&p))?;
        }
        files.push((p, w));
    }
    Ok(std::thread::spawn(move || {
        let mut written = 0u64;
        let mut last_flush = Instant::now();
        let mut line = Vec::new();
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
                    w.write_all(&line).map_err(write_error(p))?;
                }
                written += 1;
            }
            if last_flush.elapsed() >= Duration::from_secs(1) {
                last_flush = Instant::now();
                for (p, w) in &mut files {
                    w.flush().map_err(write_error(p))?;
                }
            }
        }
        for (p, w) in &mut files {
            w.flush().map_err(write_error(p))?;
        }
        Ok(written)
    }))
}

/// One JTL line, as JMeter writes it: CSV with a field quoted only when it holds a comma, a
/// quote or a line break (JMeter's `CSVSaveService`, RFC 4180's rule).
pub(crate) fn format_row(r: &SampleRow, names: &Names, out: &mut Vec<u8>) {
    let label = r.name.as_deref().or(names.labels.get(r.label as usize).map(String::as_str)).unwrap_or("");
    let scenario = names.scenarios.get(r.scenario).map_or("", String::as_str);
    // A results file is shared: the URL as the redaction rule shows it (`?token=***`).
    let url = crate::redact::url(&r.url);
    let url = names.secrets.scrub(&url);
    // A sample JMeter fails on an exception before sending (a method it does not know, a URL
    // java.net.URI refuses): its code and message, as JMeter writes them.
    let non_http = match (&r.refused_url, r.error) {
        (Some(why), _) => Some((
            "Non HTTP response code: java.net.URISyntaxException".to_string(),
            format!("Non HTTP response message: {why}: {url}"),
        )),
        (None, Some(ErrorKind::Check(id))) => names.checks.get(id as usize).and_then(|m| split_non_http(m)),
        _ => None,
    };
    let (code, message, failure) = match r.error {
        _ if r.code_message.is_some() => {
            let (code, message) = r.code_message.as_deref().cloned().unwrap_or_default();
            let failure = match r.error {
                Some(ErrorKind::Check(id)) => names.checks.get(id as usize).map_or("", String::as_str),
                _ => "",
            };
            (code, message, failure)
        }
        _ if non_http.is_some() => non_http.map(|(c, m)| (c, m, "")).unwrap_or_default(),
        None => (r.status.to_string(), crate::http1::reason(r.status).to_string(), ""),
        Some(ErrorKind::Status(s)) => (s.to_string(), crate::http1::reason(s).to_string(), ""),
        Some(ErrorKind::Check(id)) => (
            r.status.to_string(),
            crate::http1::reason(r.status).to_string(),
            names.checks.get(id as usize).map_or("", String::as_str),
        ),
        Some(k) => {
            (format!("Non HTTP response code: {}", k.name()), format!("Non HTTP response message: {}", k.name()), "")
        }
    };
    let user = format!("{scenario} 1-{}", r.user);
    let success = if r.error.is_none() { "true" } else { "false" };
    let n = |v: u64| v.to_string();
    let fields: [&str; 17] = [
        &n(r.timestamp_ms),
        &n(r.elapsed_ms),
        label,
        &code,
        &message,
        &user,
        "text",
        success,
        failure,
        &n(r.bytes),
        &n(r.sent_bytes),
        &n(r.group_users),
        &n(r.all_users),
        &url,
        &n(r.latency_ms),
        "0",
        &n(r.connect_ms),
    ];
    let mut w = csv::WriterBuilder::new().buffer_capacity(512).from_writer(out);
    // Writing into memory cannot fail.
    let _ = w.write_record(fields).and_then(|()| w.flush().map_err(Into::into));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(r: &SampleRow, names: &Names) -> String {
        let mut line = Vec::new();
        format_row(r, names, &mut line);
        String::from_utf8(line).unwrap()
    }

    /// A sampler of another protocol writes its own code and message (JMeter's TCP Sampler:
    /// 500 and the Java exception); a failed assertion still fills the failure message.
    #[test]
    fn rows_of_other_protocols_keep_their_code_and_message() {
        let names = Names {
            labels: vec!["tcp".into()],
            checks: vec!["has ok".into()],
            scenarios: vec!["Users".into()],
            secrets: Default::default(),
        };
        let mut r = SampleRow {
            timestamp_ms: 1,
            elapsed_ms: 2,
            label: 0,
            name: None,
            status: 500,
            error: Some(ErrorKind::Refused),
            scenario: 0,
            user: 1,
            bytes: 0,
            sent_bytes: 0,
            group_users: 1,
            all_users: 1,
            url: String::new(),
            latency_ms: 0,
            connect_ms: 0,
            refused_url: None,
            code_message: Some(Box::new(("500".into(), "java.net.ConnectException: Connection refused".into()))),
        };
        assert_eq!(
            text(&r, &names),
            "1,2,tcp,500,java.net.ConnectException: Connection refused,Users 1-1,text,false,,0,0,1,1,,0,0,0\n"
        );
        r.error = Some(ErrorKind::Check(0));
        r.code_message = Some(Box::new(("200".into(), "OK".into())));
        assert!(text(&r, &names).starts_with("1,2,tcp,200,OK,Users 1-1,text,false,has ok,"), "{}", text(&r, &names));
    }

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
            name: None,
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
            refused_url: None,
            code_message: None,
        };
        let mut line = text(&r, &names);
        assert_eq!(
            line,
            "1700000000123,12,\"Read, all\",200,OK,Users 1-3,text,true,,120,80,2,2,http://127.0.0.1:8080/read?a=1,10,0,1\n"
        );
        r.error = Some(ErrorKind::Check(0));
        line = text(&r, &names);
        assert!(line.contains(",text,false,\"body contains \"\"ok\"\"\","), "{line}");
        r.error = Some(ErrorKind::Refused);
        line = text(&r, &names);
        assert!(line.contains(",Non HTTP response code: refused,"), "{line}");
        assert_eq!(HEADER.split(',').count(), line.trim_end().split(',').count() - 1, "the label holds a comma");
        // The URL column holds no secret: by name in the query, or a known value wherever it is.
        let mut names = names;
        names.secrets.add("from-the-environment");
        r.url = "http://127.0.0.1:8080/r?access_token=t0k3n&Api_Key=k3y&q=from-the-environment&page=2".into();
        line = text(&r, &names);
        assert!(line.contains(",http://127.0.0.1:8080/r?access_token=***&Api_Key=***&q=***&page=2,"), "{line}");
        // A URL java.net.URI refuses: JMeter's exception and message, with the URL as shown.
        r.error = Some(ErrorKind::BadUrl);
        r.refused_url = Some("Illegal character in query at index 42".into());
        line = text(&r, &names);
        assert!(
            line.contains(
                ",Non HTTP response code: java.net.URISyntaxException,Non HTTP response message: Illegal character in \
                 query at index 42: http://127.0.0.1:8080/r?access_token=***&Api_Key=***&q=***&page=2,"
            ),
            "{line}"
        );
    }
}
