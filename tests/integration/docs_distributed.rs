//! `docs/distributed.md` opens with a user's how-to (issue 33): every `stampede` command in its
//! shell blocks is one the command line accepts, so the page cannot drift from the flags; and
//! it keeps the headings other work fills in.

use clap::Parser;
use stampede::cli::Cli;

fn howto() -> String {
    let doc = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/distributed.md"))
        .expect("docs/distributed.md");
    let end = doc.find("\n# Design record").expect("the design record follows the how-to");
    doc[..end].to_string()
}

/// Words as `sh` splits them, for the quoting the page uses ('...' and "..."), a `#` that
/// starts a word ending the line.
fn words(line: &str) -> Vec<String> {
    let (mut out, mut word, mut quote, mut in_word) = (Vec::new(), String::new(), None, false);
    for c in line.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), c) => word.push(c),
            (None, '\'' | '"') => (quote, in_word) = (Some(c), true),
            (None, '#') if !in_word => break,
            (None, c) if c.is_whitespace() => {
                if in_word {
                    out.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            (None, c) => {
                word.push(c);
                in_word = true;
            }
        }
    }
    if in_word {
        out.push(word);
    }
    out
}

/// The `stampede` commands of the page's `sh` blocks (continuation lines joined; a leading
/// `NAME=value` of the environment left out).
fn commands(text: &str) -> Vec<Vec<String>> {
    let (mut out, mut in_block, mut line) = (Vec::new(), false, String::new());
    for l in text.lines() {
        if l.starts_with("```") {
            in_block = l == "```sh";
            continue;
        }
        if !in_block {
            continue;
        }
        line.push_str(l.trim_end().trim_end_matches('\\'));
        line.push(' ');
        if l.trim_end().ends_with('\\') {
            continue;
        }
        let mut w = words(&std::mem::take(&mut line));
        let env = w.iter().take_while(|w| w.contains('=') && !w.starts_with('-')).count();
        w.drain(..env);
        if w.first().map(String::as_str) == Some("stampede") {
            out.push(w);
        }
    }
    out
}

#[test]
fn every_stampede_command_of_the_distributed_howto_parses() {
    let cmds = commands(&howto());
    // run, agent, report, merge, sweep and jmeter are all shown.
    for sub in ["run", "agent", "report", "merge", "sweep", "jmeter"] {
        assert!(cmds.iter().any(|c| c[1] == sub), "the how-to shows no `stampede {sub}`");
    }
    for c in &cmds {
        if let Err(e) = Cli::try_parse_from(c) {
            panic!("docs/distributed.md: `{}` is refused:\n{e}", c.join(" "));
        }
    }
}

#[test]
fn the_distributed_howto_keeps_its_sections() {
    let h = howto();
    for heading in ["setUp and tearDown", "From a JMeter cluster", "A lost agent", "Sweeps on agents"] {
        assert!(h.lines().any(|l| l.starts_with("###") && l.contains(heading)), "no heading {heading:?}");
    }
}

#[test]
fn words_split_as_sh_does_for_the_quoting_the_page_uses() {
    assert_eq!(
        words(r#"stampede run p.jmx --threshold 'p95 < 300ms' -J "a b"=1  # a comment"#),
        ["stampede", "run", "p.jmx", "--threshold", "p95 < 300ms", "-J", "a b=1"]
    );
}
