//! The method axis: every physical implementation behind ONE interface. A method is a type
//! implementing [`Method`] (what it is) and [`Codec<M>`] for every model type `M` (what it
//! does). Tasks and ops are written only against these two traits; adding a method is one
//! file here and one line in `registry.rs`.

pub mod bincode;
pub mod flatbuffers;
pub mod handcoded;
pub mod json_gzip;
pub mod protobuf;
pub mod raw;
pub mod rkyv;
mod serde_fill;

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
    /// False for a method that only reads other methods' files (the raw floor): it writes
    /// nothing and accepts any method's index.
    const WRITES: bool = true;
    /// Its labelled read variants besides the default `""` (as in the C++ driver: `validate`
    /// names the checking path of a method whose default trusts its own bytes).
    const VARIANTS: &'static [&'static str] = &[];
    /// The alignment its objects need within a page (PROTOCOL.md 4.1: at most 8), for
    /// methods that read their bytes in place.
    const ALIGN: usize = 1;

    /// A codec reading as `variant` (`""` or one of [`Method::VARIANTS`]).
    fn for_variant(_variant: &str) -> Self {
        Self::default()
    }

    /// True when reads skip checking the bytes: such a codec reads only files this driver
    /// wrote itself (the reader refuses other writers' files).
    fn trusting(&self) -> bool {
        false
    }

    /// Settings that change its results (e.g. a compression level), reported in `info`.
    fn settings() -> Map<String, Value> {
        Map::new()
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
    #[cold]
    pub fn new(at: usize, message: impl Into<String>) -> Self {
        DecodeError {
            at,
            message: message.into(),
        }
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
    use crate::test_support::{vectors, Scratch};
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
                write_file(&mut codec, &objects, &base, page_size, &IoTimer::default()).unwrap();
                for &depth in C::DEPTHS {
                    let read = Read {
                        base: &base,
                        selection: Selection::All,
                        depth,
                        page_size: Some(page_size),
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
            for model in ModelId::ALL {
                for variant in std::iter::once("").chain(method.variants.iter().copied()) {
                    with_codec(method.id, variant, model, Golden { model }).unwrap();
                }
            }
        }
    }
}
