//! `deploy/grafana/stampede.json` against what the exporter emits: every metric and label its
//! queries name must be in the exposition of a snapshot, so the dashboard cannot drift.

use super::exposition::render;
use super::metrics::{Ident, LabelPoint, Snapshot, Totals, NAMES};

const DASHBOARD: &str = include_str!("../../deploy/grafana/stampede.json");

/// A page with every family present: a label with an error, a scenario.
fn full_page() -> String {
    let snap = Snapshot {
        labels: vec![LabelPoint {
            label: "Login".into(),
            scenario: None,
            totals: Totals {
                requests: 3,
                errors: 1,
                errors_by_kind: vec![("timeout".into(), 1)],
                ..Default::default()
            },
            interval: Default::default(),
        }],
        active_users: vec![("browse".into(), 2)],
        ..Default::default()
    };
    render(Some(&snap), &Ident { run_id: "r".into(), plan: "p".into(), tag: Some("t".into()) })
}

/// `stampede_...` names in a query.
fn metric_names(expr: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = expr;
    while let Some(at) = rest.find("stampede_") {
        let name: String = rest[at..].chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
        rest = &rest[at + name.len()..];
        out.push(name);
    }
    out
}

/// Label names in `{name=...}` selectors and `by (a, b)` clauses.
fn label_names(expr: &str) -> Vec<String> {
    let mut out = Vec::new();
    for (open, close) in [('{', '}'), ('(', ')')] {
        for (i, _) in expr.match_indices(open) {
            let inner = &expr[i + 1..];
            let inner = &inner[..inner.find(close).unwrap_or(inner.len())];
            let selector = open == '{';
            if !selector && !expr[..i].trim_end().ends_with("by") {
                continue;
            }
            for part in inner.split(',') {
                let name: String = part.trim().chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
                if !name.is_empty() {
                    out.push(name);
                }
            }
        }
    }
    out
}

/// Every PromQL expression of the dashboard: panel targets and variable queries.
pub(super) fn expressions() -> Vec<String> {
    let d: serde_json::Value = serde_json::from_str(DASHBOARD).expect("the dashboard is JSON");
    let mut exprs: Vec<String> = d["panels"]
        .as_array()
        .expect("panels")
        .iter()
        .flat_map(|p| p["targets"].as_array().cloned().unwrap_or_default())
        .map(|t| t["expr"].as_str().expect("a target without expr").to_string())
        .collect();
    for v in d["templating"]["list"].as_array().expect("variables") {
        if let Some(q) = v["query"]["query"].as_str() {
            exprs.push(q.to_string());
        }
    }
    exprs
}

#[test]
fn the_dashboard_is_grafana_json_with_its_variables_and_panels() {
    let d: serde_json::Value = serde_json::from_str(DASHBOARD).expect("the dashboard is JSON");
    assert!(d["schemaVersion"].as_u64().is_some_and(|v| v >= 36), "schemaVersion");
    assert_eq!(d["uid"], "stampede-live");
    let vars: Vec<&str> =
        d["templating"]["list"].as_array().unwrap().iter().map(|v| v["name"].as_str().unwrap()).collect();
    assert_eq!(vars, ["datasource", "run", "label"]);
    assert_eq!(d["templating"]["list"][0]["type"], "datasource");
    assert_eq!(d["templating"]["list"][0]["query"], "prometheus");
    let panels = d["panels"].as_array().unwrap();
    let mut ids = std::collections::HashSet::new();
    for p in panels {
        assert!(ids.insert(p["id"].as_u64().expect("panel id")), "duplicate panel id");
        assert_eq!(p["datasource"]["uid"], "${datasource}", "{}", p["title"]);
        assert!(!p["targets"].as_array().unwrap().is_empty(), "{} has no query", p["title"]);
        for k in ["x", "y", "w", "h"] {
            assert!(p["gridPos"][k].is_u64(), "{} gridPos.{k}", p["title"]);
        }
    }
    let all = expressions().join("\n");
    for wanted in [
        "rate(stampede_requests_total",
        "stampede_errors_total",
        "histogram_quantile(0.99",
        "stampede_received_bytes_total",
        "stampede_active_users",
    ] {
        assert!(all.contains(wanted), "no panel uses {wanted}");
    }
}

#[test]
fn every_metric_and_label_the_dashboard_names_is_exported() {
    let page = full_page();
    for name in NAMES {
        assert!(page.contains(&format!("\n{name}{{")), "{name} is listed but not on the page");
    }
    let emitted_labels = ["run_id", "plan", "tag", "scope", "label", "kind", "le", "scenario", "agent"];
    for line in page.lines().filter(|l| !l.starts_with('#')) {
        for l in label_names(line) {
            assert!(emitted_labels.contains(&l.as_str()), "{l} emitted but not known here");
        }
    }
    for expr in expressions() {
        let names = metric_names(&expr);
        assert!(!names.is_empty(), "{expr} names no stampede metric");
        for n in names {
            assert!(NAMES.contains(&n.as_str()), "{expr}: `{n}` is not exported");
        }
        for l in label_names(&expr) {
            assert!(emitted_labels.contains(&l.as_str()), "{expr}: label `{l}` is not exported");
        }
    }
}

#[test]
fn every_query_picks_the_total_or_the_labels_never_both() {
    // A request query without `scope` would add the Total to the labels (and the labels count a
    // group and a redirect chain beside their exchanges): each names one scope.
    let d: serde_json::Value = serde_json::from_str(DASHBOARD).expect("the dashboard is JSON");
    for p in d["panels"].as_array().unwrap() {
        let title = p["title"].as_str().unwrap();
        for t in p["targets"].as_array().unwrap() {
            let expr = t["expr"].as_str().unwrap();
            if expr.contains("stampede_active_users") {
                continue;
            }
            let total = expr.contains("scope=\"total\"");
            let labels = expr.contains("scope=\"label\"");
            assert!(total != labels, "{title}: {expr}");
            let headline = ["Requests", "Errors", "Error %", "Latency percentiles"].contains(&title);
            assert!(!headline || total, "{title} is a headline: the Total series, not a sum of labels");
            assert!(!total || !expr.contains("$label"), "{title}: the Total has no label to filter");
        }
    }
}
