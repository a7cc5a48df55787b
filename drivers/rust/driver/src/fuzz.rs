//! What the fuzz targets of `drivers/rust/fuzz/` run, and their seed corpora. Compiled only
//! for the fuzz crate (feature `fuzz`) and the tests, never into the measured driver.
//!
//! Every target is one call here; a bad input must come back as an error. A panic (or a
//! sanitizer report) is a finding, including the panics of the checks below, which state
//! what the readers promise on the inputs they accept.
//!
//! Input formats (the first byte picks the model, so one corpus covers all eight):
//! - [`decoder`]: `[model byte][one object's bytes]`; the bytes are read 8-aligned, as the
//!   page reader gives them.
//! - [`paged`]: `[flags][index length, u32 LE][index file][data file]`; flags: bits 0-2 the
//!   model, bit 3 read through `raw` instead of `handcoded`, bit 4 recompute the entries
//!   hash first (so mutated entries reach the entry checks and the page reads behind them).

use std::path::PathBuf;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::OnceLock;

use serbench_model::{Hasher, ModelId, ModelType};

use crate::methods::Codec;
use crate::paged::index::{EntriesHash, Entry, ENTRY_BYTES, HEADER_BYTES};
use crate::paged::{data_path, index_path, PageBuffer};
use crate::protocol::{Depth, Failure};
use crate::registry::{with_codec, CodecJob, MethodSpec, METHODS};
use crate::tasks::{read_objects, Read, ReadOutcome, Selection};
use crate::timing::IoTimer;

/// The built-in model a fuzz input's first byte picks (the seeds are their golden vectors).
pub fn model_of(byte: u8) -> ModelId {
    ModelId::BUILTIN[byte as usize % ModelId::BUILTIN.len()]
}

/// Decodes one object with `method` read as `variant` at every depth it reads. When the bytes
/// decode, every depth must give the same checksum, and the decoded value must encode to
/// bytes that decode to the same value again (`canonical`: to the very same bytes, for a
/// method with one encoding per value).
/// Returns whether the bytes decoded.
pub fn decoder(method: &str, variant: &str, canonical: bool, data: &[u8]) -> bool {
    let Some((&model, bytes)) = data.split_first() else {
        return false;
    };
    // libFuzzer's input starts at an allocation, the object one byte later
    let mut words = vec![0u64; bytes.len().div_ceil(8)];
    let aligned = &mut words_as_bytes(&mut words)[..bytes.len()];
    aligned.copy_from_slice(bytes);
    let job = Decode {
        bytes: aligned,
        canonical,
    };
    with_codec(method, variant, model_of(model), job).expect("a method of the registry")
}

/// Every method's reader: `[method byte][model byte][one object's bytes]`, the method the
/// n-th (modulo) of [`readers`], read through its checking variant where it lists one (a
/// `validate` variant means its default trusts its bytes: PROTOCOL.md 3).
pub fn any_reader(data: &[u8]) -> bool {
    let Some((&pick, rest)) = data.split_first() else {
        return false;
    };
    let method = readers()
        .nth(pick as usize % readers().count())
        .expect("in range");
    decoder(method.id, method.validating_variant(), false, rest)
}

/// The methods that read objects (`raw` copies bytes and decodes nothing).
pub fn readers() -> impl Iterator<Item = &'static MethodSpec> {
    METHODS.iter().filter(|m| !m.depths.is_empty())
}

/// The bytes of `words` (8-aligned).
fn words_as_bytes(words: &mut [u64]) -> &mut [u8] {
    // SAFETY: u64 has no padding and every byte pattern is a valid u8
    unsafe { std::slice::from_raw_parts_mut(words.as_mut_ptr().cast(), words.len() * 8) }
}

struct Decode<'a> {
    bytes: &'a [u8],
    canonical: bool,
}

impl CodecJob for Decode<'_> {
    type Output = bool;

    fn run<M: ModelType, C: Codec<M>>(self, mut codec: C) -> bool {
        let decoded = codec.decode(self.bytes);
        for &depth in C::DEPTHS {
            let mut h = Hasher::new();
            let folded = codec.fold(self.bytes, depth, &mut h);
            match (&decoded, folded) {
                (Ok(value), Ok(())) => {
                    assert_eq!(h.finish(), serbench_model::object_hash(value), "{depth:?}")
                }
                (Err(_), Err(_)) => {}
                (d, f) => panic!("decode says {:?}, {depth:?} says {f:?}", d.as_ref().err()),
            }
        }
        let Ok(value) = decoded else { return false };
        let mut again = Vec::new();
        codec.encode(&value, &mut again);
        if self.canonical {
            assert_eq!(
                again, self.bytes,
                "the encoding of the decoded value differs"
            );
        }
        let back = codec
            .decode(&again)
            .expect("the encoding of a decoded value decodes");
        assert!(back.total_eq(&value), "re-encoding changed the value");
        true
    }
}

/// What a node does with bytes from a peer before trusting them: the frame header, the hello
/// and a pages frame's entries (page size from the first input byte: 64 << (b % 8)), each
/// object then decoded as `handcoded` of the model the second byte picks. Only a panic is a
/// finding. Returns how many objects a well-formed frame held that decoded.
pub fn net(data: &[u8]) -> Option<usize> {
    use crate::net::pages::for_each_object;
    use crate::net::wire::{parse_header, Hello, HEADER, MAX_FRAME};
    let (&[size, model], rest) = data.split_first_chunk::<2>()?;
    if let Some(header) = rest.first_chunk::<HEADER>() {
        let _ = parse_header(*header, MAX_FRAME, "fuzz");
    }
    let _ = Hello::parse(rest, "fuzz");
    let page_size = 64u32 << (size % 8);
    let mut decoded = 0;
    for_each_object(rest, page_size, "fuzz", 0, |_, bytes| {
        let job = Decode {
            bytes,
            canonical: false,
        };
        decoded +=
            with_codec("handcoded", "", model_of(model), job).expect("handcoded exists") as usize;
        Ok(())
    })
    .ok()?;
    Some(decoded)
}

const RAW_BIT: u8 = 1 << 3;
const FIX_HASH_BIT: u8 = 1 << 4;

/// Reads a paged file (index and data from the input) with the driver's real reader and
/// every object with `handcoded` (or `raw`), as `read_seq` does. Errors are the expected
/// outcome of most inputs; only a panic is a finding.
pub fn paged(data: &[u8]) -> Option<Result<ReadOutcome, Failure>> {
    let (index, pages, flags) = split_paged(data)?;
    let mut index = index.to_vec();
    if flags & FIX_HASH_BIT != 0 {
        fix_entries_hash(&mut index);
    }
    let base = scratch_base();
    std::fs::write(index_path(&base), &index).expect("write the fuzz index");
    std::fs::write(data_path(&base), pages).expect("write the fuzz data");
    let method = if flags & RAW_BIT != 0 {
        "raw"
    } else {
        "handcoded"
    };
    with_codec(method, "", model_of(flags), ReadAll { base })
}

fn split_paged(data: &[u8]) -> Option<(&[u8], &[u8], u8)> {
    let (&flags, rest) = data.split_first()?;
    let (len, rest) = rest.split_first_chunk::<4>()?;
    let len = u32::from_le_bytes(*len) as usize;
    (len <= rest.len()).then(|| (&rest[..len], &rest[len..], flags))
}

/// The inverse of `split_paged`: a seed from a written file.
#[cfg(test)]
fn join_paged(flags: u8, index: &[u8], pages: &[u8]) -> Vec<u8> {
    let mut out = vec![flags];
    out.extend_from_slice(&(index.len() as u32).to_le_bytes());
    out.extend_from_slice(index);
    out.extend_from_slice(pages);
    out
}

/// Rewrites the header's entries hash over the entries the index holds (a whole number of
/// them, whatever the header's count says).
fn fix_entries_hash(index: &mut [u8]) {
    if index.len() < HEADER_BYTES {
        return;
    }
    let mut hash = EntriesHash::default();
    for e in index[HEADER_BYTES..].chunks_exact(ENTRY_BYTES) {
        hash.add(Entry {
            page: u64::from_le_bytes(e[0..8].try_into().unwrap()),
            offset: u32::from_le_bytes(e[8..12].try_into().unwrap()),
            length: u32::from_le_bytes(e[12..16].try_into().unwrap()),
        });
    }
    index[40..48].copy_from_slice(&hash.finish().to_le_bytes());
}

/// One file base per process (libFuzzer's forks and jobs are processes) and thread (the
/// tests), reused by every input.
fn scratch_base() -> PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    static NEXT: AtomicU32 = AtomicU32::new(0);
    thread_local! {
        static BASE: PathBuf = {
            let dir = DIR.get_or_init(|| {
                let dir =
                    std::env::temp_dir().join(format!("serbench-fuzz-{}", std::process::id()));
                std::fs::create_dir_all(&dir).expect("create the fuzz scratch folder");
                dir
            });
            dir.join(format!("input-{}", NEXT.fetch_add(1, Ordering::Relaxed)))
        };
    }
    BASE.with(PathBuf::clone)
}

struct ReadAll {
    base: PathBuf,
}

impl CodecJob for ReadAll {
    type Output = Result<ReadOutcome, Failure>;

    fn run<M: ModelType, C: Codec<M>>(self, mut codec: C) -> Self::Output {
        let depth = C::DEPTHS.last().copied().unwrap_or(Depth::None);
        let read = Read {
            base: &self.base,
            selection: Selection::All,
            depth,
            page_size: None,
            run_stamp: crate::paged::NO_RUN, // handcoded and raw check every byte
        };
        read_objects(
            &mut codec,
            read,
            &mut PageBuffer::default(),
            &IoTimer::default(),
        )
    }
}

/// The seed corpora, generated from the golden vectors: `(target, file name, bytes)`.
#[cfg(test)]
fn seeds() -> Vec<(&'static str, String, Vec<u8>)> {
    let mut out = Vec::new();
    for (m, model) in ModelId::BUILTIN.into_iter().enumerate() {
        let Seeds { objects, file } =
            with_codec("handcoded", "", model, MakeSeeds).expect("handcoded is registered");
        for (n, object) in objects.into_iter().enumerate() {
            let mut input = vec![m as u8];
            input.extend_from_slice(&object);
            out.push(("handcoded", format!("{model}-{n}"), input));
        }
        let Seeds { objects, .. } =
            with_codec("rkyv", "validate", model, MakeSeeds).expect("rkyv is registered");
        for (n, object) in objects.into_iter().enumerate() {
            let mut input = vec![m as u8];
            input.extend_from_slice(&object);
            out.push(("rkyv", format!("{model}-{n}"), input));
        }
        let (index, pages) = file;
        out.push((
            "paged",
            format!("{model}"),
            join_paged(m as u8, &index, &pages),
        ));
        let raw = join_paged(m as u8 | RAW_BIT, &index, &pages);
        out.push(("paged", format!("{model}-raw"), raw));
        // the file as one network page: its entries count from the frame's first page
        let entries = &index[HEADER_BYTES..];
        let mut frame = vec![0, m as u8];
        frame.extend_from_slice(&((entries.len() / ENTRY_BYTES) as u32).to_le_bytes());
        frame.extend_from_slice(&[0; 4]);
        frame.extend_from_slice(entries);
        frame.extend_from_slice(&pages);
        out.push(("net", format!("{model}"), frame));
    }
    for (r, reader) in readers().enumerate() {
        for (m, model) in ModelId::BUILTIN.into_iter().enumerate() {
            let encoded = with_codec(reader.id, "", model, Encode).expect("registered");
            for (n, object) in encoded.into_iter().enumerate() {
                let mut input = vec![r as u8, m as u8];
                input.extend_from_slice(&object);
                out.push(("methods", format!("{}-{model}-{n}", reader.id), input));
            }
        }
    }
    // a hello as a peer sends it, so every run parses JSON from its first input
    let hello = crate::net::wire::Hello {
        role: "data".into(),
        from: "leaf-0".into(),
        token: "5eed".repeat(8),
        speaks: ["net_fetch", "handcoded", "customer", ""].map(String::from),
    };
    let mut frame = vec![0, 0];
    frame.extend(hello.to_payload());
    out.push(("net", "hello".into(), frame));
    out
}

/// Every golden object of the model, encoded by the method.
#[cfg(test)]
struct Encode;

#[cfg(test)]
impl CodecJob for Encode {
    type Output = Vec<Vec<u8>>;

    fn run<M: ModelType, C: Codec<M>>(self, mut codec: C) -> Vec<Vec<u8>> {
        encode_each(&mut codec, &golden_objects())
    }
}

#[cfg(test)]
fn golden_objects<M: ModelType>() -> Vec<M> {
    let path = crate::test_support::vectors().join(format!("{}.jsonl", M::ID));
    crate::tasks::load_objects(&path).unwrap()
}

#[cfg(test)]
fn encode_each<M: ModelType, C: Codec<M>>(codec: &mut C, objects: &[M]) -> Vec<Vec<u8>> {
    objects
        .iter()
        .map(|o| {
            let mut bytes = Vec::new();
            codec.encode(o, &mut bytes);
            bytes
        })
        .collect()
}

#[cfg(test)]
struct Seeds {
    objects: Vec<Vec<u8>>,
    /// The golden vectors written in pages of 64 bytes: the index, then the data.
    file: (Vec<u8>, Vec<u8>),
}

#[cfg(test)]
struct MakeSeeds;

#[cfg(test)]
impl CodecJob for MakeSeeds {
    type Output = Seeds;

    fn run<M: ModelType, C: Codec<M>>(self, mut codec: C) -> Seeds {
        use crate::test_support::Scratch;
        let objects: Vec<M> = golden_objects();
        let encoded = encode_each(&mut codec, &objects);
        let scratch = Scratch::new();
        let base = scratch.join("seed");
        let timer = IoTimer::default();
        let no_run = crate::paged::NO_RUN;
        crate::tasks::write::write_file(&mut codec, &objects, &base, 64, no_run, &timer).unwrap();
        let file = (
            std::fs::read(index_path(&base)).unwrap(),
            std::fs::read(data_path(&base)).unwrap(),
        );
        Seeds {
            objects: encoded,
            file,
        }
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use serbench_model::SetChecksum;

    use super::*;
    use crate::test_support::require;

    fn seed_dir(target: &str) -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../fuzz/seeds")
            .join(target)
    }

    /// The set checksum `vectors/<model>.expected.json` gives.
    fn expected_set(model: ModelId) -> SetChecksum {
        let path = crate::test_support::vectors().join(format!("{model}.expected.json"));
        let doc: serde_json::Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
        let set = &doc["set_checksum"];
        SetChecksum {
            count: set["count"].as_u64().unwrap(),
            sum: u64::from_str_radix(set["sum"].as_str().unwrap(), 16).unwrap(),
        }
    }

    /// The committed seeds are what the golden vectors encode to today;
    /// `SERBENCH_BLESS_SEEDS=1 cargo test fuzz::` rewrites them, and the test, having checked
    /// nothing, says it was skipped (a failure under CI=true); the next run checks them.
    #[test]
    fn committed_seeds_are_current() {
        let seeds = seeds();
        const TARGETS: [&str; 5] = ["handcoded", "paged", "rkyv", "net", "methods"];
        if std::env::var_os("SERBENCH_BLESS_SEEDS").is_some() {
            for target in TARGETS {
                let dir = seed_dir(target);
                let _ = std::fs::remove_dir_all(&dir);
                std::fs::create_dir_all(&dir).unwrap();
                for (_, name, bytes) in seeds.iter().filter(|s| s.0 == target) {
                    std::fs::write(dir.join(name), bytes).unwrap();
                }
            }
            require(
                false,
                "SERBENCH_BLESS_SEEDS: the seeds were rewritten, not checked",
            );
            return;
        }
        for target in TARGETS {
            let dir = seed_dir(target);
            let mut names: Vec<String> = std::fs::read_dir(&dir)
                .unwrap()
                .map(|e| e.unwrap().file_name().into_string().unwrap())
                .collect();
            names.sort();
            let mut want: Vec<&String> = seeds
                .iter()
                .filter(|s| s.0 == target)
                .map(|s| &s.1)
                .collect();
            want.sort();
            assert_eq!(
                names.iter().collect::<Vec<_>>(),
                want,
                "{target} seeds (bless them)"
            );
            for (_, name, bytes) in seeds.iter().filter(|s| s.0 == target) {
                assert_eq!(
                    &std::fs::read(dir.join(name)).unwrap(),
                    bytes,
                    "{target}/{name}"
                );
            }
        }
    }

    #[test]
    fn every_seed_reads_back_whole() {
        for (target, name, bytes) in seeds() {
            match target {
                "handcoded" => assert!(decoder("handcoded", "", true, &bytes), "{name}"),
                "rkyv" => assert!(decoder("rkyv", "validate", false, &bytes), "{name}"),
                "methods" => assert!(any_reader(&bytes), "{name}"),
                "net" if name == "hello" => {
                    let hello = crate::net::wire::Hello::parse(&bytes[2..], "seed").unwrap();
                    assert_eq!(hello.to_payload(), bytes[2..], "{name}")
                }
                "net" => {
                    let count = expected_set(model_of(bytes[1])).count as usize;
                    assert_eq!(net(&bytes), Some(count), "{name}")
                }
                _ => {
                    let (index, pages, flags) = split_paged(&bytes).unwrap();
                    let mut fixed = index.to_vec();
                    fix_entries_hash(&mut fixed);
                    assert_eq!(
                        fixed, index,
                        "{name}: the written hash is the entries' hash"
                    );
                    assert_eq!(join_paged(flags, index, pages), bytes);
                    let read = paged(&bytes).unwrap().unwrap();
                    let expected = expected_set(model_of(flags));
                    assert_eq!(read.checksum.count, expected.count, "{name}");
                    if flags & RAW_BIT == 0 {
                        assert_eq!(read.checksum, expected, "{name}");
                    }
                }
            }
        }
    }

    /// Every input a fuzz run once found (`fuzz/regressions/<target>/`, committed when fixed)
    /// comes back from its target as an answer, not a panic.
    #[test]
    fn past_findings_are_errors_not_panics() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz/regressions");
        let mut checked = 0;
        for target in std::fs::read_dir(&root).unwrap() {
            let target = target.unwrap();
            let name = target.file_name().into_string().unwrap();
            for input in std::fs::read_dir(target.path()).unwrap() {
                let bytes = std::fs::read(input.unwrap().path()).unwrap();
                match name.as_str() {
                    "methods" => any_reader(&bytes),
                    other => panic!("fuzz/regressions/{other}: no such target here"),
                };
                checked += 1;
            }
        }
        assert!(checked > 0, "no regression inputs under {}", root.display());
    }

    #[test]
    fn bad_inputs_are_errors_not_panics() {
        for (_, _, bytes) in seeds() {
            for cut in [0, 1, 5, bytes.len() / 2, bytes.len() - 1] {
                let cut = cut.min(bytes.len());
                any_reader(&bytes[..cut]);
                decoder("handcoded", "", true, &bytes[..cut]);
                decoder("rkyv", "validate", false, &bytes[..cut]);
                paged(&bytes[..cut]);
                net(&bytes[..cut]);
            }
            let mut flipped = bytes.clone();
            for i in (0..flipped.len()).step_by(7) {
                flipped[i] ^= 0x5a;
            }
            any_reader(&flipped);
            decoder("handcoded", "", true, &flipped);
            decoder("rkyv", "validate", false, &flipped);
            paged(&flipped);
            net(&flipped);
            flipped[0] |= FIX_HASH_BIT;
            paged(&flipped);
        }
    }
}
