//! JMeter's functions (`${__name(args)}`, issue 13 C): their values as the witness server
//! receives them, JMeter's `${__jexl3(expr,)}` condition, and an unknown function named by
//! `check` with its element and line.

use crate::jmx::{arg, jmx_plan, sampler};
use crate::util::server::{Route, TestServer};
use crate::util::stampede::{uint, OutputExt, Stampede, TempRun};

/// HTTP Request Defaults: the witness server at `${host}:${port}`.
const DEFAULTS: &str = r#"<ConfigTestElement guiclass="HttpDefaultsGui" testclass="ConfigTestElement" testname="HTTP Request Defaults" enabled="true">
          <stringProp name="HTTPSampler.domain">${host}</stringProp>
          <stringProp name="HTTPSampler.port">${port}</stringProp>
          <stringProp name="HTTPSampler.protocol">http</stringProp>
        </ConfigTestElement><hashTree/>"#;

fn xml_escape(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

/// One line per function: `name=${__f(...)}`, sent as the raw body of each request.
const BODY: &[&str] = &[
    "digest=${__digest(MD5,abc)}",
    "sha=${__digest(SHA-256,a,bc,true)}",
    "sum=${__intSum(${__threadNum},41,s)};${s}",
    "long=${__longSum(4000000000,1)}",
    "enc=${__urlencode(a b&c/é)}",
    "dec=${__urldecode(a+b%26c)}",
    "html=${__escapeHtml(<é & \"x\">)}",
    "unhtml=${__unescapeHtml(&lt;&eacute;&gt;)}",
    "xml=${__escapeXml(<a b='c'>)}",
    "char=${__char(72,0x69)}",
    "case=${__changeCase(hello world,CAPITALIZE)}",
    "split=${__split(x|y,p,|)};${p_n};${p_2}",
    "v=${__V(p_${__intSum(0,1)})};${__V(nope,dflt)}",
    "defined=${__isVarDefined(p_1)};${__isVarDefined(nope)}",
    "eval=${__eval(${__FileToString(tpl.txt)})};${__evalVar(tpl)}",
    "file=${__FileToString(data.txt)}",
    "line=${__StringFromFile(lines.txt)}",
    "csv=${__CSVRead(rows.csv,0)}-${__CSVRead(rows.csv,1)}${__CSVRead(rows.csv,next)}",
    "base=${__BeanShell(import org.apache.jmeter.services.FileServer; FileServer.getFileServer().getBaseDir();)}",
    "plan=${__TestPlanName}",
    "group=${__threadGroupName}",
    "sampler=${__samplerName()}",
    "jexl=${__jexl3(${__threadNum} == 1,)}",
    "log=${__log(logged)}${__logn(not sent)}",
    "shift=${__timeShift(dd/MM/yyyy HH:mm,28/02/2024 23:30,PT1H,,)}",
    "convert=${__dateTimeConvert(1700049600000,,dd MMM yyyy,)}",
    "random=${__RandomDate(yyyy-MM-dd,2024-01-30,2024-01-31,,)}",
];

#[test]
fn functions_send_jmeters_values() {
    let server = TestServer::builder().default_route(Route::ok().record()).start();
    let run = TempRun::new("jmx-functions");
    run.write("data.txt", "from a file");
    run.write("lines.txt", "one\ntwo\n");
    run.write("rows.csv", "a,1\nb,2\n");
    run.write("tpl.txt", "at ${port}");
    let body = xml_escape(&BODY.join("\n"));
    // JMeter's function helper writes `${__jexl3(expr,)}`: an empty variable name.
    let if_ctl = r#"<IfController guiclass="IfControllerPanel" testclass="IfController" testname="If" enabled="true">
          <stringProp name="IfController.condition">${__jexl3(&quot;${__threadNum}&quot; == &quot;1&quot;,)}</stringProp>
          <boolProp name="IfController.evaluateAll">false</boolProp>
          <boolProp name="IfController.useExpression">true</boolProp>
        </IfController>"#;
    let plan = [
        DEFAULTS.to_string(),
        sampler("fn", "POST", "/fn", &arg("", &body, false), true, ""),
        format!("{if_ctl}<hashTree>{}</hashTree>", sampler("if", "GET", "/if", "", false, "")),
    ]
    .concat();
    let p = run.write("plan.jmx", jmx_plan(1, "3", &plan));
    let port = format!("port={}", server.addr().port());
    Stampede::new().arg("run").arg(&p).args(["-q", "-J", &port, "--out"]).arg(run.path()).run().assert_exit(0);

    let sent = server.recorded("/fn");
    assert_eq!(sent.len(), 3);
    assert_eq!(uint(&run.label("fn"), "samples"), 3);
    assert_eq!(uint(&run.label("if"), "samples"), 3);
    assert_eq!(server.requests_to("/if"), 3);
    assert_eq!(uint(&run.summary()["total"], "samples"), server.requests());
    let base = std::path::absolute(run.root()).unwrap();
    for (i, req) in sent.iter().enumerate() {
        let text = String::from_utf8(req.body.clone()).unwrap();
        let got: Vec<&str> = text.lines().collect();
        let line = ["one", "two", "one"][i];
        let csv = ["a-1", "b-2", "a-1"][i];
        let want = [
            "digest=900150983cd24fb0d6963f7d28e17f72".to_string(),
            "sha=BA7816BF8F01CFEA414140DE5DAE2223B00361A396177A9CB410FF61F20015AD".into(),
            "sum=42;42".into(),
            "long=4000000001".into(),
            "enc=a+b%26c%2F%C3%A9".into(),
            "dec=a b&c".into(),
            "html=&lt;&eacute; &amp; &quot;x&quot;&gt;".into(),
            "unhtml=<é>".into(),
            "xml=&lt;a b=&apos;c&apos;&gt;".into(),
            "char=Hi".into(),
            "case=Hello world".into(),
            "split=x|y;2;y".into(),
            "v=x;dflt".into(),
            "defined=true;false".into(),
            // `tpl` is no variable: __evalVar of it is empty.
            format!("eval=at {};", server.addr().port()),
            "file=from a file".into(),
            format!("line={line}"),
            format!("csv={csv}"),
            format!("base={}", base.display()),
            "plan=plan.jmx".into(),
            "group=Users".into(),
            "sampler=fn".into(),
            "jexl=true".into(),
            "log=logged".into(),
            "shift=29/02/2024 00:30".into(),
            "convert=15 Nov 2023".into(),
            "random=2024-01-30".into(),
        ];
        assert_eq!(got, want, "request {i}");
    }
}

#[test]
fn check_names_a_function_stampede_does_not_run() {
    let run = TempRun::new("jmx-functions-unknown");
    let body = [
        DEFAULTS.to_string(),
        sampler("scripted", "GET", "/x?v=${__XPath(a.xml,/a)}", "", false, ""),
        sampler("typo", "GET", "/y?v=${__intsum(1,2)}", "", false, ""),
    ]
    .concat();
    let p = run.write("plan.jmx", jmx_plan(1, "1", &body));
    let out = Stampede::new().arg("check").arg(&p).run();
    let text = format!("{}{}", out.stdout_str(), out.stderr_str());
    assert_ne!(out.status.code(), Some(0), "{text}");
    assert!(text.contains("plan.jmx:") && text.contains("\"scripted\""), "{text}");
    assert!(text.contains("JMeter's function `__XPath` is not supported"), "{text}");
}
