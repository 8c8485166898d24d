//! What a script pre-processor changed on an HTTP request, applied to it: its method, headers,
//! arguments and files, as JMeter's HttpClient sampler sends them.

/// Whether a method sends a sampler's arguments in its body (HTTPHC4Impl: POST, and PUT and
/// PATCH, the methods with an entity), not in the query string.
pub(super) fn args_in_body(method: &str) -> bool {
    matches!(method, "POST" | "PUT" | "PATCH")
}

/// What else a pre-processor changed, on the rendered request `out`: its method
/// (`setMethod`), the headers it removed (`removeHeaderNamed`), and the arguments it added to
/// a method that sends them in its body: form fields (`application/x-www-form-urlencoded`), or
/// the raw body when they have no name (`addNonEncodedArgument("", body, "")`), as JMeter's
/// `getSendParameterValuesAsPostBody`.
pub(super) fn edit_sent(e: &crate::engine::scripting::SamplerEdits, plan_method: &str, out: &mut Vec<u8>) {
    let method = e.method.as_deref().unwrap_or(plan_method);
    let body_args = args_in_body(method) && !e.args.is_empty();
    let body_set = e.args_set.as_ref().filter(|_| args_in_body(method));
    if e.method.is_none() && e.removed_headers.is_empty() && !body_args && body_set.is_none() && e.files.is_none() {
        return;
    }
    let Some(head_end) = memchr::memmem::find(out, b"\r\n\r\n") else { return };
    let head = String::from_utf8_lossy(&out[..head_end]).into_owned();
    let mut body = out[head_end + 4..].to_vec();
    if let Some(set) = body_set {
        // An HTML Link Parser's arguments in place of the sampler's form: one written already
        // encoded is decoded and encoded again, as JMeter sends a form.
        let mut form = String::new();
        for (n, v, encoded) in set {
            if !form.is_empty() {
                form.push('&');
            }
            let decoded = |t: &str| if *encoded { crate::engine::request::url_decode(t) } else { t.to_string() };
            push_arg(&mut form, &decoded(n), &decoded(v.as_deref().unwrap_or("")), false);
        }
        body = form.into_bytes();
    }
    let mut lines = head.split("\r\n");
    let first = lines.next().unwrap_or_default();
    let rest = first.split_once(' ').map_or("", |(_, r)| r);
    let mut text = format!("{method} {rest}\r\n");
    let mut has_type = false;
    let mut sent_type = String::new();
    for line in lines {
        let name = line.split_once(':').map_or(line, |(n, _)| n).trim();
        if name.eq_ignore_ascii_case("content-type") {
            sent_type = line.split_once(':').map_or("", |(_, v)| v).trim().to_ascii_lowercase();
        }
        if name.eq_ignore_ascii_case("content-length") || e.removed_headers.iter().any(|r| r.eq_ignore_ascii_case(name))
        {
            continue;
        }
        if e.files.as_ref().is_some_and(|f| !f.is_empty()) && name.eq_ignore_ascii_case("content-type") {
            continue;
        }
        has_type |= name.eq_ignore_ascii_case("content-type");
        text.push_str(line);
        text.push_str("\r\n");
    }
    if body_args {
        if e.args.iter().all(|(n, _, _)| n.is_empty()) {
            for (_, v, _) in &e.args {
                body.extend_from_slice(v.as_bytes());
            }
        } else {
            let mut form = String::new();
            for (n, v, encoded) in &e.args {
                if !body.is_empty() || !form.is_empty() {
                    form.push('&');
                }
                push_arg(&mut form, n, v, *encoded);
            }
            body.extend_from_slice(form.as_bytes());
            if !has_type {
                text.push_str("Content-Type: application/x-www-form-urlencoded\r\n");
            }
        }
    }
    if let Some(files) = &e.files {
        let (content_type, new_body) = with_uploads(method, &sent_type, body, files);
        if let Some(t) = content_type {
            text.push_str("Content-Type: ");
            text.push_str(&t);
            text.push_str("\r\n");
        }
        body = new_body;
    }
    if !body.is_empty() || args_in_body(method) {
        text.push_str(&format!("Content-Length: {}\r\n", body.len()));
    }
    text.push_str("\r\n");
    out.clear();
    out.extend_from_slice(text.as_bytes());
    out.extend_from_slice(&body);
}

/// The body and its type once a script's `setHTTPFiles` replaced the sampler's files, as
/// JMeter's HttpClient sampler sends them: a POST with a named file is multipart (the form's
/// fields as text parts, then the files; RFC 6532 headers, JMeter's default); a lone file
/// without a parameter name and no fields is the body itself, as for any method with a body.
/// `None` keeps no type (the sampler's was dropped with the files it described).
pub(super) fn with_uploads(
    method: &str,
    sent_type: &str,
    body: Vec<u8>,
    files: &[crate::engine::scripting::Upload],
) -> (Option<String>, Vec<u8>) {
    use crate::plan::sampler::http::MULTIPART_BOUNDARY as B;
    let form = sent_type.starts_with("application/x-www-form-urlencoded");
    let multipart = sent_type.starts_with("multipart/");
    let fields: Vec<(String, String)> = if form {
        url::form_urlencoded::parse(&body).map(|(n, v)| (n.into_owned(), v.into_owned())).collect()
    } else {
        Vec::new()
    };
    let mime = |f: &crate::engine::scripting::Upload| {
        if f.mime.is_empty() {
            "application/octet-stream".to_string()
        } else {
            f.mime.clone()
        }
    };
    match files {
        [] => (None, body),
        [f] if f.param.is_empty() && fields.is_empty() && !multipart => (Some(mime(f)), f.bytes.clone()),
        _ if method.eq_ignore_ascii_case("POST") => {
            let mut out = Vec::new();
            if multipart {
                // The sampler's own text parts stay; its file parts are those the script replaced.
                let delim = format!("--{B}\r\n");
                for part in split_parts(&body, delim.as_bytes()) {
                    if memchr::memmem::find(part, b"filename=\"").is_none() {
                        out.extend_from_slice(delim.as_bytes());
                        out.extend_from_slice(part);
                    }
                }
            }
            for (n, v) in &fields {
                out.extend_from_slice(format!("--{B}\r\nContent-Disposition: form-data; name=\"{}\"\r\nContent-Type: text/plain; charset=UTF-8\r\nContent-Transfer-Encoding: 8bit\r\n\r\n{v}\r\n", n.replace('"', "%22")).as_bytes());
            }
            for f in files {
                out.extend_from_slice(
                    format!(
                        "--{B}\r\nContent-Disposition: form-data; name=\"{}\"; filename=\"{}\"\r\nContent-Type: {}\r\nContent-Transfer-Encoding: binary\r\n\r\n",
                        f.param.replace('"', "%22"),
                        f.file_name.replace('"', "%22"),
                        mime(f)
                    )
                    .as_bytes(),
                );
                out.extend_from_slice(&f.bytes);
                out.extend_from_slice(b"\r\n");
            }
            out.extend_from_slice(format!("--{B}--\r\n").as_bytes());
            (Some(format!("multipart/form-data; boundary={B}; charset=UTF-8")), out)
        }
        // A GET sends no other file; the other methods with a body send the first file.
        [f, ..] if !matches!(method, "GET" | "HEAD" | "OPTIONS" | "TRACE") => (Some(mime(f)), f.bytes.clone()),
        _ => (None, body),
    }
}

/// The parts of a multipart body between its `delim` lines, each ending with its `\r\n`.
pub(super) fn split_parts<'a>(body: &'a [u8], delim: &[u8]) -> Vec<&'a [u8]> {
    let mut out = Vec::new();
    let mut rest = body;
    while let Some(i) = memchr::memmem::find(rest, delim) {
        rest = &rest[i + delim.len()..];
        let end = memchr::memmem::find(rest, delim)
            .or_else(|| memchr::memmem::find(rest, b"\r\n--").map(|j| j + 2))
            .unwrap_or(rest.len());
        out.push(&rest[..end]);
        rest = &rest[end..];
    }
    out
}

/// `name=value`, form-encoded unless `encoded` (added as they are).
pub(super) fn push_arg(out: &mut String, name: &str, value: &str, encoded: bool) {
    if encoded {
        out.push_str(name);
        out.push('=');
        out.push_str(value);
    } else {
        out.extend(url::form_urlencoded::byte_serialize(name.as_bytes()));
        out.push('=');
        out.extend(url::form_urlencoded::byte_serialize(value.as_bytes()));
    }
}

/// A pre-processor's new path and added arguments (sent in the query string, but for a
/// method that sends them in its body).
pub(super) fn apply_edits(e: &crate::engine::scripting::SamplerEdits, plan_method: &str, path: &mut String) {
    if let Some(p) = &e.path {
        let query = path.find('?').map(|i| path[i..].to_string());
        path.clear();
        if !p.starts_with('/') {
            path.push('/');
        }
        path.push_str(p);
        if let (Some(q), false) = (query, p.contains('?')) {
            path.push_str(&q);
        }
    }
    let in_body = args_in_body(e.method.as_deref().unwrap_or(plan_method));
    if let Some(set) = &e.args_set {
        // The sampler's own arguments, and any query its path held, are replaced.
        if let Some(q) = path.find('?') {
            path.truncate(q);
        }
        if !in_body {
            for (n, v, encoded) in set {
                path.push(if path.contains('?') { '&' } else { '?' });
                match v {
                    Some(v) => push_arg(path, n, v, *encoded),
                    // `getQueryString` writes the metadata: no `=` for a link's `?flag`.
                    None => path.push_str(n),
                }
            }
        }
    }
    if in_body {
        return;
    }
    for (n, v, encoded) in &e.args {
        path.push(if path.contains('?') { '&' } else { '?' });
        push_arg(path, n, v, *encoded);
    }
}

#[cfg(test)]
mod upload_tests {
    use super::with_uploads;
    use crate::engine::scripting::Upload;

    fn up(param: &str) -> Upload {
        Upload { param: param.into(), file_name: "f.bin".into(), mime: String::new(), bytes: b"DATA".to_vec() }
    }

    #[test]
    fn uploads_a_script_chose_are_sent_as_jmeters_http_client_sends_them() {
        // A lone file without a parameter name and no form fields is the body, for any method.
        for method in ["POST", "PUT", "GET"] {
            let (t, b) = with_uploads(method, "", Vec::new(), &[up("")]);
            assert_eq!((t.as_deref(), b.as_slice()), (Some("application/octet-stream"), &b"DATA"[..]), "{method}");
        }
        // A GET sends no named file; a PUT sends the first file as its body.
        assert_eq!(with_uploads("GET", "", Vec::new(), &[up("f")]), (None, Vec::new()));
        assert_eq!(with_uploads("PUT", "", Vec::new(), &[up("f")]).1, b"DATA");
        // A POST's form fields become text parts before the files.
        let (t, b) =
            with_uploads("POST", "application/x-www-form-urlencoded; charset=utf-8", b"a=1+2".to_vec(), &[up("f")]);
        assert!(t.unwrap().starts_with("multipart/form-data; boundary="));
        let b = String::from_utf8(b).unwrap();
        let a = b.find("name=\"a\"").unwrap();
        let f = b.find("name=\"f\"; filename=\"f.bin\"").unwrap();
        assert!(a < f && b.contains("\r\n\r\n1 2\r\n") && b.contains("\r\n\r\nDATA\r\n"), "{b}");
        // The sampler's own multipart body keeps its text parts and loses its files.
        let d = crate::plan::sampler::http::MULTIPART_BOUNDARY;
        let own = format!(
            "--{d}\r\nContent-Disposition: form-data; name=\"t\"\r\n\r\nkeep\r\n--{d}\r\nContent-Disposition: form-data; name=\"x\"; filename=\"old\"\r\n\r\nOLD\r\n--{d}--\r\n"
        );
        let (_, b) = with_uploads("POST", "multipart/form-data; boundary=x", own.into_bytes(), &[up("f")]);
        let b = String::from_utf8(b).unwrap();
        assert!(
            b.starts_with(&format!("--{d}\r\nContent-Disposition: form-data; name=\"t\"\r\n\r\nkeep\r\n--{d}\r\n")),
            "{b}"
        );
        assert!(!b.contains("OLD") && b.contains("filename=\"f.bin\"") && b.ends_with(&format!("--{d}--\r\n")), "{b}");
    }
}
