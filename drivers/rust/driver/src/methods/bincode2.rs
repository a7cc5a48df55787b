//! `bincode2`: bincode 2.0.1 (a renamed dependency next to bincode 1.3.3) with its own
//! `Encode`/`Decode` derives on the model (the API bincode 2 recommends and builds its serde
//! support beside; not yet timed against that serde path here), and the `standard`
//! configuration (little-endian varints), encoding straight into the page buffer.
//! A limit bounds what a corrupted length can make the decoder reserve.

use bincode2::config::{self, Configuration, Limit, LittleEndian, Varint};
use serbench_model::{Hasher, ModelType};
use serde_json::{json, Map, Value};

use super::{fold_decoded, Codec, DecodeError, Method};
use crate::protocol::Depth;

/// Bytes of native values one object may claim while decoding (far above any real object).
const LIMIT: usize = 1 << 28;

const CONFIG: Configuration<LittleEndian, Varint, Limit<LIMIT>> =
    config::standard().with_limit::<LIMIT>();

#[derive(Default)]
pub struct Bincode2;

impl Method for Bincode2 {
    const ID: &'static str = "bincode2";
    const DEPTHS: &'static [Depth] = &[Depth::Materialize];
    const FILES: &'static [&'static str] = &["drivers/rust/driver/src/methods/bincode2.rs"];

    fn settings() -> Map<String, Value> {
        let Value::Object(settings) =
            json!({"api": "derive", "config": "standard", "decode_limit_bytes": LIMIT})
        else {
            unreachable!()
        };
        settings
    }
}

impl<M: ModelType + bincode2::Encode + bincode2::Decode<()>> Codec<M> for Bincode2 {
    #[inline]
    fn encode(&mut self, value: &M, out: &mut Vec<u8>) {
        bincode2::encode_into_std_write(value, out, CONFIG).expect("model values always encode");
    }

    #[inline]
    fn decode(&mut self, bytes: &[u8]) -> Result<M, DecodeError> {
        let (value, read) = bincode2::decode_from_slice(bytes, CONFIG)
            .map_err(|e| DecodeError::new(0, format!("bincode 2: {e}")))?;
        if read != bytes.len() {
            return Err(DecodeError::new(read, "bytes after the object"));
        }
        Ok(value)
    }

    #[inline]
    fn fold(&mut self, bytes: &[u8], depth: Depth, h: &mut Hasher) -> Result<(), DecodeError> {
        match depth {
            Depth::Materialize => fold_decoded::<M, _>(self, bytes, h),
            other => Err(DecodeError::depth(Self::ID, other)),
        }
    }
}
