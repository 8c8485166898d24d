//! A WebSocket sample: one of the eu.luminis WebSocket samplers (Peter Doornbosch's JMeter
//! plugin). A user keeps one WebSocket connection across samples, as the plugin keeps one per
//! JMeter thread: a sample either opens a new one (replacing the old) or uses the one it has,
//! then sends or reads one frame. Each is a row of the results with the plugin's figures, and
//! the extractors and assertions of its scope read the frame it read.

use super::after::After;
use super::http::CheckId;
use crate::plan::template::Template;
use crate::plan::{LabelId, VarId};
use serde::Serialize;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct WebSocket {
    pub label: LabelId,
    pub op: WsOp,
    /// Where a new connection goes; none: the sample uses the user's connection.
    pub connect: Option<Connect>,
    /// Milliseconds, as text the sample checks when it runs (the plugin's validation).
    pub connect_timeout: Template,
    pub read_timeout: Template,
    /// Sent with the upgrade request (the Header Manager in scope), names as written.
    #[serde(serialize_with = "super::http::redacted_headers")]
    pub headers: Vec<(String, Template)>,
    /// The variable a read frame's "final fragment" bit goes to (`websocket.last_frame_final`).
    pub last_frame_final: VarId,
    /// The frame filters in scope, outer first: a frame one of them matches is discarded (a
    /// sub-sample of its own) and the next one read.
    pub filters: Vec<FrameFilter>,
    pub failures: Failures,
    #[serde(flatten)]
    pub after: After,
}

/// Where a new connection goes: `ws://` or `wss://` (TLS) `server:port` then `path` (with its
/// query), each rendered when the sample runs.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct Connect {
    pub tls: bool,
    pub server: Template,
    pub port: Template,
    /// Shown with secret query values masked (`?token=***`).
    #[serde(serialize_with = "super::http::redacted_url")]
    pub path: Template,
}

/// What a sample does on its connection.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum WsOp {
    /// Opens the connection only (OpenWebSocketSampler).
    Open,
    /// Sends one data frame (SingleWriteWebSocketSampler).
    Write(Payload),
    /// Reads one data frame of a type (SingleReadWebSocketSampler); `optional`: a read timeout
    /// is a success without a response.
    Read { kind: FrameKind, optional: bool },
    /// Sends one data frame and reads one of the same type (RequestResponseWebSocketSampler).
    RequestResponse(Payload),
    /// Sends a close frame with this status and reads the server's close frame.
    Close { status: Template },
    /// Sends a ping and reads a pong (PingPongSampler, type PingPong).
    Ping,
    /// Sends an unsolicited pong (PingPongSampler, type Pong).
    Pong,
}

impl WsOp {
    /// What the sample does, in a few words (for `check`'s listing).
    pub(crate) fn name(&self) -> &'static str {
        match self {
            WsOp::Open => "open",
            WsOp::Write(_) => "write a frame",
            WsOp::Read { .. } => "read a frame",
            WsOp::RequestResponse(_) => "write a frame, read one",
            WsOp::Close { .. } => "close",
            WsOp::Ping => "ping, read a pong",
            WsOp::Pong => "pong",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum FrameKind {
    Text,
    Binary,
    Any,
}

/// A data frame to send: text, or binary written in hex (`0x` optional, bytes separated by
/// spaces or not), or the bytes of a file.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct Payload {
    pub binary: bool,
    /// Shown by its size only (it may hold secrets).
    #[serde(serialize_with = "super::http::text_summary")]
    pub data: Template,
    pub file: Option<Template>,
}

/// The failures a WebSocket sample can record besides transport errors, each with the plugin's
/// message (`check` ids, so the results show them).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub(crate) struct Failures {
    /// A port, connect timeout, read timeout or close status that is not a valid number, or a
    /// filter's regex that does not compile.
    #[serde(skip)]
    pub invalid: CheckId,
    /// The sample uses the user's connection and there is none.
    #[serde(skip)]
    pub no_connection: CheckId,
    /// A frame of another type than the sample reads.
    #[serde(skip)]
    pub unexpected: CheckId,
    /// Binary request data that is not hex, or a data file that cannot be read.
    #[serde(skip)]
    pub bad_data: CheckId,
    /// The upgrade response lacks a WebSocket header or its accept key is wrong.
    #[serde(skip)]
    pub upgrade: CheckId,
}

/// One of the plugin's frame filters (`PingFrameFilter`, `TextFrameFilter`,
/// `BinaryFrameFilter`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct FrameFilter {
    pub rule: FilterRule,
    /// The label of the sub-sample a discarded frame makes, by kind: text, binary, ping, pong
    /// (`Discarded ping frame (by filter 'name')`); none for a kind the filter never discards.
    pub labels: [Option<LabelId>; 4],
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum FilterRule {
    /// Discards pings and/or pongs; `reply`: answers a ping with a pong.
    Ping { ping: bool, pong: bool, reply: bool },
    /// Discards text frames the comparison holds for.
    Text { cmp: Comparison, value: Template },
    /// Discards binary frames the comparison holds for; `value` in hex, `position` where a
    /// `Contains` must be (not a number: anywhere).
    Binary { cmp: Comparison, value: Template, position: Template },
}

/// The plugin's `ComparisonType`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub(crate) enum Comparison {
    IsPlain,
    Equals,
    EqualsRegex,
    Contains,
    ContainsRegex,
    StartsWith,
    EndsWith,
    NotEquals,
    NotEqualsRegex,
    NotContains,
    NotContainsRegex,
    NotStartsWith,
    NotEndsWith,
}

impl Comparison {
    pub(crate) fn from_name(name: &str) -> Option<Comparison> {
        use Comparison::*;
        Some(match name {
            "IsPlain" => IsPlain,
            "Equals" => Equals,
            "EqualsRegex" => EqualsRegex,
            "Contains" => Contains,
            "ContainsRegex" => ContainsRegex,
            "StartsWith" => StartsWith,
            "EndsWith" => EndsWith,
            "NotEquals" => NotEquals,
            "NotEqualsRegex" => NotEqualsRegex,
            "NotContains" => NotContains,
            "NotContainsRegex" => NotContainsRegex,
            "NotStartsWith" => NotStartsWith,
            "NotEndsWith" => NotEndsWith,
            _ => return None,
        })
    }

    /// `TextFrameFilter.matchesFilter` on a text frame: the comparison of `text` with `value`
    /// (a Java regex for the `*Regex` ones: `Contains` finds it, `Equals` matches it whole). An
    /// error when the regex does not compile (the plugin's sample fails).
    pub(crate) fn text_matches(self, text: &str, value: &str) -> Result<bool, String> {
        use Comparison::*;
        let regex = |whole: bool| {
            let src = if whole { format!("^(?:{value})$") } else { value.to_string() };
            regex::Regex::new(&src).map_err(|e| e.to_string())
        };
        Ok(match self {
            IsPlain => true,
            Contains => text.contains(value),
            NotContains => !text.contains(value),
            Equals => text == value,
            NotEquals => text != value,
            StartsWith => text.starts_with(value),
            NotStartsWith => !text.starts_with(value),
            EndsWith => text.ends_with(value),
            NotEndsWith => !text.ends_with(value),
            ContainsRegex => regex(false)?.is_match(text),
            NotContainsRegex => !regex(false)?.is_match(text),
            EqualsRegex => regex(true)?.is_match(text),
            NotEqualsRegex => !regex(true)?.is_match(text),
        })
    }

    /// `BinaryFrameFilter.matchesFilter` on a binary frame: `value` is the parsed match value
    /// (empty when it was not hex, as the plugin's), `position` where a `Contains` must be.
    pub(crate) fn bytes_match(self, frame: &[u8], value: &[u8], position: Option<i64>) -> bool {
        use Comparison::*;
        let at = |pos: usize| frame.get(pos..pos + value.len()) == Some(value);
        match self {
            IsPlain => true,
            Equals => frame == value,
            NotEquals => frame != value,
            Contains | NotContains => {
                let contains = match position {
                    Some(p) => !value.is_empty() && usize::try_from(p).is_ok_and(at),
                    None => !value.is_empty() && frame.windows(value.len()).any(|w| w == value),
                };
                contains == (self == Contains)
            }
            StartsWith => at(0),
            NotStartsWith => !at(0),
            EndsWith => at(frame.len().saturating_sub(value.len())),
            NotEndsWith => !at(frame.len().saturating_sub(value.len())),
            // The binary filter has no regex comparisons; the plugin's switch throws.
            _ => false,
        }
    }
}

/// The plugin's `BinaryUtils.parseBinaryString`: words split on single spaces; a word starting
/// with `0x` is one number (`Integer.decode`, its low byte), any other is read two hex digits at a
/// time (an odd last digit is a byte of its own). None when a word is not hex.
pub(crate) fn parse_hex(text: &str) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    if text.trim().is_empty() {
        return Some(out);
    }
    let hex =
        |d: &str| (!d.is_empty() && d.bytes().all(|b| b.is_ascii_hexdigit())).then(|| u32::from_str_radix(d, 16).ok());
    for word in text.split(' ') {
        if let Some(n) = word.strip_prefix("0x") {
            out.push(hex(n)??.to_le_bytes()[0]);
            continue;
        }
        for pair in word.as_bytes().chunks(2) {
            out.push(hex(std::str::from_utf8(pair).ok()?)?? as u8);
        }
    }
    Some(out)
}

/// The size on the wire of a frame with `payload` bytes: its header (2 bytes, and 2 or 8 more
/// for a length of 126 or more), the mask (4 bytes) when the client sends it, and the payload.
pub(crate) fn frame_size(payload: usize, masked: bool) -> u64 {
    let ext = match payload {
        0..=125 => 0,
        126..=65535 => 2,
        _ => 8,
    };
    2 + ext + if masked { 4 } else { 0 } + payload as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_reads_as_the_plugin_does() {
        assert_eq!(parse_hex("0x01 0x02 ff"), Some(vec![1, 2, 255]));
        assert_eq!(parse_hex("cafe babe"), Some(vec![0xca, 0xfe, 0xba, 0xbe]));
        assert_eq!(parse_hex("1 2  3"), Some(vec![1, 2, 3]));
        assert_eq!(parse_hex(" "), Some(vec![]));
        assert_eq!(parse_hex("abc"), Some(vec![0xab, 0x0c]));
        assert_eq!(parse_hex("0x1ff"), Some(vec![0xff]));
        assert_eq!(parse_hex("ab\ncd"), None);
        assert_eq!(parse_hex("zz"), None);
        assert_eq!(parse_hex("0x"), None);
    }

    #[test]
    fn filters_compare_as_the_plugin_does() {
        use Comparison::*;
        assert_eq!(Comparison::from_name("NotContainsRegex"), Some(NotContainsRegex));
        assert_eq!(Comparison::from_name("contains"), None);
        assert_eq!(Contains.text_matches("a heartbeat", "heart"), Ok(true));
        assert_eq!(EqualsRegex.text_matches("ping 12", "ping \\d"), Ok(false));
        assert_eq!(EqualsRegex.text_matches("ping 1", "ping \\d"), Ok(true));
        assert_eq!(ContainsRegex.text_matches("ping 12", "\\d+"), Ok(true));
        assert!(ContainsRegex.text_matches("x", "(").is_err());
        assert!(bytes_of(StartsWith, &[1, 2, 3], &[1, 2], None));
        assert!(bytes_of(EndsWith, &[1, 2, 3], &[2, 3], None));
        assert!(bytes_of(Contains, &[1, 2, 3], &[2], Some(1)));
        assert!(!bytes_of(Contains, &[1, 2, 3], &[2], Some(0)));
        assert!(!bytes_of(Contains, &[1, 2, 3], &[], None), "an empty value is contained nowhere");
        assert!(bytes_of(NotContains, &[1, 2, 3], &[9], None));
        assert!(bytes_of(StartsWith, &[1], &[], None), "an empty value starts every frame");
    }

    fn bytes_of(c: Comparison, frame: &[u8], value: &[u8], position: Option<i64>) -> bool {
        c.bytes_match(frame, value, position)
    }

    #[test]
    fn frame_sizes_count_header_mask_and_payload() {
        assert_eq!(frame_size(0, true), 6);
        assert_eq!(frame_size(5, false), 7);
        assert_eq!(frame_size(125, true), 131);
        assert_eq!(frame_size(126, false), 130);
        assert_eq!(frame_size(65536, true), 65550);
    }
}
