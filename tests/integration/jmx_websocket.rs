//! The eu.luminis WebSocket samplers (issue 13) against a WebSocket witness that counts
//! upgrades and frames: what stampede reports equals what the server saw, exactly; a refused,
//! rejected or missing connection fails the sample, as the plugin does; `wss://`; the frame
//! filters.

use crate::jmx::jmx_plan;
use crate::util::stampede::{uint, OutputExt, Stampede, TempRun};
use crate::util::ws_server::WsServer;

const PREFIX: &str = "eu.luminis.jmeter.wssampler.";

fn ws(class: &str, name: &str, props: &str, children: &str) -> String {
    format!(
        r#"<{PREFIX}{class} guiclass="{PREFIX}{class}Gui" testclass="{PREFIX}{class}" testname="{name}" enabled="true">{props}</{PREFIX}{class}><hashTree>{children}</hashTree>"#
    )
}

fn open(name: &str, port: &str, path: &str) -> String {
    open_tls(name, port, path, false)
}

fn open_tls(name: &str, port: &str, path: &str, tls: bool) -> String {
    // No server name: the loopback address, as Java resolves "".
    let server = if tls { "127.0.0.1" } else { "" };
    let props = format!(
        r#"<stringProp name="connectTimeout">2000</stringProp><stringProp name="readTimeout">2000</stringProp>
           <boolProp name="TLS">{tls}</boolProp><stringProp name="server">{server}</stringProp>
           <stringProp name="port">{port}</stringProp><stringProp name="path">{path}</stringProp>"#
    );
    ws("OpenWebSocketSampler", name, &props, "")
}

fn write(name: &str, data: &str, binary: bool) -> String {
    let props = format!(
        r#"<stringProp name="payloadType">Text</stringProp><stringProp name="requestData">{data}</stringProp>
           <boolProp name="binaryPayload">{binary}</boolProp><boolProp name="createNewConnection">false</boolProp>"#
    );
    ws("SingleWriteWebSocketSampler", name, &props, "")
}

fn read(name: &str, data_type: &str, children: &str) -> String {
    let props = format!(
        r#"<stringProp name="readTimeout">2000</stringProp><stringProp name="dataType">{data_type}</stringProp>
           <boolProp name="optional">false</boolProp><boolProp name="createNewConnection">false</boolProp>"#
    );
    ws("SingleReadWebSocketSampler", name, &props, children)
}

fn close(name: &str) -> String {
    ws(
        "CloseWebSocketSampler",
        name,
        r#"<stringProp name="readTimeout">2000</stringProp><stringProp name="statusCode">1000</stringProp>"#,
        "",
    )
}

fn contains(text: &str) -> String {
    crate::util::jmx::response_assertion("has", "Assertion.response_data", 16, text)
}

const HEADERS: &str = r#"<HeaderManager guiclass="HeaderPanel" testclass="HeaderManager" testname="headers" enabled="true">
      <collectionProp name="HeaderManager.headers">
        <elementProp name="" elementType="Header"><stringProp name="Header.name">X-Token</stringProp><stringProp name="Header.value">t${__threadNum}</stringProp></elementProp>
      </collectionProp>
    </HeaderManager><hashTree/>"#;

/// Each label's samples and errors.
fn assert_rows(run: &TempRun, labels: &[&str], samples: u64, errors: u64) {
    for label in labels {
        let row = run.label(label);
        assert_eq!((uint(&row, "samples"), uint(&row, "errors")), (samples, errors), "{label}: {row:#}");
    }
}

/// Runs `users` × `loops` of the samplers in `body`, `${port}` being the server's.
fn run_plan(run: &TempRun, users: u32, loops: &str, body: &[String], port: u16) {
    let plan = jmx_plan(users, loops, &body.concat()).replace("${__P(port,9)}", &port.to_string());
    let p = run.write("plan.jmx", plan);
    Stampede::new().arg("run").arg(&p).args(["-q", "--out"]).arg(run.path()).run().assert_exit(0);
}

/// 2 users × 3 iterations of open, write, read (its text extracted), request-response on the
/// same connection (asserted on the echo of the extracted value), ping, binary write and read,
/// close: every sample succeeds, and the upgrades, frames and upgrade bytes stampede reports are
/// the ones the server counted.
#[test]
fn samples_and_bytes_are_what_the_server_saw() {
    let server = WsServer::start();
    let run = TempRun::new("ws-counts");
    let extract = r#"<RegexExtractor guiclass="RegexExtractorGui" testclass="RegexExtractor" testname="re" enabled="true">
            <stringProp name="RegexExtractor.useHeaders">false</stringProp>
            <stringProp name="RegexExtractor.refname">n</stringProp>
            <stringProp name="RegexExtractor.regex">hi (\d+)</stringProp>
            <stringProp name="RegexExtractor.template">$1$</stringProp>
            <stringProp name="RegexExtractor.default">none</stringProp>
            <stringProp name="RegexExtractor.match_number">1</stringProp>
          </RegexExtractor><hashTree/>"#;
    let rr = ws(
        "RequestResponseWebSocketSampler",
        "rr",
        r#"<stringProp name="requestData">again-${n}</stringProp><boolProp name="createNewConnection">false</boolProp>
           <stringProp name="readTimeout">2000</stringProp>"#,
        &contains("again-"),
    );
    let ping = ws("PingPongSampler", "ping", r#"<stringProp name="readTimeout">2000</stringProp>"#, "");
    let body = [
        HEADERS.to_string(),
        open("open", "${port}", "/echo?room=${__threadNum}"),
        write("write", "hi ${__threadNum}", false),
        read("read", "Text", extract),
        rr,
        ping,
        write("bin-write", "0x01 0x02 cafe", true),
        read("bin-read", "Binary", ""),
        close("close"),
    ];
    run_plan(&run, 2, "3", &body, server.port());
    assert_rows(&run, &["open", "write", "read", "rr", "ping", "bin-write", "bin-read", "close"], 6, 0);
    assert_eq!(server.get(|c| &c.upgrades), 6);
    assert_eq!(uint(&run.total(), "connections_opened"), 6);
    assert_eq!(server.get(|c| &c.text_in), 12, "a write and a request-response per iteration");
    assert_eq!(server.get(|c| &c.binary_in), 6);
    assert_eq!(server.get(|c| &c.ping_in), 6);
    assert_eq!(server.get(|c| &c.close_in), 6);
    // The upgrade requests' bytes are the open samples' sent bytes.
    assert_eq!(uint(&run.label("open"), "bytes_sent"), server.get(|c| &c.upgrade_bytes_in));
    // Each frame's size: "hi N" masked is 2 + 4 + 4 bytes sent, its echo 2 + 4 received; a
    // ping is 6 bytes, a pong 2; the close frame with the plugin's reason 2 + 4 + 25.
    assert_eq!(uint(&run.label("write"), "bytes_sent"), 6 * 10);
    assert_eq!(uint(&run.label("read"), "bytes_received"), 6 * 6);
    assert_eq!(uint(&run.label("ping"), "bytes_sent"), 6 * 6);
    assert_eq!(uint(&run.label("ping"), "bytes_received"), 6 * 2);
    assert_eq!(uint(&run.label("bin-read"), "bytes_received"), 6 * (2 + 4));
    assert_eq!(uint(&run.label("close"), "bytes_sent"), 6 * 31);
    // The Header Manager's header went with each upgrade, with the path and query.
    let heads = server.heads();
    assert_eq!(heads.len(), 6);
    assert!(heads.iter().all(|h| h.starts_with("GET /echo?room=") && h.contains("\r\nX-Token: t")), "{heads:?}");
    // No server name: the loopback address, and the plugin's `Host` header of an empty host.
    let host = format!("\r\nHost: :{}\r\n", server.port());
    assert!(heads.iter().all(|h| h.contains(&host)), "{heads:?}");
}

/// A refused connection, a rejected upgrade (403), samplers with no connection to use (none
/// yet, or closed) and a read that times out fail their samples; a frame the server sends with
/// the upgrade's response is read; the server sees only what was sent.
#[test]
fn refused_rejected_and_missing_connections_fail_the_sample() {
    let server = WsServer::start();
    let closed_port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let run = TempRun::new("ws-errors");
    let body = [
        open("refused", &closed_port.to_string(), "/"),
        write("no-connection", "x", false),
        open("rejected", "${port}", "/reject"),
        read("still-none", "Text", ""),
        close("close-none"),
        open("greet", "${port}", "/greet"),
        read("hello", "Text", &contains("hello")),
        read("timeout", "Text", ""),
        close("close"),
        read("after-close", "Text", ""),
    ];
    run_plan(&run, 1, "2", &body, server.port());
    let failed = ["refused", "no-connection", "rejected", "still-none", "close-none", "timeout", "after-close"];
    assert_rows(&run, &failed, 2, 2);
    assert_rows(&run, &["greet", "hello", "close"], 2, 0);
    assert_eq!(server.get(|c| &c.rejected), 2);
    assert_eq!(server.get(|c| &c.upgrades), 2);
    assert_eq!(server.get(|c| &c.text_in), 0, "nothing was written on a missing connection");
    assert_eq!(server.get(|c| &c.close_in), 2, "a closed connection is not used again");
    let errors = run.label("rejected");
    assert!(errors.to_string().contains("http_403"), "{errors:#}");
    assert!(run.label("refused").to_string().contains("refused"));
    assert!(run.label("timeout").to_string().contains("timeout"));
}

/// `wss://`: the upgrade and the frames go over TLS (a JMX plan accepts any certificate, as
/// JMeter does); a request-response sampler opens its own connection by default.
#[test]
fn wss_goes_over_tls() {
    let server = WsServer::start_tls();
    let run = TempRun::new("ws-tls");
    let rr = ws(
        "RequestResponseWebSocketSampler",
        "rr-new",
        r#"<boolProp name="TLS">true</boolProp><stringProp name="server">127.0.0.1</stringProp>
           <stringProp name="port">${port}</stringProp><stringProp name="path">/own</stringProp>
           <stringProp name="requestData">ping me</stringProp><stringProp name="readTimeout">2000</stringProp>"#,
        &contains("ping me"),
    );
    let body = [open_tls("open", "${port}", "/secure", true), write("write", "x", false), read("read", "Text", ""), rr];
    run_plan(&run, 2, "2", &body, server.port());
    assert_rows(&run, &["open", "write", "read", "rr-new"], 4, 0);
    assert_eq!(server.get(|c| &c.upgrades), 8, "an open and a request-response per iteration");
    assert_eq!(uint(&run.total(), "connections_opened"), 8);
    assert_eq!(server.get(|c| &c.text_in), 8);
}

/// Frame filters in scope: the server's ping and its `hb:` text are discarded (each a
/// sub-sample of its filter's label, outside the Total), the read gets `data`; the ping was
/// answered with a pong.
#[test]
fn frame_filters_discard_what_they_match() {
    let server = WsServer::start();
    let run = TempRun::new("ws-filters");
    let filter = |class: &str, name: &str, props: &str| {
        format!(
            r#"<{PREFIX}{class} guiclass="{PREFIX}{class}Gui" testclass="{PREFIX}{class}" testname="{name}" enabled="true">{props}</{PREFIX}{class}><hashTree/>"#
        )
    };
    let body = [
        filter("PingFrameFilter", "pings", r#"<stringProp name="filterType">FilterAll</stringProp><boolProp name="replyToPing">true</boolProp>"#),
        open("open", "${port}", "/noisy"),
        read(
            "read",
            "Text",
            &[
                filter(
                    "TextFrameFilter",
                    "beats",
                    r#"<stringProp name="comparisonType">StartsWith</stringProp><stringProp name="matchValue">hb:</stringProp>"#,
                ),
                contains("data"),
            ]
            .concat(),
        ),
        close("close"),
    ];
    run_plan(&run, 1, "3", &body, server.port());
    let discarded = ["Discarded ping frame (by filter 'pings')", "Discarded text frame (by filter 'beats')"];
    assert_rows(&run, &["open", "read", "close"], 3, 0);
    assert_rows(&run, &discarded, 3, 0);
    assert_eq!(uint(&run.total(), "samples"), 9, "the discarded frames are not in the Total");
    assert_eq!(server.get(|c| &c.pong_in), 3, "each ping was answered");
    assert_eq!(uint(&run.label("Discarded ping frame (by filter 'pings')"), "bytes_received"), 3 * 3);
}

/// Script post-processors and assertions run on a WebSocket sample: the frame read goes into a
/// variable the next upgrade sends in its path, and the assertion fails the sample with its
/// message.
#[test]
fn scripts_run_on_websocket_samples() {
    let server = WsServer::start();
    let run = TempRun::new("ws-scripts");
    let post = crate::jmx_scripts::script(
        "JSR223PostProcessor",
        "echo",
        "groovy",
        "vars.put('echo', prev.getResponseDataAsString())",
        "",
    );
    let assert = crate::jmx_scripts::script(
        "JSR223Assertion",
        "zzz",
        "groovy",
        "if (!prev.getResponseDataAsString().contains('zzz')) { AssertionResult.setFailure(true); AssertionResult.setFailureMessage('no zzz') }",
        "",
    );
    let body = [
        open("open", "${port}", "/echo"),
        write("write", "hi-${__threadNum}", false),
        read("read", "Text", &[post, assert].concat()),
        open("again", "${port}", "/echo?got=${echo}"),
        close("close"),
    ];
    run_plan(&run, 1, "2", &body, server.port());
    assert_rows(&run, &["open", "write", "again", "close"], 2, 0);
    assert_rows(&run, &["read"], 2, 2);
    assert!(run.label("read").to_string().contains("no zzz"));
    let got: Vec<String> = server.heads().iter().filter_map(|h| h.lines().next().map(str::to_string)).collect();
    assert_eq!(got.iter().filter(|l| l.starts_with("GET /echo?got=hi-1 ")).count(), 2, "{got:?}");
}
