//! `bson`: one BSON document per object through the bson 3 crate's serde integration, as
//! PROTOCOL.md 8.3 states it: `i8 i16 i32` as int32, `i64` as int64, absent optionals
//! omitted. The raw serializer writes straight into the page buffer; it calls itself not
//! human-readable, so the model would write absent optionals as nulls: the crate's own
//! `HumanReadable` wrapper switches that on (it changes nothing else for these types).

use bson::serde_helpers::HumanReadable;
use serbench_model::{Hasher, ModelType};

use super::{fold_decoded, Codec, DecodeError, Method};
use crate::protocol::Depth;

#[derive(Default)]
pub struct Bson;

impl Method for Bson {
    const ID: &'static str = "bson";
    const DEPTHS: &'static [Depth] = &[Depth::Materialize];
    const FILES: &'static [&'static str] = &["drivers/rust/driver/src/methods/bson.rs"];
    const LIBRARIES: &'static [&'static str] = &["bson", "serde"];
}

impl<M: ModelType> Codec<M> for Bson {
    #[inline]
    fn encode(&mut self, value: &M, out: &mut Vec<u8>) {
        bson::serialize_to_buffer(&HumanReadable(value), out)
            .expect("model values always serialize");
    }

    #[inline]
    fn decode(&mut self, bytes: &[u8]) -> Result<M, DecodeError> {
        bson::deserialize_from_slice(bytes).map_err(|e| DecodeError::new(0, format!("BSON: {e}")))
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
    use bson::{doc, Document};
    use serbench_model::{Arrays, Attr, Org, OrgType, Url};

    fn encode<M: ModelType>(value: &M) -> Vec<u8> {
        let mut out = vec![0xee];
        Codec::<M>::encode(&mut Bson, value, &mut out);
        assert_eq!(out.remove(0), 0xee, "appends to the buffer");
        out
    }

    fn bytes(document: &Document) -> Vec<u8> {
        let mut out = Vec::new();
        document.to_writer(&mut out).unwrap();
        out
    }

    #[test]
    fn small_integers_are_int32_i64_is_int64_and_enums_are_symbols() {
        let org = Org {
            name: "n".into(),
            category: String::new(),
            country: String::new(),
            r#type: OrgType::Bar,
            attributes: vec![Attr {
                id: "a".into(),
                quantity: -8,
                amount: 5,
                active: true,
                percent: -0.0,
                size: 300,
            }],
        };
        let expected = doc! {
            "name": "n", "category": "", "country": "", "type": "BAR",
            "attributes": [{"id": "a", "quantity": -8_i32, "amount": 5_i32, "active": true,
                            "percent": -0.0, "size": 300_i32}],
        };
        assert_eq!(encode(&org), bytes(&expected));
    }

    #[test]
    fn absent_optionals_are_omitted_and_nulls_read_as_absent() {
        let url = Url {
            url: "u".into(),
            expanded_url: None,
            display_url: Some("d".into()),
            indices: vec![],
        };
        let expected = doc! {"url": "u", "display_url": "d", "indices": []};
        assert_eq!(
            bson::serialize_to_vec(&HumanReadable(&url)).unwrap(),
            bytes(&expected)
        );
        let with_null = doc! {"indices": [], "expanded_url": null, "url": "u"};
        let read: Url = bson::deserialize_from_slice(&bytes(&with_null)).unwrap();
        assert_eq!((read.expanded_url, read.display_url), (None, None));
    }

    #[test]
    fn wider_integers_that_fit_are_read_and_others_are_errors() {
        let ok = doc! {"ints": [7_i64], "strings": []};
        let arrays: Arrays = Codec::<Arrays>::decode(&mut Bson, &bytes(&ok)).unwrap();
        assert_eq!(arrays.ints, [7]);
        for bad in [
            doc! {"strings": [], "ints": [1_i64 << 31]},
            doc! {"strings": [], "ints": [1.0]},
            doc! {"strings": [1], "ints": []},
            doc! {"strings": []},
            doc! {"strings": [], "ints": [], "extra": 1},
        ] {
            assert!(
                Codec::<Arrays>::decode(&mut Bson, &bytes(&bad)).is_err(),
                "{bad}"
            );
        }
    }
}

#[cfg(test)]
mod deep_tests {
    use super::*;
    use serbench_model::Tweet;

    /// `{"retweeted_status": {"retweeted_status": ...}}`, `levels` documents deep.
    fn nested_retweets(levels: usize) -> Vec<u8> {
        const KEY: &[u8] = b"retweeted_status\0";
        let mut out = Vec::new();
        for k in (1..=levels).rev() {
            let len = 5 + (1 + KEY.len() + 4) * k + k;
            out.extend_from_slice(&(len as i32).to_le_bytes());
            out.push(0x03);
            out.extend_from_slice(KEY);
        }
        out.extend_from_slice(&[5, 0, 0, 0, 0]);
        out.extend(std::iter::repeat(0).take(levels));
        out
    }

    #[test]
    fn deep_documents_are_refused_not_a_stack_overflow() {
        let bytes = nested_retweets(100_000);
        // unoptimized frames are large: the 64 levels allowed need more than a test thread's
        // stack; the 100,000 asked for would need gigabytes
        let refused = std::thread::Builder::new()
            .stack_size(64 << 20)
            .spawn(move || Codec::<Tweet>::decode(&mut Bson, &bytes).map(|_| ()))
            .unwrap()
            .join()
            .unwrap();
        let message = refused.unwrap_err().message;
        assert!(
            message.contains("nested deeper than 64 levels"),
            "{message}"
        );
    }
}
