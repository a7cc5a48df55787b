//! `capnp` (capnp =0.27.3), with the structs generated at build time by capnpc from
//! the models' capnp schemas with Debian's capnp 0.9.2 (conventions in docs/schemas.md). One stored
//! object is one standard unpacked message: segment table, then the segments, no other
//! framing (PROTOCOL.md section 9), as the C++ driver writes and reads it.
//!
//! Writing builds the message in a reused first segment ([`FirstSegment`]) and appends what
//! `serialize::write_message` writes. Empty required texts and lists are left null (they read
//! as empty); present-but-empty optional ones are set, so absent and empty stay apart.
//!
//! Reading opens the bytes in place (copied only when not 8-aligned) with a traversal limit of
//! twice the message's words: big objects read whole, a message pointing at the same data
//! over and over does not. `access` folds the checksum through the generated readers (texts
//! as their bytes, checked to be UTF-8), `materialize` builds the native structs (texts
//! must be UTF-8). A required struct left null is corrupt.

use ::capnp::message::{self, Allocator, ReaderOptions};
use ::capnp::serialize::{self, NoAllocSliceSegments};
use ::capnp::{list_list, primitive_list, struct_list, text, text_list, Word};
use serbench_model::{each_enum, each_root, types, Hasher};

use super::{Codec, DecodeError, Method};
use crate::protocol::Depth;

/// The generated modules (`<file>_capnp`), where their imports expect them.
pub mod generated {
    include!(concat!(env!("OUT_DIR"), "/capnp/modules.rs"));
}
use generated::*;

/// How deep structs may nest (capnp's default): far above the recursion of real tweets, low
/// enough that a cyclic or deeply nested message is an error, not a stack overflow.
const NESTING_LIMIT: i32 = 64;

/// Words of the reused first segment, as in the C++ driver: most objects fit in it.
const FIRST_SEGMENT_WORDS: usize = 8192;

#[derive(Default)]
pub struct Capnp {
    first_segment: FirstSegment,
    /// A copy of an object whose bytes are not 8-aligned (pages keep them aligned).
    aligned: Vec<Word>,
}

impl Method for Capnp {
    const ID: &'static str = "capnp";
    const DEPTHS: &'static [Depth] = &[Depth::Materialize, Depth::Access];
    const FILES: &'static [&'static str] = &["drivers/rust/driver/src/methods/capnp.rs"];
    const LIBRARIES: &'static [&'static str] = &["capnp"];
    // messages are read in place as 8-byte words
    const ALIGN: usize = 8;
}

/// The message builder's first segment, allocated and zeroed once per codec: a finished
/// message gives it back with the words it used zeroed again, so building an object that
/// fits allocates nothing. Larger objects get further segments from the heap.
struct FirstSegment {
    words: Box<[Word]>,
    in_use: bool,
    heap: message::HeapAllocator,
}

impl Default for FirstSegment {
    fn default() -> Self {
        FirstSegment {
            words: Word::allocate_zeroed_vec(FIRST_SEGMENT_WORDS).into_boxed_slice(),
            in_use: false,
            heap: message::HeapAllocator::new(),
        }
    }
}

// SAFETY: the first segment is handed out zeroed, 8-aligned (`Word`), to one message at a
// time, and zeroed again (the words it used) when that message gives it back.
unsafe impl Allocator for FirstSegment {
    fn allocate_segment(&mut self, minimum_size: u32) -> (std::ptr::NonNull<u8>, u32) {
        if self.in_use || minimum_size as usize > self.words.len() {
            return self.heap.allocate_segment(minimum_size);
        }
        self.in_use = true;
        let ptr = std::ptr::NonNull::new(self.words.as_mut_ptr().cast()).unwrap();
        (ptr, self.words.len() as u32)
    }

    unsafe fn deallocate_segment(
        &mut self,
        ptr: std::ptr::NonNull<u8>,
        word_size: u32,
        words_used: u32,
    ) {
        if ptr.as_ptr() == self.words.as_mut_ptr().cast() {
            Word::words_to_bytes_mut(&mut self.words[..words_used as usize]).fill(0);
            self.in_use = false;
        } else {
            // SAFETY: every other segment came from `heap`, with these sizes
            unsafe { self.heap.deallocate_segment(ptr, word_size, words_used) }
        }
    }
}

#[cold]
fn corrupt(e: ::capnp::Error) -> DecodeError {
    DecodeError::new(0, format!("invalid capnp message: {e}"))
}

#[cold]
fn missing(field: &str) -> DecodeError {
    DecodeError::new(0, format!("required struct {field} is null"))
}

#[cold]
fn unknown_member(field: &str, n: u16) -> DecodeError {
    DecodeError::new(0, format!("{field}: union member {n} is not in the schema"))
}

/// A value read through a generated reader: folds its checksum words (depth `access`).
trait Visit {
    fn visit(self, h: &mut Hasher) -> Result<(), DecodeError>;
}

/// A native value built from what a generated reader returns (`A`; depth `materialize`).
trait Take<A>: Sized {
    fn take(a: A) -> Result<Self, DecodeError>;
}

/// A native value written into a generated builder (`B`).
trait Put<B> {
    fn put(&self, b: B);
}

/// A native list and its capnp list type, so that a list of lists can be built whatever its
/// elements.
trait ListOf {
    type Owned: ::capnp::traits::Owned;
    fn len(&self) -> usize;
    fn put_in(&self, b: <Self::Owned as ::capnp::traits::Owned>::Builder<'_>);
}

macro_rules! list_of {
    ($native:ty => $owned:ty) => {
        impl ListOf for $native {
            type Owned = $owned;
            #[inline]
            fn len(&self) -> usize {
                Vec::len(self)
            }
            #[inline]
            fn put_in(&self, b: <Self::Owned as ::capnp::traits::Owned>::Builder<'_>) {
                self.put(b)
            }
        }
    };
}

macro_rules! scalars {
    ($($t:ty => $fold:ident),*) => {$(
        impl Visit for $t {
            #[inline(always)]
            fn visit(self, h: &mut Hasher) -> Result<(), DecodeError> {
                h.$fold(self as _);
                Ok(())
            }
        }
        impl Take<$t> for $t {
            #[inline(always)]
            fn take(a: $t) -> Result<Self, DecodeError> {
                Ok(a)
            }
        }
        impl<'a> Visit for primitive_list::Reader<'a, $t> {
            #[inline]
            fn visit(self, h: &mut Hasher) -> Result<(), DecodeError> {
                h.list_len(self.len() as usize);
                for x in self.iter() {
                    h.$fold(x as _);
                }
                Ok(())
            }
        }
        impl<'a> Take<primitive_list::Reader<'a, $t>> for Vec<$t> {
            #[inline]
            fn take(a: primitive_list::Reader<'a, $t>) -> Result<Self, DecodeError> {
                Ok(a.iter().collect())
            }
        }
        impl<'a> Put<primitive_list::Builder<'a, $t>> for Vec<$t> {
            #[inline]
            fn put(&self, mut b: primitive_list::Builder<'a, $t>) {
                for (i, &x) in self.iter().enumerate() {
                    b.set(i as u32, x);
                }
            }
        }
        list_of!(Vec<$t> => primitive_list::Owned<$t>);
    )*};
}
scalars!(i8 => int, i16 => int, i32 => int, i64 => int, f64 => f64, bool => bool);

/// The native value a scalar setter takes.
trait Scalar: Copy {
    type Out;
    fn out(self) -> Self::Out;
}

macro_rules! same_scalar {
    ($($t:ty),*) => {$(
        impl Scalar for $t {
            type Out = $t;
            #[inline(always)]
            fn out(self) -> $t {
                self
            }
        }
    )*};
}
same_scalar!(i8, i16, i32, i64, f64, bool);

/// Each enum as its capnpc enum, by ordinal (the schema lists the symbols in order).
macro_rules! enums {
    ($($name:ident [$archived:ident $module:ident] { $($variants:tt)* })*) => {$(
        impl Scalar for types::$name {
            type Out = $module::$name;
            #[inline]
            fn out(self) -> $module::$name {
                $module::$name::try_from(self.ordinal() as u16).expect("every symbol is in the schema")
            }
        }

        impl Visit for Result<$module::$name, ::capnp::NotInSchema> {
            #[inline]
            fn visit(self, h: &mut Hasher) -> Result<(), DecodeError> {
                h.int(types::$name::take(self)?.ordinal() as i64);
                Ok(())
            }
        }

        impl Take<Result<$module::$name, ::capnp::NotInSchema>> for types::$name {
            fn take(a: Result<$module::$name, ::capnp::NotInSchema>) -> Result<Self, DecodeError> {
                match a {
                    Ok(e) => Ok(Self::ALL[u16::from(e) as usize]),
                    Err(::capnp::NotInSchema(n)) => Err(DecodeError::new(
                        0,
                        format!("{} {n} is not a known ordinal", Self::WHAT),
                    )),
                }
            }
        }
    )*};
}
each_enum!(enums);

impl<'a> Visit for text::Reader<'a> {
    /// The text's bytes, once shown to be UTF-8 (capnp itself only checks on `to_str`).
    #[inline]
    fn visit(self, h: &mut Hasher) -> Result<(), DecodeError> {
        let text = std::str::from_utf8(self.as_bytes())
            .map_err(|e| DecodeError::new(0, format!("a text is not UTF-8: {e}")))?;
        h.bytes(text.as_bytes());
        Ok(())
    }
}

impl<'a> Take<text::Reader<'a>> for String {
    #[inline]
    fn take(a: text::Reader<'a>) -> Result<Self, DecodeError> {
        a.to_str()
            .map(str::to_owned)
            .map_err(|e| DecodeError::new(0, format!("a text is not UTF-8: {e}")))
    }
}

impl<'a> Visit for text_list::Reader<'a> {
    fn visit(self, h: &mut Hasher) -> Result<(), DecodeError> {
        h.list_len(self.len() as usize);
        for s in self.iter() {
            s.map_err(corrupt)?.visit(h)?;
        }
        Ok(())
    }
}

impl<'a> Take<text_list::Reader<'a>> for Vec<String> {
    fn take(a: text_list::Reader<'a>) -> Result<Self, DecodeError> {
        a.iter()
            .map(|s| String::take(s.map_err(corrupt)?))
            .collect()
    }
}

impl<'a> Put<text_list::Builder<'a>> for Vec<String> {
    fn put(&self, mut b: text_list::Builder<'a>) {
        for (i, s) in self.iter().enumerate() {
            b.set(i as u32, s.as_str());
        }
    }
}
list_of!(Vec<String> => text_list::Owned);

/// A list of lists (`List(List(...))`, a bounding box's rings of positions), whatever its
/// elements: each inner list through its own impls.
impl<'a, T: ::capnp::traits::Owned> Visit for list_list::Reader<'a, T>
where
    T::Reader<'a>: Visit,
{
    fn visit(self, h: &mut Hasher) -> Result<(), DecodeError> {
        h.list_len(self.len() as usize);
        for list in self.iter() {
            list.map_err(corrupt)?.visit(h)?;
        }
        Ok(())
    }
}

impl<'a, T: ::capnp::traits::Owned, N: Take<T::Reader<'a>>> Take<list_list::Reader<'a, T>>
    for Vec<N>
{
    fn take(a: list_list::Reader<'a, T>) -> Result<Self, DecodeError> {
        a.iter()
            .map(|list| N::take(list.map_err(corrupt)?))
            .collect()
    }
}

impl<'a, L: ListOf> Put<list_list::Builder<'a, L::Owned>> for Vec<L> {
    fn put(&self, mut b: list_list::Builder<'a, L::Owned>) {
        for (i, list) in self.iter().enumerate() {
            list.put_in(b.reborrow().init(i as u32, list.len() as u32));
        }
    }
}

impl<L: ListOf> ListOf for Vec<L> {
    type Owned = list_list::Owned<L::Owned>;
    fn len(&self) -> usize {
        Vec::len(self)
    }
    fn put_in(&self, b: list_list::Builder<'_, L::Owned>) {
        self.put(b)
    }
}

/// Reads one field of reader `$r` (folding into `$h` when `$h` is given, else taking it).
macro_rules! visit_field {
    ($r:ident, $h:ident, $name:expr, scalar ($get:ident, $set:ident)) => {
        $r.$get().visit($h)?
    };
    ($r:ident, $h:ident, $name:expr, record required ($get:ident, $has:ident, $init:ident)) => {{
        if !$r.$has() {
            return Err(missing($name));
        }
        $r.$get().map_err(corrupt)?.visit($h)?
    }};
    ($r:ident, $h:ident, $name:expr, $kind:ident required ($get:ident, $has:ident, $init:ident)) => {
        $r.$get().map_err(corrupt)?.visit($h)?
    };
    ($r:ident, $h:ident, $name:expr, $kind:ident optional ($get:ident, $has:ident, $init:ident)) => {
        if $r.$has() {
            $h.present();
            $r.$get().map_err(corrupt)?.visit($h)?
        } else {
            $h.absent()
        }
    };
    ($r:ident, $h:ident, $name:expr, union ($get:ident, $($group:ident)::+)) => {
        match $r.$get().which() {
            Ok($($group)::+::Which::Absent(())) => $h.absent(),
            Ok($($group)::+::Which::Value(v)) => {
                $h.present();
                v.visit($h)?
            }
            Err(::capnp::NotInSchema(n)) => return Err(unknown_member($name, n)),
        }
    };
}

/// Builds the native value of one field of reader `$r`.
macro_rules! take_field {
    ($r:ident, $name:expr, scalar ($get:ident, $set:ident)) => {
        Take::take($r.$get())?
    };
    ($r:ident, $name:expr, record required ($get:ident, $has:ident, $init:ident)) => {{
        if !$r.$has() {
            return Err(missing($name));
        }
        Take::take($r.$get().map_err(corrupt)?)?
    }};
    ($r:ident, $name:expr, $kind:ident required ($get:ident, $has:ident, $init:ident)) => {
        Take::take($r.$get().map_err(corrupt)?)?
    };
    ($r:ident, $name:expr, $kind:ident optional ($get:ident, $has:ident, $init:ident)) => {
        if $r.$has() {
            Some(Take::take($r.$get().map_err(corrupt)?)?)
        } else {
            None
        }
    };
    ($r:ident, $name:expr, union ($get:ident, $($group:ident)::+)) => {
        match $r.$get().which() {
            Ok($($group)::+::Which::Absent(())) => None,
            Ok($($group)::+::Which::Value(v)) => Some(Take::take(v)?),
            Err(::capnp::NotInSchema(n)) => return Err(unknown_member($name, n)),
        }
    };
}

/// Writes native field `$v` into builder `$b`.
macro_rules! put_field {
    ($b:ident, $v:expr, scalar ($get:ident, $set:ident)) => {
        $b.$set(Scalar::out(*$v))
    };
    ($b:ident, $v:expr, text required ($get:ident, $has:ident, $set:ident)) => {
        if !$v.is_empty() {
            $b.$set($v.as_str())
        }
    };
    ($b:ident, $v:expr, text optional ($get:ident, $has:ident, $set:ident)) => {
        if let Some(v) = $v {
            $b.$set(v.as_str())
        }
    };
    ($b:ident, $v:expr, list required ($get:ident, $has:ident, $init:ident)) => {
        if !$v.is_empty() {
            $v.put($b.reborrow().$init($v.len() as u32))
        }
    };
    ($b:ident, $v:expr, list optional ($get:ident, $has:ident, $init:ident)) => {
        if let Some(v) = $v {
            v.put($b.reborrow().$init(v.len() as u32))
        }
    };
    ($b:ident, $v:expr, record required ($get:ident, $has:ident, $init:ident)) => {
        $v.put($b.reborrow().$init())
    };
    ($b:ident, $v:expr, record optional ($get:ident, $has:ident, $init:ident)) => {
        if let Some(v) = $v {
            v.put($b.reborrow().$init())
        }
    };
    ($b:ident, $v:expr, union ($get:ident, $($group:ident)::+)) => {
        if let Some(v) = $v {
            $b.reborrow().$get().set_value(Scalar::out(*v))
        }
    };
}

/// Every struct of the schemas (the list build.rs writes from them): reading, building and
/// writing it field by field in canonical order, alone and as a list element.
macro_rules! capnp_records {
    ($($native:ident in $($module:ident)::+ {
        $($field:ident: $kind:ident $($presence:ident)? ($($acc:tt)*),)*
    })*) => {$(
        impl<'a> Visit for $($module)::+::Reader<'a> {
            #[inline]
            fn visit(self, h: &mut Hasher) -> Result<(), DecodeError> {
                let r = self;
                $( visit_field!(r, h, stringify!($field), $kind $($presence)? ($($acc)*)); )*
                Ok(())
            }
        }

        impl<'a> Take<$($module)::+::Reader<'a>> for types::$native {
            #[inline]
            fn take(r: $($module)::+::Reader<'a>) -> Result<Self, DecodeError> {
                Ok(types::$native { $( $field: take_field!(r, stringify!($field), $kind $($presence)? ($($acc)*)), )* })
            }
        }

        impl<'a> Put<$($module)::+::Builder<'a>> for types::$native {
            #[inline]
            fn put(&self, mut b: $($module)::+::Builder<'a>) {
                $( put_field!(b, &self.$field, $kind $($presence)? ($($acc)*)); )*
            }
        }

        impl<'a> Visit for struct_list::Reader<'a, $($module)::+::Owned> {
            fn visit(self, h: &mut Hasher) -> Result<(), DecodeError> {
                h.list_len(self.len() as usize);
                for r in self.iter() {
                    r.visit(h)?;
                }
                Ok(())
            }
        }

        impl<'a> Take<struct_list::Reader<'a, $($module)::+::Owned>> for Vec<types::$native> {
            fn take(a: struct_list::Reader<'a, $($module)::+::Owned>) -> Result<Self, DecodeError> {
                a.iter().map(types::$native::take).collect()
            }
        }

        list_of!(Vec<types::$native> => struct_list::Owned<$($module)::+::Owned>);

        impl<'a> Put<struct_list::Builder<'a, $($module)::+::Owned>> for Vec<types::$native> {
            fn put(&self, mut b: struct_list::Builder<'a, $($module)::+::Owned>) {
                for (i, v) in self.iter().enumerate() {
                    v.put(b.reborrow().get(i as u32));
                }
            }
        }

        /// A struct nested in itself.
        impl<'a> Take<$($module)::+::Reader<'a>> for Box<types::$native> {
            fn take(r: $($module)::+::Reader<'a>) -> Result<Self, DecodeError> {
                types::$native::take(r).map(Box::new)
            }
        }

        impl<'a> Put<$($module)::+::Builder<'a>> for Box<types::$native> {
            fn put(&self, b: $($module)::+::Builder<'a>) {
                (**self).put(b)
            }
        }
    )*};
}
include!(concat!(env!("OUT_DIR"), "/capnp/fields.rs"));

impl Capnp {
    /// The message in `bytes`, opened in place when 8-aligned; trailing bytes are corrupt.
    fn open<'b>(
        &'b mut self,
        bytes: &'b [u8],
    ) -> Result<message::Reader<NoAllocSliceSegments<'b>>, DecodeError> {
        if bytes.len() % 8 != 0 {
            return Err(DecodeError::new(
                bytes.len(),
                format!(
                    "a capnp message is whole 8-byte words, these {} bytes are not",
                    bytes.len()
                ),
            ));
        }
        let mut words = bytes;
        if bytes.as_ptr().align_offset(8) != 0 {
            self.aligned.clear();
            self.aligned
                .resize(bytes.len() / 8, ::capnp::word(0, 0, 0, 0, 0, 0, 0, 0));
            Word::words_to_bytes_mut(&mut self.aligned).copy_from_slice(bytes);
            words = Word::words_to_bytes(&self.aligned);
        }
        let options = ReaderOptions {
            traversal_limit_in_words: Some(2 * words.len() / 8),
            nesting_limit: NESTING_LIMIT,
        };
        let mut rest = words;
        let message = serialize::read_message_from_flat_slice_no_alloc(&mut rest, options)
            .map_err(corrupt)?;
        if !rest.is_empty() {
            return Err(DecodeError::new(
                words.len() - rest.len(),
                "trailing bytes after the capnp message",
            ));
        }
        Ok(message)
    }
}

/// `Codec` for each model root, `$module` its generated struct.
macro_rules! capnp_codec {
    ($($root:ident [$($protobuf:tt)*] [$($module:ident)::+]),* $(,)?) => {$(
        capnp_codec!(@ types::$root, $($module)::+);
    )*};
    (@ $model:ty, $($module:ident)::+) => {
        impl Codec<$model> for Capnp {
            #[inline]
            fn encode(&mut self, value: &$model, out: &mut Vec<u8>) {
                let mut message = message::Builder::new(&mut self.first_segment);
                value.put(message.init_root::<$($module)::+::Builder>());
                serialize::write_message(&mut *out, &message).expect("a Vec takes any write");
            }

            #[inline]
            fn decode(&mut self, bytes: &[u8]) -> Result<$model, DecodeError> {
                let message = self.open(bytes)?;
                let root = message.get_root::<$($module)::+::Reader>().map_err(corrupt)?;
                <$model>::take(root)
            }

            #[inline]
            fn fold(&mut self, bytes: &[u8], depth: Depth, h: &mut Hasher) -> Result<(), DecodeError> {
                match depth {
                    Depth::Materialize => {
                        use serbench_model::Checksum;
                        Codec::<$model>::decode(self, bytes)?.fold(h);
                        Ok(())
                    }
                    Depth::Access => {
                        let message = self.open(bytes)?;
                        message.get_root::<$($module)::+::Reader>().map_err(corrupt)?.visit(h)
                    }
                    other => Err(DecodeError::depth(<Self as Method>::ID, other)),
                }
            }
        }
    };
}
each_root!(capnp_codec);

#[cfg(test)]
mod tests {
    use super::*;
    use serbench_model::TotalOrder;
    use serbench_model::{Attr, LineItem, Org, OrgType, Url};

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
                percent: -0.0,
                size: -300,
            }],
        }
    }

    fn encoded(value: &Org) -> Vec<u8> {
        let mut out = Vec::new();
        Codec::<Org>::encode(&mut Capnp::default(), value, &mut out);
        out
    }

    /// Access and materialize give the same error.
    fn error<M: serbench_model::ModelType>(bytes: &[u8]) -> String
    where
        Capnp: Codec<M>,
    {
        let mut codec = Capnp::default();
        let decode = Codec::<M>::decode(&mut codec, bytes).unwrap_err();
        let access =
            Codec::<M>::fold(&mut codec, bytes, Depth::Access, &mut Hasher::new()).unwrap_err();
        assert_eq!(decode, access);
        decode.to_string()
    }

    #[test]
    fn an_object_is_one_unpacked_message_with_its_segment_table() {
        let bytes = encoded(&org());
        let segments = u32::from_le_bytes(bytes[..4].try_into().unwrap()) + 1;
        let words = u32::from_le_bytes(bytes[4..8].try_into().unwrap()) as usize;
        assert_eq!((segments, bytes.len()), (1, 8 + 8 * words));
        let message = serialize::read_message(&mut &bytes[..], ReaderOptions::default()).unwrap();
        let root = message.get_root::<org_capnp::org::Reader>().unwrap();
        assert_eq!(root.get_name().unwrap().to_str(), Ok("acme"));
        // an empty required text is left null
        assert!(!root.has_category());
    }

    #[test]
    fn objects_read_back_equal_at_both_depths_even_when_not_aligned() {
        let value = org();
        let bytes = encoded(&value);
        let mut shifted = vec![0u8; bytes.len() + 1];
        shifted[1..].copy_from_slice(&bytes);
        let mut codec = Capnp::default();
        for bytes in [&bytes[..], &shifted[1..]] {
            let decoded = Codec::<Org>::decode(&mut codec, bytes).unwrap();
            assert!(decoded.total_eq(&value));
            let mut h = Hasher::new();
            Codec::<Org>::fold(&mut codec, bytes, Depth::Access, &mut h).unwrap();
            assert_eq!(h.finish(), serbench_model::object_hash(&value));
        }
    }

    #[test]
    fn absent_and_empty_optionals_stay_apart() {
        let url = Url {
            url: String::new(),
            expanded_url: Some(String::new()),
            display_url: None,
            indices: vec![],
        };
        let mut message = message::Builder::new_default();
        url.put(message.init_root::<tweet_capnp::url::Builder>());
        let root = message
            .get_root_as_reader::<tweet_capnp::url::Reader>()
            .unwrap();
        assert_eq!(
            (
                root.has_url(),
                root.has_expanded_url(),
                root.has_display_url()
            ),
            (false, true, false)
        );
        assert!(Url::take(root).unwrap().total_eq(&url));
    }

    #[test]
    fn trailing_bytes_cuts_and_garbage_are_errors() {
        let bytes = encoded(&org());
        let longer = [&bytes[..], &[0; 8]].concat();
        assert!(error::<Org>(&longer).contains("trailing bytes after the capnp message"));
        assert!(error::<Org>(&bytes[..bytes.len() - 1]).contains("whole 8-byte words"));
        for cut in (0..bytes.len()).step_by(8) {
            assert!(
                error::<Org>(&bytes[..cut]).contains("invalid capnp message"),
                "{cut}"
            );
        }
        assert!(error::<Org>(&[0xff; 64]).contains("invalid capnp message"));
    }

    #[test]
    fn a_null_required_struct_and_an_unknown_enumerant_are_errors() {
        let mut message = message::Builder::new_default();
        message.init_root::<lineitem_capnp::line_item::Builder>();
        let mut bytes = Vec::new();
        serialize::write_message(&mut bytes, &message).unwrap();
        assert!(error::<LineItem>(&bytes).ends_with("required struct part is null"));

        // the org type is the only data of an Org: the first word after the root pointer
        let mut bytes = encoded(&org());
        assert_eq!(bytes[16..18], [2, 0]);
        bytes[16] = 5;
        assert!(error::<Org>(&bytes).ends_with("org type 5 is not a known ordinal"));
    }
}
