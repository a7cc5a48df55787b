//! Reading a paged file: the index is read whole and checked, then each object is served
//! from one page buffer (lent by the caller, so repetitions reuse it), which is refilled
//! (pread) only when the page changes.

use std::path::{Path, PathBuf};

use super::buffer::PageBuffer;
use super::index::{Entry, Expect, Header, Index};
use super::{data_path, index_path};
use crate::protocol::{Failure, Kind};
use crate::timing::{IoTimer, TimedFile};

pub struct PageReader<'t, 'b> {
    data: TimedFile<'t>,
    data_path: PathBuf,
    index: Index,
    page: &'b mut PageBuffer,
    /// The page whose bytes `page` holds (for a large object: its first page).
    loaded: Option<u64>,
    pub pages_read: u64,
}

impl<'t, 'b> PageReader<'t, 'b> {
    /// Opens `<base>.index` and `<base>.pages` and checks the index against both; pages
    /// are read into `page`.
    pub fn open(
        base: &Path,
        expect: Expect<'_>,
        timer: &'t IoTimer,
        page: &'b mut PageBuffer,
    ) -> Result<Self, Failure> {
        let index_path = index_path(base);
        let data_path = data_path(base);
        let index_bytes = read_whole(&index_path, timer)?;
        let data = TimedFile::open(&data_path, timer).map_err(|e| Failure::io(&data_path, &e))?;
        let data_len = data.size().map_err(|e| Failure::io(&data_path, &e))?;
        let index = Index::parse(
            &index_path.display().to_string(),
            index_bytes,
            (&data_path.display().to_string(), data_len),
            expect,
        )?;
        Ok(PageReader {
            data,
            data_path,
            page,
            index,
            loaded: None,
            pages_read: 0,
        })
    }

    pub fn header(&self) -> &Header {
        &self.index.header
    }

    pub fn count(&self) -> u64 {
        self.index.header.count
    }

    pub fn entry(&self, n: u64) -> Entry {
        self.index.entry(n)
    }

    /// The open data file, for callers that move whole pages (the network's `disk` fetch).
    pub fn data(&self) -> &TimedFile<'t> {
        &self.data
    }

    /// The data file, for error messages.
    pub fn data_path(&self) -> &Path {
        &self.data_path
    }

    /// The bytes of object `n` (below [`count`](Self::count)), valid until the next call.
    #[inline]
    pub fn object(&mut self, n: u64) -> Result<&[u8], Failure> {
        let e = self.index.entry(n);
        if self.loaded != Some(e.page) {
            self.load(e)?;
        }
        let start = e.offset as usize;
        Ok(&self.page.bytes()[start..start + e.length as usize])
    }

    /// Reads the page of `e`, or all of a large object's pages.
    fn load(&mut self, e: Entry) -> Result<(), Failure> {
        let p = self.index.header.page_size as u64;
        let start = e.page * p;
        // the index check guarantees both fit in the data file
        let len = if e.length as u64 > p {
            e.length as u64
        } else {
            p.min(self.index.header.data_len - start)
        } as usize;
        self.loaded = None;
        self.data
            .read_exact_at(self.page.first_mut(len), start)
            .map_err(|err| {
                Failure::new(
                    Kind::CorruptInput,
                    format!("{}: page {}: {err}", self.data_path.display(), e.page),
                )
            })?;
        self.loaded = Some(e.page);
        self.pages_read += 1;
        Ok(())
    }
}

fn read_whole(path: &Path, timer: &IoTimer) -> Result<Vec<u8>, Failure> {
    let io = |e: std::io::Error| Failure::io(path, &e);
    let file = TimedFile::open(path, timer).map_err(io)?;
    let mut bytes = vec![0; file.size().map_err(io)? as usize];
    file.read_exact_at(&mut bytes, 0).map_err(io)?;
    Ok(bytes)
}
