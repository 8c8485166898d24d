//! Samplers over raw sockets (issue 13): the TCP Sampler (its config, text and binary clients, a
//! connection per user, an unknown client class failing each sample unsent), HTTP Raw Request and
//! Raw Data Source, UDP Request (hex, raw, DNS) against loopback servers that count what they
//! received; refused and timed out samples fail with JMeter's code and message; scripts on their
//! samples.

use crate::jmx::jmx_plan;
use crate::util::jmx::{response_assertion, run_with_jtl};
use crate::util::socket::{closed_port, TcpMode, TcpServer, UdpMode, UdpServer};
use crate::util::stampede::{label, uint, OutputExt, Stampede, TempRun};

/// Runs `body` in a plan of `threads` users and `loops` iterations with `-J port=<port>`;
/// returns the run and the JTL's rows (label, code, message, success, bytes, URL).
fn run_jmx(name: &str, threads: u32, loops: &str, port: u16, body: &str) -> (TempRun, Vec<[String; 6]>) {
    let run = TempRun::new(name);
    let p = run.write("plan.jmx", jmx_plan(threads, loops, body));
    let (cmd, jtl) = run_with_jtl(&run, &p, Some(port));
    cmd.run().assert_exit(0);
    let mut rows = Vec::new();
    let mut r = csv::Reader::from_path(&jtl).unwrap();
    for rec in r.records() {
        let rec = rec.unwrap();
        rows.push([&rec[2], &rec[3], &rec[4], &rec[7], &rec[9], &rec[13]].map(str::to_string));
    }
    (run, rows)
}

fn tcp_config(eol: &str, close: bool) -> String {
    format!(
        r#"<ConfigTestElement guiclass="TCPConfigGui" testclass="ConfigTestElement" testname="TCP Sampler Config" enabled="true">
          <stringProp name="TCPSampler.server">${{host}}</stringProp>
          <boolProp name="TCPSampler.reUseConnection">true</boolProp>
          <stringProp name="TCPSampler.port">${{port}}</stringProp>
          <boolProp name="TCPSampler.nodelay">true</boolProp>
          <stringProp name="TCPSampler.timeout">2000</stringProp>
          <boolProp name="TCPSampler.closeConnection">{close}</boolProp>
          <stringProp name="TCPSampler.EolByte">{eol}</stringProp>
        </ConfigTestElement><hashTree/>"#
    )
}

/// A TCP Sampler leaving server, port and end byte to the config in scope.
fn tcp(name: &str, class: &str, request: &str, timeout: &str, children: &str) -> String {
    format!(
        r#"<TCPSampler guiclass="TCPSamplerGui" testclass="TCPSampler" testname="{name}" enabled="true">
          <stringProp name="TCPSampler.classname">{class}</stringProp>
          <stringProp name="TCPSampler.server"></stringProp>
          <stringProp name="TCPSampler.port"></stringProp>
          <stringProp name="TCPSampler.timeout">{timeout}</stringProp>
          <stringProp name="TCPSampler.request">{request}</stringProp>
          <stringProp name="ConfigTestElement.username"></stringProp>
          <stringProp name="ConfigTestElement.password"></stringProp>
        </TCPSampler><hashTree>{children}</hashTree>"#
    )
}

fn contains(text: &str) -> String {
    crate::util::jmx::response_assertion("has", "Assertion.response_data", 2, text)
}

/// TCPClientImpl with the config's end byte (10): one connection per user, kept across
/// samples; each request reaches the server once; the JTL has 200, OK and the response text's
/// bytes. With "close connection" each sample opens its own.
#[test]
fn tcp_sampler_keeps_a_connection_per_user() {
    for (close, connections) in [(false, 2), (true, 6)] {
        let server = TcpServer::start(TcpMode::Lines);
        let body = [
            tcp_config("10", close),
            tcp("line", "TCPClientImpl", "hello ${__threadNum}&#10;", "", &contains("echo:hello")),
        ]
        .concat();
        let (run, rows) = run_jmx("jmx-tcp", 2, "3", server.port(), &body);
        let row = run.label("line");
        assert_eq!((uint(&row, "samples"), uint(&row, "errors")), (6, 0), "{row:#}");
        assert_eq!(server.messages(), 6);
        assert_eq!(server.connections(), connections, "close={close}");
        assert_eq!(rows.len(), 6);
        for r in &rows {
            // As JMeter 5.6.3 writes them (checked against it): no URL is `null`.
            assert_eq!([&r[1], &r[2], &r[3], &r[4], &r[5]], ["200", "OK", "true", "13", "null"], "{r:?}");
        }
    }
}

/// BinaryTCPClientImpl: the hex request goes out as bytes, the response comes back as hex.
#[test]
fn binary_tcp_client_speaks_hex() {
    let server = TcpServer::start(TcpMode::Lines);
    let body = [
        tcp_config("10", false),
        // "hi\n" out; "echo:hi\n" back, as hex.
        tcp(
            "bin",
            "org.apache.jmeter.protocol.tcp.sampler.BinaryTCPClientImpl",
            "68690A",
            "",
            &contains("6563686f3a68690a"),
        ),
    ]
    .concat();
    let (run, rows) = run_jmx("jmx-tcp-bin", 1, "4", server.port(), &body);
    assert_eq!(uint(&run.label("bin"), "errors"), 0);
    assert_eq!(server.messages(), 4);
    assert!(server.received().iter().all(|m| m == b"hi\n"));
    // The bytes JMeter counts are the hex text's.
    assert!(rows.iter().all(|r| r[4] == "16"), "{rows:?}");
}

/// LengthPrefixedBinaryTCPClientImpl: each message after its length in two bytes, both ways,
/// over one connection.
#[test]
fn length_prefixed_tcp_client_frames_each_message() {
    let server = TcpServer::start(TcpMode::LengthPrefixed);
    let class = "LengthPrefixedBinaryTCPClientImpl";
    // "hi" out; "echo:hi" back, as hex.
    let body = [tcp_config("", false), tcp("framed", class, "6869", "", &contains("^6563686f3a6869$"))].concat();
    let (run, rows) = run_jmx("jmx-tcp-framed", 1, "3", server.port(), &body);
    let row = run.label("framed");
    assert_eq!((uint(&row, "samples"), uint(&row, "errors")), (3, 0), "{row:#}");
    assert_eq!(server.messages(), 3);
    assert_eq!(server.connections(), 1);
    assert!(server.received().iter().all(|m| m == b"hi"));
    assert!(rows.iter().all(|r| r[1] == "200" && r[4] == "14"), "{rows:?}");
}

/// Nothing listening: each sample fails at once with 500 and Java's exception; a server that
/// never answers: each sample fails after the read timeout with JMeter's ReadException, and the
/// server did receive every request.
#[test]
fn tcp_refused_and_timed_out_samples_fail() {
    let body = [tcp_config("10", false), tcp("refused", "TCPClientImpl", "x&#10;", "", "")].concat();
    let (run, rows) = run_jmx("jmx-tcp-refused", 1, "3", closed_port(), &body);
    let row = run.label("refused");
    assert_eq!((uint(&row, "samples"), uint(&row, "errors")), (3, 3));
    for r in &rows {
        assert_eq!([&r[1], &r[2], &r[3]], ["500", "java.net.ConnectException: Connection refused", "false"]);
    }
    let server = TcpServer::start(TcpMode::Silent);
    let body = [tcp_config("10", false), tcp("silent", "TCPClientImpl", "x&#10;", "150", "")].concat();
    let (run, rows) = run_jmx("jmx-tcp-timeout", 1, "2", server.port(), &body);
    let row = run.label("silent");
    assert_eq!((uint(&row, "samples"), uint(&row, "errors")), (2, 2));
    assert_eq!(server.messages(), 2);
    // A failed read closes the connection: the next sample opens another.
    assert_eq!(server.connections(), 2);
    for r in &rows {
        assert_eq!(
            [&r[1], &r[2], &r[3]],
            [
                "500",
                "org.apache.jmeter.protocol.tcp.sampler.ReadException: Error reading from server, bytes read: 0",
                "false"
            ]
        );
    }
}

fn http_raw(name: &str, data: &str, keepalive: bool, parse: bool, children: &str) -> String {
    http_raw_file(name, data, "", keepalive, parse, children)
}

fn http_raw_file(name: &str, data: &str, file: &str, keepalive: bool, parse: bool, children: &str) -> String {
    format!(
        r#"<kg.apc.jmeter.samplers.HTTPRawSampler guiclass="kg.apc.jmeter.samplers.HTTPRawSamplerGui" testclass="kg.apc.jmeter.samplers.HTTPRawSampler" testname="{name}" enabled="true">
          <stringProp name="hostname">${{host}}</stringProp>
          <stringProp name="port">${{port}}</stringProp>
          <boolProp name="keepalive">{keepalive}</boolProp>
          <stringProp name="timeout">2000</stringProp>
          <stringProp name="data">{data}</stringProp>
          <stringProp name="fileName">{file}</stringProp>
          <boolProp name="parse">{parse}</boolProp>
        </kg.apc.jmeter.samplers.HTTPRawSampler><hashTree>{children}</hashTree>"#
    )
}

/// The HTTP Raw Request sends its data byte for byte (CRLFs as the plugin's GUI wrote them), a
/// connection per sample; with parsing, the status line is the code and message and the body
/// the data. The Raw Data Source feeds it chunk after chunk, one file position for all users,
/// starting again at the end.
#[test]
fn http_raw_request_sends_its_data_and_parses_the_response() {
    let reply = b"HTTP/1.1 201 Created\r\nX-A: 1\r\n\r\nmade".to_vec();
    let server = TcpServer::start(TcpMode::HttpClose(reply));
    let data = "GET /r?u=${__threadNum} HTTP/1.0&#xd;\nHost: x&#xd;\n&#xd;\n";
    let body =
        [http_raw("parsed", data, false, true, &contains("made")), http_raw("plain", data, false, false, "")].concat();
    let (run, rows) = run_jmx("jmx-raw", 2, "3", server.port(), &body);
    for label in ["parsed", "plain"] {
        let row = run.label(label);
        assert_eq!((uint(&row, "samples"), uint(&row, "errors")), (6, 0), "{label}: {row:#}");
    }
    assert_eq!(server.messages(), 12);
    assert_eq!(server.connections(), 12);
    let mut got: Vec<String> = server.received().iter().map(|m| String::from_utf8_lossy(m).into_owned()).collect();
    got.sort();
    got.dedup();
    assert_eq!(got, ["GET /r?u=1 HTTP/1.0\r\nHost: x\r\n\r\n", "GET /r?u=2 HTTP/1.0\r\nHost: x\r\n\r\n"]);
    for r in &rows {
        let want = if r[0] == "parsed" { ["201", "Created", "true", "4"] } else { ["200", "", "true", "36"] };
        assert_eq!([&r[1], &r[2], &r[3], &r[4]], want, "{r:?}");
    }
    // Refused: the plugin's 500 and Java's exception.
    let body = http_raw("refused", data, false, false, "");
    let (run, rows) = run_jmx("jmx-raw-refused", 1, "2", closed_port(), &body);
    assert_eq!(uint(&run.label("refused"), "errors"), 2);
    assert!(rows.iter().all(|r| r[1] == "500" && r[2] == "java.net.ConnectException: Connection refused"), "{rows:?}");
}

/// A file that cannot be read fails the sample after the data went out, with Java's
/// exception; the plugin keeps its channel, so with keep-alive the next sample writes on the
/// same connection (as JMeter with the plugin does).
#[test]
fn http_raw_request_with_a_missing_file_keeps_its_channel() {
    let server = TcpServer::start(TcpMode::HttpClose(b"HTTP/1.0 200 OK\r\n\r\n".to_vec()));
    let body = http_raw_file("nofile", "GET /f HTTP/1.0&#xd;\n&#xd;\n", "missing.bin", true, false, "");
    let (run, rows) = run_jmx("jmx-raw-nofile", 1, "2", server.port(), &body);
    assert_eq!(uint(&run.label("nofile"), "errors"), 2);
    assert_eq!(server.connections(), 1);
    assert_eq!(server.messages(), 1);
    assert!(
        rows.iter()
            .all(|r| r[1] == "500" && r[2] == "java.io.FileNotFoundException: missing.bin (No such file or directory)"),
        "{rows:?}"
    );
}

/// A Raw Data Source reading `path` into `req`.
fn raw_source(path: &std::path::Path, rewind: bool) -> String {
    format!(
        r#"<kg.apc.jmeter.modifiers.RawRequestSourcePreProcessor guiclass="kg.apc.jmeter.modifiers.RawRequestSourcePreProcessorGui" testclass="kg.apc.jmeter.modifiers.RawRequestSourcePreProcessor" testname="ammo" enabled="true">
          <boolProp name="rewind">{rewind}</boolProp>
          <stringProp name="variable_name">req</stringProp>
          <stringProp name="filename">{}</stringProp>
        </kg.apc.jmeter.modifiers.RawRequestSourcePreProcessor><hashTree/>"#,
        path.display()
    )
}

#[test]
fn raw_data_source_feeds_chunks_in_order_and_rewinds() {
    let server = TcpServer::start(TcpMode::HttpClose(b"HTTP/1.0 200 OK\r\n\r\n".to_vec()));
    let run_dir = TempRun::new("jmx-raw-source-data");
    let chunks = ["GET /1 HTTP/1.0\r\n\r\n", "GET /22 HTTP/1.0\r\n\r\n", "GET /333 HTTP/1.0\r\n\r\n"];
    let file: String = chunks.iter().map(|c| format!("{} request\n{c}", c.len())).collect();
    let path = run_dir.write("ammo.txt", file);
    let source = raw_source(&path, true);
    let body = [source, http_raw("ammo", "${req}", false, false, "")].concat();
    let (run, _) = run_jmx("jmx-raw-source", 1, "5", server.port(), &body);
    assert_eq!(uint(&run.label("ammo"), "samples"), 5);
    let got: Vec<String> = server.received().iter().map(|m| String::from_utf8_lossy(m).into_owned()).collect();
    assert_eq!(got, [chunks[0], chunks[1], chunks[2], chunks[0], chunks[1]]);
}

/// A Raw Data Source out of data (no rewind) stops its user as the plugin's exception stops
/// the JMeter thread: no sample, so not the thread group's action after a sampler error
/// ("Stop Test" here), and the other thread group runs to its end.
#[test]
fn raw_data_source_out_of_data_stops_only_its_user() {
    let server = TcpServer::start(TcpMode::HttpClose(b"HTTP/1.0 200 OK\r\n\r\n".to_vec()));
    let run = TempRun::new("jmx-raw-source-eof");
    let chunk = "GET /1 HTTP/1.0\r\n\r\n";
    let path = run.write("ammo.txt", format!("{} request\n{chunk}", chunk.len()));
    let source = raw_source(&path, false);
    let first = [source, http_raw("ammo", "${req}", false, false, "")].concat();
    let other = jmx_plan(1, "20", &http_raw("other", "GET /2 HTTP/1.0&#xd;\n&#xd;\n", false, false, ""));
    let at = other.find("<ThreadGroup ").unwrap();
    let end = other.rfind("</hashTree>\n    </hashTree>").unwrap();
    let second_group = other[at..end + "</hashTree>".len()].replace("testname=\"Users\"", "testname=\"Other\"");
    let plan = jmx_plan(1, "2", &first).replace(">continue</stringProp>", ">stoptest</stringProp>");
    let close = plan.rfind("    </hashTree>\n  </hashTree>").unwrap();
    let plan = format!("{}{second_group}\n{}", &plan[..close], &plan[close..]);
    let p = run.write("plan.jmx", plan);
    let port = format!("port={}", server.port());
    Stampede::new().arg("run").arg(&p).args(["-q", "-J", &port, "--out"]).arg(run.path()).run().assert_exit(0);
    assert_eq!(uint(&run.label("ammo"), "samples"), 1);
    assert_eq!(uint(&run.label("other"), "samples"), 20, "the run was not stopped");
    assert_eq!(server.messages(), 21);
}

fn udp(name: &str, data: &str, codec: &str, wait: bool, timeout: &str, children: &str) -> String {
    format!(
        r#"<kg.apc.jmeter.samplers.UDPSampler guiclass="kg.apc.jmeter.samplers.UDPSamplerGui" testclass="kg.apc.jmeter.samplers.UDPSampler" testname="{name}" enabled="true">
          <stringProp name="hostname">${{host}}</stringProp>
          <stringProp name="port">${{port}}</stringProp>
          <boolProp name="waitresponse">{wait}</boolProp>
          <boolProp name="closechannel">false</boolProp>
          <stringProp name="timeout">{timeout}</stringProp>
          <stringProp name="data">{data}</stringProp>
          <stringProp name="encodeclass">kg.apc.jmeter.samplers.{codec}</stringProp>
          <stringProp name="bind_address"></stringProp>
          <stringProp name="bind_port"></stringProp>
        </kg.apc.jmeter.samplers.UDPSampler><hashTree>{children}</hashTree>"#
    )
}

/// UDP Requests: hex out and back; a DNS query from `name. A IN` whose answer is written out as
/// dnsjava does; a datagram sent without waiting. Every datagram reaches the server once.
#[test]
fn udp_requests_with_the_plugin_s_encoders() {
    let echo = UdpServer::start(UdpMode::Echo);
    let body = [
        udp("hex", "cafe01", "HexStringUDPDecoder", true, "2000", &contains("cafe01")),
        udp("raw", "ping ${__threadNum}", "UDPSampler", false, "", ""),
    ]
    .concat();
    let (run, rows) = run_jmx("jmx-udp", 2, "3", echo.port(), &body);
    for label in ["hex", "raw"] {
        let row = run.label(label);
        assert_eq!((uint(&row, "samples"), uint(&row, "errors")), (6, 0), "{label}: {row:#}");
    }
    assert_eq!(echo.datagrams(), 12);
    assert_eq!(echo.received().iter().filter(|d| d.as_slice() == [0xca, 0xfe, 0x01]).count(), 6);
    for r in &rows {
        let bytes = if r[0] == "hex" { "6" } else { "0" };
        assert_eq!([&r[1], &r[2], &r[3], &r[4]], ["200", "", "true", bytes], "{r:?}");
    }
    let dns = UdpServer::start(UdpMode::Dns);
    let body = udp(
        "dns",
        "example.com. A IN",
        "DNSJavaDecoder",
        true,
        "2000",
        &contains("example.com.\t\t60\tIN\tA\t127.0.0.1"),
    );
    let (run, _) = run_jmx("jmx-udp-dns", 1, "3", dns.port(), &body);
    assert_eq!(uint(&run.label("dns"), "errors"), 0, "{:#}", run.label("dns"));
    assert_eq!(dns.datagrams(), 3);
    assert!(dns.received().iter().all(|q| q.ends_with(b"\x07example\x03com\x00\x00\x01\x00\x01")));
}

/// A UDP Request waiting for an answer that never comes fails after its timeout.
#[test]
fn udp_request_times_out() {
    let silent = UdpServer::start(UdpMode::Silent);
    let body = udp("quiet", "00", "HexStringUDPDecoder", true, "150", "");
    let (run, rows) = run_jmx("jmx-udp-timeout", 1, "2", silent.port(), &body);
    assert_eq!(uint(&run.label("quiet"), "errors"), 2);
    assert_eq!(silent.datagrams(), 2);
    assert!(rows.iter().all(
        |r| r[1] == "500" && r[2] == "java.net.SocketTimeoutException: Timeout exceeded while reading from socket"
    ));
}

/// A TCP Sampler named with `${...}` is named per sample, as JMeter sets a sample's label from
/// its rendered name before it samples: one row per user, and the server saw every message.
#[test]
fn a_tcp_sampler_named_with_a_variable_has_a_row_per_rendered_name() {
    let server = TcpServer::start(TcpMode::Lines);
    let body = [tcp_config("10", false), tcp("line ${__threadNum}", "TCPClientImpl", "hi&#10;", "", "")].concat();
    let (run, rows) = run_jmx("jmx-tcp-label", 2, "2", server.port(), &body);
    assert_eq!(server.messages(), 4);
    let mut labels: Vec<&str> = rows.iter().map(|r| r[0].as_str()).collect();
    labels.sort_unstable();
    assert_eq!(labels, ["line 1", "line 1", "line 2", "line 2"]);
    for user in ["line 1", "line 2"] {
        assert_eq!(uint(&run.label(user), "samples"), 2, "{user}");
    }
}

/// Script post-processors and assertions run on a TCP sample as on an HTTP one: the one below
/// reads the response into a variable the next sample sends, the assertion fails the sample with
/// its message, and a pre-processor's `prev` is the TCP sample.
#[test]
fn scripts_run_on_tcp_samples() {
    let server = TcpServer::start(TcpMode::Lines);
    let post = crate::jmx_scripts::script(
        "JSR223PostProcessor",
        "seen",
        "groovy",
        "vars.put('seen', prev.getResponseDataAsString().trim().replace('echo:', 'got-') + '-' + prev.getResponseCode())",
        "",
    );
    let assert = crate::jmx_scripts::script(
        "JSR223Assertion",
        "nope",
        "groovy",
        "if (!prev.getResponseDataAsString().contains('nope')) { AssertionResult.setFailure(true); AssertionResult.setFailureMessage('no nope') }",
        "",
    );
    let pre = crate::jmx_scripts::script(
        "JSR223PreProcessor",
        "last",
        "groovy",
        "vars.put('last', prev.getSampleLabel())",
        "",
    );
    let body = [
        tcp_config("10", false),
        tcp("first", "TCPClientImpl", "hello&#10;", "", &[post, assert].concat()),
        tcp("second", "TCPClientImpl", "${seen} ${last}&#10;", "", &pre),
    ]
    .concat();
    let (run, rows) = run_jmx("jmx-tcp-scripts", 1, "2", server.port(), &body);
    let first = run.label("first");
    assert_eq!((uint(&first, "samples"), uint(&first, "errors")), (2, 2), "{first:#}");
    assert!(first.to_string().contains("no nope"), "{first:#}");
    assert_eq!(uint(&run.label("second"), "errors"), 0);
    let got: Vec<String> = server.received().iter().map(|m| String::from_utf8_lossy(m).trim().to_string()).collect();
    assert_eq!(got, ["hello", "got-hello-200 first", "hello", "got-hello-200 first"]);
    assert_eq!(rows.len(), 4);
}

fn tcp_client_class(name: &str, class: &str, request: &str, children: &str) -> String {
    format!(
        r#"<TCPSampler guiclass="TCPSamplerGui" testclass="TCPSampler" testname="{name}" enabled="true">
          <stringProp name="TCPSampler.classname">{class}</stringProp>
          <stringProp name="TCPSampler.server">${{host}}</stringProp>
          <stringProp name="TCPSampler.port">${{port}}</stringProp>
          <boolProp name="TCPSampler.reUseConnection">true</boolProp>
          <stringProp name="TCPSampler.timeout">2000</stringProp>
          <stringProp name="TCPSampler.EolByte">10</stringProp>
          <stringProp name="TCPSampler.request">{request}</stringProp>
        </TCPSampler><hashTree>{children}</hashTree>"#
    )
}

/// A TCP Sampler whose client class is none of JMeter's (`org.foo.xxx`) loads with a warning;
/// each of its samples connects (the connection kept, as JMeter keeps it), sends nothing and
/// fails with 500 "Protocol handler not found". A TCPClientImpl sampler's request data is the
/// request it sent.
#[test]
fn a_tcp_sampler_with_an_unknown_client_class_fails_each_sample_unsent() {
    let server = TcpServer::start(TcpMode::Lines);
    let run = TempRun::new("sysreq-tcp-class");
    let body = [
        tcp_client_class("nohandler", "org.foo.xxx", "hello&#10;", ""),
        tcp_client_class(
            "text",
            "TCPClientImpl",
            "hi&#10;",
            &response_assertion("sent", "Assertion.request_data", 8, "hi\n"),
        ),
    ]
    .concat();
    let file = run.write("plan.jmx", jmx_plan(1, "3", &body));
    let check = Stampede::new().arg("check").arg(&file).run();
    check.assert_exit(0);
    let out = check.stdout_str();
    assert!(out.contains("[WARNING]") && out.contains("Protocol handler not found"), "{out}");
    let (cmd, jtl) = run_with_jtl(&run, &file, Some(server.port()));
    cmd.run().assert_exit(0);
    assert_eq!(server.messages(), 3, "only `text` sends");
    assert_eq!(server.connections(), 1, "one kept connection per user and key");
    let s = run.summary();
    assert_eq!((uint(&label(&s, "nohandler"), "samples"), uint(&label(&s, "nohandler"), "errors")), (3, 3));
    assert_eq!((uint(&label(&s, "text"), "samples"), uint(&label(&s, "text"), "errors")), (3, 0));
    let rows = std::fs::read_to_string(&jtl).unwrap();
    let failed = rows.lines().filter(|l| l.contains(",nohandler,500,Protocol handler not found,")).count();
    assert_eq!(failed, 3, "{rows}");
    let strict = Stampede::new().arg("run").arg(&file).args(["-q", "--strict"]).run();
    assert_eq!(strict.status.code(), Some(2), "{}", strict.stderr_str());
}
