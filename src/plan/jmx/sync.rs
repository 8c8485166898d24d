//! Elements that coordinate the run's threads or stop the test: the jp@gc Inter-Thread
//! Communication pre- and post-processors (named queues every user shares) and the jp@gc
//! AutoStop Listener.

use super::*;

/// The pre- and post-processors, by class.
pub(super) const PROCESSORS: &[(&str, ScopeFn)] = &[
    ("kg.apc.jmeter.modifiers.FifoPopPreProcessor", Cx::fifo_pop),
    ("kg.apc.jmeter.modifiers.FifoPutPostProcessor", Cx::fifo_put),
];

/// The listeners, by class.
pub(super) const LISTENERS: &[(&str, ScopeFn)] = &[("kg.apc.jmeter.reporters.AutoStop", Cx::autostop)];

impl Cx {
    /// The capacity of every queue: JMeter's property `kg.apc.jmeter.functions.FifoCapacity`
    /// (the plugin's default, Integer.MAX_VALUE, is none).
    fn fifo_capacity(&self) -> Option<u32> {
        let v = self.b.sym.properties.get("kg.apc.jmeter.functions.FifoCapacity")?;
        v.trim().parse::<i64>().ok().filter(|&c| c < i32::MAX as i64).map(|c| c.max(0) as u32)
    }

    /// Inter-Thread Communication PreProcessor: before each sampler in scope, takes the oldest
    /// value of its queue into its variable, waiting up to its timeout (seconds; empty: for
    /// ever, the property `kg.apc.jmeter.functions.FifoTimeout` when the element has none).
    pub(super) fn fifo_pop(&mut self, c: &El, s: &mut Scope, depth: usize) -> Result<(), Error> {
        let queue = self.tmpl(c, c.text_or_empty("FifoName"))?;
        let name = c.text_or_empty("Variable").to_string();
        let raw = match c.text("Timeout") {
            Some(t) => t.to_string(),
            None => self.b.sym.properties.get("kg.apc.jmeter.functions.FifoTimeout").cloned().unwrap_or_default(),
        };
        let raw = self.expand(c, &raw)?;
        let timeout_s = if raw.trim().is_empty() {
            None
        } else {
            let n: i64 = raw.trim().parse().map_err(|_| self.err(c, format!("timeout `{raw}` is not a number")))?;
            (n < i64::MAX).then_some(n.max(0) as u64)
        };
        let var = self.b.sym.vars.assign(&name);
        let wait = timeout_s.map_or("for ever".to_string(), |t| format!("up to {t} s"));
        let note =
            format!("before each sampler in scope, takes ${{{name}}} from queue `{}`, waiting {wait}", queue.source());
        self.report(c, depth, Status::Supported, note);
        let action = flow::FifoAction::Pop { var, name, timeout_s };
        s.before.push(Step::Fifo(Box::new(flow::Fifo { queue, action, capacity: self.fifo_capacity() })));
        Ok(())
    }

    /// Inter-Thread Communication PostProcessor: after each sampler in scope, appends its value
    /// to its queue.
    pub(super) fn fifo_put(&mut self, c: &El, s: &mut Scope, depth: usize) -> Result<(), Error> {
        let queue = self.tmpl(c, c.text_or_empty("FifoName"))?;
        let value = self.tmpl(c, c.text_or_empty("Value"))?;
        let note = format!("after each sampler in scope, puts `{}` into queue `{}`", value.source(), queue.source());
        self.report(c, depth, Status::Supported, note);
        let action = flow::FifoAction::Put(value);
        s.after.push(Step::Fifo(Box::new(flow::Fifo { queue, action, capacity: self.fifo_capacity() })));
        Ok(())
    }
}

impl Cx {
    /// jp@gc AutoStop Listener: its limits, read as the plugin reads them (a limit that is not
    /// a number, or not above 0, is off; a number of seconds that is not one, or not above 0,
    /// is 1). Directly under the test plan it sees every sample; elsewhere those of the
    /// samplers in its scope.
    pub(super) fn autostop(&mut self, c: &El, s: &mut Scope, depth: usize) -> Result<(), Error> {
        let int = |k: &str| c.text_or_empty(k).parse::<i32>().ok();
        let secs = |k: &str| int(k).filter(|&n| n > 0).map_or(1, |n| n as u64);
        let mut limits = Vec::new();
        for (on, key, what) in [
            (flow::AutoStopOn::ResponseTime, "avg_response_time", "average response time"),
            (flow::AutoStopOn::Latency, "avg_response_latency", "average latency"),
        ] {
            if let Some(ms) = int(key).filter(|&ms| ms > 0) {
                limits.push((
                    flow::AutoStopLimit { on, above: f64::from(ms), secs: secs(&format!("{key}_length")) },
                    what,
                ));
            }
        }
        let rate = c.text_or_empty("error_rate").trim().parse::<f32>().ok().filter(|r| r.is_finite() && *r > 0.0);
        if let Some(rate) = rate {
            let above = f64::from(rate / 100.0);
            limits.push((
                flow::AutoStopLimit { on: flow::AutoStopOn::ErrorRate, above, secs: secs("error_rate_length") },
                "",
            ));
        }
        if limits.is_empty() {
            self.report(c, depth, Status::Ignored, "no limit set: it never stops the test");
            return Ok(());
        }
        let said: Vec<String> = limits
            .iter()
            .map(|(l, what)| match l.on {
                flow::AutoStopOn::ErrorRate => format!("error rate above {}% for {} s", l.above * 100.0, l.secs),
                _ => format!("{what} above {} ms for {} s", l.above, l.secs),
            })
            .collect();
        let whose = if depth <= 1 { "the run's samples" } else { "the samples in its scope" };
        let note = format!("stops the test when {whose} have, second after second, {}", said.join(" or "));
        self.report(c, depth, Status::Supported, note);
        s.autostops.push(self.autostops.len());
        let labels = (depth > 1).then(Vec::new);
        let limits = limits.into_iter().map(|(l, _)| l).collect();
        // Known by the element's place in the tree being walked: the sampler or controller it
        // sits under finds it among its children (see `autostop_sees`).
        self.autostops.push((std::ptr::from_ref(c) as usize, flow::AutoStop { name: c.name.clone(), limits, labels }));
        Ok(())
    }

    /// The samples of `steps`, which element `c` makes, are seen by the AutoStop Listeners in
    /// `scope` and by those among `c`'s own children (a listener under a sampler sees it).
    pub(super) fn autostop_sees(&mut self, c: &El, scope: &Scope, steps: &[Step]) {
        // What an element that does not run makes is dropped (its labels too).
        if self.inert > 0 || self.autostops.is_empty() {
            return;
        }
        let own: Vec<usize> = c.children.iter().map(|ch| std::ptr::from_ref(ch) as usize).collect();
        for (i, (at, a)) in self.autostops.iter_mut().enumerate() {
            if let (Some(labels), true) = (&mut a.labels, scope.autostops.contains(&i) || own.contains(at)) {
                flow::sample_labels(steps, labels);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The plan of one thread group (1 user) holding `body`.
    fn one_group(body: &str) -> Plan {
        let text = format!(
            r#"<jmeterTestPlan><hashTree><TestPlan testclass="TestPlan" testname="P" enabled="true"/><hashTree><ThreadGroup testclass="ThreadGroup" testname="G" enabled="true"><stringProp name="ThreadGroup.num_threads">1</stringProp></ThreadGroup><hashTree>{body}</hashTree></hashTree></hashTree></jmeterTestPlan>"#
        );
        read(&text, Path::new("t.jmx"), &Options::default()).unwrap().0
    }

    /// #13: an AutoStop Listener sees the samples of the samplers in its scope: under the test
    /// plan every one (none listed), in a thread group that group's, under a sampler that
    /// sampler's; its limits are read as the plugin reads them.
    #[test]
    fn an_autostop_sees_the_samplers_in_its_scope() {
        let stop = |props: &str| {
            format!(
                r#"<kg.apc.jmeter.reporters.AutoStop testclass="kg.apc.jmeter.reporters.AutoStop" testname="stop" enabled="true">{props}</kg.apc.jmeter.reporters.AutoStop><hashTree/>"#
            )
        };
        let http = |n: &str, children: &str| {
            format!(
                r#"<HTTPSamplerProxy testclass="HTTPSamplerProxy" testname="{n}" enabled="true"><stringProp name="HTTPSampler.domain">127.0.0.1</stringProp></HTTPSamplerProxy><hashTree>{children}</hashTree>"#
            )
        };
        let group = |name: &str, body: &str| {
            format!(
                r#"<ThreadGroup testclass="ThreadGroup" testname="{name}" enabled="true"><stringProp name="ThreadGroup.num_threads">1</stringProp></ThreadGroup><hashTree>{body}</hashTree>"#
            )
        };
        let time = r#"<stringProp name="avg_response_time">250</stringProp><stringProp name="avg_response_time_length">x</stringProp>"#;
        let rate = r#"<stringProp name="error_rate">45.9</stringProp><stringProp name="error_rate_length">3</stringProp><stringProp name="avg_response_latency"></stringProp>"#;
        let body = [
            stop(time),
            group("A", &(stop(rate) + &http("a1", "") + &http("a2", ""))),
            group("B", &(http("b1", &stop(time)) + &http("b2", ""))),
        ]
        .concat();
        let text = format!(
            r#"<jmeterTestPlan><hashTree><TestPlan testclass="TestPlan" testname="P" enabled="true"/><hashTree>{body}</hashTree></hashTree></jmeterTestPlan>"#
        );
        let (p, _) = read(&text, Path::new("t.jmx"), &Options::default()).unwrap();
        let seen: Vec<Option<Vec<&str>>> =
            p.autostops.iter().map(|a| a.labels.as_ref().map(|l| l.iter().map(|id| p.label(*id)).collect())).collect();
        assert_eq!(seen, [None, Some(vec!["a1", "a2"]), Some(vec!["b1"])]);
        let l = p.autostops[0].limits[0];
        assert_eq!((l.on, l.above, l.secs), (flow::AutoStopOn::ResponseTime, 250.0, 1));
        let l = p.autostops[1].limits[0];
        assert_eq!((l.on, l.secs), (flow::AutoStopOn::ErrorRate, 3));
        assert!((l.above - 0.459).abs() < 1e-6, "{}", l.above);
    }

    /// A pre-processor runs before a WebSocket sampler and a Parallel HTTP Requests (an HTTP
    /// sampler) too: JMeter's thread runs the pre-processors in scope before any sampler.
    #[test]
    fn fifo_pop_runs_before_websocket_and_parallel_http_samplers() {
        let pop = r#"<kg.apc.jmeter.modifiers.FifoPopPreProcessor testclass="kg.apc.jmeter.modifiers.FifoPopPreProcessor" testname="pop" enabled="true"><stringProp name="FifoName">Q</stringProp><stringProp name="Variable">v</stringProp><stringProp name="Timeout">5</stringProp></kg.apc.jmeter.modifiers.FifoPopPreProcessor><hashTree/>"#;
        let ws = "eu.luminis.jmeter.wssampler.SingleWriteWebSocketSampler";
        let par = "com.blazemeter.jmeter.http.ParallelHTTPSampler";
        for sampler in [
            format!(
                r#"<{ws} testclass="{ws}" testname="ws"><stringProp name="requestData">${{v}}</stringProp></{ws}><hashTree/>"#
            ),
            format!(
                r#"<{par} testclass="{par}" testname="par" enabled="true"><collectionProp name="urls"><collectionProp name="x"><stringProp name="y">http://127.0.0.1/${{v}}</stringProp></collectionProp></collectionProp></{par}><hashTree/>"#
            ),
        ] {
            let p = one_group(&format!("{pop}{sampler}"));
            let kinds: Vec<&str> = p.scenarios[0]
                .flow
                .iter()
                .map(|s| match s {
                    Step::Fifo(_) => "pop",
                    Step::Sample(Sampler::WebSocket(_)) | Step::Parallel(_) => "sample",
                    _ => "other",
                })
                .collect();
            assert_eq!(kinds, ["pop", "sample"], "{sampler}");
        }
    }

    /// An AutoStop Listener sees every sample a listener of JMeter's sees: a WebSocket or TCP
    /// sampler's, a Parallel Controller's parent sample (its children are its sub-results), and
    /// each child of one without a parent.
    #[test]
    fn an_autostop_sees_socket_websocket_and_parallel_samples() {
        let stop = r#"<kg.apc.jmeter.reporters.AutoStop testclass="kg.apc.jmeter.reporters.AutoStop" testname="stop" enabled="true"><stringProp name="avg_response_time">250</stringProp></kg.apc.jmeter.reporters.AutoStop><hashTree/>"#;
        let http = |n: &str| {
            format!(
                r#"<HTTPSamplerProxy testclass="HTTPSamplerProxy" testname="{n}" enabled="true"><stringProp name="HTTPSampler.domain">127.0.0.1</stringProp></HTTPSamplerProxy><hashTree/>"#
            )
        };
        let par = |name: &str, parent: bool, children: &str| {
            let class = "com.blazemeter.jmeter.controller.ParallelSampler";
            format!(
                r#"<{class} testclass="{class}" testname="{name}" enabled="true"><boolProp name="PARENT_SAMPLE">{parent}</boolProp></{class}><hashTree>{children}</hashTree>"#
            )
        };
        let ws = "eu.luminis.jmeter.wssampler.OpenWebSocketSampler";
        let body = [
            stop.to_string(),
            format!(r#"<{ws} testclass="{ws}" testname="ws"><stringProp name="server">127.0.0.1</stringProp></{ws}><hashTree/>"#),
            r#"<TCPSampler testclass="TCPSampler" testname="tcp" enabled="true"><stringProp name="TCPSampler.server">127.0.0.1</stringProp></TCPSampler><hashTree/>"#.to_string(),
            par("with-parent", true, &(http("p1") + &http("p2"))),
            par("without", false, &http("q1")),
        ]
        .concat();
        let p = one_group(&body);
        let labels = p.autostops[0].labels.as_ref().expect("in a thread group: its samples");
        let seen: Vec<&str> = labels.iter().map(|id| p.label(*id)).collect();
        assert_eq!(seen, ["ws", "tcp", "with-parent", "q1"]);
    }

    /// #13: a pre-processor runs before each sampler in its scope (a Flow Control Action's
    /// pause too), before the sampler's timers, as JMeter's thread; a post-processor after it.
    #[test]
    fn fifo_processors_run_around_each_sampler_in_scope() {
        let http = |n: &str| {
            format!(
                r#"<HTTPSamplerProxy testclass="HTTPSamplerProxy" testname="{n}" enabled="true"><stringProp name="HTTPSampler.domain">127.0.0.1</stringProp></HTTPSamplerProxy><hashTree/>"#
            )
        };
        let body = [
            r#"<kg.apc.jmeter.modifiers.FifoPopPreProcessor testclass="kg.apc.jmeter.modifiers.FifoPopPreProcessor" testname="pop" enabled="true"><stringProp name="FifoName">Q</stringProp><stringProp name="Variable">v</stringProp><stringProp name="Timeout">5</stringProp></kg.apc.jmeter.modifiers.FifoPopPreProcessor><hashTree/>"#.to_string(),
            r#"<ConstantTimer testclass="ConstantTimer" testname="t" enabled="true"><stringProp name="ConstantTimer.delay">10</stringProp></ConstantTimer><hashTree/>"#.to_string(),
            http("a"),
            r#"<TestAction testclass="TestAction" testname="pause" enabled="true"><intProp name="ActionProcessor.action">1</intProp><stringProp name="ActionProcessor.duration">5</stringProp></TestAction><hashTree/>"#.to_string(),
            r#"<kg.apc.jmeter.modifiers.FifoPutPostProcessor testclass="kg.apc.jmeter.modifiers.FifoPutPostProcessor" testname="put" enabled="true"><stringProp name="FifoName">Q</stringProp><stringProp name="Value">${v}</stringProp></kg.apc.jmeter.modifiers.FifoPutPostProcessor><hashTree/>"#.to_string(),
        ]
        .concat();
        let p = one_group(&body);
        let kinds: Vec<&str> = p.scenarios[0]
            .flow
            .iter()
            .map(|s| match s {
                Step::Fifo(f) if matches!(f.action, flow::FifoAction::Pop { timeout_s: Some(5), .. }) => "pop",
                Step::Fifo(_) => "put",
                Step::Think(_) => "think",
                Step::Sample(Sampler::Http(_)) => "request",
                _ => "other",
            })
            .collect();
        assert_eq!(kinds, ["pop", "think", "request", "put", "pop", "think", "think"]);
    }
}

/// #13: the elements this round added, read with their fields missing, empty or odd and in odd
/// places (at the test plan's level, under a sampler, inside each other): never a panic, and
/// every problem names its line and element.
#[cfg(test)]
mod odd_input {
    use super::*;

    const CLASSES: &[&str] = &[
        "eu.luminis.jmeter.wssampler.OpenWebSocketSampler",
        "eu.luminis.jmeter.wssampler.SingleWriteWebSocketSampler",
        "eu.luminis.jmeter.wssampler.SingleReadWebSocketSampler",
        "eu.luminis.jmeter.wssampler.RequestResponseWebSocketSampler",
        "eu.luminis.jmeter.wssampler.CloseWebSocketSampler",
        "eu.luminis.jmeter.wssampler.PingPongSampler",
        "eu.luminis.jmeter.wssampler.PingFrameFilter",
        "eu.luminis.jmeter.wssampler.TextFrameFilter",
        "eu.luminis.jmeter.wssampler.BinaryFrameFilter",
        "TCPSampler",
        "kg.apc.jmeter.samplers.HTTPRawSampler",
        "kg.apc.jmeter.samplers.UDPSampler",
        "kg.apc.jmeter.modifiers.RawRequestSourcePreProcessor",
        "com.blazemeter.jmeter.controller.ParallelSampler",
        "com.blazemeter.jmeter.http.ParallelHTTPSampler",
        "kg.apc.jmeter.modifiers.FifoPopPreProcessor",
        "kg.apc.jmeter.modifiers.FifoPutPostProcessor",
        "kg.apc.jmeter.reporters.AutoStop",
        "RegExUserParameters",
        "URLRewritingModifier",
        "ModuleController",
    ];

    /// Every property name these elements read, each given `value`.
    fn props(value: &str) -> String {
        [
            "server",
            "port",
            "path",
            "requestData",
            "dataType",
            "type",
            "statusCode",
            "connectTimeout",
            "readTimeout",
            "filterType",
            "comparisonType",
            "matchValue",
            "matchPosition",
            "TCPSampler.server",
            "TCPSampler.port",
            "TCPSampler.classname",
            "TCPSampler.EolByte",
            "TCPSampler.timeout",
            "hostname",
            "data",
            "fileName",
            "timeout",
            "encodeclass",
            "variable_name",
            "filename",
            "MAX_THREAD_NUMBER",
            "HTTPSampler.concurrentPool",
            "FifoName",
            "Variable",
            "Timeout",
            "Value",
            "avg_response_time",
            "avg_response_time_length",
            "error_rate",
            "error_rate_length",
            "RegExUserParameters.regex_ref_name",
            "RegExUserParameters.param_names_gr_nr",
            "RegExUserParameters.param_values_gr_nr",
            "argument_name",
        ]
        .iter()
        .map(|n| format!(r#"<stringProp name="{n}">{value}</stringProp>"#))
        .chain(
            ["LIMIT_MAX_THREAD_NUMBER", "PARENT_SAMPLE", "loadDataFromFile", "path_extension", "createNewConnection"]
                .iter()
                .map(|n| format!(r#"<boolProp name="{n}">true</boolProp>"#)),
        )
        .chain([
            r#"<collectionProp name="ModuleController.node_path"><stringProp name="1">x</stringProp></collectionProp>"#
                .to_string(),
            format!(r#"<collectionProp name="urls"><stringProp name="1">{value}</stringProp></collectionProp>"#),
        ])
        .collect()
    }

    fn el(class: &str, props: &str, children: &str) -> String {
        format!(
            r#"<{class} testclass="{class}" testname="e" enabled="true">{props}</{class}><hashTree>{children}</hashTree>"#
        )
    }

    #[test]
    fn odd_fields_and_places_never_panic() {
        for value in
            ["", " ", "-1", "0", "NaN", "1e400", "${", "${x}", "%zz", "&lt;&amp;", "😀", "99999999999999999999"]
        {
            let p = props(&value.replace("${", "&#36;{"));
            for class in CLASSES {
                for (plan_level, in_group) in [
                    (el(class, "", ""), String::new()),
                    (String::new(), el(class, &p, "")),
                    (String::new(), el("HTTPSamplerProxy", "", &el(class, &p, ""))),
                    (String::new(), el(class, &p, &el(class, &p, &el("HTTPSamplerProxy", "", "")))),
                ] {
                    let text = format!(
                        r#"<jmeterTestPlan><hashTree><TestPlan testclass="TestPlan" testname="P" enabled="true"/><hashTree>{plan_level}
                        <ThreadGroup testclass="ThreadGroup" testname="G" enabled="true"><stringProp name="ThreadGroup.num_threads">1</stringProp></ThreadGroup>
                        <hashTree>{in_group}</hashTree></hashTree></hashTree></jmeterTestPlan>"#
                    );
                    let i = inspect(&text, Path::new("odd.jmx"), &Options::default());
                    for e in &i.problems {
                        let s = e.to_string();
                        let whole_plan = s.contains("no thread group sends a request");
                        assert!(
                            s.contains("odd.jmx") && (whole_plan || (s.contains("odd.jmx:") && s.contains('<'))),
                            "{class} {value:?}: {s}"
                        );
                    }
                }
            }
        }
    }
}
