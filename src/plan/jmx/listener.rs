//! Listeners: a Simple Data Writer's results file becomes a JTL the run writes; GUI listeners,
//! monitors, uploaders and the recorder have no effect on the load; a Result Status Action
//! Handler decides what a failed sampler in its scope does next.

use super::*;

/// The listeners, by class.
pub(super) const ELEMENTS: &[(&str, ScopeFn)] = &[
    ("ResultCollector", Cx::result_collector),
    ("Summariser", Cx::gui_listener),
    ("BackendListener", Cx::gui_listener),
    ("ResultSaver", Cx::result_saver),
    ("ResultAction", Cx::result_action),
    // The plugins' graphs are result collectors too: with a file name, they write every sample.
    ("kg.apc.jmeter.vizualizers.CorrectedResultCollector", Cx::result_collector),
    ("kg.apc.jmeter.vizualizers.CompositeResultCollector", Cx::gui_listener),
    ("kg.apc.jmeter.perfmon.PerfMonCollector", Cx::monitor),
    ("kg.apc.jmeter.jmxmon.JMXMonCollector", Cx::monitor),
    ("kg.apc.jmeter.dbmon.DbMonCollector", Cx::monitor),
    ("kg.apc.jmeter.reporters.LoadosophiaUploader", Cx::reporter),
    ("kg.apc.jmeter.reporters.FlexibleFileWriter", Cx::reporter),
    ("kg.apc.jmeter.reporters.ConsoleStatusLogger", Cx::reporter),
    ("kg.apc.jmeter.listener.GraphsGeneratorListener", Cx::reporter),
    ("MailerResultCollector", Cx::reporter),
    ("ProxyControl", Cx::recorder),
    ("WorkBench", Cx::recorder),
];

impl Cx {
    /// A listener with a file writes every sample to it; one without is a GUI listener.
    pub(super) fn result_collector(&mut self, c: &El, s: &mut Scope, depth: usize) -> Result<(), Error> {
        if c.text("filename").is_none() {
            return self.gui_listener(c, s, depth);
        }
        let name = self.expand(c, c.text_or_empty("filename"))?;
        let path = self.file.parent().unwrap_or(Path::new(".")).join(name.trim());
        // A results file named inside the plan's directory may not lead out of it through a link.
        crate::confine::PlanDir::of_plan(&self.file)
            .named(Path::new(name.trim()))
            .map_err(|e| self.err(c, format!("the results file cannot be written: {e}")))?;
        let note = format!("writes every sample to {} (JMeter's CSV results format)", path.display());
        self.b.result_file(&path);
        self.report(c, depth, Status::Supported, note);
        Ok(())
    }

    pub(super) fn gui_listener(&mut self, c: &El, _s: &mut Scope, depth: usize) -> Result<(), Error> {
        self.report(
            c,
            depth,
            Status::Ignored,
            "a GUI listener: the run directory and `stampede report` hold the results",
        );
        Ok(())
    }

    /// A monitor of the servers (PerfMon, JMX, database): its own metrics, not the samples.
    pub(super) fn monitor(&mut self, c: &El, _s: &mut Scope, depth: usize) -> Result<(), Error> {
        let note = "collects the servers' own metrics from an agent: not done; the samples are unaffected";
        self.report(c, depth, Status::Ignored, note);
        Ok(())
    }

    /// A listener that prints, draws, mails or uploads the results, or writes them in a format
    /// of its own: the run directory and `--jtl` hold every sample.
    pub(super) fn reporter(&mut self, c: &El, _s: &mut Scope, depth: usize) -> Result<(), Error> {
        let note = "reports the results its own way (console, graphs, e-mail, upload, its own file format): not \
                    done; the run directory and `stampede report` hold them";
        self.report(c, depth, Status::Ignored, note);
        Ok(())
    }

    /// The HTTP(S) Test Script Recorder and the WorkBench: they record, a test run sends nothing
    /// through them.
    pub(super) fn recorder(&mut self, c: &El, _s: &mut Scope, depth: usize) -> Result<(), Error> {
        self.report(c, depth, Status::Ignored, "the recorder (or its workbench): not part of a test run");
        Ok(())
    }

    /// Result Status Action Handler (JMeter's `ResultAction`): after a failed sampler in its
    /// scope, go on, start the next thread loop, stop the thread, or stop the test (now).
    pub(super) fn result_action(&mut self, c: &El, s: &mut Scope, depth: usize) -> Result<(), Error> {
        let action = c.text("OnError.action").unwrap_or("0").trim().to_string();
        let kind = match action.as_str() {
            "1" => flow::StopKind::User,
            "2" | "3" => flow::StopKind::Run,
            "4" => flow::StopKind::NextIteration,
            "5" => flow::StopKind::ContinueLoop,
            "6" => flow::StopKind::BreakLoop,
            // "Continue" (0), or a number JMeter knows no action for: nothing happens.
            _ => flow::StopKind::Continue,
        };
        self.report(c, depth, Status::Supported, format!("after a failed sampler in scope: {}", stop_name(kind)));
        // Several in scope: JMeter's thread honours every flag they set, so the one that ends
        // the most wins.
        s.on_error = s.on_error.max(kind);
        Ok(())
    }

    pub(super) fn result_saver(&mut self, c: &El, _s: &mut Scope, depth: usize) -> Result<(), Error> {
        self.report(c, depth, Status::Ignored, "saves response bodies to files: not done");
        Ok(())
    }
}

/// How `check` names what follows a failed sample.
pub(super) fn stop_name(kind: flow::StopKind) -> &'static str {
    match kind {
        flow::StopKind::Continue => "continue",
        flow::StopKind::ContinueLoop => "start the next iteration of the current loop",
        flow::StopKind::BreakLoop => "break the current loop",
        flow::StopKind::NextIteration => "start the next thread loop",
        flow::StopKind::User => "stop the thread",
        flow::StopKind::Run => "stop the test",
    }
}
