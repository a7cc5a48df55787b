//! `bincode`: bincode 1.3.3 with the default options of `bincode::serialize` and
//! `bincode::deserialize` (fixed-width little-endian integers, u64 lengths), encoding into
//! the reused page buffer, except that a reader rejects bytes after the object.

use bincode::Options;
use serbench_model::{Hasher, ModelType};

use super::{fold_decoded, Codec, DecodeError, Method};
use crate::protocol::Depth;

#[derive(Default)]
pub struct Bincode;

impl Method for Bincode {
    const ID: &'static str = "bincode";
    const DEPTHS: &'static [Depth] = &[Depth::Materialize];
    const FILES: &'static [&'static str] = &["drivers/rust/driver/src/methods/bincode.rs"];
    const LIBRARIES: &'static [&'static str] = &["bincode@1", "serde"];
}

impl<M: ModelType> Codec<M> for Bincode {
    #[inline]
    fn encode(&mut self, value: &M, out: &mut Vec<u8>) {
        bincode::serialize_into(out, value).expect("model values always serialize");
    }

    #[inline]
    fn decode(&mut self, bytes: &[u8]) -> Result<M, DecodeError> {
        // `bincode::deserialize`'s options, but trailing bytes are corruption here
        bincode::DefaultOptions::new()
            .with_fixint_encoding()
            .deserialize(bytes)
            .map_err(error)
    }

    #[inline]
    fn fold(&mut self, bytes: &[u8], depth: Depth, h: &mut Hasher) -> Result<(), DecodeError> {
        match depth {
            Depth::Materialize => fold_decoded::<M, _>(self, bytes, h),
            other => Err(DecodeError::depth(Self::ID, other)),
        }
    }
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
