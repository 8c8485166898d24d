//! A PromQL instant query through Prometheus' HTTP API (`GET /api/v1/query?query=…`), read as
//! one number: a scalar, or a vector's series summed (what a dashboard's single stat of a
//! `sum(…)` shows). A query that returns no series is an error, never a zero: "no data" and
//! "zero cores" are different answers.

use serde::Deserialize;

#[derive(Deserialize)]
struct Answer {
    status: String,
    #[serde(default)]
    data: Option<Data>,
    #[serde(default)]
    error: Option<String>,
}

#[derive(Deserialize)]
#[serde(tag = "resultType", content = "result", rename_all = "lowercase")]
enum Data {
    Scalar((f64, String)),
    Vector(Vec<Series>),
    Matrix(serde::de::IgnoredAny),
    String(serde::de::IgnoredAny),
}

#[derive(Deserialize)]
struct Series {
    value: (f64, String),
}

/// The query's value, and how many series were summed into it.
pub(super) fn value(body: &[u8]) -> Result<(f64, usize), String> {
    let answer: Answer = serde_json::from_slice(body).map_err(|e| format!("not a Prometheus API answer: {e}"))?;
    if answer.status != "success" {
        return Err(format!("the query failed: {}", answer.error.unwrap_or(answer.status)));
    }
    let number = |s: &str| match s {
        "NaN" => Err("the query's value is NaN".to_string()),
        "+Inf" | "-Inf" => Err(format!("the query's value is {s}")),
        _ => s.parse::<f64>().map_err(|_| format!("`{s}` is not a number")),
    };
    match answer.data.ok_or("the answer has no data")? {
        Data::Scalar((_, v)) => Ok((number(&v)?, 1)),
        Data::Vector(series) if series.is_empty() => Err("the query returned no series".into()),
        Data::Vector(series) => {
            let mut sum = 0.0;
            for s in &series {
                sum += number(&s.value.1)?;
            }
            Ok((sum, series.len()))
        }
        Data::Matrix(_) => Err("the query returned a range (matrix): give an instant query".into()),
        Data::String(_) => Err("the query returned a string".into()),
    }
}

/// `base` + `/api/v1/query?query=QUERY`, keeping a path prefix the server is mounted under.
pub(super) fn query_url(base: &url::Url, query: &str) -> url::Url {
    let mut u = base.clone();
    let path = format!("{}/api/v1/query", u.path().trim_end_matches('/'));
    u.set_path(&path);
    u.query_pairs_mut().append_pair("query", query);
    u
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scalars_vectors_and_failures() {
        let scalar = br#"{"status":"success","data":{"resultType":"scalar","result":[1700000000.1,"2.5"]}}"#;
        assert_eq!(value(scalar).unwrap(), (2.5, 1));
        let vector = br#"{"status":"success","data":{"resultType":"vector","result":[
            {"metric":{"pod":"a"},"value":[1700000000,"1.25"]},{"metric":{"pod":"b"},"value":[1700000000,"0.75"]}]}}"#;
        assert_eq!(value(vector).unwrap(), (2.0, 2));
        let empty = br#"{"status":"success","data":{"resultType":"vector","result":[]}}"#;
        assert_eq!(value(empty).unwrap_err(), "the query returned no series");
        let bad = br#"{"status":"error","errorType":"bad_data","error":"parse error at char 4"}"#;
        assert_eq!(value(bad).unwrap_err(), "the query failed: parse error at char 4");
        let nan = br#"{"status":"success","data":{"resultType":"scalar","result":[1,"NaN"]}}"#;
        assert!(value(nan).is_err());
        assert!(value(b"<html>").is_err());
    }

    #[test]
    fn the_query_is_encoded_under_the_base_path() {
        let base = url::Url::parse("http://127.0.0.1:9090/prom/").unwrap();
        let u = query_url(&base, "sum(rate(x{a=\"b\"}[1m]))");
        assert_eq!(u.path(), "/prom/api/v1/query");
        assert_eq!(u.query_pairs().next().unwrap().1, "sum(rate(x{a=\"b\"}[1m]))");
    }
}
