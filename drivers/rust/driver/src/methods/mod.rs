//! The method axis: every physical implementation behind ONE interface. A method is a type
//! implementing [`Method`] (what it is) and [`Codec<M>`] for every model type `M` (what it
//! does). Tasks and ops are written only against these two traits; adding a method is one
//! file here and one line in `registry.rs`.

pub mod bincode;
pub mod bincode2;
pub mod bitcode;
pub mod bson;
pub mod capnp;
pub mod flatbuffers;
pub mod flexbuffers;
pub mod handcoded;
pub mod json;
pub mod json_gzip;
pub mod msgpack;
pub mod msgpack_arrays;
pub mod postcard;
pub mod protobuf;
pub mod raw;
pub mod rkyv;

use std::fmt;

use serbench_model::{Hasher, ModelType};
use serde_json::{Map, Value};

use crate::protocol::Depth;

/// A method's identity and capabilities, as `info` lists them.
pub trait Method: Default {
    const ID: &'static str;
    /// The depths it reads at; empty for a method that folds bytes without decoding.
    const DEPTHS: &'static [Depth];
    /// Its own source files, relative to the repository (for the `sizes` task).
    const FILES: &'static [&'static str];
    /// The crates it uses, as Cargo.lock names them (`name@major` where two versions are
    /// linked): `info` gives each with its version (PROTOCOL.md 3).
    const LIBRARIES: &'static [&'static str];
    /// False for a method that only reads other methods' files (the raw floor): it writes
    /// nothing and accepts any method's index.
    const WRITES: bool = true;
    /// Its labelled read variants besides the default `""` (as in the C++ driver: `validate`
    /// names the checking path of a method whose default trusts its own bytes).
    const VARIANTS: &'static [&'static str] = &[];
    /// Variants offered only while [`REPEAT_ENV`] is set: the method made slower on purpose,
    /// to test that rankings and comparisons find a known slowdown ([`Repeat`]).
    const TEST_VARIANTS: &'static [&'static str] = &[];
    /// The alignment its objects need within a page (PROTOCOL.md 4.1: at most 8), for
    /// methods that read their bytes in place.
    const ALIGN: usize = 1;

    /// A codec reading as `variant` (`""` or one of [`Method::VARIANTS`]).
    fn for_variant(_variant: &str) -> Self {
        Self::default()
    }

    /// True when reads skip checking the bytes: such a codec reads only files this driver
    /// wrote itself in the request's run (`tasks::check_own_run` refuses the others).
    fn trusting(&self) -> bool {
        false
    }

    /// Settings that change its results (e.g. a compression level), reported in `info`.
    fn settings() -> Map<String, Value> {
        Map::new()
    }
}

/// The test-only slowdown: `SERBENCH_TEST_REPEAT=SHARE` (0 to 1) offers the `repeat` variant
/// of the methods that list it, which does that share of its per-object work twice (encode,
/// decode or fold again, the result dropped). Never set by the harness; a user sets it to
/// check that a run finds a slowdown of known size (and with 0 to run the variant unslowed).
pub const REPEAT_ENV: &str = "SERBENCH_TEST_REPEAT";

/// Which calls of a `repeat` variant do their work twice: every `every`-th (0: none).
#[derive(Default)]
pub struct Repeat {
    every: u32,
    calls: u32,
}

impl Repeat {
    /// From [`REPEAT_ENV`]: a share of 0.2 repeats every 5th call.
    pub fn from_env() -> Self {
        let share: f64 = std::env::var(REPEAT_ENV)
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(0.0);
        let every = match share > 0.0 {
            true => (1.0 / share.min(1.0)).round() as u32,
            false => 0,
        };
        Repeat { every, calls: 0 }
    }

    /// Whether this call does its work again.
    #[inline]
    pub fn due(&mut self) -> bool {
        if self.every == 0 {
            return false;
        }
        self.calls += 1;
        if self.calls == self.every {
            self.calls = 0;
            return true;
        }
        false
    }
}

/// One method applied to one model type.
pub trait Codec<M: ModelType>: Method {
    /// Appends the encoding of `value` to `out`, which may already hold other objects.
    /// Only called when [`Method::WRITES`].
    fn encode(&mut self, value: &M, out: &mut Vec<u8>);

    /// Decodes one stored object into a native value (depth `materialize`).
    fn decode(&mut self, bytes: &[u8]) -> Result<M, DecodeError>;

    /// The read step of every task: folds the checksum words of one stored object into `h`
    /// at `depth` (one of [`Method::DEPTHS`], or [`Depth::None`] when there are none),
    /// visiting every field.
    fn fold(&mut self, bytes: &[u8], depth: Depth, h: &mut Hasher) -> Result<(), DecodeError>;
}

/// Why a stored object could not be decoded: what is wrong, at which byte of the object.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DecodeError {
    pub at: usize,
    pub message: String,
}

impl DecodeError {
    /// Control characters in `message` (a library quoting a damaged field name, say) are
    /// escaped: a reason is one readable line.
    #[cold]
    pub fn new(at: usize, message: impl Into<String>) -> Self {
        let message: String = message.into();
        let message = if message.chars().any(char::is_control) {
            let escape = |c: char| -> String {
                match c.is_control() {
                    true => c.escape_default().collect(),
                    false => c.into(),
                }
            };
            message.chars().map(escape).collect()
        } else {
            message
        };
        DecodeError { at, message }
    }

    /// A depth the registry does not let through to this method.
    #[cold]
    pub fn depth(method: &str, depth: Depth) -> Self {
        DecodeError::new(
            0,
            format!("{method} does not read at depth '{}'", depth.id()),
        )
    }
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "byte {}: {}", self.at, self.message)
    }
}

/// Materialize: decode into a native value, then fold its checksum over every field.
#[inline]
pub fn fold_decoded<M: ModelType, C: Codec<M>>(
    codec: &mut C,
    bytes: &[u8],
    h: &mut Hasher,
) -> Result<(), DecodeError> {
    codec.decode(bytes)?.fold(h);
    Ok(())
}

/// Golden vectors: every method reproduces, at every depth, the expected hash of every
/// object of `vectors/<model>.jsonl`, in memory and through a paged file.
#[cfg(test)]
mod golden_tests {
    use serbench_model::{object_hash, ModelId, ModelType, SetChecksum};

    use super::Codec;
    use crate::protocol::Depth;
    use crate::registry::{with_codec, CodecJob, METHODS};
    use crate::tasks::write::write_file;
    use crate::tasks::{load_objects, read_objects, Read, Selection};
    use crate::test_support::{vectors, Scratch, TEST_RUN};
    use crate::timing::IoTimer;

    struct Expected {
        hashes: Vec<u64>,
        set: SetChecksum,
    }

    fn expected(model: ModelId) -> Expected {
        let path = vectors().join(format!("{model}.expected.json"));
        let doc: serde_json::Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
        let hex = |v: &serde_json::Value| u64::from_str_radix(v.as_str().unwrap(), 16).unwrap();
        Expected {
            hashes: doc["objects"]
                .as_array()
                .unwrap()
                .iter()
                .map(|o| hex(&o["hash"]))
                .collect(),
            set: SetChecksum {
                count: doc["set_checksum"]["count"].as_u64().unwrap(),
                sum: hex(&doc["set_checksum"]["sum"]),
            },
        }
    }

    struct Golden {
        model: ModelId,
    }

    impl CodecJob for Golden {
        type Output = ();

        fn run<M: ModelType, C: Codec<M>>(self, mut codec: C) {
            let expected = expected(self.model);
            let objects: Vec<M> =
                load_objects(&vectors().join(format!("{}.jsonl", self.model))).unwrap();
            assert_eq!(objects.len(), expected.hashes.len());
            let what = |depth: Depth| format!("{} {} at depth '{}'", C::ID, self.model, depth.id());
            let mut buf = Vec::new();
            for (object, &hash) in objects.iter().zip(&expected.hashes) {
                assert_eq!(
                    object_hash(object),
                    hash,
                    "the model crate disagrees with the vectors"
                );
                buf.clear();
                codec.encode(object, &mut buf);
                for &depth in C::DEPTHS {
                    let mut h = serbench_model::Hasher::new();
                    codec.fold(&buf, depth, &mut h).unwrap();
                    assert_eq!(h.finish(), hash, "{}", what(depth));
                }
                assert!(
                    codec.decode(&buf).unwrap().total_eq(object),
                    "{}",
                    what(Depth::Materialize)
                );
            }
            // small pages make the larger vectors span pages
            for page_size in [64, 262_144] {
                let scratch = Scratch::new();
                let base = scratch.join("golden");
                let timer = IoTimer::default();
                write_file(&mut codec, &objects, &base, page_size, TEST_RUN, &timer).unwrap();
                for &depth in C::DEPTHS {
                    let read = Read {
                        base: &base,
                        selection: Selection::All,
                        depth,
                        page_size: Some(page_size),
                        run_stamp: TEST_RUN,
                    };
                    let read = read_objects(
                        &mut codec,
                        read,
                        &mut crate::paged::PageBuffer::default(),
                        &IoTimer::default(),
                    )
                    .unwrap();
                    assert_eq!(
                        read.checksum,
                        expected.set,
                        "{} in pages of {page_size}",
                        what(depth)
                    );
                    assert_eq!(read.writer, "rust");
                }
            }
        }
    }

    #[test]
    fn every_method_reproduces_the_golden_vectors_at_every_depth() {
        for method in METHODS.iter().filter(|m| m.writes) {
            for model in ModelId::BUILTIN {
                for variant in std::iter::once("").chain(method.variants.iter().copied()) {
                    with_codec(method.id, variant, model, Golden { model }).unwrap();
                }
            }
        }
    }
}

/// Bad input is a [`DecodeError`], never a panic: every method that writes, on every model,
/// given its own golden objects truncated, with a byte more, with bytes flipped, or another
/// model's objects, or garbage.
#[cfg(test)]
mod bad_input_tests {
    use serbench_model::{ModelId, ModelType};

    use super::Codec;
    use crate::protocol::Depth;
    use crate::registry::{with_codec, CodecJob, METHODS};
    use crate::tasks::load_objects;
    use crate::test_support::vectors;

    struct EncodeGolden {
        model: ModelId,
    }

    impl CodecJob for EncodeGolden {
        type Output = Vec<Vec<u8>>;

        fn run<M: ModelType, C: Codec<M>>(self, mut codec: C) -> Vec<Vec<u8>> {
            let objects: Vec<M> =
                load_objects(&vectors().join(format!("{}.jsonl", self.model))).unwrap();
            let encode = |object| {
                let mut out = Vec::new();
                codec.encode(object, &mut out);
                out
            };
            objects.iter().map(encode).collect()
        }
    }

    /// Reads every input at every depth; how many of the inputs read without an error.
    struct ReadAll<'a> {
        inputs: &'a [Vec<u8>],
    }

    impl CodecJob for ReadAll<'_> {
        type Output = Vec<usize>;

        fn run<M: ModelType, C: Codec<M>>(self, mut codec: C) -> Vec<usize> {
            // a trusting reader is only ever given its own driver's bytes: damage is UB there
            assert!(!codec.trusting(), "bad input must go to a checking variant");
            let mut read = Vec::new();
            for (i, bytes) in self.inputs.iter().enumerate() {
                let mut ok = codec.decode(bytes).is_ok();
                for &depth in C::DEPTHS.iter().filter(|&&d| d != Depth::Materialize) {
                    let mut h = serbench_model::Hasher::new();
                    ok |= codec.fold(bytes, depth, &mut h).is_ok();
                }
                if ok {
                    read.push(i);
                }
            }
            read
        }
    }

    fn each_method_and_model(mut check: impl FnMut(&str, ModelId, Vec<Vec<u8>>)) {
        for method in METHODS.iter().filter(|m| m.writes) {
            for model in ModelId::BUILTIN {
                let golden = with_codec(method.id, "", model, EncodeGolden { model }).unwrap();
                check(method.id, model, golden);
            }
        }
    }

    /// Reads through the method's checking variant (`validate`) when it has one.
    fn read(method: &str, model: ModelId, inputs: &[Vec<u8>]) -> Vec<usize> {
        let spec = crate::registry::method(method).expect("a registered method");
        let variant = if spec.variants.contains(&"validate") {
            "validate"
        } else {
            ""
        };
        with_codec(method, variant, model, ReadAll { inputs }).unwrap()
    }

    /// Prefixes of `bytes`: all of them for small objects, a spread for large ones.
    fn prefixes(bytes: &[u8]) -> Vec<Vec<u8>> {
        let step = (bytes.len() / 300).max(1);
        let ends = (0..bytes.len())
            .step_by(step)
            .chain(bytes.len().saturating_sub(8)..bytes.len());
        ends.map(|end| bytes[..end].to_vec()).collect()
    }

    /// Formats whose check proves the bytes are safe to read, not that they are the object
    /// written: rkyv's root sits at the end of the buffer, so a cut or extended buffer, or
    /// garbage, may hold another valid archive. They must not panic (the read runs); the
    /// logical checksum is what catches such damage.
    const SAFETY_CHECK_ONLY: &[&str] = &["rkyv"];
    /// Formats without an end marker: protobuf cut at a field boundary is a valid shorter
    /// message (absent fields read as defaults); a flatbuffer's root offset is at the front,
    /// so cutting its trailing padding or appending bytes leaves the same object. Only the
    /// checksum can catch such a cut.
    const CUT_MAY_READ: &[&str] = &["rkyv", "protobuf", "flatbuffers"];

    #[test]
    fn truncated_objects_and_trailing_bytes_are_errors() {
        each_method_and_model(|method, model, golden| {
            for object in golden {
                let mut bad = prefixes(&object);
                bad.push([&object[..], &[0]].concat());
                let read = read(method, model, &bad);
                if !CUT_MAY_READ.contains(&method) {
                    assert_eq!(read, [0usize; 0], "{method} {model}");
                }
            }
        });
    }

    /// Formats that name their fields; in a positional format another model's object may
    /// happen to read (e.g. `handcoded` reads some parts as customers).
    const SELF_DESCRIBING: &[&str] = &["json", "json_gzip", "msgpack", "bson", "flexbuffers"];

    #[test]
    fn another_models_objects_are_errors_in_self_describing_formats() {
        each_method_and_model(|method, model, golden| {
            for other in ModelId::BUILTIN.into_iter().filter(|&m| m != model) {
                let read = read(method, other, &golden);
                if SELF_DESCRIBING.contains(&method) {
                    assert!(read.is_empty(), "{method}: {model} objects read as {other}");
                }
            }
        });
    }

    #[test]
    fn garbage_is_an_error() {
        let mut state = 0x9e37_79b9_7f4a_7c15_u64;
        let mut garbage = |len| -> Vec<u8> {
            (0..len)
                .map(|_| {
                    state ^= state << 13;
                    state ^= state >> 7;
                    state ^= state << 17;
                    (state >> 24) as u8
                })
                .collect()
        };
        let inputs: Vec<Vec<u8>> = [1, 2, 5, 16, 64, 300, 4096]
            .iter()
            .flat_map(|&len| [garbage(len), garbage(len), vec![0xff; len]])
            .collect();
        each_method_and_model(|method, model, _| {
            let read = read(method, model, &inputs);
            if !SAFETY_CHECK_ONLY.contains(&method) {
                assert!(read.is_empty(), "{method} {model}");
            }
        });
    }

    /// Methods whose encoding of text is not its bytes as written (compressed).
    const TEXT_NOT_RAW: &[&str] = &["json_gzip"];

    /// A string whose bytes are not UTF-8 (0xFF inside it, the length unchanged) is an error
    /// in every method, never other text.
    #[test]
    fn strings_that_are_not_utf8_are_errors() {
        let mut accepted = Vec::new();
        each_method_and_model(|method, model, golden| {
            if model != ModelId::Part {
                return;
            }
            let marker = b"lavender";
            let object = &golden[0];
            let Some(at) = object.windows(marker.len()).position(|w| w == marker) else {
                assert!(
                    TEXT_NOT_RAW.contains(&method),
                    "{method} stores text as its bytes"
                );
                return;
            };
            let mut bad = object.clone();
            bad[at + 3] = 0xff;
            if !read(method, model, &[bad]).is_empty() {
                accepted.push(method.to_string());
            }
        });
        assert!(
            accepted.is_empty(),
            "these read 0xFF inside a string as text: {accepted:?}"
        );
    }

    /// Every error that reading `inputs` at every depth gives.
    struct Reasons<'a> {
        inputs: &'a [Vec<u8>],
    }

    impl CodecJob for Reasons<'_> {
        type Output = Vec<String>;

        fn run<M: ModelType, C: Codec<M>>(self, mut codec: C) -> Vec<String> {
            let mut reasons = Vec::new();
            for bytes in self.inputs {
                reasons.extend(codec.decode(bytes).err().map(|e| e.message));
                for &depth in C::DEPTHS.iter().filter(|&&d| d != Depth::Materialize) {
                    let mut h = serbench_model::Hasher::new();
                    reasons.extend(codec.fold(bytes, depth, &mut h).err().map(|e| e.message));
                }
            }
            reasons
        }
    }

    /// What a library says when it says nothing (issue: `bincode: io error: `, `bitcode:
    /// bitcode error`, rkyv's "failed without error information").
    const NO_REASON: &[&str] = &["without error information", "bitcode error"];

    /// A refusal says what is wrong: a reason after the method's name, on one readable line
    /// (damaged field names quoted by a library come escaped).
    #[test]
    fn every_refusal_gives_a_reason() {
        each_method_and_model(|method, model, golden| {
            let object = &golden[0];
            let mut bad = prefixes(object);
            for at in (0..object.len()).step_by((object.len() / 50).max(1)) {
                let mut flipped = object.clone();
                flipped[at..(at + 8).min(object.len())].fill(0);
                bad.push(flipped);
            }
            let spec = crate::registry::method(method).expect("a registered method");
            let variant = if spec.variants.contains(&"validate") {
                "validate"
            } else {
                ""
            };
            let reasons = with_codec(method, variant, model, Reasons { inputs: &bad }).unwrap();
            for reason in reasons {
                let why = reason
                    .split_once(": ")
                    .map_or(&reason[..], |(_, why)| why)
                    .trim();
                assert!(
                    why.len() >= 8 && !why.ends_with(':'),
                    "{method} {model}: a bare reason: {reason:?}"
                );
                assert!(
                    !reason.chars().any(char::is_control),
                    "{method} {model}: {reason:?}"
                );
                assert!(
                    !NO_REASON.iter().any(|bare| reason.contains(bare)),
                    "{method} {model}: no reason: {reason:?}"
                );
            }
        });
    }

    /// A flipped byte may still read (a changed number); it must not panic.
    #[test]
    fn flipped_bytes_never_panic() {
        each_method_and_model(|method, model, golden| {
            for object in golden {
                let step = (object.len() / 200).max(1);
                let flipped: Vec<Vec<u8>> = (0..object.len())
                    .step_by(step)
                    .flat_map(|at| {
                        [0xff, 0x80, 0x01].map(|mask| {
                            let mut bad = object.clone();
                            bad[at] ^= mask;
                            bad
                        })
                    })
                    .collect();
                read(method, model, &flipped);
            }
        });
    }
}

#[cfg(test)]
mod repeat_tests {
    use super::Repeat;

    #[test]
    fn a_share_repeats_that_many_calls_in_turn() {
        let mut fifth = Repeat { every: 5, calls: 0 };
        let due: Vec<bool> = (0..10).map(|_| fifth.due()).collect();
        assert_eq!(due.iter().filter(|&&d| d).count(), 2);
        assert!(due[4] && due[9]);
        let mut none = Repeat::default();
        assert!(
            !(0..100).any(|_| none.due()),
            "without the variable nothing repeats"
        );
    }
}
