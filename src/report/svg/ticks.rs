//! Axes' numbers: the linear scale from data to plot coordinates, and tick positions and labels
//! (1-2-5 steps, clock times, percentiles on a log axis) chosen so neighbours never print alike.

pub(super) struct Scale {
    pub(super) lo: f64,
    pub(super) hi: f64,
    pub(super) from: f64,
    pub(super) to: f64,
}

impl Scale {
    pub(super) fn at(&self, v: f64) -> f64 {
        // Halving first keeps hi - lo finite for values near f64::MAX.
        let span = self.hi / 2.0 - self.lo / 2.0;
        let t = if span > 0.0 { (v / 2.0 - self.lo / 2.0) / span } else { 0.5 };
        self.from + (self.to - self.from) * t
    }
}

#[derive(Debug, Clone, PartialEq)]
pub(super) struct Ticks {
    pub(super) lo: f64,
    pub(super) hi: f64,
    pub(super) step: f64,
    pub(super) values: Vec<f64>,
}

/// About `target` ticks at a 1-2-5 ×10^n step covering lo..hi; with `extend` the axis grows to
/// the enclosing ticks so it ends on a labelled gridline.
pub(super) fn nice_ticks(lo: f64, hi: f64, target: usize, extend: bool) -> Ticks {
    let span = hi / 2.0 - lo / 2.0;
    let raw = span / target.max(1) as f64 * 2.0;
    let step = if raw > 0.0 && raw.is_finite() { nice_step(raw) } else { 1.0 };
    step_ticks(lo, hi, step, extend)
}

pub(super) fn nice_step(raw: f64) -> f64 {
    let mag = 10f64.powf(raw.log10().floor());
    let norm = raw / mag;
    let m = [1.0, 2.0, 5.0].into_iter().find(|&m| m >= norm * (1.0 - 1e-9)).unwrap_or(10.0);
    m * mag
}

pub(super) fn step_ticks(lo: f64, hi: f64, step: f64, extend: bool) -> Ticks {
    let (mut k_lo, mut k_hi) = ((lo / step - 1e-9).ceil(), (hi / step + 1e-9).floor());
    let (mut lo, mut hi) = (lo, hi);
    if extend {
        k_lo = (lo / step + 1e-9).floor();
        k_hi = (hi / step - 1e-9).ceil();
        let (l, h) = (k_lo * step, k_hi * step);
        // Past f64::MAX the nice bound would be infinite; keep the data's own bound then.
        if l.is_finite() {
            lo = l;
        }
        if h.is_finite() {
            hi = h;
        }
    }
    let mut values = vec![];
    if (k_hi - k_lo).abs() <= 1000.0 {
        let mut k = k_lo;
        while k <= k_hi {
            let v = k * step + 0.0; // + 0.0 turns -0.0 into 0.0
            if v.is_finite() && v >= lo - step * 1e-9 && v <= hi + step * 1e-9 {
                values.push(v);
            }
            k += 1.0;
        }
    }
    Ticks { lo, hi, step, values }
}

pub(super) fn seconds_ticks(lo: f64, hi: f64, target: usize) -> Ticks {
    const STEPS: [f64; 17] = [
        1.0, 2.0, 5.0, 10.0, 15.0, 30.0, 60.0, 120.0, 300.0, 600.0, 900.0, 1800.0, 3600.0, 7200.0, 10800.0, 21600.0,
        43200.0,
    ];
    let span = hi - lo;
    let raw = span / target.max(1) as f64;
    let step = if raw < 1.0 {
        nice_step(raw.max(1e-3))
    } else if let Some(&s) = STEPS.iter().find(|&&s| s >= raw) {
        s
    } else {
        nice_step(raw / 86400.0) * 86400.0
    };
    step_ticks(lo, hi, step, false)
}

pub(super) fn percentile_ticks(hi: f64) -> Ticks {
    // Plot positions are decades of 1 / (1 - p): 0 → 0%, 1 → 90%, 2 → 99%, ...
    let last = (hi + 1e-9).floor().min(15.0);
    let values = (0..=last as i64).map(|k| k as f64).collect();
    Ticks { lo: 0.0, hi, step: 1.0, values }
}

pub(super) fn percent_label(decades: f64) -> String {
    match decades.round() as usize {
        0 => "0%".into(),
        1 => "90%".into(),
        2 => "99%".into(),
        k => format!("99.{}%", "9".repeat(k - 2)),
    }
}

/// Seconds as m:ss, or h:mm:ss from an hour on; fractions only when the step needs them.
pub(super) fn clock(t: f64, step: f64) -> String {
    let sign = if t < 0.0 { "-" } else { "" };
    let decimals = decimals_for(step);
    let scale = 10f64.powi(decimals as i32);
    let total = (t.abs() * scale).round() / scale;
    let whole = total.trunc() as u64;
    let (h, m, sec) = (whole / 3600, whole / 60 % 60, whole % 60);
    let frac = if decimals > 0 {
        let f = format!("{:.*}", decimals, total.fract());
        f.trim_start_matches('0').to_string()
    } else {
        String::new()
    };
    if h > 0 {
        format!("{sign}{h}:{m:02}:{sec:02}{frac}")
    } else {
        format!("{sign}{m}:{sec:02}{frac}")
    }
}

/// Decimals needed to tell apart multiples of `step` (1-2-5 ×10^n).
pub(super) fn decimals_for(step: f64) -> usize {
    if step >= 1.0 || step <= 0.0 || !step.is_finite() {
        return 0;
    }
    ((-step.log10() - 1e-9).ceil() as usize).min(15)
}

/// A tick label: 1200 → "1.2k", 0.25 → "0.25", 15000000 → "15M", with as many decimals as
/// `step` needs so neighbouring ticks never print alike.
pub(super) fn compact(v: f64, step: f64) -> String {
    const SUFFIXES: [(f64, &str); 6] = [(1e18, "E"), (1e15, "P"), (1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")];
    if v == 0.0 {
        return "0".into();
    }
    let a = v.abs();
    if a >= 1e21 {
        return format!("{v:.1e}");
    }
    let (div, suffix) = SUFFIXES.iter().copied().find(|&(d, _)| a >= d).unwrap_or((1.0, ""));
    let s = format!("{:.*}", decimals_for(step / div), v / div);
    let s = if s.contains('.') { s.trim_end_matches('0').trim_end_matches('.') } else { &s };
    format!("{s}{suffix}")
}
