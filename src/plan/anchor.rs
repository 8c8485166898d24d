//! JMeter's HTML Link Parser (`AnchorModifier`): before each HTTP sampler in its scope, the
//! links, forms and frames of the previous sample's HTML page that match the sampler (its
//! protocol, domain, path and argument names read as Perl5 regular expressions,
//! `HtmlParsingUtils.isAnchorMatched`) are the candidates; one drawn at random gives the
//! sampler its domain, path and protocol, and its arguments (a link's replace them; a form's
//! replace, one by one, the sampler's arguments whose name and value match them,
//! `isArgumentMatched`). The port stays the sampler's, as in JMeter.
//!
//! The jmeter-plugins Spider PreProcessor (`kg.apc.jmeter.modifiers.AnchorModifier`, a copy of
//! JMeter's with a memory, [`Spider`]) reads the same candidates with its own rule: every link
//! (whether it matches the sampler or not), the forms and frames that match it; of those on the
//! domain of the first one it ever kept, each new one is kept once, and the last one kept not yet
//! followed is sent (depth first). With none left the sampler goes as it is and the test stops.

use super::jregex::Pattern;
use super::template::Template;
use serde::Serialize;

/// A HTML Link Parser in scope of the sampler that follows it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct Anchor {
    pub name: String,
    /// A Spider PreProcessor: the index of its memory among the user's spiders (each user has
    /// its own, as each JMeter thread its own copy of the element).
    pub spider: Option<u32>,
    /// The HTTP sampler it runs before (none: not an HTTP sampler, it does nothing).
    #[serde(skip)]
    pub sampler: Option<AnchorSampler>,
}

/// What the modifier reads of its sampler: the patterns a candidate must match, compiled once
/// when the plan loads (the path too when it is constant), not once per link of every page.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct AnchorSampler {
    /// `http` when the sampler names none (`HTTPSamplerBase.getProtocol`).
    pub protocol: Compiled,
    /// Empty: any domain.
    pub domain: Compiled,
    pub path: Template,
    /// The path's pattern when the path is constant.
    fixed_path: Option<Compiled>,
    pub args: Vec<AnchorArg>,
}

/// One of the sampler's arguments (query or form).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct AnchorArg {
    /// Whole-text pattern: a form argument's name must equal or match it (`isArgumentMatched`).
    pub name: Compiled,
    /// `name=`, looked for in a candidate's decoded query, else the name as a pattern found
    /// anywhere in it (`isAnchorMatched`).
    key: String,
    found: Option<Pattern>,
    pub value: Template,
    /// Sent as it is (not encoded).
    pub encoded: bool,
}

/// A pattern's text and, when it compiles, its compiled form: `isEqualOrMatches` (equal, or the
/// pattern matches the whole text). A pattern that does not compile matches its own text; any
/// other text makes JMeter's matcher throw ([`Thrown`]).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Compiled {
    text: String,
    whole: Option<Pattern>,
}

impl Compiled {
    pub(crate) fn whole(text: &str) -> Compiled {
        Compiled { text: text.to_string(), whole: compile(&format!("^(?:{text})$")) }
    }

    /// The sampler's path: a candidate's equals it or matches `[/]*` + it.
    fn path(text: &str) -> Compiled {
        Compiled { text: text.to_string(), whole: compile(&format!("^(?:[/]*{text})$")) }
    }

    pub(crate) fn text(&self) -> &str {
        &self.text
    }

    pub(crate) fn equal_or_matches(&self, text: &str) -> bool {
        text == self.text || self.whole.as_ref().is_some_and(|p| p.is_match(text))
    }

    /// [`Compiled::equal_or_matches`] as `isAnchorMatched` asks it: a pattern that does not
    /// compile throws unless the text equals it (the comparison comes first).
    fn test(&self, text: &str) -> Result<bool, Thrown> {
        match &self.whole {
            _ if text == self.text => Ok(true),
            Some(p) => Ok(p.is_match(text)),
            None => Err(Thrown),
        }
    }
}

/// A pattern of the sampler that does not compile, reached while matching a candidate:
/// JMeter's `isAnchorMatched` throws, and its thread logs "Error while processing sampler"
/// and skips the sampler this time (no sample; the pre-processors after it and its timers do
/// not run either).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Thrown;

#[cfg(test)]
thread_local! {
    static COMPILES: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

fn compile(src: &str) -> Option<Pattern> {
    #[cfg(test)]
    COMPILES.with(|c| c.set(c.get() + 1));
    Pattern::perl5(src).ok()
}

impl AnchorSampler {
    /// `args`: name, value, and whether it is sent as it is.
    pub(crate) fn new(
        protocol: &str,
        domain: &str,
        path: Template,
        args: Vec<(String, Template, bool)>,
    ) -> AnchorSampler {
        AnchorSampler {
            protocol: Compiled::whole(protocol),
            domain: Compiled::whole(domain),
            fixed_path: path.as_const().map(Compiled::path),
            path,
            args: args
                .into_iter()
                .map(|(n, value, encoded)| AnchorArg {
                    key: format!("{n}="),
                    found: compile(&n),
                    name: Compiled::whole(&n),
                    value,
                    encoded,
                })
                .collect(),
        }
    }

    /// The path's pattern for this rendering of it: the one compiled at load when it is the
    /// same text, else compiled now (once for the whole page).
    pub(crate) fn path_pattern(&self, path: &str) -> std::borrow::Cow<'_, Compiled> {
        match &self.fixed_path {
            Some(c) if c.text == path => std::borrow::Cow::Borrowed(c),
            _ => std::borrow::Cow::Owned(Compiled::path(path)),
        }
    }

    /// `HtmlParsingUtils.isAnchorMatched`: the candidate's protocol and (when the sampler names
    /// one) domain match the sampler's, its path equals the sampler's or matches `[/]*` + it, and
    /// its decoded query holds `name=` or a match of each of the sampler's argument names.
    /// Its tests in JMeter's order, each reached only when those before it held: a pattern that
    /// does not compile throws only when reached.
    pub(crate) fn matches(&self, c: &Candidate, path: &Compiled) -> Result<bool, Thrown> {
        if !self.protocol.test(&c.protocol)? {
            return Ok(false);
        }
        if !self.domain.text.is_empty() && !self.domain.test(&c.domain)? {
            return Ok(false);
        }
        if !path.test(&c.path)? {
            return Ok(false);
        }
        if self.args.is_empty() {
            return Ok(true);
        }
        let query = c.decoded_query();
        for a in &self.args {
            let found = query.contains(&a.key)
                || match &a.found {
                    Some(p) => p.is_match(&query),
                    None => return Err(Thrown),
                };
            if !found {
                return Ok(false);
            }
        }
        Ok(true)
    }
}

/// A link, form or frame of the page, as the URL JMeter makes of it.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct Candidate {
    /// A form: its arguments change the sampler's one by one; a link's replace them.
    pub form: bool,
    /// A `<frame src>` (sent as a link is; the spider keeps only those matching the sampler).
    pub frame: bool,
    pub protocol: String,
    pub domain: String,
    /// As the link writes it (the spider tells links apart by it; never sent).
    pub port: Option<u16>,
    pub path: String,
    /// A link's arguments as written in its query (sent as they are; no value: written without
    /// `=`, and sent so); a form's decoded.
    pub args: Vec<(String, Option<String>)>,
}

impl Candidate {
    /// `URLDecoder.decode(getQueryString())`: what the sampler's argument names are looked for in.
    fn decoded_query(&self) -> String {
        let arg = |(n, v): &(String, Option<String>)| v.as_ref().map_or_else(|| n.clone(), |v| format!("{n}={v}"));
        let q = self.args.iter().map(arg).collect::<Vec<_>>().join("&");
        if self.form {
            return q;
        }
        url_decode(&q)
    }
}

/// `URLDecoder.decode`: `+` is a space, `%XX` a byte; a malformed escape keeps the text as it is
/// (Java throws; JMeter's caller then has no query to match, close enough to none matching).
fn url_decode(s: &str) -> String {
    let bytes = s.replace('+', " ");
    percent_encoding::percent_decode_str(&bytes).decode_utf8_lossy().into_owned()
}

/// The candidates of a page, in JMeter's order: `<a href>` (not `javascript:`), forms with an
/// `action` and the inputs, text areas and options that follow them, `<frame src>`; relative
/// URLs resolved against the first `<base href>` (itself against `page`).
pub(crate) fn candidates(html: &str, page: &url::Url) -> Vec<Candidate> {
    // AnchorModifier parses from the first `<`.
    let html = html.find('<').map_or(html, |i| &html[i..]);
    let doc = scraper::Html::parse_document(html);
    let base_href = doc
        .root_element()
        .descendants()
        .filter_map(scraper::ElementRef::wrap)
        .find(|e| e.value().name().eq_ignore_ascii_case("base"))
        .map(|e| e.value().attr("href").unwrap_or("").to_string());
    let base = match base_href {
        Some(h) => match page.join(&h) {
            Ok(b) => b,
            Err(_) => return Vec::new(),
        },
        None => page.clone(),
    };
    let elements: Vec<scraper::ElementRef<'_>> =
        doc.root_element().descendants().filter_map(scraper::ElementRef::wrap).collect();
    let mut out = Vec::new();
    for e in &elements {
        if e.value().name() == "a" {
            if let Some(href) = e.value().attr("href").filter(|h| !h.starts_with("javascript:")) {
                out.extend(link(href, &base, false));
            }
        }
    }
    out.extend(forms(&elements, page));
    for e in &elements {
        if e.value().name() == "frame" {
            if let Some(src) = e.value().attr("src") {
                out.extend(link(src, &base, false).map(|c| Candidate { frame: true, ..c }));
            }
        }
    }
    out
}

/// `createUrlFromAnchor`: the URL's host, protocol, path, and its query parsed as
/// `parseArguments` does (split on `&`, a part without a name left out).
fn link(href: &str, base: &url::Url, form: bool) -> Option<Candidate> {
    let u = base.join(href).ok()?;
    let args = u
        .query()
        .unwrap_or("")
        .split('&')
        .filter_map(|a| {
            let (n, v) = a.split_once('=').map_or((a, None), |(n, v)| (n, Some(v.to_string())));
            (!n.is_empty()).then(|| (n.to_string(), v))
        })
        .collect();
    Some(Candidate {
        form,
        frame: false,
        protocol: u.scheme().to_string(),
        domain: u.host_str().unwrap_or("").to_string(),
        port: u.port(),
        path: u.path().to_string(),
        args,
    })
}

/// `HtmlParsingUtils.createURLFromForm`: each `<form action>` opens a candidate, and every
/// input, text area and option after it in document order (after its end too, as JMeter's
/// walk stays "in a form") adds an argument to the last one opened; a form with no action ends
/// that. Values are decoded as `addEncodedArgument` decodes them. Relative actions resolve
/// against the page (not `<base>`).
fn forms(elements: &[scraper::ElementRef<'_>], page: &url::Url) -> Vec<Candidate> {
    let mut out: Vec<Candidate> = Vec::new();
    let mut in_form = false;
    for e in elements {
        let el = e.value();
        let name = el.name();
        if name == "form" {
            let opened = el.attr("action").and_then(|a| link(a, page, true));
            in_form = opened.is_some();
            out.extend(opened);
            continue;
        }
        if !in_form {
            continue;
        }
        let attr = |a: &str| el.attr(a).unwrap_or("").to_string();
        let text = || e.text().next().unwrap_or("").to_string();
        let arg = match name {
            "input" => Some((attr("name"), attr("value"))),
            "textarea" => Some((attr("name"), text())),
            // The option's `select` is its nearest one above it.
            "option" => {
                let select = e
                    .ancestors()
                    .filter_map(scraper::ElementRef::wrap)
                    .find(|a| a.value().name() == "select")
                    .and_then(|s| s.value().attr("name"))
                    .unwrap_or("")
                    .to_string();
                Some((select, el.attr("value").map_or_else(text, str::to_string)))
            }
            _ => None,
        };
        if let (Some((n, v)), Some(last)) = (arg, out.last_mut()) {
            last.args.push((url_decode(&n), Some(url_decode(&v))));
        }
    }
    out
}

/// What a Spider PreProcessor remembers for one user: `AnchorModifier`'s `baseDomain`, `URLs`
/// (every candidate kept, followed or not) and `marks` (those not followed yet).
#[derive(Debug, Clone, Default)]
pub(crate) struct Spider {
    base: Option<String>,
    seen: std::collections::HashSet<Candidate>,
    unvisited: Vec<Candidate>,
}

impl Spider {
    /// `addAnchorUrls`, `addFormUrls`, `addFramesetUrls`: keeps a page's candidates, every link
    /// and the forms and frames that `matches` (JMeter's `isAnchorMatched`; a form is sent as a
    /// POST, which tells it apart from a link to the same URL).
    pub(crate) fn offer(
        &mut self,
        page: Vec<Candidate>,
        mut matches: impl FnMut(&Candidate) -> Result<bool, Thrown>,
    ) -> Result<(), Thrown> {
        for c in page {
            if (c.form || c.frame) && !matches(&c)? {
                continue;
            }
            self.keep(Candidate { frame: false, ..c });
        }
        Ok(())
    }

    /// `addURL`: the first candidate kept sets the domain; one elsewhere, or one seen before,
    /// is left out.
    fn keep(&mut self, c: Candidate) {
        let base = self.base.get_or_insert_with(|| c.domain.clone());
        if c.domain != *base || self.seen.contains(&c) {
            return;
        }
        self.seen.insert(c.clone());
        self.unvisited.push(c);
    }

    /// `getNextLink`: the last candidate kept and not followed yet, now followed; none: the
    /// spider has nothing left (JMeter then asks every thread to stop).
    pub(crate) fn follow(&mut self) -> Option<Candidate> {
        self.unvisited.pop()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page() -> url::Url {
        url::Url::parse("http://127.0.0.1:8080/dir/start.html").unwrap()
    }

    #[test]
    fn links_forms_and_frames_are_candidates_in_jmeters_order() {
        let html = r#"junk <html><body>
            <a href="next.html?a=1&b=x%20y&bare&&=v">n</a><a href="javascript:go()">j</a><a name="x">no href</a>
            <a href="http://other.example/p">o</a>
            <form action="/post"><input name="user" value="a+b"><textarea name="t">hi</textarea>
              <select name="s"><option value="1">one</option><option>two</option></select></form>
            <input name="after" value="z">
            <form><input name="lost"></form>
            <frameset><frame src="f.html"></frameset></body></html>"#;
        let c = candidates(html, &page());
        let got: Vec<(bool, &str, &str)> = c.iter().map(|c| (c.form, c.domain.as_str(), c.path.as_str())).collect();
        assert_eq!(
            got,
            [(false, "127.0.0.1", "/dir/next.html"), (false, "other.example", "/p"), (true, "127.0.0.1", "/post")]
        );
        let link: Vec<(&str, Option<&str>)> = c[0].args.iter().map(|(n, v)| (n.as_str(), v.as_deref())).collect();
        // A part without a name is left out (`parseArguments`); one without `=` has no value.
        assert_eq!(link, [("a", Some("1")), ("b", Some("x%20y")), ("bare", None)]);
        let form: Vec<(&str, &str)> = c[2].args.iter().map(|(n, v)| (n.as_str(), v.as_deref().unwrap())).collect();
        // An input after the form's end still joins it (JMeter's walk stays in the form);
        // a form without an action ends that.
        assert_eq!(form, [("user", "a b"), ("t", "hi"), ("s", "1"), ("s", "two"), ("after", "z")]);
    }

    #[test]
    fn frames_are_candidates_after_links() {
        let html = r#"<html><frameset><frame src="top.html?a=1"><frame name="no-src"></frameset></html>"#;
        let c = candidates(html, &page());
        assert_eq!(c.len(), 1);
        assert_eq!((c[0].form, c[0].path.as_str()), (false, "/dir/top.html"));
    }

    #[test]
    fn a_base_href_resolves_links_but_not_form_actions() {
        let html =
            r#"<html><head><base href="/b/"></head><body><a href="x">x</a><form action="y"></form></body></html>"#;
        let c = candidates(html, &page());
        assert_eq!(c[0].path, "/b/x");
        assert_eq!(c[1].path, "/dir/y");
    }

    /// `isAnchorMatched` through the sampler's compiled patterns.
    fn matches(c: &Candidate, protocol: &str, domain: &str, path: &str, names: &[&str]) -> bool {
        let args = names.iter().map(|n| (n.to_string(), Template::literal(""), false)).collect();
        let s = AnchorSampler::new(protocol, domain, Template::literal(path), args);
        s.matches(c, &s.path_pattern(path)).expect("every pattern compiles")
    }

    fn compiles() -> usize {
        COMPILES.with(|c| c.get())
    }

    #[test]
    fn a_page_of_500_links_compiles_each_pattern_of_the_sampler_once() {
        let links: String = (0..500).map(|i| format!(r#"<a href="/p{i}.html?id={i}&x=1">l</a>"#)).collect();
        let html = format!("<html><body>{links}</body></html>");
        let cands = candidates(&html, &page());
        assert_eq!(cands.len(), 500);
        let before = compiles();
        // At load: the protocol, the domain and the (constant) path once each, and each argument
        // name twice (a whole-text pattern for forms, one found anywhere in a link's query).
        let args =
            vec![("i.".to_string(), Template::literal("v"), false), ("y".to_string(), Template::literal(""), false)];
        let s = AnchorSampler::new("http", "127\\.0\\.0\\.1", Template::literal("p4.*"), args);
        let at_load = compiles() - before;
        assert_eq!(at_load, 3 + 2 * 2);
        for _ in 0..3 {
            let path = s.path_pattern("p4.*");
            assert_eq!(cands.iter().filter(|c| s.matches(c, &path) == Ok(true)).count(), 0, "no link has `y`");
        }
        assert_eq!(compiles() - before, at_load, "matching 3 pages of 500 links compiles nothing more");
        // A path that is not the constant one is compiled once per page, not per link.
        let s = AnchorSampler::new("http", "", Template::literal("p4.*"), vec![]);
        let before = compiles();
        let path = s.path_pattern("/?p1[0-9]\\.html");
        assert_eq!(cands.iter().filter(|c| s.matches(c, &path) == Ok(true)).count(), 10);
        assert_eq!(compiles() - before, 1);
    }

    #[test]
    fn a_candidate_matches_as_is_anchor_matched_says() {
        let c = Candidate {
            form: false,
            frame: false,
            protocol: "http".into(),
            domain: "127.0.0.1".into(),
            port: None,
            path: "/dir/next.html".into(),
            args: vec![("q".into(), Some("a%20b".into())), ("flag".into(), None)],
        };
        assert!(matches(&c, "http", "127.0.0.1", "/dir/next.html", &[]));
        assert!(matches(&c, "http", "", ".*next.*", &["q"]));
        assert!(matches(&c, "http", "127\\.0\\.0\\..*", "dir/.*", &[]), "[/]* before the path");
        assert!(!matches(&c, "https", "", ".*", &[]));
        assert!(!matches(&c, "http", "other", ".*", &[]));
        assert!(!matches(&c, "http", "", "/other.html", &[]));
        assert!(!matches(&c, "http", "", ".*", &["missing"]));
        // A name is looked for as `name=`, else as a pattern in the decoded query.
        assert!(matches(&c, "http", "", ".*", &["a b"]));
        // `flag` has no `=` in the query: found as a pattern.
        assert!(matches(&c, "http", "", ".*", &["flag"]));
        assert!(!matches(&c, "http", "", ".*", &["flag="]));
    }

    /// A pattern that does not compile throws when `isAnchorMatched` reaches it (JMeter then
    /// skips the sampler): not when a test before it failed, nor when the text equals it.
    #[test]
    fn a_pattern_that_does_not_compile_throws_only_when_reached() {
        let c = Candidate {
            form: false,
            frame: false,
            protocol: "http".into(),
            domain: "127.0.0.1".into(),
            port: None,
            path: "/link/a".into(),
            args: vec![("x".into(), Some("1".into()))],
        };
        let test = |protocol: &str, path: &str, names: &[&str]| {
            let args = names.iter().map(|n| (n.to_string(), Template::literal(""), false)).collect();
            let s = AnchorSampler::new(protocol, "", Template::literal(path), args);
            s.matches(&c, &s.path_pattern(path))
        };
        assert_eq!(test("http", "/link/(", &[]), Err(Thrown), "the path");
        assert_eq!(test("http", "/link/a", &["x("]), Err(Thrown), "an argument name not in the query");
        assert_eq!(test("http", "/link/a", &["x"]), Ok(true));
        assert_eq!(test("ftp", "/link/(", &[]), Ok(false), "the protocol failed first");
        assert_eq!(test("http", "/other", &["x("]), Ok(false), "the path failed first");
        assert_eq!(test("(", "/link/a", &[]), Err(Thrown), "a protocol pattern");
        let mut same = c.clone();
        same.path = "/link/(".into();
        let s = AnchorSampler::new("http", "", Template::literal("/link/("), vec![]);
        assert_eq!(s.matches(&same, &s.path_pattern("/link/(")), Ok(true), "equal text is compared first");
    }

    fn paths(cs: &[Candidate]) -> Vec<&str> {
        cs.iter().map(|c| c.path.as_str()).collect()
    }

    /// Every link is kept, matching the sampler or not; forms and frames only when they match.
    #[test]
    fn the_spider_keeps_every_link_but_only_the_forms_and_frames_that_match_the_sampler() {
        let html = r#"<html><body><a href="/a">a</a><a href="/other">o</a>
            <form action="/form-ok"></form><form action="/form-no"></form></body></html>"#;
        let frames = r#"<html><frameset><frame src="/frame-ok"><frame src="/frame-no"></frameset></html>"#;
        let s = AnchorSampler::new("http", "", Template::literal("/(a|form-ok|frame-ok)"), vec![]);
        let path = s.path_pattern("/(a|form-ok|frame-ok)");
        let mut spider = Spider::default();
        spider.offer(candidates(html, &page()), |c| s.matches(c, &path)).unwrap();
        spider.offer(candidates(frames, &page()), |c| s.matches(c, &path)).unwrap();
        let mut order = Vec::new();
        while let Some(c) = spider.follow() {
            order.push(c);
        }
        // Depth first: the last kept is followed first.
        assert_eq!(paths(&order), ["/frame-ok", "/form-ok", "/other", "/a"]);
    }

    /// The domain of the first candidate ever kept is the spider's: links elsewhere, and a link
    /// seen before (followed or not), are not kept again.
    #[test]
    fn the_spider_stays_on_its_first_domain_and_never_keeps_a_link_twice() {
        let mut spider = Spider::default();
        let first = r#"<a href="/x">x</a><a href="http://elsewhere.example/y">y</a><a href="/x">again</a>"#;
        spider.offer(candidates(first, &page()), |_| Ok(true)).unwrap();
        assert_eq!(spider.follow().map(|c| c.path), Some("/x".into()));
        assert_eq!(spider.follow(), None);
        spider.offer(candidates(r#"<a href="/x">x</a><a href="/z?q=1">z</a>"#, &page()), |_| Ok(true)).unwrap();
        assert_eq!(spider.follow().map(|c| c.path), Some("/z".into()));
        assert_eq!(spider.follow(), None, "/x was followed already");
        // The same path with other arguments, or on another port, is another link.
        let more = r#"<a href="/z?q=2">z2</a><a href="http://127.0.0.1:9/z?q=1">port</a>"#;
        spider.offer(candidates(more, &page()), |_| Ok(true)).unwrap();
        assert_eq!(spider.follow().map(|c| c.port), Some(Some(9)));
        assert_eq!(spider.follow().map(|c| c.args), Some(vec![("q".into(), Some("2".into()))]));
    }

    #[test]
    fn a_spider_form_pattern_that_does_not_compile_throws() {
        let s = AnchorSampler::new("http", "", Template::literal("/f("), vec![]);
        let path = s.path_pattern("/f(");
        let mut spider = Spider::default();
        let html = r#"<a href="/a">a</a><form action="/g"></form>"#;
        assert_eq!(spider.offer(candidates(html, &page()), |c| s.matches(c, &path)), Err(Thrown));
    }
}
