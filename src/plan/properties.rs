//! Java properties files (`name=value` lines), as JMeter's `-p`, `-q` and `-G FILE` give them:
//! the properties `${__P()}` reads.

/// Reads a Java properties file: `key=value`, `key: value` or `key value` lines, `#` and `!`
/// comments, a trailing `\` continuing a line, and the usual escapes. Hand-written: JMeter's
/// property files need only this much, and no crate is worth a dependency for it.
pub(crate) fn parse(text: &str) -> Vec<(String, String)> {
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

/// The properties a plan is read with, as JMeter sets them: each properties file's (`-p`) in
/// order, then those already resolved (set as they are, an empty one kept as ""), then `-J`'s,
/// where `-Jname=` removes the property ("Removing JMeter property": `__P` then reads its
/// default, where one set to "" in a properties file reads "").
pub(crate) fn resolve(
    files: &[std::path::PathBuf],
    resolved: &[(String, String)],
    given: &[(String, String)],
) -> Result<std::collections::HashMap<String, String>, PropertiesError> {
    let mut props = std::collections::HashMap::new();
    for f in files {
        let text = std::fs::read_to_string(f).map_err(|source| PropertiesError { path: f.clone(), source })?;
        props.extend(parse(&text));
    }
    props.extend(resolved.iter().cloned());
    for (name, value) in given {
        match value.is_empty() {
            true => props.remove(name),
            false => props.insert(name.clone(), value.clone()),
        };
    }
    Ok(props)
}

/// A properties file (`-p`, `-q`) that cannot be read.
#[derive(Debug, thiserror::Error)]
#[error("cannot read properties file {}: {source}", path.display())]
pub(crate) struct PropertiesError {
    path: std::path::PathBuf,
    source: std::io::Error,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A properties file that is not there: a typed error naming it (#34).
    #[test]
    fn a_properties_file_that_cannot_be_read_is_named() {
        let missing = std::path::PathBuf::from("/nonexistent/stampede/user.properties");
        let e = resolve(std::slice::from_ref(&missing), &[], &[]).unwrap_err();
        assert_eq!(e.path, missing);
        assert!(
            e.to_string().starts_with("cannot read properties file /nonexistent/stampede/user.properties: "),
            "{e}"
        );
    }

    /// JMeter 5.6.3: `-Jempty=` removes the property (`${__P(empty,def)}` is `def`), a later
    /// `-J` sets it again; `empty=` in a properties file sets it to "" (`__P` reads "").
    #[test]
    fn an_empty_j_value_removes_the_property_as_jmeter() {
        let dir = std::env::temp_dir().join(format!("stampede-props-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("user.properties");
        std::fs::write(&file, "empty=\nkept=\ngone=1\n").unwrap();
        let kv = |k: &str, v: &str| (k.to_string(), v.to_string());
        let given = [kv("gone", ""), kv("again", "1"), kv("again", ""), kv("again", "2"), kv("unset", "")];
        let props = resolve(&[file], &[], &given).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        let want: std::collections::HashMap<_, _> = [kv("empty", ""), kv("kept", ""), kv("again", "2")].into();
        assert_eq!(props, want);
    }

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
