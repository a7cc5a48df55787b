//! `json`: compact canonical JSON (PROTOCOL.md 8.1) through serde_json, one JSON text per
//! object, written straight into the page buffer; exactly `json_gzip` without the gzip.

use serbench_model::{Hasher, ModelType};

use super::{fold_decoded, Codec, DecodeError, Method};
use crate::protocol::Depth;

#[derive(Default)]
pub struct Json;

impl Method for Json {
    const ID: &'static str = "json";
    const DEPTHS: &'static [Depth] = &[Depth::Materialize];
    const FILES: &'static [&'static str] = &["drivers/rust/driver/src/methods/json.rs"];
    const LIBRARIES: &'static [&'static str] = &["serde_json", "serde"];
}

impl<M: ModelType> Codec<M> for Json {
    #[inline]
    fn encode(&mut self, value: &M, out: &mut Vec<u8>) {
        serde_json::to_writer(out, value).expect("model values always serialize");
    }

    #[inline]
    fn decode(&mut self, bytes: &[u8]) -> Result<M, DecodeError> {
        // serde_json allows whitespace around the text; a stored object has none
        match (bytes.first(), bytes.last()) {
            (Some(b'{'), Some(b'}')) => {}
            _ => return Err(DecodeError::new(0, "not one JSON object and nothing else")),
        }
        serde_json::from_slice(bytes).map_err(|e| json_error(bytes, &e))
    }

    #[inline]
    fn fold(&mut self, bytes: &[u8], depth: Depth, h: &mut Hasher) -> Result<(), DecodeError> {
        match depth {
            Depth::Materialize => fold_decoded::<M, _>(self, bytes, h),
            other => Err(DecodeError::depth(Self::ID, other)),
        }
    }
}

/// serde_json names a line and column; a stored object is one line unless a foreign writer
/// put newlines in it, so the column is the byte offset when it can be.
#[cold]
fn json_error(bytes: &[u8], e: &serde_json::Error) -> DecodeError {
    let at = if e.line() == 1 {
        e.column().saturating_sub(1).min(bytes.len())
    } else {
        0
    };
    DecodeError::new(at, format!("JSON: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::vectors;
    use serbench_model::{dispatch, from_json, ModelId, Org, OrgType, Trade};

    fn encode<M: ModelType>(value: &M) -> String {
        let mut out = Vec::new();
        Codec::<M>::encode(&mut Json, value, &mut out);
        String::from_utf8(out).unwrap()
    }

    fn reencode<M: ModelType>(line: &str) -> String {
        encode(&from_json::<M>(line.as_bytes()).unwrap())
    }

    /// The vectors' text (Python's `json.dumps`) has other exponents (`e-07`) and puts
    /// present optionals last, so the values are compared here and the bytes below.
    #[test]
    fn objects_read_back_as_the_vectors_values() {
        for model in ModelId::BUILTIN {
            let text = std::fs::read_to_string(vectors().join(format!("{model}.jsonl"))).unwrap();
            for line in text.lines() {
                let out = dispatch!(model, M => reencode::<M>(line));
                let value = |text: &str| serde_json::from_str::<serde_json::Value>(text).unwrap();
                assert_eq!(value(&out), value(line), "{model}");
            }
        }
    }

    #[test]
    fn floats_and_strings_are_written_as_protocol_8_1_says() {
        let trade = Trade {
            source_id: -1,
            special: true,
            order_code: 0,
            priority: 7,
            prices: vec![
                1.0,
                0.00001,
                123456.789,
                1e15,
                1e16,
                1.5e-7,
                f64::MAX,
                0.0,
                -0.0,
            ],
            quantities: vec![i64::MIN],
        };
        assert_eq!(
            encode(&trade),
            r#"{"source_id":-1,"special":true,"order_code":0,"priority":7,"prices":[1.0,0.00001,123456.789,1000000000000000.0,1e+16,1.5e-7,1.7976931348623157e+308,0.0,-0.0],"quantities":[-9223372036854775808]}"#
        );
        let org = Org {
            name: "\u{1}\u{8}\u{c}\n\r\t\u{1f}\u{7f}/é\"\\".into(),
            category: String::new(),
            country: String::new(),
            r#type: OrgType::Bar,
            attributes: vec![],
        };
        assert_eq!(
            encode(&org),
            "{\"name\":\"\\u0001\\b\\f\\n\\r\\t\\u001f\u{7f}/é\\\"\\\\\",\"category\":\"\",\
             \"country\":\"\",\"type\":\"BAR\",\"attributes\":[]}"
        );
    }

    #[test]
    fn readers_accept_any_key_order_nulls_for_absent_optionals_and_escapes() {
        let org: Org = Codec::<Org>::decode(
            &mut Json,
            br#"{"attributes":[],"type":"FOO","country":"\u00d6","category":"","name":"\ud83d\ude00"}"#,
        )
        .unwrap();
        assert_eq!((org.name.as_str(), org.country.as_str()), ("😀", "Ö"));
        let url: serbench_model::Url = serde_json::from_str(
            r#"{"url":"u","expanded_url":null,"display_url":"d","indices":[1]}"#,
        )
        .unwrap();
        assert_eq!(url.expanded_url, None);
    }

    #[test]
    fn whitespace_around_the_object_and_repeated_keys_are_errors() {
        for bad in [
            &br#"{"strings":[],"ints":[]} "#[..],
            br#" {"strings":[],"ints":[]}"#,
            br#"{"strings":[],"ints":[],"ints":[]}"#,
            br#"{"strings":[],"ints":[1.0]}"#,
        ] {
            let err = Codec::<serbench_model::Arrays>::decode(&mut Json, bad).unwrap_err();
            assert!(!err.message.is_empty());
        }
    }
}
