//! The eu.luminis WebSocket samplers (Peter Doornbosch's "WebSocket Samplers" plugin): open,
//! write, read, request-response, close and ping-pong on a user's one WebSocket connection;
//! see [`crate::plan::sampler::websocket`]. Fields are read as the plugin reads them: an absent field
//! takes the plugin's default, an empty one stays empty (and a timeout that is not a number
//! fails the sample when it runs, as the plugin's validation does).

use super::*;
use crate::plan::sampler::websocket::{
    Comparison, Connect, Failures, FilterRule, FrameFilter, FrameKind, Payload, WebSocket, WsOp,
};
use crate::plan::sampler::Sampler;

const PREFIX: &str = "eu.luminis.jmeter.wssampler.";

/// The WebSocket samplers, by class.
pub(super) const ELEMENTS: &[(&str, StepsFn)] = &[
    ("eu.luminis.jmeter.wssampler.OpenWebSocketSampler", Cx::ws_sampler),
    ("eu.luminis.jmeter.wssampler.SingleWriteWebSocketSampler", Cx::ws_sampler),
    ("eu.luminis.jmeter.wssampler.SingleReadWebSocketSampler", Cx::ws_sampler),
    ("eu.luminis.jmeter.wssampler.RequestResponseWebSocketSampler", Cx::ws_sampler),
    ("eu.luminis.jmeter.wssampler.CloseWebSocketSampler", Cx::ws_sampler),
    ("eu.luminis.jmeter.wssampler.PingPongSampler", Cx::ws_sampler),
];

/// The frame filters, read into the scope of the samplers they apply to.
pub(super) const FILTERS: &[(&str, ScopeFn)] = &[
    ("eu.luminis.jmeter.wssampler.PingFrameFilter", Cx::ws_filter),
    ("eu.luminis.jmeter.wssampler.TextFrameFilter", Cx::ws_filter),
    ("eu.luminis.jmeter.wssampler.BinaryFrameFilter", Cx::ws_filter),
];

/// The plugin's defaults (`WebSocketClient.DEFAULT_*_TIMEOUT`, `DEFAULT_WS_PORT`).
const CONNECT_TIMEOUT: &str = "20000";
const READ_TIMEOUT: &str = "6000";
const PORT: &str = "80";

const NOTE: &str = "frames by tokio-tungstenite (a fragmented message is read as one, a server's ping \
                    is answered); failures are stampede's error kinds, not the plugin's response codes";

impl Cx {
    /// One of the WebSocket samplers: its fields, the Header Manager of its scope for the
    /// upgrade, and what its scope runs around it.
    pub(super) fn ws_sampler(&mut self, c: &El, scope: &Scope, depth: usize) -> Result<Vec<Step>, Error> {
        let kind = c.class.strip_prefix(PREFIX).unwrap_or_default();
        // `getPropertyAsString(name, default)`: the default only when the field is absent.
        let field = |cx: &mut Self, name: &str, default: &str| match c.prop(name) {
            Some(Value::Text(t)) => cx.tmpl(c, t),
            _ => cx.tmpl(c, default),
        };
        let payload = |cx: &mut Self| -> Result<Payload, Error> {
            Ok(Payload {
                binary: c.flag("binaryPayload").unwrap_or(false),
                data: field(cx, "requestData", "")?,
                file: match c.flag("loadDataFromFile") == Some(true) {
                    true => Some(field(cx, "dataFile", "")?),
                    false => None,
                },
            })
        };
        // RequestResponseWebSocketSampler's constructor sets "create new connection"; the
        // others' default is to use the user's connection (Open always makes one).
        let new_connection = match kind {
            "OpenWebSocketSampler" => true,
            "RequestResponseWebSocketSampler" => c.flag("createNewConnection").unwrap_or(true),
            "SingleWriteWebSocketSampler" | "SingleReadWebSocketSampler" => {
                c.flag("createNewConnection").unwrap_or(false)
            }
            _ => false,
        };
        let (op, no_connection, unexpected) = match kind {
            "OpenWebSocketSampler" => (WsOp::Open, NO_CONNECTION, UNEXPECTED),
            "SingleWriteWebSocketSampler" => (WsOp::Write(payload(self)?), NO_CONNECTION, UNEXPECTED),
            "SingleReadWebSocketSampler" => {
                let kind = match c.text("dataType") {
                    Some("Text") => FrameKind::Text,
                    Some("Binary") => FrameKind::Binary,
                    Some("Any") => FrameKind::Any,
                    Some(other) => {
                        let why = format!("the data type `{other}` is none of Text, Binary, Any");
                        self.unsupported(c, depth, &why);
                        return Ok(Vec::new());
                    }
                    None if c.flag("binaryPayload") == Some(true) => FrameKind::Binary,
                    None => FrameKind::Text,
                };
                let optional = c.flag("optional").unwrap_or(false);
                (WsOp::Read { kind, optional }, NO_CONNECTION, UNEXPECTED)
            }
            "RequestResponseWebSocketSampler" => (WsOp::RequestResponse(payload(self)?), NO_CONNECTION, UNEXPECTED),
            "CloseWebSocketSampler" => (
                WsOp::Close { status: field(self, "statusCode", "1000")? },
                "No connection; nothing to close.",
                "WebSocket error: received not a close frame",
            ),
            _ => match c.text("type").unwrap_or("PingPong") {
                "PingPong" => (WsOp::Ping, PING_NO_CONNECTION, UNEXPECTED),
                "Pong" => (WsOp::Pong, PING_NO_CONNECTION, UNEXPECTED),
                other => {
                    self.unsupported(c, depth, &format!("the ping-pong type `{other}` is neither PingPong nor Pong"));
                    return Ok(Vec::new());
                }
            },
        };
        let connect = match new_connection {
            true => Some(Connect {
                tls: c.flag("TLS").unwrap_or(false),
                server: field(self, "server", "")?,
                port: field(self, "port", PORT)?,
                path: field(self, "path", "")?,
            }),
            false => None,
        };
        let connect_timeout = field(self, "connectTimeout", CONNECT_TIMEOUT)?;
        let read_timeout = field(self, "readTimeout", READ_TIMEOUT)?;
        let own = self.scope_of(&c.children, scope, depth + 1)?;
        let note = format!("{}; {NOTE}", op.name());
        self.report(c, depth, Status::Partial, note);
        let mut check = |m: &str| self.b.check(m.to_string());
        let failures = Failures {
            invalid: check("Sampler error: a port, timeout, close status or filter regex that is not valid"),
            no_connection: check(no_connection),
            unexpected: check(unexpected),
            bad_data: check("Request data is not binary, or its file cannot be loaded"),
            upgrade: check("Server response is not a WebSocket upgrade (Upgrade, Connection, Sec-WebSocket-Accept)"),
        };
        let label = self.b.label(&c.name);
        self.run_time_label(c, &c.name, label);
        let mut steps = own.pre.clone();
        steps.extend(own.before.iter().cloned());
        steps.extend(own.timers.iter().map(|t| Step::Think(*t)));
        steps.push(Step::Sample(Sampler::WebSocket(Box::new(WebSocket {
            label,
            op,
            connect,
            connect_timeout,
            read_timeout,
            headers: own.headers.clone(),
            last_frame_final: self.b.vars().assign("websocket.last_frame_final"),
            filters: own.ws_filters.clone(),
            failures,
            after: own.after(),
        }))));
        steps.extend(own.after.iter().cloned());
        Ok(steps)
    }
}

impl Cx {
    /// A frame filter: every WebSocket sampler in its scope discards the frames it matches,
    /// each a sub-sample `Discarded <kind> frame (by filter '<name>')`, and reads on.
    pub(super) fn ws_filter(&mut self, c: &El, s: &mut Scope, depth: usize) -> Result<(), Error> {
        let kind = c.class.strip_prefix(PREFIX).unwrap_or_default();
        let cmp = || match c.text("comparisonType") {
            None => Ok(Comparison::IsPlain),
            Some(name) => Comparison::from_name(name).ok_or(name.to_string()),
        };
        let mut note = "discarded frames are sub-samples of their own label, outside the Total".to_string();
        let rule = match kind {
            "PingFrameFilter" => {
                let (ping, pong) = match c.text("filterType").unwrap_or("FilterAll") {
                    "FilterAll" => (true, true),
                    "FilterPingOnly" => (true, false),
                    "FilterPongOnly" => (false, true),
                    other => {
                        self.unsupported(c, depth, &format!("the filter type `{other}` is not the plugin's"));
                        return Ok(());
                    }
                };
                let reply = c.flag("replyToPing").unwrap_or(false);
                if !reply {
                    note.push_str("; a ping is answered with a pong even without \"reply to ping\"");
                }
                FilterRule::Ping { ping, pong, reply }
            }
            _ => {
                let cmp = match cmp() {
                    Ok(cmp) => cmp,
                    Err(other) => {
                        self.unsupported(c, depth, &format!("the comparison `{other}` is not the plugin's"));
                        return Ok(());
                    }
                };
                let value = self.tmpl(c, c.text_or_empty("matchValue"))?;
                if kind == "TextFrameFilter" {
                    FilterRule::Text { cmp, value }
                } else {
                    FilterRule::Binary { cmp, value, position: self.tmpl(c, c.text_or_empty("matchPosition"))? }
                }
            }
        };
        let kinds: [bool; 4] = match &rule {
            FilterRule::Text { .. } => [true, false, false, false],
            FilterRule::Binary { .. } => [false, true, false, false],
            FilterRule::Ping { ping, pong, .. } => [false, false, *ping, *pong],
        };
        let mut labels = [None; 4];
        for (i, name) in ["text", "binary", "ping", "pong"].iter().enumerate() {
            if kinds[i] {
                labels[i] = Some(self.b.label(&format!("Discarded {name} frame (by filter '{}')", c.name)));
            }
        }
        self.report(c, depth, Status::Partial, note);
        s.ws_filters.push(FrameFilter { rule, labels });
        Ok(())
    }
}

const NO_CONNECTION: &str = "Sampler configured for using existing connection, but there is no connection";
const PING_NO_CONNECTION: &str = "Sampler must use existing connection, but there is no connection";
const UNEXPECTED: &str = "Sampler error: unexpected frame type";

#[cfg(test)]
mod tests {
    use super::super::synthetic::tests::plan_of;
    use super::*;

    fn ws(class: &str, name: &str, props: &str) -> String {
        format!(
            r#"<{PREFIX}{class} testclass="{PREFIX}{class}" testname="{name}">{props}</{PREFIX}{class}><hashTree/>"#
        )
    }

    fn web_sockets(plan: &Plan) -> Vec<&WebSocket> {
        plan.scenarios[0]
            .flow
            .iter()
            .filter_map(|s| match s {
                Step::Sample(Sampler::WebSocket(w)) => Some(&**w),
                _ => None,
            })
            .collect()
    }

    /// Each sampler becomes a WebSocket step with its label; absent fields take the plugin's
    /// defaults, empty ones stay empty; a request-response sampler opens its own connection
    /// unless told otherwise.
    #[test]
    fn samplers_read_as_the_plugin_reads_them() {
        let text = plan_of(&[
            ws(
                "OpenWebSocketSampler",
                "open",
                r#"<stringProp name="server">127.0.0.1</stringProp><stringProp name="path">/x</stringProp><stringProp name="readTimeout"></stringProp>"#,
            ),
            ws("SingleWriteWebSocketSampler", "write", r#"<stringProp name="requestData">hi ${n}</stringProp>"#),
            ws("SingleReadWebSocketSampler", "read", r#"<stringProp name="dataType">Any</stringProp><boolProp name="optional">true</boolProp>"#),
            ws("RequestResponseWebSocketSampler", "rr", r#"<boolProp name="binaryPayload">true</boolProp>"#),
            ws("PingPongSampler", "ping", ""),
            ws("CloseWebSocketSampler", "close", ""),
        ]
        .concat());
        let (plan, report) = read(&text, Path::new("t.jmx"), &Options::default()).unwrap();
        let w = web_sockets(&plan);
        let labels: Vec<&str> = w.iter().map(|w| plan.label(w.label)).collect();
        assert_eq!(labels, ["open", "write", "read", "rr", "ping", "close"]);
        assert!(report.iter().all(|r| r.status != Status::Unsupported), "{report:?}");
        let open = w[0].connect.as_ref().unwrap();
        assert_eq!(open.port.source(), "80");
        assert_eq!(w[0].connect_timeout.source(), "20000");
        assert_eq!(w[0].read_timeout.source(), "");
        assert!(w[1].connect.is_none());
        assert!(matches!(&w[2].op, WsOp::Read { kind: FrameKind::Any, optional: true }));
        assert!(w[3].connect.is_some(), "request-response opens its own connection by default");
        assert!(matches!(&w[3].op, WsOp::RequestResponse(p) if p.binary));
        assert!(matches!(&w[4].op, WsOp::Ping));
        assert!(matches!(&w[5].op, WsOp::Close { status } if status.source() == "1000"));
    }

    /// The resolved plan (the run directory's `plan.yaml`) shows what a WebSocket sampler sends
    /// by its size only, and the connection's path with secret query values masked.
    #[test]
    fn the_resolved_plan_shows_no_payload_nor_token() {
        let text = plan_of(
            &[
                ws(
                    "OpenWebSocketSampler",
                    "open",
                    r#"<stringProp name="server">127.0.0.1</stringProp><stringProp name="path">/ws?token=s3cret</stringProp>"#,
                ),
                ws("SingleWriteWebSocketSampler", "write", r#"<stringProp name="requestData">{"password":"s3cret"}</stringProp>"#),
                ws("RequestResponseWebSocketSampler", "rr", r#"<stringProp name="requestData">login s3cret</stringProp>"#),
            ]
            .concat(),
        );
        let (plan, _) = read(&text, Path::new("t.jmx"), &Options::default()).unwrap();
        let shown = serde_json::to_string(&plan).unwrap();
        assert!(!shown.contains("s3cret"), "{shown}");
        assert!(shown.contains("/ws?token="), "{shown}");
    }

    /// Frame filters apply to the samplers in their scope, outer first; one with a comparison
    /// the plugin does not have is unsupported.
    #[test]
    fn frame_filters_apply_in_their_scope() {
        let filter = |class: &str, name: &str, props: &str| {
            format!(
                r#"<{PREFIX}{class} testclass="{PREFIX}{class}" testname="{name}">{props}</{PREFIX}{class}><hashTree/>"#
            )
        };
        let read_sampler = format!(
            r#"{}<{PREFIX}SingleReadWebSocketSampler testclass="{PREFIX}SingleReadWebSocketSampler" testname="r"/><hashTree>{}</hashTree>"#,
            filter("PingFrameFilter", "pings", r#"<stringProp name="filterType">FilterPingOnly</stringProp>"#),
            filter(
                "TextFrameFilter",
                "beats",
                r#"<stringProp name="comparisonType">StartsWith</stringProp><stringProp name="matchValue">hb</stringProp>"#
            ),
        );
        let (plan, _) = read(&plan_of(&read_sampler), Path::new("t.jmx"), &Options::default()).unwrap();
        let w = web_sockets(&plan);
        let f = &w[0].filters;
        assert_eq!(f.len(), 2);
        assert!(matches!(f[0].rule, FilterRule::Ping { ping: true, pong: false, reply: false }));
        assert!(matches!(&f[1].rule, FilterRule::Text { cmp: Comparison::StartsWith, .. }));
        assert_eq!(plan.label(f[0].labels[2].unwrap()), "Discarded ping frame (by filter 'pings')");
        assert!(f[0].labels[3].is_none());
        let bad = plan_of(&filter("TextFrameFilter", "x", r#"<stringProp name="comparisonType">Like</stringProp>"#));
        let e = read(&bad, Path::new("t.jmx"), &Options::default()).unwrap_err();
        assert!(e.to_string().contains("Like"), "{e}");
    }
}
