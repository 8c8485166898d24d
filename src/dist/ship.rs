//! What a job ships: the plan's files, found however the plan reaches them, under their common
//! root (see [`crate::plan::files::Shipment`]).

use super::protocol::{JobFile, MAX_JOB_BYTES};
use crate::plan::Plan;
use base64::Engine as _;
use std::path::{Path, PathBuf};

/// What a job ships, and where.
#[derive(Debug)]
pub(crate) struct JobFiles {
    /// The plan, relative to the root.
    pub plan: String,
    /// The common root on the controller's machine.
    pub root: String,
    pub files: Vec<JobFile>,
    /// Said to the user: the plan's directory was not sent whole (it is the home directory).
    pub note: Option<String>,
}

/// What a job ships: the plan's directory (and below: names made while the plan runs, such as
/// `bodies/${id}.json`, are read there) and every file the plan reads outside it, with the
/// folders of `--ship`, under their common root. Hidden files and folders, run directories and
/// the files in `never` (the token file) stay behind; so does the rest of the plan's directory
/// when it is the home directory.
pub(crate) fn job_files(plan: &Plan, ship: &[PathBuf], never: &[PathBuf]) -> Result<JobFiles, String> {
    use crate::plan::files::{files_under, is_home, Folder};
    let run_dir = |d: &Path| d.join(crate::rundir::META).exists();
    let mut extra = Vec::new();
    let mut refused = Vec::new();
    let mut note = None;
    if let Some(dir) = plan.source.as_deref().map(|p| p.parent().unwrap_or(Path::new(""))) {
        if is_home(dir) {
            note = Some(
                "the plan is in your home directory, which is not sent whole: only the files the plan reads when it loads (--ship DIR sends a folder)"
                    .to_string(),
            );
        } else {
            match files_under(dir, Folder::PlansOwn, run_dir) {
                Ok(f) => extra.extend(f),
                Err(e) => refused.extend(e),
            }
        }
    }
    for dir in ship {
        match files_under(dir, Folder::Chosen, run_dir) {
            Ok(f) => extra.extend(f),
            Err(e) => refused.extend(e),
        }
    }
    // Every refusal at once: the folders' and the files'.
    let s = match (crate::plan::files::Shipment::new(plan, extra, never, MAX_JOB_BYTES), refused.is_empty()) {
        (Ok(s), true) => s,
        (Ok(_), false) => {
            return Err(format!("cannot send the plan's files to the agents:\n  {}", refused.join("\n  ")))
        }
        (Err(e), _) => return Err([e.to_string()].into_iter().chain(refused).collect::<Vec<_>>().join("\n  ")),
    };
    let mut files = Vec::new();
    for f in &s.files {
        let mut bytes = Vec::new();
        crate::confine::open(&f.real, crate::confine::Access::Read)
            .and_then(|mut h| std::io::Read::read_to_end(&mut h, &mut bytes))
            .map_err(|e| format!("{}: cannot be read: {e}", s.root.join(&f.path).display()))?;
        files.push(JobFile { path: f.path.clone(), base64: base64::engine::general_purpose::STANDARD.encode(bytes) });
    }
    Ok(JobFiles { plan: s.plan, root: s.root.display().to_string(), files, note })
}
