//! Writing a paged file: objects are encoded straight into the current page's buffer, pages
//! go out through one buffered, timed file, and the index is written last.

use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use super::index::{EntriesHash, Entry, Header, RunStamp, ENTRY_BYTES};
use super::{data_path, index_path};
use crate::protocol::{Failure, Kind};
use crate::timing::{IoTimer, TimedFile};

const WRITE_BUFFER: usize = 1 << 20;

/// What a finished file holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WriteCounters {
    pub objects: u64,
    pub bytes: u64,
    pub pages: u64,
    /// Sum of object lengths (padding excluded).
    pub object_bytes: u64,
}

pub struct PageWriter<'t> {
    data: BufWriter<TimedFile<'t>>,
    data_path: PathBuf,
    index_path: PathBuf,
    timer: &'t IoTimer,
    page_size: u32,
    /// The current page's bytes, unpadded; more than a page while it holds a large object.
    page: Vec<u8>,
    page_no: u64,
    zeros: Vec<u8>,
    entries: Vec<u8>,
    hash: EntriesHash,
    counters: WriteCounters,
}

impl<'t> PageWriter<'t> {
    pub fn create(base: &Path, page_size: u32, timer: &'t IoTimer) -> Result<Self, Failure> {
        let data_path = data_path(base);
        let file = TimedFile::create(&data_path, timer).map_err(|e| Failure::io(&data_path, &e))?;
        Ok(PageWriter {
            data: BufWriter::with_capacity(WRITE_BUFFER, file),
            data_path,
            index_path: index_path(base),
            timer,
            page_size,
            page: Vec::with_capacity(page_size as usize),
            page_no: 0,
            zeros: vec![0; page_size as usize],
            entries: Vec::new(),
            hash: EntriesHash::default(),
            counters: WriteCounters {
                objects: 0,
                bytes: 0,
                pages: 0,
                object_bytes: 0,
            },
        })
    }

    /// Appends one object, which `encode` writes at the end of the page buffer, starting at
    /// a multiple of `align` within the page (zero padding before it). An object that does
    /// not fit what is left of the page moves to the start of the next one.
    pub fn push(&mut self, align: usize, encode: impl FnOnce(&mut Vec<u8>)) -> Result<(), Failure> {
        self.page.resize(self.page.len().next_multiple_of(align), 0);
        let start = self.page.len();
        encode(&mut self.page);
        let length = self.page.len() - start;
        let length = u32::try_from(length)
            .ok()
            .filter(|&l| l > 0)
            .ok_or_else(|| {
                Failure::new(
                    Kind::Internal,
                    format!(
                        "object {}: encoded length {length} is not in 1..2^32",
                        self.counters.objects
                    ),
                )
            })?;
        if start > 0 && start + length as usize > self.page_size as usize {
            self.flush_before(start)?;
        }
        self.record(Entry {
            page: self.page_no,
            offset: (self.page.len() - length as usize) as u32,
            length,
        });
        Ok(())
    }

    /// Appends `bytes` at the place `at` gives (the layout of a file being copied, as the
    /// write floor does): `at` must follow the object before it, on this page or a later one.
    pub fn place(&mut self, at: Entry, bytes: &[u8]) -> Result<(), Failure> {
        if at.page != self.page_no {
            self.flush_before(self.page.len())?;
        }
        let offset = at.offset as usize;
        if at.page != self.page_no || offset < self.page.len() || at.length as usize != bytes.len()
        {
            return Err(Failure::corrupt(format!(
                "object {}: its place (page {}, offset {}, {} bytes) does not follow the object \
                 before it",
                self.counters.objects, at.page, at.offset, at.length
            )));
        }
        self.page.resize(offset, 0);
        self.page.extend_from_slice(bytes);
        self.record(at);
        Ok(())
    }

    fn record(&mut self, entry: Entry) {
        self.hash.add(entry);
        self.entries.extend_from_slice(&entry.to_bytes());
        self.counters.objects += 1;
        self.counters.object_bytes += entry.length as u64;
    }

    /// Writes the first `end` bytes of the buffer padded to whole pages and keeps the rest
    /// (the object that did not fit) at the start of the buffer.
    fn flush_before(&mut self, end: usize) -> Result<(), Failure> {
        let p = self.page_size as usize;
        let pages = end.div_ceil(p);
        self.write(0, end)?;
        let mut padding = pages * p - end;
        while padding > 0 {
            let chunk = padding.min(p);
            self.data
                .write_all(&self.zeros[..chunk])
                .map_err(|e| Failure::io(&self.data_path, &e))?;
            padding -= chunk;
        }
        self.page.drain(..end);
        self.page_no += pages as u64;
        self.counters.bytes += (pages * p) as u64;
        Ok(())
    }

    fn write(&mut self, from: usize, to: usize) -> Result<(), Failure> {
        self.data
            .write_all(&self.page[from..to])
            .map_err(|e| Failure::io(&self.data_path, &e))
    }

    /// Writes the last page unpadded, fsyncs the data file, then writes and fsyncs the index,
    /// stamped with the run that wrote it ([`NO_RUN`](super::NO_RUN): none, which only
    /// validating reads open).
    pub fn finish(
        mut self,
        model: &str,
        method: &str,
        writer: &str,
        run_stamp: RunStamp,
    ) -> Result<WriteCounters, Failure> {
        let tail = self.page.len();
        self.write(0, tail)?;
        self.counters.bytes += tail as u64;
        self.counters.pages = self.page_no + (tail as u64).div_ceil(self.page_size as u64);
        let data = self
            .data
            .into_inner()
            .map_err(|e| Failure::io(&self.data_path, e.error()))?;
        data.sync().map_err(|e| Failure::io(&self.data_path, &e))?;

        let header = Header {
            page_size: self.page_size,
            count: self.counters.objects,
            page_count: self.counters.pages,
            data_len: self.counters.bytes,
            entries_hash: self.hash.finish(),
            model: model.into(),
            method: method.into(),
            writer: writer.into(),
            run_stamp,
        };
        debug_assert_eq!(
            self.entries.len(),
            self.counters.objects as usize * ENTRY_BYTES
        );
        let io = |e: std::io::Error| Failure::io(&self.index_path, &e);
        let mut index = TimedFile::create(&self.index_path, self.timer).map_err(io)?;
        index.write_all(&header.to_bytes()).map_err(io)?;
        index.write_all(&self.entries).map_err(io)?;
        index.sync().map_err(io)?;
        Ok(self.counters)
    }
}
