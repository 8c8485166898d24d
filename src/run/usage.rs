//! The generator's own CPU and memory use over a run, measured from the process's resource
//! usage; the run directory keeps only the numbers ([`GeneratorUsage`]).

use crate::rundir::GeneratorUsage;

/// Where the generator's CPU is measured from: the process's CPU time and the wall clock at the
/// start of a run. CPU spent before it (reading the plan and its data files, starting the
/// runtime) is not the run's: divided by a short run's wall time it would read as a saturated
/// generator.
#[derive(Debug, Clone, Copy)]
pub(crate) struct UsageClock {
    user_s: f64,
    system_s: f64,
    wall: std::time::Instant,
}

impl UsageClock {
    pub(crate) fn start() -> UsageClock {
        let (user_s, system_s, _) = rusage();
        UsageClock { user_s, system_s, wall: std::time::Instant::now() }
    }

    /// The CPU time used since [`start`](Self::start), over the wall time since then, and the
    /// process's peak memory (a peak is the process's own, whenever it was reached).
    pub(crate) fn usage(&self) -> GeneratorUsage {
        let (user_s, system_s, peak_rss_mib) = rusage();
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get() as u32);
        usage_between(
            (self.user_s, self.system_s),
            (user_s, system_s),
            self.wall.elapsed().as_secs_f64(),
            cores,
            peak_rss_mib,
        )
    }
}

/// The usage between two readings of the process's (user, system) CPU seconds, `wall_s` apart.
fn usage_between(start: (f64, f64), end: (f64, f64), wall_s: f64, cores: u32, peak_rss_mib: f64) -> GeneratorUsage {
    let (user, sys) = ((end.0 - start.0).max(0.0), (end.1 - start.1).max(0.0));
    GeneratorUsage {
        cpu_user_s: user,
        cpu_system_s: sys,
        cpu_pct_of_cores: if wall_s > 0.0 { (user + sys) / wall_s / f64::from(cores.max(1)) * 100.0 } else { 0.0 },
        cores,
        peak_rss_mib,
    }
}

/// This process's user and system CPU seconds so far, and its peak resident memory in MiB.
fn rusage() -> (f64, f64, f64) {
    // SAFETY: getrusage only writes the struct we pass.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut ru) };
    let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    // Linux reports ru_maxrss in KiB.
    (secs(ru.ru_utime), secs(ru.ru_stime), ru.ru_maxrss as f64 / 1024.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_is_counted_from_the_start_of_the_run_only() {
        // 0.4 s of CPU before the run (plan and data loaded), 0.05 s in a 0.2 s run on 2 cores.
        let u = usage_between((0.3, 0.1), (0.34, 0.11), 0.2, 2, 20.0);
        assert!((u.cpu_user_s - 0.04).abs() < 1e-9 && (u.cpu_system_s - 0.01).abs() < 1e-9, "{u:?}");
        assert!((u.cpu_pct_of_cores - 12.5).abs() < 1e-9, "{u:?}");
        assert_eq!(usage_between((1.0, 1.0), (1.0, 1.0), 0.0, 2, 1.0).cpu_pct_of_cores, 0.0);
    }

    #[test]
    fn a_clock_started_now_has_used_little() {
        let clock = UsageClock::start();
        let u = clock.usage();
        assert!(u.cpu_user_s + u.cpu_system_s < 0.5, "{u:?}");
        assert!(u.peak_rss_mib > 0.0 && u.cores >= 1, "{u:?}");
    }
}
