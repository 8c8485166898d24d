//! The limit on open files: raised before a run, and compared with what the plan may open.

use crate::plan::Plan;

/// Descriptors kept for what is not a user's connection: the run directory, results files,
/// data files, the runtime.
pub(crate) const FDS_RESERVED: u64 = 64;

/// Raises the soft limit on open files to the hard limit, as Go's runtime does at start: the
/// default soft limit (often 1024) is far below what a load generator with thousands of users
/// needs, while the hard limit usually is not. Returns the limit now in force.
pub fn raise_limit() -> Option<u64> {
    let mut lim = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
    // SAFETY: getrlimit/setrlimit read and write the struct given, nothing else.
    unsafe {
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim) != 0 {
            return None;
        }
        if lim.rlim_cur < lim.rlim_max {
            let raised = libc::rlimit { rlim_cur: lim.rlim_max, rlim_max: lim.rlim_max };
            if libc::setrlimit(libc::RLIMIT_NOFILE, &raised) == 0 {
                lim = raised;
            }
        }
    }
    Some(lim.rlim_cur)
}

/// When `limit` is below what this process's `segment` of `plan` may need (a connection per
/// user at once, plus [`FDS_RESERVED`]): the users at most and the limit to raise to.
pub(crate) fn shortfall(
    plan: &Plan,
    segment: &crate::engine::segment::Segment,
    limit: Option<u64>,
) -> Option<(u64, u64)> {
    let users_at_most: u64 =
        plan.scenarios.iter().map(|s| segment.count_below(s.workload.max_concurrent_users())).sum();
    let needed = users_at_most.saturating_add(FDS_RESERVED);
    limit.filter(|l| needed > *l).map(|_| (users_at_most, needed))
}
