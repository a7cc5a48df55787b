//! Memory measurement for the `memory` and `sort_dedup` tasks: a counting wrapper around the
//! process allocator, and the kernel's resident-set figures.
//!
//! Counting is off unless a [`Window`] is open, so the other tasks pay one relaxed load per
//! allocation and nothing else. Inside a window every allocation, reallocation and free is
//! added to one signed counter; the bytes a window reports are the net change of the live
//! heap since it opened, whoever allocated the freed blocks.

use std::alloc::{GlobalAlloc, Layout};
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicUsize, Ordering::Relaxed};

static WINDOWS: AtomicUsize = AtomicUsize::new(0);
static NET: AtomicI64 = AtomicI64::new(0);
/// Set by the first counted allocation: proof that the counting allocator is installed.
static INSTALLED: AtomicBool = AtomicBool::new(false);

/// The process allocator `A`, counted while a [`Window`] is open.
pub struct Counting<A>(pub A);

#[inline]
fn count(delta: i64) {
    if WINDOWS.load(Relaxed) > 0 {
        NET.fetch_add(delta, Relaxed);
        INSTALLED.store(true, Relaxed);
    }
}

// SAFETY: every call is forwarded unchanged to the wrapped allocator; counting only reads the
// layouts.
unsafe impl<A: GlobalAlloc> GlobalAlloc for Counting<A> {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = self.0.alloc(layout);
        if !p.is_null() {
            count(layout.size() as i64);
        }
        p
    }

    #[inline]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let p = self.0.alloc_zeroed(layout);
        if !p.is_null() {
            count(layout.size() as i64);
        }
        p
    }

    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        self.0.dealloc(ptr, layout);
        count(-(layout.size() as i64));
    }

    #[inline]
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let p = self.0.realloc(ptr, layout, new_size);
        if !p.is_null() {
            count(new_size as i64 - layout.size() as i64);
        }
        p
    }
}

/// While alive, allocations are counted; [`bytes`](Window::bytes) is the live heap's growth
/// since it opened. Windows may nest (each has its own origin).
pub struct Window {
    origin: i64,
}

impl Window {
    pub fn open() -> Window {
        WINDOWS.fetch_add(1, Relaxed);
        Window {
            origin: NET.load(Relaxed),
        }
    }

    /// Net bytes allocated since the window opened (negative when more was freed).
    pub fn bytes(&self) -> i64 {
        NET.load(Relaxed) - self.origin
    }

    /// Whether the counting allocator is the process allocator (known once something was
    /// allocated inside a window).
    pub fn counted(&self) -> bool {
        INSTALLED.load(Relaxed)
    }
}

impl Drop for Window {
    fn drop(&mut self) {
        WINDOWS.fetch_sub(1, Relaxed);
    }
}

/// Resident set sizes from `/proc/self/status`, in bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rss {
    pub current: u64,
    /// The high-water mark since the process started or [`reset_peak`] was called.
    pub peak: u64,
}

/// Resets the kernel's resident high-water mark to the current resident set (Linux 4.0+).
pub fn reset_peak() -> std::io::Result<()> {
    std::fs::write("/proc/self/clear_refs", "5")
}

pub fn rss() -> std::io::Result<Rss> {
    let status = std::fs::read_to_string("/proc/self/status")?;
    let field = |name: &str| -> std::io::Result<u64> {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|v| v.trim().strip_suffix("kB"))
            .and_then(|kb| kb.trim().parse::<u64>().ok())
            .map(|kb| kb * 1024)
            .ok_or_else(|| std::io::Error::other(format!("/proc/self/status has no {name}")))
    };
    Ok(Rss {
        current: field("VmRSS:")?,
        peak: field("VmHWM:")?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The kept block counted, the freed one not. Other test threads allocate and free while
    /// a window is open (a window counts the whole process), so one attempt may be disturbed:
    /// some attempt of many must see exactly this thread's net bytes.
    #[test]
    fn a_window_counts_what_stays_allocated() {
        let mut seen = Vec::new();
        for _ in 0..200 {
            let window = Window::open();
            let kept: Vec<u64> = Vec::with_capacity(1000);
            let freed: Vec<u8> = vec![1; 5000];
            drop(freed);
            assert!(
                window.counted(),
                "the test binary installs the counting allocator"
            );
            let bytes = window.bytes();
            drop(kept);
            if bytes == 8000 {
                return;
            }
            seen.push(bytes);
        }
        panic!("no window counted exactly the 8000 kept bytes: {seen:?}");
    }

    /// Maps `bytes` of anonymous memory, touches every page, and unmaps it: the RSS rises by
    /// that much and falls back, whatever the allocator keeps.
    fn touch_and_release(bytes: usize) {
        // SAFETY: a fresh private anonymous mapping, written only inside its length and
        // unmapped before returning.
        unsafe {
            let addr = libc::mmap(
                std::ptr::null_mut(),
                bytes,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            );
            assert_ne!(addr, libc::MAP_FAILED);
            std::ptr::write_bytes(addr as *mut u8, 1, bytes);
            libc::munmap(addr, bytes);
        }
    }

    #[test]
    fn rss_reads_the_kernel_figures_and_the_peak_resets() {
        const MIB: u64 = 1 << 20;
        let before = rss().unwrap();
        assert!(before.current > 0 && before.peak >= before.current);
        touch_and_release(256 << 20);
        let high = rss().unwrap().peak;
        assert!(
            high >= before.current + 250 * MIB,
            "peak {high} after touching 256 MiB"
        );
        reset_peak().unwrap();
        let after = rss().unwrap();
        // the reset forgot the released 256 MiB (other test threads may hold some memory)
        assert!(
            after.peak + 128 * MIB < high,
            "peak {} after reset, {high} before",
            after.peak
        );
        assert!(after.peak >= after.current);
    }
}
