//! Timers: think times before each sampler in their scope (constant, uniform, Gaussian,
//! Poisson) and the constant throughput timer's pacing.

use super::*;

/// The timers, by class.
pub(super) const ELEMENTS: &[(&str, ScopeFn)] = &[
    ("ConstantTimer", Cx::constant_timer),
    ("UniformRandomTimer", Cx::uniform_random_timer),
    ("ConstantThroughputTimer", Cx::constant_throughput_timer),
    ("GaussianRandomTimer", Cx::random_timer),
    ("PoissonRandomTimer", Cx::random_timer),
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
