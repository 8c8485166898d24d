//! JMeter's XPath2 Assertion (issue 32), on the micro plan JMeter 5.6.3 ran
//! (`bench/jmeter/plans/elem-xpath2-assert.jmx`): each assertion's outcome is carried into the
//! path of the request after it (`${JMeterThread.last_sample_ok}`), and into the summary's
//! errors, exactly as JMeter's JTL has them.

use crate::util::server::{Route, TestServer};
use crate::util::stampede::{label, uint, OutputExt, Stampede, TempRun};

/// Each case: sampler, and whether JMeter 5.6.3 passed its assertion.
const JMETER: [(&str, bool); 13] = [
    ("exists", true),     // //b finds nodes
    ("missing", false),   // //nope finds none
    ("number", true),     // count(//b): a number is one item, a match
    ("boolfalse", false), // count(//nope) = 1: false
    ("negexists", false), // negated, //b matches
    ("negmissing", true), // negated, //nope does not
    ("xp2only", false),   // ends-with(): XPath 2.0 only; JMeter's Xalan typing throws
    ("empty", true),      // an empty query passes
    ("string", true),     // string(//b[1]): one item
    ("nsattr", true),     // an attribute predicate
    ("body", false),      // the body is no XML: an error, the sample fails
    ("unset", false),     // scoped to a variable nothing set: "Response was null"
    ("negbody", false),   // negated, the body is no XML: still an error
];

#[test]
fn xpath2_assertion_passes_and_fails_each_case_as_jmeter() {
    let server = TestServer::builder().default_route(Route::ok().body("{\"not\": \"xml\"}")).start();
    let run = TempRun::new("xpath2-assert");
    let plan = concat!(env!("CARGO_MANIFEST_DIR"), "/bench/jmeter/plans/elem-xpath2-assert.jmx");
    let port = format!("port={}", server.addr().port());
    Stampede::new()
        .arg("run")
        .arg(plan)
        .args(["-J", "host=127.0.0.1", "-J", &port, "-q", "--out"])
        .arg(run.path())
        .run()
        .assert_exit(0);
    assert_eq!(server.requests(), 26);
    let s = run.summary();
    for (case, ok) in JMETER {
        assert_eq!(server.requests_to(&format!("/xa/{case}/ok/{ok}")), 1, "{case}: JMeter's outcome is {ok}");
        assert_eq!(uint(&label(&s, case), "samples"), 1, "{case}");
        assert_eq!(uint(&label(&s, case), "errors"), u64::from(!ok), "{case}");
    }
}
