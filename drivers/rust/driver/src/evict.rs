//! Cold cache: drop a file's pages from the page cache before a cold repetition.

use std::fs::File;
use std::os::unix::io::AsRawFd;
use std::path::Path;

use crate::protocol::{Failure, Kind};

/// The eviction this driver uses, as `info.eviction` and `result.eviction` name it.
pub const EVICTION: &str = "fadvise_dontneed";

/// `posix_fadvise(DONTNEED)` over the whole of each file. Files are fsynced by their writer,
/// so every cached page is clean and can be dropped.
pub fn evict(paths: &[&Path]) -> Result<(), Failure> {
    for path in paths {
        let file = File::open(path).map_err(|e| Failure::io(path, &e))?;
        // SAFETY: a plain system call on an open descriptor; offset 0 and length 0 mean
        // the whole file.
        let rc = unsafe { libc::posix_fadvise(file.as_raw_fd(), 0, 0, libc::POSIX_FADV_DONTNEED) };
        if rc != 0 {
            return Err(Failure::new(
                Kind::Internal,
                format!(
                    "{}: posix_fadvise(DONTNEED) failed: {}",
                    path.display(),
                    std::io::Error::from_raw_os_error(rc)
                ),
            ));
        }
    }
    Ok(())
}
