//! Timers: think times before each sampler in their scope (constant, uniform, Gaussian,
//! Poisson), the constant throughput timer's pacing, and the Throughput Shaping Timer's rate
//! schedule shared by every user.

use super::*;

/// The timers, by class.
pub(super) const ELEMENTS: &[(&str, ScopeFn)] = &[
    ("ConstantTimer", Cx::constant_timer),
    ("UniformRandomTimer", Cx::uniform_random_timer),
    ("ConstantThroughputTimer", Cx::constant_throughput_timer),
    ("GaussianRandomTimer", Cx::random_timer),
    ("PoissonRandomTimer", Cx::random_timer),
    ("kg.apc.jmeter.timers.VariableThroughputTimer", Cx::shaping_timer),
];

impl Cx {
    pub(super) fn constant_timer(&mut self, c: &El, s: &mut Scope, depth: usize) -> Result<(), Error> {
        let ms: f64 = self.number(c, c.text("ConstantTimer.delay").unwrap_or("0"), "delay")?;
        s.timers.push(Think::Constant(self.millis(c, ms, "delay")?));
        self.report(c, depth, Status::Supported, "a think time before each sampler in scope");
        Ok(())
    }

    pub(super) fn uniform_random_timer(&mut self, c: &El, s: &mut Scope, depth: usize) -> Result<(), Error> {
        let offset: f64 = self.number(c, c.text("ConstantTimer.delay").unwrap_or("0"), "delay")?;
        let range: f64 = self.number(c, c.text("RandomTimer.range").unwrap_or("0"), "range")?;
        let min = self.millis(c, offset, "delay")?;
        let max = self.millis(c, offset + range.max(0.0), "delay + range")?;
        s.timers.push(Think::Uniform { min, max });
        self.report(c, depth, Status::Supported, "a uniform think time before each sampler in scope");
        Ok(())
    }

    pub(super) fn constant_throughput_timer(&mut self, c: &El, s: &mut Scope, depth: usize) -> Result<(), Error> {
        let per_minute: f64 = self.number(c, c.text("throughput").unwrap_or("0"), "target throughput")?;
        let mode = c.text("calcMode").unwrap_or("0").trim().to_string();
        if per_minute > 0.0 {
            let slot = self.b.slot(Slot::Pace);
            let interval = self.secs(c, 60.0 / per_minute, "interval (60 s / target throughput)")?;
            s.timers.push(Think::Throughput { interval, shared: mode != "0", slot });
        }
        let (status, note) = match mode.as_str() {
                "0" => (Status::Supported, format!("each user: at most {per_minute} samples a minute")),
                "1" | "2" => (Status::Supported, format!("all active users together: {per_minute} samples a minute")),
                _ => (Status::Partial, format!("{per_minute} samples a minute shared by the active users of the thread group (JMeter's shared modes spread it differently)")),
            };
        self.report(c, depth, status, note);
        Ok(())
    }

    /// The Throughput Shaping Timer: rows of (start rate, end rate, seconds); each sampler in
    /// its scope waits for its turn in the rate of the current second, one schedule shared by
    /// every user of every thread group it is in; past the schedule the thread group stops.
    pub(super) fn shaping_timer(&mut self, c: &El, s: &mut Scope, depth: usize) -> Result<(), Error> {
        let mut rows = Vec::new();
        let mut notes = Vec::new();
        for row in c.collection("load_profile").unwrap_or_default() {
            let Value::Collection(cells) = &row.value else { continue };
            let cells = texts(cells);
            if cells.len() < 3 {
                return Err(
                    self.err(c, "a Throughput Shaping Timer row needs a start rate, an end rate and a duration")
                );
            }
            // As the plugin reads its cells: a rate that is not a number is 0, and so is a
            // duration that is not a whole number of seconds.
            let mut value = |cx: &mut Cx, raw: &str, what: &str, whole: bool| -> Result<f64, Error> {
                let v = cx.expand(c, raw)?;
                let n =
                    if whole { v.trim().parse::<i64>().map(|n| n as f64).ok() } else { v.trim().parse::<f64>().ok() };
                Ok(n.filter(|n| n.is_finite()).unwrap_or_else(|| {
                    notes.push(format!("{what} `{v}` is taken as 0, as the plugin does"));
                    0.0
                }))
            };
            let from = value(self, &cells[0], "start rate", false)?;
            let to = value(self, &cells[1], "end rate", false)?;
            let secs = value(self, &cells[2], "duration", true)?;
            self.secs(c, secs, "duration")?;
            rows.push(workload::ShapeRow { from, to, secs: secs.max(0.0) as u64 });
        }
        let total: u64 = rows.iter().map(|r| r.secs).sum();
        let slot = self.b.shaper(c.line, Shaper { name: c.name.clone(), rows });
        s.timers.push(Think::Shaped { slot });
        let mut note = format!(
            "samples of all users follow the rate schedule ({total} s, and its last second); then the thread group stops"
        );
        if !notes.is_empty() {
            note = format!("{note}; {}", notes.join("; "));
        }
        self.report(c, depth, Status::Supported, note);
        Ok(())
    }

    /// Gaussian and Poisson random timers.
    pub(super) fn random_timer(&mut self, c: &El, s: &mut Scope, depth: usize) -> Result<(), Error> {
        let offset: f64 = self.number(c, c.text("ConstantTimer.delay").unwrap_or("0"), "delay")?;
        let range: f64 = self.number(c, c.text("RandomTimer.range").unwrap_or("0"), "range")?;
        let (offset, deviation) = (self.millis(c, offset, "delay")?, self.millis(c, range, "range")?);
        s.timers.push(if c.class == "GaussianRandomTimer" {
            Think::Gaussian { offset, deviation }
        } else {
            Think::Poisson { offset, lambda_ms: deviation.as_secs_f64() * 1000.0 }
        });
        self.report(c, depth, Status::Supported, "a random think time before each sampler in scope");
        Ok(())
    }
}
