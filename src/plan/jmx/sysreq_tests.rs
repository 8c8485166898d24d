//! Issue 32 (sysreq): what JMeter loads and tests or fails only at run time — a Response
//! Assertion on "Request Data", an If condition that does not parse, a TCP Sampler whose client
//! class is not JMeter's.

use super::synthetic::tests::plan_of;
use super::*;
use crate::plan::sampler::socket::{SocketKind, TcpClient};

fn inspect_text(text: &str) -> Inspection {
    inspect(text, Path::new("t.jmx"), &Options::default())
}

fn status_of(i: &Inspection, name: &str) -> (Status, String) {
    let r = i.elements.iter().find(|r| r.name == name).unwrap_or_else(|| panic!("{name} not listed: {:?}", i.elements));
    (r.status, r.note.clone())
}

fn http(name: &str, children: &str) -> String {
    format!(
        r#"<HTTPSamplerProxy testclass="HTTPSamplerProxy" testname="{name}" enabled="true">
          <stringProp name="HTTPSampler.domain">127.0.0.1</stringProp>
          <stringProp name="HTTPSampler.path">/</stringProp>
          <stringProp name="HTTPSampler.method">GET</stringProp>
        </HTTPSamplerProxy><hashTree>{children}</hashTree>"#
    )
}

#[test]
fn a_response_assertion_on_request_data_checks_the_request_data() {
    let ra = r#"<ResponseAssertion testclass="ResponseAssertion" testname="ra" enabled="true"><collectionProp name="Asserion.test_strings"><stringProp name="1">GET</stringProp></collectionProp><intProp name="Assertion.test_type">16</intProp><stringProp name="Assertion.test_field">Assertion.request_data</stringProp></ResponseAssertion><hashTree/>"#;
    let i = inspect_text(&plan_of(&http("get", ra)));
    assert!(i.problems.is_empty(), "{:?}", i.problems);
    assert_eq!(status_of(&i, "ra").0, Status::Supported);
    let plan = i.plan.unwrap();
    let mut fields = Vec::new();
    crate::plan::flow::for_each_request(&plan.scenarios[0].flow, &mut |r| {
        for c in &r.after.checks {
            if let CheckTest::Contains { field, .. } = &c.test {
                fields.push(*field);
            }
        }
    });
    assert_eq!(fields, [Field::RequestData]);
}

#[test]
fn an_if_condition_that_does_not_parse_loads_false_and_strict_refuses_it() {
    let ifc = format!(
        r#"<IfController testclass="IfController" testname="bad" enabled="true"><stringProp name="IfController.condition">If condition</stringProp></IfController><hashTree>{}</hashTree>"#,
        http("child", "")
    );
    let text = plan_of(&ifc);
    let i = inspect_text(&text);
    assert!(i.problems.is_empty(), "{:?}", i.problems);
    let (status, note) = status_of(&i, "bad");
    assert_eq!(status, Status::Warning);
    assert!(note.contains("JMeter reads it as false at each evaluation"), "{note}");
    let plan = i.plan.unwrap();
    let ifs: Vec<_> = plan.scenarios[0]
        .flow
        .iter()
        .filter_map(|s| match s {
            Step::If(f) => Some(f.condition.expr.eval(&mut |t| t.source().to_string())),
            _ => None,
        })
        .collect();
    assert_eq!(ifs, [false]);
    let strict = inspect(&text, Path::new("t.jmx"), &Options { strict: true, ..Default::default() });
    assert_eq!(strict.problems.len(), 1, "{:?}", strict.problems);
}

#[test]
fn a_tcp_sampler_with_an_unknown_client_class_loads_failing_each_sample() {
    let tcp = r#"<TCPSampler testclass="TCPSampler" testname="t" enabled="true"><stringProp name="TCPSampler.classname">org.foo.xxx</stringProp><stringProp name="TCPSampler.server">127.0.0.1</stringProp><stringProp name="TCPSampler.port">9</stringProp></TCPSampler><hashTree/>"#;
    let i = inspect_text(&plan_of(tcp));
    assert!(i.problems.is_empty(), "{:?}", i.problems);
    let (status, note) = status_of(&i, "t");
    assert_eq!(status, Status::Warning);
    assert!(note.contains("`org.foo.xxx`") && note.contains("Protocol handler not found"), "{note}");
    let plan = i.plan.unwrap();
    let missing = plan.scenarios[0].flow.iter().any(|s| {
        matches!(s, Step::Sample(Sampler::Socket(x))
            if matches!(&x.kind, SocketKind::Tcp(t) if matches!(t.client, TcpClient::Missing { .. })))
    });
    assert!(missing, "{:?}", plan.scenarios[0].flow);
}

fn os_process(args: &str) -> String {
    format!(
        r#"<SystemSampler testclass="SystemSampler" testname="os" enabled="true"><stringProp name="SystemSampler.command">curl</stringProp><elementProp name="SystemSampler.arguments" elementType="Arguments"><collectionProp name="Arguments.arguments">{args}</collectionProp></elementProp><elementProp name="SystemSampler.environment" elementType="Arguments"><collectionProp name="Arguments.arguments"><elementProp name="TOKEN" elementType="Argument"><stringProp name="Argument.name">TOKEN</stringProp><stringProp name="Argument.value">env-secret-1</stringProp></elementProp></collectionProp></elementProp></SystemSampler><hashTree/>"#
    )
}

/// An OS Process Sampler loads; without `--allow-commands` it warns naming the flag (and
/// `--strict` refuses it), with it it is supported; neither its arguments nor its environment
/// appear in the report or the resolved plan.
#[test]
fn an_os_process_sampler_runs_only_with_allow_commands_and_shows_no_arguments() {
    let arg = r#"<elementProp name="" elementType="Argument"><stringProp name="Argument.value">-H Authorization: arg-secret-2</stringProp></elementProp>"#;
    let text = plan_of(&os_process(arg));
    let i = inspect_text(&text);
    assert!(i.problems.is_empty(), "{:?}", i.problems);
    let (status, note) = status_of(&i, "os");
    assert_eq!(status, Status::Warning);
    assert!(note.contains("`curl` only with --allow-commands"), "{note}");
    let strict = inspect(&text, Path::new("t.jmx"), &Options { strict: true, ..Default::default() });
    assert_eq!(strict.problems.len(), 1, "{:?}", strict.problems);
    let allowed = inspect(&text, Path::new("t.jmx"), &Options { allow_commands: true, ..Default::default() });
    let (status, note) = status_of(&allowed, "os");
    assert_eq!(status, Status::Supported, "{note}");
    let shown = serde_json::to_string(allowed.plan.as_ref().unwrap()).unwrap();
    for secret in ["arg-secret-2", "env-secret-1"] {
        assert!(!shown.contains(secret) && !note.contains(secret), "{shown}");
    }
    assert!(shown.contains("<1 arguments>"), "{shown}");
}
