//! The logical checksum of `docs/checksum.md`: a value becomes a stream of u64 words, folded
//! FNV-1a style. [`Hasher`] is the word-level API (usable without native objects, e.g. by
//! zero-copy accessors); [`Checksum`] folds a native value in canonical field order.

/// Starting value of every object hash and of the sequence checksum.
pub const SEED: u64 = 0xcbf2_9ce4_8422_2325;
/// Multiplier of the fold step.
pub const PRIME: u64 = 0x0000_0100_0000_01b3;

/// Folds words into a running hash: `h = (h ^ w) * PRIME`, wrapping.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Hasher {
    h: u64,
}

impl Default for Hasher {
    fn default() -> Self {
        Self::new()
    }
}

impl Hasher {
    pub const fn new() -> Self {
        Hasher { h: SEED }
    }

    /// The hash of the words folded so far.
    pub const fn finish(&self) -> u64 {
        self.h
    }

    #[inline(always)]
    pub fn word(&mut self, w: u64) {
        self.h = (self.h ^ w).wrapping_mul(PRIME);
    }

    /// Any integer width and enum ordinals: sign-extended to 64 bits.
    #[inline(always)]
    pub fn int(&mut self, v: i64) {
        self.word(v as u64);
    }

    #[inline(always)]
    pub fn f64(&mut self, v: f64) {
        self.word(v.to_bits());
    }

    #[inline(always)]
    pub fn bool(&mut self, v: bool) {
        self.word(v as u64);
    }

    #[inline(always)]
    pub fn str(&mut self, s: &str) {
        self.bytes(s.as_bytes());
    }

    /// A string's UTF-8 bytes: length, then 8-byte little-endian chunks, the last zero-padded.
    #[inline]
    pub fn bytes(&mut self, b: &[u8]) {
        let n = b.len();
        self.word(n as u64);
        let mut chunks = b.chunks_exact(8);
        for chunk in &mut chunks {
            self.word(u64::from_le_bytes(chunk.try_into().unwrap()));
        }
        let rest = n % 8;
        if rest != 0 {
            // The tail is built from plain loads: copying it into a zeroed array first costs a
            // memmove call and a stalled store-to-load forward, on the hash's critical path.
            let tail = if n >= 8 {
                // the top `rest` bytes of the string's last eight
                u64::from_le_bytes(b[n - 8..].try_into().unwrap()) >> (64 - 8 * rest)
            } else {
                short_tail(b)
            };
            self.word(tail);
        }
    }

    /// An optional that is absent.
    #[inline(always)]
    pub fn absent(&mut self) {
        self.word(0);
    }

    /// An optional that is present: its value's words follow.
    #[inline(always)]
    pub fn present(&mut self) {
        self.word(1);
    }

    /// A list: its elements' words follow.
    #[inline(always)]
    pub fn list_len(&mut self, n: usize) {
        self.word(n as u64);
    }
}

/// One to seven bytes as a little-endian word, zero-padded: two loads.
#[inline(always)]
fn short_tail(b: &[u8]) -> u64 {
    // two overlapping loads of the widest power of two that fits: one branch fewer than
    // testing each bit of the length, on lengths that do not predict
    let n = b.len();
    if n >= 4 {
        let lo = u32::from_le_bytes(b[..4].try_into().unwrap()) as u64;
        let hi = u32::from_le_bytes(b[n - 4..].try_into().unwrap()) as u64;
        lo | hi << (8 * (n - 4))
    } else if n >= 2 {
        let lo = u16::from_le_bytes(b[..2].try_into().unwrap()) as u64;
        let hi = u16::from_le_bytes(b[n - 2..].try_into().unwrap()) as u64;
        lo | hi << (8 * (n - 2))
    } else {
        b[0] as u64
    }
}

/// A value that folds its words, in canonical order, into a [`Hasher`].
pub trait Checksum {
    fn fold(&self, h: &mut Hasher);
}

/// The object hash of one value.
pub fn object_hash<T: Checksum + ?Sized>(value: &T) -> u64 {
    let mut h = Hasher::new();
    value.fold(&mut h);
    h.finish()
}

macro_rules! int_checksum {
    ($($t:ty),*) => {$(
        impl Checksum for $t {
            #[inline(always)]
            fn fold(&self, h: &mut Hasher) {
                h.int(*self as i64);
            }
        }
    )*};
}
int_checksum!(i8, i16, i32, i64);

impl Checksum for f64 {
    #[inline(always)]
    fn fold(&self, h: &mut Hasher) {
        h.f64(*self);
    }
}

impl Checksum for bool {
    #[inline(always)]
    fn fold(&self, h: &mut Hasher) {
        h.bool(*self);
    }
}

impl Checksum for str {
    #[inline]
    fn fold(&self, h: &mut Hasher) {
        h.str(self);
    }
}

impl Checksum for String {
    #[inline]
    fn fold(&self, h: &mut Hasher) {
        h.str(self);
    }
}

impl<T: Checksum> Checksum for Option<T> {
    #[inline]
    fn fold(&self, h: &mut Hasher) {
        match self {
            None => h.absent(),
            Some(v) => {
                h.present();
                v.fold(h);
            }
        }
    }
}

impl<T: Checksum> Checksum for [T] {
    #[inline]
    fn fold(&self, h: &mut Hasher) {
        h.list_len(self.len());
        for item in self {
            item.fold(h);
        }
    }
}

impl<T: Checksum> Checksum for Vec<T> {
    #[inline]
    fn fold(&self, h: &mut Hasher) {
        self.as_slice().fold(h);
    }
}

impl<T: Checksum + ?Sized> Checksum for Box<T> {
    #[inline]
    fn fold(&self, h: &mut Hasher) {
        (**self).fold(h);
    }
}

/// The order-independent checksum of a collection: count and wrapping sum of object hashes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SetChecksum {
    pub count: u64,
    pub sum: u64,
}

impl SetChecksum {
    pub fn add(&mut self, object_hash: u64) {
        self.count += 1;
        self.sum = self.sum.wrapping_add(object_hash);
    }

    /// Combines the checksums of two disjoint parts (e.g. from two threads).
    pub fn merge(&mut self, other: SetChecksum) {
        self.count += other.count;
        self.sum = self.sum.wrapping_add(other.sum);
    }
}

impl FromIterator<u64> for SetChecksum {
    fn from_iter<I: IntoIterator<Item = u64>>(hashes: I) -> Self {
        let mut set = SetChecksum::default();
        hashes.into_iter().for_each(|h| set.add(h));
        set
    }
}

/// The order-sensitive checksum of an ordered output: object hashes folded from [`SEED`].
pub fn sequence_checksum<I: IntoIterator<Item = u64>>(hashes: I) -> u64 {
    let mut h = Hasher::new();
    hashes.into_iter().for_each(|x| h.word(x));
    h.finish()
}

/// u64 values travel as 16 lowercase hex digits so no JSON reader loses precision.
pub fn hex64(v: u64) -> String {
    format!("{v:016x}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fold_words(words: &[u64]) -> u64 {
        sequence_checksum(words.iter().copied())
    }

    #[test]
    fn empty_fold_is_the_seed() {
        assert_eq!(Hasher::new().finish(), SEED);
    }

    #[test]
    fn strings_are_length_then_padded_little_endian_chunks() {
        let mut h = Hasher::new();
        h.str("abcdefghij");
        let expected = fold_words(&[10, u64::from_le_bytes(*b"abcdefgh"), 0x6a69]);
        assert_eq!(h.finish(), expected);
        assert_eq!(object_hash(""), fold_words(&[0]));
        assert_eq!(
            object_hash("12345678"),
            fold_words(&[8, u64::from_le_bytes(*b"12345678")])
        );
    }

    #[test]
    fn every_tail_length_folds_like_zero_padded_chunks() {
        let text: Vec<u8> = (1..=40u8).collect();
        for n in 0..=text.len() {
            let b = &text[..n];
            let mut words = vec![n as u64];
            for chunk in b.chunks(8) {
                let mut w = [0u8; 8];
                w[..chunk.len()].copy_from_slice(chunk);
                words.push(u64::from_le_bytes(w));
            }
            let mut h = Hasher::new();
            h.bytes(b);
            assert_eq!(h.finish(), fold_words(&words), "{n} bytes");
        }
    }

    #[test]
    fn integers_sign_extend_and_floats_use_their_bits() {
        assert_eq!(object_hash(&-1i8), fold_words(&[u64::MAX]));
        assert_eq!(object_hash(&i16::MIN), fold_words(&[0xffff_ffff_ffff_8000]));
        assert_eq!(object_hash(&-0.0f64), fold_words(&[0x8000_0000_0000_0000]));
        assert_eq!(object_hash(&true), fold_words(&[1]));
    }

    #[test]
    fn optionals_and_lists() {
        assert_eq!(object_hash(&None::<i32>), fold_words(&[0]));
        assert_eq!(object_hash(&Some(5i32)), fold_words(&[1, 5]));
        assert_eq!(
            object_hash(&vec![Some(2i64), None]),
            fold_words(&[2, 1, 2, 0])
        );
        assert_eq!(object_hash(&Box::new(7i32)), object_hash(&7i32));
    }

    #[test]
    fn set_checksum_is_order_independent_and_merges() {
        let a: SetChecksum = [1u64, u64::MAX, 7].into_iter().collect();
        let mut b: SetChecksum = [7u64].into_iter().collect();
        b.merge([u64::MAX, 1].into_iter().collect());
        assert_eq!(a, b);
        assert_eq!(a, SetChecksum { count: 3, sum: 7 });
        assert_ne!(sequence_checksum([1, 2]), sequence_checksum([2, 1]));
        assert_eq!(hex64(0xab), "00000000000000ab");
    }
}
