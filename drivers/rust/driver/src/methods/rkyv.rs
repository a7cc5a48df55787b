//! `rkyv` (0.8): the model structs' archived forms, read in place (depth `access`) or
//! deserialized into the native structs (depth `materialize`). One stored object is one
//! `rkyv::to_bytes` buffer, root at the end; Rust only (the layout is rkyv's own).
//!
//! Variants, as for the C++ `inplace` method:
//! - `""` (the default) TRUSTS the bytes: `access_unchecked`, no validation. Reading a
//!   damaged or foreign buffer this way is undefined behaviour, so this codec reports itself
//!   [`trusting`](Method::trusting) and the reader refuses any file this driver did not
//!   write in this run; only a minimum length and the alignment are checked.
//! - `validate` checks the whole buffer with bytecheck (every relative pointer, length, bool,
//!   enum tag and string's UTF-8, and how deep pointers nest) before it is read, and turns
//!   what is wrong into a [`DecodeError`].
//!
//! Objects are 8-aligned within their page (every archived model type needs at most 8), so
//! the archived values are used where the page buffer holds them.

use std::alloc::Layout;
use std::ops::Range;

use ::rkyv::bytecheck::CheckBytes;
use ::rkyv::rancor;
use ::rkyv::rend::{f64_le, i16_le, i32_le, i64_le};
use ::rkyv::ser::allocator::Arena;
use ::rkyv::string::ArchivedString;
use ::rkyv::validation::{archive::ArchiveValidator, ArchiveContext};
use ::rkyv::vec::ArchivedVec;
use ::rkyv::{boxed::ArchivedBox, option::ArchivedOption, Archived};
use serbench_model::{each_enum, each_root, each_struct, types, Hasher};

use super::{fold_decoded, Codec, DecodeError, Method};
use crate::protocol::Depth;

/// The validating variant.
const VALIDATE: &str = "validate";
/// The alignment every archived model type fits in (checked for each root below).
const ALIGN: usize = 8;

#[derive(Default)]
pub struct Rkyv {
    validate: bool,
    /// Scratch space of the serializer, kept across objects.
    arena: Arena,
}

impl Method for Rkyv {
    const ID: &'static str = "rkyv";
    const DEPTHS: &'static [Depth] = &[Depth::Materialize, Depth::Access];
    const FILES: &'static [&'static str] = &["drivers/rust/driver/src/methods/rkyv.rs"];
    const LIBRARIES: &'static [&'static str] = &["rkyv"];
    const VARIANTS: &'static [&'static str] = &[VALIDATE];
    const ALIGN: usize = ALIGN;

    fn for_variant(variant: &str) -> Self {
        Rkyv {
            validate: variant == VALIDATE,
            arena: Arena::new(),
        }
    }

    fn trusting(&self) -> bool {
        !self.validate
    }
}

impl Rkyv {
    /// The archived root of `bytes`: checked by bytecheck, or (trusting) only for the
    /// length and alignment that `access_unchecked` needs to stay inside `bytes`. Inlined
    /// into each object's fold, the validation out of line: a call here was some forty
    /// instructions per object, a tenth of a TPC-H part's whole access walk.
    #[inline(always)]
    fn root<'a, A>(&self, bytes: &'a [u8]) -> Result<&'a A, DecodeError>
    where
        A: ::rkyv::Portable
            + for<'v> CheckBytes<CheckContext<'v>>
            + for<'v> CheckBytes<WhyContext<'v>>,
    {
        if self.validate {
            return validated(bytes);
        }
        if bytes.len() < size_of::<A>() || bytes.as_ptr() as usize % ALIGN != 0 {
            return Err(unfit_root(bytes, size_of::<A>()));
        }
        // SAFETY: the reader hands a trusting codec only objects of files this driver wrote
        // in this run (see `Method::trusting`), which are whole `to_bytes` buffers of `A`'s
        // type kept 8-aligned; length and alignment are checked above.
        Ok(unsafe { ::rkyv::access_unchecked::<A>(bytes) })
    }
}

/// Why `bytes` cannot hold a root of `need` bytes, for the trusting variant.
#[cold]
#[inline(never)]
fn unfit_root(bytes: &[u8], need: usize) -> DecodeError {
    if bytes.len() < need {
        let got = bytes.len();
        DecodeError::new(
            0,
            format!("truncated: the archived root needs {need} bytes, the object has {got}"),
        )
    } else {
        DecodeError::new(0, "the object is not 8-byte aligned")
    }
}

/// How deep pointers may nest in a validated archive: the root, one level per box (a status)
/// or vector (an array), one for an out-of-line string. A string is no JSON level, so every
/// canonical object fits in one level more than the JSON text's [`MAX_NESTING`]; a recursive
/// archive nested deeper, which would overflow the stack of the checks, the fold and the
/// deserializer, is refused level by level as bytecheck descends.
///
/// [`MAX_NESTING`]: serbench_model::MAX_NESTING
const MAX_POINTER_DEPTH: usize = serbench_model::MAX_NESTING + 1;

/// What bytecheck checks a validated archive with: rkyv's validator, bounding how deep
/// pointers nest. It remembers that it refused a level, as a release build's `rancor::Error`
/// carries no message (rkyv's own `with_max_depth` could not say why it failed).
struct Checker<'a> {
    archive: ArchiveValidator<'a>,
    depth: usize,
    too_deep: bool,
}

impl<'a> Checker<'a> {
    fn new(bytes: &'a [u8]) -> Self {
        Checker {
            archive: ArchiveValidator::new(bytes),
            depth: 0,
            too_deep: false,
        }
    }
}

type CheckContext<'a> = rancor::Strategy<Checker<'a>, rancor::Error>;
/// The same check with an error that keeps bytecheck's message (a release build's
/// `rancor::Error` says only "failed without error information"): run again on a refused
/// buffer only, so an accepted one pays nothing for the message.
type WhyContext<'a> = rancor::Strategy<Checker<'a>, rancor::BoxedError>;

#[derive(Debug)]
struct TooDeep;

impl std::fmt::Display for TooDeep {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "pointers nested deeper than {MAX_POINTER_DEPTH} levels")
    }
}

impl std::error::Error for TooDeep {}

// SAFETY: the subtree ranges are rkyv's validator's, pushed and popped as bytecheck asks;
// a refused push changes none of them.
unsafe impl<E: rancor::Source> ArchiveContext<E> for Checker<'_> {
    fn check_subtree_ptr(&mut self, ptr: *const u8, layout: &Layout) -> Result<(), E> {
        self.archive.check_subtree_ptr(ptr, layout)
    }

    unsafe fn push_subtree_range(
        &mut self,
        root: *const u8,
        end: *const u8,
    ) -> Result<Range<usize>, E> {
        if self.depth == MAX_POINTER_DEPTH {
            self.too_deep = true;
            return Err(E::new(TooDeep));
        }
        self.depth += 1;
        // SAFETY: as the caller's contract for this call
        unsafe { self.archive.push_subtree_range(root, end) }
    }

    unsafe fn pop_subtree_range(&mut self, range: Range<usize>) -> Result<(), E> {
        self.depth -= 1;
        // SAFETY: as the caller's contract for this call
        unsafe { self.archive.pop_subtree_range(range) }
    }
}

/// The archived root of `bytes` after bytecheck has checked the whole buffer.
#[inline(never)]
fn validated<A>(bytes: &[u8]) -> Result<&A, DecodeError>
where
    A: ::rkyv::Portable + for<'v> CheckBytes<CheckContext<'v>> + for<'v> CheckBytes<WhyContext<'v>>,
{
    let mut checker = Checker::new(bytes);
    ::rkyv::api::access_with_context::<A, _, rancor::Error>(bytes, &mut checker)
        .map_err(|_| refused::<A>(bytes))
}

/// Why bytecheck refuses `bytes`, from a second check that keeps its message.
#[cold]
#[inline(never)]
fn refused<A>(bytes: &[u8]) -> DecodeError
where
    A: ::rkyv::Portable + for<'v> CheckBytes<WhyContext<'v>>,
{
    let mut checker = Checker::new(bytes);
    let why =
        match ::rkyv::api::access_with_context::<A, _, rancor::BoxedError>(bytes, &mut checker) {
            Err(_) if checker.too_deep => TooDeep.to_string(),
            Err(e) => e.to_string(),
            Ok(_) => "bytecheck refused it, then accepted it on a second check".to_string(),
        };
    DecodeError::new(0, format!("invalid rkyv buffer: {why}"))
}

/// Folds an archived value's checksum words straight from the archive, as
/// `Checksum::fold` does for the native value.
trait Fold {
    fn fold(&self, h: &mut Hasher);
}

macro_rules! int_fold {
    ($($t:ty),*) => {$(
        impl Fold for $t {
            #[inline(always)]
            fn fold(&self, h: &mut Hasher) {
                h.int(self.to_native() as i64);
            }
        }
    )*};
}
int_fold!(i16_le, i32_le, i64_le);

impl Fold for i8 {
    #[inline(always)]
    fn fold(&self, h: &mut Hasher) {
        h.int(*self as i64);
    }
}

impl Fold for f64_le {
    #[inline(always)]
    fn fold(&self, h: &mut Hasher) {
        h.f64(self.to_native());
    }
}

impl Fold for bool {
    #[inline(always)]
    fn fold(&self, h: &mut Hasher) {
        h.bool(*self);
    }
}

// rkyv 0.8 keeps a string of up to 8 bytes inline, in its 8-byte representation, padded
// with 0xff (a byte valid UTF-8 never holds); a longer one is a length and an offset there.
const _: () = assert!(size_of::<ArchivedString>() == 8);

impl Fold for ArchivedString {
    /// An inline string is hashed from one load of its representation: the length from the
    /// first 0xff byte found arithmetically, the bytes masked in place, where `as_str` would
    /// scan the bytes one by one and the tail be gathered again (the branches of both cost
    /// more than the hash itself on TPC-H's many short strings).
    #[inline(always)]
    fn fold(&self, h: &mut Hasher) {
        let repr = u64::from_le_bytes(*repr_bytes(self));
        if repr_is_inline(repr) {
            let len = inline_len(repr);
            h.word(len as u64);
            if len > 0 {
                h.word(repr & (u64::MAX >> (64 - 8 * len)));
            }
        } else {
            fold_out_of_line(self.as_str().as_bytes(), h);
        }
    }
}

/// The 8 bytes at `p` as a little-endian word.
///
/// # Safety
/// `p..p + 8` must be readable.
#[inline(always)]
unsafe fn load_chunk(p: *const u8) -> u64 {
    u64::from_le_bytes(unsafe { p.cast::<[u8; 8]>().read_unaligned() })
}

/// An out-of-line string's words. Such a string has more than 8 bytes when rkyv wrote it,
/// so its first chunk is whole, and its last word is always the top of its last eight bytes
/// (the whole last chunk when the length is a multiple of 8): folding that word
/// unconditionally after the chunks before it leaves no branch on whether there is a tail,
/// which on TPC-H's random lengths is mispredicted one time in eight. The chunks between
/// take a plain loop, one load, xor, multiply and compare each: `Hasher::bytes` gets LLVM's
/// runtime unrolling, whose set-up and remainder branches cost more than they save on
/// strings of a few chunks.
#[inline(always)]
fn fold_out_of_line(b: &[u8], h: &mut Hasher) {
    let n = b.len();
    if n <= 8 {
        // only in a buffer rkyv did not write (checked by the validating variant)
        return h.bytes(b);
    }
    h.word(n as u64);
    let start = b.as_ptr();
    // SAFETY: 8 < n
    h.word(unsafe { load_chunk(start) });
    // SAFETY: both within `b`: 8 < n, and (n - 1) & !7 < n
    let (mut p, end) = unsafe { (start.add(8), start.add((n - 1) & !7)) };
    while p < end {
        // SAFETY: p + 8 <= end < the end of `b`
        h.word(unsafe { load_chunk(p) });
        // SAFETY: at most `end`
        p = unsafe { p.add(8) };
    }
    // the shift is taken mod 64, as the instruction takes it: 0 for a whole last chunk
    let last = u64::from_le_bytes(b[n - 8..].try_into().unwrap());
    h.word(last >> ((64 - 8 * (n % 8)) & 63));
}

/// The 8 bytes of a string's representation.
#[inline(always)]
fn repr_bytes(s: &ArchivedString) -> &[u8; 8] {
    // SAFETY: ArchivedString is 8 bytes (asserted above) of plain bytes, every one of them
    // initialized in an archive; [u8; 8] has alignment 1.
    unsafe { &*(s as *const ArchivedString).cast::<[u8; 8]>() }
}

/// rkyv's test: an out-of-line representation's first byte is 0b10xx_xxxx, which no inline
/// string (valid UTF-8, or the 0xff padding of an empty one) can start with.
#[inline(always)]
fn repr_is_inline(repr: u64) -> bool {
    // 0b10xx_xxxx are the bytes below -64 as i8: one compare where a mask and a compare
    // were two instructions, on every string
    repr as u8 as i8 >= -64
}

/// The position of the first 0xff byte of an inline representation (8 if none).
#[inline(always)]
fn inline_len(repr: u64) -> usize {
    const ONES: u64 = 0x0101_0101_0101_0101;
    let zeroed = !repr; // 0xff bytes are now the zero bytes
                        // the classic zero-byte test: exact for the lowest zero byte, the one wanted
    let flags = zeroed.wrapping_sub(ONES) & !zeroed & (ONES << 7);
    (flags.trailing_zeros() / 8) as usize
}

impl<T: Fold> Fold for ArchivedOption<T> {
    #[inline(always)]
    fn fold(&self, h: &mut Hasher) {
        match self.as_ref() {
            None => h.absent(),
            Some(v) => {
                h.present();
                v.fold(h);
            }
        }
    }
}

impl<T: Fold> Fold for ArchivedVec<T> {
    #[inline]
    fn fold(&self, h: &mut Hasher) {
        h.list_len(self.len());
        for item in self.iter() {
            item.fold(h);
        }
    }
}

impl<T: Fold> Fold for ArchivedBox<T> {
    #[inline]
    fn fold(&self, h: &mut Hasher) {
        self.get().fold(h);
    }
}

/// Each enum by its ordinal.
macro_rules! enum_fold {
    ($($name:ident [$archived:ident $capnp:ident] { $($variant:ident $ordinal:literal),* })*) => {$(
        impl Fold for types::$archived {
            #[inline]
            fn fold(&self, h: &mut Hasher) {
                let ordinal = match self {
                    $( types::$archived::$variant => $ordinal, )*
                };
                h.int(ordinal);
            }
        }
    )*};
}
each_enum!(enum_fold);

/// Each struct's fields in canonical order (the generated `each_struct!` lists them). The
/// destructuring makes a field left out fail to compile. Always inlined: a call passes the
/// hash through memory (the `&mut Hasher`), a store and a reload on the hash's serial chain
/// for every nested record.
macro_rules! fold_fields {
    ($($name:ident [$archived:ident $($names:ident)*] {
        $($field:ident [$($field_names:ident)*]),* $(,)?
    })*) => {$(
        impl Fold for types::$archived {
            #[inline(always)]
            fn fold(&self, h: &mut Hasher) {
                let types::$archived { $($field),* } = self;
                $( Fold::fold($field, h); )*
            }
        }
    )*};
}
each_struct!(fold_fields);

impl Rkyv {
    /// The depths other than `access`.
    #[inline(never)]
    fn fold_other<M>(
        &mut self,
        bytes: &[u8],
        depth: Depth,
        h: &mut Hasher,
    ) -> Result<(), DecodeError>
    where
        M: serbench_model::ModelType,
        Self: Codec<M>,
    {
        match depth {
            Depth::Materialize => fold_decoded::<M, _>(self, bytes, h),
            other => Err(DecodeError::depth(<Self as Method>::ID, other)),
        }
    }
}

/// `Codec` for each model root (concrete types keep rkyv's serializer bounds out of sight).
macro_rules! rkyv_codec {
    ($($root:ident [$($protobuf:tt)*] [$($capnp:tt)*]),* $(,)?) => {
        $( rkyv_codec!(@ types::$root); )*
    };
    (@ $model:ty) => {
        const _: () = assert!(align_of::<Archived<$model>>() <= ALIGN);

        impl Codec<$model> for Rkyv {
            #[inline]
            fn encode(&mut self, value: &$model, out: &mut Vec<u8>) {
                ::rkyv::api::high::to_bytes_in_with_alloc::<_, _, rancor::Panic>(
                    value,
                    out,
                    self.arena.acquire(),
                )
                .expect("serializing into a Vec cannot fail");
            }

            #[inline]
            fn decode(&mut self, bytes: &[u8]) -> Result<$model, DecodeError> {
                let root = self.root::<Archived<$model>>(bytes)?;
                ::rkyv::deserialize::<$model, rancor::Error>(root)
                    .map_err(|e| DecodeError::new(0, format!("rkyv deserialize: {e}")))
            }

            /// `access` inlined into the reading task's loop (no call, no result in memory,
            /// per object), every other depth behind one call.
            #[inline(always)]
            fn fold(&mut self, bytes: &[u8], depth: Depth, h: &mut Hasher) -> Result<(), DecodeError> {
                if depth == Depth::Access {
                    self.root::<Archived<$model>>(bytes)?.fold(h);
                    return Ok(());
                }
                self.fold_other::<$model>(bytes, depth, h)
            }
        }
    };
}
each_root!(rkyv_codec);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::paged::{index_path, PageBuffer};
    use crate::protocol::Kind;
    use crate::tasks::write::write_file;
    use crate::tasks::{read_objects, Read, Selection};
    use crate::test_support::{Scratch, TEST_RUN};
    use crate::timing::IoTimer;
    use serbench_model::types::ArchivedTweet;
    use serbench_model::{object_hash, Attr, Org, OrgType, Tweet, TweetKind};

    fn org() -> Org {
        Org {
            name: "acme".into(),
            category: "tools".into(),
            country: "fr".into(),
            r#type: OrgType::Baz,
            attributes: vec![Attr {
                id: "a".into(),
                quantity: 3,
                amount: 7,
                active: true,
                percent: 0.5,
                size: 9,
            }],
        }
    }

    /// `bytes` copied into 8-aligned storage, as a page buffer holds an object.
    fn aligned(bytes: &[u8]) -> Vec<u64> {
        bytes
            .chunks(8)
            .map(|chunk| {
                let mut w = [0u8; 8];
                w[..chunk.len()].copy_from_slice(chunk);
                u64::from_ne_bytes(w)
            })
            .collect()
    }

    fn as_bytes(words: &[u64], len: usize) -> &[u8] {
        // SAFETY: u64s are plain bytes; `len` is at most their size
        unsafe { std::slice::from_raw_parts(words.as_ptr().cast(), len) }
    }

    fn encoded(value: &Org) -> Vec<u8> {
        let mut out = Vec::new();
        Codec::<Org>::encode(&mut Rkyv::default(), value, &mut out);
        out
    }

    fn errors(bytes: &[u8]) -> Vec<DecodeError> {
        let words = aligned(bytes);
        let bytes = as_bytes(&words, bytes.len());
        let mut codec = Rkyv::for_variant(VALIDATE);
        let mut h = Hasher::new();
        let access = Codec::<Org>::fold(&mut codec, bytes, Depth::Access, &mut h);
        let decode = Codec::<Org>::decode(&mut codec, bytes);
        [access.err(), decode.err()].into_iter().flatten().collect()
    }

    #[test]
    fn both_variants_fold_like_the_native_value_at_both_depths() {
        let value = org();
        let bytes = encoded(&value);
        let words = aligned(&bytes);
        for variant in ["", VALIDATE] {
            let mut codec = Rkyv::for_variant(variant);
            assert_eq!(codec.trusting(), variant.is_empty());
            for depth in [Depth::Materialize, Depth::Access] {
                let mut h = Hasher::new();
                Codec::<Org>::fold(&mut codec, as_bytes(&words, bytes.len()), depth, &mut h)
                    .unwrap();
                assert_eq!(h.finish(), object_hash(&value), "{variant:?} {depth:?}");
            }
        }
    }

    #[test]
    fn strings_inline_or_not_fold_like_their_bytes() {
        let texts = [
            "",
            "é",
            "ab",
            "Brand#13",
            "1-URGENT",
            "ünïcødé",
            "Clerk#000000951",
        ];
        let longer = (0..40).map(|n| "xyz€".repeat(n).chars().take(n).collect::<String>());
        for text in texts.iter().map(|t| t.to_string()).chain(longer) {
            let mut value = org();
            value.name = text.clone();
            let words = aligned(&encoded(&value));
            let bytes = as_bytes(&words, encoded(&value).len());
            for variant in ["", VALIDATE] {
                let mut h = Hasher::new();
                let mut codec = Rkyv::for_variant(variant);
                Codec::<Org>::fold(&mut codec, bytes, Depth::Access, &mut h).unwrap();
                assert_eq!(h.finish(), object_hash(&value), "{text:?} {variant:?}");
            }
        }
    }

    #[test]
    fn validation_rejects_every_truncation() {
        let bytes = encoded(&org());
        for len in 0..bytes.len() {
            assert_eq!(errors(&bytes[..len]).len(), 2, "length {len}");
        }
    }

    #[test]
    fn validation_rejects_garbage() {
        let bytes = encoded(&org());
        assert_eq!(errors(&vec![0xa5; bytes.len()]).len(), 2);
        assert_eq!(errors(&vec![0xff; 64]).len(), 2);
    }

    #[test]
    fn any_damaged_byte_is_read_or_rejected_without_panicking() {
        let bytes = encoded(&org());
        for i in 0..bytes.len() {
            let mut bad = bytes.clone();
            bad[i] ^= 0xff;
            let found = errors(&bad).len();
            assert!(
                found == 0 || found == 2,
                "byte {i}: access and decode disagree"
            );
        }
    }

    #[test]
    fn a_misaligned_object_is_an_error_in_both_variants() {
        let bytes = encoded(&org());
        let words = aligned(&[&[0u8][..], &bytes].concat());
        let shifted = &as_bytes(&words, bytes.len() + 1)[1..];
        for variant in ["", VALIDATE] {
            let mut h = Hasher::new();
            let mut codec = Rkyv::for_variant(variant);
            assert!(Codec::<Org>::fold(&mut codec, shifted, Depth::Access, &mut h).is_err());
        }
    }

    #[test]
    fn the_trusting_variant_checks_the_root_length() {
        let err = Codec::<Org>::decode(&mut Rkyv::default(), &[]).unwrap_err();
        assert!(err.message.starts_with("truncated"), "{err}");
    }

    #[test]
    fn only_the_validating_variant_reads_a_file_another_writer_wrote() {
        let scratch = Scratch::new();
        let base = scratch.join("org");
        let timer = IoTimer::default();
        write_file(
            &mut Rkyv::default(),
            &[org()],
            &base,
            4096,
            TEST_RUN,
            &timer,
        )
        .unwrap();
        // the writer id field of the index header (PROTOCOL.md 4.2)
        let mut index = std::fs::read(index_path(&base)).unwrap();
        index[96..100].copy_from_slice(b"cpp\0");
        std::fs::write(index_path(&base), index).unwrap();
        let read = |codec: &mut Rkyv| {
            let read = Read {
                base: &base,
                selection: Selection::All,
                depth: Depth::Access,
                page_size: None,
                run_stamp: TEST_RUN,
            };
            read_objects::<Org, _>(codec, read, &mut PageBuffer::default(), &timer)
        };
        let refused = read(&mut Rkyv::default()).unwrap_err();
        assert_eq!(refused.kind, Kind::WrongFile);
        assert!(
            refused.message.contains("written by 'cpp'"),
            "{}",
            refused.message
        );
        let read = read(&mut Rkyv::for_variant(VALIDATE)).unwrap();
        assert_eq!(read.checksum.sum, object_hash(&org()));
    }

    /// A minimal golden tweet (strings short enough to be inline, lists empty): its archive
    /// is its root alone, so a retweet of it is the two roots, and a chain of retweets
    /// `levels` deep is the plain root and the retweet's root repeated (each box points
    /// to the root just before it).
    fn nested_retweets(levels: usize) -> Vec<u8> {
        let tweets: Vec<Tweet> =
            crate::tasks::load_objects(&crate::test_support::vectors().join("tweet.jsonl"))
                .unwrap();
        let plain = tweets.into_iter().find(|t| t.kind() == TweetKind::Plain);
        let plain: Tweet =
            serde_json::from_value(minimal(serde_json::to_value(plain.unwrap()).unwrap())).unwrap();
        let retweet = Tweet {
            retweeted_status: Some(Box::new(plain.clone())),
            ..plain.clone()
        };
        let encode = |tweet: &Tweet| {
            let mut out = Vec::new();
            Codec::<Tweet>::encode(&mut Rkyv::default(), tweet, &mut out);
            out
        };
        let (plain, retweet) = (encode(&plain), encode(&retweet));
        assert_eq!(plain.len(), size_of::<ArchivedTweet>());
        assert_eq!(retweet, [&plain[..], &retweet[plain.len()..]].concat());
        [plain, retweet[size_of::<ArchivedTweet>()..].repeat(levels)].concat()
    }

    /// Strings of one byte, lists empty.
    fn minimal(value: serde_json::Value) -> serde_json::Value {
        use serde_json::Value;
        match value {
            Value::String(_) => Value::from("x"),
            Value::Array(_) => Value::Array(vec![]),
            Value::Object(fields) => fields.into_iter().map(|(k, v)| (k, minimal(v))).collect(),
            other => other,
        }
    }

    /// The validating variant's errors at both depths, on a thread with a small stack.
    fn deep_errors(bytes: Vec<u8>) -> [Option<DecodeError>; 2] {
        // unoptimized frames are large: the levels allowed need more than a test thread's
        // stack; the 100,000 asked for would need gigabytes
        std::thread::Builder::new()
            .stack_size(64 << 20)
            .spawn(move || {
                let words = aligned(&bytes);
                let bytes = as_bytes(&words, bytes.len());
                let mut codec = Rkyv::for_variant(VALIDATE);
                let mut h = Hasher::new();
                let access = Codec::<Tweet>::fold(&mut codec, bytes, Depth::Access, &mut h);
                let decode = Codec::<Tweet>::decode(&mut codec, bytes);
                [access.err(), decode.err()]
            })
            .unwrap()
            .join()
            .unwrap()
    }

    #[test]
    fn deep_retweets_are_refused_not_a_stack_overflow() {
        // the root and 63 retweets are 64 statuses, with an empty list's pointer in the last
        assert_eq!(deep_errors(nested_retweets(63)), [None, None]);
        for levels in [64, 100_000] {
            for error in deep_errors(nested_retweets(levels)) {
                let message = error.unwrap().message;
                assert_eq!(
                    message,
                    "invalid rkyv buffer: pointers nested deeper than 65 levels"
                );
            }
        }
    }
}
