//! `protobuf` through prost (0.14), with the messages generated at build time from
//! the models' proto schemas (conventions in docs/schemas.md). One stored object is the root
//! message's wire bytes (PROTOCOL.md section 9).
//!
//! Depth `materialize` only: prost has no lazy reader, its decode always builds the whole
//! message (owned strings and vectors), so an `access` depth would be materialize under
//! another name. The native structs are then built by moving the message's fields.

use prost::Message;
use serbench_model::{
    Arrays, Attr, BoundingBox, Coordinates, Customer, Entities, Entry, ExtendedEntities, Hasher,
    Hashtag, LineItem, Media, Mention, Order, Org, OrgType, Part, Place, Size, Sizes, SparseVector,
    Supplier, Trade, Tweet, Url, User, MAX_NESTING,
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

impl Conv<i32> for OrgType {
    fn to_pb(&self) -> i32 {
        self.ordinal() as i32
    }
    fn from_pb(p: i32) -> Result<Self, DecodeError> {
        usize::try_from(p)
            .ok()
            .and_then(|i| OrgType::ALL.get(i).copied())
            .ok_or_else(|| DecodeError::new(0, format!("org type {p} is not a known ordinal")))
    }
}

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

/// A boxed value is a nested status, the models' one recursion: prost refuses only past its
/// own limit of 100 messages, so the statuses are counted here against PROTOCOL.md 2.1's
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
    ($($native:ty => $pb:ident . $field:ident),*) => {$(
        impl Conv<pb::$pb> for $native {
            fn to_pb(&self) -> pb::$pb {
                pb::$pb { $field: self.to_pb() }
            }
            fn from_pb(p: pb::$pb) -> Result<Self, DecodeError> {
                Conv::from_pb(p.$field)
            }
        }
    )*};
}
wrapper!(
    Vec<i32> => Int32List.values,
    Vec<Media> => MediaList.values,
    Vec<Vec<f64>> => DoubleListList.values,
    Vec<f64> => DoubleList.values
);

/// One line per message: its fields. A struct is its message when nested in a list or an
/// optional, and a required field (`Option` in prost) when nested directly: absent, it is
/// corrupt (docs/schemas.md).
macro_rules! messages {
    ($($name:ident { $($field:ident),* $(,)? })*) => {$(
        impl Conv<pb::$name> for $name {
            #[inline]
            fn to_pb(&self) -> pb::$name {
                let $name { $($field),* } = self;
                pb::$name { $( $field: $field.to_pb(), )* }
            }

            #[inline]
            fn from_pb(p: pb::$name) -> Result<Self, DecodeError> {
                Ok($name { $( $field: Conv::from_pb(p.$field)?, )* })
            }
        }

        impl Conv<Option<pb::$name>> for $name {
            #[inline]
            fn to_pb(&self) -> Option<pb::$name> {
                Some(Conv::<pb::$name>::to_pb(self))
            }

            #[inline]
            fn from_pb(p: Option<pb::$name>) -> Result<Self, DecodeError> {
                let p = p.ok_or_else(|| {
                    DecodeError::new(0, concat!("required message ", stringify!($name), " is absent"))
                })?;
                Conv::<pb::$name>::from_pb(p)
            }
        }
    )*};
}

messages! {
    Part { partkey, name, mfgr, brand, r#type, size, container, retailprice, comment }
    Supplier { suppkey, name, address, nationkey, phone, acctbal, comment }
    LineItem {
        orderkey, part, supplier, linenumber, quantity, extendedprice, discount, tax,
        returnflag, linestatus, shipdate, commitdate, receiptdate, shipinstruct, shipmode,
        comment,
    }
    Order {
        orderkey, custkey, orderstatus, totalprice, orderdate, orderpriority, clerk,
        shippriority, comment, lineitems,
    }
    Customer {
        custkey, name, address, nationkey, phone, acctbal, mktsegment, comment, orders,
    }
    Tweet {
        created_at, id, id_str, text, source, truncated, in_reply_to_status_id,
        in_reply_to_user_id, in_reply_to_screen_name, user, coordinates, place,
        quoted_status_id, is_quote_status, quoted_status, retweeted_status, quote_count,
        reply_count, retweet_count, favorite_count, entities, extended_entities, favorited,
        retweeted, possibly_sensitive, filter_level, lang, display_text_range,
    }
    User {
        id, id_str, name, screen_name, location, url, description, protected, verified,
        followers_count, friends_count, listed_count, favourites_count, statuses_count,
        created_at, utc_offset, time_zone, geo_enabled, lang, contributors_enabled,
        is_translator, profile_background_color, profile_background_image_url,
        profile_background_image_url_https, profile_background_tile, profile_image_url,
        profile_image_url_https, profile_banner_url, profile_link_color,
        profile_sidebar_border_color, profile_sidebar_fill_color, profile_text_color,
        profile_use_background_image, default_profile, default_profile_image, following,
        follow_request_sent, notifications,
    }
    Entities { hashtags, symbols, urls, user_mentions, media }
    Hashtag { text, indices }
    Url { url, expanded_url, display_url, indices }
    Mention { screen_name, name, id, id_str, indices }
    Media {
        id, id_str, indices, media_url, media_url_https, url, display_url, expanded_url,
        r#type, sizes, source_status_id, source_status_id_str,
    }
    Sizes { thumb, small, medium, large }
    Size { w, h, resize }
    ExtendedEntities { media }
    Place { id, url, place_type, name, full_name, country_code, country, bounding_box }
    BoundingBox { r#type, coordinates }
    Coordinates { r#type, coordinates }
    SparseVector { dimension, entries }
    Entry { position, value }
    Trade { source_id, special, order_code, priority, prices, quantities }
    Org { name, category, country, r#type, attributes }
    Attr { id, quantity, amount, active, percent, size }
    Arrays { strings, ints }
}

/// `Codec` for each model root: its message's wire bytes, appended to the page buffer. An
/// all-default message encodes to no bytes, but a stored object has at least one (PROTOCOL.md
/// 4.2): it is stored as its first field that reads back as the default when written
/// explicitly (an implicit-presence scalar or string, or a packed list, of value 0 or length
/// 0), as the C++ driver stores it; every parser reads that as the same message.
macro_rules! protobuf_codec {
    ($($model:ident => $explicit_default:literal),*) => {$(
        impl Codec<$model> for Protobuf {
            #[inline]
            fn encode(&mut self, value: &$model, out: &mut Vec<u8>) {
                let start = out.len();
                Conv::<pb::$model>::to_pb(value)
                    .encode(out)
                    .expect("a Vec grows to hold any message");
                if out.len() == start {
                    out.extend_from_slice($explicit_default);
                }
            }

            #[inline]
            fn decode(&mut self, bytes: &[u8]) -> Result<$model, DecodeError> {
                let message = pb::$model::decode(bytes)
                    .map_err(|e| DecodeError::new(0, format!("protobuf: {e}")))?;
                Conv::<pb::$model>::from_pb(message)
            }

            #[inline]
            fn fold(&mut self, bytes: &[u8], depth: Depth, h: &mut Hasher) -> Result<(), DecodeError> {
                match depth {
                    Depth::Materialize => fold_decoded::<$model, _>(self, bytes, h),
                    other => Err(DecodeError::depth(<Self as Method>::ID, other)),
                }
            }
        }
    )*};
}
// field 1 as varint 0 (`08 00`) or as an empty string (`0a 00`); arrays: its packed ints,
// field 2, empty (`12 00`), its strings not being packable
protobuf_codec!(
    Part => b"\x08\x00",
    LineItem => b"\x08\x00",
    Customer => b"\x08\x00",
    Tweet => b"\x0a\x00",
    SparseVector => b"\x08\x00",
    Trade => b"\x08\x00",
    Org => b"\x0a\x00",
    Arrays => b"\x12\x00"
);

#[cfg(test)]
mod tests {
    use super::*;

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
