//! The support matrix of `docs/jmx.md`, made from the reader's own class tables, so that the
//! documentation lists exactly the classes the walk reads (a test keeps the two equal).

use super::*;

/// JMeter's name for each class the reader reads, as its GUI shows it.
const NAMES: &[(&str, &str)] = &[
    // Thread groups.
    ("ThreadGroup", "Thread Group"),
    ("SetupThreadGroup", "setUp Thread Group"),
    ("PostThreadGroup", "tearDown Thread Group"),
    ("OpenModelThreadGroup", "Open Model Thread Group"),
    ("kg.apc.jmeter.threads.UltimateThreadGroup", "jp@gc - Ultimate Thread Group"),
    ("kg.apc.jmeter.threads.SteppingThreadGroup", "jp@gc - Stepping Thread Group"),
    ("com.blazemeter.jmeter.threads.concurrency.ConcurrencyThreadGroup", "bzm - Concurrency Thread Group"),
    ("com.blazemeter.jmeter.threads.arrivals.ArrivalsThreadGroup", "bzm - Arrivals Thread Group"),
    ("com.blazemeter.jmeter.threads.arrivals.FreeFormArrivalsThreadGroup", "bzm - Free-Form Arrivals Thread Group"),
    // Config elements.
    ("Arguments", "User Defined Variables"),
    ("HeaderManager", "HTTP Header Manager"),
    ("CookieManager", "HTTP Cookie Manager"),
    ("CSVDataSet", "CSV Data Set Config"),
    ("RandomVariableConfig", "Random Variable"),
    ("CounterConfig", "Counter"),
    ("UserParameters", "User Parameters"),
    ("CacheManager", "HTTP Cache Manager"),
    ("AuthManager", "HTTP Authorization Manager"),
    ("DNSCacheManager", "DNS Cache Manager"),
    ("KeystoreConfig", "Keystore Configuration"),
    ("kg.apc.jmeter.config.VariablesFromCSV", "jp@gc - Variables From CSV File"),
    ("kg.apc.jmeter.config.VariablesFromCSVFile", "jp@gc - Variables From CSV File (old plugins)"),
    ("ConfigTestElement", "HTTP Request Defaults"),
    ("JavaConfig", "Java Request Defaults"),
    ("eu.luminis.jmeter.wssampler.PingFrameFilter", "WebSocket Ping/Pong Frame Filter"),
    ("eu.luminis.jmeter.wssampler.TextFrameFilter", "WebSocket Text Frame Filter"),
    ("eu.luminis.jmeter.wssampler.BinaryFrameFilter", "WebSocket Binary Frame Filter"),
    ("ConfigTestElement", "HTTP Request Defaults, TCP Sampler Config"),
    // Pre-processors.
    ("RegExUserParameters", "RegEx User Parameters"),
    ("URLRewritingModifier", "HTTP URL Re-writing Modifier"),
    ("AnchorModifier", "HTML Link Parser"),
    ("kg.apc.jmeter.modifiers.AnchorModifier", "jp@gc - Spider PreProcessor"),
    ("SampleTimeout", "Sample Timeout"),
    // Timers.
    ("ConstantTimer", "Constant Timer"),
    ("UniformRandomTimer", "Uniform Random Timer"),
    ("ConstantThroughputTimer", "Constant Throughput Timer"),
    ("GaussianRandomTimer", "Gaussian Random Timer"),
    ("PoissonRandomTimer", "Poisson Random Timer"),
    ("kg.apc.jmeter.timers.VariableThroughputTimer", "jp@gc - Throughput Shaping Timer"),
    ("PreciseThroughputTimer", "Precise Throughput Timer"),
    ("SyncTimer", "Synchronizing Timer"),
    // Post-processors.
    ("RegexExtractor", "Regular Expression Extractor"),
    ("JSONPostProcessor", "JSON Extractor"),
    ("BoundaryExtractor", "Boundary Extractor"),
    ("XPathExtractor", "XPath Extractor"),
    ("XPath2Extractor", "XPath2 Extractor"),
    ("HtmlExtractor", "CSS Selector Extractor"),
    ("com.atlantbh.jmeter.plugins.jsonutils.jsonpathextractor.JSONPathExtractor", "jp@gc - JSON Path Extractor"),
    ("DebugPostProcessor", "Debug PostProcessor"),
    ("JMESPathExtractor", "JSON JMESPath Extractor"),
    ("BeanShellPostProcessor", "BeanShell PostProcessor"),
    ("JSR223PostProcessor", "JSR223 PostProcessor"),
    ("BSFPostProcessor", "BSF PostProcessor"),
    // Script elements (run by stampede's interpreter, docs/scripts.md).
    ("JSR223Sampler", "JSR223 Sampler"),
    ("BeanShellSampler", "BeanShell Sampler"),
    ("BSFSampler", "BSF Sampler"),
    ("JSR223PreProcessor", "JSR223 PreProcessor"),
    ("BeanShellPreProcessor", "BeanShell PreProcessor"),
    ("BSFPreProcessor", "BSF PreProcessor"),
    ("JSR223Assertion", "JSR223 Assertion"),
    ("BeanShellAssertion", "BeanShell Assertion"),
    ("BSFAssertion", "BSF Assertion"),
    ("JSR223Timer", "JSR223 Timer"),
    ("BeanShellTimer", "BeanShell Timer"),
    ("BSFTimer", "BSF Timer"),
    ("JSR223Listener", "JSR223 Listener"),
    ("BeanShellListener", "BeanShell Listener"),
    ("BSFListener", "BSF Listener"),
    // Assertions.
    ("ResponseAssertion", "Response Assertion"),
    ("JSONPathAssertion", "JSON Assertion"),
    ("SizeAssertion", "Size Assertion"),
    ("DurationAssertion", "Duration Assertion"),
    ("XPathAssertion", "XPath Assertion"),
    ("MD5HexAssertion", "MD5Hex Assertion"),
    ("XMLAssertion", "XML Assertion"),
    ("XPath2Assertion", "XPath2 Assertion"),
    ("JMESPathAssertion", "JSON JMESPath Assertion"),
    ("com.atlantbh.jmeter.plugins.jsonutils.jsonpathassertion.JSONPathAssertion", "jp@gc - JSON Path Assertion"),
    // Listeners.
    ("ResultCollector", "Listeners (View Results Tree, Summary Report, Simple Data Writer...)"),
    ("Summariser", "Generate Summary Results"),
    ("BackendListener", "Backend Listener"),
    ("ResultSaver", "Save Responses to a file"),
    ("ResultAction", "Result Status Action Handler"),
    ("kg.apc.jmeter.vizualizers.CorrectedResultCollector", "jp@gc graphs (Response Times Over Time...)"),
    ("kg.apc.jmeter.vizualizers.CompositeResultCollector", "jp@gc - Composite Graph"),
    ("kg.apc.jmeter.perfmon.PerfMonCollector", "jp@gc - PerfMon Metrics Collector"),
    ("kg.apc.jmeter.jmxmon.JMXMonCollector", "jp@gc - JMXMon Samples Collector"),
    ("kg.apc.jmeter.dbmon.DbMonCollector", "jp@gc - DbMon Samples Collector"),
    ("kg.apc.jmeter.reporters.LoadosophiaUploader", "jp@gc - Loadosophia.org Uploader"),
    ("kg.apc.jmeter.reporters.FlexibleFileWriter", "jp@gc - Flexible File Writer"),
    ("kg.apc.jmeter.reporters.ConsoleStatusLogger", "jp@gc - Console Status Logger"),
    ("kg.apc.jmeter.listener.GraphsGeneratorListener", "jp@gc - Graphs Generator"),
    ("MailerResultCollector", "Mailer Visualizer"),
    ("ProxyControl", "HTTP(S) Test Script Recorder"),
    ("WorkBench", "WorkBench"),
    // Samplers.
    ("HTTPSamplerProxy", "HTTP Request"),
    ("HTTPSampler", "HTTP Request (old class)"),
    ("com.blazemeter.jmeter.http.ParallelHTTPSampler", "bzm - Parallel HTTP Requests"),
    ("AccessLogSampler", "Access Log Sampler"),
    ("DebugSampler", "Debug Sampler"),
    ("kg.apc.jmeter.samplers.DummySampler", "jp@gc - Dummy Sampler"),
    ("JavaSampler", "Java Request (JavaTest, SleepTest)"),
    ("eu.luminis.jmeter.wssampler.OpenWebSocketSampler", "WebSocket Open Connection"),
    ("eu.luminis.jmeter.wssampler.SingleWriteWebSocketSampler", "WebSocket Single Write Sampler"),
    ("eu.luminis.jmeter.wssampler.SingleReadWebSocketSampler", "WebSocket Single Read Sampler"),
    ("eu.luminis.jmeter.wssampler.RequestResponseWebSocketSampler", "WebSocket request-response Sampler"),
    ("eu.luminis.jmeter.wssampler.CloseWebSocketSampler", "WebSocket Close"),
    ("eu.luminis.jmeter.wssampler.PingPongSampler", "WebSocket Ping/Pong"),
    ("TCPSampler", "TCP Sampler"),
    ("FTPSampler", "FTP Request"),
    ("SystemSampler", "OS Process Sampler"),
    ("kg.apc.jmeter.samplers.HTTPRawSampler", "jp@gc - HTTP Raw Request"),
    ("kg.apc.jmeter.samplers.UDPSampler", "jp@gc - UDP Request"),
    ("kg.apc.jmeter.modifiers.RawRequestSourcePreProcessor", "jp@gc - Raw Data Source PreProcessor"),
    // Controllers.
    ("GenericController", "Simple Controller"),
    ("LoopController", "Loop Controller"),
    ("OnceOnlyController", "Once Only Controller"),
    ("TransactionController", "Transaction Controller"),
    ("IfController", "If Controller"),
    ("WhileController", "While Controller"),
    ("ForeachController", "ForEach Controller"),
    ("SwitchController", "Switch Controller"),
    ("RandomController", "Random Controller"),
    ("RandomOrderController", "Random Order Controller"),
    ("RunTime", "Runtime Controller"),
    ("CriticalSectionController", "Critical Section Controller"),
    ("ThroughputController", "Throughput Controller"),
    ("TestAction", "Flow Control Action"),
    ("RecordingController", "Recording Controller"),
    ("InterleaveControl", "Interleave Controller"),
    ("kg.apc.jmeter.control.sampler.SetVariablesAction", "jp@gc - Set Variables Action"),
    ("kg.apc.jmeter.control.ParameterizedController", "jp@gc - Parameterized Controller"),
    ("com.blazemeter.jmeter.control.WeightedSwitchController", "bzm - Weighted Switch Controller"),
    ("com.blazemeter.jmeter.controller.ParallelSampler", "bzm - Parallel Controller"),
    ("ModuleController", "Module Controller"),
    ("IncludeController", "Include Controller"),
    ("TestFragmentController", "Test Fragment"),
    // Threads that coordinate.
    ("kg.apc.jmeter.modifiers.FifoPopPreProcessor", "jp@gc - Inter-Thread Communication PreProcessor"),
    ("kg.apc.jmeter.modifiers.FifoPutPostProcessor", "jp@gc - Inter-Thread Communication PostProcessor"),
    ("kg.apc.jmeter.reporters.AutoStop", "jp@gc - AutoStop Listener"),
];

/// The families of elements, in the order the matrix lists them, with the classes each reads.
fn families() -> Vec<(&'static str, Vec<&'static str>)> {
    let mut out = vec![("thread group", thread_group::CLASSES.to_vec())];
    for (family, table) in SCOPE_FAMILIES {
        out.push((family, table.iter().map(|(c, _)| *c).collect()));
    }
    for (family, table) in STEP_FAMILIES {
        out.push((family, table.iter().map(|(c, _)| *c).collect()));
    }
    out
}

fn name_of(class: &str) -> Option<&'static str> {
    NAMES.iter().find(|(c, _)| *c == class).map(|(_, n)| *n)
}

/// The Markdown between the matrix's markers in `docs/jmx.md`.
pub(crate) fn matrix() -> String {
    let mut out = String::from("| family | element | class |\n|---|---|---|\n");
    for (family, classes) in families() {
        for class in classes {
            let name = name_of(class).unwrap_or(class);
            out.push_str(&format!("| {family} | {name} | `{class}` |\n"));
        }
    }
    out.push_str("\nEvery other class is reported by `check` as unsupported.\n");
    out.push_str("\nFunctions: ");
    let functions: Vec<String> = template::FUNCTION_NAMES.iter().map(|f| format!("`__{f}`")).collect();
    out.push_str(&functions.join(", "));
    out.push_str(".\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const BEGIN: &str = "<!-- support matrix: generated from src/plan/jmx by `STAMPEDE_BLESS=1 cargo test --lib support_matrix`; do not edit -->\n";
    const END: &str = "<!-- end of the support matrix -->";

    #[test]
    fn every_class_read_has_its_jmeter_name() {
        for (family, classes) in families() {
            for class in classes {
                assert!(name_of(class).is_some(), "{family} `{class}` has no name in NAMES");
            }
        }
        for (class, _) in NAMES {
            assert!(families().iter().any(|(_, cs)| cs.contains(class)), "NAMES has `{class}`, which no table reads");
        }
    }

    /// docs/jmx.md lists exactly what the reader reads. `STAMPEDE_BLESS=1` rewrites it.
    #[test]
    fn support_matrix_in_the_docs_is_the_code_s() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/jmx.md");
        let doc = std::fs::read_to_string(&path).unwrap();
        let (Some(b), Some(e)) = (doc.find(BEGIN), doc.find(END)) else {
            panic!("docs/jmx.md has no support matrix markers")
        };
        let now = &doc[b + BEGIN.len()..e];
        let want = matrix();
        if now != want {
            if std::env::var_os("STAMPEDE_BLESS").is_some() {
                let fresh = format!("{}{BEGIN}{want}{}", &doc[..b], &doc[e..]);
                std::fs::write(&path, fresh).unwrap();
            } else {
                panic!("docs/jmx.md's support matrix is stale: run `STAMPEDE_BLESS=1 cargo test --lib support_matrix`");
            }
        }
    }
}
