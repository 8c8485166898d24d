//! The samplers over a raw socket: JMeter's TCP Sampler (and its TCP Sampler Config), its FTP
//! Request (and FTP Request Defaults), the plugins' HTTP Raw Request and UDP Request, and the
//! Raw Data Source pre-processor that feeds them; see [`crate::plan::sampler::socket`].

use super::*;
use crate::plan::process::OsProcess;
use crate::plan::sampler::socket::{
    Ftp, HttpRaw, RawFile, RawSource, Socket, SocketKind, Tcp, TcpClient, Udp, UdpCodec,
};
use crate::plan::sampler::synthetic::java_long_decode;

/// The samplers, by class.
pub(super) const STEP_ELEMENTS: &[(&str, StepsFn)] = &[
    ("TCPSampler", Cx::tcp_sampler),
    ("FTPSampler", Cx::ftp_sampler),
    ("kg.apc.jmeter.samplers.HTTPRawSampler", Cx::http_raw_sampler),
    ("kg.apc.jmeter.samplers.UDPSampler", Cx::udp_sampler),
    ("SystemSampler", Cx::os_process_sampler),
];

/// The pre-processor, by class (the TCP Sampler Config is a `ConfigTestElement`, read through
/// the HTTP Request Defaults' row by its GUI class).
pub(super) const SCOPE_ELEMENTS: &[(&str, ScopeFn)] =
    &[("kg.apc.jmeter.modifiers.RawRequestSourcePreProcessor", Cx::raw_request_source)];

const TCP_PACKAGE: &str = "org.apache.jmeter.protocol.tcp.sampler.";
const PLUGIN_PACKAGE: &str = "kg.apc.jmeter.samplers.";

impl Cx {
    /// TCP Sampler Config (`ConfigTestElement` with `TCPConfigGui`): its fields fill the ones
    /// a TCP Sampler in its scope leaves empty; an inner config's win over an outer's.
    pub(super) fn tcp_config(&mut self, c: &El, s: &mut Scope, depth: usize) -> Result<(), Error> {
        let mut own: Vec<Prop> = c.props.iter().filter(|p| p.name.starts_with("TCPSampler.")).cloned().collect();
        own.append(&mut s.tcp);
        s.tcp = own;
        self.report(c, depth, Status::Supported, "fills the empty fields of the TCP Samplers in its scope");
        Ok(())
    }

    /// FTP Request Defaults (`ConfigTestElement` with `FtpConfigGui`), and the user name and
    /// password of a Login Config Element: they fill the fields an FTP Request in their scope
    /// leaves empty (`FTPSampler.applies` takes these GUIs' configs); an inner one's win.
    pub(super) fn ftp_config(&mut self, c: &El, s: &mut Scope, depth: usize, login: bool) {
        let mut own: Vec<Prop> = c
            .props
            .iter()
            .filter(|p| {
                p.name.starts_with("FTPSampler.")
                    || p.name == "ConfigTestElement.username"
                    || p.name == "ConfigTestElement.password"
            })
            .cloned()
            .collect();
        own.append(&mut s.ftp);
        s.ftp = own;
        if !login {
            self.report(c, depth, Status::Supported, "fills the empty fields of the FTP Requests in its scope");
        }
    }

    /// JMeter's FTP Request: one RETR or STOR per sample on a connection of its own.
    pub(super) fn ftp_sampler(&mut self, c: &El, scope: &Scope, depth: usize) -> Result<Vec<Step>, Error> {
        // JMeter's merge of config elements, as for the TCP Sampler: a property the sampler
        // lacks, or has empty, is taken from the innermost config that has it.
        let field = |name: &str| -> Option<&Value> {
            c.props
                .iter()
                .chain(scope.ftp.iter())
                .filter(|p| p.name == name)
                .map(|p| &p.value)
                .find(|v| !matches!(v, Value::Text(t) if t.is_empty()))
        };
        let text = |name: &str| match field(name) {
            Some(Value::Text(t)) => t.clone(),
            _ => String::new(),
        };
        // `getPropertyAsBoolean(name, false)`.
        let flag = |name: &str| matches!(field(name), Some(Value::Text(t)) if t.trim().eq_ignore_ascii_case("true"));
        let t = |cx: &mut Self, name: &str| cx.tmpl(c, &text(name));
        let ftp = Ftp {
            server: t(self, "FTPSampler.server")?,
            port: t(self, "FTPSampler.port")?,
            remote: t(self, "FTPSampler.filename")?,
            local: t(self, "FTPSampler.localfilename")?,
            input: t(self, "FTPSampler.inputdata")?,
            binary: flag("FTPSampler.binarymode"),
            save: flag("FTPSampler.saveresponse"),
            upload: flag("FTPSampler.upload"),
            user: t(self, "ConfigTestElement.username")?,
            password: t(self, "ConfigTestElement.password")?,
            base_dir: crate::confine::PlanDir::of_plan(&self.file),
        };
        if ftp.upload && ftp.input.source().is_empty() {
            crate::plan::files::read_when_run(&ftp.base_dir, &ftp.local);
        }
        let what = match (ftp.upload, ftp.input.source().is_empty()) {
            (true, false) => "STOR of its data",
            (true, true) => "STOR of its local file",
            (false, _) if ftp.save => "RETR kept as the response data",
            (false, _) => "RETR counted",
        };
        let note = format!(
            "{what}, in passive mode, on a connection of its own (log in, transfer, QUIT); JMeter's results: \
             200 `OK`, else the FTP reply's code and text (`550 ...`), 501 when the greeting is not 2xx, or 000 and \
             the Java exception (`java.net.ConnectException: Connection refused`); a download of 0 bytes fails; \
             a relative local file is read and written in the plan's directory"
        );
        self.socket_steps(c, scope, depth, SocketKind::Ftp(Box::new(ftp)), Status::Supported, note)
    }

    /// JMeter's TCP Sampler with one of JMeter's three client classes.
    pub(super) fn tcp_sampler(&mut self, c: &El, scope: &Scope, depth: usize) -> Result<Vec<Step>, Error> {
        // JMeter's merge of config elements: a property the sampler lacks, or has empty, is
        // taken from the innermost config that has it.
        let field = |name: &str| -> Option<&Value> {
            std::iter::once(c.props.as_slice())
                .chain(std::iter::once(scope.tcp.as_slice()))
                .flat_map(|ps| ps.iter())
                .filter(|p| p.name == name)
                .map(|p| &p.value)
                .find(|v| !matches!(v, Value::Text(t) if t.is_empty()))
        };
        let text = |name: &str| match field(name) {
            Some(Value::Text(t)) => t.clone(),
            _ => String::new(),
        };
        let flag = |name: &str, default: bool| match field(name) {
            Some(Value::Text(t)) => t.trim().eq_ignore_ascii_case("true"),
            _ => default,
        };
        let prop = |cx: &Self, name: &str| cx.b.sym.properties.get(name).cloned();
        let mut class = text("TCPSampler.classname").trim().to_string();
        if class.is_empty() {
            class = prop(self, "tcp.handler").unwrap_or_else(|| "TCPClientImpl".into());
        }
        let short = class.strip_prefix(TCP_PACKAGE).unwrap_or(&class);
        let int_prop = |cx: &Self, name: &str, default: i64| {
            prop(cx, name).and_then(|v| java_long_decode(v.trim())).unwrap_or(default)
        };
        let (client, default_eol) = match short {
            "TCPClientImpl" => (TcpClient::Text, int_prop(self, "tcp.eolByte", 1000)),
            "BinaryTCPClientImpl" => (TcpClient::Binary, int_prop(self, "tcp.BinaryTCPClient.eomByte", 1000)),
            "LengthPrefixedBinaryTCPClientImpl" => {
                let prefix = int_prop(self, "tcp.binarylength.prefix.length", 2).clamp(1, 8) as usize;
                (TcpClient::LengthPrefixed { prefix }, 1000)
            }
            _ => {
                let failure = self.b.check(format!("{}: Protocol handler not found", c.name));
                (TcpClient::Missing { failure }, 1000)
            }
        };
        let t = |cx: &mut Self, name: &str| cx.tmpl(c, &text(name));
        let eol = match text("TCPSampler.EolByte") {
            e if e.is_empty() => None,
            e => Some(self.tmpl(c, &e)?),
        };
        let mut notes =
            vec!["JMeter's results: code 200 and `OK`, or 500 and the Java exception; no bytes sent counted, \
                              the bytes received those of the response text"
                .to_string()];
        let mut status = Status::Supported;
        if let Some(cs) = prop(self, "tcp.charset").filter(|c| !c.eq_ignore_ascii_case("UTF-8")) {
            status = Status::Partial;
            notes.push(format!("text is sent and read as UTF-8, not `tcp.charset` {cs}"));
        }
        if !text("TCPSampler.soLinger").is_empty() {
            status = Status::Partial;
            notes.push("SO_LINGER is not set (a lingering close would hold a worker thread)".into());
        }
        if prop(self, "tcp.status.properties").is_some_and(|p| !p.is_empty()) {
            status = Status::Partial;
            notes.push("the messages of `tcp.status.properties` are not read".into());
        }
        // Last: what happens at run time wins over what is partial.
        if matches!(client, TcpClient::Missing { .. }) {
            status = Status::Warning;
            notes = vec![format!(
                "the TCP client class `{class}` is not one of JMeter's own: JMeter loads it and each sample \
                 connects, then fails (500 \"Protocol handler not found\"), sending nothing"
            )];
        }
        let tcp = Tcp {
            server: t(self, "TCPSampler.server")?,
            port: t(self, "TCPSampler.port")?,
            request: t(self, "TCPSampler.request")?,
            client,
            eol,
            default_eol: (-128..=127).contains(&default_eol).then_some(default_eol),
            reuse: flag("TCPSampler.reUseConnection", true),
            close: flag("TCPSampler.closeConnection", false),
            nodelay: flag("TCPSampler.nodelay", false),
            so_linger: t(self, "TCPSampler.soLinger")?,
            timeout: t(self, "TCPSampler.timeout")?,
            connect_timeout: t(self, "TCPSampler.ctimeout")?,
            user: format!(
                "{}#{}",
                c.text_or_empty("ConfigTestElement.username"),
                c.text_or_empty("ConfigTestElement.password")
            ),
            status_prefix: prop(self, "tcp.status.prefix").unwrap_or_default(),
            status_suffix: prop(self, "tcp.status.suffix").unwrap_or_default(),
        };
        self.socket_steps(c, scope, depth, SocketKind::Tcp(Box::new(tcp)), status, notes.join("; "))
    }

    /// JMeter's OS Process Sampler (`SystemSampler`): run by the socket family's engine, which
    /// makes a result (code, message, data) as SystemSampler does; only with
    /// `--allow-commands`.
    pub(super) fn os_process_sampler(&mut self, c: &El, scope: &Scope, depth: usize) -> Result<Vec<Step>, Error> {
        let t = |cx: &mut Self, name: &str| cx.tmpl(c, c.text_or_empty(name));
        let rows = |name: &str| super::synthetic::argument_rows(&c.props, name);
        let mut arguments = Vec::new();
        for (_, v) in rows("SystemSampler.arguments") {
            arguments.push(self.tmpl(c, &v)?);
        }
        let mut environment = Vec::new();
        for (n, v) in rows("SystemSampler.environment") {
            environment.push((self.tmpl(c, &n)?, self.tmpl(c, &v)?));
        }
        let command = c.text_or_empty("SystemSampler.command").to_string();
        let allowed = self.allow_commands;
        let refused = self.b.check(format!("{}: commands run only with --allow-commands", c.name));
        let unexpected = self.b.check(format!("{}: Unexpected return code", c.name));
        let plan_dir = self.file.parent().map(Path::to_path_buf).unwrap_or_default();
        let plan_dir = std::path::absolute(&plan_dir).unwrap_or(plan_dir);
        let p = OsProcess {
            command: self.tmpl(c, &command)?,
            arguments,
            environment,
            directory: t(self, "SystemSampler.directory")?,
            plan_dir,
            stdin: t(self, "SystemSampler.stdin")?,
            stdout: t(self, "SystemSampler.stdout")?,
            stderr: t(self, "SystemSampler.stderr")?,
            check_return_code: c.flag("SystemSampler.checkReturnCode").unwrap_or(false),
            expected_return_code: t(self, "SystemSampler.expectedReturnCode")?,
            timeout: t(self, "SystemSampler.timeout")?,
            allowed,
            refused,
            unexpected,
        };
        // The program only: its arguments may hold secrets.
        let (status, note) = if allowed {
            (
                Status::Supported,
                format!(
                    "runs `{command}` with {} argument(s) on this machine (--allow-commands): the response is its output, \
                     the code its exit code",
                    p.arguments.len()
                ),
            )
        } else {
            (
                Status::Warning,
                format!(
                    "runs the command `{command}` only with --allow-commands: without it each sample fails unrun \
                     (\"{}: commands run only with --allow-commands\")",
                    c.name
                ),
            )
        };
        self.socket_steps(c, scope, depth, SocketKind::Process(Box::new(p)), status, note)
    }

    /// The plugins' HTTP Raw Request: the data sent as it is, then the file; the response read
    /// to the end of the stream.
    pub(super) fn http_raw_sampler(&mut self, c: &El, scope: &Scope, depth: usize) -> Result<Vec<Step>, Error> {
        let t = |cx: &mut Self, name: &str| cx.tmpl(c, c.text_or_empty(name));
        let slot = self.b.slot(Slot::Counter);
        let raw = HttpRaw {
            host: t(self, "hostname")?,
            port: t(self, "port")?,
            data: t(self, "data")?,
            file: t(self, "fileName")?,
            base_dir: crate::confine::PlanDir::of_plan(&self.file),
            keepalive: c.flag("keepalive").unwrap_or(false),
            timeout: t(self, "timeout")?,
            parse: c.flag("parse").unwrap_or(false),
            slot,
        };
        crate::plan::files::read_when_run(&raw.base_dir, &raw.file);
        let note = "the plugin's results: code 200 (with parsing, the response's status line), or 500 and the Java \
                    exception without its stack trace; a relative file is read from the plan's directory";
        self.socket_steps(c, scope, depth, SocketKind::HttpRaw(Box::new(raw)), Status::Supported, note.into())
    }

    /// The plugins' UDP Request with the plugin's own encoders.
    pub(super) fn udp_sampler(&mut self, c: &El, scope: &Scope, depth: usize) -> Result<Vec<Step>, Error> {
        let class = c.text_or_empty("encodeclass").trim().to_string();
        let codec = match class.strip_prefix(PLUGIN_PACKAGE).unwrap_or(&class) {
            "" | "UDPSampler" => UdpCodec::Raw,
            "HexStringUDPDecoder" => UdpCodec::Hex,
            "DNSJavaDecoder" => UdpCodec::Dns,
            _ => {
                self.unsupported(
                    c,
                    depth,
                    &format!("the UDP encoder class `{class}` is user code stampede cannot run"),
                );
                return Ok(Vec::new());
            }
        };
        let t = |cx: &mut Self, name: &str| cx.tmpl(c, c.text_or_empty(name));
        let slot = self.b.slot(Slot::Counter);
        let udp = Udp {
            host: t(self, "hostname")?,
            port: t(self, "port")?,
            data: t(self, "data")?,
            codec,
            wait: c.flag("waitresponse").unwrap_or(false),
            timeout: t(self, "timeout")?,
            bind_address: t(self, "bind_address")?,
            bind_port: t(self, "bind_port")?,
            close: c.flag("closechannel").unwrap_or(false),
            slot,
        };
        let mut note = "the plugin's results: code 200, or 500 and the Java exception without its stack trace; \
                        the bytes received those of the decoded response"
            .to_string();
        let mut status = Status::Supported;
        if codec == UdpCodec::Dns {
            status = Status::Partial;
            note.push_str(
                "; the DNS response is written as dnsjava's text for A, AAAA, NS, CNAME, PTR, MX, SOA, TXT and SRV \
                 records, others as unknown records (`\\# length HEX`), without the EDNS pseudo-section",
            );
        }
        self.socket_steps(c, scope, depth, SocketKind::Udp(Box::new(udp)), status, note)
    }

    /// The plugins' Raw Data Source pre-processor: the next chunk of its file into a variable.
    pub(super) fn raw_request_source(&mut self, c: &El, s: &mut Scope, depth: usize) -> Result<(), Error> {
        let name = c.text_or_empty("variable_name").to_string();
        let var = self.b.sym.vars.assign(&name);
        let raw = RawSource {
            var,
            file: self.tmpl(c, c.text_or_empty("filename"))?,
            base_dir: crate::confine::PlanDir::of_plan(&self.file),
            rewind: c.flag("rewind").unwrap_or(false),
            hex: c.flag("isHex").unwrap_or(false),
            state: RawFile::default(),
            name,
        };
        crate::plan::files::read_when_run(&raw.base_dir, &raw.file);
        s.pre.push(Step::RawSource(Box::new(raw)));
        let note = "one file position for the whole run; the next chunk is read once per pass through its \
                    controller (JMeter: before each sampler in its scope); a relative file is read from the plan's \
                    directory";
        self.report(c, depth, Status::Partial, note);
        Ok(())
    }

    /// The steps of a socket sampler: its scope's set-up and timers, the sample, then what
    /// runs after it.
    fn socket_steps(
        &mut self,
        c: &El,
        scope: &Scope,
        depth: usize,
        kind: SocketKind,
        status: Status,
        note: String,
    ) -> Result<Vec<Step>, Error> {
        self.sampler_steps(c, scope, depth, status, note, |cx, own| {
            let label = cx.b.label(&c.name);
            cx.run_time_label(c, &c.name, label);
            Step::Sample(Sampler::Socket(Box::new(Socket {
                label,
                class: c.class.rsplit('.').next().unwrap_or_default().to_string(),
                kind,
                after: own.after(),
            })))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::super::synthetic::tests::plan_of;
    use super::*;

    fn config(server: &str, port: &str, eol: &str) -> String {
        format!(
            r#"<ConfigTestElement guiclass="TCPConfigGui" testclass="ConfigTestElement" testname="C" enabled="true">
              <stringProp name="TCPSampler.server">{server}</stringProp><stringProp name="TCPSampler.port">{port}</stringProp>
              <stringProp name="TCPSampler.EolByte">{eol}</stringProp><boolProp name="TCPSampler.closeConnection">true</boolProp>
            </ConfigTestElement><hashTree/>"#
        )
    }

    fn tcp(class: &str, server: &str) -> String {
        format!(
            r#"<TCPSampler testclass="TCPSampler" testname="t" enabled="true"><stringProp name="TCPSampler.classname">{class}</stringProp>
              <stringProp name="TCPSampler.server">{server}</stringProp><stringProp name="TCPSampler.port"></stringProp>
              <boolProp name="TCPSampler.closeConnection">false</boolProp></TCPSampler><hashTree/>"#
        )
    }

    fn read_plan(text: &str, props: &[(&str, &str)]) -> Result<(Plan, Vec<ElementReport>), Error> {
        let properties = props.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        read(text, Path::new("t.jmx"), &Options { properties, ..Default::default() })
    }

    /// The first socket sample of the plan's first scenario that `pick` takes.
    fn the_sample<T>(plan: &Plan, pick: impl Fn(&SocketKind) -> Option<T>) -> T {
        let found = plan.scenarios[0].flow.iter().find_map(|s| match s {
            Step::Sample(Sampler::Socket(x)) => pick(&x.kind),
            _ => None,
        });
        found.expect("a socket sample of that kind")
    }

    fn the_tcp(plan: &Plan) -> Tcp {
        the_sample(plan, |k| if let SocketKind::Tcp(t) = k { Some((**t).clone()) } else { None })
    }

    /// JMeter's merge: the sampler's own non-empty fields and flags win; an empty or missing
    /// one is the innermost config's.
    #[test]
    fn tcp_config_fills_what_the_sampler_leaves_empty() {
        let inner = format!(
            r#"<GenericController testclass="GenericController" testname="g" enabled="true"/><hashTree>{}{}</hashTree>"#,
            config("", "9000", ""),
            tcp("", "own.host")
        );
        let text = plan_of(&format!("{}{inner}", config("outer.host", "8000", "10")));
        let (plan, report) = read_plan(&text, &[]).unwrap();
        assert!(report.iter().all(|r| r.status != Status::Unsupported), "{report:?}");
        let t = the_tcp(&plan);
        assert_eq!(t.server.source(), "own.host");
        assert_eq!(t.port.source(), "9000");
        assert_eq!(t.eol.as_ref().map(|e| e.source().to_string()), Some("10".into()));
        assert!(!t.close, "the sampler's own flag wins");
        assert_eq!(t.client, TcpClient::Text);
    }

    /// The client class: empty is `tcp.handler` (TCPClientImpl); JMeter's package may be left
    /// out; the length prefix's size is `tcp.binarylength.prefix.length`; another class loads,
    /// each of its samples failing.
    #[test]
    fn tcp_client_classes_as_jmeter_finds_them() {
        let props = [("tcp.handler", "BinaryTCPClientImpl"), ("tcp.binarylength.prefix.length", "4")];
        let (plan, _) = read_plan(&plan_of(&tcp("", "h")), &props).unwrap();
        assert_eq!(the_tcp(&plan).client, TcpClient::Binary);
        let class = "org.apache.jmeter.protocol.tcp.sampler.LengthPrefixedBinaryTCPClientImpl";
        let (plan, _) = read_plan(&plan_of(&tcp(class, "h")), &props).unwrap();
        assert_eq!(the_tcp(&plan).client, TcpClient::LengthPrefixed { prefix: 4 });
        // JMeter loads another class and fails each sample (#32).
        let (plan, _) = read_plan(&plan_of(&tcp("com.example.Client", "h")), &[]).unwrap();
        assert!(matches!(the_tcp(&plan).client, TcpClient::Missing { .. }));
        let udp = r#"<kg.apc.jmeter.samplers.UDPSampler testclass="kg.apc.jmeter.samplers.UDPSampler" testname="u" enabled="true">
            <stringProp name="encodeclass">com.example.Codec</stringProp></kg.apc.jmeter.samplers.UDPSampler><hashTree/>"#;
        let e = read_plan(&plan_of(udp), &[]).unwrap_err();
        assert!(e.to_string().contains("com.example.Codec"), "{e}");
    }

    /// A Raw Data Source feeds samplers; it is not one: a plan with nothing else sends nothing.
    #[test]
    fn a_raw_data_source_alone_sends_nothing() {
        let source = r#"<kg.apc.jmeter.modifiers.RawRequestSourcePreProcessor testclass="kg.apc.jmeter.modifiers.RawRequestSourcePreProcessor" testname="r" enabled="true">
            <stringProp name="variable_name">v</stringProp><stringProp name="filename">f</stringProp></kg.apc.jmeter.modifiers.RawRequestSourcePreProcessor><hashTree/>"#;
        let e = read_plan(&plan_of(source), &[]).unwrap_err();
        assert!(e.to_string().contains("no thread group sends a request"), "{e}");
    }

    /// The resolved plan (the run directory's `plan.yaml`) shows what a socket sampler sends by
    /// its size only, and never the password of its connection key.
    #[test]
    fn the_resolved_plan_shows_no_payload_nor_password() {
        let tcp = r#"<TCPSampler testclass="TCPSampler" testname="t" enabled="true">
              <stringProp name="TCPSampler.server">h</stringProp><stringProp name="TCPSampler.request">login password=s3cret</stringProp>
              <stringProp name="ConfigTestElement.username">bob</stringProp><stringProp name="ConfigTestElement.password">pw-s3cret</stringProp>
            </TCPSampler><hashTree/>"#;
        let (plan, _) = read_plan(&plan_of(tcp), &[]).unwrap();
        assert_eq!(the_tcp(&plan).user, "bob#pw-s3cret");
        let shown = serde_json::to_string(&plan).unwrap();
        assert!(!shown.contains("s3cret"), "{shown}");
    }

    fn the_ftp(plan: &Plan) -> Ftp {
        the_sample(plan, |k| if let SocketKind::Ftp(f) = k { Some((**f).clone()) } else { None })
    }

    /// FTP Request Defaults and a Login Config Element fill what an FTP Request leaves empty
    /// (an inner one's first); the sampler's own values and flags win; the password is in no
    /// resolved plan.
    #[test]
    fn ftp_defaults_and_login_config_fill_what_the_sampler_leaves_empty() {
        let defaults = |server: &str, port: &str, binary: &str| {
            format!(
                r#"<ConfigTestElement guiclass="FtpConfigGui" testclass="ConfigTestElement" testname="d" enabled="true">
                  <stringProp name="FTPSampler.server">{server}</stringProp><stringProp name="FTPSampler.port">{port}</stringProp>
                  <boolProp name="FTPSampler.binarymode">{binary}</boolProp><boolProp name="FTPSampler.upload">true</boolProp>
                </ConfigTestElement><hashTree/>"#
            )
        };
        let login = r#"<ConfigTestElement guiclass="LoginConfigGui" testclass="ConfigTestElement" testname="l" enabled="true">
              <stringProp name="ConfigTestElement.username">bob</stringProp><stringProp name="ConfigTestElement.password">pw-s3cret</stringProp>
            </ConfigTestElement><hashTree/>"#;
        let sampler = r#"<FTPSampler guiclass="FtpTestSamplerGui" testclass="FTPSampler" testname="f" enabled="true">
              <stringProp name="FTPSampler.server"></stringProp><stringProp name="FTPSampler.filename">a.txt</stringProp>
              <boolProp name="FTPSampler.upload">false</boolProp><stringProp name="ConfigTestElement.username"></stringProp>
            </FTPSampler><hashTree/>"#;
        let inner = format!(
            r#"<GenericController testclass="GenericController" testname="g" enabled="true"/><hashTree>{}{login}{sampler}</hashTree>"#,
            defaults("", "2121", "true")
        );
        let text = plan_of(&format!("{}{inner}", defaults("outer.host", "21", "false")));
        let (plan, report) = read_plan(&text, &[]).unwrap();
        assert!(report.iter().all(|r| r.status == Status::Supported), "{report:?}");
        let f = the_ftp(&plan);
        assert_eq!(f.server.source(), "outer.host");
        assert_eq!(f.port.source(), "2121");
        assert_eq!(f.remote.source(), "a.txt");
        assert!(f.binary, "a flag the sampler lacks is the innermost config's");
        assert!(!f.upload, "the sampler's own flag wins");
        assert_eq!((f.user.source(), f.password.source()), ("bob", "pw-s3cret"));
        let shown = serde_json::to_string(&plan).unwrap();
        assert!(!shown.contains("s3cret"), "{shown}");
    }
}
