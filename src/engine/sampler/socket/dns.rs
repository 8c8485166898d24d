//! The UDP Request's DNSJavaDecoder: text lines to a DNS query (dnsjava's `Message` with its
//! `toWire`), and a response to the text of dnsjava's `Message.toString`.

use super::wire::Failure;
use crate::record::ErrorKind;

const TYPES: &[(u16, &str)] = &[
    (1, "A"),
    (2, "NS"),
    (3, "MD"),
    (4, "MF"),
    (5, "CNAME"),
    (6, "SOA"),
    (7, "MB"),
    (8, "MG"),
    (9, "MR"),
    (10, "NULL"),
    (11, "WKS"),
    (12, "PTR"),
    (13, "HINFO"),
    (14, "MINFO"),
    (15, "MX"),
    (16, "TXT"),
    (17, "RP"),
    (18, "AFSDB"),
    (21, "RT"),
    (24, "SIG"),
    (25, "KEY"),
    (28, "AAAA"),
    (29, "LOC"),
    (33, "SRV"),
    (35, "NAPTR"),
    (36, "KX"),
    (37, "CERT"),
    (39, "DNAME"),
    (41, "OPT"),
    (43, "DS"),
    (44, "SSHFP"),
    (46, "RRSIG"),
    (47, "NSEC"),
    (48, "DNSKEY"),
    (50, "NSEC3"),
    (51, "NSEC3PARAM"),
    (52, "TLSA"),
    (64, "SVCB"),
    (65, "HTTPS"),
    (99, "SPF"),
    (249, "TKEY"),
    (250, "TSIG"),
    (251, "IXFR"),
    (252, "AXFR"),
    (253, "MAILB"),
    (254, "MAILA"),
    (255, "ANY"),
    (256, "URI"),
    (257, "CAA"),
];

const CLASSES: &[(u16, &str)] =
    &[(1, "IN"), (3, "CH"), (3, "CHAOS"), (4, "HS"), (4, "HESIOD"), (254, "NONE"), (255, "ANY")];

const RCODES: &[&str] = &[
    "NOERROR", "FORMERR", "SERVFAIL", "NXDOMAIN", "NOTIMP", "REFUSED", "YXDOMAIN", "YXRRSET", "NXRRSET", "NOTAUTH",
    "NOTZONE",
];

/// dnsjava's `Mnemonic.getValue`: a name of the table (any case) or `PREFIXnnn`; -1 otherwise.
fn value_of(table: &[(u16, &str)], prefix: &str, s: &str) -> i32 {
    let up = s.to_ascii_uppercase();
    if let Some((v, _)) = table.iter().find(|(_, n)| *n == up) {
        return i32::from(*v);
    }
    up.strip_prefix(prefix).and_then(|n| n.parse::<u16>().ok()).map_or(-1, i32::from)
}

fn name_of(table: &[(u16, &str)], prefix: &str, v: u16) -> String {
    table.iter().find(|(t, _)| *t == v).map_or_else(|| format!("{prefix}{v}"), |(_, n)| n.to_string())
}

fn fail(class: &str, message: &str) -> Failure {
    Failure { kind: ErrorKind::Protocol, text: format!("{class}: {message}") }
}

/// `DNSJavaDecoder.encode`: each line of at most 3 characters is a header flag to set (a
/// negative one to clear), any other `name. TYPE CLASS` a question.
pub(super) fn query(data: &str, id: u16) -> Result<Vec<u8>, Failure> {
    let mut flags: u16 = 0;
    let mut questions: Vec<u8> = Vec::new();
    let mut count: u16 = 0;
    // Java's split drops the empty strings at the end.
    let mut lines: Vec<&str> = data.split('\n').collect();
    while lines.len() > 1 && lines.last() == Some(&"") {
        lines.pop();
    }
    for rec in lines {
        if rec.encode_utf16().count() <= 3 {
            let t = rec.trim();
            let val: i32 = t
                .parse()
                .map_err(|_| fail("java.lang.NumberFormatException", &format!("For input string: \"{t}\"")))?;
            let bit = val.unsigned_abs();
            if bit > 15 || (1..=4).contains(&bit) || bit >= 12 {
                return Err(fail("java.lang.IllegalArgumentException", &format!("invalid flag bit {bit}")));
            }
            let mask = 1u16 << (15 - bit);
            if val < 0 {
                flags &= !mask;
            } else {
                flags |= mask;
            }
            continue;
        }
        let rec = rec.trim();
        let fields: Vec<&str> = rec.split(' ').collect();
        if fields.len() != 3 {
            return Err(fail("java.lang.IllegalArgumentException", &format!("Wrong DNS query string: {rec}")));
        }
        let name = name_to_wire(fields[0])?;
        let ty = value_of(TYPES, "TYPE", fields[1]);
        let class = value_of(CLASSES, "CLASS", fields[2]);
        if ty < 0 {
            return Err(fail("org.xbill.DNS.InvalidTypeException", &format!("Invalid DNS type: {ty}")));
        }
        if class < 0 {
            return Err(fail("org.xbill.DNS.InvalidDClassException", &format!("Invalid DNS class: {class}")));
        }
        questions.extend(name);
        questions.extend((ty as u16).to_be_bytes());
        questions.extend((class as u16).to_be_bytes());
        count += 1;
    }
    let mut out = Vec::with_capacity(12 + questions.len());
    out.extend(id.to_be_bytes());
    out.extend(flags.to_be_bytes());
    out.extend(count.to_be_bytes());
    out.extend([0u8; 6]);
    out.extend(questions);
    Ok(out)
}

/// An absolute name (`www.example.com.`) in wire form.
fn name_to_wire(s: &str) -> Result<Vec<u8>, Failure> {
    let invalid = || fail("java.lang.IllegalArgumentException", &format!("Invalid name '{s}'"));
    if s == "." {
        return Ok(vec![0]);
    }
    let Some(body) = s.strip_suffix('.') else {
        return Err(fail("org.xbill.DNS.RelativeNameException", &format!("'{s}' is not an absolute name")));
    };
    let mut out = Vec::new();
    for label in body.split('.') {
        if label.is_empty() || label.len() > 63 {
            return Err(invalid());
        }
        out.push(label.len() as u8);
        out.extend(label.as_bytes());
    }
    out.push(0);
    if out.len() > 255 {
        return Err(invalid());
    }
    Ok(out)
}

/// A DNS message being read.
struct Reader<'a> {
    b: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn u8(&mut self) -> Option<u8> {
        let v = *self.b.get(self.at)?;
        self.at += 1;
        Some(v)
    }

    fn u16(&mut self) -> Option<u16> {
        Some(u16::from(self.u8()?) << 8 | u16::from(self.u8()?))
    }

    fn u32(&mut self) -> Option<u32> {
        Some(u32::from(self.u16()?) << 16 | u32::from(self.u16()?))
    }

    fn bytes(&mut self, n: usize) -> Option<&[u8]> {
        let s = self.b.get(self.at..self.at + n)?;
        self.at += n;
        Some(s)
    }

    /// A name, following compression pointers (backwards only, as dnsjava).
    fn name(&mut self) -> Option<String> {
        let mut out = String::new();
        let mut at = self.at;
        let mut jumped = false;
        let mut hops = 0;
        loop {
            let len = *self.b.get(at)?;
            at += 1;
            match len & 0xc0 {
                0 if len == 0 => break,
                0 => {
                    let label = self.b.get(at..at + len as usize)?;
                    at += len as usize;
                    for &c in label {
                        push_escaped(&mut out, c, false);
                    }
                    out.push('.');
                }
                0xc0 => {
                    let ptr = (usize::from(len & 0x3f) << 8) | usize::from(*self.b.get(at)?);
                    at += 1;
                    if !jumped {
                        self.at = at;
                        jumped = true;
                    }
                    hops += 1;
                    if ptr >= at - 2 || hops > 64 {
                        return None;
                    }
                    at = ptr;
                }
                _ => return None,
            }
        }
        if !jumped {
            self.at = at;
        }
        if out.is_empty() {
            out.push('.');
        }
        Some(out)
    }
}

/// dnsjava's `byteString`: special characters escaped with `\`, unprintable ones as `\DDD`.
fn push_escaped(out: &mut String, c: u8, quoted: bool) {
    let special: &[u8] = if quoted { b"\"\\" } else { b"\"().;\\@$" };
    if c <= 0x20 && !(quoted && c == b' ') || c >= 0x7f {
        out.push_str(&format!("\\{c:03}"));
    } else if special.contains(&c) {
        out.push('\\');
        out.push(c as char);
    } else {
        out.push(c as char);
    }
}

/// `DNSJavaDecoder.decode`: the response as dnsjava's `Message.toString`.
pub(super) fn describe(b: &[u8]) -> Result<String, Failure> {
    parse(b).ok_or_else(|| {
        fail("java.lang.RuntimeException", &format!("Cannot decode DNS message: {}", super::wire::hex::encode(b)))
    })
}

fn parse(b: &[u8]) -> Option<String> {
    let mut r = Reader { b, at: 0 };
    let id = r.u16()?;
    let flags = r.u16()?;
    let counts = [r.u16()?, r.u16()?, r.u16()?, r.u16()?];
    let opcode = (flags >> 11) & 0xf;
    let rcode = usize::from(flags & 0xf);
    let opcode = match opcode {
        0 => "QUERY".to_string(),
        1 => "IQUERY".to_string(),
        2 => "STATUS".to_string(),
        4 => "NOTIFY".to_string(),
        5 => "UPDATE".to_string(),
        6 => "DSO".to_string(),
        n => format!("RESERVED{n}"),
    };
    let status = RCODES.get(rcode).map_or_else(|| format!("RESERVED{rcode}"), |s| s.to_string());
    let mut out = format!(";; ->>HEADER<<- opcode: {opcode}, status: {status}, id: {id}\n;; flags: ");
    for (bit, name) in [(0, "qr"), (5, "aa"), (6, "tc"), (7, "rd"), (8, "ra"), (9, "flag9"), (10, "ad"), (11, "cd")] {
        if flags & (1 << (15 - bit)) != 0 {
            out.push_str(name);
            out.push(' ');
        }
    }
    out.push_str("; ");
    for (name, n) in ["qd", "an", "au", "ad"].iter().zip(counts) {
        out.push_str(&format!("{name}: {n} "));
    }
    out.push('\n');
    let sections = ["QUESTIONS", "ANSWERS", "AUTHORITY RECORDS", "ADDITIONAL RECORDS"];
    let mut body = String::new();
    for (i, title) in sections.iter().enumerate() {
        body.push_str(&format!(";; {title}:\n"));
        for _ in 0..counts[i] {
            let name = r.name()?;
            let ty = r.u16()?;
            let class = r.u16()?;
            if i == 0 {
                body.push_str(&format!(
                    ";;\t{name}, type = {}, class = {}\n",
                    name_of(TYPES, "TYPE", ty),
                    name_of(CLASSES, "CLASS", class)
                ));
                continue;
            }
            let ttl = r.u32()?;
            let len = usize::from(r.u16()?);
            let start = r.at;
            let rdata = rdata(&mut r, ty, len)?;
            r.at = start + len;
            if ty != 41 {
                body.push_str(&record(&name, ttl, class, ty, &rdata));
            }
            body.push('\n');
        }
        body.push('\n');
    }
    out.push_str(&body);
    out.push_str(&format!(";; Message size: {} bytes", b.len()));
    Some(out)
}

/// dnsjava's `Record.toString`.
fn record(name: &str, ttl: u32, class: u16, ty: u16, rdata: &str) -> String {
    let mut s = name.to_string();
    if s.len() < 8 {
        s.push('\t');
    }
    if s.len() < 16 {
        s.push('\t');
    }
    s.push('\t');
    s.push_str(&format!("{ttl}\t{}\t{}", name_of(CLASSES, "CLASS", class), name_of(TYPES, "TYPE", ty)));
    if !rdata.is_empty() {
        s.push('\t');
        s.push_str(rdata);
    }
    s
}

/// The text of a record's data, for the common types; any other as dnsjava's unknown
/// records, `\# length HEX`.
fn rdata(r: &mut Reader<'_>, ty: u16, len: usize) -> Option<String> {
    let end = r.at + len;
    let s = match ty {
        1 if len == 4 => r.bytes(4)?.iter().map(u8::to_string).collect::<Vec<_>>().join("."),
        28 if len == 16 => {
            let b = r.bytes(16)?;
            if b[..10].iter().all(|x| *x == 0) && b[10] == 0xff && b[11] == 0xff {
                format!("::ffff:{}.{}.{}.{}", b[12], b[13], b[14], b[15])
            } else {
                b.chunks(2)
                    .map(|p| format!("{:x}", u16::from(p[0]) << 8 | u16::from(p[1])))
                    .collect::<Vec<_>>()
                    .join(":")
            }
        }
        2 | 5 | 7 | 8 | 9 | 12 | 39 => r.name()?,
        15 | 18 | 21 | 36 => {
            let pref = r.u16()?;
            format!("{pref} {}", r.name()?)
        }
        6 => {
            let (m, n) = (r.name()?, r.name()?);
            let v = [r.u32()?, r.u32()?, r.u32()?, r.u32()?, r.u32()?];
            format!("{m} {n} {} {} {} {} {}", v[0], v[1], v[2], v[3], v[4])
        }
        16 | 99 => {
            let mut parts = Vec::new();
            while r.at < end {
                let n = usize::from(r.u8()?);
                let mut t = String::from("\"");
                for &c in r.bytes(n)? {
                    push_escaped(&mut t, c, true);
                }
                t.push('"');
                parts.push(t);
            }
            parts.join(" ")
        }
        33 => {
            let (p, w, port) = (r.u16()?, r.u16()?, r.u16()?);
            format!("{p} {w} {port} {}", r.name()?)
        }
        _ => {
            let data = r.bytes(len)?;
            format!("\\# {len} {}", super::wire::hex::encode(data).to_ascii_uppercase())
        }
    };
    (r.at <= end).then_some(s)
}
