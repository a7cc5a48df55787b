//! `protobuf` through prost (0.14), with the messages generated at build time from
//! the models' proto schemas (conventions in docs/schemas.md). One stored object is the root
//! message's wire bytes (PROTOCOL.md section 9).
//!
//! Depth `materialize` only: prost has no lazy reader, its decode always builds the whole
//! message (owned strings and vectors), so an `access` depth would be materialize under
//! another name. The native structs are then built by moving the message's fields.

use prost::Message;
use serbench_model::{
    each_enum, each_root, each_struct, proto_wrappers, types, Hasher, MAX_NESTING,
};

use super::{fold_decoded, Codec, DecodeError, Method};
use crate::protocol::Depth;

/// The generated messages (package `serbench.pb`).
mod pb {
    include!(concat!(env!("OUT_DIR"), "/serbench.pb.rs"));
}

#[derive(Default)]
pub struct Protobuf;

impl Method for Protobuf {
    const ID: &'static str = "protobuf";
    const DEPTHS: &'static [Depth] = &[Depth::Materialize];
    const FILES: &'static [&'static str] = &["drivers/rust/driver/src/methods/protobuf.rs"];
    const LIBRARIES: &'static [&'static str] = &["prost"];
}

/// A native value and its prost form `P`, both ways.
trait Conv<P>: Sized {
    fn to_pb(&self) -> P;
    fn from_pb(p: P) -> Result<Self, DecodeError>;
}

macro_rules! same {
    ($($t:ty),*) => {$(
        impl Conv<$t> for $t {
            #[inline(always)]
            fn to_pb(&self) -> $t {
                self.clone()
            }
            #[inline(always)]
            fn from_pb(p: $t) -> Result<Self, DecodeError> {
                Ok(p)
            }
        }
    )*};
}
same!(i32, i64, f64, bool, String);

/// A singular `double`, optional to prost (see build.rs): written exactly when its bits are
/// not zero, as protoc's C++ and Java write it, so that -0.0 survives.
impl Conv<Option<f64>> for f64 {
    #[inline(always)]
    fn to_pb(&self) -> Option<f64> {
        (self.to_bits() != 0).then_some(*self)
    }
    #[inline(always)]
    fn from_pb(p: Option<f64>) -> Result<Self, DecodeError> {
        Ok(p.unwrap_or(0.0))
    }
}

/// `i8` and `i16` travel as `int32` (docs/schemas.md): readers narrow by cast.
macro_rules! narrow {
    ($($t:ty),*) => {$(
        impl Conv<i32> for $t {
            #[inline(always)]
            fn to_pb(&self) -> i32 {
                *self as i32
            }
            #[inline(always)]
            fn from_pb(p: i32) -> Result<Self, DecodeError> {
                Ok(p as $t)
            }
        }
    )*};
}
narrow!(i8, i16);

/// An enum travels as its ordinal.
macro_rules! enums {
    ($($name:ident [$($names:ident)*] { $($variants:tt)* })*) => {$(
        impl Conv<i32> for types::$name {
            fn to_pb(&self) -> i32 {
                self.ordinal() as i32
            }
            fn from_pb(p: i32) -> Result<Self, DecodeError> {
                usize::try_from(p)
                    .ok()
                    .and_then(Self::from_ordinal)
                    .ok_or_else(|| {
                        DecodeError::new(0, format!("{} {p} is not a known ordinal", Self::WHAT))
                    })
            }
        }
    )*};
}
each_enum!(enums);

impl<T: Conv<P>, P> Conv<Option<P>> for Option<T> {
    #[inline]
    fn to_pb(&self) -> Option<P> {
        self.as_ref().map(T::to_pb)
    }
    #[inline]
    fn from_pb(p: Option<P>) -> Result<Self, DecodeError> {
        p.map(T::from_pb).transpose()
    }
}

impl<T: Conv<P>, P> Conv<Vec<P>> for Vec<T> {
    #[inline]
    fn to_pb(&self) -> Vec<P> {
        self.iter().map(T::to_pb).collect()
    }
    #[inline]
    fn from_pb(p: Vec<P>) -> Result<Self, DecodeError> {
        p.into_iter().map(T::from_pb).collect()
    }
}

/// A boxed value is a struct nested in itself (a tweet's statuses): prost refuses only past
/// its own limit of 100 messages, so the levels are counted here against PROTOCOL.md 2.1's
/// bound, the root included, as every serde-based reader counts them.
impl<T: Conv<P>, P> Conv<Box<P>> for Box<T> {
    fn to_pb(&self) -> Box<P> {
        Box::new((**self).to_pb())
    }
    fn from_pb(p: Box<P>) -> Result<Self, DecodeError> {
        let _level = Status::enter()?;
        T::from_pb(*p).map(Box::new)
    }
}

thread_local! {
    static STATUSES: std::cell::Cell<usize> = const { std::cell::Cell::new(1) };
}

/// One nested status for as long as it lives.
struct Status;

impl Status {
    fn enter() -> Result<Status, DecodeError> {
        let depth = STATUSES.with(|d| d.get()) + 1;
        if depth > MAX_NESTING {
            return Err(DecodeError::new(
                0,
                format!("nested deeper than {MAX_NESTING} levels"),
            ));
        }
        STATUSES.with(|d| d.set(depth));
        Ok(Status)
    }
}

impl Drop for Status {
    fn drop(&mut self) {
        STATUSES.with(|d| d.set(d.get() - 1));
    }
}

/// The wrapper messages of the schema conventions (docs/schemas.md): an optional list is a
/// message holding it, and a list of lists a list of messages each holding one.
macro_rules! wrapper {
    ($($native:ty => $pb:ident),* $(,)?) => {$(
        impl Conv<pb::$pb> for $native {
            fn to_pb(&self) -> pb::$pb {
                pb::$pb { values: self.to_pb() }
            }
            fn from_pb(p: pb::$pb) -> Result<Self, DecodeError> {
                Conv::from_pb(p.values)
            }
        }
    )*};
}
proto_wrappers!(wrapper);

/// Each struct's message, field by field (the generated `each_struct!` lists them, with the
/// names prost gives them). A struct is its message when nested in a list or an optional, and
/// a required field (`Option` in prost) when nested directly: absent, it is corrupt
/// (docs/schemas.md).
/// A struct's prost message.
trait HasMessage {
    type Message;
}

type Pb<T> = <T as HasMessage>::Message;

macro_rules! messages {
    ($($name:ident [$archived:ident $args:ident $message:ident] {
        $($field:ident [$flatc:ident $prost:ident]),* $(,)?
    })*) => {$(
        impl HasMessage for types::$name {
            type Message = pb::$message;
        }

        impl Conv<pb::$message> for types::$name {
            #[inline]
            fn to_pb(&self) -> pb::$message {
                let types::$name { $($field),* } = self;
                pb::$message { $( $prost: $field.to_pb(), )* }
            }

            #[inline]
            fn from_pb(p: pb::$message) -> Result<Self, DecodeError> {
                Ok(types::$name { $( $field: Conv::from_pb(p.$prost)?, )* })
            }
        }

        impl Conv<Option<pb::$message>> for types::$name {
            #[inline]
            fn to_pb(&self) -> Option<pb::$message> {
                Some(Conv::<pb::$message>::to_pb(self))
            }

            #[inline]
            fn from_pb(p: Option<pb::$message>) -> Result<Self, DecodeError> {
                let p = p.ok_or_else(|| {
                    DecodeError::new(0, concat!("required message ", stringify!($name), " is absent"))
                })?;
                Conv::<pb::$message>::from_pb(p)
            }
        }
    )*};
}
each_struct!(messages);

/// `Codec` for each model root: its message's wire bytes, appended to the page buffer. An
/// all-default message encodes to no bytes, but a stored object has at least one (PROTOCOL.md
/// 4.2): it is stored as its first field that reads back as the default when written
/// explicitly (an implicit-presence scalar or string, or a packed list, of value 0 or length
/// 0), as the C++ driver stores it; every parser reads that as the same message. Those bytes
/// come with each root from `each_root!` (e.g. field 1 as varint 0, `08 00`).
macro_rules! protobuf_codec {
    ($($root:ident [$explicit_default:literal] [$($capnp:tt)*]),* $(,)?) => {$(
        protobuf_codec!(@ types::$root, $explicit_default);
    )*};
    (@ $model:ty, $explicit_default:literal) => {
        impl Codec<$model> for Protobuf {
            #[inline]
            fn encode(&mut self, value: &$model, out: &mut Vec<u8>) {
                let start = out.len();
                Conv::<Pb<$model>>::to_pb(value)
                    .encode(out)
                    .expect("a Vec grows to hold any message");
                if out.len() == start {
                    out.extend_from_slice($explicit_default);
                }
            }

            #[inline]
            fn decode(&mut self, bytes: &[u8]) -> Result<$model, DecodeError> {
                let message = Pb::<$model>::decode(bytes)
                    .map_err(|e| DecodeError::new(0, format!("protobuf: {e}")))?;
                Conv::<Pb<$model>>::from_pb(message)
            }

            #[inline]
            fn fold(&mut self, bytes: &[u8], depth: Depth, h: &mut Hasher) -> Result<(), DecodeError> {
                match depth {
                    Depth::Materialize => fold_decoded::<$model, _>(self, bytes, h),
                    other => Err(DecodeError::depth(<Self as Method>::ID, other)),
                }
            }
        }
    };
}
each_root!(protobuf_codec);

#[cfg(test)]
mod tests {
    use super::*;
    use serbench_model::{Arrays, Attr, Org, OrgType, Tweet};

    fn org() -> Org {
        Org {
            name: "acme".into(),
            category: String::new(),
            country: "fr".into(),
            r#type: OrgType::Baz,
            attributes: vec![Attr {
                id: "a".into(),
                quantity: -3,
                amount: 7,
                active: true,
                percent: 0.5,
                size: -300,
            }],
        }
    }

    fn encoded<M>(value: &M) -> Vec<u8>
    where
        Protobuf: Codec<M>,
        M: serbench_model::ModelType,
    {
        let mut out = Vec::new();
        Protobuf.encode(value, &mut out);
        out
    }

    /// A golden plain tweet retweeting itself `levels` deep.
    fn nested_retweets(levels: usize) -> Tweet {
        let tweets: Vec<Tweet> =
            crate::tasks::load_objects(&crate::test_support::vectors().join("tweet.jsonl"))
                .unwrap();
        let plain = tweets
            .into_iter()
            .find(|t| t.retweeted_status.is_none())
            .unwrap();
        (0..levels).fold(plain.clone(), |inner, _| Tweet {
            retweeted_status: Some(Box::new(inner)),
            ..plain.clone()
        })
    }

    /// prost alone would take 98 nested statuses (its limit is 100 messages); the bound is
    /// the one every other reader keeps, and a refusal leaves the count where it was.
    #[test]
    fn statuses_nested_past_the_protocols_bound_are_refused() {
        let decode = |levels| {
            let bytes = encoded(&nested_retweets(levels));
            Codec::<Tweet>::decode(&mut Protobuf, &bytes)
        };
        for _ in 0..2 {
            let deepest = decode(MAX_NESTING - 1).unwrap();
            assert_eq!(deepest, nested_retweets(MAX_NESTING - 1));
            for levels in [MAX_NESTING, 90] {
                let refused = decode(levels).unwrap_err().message;
                assert!(
                    refused.contains("nested deeper than 64 levels"),
                    "{refused}"
                );
            }
        }
    }

    fn decode_error(bytes: &[u8]) -> String {
        Codec::<Org>::decode(&mut Protobuf, bytes)
            .unwrap_err()
            .to_string()
    }

    #[test]
    fn negative_zero_is_written_and_positive_zero_is_not() {
        let attr = |percent: f64| Org {
            attributes: vec![Attr {
                percent,
                ..org().attributes[0].clone()
            }],
            ..org()
        };
        let (negative, positive) = (encoded(&attr(-0.0)), encoded(&attr(0.0)));
        assert_eq!(negative.len(), positive.len() + 9, "tag byte + 8 bytes");
        let back = Codec::<Org>::decode(&mut Protobuf, &negative).unwrap();
        assert_eq!(back.attributes[0].percent.to_bits(), (-0.0f64).to_bits());
    }

    #[test]
    fn an_all_default_message_is_stored_as_one_explicit_default_field() {
        let empty = Arrays {
            strings: vec![],
            ints: vec![],
        };
        assert_eq!(encoded(&empty), b"\x12\x00");
        assert_eq!(
            Codec::<Arrays>::decode(&mut Protobuf, b"\x12\x00").unwrap(),
            empty
        );
    }

    #[test]
    fn the_bytes_are_the_plain_message_narrow_ints_as_int32() {
        let bytes = encoded(&org());
        // field 1 (name), wire type 2, length 4, "acme": no framing before the message
        assert_eq!(&bytes[..6], b"\x0a\x04acme");
        let message = pb::Org::decode(&bytes[..]).unwrap();
        assert_eq!(
            (message.attributes[0].quantity, message.attributes[0].size),
            (-3, -300)
        );
        assert_eq!(Codec::<Org>::decode(&mut Protobuf, &bytes).unwrap(), org());
    }

    #[test]
    fn truncation_inside_a_field_and_garbage_are_errors() {
        // a cut between two fields leaves a valid message with fewer fields: protobuf cannot
        // tell; a cut inside one (the name, the attribute list) can
        let bytes = encoded(&org());
        for len in [1, 3, bytes.len() - 1] {
            assert!(
                decode_error(&bytes[..len]).starts_with("byte 0: protobuf:"),
                "{len}"
            );
        }
        assert!(decode_error(&[0xff; 16]).starts_with("byte 0: protobuf:"));
    }

    #[test]
    fn an_unknown_enum_ordinal_is_an_error() {
        let mut message = Conv::<pb::Org>::to_pb(&org());
        message.r#type = 7;
        assert_eq!(
            decode_error(&message.encode_to_vec()),
            "byte 0: org type 7 is not a known ordinal"
        );
    }

    #[test]
    fn an_absent_required_message_is_an_error() {
        let tweet: Tweet =
            serbench_model::read_json_lines(&crate::test_support::vectors().join("tweet.jsonl"))
                .unwrap()
                .remove(0);
        let mut message = Conv::<pb::Tweet>::to_pb(&tweet);
        message.user = None;
        let err = Codec::<Tweet>::decode(&mut Protobuf, &message.encode_to_vec()).unwrap_err();
        assert_eq!(err.message, "required message User is absent");
    }
}
