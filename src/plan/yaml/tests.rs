//! The reader on whole plans: what a plan becomes, and what each kind of mistake is told.

use super::*;
use crate::plan::flow;
use crate::plan::sampler::http::{Body, Param};
use crate::plan::sampler::Sampler;

fn load(src: &str) -> Result<Plan, Error> {
    read(src, Path::new("t.yaml"), &HashMap::new())
}

const OK: &str = r#"
name: mix
variables:
  host: 127.0.0.1
  port: ${__P(port,8080)}
defaults:
  base_url: http://${host}:${port}
  headers: {Accept: application/json}
  keep_alive: true
scenarios:
  - name: consumption
    workload: {users: 10, ramp_up: 2s, duration: 10s}
    flow:
      - mix:
          - weight: 4
            request: {label: ContentRead, url: /api/content/v1/read/do_1}
          - weight: 1
            flow:
              - request: {label: OrgSearch, method: POST, url: /api/org/v1/search, json: {request: {filters: {}}}}
              - think: {min: 10ms, max: 20ms}
      - think: 5ms
  - name: open
    workload: {rate: 100, duration: 5s, max_users: 50}
    flow:
      - request: {url: "/v1/tenant/info?x=1", query: {y: "a b"}, gzip: true, body: hello}
"#;

#[test]
fn reads_a_full_plan() {
    let p = load(OK).unwrap();
    assert_eq!(p.name, "mix");
    let named: Vec<&String> = p.labels.iter().filter(|l| !l.contains('-')).collect();
    assert_eq!(named, ["ContentRead", "OrgSearch", "/v1/tenant/info"]);
    assert!(p.labels.contains(&"ContentRead-20".to_string()), "hops of followed redirects have labels");
    let Step::Mix(b) = &p.scenarios[0].flow[0] else { panic!() };
    assert_eq!(b[0].weight, 4.0);
    let Step::Sample(Sampler::Http(r)) = &b[0].steps[0] else { panic!() };
    assert_eq!(r.target.port, 8080);
    assert_eq!(r.headers, [("Accept".to_string(), Template::literal("application/json"))]);
    let Step::Sample(Sampler::Http(r)) = &b[1].steps[0] else { panic!() };
    assert_eq!(r.method, "POST");
    assert_eq!(r.body, Body::Text(Template::literal(r#"{"request":{"filters":{}}}"#)));
    let Workload::Open(o) = &p.scenarios[1].workload else { panic!() };
    assert_eq!((o.start_rate, o.max_users), (100.0, 50));
    // Stages of users: the closed model's schedule (the Stepping thread group's shape).
    let src = "scenarios:\n  - workload:\n      start_users: 2\n      start_delay: 1s\n      stages:\n        - {users: 2, duration: 1m}\n        - {users: 4, duration: 0s}\n        - {users: 4, duration: 1m}\n    flow: [{request: {url: 'http://127.0.0.1/'}}]\n";
    let staged = load(src).unwrap();
    let Workload::Shaped(w) = &staged.scenarios[0].workload else { panic!("{:?}", staged.scenarios[0].workload) };
    let secs = |t: &[std::time::Duration]| t.iter().map(|d| d.as_secs()).collect::<Vec<u64>>();
    assert_eq!(secs(&w.starts.0), [1, 1, 61, 61]);
    assert_eq!(secs(&w.stops.as_ref().unwrap().0), [121, 121, 121, 121]);
    let Step::Sample(Sampler::Http(r)) = &p.scenarios[1].flow[0] else { panic!() };
    assert_eq!(r.path.as_const(), Some("/v1/tenant/info?x=1"));
    assert_eq!(r.query, [Param::new("y", Template::literal("a b"))]);
    assert!(r.gzip);
}

#[test]
fn properties_override_defaults() {
    let props = HashMap::from([("port".to_string(), "9999".to_string())]);
    let p = read(OK, Path::new("t.yaml"), &props).unwrap();
    flow::for_each_request(&p.scenarios[0].flow, &mut |r| assert_eq!(r.target.port, 9999));
}

#[test]
fn syntax_error_names_line_and_column() {
    let e = load("scenarios:\n  - name: x\n    workload: {users: 1\n").unwrap_err();
    assert_eq!(e.kind, ErrorKind::Syntax);
    assert!(e.location.line.is_some(), "{e}");
}

#[test]
fn unknown_field_suggests_closest() {
    let e =
        load("scenarios:\n  - workload: {usres: 1, duration: 1s}\n    flow: [{request: {url: 'http://127.0.0.1/'}}]\n")
            .unwrap_err();
    assert_eq!(e.kind, ErrorKind::UnknownField);
    assert!(e.to_string().contains("did you mean `users`?"), "{e}");
    assert_eq!(e.location.line, Some(2), "{e}");
}

#[test]
fn semantic_errors_name_the_element() {
    let cases = [
        ("scenarios: []", "at least one scenario"),
        ("scenarios: [{workload: {users: 1}, flow: [{request: {url: 'http://127.0.0.1/'}}]}]", "iterations"),
        ("scenarios: [{workload: {users: 1, rate: 5}, flow: []}]", "either closed"),
        ("scenarios: [{workload: {users: 1, duration: 1s}, flow: [{request: {url: '/x'}}]}]", "base_url"),
        ("scenarios: [{workload: {users: 1, duration: 1s}, flow: [{request: {url: 'http://127.0.0.1/', body_file: nope.bin}}]}]", "nope.bin"),
        ("scenarios: [{workload: {users: 1, duration: soon}, flow: [{request: {url: 'http://127.0.0.1/'}}]}]", "`soon` is not a duration"),
        ("scenarios: [{workload: {users: 1, duration: 1s}, flow: [{think: 1s}]}]", "sends no request"),
        ("scenarios: [{workload: {users: 1, duration: 1s}, flow: [{request: {url: 'http://${hots}/'}}]}]", "unknown variable"),
        ("defaults: {response_timeout: 0s}\nscenarios: [{workload: {users: 1, duration: 1s}, flow: [{request: {url: 'http://127.0.0.1/'}}]}]", "above zero"),
        ("scenarios: [{workload: {users: 1, duration: 1e20}, flow: [{request: {url: 'http://127.0.0.1/'}}]}]", "at most 365 days"),
        // #11: a zero run time still sent (each user started an iteration).
        ("scenarios: [{workload: {users: 1, duration: 0s}, flow: [{request: {url: 'http://127.0.0.1/'}}]}]", "`duration` must be above zero"),
        ("scenarios: [{workload: {users: 1, iterations: 5, duration: 0}, flow: [{request: {url: 'http://127.0.0.1/'}}]}]", "`duration` must be above zero"),
        ("scenarios: [{workload: {rate: 5, duration: 0ms}, flow: [{request: {url: 'http://127.0.0.1/'}}]}]", "`duration` must be above zero"),
        ("scenarios: [{workload: {stages: [{rate: 5, duration: 0s}]}, flow: [{request: {url: 'http://127.0.0.1/'}}]}]", "0s in all"),
        ("scenarios: [{workload: {stages: [{users: 5, duration: 0s}]}, flow: [{request: {url: 'http://127.0.0.1/'}}]}]", "0s in all"),
        ("scenarios: [{workload: {stages: [{users: 0, duration: 1s}]}, flow: [{request: {url: 'http://127.0.0.1/'}}]}]", "no stage has a user"),
        ("scenarios: [{workload: {stages: [{users: 5, duration: 1s}, {rate: 5, duration: 1s}]}, flow: [{request: {url: 'http://127.0.0.1/'}}]}]", "missing field `users`"),
        ("scenarios: [{workload: {stages: [{users: 5, rate: 2, duration: 1s}]}, flow: [{request: {url: 'http://127.0.0.1/'}}]}]", "not both"),
        ("scenarios: [{workload: {users: 3, stages: [{users: 5, duration: 1s}]}, flow: [{request: {url: 'http://127.0.0.1/'}}]}]", "only `start_users`"),
        ("scenarios: [{workload: {start_users: 3, rate: 5, duration: 1s}, flow: [{request: {url: 'http://127.0.0.1/'}}]}]", "`start_users` goes with `stages` of users"),
    ];
    for (src, want) in cases {
        let e = load(src).unwrap_err().to_string();
        assert!(e.contains(want), "{src}\n→ {e}");
        assert!(e.starts_with("t.yaml"), "{e}");
    }
}

/// #11: a byte-order mark before the document was read as part of the first key.
#[test]
fn a_byte_order_mark_is_skipped() {
    let p = load(
        "\u{feff}scenarios: [{workload: {users: 1, iterations: 1}, flow: [{request: {url: 'http://127.0.0.1/'}}]}]",
    );
    assert_eq!(p.unwrap().scenarios.len(), 1);
}

/// #11: a non-ASCII character before a template in a URL panicked (a byte offset inside
/// a character); the path keeps its characters (the engine percent-encodes them on the wire).
#[test]
fn non_ascii_before_a_template_in_a_url() {
    for (base, url, want) in [
        ("http://127.0.0.1:1/api", "/café/${id}", "/api/café/"),
        ("http://127.0.0.1:1", "/é${__UUID()}", "/é"),
        ("http://127.0.0.1:1", "http://127.0.0.1:2/ü/${id}", "/ü/"),
    ] {
        let src = format!("variables: {{id: 7}}\ndefaults: {{base_url: '{base}'}}\nscenarios: [{{workload: {{users: 1, iterations: 1}}, flow: [{{request: {{url: '{url}'}}}}]}}]");
        let p = load(&src).unwrap_or_else(|e| panic!("{url}: {e}"));
        let mut paths = vec![];
        flow::for_each_request(&p.scenarios[0].flow, &mut |r| paths.push(r.path.source().to_string()));
        assert!(paths[0].starts_with(want), "{url}: {paths:?}");
    }
}

/// Writes files into a fresh directory and loads `plan` from there.
fn load_in_dir(plan: &str, files: &[(&str, &str)]) -> Result<Plan, Error> {
    let dir = std::env::temp_dir().join(format!("stampede-yaml-{}-{}", std::process::id(), rand::random::<u64>()));
    std::fs::create_dir_all(&dir).unwrap();
    for (name, text) in files {
        std::fs::write(dir.join(name), text).unwrap();
    }
    let r = read(plan, &dir.join("plan.yaml"), &HashMap::new());
    let _ = std::fs::remove_dir_all(&dir);
    r
}

const FLOW: &str = r#"
variables: {base: "http://127.0.0.1:9"}
data:
  - {file: users.csv, share: user, on_eof: stop_user}
scenarios:
  - workload: {users: 2, iterations: 3}
    pacing: 100ms
    flow:
      - once:
          - request:
              label: login
              method: POST
              url: ${base}/login
              form: {user: "${user}", pass: "${pass}"}
              extract:
                - {json: "$.token", into: token, required: true}
                - {regex: 'sid=(\w+)', from: headers, into: sid, default: none}
                - {cookie: SESSION, into: session}
              check:
                - status: 2xx
                - body_contains: ok
      - loop:
          count: 2
          flow:
            - group:
                name: browse
                flow:
                  - request:
                      url: "${base}/content/${__counter(TRUE)}?u=${user}"
                      headers: {Authorization: "Bearer ${token}"}
                      follow_redirects: false
                      check: [{json: "$.id", equals: "${user}"}, {max_duration: 2s, message: slow}]
      - if: "${token} != ''"
        then: [{set: {seen: "yes"}}]
        else: [{think: 1ms}]
      - write: {file: out.csv, values: ["${user}", "${token}"], header: [user, token]}
"#;

#[test]
fn reads_a_flow_with_data_extractors_and_checks() {
    let p = load_in_dir(FLOW, &[("users.csv", "user,pass\nu1,p1\nu2,p2\n")]).unwrap();
    assert_eq!(p.data.len(), 1);
    assert_eq!(p.data[0].names, ["user", "pass"]);
    assert_eq!(p.data[0].file.rows(), 2);
    assert_eq!((p.data[0].share, p.data[0].on_eof), (Share::User, OnEof::StopUser));
    assert_eq!(p.scenarios[0].pacing, Some(Duration::from_millis(100)));
    assert!(matches!(p.scenarios[0].flow[0], Step::Feed(0)), "data files are read as each iteration starts");
    assert_eq!(
        p.checks,
        [
            "more than 20 redirects",
            "extract token: nothing found by $.token",
            "status is 200-299",
            "body contains \"ok\"",
            "$.id equals \"${user}\"",
            "slow"
        ]
    );
    let mut reqs = Vec::new();
    for sc in &p.scenarios {
        flow::for_each_request(&sc.flow, &mut |r| reqs.push(r.clone()));
    }
    let login = &reqs[0];
    assert!(matches!(&login.body, Body::Form(f) if f.len() == 2));
    assert_eq!(login.after.extract.len(), 3);
    assert!(login.follow_redirects);
    let browse = &reqs[1];
    assert!(!browse.path.is_const());
    assert_eq!(browse.target.port, 9);
    assert!(!browse.follow_redirects && browse.hop_labels.is_empty());
    assert_eq!(p.slots, Slots { loops: 1, once: 1, groups: 1, ..Default::default() });
    assert_eq!(p.writers.len(), 1);
    assert!(p.labels.contains(&"browse".to_string()));
    // Plan variables that nothing assigns are folded into constant text.
    let v = p.vars.get("base").unwrap();
    assert!(!p.vars.is_assigned(v));
    let yaml = p.to_resolved_yaml();
    assert!(!yaml.starts_with("# could not"), "{yaml}");
    assert!(yaml.contains("Authorization: '***'") || yaml.contains("Authorization: \"***\""), "{yaml}");
    assert!(yaml.contains("pass: '***'"), "form fields named like secrets are redacted: {yaml}");
}

#[test]
fn flow_errors_name_the_element() {
    let users = ("users.csv", "user,pass\nu1,p1\n");
    type Case<'a> = (&'a str, &'a [(&'a str, &'a str)], &'a str);
    let cases: &[Case] = &[
        (
            "scenarios: [{workload: {users: 1, iterations: 1}, flow: [{request: {url: 'http://127.0.0.1/${nope}'}}]}]",
            &[],
            "flow[0].request.url: unknown variable `${nope}`",
        ),
        (
            "scenarios: [{workload: {users: 1, iterations: 1}, flow: [{request: {url: 'http://127.0.0.1/', extract: [{regex: '(', into: x}]}}]}]",
            &[],
            "extract[0].regex: invalid regular expression",
        ),
        (
            "scenarios: [{workload: {users: 1, iterations: 1}, flow: [{request: {url: 'http://127.0.0.1/', extract: [{json: '$[', into: x}]}}]}]",
            &[],
            "extract[0].json: invalid JSONPath",
        ),
        (
            "scenarios: [{workload: {users: 1, iterations: 1}, flow: [{request: {url: 'http://127.0.0.1/', extract: [{regex: 'a(b)', template: '$2$', into: x}]}}]}]",
            &[],
            "a group the regex does not have",
        ),
        (
            "data: [{file: missing.csv}]\nscenarios: [{workload: {users: 1, iterations: 1}, flow: [{request: {url: 'http://127.0.0.1/'}}]}]",
            &[],
            "missing.csv",
        ),
        (
            "data: [{file: users.csv, share: everyone}]\nscenarios: [{workload: {users: 1, iterations: 1}, flow: [{request: {url: 'http://127.0.0.1/'}}]}]",
            &[users],
            "`everyone` is not a sharing mode",
        ),
        (
            "scenarios: [{workload: {users: 1, iterations: 1}, flow: [{request: {url: 'http://127.0.0.1/', check: [{status: 200, body_contains: x}]}}]}]",
            &[],
            "a check has exactly one of",
        ),
        (
            "scenarios: [{workload: {users: 1, iterations: 1}, flow: [{loop: {flow: []}}, {request: {url: 'http://127.0.0.1/'}}]}]",
            &[],
            "a loop needs `count`, `while`, or both",
        ),
        (
            "scenarios: [{workload: {rate: 5, duration: 1s}, pacing: 1s, flow: [{request: {url: 'http://127.0.0.1/'}}]}]",
            &[],
            "pacing applies to the closed model",
        ),
        (
            "scenarios: [{workload: {users: 1, iterations: 1}, flow: [{request: {url: 'http://127.0.0.1/${__Randm(1,2)}'}}]}]",
            &[],
            "did you mean `__Random`?",
        ),
    ];
    for (src, files, want) in cases {
        let e = load_in_dir(src, files).unwrap_err().to_string();
        assert!(e.contains(want), "{src}\n→ {e}");
    }
}

#[test]
fn data_file_errors_name_file_and_line() {
    let plan = "data: [{file: d.csv}]\nscenarios: [{workload: {users: 1, iterations: 1}, flow: [{request: {url: 'http://127.0.0.1/${a}'}}]}]";
    let e = load_in_dir(plan, &[("d.csv", "a,b\n1,2\n3\n")]).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Data);
    assert!(e.location.file.as_ref().unwrap().ends_with("d.csv"), "{e}");
    assert_eq!(e.location.line, Some(3), "{e}");
    let e = load_in_dir(plan, &[("d.csv", "")]).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Data, "{e}");
}

#[test]
fn url_paths_split_from_their_hosts() {
    let cases = [
        ("http://127.0.0.1:9/a/${x}?q=${y}", 18),
        ("http://${host}:${port}/a", 22),
        ("${base}/a/${x}", 7),
        ("/a/${x}", 0),
        ("a/${x}", 0),
        ("http://${host}", 14),
        ("https://h/${__P(p,/x)}", 9),
    ];
    for (raw, want) in cases {
        assert_eq!(url_path_start(raw), want, "{raw}");
    }
}

#[test]
fn a_host_from_a_run_time_variable_is_resolved_per_request() {
    let p = load(
        "scenarios: [{workload: {users: 1, iterations: 1}, flow: [{request: {url: 'http://${later}/x'}}, {set: {later: 1}}]}]",
    )
    .unwrap();
    let Step::Sample(Sampler::Http(r)) = &p.scenarios[0].flow[0] else { panic!() };
    assert_eq!(r.origin.as_ref().map(|o| o.source()), Some("http://${later}"));
    assert_eq!(r.path.as_const(), Some("/x"));
}

#[test]
fn a_url_variable_assigned_later_stays_a_template() {
    let p = load(
        "variables: {cursor: ''}\nscenarios: [{workload: {users: 1, iterations: 1}, flow: [{request: {url: 'http://127.0.0.1/list?c=${cursor}', extract: [{json: $.next, into: cursor}]}}]}]",
    )
    .unwrap();
    let Step::Sample(Sampler::Http(r)) = &p.scenarios[0].flow[0] else { panic!() };
    assert!(!r.path.is_const(), "the extractor assigns `cursor` while running");
    let p = load("variables: {v: x}\nscenarios: [{workload: {users: 1, iterations: 1}, flow: [{request: {url: 'http://127.0.0.1/${v}'}}]}]").unwrap();
    let Step::Sample(Sampler::Http(r)) = &p.scenarios[0].flow[0] else { panic!() };
    assert_eq!(r.path.as_const(), Some("/x"), "a plan variable nothing assigns is folded");
}

#[test]
fn sizes_and_durations() {
    assert_eq!(parse_size("10MiB"), Some(10 << 20));
    assert_eq!(parse_size("512kb"), Some(512 << 10));
    assert_eq!(parse_size("12"), Some(12));
    assert_eq!(parse_size("1x"), None);
    assert_eq!(parse_duration("1m30s"), Some(Duration::from_secs(90)));
    assert_eq!(parse_duration("1.5"), Some(Duration::from_millis(1500)));
    assert_eq!(parse_duration("-1"), None);
    assert_eq!(parse_duration("1e20"), None);
    assert_eq!(parse_duration("400days"), None);
    assert_eq!(parse_duration("NaN"), None);
}

/// Issue 12: every error names file:line:column of what the user must fix, also where the
/// same text appears on another line (a comment here), which the old text search could not
/// place.
#[test]
fn errors_name_line_and_column_even_where_the_text_repeats() {
    let head = "scenarios:\n  - workload: {users: 1, iterations: 1}\n    flow:\n";
    // (flow lines after `head`, the text on the line the error is at, the kind, the message)
    let cases: &[(&str, &str, ErrorKind, &str)] = &[
        (
            "      # labl\n      - request: {url: 'http://127.0.0.1/', labl: x}\n",
            "labl",
            ErrorKind::UnknownField,
            "unknown field `labl`",
        ),
        (
            "      # headers: [x]\n      - request: {url: 'http://127.0.0.1/', headers: [x]}\n",
            "[x]",
            ErrorKind::WrongType,
            "invalid type: sequence, expected a YAML mapping",
        ),
        (
            "      # soon\n      - think: soon\n      - request: {url: 'http://127.0.0.1/'}\n",
            "soon",
            ErrorKind::Invalid,
            "`soon` is not a duration",
        ),
        ("      # ftp://h/\n      - request: {url: 'ftp://h/'}\n", "'ftp", ErrorKind::Invalid, "ftp"),
        ("      # {label: a}\n      - request: {label: a}\n", "{label", ErrorKind::Missing, "missing field `url`"),
        (
            "      # ${nope}\n      - request: {url: 'http://127.0.0.1/${nope}'}\n",
            "'http",
            ErrorKind::Template,
            "unknown variable `${nope}`",
        ),
        (
            "      # 2xy\n      - request: {url: 'http://127.0.0.1/', check: [{status: 2xy}]}\n",
            "2xy",
            ErrorKind::Invalid,
            "`2xy` is not a status",
        ),
        (
            "      # url\n      - request: {url: 'http://127.0.0.1/', url: 'http://127.0.0.1/'}\n",
            "url: 'http://127.0.0.1/'}",
            ErrorKind::Syntax,
            "duplicate key `url` (first at line 5)",
        ),
        (
            "      # regex\n      - request: {url: 'http://127.0.0.1/', extract: [{regex: '(', into: x}]}\n",
            "'('",
            ErrorKind::Invalid,
            "invalid regular expression",
        ),
    ];
    for (flow, at, kind, says) in cases {
        let src = format!("{head}{flow}");
        let e = load(&src).unwrap_err();
        let line = 5;
        let column = src.lines().nth(line - 1).unwrap().find(at).unwrap() + 1;
        assert_eq!((e.kind, e.location.line, e.location.column), (*kind, Some(line), Some(column)), "{src}\n→ {e}");
        assert!(e.to_string().starts_with(&format!("t.yaml:{line}:{column}: ")), "{e}");
        assert!(e.message.contains(says), "{src}\n→ {e}");
    }
}

#[test]
fn plan_level_errors_name_line_and_column() {
    // A threshold's row that no request has, with the text also in a comment.
    let src = "# Lgin\nscenarios:\n  - workload: {users: 1, iterations: 1}\n    flow: [{request: {url: 'http://127.0.0.1/', label: Login}}]\nthresholds:\n  Lgin: p95 < 1s\n";
    let e = load(src).unwrap_err();
    assert_eq!((e.kind, e.location.line, e.location.column), (ErrorKind::UnknownReference, Some(6), Some(3)), "{e}");
    assert!(e.message.contains("did you mean `Login`?"), "{e}");
    // Stop conditions: read, written back; a wrong one named where it is.
    let head = "scenarios:\n  - workload: {users: 1, iterations: 1}\n    flow: [{request: {url: 'http://127.0.0.1/', label: Login}}]\n";
    let plan = load(&format!("{head}stop_on: ['error_pct > 5 for 60s', 'Login: p95 > 2s']\n")).unwrap();
    let texts: Vec<String> = plan.stop_on.iter().map(|s| s.to_string()).collect();
    assert_eq!(texts, ["error_pct > 5% for 1m", "Login: p95 > 2000ms"]);
    assert_eq!(load(&format!("{head}stop_on: p99 > 1s for 10s\n")).unwrap().stop_on.len(), 1);
    let e = load(&format!("{head}stop_on:\n  - error_pct > 5 for ever\n")).unwrap_err();
    assert_eq!((e.location.line, e.location.column), (Some(5), Some(5)), "{e}");
    let e = load(&format!("{head}stop_on:\n  - 'Lgin: p95 > 1s'\n")).unwrap_err();
    assert!(e.message.contains("did you mean `Login`?"), "{e}");
    // A workload key given twice; a stage without its rate.
    let e = load("scenarios:\n  - workload: {users: 1,\n      users: 2}\n    flow: []\n").unwrap_err();
    assert_eq!((e.location.line, e.location.column), (Some(3), Some(7)), "{e}");
    let e = load("scenarios:\n  - workload:\n      stages:\n        - {duration: 1s}\n    flow: []\n").unwrap_err();
    assert_eq!((e.kind, e.location.line, e.location.column), (ErrorKind::Missing, Some(4), Some(11)), "{e}");
    // A value from an alias is placed where the alias is used.
    let e = load("variables: {d: &d soon}\nscenarios:\n  - workload: {users: 1, duration: *d}\n    flow: []\n")
        .unwrap_err();
    assert_eq!((e.location.line, e.location.column), (Some(3), Some(36)), "{e}");
}

/// Merge keys, anchors and multi-line strings read as YAML says.
#[test]
fn merge_keys_anchors_and_block_strings() {
    let src = "scenarios:\n  - workload: {users: 1, iterations: 1}\n    flow:\n      - request: &req {url: 'http://127.0.0.1/a', label: base}\n      - request:\n          <<: *req\n          label: merged\n          body: |\n            one\n            two\n";
    let p = load(src).unwrap();
    let Step::Sample(Sampler::Http(r)) = &p.scenarios[0].flow[1] else { panic!() };
    assert_eq!((p.labels[r.label.index()].as_str(), r.path.source()), ("merged", "/a"));
    assert_eq!(r.body, Body::Text(Template::literal("one\ntwo\n")));
}

#[test]
fn issue31_an_unquoted_expression_in_a_flow_mapping_says_to_quote_it() {
    let flow = "    flow: [{request: {url: 'http://127.0.0.1/'}}]\n";
    for (src, line, says) in [
        (format!("scenarios:\n  - name: x\n    workload: {{users: ${{__P(users,60)}}}}\n{flow}"), 3, "quote it: users: \"${__P(users,60)}\""),
        (
            format!("scenarios:\n  - name: x\n    workload: {{duration: 1s,\n      users: ${{__P(u,${{__P(v,2)}})}}}}\n{flow}"),
            4,
            "quote it: users: \"${__P(u,${__P(v,2)})}\"",
        ),
        ("scenarios:\n  - name: x\n    workload: {users: 1, duration: 1s}\n    flow: [${__P(a,b)}]\n".to_string(), 4, "quote it: \"${__P(a,b)}\""),
    ] {
        let e = load(&src).unwrap_err();
        assert_eq!(e.kind, ErrorKind::Syntax, "{e}");
        let text = e.to_string();
        assert!(text.contains(&format!("t.yaml:{line}: a `${{...}}` inside")) && text.contains(says), "{src}\n{text}");
    }
    // Quoted, it reads; and a syntax error with no expression in a flow gets no such hint.
    load(&format!("scenarios:\n  - name: x\n    workload: {{users: \"${{__P(users,60)}}\", duration: 1s}}\n{flow}"))
        .unwrap();
    let e = load("scenarios:\n  - name: x\n    url: http://h/${a}\n    workload: {users: 1\n").unwrap_err();
    assert!(!e.to_string().contains("quote it"), "{e}");
}

#[test]
fn issue31_a_syntax_error_after_non_ascii_text_is_an_error_not_a_panic() {
    // The hint's scan went byte by byte and sliced the line inside `é`.
    let e = load("name: café\nscenarios:\n  - name: x\n    workload: {users: 1\n").unwrap_err();
    assert_eq!(e.kind, ErrorKind::Syntax, "{e}");
    let e = load("scenarios:\n  - name: ü\n    workload: {名前: ${x}, users: 1}\n    flow: []\n").unwrap_err();
    assert_eq!(e.kind, ErrorKind::Syntax, "{e}");
    assert!(e.to_string().contains("quote it: 名前: \"${x}\""), "{e}");
    let e = load("scenarios:\n  - name: x\n    workload: {users: ${é}, ü: 1}\n").unwrap_err();
    assert!(e.to_string().contains("quote it: users: \"${é}\""), "{e}");
}
