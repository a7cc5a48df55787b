//! `flatbuffers` (=2.1.2), with the tables generated at build time by flatc 2.0.8 from
//! the models' fbs schemas (conventions in docs/schemas.md). One stored object is one finished
//! buffer of the root table, no size prefix and no file identifier (PROTOCOL.md section 9).
//!
//! Both depths verify the buffer first (`root_with_opts`: every offset, length, string's
//! UTF-8, the nesting depth, and limits on tables and bytes verified that keep the work
//! linear in the buffer's size), then read through the generated accessors: depth `access`
//! folds the checksum from them without building anything, `materialize` builds the native
//! structs. Required strings and lists read as empty when not written; a required table
//! that is absent is corrupt.

use ::flatbuffers::{
    FlatBufferBuilder, ForwardsUOffset, InvalidFlatbuffer, Vector, VerifierOptions, WIPOffset,
};
use serbench_model::{each_enum, each_root, each_struct, fbs_wrappers, types, Hasher};

use super::handcoded::MAX_NESTING;
use super::{Codec, DecodeError, Method};
use crate::protocol::Depth;

use serbench_fbs::{fb, Root};

#[derive(Default)]
pub struct Flatbuffers {
    /// Reset before each object, so its buffer is allocated once.
    fbb: FlatBufferBuilder<'static>,
}

impl Method for Flatbuffers {
    const ID: &'static str = "flatbuffers";
    const DEPTHS: &'static [Depth] = &[Depth::Materialize, Depth::Access];
    const FILES: &'static [&'static str] = &["drivers/rust/driver/src/methods/flatbuffers.rs"];
    const LIBRARIES: &'static [&'static str] = &["flatbuffers"];
}

type Fbb = FlatBufferBuilder<'static>;
type Offsets<T> = Option<WIPOffset<Vector<'static, ForwardsUOffset<T>>>>;

/// A native field's value in the builder: what its table's `Args` hold for it.
trait Put {
    type Out;
    fn put(&self, fbb: &mut Fbb) -> Self::Out;
    /// True for -0.0: the builder drops a scalar equal to its default, and -0.0 == 0.0.
    #[inline(always)]
    fn negative_zero(&self) -> bool {
        false
    }
}

/// A native field read from what its accessor returns (`A`).
trait Field<'a, A>: Sized {
    fn visit(a: A, h: &mut Hasher) -> Result<(), DecodeError>;
    fn take(a: A) -> Result<Self, DecodeError>;
}

macro_rules! scalars {
    ($($t:ty => $fold:ident, $negative_zero:expr);*) => {$(
        impl Put for $t {
            type Out = $t;
            #[inline(always)]
            fn put(&self, _: &mut Fbb) -> $t {
                *self
            }
            #[inline(always)]
            fn negative_zero(&self) -> bool {
                let negative_zero: fn($t) -> bool = $negative_zero;
                negative_zero(*self)
            }
        }
        impl Put for Option<$t> {
            type Out = Option<$t>;
            #[inline(always)]
            fn put(&self, _: &mut Fbb) -> Option<$t> {
                *self
            }
        }
        impl Put for Vec<$t> {
            type Out = Option<WIPOffset<Vector<'static, $t>>>;
            #[inline]
            fn put(&self, fbb: &mut Fbb) -> Self::Out {
                Some(fbb.create_vector(self))
            }
        }
        impl Put for Option<Vec<$t>> {
            type Out = Option<WIPOffset<Vector<'static, $t>>>;
            #[inline]
            fn put(&self, fbb: &mut Fbb) -> Self::Out {
                self.as_ref().and_then(|v| v.put(fbb))
            }
        }
        impl<'a> Field<'a, $t> for $t {
            #[inline(always)]
            fn visit(a: $t, h: &mut Hasher) -> Result<(), DecodeError> {
                h.$fold(a as _);
                Ok(())
            }
            #[inline(always)]
            fn take(a: $t) -> Result<Self, DecodeError> {
                Ok(a)
            }
        }
        impl<'a> Field<'a, Option<$t>> for Option<$t> {
            #[inline(always)]
            fn visit(a: Option<$t>, h: &mut Hasher) -> Result<(), DecodeError> {
                match a {
                    None => h.absent(),
                    Some(v) => {
                        h.present();
                        h.$fold(v as _);
                    }
                }
                Ok(())
            }
            #[inline(always)]
            fn take(a: Option<$t>) -> Result<Self, DecodeError> {
                Ok(a)
            }
        }
        impl<'a> Field<'a, Option<Vector<'a, $t>>> for Vec<$t> {
            #[inline]
            fn visit(a: Option<Vector<'a, $t>>, h: &mut Hasher) -> Result<(), DecodeError> {
                let v = a.unwrap_or_default();
                h.list_len(v.len());
                for x in v.iter() {
                    h.$fold(x as _);
                }
                Ok(())
            }
            #[inline]
            fn take(a: Option<Vector<'a, $t>>) -> Result<Self, DecodeError> {
                Ok(a.map(|v| v.iter().collect()).unwrap_or_default())
            }
        }
        impl<'a> Field<'a, Option<Vector<'a, $t>>> for Option<Vec<$t>> {
            #[inline]
            fn visit(a: Option<Vector<'a, $t>>, h: &mut Hasher) -> Result<(), DecodeError> {
                match a {
                    None => h.absent(),
                    Some(v) => {
                        h.present();
                        Vec::<$t>::visit(Some(v), h)?;
                    }
                }
                Ok(())
            }
            #[inline]
            fn take(a: Option<Vector<'a, $t>>) -> Result<Self, DecodeError> {
                a.map(|v| Vec::<$t>::take(Some(v))).transpose()
            }
        }
    )*};
}
scalars!(
    i8 => int, |_| false;
    i16 => int, |_| false;
    i32 => int, |_| false;
    i64 => int, |_| false;
    f64 => f64, |x| x.to_bits() == (-0.0f64).to_bits();
    bool => bool, |_| false
);

impl Put for String {
    type Out = Option<WIPOffset<&'static str>>;
    #[inline]
    fn put(&self, fbb: &mut Fbb) -> Self::Out {
        Some(fbb.create_string(self))
    }
}

impl Put for Option<String> {
    type Out = Option<WIPOffset<&'static str>>;
    #[inline]
    fn put(&self, fbb: &mut Fbb) -> Self::Out {
        self.as_ref().map(|s| fbb.create_string(s))
    }
}

impl Put for Vec<String> {
    type Out = Offsets<&'static str>;
    fn put(&self, fbb: &mut Fbb) -> Self::Out {
        let offsets: Vec<_> = self.iter().map(|s| fbb.create_string(s)).collect();
        Some(fbb.create_vector(&offsets))
    }
}

impl<'a> Field<'a, Option<&'a str>> for String {
    #[inline]
    fn visit(a: Option<&'a str>, h: &mut Hasher) -> Result<(), DecodeError> {
        h.str(a.unwrap_or_default());
        Ok(())
    }
    #[inline]
    fn take(a: Option<&'a str>) -> Result<Self, DecodeError> {
        Ok(a.unwrap_or_default().to_owned())
    }
}

impl<'a> Field<'a, Option<&'a str>> for Option<String> {
    #[inline]
    fn visit(a: Option<&'a str>, h: &mut Hasher) -> Result<(), DecodeError> {
        match a {
            None => h.absent(),
            Some(s) => {
                h.present();
                h.str(s);
            }
        }
        Ok(())
    }
    #[inline]
    fn take(a: Option<&'a str>) -> Result<Self, DecodeError> {
        Ok(a.map(str::to_owned))
    }
}

impl<'a> Field<'a, Option<Vector<'a, ForwardsUOffset<&'a str>>>> for Vec<String> {
    fn visit(
        a: Option<Vector<'a, ForwardsUOffset<&'a str>>>,
        h: &mut Hasher,
    ) -> Result<(), DecodeError> {
        let v = a.unwrap_or_default();
        h.list_len(v.len());
        for s in v.iter() {
            h.str(s);
        }
        Ok(())
    }
    fn take(a: Option<Vector<'a, ForwardsUOffset<&'a str>>>) -> Result<Self, DecodeError> {
        Ok(a.map(|v| v.iter().map(str::to_owned).collect())
            .unwrap_or_default())
    }
}

/// Each enum as its ordinal.
macro_rules! enums {
    ($($name:ident [$($names:ident)*] { $($variants:tt)* })*) => {$(
        impl Put for types::$name {
            type Out = fb::$name;
            fn put(&self, _: &mut Fbb) -> fb::$name {
                fb::$name(self.ordinal() as _)
            }
        }

        impl<'a> Field<'a, fb::$name> for types::$name {
            fn visit(a: fb::$name, h: &mut Hasher) -> Result<(), DecodeError> {
                h.int(Self::take(a)?.ordinal() as i64);
                Ok(())
            }
            fn take(a: fb::$name) -> Result<Self, DecodeError> {
                usize::try_from(a.0).ok().and_then(Self::from_ordinal).ok_or_else(|| {
                    DecodeError::new(0, format!("{} {} is not a known ordinal", Self::WHAT, a.0))
                })
            }
        }
    )*};
}
each_enum!(enums);

/// A list in a list: a list of wrapper tables, each holding one list (docs/schemas.md), as
/// `[[[f64]]]` is a list of `DoubleListList`s of `DoubleList`s.
macro_rules! wrappers {
    ($($native:ty => $table:ident $args:ident),* $(,)?) => {$(
        impl Put for Vec<$native> {
            type Out = Offsets<fb::$table<'static>>;
            fn put(&self, fbb: &mut Fbb) -> Self::Out {
                let tables: Vec<_> = self
                    .iter()
                    .map(|list| {
                        let values = list.put(fbb);
                        fb::$table::create(fbb, &fb::$args { values })
                    })
                    .collect();
                Some(fbb.create_vector(&tables))
            }
        }

        impl Put for Option<Vec<$native>> {
            type Out = Offsets<fb::$table<'static>>;
            fn put(&self, fbb: &mut Fbb) -> Self::Out {
                self.as_ref().and_then(|v| v.put(fbb))
            }
        }

        impl<'a> Field<'a, Option<Vector<'a, ForwardsUOffset<fb::$table<'a>>>>> for Vec<$native> {
            fn visit(
                a: Option<Vector<'a, ForwardsUOffset<fb::$table<'a>>>>,
                h: &mut Hasher,
            ) -> Result<(), DecodeError> {
                let tables = a.unwrap_or_default();
                h.list_len(tables.len());
                for table in tables.iter() {
                    <$native>::visit(table.values(), h)?;
                }
                Ok(())
            }
            fn take(a: Option<Vector<'a, ForwardsUOffset<fb::$table<'a>>>>) -> Result<Self, DecodeError> {
                a.unwrap_or_default().iter().map(|t| <$native>::take(t.values())).collect()
            }
        }

        impl<'a> Field<'a, Option<Vector<'a, ForwardsUOffset<fb::$table<'a>>>>>
            for Option<Vec<$native>>
        {
            fn visit(
                a: Option<Vector<'a, ForwardsUOffset<fb::$table<'a>>>>,
                h: &mut Hasher,
            ) -> Result<(), DecodeError> {
                match a {
                    None => h.absent(),
                    Some(v) => {
                        h.present();
                        Vec::<$native>::visit(Some(v), h)?;
                    }
                }
                Ok(())
            }
            fn take(a: Option<Vector<'a, ForwardsUOffset<fb::$table<'a>>>>) -> Result<Self, DecodeError> {
                a.map(|v| Vec::<$native>::take(Some(v))).transpose()
            }
        }
    )*};
}
fbs_wrappers!(wrappers);

/// `visit` of one field, its native type taken from the field itself.
#[inline(always)]
fn visit_field<'a, S, F: Field<'a, A>, A>(
    _field: fn(&S) -> &F,
    a: A,
    h: &mut Hasher,
) -> Result<(), DecodeError> {
    F::visit(a, h)
}

/// Each struct's table, field by field (the generated `each_struct!` lists them, with the
/// names flatc gives them). Each table is also a required field (absent = corrupt), an
/// optional one, a list element and, for a struct that nests itself, a boxed optional.
macro_rules! tables {
    ($($name:ident [$archived:ident $args:ident $message:ident] {
        $($field:ident [$flatc:ident $prost:ident]),* $(,)?
    })*) => {$(
        impl Put for types::$name {
            type Out = Option<WIPOffset<fb::$name<'static>>>;
            #[inline]
            fn put(&self, fbb: &mut Fbb) -> Self::Out {
                let types::$name { $($field),* } = self;
                let mut args = fb::$args::default();
                $( args.$flatc = $field.put(fbb); )*
                // a table holding -0.0 is written with all its scalars, so that -0.0 is kept
                let force = false $( || $field.negative_zero() )*;
                fbb.force_defaults(force);
                let table = fb::$name::create(fbb, &args);
                fbb.force_defaults(false);
                Some(table)
            }
        }

        impl Put for Option<types::$name> {
            type Out = Option<WIPOffset<fb::$name<'static>>>;
            #[inline]
            fn put(&self, fbb: &mut Fbb) -> Self::Out {
                self.as_ref().and_then(|v| v.put(fbb))
            }
        }

        impl Put for Vec<types::$name> {
            type Out = Offsets<fb::$name<'static>>;
            fn put(&self, fbb: &mut Fbb) -> Self::Out {
                let offsets: Vec<_> = self.iter().filter_map(|v| v.put(fbb)).collect();
                Some(fbb.create_vector(&offsets))
            }
        }

        impl<'a> Field<'a, fb::$name<'a>> for types::$name {
            #[inline]
            fn visit(t: fb::$name<'a>, h: &mut Hasher) -> Result<(), DecodeError> {
                $( visit_field(|s: &types::$name| &s.$field, t.$flatc(), h)?; )*
                Ok(())
            }
            #[inline]
            fn take(t: fb::$name<'a>) -> Result<Self, DecodeError> {
                Ok(types::$name { $( $field: Field::take(t.$flatc())?, )* })
            }
        }

        impl<'a> Field<'a, Option<fb::$name<'a>>> for types::$name {
            #[inline]
            fn visit(a: Option<fb::$name<'a>>, h: &mut Hasher) -> Result<(), DecodeError> {
                <types::$name>::visit(required(a)?, h)
            }
            #[inline]
            fn take(a: Option<fb::$name<'a>>) -> Result<Self, DecodeError> {
                <types::$name>::take(required(a)?)
            }
        }

        impl<'a> Field<'a, Option<fb::$name<'a>>> for Option<types::$name> {
            #[inline]
            fn visit(a: Option<fb::$name<'a>>, h: &mut Hasher) -> Result<(), DecodeError> {
                match a {
                    None => h.absent(),
                    Some(t) => {
                        h.present();
                        <types::$name>::visit(t, h)?;
                    }
                }
                Ok(())
            }
            #[inline]
            fn take(a: Option<fb::$name<'a>>) -> Result<Self, DecodeError> {
                a.map(<types::$name>::take).transpose()
            }
        }

        impl<'a> Field<'a, Option<Vector<'a, ForwardsUOffset<fb::$name<'a>>>>> for Vec<types::$name> {
            fn visit(a: Option<Vector<'a, ForwardsUOffset<fb::$name<'a>>>>, h: &mut Hasher) -> Result<(), DecodeError> {
                let v = a.unwrap_or_default();
                h.list_len(v.len());
                for t in v.iter() {
                    <types::$name>::visit(t, h)?;
                }
                Ok(())
            }
            fn take(a: Option<Vector<'a, ForwardsUOffset<fb::$name<'a>>>>) -> Result<Self, DecodeError> {
                a.unwrap_or_default().iter().map(<types::$name>::take).collect()
            }
        }

        impl Put for Option<Vec<types::$name>> {
            type Out = Offsets<fb::$name<'static>>;
            fn put(&self, fbb: &mut Fbb) -> Self::Out {
                self.as_ref().and_then(|v| v.put(fbb))
            }
        }

        impl<'a> Field<'a, Option<Vector<'a, ForwardsUOffset<fb::$name<'a>>>>>
            for Option<Vec<types::$name>>
        {
            fn visit(
                a: Option<Vector<'a, ForwardsUOffset<fb::$name<'a>>>>,
                h: &mut Hasher,
            ) -> Result<(), DecodeError> {
                match a {
                    None => h.absent(),
                    Some(v) => {
                        h.present();
                        Vec::<types::$name>::visit(Some(v), h)?;
                    }
                }
                Ok(())
            }
            fn take(
                a: Option<Vector<'a, ForwardsUOffset<fb::$name<'a>>>>,
            ) -> Result<Self, DecodeError> {
                a.map(|v| Vec::<types::$name>::take(Some(v))).transpose()
            }
        }

        impl Put for Option<Box<types::$name>> {
            type Out = Option<WIPOffset<fb::$name<'static>>>;
            fn put(&self, fbb: &mut Fbb) -> Self::Out {
                self.as_ref().and_then(|t| t.put(fbb))
            }
        }

        impl<'a> Field<'a, Option<fb::$name<'a>>> for Option<Box<types::$name>> {
            fn visit(a: Option<fb::$name<'a>>, h: &mut Hasher) -> Result<(), DecodeError> {
                <Option<types::$name> as Field<'a, _>>::visit(a, h)
            }
            fn take(a: Option<fb::$name<'a>>) -> Result<Self, DecodeError> {
                Ok(<Option<types::$name> as Field<'a, _>>::take(a)?.map(Box::new))
            }
        }
    )*};
}

#[cold]
fn required<T>(a: Option<T>) -> Result<T, DecodeError> {
    a.ok_or_else(|| DecodeError::new(0, "a required table is absent"))
}

each_struct!(tables);

/// `Codec` for each model root: one finished buffer, verified before any read.
macro_rules! flatbuffers_codec {
    ($($root:ident [$($protobuf:tt)*] [$($capnp:tt)*]),* $(,)?) => {
        $( flatbuffers_codec!(@ $root); )*
    };
    (@ $root:ident) => {
        impl Codec<types::$root> for Flatbuffers {
            #[inline]
            fn encode(&mut self, value: &types::$root, out: &mut Vec<u8>) {
                self.fbb.reset();
                let root = value.put(&mut self.fbb).expect("a table always has an offset");
                self.fbb.finish_minimal(root);
                out.extend_from_slice(self.fbb.finished_data());
            }

            #[inline]
            fn decode(&mut self, bytes: &[u8]) -> Result<types::$root, DecodeError> {
                types::$root::take(root::<fb::$root>(bytes)?)
            }

            #[inline]
            fn fold(&mut self, bytes: &[u8], depth: Depth, h: &mut Hasher) -> Result<(), DecodeError> {
                match depth {
                    Depth::Materialize => {
                        use serbench_model::Checksum;
                        Codec::<types::$root>::decode(self, bytes)?.fold(h);
                        Ok(())
                    }
                    Depth::Access => types::$root::visit(root::<fb::$root>(bytes)?, h),
                    other => Err(DecodeError::depth(<Self as Method>::ID, other)),
                }
            }
        }
    };
}
each_root!(flatbuffers_codec);

/// Tables nested inside one tweet below it: Tweet > Entities > Media > Sizes > Size (Place >
/// BoundingBox > DoubleListList > DoubleList is as deep); no other model nests deeper.
const TABLES_IN_A_TWEET: usize = 4;

/// How many times the verifier may count each byte of the buffer. It counts every range it
/// checks, at every visit: an honest buffer's bytes once or twice (offsets: in their vector,
/// then followed), plus per table its vtable, which the builder shares between tables: up to
/// 2 * (4 + 2 * 35) bytes (User's 35 fields) per table of at least 8 bytes, under 20 a byte
/// (the golden vectors need 1.3). Values shared between offsets count once per path.
const VERIFIED_PER_BYTE: usize = 32;

/// Verifier limits bounded by the buffer, so verifying and reading it is linear in its size
/// (the defaults allow a million tables and 2 GiB of apparent size whatever the length): an
/// honest buffer holds no more tables than its 4-byte offsets, nests them at most as deep as
/// the tweet's nesting limit allows, and shares no string, vector or table (only vtables).
fn verifier_options(len: usize) -> VerifierOptions {
    VerifierOptions {
        max_depth: 1 + MAX_NESTING as usize + TABLES_IN_A_TWEET,
        max_tables: len / 4,
        max_apparent_size: len.saturating_mul(VERIFIED_PER_BYTE),
        ..VerifierOptions::default()
    }
}

/// The verified root table of one buffer.
#[inline]
fn root<'a, T: Root<'a>>(bytes: &'a [u8]) -> Result<T, DecodeError> {
    let options = verifier_options(bytes.len());
    T::verified(&options, bytes).map_err(|e| {
        let why = match e {
            InvalidFlatbuffer::TooManyTables => format!(
                "more than {} tables in {} bytes (offsets shared between tables)",
                options.max_tables,
                bytes.len()
            ),
            InvalidFlatbuffer::ApparentSizeTooLarge => format!(
                "more than {} bytes to verify in {} bytes (offsets shared between fields)",
                options.max_apparent_size,
                bytes.len()
            ),
            InvalidFlatbuffer::DepthLimitReached => {
                format!("tables nested deeper than {}", options.max_depth)
            }
            other => other.to_string(),
        };
        DecodeError::new(0, format!("invalid flatbuffer: {why}"))
    })
}

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

    fn encoded(value: &Org) -> Vec<u8> {
        let mut out = Vec::new();
        Codec::<Org>::encode(&mut Flatbuffers::default(), value, &mut out);
        out
    }

    /// Access and materialize give the same error.
    fn error(bytes: &[u8]) -> String {
        let mut codec = Flatbuffers::default();
        let decode = Codec::<Org>::decode(&mut codec, bytes).unwrap_err();
        let access =
            Codec::<Org>::fold(&mut codec, bytes, Depth::Access, &mut Hasher::new()).unwrap_err();
        assert_eq!(decode, access);
        decode.to_string()
    }

    #[test]
    fn the_buffer_is_the_root_table_without_prefix_or_identifier() {
        let bytes = encoded(&org());
        let root_offset = u32::from_le_bytes(bytes[..4].try_into().unwrap()) as usize;
        let table = ::flatbuffers::root::<fb::Org>(&bytes).unwrap();
        assert!(root_offset < bytes.len());
        assert_eq!((table.name(), table.category()), (Some("acme"), Some("")));
    }

    #[test]
    fn truncation_and_garbage_are_errors() {
        // the tail may be alignment padding no offset points into; the first half is not
        let bytes = encoded(&org());
        for len in 0..bytes.len() / 2 {
            assert!(error(&bytes[..len]).contains("invalid flatbuffer"), "{len}");
        }
        assert!(error(&[0xff; 64]).contains("invalid flatbuffer"));
    }

    #[test]
    fn a_vtable_offset_of_i32_min_is_refused() {
        // the offset flatbuffers 2.1.2 negates with abs(): refused as out of bounds, also in
        // this test build (serbench-fbs is compiled without overflow checks, as measured)
        let mut bytes = encoded(&org());
        let table = u32::from_le_bytes(bytes[..4].try_into().unwrap()) as usize;
        bytes[table..table + 4].copy_from_slice(&i32::MIN.to_le_bytes());
        assert!(error(&bytes).contains("Signed offset"), "{}", error(&bytes));
    }

    #[test]
    fn any_damaged_byte_is_read_or_rejected_without_panicking() {
        let bytes = encoded(&org());
        for i in 0..bytes.len() {
            let mut bad = bytes.clone();
            bad[i] ^= 0xff;
            let mut codec = Flatbuffers::default();
            let decoded = Codec::<Org>::decode(&mut codec, &bad);
            let accessed = Codec::<Org>::fold(&mut codec, &bad, Depth::Access, &mut Hasher::new());
            assert_eq!(decoded.is_ok(), accessed.is_ok(), "byte {i}");
        }
    }

    #[test]
    fn unwritten_required_strings_read_empty_and_a_bad_enum_is_an_error() {
        let mut fbb = FlatBufferBuilder::new();
        let root = fb::Org::create(
            &mut fbb,
            &fb::OrgArgs {
                type_: fb::OrgType(1),
                ..Default::default()
            },
        );
        fbb.finish_minimal(root);
        let value = Codec::<Org>::decode(&mut Flatbuffers::default(), fbb.finished_data()).unwrap();
        assert_eq!(
            (value.name.as_str(), value.r#type, value.attributes.len()),
            ("", OrgType::Bar, 0)
        );
        fbb.reset();
        let root = fb::Org::create(
            &mut fbb,
            &fb::OrgArgs {
                type_: fb::OrgType(5),
                ..Default::default()
            },
        );
        fbb.finish_minimal(root);
        assert_eq!(
            error(fbb.finished_data()),
            "byte 0: org type 5 is not a known ordinal"
        );
    }

    /// A tweet table whose quoted and retweeted statuses are the same table, `levels` deep:
    /// a few hundred bytes that read as 2^levels tweets (one user and entities shared by all).
    fn shared_tweets(levels: u32) -> Vec<u8> {
        let mut fbb = FlatBufferBuilder::new();
        let user = Some(fb::User::create(&mut fbb, &fb::UserArgs::default()));
        let entities = Some(fb::Entities::create(&mut fbb, &fb::EntitiesArgs::default()));
        let tweet = |fbb: &mut Fbb, child| {
            let args = fb::TweetArgs {
                user,
                entities,
                quoted_status: child,
                retweeted_status: child,
                ..Default::default()
            };
            fb::Tweet::create(fbb, &args)
        };
        let mut root = tweet(&mut fbb, None);
        for _ in 0..levels {
            root = tweet(&mut fbb, Some(root));
        }
        fbb.finish_minimal(root);
        fbb.finished_data().to_vec()
    }

    /// Both depths give the same error, and give it at once.
    fn tweet_error(bytes: &[u8]) -> String {
        let mut codec = Flatbuffers::default();
        let decode = Codec::<Tweet>::decode(&mut codec, bytes).unwrap_err();
        let access =
            Codec::<Tweet>::fold(&mut codec, bytes, Depth::Access, &mut Hasher::new()).unwrap_err();
        assert_eq!(decode, access);
        decode.to_string()
    }

    #[test]
    fn tables_shared_between_fields_are_refused_by_the_count_of_tables() {
        let honest = shared_tweets(0);
        Codec::<Tweet>::decode(&mut Flatbuffers::default(), &honest).unwrap();
        let bomb = shared_tweets(17);
        let limit = verifier_options(bomb.len()).max_tables;
        assert_eq!(
            tweet_error(&bomb),
            format!(
                "byte 0: invalid flatbuffer: more than {limit} tables in {} bytes (offsets \
                 shared between tables)",
                bomb.len()
            )
        );
    }

    #[test]
    fn strings_shared_between_elements_are_refused_by_the_bytes_verified() {
        let mut fbb = FlatBufferBuilder::new();
        let text = fbb.create_string(&"x".repeat(8192));
        let strings = Some(fbb.create_vector(&vec![text; 8192]));
        let root = fb::Arrays::create(
            &mut fbb,
            &fb::ArraysArgs {
                strings,
                ints: None,
            },
        );
        fbb.finish_minimal(root);
        let bomb = fbb.finished_data();
        let limit = verifier_options(bomb.len()).max_apparent_size;
        let err = Codec::<Arrays>::decode(&mut Flatbuffers::default(), bomb).unwrap_err();
        assert_eq!(
            err.to_string(),
            format!(
                "byte 0: invalid flatbuffer: more than {limit} bytes to verify in {} bytes \
                 (offsets shared between fields)",
                bomb.len()
            )
        );
    }

    /// `levels` tweets, each the quoted status of the one before, around `inner`.
    fn nested(inner: &Tweet, levels: u32) -> Tweet {
        let mut tweet = Tweet {
            quoted_status: None,
            retweeted_status: None,
            ..inner.clone()
        };
        for _ in 0..levels {
            tweet = Tweet {
                quoted_status: Some(Box::new(tweet)),
                ..inner.clone()
            };
        }
        tweet
    }

    #[test]
    fn tweets_nest_as_deep_as_the_nesting_limit_and_no_deeper() {
        let tweets: Vec<Tweet> =
            crate::tasks::load_objects(&crate::test_support::vectors().join("tweet.jsonl"))
                .unwrap();
        // its media's sizes are the deepest tables of a tweet
        let deepest = tweets
            .iter()
            .find(|t| t.entities.media.as_ref().is_some_and(|m| !m.is_empty()))
            .expect("a golden tweet with media");
        let mut codec = Flatbuffers::default();
        let mut bytes = Vec::new();
        Codec::<Tweet>::encode(&mut codec, &nested(deepest, MAX_NESTING), &mut bytes);
        let read = Codec::<Tweet>::decode(&mut codec, &bytes).unwrap();
        assert!(serbench_model::TotalOrder::total_eq(
            &read,
            &nested(deepest, MAX_NESTING)
        ));
        bytes.clear();
        Codec::<Tweet>::encode(&mut codec, &nested(deepest, MAX_NESTING + 1), &mut bytes);
        let max_depth = verifier_options(bytes.len()).max_depth;
        assert_eq!(
            tweet_error(&bytes),
            format!("byte 0: invalid flatbuffer: tables nested deeper than {max_depth}")
        );
    }
}
