//! Prometheus remote write 1.0: a protobuf `WriteRequest`, snappy block-compressed. The
//! messages are the few of `prometheus/prompb/{remote,types}.proto` a writer needs, declared
//! with prost's derive (the fields not sent — exemplars, histograms, metadata — are left out,
//! which protobuf allows).

use super::metrics::{series, Ident, Snapshot};

#[derive(Clone, PartialEq, prost::Message)]
pub(crate) struct WriteRequest {
    #[prost(message, repeated, tag = "1")]
    pub timeseries: Vec<TimeSeries>,
}

#[derive(Clone, PartialEq, prost::Message)]
pub(crate) struct TimeSeries {
    /// Sorted by name, `__name__` first, as the protocol requires.
    #[prost(message, repeated, tag = "1")]
    pub labels: Vec<Label>,
    #[prost(message, repeated, tag = "2")]
    pub samples: Vec<Sample>,
}

#[derive(Clone, PartialEq, prost::Message)]
pub(crate) struct Label {
    #[prost(string, tag = "1")]
    pub name: String,
    #[prost(string, tag = "2")]
    pub value: String,
}

#[derive(Clone, PartialEq, prost::Message)]
pub(crate) struct Sample {
    #[prost(double, tag = "1")]
    pub value: f64,
    /// ms since the Unix epoch.
    #[prost(int64, tag = "2")]
    pub timestamp: i64,
}

/// The headers remote write 1.0 requires beside the body.
pub(crate) const HEADERS: &[(&str, &str)] = &[
    ("Content-Encoding", "snappy"),
    ("Content-Type", "application/x-protobuf"),
    ("X-Prometheus-Remote-Write-Version", "0.1.0"),
];

/// The request for `snap`: every series at the snapshot's time.
pub(crate) fn write_request(snap: &Snapshot, ident: &Ident) -> WriteRequest {
    let timeseries = series(snap, ident)
        .into_iter()
        .map(|(_, s)| {
            let mut labels: Vec<Label> = std::iter::once(Label { name: "__name__".into(), value: s.name.into() })
                .chain(s.labels.into_iter().map(|(k, v)| Label { name: k.into(), value: v }))
                .collect();
            labels.sort_by(|a, b| a.name.cmp(&b.name));
            TimeSeries { labels, samples: vec![Sample { value: s.value, timestamp: snap.time_ms }] }
        })
        .collect();
    WriteRequest { timeseries }
}

/// The body to POST: the encoded request, snappy block format (not the framed format).
pub(crate) fn body(snap: &Snapshot, ident: &Ident) -> Result<Vec<u8>, BodyError> {
    let bytes = prost::Message::encode_to_vec(&write_request(snap, ident));
    snap::raw::Encoder::new().compress_vec(&bytes).map_err(BodyError)
}

/// A request snappy does not compress (one larger than its format holds).
#[derive(Debug, thiserror::Error)]
#[error("snappy: {0}")]
pub(crate) struct BodyError(snap::Error);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::export::metrics::{LabelPoint, Totals};

    #[test]
    fn a_body_decodes_back_to_sorted_series_with_the_snapshot_time() {
        let snap = Snapshot {
            time_ms: 1_700_000_000_123,
            labels: vec![LabelPoint {
                label: "Login".into(),
                scenario: None,
                totals: Totals {
                    requests: 5,
                    errors: 1,
                    errors_by_kind: vec![("http_503".into(), 1)],
                    ..Default::default()
                },
                interval: Default::default(),
            }],
            // The Total counts a group once; its label and its requests' labels each count it.
            total: LabelPoint { totals: Totals { requests: 4, ..Default::default() }, ..Default::default() },
            active_users: vec![("read".into(), 3)],
            ..Default::default()
        };
        // An empty tag is no label at all.
        let ident = Ident { run_id: "r1".into(), plan: "p".into(), tag: Some(String::new()) };
        let raw = snap::raw::Decoder::new().decompress_vec(&body(&snap, &ident).unwrap()).unwrap();
        let req: WriteRequest = prost::Message::decode(raw.as_slice()).unwrap();
        let has = |t: &TimeSeries, name: &str, value: &str| t.labels.iter().any(|l| l.name == name && l.value == value);
        let find_in = |name: &str, scope: &str| {
            req.timeseries
                .iter()
                .find(|t| has(t, "__name__", name) && (scope.is_empty() || has(t, "scope", scope)))
                .unwrap_or_else(|| panic!("no {name}"))
        };
        let find = |name: &str| find_in(name, "label");
        let total = find_in("stampede_requests_total", "total");
        let names: Vec<&str> = total.labels.iter().map(|l| l.name.as_str()).collect();
        assert_eq!(names, ["__name__", "plan", "run_id", "scope"]);
        assert_eq!(total.samples[0].value, 4.0);
        let requests = find("stampede_requests_total");
        let names: Vec<&str> = requests.labels.iter().map(|l| l.name.as_str()).collect();
        assert_eq!(names, ["__name__", "label", "plan", "run_id", "scope"]);
        assert_eq!(requests.samples, [Sample { value: 5.0, timestamp: 1_700_000_000_123 }]);
        let errors = find("stampede_errors_total");
        assert!(errors.labels.contains(&Label { name: "kind".into(), value: "http_503".into() }));
        assert_eq!(find_in("stampede_active_users", "").samples[0].value, 3.0);
        assert_eq!(find("stampede_latency_seconds_count").samples[0].value, 5.0);
    }
}
