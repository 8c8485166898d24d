//! Encoders and digests: URL encoding, Base64 (java.util and commons-codec), `DigestUtils`,
//! `MessageDigest`, `Mac` (HMAC), `HexFormat`, commons-lang3's `StringUtils` and
//! `RandomStringUtils`, charsets, and java.math's `BigDecimal`/`BigInteger` constructors.

use super::{
    arg, bytes, bytes_of, fd, illegal_arg, int_arg, items_of, native_base, no_method, no_property, obj, st, str_arg,
    Class, Field, Static, VAR,
};
use crate::value::{lock, Native, Value};
use crate::{Ctx, Thrown};
use base64::engine::general_purpose::{GeneralPurpose, GeneralPurposeConfig};
use base64::engine::{DecodePaddingMode, Engine};
use rust_decimal::Decimal;
use std::sync::Mutex;

mod commons_lang;
use commons_lang::*;

/// `BigDecimal`'s statics; `ROUND_*` are the legacy rounding modes (ints, `RoundingMode`'s order).
const BIG_DECIMAL: &[Static] = &[st("valueOf", 1, 2, call_static)];

const BIG_DECIMAL_FIELDS: &[Field] = &[
    fd("ZERO", get_static),
    fd("ONE", get_static),
    fd("TWO", get_static),
    fd("TEN", get_static),
    fd("ROUND_UP", get_static),
    fd("ROUND_DOWN", get_static),
    fd("ROUND_CEILING", get_static),
    fd("ROUND_FLOOR", get_static),
    fd("ROUND_HALF_UP", get_static),
    fd("ROUND_HALF_DOWN", get_static),
    fd("ROUND_HALF_EVEN", get_static),
    fd("ROUND_UNNECESSARY", get_static),
];

pub(super) const CLASSES: &[Class] = &[
    Class { name: "java.math.BigDecimal", new: Some(construct), statics: BIG_DECIMAL, fields: BIG_DECIMAL_FIELDS },
    Class {
        name: "java.math.BigInteger",
        new: Some(construct),
        statics: &[st("valueOf", 1, 1, call_static)],
        fields: &[fd("ZERO", get_static), fd("ONE", get_static), fd("TWO", get_static), fd("TEN", get_static)],
    },
    Class {
        name: "java.math.RoundingMode",
        new: None,
        statics: &[st("valueOf", 1, 1, call_static)],
        fields: &[
            fd("UP", get_static),
            fd("DOWN", get_static),
            fd("CEILING", get_static),
            fd("FLOOR", get_static),
            fd("HALF_UP", get_static),
            fd("HALF_DOWN", get_static),
            fd("HALF_EVEN", get_static),
            fd("UNNECESSARY", get_static),
        ],
    },
    Class { name: "java.net.URLEncoder", new: None, statics: &[st("encode", 1, VAR, call_static)], fields: &[] },
    Class { name: "java.net.URLDecoder", new: None, statics: &[st("decode", 1, VAR, call_static)], fields: &[] },
    Class {
        name: "java.util.Base64",
        new: None,
        statics: &[
            st("getEncoder", 0, VAR, call_static),
            st("getDecoder", 0, VAR, call_static),
            st("getUrlEncoder", 0, VAR, call_static),
            st("getUrlDecoder", 0, VAR, call_static),
            st("getMimeEncoder", 0, VAR, call_static),
            st("getMimeDecoder", 0, VAR, call_static),
        ],
        fields: &[],
    },
    Class { name: "org.apache.commons.codec.binary.Base64", new: None, statics: COMMONS_BASE64, fields: &[] },
    Class {
        name: "org.apache.commons.codec.binary.Hex",
        new: None,
        statics: &[
            st("encodeHexString", 1, VAR, call_static),
            st("encodeHex", 1, VAR, call_static),
            st("decodeHex", 0, VAR, call_static),
        ],
        fields: &[],
    },
    Class {
        name: "org.apache.commons.codec.digest.DigestUtils",
        new: None,
        statics: DIGEST_UTILS,
        fields: DIGEST_UTILS_FIELDS,
    },
    Class {
        name: "java.security.MessageDigest",
        new: None,
        statics: &[st("getInstance", 0, VAR, call_static), st("isEqual", 2, VAR, call_static)],
        fields: &[],
    },
    Class { name: "javax.crypto.Mac", new: None, statics: &[st("getInstance", 0, VAR, call_static)], fields: &[] },
    Class { name: "javax.crypto.spec.SecretKeySpec", new: Some(construct), statics: &[], fields: &[] },
    Class { name: "java.util.HexFormat", new: None, statics: &[st("of", 0, VAR, call_static)], fields: &[] },
    Class {
        name: "org.apache.jmeter.protocol.tcp.sampler.BinaryTCPClientImpl",
        new: None,
        statics: &[st("hexStringToByteArray", 0, VAR, call_static), st("hexEncode", 1, VAR, call_static)],
        fields: &[],
    },
    Class {
        name: "org.apache.commons.lang3.RandomStringUtils",
        new: None,
        statics: RANDOM_STRING_UTILS,
        fields: RANDOM_STRING_UTILS_FIELDS,
    },
    Class {
        name: "org.apache.commons.lang.RandomStringUtils",
        new: None,
        statics: RANDOM_STRING_UTILS,
        fields: RANDOM_STRING_UTILS_FIELDS,
    },
    Class {
        name: "org.apache.commons.lang3.StringUtils",
        new: None,
        statics: STRING_UTILS,
        fields: STRING_UTILS_FIELDS,
    },
    Class {
        name: "org.apache.commons.lang.StringUtils",
        new: None,
        statics: STRING_UTILS,
        fields: STRING_UTILS_FIELDS,
    },
    Class {
        name: "org.apache.commons.lang3.SystemUtils",
        new: None,
        statics: SYSTEM_UTILS,
        fields: SYSTEM_UTILS_FIELDS,
    },
    Class {
        name: "org.apache.commons.lang.SystemUtils",
        new: None,
        statics: SYSTEM_UTILS,
        fields: SYSTEM_UTILS_FIELDS,
    },
    Class {
        name: "java.nio.charset.StandardCharsets",
        new: None,
        statics: &[],
        fields: &[
            fd("UTF_8", get_static),
            fd("US_ASCII", get_static),
            fd("ISO_8859_1", get_static),
            fd("UTF_16", get_static),
        ],
    },
    Class {
        name: "java.nio.charset.Charset",
        new: None,
        statics: &[st("forName", 0, VAR, call_static), st("defaultCharset", 0, VAR, call_static)],
        fields: &[],
    },
];

const COMMONS_BASE64: &[Static] = &[
    st("encodeBase64String", 1, VAR, call_static),
    st("encodeBase64", 1, VAR, call_static),
    st("decodeBase64", 1, VAR, call_static),
    st("encodeBase64URLSafeString", 1, VAR, call_static),
    st("encodeBase64URLSafe", 1, VAR, call_static),
    st("isBase64", 1, VAR, call_static),
];

const DIGEST_UTILS: &[Static] = &[
    st("md5Hex", 1, VAR, call_static),
    st("sha1Hex", 1, VAR, call_static),
    st("shaHex", 1, VAR, call_static),
    st("sha256Hex", 1, VAR, call_static),
    st("sha384Hex", 1, VAR, call_static),
    st("sha512Hex", 1, VAR, call_static),
    st("md5", 1, VAR, call_static),
    st("sha1", 1, VAR, call_static),
    st("sha", 1, VAR, call_static),
    st("sha256", 1, VAR, call_static),
    st("sha384", 1, VAR, call_static),
    st("sha512", 1, VAR, call_static),
];

const DIGEST_UTILS_FIELDS: &[Field] = &[];

const RANDOM_STRING_UTILS: &[Static] = &[
    st("randomAlphanumeric", 1, VAR, call_static),
    st("randomNumeric", 1, VAR, call_static),
    st("randomAlphabetic", 1, VAR, call_static),
    st("randomAscii", 1, VAR, call_static),
    st("random", 1, VAR, call_static),
    st("randomPrint", 1, VAR, call_static),
    st("randomGraph", 1, VAR, call_static),
];

const RANDOM_STRING_UTILS_FIELDS: &[Field] = &[];

/// commons-lang's common `SystemUtils` fields: the OS tests, and the system properties the
/// host answers (`System.getProperty`), so the two never disagree.
const SYSTEM_UTILS: &[Static] = &[];

const SYSTEM_UTILS_FIELDS: &[Field] = &[
    fd("IS_OS_LINUX", get_static),
    fd("IS_OS_MAC", get_static),
    fd("IS_OS_MAC_OSX", get_static),
    fd("IS_OS_WINDOWS", get_static),
    fd("IS_OS_UNIX", get_static),
    fd("OS_NAME", get_static),
    fd("OS_ARCH", get_static),
    fd("LINE_SEPARATOR", get_static),
    fd("FILE_SEPARATOR", get_static),
    fd("PATH_SEPARATOR", get_static),
    fd("USER_DIR", get_static),
    fd("USER_HOME", get_static),
    fd("USER_NAME", get_static),
    fd("JAVA_VERSION", get_static),
    fd("JAVA_IO_TMPDIR", get_static),
];

fn construct(cx: &mut Ctx<'_>, class: &'static str, args: Vec<Value>) -> Result<Value, Thrown> {
    let _ = cx;
    match class {
        "java.math.BigDecimal" => match arg(&args, 0) {
            Value::Double(d) => {
                Ok(Value::Decimal(Decimal::from_f64_retain(*d).ok_or_else(|| bad_number(&d.to_string()))?))
            }
            v @ (Value::Int(_) | Value::Long(_) | Value::Decimal(_)) => {
                Ok(Value::Decimal(super::lang::to_decimal(v).unwrap_or_default()))
            }
            v => parse_decimal(&v.to_string()).map(Value::Decimal),
        },
        "java.math.BigInteger" => {
            let radix = args.get(1).and_then(Value::as_i64).unwrap_or(10) as u32;
            let text = str_arg(&args, 0)?;
            big_integer(&text, radix)
        }
        "javax.crypto.spec.SecretKeySpec" => Ok(obj(SecretKey(bytes_of(arg(&args, 0))?, arg(&args, 1).to_string()))),
        _ => Err(super::illegal_arg(format!("{class} has no public constructor"))),
    }
}

fn bad_number(s: &str) -> Thrown {
    Thrown::new(
        "java.lang.NumberFormatException",
        format!("Character array is missing \"exponent\" mark 'e' or 'E'. ({s})"),
    )
}

/// `new BigDecimal("1.5")`, `"1E+3"`, `"-0.00"`.
pub(crate) fn parse_decimal(s: &str) -> Result<Decimal, Thrown> {
    let t = s.strip_prefix('+').unwrap_or(s);
    let err = || {
        Thrown::new("java.lang.NumberFormatException", format!("Character array is not a valid decimal number: {s}"))
    };
    if t.is_empty() || !t.chars().all(|c| c.is_ascii_digit() || matches!(c, '.' | '-' | '+' | 'e' | 'E')) {
        return Err(err());
    }
    if t.contains(['e', 'E']) {
        return Decimal::from_scientific(t).map_err(|_| err());
    }
    Decimal::from_str_exact(t).map_err(|_| err())
}

/// A `BigInteger`: a `Long` when it fits, else a decimal.
fn big_integer(text: &str, radix: u32) -> Result<Value, Thrown> {
    if !(2..=36).contains(&radix) {
        return Err(Thrown::new("java.lang.NumberFormatException", "Radix out of range"));
    }
    match i64::from_str_radix(text.strip_prefix('+').unwrap_or(text), radix) {
        Ok(n) => Ok(Value::Long(n)),
        Err(_) if radix == 10 => match Decimal::from_str_exact(text) {
            Ok(d) if d.fract().is_zero() => Ok(Value::Decimal(d)),
            _ => Err(super::lang::number_format(text, radix)),
        },
        Err(_) => Err(super::lang::number_format(text, radix)),
    }
}

fn call_static(_cx: &mut Ctx<'_>, class: &'static str, method: &str, args: Vec<Value>) -> Result<Value, Thrown> {
    match class {
        "java.net.URLEncoder" | "java.net.URLDecoder" => return url_codec(class, method, &args),
        "java.util.Base64" => return java_base64(method),
        "org.apache.commons.codec.binary.Base64" => return commons_base64(method, &args),
        "org.apache.commons.codec.binary.Hex" => return commons_hex(method, &args),
        "org.apache.commons.codec.digest.DigestUtils" => return digest_utils(method, &args),
        "java.security.MessageDigest" | "javax.crypto.Mac" => return digest_instance(class, method, &args),
        "java.util.HexFormat" if method == "of" => return Ok(obj(HexFormat { upper: false })),
        "org.apache.jmeter.protocol.tcp.sampler.BinaryTCPClientImpl" => {
            return match method {
                "hexStringToByteArray" => parse_hex(&str_arg(&args, 0)?).map(bytes),
                "hexEncode" => Ok(Value::str(hex(&bytes_of(arg(&args, 0))?, false))),
                _ => Err(no_method(class, method)),
            }
        }
        "org.apache.commons.lang3.RandomStringUtils" | "org.apache.commons.lang.RandomStringUtils" => {
            return random_string(class, method, &args)
        }
        "java.nio.charset.Charset" => {
            return match method {
                "forName" => charset_name(&str_arg(&args, 0)?).map(Value::str),
                "defaultCharset" => Ok(Value::str("UTF-8")),
                _ => Err(no_method(class, method)),
            }
        }
        _ => {}
    }
    match (class, method, args.len()) {
        ("java.math.BigDecimal", "valueOf", 1) => match &args[0] {
            Value::Double(d) => parse_decimal(&crate::value::java_double(*d)).map(Value::Decimal),
            v => super::lang::to_decimal(v).map(Value::Decimal).ok_or_else(|| no_method(class, method)),
        },
        ("java.math.BigDecimal", "valueOf", 2) => {
            Ok(Value::Decimal(Decimal::new(int_arg(&args, 0)?, int_arg(&args, 1)? as u32)))
        }
        ("java.math.BigInteger", "valueOf", 1) => Ok(Value::Long(int_arg(&args, 0)?)),
        ("java.math.RoundingMode", "valueOf", 1) => {
            let name = str_arg(&args, 0)?;
            get_static(_cx, class, &name)
                .map_err(|_| super::illegal_arg(format!("No enum constant java.math.RoundingMode.{name}")))
        }
        _ => Err(no_method(class, method)),
    }
}

fn get_static(_cx: &mut Ctx<'_>, class: &'static str, name: &str) -> Result<Value, Thrown> {
    if class.ends_with(".SystemUtils") {
        return system_utils(_cx, name);
    }
    let n = |i: i64| if class == "java.math.BigInteger" { Value::Long(i) } else { Value::Decimal(Decimal::from(i)) };
    match (class, name) {
        ("java.nio.charset.StandardCharsets", _) => Ok(Value::str(match name {
            "UTF_8" => "UTF-8",
            "US_ASCII" => "US-ASCII",
            "ISO_8859_1" => "ISO-8859-1",
            "UTF_16" => "UTF-16",
            _ => return Err(no_property(class, name)),
        })),
        ("java.math.BigDecimal", _) if name.starts_with("ROUND_") => {
            match BIG_DECIMAL_FIELDS.iter().filter(|f| f.name.starts_with("ROUND_")).position(|f| f.name == name) {
                Some(i) => Ok(Value::Int(i as i32)),
                None => Err(no_property(class, name)),
            }
        }
        (_, "ZERO") if class != "java.math.RoundingMode" => Ok(n(0)),
        (_, "ONE") if class != "java.math.RoundingMode" => Ok(n(1)),
        (_, "TWO") if class != "java.math.RoundingMode" => Ok(n(2)),
        (_, "TEN") if class != "java.math.RoundingMode" => Ok(n(10)),
        (
            "java.math.RoundingMode",
            "UP" | "DOWN" | "CEILING" | "FLOOR" | "HALF_UP" | "HALF_DOWN" | "HALF_EVEN" | "UNNECESSARY",
        ) => Ok(Value::str(name)),
        _ => Err(no_property(class, name)),
    }
}

/// A `SystemUtils` field. Like commons-lang, a property the host does not answer is `null`.
fn system_utils(cx: &mut Ctx<'_>, name: &str) -> Result<Value, Thrown> {
    let os = std::env::consts::OS;
    let is = |b: bool| Ok(Value::Bool(b));
    let property = match name {
        "IS_OS_LINUX" => return is(os == "linux"),
        "IS_OS_MAC" | "IS_OS_MAC_OSX" => return is(os == "macos"),
        "IS_OS_WINDOWS" => return is(os == "windows"),
        "IS_OS_UNIX" => return is(cfg!(unix)),
        "OS_ARCH" => return Ok(Value::str(std::env::consts::ARCH)),
        "PATH_SEPARATOR" => return Ok(Value::str(if cfg!(windows) { ";" } else { ":" })),
        "OS_NAME" => "os.name",
        "LINE_SEPARATOR" => "line.separator",
        "FILE_SEPARATOR" => "file.separator",
        "USER_DIR" => "user.dir",
        "USER_HOME" => "user.home",
        "USER_NAME" => "user.name",
        "JAVA_VERSION" => "java.version",
        "JAVA_IO_TMPDIR" => "java.io.tmpdir",
        _ => return Err(no_property("org.apache.commons.lang3.SystemUtils", name)),
    };
    Ok(cx.host.system_property(property).map(Value::from).unwrap_or(Value::Null))
}

/// Bytes decoded by a Java charset name (UTF-8 when none; ISO-8859-1 and US-ASCII byte per
/// char); an unknown charset is Java's `UnsupportedEncodingException`.
pub(crate) fn decode_charset(b: &[u8], charset: Option<&str>) -> Result<String, Thrown> {
    match charset.map(|c| c.to_ascii_uppercase().replace('_', "-")).as_deref() {
        None | Some("UTF-8" | "UTF8") => Ok(String::from_utf8_lossy(b).into_owned()),
        Some("ISO-8859-1" | "ISO8859-1" | "LATIN1" | "US-ASCII" | "ASCII") => {
            Ok(b.iter().map(|&c| c as char).collect())
        }
        Some(other) => Err(Thrown::new("java.io.UnsupportedEncodingException", other.to_string())),
    }
}

/// A Java charset name, canonical; an unknown one is `UnsupportedCharsetException`.
fn charset_name(name: &str) -> Result<&'static str, Thrown> {
    match name.to_ascii_uppercase().replace('_', "-").as_str() {
        "UTF-8" | "UTF8" => Ok("UTF-8"),
        "ISO-8859-1" | "ISO8859-1" | "LATIN1" => Ok("ISO-8859-1"),
        "US-ASCII" | "ASCII" => Ok("US-ASCII"),
        _ => Err(Thrown::new("java.nio.charset.UnsupportedCharsetException", name.to_string())),
    }
}

/// A string's bytes in a Java charset (UTF-8 when none).
pub(crate) fn encode_charset(s: &str, charset: Option<&Value>) -> Result<Vec<u8>, Thrown> {
    match charset.filter(|c| !c.is_null()).map(|c| charset_name(&c.to_string())).transpose()? {
        None | Some("UTF-8") => Ok(s.as_bytes().to_vec()),
        Some(_) => Ok(s.chars().map(|c| if (c as u32) < 256 { c as u8 } else { b'?' }).collect()),
    }
}

// ---- URL encoding ----

/// Java's `URLEncoder.encode`: `application/x-www-form-urlencoded` (space is `+`; letters,
/// digits and `.-*_` stay).
pub(crate) fn url_encode(s: &str, charset: Option<&Value>) -> Result<String, Thrown> {
    let mut out = String::with_capacity(s.len());
    for &b in &encode_charset(s, charset)? {
        match b {
            b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'.' | b'-' | b'*' | b'_' => out.push(b as char),
            b' ' => out.push('+'),
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    Ok(out)
}

/// Java's `URLDecoder.decode`.
pub(crate) fn url_decode(s: &str, charset: Option<&Value>) -> Result<String, Thrown> {
    let mut out = Vec::with_capacity(s.len());
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'+' => out.push(b' '),
            b'%' => {
                let hex = s.get(i + 1..i + 3).filter(|h| h.bytes().all(|c| c.is_ascii_hexdigit()));
                let Some(hex) = hex else {
                    let msg = if i + 2 >= b.len() {
                        "URLDecoder: Incomplete trailing escape (%) pattern".to_string()
                    } else {
                        format!(
                            "URLDecoder: Illegal hex characters in escape (%) pattern - Error at index 0 in: \"{}\"",
                            s.get(i + 1..i + 3).unwrap_or("")
                        )
                    };
                    return Err(illegal_arg(msg));
                };
                out.push(u8::from_str_radix(hex, 16).unwrap_or(b'?'));
                i += 2;
            }
            c => out.push(c),
        }
        i += 1;
    }
    decode_charset(&out, charset.filter(|c| !c.is_null()).map(|c| c.to_string()).as_deref())
}

fn url_codec(class: &str, method: &str, args: &[Value]) -> Result<Value, Thrown> {
    let text = match arg(args, 0) {
        Value::Null => return Err(Thrown::new("java.lang.NullPointerException", "the text is null")),
        v => v.to_string(),
    };
    match (class, method) {
        ("java.net.URLEncoder", "encode") => url_encode(&text, args.get(1)).map(Value::str),
        ("java.net.URLDecoder", "decode") => url_decode(&text, args.get(1)).map(Value::str),
        _ => Err(no_method(class, method)),
    }
}

// ---- Base64 ----

fn engine(url: bool, pad: bool) -> GeneralPurpose {
    let config =
        GeneralPurposeConfig::new().with_encode_padding(pad).with_decode_padding_mode(DecodePaddingMode::Indifferent);
    GeneralPurpose::new(if url { &base64::alphabet::URL_SAFE } else { &base64::alphabet::STANDARD }, config)
}

/// Java's Base64 decoding (padding optional); the error is Java's `IllegalArgumentException`.
pub(crate) fn base64_decode(text: &[u8], url: bool, lenient: bool) -> Result<Vec<u8>, Thrown> {
    let cleaned: Vec<u8>;
    let input = if lenient {
        cleaned = text.iter().copied().filter(|c| c.is_ascii_alphanumeric() || b"+/-_".contains(c)).collect();
        &cleaned[..]
    } else {
        text
    };
    let url = url || (lenient && input.iter().any(|c| matches!(c, b'-' | b'_')));
    engine(url, true).decode(input).map_err(|e| match e {
        // Java names the byte in hex: "Illegal base64 character 21".
        base64::DecodeError::InvalidByte(_, b) => illegal_arg(format!("Illegal base64 character {b:x}")),
        e => illegal_arg(format!("Illegal base64 character: {e}")),
    })
}

pub(crate) fn base64_encode(data: &[u8], url: bool, pad: bool) -> String {
    engine(url, pad).encode(data)
}

/// `Base64.getEncoder()` and friends.
#[derive(Debug, Clone, Copy)]
struct Base64Codec {
    encoder: bool,
    url: bool,
    mime: bool,
    pad: bool,
}

fn java_base64(method: &str) -> Result<Value, Thrown> {
    let c = |encoder, url, mime| Ok(obj(Base64Codec { encoder, url, mime, pad: true }));
    match method {
        "getEncoder" => c(true, false, false),
        "getDecoder" => c(false, false, false),
        "getUrlEncoder" => c(true, true, false),
        "getUrlDecoder" => c(false, true, false),
        "getMimeEncoder" => c(true, false, true),
        "getMimeDecoder" => c(false, false, true),
        _ => Err(no_method("java.util.Base64", method)),
    }
}

impl Base64Codec {
    fn encode(&self, data: &[u8]) -> String {
        let s = base64_encode(data, self.url, self.pad);
        if !self.mime {
            return s;
        }
        s.as_bytes().chunks(76).map(|c| String::from_utf8_lossy(c).into_owned()).collect::<Vec<_>>().join("\r\n")
    }
}

impl Native for Base64Codec {
    fn class_name(&self) -> &'static str {
        if self.encoder {
            "java.util.Base64.Encoder"
        } else {
            "java.util.Base64.Decoder"
        }
    }
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
    fn call(&self, _cx: &mut Ctx<'_>, method: &str, args: Vec<Value>) -> Result<Value, Thrown> {
        match (self.encoder, method, args.len()) {
            (true, "encodeToString", 1) => Ok(Value::str(self.encode(&bytes_of(&args[0])?))),
            (true, "encode", 1) => Ok(bytes(self.encode(&bytes_of(&args[0])?).into_bytes())),
            (true, "withoutPadding", 0) => Ok(obj(Base64Codec { pad: false, ..*self })),
            (false, "decode", 1) => Ok(bytes(base64_decode(&bytes_of(&args[0])?, self.url, self.mime)?)),
            _ => Err(no_method(self.class_name(), method)),
        }
    }
}

fn commons_base64(method: &str, args: &[Value]) -> Result<Value, Thrown> {
    let data = || bytes_of(arg(args, 0));
    match method {
        "encodeBase64String" => Ok(Value::str(base64_encode(&data()?, false, true))),
        "encodeBase64" => Ok(bytes(base64_encode(&data()?, false, true).into_bytes())),
        "encodeBase64URLSafeString" => Ok(Value::str(base64_encode(&data()?, true, false))),
        "encodeBase64URLSafe" => Ok(bytes(base64_encode(&data()?, true, false).into_bytes())),
        "decodeBase64" => Ok(bytes(base64_decode(&data()?, false, true)?)),
        "isBase64" => Ok(Value::Bool(data()?.iter().all(|c| c.is_ascii_alphanumeric() || b"+/=-_ \r\n\t".contains(c)))),
        _ => Err(no_method("org.apache.commons.codec.binary.Base64", method)),
    }
}

pub(crate) fn hex(b: &[u8], upper: bool) -> String {
    if upper {
        b.iter().map(|x| format!("{x:02X}")).collect()
    } else {
        b.iter().map(|x| format!("{x:02x}")).collect()
    }
}

fn parse_hex(s: &str) -> Result<Vec<u8>, Thrown> {
    if s.len() % 2 != 0 || !s.bytes().all(|c| c.is_ascii_hexdigit()) {
        return Err(illegal_arg(format!("not a hexadecimal string: {s}")));
    }
    Ok((0..s.len()).step_by(2).map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap_or(0)).collect())
}

fn commons_hex(method: &str, args: &[Value]) -> Result<Value, Thrown> {
    match method {
        "encodeHexString" => Ok(Value::str(hex(&bytes_of(arg(args, 0))?, args.get(1).is_some_and(|l| !l.truthy())))),
        "encodeHex" => Ok(Value::array(hex(&bytes_of(arg(args, 0))?, false).chars().map(Value::Char).collect())),
        "decodeHex" => {
            let text = match arg(args, 0) {
                Value::List(l) => lock(&l.items).iter().map(|c| c.to_string()).collect(),
                v => v.to_string(),
            };
            parse_hex(&text).map(bytes).map_err(|e| Thrown::new("org.apache.commons.codec.DecoderException", e.message))
        }
        _ => Err(no_method("org.apache.commons.codec.binary.Hex", method)),
    }
}

/// `java.util.HexFormat.of()`.
#[derive(Debug)]
struct HexFormat {
    upper: bool,
}

impl Native for HexFormat {
    native_base!("java.util.HexFormat");
    fn call(&self, _cx: &mut Ctx<'_>, method: &str, args: Vec<Value>) -> Result<Value, Thrown> {
        match (method, args.len()) {
            ("formatHex", 1) => Ok(Value::str(hex(&bytes_of(&args[0])?, self.upper))),
            ("parseHex", 1) => parse_hex(&args[0].to_string()).map(bytes),
            ("withUpperCase", 0) => Ok(obj(HexFormat { upper: true })),
            ("withLowerCase", 0) => Ok(obj(HexFormat { upper: false })),
            ("toHexDigits", 1) => Ok(Value::str(format!("{:02x}", int_arg(&args, 0)? as u8))),
            _ => Err(no_method("java.util.HexFormat", method)),
        }
    }
}

// ---- digests and HMAC ----

/// A digest algorithm by Java's name.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Algorithm {
    Md5,
    Sha1,
    Sha256,
    Sha384,
    Sha512,
}

impl Algorithm {
    fn named(name: &str) -> Option<Algorithm> {
        Some(match name.to_ascii_uppercase().replace('_', "-").as_str() {
            "MD5" => Algorithm::Md5,
            "SHA-1" | "SHA1" | "SHA" => Algorithm::Sha1,
            "SHA-256" | "SHA256" => Algorithm::Sha256,
            "SHA-384" | "SHA384" => Algorithm::Sha384,
            "SHA-512" | "SHA512" => Algorithm::Sha512,
            _ => return None,
        })
    }

    fn digest(self, data: &[u8]) -> Vec<u8> {
        use ring::digest as d;
        let alg = match self {
            Algorithm::Md5 => return md5(data).to_vec(),
            Algorithm::Sha1 => &d::SHA1_FOR_LEGACY_USE_ONLY,
            Algorithm::Sha256 => &d::SHA256,
            Algorithm::Sha384 => &d::SHA384,
            Algorithm::Sha512 => &d::SHA512,
        };
        d::digest(alg, data).as_ref().to_vec()
    }

    fn block(self) -> usize {
        match self {
            Algorithm::Sha384 | Algorithm::Sha512 => 128,
            _ => 64,
        }
    }

    fn java_name(self) -> &'static str {
        match self {
            Algorithm::Md5 => "MD5",
            Algorithm::Sha1 => "SHA-1",
            Algorithm::Sha256 => "SHA-256",
            Algorithm::Sha384 => "SHA-384",
            Algorithm::Sha512 => "SHA-512",
        }
    }

    /// HMAC (RFC 2104) with this hash.
    fn hmac(self, key: &[u8], data: &[u8]) -> Vec<u8> {
        let mut k = if key.len() > self.block() { self.digest(key) } else { key.to_vec() };
        k.resize(self.block(), 0);
        let mut inner: Vec<u8> = k.iter().map(|b| b ^ 0x36).collect();
        inner.extend_from_slice(data);
        let mut outer: Vec<u8> = k.iter().map(|b| b ^ 0x5c).collect();
        outer.extend_from_slice(&self.digest(&inner));
        self.digest(&outer)
    }
}

/// A digest in lowercase hex (`"md5"`, `"sha256"`, ... as `DigestUtils` names them).
pub(crate) fn digest_hex(name: &str, data: &[u8]) -> String {
    let alg = match name {
        "md5" => Algorithm::Md5,
        "sha1" => Algorithm::Sha1,
        "sha384" => Algorithm::Sha384,
        "sha512" => Algorithm::Sha512,
        _ => Algorithm::Sha256,
    };
    hex(&alg.digest(data), false)
}

fn digest_utils(method: &str, args: &[Value]) -> Result<Value, Thrown> {
    let name = method.strip_suffix("Hex").unwrap_or(method);
    let alg = match name {
        "md5" => Algorithm::Md5,
        "sha1" | "sha" => Algorithm::Sha1,
        "sha256" => Algorithm::Sha256,
        "sha384" => Algorithm::Sha384,
        "sha512" => Algorithm::Sha512,
        _ => return Err(no_method("org.apache.commons.codec.digest.DigestUtils", method)),
    };
    let d = alg.digest(&bytes_of(arg(args, 0))?);
    Ok(if method.ends_with("Hex") { Value::str(hex(&d, false)) } else { bytes(d) })
}

fn digest_instance(class: &'static str, method: &str, args: &[Value]) -> Result<Value, Thrown> {
    match (class, method) {
        ("java.security.MessageDigest", "getInstance") => {
            let name = str_arg(args, 0)?;
            let alg = Algorithm::named(&name).ok_or_else(|| {
                Thrown::new("java.security.NoSuchAlgorithmException", format!("{name} MessageDigest not available"))
            })?;
            Ok(obj(Digest { alg, mac: None, key: Mutex::new(None), data: Mutex::new(Vec::new()) }))
        }
        ("java.security.MessageDigest", "isEqual") => {
            Ok(Value::Bool(bytes_of(arg(args, 0))? == bytes_of(arg(args, 1))?))
        }
        ("javax.crypto.Mac", "getInstance") => {
            let name = str_arg(args, 0)?;
            let alg = name.strip_prefix("Hmac").and_then(Algorithm::named).ok_or_else(|| {
                Thrown::new("java.security.NoSuchAlgorithmException", format!("Algorithm {name} not available"))
            })?;
            Ok(obj(Digest { alg, mac: Some(name), key: Mutex::new(None), data: Mutex::new(Vec::new()) }))
        }
        _ => Err(no_method(class, method)),
    }
}

/// `MessageDigest` (when `mac` is `None`) or `javax.crypto.Mac`: the data so far.
#[derive(Debug)]
struct Digest {
    alg: Algorithm,
    /// The Mac's algorithm name (`HmacSHA256`).
    mac: Option<String>,
    key: Mutex<Option<Vec<u8>>>,
    data: Mutex<Vec<u8>>,
}

impl Digest {
    fn finish(&self) -> Result<Vec<u8>, Thrown> {
        let data = std::mem::take(&mut *lock(&self.data));
        match &self.mac {
            None => Ok(self.alg.digest(&data)),
            Some(_) => {
                let key = lock(&self.key)
                    .clone()
                    .ok_or_else(|| Thrown::new("java.lang.IllegalStateException", "MAC not initialized"))?;
                Ok(self.alg.hmac(&key, &data))
            }
        }
    }
}

impl Native for Digest {
    fn class_name(&self) -> &'static str {
        if self.mac.is_some() {
            "javax.crypto.Mac"
        } else {
            "java.security.MessageDigest"
        }
    }
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
    fn call(&self, _cx: &mut Ctx<'_>, method: &str, args: Vec<Value>) -> Result<Value, Thrown> {
        match (method, args.len()) {
            ("update", 1) => {
                match &args[0] {
                    Value::Int(b) => lock(&self.data).push(*b as u8),
                    v => lock(&self.data).extend(bytes_of(v)?),
                }
                Ok(Value::Null)
            }
            ("update", 3) => {
                let b = bytes_of(&args[0])?;
                let (off, len) = (int_arg(&args, 1)? as usize, int_arg(&args, 2)? as usize);
                let part =
                    b.get(off..off + len).ok_or_else(|| illegal_arg("update: offset and length out of range"))?;
                lock(&self.data).extend_from_slice(part);
                Ok(Value::Null)
            }
            ("digest" | "doFinal", 0) => Ok(bytes(self.finish()?)),
            ("digest" | "doFinal", 1) => {
                lock(&self.data).extend(bytes_of(&args[0])?);
                Ok(bytes(self.finish()?))
            }
            ("reset", 0) => {
                lock(&self.data).clear();
                Ok(Value::Null)
            }
            ("init", 1 | 2) if self.mac.is_some() => {
                let key = super::downcast::<SecretKey>(&args[0])
                    .map(|k| k.0.clone())
                    .ok_or_else(|| Thrown::new("java.security.InvalidKeyException", "a SecretKeySpec was expected"))?;
                *lock(&self.key) = Some(key);
                lock(&self.data).clear();
                Ok(Value::Null)
            }
            ("getAlgorithm", 0) => Ok(Value::str(self.mac.clone().unwrap_or_else(|| self.alg.java_name().to_string()))),
            ("getDigestLength" | "getMacLength", 0) => Ok(Value::Int(self.alg.digest(b"").len() as i32)),
            _ => Err(no_method(self.class_name(), method)),
        }
    }
}

/// `new SecretKeySpec(keyBytes, "HmacSHA256")`.
#[derive(Debug)]
struct SecretKey(Vec<u8>, String);

impl Native for SecretKey {
    native_base!("javax.crypto.spec.SecretKeySpec");
    fn call(&self, _cx: &mut Ctx<'_>, method: &str, _args: Vec<Value>) -> Result<Value, Thrown> {
        match method {
            "getEncoded" => Ok(bytes(self.0.clone())),
            "getAlgorithm" => Ok(Value::str(self.1.as_str())),
            "getFormat" => Ok(Value::str("RAW")),
            _ => Err(no_method("javax.crypto.spec.SecretKeySpec", method)),
        }
    }
}

/// MD5 (RFC 1321), written out here: only for `DigestUtils.md5Hex`, `MessageDigest("MD5")`
/// and `UUID.nameUUIDFromBytes`, never for security.
pub fn md5(data: &[u8]) -> [u8; 16] {
    const S: [u32; 64] = [
        7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 5, 9, 14, 20, 5, 9, 14, 20, 5, 9, 14, 20, 5, 9, 14,
        20, 4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, 6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21, 6,
        10, 15, 21,
    ];
    let k: Vec<u32> = (0..64).map(|i| ((i as f64 + 1.0).sin().abs() * 4294967296.0) as u32).collect();
    let (mut a0, mut b0, mut c0, mut d0) = (0x67452301u32, 0xefcdab89u32, 0x98badcfeu32, 0x10325476u32);
    let mut msg = data.to_vec();
    msg.push(0x80);
    while msg.len() % 64 != 56 {
        msg.push(0);
    }
    msg.extend_from_slice(&((data.len() as u64).wrapping_mul(8)).to_le_bytes());
    for chunk in msg.chunks(64) {
        let m: Vec<u32> = chunk.chunks(4).map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]])).collect();
        let (mut a, mut b, mut c, mut d) = (a0, b0, c0, d0);
        for i in 0..64 {
            let (f, g) = match i / 16 {
                0 => ((b & c) | (!b & d), i),
                1 => ((d & b) | (!d & c), (5 * i + 1) % 16),
                2 => (b ^ c ^ d, (3 * i + 5) % 16),
                _ => (c ^ (b | !d), (7 * i) % 16),
            };
            let f = f.wrapping_add(a).wrapping_add(k[i]).wrapping_add(m[g]);
            a = d;
            d = c;
            c = b;
            b = b.wrapping_add(f.rotate_left(S[i]));
        }
        a0 = a0.wrapping_add(a);
        b0 = b0.wrapping_add(b);
        c0 = c0.wrapping_add(c);
        d0 = d0.wrapping_add(d);
    }
    let mut out = [0u8; 16];
    for (i, w) in [a0, b0, c0, d0].iter().enumerate() {
        out[4 * i..4 * i + 4].copy_from_slice(&w.to_le_bytes());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::testing::{call, s, with_cx};
    use super::super::{call_static, construct};
    use super::*;

    fn hex(b: &[u8]) -> String {
        super::hex(b, false)
    }

    fn st(class: &'static str, m: &str, args: Vec<Value>) -> Value {
        with_cx(|cx| call_static(cx, class, m, args)).unwrap()
    }

    #[test]
    fn url_encoding_is_javas_form_encoding() {
        assert_eq!(
            st("java.net.URLEncoder", "encode", vec![s("a b&c=d/é*~._-"), s("UTF-8")]).to_string(),
            "a+b%26c%3Dd%2F%C3%A9*%7E._-"
        );
        assert_eq!(
            st("java.net.URLDecoder", "decode", vec![s("a+b%26c%3Dd%2F%C3%A9"), s("UTF-8")]).to_string(),
            "a b&c=d/é"
        );
        assert!(with_cx(|cx| call_static(cx, "java.net.URLDecoder", "decode", vec![s("%zz")])).is_err());
    }

    #[test]
    fn base64_both_libraries() {
        with_cx(|cx| {
            let enc = call_static(cx, "java.util.Base64", "getEncoder", vec![]).unwrap();
            assert_eq!(call(cx, &enc, "encodeToString", vec![s("hello?>")]).to_string(), "aGVsbG8/Pg==");
            let url = call_static(cx, "java.util.Base64", "getUrlEncoder", vec![]).unwrap();
            let url = call(cx, &url, "withoutPadding", vec![]);
            assert_eq!(call(cx, &url, "encodeToString", vec![s("hello?>")]).to_string(), "aGVsbG8_Pg");
            let dec = call_static(cx, "java.util.Base64", "getDecoder", vec![]).unwrap();
            let b = call(cx, &dec, "decode", vec![s("aGVsbG8/Pg==")]);
            assert_eq!(construct(cx, "java.lang.String", vec![b]).unwrap().to_string(), "hello?>");
            assert!(matches!(&dec, Value::Object(o) if o.call(cx, "decode", vec![s("a$b")]).is_err()));
        });
        assert_eq!(
            st("org.apache.commons.codec.binary.Base64", "encodeBase64String", vec![s("user:pass")]).to_string(),
            "dXNlcjpwYXNz"
        );
        let Value::Bytes(b) = st("org.apache.commons.codec.binary.Base64", "decodeBase64", vec![s("dXNlcjpwYXNz")])
        else {
            panic!()
        };
        assert_eq!(b.as_slice(), b"user:pass");
    }

    #[test]
    fn digests_and_hmac_known_answers() {
        let d = |m: &str, v: &str| st("org.apache.commons.codec.digest.DigestUtils", m, vec![s(v)]).to_string();
        assert_eq!(d("md5Hex", "abc"), "900150983cd24fb0d6963f7d28e17f72");
        assert_eq!(d("sha1Hex", "abc"), "a9993e364706816aba3e25717850c26c9cd0d89d");
        assert_eq!(d("sha256Hex", "abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
        assert!(d("sha512Hex", "abc").starts_with("ddaf35a193617aba"));
        with_cx(|cx| {
            let md = call_static(cx, "java.security.MessageDigest", "getInstance", vec![s("SHA-256")]).unwrap();
            call(cx, &md, "update", vec![s("a")]);
            call(cx, &md, "update", vec![s("bc")]);
            let Value::Bytes(out) = call(cx, &md, "digest", vec![]) else { panic!() };
            assert_eq!(hex(&out), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
            assert!(call_static(cx, "java.security.MessageDigest", "getInstance", vec![s("SHA-999")]).is_err());
            // RFC 4231 test case 2.
            let mac = call_static(cx, "javax.crypto.Mac", "getInstance", vec![s("HmacSHA256")]).unwrap();
            let key = construct(cx, "javax.crypto.spec.SecretKeySpec", vec![s("Jefe"), s("HmacSHA256")]).unwrap();
            call(cx, &mac, "init", vec![key]);
            let Value::Bytes(out) = call(cx, &mac, "doFinal", vec![s("what do ya want for nothing?")]) else {
                panic!()
            };
            assert_eq!(hex(&out), "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
            let mac1 = call_static(cx, "javax.crypto.Mac", "getInstance", vec![s("HmacSHA1")]).unwrap();
            let key = construct(cx, "javax.crypto.spec.SecretKeySpec", vec![s("key"), s("HmacSHA1")]).unwrap();
            call(cx, &mac1, "init", vec![key]);
            let Value::Bytes(out) = call(cx, &mac1, "doFinal", vec![s("The quick brown fox jumps over the lazy dog")])
            else {
                panic!()
            };
            assert_eq!(hex(&out), "de7c9b85b8b78aa6bc8a7a36f70a90701c9db4d9");
        })
    }

    #[test]
    fn system_utils_answers_the_os_and_the_hosts_properties() {
        let f = |name: &str| with_cx(|cx| get_static(cx, "org.apache.commons.lang3.SystemUtils", name)).unwrap();
        assert_eq!(f("IS_OS_LINUX").to_string(), (std::env::consts::OS == "linux").to_string());
        assert_eq!(f("IS_OS_WINDOWS").to_string(), cfg!(windows).to_string());
        // The test host answers no property: null, as commons-lang gives for an unreadable one.
        assert!(matches!(f("JAVA_VERSION"), Value::Null));
        assert!(with_cx(|cx| get_static(cx, "org.apache.commons.lang3.SystemUtils", "NOPE")).is_err());
    }

    #[test]
    fn commons_lang() {
        let su = |m: &str, a: Vec<Value>| st("org.apache.commons.lang3.StringUtils", m, a).to_string();
        assert_eq!(su("substringBetween", vec![s("a[b]c"), s("["), s("]")]), "b");
        assert_eq!(su("leftPad", vec![s("7"), Value::Int(3), s("0")]), "007");
        assert_eq!(su("isBlank", vec![s("  ")]), "true");
        assert_eq!(su("substringAfterLast", vec![s("a/b/c"), s("/")]), "c");
        assert_eq!(su("join", vec![Value::list(vec![s("a"), s("b")]), s("-")]), "a-b");
        assert_eq!(su("countMatches", vec![s("abab"), s("ab")]), "2");
        let r =
            st("org.apache.commons.lang3.RandomStringUtils", "randomAlphanumeric", vec![Value::Int(12)]).to_string();
        assert!(r.len() == 12 && r.chars().all(|c| c.is_ascii_alphanumeric()));
        let n = st("org.apache.commons.lang3.RandomStringUtils", "randomNumeric", vec![Value::Int(3), Value::Int(5)])
            .to_string();
        assert!((3..5).contains(&n.len()) && n.chars().all(|c| c.is_ascii_digit()));
        assert_eq!(st("java.math.BigDecimal", "valueOf", vec![Value::Double(1.1)]).to_string(), "1.1");
        let tcp = "org.apache.jmeter.protocol.tcp.sampler.BinaryTCPClientImpl";
        let b = st(tcp, "hexStringToByteArray", vec![s("0aff")]);
        assert_eq!(st(tcp, "hexEncode", vec![b]).to_string(), "0aff");
    }

    #[test]
    fn md5_known_answers() {
        // RFC 1321's test suite.
        assert_eq!(hex(&md5(b"")), "d41d8cd98f00b204e9800998ecf8427e");
        assert_eq!(hex(&md5(b"abc")), "900150983cd24fb0d6963f7d28e17f72");
        assert_eq!(hex(&md5(b"message digest")), "f96b697d7cb7938d525a2f31aaf161d0");
        assert_eq!(
            hex(&md5(b"12345678901234567890123456789012345678901234567890123456789012345678901234567890")),
            "57edf4a22be3c955ac49da2e2107b67a"
        );
    }
}
