//! A JMeter `.jmx` file as a tree of test elements: each element's class, name, enabled flag,
//! line, properties (string-like, nested elements, collections) and children (the elements of
//! the `<hashTree>` that follows it). XML is parsed with `roxmltree`, which keeps positions, so
//! every later error can name the line.

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct El {
    /// The XML tag (`HTTPSamplerProxy`, `kg.apc.jmeter.threads.UltimateThreadGroup`).
    pub tag: String,
    /// The class JMeter makes: the tag's, or the `class` attribute's when there is one (the
    /// `testclass` attribute does not choose it).
    pub class: String,
    /// The `guiclass` attribute (tells listeners apart).
    pub gui: String,
    /// The `testname` attribute: what JMeter shows and labels samples with.
    pub name: String,
    pub enabled: bool,
    pub line: usize,
    /// Where the element's start tag begins in the text (a byte offset): what tells two
    /// elements on one line apart, and their order (generated plans put a tree on one line).
    pub at: usize,
    pub props: Vec<Prop>,
    pub children: Vec<El>,
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Prop {
    pub name: String,
    pub value: Value,
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Value {
    /// stringProp, boolProp, intProp, longProp, doubleProp, floatProp: the text as written.
    Text(String),
    /// elementProp: a nested element (its `elementType` and properties).
    Element { element_type: String, props: Vec<Prop> },
    /// collectionProp: a list of properties.
    Collection(Vec<Prop>),
    /// objProp, mapProp and anything else this reader does not interpret.
    Other,
}

/// Property lookups shared by elements and nested element properties.
pub(crate) trait Props {
    fn props(&self) -> &[Prop];

    fn prop(&self, name: &str) -> Option<&Value> {
        self.props().iter().find(|p| p.name == name).map(|p| &p.value)
    }

    /// A string-like property; absent and empty are both `None`.
    fn text(&self, name: &str) -> Option<&str> {
        match self.prop(name) {
            Some(Value::Text(t)) if !t.is_empty() => Some(t),
            _ => None,
        }
    }

    /// A string-like property, empty when absent.
    fn text_or_empty(&self, name: &str) -> &str {
        match self.prop(name) {
            Some(Value::Text(t)) => t,
            _ => "",
        }
    }

    fn flag(&self, name: &str) -> Option<bool> {
        self.text(name).map(|t| t.trim().eq_ignore_ascii_case("true"))
    }

    fn nested(&self, name: &str) -> Option<&[Prop]> {
        match self.prop(name) {
            Some(Value::Element { props, .. }) => Some(props),
            _ => None,
        }
    }

    fn collection(&self, name: &str) -> Option<&[Prop]> {
        match self.prop(name) {
            Some(Value::Collection(items)) => Some(items),
            _ => None,
        }
    }
}

impl Props for El {
    fn props(&self) -> &[Prop] {
        &self.props
    }
}

impl Props for [Prop] {
    fn props(&self) -> &[Prop] {
        self
    }
}

/// A malformed file: what and where.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct XmlError {
    pub line: usize,
    pub column: usize,
    pub message: String,
}

/// Parses a whole `.jmx`; returns the top-level elements (normally one `TestPlan`).
pub(crate) fn parse(text: &str) -> Result<Vec<El>, XmlError> {
    let opts = || roxmltree::ParsingOptions { allow_dtd: true, ..Default::default() };
    let closed: String;
    let mut parsed = roxmltree::Document::parse_with_options(text, opts());
    if matches!(parsed, Err(roxmltree::Error::UnclosedRootNode)) {
        // JMeter's XStream reads the plan as a stream and is done once the root's <hashTree>
        // is: a file that ends before `</jmeterTestPlan>` (and only that tag) loads.
        closed = format!("{text}</jmeterTestPlan>");
        if let Ok(doc) = roxmltree::Document::parse_with_options(&closed, opts()) {
            parsed = Ok(doc);
        }
    }
    let doc = parsed.map_err(|e| {
        let pos = e.pos();
        XmlError { line: pos.row as usize, column: pos.col as usize, message: e.to_string() }
    })?;
    let root = doc.root_element();
    // `text_pos_at` counts the lines from the start of the text at each call: once per element,
    // that made loading quadratic in the plan's size (10,000 thread groups: minutes).
    let lines = LineIndex::new(doc.input_text());
    let at = |n: roxmltree::Node<'_, '_>| lines.line(n.range().start);
    // Offsets of different texts (a plan and the files it includes) must not meet: each parse
    // gets its own range (2^40 bytes each).
    static TEXTS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let base = TEXTS.fetch_add(1, std::sync::atomic::Ordering::Relaxed) << 40;
    if root.tag_name().name() != "jmeterTestPlan" {
        return Err(XmlError {
            line: at(root),
            column: 1,
            message: format!(
                "the root element is <{}>, not <jmeterTestPlan>: not a JMeter plan",
                root.tag_name().name()
            ),
        });
    }
    let Some(tree) = root.children().find(|c| c.is_element() && c.tag_name().name() == "hashTree") else {
        return Ok(Vec::new());
    };
    elements(tree, &at, base)
}

/// Where each line of a text starts, to find the line of a byte offset in O(log lines).
pub(super) struct LineIndex {
    /// The offset of each `\n`, in order.
    newlines: Vec<usize>,
}

impl LineIndex {
    pub(super) fn new(text: &str) -> LineIndex {
        LineIndex { newlines: memchr::memchr_iter(b'\n', text.as_bytes()).collect() }
    }

    /// The 1-based line of byte `offset`, as `roxmltree`'s `text_pos_at` counts it (the
    /// `\n`s before it, plus one).
    pub(super) fn line(&self, offset: usize) -> usize {
        self.newlines.partition_point(|&nl| nl < offset) + 1
    }
}

/// The elements of a `<hashTree>`: each element followed by the `<hashTree>` of its children.
/// JMeter's `HashTreeConverter` reads the children strictly in pairs (an element, then its
/// `<hashTree>`): a `<hashTree>` where an element is due (first, or after another element's
/// `<hashTree>`) becomes a test element JMeter cannot convert, and an element where a
/// `<hashTree>` is due fails its cast; both stop JMeter loading the plan, so they are refused
/// here with the line. A last element with no `<hashTree>` loads (with no children).
fn elements(
    tree: roxmltree::Node<'_, '_>,
    at: &impl Fn(roxmltree::Node<'_, '_>) -> usize,
    base: usize,
) -> Result<Vec<El>, XmlError> {
    let mut out: Vec<El> = Vec::new();
    // Whether the last element still waits for its `<hashTree>`.
    let mut open = false;
    for node in tree.children().filter(|c| c.is_element()) {
        let line = at(node);
        let fail = |message: String| XmlError { line, column: 1, message };
        if node.tag_name().name() == "hashTree" {
            let Some(last) = out.last_mut().filter(|_| open) else {
                return Err(fail(match out.last() {
                    Some(prev) => format!(
                        "a second <hashTree> after {} (line {}): JMeter cannot load this plan \
                         (each element is followed by exactly one <hashTree> of its children)",
                        describe(prev),
                        prev.line
                    ),
                    None => "a <hashTree> with no element before it: JMeter cannot load this plan \
                             (each element is followed by exactly one <hashTree> of its children)"
                        .to_string(),
                }));
            };
            last.children = elements(node, at, base)?;
            open = false;
            continue;
        }
        let attr = |n: &str| node.attribute(n).unwrap_or("").to_string();
        let tag = node.tag_name().name().to_string();
        // JMeter makes the element of the tag's class (or of a `class` attribute), as XStream
        // reads it; `testclass` is only kept as a property (TestElementConverter.unmarshal).
        let class = node.attribute("class").map_or_else(|| tag.clone(), str::to_string);
        let el = El {
            class,
            gui: attr("guiclass"),
            name: attr("testname"),
            enabled: node.attribute("enabled") != Some("false"),
            line,
            at: base + node.range().start,
            props: props(node),
            children: Vec::new(),
            tag,
        };
        if let Some(prev) = out.last().filter(|_| open) {
            return Err(fail(format!(
                "{} follows {} (line {}) where JMeter expects that element's <hashTree>: \
                 JMeter cannot load this plan",
                describe(&el),
                describe(prev),
                prev.line
            )));
        }
        out.push(el);
        open = true;
    }
    Ok(out)
}

/// `<HTTPSamplerProxy> "Login"`: how an error names an element.
fn describe(el: &El) -> String {
    if el.name.is_empty() {
        format!("<{}>", el.tag)
    } else {
        format!("<{}> \"{}\"", el.tag, el.name)
    }
}

fn props(node: roxmltree::Node<'_, '_>) -> Vec<Prop> {
    node.children().filter(|c| c.is_element()).map(prop).collect()
}

fn prop(node: roxmltree::Node<'_, '_>) -> Prop {
    let tag = node.tag_name().name();
    // JMeter's saveservice still reads the pre-2.x form `<FloatProperty><name>n</name>
    // <value>v</value></FloatProperty>` (the Throughput Controller writes its percentage so).
    if matches!(
        tag,
        "StringProperty" | "BooleanProperty" | "IntegerProperty" | "LongProperty" | "FloatProperty" | "DoubleProperty"
    ) {
        let child = |n: &str| node.children().find(|c| c.has_tag_name(n)).and_then(|c| c.text()).unwrap_or("");
        return Prop { name: child("name").to_string(), value: Value::Text(child("value").to_string()) };
    }
    // A TestBean's number as JMeter saves it (`<doubleProp><name>throughput</name><value>11.0
    // </value><savedValue>0.0</savedValue></doubleProp>`): no `name` attribute, the parts as
    // children.
    if node.attribute("name").is_none()
        && matches!(tag, "stringProp" | "boolProp" | "intProp" | "longProp" | "doubleProp" | "floatProp")
    {
        let child = |n: &str| node.children().find(|c| c.has_tag_name(n)).and_then(|c| c.text());
        if let Some(name) = child("name") {
            return Prop { name: name.to_string(), value: Value::Text(child("value").unwrap_or("").to_string()) };
        }
    }
    let name = node.attribute("name").unwrap_or("").to_string();
    let value = match tag {
        "stringProp" | "boolProp" | "intProp" | "longProp" | "doubleProp" | "floatProp" => {
            Value::Text(node.text().unwrap_or("").to_string())
        }
        "elementProp" => {
            Value::Element { element_type: node.attribute("elementType").unwrap_or("").to_string(), props: props(node) }
        }
        "collectionProp" => Value::Collection(props(node)),
        _ => Value::Other,
    };
    Prop { name, value }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The index gives the line `roxmltree` counts for every offset, at line ends, `\r\n`s
    /// and the last line without a newline too.
    #[test]
    fn the_line_index_agrees_with_roxmltree() {
        for text in [PLAN, "<a>\r\n<b/>\n\n<c/></a>", "<a/>", "<a>\n<b/></a>\n"] {
            let doc = roxmltree::Document::parse_with_options(
                text,
                roxmltree::ParsingOptions { allow_dtd: true, ..Default::default() },
            )
            .unwrap();
            let lines = LineIndex::new(text);
            for offset in 0..=text.len() {
                assert_eq!(lines.line(offset), doc.text_pos_at(offset).row as usize, "{text:?} at {offset}");
            }
        }
    }

    /// Elements get their lines from one index of the text's newlines (each a binary search;
    /// `text_pos_at` scanned the text from its start for every element).
    #[test]
    fn a_thousand_groups_get_their_lines_from_one_index() {
        let group =
            "<ThreadGroup testname=\"g\"/>\n<hashTree>\n<HTTPSamplerProxy testname=\"r\"/>\n<hashTree/>\n</hashTree>\n";
        let text = format!("<jmeterTestPlan>\n<hashTree>\n{}</hashTree>\n</jmeterTestPlan>", group.repeat(1000));
        let top = parse(&text).unwrap();
        assert_eq!(top.len(), 1000);
        assert_eq!((top[999].line, top[999].children[0].line), (3 + 5 * 999, 5 + 5 * 999));
        assert_eq!(LineIndex::new(&text).newlines.len(), text.matches('\n').count());
    }

    const PLAN: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<jmeterTestPlan version="1.2">
  <hashTree>
    <TestPlan guiclass="TestPlanGui" testclass="TestPlan" testname="Plan" enabled="true">
      <elementProp name="TestPlan.user_defined_variables" elementType="Arguments">
        <collectionProp name="Arguments.arguments">
          <elementProp name="host" elementType="Argument">
            <stringProp name="Argument.name">host</stringProp>
            <stringProp name="Argument.value">127.0.0.1</stringProp>
          </elementProp>
        </collectionProp>
      </elementProp>
    </TestPlan>
    <hashTree>
      <ThreadGroup testclass="ThreadGroup" testname="Users" enabled="true">
        <stringProp name="ThreadGroup.num_threads">5</stringProp>
      </ThreadGroup>
      <hashTree>
        <HTTPSamplerProxy testclass="HTTPSamplerProxy" testname="Read &amp; go" enabled="false"/>
        <hashTree/>
      </hashTree>
    </hashTree>
  </hashTree>
</jmeterTestPlan>"#;

    #[test]
    fn elements_nest_by_hash_tree() {
        let top = parse(PLAN).unwrap();
        assert_eq!(top.len(), 1);
        let plan = &top[0];
        assert_eq!((plan.class.as_str(), plan.name.as_str(), plan.line), ("TestPlan", "Plan", 4));
        let udv = plan.nested("TestPlan.user_defined_variables").unwrap();
        let args = udv.collection("Arguments.arguments").unwrap();
        let Value::Element { props, .. } = &args[0].value else { panic!() };
        assert_eq!(props.text("Argument.value"), Some("127.0.0.1"));
        let tg = &plan.children[0];
        assert_eq!(tg.text("ThreadGroup.num_threads"), Some("5"));
        let s = &tg.children[0];
        assert_eq!((s.name.as_str(), s.enabled, s.line), ("Read & go", false, 19));
    }

    #[test]
    fn old_style_properties_read_by_name_and_value() {
        let top = parse(
            r#"<jmeterTestPlan><hashTree><ThroughputController testclass="ThroughputController" testname="t">
              <intProp name="ThroughputController.style">1</intProp>
              <FloatProperty><name>ThroughputController.percentThroughput</name><value>80.0</value><savedValue>0.0</savedValue></FloatProperty>
            </ThroughputController><hashTree/></hashTree></jmeterTestPlan>"#,
        )
        .unwrap();
        assert_eq!(top[0].text("ThroughputController.percentThroughput"), Some("80.0"));
    }

    #[test]
    fn malformed_xml_names_line_and_column() {
        let e = parse("<jmeterTestPlan>\n  <hashTree>\n    <TestPlan>\n  </hashTree>\n</jmeterTestPlan>").unwrap_err();
        assert_eq!(e.line, 4, "{e:?}");
        assert!(parse("<html/>").unwrap_err().message.contains("not a JMeter plan"));
    }

    fn refusal(body: &str) -> XmlError {
        parse(&format!("<jmeterTestPlan>\n<hashTree>\n{body}</hashTree>\n</jmeterTestPlan>")).unwrap_err()
    }

    #[test]
    fn a_hash_tree_out_of_place_is_refused_with_its_line() {
        // Two hashTrees after one element: the second stands where an element is due.
        let e = refusal("<TestPlan testname=\"P\"/>\n<hashTree/>\n<hashTree/>\n");
        assert_eq!(e.line, 5, "{e:?}");
        assert!(e.message.contains("second <hashTree> after <TestPlan> \"P\" (line 3)"), "{e:?}");
        // A hashTree first, nested one level down.
        let e = refusal("<TestPlan testname=\"P\"/>\n<hashTree>\n<hashTree/>\n</hashTree>\n");
        assert_eq!(e.line, 5, "{e:?}");
        assert!(e.message.contains("no element before it"), "{e:?}");
        // An element where its predecessor's hashTree is due.
        let e = refusal("<TestPlan testname=\"P\"/>\n<hashTree>\n<ThreadGroup testname=\"U\"/>\n<ConfigTestElement testname=\"C\"/>\n<hashTree/>\n</hashTree>\n");
        assert_eq!(e.line, 6, "{e:?}");
        assert!(e.message.contains("<ConfigTestElement> \"C\" follows <ThreadGroup> \"U\" (line 5)"), "{e:?}");
    }

    #[test]
    fn a_last_element_without_its_hash_tree_loads() {
        // JMeter's converter adds the element with an empty tree.
        let top = parse(
            "<jmeterTestPlan><hashTree><TestPlan/><hashTree><ThreadGroup/></hashTree></hashTree></jmeterTestPlan>",
        )
        .unwrap();
        assert_eq!(top[0].children.len(), 1);
        assert!(top[0].children[0].children.is_empty());
    }

    /// #13: JMeter loads a plan that ends before `</jmeterTestPlan>` (taurus' broken.jmx: XStream
    /// is done once the root's hashTree is); one that ends inside its hashTree is refused, as JMeter
    /// refuses it ("EOFException: no more data available", confirmed with JMeter 5.6.3).
    /// The class is the tag's (JMeter's), not `testclass`.
    #[test]
    fn a_plan_without_its_closing_root_tag_loads() {
        let top = parse("<jmeterTestPlan><hashTree><TestPlan testclass=\"Other\"/><hashTree/></hashTree>\n").unwrap();
        assert_eq!((top.len(), top[0].class.as_str()), (1, "TestPlan"));
        let e = parse("<jmeterTestPlan><hashTree><TestPlan/><hashTree/>\n").unwrap_err();
        assert!(e.message.contains("never closed") || e.message.contains("end"), "{e:?}");
    }
}
