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
    const LIBRARIES: &'static [&'static str] = &["bitcode", "serde"];

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
        // a release build of bitcode 0.6 keeps no reason in its error (a zero-sized type that
        // says "bitcode error"); a debug build's, and the model's own (nesting), are kept
        bitcode::deserialize(bytes).map_err(|e| match e.to_string() {
            why if why == "bitcode error" => DecodeError::new(
                0,
                format!("bitcode: not a {} (bitcode gives no reason)", M::ID),
            ),
            why => DecodeError::new(0, format!("bitcode: not a {}: {why}", M::ID)),
        })
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
mod deep_tests {
    use super::*;
    use serbench_model::{Tweet, TweetKind};

    /// A golden plain tweet retweeting itself `levels` deep.
    fn nested_retweets(levels: usize) -> Tweet {
        let tweets: Vec<Tweet> =
            crate::tasks::load_objects(&crate::test_support::vectors().join("tweet.jsonl"))
                .unwrap();
        let plain = tweets.into_iter().find(|t| t.kind() == TweetKind::Plain);
        let plain = plain.unwrap();
        (0..levels).fold(plain.clone(), |inner, _| Tweet {
            retweeted_status: Some(Box::new(inner)),
            ..plain.clone()
        })
    }

    /// Runs `f` on a thread with a stack of `mib` MiB.
    fn on_stack<T: Send + 'static>(mib: usize, f: impl FnOnce() -> T + Send + 'static) -> T {
        let thread = std::thread::Builder::new().stack_size(mib << 20);
        thread.spawn(f).unwrap().join().unwrap()
    }

    /// Encoded on a stack large enough for `levels` (encoding has no bound), decoded on the
    /// 64 MiB the other deep tests give the levels allowed (unoptimized frames are large).
    fn round_trip(levels: usize) -> Result<Tweet, DecodeError> {
        let bytes = on_stack(256, move || {
            let mut bytes = Vec::new();
            Codec::<Tweet>::encode(&mut Bitcode, &nested_retweets(levels), &mut bytes);
            bytes
        });
        on_stack(64, move || Codec::<Tweet>::decode(&mut Bitcode, &bytes))
    }

    /// bitcode builds its decoders as serde's visits reach them, so the nesting bound of the
    /// model's serde shape is bitcode's too (100,000 levels are refused the same way, in
    /// 20 s of building and encoding them: too slow to keep).
    #[test]
    fn deep_retweets_are_refused_by_the_nesting_bound() {
        assert_eq!(round_trip(63).unwrap().kind(), TweetKind::Retweet);
        for levels in [64, 1000] {
            let message = round_trip(levels).unwrap_err().message;
            assert!(
                message.contains("nested deeper than 64 levels"),
                "{message}"
            );
        }
    }
}
