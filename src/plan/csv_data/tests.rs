//! Unit tests of the csv_data module.

use super::*;

fn opts() -> CsvOptions {
    CsvOptions::default()
}

fn with_names(names: &[&str]) -> CsvOptions {
    CsvOptions { names: Some(names.iter().map(|s| s.to_string()).collect()), ..opts() }
}

fn ok(text: &str, o: &CsvOptions) -> CsvData {
    match parse_csv(text, o) {
        Ok(d) => d,
        Err(e) => panic!("{text:?} should parse, got: {e}"),
    }
}

fn err(text: &str, o: &CsvOptions) -> CsvError {
    match parse_csv(text, o) {
        Ok(d) => panic!("{text:?} should fail, got {d:?}"),
        Err(e) => e,
    }
}

/// Each text fails to parse on its line with a message holding its words.
fn fails_at(cases: &[(&str, usize, &str)]) {
    for (text, line, msg) in cases {
        let e = err(text, &opts());
        assert_eq!(e.line, Some(*line), "{text:?}: {e}");
        assert!(e.message.contains(msg), "{text:?}: {e}");
    }
}

fn rows(d: &CsvData) -> Vec<Vec<&str>> {
    d.rows.iter().map(|r| r.iter().map(String::as_str).collect()).collect()
}

#[test]
fn header_gives_trimmed_names_and_values_keep_spaces() {
    let d = ok(" user , pass\n alice , s3cret \nbob,x\n", &opts());
    assert_eq!(d.names, ["user", "pass"]);
    assert_eq!(rows(&d), [vec![" alice ", " s3cret "], vec!["bob", "x"]]);
    assert_eq!(d.row_lines, [2, 3]);
}

#[test]
fn explicit_names_make_every_line_data() {
    let d = ok("alice,1\nbob,2", &with_names(&["user", "id"]));
    assert_eq!(d.names, ["user", "id"]);
    assert_eq!(rows(&d), [vec!["alice", "1"], vec!["bob", "2"]]);
    assert_eq!(d.row_lines, [1, 2]);
}

#[test]
fn explicit_names_are_trimmed() {
    let d = ok("a,b\n", &with_names(&[" user", "pass "]));
    assert_eq!(d.names, ["user", "pass"]);
}

#[test]
fn skip_first_line_ignores_it_whatever_its_width() {
    let o = CsvOptions { skip_first_line: true, ..with_names(&["user", "id"]) };
    let d = ok("USER,ID,EXTRA\nalice,1\n", &o);
    assert_eq!(rows(&d), [vec!["alice", "1"]]);
    assert_eq!(d.row_lines, [2]);
}

#[test]
fn skip_first_line_skips_a_whole_quoted_multiline_header() {
    let o = CsvOptions { skip_first_line: true, ..with_names(&["a"]) };
    let d = ok("\"multi\nline header\"\nx\n", &o);
    assert_eq!(rows(&d), [vec!["x"]]);
    assert_eq!(d.row_lines, [3]);
}

#[test]
fn skip_first_line_is_ignored_with_a_header() {
    let o = CsvOptions { skip_first_line: true, ..opts() };
    let d = ok("a\n1\n2\n", &o);
    assert_eq!(rows(&d), [vec!["1"], vec!["2"]]);
}

#[test]
fn delimiters() {
    let cases: &[(&str, &str, &[&[&str]])] = &[
        ("||", "a||b\n1||2|3\n", &[&["1", "2|3"]]),
        ("\t", "a\tb\n1 \t 2\n", &[&["1 ", " 2"]]),
        (";", "a;b\n1,5;2\n", &[&["1,5", "2"]]),
        ("::", "a::b\n::\n", &[&["", ""]]),
        // Overlapping occurrences: the leftmost match wins.
        ("||", "a||b\nx|||y\n", &[&["x", "|y"]]),
        ("→", "a→b\né→ü\n", &[&["é", "ü"]]),
    ];
    for (delim, text, want) in cases {
        let o = CsvOptions { delimiter: delim.to_string(), ..opts() };
        let d = ok(text, &o);
        assert_eq!(d.names, ["a", "b"], "delimiter {delim:?}");
        assert_eq!(rows(&d), *want, "delimiter {delim:?}");
    }
}

#[test]
fn quoted_fields() {
    let cases: &[(&str, &str, &[&str])] = &[
        ("comma inside", "\"a,b\",c", &["a,b", "c"]),
        ("doubled quote", "\"say \"\"hi\"\"\",c", &["say \"hi\"", "c"]),
        ("empty quoted", "\"\",c", &["", "c"]),
        ("only a quote", "\"\"\"\",c", &["\"", "c"]),
        ("quoted last field", "a,\"b,c\"", &["a", "b,c"]),
        ("quoted last field crlf", "a,\"b\"\r\n", &["a", "b"]),
        ("quoted last field final cr", "a,\"b\"\r", &["a", "b"]),
        ("quote mid-field is literal", "a\"b,c\"", &["a\"b", "c\""]),
        ("spaces before quote: not quoted", " \"a\",b", &[" \"a\"", "b"]),
        ("newline inside", "\"line1\nline2\",c", &["line1\nline2", "c"]),
        ("crlf inside kept", "\"line1\r\nline2\",c", &["line1\r\nline2", "c"]),
        ("delimiter inside quotes", "\"x||y\",c", &["x||y", "c"]),
    ];
    for (what, text, want) in cases {
        let d = ok(text, &with_names(&["a", "b"]));
        assert_eq!(rows(&d), [want.to_vec()], "{what}");
    }
}

#[test]
fn quoted_fields_with_multichar_delimiter() {
    let o = CsvOptions { delimiter: "||".into(), ..with_names(&["a", "b"]) };
    let d = ok("\"x||y\"||\"p\"\"q\"\n", &o);
    assert_eq!(rows(&d), [vec!["x||y", "p\"q"]]);
}

#[test]
fn multiline_row_reports_its_first_line_and_later_lines_stay_right() {
    let d = ok("h1,h2\n\"a\nb\nc\",d\ne,f\n", &opts());
    assert_eq!(rows(&d), [vec!["a\nb\nc", "d"], vec!["e", "f"]]);
    assert_eq!(d.row_lines, [2, 5]);
    // Line counting stays right after the multi-line row: "g" is on line 6.
    let e = err("h1,h2\n\"a\nb\nc\",d\ne,f\ng\n", &opts());
    assert_eq!(e.line, Some(6));
}

#[test]
fn quotes_disabled_makes_quotes_ordinary() {
    let o = CsvOptions { quoted: false, ..opts() };
    let d = ok("a,b\n\"x,y\"\n\"\"\"\",\"\n", &o);
    assert_eq!(rows(&d), [vec!["\"x", "y\""], vec!["\"\"\"\"", "\""]]);
    // With quoting off a quote is allowed in the delimiter.
    let o = CsvOptions { quoted: false, delimiter: "\"".into(), ..opts() };
    assert_eq!(rows(&ok("a\"b\n1\"2\n", &o)), [vec!["1", "2"]]);
}

#[test]
fn crlf_and_bom() {
    let d = ok("\u{feff}user,pass\r\nalice,x\r\nbob,\r\n", &opts());
    assert_eq!(d.names, ["user", "pass"]);
    assert_eq!(rows(&d), [vec!["alice", "x"], vec!["bob", ""]]);
    assert_eq!(d.row_lines, [2, 3]);
}

#[test]
fn bare_cr_inside_a_line_is_data() {
    let d = ok("a\nx\ry\n", &opts());
    assert_eq!(rows(&d), [vec!["x\ry"]]);
}

#[test]
fn blank_lines_are_skipped_anywhere_but_whitespace_lines_are_data() {
    let d = ok("\n\r\na,b\n\n1,2\r\n\r\n\n3,4\n\n", &opts());
    assert_eq!(d.names, ["a", "b"]);
    assert_eq!(rows(&d), [vec!["1", "2"], vec!["3", "4"]]);
    assert_eq!(d.row_lines, [5, 8]);
    // A line of spaces is a one-field row, so with two names it has the wrong width.
    let e = err("a,b\n1,2\n   \n", &opts());
    assert_eq!(e, CsvError::at(3, "1 field, expected 2 (a, b)"));
    let d = ok("a\n  \n", &opts());
    assert_eq!(rows(&d), [vec!["  "]]);
}

#[test]
fn trailing_delimiter_is_an_empty_last_field() {
    let d = ok("a,b\nx,\n", &opts());
    assert_eq!(rows(&d), [vec!["x", ""]]);
}

#[test]
fn wrong_width() {
    let cases: &[(&str, CsvOptions, CsvError)] = &[
        ("user,pass\nalice,x\nbob,y,z\n", opts(), CsvError::at(3, "3 fields, expected 2 (user, pass)")),
        ("user,pass\nalice\n", opts(), CsvError::at(2, "1 field, expected 2 (user, pass)")),
        ("a,b,c\n", with_names(&["user", "pass"]), CsvError::at(1, "3 fields, expected 2 (user, pass)")),
        ("\n\nu\n\n1,2\n", opts(), CsvError::at(5, "2 fields, expected 1 (u)")),
        ("u,p\n\"a\nb\",c,d\n", opts(), CsvError::at(2, "3 fields, expected 2 (u, p)")),
    ];
    for (text, o, want) in cases {
        assert_eq!(&err(text, o), want, "{text:?}");
    }
    assert_eq!(err("user,pass\nbob,y,z\n", &opts()).to_string(), "line 2: 3 fields, expected 2 (user, pass)");
}

#[test]
fn quote_errors_name_the_right_line() {
    let cases: &[(&str, usize, &str)] = &[
        ("a,b\n1,2\n\"open,3\n4,5\n", 3, "unterminated"),
        ("a,b\n1,\"open\n", 2, "unterminated"),
        // The second field opens on line 3 of a row that started on line 2.
        ("a,b\n\"x\ny\",\"z\n", 3, "unterminated"),
        ("a,b\n\"x\"y,2\n", 2, "after the closing quote of field 1"),
        ("a,b\n\"x\ny\"z,2\n", 3, "after the closing quote of field 1"),
        ("a,b\n1,\"2\" \n", 2, "after the closing quote of field 2"),
    ];
    fails_at(cases);
}

#[test]
fn bad_header_names() {
    let cases: &[(&str, usize, &str)] = &[
        ("user,,pass\n1,2,3\n", 1, "empty variable name in column 2 of the header"),
        ("user, \n1,2\n", 1, "empty variable name in column 2 of the header"),
        ("user,pass,user\n1,2,3\n", 1, "duplicate variable name \"user\" in column 3 of the header"),
        ("user, user\n1,2\n", 1, "duplicate variable name \"user\""),
        ("1user\nx\n", 1, "invalid variable name \"1user\" in column 1"),
        ("us er\nx\n", 1, "invalid variable name \"us er\""),
        ("a,b$\nx,y\n", 1, "invalid variable name \"b$\" in column 2"),
        ("\n\nok,é\nx,y\n", 3, "invalid variable name \"é\""),
    ];
    fails_at(cases);
    for good in ["_", "a", "Z9", "user.name", "x-y_z", "_.-"] {
        assert!(is_valid_name(good), "{good}");
    }
    for bad in ["", "9", ".a", "-a", "a b", "a$", "ä"] {
        assert!(!is_valid_name(bad), "{bad}");
    }
}

#[test]
fn bad_explicit_names() {
    let cases: &[(&[&str], &str)] = &[
        (&[], "no variable names given"),
        (&["a", ""], "empty variable name in position 2 of the variable names"),
        (&["a", "a"], "duplicate variable name \"a\""),
        (&["a", "b c"], "invalid variable name \"b c\" in position 2"),
    ];
    for (names, msg) in cases {
        let e = err("x,y\n", &with_names(names));
        assert_eq!(e.line, None, "{names:?}: {e}");
        assert!(e.message.contains(msg), "{names:?}: {e}");
    }
}

#[test]
fn no_data_rows() {
    let skip = CsvOptions { skip_first_line: true, ..with_names(&["a"]) };
    let cases: &[(&str, CsvOptions, &str)] = &[
        ("", opts(), "no data rows: the file is empty"),
        ("\u{feff}", opts(), "no data rows: the file is empty"),
        ("\n\r\n\n", opts(), "no data rows: the file has only blank lines"),
        ("", with_names(&["a"]), "no data rows: the file is empty"),
        ("user,pass\n", opts(), "no data rows: the file has only a header line (line 1)"),
        ("\nuser,pass\n\n", opts(), "no data rows: the file has only a header line (line 2)"),
        ("header\n", skip.clone(), "no data rows: the file has only its first line (line 1)"),
        ("", skip, "no data rows: the file is empty"),
    ];
    for (text, o, msg) in cases {
        let e = err(text, o);
        assert_eq!(e.line, None, "{text:?}");
        assert!(e.message.starts_with(msg), "{text:?}: {e}");
        assert_eq!(e.to_string(), e.message);
    }
}

#[test]
fn bad_delimiters() {
    let cases: &[(&str, bool, &str)] = &[
        ("", true, "the delimiter is empty"),
        ("\n", false, "line break"),
        ("a\r", false, "line break"),
        ("\"", true, "must not contain '\"'"),
    ];
    for (delim, quoted, msg) in cases {
        let o = CsvOptions { delimiter: delim.to_string(), quoted: *quoted, ..opts() };
        let e = err("a\n1\n", &o);
        assert_eq!(e.line, None);
        assert!(e.message.contains(msg), "{delim:?}: {e}");
    }
}

#[test]
fn invalid_utf8_names_the_line_of_the_first_bad_byte() {
    let cases: &[(&[u8], usize)] = &[
        (b"\xffa,b\n1,2\n", 1),
        (b"a,b\n1,2\n3,\xc3\n", 3),
        (b"a,b\n\n\n1,\xe2\x82\n", 4),
        (b"a,b\n1,2\n\xc3\xa9\xed\xa0\x80,x\n", 3),
    ];
    for (bytes, line) in cases {
        let e = match parse_bytes(bytes, &opts()) {
            Ok(d) => panic!("{bytes:?} should fail, got {d:?}"),
            Err(e) => e,
        };
        assert_eq!(e.line, Some(*line), "{bytes:?}: {e}");
        assert!(e.message.contains("invalid UTF-8"), "{e}");
    }
}

/// A scratch file removed on drop, so a failing assertion does not leave it behind.
struct TempFile(std::path::PathBuf);

impl TempFile {
    fn new(name: &str, contents: &[u8]) -> Self {
        let path = std::env::temp_dir().join(format!("stampede-csv-{}-{name}", std::process::id()));
        if let Err(e) = std::fs::write(&path, contents) {
            panic!("cannot write {}: {e}", path.display());
        }
        TempFile(path)
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

#[test]
fn read_csv_reads_files() {
    let f = TempFile::new("ok.csv", b"\xef\xbb\xbfuser;pass\r\nalice;x\r\n");
    let o = CsvOptions { delimiter: ";".into(), ..opts() };
    let d = match read_csv(&f.0, &o) {
        Ok(d) => d,
        Err(e) => panic!("{e}"),
    };
    assert_eq!(d.names, ["user", "pass"]);
    assert_eq!(rows(&d), [vec!["alice", "x"]]);

    let f = TempFile::new("bad-utf8.csv", b"a\nb\n\x80\n");
    let e = read_csv(&f.0, &opts()).err();
    assert_eq!(e.map(|e| e.line), Some(Some(3)));
}

#[test]
fn read_csv_missing_file() {
    let path = std::env::temp_dir().join(format!("stampede-csv-{}-does-not-exist.csv", std::process::id()));
    let e = match read_csv(&path, &opts()) {
        Ok(d) => panic!("should fail, got {d:?}"),
        Err(e) => e,
    };
    assert_eq!(e.line, None);
    let prefix = format!("cannot read {}: ", path.display());
    assert!(e.message.starts_with(&prefix), "{e}");
    assert!(e.message.len() > prefix.len(), "{e}");
}

/// Fixed-seed LCG (Knuth's MMIX constants): reproducible without a dependency.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u32 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (self.0 >> 33) as u32
    }

    fn below(&mut self, n: usize) -> usize {
        self.next() as usize % n
    }
}

#[test]
fn fuzz_never_panics_and_keeps_invariants() {
    // Random bytes mostly die in UTF-8 validation, so half the inputs are built from tokens
    // that exercise the parser's edge cases.
    const TOKENS: &[&str] =
        &["a", "x y", ",", "||", "|", "\t", "\"", "\"\"", "\n", "\r\n", "\r", "\u{feff}", "é", "_1", " "];
    const DELIMS: &[&str] = &[",", "||", "\t", "|", "\"", "é", "ab", "", "\n"];
    let mut rng = Lcg(0x5eed_cafe);
    let mut parsed = 0;
    for round in 0..6000 {
        let mut bytes = Vec::new();
        let len = rng.below(40);
        if round % 2 == 0 {
            bytes.extend((0..len).map(|_| rng.next() as u8));
        } else {
            for _ in 0..len {
                bytes.extend_from_slice(TOKENS[rng.below(TOKENS.len())].as_bytes());
            }
        }
        let names = match rng.below(3) {
            0 => None,
            1 => Some(vec!["a".to_string(), "b".to_string()]),
            _ => Some(vec!["a".to_string()]),
        };
        let o = CsvOptions {
            delimiter: DELIMS[rng.below(DELIMS.len())].to_string(),
            quoted: rng.below(2) == 0,
            names,
            skip_first_line: rng.below(2) == 0,
            ragged: rng.below(2) == 0,
        };
        if let Ok(d) = parse_bytes(&bytes, &o) {
            parsed += 1;
            assert!(!d.rows.is_empty());
            assert!(!d.names.is_empty());
            assert_eq!(d.rows.len(), d.row_lines.len());
            if o.ragged {
                assert!(d.rows.iter().all(|r| r.len() <= d.names.len()), "{bytes:?}");
            } else {
                assert!(d.rows.iter().all(|r| r.len() == d.names.len()), "{bytes:?}");
            }
            assert!(d.row_lines.windows(2).all(|w| w[0] < w[1]), "{bytes:?}");
            assert!(d.row_lines.iter().all(|&l| l >= 1), "{bytes:?}");
        }
    }
    // Guards against the generator degenerating into inputs that never get past validation.
    assert!(parsed > 100, "only {parsed} inputs parsed");
}

/// JMeter's CSV Data Set rows (CSVDataSet.iterationStart in JMeter 5.6.3): a short row keeps its
/// width, extra fields are dropped, and a blank line is a row: no fields when unquoted
/// (JOrphanUtils.split of ""), one empty field when quoted (CSVSaveService.csvReadFile).
#[test]
fn jmeter_rows_keep_their_width_and_blank_lines() {
    let plain = CsvOptions { ragged: true, quoted: false, ..with_names(&["a", "b"]) };
    let d = ok("1\n\n2,3,4\r\n\r\n5,6\n", &plain);
    assert_eq!(rows(&d), [vec!["1"], vec![], vec!["2", "3"], vec![], vec!["5", "6"]]);
    assert_eq!(d.row_lines, [1, 2, 3, 4, 5]);
    let quoted = CsvOptions { quoted: true, ..plain.clone() };
    let d = ok("1\n\n\"x\ny\",2\n\n", &quoted);
    assert_eq!(rows(&d), [vec!["1"], vec![""], vec!["x\ny", "2"], vec![""]]);
    assert_eq!(d.row_lines, [1, 2, 3, 5]);
    // The skipped first line is the first line even when blank; a file of blank lines has rows.
    let skip = CsvOptions { skip_first_line: true, ..plain.clone() };
    assert_eq!(rows(&ok("\n1,2\n", &skip)), [vec!["1", "2"]]);
    assert_eq!(rows(&ok("\n\n", &plain)), [Vec::<&str>::new(), vec![]]);
    // A header from the file is still its first non-blank line.
    let header = CsvOptions { ragged: true, quoted: false, ..opts() };
    let d = ok("\na,b\n1\n\n", &header);
    assert_eq!((d.names.clone(), rows(&d)), (vec!["a".to_string(), "b".to_string()], vec![vec!["1"], vec![]]));
}

/// #13: JMeter's CSV Data Set takes the names as they come (an empty one, a repeated one, one
/// no `${}` can name); a JMX data file (`ragged`) is read as JMeter reads it, where a YAML
/// plan's is refused.
#[test]
fn jmeter_data_sets_take_any_header_name() {
    let jmx = CsvOptions { ragged: true, quoted: false, ..opts() };
    for (text, names) in [
        ("user,,pass\n1,2,3\n", vec!["user", "", "pass"]),
        ("user,pass,user\n1,2,3\n", vec!["user", "pass", "user"]),
        ("us er,b$\nx,y\n", vec!["us er", "b$"]),
    ] {
        let d = parse_csv(text, &jmx).unwrap_or_else(|e| panic!("{text:?}: {e}"));
        assert_eq!(d.names, names, "{text:?}");
        assert_eq!(d.rows.len(), 1, "{text:?}");
    }
    let explicit = CsvOptions { names: Some(vec!["a".into(), String::new()]), ..jmx };
    assert_eq!(parse_csv("1,2\n", &explicit).unwrap().rows, vec![vec!["1".to_string(), "2".to_string()]]);
}

/// #31: a file is read through a window, whatever its size: rows cut by the window's end (a
/// quoted field over lines, a "\r\n" split in two, a character cut in its bytes, a run of blank
/// lines) parse exactly as when the window holds the file whole.
#[test]
fn issue31_rows_read_through_any_window_are_the_rows_of_the_whole_text() {
    const TOKENS: &[&str] =
        &["a", "x y", ",", "||", "|", "\t", "\"", "\"\"", "\n", "\r\n", "\r", "\u{feff}", "é", "_1", " ", "\n\n\n"];
    const DELIMS: &[&str] = &[",", "||", "\t", "é"];
    let mut rng = Lcg(0x31_31_31);
    let mut compared = 0;
    for round in 0..3000 {
        let mut bytes = Vec::new();
        if round % 3 == 0 {
            bytes.extend_from_slice("\u{feff}".as_bytes());
        }
        for _ in 0..rng.below(60) {
            bytes.extend_from_slice(TOKENS[rng.below(TOKENS.len())].as_bytes());
        }
        if round % 17 == 0 {
            bytes.push(0x80);
        }
        let names = match rng.below(3) {
            0 => None,
            1 => Some(vec!["a".to_string(), "b".to_string()]),
            _ => Some(vec!["a".to_string()]),
        };
        let o = CsvOptions {
            delimiter: DELIMS[rng.below(DELIMS.len())].to_string(),
            quoted: rng.below(2) == 0,
            names,
            skip_first_line: rng.below(2) == 0,
            ragged: rng.below(2) == 0,
        };
        let whole = parse_bytes(&bytes, &o);
        for chunk in [1, 2, 3, 5, 8] {
            let windowed = reader::scan_with(&bytes[..], &o, chunk)
                .and_then(|s| reader::collect_with(&bytes[..], &s, chunk).map(|d| (d, s.rows())));
            match (&whole, windowed) {
                (Ok(w), Ok((d, n))) => {
                    assert_eq!((w, w.rows.len() as u64), (&d, n), "{bytes:?} {o:?} chunk {chunk}");
                    compared += 1;
                }
                (Err(w), Err(e)) => assert_eq!(w, &e, "{bytes:?} {o:?} chunk {chunk}"),
                (w, e) => panic!("{bytes:?} {o:?} chunk {chunk}: {w:?} vs {e:?}"),
            }
        }
    }
    assert!(compared > 1000, "only {compared} parsed");
}

/// The rows `take` gives one after another, as text.
fn taken(mut take: impl FnMut() -> Option<String>, n: usize) -> Vec<Option<String>> {
    (0..n).map(|_| take()).collect()
}

fn some(rows: &[&str]) -> Vec<Option<String>> {
    rows.iter().map(|r| Some(r.to_string())).collect()
}

/// #31: a shared reader hands out the rows in file order, ends the pass with `None` (and stays
/// there), and a rewind starts from the first data row again: the header and the ignored first
/// line are skipped on every pass, as JMeter's FileServer does on recycle.
#[test]
fn issue31_a_shared_reader_reads_in_order_stays_at_the_end_and_rewinds_past_the_header() {
    let f = TempFile::new("shared.csv", b"user,pass\na,1\nb,2\n\"c\nd\",3\n");
    let file = DataFile::open(&f.0, &opts()).unwrap();
    assert_eq!((file.names(), file.rows()), (&["user".to_string(), "pass".to_string()][..], 3));
    let mut r = file.reader();
    let all = |_| true;
    let mut got = taken(|| r.next(&file, all).map(|r| r.join("|")), 5);
    assert_eq!(got.drain(..3).collect::<Vec<_>>(), some(&["a|1", "b|2", "c\nd|3"]));
    assert_eq!(got, [None, None], "the end stays the end until a rewind");
    r.rewind(&file);
    assert_eq!(taken(|| r.next(&file, all).map(|r| r.join("|")), 2), some(&["a|1", "b|2"]));

    let skip = CsvOptions { skip_first_line: true, ..with_names(&["u", "p"]) };
    let file = DataFile::open(&f.0, &skip).unwrap();
    let mut r = file.reader();
    assert_eq!(taken(|| r.next(&file, all).map(|r| r.join("|")), 4)[3], None);
    r.rewind(&file);
    assert_eq!(taken(|| r.next(&file, all).map(|r| r.join("|")), 1), some(&["a|1"]), "the first line is ignored again");

    // A part of a split run reads only its own rows, counted from the first in each pass.
    let file = DataFile::open(&f.0, &opts()).unwrap();
    let mut r = file.reader();
    let odd = |k: u64| k % 2 == 1;
    assert_eq!(taken(|| r.next(&file, odd).map(|r| r.join("|")), 2), [Some("b|2".to_string()), None]);
    r.rewind(&file);
    assert_eq!(taken(|| r.next(&file, odd).map(|r| r.join("|")), 1), some(&["b|2"]));
    let none = |_| false;
    r.rewind(&file);
    assert_eq!(r.next(&file, none), None::<&[String]>);
}

/// #31: a user reading on its own keeps only a cursor: its rows are the file's, in order, and
/// a reset cursor reads from the first again.
#[test]
fn issue31_a_users_cursor_reads_the_rows_in_order() {
    let f = TempFile::new("cursor.csv", b"\xef\xbb\xbfh\r\n1\r\n\r\n\"2\"\"\r\n\"\r\n3\r\n");
    let file = DataFile::open(&f.0, &opts()).unwrap();
    let (mut c, mut d) = (Cursor::default(), Cursor::default());
    assert_eq!(taken(|| file.take_at(&mut c, |_| true, |r| r.join("|")), 2), some(&["1", "2\"\r\n"]));
    assert_eq!(taken(|| file.take_at(&mut d, |_| true, |r| r.join("|")), 1), some(&["1"]), "each cursor is its own");
    assert_eq!(taken(|| file.take_at(&mut c, |_| true, |r| r.join("|")), 3), [Some("3".to_string()), None, None]);
    c = Cursor::default();
    assert_eq!(taken(|| file.take_at(&mut c, |k| k == 2, |r| r.join("|")), 2), [Some("3".to_string()), None]);
    // JMX rows: a blank line is a row of no fields, a short row keeps its width.
    let jmx = CsvOptions { ragged: true, quoted: false, ..with_names(&["a", "b"]) };
    let f = TempFile::new("cursor-jmx.csv", b"1,2,3\n\n4\n");
    let file = DataFile::open(&f.0, &jmx).unwrap();
    let mut c = Cursor::default();
    assert_eq!(
        taken(|| file.take_at(&mut c, |_| true, |r| r.join("|")), 4),
        [Some("1|2".into()), Some(String::new()), Some("4".into()), None]
    );
}

/// #31: many users taking rows from one shared reader at once: each row of a pass goes to
/// exactly one of them, and every pass has every row.
#[test]
fn issue31_concurrent_takers_get_each_row_once_per_pass() {
    let text: String = std::iter::once("n\n".to_string()).chain((0..5000).map(|i| format!("{i}\n"))).collect();
    let f = TempFile::new("concurrent.csv", text.as_bytes());
    let file = DataFile::open(&f.0, &opts()).unwrap();
    let reader = std::sync::Mutex::new(file.reader());
    let take = || {
        let mut r = reader.lock().unwrap();
        if let Some(row) = r.next(&file, |_| true) {
            return row[0].clone();
        }
        r.rewind(&file);
        r.next(&file, |_| true).unwrap()[0].clone()
    };
    let seen: Vec<Vec<u64>> = std::thread::scope(|s| {
        let handles: Vec<_> =
            (0..8).map(|_| s.spawn(|| (0..1875).map(|_| take().parse::<u64>().unwrap()).collect::<Vec<_>>())).collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let mut counts = vec![0u32; 5000];
    for v in seen.iter().flatten() {
        counts[*v as usize] += 1;
    }
    assert!(counts.iter().all(|&c| c == 3), "8 × 1,875 takes are 3 passes of 5,000 rows");
    for v in &seen {
        // A taker's rows come in file order within a pass: each wrap is a new pass.
        assert!(v.windows(2).filter(|w| w[1] <= w[0]).count() <= 3, "{v:?}");
    }
}

/// #31: a row is bounded ([`MAX_ROW`]): a file without line breaks, or a quote never closed,
/// is refused at its line rather than held whole.
#[test]
fn issue31_a_row_longer_than_the_bound_is_an_error_at_its_line() {
    let mut text = b"h\nok\n".to_vec();
    text.extend(std::iter::repeat_n(b'x', MAX_ROW + 10));
    let f = TempFile::new("long-row.csv", &text);
    let e = DataFile::open(&f.0, &opts()).unwrap_err();
    assert_eq!(e.line, Some(3), "{e}");
    assert!(e.message.contains("longer than 16 MiB"), "{e}");
    // Past many windows, a bad byte is still reported at its own line.
    let mut text = b"h\n".to_vec();
    for i in 0..100_000 {
        text.extend(format!("{i}\n").bytes());
    }
    text.extend(b"\xff\n");
    let f = TempFile::new("late-bad-byte.csv", &text);
    assert_eq!(DataFile::open(&f.0, &opts()).unwrap_err().line, Some(100_002));
}

/// #31: a row that cannot be read (the file changed while the run reads it) ends a user's
/// cursor for good, until reset: a later take does not parse from wherever the failed read
/// left off, the middle of some row.
#[test]
fn issue31_a_users_cursor_stays_ended_after_a_row_it_could_not_read() {
    let text: String = std::iter::once("h\n".to_string()).chain((0..400).map(|k| format!("r{k:04}\n"))).collect();
    let f = TempFile::new("cursor-changed.csv", text.as_bytes());
    let file = DataFile::open(&f.0, &opts()).unwrap();
    let mut c = Cursor::default();
    assert_eq!(taken(|| file.take_at(&mut c, |_| true, |r| r.join("|")), 1), some(&["r0000"]));
    // The file is rewritten in place with a byte that is not UTF-8 in the third row.
    let mut bytes = text.into_bytes();
    bytes[2 + 6 * 2 + 2] = 0xff;
    std::fs::write(&f.0, &bytes).unwrap();
    assert_eq!(
        taken(|| file.take_at(&mut c, |_| true, |r| r.join("|")), 4),
        [Some("r0001".to_string()), None, None, None]
    );
    c = Cursor::default();
    assert_eq!(taken(|| file.take_at(&mut c, |_| true, |r| r.join("|")), 1), some(&["r0000"]), "reset reads again");
}
