//! What Linux's `/proc` says of a process: CPU time, resident memory, threads, open files, and
//! the established TCP connections it owns (its socket inodes found in `/proc/net/tcp{,6}` of
//! its network namespace).

use std::collections::HashSet;
use std::path::Path;

/// One reading of one process.
#[derive(Debug, Clone, Default, PartialEq)]
pub(super) struct ProcStat {
    /// `utime + stime`, in clock ticks.
    pub(super) cpu_ticks: u64,
    /// When the process started, in clock ticks after boot: with the pid, who it is (a pid can
    /// be used again by another process).
    pub(super) start_ticks: u64,
    pub(super) rss_bytes: u64,
    pub(super) threads: u64,
    /// `Z` (exited, not yet reaped) and `X` are processes that are gone.
    pub(super) state: char,
    /// The command name (at most 15 bytes).
    pub(super) comm: String,
}

/// Reads `/proc/PID/stat`. `None` when there is no such process.
pub(super) fn stat(root: &Path, pid: u32) -> Option<Result<ProcStat, String>> {
    let text = match std::fs::read_to_string(root.join(pid.to_string()).join("stat")) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return None,
        // ESRCH: the process went away while being read.
        Err(e) if e.raw_os_error() == Some(libc::ESRCH) => return None,
        Err(e) => return Some(Err(format!("/proc/{pid}/stat: {e}"))),
    };
    Some(parse_stat(&text).ok_or_else(|| format!("/proc/{pid}/stat does not read")))
}

/// `pid (comm) S ppid ...`: the comm may hold spaces and parentheses, so the fields are counted
/// from its last `)`.
pub(super) fn parse_stat(text: &str) -> Option<ProcStat> {
    let open = text.find('(')?;
    let close = text.rfind(')')?;
    let comm = text.get(open + 1..close)?.to_string();
    let fields: Vec<&str> = text.get(close + 1..)?.split_whitespace().collect();
    // Field numbers of proc(5), from 3 (state): fields[0] is field 3.
    let field = |n: usize| fields.get(n - 3).and_then(|f| f.parse::<u64>().ok());
    let state = fields.first()?.chars().next()?;
    Some(ProcStat {
        cpu_ticks: field(14)? + field(15)?,
        start_ticks: field(22)?,
        rss_bytes: field(24)? * page_size(),
        threads: field(20)?,
        state,
        comm,
    })
}

fn page_size() -> u64 {
    // SAFETY: sysconf has no preconditions.
    let n = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    if n > 0 {
        n as u64
    } else {
        4096
    }
}

/// Clock ticks per second, the unit of `/proc/PID/stat`'s times.
pub(super) fn clock_ticks() -> f64 {
    // SAFETY: sysconf has no preconditions.
    let n = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    if n > 0 {
        n as f64
    } else {
        100.0
    }
}

/// The process's open file descriptors and the inodes of its sockets, or why they cannot be
/// read (another user's process without the privilege).
pub(super) fn fds(root: &Path, pid: u32) -> Result<(u64, HashSet<u64>), String> {
    let dir = root.join(pid.to_string()).join("fd");
    let entries = std::fs::read_dir(&dir).map_err(|e| format!("/proc/{pid}/fd: {e}"))?;
    let (mut count, mut sockets) = (0u64, HashSet::new());
    for e in entries.flatten() {
        count += 1;
        if let Ok(target) = std::fs::read_link(e.path()) {
            if let Some(inode) = socket_inode(&target.to_string_lossy()) {
                sockets.insert(inode);
            }
        }
    }
    Ok((count, sockets))
}

/// `socket:[12345]` → 12345.
fn socket_inode(link: &str) -> Option<u64> {
    link.strip_prefix("socket:[")?.strip_suffix(']')?.parse().ok()
}

/// The inodes of the established TCP sockets (IPv4 and IPv6) in the network namespace of `pid`.
pub(super) fn established(root: &Path, pid: u32) -> HashSet<u64> {
    let mut out = HashSet::new();
    for file in ["tcp", "tcp6"] {
        if let Ok(text) = std::fs::read_to_string(root.join(pid.to_string()).join("net").join(file)) {
            out.extend(established_inodes(&text));
        }
    }
    out
}

/// The inodes of the lines of a `/proc/net/tcp` table whose state is ESTABLISHED (`01`).
pub(super) fn established_inodes(table: &str) -> impl Iterator<Item = u64> + '_ {
    table.lines().skip(1).filter_map(|line| {
        let f: Vec<&str> = line.split_whitespace().collect();
        (f.get(3) == Some(&"01")).then(|| f.get(9)?.parse().ok()).flatten()
    })
}

/// The pids whose command name (or, for names longer than the 15 bytes a comm keeps, whose
/// executable's file name) is `name`.
pub(super) fn pids_named(root: &Path, name: &str) -> Vec<u32> {
    let Ok(entries) = std::fs::read_dir(root) else { return Vec::new() };
    let mut out: Vec<u32> = entries
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            let base = root.join(pid.to_string());
            let Ok(comm) = std::fs::read_to_string(base.join("comm")) else { return false };
            let comm = comm.trim_end_matches('\n');
            if comm == name {
                return true;
            }
            name.len() > comm.len()
                && comm.len() >= 15
                && name.starts_with(comm)
                && std::fs::read_link(base.join("exe"))
                    .is_ok_and(|exe| exe.file_name().is_some_and(|f| f.to_string_lossy() == name))
        })
        .collect();
    out.sort_unstable();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stat_fields_after_a_comm_with_spaces_and_parens() {
        let text = "4242 (my (odd) prog) R 1 4242 4242 0 -1 4194304 100 0 0 0 250 50 0 0 20 0 7 0 123456 \
                    1000000 300 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0\n";
        let s = parse_stat(text).unwrap();
        assert_eq!(s.comm, "my (odd) prog");
        assert_eq!(s.state, 'R');
        assert_eq!(s.cpu_ticks, 300);
        assert_eq!(s.threads, 7);
        assert_eq!(s.start_ticks, 123456);
        assert_eq!(s.rss_bytes, 300 * page_size());
        assert_eq!(parse_stat("12 (x) R 1 2"), None);
    }

    #[test]
    fn established_sockets_only() {
        let table =
            "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n\
   0: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 1111 1 0 100 0 0 10 0\n\
   1: 0100007F:1F90 0100007F:D2B4 01 00000000:00000000 00:00000000 00000000     0        0 2222 1 0 20 4 30 10 -1\n\
   2: 0100007F:D2B4 0100007F:1F90 06 00000000:00000000 00:00000000 00000000     0        0 0 1 0 20 4 30 10 -1\n";
        assert_eq!(established_inodes(table).collect::<Vec<_>>(), vec![2222]);
        assert_eq!(socket_inode("socket:[2222]"), Some(2222));
        assert_eq!(socket_inode("pipe:[2222]"), None);
    }

    #[test]
    fn this_process_reads() {
        let root = Path::new("/proc");
        let me = std::process::id();
        let s = stat(root, me).unwrap().unwrap();
        assert!(s.threads >= 1 && s.rss_bytes > 0);
        let (fds, _) = fds(root, me).unwrap();
        assert!(fds >= 3);
        assert!(stat(root, u32::MAX - 1).is_none());
        assert!(pids_named(root, &s.comm).contains(&me));
    }
}
