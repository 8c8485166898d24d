//! XPath 1.0 and CSS selectors over response bodies, as JMeter's XPath Extractor / XPath
//! Assertion (Xalan over a DOM; HTML made well-formed by Tidy when "tolerant") and CSS Selector
//! Extractor (JSoup) read them.
//!
//! XPath is evaluated by `sxd-xpath` over an `sxd-document` tree, built here from `roxmltree`
//! (XML) or from `scraper`'s HTML5 parser (tolerant mode): sxd-xpath is the complete XPath 1.0
//! implementation on crates.io (Xalan's language), with no C library to link.

use sxd_document::dom;
use sxd_xpath::nodeset::Node;

/// An XPath query and how the body it reads is parsed.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct XPathExpr {
    pub src: String,
    /// Parse the body as HTML, forgiving what is not well-formed (JMeter's "Use Tidy").
    pub tolerant: bool,
    /// Elements keep their namespaces (JMeter's "Use Namespaces"); otherwise names are local.
    pub namespaces: bool,
    /// An element found is returned as XML text (JMeter's "Return entire XPath fragment").
    pub fragment: bool,
}

/// What an XPath query gave: node values (an element's `None` where JMeter's is null: its
/// first child is not text) or a single string, number or boolean.
#[derive(Debug, PartialEq)]
pub(crate) enum XPathResult {
    Nodes(Vec<Option<String>>),
    Boolean(bool),
    Other(String),
}

impl XPathExpr {
    /// The query, or why it is not XPath 1.0.
    pub(crate) fn new(src: &str, tolerant: bool, namespaces: bool, fragment: bool) -> Result<XPathExpr, MarkupError> {
        compile(src)?;
        Ok(XPathExpr { src: src.to_string(), tolerant, namespaces, fragment })
    }

    /// Evaluates the query on a body; the error is what JMeter reports (a body that does not
    /// parse, a query that does not evaluate).
    pub(crate) fn eval(&self, body: &str) -> Result<XPathResult, MarkupError> {
        let package = sxd_document::Package::new();
        let doc = package.as_document();
        let mut ns = Vec::new();
        if self.tolerant {
            html_into(&doc, body)?;
        } else {
            xml_into(&doc, body, self.namespaces, &mut ns)?;
        }
        let xpath = compile(&self.src)?;
        let mut ctx = sxd_xpath::Context::new();
        for (p, uri) in &ns {
            ctx.set_namespace(p, uri);
        }
        let value = xpath.evaluate(&ctx, doc.root()).map_err(MarkupError::Eval)?;
        Ok(match value {
            sxd_xpath::Value::Nodeset(set) => {
                XPathResult::Nodes(set.document_order().into_iter().map(|n| self.node_value(n)).collect())
            }
            sxd_xpath::Value::Boolean(b) => XPathResult::Boolean(b),
            sxd_xpath::Value::Number(n) => XPathResult::Other(number_text(n)),
            sxd_xpath::Value::String(s) => XPathResult::Other(s),
        })
    }

    /// XPathUtil: an element is its first child's value (or, as a fragment, its XML); any
    /// other node its own value.
    fn node_value(&self, n: Node<'_>) -> Option<String> {
        match n {
            Node::Element(e) if self.fragment => {
                let mut out = String::new();
                write_element(e, &mut out);
                Some(out)
            }
            Node::Element(e) => match e.children().first()? {
                dom::ChildOfElement::Text(t) => Some(t.text().to_string()),
                dom::ChildOfElement::Comment(c) => Some(c.text().to_string()),
                dom::ChildOfElement::ProcessingInstruction(p) => Some(p.value().unwrap_or("").to_string()),
                dom::ChildOfElement::Element(_) => None,
            },
            Node::Root(_) => None,
            other => Some(other.string_value()),
        }
    }
}

fn compile(src: &str) -> Result<sxd_xpath::XPath, MarkupError> {
    sxd_xpath::Factory::new()
        .build(src)
        .map_err(|error| MarkupError::XPath { src: src.to_string(), error })?
        .ok_or_else(|| MarkupError::EmptyXPath(src.to_string()))
}

/// An XPath query or CSS selector that does not read, or a body an XPath query cannot be
/// evaluated on; each says it as JMeter's log and failure messages do.
#[derive(Debug, thiserror::Error)]
pub(crate) enum MarkupError {
    #[error("invalid XPath `{src}`: {error:?}")]
    XPath { src: String, error: sxd_xpath::ParserError },
    #[error("invalid XPath `{0}`: it is empty")]
    EmptyXPath(String),
    #[error("invalid CSS selector `{src}`: {reason}")]
    Css { src: String, reason: String },
    /// The body is not well-formed XML (JMeter's parser says `SAXException`).
    #[error("SAXException: {0}")]
    Xml(roxmltree::Error),
    #[error("the body nests elements {0} deep: XPath is evaluated on at most {MAX_DEPTH} levels")]
    TooDeep(usize),
    /// The query does not evaluate on this body.
    #[error("{0:?}")]
    Eval(sxd_xpath::ExecutionError),
}

/// Xalan's number text: whole numbers without a fraction.
fn number_text(n: f64) -> String {
    if n.is_nan() {
        "NaN".into()
    } else if n.is_infinite() {
        if n > 0.0 { "Infinity" } else { "-Infinity" }.into()
    } else if n.fract() == 0.0 && n.abs() < 1e18 {
        format!("{}", n as i64)
    } else {
        format!("{n}")
    }
}

/// Copies a parsed XML body into `doc`; `ns` gets the prefixes it declares (for the query).
fn xml_into(
    doc: &dom::Document<'_>,
    body: &str,
    namespaces: bool,
    ns: &mut Vec<(String, String)>,
) -> Result<(), MarkupError> {
    let opts = roxmltree::ParsingOptions { allow_dtd: true, ..Default::default() };
    let parsed = roxmltree::Document::parse_with_options(body, opts).map_err(MarkupError::Xml)?;
    // Each node's depth from its parent's (parents come first in document order).
    let mut depths = vec![0usize; parsed.descendants().len()];
    for n in parsed.descendants() {
        if let Some(p) = n.parent() {
            depths[n.id().get_usize()] = depths[p.id().get_usize()] + 1;
        }
    }
    let depth = depths.into_iter();
    too_deep(depth.max().unwrap_or(0))?;
    fn copy<'d>(
        doc: &dom::Document<'d>,
        n: roxmltree::Node<'_, '_>,
        namespaces: bool,
        ns: &mut Vec<(String, String)>,
    ) -> Option<dom::ChildOfElement<'d>> {
        match n.node_type() {
            roxmltree::NodeType::Element => {
                for d in n.namespaces() {
                    if let Some(p) = d.name() {
                        if !ns.iter().any(|(q, _)| q == p) {
                            ns.push((p.to_string(), d.uri().to_string()));
                        }
                    }
                }
                let tag = n.tag_name();
                let el = match tag.namespace().filter(|_| namespaces) {
                    Some(uri) => doc.create_element(sxd_document::QName::with_namespace_uri(Some(uri), tag.name())),
                    None => doc.create_element(tag.name()),
                };
                for a in n.attributes() {
                    match a.namespace().filter(|_| namespaces) {
                        Some(uri) => el.set_attribute_value(
                            sxd_document::QName::with_namespace_uri(Some(uri), a.name()),
                            a.value(),
                        ),
                        None => el.set_attribute_value(a.name(), a.value()),
                    };
                }
                for c in n.children() {
                    if let Some(c) = copy(doc, c, namespaces, ns) {
                        el.append_child(c);
                    }
                }
                Some(el.into())
            }
            roxmltree::NodeType::Text => Some(doc.create_text(n.text().unwrap_or("")).into()),
            roxmltree::NodeType::Comment => Some(doc.create_comment(n.text().unwrap_or("")).into()),
            roxmltree::NodeType::PI => {
                let pi = n.pi()?;
                Some(doc.create_processing_instruction(pi.target, pi.value).into())
            }
            roxmltree::NodeType::Root => None,
        }
    }
    for c in parsed.root().children() {
        match copy(doc, c, namespaces, ns) {
            Some(dom::ChildOfElement::Element(e)) => doc.root().append_child(e),
            Some(dom::ChildOfElement::Comment(c)) => doc.root().append_child(c),
            Some(dom::ChildOfElement::ProcessingInstruction(p)) => doc.root().append_child(p),
            _ => {}
        }
    }
    Ok(())
}

/// The deepest nesting of elements a body may have for XPath: copying the tree and
/// evaluating over it recurse once per level, and a deeper body (a few kilobytes of
/// `<a><a><a>...` from the server) would overflow the stack and abort the run.
const MAX_DEPTH: usize = 512;

fn too_deep(depth: usize) -> Result<(), MarkupError> {
    if depth > MAX_DEPTH {
        return Err(MarkupError::TooDeep(depth));
    }
    Ok(())
}

/// Copies an HTML body, parsed as a browser does (what Tidy makes well-formed), into `doc`.
fn html_into(doc: &dom::Document<'_>, body: &str) -> Result<(), MarkupError> {
    let html = scraper::Html::parse_document(body);
    let depth = html.tree.root().traverse().scan(0usize, |d, edge| {
        match edge {
            ego_tree::iter::Edge::Open(_) => *d += 1,
            ego_tree::iter::Edge::Close(_) => *d -= 1,
        }
        Some(*d)
    });
    too_deep(depth.max().unwrap_or(0))?;
    fn copy<'d>(doc: &dom::Document<'d>, n: ego_tree::NodeRef<'_, scraper::Node>) -> Option<dom::ChildOfElement<'d>> {
        match n.value() {
            scraper::Node::Element(e) => {
                let el = doc.create_element(e.name());
                for (k, v) in e.attrs() {
                    // A name that is not an XML name (`@click`) cannot be queried; Tidy drops it.
                    if k.chars().all(|c| c.is_alphanumeric() || "-_:.".contains(c)) {
                        el.set_attribute_value(k, v);
                    }
                }
                for c in n.children() {
                    if let Some(c) = copy(doc, c) {
                        el.append_child(c);
                    }
                }
                Some(el.into())
            }
            scraper::Node::Text(t) => Some(doc.create_text(t).into()),
            scraper::Node::Comment(c) => Some(doc.create_comment(c).into()),
            _ => None,
        }
    }
    for c in html.tree.root().children() {
        if let Some(dom::ChildOfElement::Element(e)) = copy(doc, c) {
            doc.root().append_child(e);
        }
    }
    Ok(())
}

fn escape(s: &str, attr: bool, out: &mut String) {
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' if !attr => out.push_str("&gt;"),
            '"' if attr => out.push_str("&quot;"),
            c => out.push(c),
        }
    }
}

/// An element as XML text (JMeter's fragment, no XML declaration).
fn write_element(e: dom::Element<'_>, out: &mut String) {
    let name = |q: sxd_document::QName<'_>| q.local_part().to_string();
    out.push('<');
    out.push_str(&name(e.name()));
    for a in e.attributes() {
        out.push(' ');
        out.push_str(&name(a.name()));
        out.push_str("=\"");
        escape(a.value(), true, out);
        out.push('"');
    }
    let children = e.children();
    if children.is_empty() {
        out.push_str("/>");
        return;
    }
    out.push('>');
    for c in children {
        match c {
            dom::ChildOfElement::Element(c) => write_element(c, out),
            dom::ChildOfElement::Text(t) => escape(t.text(), false, out),
            dom::ChildOfElement::Comment(c) => {
                out.push_str("<!--");
                out.push_str(c.text());
                out.push_str("-->");
            }
            dom::ChildOfElement::ProcessingInstruction(_) => {}
        }
    }
    out.push_str("</");
    out.push_str(&name(e.name()));
    out.push('>');
}

/// A CSS selector and what to take from each element it selects (JMeter's CSS Selector
/// Extractor).
#[derive(Debug, Clone)]
pub(crate) struct CssExpr {
    pub src: String,
    selector: scraper::Selector,
    /// The attribute to take; blank: the element's text.
    pub attribute: String,
    /// Jodd's text (the text content as it is, trimmed) rather than JSoup's (whitespace
    /// collapsed).
    pub jodd: bool,
}

impl PartialEq for CssExpr {
    fn eq(&self, o: &CssExpr) -> bool {
        (&self.src, &self.attribute, self.jodd) == (&o.src, &o.attribute, o.jodd)
    }
}

/// Elements JSoup's `text()` separates from their neighbours with a space.
const BLOCKS: &[&str] = &[
    "address",
    "article",
    "aside",
    "blockquote",
    "br",
    "dd",
    "div",
    "dl",
    "dt",
    "fieldset",
    "figcaption",
    "figure",
    "footer",
    "form",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "header",
    "hr",
    "li",
    "main",
    "nav",
    "ol",
    "p",
    "pre",
    "section",
    "table",
    "tbody",
    "td",
    "tfoot",
    "th",
    "thead",
    "tr",
    "ul",
];

impl CssExpr {
    pub(crate) fn new(src: &str, attribute: &str, jodd: bool) -> Result<CssExpr, MarkupError> {
        // The parser's error borrows `src`: its text is kept.
        let selector = scraper::Selector::parse(src)
            .map_err(|e| MarkupError::Css { src: src.to_string(), reason: e.to_string() })?;
        Ok(CssExpr { src: src.to_string(), selector, attribute: attribute.trim().to_string(), jodd })
    }

    /// The value of each element selected, in document order.
    pub(crate) fn values(&self, body: &str) -> Vec<String> {
        let html = scraper::Html::parse_document(body);
        html.select(&self.selector)
            .map(|el| {
                if !self.attribute.is_empty() {
                    el.value().attr(&self.attribute).unwrap_or("").to_string()
                } else if self.jodd {
                    el.text().collect::<String>().trim().to_string()
                } else {
                    jsoup_text(el)
                }
            })
            .collect()
    }
}

/// JSoup's `Element.text()`: the text of the element and its descendants, whitespace runs
/// collapsed to one space, block elements apart, trimmed.
fn jsoup_text(el: scraper::ElementRef<'_>) -> String {
    let mut raw = String::new();
    for n in el.descendants() {
        match n.value() {
            scraper::Node::Text(t) => raw.push_str(t),
            scraper::Node::Element(e) if BLOCKS.contains(&e.name()) => raw.push(' '),
            _ => {}
        }
    }
    raw.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The text with HTML character references decoded (`&amp;`, `&#39;`, `&#x2F;`, every HTML5
/// name), as JMeter's "Body (unescaped)" field (unbescape's `HtmlEscape.unescapeHtml`).
/// A reference that names nothing stays as it is.
pub(crate) fn unescape_html(s: &str) -> std::borrow::Cow<'_, str> {
    if !s.contains('&') {
        return s.into();
    }
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find('&') {
        out.push_str(&rest[..i]);
        rest = &rest[i..];
        match reference(rest) {
            Some((text, len)) => {
                out.push_str(&text);
                rest = &rest[len..];
            }
            None => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out.into()
}

/// The character reference at the start of `s` (which starts with `&`): its text and length.
fn reference(s: &str) -> Option<(String, usize)> {
    let body = &s[1..];
    if let Some(num) = body.strip_prefix('#') {
        let (digits, radix, skip) = match num.strip_prefix(['x', 'X']) {
            Some(hex) => (hex, 16, 3),
            None => (num, 10, 2),
        };
        let len = digits.find(|c: char| !c.is_digit(radix)).unwrap_or(digits.len());
        let c = char::from_u32(u32::from_str_radix(&digits[..len], radix).ok()?)?;
        let semi = usize::from(digits[len..].starts_with(';'));
        return (len > 0).then(|| (c.to_string(), skip + len + semi));
    }
    let name_len = body.find(|c: char| !c.is_ascii_alphanumeric()).unwrap_or(body.len());
    if name_len == 0 {
        return None;
    }
    let with_semi = body[name_len..].starts_with(';');
    let key = &body[..name_len + usize::from(with_semi)];
    let &(a, b) = web_atoms::NAMED_ENTITIES.get(key)?;
    let text: String = [a, b].into_iter().filter(|&c| c != 0).filter_map(char::from_u32).collect();
    Some((text, 1 + key.len()))
}

#[cfg(test)]
mod tests {
    use super::*;

    const XML: &str = r#"<?xml version="1.0"?>
<r xmlns:s="urn:s"><item id="1">one</item><item id="2">two</item><s:x>ns</s:x><box><in>deep</in></box></r>"#;

    fn nodes(x: &XPathExpr, body: &str) -> Vec<Option<String>> {
        match x.eval(body).unwrap() {
            XPathResult::Nodes(v) => v,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn xpath_values_as_jmeter_takes_them() {
        let x = |q: &str| XPathExpr::new(q, false, false, false).unwrap();
        assert_eq!(nodes(&x("//item"), XML), vec![Some("one".into()), Some("two".into())]);
        assert_eq!(nodes(&x("//item/@id"), XML), vec![Some("1".into()), Some("2".into())]);
        assert_eq!(nodes(&x("//item[2]/text()"), XML), vec![Some("two".into())]);
        assert_eq!(nodes(&x("//box"), XML), vec![None], "the first child is an element: null");
        assert_eq!(x("count(//item)").eval(XML).unwrap(), XPathResult::Other("2".into()));
        assert_eq!(x("//item = 'two'").eval(XML).unwrap(), XPathResult::Boolean(true));
        // Without namespaces a prefixed element is found by its local name.
        assert_eq!(nodes(&x("//x"), XML), vec![Some("ns".into())]);
        let n = XPathExpr::new("//s:x", false, true, false).unwrap();
        assert_eq!(nodes(&n, XML), vec![Some("ns".into())]);
    }

    #[test]
    fn fragments_and_tolerant_html() {
        let f = XPathExpr::new("//box", false, false, true).unwrap();
        assert_eq!(nodes(&f, XML), vec![Some("<box><in>deep</in></box>".into())]);
        let html = "<html><body><form><input name=csrf value=abc123><p>unclosed<br></form></body>";
        let t = XPathExpr::new("//input[@name='csrf']/@value", true, false, false).unwrap();
        assert_eq!(nodes(&t, html), vec![Some("abc123".into())]);
        let e = XPathExpr::new("//input", false, false, false).unwrap().eval(html).unwrap_err();
        assert!(matches!(e, MarkupError::Xml(_)) && e.to_string().starts_with("SAXException: "), "not XML: {e}");
    }

    #[test]
    fn invalid_xpath() {
        let e = XPathExpr::new("//a[", false, false, false).unwrap_err();
        assert!(matches!(e, MarkupError::XPath { .. }) && e.to_string().starts_with("invalid XPath `//a[`: "), "{e}");
        let e = XPathExpr::new("", false, false, false).unwrap_err();
        assert_eq!(e.to_string(), "invalid XPath ``: it is empty");
    }

    #[test]
    fn a_body_nested_too_deep_for_the_stack_is_an_error() {
        // 5000 levels overflowed the stack (an abort, not a panic) copying or evaluating.
        let deep = |tag: &str, n: usize| format!("{}x{}", format!("<{tag}>").repeat(n), format!("</{tag}>").repeat(n));
        for (tolerant, fragment, query) in
            [(false, false, "//a"), (false, true, "/a"), (false, false, "string(/)"), (true, false, "//div")]
        {
            // The HTML parser closes an `<a>` that another opens: nest divs there.
            let tag = if tolerant { "div" } else { "a" };
            let x = XPathExpr::new(query, tolerant, false, fragment).unwrap();
            let e = x.eval(&deep(tag, 5000)).unwrap_err();
            assert!(matches!(e, MarkupError::TooDeep(d) if d >= 5000), "{e}");
            assert!(e.to_string().contains("deep: XPath is evaluated on at most 512 levels"), "{e}");
            assert!(x.eval(&deep(tag, 100)).is_ok());
        }
    }

    #[test]
    fn html_references_are_decoded() {
        assert_eq!(
            unescape_html("a &amp; b &lt;c&gt; &#39;d&#x27; &eacute;&hellip; &nbsp;"),
            "a & b <c> 'd' é… \u{a0}"
        );
        assert_eq!(unescape_html("id=&quot;42&quot;"), "id=\"42\"");
        assert_eq!(unescape_html("&amp x &nosuch; & &#;"), "& x &nosuch; & &#;");
        assert_eq!(unescape_html("plain"), "plain");
    }

    #[test]
    fn css_selectors() {
        let html = r#"<ul><li class="a" data-id="7">  first
          item </li><li class="a"><b>second</b><p>para</p></li></ul><a href="/next">go</a>"#;
        let c = CssExpr::new("li.a", "", false).unwrap();
        assert_eq!(c.values(html), vec!["first item".to_string(), "second para".to_string()]);
        assert_eq!(CssExpr::new("li.a", "data-id", false).unwrap().values(html), vec!["7".to_string(), String::new()]);
        assert_eq!(CssExpr::new("a", "href", false).unwrap().values(html), vec!["/next".to_string()]);
        assert_eq!(CssExpr::new("li.a", " ", true).unwrap().values(html)[0], "first\n          item");
        let e = CssExpr::new("li[", "", false).unwrap_err();
        assert!(
            matches!(e, MarkupError::Css { .. }) && e.to_string().starts_with("invalid CSS selector `li[`: "),
            "{e}"
        );
    }
}
