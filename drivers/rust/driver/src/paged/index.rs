//! The index file `<base>.index` (PROTOCOL.md 4.2): a 128-byte header, then one 16-byte
//! entry per object. Every field is checked before anything in it is trusted.

use serbench_model::Hasher;

use crate::protocol::{Failure, Kind};

pub const MAGIC: &[u8; 8] = b"SERBIDX\n";
pub const VERSION: u32 = 1;
pub const HEADER_BYTES: usize = 128;
pub const ENTRY_BYTES: usize = 16;
pub const MIN_PAGE_SIZE: u32 = 64;
const MODEL_FIELD: (usize, usize) = (48, 24);
const METHOD_FIELD: (usize, usize) = (72, 24);
const WRITER_FIELD: (usize, usize) = (96, 8);
/// 16 bytes; 120..128 stay reserved, zero.
const RUN_STAMP_AT: usize = 104;

/// Which run wrote a file: the 16 random bytes the harness draws per run (PROTOCOL.md 4.2).
pub type RunStamp = [u8; 16];
/// The stamp of a file written outside any run.
pub const NO_RUN: RunStamp = [0; 16];

/// Where one object lies in the data file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entry {
    pub page: u64,
    pub offset: u32,
    pub length: u32,
}

impl Entry {
    /// The object's first byte in the data file.
    pub fn start(self, page_size: u32) -> u64 {
        self.page * page_size as u64 + self.offset as u64
    }

    /// Whole pages a large object occupies (1 for an object that fits a page).
    pub fn pages(self, page_size: u32) -> u64 {
        (self.length as u64).div_ceil(page_size as u64).max(1)
    }

    pub fn to_bytes(self) -> [u8; ENTRY_BYTES] {
        let mut b = [0u8; ENTRY_BYTES];
        b[0..8].copy_from_slice(&self.page.to_le_bytes());
        b[8..12].copy_from_slice(&self.offset.to_le_bytes());
        b[12..16].copy_from_slice(&self.length.to_le_bytes());
        b
    }

    pub fn from_bytes(b: &[u8]) -> Entry {
        Entry {
            page: u64::from_le_bytes(b[0..8].try_into().unwrap()),
            offset: u32::from_le_bytes(b[8..12].try_into().unwrap()),
            length: u32::from_le_bytes(b[12..16].try_into().unwrap()),
        }
    }
}

/// Folds entries into the header's entries hash: words `page, offset, length` per entry.
#[derive(Clone, Copy, Debug, Default)]
pub struct EntriesHash(Hasher);

impl EntriesHash {
    pub fn add(&mut self, e: Entry) {
        self.0.word(e.page);
        self.0.word(e.offset as u64);
        self.0.word(e.length as u64);
    }

    pub fn finish(&self) -> u64 {
        self.0.finish()
    }
}

/// The header's fields.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Header {
    pub page_size: u32,
    pub count: u64,
    pub page_count: u64,
    pub data_len: u64,
    pub entries_hash: u64,
    pub model: String,
    pub method: String,
    pub writer: String,
    pub run_stamp: RunStamp,
}

impl Header {
    pub fn to_bytes(&self) -> [u8; HEADER_BYTES] {
        let mut b = [0u8; HEADER_BYTES];
        b[0..8].copy_from_slice(MAGIC);
        b[8..12].copy_from_slice(&VERSION.to_le_bytes());
        b[12..16].copy_from_slice(&self.page_size.to_le_bytes());
        b[16..24].copy_from_slice(&self.count.to_le_bytes());
        b[24..32].copy_from_slice(&self.page_count.to_le_bytes());
        b[32..40].copy_from_slice(&self.data_len.to_le_bytes());
        b[40..48].copy_from_slice(&self.entries_hash.to_le_bytes());
        for ((at, width), id) in [
            (MODEL_FIELD, &self.model),
            (METHOD_FIELD, &self.method),
            (WRITER_FIELD, &self.writer),
        ] {
            assert!(
                id.len() <= width && id.is_ascii(),
                "id {id:?} does not fit the index"
            );
            b[at..at + id.len()].copy_from_slice(id.as_bytes());
        }
        b[RUN_STAMP_AT..RUN_STAMP_AT + 16].copy_from_slice(&self.run_stamp);
        b
    }

    /// Why a read that trusts its bytes, by driver `writer` in run `run_stamp`, must not open
    /// this file (PROTOCOL.md 3); None when that run wrote it.
    pub fn foreign_run(&self, writer: &str, run_stamp: RunStamp) -> Option<String> {
        if self.writer != writer {
            Some(format!("written by '{}'", self.writer))
        } else if run_stamp == NO_RUN {
            Some("the request carries no run_stamp".into())
        } else if self.run_stamp == NO_RUN {
            Some("written outside any run (its run stamp is zero)".into())
        } else if self.run_stamp != run_stamp {
            Some("written by another run (another run stamp)".into())
        } else {
            None
        }
    }
}

/// What the reader expects of a file; `method: None` accepts any method (the raw floor).
#[derive(Clone, Copy, Debug)]
pub struct Expect<'a> {
    pub model: &'a str,
    pub method: Option<&'a str>,
    pub page_size: Option<u32>,
}

/// A checked index: its header and its raw bytes, entries decoded on use.
#[derive(Debug)]
pub struct Index {
    pub header: Header,
    bytes: Vec<u8>,
}

impl Index {
    /// Checks `bytes` (the whole index file, named `file` in errors) against the data file
    /// (named `data_file`, `data_len` bytes long) and the reader's expectations.
    pub fn parse(
        file: &str,
        bytes: Vec<u8>,
        (data_file, data_len): (&str, u64),
        expect: Expect<'_>,
    ) -> Result<Index, Failure> {
        let corrupt = |what: String| Failure::corrupt(format!("{file}: {what}"));
        let wrong = |what: String| Failure::new(Kind::WrongFile, format!("{file}: {what}"));
        if bytes.len() < HEADER_BYTES {
            return Err(corrupt(format!(
                "truncated: {} bytes, the header alone is {HEADER_BYTES}",
                bytes.len()
            )));
        }
        if &bytes[0..8] != MAGIC {
            return Err(corrupt("bad magic: not a serbench index".into()));
        }
        let version = u32::from_le_bytes(bytes[8..12].try_into().unwrap());
        if version != VERSION {
            return Err(wrong(format!(
                "format version {version}, this driver reads {VERSION}"
            )));
        }
        let header = Header {
            page_size: u32::from_le_bytes(bytes[12..16].try_into().unwrap()),
            count: u64::from_le_bytes(bytes[16..24].try_into().unwrap()),
            page_count: u64::from_le_bytes(bytes[24..32].try_into().unwrap()),
            data_len: u64::from_le_bytes(bytes[32..40].try_into().unwrap()),
            entries_hash: u64::from_le_bytes(bytes[40..48].try_into().unwrap()),
            model: id_field(&bytes, MODEL_FIELD).map_err(|e| corrupt(format!("model id {e}")))?,
            method: id_field(&bytes, METHOD_FIELD)
                .map_err(|e| corrupt(format!("method id {e}")))?,
            writer: id_field(&bytes, WRITER_FIELD)
                .map_err(|e| corrupt(format!("writer id {e}")))?,
            run_stamp: bytes[RUN_STAMP_AT..RUN_STAMP_AT + 16].try_into().unwrap(),
        };
        let p = header.page_size;
        if p < MIN_PAGE_SIZE {
            return Err(corrupt(format!("page size {p} is below {MIN_PAGE_SIZE}")));
        }
        if let Some(asked) = expect.page_size.filter(|&asked| asked != p) {
            return Err(wrong(format!("page size {p}, the request says {asked}")));
        }
        if header.model != expect.model {
            return Err(wrong(format!(
                "holds model '{}', not '{}'",
                header.model, expect.model
            )));
        }
        if let Some(method) = expect.method.filter(|&m| m != header.method) {
            return Err(wrong(format!(
                "written by method '{}', not '{method}'",
                header.method
            )));
        }
        let expected_len = header
            .count
            .checked_mul(ENTRY_BYTES as u64)
            .and_then(|b| b.checked_add(HEADER_BYTES as u64));
        if expected_len != Some(bytes.len() as u64) {
            return Err(corrupt(format!(
                "{} bytes for {} entries: truncated or damaged",
                bytes.len(),
                header.count
            )));
        }
        if data_len != header.data_len {
            return Err(corrupt(format!(
                "the data file {data_file} has {data_len} bytes, the index says {}: truncated \
                 or damaged",
                header.data_len
            )));
        }
        if header.page_count != header.data_len.div_ceil(p as u64) {
            return Err(corrupt(format!(
                "page count {} does not match {} data bytes in pages of {p}",
                header.page_count, header.data_len
            )));
        }
        let index = Index { header, bytes };
        index.check_entries(file)?;
        Ok(index)
    }

    fn check_entries(&self, file: &str) -> Result<(), Failure> {
        let h = &self.header;
        let p = h.page_size;
        let mut hash = EntriesHash::default();
        let mut previous_end = 0u64;
        for n in 0..h.count {
            let e = self.entry(n);
            hash.add(e);
            let problem = entry_problem(e, p, h.page_count, h.data_len, previous_end);
            if let Some(what) = problem {
                return Err(Failure::corrupt(format!(
                    "{file}: entry {n} (page {}, offset {}, length {}): {what}",
                    e.page, e.offset, e.length
                )));
            }
            previous_end = e.start(p) + e.length as u64;
        }
        if hash.finish() != h.entries_hash {
            return Err(Failure::corrupt(format!(
                "{file}: entries hash {:016x} differs from the header's {:016x}: the entries \
                 are damaged",
                hash.finish(),
                h.entries_hash
            )));
        }
        Ok(())
    }

    /// Entry `n`; `n` must be below the count.
    #[inline]
    pub fn entry(&self, n: u64) -> Entry {
        let at = HEADER_BYTES + n as usize * ENTRY_BYTES;
        Entry::from_bytes(&self.bytes[at..at + ENTRY_BYTES])
    }
}

/// What is wrong with one entry, given where the previous object ended.
fn entry_problem(
    e: Entry,
    p: u32,
    page_count: u64,
    data_len: u64,
    previous_end: u64,
) -> Option<String> {
    if e.length == 0 {
        return Some("length 0".into());
    }
    if e.page >= page_count {
        return Some(format!("page beyond the file's {page_count} pages"));
    }
    if e.length <= p && e.offset as u64 + e.length as u64 > p as u64 {
        return Some(format!("crosses the end of its page of {p} bytes"));
    }
    if e.length > p && e.offset != 0 {
        return Some("an object larger than a page must start at offset 0".into());
    }
    if e.page + e.pages(p) > page_count {
        return Some(format!("its pages run past the file's {page_count} pages"));
    }
    if e.start(p) < previous_end {
        return Some("out of order or overlapping the previous object".into());
    }
    if e.start(p) + e.length as u64 > data_len {
        return Some(format!("ends past the data file's {data_len} bytes"));
    }
    None
}

/// A zero-padded ASCII id field.
fn id_field(bytes: &[u8], (at, width): (usize, usize)) -> Result<String, String> {
    let raw = &bytes[at..at + width];
    let end = raw.iter().position(|&b| b == 0).unwrap_or(width);
    if raw[end..].iter().any(|&b| b != 0) || !raw[..end].is_ascii() {
        return Err("is not zero-padded ASCII".into());
    }
    Ok(String::from_utf8(raw[..end].to_vec()).unwrap())
}
