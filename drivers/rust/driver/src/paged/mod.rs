//! The paged data file and its index (PROTOCOL.md section 4), shared byte for byte with the
//! other languages' drivers.

pub mod buffer;
pub mod index;
pub mod reader;
pub mod writer;

use std::path::{Path, PathBuf};

pub use buffer::PageBuffer;
pub use index::{Entry, Expect, RunStamp, NO_RUN};
pub use reader::PageReader;
pub use writer::{PageWriter, WriteCounters};

/// `<base>.pages`
pub fn data_path(base: &Path) -> PathBuf {
    with_suffix(base, ".pages")
}

/// `<base>.index`
pub fn index_path(base: &Path) -> PathBuf {
    with_suffix(base, ".index")
}

fn with_suffix(base: &Path, suffix: &str) -> PathBuf {
    let mut path = base.as_os_str().to_owned();
    path.push(suffix);
    PathBuf::from(path)
}

#[cfg(test)]
mod tests {
    use std::fs;
    use std::path::Path;

    use serbench_model::{object_hash, Arrays, Hasher, SetChecksum, Trade};

    use super::index::{EntriesHash, HEADER_BYTES};
    use super::*;
    use crate::methods::handcoded::Handcoded;
    use crate::methods::raw::Raw;
    use crate::protocol::{Depth, Failure, Kind};
    use crate::tasks::write::write_file;
    use crate::tasks::{read_objects, Read, ReadOutcome, Selection};
    use crate::test_support::{Scratch, TEST_RUN};
    use crate::timing::IoTimer;

    const P: u32 = 64;

    /// An `arrays` object whose handcoded form is exactly `len` bytes (8 + 4k).
    fn sized(len: usize) -> Arrays {
        assert!(len >= 8 && len.is_multiple_of(4));
        Arrays {
            strings: vec![],
            ints: (0..(len as i32 - 8) / 4).collect(),
        }
    }

    fn write(base: &Path, lens: &[usize]) -> (Vec<Arrays>, WriteCounters) {
        let objects: Vec<Arrays> = lens.iter().map(|&l| sized(l)).collect();
        let timer = IoTimer::default();
        let counters = write_file(&mut Handcoded, &objects, base, P, TEST_RUN, &timer).unwrap();
        (objects, counters)
    }

    fn read(base: &Path, selection: Selection<'_>) -> Result<ReadOutcome, Failure> {
        let read = Read {
            base,
            selection,
            depth: Depth::Access,
            page_size: Some(P),
            run_stamp: TEST_RUN,
        };
        read_objects::<Arrays, _>(
            &mut Handcoded,
            read,
            &mut PageBuffer::default(),
            &IoTimer::default(),
        )
    }

    fn entries(base: &Path) -> Vec<(u64, u32, u32)> {
        let (timer, mut page) = (IoTimer::default(), PageBuffer::default());
        let reader = PageReader::open(base, expect("arrays"), &timer, &mut page).unwrap();
        (0..reader.count())
            .map(|n| reader.entry(n))
            .map(|e| (e.page, e.offset, e.length))
            .collect()
    }

    fn expect(model: &str) -> Expect<'_> {
        Expect {
            model,
            method: Some("handcoded"),
            page_size: Some(P),
        }
    }

    /// Writes, reads back every object, and returns the entries and the data file length.
    fn layout(lens: &[usize]) -> (Vec<(u64, u32, u32)>, u64) {
        let scratch = Scratch::new();
        let base = scratch.join("f");
        let (objects, counters) = write(&base, lens);
        let set: SetChecksum = objects.iter().map(object_hash).collect();
        assert_eq!(read(&base, Selection::All).unwrap().checksum, set);
        let len = fs::metadata(data_path(&base)).unwrap().len();
        assert_eq!((counters.objects, counters.bytes), (lens.len() as u64, len));
        (entries(&base), len)
    }

    #[test]
    fn objects_pack_back_to_back_and_the_last_page_is_not_padded() {
        assert_eq!(layout(&[12, 12]), (vec![(0, 0, 12), (0, 12, 12)], 24));
    }

    #[test]
    fn an_object_that_exactly_fills_the_page_stays_and_the_next_starts_a_page() {
        assert_eq!(
            layout(&[12, 52, 12]),
            (vec![(0, 0, 12), (0, 12, 52), (1, 0, 12)], 64 + 12)
        );
        assert_eq!(layout(&[64, 12]), (vec![(0, 0, 64), (1, 0, 12)], 76));
    }

    #[test]
    fn aligned_objects_start_at_multiples_of_the_alignment_after_zero_padding() {
        let scratch = Scratch::new();
        let base = scratch.join("f");
        let timer = IoTimer::default();
        let mut writer = PageWriter::create(&base, P, &timer).unwrap();
        for len in [12, 12, 30, 8] {
            writer
                .push(8, |out| out.resize(out.len() + len, 7))
                .unwrap();
        }
        writer
            .finish("arrays", "handcoded", "rust", TEST_RUN)
            .unwrap();
        assert_eq!(
            entries(&base),
            vec![(0, 0, 12), (0, 16, 12), (0, 32, 30), (1, 0, 8)]
        );
        let data = fs::read(data_path(&base)).unwrap();
        assert_eq!((&data[12..16], &data[28..32]), (&[0; 4][..], &[0; 4][..]));
    }

    #[test]
    fn an_object_that_does_not_fit_moves_to_the_next_page() {
        assert_eq!(layout(&[40, 28]), (vec![(0, 0, 40), (1, 0, 28)], 64 + 28));
    }

    #[test]
    fn a_large_object_owns_whole_pages_and_the_next_follows_them() {
        assert_eq!(
            layout(&[12, 88, 12]),
            (vec![(0, 0, 12), (1, 0, 88), (3, 0, 12)], 64 * 3 + 12)
        );
        assert_eq!(layout(&[128, 12]), (vec![(0, 0, 128), (2, 0, 12)], 140));
        // a large last object: the file ends right after it
        assert_eq!(layout(&[12, 88]), (vec![(0, 0, 12), (1, 0, 88)], 64 + 88));
    }

    #[test]
    fn an_empty_file_has_no_pages() {
        let scratch = Scratch::new();
        let base = scratch.join("empty");
        let (_, counters) = write(&base, &[]);
        assert_eq!((counters.bytes, counters.pages), (0, 0));
        assert_eq!(
            fs::metadata(index_path(&base)).unwrap().len(),
            HEADER_BYTES as u64
        );
        assert_eq!(
            read(&base, Selection::All).unwrap().checksum,
            SetChecksum::default()
        );
    }

    #[test]
    fn pages_are_read_only_when_the_page_changes() {
        let scratch = Scratch::new();
        let base = scratch.join("f");
        write(&base, &[12, 12, 12, 40, 12]);
        assert_eq!(read(&base, Selection::All).unwrap().pages_read, 2);
        assert_eq!(
            read(&base, Selection::Ids(&[0, 4, 0, 1]))
                .unwrap()
                .pages_read,
            3
        );
    }

    #[test]
    fn placing_a_files_objects_at_its_places_copies_it_byte_for_byte() {
        let scratch = Scratch::new();
        let (source, copy) = (scratch.join("source"), scratch.join("copy"));
        let timer = IoTimer::default();
        let mut writer = PageWriter::create(&source, P, &timer).unwrap();
        for (n, len) in [12usize, 12, 30, 8, 88, 12, 60].into_iter().enumerate() {
            writer
                .push(8, |out| out.resize(out.len() + len, n as u8 + 1))
                .unwrap();
        }
        writer
            .finish("arrays", "handcoded", "rust", TEST_RUN)
            .unwrap();
        let mut page = PageBuffer::default();
        let mut reader = PageReader::open(&source, expect("arrays"), &timer, &mut page).unwrap();
        let mut placer = PageWriter::create(&copy, P, &timer).unwrap();
        for n in 0..reader.count() {
            let at = reader.entry(n);
            placer.place(at, reader.object(n).unwrap()).unwrap();
        }
        placer
            .finish("arrays", "handcoded", "rust", TEST_RUN)
            .unwrap();
        for path in [data_path, index_path] {
            assert_eq!(
                fs::read(path(&copy)).unwrap(),
                fs::read(path(&source)).unwrap()
            );
        }
    }

    #[test]
    fn a_place_inside_the_object_before_is_refused() {
        let scratch = Scratch::new();
        let timer = IoTimer::default();
        let mut placer = PageWriter::create(&scratch.join("f"), P, &timer).unwrap();
        let at = |offset, length| Entry {
            page: 0,
            offset,
            length,
        };
        placer.place(at(0, 12), &[1; 12]).unwrap();
        let failure = placer.place(at(8, 4), &[2; 4]).unwrap_err();
        assert!(
            failure.message.contains("does not follow"),
            "{}",
            failure.message
        );
    }

    #[test]
    fn raw_folds_each_objects_bytes_and_reads_any_method() {
        let scratch = Scratch::new();
        let base = scratch.join("f");
        let (objects, _) = write(&base, &[12, 88]);
        let raw: SetChecksum = objects
            .iter()
            .map(|o| {
                let mut bytes = Vec::new();
                crate::methods::Codec::encode(&mut Handcoded, o, &mut bytes);
                let mut h = Hasher::new();
                h.bytes(&bytes);
                h.finish()
            })
            .collect();
        let read = Read {
            base: &base,
            selection: Selection::All,
            depth: Depth::None,
            page_size: None,
            run_stamp: TEST_RUN,
        };
        let got = read_objects::<Arrays, _>(
            &mut Raw,
            read,
            &mut PageBuffer::default(),
            &IoTimer::default(),
        );
        assert_eq!(got.unwrap().checksum, raw);
    }

    // -- damaged and mismatched files ------------------------------------------------------

    fn written() -> (Scratch, std::path::PathBuf) {
        let scratch = Scratch::new();
        let base = scratch.join("f");
        write(&base, &[12, 88, 12, 24]);
        (scratch, base)
    }

    fn failure(base: &Path) -> Failure {
        read(base, Selection::All).unwrap_err()
    }

    fn patch(path: &Path, at: usize, bytes: &[u8]) {
        let mut content = fs::read(path).unwrap();
        content[at..at + bytes.len()].copy_from_slice(bytes);
        fs::write(path, content).unwrap();
    }

    /// Replaces the entries and recomputes their hash, so only the entry checks can object.
    fn rewrite_entries(base: &Path, entries: &[Entry]) {
        let mut hash = EntriesHash::default();
        let mut content = fs::read(index_path(base)).unwrap();
        for (i, e) in entries.iter().enumerate() {
            hash.add(*e);
            let at = HEADER_BYTES + 16 * i;
            content[at..at + 16].copy_from_slice(&e.to_bytes());
        }
        content[40..48].copy_from_slice(&hash.finish().to_le_bytes());
        fs::write(index_path(base), content).unwrap();
    }

    fn assert_failure(f: Failure, kind: Kind, contains: &str) {
        assert_eq!(f.kind, kind, "{}", f.message);
        assert!(
            f.message.contains(contains),
            "{:?} lacks {contains:?}",
            f.message
        );
    }

    #[test]
    fn a_truncated_data_file_is_corrupt() {
        let (_s, base) = written();
        let data = fs::OpenOptions::new()
            .write(true)
            .open(data_path(&base))
            .unwrap();
        data.set_len(100).unwrap();
        assert_failure(
            failure(&base),
            Kind::CorruptInput,
            "f.pages has 100 bytes, the index says 228",
        );
    }

    #[test]
    fn a_truncated_index_is_corrupt() {
        let (_s, base) = written();
        let index = fs::OpenOptions::new()
            .write(true)
            .open(index_path(&base))
            .unwrap();
        index.set_len(HEADER_BYTES as u64 + 20).unwrap();
        assert_failure(
            failure(&base),
            Kind::CorruptInput,
            "148 bytes for 4 entries",
        );
        index.set_len(100).unwrap();
        assert_failure(failure(&base), Kind::CorruptInput, "truncated: 100 bytes");
    }

    #[test]
    fn a_corrupted_entry_fails_the_entries_hash() {
        let (_s, base) = written();
        patch(&index_path(&base), HEADER_BYTES + 16 * 2 + 12, &[8]);
        assert_failure(failure(&base), Kind::CorruptInput, "entries hash");
    }

    #[test]
    fn bad_magic_is_corrupt_and_another_version_a_wrong_file() {
        let (_s, base) = written();
        patch(&index_path(&base), 0, b"NOTANIDX");
        assert_failure(failure(&base), Kind::CorruptInput, "bad magic");
        let (_s, base) = written();
        patch(&index_path(&base), 8, &2u32.to_le_bytes());
        assert_failure(failure(&base), Kind::WrongFile, "format version 2");
    }

    #[test]
    fn another_models_methods_or_page_sizes_file_is_a_wrong_file() {
        let (_s, base) = written();
        let timer = IoTimer::default();
        let other_model =
            PageReader::open(&base, expect("trade"), &timer, &mut PageBuffer::default())
                .err()
                .unwrap();
        assert_failure(
            other_model,
            Kind::WrongFile,
            "holds model 'arrays', not 'trade'",
        );
        let read = Read {
            base: &base,
            selection: Selection::All,
            depth: Depth::Access,
            page_size: None,
            run_stamp: TEST_RUN,
        };
        let err =
            read_objects::<Trade, _>(&mut Handcoded, read, &mut PageBuffer::default(), &timer)
                .unwrap_err();
        assert_failure(err, Kind::WrongFile, "not 'trade'");
        let bincode = Expect {
            method: Some("bincode"),
            ..expect("arrays")
        };
        let err = PageReader::open(&base, bincode, &timer, &mut PageBuffer::default())
            .err()
            .unwrap();
        assert_failure(
            err,
            Kind::WrongFile,
            "written by method 'handcoded', not 'bincode'",
        );
        let pages = Expect {
            page_size: Some(4096),
            ..expect("arrays")
        };
        let err = PageReader::open(&base, pages, &timer, &mut PageBuffer::default())
            .err()
            .unwrap();
        assert_failure(err, Kind::WrongFile, "page size 64, the request says 4096");
    }

    #[test]
    fn bad_entries_are_named() {
        let e = |page, offset, length| Entry {
            page,
            offset,
            length,
        };
        let cases = [
            (
                [e(0, 0, 12), e(0, 8, 12), e(3, 0, 12), e(3, 12, 24)],
                "entry 1 (page 0, offset 8, length 12): out of order or overlapping",
            ),
            (
                [e(0, 0, 12), e(1, 0, 0), e(3, 0, 12), e(3, 12, 24)],
                "entry 1 (page 1, offset 0, length 0): length 0",
            ),
            (
                [e(0, 0, 12), e(1, 8, 88), e(3, 0, 12), e(3, 12, 24)],
                "must start at offset 0",
            ),
            (
                [e(0, 0, 12), e(1, 0, 88), e(3, 0, 12), e(4, 0, 24)],
                "page beyond the file's 4 pages",
            ),
            (
                [e(0, 0, 12), e(1, 0, 88), e(3, 0, 12), e(3, 50, 24)],
                "crosses the end of its page",
            ),
            (
                [e(0, 0, 12), e(1, 0, 88), e(3, 0, 12), e(3, 20, 24)],
                "ends past the data file's 228 bytes",
            ),
            (
                [e(0, 0, 12), e(2, 0, 188), e(3, 0, 12), e(3, 12, 24)],
                "its pages run past",
            ),
        ];
        for (entries, message) in cases {
            let (_s, base) = written();
            rewrite_entries(&base, &entries);
            assert_failure(failure(&base), Kind::CorruptInput, message);
        }
    }

    #[test]
    fn reading_beyond_the_count_is_out_of_range() {
        let (_s, base) = written();
        let range = read(&base, Selection::Range { start: 2, n: 3 }).unwrap_err();
        assert_failure(range, Kind::OutOfRange, "objects 2..2+3 asked");
        assert_failure(
            read(&base, Selection::Ids(&[1, 4])).unwrap_err(),
            Kind::OutOfRange,
            "object 4 asked",
        );
        assert_eq!(
            read(&base, Selection::Range { start: 1, n: 3 })
                .unwrap()
                .checksum
                .count,
            3
        );
    }

    #[test]
    fn a_missing_file_is_not_found() {
        let scratch = Scratch::new();
        assert_failure(
            failure(&scratch.join("nothing")),
            Kind::NotFound,
            "nothing.index",
        );
    }

    #[test]
    fn a_corrupted_object_names_file_page_object_and_offset() {
        let (_s, base) = written();
        // object 3 (24 bytes at page 3, offset 12): its int count claims more than is left
        patch(&data_path(&base), 3 * 64 + 12 + 4, &[99, 0, 0, 0]);
        assert_failure(failure(&base), Kind::CorruptInput, "f.pages: page 3, object 3 at offset 12: byte 4: list count 99 exceeds the 16 bytes left");
    }

    #[test]
    fn the_run_stamp_is_written_at_104_and_read_back() {
        let (_s, base) = written();
        let index = fs::read(index_path(&base)).unwrap();
        assert_eq!(index[104..120], TEST_RUN);
        assert_eq!(index[120..128], [0; 8]);
        let (timer, mut page) = (IoTimer::default(), PageBuffer::default());
        let reader = PageReader::open(&base, expect("arrays"), &timer, &mut page).unwrap();
        assert_eq!(reader.header().run_stamp, TEST_RUN);
    }

    /// A trusting codec (rkyv's default) opens only files this driver wrote in the request's
    /// run; the validating variant reads any (PROTOCOL.md 3).
    #[test]
    fn only_the_validating_variant_reads_a_file_of_another_run() {
        use crate::methods::rkyv::Rkyv;
        use crate::methods::Method;
        let scratch = Scratch::new();
        let base = scratch.join("f");
        let objects = vec![sized(12), sized(88)];
        let timer = IoTimer::default();
        write_file(
            &mut Rkyv::default(),
            &objects,
            &base,
            4096,
            TEST_RUN,
            &timer,
        )
        .unwrap();
        let read = |variant: &str, run_stamp: RunStamp| {
            let read = Read {
                base: &base,
                selection: Selection::All,
                depth: Depth::Access,
                page_size: None,
                run_stamp,
            };
            let mut codec = Rkyv::for_variant(variant);
            read_objects::<Arrays, _>(&mut codec, read, &mut PageBuffer::default(), &timer)
        };
        let set: SetChecksum = objects.iter().map(object_hash).collect();
        assert_eq!(read("", TEST_RUN).unwrap().checksum, set);
        let mut other = TEST_RUN;
        other[15] ^= 1;
        let refusal = read("", other).unwrap_err();
        assert_eq!(refusal.kind, Kind::WrongFile);
        assert_eq!(
            refusal.message,
            format!(
                "{}: written by another run (another run stamp); rkyv's trusting read takes \
                 only files this driver wrote in this run (its validate variant reads any)",
                index_path(&base).display()
            )
        );
        let no_stamp = read("", NO_RUN).unwrap_err();
        assert_failure(
            no_stamp,
            Kind::WrongFile,
            "f.index: the request carries no run_stamp",
        );
        for stamp in [TEST_RUN, other, NO_RUN] {
            assert_eq!(read("validate", stamp).unwrap().checksum, set);
        }
        write_file(&mut Rkyv::default(), &objects, &base, 4096, NO_RUN, &timer).unwrap();
        let unstamped = read("", TEST_RUN).unwrap_err();
        assert_failure(
            unstamped,
            Kind::WrongFile,
            "f.index: written outside any run",
        );
    }
}
