use super::wire::{hex, next_chunk, windows_1252, Chunk};
use super::*;

/// The Raw Data Source's format: the length line (its first word), then the bytes; `\r\n`
/// is one line end; a length of 0 or the file's end ends the data; a short chunk is an error.
#[test]
fn raw_chunks_are_read_as_the_plugin_reads_them() {
    let data = b"5 first\r\nhello\n3\nabc\r\n\r\n0\nnever";
    let mut pos = 0;
    assert_eq!(next_chunk(data, &mut pos), Chunk::Data(b"hello".to_vec()));
    assert_eq!(next_chunk(data, &mut pos), Chunk::Data(b"abc".to_vec()));
    assert_eq!(next_chunk(data, &mut pos), Chunk::End);
    let mut pos = 0;
    assert_eq!(next_chunk(b"10\nshort", &mut pos), Chunk::Bad);
    assert_eq!(next_chunk(b"x\nabc", &mut 0), Chunk::Bad);
    assert_eq!(next_chunk(b"", &mut 0), Chunk::End);
    // The byte after a `\n` line end is skipped when it is another `\n` (the plugin's quirk).
    assert_eq!(next_chunk(b"2\n\nab", &mut 0), Chunk::Data(b"ab".to_vec()));
}

#[test]
fn hex_strings_as_jmeter_writes_and_reads_them() {
    assert_eq!(hex::encode(&[0x00, 0xab, 0x10]), "00ab10");
    assert_eq!(hex::decode("00AB10").unwrap(), [0x00, 0xab, 0x10]);
    let odd = hex::decode("abc").unwrap_err();
    assert_eq!(
        odd.text,
        "java.lang.IllegalArgumentException: Hex-encoded binary string contains an uneven no. of digits"
    );
    let bad = hex::decode("zz").unwrap_err();
    assert!(bad.text.ends_with("invalid hex digit in 'zz'"), "{}", bad.text);
}

#[test]
fn windows_1252_as_java_encodes() {
    assert_eq!(windows_1252("a€é中"), [b'a', 0x80, 0xe9, b'?']);
}

/// A query as dnsjava writes it, and a response written out as its `Message.toString`.
#[test]
fn dns_queries_and_responses_as_dnsjava() {
    let q = dns::query("example.com. A IN\n7", 0x1234).unwrap();
    assert_eq!(&q[..12], [0x12, 0x34, 0x01, 0x00, 0, 1, 0, 0, 0, 0, 0, 0]);
    assert_eq!(&q[12..], b"\x07example\x03com\x00\x00\x01\x00\x01");
    assert!(dns::query("example.com A IN", 1).unwrap_err().text.contains("RelativeNameException"));
    assert!(dns::query("example.com. BOGUS IN", 1).unwrap_err().text.contains("Invalid DNS type: -1"));
    assert!(dns::query("example.com. A", 1).unwrap_err().text.contains("Wrong DNS query string"));
    // The response: the query with qr rd ra, one answer pointing at the question's name.
    let mut resp = q.clone();
    resp[2] = 0x81;
    resp[3] = 0x80;
    resp[7] = 1;
    resp.extend([0xc0, 12, 0, 1, 0, 1, 0, 0, 0x0e, 0x10, 0, 4, 127, 0, 0, 1]);
    let text = dns::describe(&resp).unwrap();
    assert_eq!(
        text,
        ";; ->>HEADER<<- opcode: QUERY, status: NOERROR, id: 4660\n\
         ;; flags: qr rd ra ; qd: 1 an: 1 au: 0 ad: 0 \n\
         ;; QUESTIONS:\n;;\texample.com., type = A, class = IN\n\n\
         ;; ANSWERS:\nexample.com.\t\t3600\tIN\tA\t127.0.0.1\n\n\
         ;; AUTHORITY RECORDS:\n\n\
         ;; ADDITIONAL RECORDS:\n\n\
         ;; Message size: 45 bytes"
    );
    assert!(dns::describe(&[1, 2, 3])
        .unwrap_err()
        .text
        .starts_with("java.lang.RuntimeException: Cannot decode DNS message: 010203"));
}

/// HTTPRawSampler.parseResponse: code and message from the status line, the headers, and the
/// data up to the first CRLF of the body (Java's Scanner as the plugin uses it).
#[test]
fn raw_responses_parse_as_the_plugin_parses_them() {
    let mut o = Outcome::new();
    o.body = b"HTTP/1.1 404 Not Found\r\nA: 1\r\nB: 2\r\n\r\nline1\r\nline2".to_vec();
    o.bytes = o.body.len() as u64;
    parse_raw_response(&mut o);
    assert_eq!((o.code.as_str(), o.message.as_str(), o.headers.as_str()), ("404", "Not Found", "A: 1\r\nB: 2\r\n"));
    assert_eq!(o.body, b"line1");
    assert_eq!(o.bytes, 5);
    let mut o = Outcome::new();
    o.body = b"garbage".to_vec();
    parse_raw_response(&mut o);
    assert_eq!((o.code.as_str(), o.body.as_slice()), ("200", &b"garbage"[..]));
}

/// A Raw Data Source alone makes no sample: a user with nothing else stops at once.
#[test]
fn a_raw_data_source_alone_is_idle() {
    use crate::plan::sampler::socket::{RawFile, RawSource};
    use crate::plan::{Step, Template, VarId};
    let source = RawSource {
        name: "v".into(),
        var: VarId(0),
        file: Template::literal("f"),
        base_dir: Default::default(),
        rewind: true,
        hex: false,
        state: RawFile::default(),
    };
    let program = crate::engine::program::Program::compile(&[Step::RawSource(Box::new(source))]);
    assert!(program.idle);
}

/// A socket element's file named at run time stays under the plan's directory (a name written
/// in the plan outside it is its author's choice), is never read through a link out of it, and
/// a FIFO is refused rather than waited on.
#[test]
fn issue31_a_run_time_file_name_stays_under_the_plans_directory() {
    let tmp = std::fs::canonicalize(std::env::temp_dir()).unwrap();
    let root = tmp.join(format!("stampede-socket-files-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    let (plan, outside) = (root.join("plan"), root.join("outside"));
    std::fs::create_dir_all(&plan).unwrap();
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(outside.join("secret.txt"), "secret").unwrap();
    std::fs::write(plan.join("in.txt"), "in").unwrap();
    std::os::unix::fs::symlink(&outside, plan.join("linkdir")).unwrap();
    let plan = crate::confine::PlanDir::new(&plan);
    assert_eq!(plan_file(&plan, "in.txt", false).unwrap(), b"in");
    assert_eq!(plan_file(&plan, "../outside/secret.txt", true).unwrap(), b"secret");
    for name in ["../outside/secret.txt", "linkdir/secret.txt", "x/../linkdir/secret.txt"] {
        assert!(plan_file(&plan, name, false).is_err(), "{name}");
    }
    assert!(plan_file(&plan, "linkdir/secret.txt", true).is_err());
    let fifo = std::ffi::CString::new(plan.path().join("fifo").into_os_string().into_encoded_bytes()).unwrap();
    // SAFETY: a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o600) }, 0);
    assert!(plan_file(&plan, "fifo", false).unwrap_err().to_string().contains("not a regular file"));
    let _ = std::fs::remove_dir_all(root);
}
