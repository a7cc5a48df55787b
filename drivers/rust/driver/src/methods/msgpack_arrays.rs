//! `msgpack_arrays`: MessagePack through rmp-serde 1.3 as PROTOCOL.md 8.2.1 states it: every
//! struct an array of its fields in the model's order (rmp-serde's default struct layout),
//! an absent optional nil in its place (the model writes every field for a serializer that
//! is not human-readable, rmp-serde's default), integers in their smallest encoding. Read
//! as `msgpack` reads; the model's optionals carry no serde default, so an array one field
//! short is an error, not a missing optional.

use serbench_model::{Hasher, ModelType};
use serde_json::{json, Map, Value};

use super::msgpack::decode_one;
use super::{fold_decoded, Codec, DecodeError, Method};
use crate::protocol::Depth;

#[derive(Default)]
pub struct MsgpackArrays;

impl Method for MsgpackArrays {
    const ID: &'static str = "msgpack_arrays";
    const DEPTHS: &'static [Depth] = &[Depth::Materialize];
    const FILES: &'static [&'static str] = &[
        "drivers/rust/driver/src/methods/msgpack_arrays.rs",
        "drivers/rust/driver/src/methods/msgpack.rs",
    ];
    const LIBRARIES: &'static [&'static str] = &["rmp-serde", "serde"];

    fn settings() -> Map<String, Value> {
        let Value::Object(settings) = json!({"structs": "arrays of their fields in schema order"})
        else {
            unreachable!()
        };
        settings
    }
}

impl<M: ModelType> Codec<M> for MsgpackArrays {
    #[inline]
    fn encode(&mut self, value: &M, out: &mut Vec<u8>) {
        value
            .serialize(&mut rmp_serde::Serializer::new(out))
            .expect("model values always serialize");
    }

    #[inline]
    fn decode(&mut self, bytes: &[u8]) -> Result<M, DecodeError> {
        decode_one(bytes)
    }

    #[inline]
    fn fold(&mut self, bytes: &[u8], depth: Depth, h: &mut Hasher) -> Result<(), DecodeError> {
        match depth {
            Depth::Materialize => fold_decoded::<M, _>(self, bytes, h),
            other => Err(DecodeError::depth(Self::ID, other)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tasks::load_objects;
    use crate::test_support::vectors;
    use serbench_model::{Arrays, Org, OrgType, Tweet};

    fn encode<M: ModelType>(value: &M) -> Vec<u8> {
        let mut out = Vec::new();
        Codec::<M>::encode(&mut MsgpackArrays, value, &mut out);
        out
    }

    fn decode<M: ModelType>(bytes: &[u8]) -> Result<M, DecodeError> {
        Codec::<M>::decode(&mut MsgpackArrays, bytes)
    }

    #[test]
    fn structs_are_arrays_of_their_fields_in_order() {
        let org = Org {
            name: "n".into(),
            category: String::new(),
            country: String::new(),
            r#type: OrgType::Baz,
            attributes: vec![],
        };
        assert_eq!(encode(&org), b"\x95\xa1n\xa0\xa0\xa3BAZ\x90");
        let arrays = Arrays {
            strings: vec!["ab".into()],
            ints: vec![1, -1, 200],
        };
        let bytes = [0x92, 0x91, 0xa2, b'a', b'b', 0x93, 0x01, 0xff, 0xcc, 0xc8];
        assert_eq!(encode(&arrays), bytes);
        assert_eq!(decode::<Arrays>(&bytes).unwrap(), arrays);
    }

    /// A tweet is an array 16 of 28 values; its absent last field is nil, and the same tweet
    /// one field short is an error, not that optional absent.
    #[test]
    fn absent_optionals_are_nil_in_their_place() {
        let mut tweet: Tweet =
            load_objects::<Tweet>(&vectors().join("tweet.jsonl")).unwrap()[0].clone();
        tweet.display_text_range = None;
        let bytes = encode(&tweet);
        assert_eq!(bytes[..3], [0xdc, 0x00, 28]);
        assert_eq!(bytes.last(), Some(&0xc0));
        assert_eq!(decode::<Tweet>(&bytes).unwrap(), tweet);
        let mut short = vec![0xdc, 0x00, 27];
        short.extend(&bytes[3..bytes.len() - 1]);
        assert!(decode::<Tweet>(&short).is_err());
    }

    #[test]
    fn wrong_lengths_types_and_trailing_bytes_are_errors() {
        for bad in [
            json!([[]]),
            json!([[], [], []]),
            json!([[], null]),
            json!([[], [1i64 << 31]]),
            json!([[], [1.0]]),
            json!([[1], []]),
            json!([[], {}]),
        ] {
            let bytes = rmp_serde::to_vec(&bad).unwrap();
            assert!(decode::<Arrays>(&bytes).is_err(), "{bad}");
        }
        assert!(decode::<Arrays>(&[0x92, 0x90, 0x90, 0x90]).is_err());
        // a string that is not UTF-8
        assert!(decode::<Arrays>(&[0x92, 0x91, 0xa1, 0xff, 0x90]).is_err());
    }
}
