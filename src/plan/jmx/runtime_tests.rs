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
    assert!(note.ends_with("java.net.MalformedURLException, Non HTTP response message: Invalid host: [HostName]"), "{note}");
    let strict = inspect(&text, Path::new("t.jmx"), &Options { strict: true, ..Default::default() });
    assert_eq!(strict.problems.len(), 2, "{:?}", strict.problems);
}
