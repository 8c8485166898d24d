//! The embedded resources of a page, as JMeter's "Retrieve All Embedded Resources" finds them
//! (`HTTPSamplerBase.downloadPageResources`): its default HTML parser (`LagartoBasedHtmlParser`)
//! for the `htmlParser.types` of jmeter.properties, its `CssParser` for `text/css`. Only a
//! request with the option on ever reaches this module.

use crate::plan::sampler::http::Embedded;
use url::Url;

/// The URLs to fetch for a successful response of `content_type` with `body`, fetched from
/// `page`: each once (JMeter's `LinkedHashSet`), in the page's order, kept by the filters.
/// `None` when the parser found none at all: JMeter then makes no container sample (with
/// URLs that the filters all drop, it does, holding only the page).
pub(super) fn resources(content_type: &str, body: &[u8], page: &Url, filters: &Embedded) -> Option<Vec<Url>> {
    let media = content_type.split(';').next().unwrap_or("").trim().to_ascii_lowercase();
    // Bug 39205: an empty body is not parsed.
    if body.is_empty() {
        return None;
    }
    let text = String::from_utf8_lossy(body);
    let mut found = Found { base: page.clone(), urls: Vec::new() };
    match media.as_str() {
        "text/html" | "application/xhtml+xml" | "application/xml" | "text/xml" => html(&text, &mut found),
        "text/css" => css(&text, &mut found),
        _ => return None,
    }
    if found.urls.is_empty() {
        return None;
    }
    // The filters see the whole URL, and must match it whole (Perl5Matcher.matches).
    let kept = found
        .urls
        .into_iter()
        .filter(|u| filters.allow.as_ref().is_none_or(|r| r.is_match(u.as_str())))
        .filter(|u| !filters.exclude.as_ref().is_some_and(|r| r.is_match(u.as_str())))
        .collect();
    Some(kept)
}

struct Found {
    /// The page's URL, or the `<base href>` seen so far.
    base: Url,
    urls: Vec<Url>,
}

impl Found {
    /// URLCollection.addURL: resolved against the base, once; one that does not resolve is
    /// left out, as JMeter drops a MalformedURLException.
    fn add(&mut self, raw: &str) {
        let raw = raw.trim();
        if raw.is_empty() {
            return;
        }
        if let Ok(u) = self.base.join(raw) {
            if matches!(u.scheme(), "http" | "https") && !self.urls.contains(&u) {
                self.urls.push(u);
            }
        }
    }
}

/// The tags and attributes JMeter's Lagarto visitor collects, in document order.
fn html(text: &str, found: &mut Found) {
    let doc = scraper::Html::parse_document(text);
    for node in doc.tree.root().descendants() {
        let Some(el) = node.value().as_element() else { continue };
        let attr = |n: &str| el.attr(n);
        match el.name() {
            "body" => attr("background").into_iter().for_each(|v| found.add(v)),
            "base" => {
                if let Some(b) = attr("href").filter(|h| !h.is_empty()).and_then(|h| found.base.join(h).ok()) {
                    found.base = b;
                }
            }
            "img" | "script" | "frame" | "iframe" | "embed" | "bgsound" => {
                attr("src").into_iter().for_each(|v| found.add(v))
            }
            "applet" => match attr("codebase").filter(|c| !c.trim().is_empty()) {
                Some(cb) => found.add(&format!(
                    "{cb}/{}",
                    attr("archive").filter(|a| !a.trim().is_empty()).or(attr("code")).unwrap_or("null")
                )),
                None => attr("code").into_iter().for_each(|v| found.add(v)),
            },
            "object" => {
                attr("codebase").into_iter().for_each(|v| found.add(v));
                attr("data").into_iter().for_each(|v| found.add(v));
            }
            "input" => {
                if attr("type").is_some_and(|t| t.eq_ignore_ascii_case("image")) {
                    attr("src").into_iter().for_each(|v| found.add(v));
                }
            }
            "link" => {
                let rel = attr("rel").unwrap_or("");
                if ["stylesheet", "icon", "shortcut icon"].iter().any(|r| rel.eq_ignore_ascii_case(r)) {
                    attr("href").into_iter().for_each(|v| found.add(v));
                }
            }
            _ => attr("background").into_iter().for_each(|v| found.add(v)),
        }
        if let Some(style) = attr("style").filter(|s| !s.is_empty()) {
            style_urls(style, found);
        }
    }
}

/// HtmlParsingUtils.extractStyleURLs: `URL\(\s*('|")(.*)('|")\s*\)`, case-insensitive, the
/// `.*` greedy: only a quoted URL, and two in one attribute make one (as JMeter reads them).
fn style_urls(style: &str, found: &mut Found) {
    let mut rest = style;
    while let Some(at) = find_ci(rest, "url(") {
        let after = &rest[at + 4..];
        let t = after.trim_start();
        let body = match t.chars().next() {
            Some('"' | '\'') => &t[1..],
            _ => {
                rest = after;
                continue;
            }
        };
        // The last quote followed by optional spaces and `)`.
        let close = (0..body.len())
            .rev()
            .filter(|&i| body.is_char_boundary(i))
            .find(|&i| body[i..].starts_with(['"', '\'']) && body[i + 1..].trim_start().starts_with(')'));
        let Some(close) = close else {
            rest = after;
            continue;
        };
        found.add(&body[..close]);
        rest = &body[close + 1..];
    }
}

/// CssParser: `@import` and `url(...)` of a style sheet.
fn css(text: &str, found: &mut Found) {
    let mut rest = text;
    while let Some(at) = find_ci(rest, "@import") {
        rest = &rest[at + "@import".len()..];
        let t = rest.trim_start();
        if let Some(q @ ('"' | '\'')) = t.chars().next() {
            if let Some(end) = t[1..].find(q) {
                found.add(&t[1..1 + end]);
            }
        }
    }
    css_urls(text, found);
}

fn css_urls(text: &str, found: &mut Found) {
    let mut rest = text;
    while let Some(at) = find_ci(rest, "url(") {
        rest = &rest[at + 4..];
        let Some(end) = rest.find(')') else { break };
        let v = rest[..end].trim();
        let v = v.strip_prefix(['"', '\'']).unwrap_or(v);
        let v = v.strip_suffix(['"', '\'']).unwrap_or(v);
        if !v.starts_with("data:") {
            found.add(v);
        }
        rest = &rest[end..];
    }
}

fn find_ci(hay: &str, needle: &str) -> Option<usize> {
    hay.as_bytes().windows(needle.len()).position(|w| w.eq_ignore_ascii_case(needle.as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn urls(ct: &str, body: &str, filters: &Embedded) -> Vec<String> {
        let page = Url::parse("http://h/dir/page.html").unwrap();
        resources(ct, body.as_bytes(), &page, filters).unwrap_or_default().into_iter().map(|u| u.to_string()).collect()
    }

    fn none() -> Embedded {
        Embedded { allow: None, exclude: None }
    }

    #[test]
    fn a_page_yields_the_resources_jmeters_html_parser_collects_once_each_in_order() {
        let page = r#"<html><head><link rel="stylesheet" href="s.css"><link rel="next" href="no.html">
            <script src="/a.js"></script><link rel="shortcut icon" href="/f.ico"></head>
            <body background="bg.png"><img src="i.png"><img src=" i.png "><a href="no2.html">x</a>
            <input type="image" src="btn.png"><input type="text" src="no3.png">
            <iframe src="fr.html"></iframe><embed src="e.swf"><object data="o.bin"></object>
            <table background="t.png"><tr><td style="background: url('st.png')">x</td></tr></table>
            <div style="background: url(unquoted.png)">x</div>
            </body></html>"#;
        let got = urls("text/html; charset=utf-8", page, &none());
        let want = [
            "http://h/dir/s.css",
            "http://h/a.js",
            "http://h/f.ico",
            "http://h/dir/bg.png",
            "http://h/dir/i.png",
            "http://h/dir/btn.png",
            "http://h/dir/fr.html",
            "http://h/dir/e.swf",
            "http://h/dir/o.bin",
            "http://h/dir/t.png",
            "http://h/dir/st.png",
        ];
        assert_eq!(got, want);
    }

    #[test]
    fn base_href_moves_the_base_and_the_filters_match_the_whole_url() {
        let page = r#"<base href="http://o/x/"><img src="a.png"><img src="b.gif"><img src="c.png">"#;
        let f = Embedded {
            allow: Some(regex::Regex::new("^(?:http://o/.*)$").unwrap()),
            exclude: Some(regex::Regex::new("^(?:.*b\\.gif)$").unwrap()),
        };
        assert_eq!(urls("text/html", page, &f), ["http://o/x/a.png", "http://o/x/c.png"]);
        // A partial match is no match.
        let f = Embedded { allow: Some(regex::Regex::new("^(?:png)$").unwrap()), exclude: None };
        assert!(urls("text/html", page, &f).is_empty());
    }

    #[test]
    fn a_page_naming_no_resource_makes_no_container_but_one_whose_urls_are_all_filtered_does() {
        let page = Url::parse("http://h/").unwrap();
        assert_eq!(resources("text/html", b"<p>no resources</p>", &page, &none()), None);
        let f = Embedded { allow: None, exclude: Some(regex::Regex::new("^(?:.*)$").unwrap()) };
        assert_eq!(resources("text/html", br#"<img src="a.png">"#, &page, &f), Some(vec![]));
    }

    #[test]
    fn only_html_and_css_responses_are_parsed() {
        assert!(urls("application/json", r#"<img src="a.png">"#, &none()).is_empty());
        assert!(urls("", r#"<img src="a.png">"#, &none()).is_empty());
        let sheet = "@import 'b.css'; body { background: url(\"/i.png\") } .x { src: url(data:abc) }";
        assert_eq!(urls("text/css", sheet, &none()), ["http://h/dir/b.css", "http://h/i.png"]);
    }
}
