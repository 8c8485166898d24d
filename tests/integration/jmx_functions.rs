//! JMeter's `${__functions()}` as the witness receives them, `${__jexl3(...)}` conditions,
//! arguments read as JMeter's parser reads them, `__P` of an empty property,
//! `__StringFromFile`/`__CSVRead` of a file named at run time; a function stampede does not run
//! named by `check`.

use crate::jmx::{arg, jmx_plan, sampler as sampler_fn};
use crate::jmx_http_bodies::{group, http, plan, run_plan, sorted_bodies, targets, token, token_server, witness};
use crate::util::jmx::{esc, http_defaults, raw_post as raw_post_runtime, run_with_jtl, test_plan, thread_group};
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
        sampler_fn("fn", "POST", "/fn", &arg("", &body, false), true, ""),
        format!("{if_ctl}<hashTree>{}</hashTree>", sampler_fn("if", "GET", "/if", "", false, "")),
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
        sampler_fn("scripted", "GET", "/x?v=${__XPath(a.xml,/a)}", "", false, ""),
        sampler_fn("typo", "GET", "/y?v=${__intsum(1,2)}", "", false, ""),
    ]
    .concat();
    let p = run.write("plan.jmx", jmx_plan(1, "1", &body));
    let out = Stampede::new().arg("check").arg(&p).run();
    let text = format!("{}{}", out.stdout_str(), out.stderr_str());
    assert_ne!(out.status.code(), Some(0), "{text}");
    assert!(text.contains("plan.jmx:") && text.contains("\"scripted\""), "{text}");
    assert!(text.contains("JMeter's function `__XPath` is not supported"), "{text}");
}

/// JMeter 5.6.3 (`small-props.jmx`): a property set to "" in a properties file is "" for
/// `__P` and `__property`, default or not; `-Jname=` removes the property ("Removing JMeter
/// property"), so the default is read; values are trimmed.
#[test]
fn p_of_an_empty_property_is_empty_and_an_empty_j_removes_it() {
    let server = witness();
    let run = TempRun::new("small-props");
    let props = run.write("user.properties", "empty=\nspaced= v \ngone=set\n");
    let path = "/p?a=${__P(empty,def)}&amp;b=${__P(empty)}&amp;c=${__P(spaced,def)}&amp;d=${__P(gone,def)}&amp;e=${__property(empty,,def)}";
    let body = group("props", 1, 1, None, &http("p", "GET", path, "", ""));
    let props = props.to_string_lossy().into_owned();
    let got = run_plan(&server, &run, &plan(server.addr().port(), &body), &["-p", &props, "-J", "gone="]);
    assert_eq!(targets(&got), ["/p?a=&b=&c=v&d=def&e="]);
}

/// `__StringFromFile` and `__CSVRead` of a file named by a variable an extractor sets load and
/// read it when called, as JMeter's functions do: `__StringFromFile` names its file at its first
/// call (one called before the variable is set gives `**ERR**` for good) and hands its lines to
/// every user in turn; `__CSVRead` gives each user its row of rows every user shares; a file
/// that is not there is `**ERR**` and empty. 2 users x 2 iterations.
#[test]
fn file_functions_named_at_run_time_read_the_file_when_called() {
    let server = token_server();
    let port = server.addr().port().to_string();
    let run = TempRun::new("runtime-fns");
    run.write("rt-lines-one.txt", "l1\nl2\nl3\n");
    run.write("rt-one.csv", "r1a,r1b\nr2a,r2b\nr3a,r3b\n");
    run.write("files-one.txt", "hi");
    let body = [
        raw_post_runtime("/early", &esc("e=${__StringFromFile(rt-lines-${tok}.txt)}")),
        token(&port),
        raw_post_runtime(
            "/fns",
            &esc("a=${__StringFromFile(rt-lines-${tok}.txt)}|c=${__CSVRead(rt-${tok}.csv,0)}-${__CSVRead(rt-${tok}.csv,1)}${__CSVRead(rt-${tok}.csv,next)}|d=${__CSVRead(nope-${tok}.csv,0)}|f=${__StringFromFile(nope-${tok}.txt)}|g=${__FileToString(files-${tok}.txt)}"),
        ),
    ]
    .concat();
    let group = [http_defaults("127.0.0.1", &port), thread_group("ThreadGroup", "g", "2", "2", "", &body)].concat();
    let plan = run.write("plan.jmx", test_plan("Plan", "", &group));
    let check = Stampede::new().arg("check").arg(&plan).run();
    check.assert_exit(0);
    let (cmd, _) = run_with_jtl(&run, &plan, None);
    cmd.run().assert_exit(0);
    assert_eq!(sorted_bodies(&server, "/early"), vec!["e=**ERR**"; 4], "named once, before `tok` was set");
    let fns = sorted_bodies(&server, "/fns");
    let field = |k: &str| {
        let mut v: Vec<String> = fns
            .iter()
            .map(|b| b.split('|').find_map(|f| f.strip_prefix(&format!("{k}="))).unwrap_or("?").to_string())
            .collect();
        v.sort();
        v
    };
    assert_eq!(field("a"), ["l1", "l1", "l2", "l3"], "one reader for both users: {fns:?}");
    assert_eq!(field("c"), ["r1a-r1b", "r1a-r1b", "r2a-r2b", "r3a-r3b"], "rows shared, each user its own: {fns:?}");
    assert_eq!(field("d"), ["", "", "", ""]);
    assert_eq!(field("f"), ["**ERR**"; 4]);
    assert_eq!(field("g"), ["hi"; 4]);
    assert_eq!(uint(&run.total(), "samples"), server.requests());
    assert_eq!(server.requests(), 12);
}

pub(crate) fn sampler(name: &str, domain: &str, port: &str, path: &str, children: &str) -> String {
    crate::util::jmx::http(name, domain, port, path, "GET", children)
}

/// Runs `file` quietly into `run` with a results file; returns the JTL's text.
pub(crate) fn run_jtl(run: &TempRun, file: &std::path::Path) -> String {
    let (cmd, jtl) = crate::util::jmx::run_with_jtl(run, file, None);
    cmd.run().assert_exit(0);
    std::fs::read_to_string(&jtl).unwrap()
}

/// A POST whose raw body is `body` (XML-escaped by the caller).
fn raw_post(name: &str, port: &str, path: &str, body: &str) -> String {
    format!(
        r#"<HTTPSamplerProxy testclass="HTTPSamplerProxy" testname="{name}" enabled="true">
          <boolProp name="HTTPSampler.postBodyRaw">true</boolProp>
          <elementProp name="HTTPsampler.Arguments" elementType="Arguments"><collectionProp name="Arguments.arguments">
            <elementProp name="" elementType="HTTPArgument"><stringProp name="Argument.value">{body}</stringProp></elementProp>
          </collectionProp></elementProp>
          <stringProp name="HTTPSampler.domain">127.0.0.1</stringProp>
          <stringProp name="HTTPSampler.port">{port}</stringProp>
          <stringProp name="HTTPSampler.path">{path}</stringProp>
          <stringProp name="HTTPSampler.method">POST</stringProp>
        </HTTPSamplerProxy><hashTree/>"#
    )
}

/// Row 5: JMeter's function parser ends a call's arguments at the `)` that closes it, so
/// `${__P(X,0})}` has the default `0}`; a nested `(...)` is text; `\,` is a comma, `\)` keeps
/// its backslash; a `${` never closed is its text. The bodies are what JMeter 5.6.3 sent.
#[test]
fn function_arguments_are_read_as_jmeter_s_parser_reads_them() {
    let server = TestServer::builder().route("/p", Route::ok().record()).start();
    let port = server.addr().port().to_string();
    let run = TempRun::new("runtime-function-parser");
    let cases = [
        (r"c=${__P(X,0})}", "c=0}"),
        (r"e=${__P(x,(a)b)}", "e=(a)b"),
        (r"f=${__P(x,a\,b)}", "f=a,b"),
        (r"g=${__P(x,a\)b)}", r"g=a\)b"),
        (r"s=${__P(x,)}", "s="),
        (r"t=${__P(x,0})} ${__P(y,1)}", "t=0} 1"),
        (r"a=${host", "a=host"),
        (r"h=\${x}", r"h=\${x}"),
    ];
    let body: String = cases.iter().map(|(src, _)| raw_post("p", &port, "/p", src)).collect();
    let file = run.write("plan.jmx", jmx_plan(1, "1", &body));
    let check = Stampede::new().arg("check").arg(&file).run();
    check.assert_exit(0);
    let rows = run_jtl(&run, &file);
    assert_eq!(server.requests_to("/p"), cases.len() as u64, "{rows}");
    let got: Vec<String> =
        server.recorded("/p").iter().map(|r| String::from_utf8_lossy(&r.body).into_owned()).collect();
    let want: Vec<&str> = cases.iter().map(|(_, w)| *w).collect();
    assert_eq!(got, want);
}
