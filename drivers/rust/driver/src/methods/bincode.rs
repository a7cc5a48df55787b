//! `bincode`: bincode 1.3.3 with the default options of `bincode::serialize` and
//! `bincode::deserialize` (fixed-width little-endian integers, u64 lengths), encoding into
//! the reused page buffer, except that a reader rejects bytes after the object.

use bincode::Options;
use serbench_model::{Hasher, ModelType};

use super::{fold_decoded, Codec, DecodeError, Method, Repeat};
use crate::protocol::Depth;

/// `repeat` (test-only, [`Repeat`]): a share of its encodes and decodes done twice.
#[derive(Default)]
pub struct Bincode {
    repeat: Repeat,
}

impl Method for Bincode {
    const ID: &'static str = "bincode";
    const DEPTHS: &'static [Depth] = &[Depth::Materialize];
    const FILES: &'static [&'static str] = &["drivers/rust/driver/src/methods/bincode.rs"];
    const LIBRARIES: &'static [&'static str] = &["bincode@1", "serde"];
    const TEST_VARIANTS: &'static [&'static str] = &["repeat"];

    fn for_variant(variant: &str) -> Self {
        match variant {
            "repeat" => Bincode {
                repeat: Repeat::from_env(),
            },
            _ => Self::default(),
        }
    }
}

impl<M: ModelType> Codec<M> for Bincode {
    #[inline]
    fn encode(&mut self, value: &M, out: &mut Vec<u8>) {
        if self.repeat.due() {
            let mut again = Vec::new();
            bincode::serialize_into(&mut again, value).expect("model values always serialize");
            std::hint::black_box(again);
        }
        bincode::serialize_into(out, value).expect("model values always serialize");
    }

    #[inline]
    fn decode(&mut self, bytes: &[u8]) -> Result<M, DecodeError> {
        if self.repeat.due() {
            std::hint::black_box(decode::<M>(bytes).ok());
        }
        decode(bytes)
    }

    #[inline]
    fn fold(&mut self, bytes: &[u8], depth: Depth, h: &mut Hasher) -> Result<(), DecodeError> {
        match depth {
            Depth::Materialize => fold_decoded::<M, _>(self, bytes, h),
            other => Err(DecodeError::depth(Self::ID, other)),
        }
    }
}

#[inline]
fn decode<M: ModelType>(bytes: &[u8]) -> Result<M, DecodeError> {
    // `bincode::deserialize`'s options, but trailing bytes are corruption here
    bincode::DefaultOptions::new()
        .with_fixint_encoding()
        .deserialize(bytes)
        .map_err(error)
}

/// bincode 1 reports reading past the end as an I/O error with no text of its own.
#[cold]
fn error(e: bincode::Error) -> DecodeError {
    match *e {
        bincode::ErrorKind::Io(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => {
            DecodeError::new(0, "bincode: the object ends before its last field")
        }
        e => DecodeError::new(0, format!("bincode: {e}")),
    }
}
