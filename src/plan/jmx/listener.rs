//! Listeners: a Simple Data Writer's results file becomes a JTL the run writes; GUI listeners
//! and result savers have no effect on the load.

use super::*;

/// The listeners, by class.
pub(super) const ELEMENTS: &[(&str, ScopeFn)] = &[
    ("ResultCollector", Cx::result_collector),
    ("Summariser", Cx::gui_listener),
    ("BackendListener", Cx::gui_listener),
    ("ResultSaver", Cx::result_saver),
];

impl Cx {
    /// A listener with a file writes every sample to it; one without is a GUI listener.
    pub(super) fn result_collector(&mut self, c: &El, s: &mut Scope, depth: usize) -> Result<(), Error> {
        if c.text("filename").is_none() {
            return self.gui_listener(c, s, depth);
        }
        let name = self.expand(c, c.text_or_empty("filename"))?;
        let path = self.file.parent().unwrap_or(Path::new(".")).join(name.trim());
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

    pub(super) fn result_saver(&mut self, c: &El, _s: &mut Scope, depth: usize) -> Result<(), Error> {
        self.report(c, depth, Status::Ignored, "saves response bodies to files: not done");
        Ok(())
    }
}
