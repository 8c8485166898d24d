//! OTLP/HTTP metrics (`otlp=URL`): an `ExportMetricsServiceRequest` in protobuf, from the
//! `opentelemetry-proto` crate's prost messages. Cumulative temporality from the run's start;
//! names follow OpenTelemetry's (`stampede.requests`, unit `{request}`...), which a collector's
//! Prometheus exporter turns into the same names the Prometheus sinks emit
//! (`stampede_requests_total`, `stampede_latency_seconds`...).

use super::metrics::{Ident, Snapshot, LE_US};
use opentelemetry_proto::tonic::collector::metrics::v1::ExportMetricsServiceRequest;
use opentelemetry_proto::tonic::common::v1::{any_value, AnyValue, InstrumentationScope, KeyValue};
use opentelemetry_proto::tonic::metrics::v1::{
    metric, number_data_point, AggregationTemporality, Gauge, Histogram, HistogramDataPoint, Metric, NumberDataPoint,
    ResourceMetrics, ScopeMetrics, Sum,
};
use opentelemetry_proto::tonic::resource::v1::Resource;

/// The headers of an OTLP/HTTP protobuf request beside the body.
pub(crate) const HEADERS: &[(&str, &str)] = &[("Content-Type", "application/x-protobuf")];

fn kv(key: &str, value: &str) -> KeyValue {
    KeyValue {
        key: key.into(),
        value: Some(AnyValue { value: Some(any_value::Value::StringValue(value.into())) }),
        ..Default::default()
    }
}

/// The request for `snap`.
pub(crate) fn request(snap: &Snapshot, ident: &Ident) -> ExportMetricsServiceRequest {
    let start = (snap.start_ms.max(0) as u64) * 1_000_000;
    let time = (snap.time_ms.max(0) as u64) * 1_000_000;
    let attrs = |extra: &[(&str, &str)]| -> Vec<KeyValue> {
        ident.pairs().into_iter().chain(extra.iter().copied()).map(|(k, v)| kv(k, v)).collect()
    };
    let point = |attributes: Vec<KeyValue>, v: u64| NumberDataPoint {
        attributes,
        start_time_unix_nano: start,
        time_unix_nano: time,
        value: Some(number_data_point::Value::AsInt(v as i64)),
        ..Default::default()
    };
    let sum = |name: &str, unit: &str, description: &str, points: Vec<NumberDataPoint>| Metric {
        name: name.into(),
        description: description.into(),
        unit: unit.into(),
        data: Some(metric::Data::Sum(Sum {
            data_points: points,
            aggregation_temporality: AggregationTemporality::Cumulative as i32,
            is_monotonic: true,
        })),
        ..Default::default()
    };
    // The Total first (`scope=total`), then each label (`scope=label`): see `Snapshot::rows`.
    let rows = snap.rows();
    let per_label = |f: &dyn Fn(&super::metrics::Totals) -> u64| -> Vec<NumberDataPoint> {
        rows.iter().map(|(row, l)| point(attrs(row), f(&l.totals))).collect()
    };
    let errors: Vec<NumberDataPoint> =
        rows.iter()
            .flat_map(|(row, l)| {
                l.totals.errors_by_kind.iter().map(|(k, n)| {
                    point(attrs(&row.iter().copied().chain([("kind", k.as_str())]).collect::<Vec<_>>()), *n)
                })
            })
            .collect();
    let histogram: Vec<HistogramDataPoint> = rows
        .iter()
        .map(|(row, l)| {
            let t = &l.totals;
            // OTLP counts per bucket, the last past the highest bound; ours are cumulative.
            let mut counts = Vec::with_capacity(LE_US.len() + 1);
            let mut below = 0;
            for n in t.le {
                counts.push(n - below);
                below = n;
            }
            counts.push(t.requests - below);
            HistogramDataPoint {
                attributes: attrs(row),
                start_time_unix_nano: start,
                time_unix_nano: time,
                count: t.requests,
                sum: Some(t.sum_us as f64 / 1e6),
                bucket_counts: counts,
                explicit_bounds: LE_US.iter().map(|us| *us as f64 / 1e6).collect(),
                ..Default::default()
            }
        })
        .collect();
    let users: Vec<NumberDataPoint> = snap
        .active_users
        .iter()
        .map(|(s, n)| NumberDataPoint {
            attributes: attrs(&[("scenario", s)]),
            time_unix_nano: time,
            value: Some(number_data_point::Value::AsInt(*n as i64)),
            ..Default::default()
        })
        .collect();
    let mut metrics = vec![
        sum(
            "stampede.requests",
            "{request}",
            "Requests completed (success or failure) since the run started.",
            per_label(&|t| t.requests),
        ),
        sum("stampede.errors", "{request}", "Failed requests since the run started, by error kind.", errors),
        sum(
            "stampede.received_bytes",
            "By",
            "Bytes received on the wire since the run started.",
            per_label(&|t| t.received_bytes),
        ),
        sum("stampede.sent_bytes", "By", "Bytes sent on the wire since the run started.", per_label(&|t| t.sent_bytes)),
        Metric {
            name: "stampede.latency".into(),
            description: "Elapsed time of requests.".into(),
            unit: "s".into(),
            data: Some(metric::Data::Histogram(Histogram {
                data_points: histogram,
                aggregation_temporality: AggregationTemporality::Cumulative as i32,
            })),
            ..Default::default()
        },
        Metric {
            name: "stampede.active_users".into(),
            description: "Virtual users busy at the end of the last interval, per scenario.".into(),
            unit: "{user}".into(),
            data: Some(metric::Data::Gauge(Gauge { data_points: users })),
            ..Default::default()
        },
    ];
    // A metric without points says nothing (no error yet).
    metrics.retain(|m| match &m.data {
        Some(metric::Data::Sum(s)) => !s.data_points.is_empty(),
        _ => true,
    });
    ExportMetricsServiceRequest {
        resource_metrics: vec![ResourceMetrics {
            resource: Some(Resource { attributes: vec![kv("service.name", "stampede")], ..Default::default() }),
            scope_metrics: vec![ScopeMetrics {
                scope: Some(InstrumentationScope {
                    name: "stampede".into(),
                    version: env!("CARGO_PKG_VERSION").into(),
                    ..Default::default()
                }),
                metrics,
                ..Default::default()
            }],
            ..Default::default()
        }],
    }
}

/// The body to POST.
pub(crate) fn body(snap: &Snapshot, ident: &Ident) -> Vec<u8> {
    prost::Message::encode_to_vec(&request(snap, ident))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::export::metrics::{LabelPoint, Totals};

    #[test]
    fn a_request_decodes_to_cumulative_sums_and_a_histogram_of_the_totals() {
        let mut le = [0; LE_US.len()];
        le[0] = 2;
        le[1..].fill(5);
        let snap = Snapshot {
            start_ms: 1_000,
            time_ms: 4_000,
            labels: vec![LabelPoint {
                label: "Login".into(),
                scenario: None,
                totals: Totals { requests: 6, sum_us: 1_500_000, le, ..Default::default() },
                interval: Default::default(),
            }],
            total: LabelPoint { totals: Totals { requests: 6, ..Default::default() }, ..Default::default() },
            active_users: vec![("read".into(), 3)],
            ..Default::default()
        };
        let req: ExportMetricsServiceRequest =
            prost::Message::decode(body(&snap, &Ident { run_id: "r".into(), plan: "p".into(), tag: None }).as_slice())
                .unwrap();
        let metrics = &req.resource_metrics[0].scope_metrics[0].metrics;
        let names: Vec<&str> = metrics.iter().map(|m| m.name.as_str()).collect();
        // No error yet: no errors metric.
        assert_eq!(
            names,
            [
                "stampede.requests",
                "stampede.received_bytes",
                "stampede.sent_bytes",
                "stampede.latency",
                "stampede.active_users"
            ]
        );
        let Some(metric::Data::Sum(s)) = &metrics[0].data else { panic!("requests is not a sum") };
        assert!(s.is_monotonic);
        assert_eq!(s.aggregation_temporality, AggregationTemporality::Cumulative as i32);
        // The Total first (`scope=total`, no label), then the label.
        let keys = |p: &NumberDataPoint| p.attributes.iter().map(|a| a.key.clone()).collect::<Vec<_>>();
        assert_eq!(keys(&s.data_points[0]), ["run_id", "plan", "scope"]);
        assert_eq!(keys(&s.data_points[1]), ["run_id", "plan", "scope", "label"]);
        assert_eq!(s.data_points[0].value, Some(number_data_point::Value::AsInt(6)));
        assert_eq!(s.data_points[0].start_time_unix_nano, 1_000_000_000);
        assert_eq!(s.data_points[0].time_unix_nano, 4_000_000_000);
        let Some(metric::Data::Histogram(h)) = &metrics[3].data else { panic!("latency is not a histogram") };
        let p = &h.data_points[1];
        assert_eq!(p.count, 6);
        assert_eq!(p.sum, Some(1.5));
        assert_eq!(p.bucket_counts.len(), LE_US.len() + 1);
        assert_eq!(p.bucket_counts[0], 2);
        assert_eq!(p.bucket_counts[1], 3);
        assert_eq!(p.bucket_counts.iter().sum::<u64>(), 6);
        assert_eq!(p.bucket_counts[LE_US.len()], 1);
    }
}
