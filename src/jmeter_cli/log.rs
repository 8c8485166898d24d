//! `-j LOGFILE`: what stampede says on stderr goes to the file as well, as JMeter's log does.

use super::Error;
use std::io::{Read, Write};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::path::Path;

/// stderr duplicated into a file: a pipe stands as fd 2, a thread copies what comes into
/// it to the real stderr and to the file. Ended (fd 2 given back, the copy drained) when
/// dropped or by [`Tee::finish`].
pub(crate) struct Tee {
    saved: Option<OwnedFd>,
    thread: Option<std::thread::JoinHandle<std::fs::File>>,
}

impl Tee {
    pub(crate) fn start(path: &Path) -> Result<Tee, Error> {
        let cannot = |e: std::io::Error| Error(format!("-j {}: {e}", path.display()));
        let mut file = std::fs::File::create(path).map_err(cannot)?;
        let mut fds = [0; 2];
        // SAFETY: pipe fills two descriptors this process then owns; dup and dup2 act on
        // descriptors that are open.
        let (read, saved) = unsafe {
            if libc::pipe(fds.as_mut_ptr()) != 0 {
                return Err(cannot(std::io::Error::last_os_error()));
            }
            let read = OwnedFd::from_raw_fd(fds[0]);
            let write = OwnedFd::from_raw_fd(fds[1]);
            let saved = libc::dup(2);
            if saved < 0 || libc::dup2(write.as_raw_fd(), 2) < 0 {
                return Err(cannot(std::io::Error::last_os_error()));
            }
            (read, OwnedFd::from_raw_fd(saved))
        };
        let mut terminal = std::fs::File::from(saved.try_clone().map_err(cannot)?);
        let mut pipe = std::fs::File::from(read);
        let thread = std::thread::spawn(move || {
            let mut buf = [0u8; 8192];
            while let Ok(n) = pipe.read(&mut buf) {
                if n == 0 {
                    break;
                }
                let _ = terminal.write_all(&buf[..n]);
                let _ = file.write_all(&buf[..n]);
            }
            file
        });
        Ok(Tee { saved: Some(saved), thread: Some(thread) })
    }

    /// Ends the copy, then appends `last` to the file only.
    pub(crate) fn finish(mut self, last: &str) {
        if let Some(mut file) = self.end() {
            let _ = file.write_all(last.as_bytes());
        }
    }

    fn end(&mut self) -> Option<std::fs::File> {
        let saved = self.saved.take()?;
        // SAFETY: both descriptors are open; fd 2 becomes the terminal again, which closes
        // the pipe's last writer so the copying thread sees its end.
        unsafe { libc::dup2(saved.as_raw_fd(), 2) };
        self.thread.take().and_then(|t| t.join().ok())
    }
}

impl Drop for Tee {
    fn drop(&mut self) {
        self.end();
    }
}
