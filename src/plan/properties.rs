//! Java properties files (`name=value` lines), as JMeter's `-p`, `-q` and `-G FILE` give them:
//! the properties `${__P()}` reads.

/// Reads a Java properties file: `key=value`, `key: value` or `key value` lines, `#` and `!`
/// comments, a trailing `\` continuing a line, and the usual escapes. Hand-written: JMeter's
/// property files need only this much, and no crate is worth a dependency for it.
pub fn parse(text: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut logical = String::new();
    for line in text.lines() {
        let trimmed = line.trim_start();
        if logical.is_empty() && (trimmed.is_empty() || trimmed.starts_with('#') || trimmed.starts_with('!')) {
            continue;
        }
        let ends_escaped = trimmed.chars().rev().take_while(|c| *c == '\\').count() % 2 == 1;
        if ends_escaped {
            logical.push_str(&trimmed[..trimmed.len() - 1]);
            continue;
        }
        logical.push_str(trimmed);
        let entry = std::mem::take(&mut logical);
        let mut key = String::new();
        let mut chars = entry.chars().peekable();
        while let Some(c) = chars.next() {
            match c {
                '\\' => {
                    if let Some(n) = chars.next() {
                        key.push(unescape(n));
                    }
                }
                '=' | ':' => break,
                c if c.is_whitespace() => {
                    while chars.peek().is_some_and(|c| c.is_whitespace()) {
                        chars.next();
                    }
                    if chars.peek().is_some_and(|c| *c == '=' || *c == ':') {
                        chars.next();
                    }
                    break;
                }
                c => key.push(c),
            }
        }
        while chars.peek().is_some_and(|c| c.is_whitespace()) {
            chars.next();
        }
        let mut value = String::new();
        while let Some(c) = chars.next() {
            if c == '\\' {
                if let Some(n) = chars.next() {
                    value.push(unescape(n));
                }
            } else {
                value.push(c);
            }
        }
        if !key.is_empty() {
            out.push((key, value));
        }
    }
    out
}

fn unescape(c: char) -> char {
    match c {
        't' => '\t',
        'n' => '\n',
        'r' => '\r',
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn java_properties() {
        let p =
            parse("# comment\n! other\nhost=127.0.0.1\nport : 8080\nthreads 50\npath=/a\\\n  /b\nkey\\=x=y\nempty=\n");
        let want: Vec<(String, String)> = [
            ("host", "127.0.0.1"),
            ("port", "8080"),
            ("threads", "50"),
            ("path", "/a/b"),
            ("key=x", "y"),
            ("empty", ""),
        ]
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
        assert_eq!(p, want);
    }
}
