//! Cold cache: drop a file's pages from the page cache before a cold repetition, and show
//! that they are gone.

use std::fs::File;
use std::os::unix::io::AsRawFd;
use std::path::Path;

use crate::protocol::{Failure, Kind};

/// The eviction this driver uses, as `info.eviction` and `result.eviction` name it.
pub const EVICTION: &str = "fadvise_dontneed";

/// `posix_fadvise(DONTNEED)` over the whole of each file, then the share of all their pages
/// still cached (PROTOCOL.md 5: `cached_fraction`). Files are fsynced by their writer, so
/// every cached page is clean and can be dropped; on tmpfs, or for pages mapped elsewhere, the
/// call succeeds and drops nothing, which only the residency shows.
pub fn evict(paths: &[&Path]) -> Result<f64, Failure> {
    let (mut cached, mut pages) = (0, 0);
    for path in paths {
        let file = File::open(path).map_err(|e| Failure::io(path, &e))?;
        // SAFETY: a plain system call on an open descriptor; offset 0 and length 0 mean
        // the whole file.
        let rc = unsafe { libc::posix_fadvise(file.as_raw_fd(), 0, 0, libc::POSIX_FADV_DONTNEED) };
        if rc != 0 {
            return Err(os_failure(path, "posix_fadvise(DONTNEED)", rc));
        }
        let (c, p) = residency(&file, path)?;
        (cached, pages) = (cached + c, pages + p);
    }
    Ok(if pages == 0 {
        0.0
    } else {
        cached as f64 / pages as f64
    })
}

/// The file's pages in the page cache, and all its pages: `mincore` over a mapping of the
/// file (mapping faults nothing in, and `mincore` reads residency without touching a page).
pub fn residency(file: &File, path: &Path) -> Result<(usize, usize), Failure> {
    let len = file.metadata().map_err(|e| Failure::io(path, &e))?.len() as usize;
    if len == 0 {
        return Ok((0, 0));
    }
    // SAFETY: sysconf has no preconditions.
    let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) } as usize;
    let mut resident = vec![0u8; len.div_ceil(page)];
    // SAFETY: a fresh read-only shared mapping of an open file, never dereferenced; mincore
    // writes one byte per page into `resident`, which holds one per page of `len`; the
    // mapping is removed before returning.
    let rc = unsafe {
        let addr = libc::mmap(
            std::ptr::null_mut(),
            len,
            libc::PROT_READ,
            libc::MAP_SHARED,
            file.as_raw_fd(),
            0,
        );
        if addr == libc::MAP_FAILED {
            return Err(os_failure(path, "mmap", last_errno()));
        }
        let rc = libc::mincore(addr, len, resident.as_mut_ptr());
        let errno = last_errno();
        libc::munmap(addr, len);
        if rc == 0 {
            0
        } else {
            errno
        }
    };
    if rc != 0 {
        return Err(os_failure(path, "mincore", rc));
    }
    let cached = resident.iter().filter(|&&page| page & 1 == 1).count();
    Ok((cached, resident.len()))
}

fn last_errno() -> i32 {
    std::io::Error::last_os_error().raw_os_error().unwrap_or(0)
}

fn os_failure(path: &Path, call: &str, errno: i32) -> Failure {
    Failure::new(
        Kind::Internal,
        format!(
            "{}: {call} failed: {}",
            path.display(),
            std::io::Error::from_raw_os_error(errno)
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::{require, Scratch};
    use std::io::Write;

    /// A file written and fsynced in `dir`, read once so that it is cached.
    fn cached_file(dir: &Scratch) -> std::path::PathBuf {
        let path = dir.join("evict-test.bin");
        let mut file = File::create(&path).unwrap();
        file.write_all(&vec![7u8; 1 << 20]).unwrap();
        file.sync_all().unwrap();
        std::fs::read(&path).unwrap();
        path
    }

    fn on_tmpfs(path: &Path) -> bool {
        let c_path = std::ffi::CString::new(path.as_os_str().to_str().unwrap()).unwrap();
        // SAFETY: statfs fills the zeroed struct it is given for a NUL-terminated path.
        let mut stat: libc::statfs = unsafe { std::mem::zeroed() };
        assert_eq!(unsafe { libc::statfs(c_path.as_ptr(), &mut stat) }, 0);
        stat.f_type == libc::TMPFS_MAGIC
    }

    #[test]
    fn eviction_of_a_disk_file_leaves_nothing_cached() {
        // the crate's own folder: on the project's disk, where /tmp may be tmpfs
        let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
        if !require(!on_tmpfs(crate_dir), "no disk to show it on") {
            return;
        }
        let dir = Scratch::new_in(crate_dir);
        let path = cached_file(&dir);
        let file = File::open(&path).unwrap();
        // SAFETY: sysconf has no preconditions.
        let pages = (1 << 20) / unsafe { libc::sysconf(libc::_SC_PAGESIZE) } as usize;
        assert_eq!(residency(&file, &path).unwrap(), (pages, pages));
        assert_eq!(evict(&[&path]).unwrap(), 0.0);
    }

    #[test]
    fn eviction_on_tmpfs_says_everything_stayed_cached() {
        let shm = Path::new("/dev/shm");
        if !require(shm.is_dir() && on_tmpfs(shm), "no tmpfs at /dev/shm") {
            return;
        }
        let dir = Scratch::new_in(shm);
        let path = cached_file(&dir);
        assert_eq!(evict(&[&path]).unwrap(), 1.0);
    }
}
