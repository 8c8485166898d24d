//! Plans JMeter loads and that go wrong only at run time (#32): they load, `check` warns
//! with what will happen, `--strict` refuses them.

use super::synthetic::tests::plan_of;
use super::*;

fn inspect_text(text: &str) -> Inspection {
    inspect(text, Path::new("t.jmx"), &Options::default())
}

fn status_of(i: &Inspection, name: &str) -> (Status, String) {
    let r = i.elements.iter().find(|r| r.name == name).unwrap_or_else(|| panic!("{name} not listed: {:?}", i.elements));
    (r.status, r.note.clone())
}

fn http(name: &str, domain: &str, path: &str) -> String {
    format!(
        r#"<HTTPSamplerProxy testclass="HTTPSamplerProxy" testname="{name}" enabled="true">
          <stringProp name="HTTPSampler.domain">{domain}</stringProp>
          <stringProp name="HTTPSampler.protocol">https</stringProp>
          <stringProp name="HTTPSampler.path">{path}</stringProp>
          <stringProp name="HTTPSampler.method">GET</stringProp>
        </HTTPSamplerProxy><hashTree/>"#
    )
}

/// An unfilled `[placeholder]` host loads; each sample fails as java.net.URI or java.net.URL
/// fails it in JMeter; `--strict` refuses the plan.
#[test]
fn an_unfilled_placeholder_host_loads_and_warns_each_sample_fails() {
    let text = plan_of(&[http("domain", "[HostName]", "/a"), http("full", "", "https://[HostName]/p?x=1")].concat());
    let i = inspect_text(&text);
    assert!(i.problems.is_empty(), "{:?}", i.problems);
    let (status, note) = status_of(&i, "domain");
    assert_eq!(status, Status::Warning);
    assert!(
        note.ends_with("java.net.URISyntaxException, Non HTTP response message: Malformed IPv6 address at index 9: https://[HostName]/a"),
        "{note}"
    );
    let (status, note) = status_of(&i, "full");
    assert_eq!(status, Status::Warning);
    assert!(
        note.ends_with("java.net.MalformedURLException, Non HTTP response message: Invalid host: [HostName]"),
        "{note}"
    );
    let strict = inspect(&text, Path::new("t.jmx"), &Options { strict: true, ..Default::default() });
    assert_eq!(strict.problems.len(), 2, "{:?}", strict.problems);
}

/// A thread group of one user, `loops` passes, holding `body`; `props` inside it.
fn group(name: &str, loops: &str, props: &str, body: &str) -> String {
    format!(
        r#"<ThreadGroup testclass="ThreadGroup" testname="{name}" enabled="true">
        <elementProp name="ThreadGroup.main_controller" elementType="LoopController">
          <stringProp name="LoopController.loops">{loops}</stringProp>
        </elementProp>
        <stringProp name="ThreadGroup.num_threads">1</stringProp>{props}
      </ThreadGroup><hashTree>{body}</hashTree>"#
    )
}

fn groups(groups: &str) -> String {
    format!(
        r#"<?xml version="1.0" encoding="UTF-8"?>
<jmeterTestPlan version="1.2"><hashTree><TestPlan testclass="TestPlan" testname="Plan" enabled="true"/>
<hashTree>{groups}</hashTree></hashTree></jmeterTestPlan>"#
    )
}

/// Row 6: an undefined `${var}` where JMeter wants a number loads and reads what JMeter reads
/// (JMeter 5.6.3: a loop count of 0, a group with no scheduled duration not started, a
/// Throughput Controller's own defaults, no pause); each is a warning.
#[test]
fn numbers_that_are_no_number_read_what_jmeter_reads() {
    let u = "${undef}";
    let get = http("get", "127.0.0.1", "/");
    let text = groups(
        &[
            group("loops", u, "", &get),
            group(
                "duration",
                "1",
                &format!(r#"<boolProp name="ThreadGroup.scheduler">true</boolProp><stringProp name="ThreadGroup.duration">{u}</stringProp>"#),
                &get,
            ),
            group(
                "controllers",
                "1",
                "",
                &format!(
                    r#"<ThroughputController testclass="ThroughputController" testname="percent" enabled="true"><intProp name="ThroughputController.style">1</intProp><stringProp name="ThroughputController.percentThroughput">{u}</stringProp></ThroughputController><hashTree>{get}</hashTree>
                    <ThroughputController testclass="ThroughputController" testname="total" enabled="true"><intProp name="ThroughputController.style">0</intProp><stringProp name="ThroughputController.maxThroughput">{u}</stringProp></ThroughputController><hashTree>{get}</hashTree>
                    <TestAction testclass="TestAction" testname="pause" enabled="true"><intProp name="ActionProcessor.action">1</intProp><stringProp name="ActionProcessor.duration">{u}</stringProp></TestAction><hashTree/>
                    <ConstantThroughputTimer testclass="ConstantThroughputTimer" testname="ctt" enabled="true"><stringProp name="throughput">{u}</stringProp></ConstantThroughputTimer><hashTree/>"#
                ),
            ),
        ]
        .concat(),
    );
    let i = inspect_text(&text);
    assert!(i.problems.is_empty(), "{:?}", i.problems);
    for name in ["loops", "duration", "percent", "total", "pause", "ctt"] {
        assert_eq!(status_of(&i, name).0, Status::Warning, "{name}");
    }
    let plan = i.plan.unwrap();
    let closed = |name: &str| -> Vec<(u32, Option<u64>)> {
        let named = plan.scenarios.iter().filter(|s| s.name == name);
        named
            .map(|s| match &s.workload {
                Workload::Closed(c) => (c.users, c.iterations),
                w => panic!("{w:?}"),
            })
            .collect()
    };
    assert_eq!(closed("loops"), [(1, Some(0))], "a loop count of 0");
    assert!(closed("duration").iter().all(|(users, _)| *users == 0), "the group is not started");
    let controllers = plan.scenarios.iter().find(|s| s.name == "controllers").unwrap();
    let shares: Vec<String> = controllers
        .flow
        .iter()
        .filter_map(|s| match s {
            Step::Throughput(t) => Some(format!("{:?}", t.share)),
            _ => None,
        })
        .collect();
    assert_eq!(shares, ["Percent(100.0)", "Total(1)"]);
    let strict = inspect(&text, Path::new("t.jmx"), &Options { strict: true, ..Default::default() });
    assert_eq!(strict.problems.len(), 6, "{:?}", strict.problems);
}

/// Row 7: an If Controller with an empty condition (a script or an expression) loads; its
/// children never run, as JMeter evaluates it false.
#[test]
fn an_empty_if_condition_is_false() {
    let ifc = |name: &str, expr: bool| {
        format!(
            r#"<IfController testclass="IfController" testname="{name}" enabled="true"><stringProp name="IfController.condition"> </stringProp><boolProp name="IfController.useExpression">{expr}</boolProp></IfController><hashTree>{}</hashTree>"#,
            http(&format!("{name} child"), "127.0.0.1", "/")
        )
    };
    let i = inspect_text(&plan_of(&[ifc("js", false), ifc("expression", true)].concat()));
    assert!(i.problems.is_empty(), "{:?}", i.problems);
    for name in ["js", "expression"] {
        let (status, note) = status_of(&i, name);
        assert_eq!(status, Status::Warning, "{name}");
        assert!(note.contains("its children never run"), "{note}");
    }
    let plan = i.plan.unwrap();
    let mut ifs = 0;
    for s in &plan.scenarios[0].flow {
        if let Step::If(f) = s {
            ifs += 1;
            assert!(!f.condition.expr.eval(&mut |t| t.source().to_string()), "{:?}", f.condition.src);
        }
    }
    assert_eq!(ifs, 2);
}
