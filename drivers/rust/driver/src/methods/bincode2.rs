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
    const LIBRARIES: &'static [&'static str] = &["bincode@2"];

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
        let (value, read) = bincode2::decode_from_slice(bytes, CONFIG).map_err(error)?;
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

/// bincode 2 shows its errors as their Debug form: the ones damage causes most are put in
/// words; the model's own (nesting) are plain text already.
#[cold]
fn error(e: bincode2::error::DecodeError) -> DecodeError {
    use bincode2::error::DecodeError as E;
    let why = match e {
        E::OtherString(message) => message,
        E::UnexpectedEnd { additional } => {
            format!("the object ends {additional} bytes before its last field")
        }
        E::InvalidIntegerType { expected, found } => {
            format!("an integer of varint kind {found:?} where a {expected:?} belongs")
        }
        E::Utf8 { inner } => format!("invalid UTF-8 in a string: {inner}"),
        E::InvalidBooleanValue(byte) => format!("bool byte {byte} is neither 0 nor 1"),
        E::UnexpectedVariant {
            found, type_name, ..
        } => {
            format!("variant {found} of {type_name} does not exist")
        }
        e => e.to_string(),
    };
    DecodeError::new(0, format!("bincode 2: {why}"))
}

#[cfg(test)]
mod deep_tests {
    use super::*;
    use serbench_model::{Tweet, TweetKind};

    fn encoded(tweet: &Tweet) -> Vec<u8> {
        let mut out = Vec::new();
        Codec::<Tweet>::encode(&mut Bincode2, tweet, &mut out);
        out
    }

    /// A golden plain tweet retweeting itself `levels` deep, spliced from the bytes of one
    /// plain tweet (encoding so deep a tweet would overflow the stack itself): the plain tweet
    /// is `head, None, tail` and a retweet of it `head, Some, plain, tail`.
    fn nested_retweets(levels: usize) -> Vec<u8> {
        let tweets: Vec<Tweet> =
            crate::tasks::load_objects(&crate::test_support::vectors().join("tweet.jsonl"))
                .unwrap();
        let plain = tweets
            .into_iter()
            .find(|t| t.kind() == TweetKind::Plain)
            .unwrap();
        let retweet = Tweet {
            retweeted_status: Some(Box::new(plain.clone())),
            ..plain.clone()
        };
        let (plain, retweet) = (encoded(&plain), encoded(&retweet));
        let split = plain
            .iter()
            .zip(&retweet)
            .position(|(a, b)| a != b)
            .unwrap();
        assert_eq!((plain[split], retweet[split]), (0, 1));
        let (head, tail) = (&retweet[..=split], &plain[split + 1..]);
        let mut out = head.repeat(levels);
        out.extend_from_slice(&plain);
        out.extend(tail.repeat(levels));
        out
    }

    fn decode_on_small_stack(bytes: Vec<u8>) -> Result<Tweet, DecodeError> {
        // unoptimized frames are large: the 64 levels allowed need more than a test thread's
        // stack; the 100,000 asked for would need gigabytes
        std::thread::Builder::new()
            .stack_size(64 << 20)
            .spawn(move || Codec::<Tweet>::decode(&mut Bincode2, &bytes))
            .unwrap()
            .join()
            .unwrap()
    }

    #[test]
    fn deep_retweets_are_refused_not_a_stack_overflow() {
        // the root and 63 retweets are 64 statuses
        let deep = decode_on_small_stack(nested_retweets(63)).unwrap();
        assert_eq!(deep.kind(), TweetKind::Retweet);
        for levels in [64, 100_000] {
            let message = decode_on_small_stack(nested_retweets(levels))
                .unwrap_err()
                .message;
            assert_eq!(message, "bincode 2: nested deeper than 64 levels");
        }
    }
}
