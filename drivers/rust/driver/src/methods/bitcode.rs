//! `bitcode`: bitcode 0.6.9 through serde. Its own derive is the faster API, but it cannot
//! express a recursive type (the tweet's `quoted_status: Option<Box<Tweet>>` makes its
//! encoder type contain itself), so every model goes through serde, whose encoder is built at
//! run time. bitcode's serde API returns a fresh Vec, copied to the page buffer.

use serbench_model::{Hasher, ModelType};
use serde_json::{json, Map, Value};

use super::{fold_decoded, Codec, DecodeError, Method};
use crate::protocol::Depth;

#[derive(Default)]
pub struct Bitcode;

impl Method for Bitcode {
    const ID: &'static str = "bitcode";
    const DEPTHS: &'static [Depth] = &[Depth::Materialize];
    const FILES: &'static [&'static str] = &["drivers/rust/driver/src/methods/bitcode.rs"];

    fn settings() -> Map<String, Value> {
        let Value::Object(settings) = json!({"api": "serde"}) else {
            unreachable!()
        };
        settings
    }
}

impl<M: ModelType> Codec<M> for Bitcode {
    #[inline]
    fn encode(&mut self, value: &M, out: &mut Vec<u8>) {
        let bytes = bitcode::serialize(value).expect("model values always serialize");
        out.extend_from_slice(&bytes);
    }

    #[inline]
    fn decode(&mut self, bytes: &[u8]) -> Result<M, DecodeError> {
        bitcode::deserialize(bytes).map_err(|e| DecodeError::new(0, format!("bitcode: {e}")))
    }

    #[inline]
    fn fold(&mut self, bytes: &[u8], depth: Depth, h: &mut Hasher) -> Result<(), DecodeError> {
        match depth {
            Depth::Materialize => fold_decoded::<M, _>(self, bytes, h),
            other => Err(DecodeError::depth(Self::ID, other)),
        }
    }
}
