//! `raw`: the floor every read is compared with. It reads the same pages in the same order
//! as the methods do, but folds each object's bytes as checksum words (`Hasher::bytes`: the
//! length, then 8-byte little-endian chunks) without decoding anything.

use serbench_model::{Hasher, ModelType};

use super::{Codec, DecodeError, Method};
use crate::protocol::Depth;

#[derive(Default)]
pub struct Raw;

impl Method for Raw {
    const ID: &'static str = "raw";
    const DEPTHS: &'static [Depth] = &[];
    const FILES: &'static [&'static str] = &["drivers/rust/driver/src/methods/raw.rs"];
    const LIBRARIES: &'static [&'static str] = &[];
    const WRITES: bool = false;
}

impl<M: ModelType> Codec<M> for Raw {
    fn encode(&mut self, _value: &M, _out: &mut Vec<u8>) {
        unreachable!("raw writes nothing; the registry refuses to ask it")
    }

    fn decode(&mut self, _bytes: &[u8]) -> Result<M, DecodeError> {
        Err(DecodeError::new(0, "raw does not decode"))
    }

    #[inline]
    fn fold(&mut self, bytes: &[u8], depth: Depth, h: &mut Hasher) -> Result<(), DecodeError> {
        match depth {
            Depth::None => {
                h.bytes(bytes);
                Ok(())
            }
            other => Err(DecodeError::depth(Self::ID, other)),
        }
    }
}
