//! The samplers that send nothing: JMeter's Debug Sampler, the Java Request with JMeter's own
//! test clients (`JavaTest`, `SleepTest`), and the plugins' Dummy Sampler. Each makes a sample
//! (a row of the results, with its label) and a response the extractors and assertions of its
//! scope read, as JMeter's do; see [`crate::plan::sampler::synthetic`].

use super::*;
use crate::plan::sampler::synthetic::{alphanumeric_cmp, Elapsed, Synthetic, SyntheticBody};

/// The samplers without a connection, by class.
pub(super) const ELEMENTS: &[(&str, StepsFn)] = &[
    ("DebugSampler", Cx::debug_sampler),
    ("kg.apc.jmeter.samplers.DummySampler", Cx::dummy_sampler),
    ("JavaSampler", Cx::java_sampler),
];

const JAVA_TEST: &str = "org.apache.jmeter.protocol.java.test.JavaTest";
const SLEEP_TEST: &str = "org.apache.jmeter.protocol.java.test.SleepTest";

/// A Java Request Defaults element in scope, and how deep in the tree it is (the innermost
/// merges first).
#[derive(Debug, Clone, Default)]
pub(super) struct JavaDefaults {
    depth: usize,
    class: String,
    args: Vec<(String, String)>,
}

/// A `JavaConfig`'s class name and arguments. (JMeter 5.6.3 merges one of any GUI class:
/// `JavaSampler.applies` names only `JavaConfigGui`, yet a `SimpleConfigGui` one's arguments
/// were seen applied.)
fn java_defaults(c: &El) -> JavaDefaults {
    JavaDefaults { depth: 0, class: c.text_or_empty("classname").to_string(), args: java_args(&c.props) }
}

/// The arguments of a Java Request or Java Request Defaults, in order.
fn java_args(props: &[Prop]) -> Vec<(String, String)> {
    argument_rows(props, "arguments")
}

/// The (name, value) rows of the Arguments element `name` holds (a Java Request's arguments,
/// an OS Process Sampler's arguments and environment), in order.
pub(super) fn argument_rows(props: &[Prop], name: &str) -> Vec<(String, String)> {
    let Some(a) = props.nested(name) else { return Vec::new() };
    a.collection("Arguments.arguments")
        .unwrap_or_default()
        .iter()
        .filter_map(|p| match &p.value {
            Value::Element { props, .. } => Some((
                props.text_or_empty("Argument.name").to_string(),
                props.text_or_empty("Argument.value").to_string(),
            )),
            _ => None,
        })
        .collect()
}

/// What a sampler's own fields make; the scope adds the rest.
struct Made {
    label: String,
    success: Template,
    success_word: &'static str,
    code: Template,
    body: SyntheticBody,
    sent: Option<Template>,
    /// JMeter's sampler data (what a Response Assertion on "Request Data" reads).
    data: Option<Template>,
    elapsed: Elapsed,
    latency: Option<Template>,
    connect: Option<Template>,
}

impl Cx {
    /// Debug Sampler: succeeds at once with code 200, its body the variables (and properties)
    /// it shows.
    pub(super) fn debug_sampler(&mut self, c: &El, scope: &Scope, depth: usize) -> Result<Vec<Step>, Error> {
        // The defaults of JMeter's DebugSamplerBeanInfo: variables shown, properties not.
        let variables = c.flag("displayJMeterVariables").unwrap_or(true);
        let properties_shown = c.flag("displayJMeterProperties").unwrap_or(false);
        let system_shown = c.flag("displaySystemProperties").unwrap_or(false);
        let properties = c.flag("displayJMeterProperties").unwrap_or(false).then(|| {
            let mut p: Vec<(&String, &String)> = self.b.sym.properties.iter().collect();
            p.sort_by(|a, b| alphanumeric_cmp(a.0, b.0));
            p.iter().map(|(k, v)| format!("{k}={v}\n")).collect::<String>()
        });
        let mut notes = vec!["a sample without a connection: success, code 200".to_string()];
        let mut status = Status::Supported;
        if variables || properties.is_some() || c.flag("displaySystemProperties") == Some(true) {
            status = Status::Partial;
            notes.push(
                "its body lists the plan's variables and `-J` properties, not JMeter's own (START.MS, jmeter.properties) \
                 nor Java's system properties"
                    .into(),
            );
        }
        let made = Made {
            label: c.name.clone(),
            success: Template::literal("true"),
            success_word: "true",
            code: Template::literal("200"),
            body: SyntheticBody::Debug { variables, properties },
            sent: None,
            // DebugSampler's sampler data: the heading of each part it shows.
            data: Some(Template::literal(format!(
                "{}{}{}",
                if variables { "JMeterVariables\n" } else { "" },
                if properties_shown { "JMeterProperties\n" } else { "" },
                if system_shown { "SystemProperties\n" } else { "" }
            ))),
            elapsed: Elapsed::Fixed { ms: Template::literal("0"), wait: false },
            latency: None,
            connect: None,
        };
        self.synthetic_steps(c, scope, depth, made, status, notes.join("; "))
    }

    /// The plugins' Dummy Sampler (`kg.apc.jmeter.dummy.DummyElement`): its fields are
    /// templates; times that are not whole numbers are 0; it waits its response time only
    /// with "simulate waiting".
    pub(super) fn dummy_sampler(&mut self, c: &El, scope: &Scope, depth: usize) -> Result<Vec<Step>, Error> {
        let t = |cx: &mut Self, name: &str| cx.tmpl(c, c.text_or_empty(name));
        let wait = c.flag("WAITING").unwrap_or(false);
        let made = Made {
            label: c.name.clone(),
            success: t(self, "SUCCESFULL")?,
            success_word: "true",
            code: t(self, "RESPONSE_CODE")?,
            body: SyntheticBody::Text(t(self, "RESPONSE_DATA")?),
            sent: None,
            data: Some(t(self, "REQUEST_DATA")?),
            elapsed: Elapsed::Fixed { ms: t(self, "RESPONSE_TIME")?, wait },
            latency: Some(t(self, "LATENCY")?),
            connect: Some(t(self, "CONNECT")?),
        };
        let note = format!(
            "a sample without a connection{}; the response message is not kept (the results show the code's reason)",
            if wait { ", waiting its response time" } else { ", its response time stated, not waited" }
        );
        self.synthetic_steps(c, scope, depth, made, Status::Partial, note)
    }

    /// A Java Request: JMeter's `JavaTest` and `SleepTest` clients run here; any other class
    /// is user code stampede cannot run.
    pub(super) fn java_sampler(&mut self, c: &El, scope: &Scope, depth: usize) -> Result<Vec<Step>, Error> {
        // Java Request Defaults merge in as JMeter's `JavaSampler.addTestElement` does, the
        // innermost first (those under the sampler, then its parents'): an empty class name
        // takes the first one given, and their arguments follow the sampler's own.
        let mut defaults: Vec<JavaDefaults> =
            c.children.iter().filter(|ch| ch.enabled && ch.class == "JavaConfig").map(java_defaults).collect();
        let mut outer = scope.java.clone();
        outer.sort_by_key(|d| std::cmp::Reverse(d.depth));
        defaults.extend(outer);
        let own_class = c.text_or_empty("classname").to_string();
        let mut class = own_class.clone();
        let mut args = java_args(&c.props);
        for d in &defaults {
            if class.is_empty() {
                class = d.class.clone();
            }
            args.extend(d.args.iter().cloned());
        }
        // JMeter loads the client's class as the test starts, from the sampler's own name,
        // before any defaults merge in: without one, each sample is its ErrorSamplerClient's
        // failure, named after the class name the defaults gave (JMeter 5.6.3).
        if own_class.trim().is_empty() {
            let made = Made {
                label: format!("ERROR: {class}"),
                success: Template::literal("false"),
                success_word: "true",
                code: Template::literal(""),
                body: SyntheticBody::Text(Template::literal(format!("Class not found: {class}"))),
                sent: None,
                data: None,
                elapsed: Elapsed::Fixed { ms: Template::literal("0"), wait: false },
                latency: None,
                connect: None,
            };
            let note = format!(
                "no class name of its own: each sample fails as in JMeter (its class is loaded before Java Request \
                 Defaults apply), labelled `ERROR: {class}`"
            );
            return self.synthetic_steps(c, scope, depth, made, Status::Warning, note);
        }
        let class = own_class.trim().to_string();
        if class != JAVA_TEST && class != SLEEP_TEST {
            self.unsupported(c, depth, &format!("the Java Request class `{class}` is user code stampede cannot run"));
            return Ok(Vec::new());
        }
        // JavaSamplerContext.getParameter: the first argument of that name.
        let arg = |name: &str| args.iter().find(|(n, _)| n == name).map(|(_, v)| v.clone());
        let made = if class == SLEEP_TEST {
            Made {
                label: c.name.clone(),
                success: Template::literal("true"),
                success_word: "true",
                code: Template::literal(""),
                body: SyntheticBody::Text(Template::literal("")),
                sent: None,
                data: None,
                elapsed: Elapsed::Sleep {
                    time: self.tmpl(c, &arg("SleepTime").unwrap_or_default())?,
                    mask: self.tmpl(c, &arg("SleepMask").unwrap_or_default())?,
                    default_time: 1000,
                    default_mask: 0x3ff,
                },
                latency: None,
                connect: None,
            }
        } else {
            let label = arg("Label").filter(|l| !l.is_empty()).unwrap_or_else(|| c.name.clone());
            Made {
                label,
                success: self.tmpl(c, &arg("Status").unwrap_or_else(|| "OK".into()))?,
                success_word: "OK",
                code: self.tmpl(c, &arg("ResponseCode").unwrap_or_default())?,
                body: SyntheticBody::Text(self.tmpl(c, &arg("ResultData").unwrap_or_default())?),
                sent: Some(self.tmpl(c, &arg("SamplerData").unwrap_or_default())?),
                data: Some(self.tmpl(c, &arg("SamplerData").unwrap_or_default())?),
                elapsed: Elapsed::Sleep {
                    time: self.tmpl(c, &arg("Sleep_Time").unwrap_or_default())?,
                    mask: self.tmpl(c, &arg("Sleep_Mask").unwrap_or_default())?,
                    default_time: 100,
                    default_mask: 0xff,
                },
                latency: None,
                connect: None,
            }
        };
        let short = class.rsplit('.').next().unwrap_or_default();
        let note = format!(
            "JMeter's {short}: a sample without a connection, sleeping as it does; the response message is not kept"
        );
        self.synthetic_steps(c, scope, depth, made, Status::Partial, note)
    }

    /// Java Request Defaults (`JavaConfig`): the class name and arguments of the Java Requests
    /// in its scope (JMeter's JavaSampler takes configuration only from this GUI's elements).
    pub(super) fn java_config(&mut self, c: &El, s: &mut Scope, depth: usize) -> Result<(), Error> {
        s.java.push(JavaDefaults { depth, ..java_defaults(c) });
        let note = "arguments for the Java Requests in its scope, after their own; its class name only names the \
                    failed samples of those without one";
        self.report(c, depth, Status::Supported, note);
        Ok(())
    }

    /// The steps of a synthetic sampler: its scope's set-up and timers, the sample, then what
    /// runs after it.
    fn synthetic_steps(
        &mut self,
        c: &El,
        scope: &Scope,
        depth: usize,
        made: Made,
        status: Status,
        note: String,
    ) -> Result<Vec<Step>, Error> {
        self.sampler_steps(c, scope, depth, status, note, |cx, own| {
            let label = cx.b.label(&made.label);
            cx.run_time_label(c, &made.label, label);
            let failure = cx.b.check(format!("{}: the sampler reports a failure", made.label));
            Step::Sample(Sampler::Synthetic(Box::new(Synthetic {
                label,
                class: c.class.rsplit('.').next().unwrap_or_default().to_string(),
                success: made.success,
                success_word: made.success_word,
                failure,
                code: made.code,
                body: made.body,
                sent: made.sent,
                data: made.data,
                elapsed: made.elapsed,
                latency: made.latency,
                connect: made.connect,
                after: own.after(),
            })))
        })
    }

    /// The steps of a sampler that is not an HTTP request: its scope's set-up and timers, the
    /// sample `make` makes with the sampler's own scope, then what runs after it.
    pub(super) fn sampler_steps(
        &mut self,
        c: &El,
        scope: &Scope,
        depth: usize,
        status: Status,
        note: String,
        make: impl FnOnce(&mut Self, &Scope) -> Step,
    ) -> Result<Vec<Step>, Error> {
        let own = self.scope_of(&c.children, scope, depth + 1)?;
        match status {
            // What fails at run time as in JMeter: `--strict` refuses it.
            Status::Warning => self.warn(c, depth, note),
            _ => self.report(c, depth, status, note),
        }
        let mut steps = own.pre.clone();
        steps.extend(own.before.iter().cloned());
        steps.extend(own.timers.iter().map(|t| Step::Think(*t)));
        steps.push(make(self, &own));
        steps.extend(own.after.iter().cloned());
        Ok(steps)
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    /// A plan of one thread group (1 user, 1 loop) holding `samplers`.
    pub(in crate::plan::jmx) fn plan_of(samplers: &str) -> String {
        format!(
            r#"<?xml version="1.0" encoding="UTF-8"?>
<jmeterTestPlan version="1.2"><hashTree>
  <TestPlan testclass="TestPlan" testname="Plan" enabled="true"/>
  <hashTree>
    <ThreadGroup testclass="ThreadGroup" testname="Users" enabled="true">
      <elementProp name="ThreadGroup.main_controller" elementType="LoopController">
        <stringProp name="LoopController.loops">1</stringProp>
      </elementProp>
      <stringProp name="ThreadGroup.num_threads">1</stringProp>
    </ThreadGroup>
    <hashTree>{samplers}</hashTree>
  </hashTree>
</hashTree></jmeterTestPlan>"#
        )
    }

    fn read_plan(text: &str) -> Result<(Plan, Vec<ElementReport>), Error> {
        read(text, Path::new("t.jmx"), &Options::default())
    }

    fn java(class: &str, args: &[(&str, &str)]) -> String {
        let args: String = args
            .iter()
            .map(|(n, v)| {
                format!(
                    r#"<elementProp name="{n}" elementType="Argument"><stringProp name="Argument.name">{n}</stringProp><stringProp name="Argument.value">{v}</stringProp></elementProp>"#
                )
            })
            .collect();
        format!(
            r#"<JavaSampler testclass="JavaSampler" testname="java" enabled="true"><elementProp name="arguments" elementType="Arguments"><collectionProp name="Arguments.arguments">{args}</collectionProp></elementProp><stringProp name="classname">{class}</stringProp></JavaSampler><hashTree/>"#
        )
    }

    /// A plan made only of samplers that send nothing loads (JMeter runs it), each a sample.
    #[test]
    fn synthetic_samplers_become_samples_with_their_labels() {
        let text = plan_of(&format!(
            r#"<DebugSampler testclass="DebugSampler" testname="dbg" enabled="true"/><hashTree/>
               <kg.apc.jmeter.samplers.DummySampler testclass="kg.apc.jmeter.samplers.DummySampler" testname="dummy" enabled="true">
                 <boolProp name="SUCCESFULL">true</boolProp><stringProp name="RESPONSE_TIME">7</stringProp>
               </kg.apc.jmeter.samplers.DummySampler><hashTree/>
               {}"#,
            java(JAVA_TEST, &[("Label", "renamed"), ("Sleep_Time", "5")])
        ));
        let (plan, report) = read_plan(&text).unwrap();
        let labels: Vec<String> = plan.scenarios[0]
            .flow
            .iter()
            .filter_map(|s| match s {
                Step::Sample(Sampler::Synthetic(x)) => Some(plan.label(x.label).to_string()),
                _ => None,
            })
            .collect();
        assert_eq!(labels, ["dbg", "dummy", "renamed"]);
        assert!(report.iter().all(|r| r.status != Status::Unsupported), "{report:?}");
    }

    fn java_config(gui: &str, class: &str, args: &[(&str, &str)]) -> String {
        let sampler = java(class, args);
        let body = sampler.trim_end_matches("<hashTree/>").replacen("<JavaSampler", "<JavaConfig", 1);
        let body = body
            .replace("</JavaSampler>", "</JavaConfig>")
            .replace("testclass=\"JavaConfig\"", &format!("guiclass=\"{gui}\" testclass=\"JavaConfig\""));
        format!("{body}<hashTree/>")
    }

    /// The Java Requests' samples of a plan: (label, response code's source, status's source).
    fn java_samples(text: &str) -> Vec<(String, String, String)> {
        let (plan, report) = read_plan(text).unwrap();
        assert!(report.iter().all(|r| r.status != Status::Unsupported), "{report:?}");
        fn walk(steps: &[Step], plan: &Plan, out: &mut Vec<(String, String, String)>) {
            for s in steps {
                match s {
                    Step::Sample(Sampler::Synthetic(x)) => out.push((
                        plan.label(x.label).to_string(),
                        x.code.source().to_string(),
                        x.success.source().to_string(),
                    )),
                    Step::Sequence(inner) => walk(inner, plan, out),
                    _ => {}
                }
            }
        }
        let mut out = Vec::new();
        walk(&plan.scenarios[0].flow, &plan, &mut out);
        out
    }

    /// Java Request Defaults merge as JMeter 5.6.3's JavaSampler merges them (its JTL for this
    /// plan: `inner,200,false`, `child,201,false`, `ERROR: ...JavaTest,,false`, `sleeper,,true`):
    /// their arguments follow the sampler's own, the innermost defaults first (those under the
    /// sampler, then its parents'), the first of a name winning, whatever their GUI class; a
    /// sampler without a class of its own fails each sample, named after the defaults' class.
    #[test]
    fn java_request_defaults_add_arguments_after_the_samplers_own() {
        let outer = java_config("JavaConfigGui", SLEEP_TEST, &[("Label", "outer"), ("ResponseCode", "300")]);
        let inner = java_config("JavaConfigGui", JAVA_TEST, &[("ResponseCode", "201"), ("Label", "inner")]);
        let other = java_config("SimpleConfigGui", "", &[("Status", "FAIL"), ("Label", "never")]);
        let own = java(JAVA_TEST, &[("ResponseCode", "200")]);
        let under = java(JAVA_TEST, &[]).replace(
            "<hashTree/>",
            &format!("<hashTree>{}</hashTree>", java_config("JavaConfigGui", "", &[("Label", "child")])),
        );
        let empty = java("", &[]).replace("testname=\"java\"", "testname=\"empty\"");
        let named = java(SLEEP_TEST, &[]).replace("testname=\"java\"", "testname=\"sleeper\"");
        let group = format!(
            r#"<GenericController testclass="GenericController" testname="g" enabled="true"/><hashTree>{inner}{other}{own}{under}{empty}</hashTree>"#
        );
        let samples = java_samples(&plan_of(&format!("{outer}{group}{named}")));
        let row = |l: &str, code: &str, ok: &str| (l.to_string(), code.to_string(), ok.to_string());
        assert_eq!(
            samples,
            [
                row("inner", "200", "FAIL"),
                row("child", "201", "FAIL"),
                row(&format!("ERROR: {JAVA_TEST}"), "", "false"),
                row("sleeper", "", "true"),
            ]
        );
        // Without defaults, a Java Request without a class loads (JMeter runs it) and fails.
        let alone = java_samples(&plan_of(&java("", &[])));
        assert_eq!(alone, [row("ERROR: ", "", "false")]);
    }

    /// A Java Request of any other class runs user code: unsupported.
    #[test]
    fn other_java_classes_stay_unsupported() {
        let e = read_plan(&plan_of(&java("com.example.MyClient", &[]))).unwrap_err();
        assert!(e.to_string().contains("com.example.MyClient"), "{e}");
    }
}
