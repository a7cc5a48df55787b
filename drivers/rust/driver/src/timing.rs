//! Time measured inside the driver: the io share is taken around each file system call
//! (open, read, write, fsync), so `cpu_ns = total_ns - io_ns` is the encode/decode/visit work.

use std::cell::Cell;
use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::os::unix::fs::FileExt;
use std::path::Path;
use std::time::Instant;

/// Accumulates the nanoseconds spent inside file system calls.
#[derive(Debug, Default)]
pub struct IoTimer {
    ns: Cell<u64>,
}

impl IoTimer {
    pub fn time<T>(&self, call: impl FnOnce() -> T) -> T {
        let start = Instant::now();
        let out = call();
        self.ns
            .set(self.ns.get() + start.elapsed().as_nanos() as u64);
        out
    }

    pub fn ns(&self) -> u64 {
        self.ns.get()
    }

    /// Adds time measured elsewhere (e.g. by worker threads' own timers).
    pub fn add(&self, ns: u64) {
        self.ns.set(self.ns.get() + ns);
    }
}

/// A file whose every call is timed by an [`IoTimer`].
pub struct TimedFile<'t> {
    file: File,
    timer: &'t IoTimer,
}

impl<'t> TimedFile<'t> {
    pub fn open(path: &Path, timer: &'t IoTimer) -> io::Result<Self> {
        let file = timer.time(|| File::open(path))?;
        Ok(TimedFile { file, timer })
    }

    pub fn create(path: &Path, timer: &'t IoTimer) -> io::Result<Self> {
        let file = timer.time(|| {
            OpenOptions::new()
                .write(true)
                .create(true)
                .truncate(true)
                .open(path)
        })?;
        Ok(TimedFile { file, timer })
    }

    pub fn size(&self) -> io::Result<u64> {
        self.timer.time(|| self.file.metadata()).map(|m| m.len())
    }

    /// Fills `buf` from `offset`; a file that ends first is an `UnexpectedEof`.
    pub fn read_exact_at(&self, buf: &mut [u8], offset: u64) -> io::Result<()> {
        self.timer.time(|| self.file.read_exact_at(buf, offset))
    }

    pub fn sync(&self) -> io::Result<()> {
        self.timer.time(|| self.file.sync_all())
    }
}

impl Write for TimedFile<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let file = &mut self.file;
        self.timer.time(|| file.write(buf))
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// One repetition's times, as a protocol sample.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sample {
    pub rep: u64,
    pub warmup: bool,
    pub total_ns: u64,
    pub io_ns: u64,
}

impl Sample {
    pub fn to_json(self) -> serde_json::Value {
        serde_json::json!({
            "rep": self.rep, "warmup": self.warmup, "total_ns": self.total_ns,
            "cpu_ns": self.total_ns.saturating_sub(self.io_ns), "io_ns": self.io_ns,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn io_time_adds_up_and_cpu_is_the_rest() {
        let timer = IoTimer::default();
        timer.time(|| std::thread::sleep(std::time::Duration::from_millis(2)));
        assert!(timer.ns() >= 2_000_000);
        let sample = Sample {
            rep: 0,
            warmup: false,
            total_ns: 10,
            io_ns: 4,
        };
        assert_eq!(sample.to_json()["cpu_ns"], 6);
    }
}
