//! `handcoded`: the shared little-endian layout of PROTOCOL.md section 7, the same bytes in
//! every language. Integers at their width, f64 as 8 bytes, bool as one byte 0/1, str as u32
//! length + UTF-8, optional as one presence byte + value, list as u32 count + elements,
//! nested structs inline, enums as one ordinal byte.
//!
//! Each struct's field list (generated from its definition: `each_struct!`) drives all three
//! directions: `put`
//! (encode), `take` (decode into native values, depth `materialize`) and `visit` (fold the
//! checksum straight from the bytes, depth `access`). The decoder checks every length and
//! byte and returns an error, never panics.

use serbench_model::{each_enum, each_struct, types, Hasher, ModelType};

use super::{fold_decoded, Codec, DecodeError, Method};
use crate::protocol::Depth;

#[derive(Default)]
pub struct Handcoded;

impl Method for Handcoded {
    const ID: &'static str = "handcoded";
    const DEPTHS: &'static [Depth] = &[Depth::Materialize, Depth::Access];
    const FILES: &'static [&'static str] = &["drivers/rust/driver/src/methods/handcoded.rs"];
    const LIBRARIES: &'static [&'static str] = &[];
}

impl<M: ModelType + Layout> Codec<M> for Handcoded {
    #[inline]
    fn encode(&mut self, value: &M, out: &mut Vec<u8>) {
        value.put(out);
    }

    #[inline]
    fn decode(&mut self, bytes: &[u8]) -> Result<M, DecodeError> {
        let mut r = Reader::new(bytes);
        let value = M::take(&mut r)?;
        r.finish()?;
        Ok(value)
    }

    #[inline]
    fn fold(&mut self, bytes: &[u8], depth: Depth, h: &mut Hasher) -> Result<(), DecodeError> {
        match depth {
            Depth::Materialize => fold_decoded::<M, _>(self, bytes, h),
            Depth::Access => {
                let mut r = Reader::new(bytes);
                M::visit(&mut r, h)?;
                r.finish()
            }
            other => Err(DecodeError::depth(Self::ID, other)),
        }
    }
}

/// A value's place in the layout.
pub trait Layout: Sized {
    fn put(&self, out: &mut Vec<u8>);
    fn take(r: &mut Reader<'_>) -> Result<Self, DecodeError>;
    /// Folds the value's checksum words from the bytes, checking them as `take` does.
    fn visit(r: &mut Reader<'_>, h: &mut Hasher) -> Result<(), DecodeError>;
}

/// Tweets nest through quoted and retweeted statuses; real ones nest two deep. The limit
/// keeps a corrupted file from exhausting the stack; it counts boxed records and lists, which
/// nest no deeper than the JSON text's objects and lists, so every canonical object reads.
pub(crate) const MAX_NESTING: u32 = serbench_model::MAX_NESTING as u32;

/// A bounds-checked cursor over one object's bytes.
#[derive(Clone, Copy)]
pub struct Reader<'a> {
    bytes: &'a [u8],
    pos: usize,
    nesting: u32,
}

impl<'a> Reader<'a> {
    pub fn new(bytes: &'a [u8]) -> Self {
        Reader {
            bytes,
            pos: 0,
            nesting: 0,
        }
    }

    fn left(&self) -> usize {
        self.bytes.len() - self.pos
    }

    #[inline(always)]
    fn array<const N: usize>(&mut self) -> Result<[u8; N], DecodeError> {
        match self.bytes.get(self.pos..self.pos + N) {
            Some(b) => {
                self.pos += N;
                Ok(b.try_into().unwrap())
            }
            None => Err(self.truncated(N)),
        }
    }

    #[inline(always)]
    fn byte(&mut self) -> Result<u8, DecodeError> {
        Ok(self.array::<1>()?[0])
    }

    /// A u32 length or count that must fit in what is left (every element takes a byte).
    #[inline(always)]
    fn count(&mut self, what: &str) -> Result<usize, DecodeError> {
        let n = u32::from_le_bytes(self.array()?) as usize;
        if n > self.left() {
            return Err(self.error(
                4,
                format!("{what} {n} exceeds the {} bytes left", self.left()),
            ));
        }
        Ok(n)
    }

    /// A string's UTF-8 bytes, checked (ASCII, the common case, by a fast scan first).
    #[inline(always)]
    fn str(&mut self) -> Result<&'a str, DecodeError> {
        let n = self.count("string length")?;
        let bytes = &self.bytes[self.pos..self.pos + n];
        let s = if bytes.is_ascii() {
            // SAFETY: ASCII is valid UTF-8
            unsafe { std::str::from_utf8_unchecked(bytes) }
        } else {
            std::str::from_utf8(bytes).map_err(|e| self.bad_utf8(e))?
        };
        self.pos += n;
        Ok(s)
    }

    /// Folds a string's words exactly as `Hasher::str` does (length, then 8-byte
    /// little-endian chunks, the last zero-padded) straight from the bytes, checking UTF-8 on
    /// the way: the chunks themselves show whether the string is ASCII; only a string that
    /// is not goes through the full check.
    #[inline(always)]
    fn visit_str(&mut self, h: &mut Hasher) -> Result<(), DecodeError> {
        let n = self.count("string length")?;
        let start = self.pos;
        let bytes = &self.bytes[start..start + n];
        h.word(n as u64);
        let mut high_bits = 0u64;
        let mut chunks = bytes.chunks_exact(8);
        for chunk in &mut chunks {
            let w = u64::from_le_bytes(chunk.try_into().unwrap());
            high_bits |= w;
            h.word(w);
        }
        let tail = chunks.remainder().len();
        if tail > 0 {
            let w = self.tail_word(start + n - tail, tail);
            high_bits |= w;
            h.word(w);
        }
        if high_bits & 0x8080_8080_8080_8080 != 0 {
            std::str::from_utf8(bytes).map_err(|e| self.bad_utf8(e))?;
        }
        self.pos += n;
        Ok(())
    }

    /// `len` (1 to 7) bytes at `at` as a zero-padded little-endian word: one 8-byte load
    /// masked when the object has 8 bytes there, else byte by byte.
    #[inline(always)]
    fn tail_word(&self, at: usize, len: usize) -> u64 {
        match self.bytes.get(at..at + 8) {
            Some(window) => {
                u64::from_le_bytes(window.try_into().unwrap()) & (u64::MAX >> (64 - 8 * len))
            }
            None => self.bytes[at..at + len]
                .iter()
                .rev()
                .fold(0, |w, &b| (w << 8) | b as u64),
        }
    }

    #[cold]
    fn bad_utf8(&self, e: std::str::Utf8Error) -> DecodeError {
        DecodeError::new(self.pos + e.valid_up_to(), "invalid UTF-8 in a string")
    }

    #[inline(always)]
    fn flag(&mut self, what: &str) -> Result<bool, DecodeError> {
        match self.byte()? {
            0 => Ok(false),
            1 => Ok(true),
            b => Err(self.error(1, format!("{what} byte {b} is not 0 or 1"))),
        }
    }

    fn enter(&mut self) -> Result<(), DecodeError> {
        self.nesting += 1;
        if self.nesting > MAX_NESTING {
            return Err(self.error(0, format!("nested deeper than {MAX_NESTING} levels")));
        }
        Ok(())
    }

    fn leave(&mut self) {
        self.nesting -= 1;
    }

    /// Every byte must belong to the object.
    pub fn finish(&self) -> Result<(), DecodeError> {
        match self.left() {
            0 => Ok(()),
            n => Err(self.error(0, format!("{n} trailing bytes after the object"))),
        }
    }

    #[cold]
    fn truncated(&self, need: usize) -> DecodeError {
        self.error(
            0,
            format!("truncated: {need} bytes needed, {} left", self.left()),
        )
    }

    /// An error about the value that started `back` bytes before the cursor.
    #[cold]
    fn error(&self, back: usize, message: String) -> DecodeError {
        DecodeError::new(self.pos - back, message)
    }
}

macro_rules! int_layout {
    ($($t:ty),*) => {$(
        impl Layout for $t {
            #[inline(always)]
            fn put(&self, out: &mut Vec<u8>) {
                out.extend_from_slice(&self.to_le_bytes());
            }

            #[inline(always)]
            fn take(r: &mut Reader<'_>) -> Result<Self, DecodeError> {
                Ok(<$t>::from_le_bytes(r.array()?))
            }

            #[inline(always)]
            fn visit(r: &mut Reader<'_>, h: &mut Hasher) -> Result<(), DecodeError> {
                h.int(<$t>::from_le_bytes(r.array()?) as i64);
                Ok(())
            }
        }
    )*};
}
int_layout!(i8, i16, i32, i64);

impl Layout for f64 {
    #[inline(always)]
    fn put(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.to_le_bytes());
    }

    #[inline(always)]
    fn take(r: &mut Reader<'_>) -> Result<Self, DecodeError> {
        Ok(f64::from_le_bytes(r.array()?))
    }

    #[inline(always)]
    fn visit(r: &mut Reader<'_>, h: &mut Hasher) -> Result<(), DecodeError> {
        h.word(u64::from_le_bytes(r.array()?));
        Ok(())
    }
}

impl Layout for bool {
    #[inline(always)]
    fn put(&self, out: &mut Vec<u8>) {
        out.push(*self as u8);
    }

    #[inline(always)]
    fn take(r: &mut Reader<'_>) -> Result<Self, DecodeError> {
        r.flag("bool")
    }

    #[inline(always)]
    fn visit(r: &mut Reader<'_>, h: &mut Hasher) -> Result<(), DecodeError> {
        h.bool(r.flag("bool")?);
        Ok(())
    }
}

impl Layout for String {
    #[inline(always)]
    fn put(&self, out: &mut Vec<u8>) {
        out.reserve(4 + self.len());
        out.extend_from_slice(&(self.len() as u32).to_le_bytes());
        out.extend_from_slice(self.as_bytes());
    }

    #[inline(always)]
    fn take(r: &mut Reader<'_>) -> Result<Self, DecodeError> {
        r.str().map(String::from)
    }

    #[inline(always)]
    fn visit(r: &mut Reader<'_>, h: &mut Hasher) -> Result<(), DecodeError> {
        r.visit_str(h)
    }
}

impl<T: Layout> Layout for Option<T> {
    #[inline(always)]
    fn put(&self, out: &mut Vec<u8>) {
        match self {
            None => out.push(0),
            Some(v) => {
                out.push(1);
                v.put(out);
            }
        }
    }

    #[inline(always)]
    fn take(r: &mut Reader<'_>) -> Result<Self, DecodeError> {
        Ok(if r.flag("presence")? {
            Some(T::take(r)?)
        } else {
            None
        })
    }

    #[inline(always)]
    fn visit(r: &mut Reader<'_>, h: &mut Hasher) -> Result<(), DecodeError> {
        if r.flag("presence")? {
            h.present();
            T::visit(r, h)
        } else {
            h.absent();
            Ok(())
        }
    }
}

/// Decoding never reserves more than this many elements up front, whatever a (possibly
/// corrupted) count says; longer lists grow as they are read.
const MAX_RESERVE: usize = 1 << 16;

impl<T: Layout> Layout for Vec<T> {
    #[inline]
    fn put(&self, out: &mut Vec<u8>) {
        let n = u32::try_from(self.len()).expect("a list of more than 2^32 - 1 elements");
        out.extend_from_slice(&n.to_le_bytes());
        for item in self {
            item.put(out);
        }
    }

    // a list is a level, as in the JSON text: a struct that holds a list of itself (a
    // user's tree) nests through lists alone, and no Box counts it
    #[inline]
    fn take(r: &mut Reader<'_>) -> Result<Self, DecodeError> {
        r.enter()?;
        let items = take_list(r);
        r.leave();
        items
    }

    #[inline]
    fn visit(r: &mut Reader<'_>, h: &mut Hasher) -> Result<(), DecodeError> {
        r.enter()?;
        let result = visit_list::<T>(r, h);
        r.leave();
        result
    }
}

#[inline]
fn take_list<T: Layout>(r: &mut Reader<'_>) -> Result<Vec<T>, DecodeError> {
    let n = r.count("list count")?;
    let mut items = Vec::with_capacity(n.min(MAX_RESERVE));
    for _ in 0..n {
        items.push(T::take(r)?);
    }
    Ok(items)
}

#[inline]
fn visit_list<T: Layout>(r: &mut Reader<'_>, h: &mut Hasher) -> Result<(), DecodeError> {
    let n = r.count("list count")?;
    h.list_len(n);
    for _ in 0..n {
        T::visit(r, h)?;
    }
    Ok(())
}

impl<T: Layout> Layout for Box<T> {
    #[inline]
    fn put(&self, out: &mut Vec<u8>) {
        (**self).put(out);
    }

    fn take(r: &mut Reader<'_>) -> Result<Self, DecodeError> {
        r.enter()?;
        let value = T::take(r);
        r.leave();
        value.map(Box::new)
    }

    fn visit(r: &mut Reader<'_>, h: &mut Hasher) -> Result<(), DecodeError> {
        r.enter()?;
        let result = T::visit(r, h);
        r.leave();
        result
    }
}

/// Each enum as its ordinal byte.
macro_rules! enum_layout {
    ($($name:ident [$($names:ident)*] { $($variants:tt)* })*) => {$(
        impl Layout for types::$name {
            #[inline]
            fn put(&self, out: &mut Vec<u8>) {
                out.push(self.ordinal());
            }

            #[inline]
            fn take(r: &mut Reader<'_>) -> Result<Self, DecodeError> {
                let b = r.byte()?;
                Self::from_ordinal(b as usize).ok_or_else(|| {
                    let (what, count) = (Self::WHAT, Self::ALL.len());
                    r.error(1, format!("{what} ordinal {b} is not below {count}"))
                })
            }

            #[inline]
            fn visit(r: &mut Reader<'_>, h: &mut Hasher) -> Result<(), DecodeError> {
                h.int(Self::take(r)?.ordinal() as i64);
                Ok(())
            }
        }
    )*};
}
each_enum!(enum_layout);

/// `visit` of one field, its type taken from the field itself so the lists below need
/// only the field names.
#[inline(always)]
fn visit_field<S, F: Layout>(
    r: &mut Reader<'_>,
    h: &mut Hasher,
    _field: fn(&S) -> &F,
) -> Result<(), DecodeError> {
    F::visit(r, h)
}

/// Each struct's fields in canonical order (the generated `each_struct!` lists them). `put`
/// destructures the struct, so a field left out does not compile.
macro_rules! layout {
    ($($name:ident [$($names:ident)*] {
        $($field:ident [$($field_names:ident)*]),* $(,)?
    })*) => {$(
        impl Layout for types::$name {
            #[inline]
            fn put(&self, out: &mut Vec<u8>) {
                let types::$name { $($field),* } = self;
                $( Layout::put($field, out); )*
            }

            #[inline]
            fn take(r: &mut Reader<'_>) -> Result<Self, DecodeError> {
                let mut cursor = *r;
                // struct expressions evaluate their fields in the order written
                let value = types::$name { $( $field: Layout::take(&mut cursor)?, )* };
                *r = cursor;
                Ok(value)
            }

            #[inline]
            fn visit(r: &mut Reader<'_>, h: &mut Hasher) -> Result<(), DecodeError> {
                // local copies stay in registers; the callers' copies are updated once
                let (mut cursor, mut hasher) = (*r, *h);
                $( visit_field(&mut cursor, &mut hasher, |s: &types::$name| &s.$field)?; )*
                (*r, *h) = (cursor, hasher);
                Ok(())
            }
        }
    )*};
}
each_struct!(layout);

#[cfg(test)]
mod tests {
    use super::*;
    use serbench_model::{object_hash, Arrays, Org, OrgType, Place, Trade};

    fn reference_trade() -> Trade {
        Trade {
            source_id: 1,
            special: true,
            order_code: 7,
            priority: 3,
            prices: (1..=10).map(|i| i as f64 / 10.0).collect(),
            quantities: (1..=10).collect(),
        }
    }

    fn encoded<M: ModelType + Layout>(value: &M) -> Vec<u8> {
        let mut out = Vec::new();
        Codec::<M>::encode(&mut Handcoded, value, &mut out);
        out
    }

    fn decode_error<M: ModelType + Layout>(bytes: &[u8]) -> String {
        let err = Codec::<M>::decode(&mut Handcoded, bytes).unwrap_err();
        let mut h = Hasher::new();
        let access = Codec::<M>::fold(&mut Handcoded, bytes, Depth::Access, &mut h).unwrap_err();
        assert_eq!(err, access, "decode and access agree on what is wrong");
        err.to_string()
    }

    /// A tree that nests through lists alone, as a user's model may (`children [Tree]`).
    struct Tree(Vec<Tree>);

    impl Layout for Tree {
        fn put(&self, out: &mut Vec<u8>) {
            self.0.put(out);
        }

        fn take(r: &mut Reader<'_>) -> Result<Self, DecodeError> {
            Vec::take(r).map(Tree)
        }

        fn visit(r: &mut Reader<'_>, h: &mut Hasher) -> Result<(), DecodeError> {
            Vec::<Tree>::visit(r, h)
        }
    }

    #[test]
    fn nesting_through_lists_alone_is_bounded_too() {
        let deep = |levels: usize| (0..levels).fold(Tree(vec![]), |inner, _| Tree(vec![inner]));
        let mut bytes = Vec::new();
        deep(MAX_NESTING as usize - 1).put(&mut bytes);
        assert!(
            Tree::take(&mut Reader::new(&bytes)).is_ok(),
            "as deep as the JSON may be"
        );
        // a list count of 1, again and again: a hostile input as deep as it is long
        let hostile: Vec<u8> = std::iter::repeat(1u32.to_le_bytes())
            .take(100_000)
            .flatten()
            .collect();
        for result in [
            Tree::take(&mut Reader::new(&hostile)).map(drop),
            Tree::visit(&mut Reader::new(&hostile), &mut Hasher::new()),
        ] {
            let err = result.unwrap_err().to_string();
            assert!(
                err.contains(&format!("nested deeper than {MAX_NESTING} levels")),
                "{err}"
            );
        }
    }

    #[test]
    fn the_reference_trade_is_185_bytes_of_the_shared_layout() {
        let bytes = encoded(&reference_trade());
        assert_eq!(bytes.len(), 185);
        assert_eq!(&bytes[..8], &1i64.to_le_bytes());
        assert_eq!(bytes[8], 1);
        assert_eq!(&bytes[9..13], &7i32.to_le_bytes());
        assert_eq!(&bytes[17..21], &10u32.to_le_bytes());
        assert_eq!(&bytes[21..29], &0.1f64.to_le_bytes());
        assert_eq!(&bytes[101..105], &10u32.to_le_bytes());
        assert_eq!(&bytes[177..], &10i64.to_le_bytes());
    }

    #[test]
    fn both_depths_hash_like_the_native_value() {
        let trade = reference_trade();
        let bytes = encoded(&trade);
        for depth in [Depth::Materialize, Depth::Access] {
            let mut h = Hasher::new();
            Codec::<Trade>::fold(&mut Handcoded, &bytes, depth, &mut h).unwrap();
            assert_eq!(h.finish(), object_hash(&trade), "{depth:?}");
        }
    }

    #[test]
    fn truncation_anywhere_is_an_error() {
        let bytes = encoded(&reference_trade());
        for len in 0..bytes.len() {
            assert!(Codec::<Trade>::decode(&mut Handcoded, &bytes[..len]).is_err());
        }
        assert_eq!(
            decode_error::<Trade>(&bytes[..5]),
            "byte 0: truncated: 8 bytes needed, 5 left"
        );
    }

    #[test]
    fn trailing_bytes_are_an_error() {
        let mut bytes = encoded(&reference_trade());
        bytes.push(0);
        assert_eq!(
            decode_error::<Trade>(&bytes),
            "byte 185: 1 trailing bytes after the object"
        );
    }

    #[test]
    fn a_bool_byte_other_than_0_or_1_is_an_error() {
        let mut bytes = encoded(&reference_trade());
        bytes[8] = 2;
        assert_eq!(
            decode_error::<Trade>(&bytes),
            "byte 8: bool byte 2 is not 0 or 1"
        );
    }

    #[test]
    fn a_bad_presence_byte_is_an_error() {
        let place = Place {
            id: "p".into(),
            url: String::new(),
            place_type: String::new(),
            name: String::new(),
            full_name: String::new(),
            country_code: String::new(),
            country: String::new(),
            bounding_box: None,
        };
        let mut bytes = Vec::new();
        place.put(&mut bytes);
        *bytes.last_mut().unwrap() = 9;
        let err = Place::take(&mut Reader::new(&bytes)).unwrap_err();
        assert_eq!(
            err.to_string(),
            format!("byte {}: presence byte 9 is not 0 or 1", bytes.len() - 1)
        );
    }

    #[test]
    fn invalid_utf8_and_oversized_lengths_are_errors() {
        let org = Org {
            name: "ab".into(),
            category: String::new(),
            country: String::new(),
            r#type: OrgType::Bar,
            attributes: vec![],
        };
        let mut bytes = encoded(&org);
        bytes[5] = 0xff;
        assert_eq!(
            decode_error::<Org>(&bytes),
            "byte 5: invalid UTF-8 in a string"
        );
        let mut bytes = encoded(&org);
        bytes[0..4].copy_from_slice(&u32::MAX.to_le_bytes());
        assert_eq!(
            decode_error::<Org>(&bytes),
            format!(
                "byte 0: string length 4294967295 exceeds the {} bytes left",
                bytes.len() - 4
            )
        );
    }

    #[test]
    fn strings_fold_like_the_model_at_every_length_and_alphabet() {
        for text in [
            "",
            "a",
            "abcdefg",
            "abcdefgh",
            "abcdefghi",
            "é",
            "0123456789abcdé",
            "✓✓✓",
        ] {
            let value = Arrays {
                strings: vec![text.into(), text.repeat(3)],
                ints: vec![],
            };
            let bytes = encoded(&value);
            let mut h = Hasher::new();
            Codec::<Arrays>::fold(&mut Handcoded, &bytes, Depth::Access, &mut h).unwrap();
            assert_eq!(h.finish(), object_hash(&value), "{text:?}");
        }
    }

    #[test]
    fn a_bad_enum_ordinal_is_an_error() {
        let org = Org {
            name: String::new(),
            category: String::new(),
            country: String::new(),
            r#type: OrgType::Baz,
            attributes: vec![],
        };
        let mut bytes = encoded(&org);
        bytes[12] = 3;
        assert_eq!(
            decode_error::<Org>(&bytes),
            "byte 12: org type ordinal 3 is not below 3"
        );
    }

    #[test]
    fn a_huge_list_count_is_an_error_not_an_allocation() {
        let mut bytes = encoded(&Arrays {
            strings: vec![],
            ints: vec![],
        });
        bytes[0..4].copy_from_slice(&u32::MAX.to_le_bytes());
        assert_eq!(
            decode_error::<Arrays>(&bytes),
            "byte 0: list count 4294967295 exceeds the 4 bytes left"
        );
    }
}
