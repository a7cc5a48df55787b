//! `msgpack`: MessagePack through rmp-serde 1.3 as PROTOCOL.md 8.2 states it: every struct a
//! map keyed by field names (`with_struct_map`), absent optionals omitted (the model omits
//! them for human-readable serializers, hence `with_human_readable`, which changes nothing
//! else for these types), integers in their smallest encoding; written straight into the
//! page buffer, read from borrowed bytes.

use rmp_serde::decode::Error;
use serbench_model::{Hasher, ModelType};
use serde::de::{Deserialize, IgnoredAny};
use serde_json::{json, Map, Value};

use super::{fold_decoded, Codec, DecodeError, Method};
use crate::protocol::Depth;

#[derive(Default)]
pub struct Msgpack;

impl Method for Msgpack {
    const ID: &'static str = "msgpack";
    const DEPTHS: &'static [Depth] = &[Depth::Materialize];
    const FILES: &'static [&'static str] = &["drivers/rust/driver/src/methods/msgpack.rs"];
    const LIBRARIES: &'static [&'static str] = &["rmp-serde", "serde"];

    fn settings() -> Map<String, Value> {
        let Value::Object(settings) = json!({"structs": "maps with field-name keys"}) else {
            unreachable!()
        };
        settings
    }
}

impl<M: ModelType> Codec<M> for Msgpack {
    #[inline]
    fn encode(&mut self, value: &M, out: &mut Vec<u8>) {
        let mut serializer = rmp_serde::Serializer::new(out)
            .with_struct_map()
            .with_human_readable();
        value
            .serialize(&mut serializer)
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

/// One value filling `bytes`, as `msgpack` and `msgpack_arrays` read it (rmp-serde takes a
/// struct from a map or an array alike).
#[inline]
pub(super) fn decode_one<M: ModelType>(bytes: &[u8]) -> Result<M, DecodeError> {
    let mut de = rmp_serde::Deserializer::from_read_ref(bytes);
    let value =
        M::deserialize(&mut de).map_err(|e| DecodeError::new(0, format!("msgpack: {e}")))?;
    // the reader does not tell how much it read: a second value must find the end
    match IgnoredAny::deserialize(&mut de) {
        Err(Error::InvalidMarkerRead(e)) if e.kind() == std::io::ErrorKind::UnexpectedEof => {
            Ok(value)
        }
        _ => Err(DecodeError::new(0, "bytes after the msgpack value")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serbench_model::{Arrays, Org, OrgType, Trade};
    use serde::Serialize;

    fn encode<M: ModelType>(value: &M) -> Vec<u8> {
        let mut out = Vec::new();
        Codec::<M>::encode(&mut Msgpack, value, &mut out);
        out
    }

    #[test]
    fn structs_are_maps_of_names_and_integers_are_smallest() {
        let arrays = Arrays {
            strings: vec!["ab".into()],
            ints: vec![
                0,
                127,
                128,
                255,
                256,
                65536,
                -1,
                -32,
                -33,
                -129,
                -32769,
                i32::MIN,
            ],
        };
        let mut expected = vec![0x82, 0xa7];
        expected.extend(b"strings");
        expected.extend([0x91, 0xa2, b'a', b'b', 0xa4]);
        expected.extend(b"ints");
        expected.extend([0x9c, 0x00, 0x7f, 0xcc, 0x80, 0xcc, 0xff, 0xcd, 0x01, 0x00]);
        expected.extend([
            0xce, 0x00, 0x01, 0x00, 0x00, 0xff, 0xe0, 0xd0, 0xdf, 0xd1, 0xff, 0x7f,
        ]);
        expected.extend([0xd2, 0xff, 0xff, 0x7f, 0xff, 0xd2, 0x80, 0x00, 0x00, 0x00]);
        assert_eq!(encode(&arrays), expected);
    }

    #[test]
    fn enums_are_symbols_and_f64_is_float_64() {
        let org = Org {
            name: String::new(),
            category: String::new(),
            country: String::new(),
            r#type: OrgType::Baz,
            attributes: vec![],
        };
        let bytes = encode(&org);
        assert!(bytes.windows(9).any(|w| w == b"\xa4type\xa3BAZ"));
        let trade = Trade {
            source_id: 1,
            special: true,
            order_code: 2,
            priority: 3,
            prices: vec![-0.0],
            quantities: vec![],
        };
        let bytes = encode(&trade);
        assert!(bytes
            .windows(10)
            .any(|w| w == b"\x91\xcb\x80\0\0\0\0\0\0\0"));
        assert!(bytes
            .windows(8)
            .any(|w| w == b"\xa7special\xc3"[..8].as_ref()));
    }

    #[test]
    fn any_key_order_wider_integers_and_nil_for_absent_optionals_are_read() {
        #[derive(Serialize)]
        struct Reordered {
            ints: Vec<i64>,
            strings: Vec<String>,
        }
        let bytes = rmp_serde::to_vec_named(&Reordered {
            ints: vec![1 << 20],
            strings: vec![],
        })
        .unwrap();
        let arrays: Arrays = Codec::<Arrays>::decode(&mut Msgpack, &bytes).unwrap();
        assert_eq!(arrays.ints, [1 << 20]);
        let url = json!({"url": "u", "expanded_url": null, "indices": []});
        let url: serbench_model::Url =
            rmp_serde::from_slice(&rmp_serde::to_vec_named(&url).unwrap()).unwrap();
        assert_eq!((url.expanded_url, url.display_url), (None, None));
    }

    #[test]
    fn wrong_types_and_out_of_range_integers_are_errors() {
        for bad in [
            json!({"strings": [], "ints": [1i64 << 31]}),
            json!({"strings": [], "ints": [1.0]}),
            json!({"strings": [1], "ints": []}),
            json!({"strings": [], "ints": {}}),
            json!({"strings": []}),
            json!({"strings": [], "ints": [], "extra": 1}),
        ] {
            let bytes = rmp_serde::to_vec_named(&bad).unwrap();
            assert!(
                Codec::<Arrays>::decode(&mut Msgpack, &bytes).is_err(),
                "{bad}"
            );
        }
    }
}
