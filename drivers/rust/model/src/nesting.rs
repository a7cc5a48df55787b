//! A bound on the recursion a decoder's input controls. The fields through which a struct
//! nests itself (the tweet's quoted and retweeted statuses) deserialize through [`nested`],
//! which counts the levels on this thread, so a hostile document nested a million deep is an error, not a stack
//! overflow, in every serde-based reader (bson, msgpack, postcard, bincode, flexbuffers, ...).
//! bincode 2's `Decode` of a `recursive` model struct counts its levels with [`Level::decoding`].

use std::cell::Cell;

use serde::de::{Deserialize, Deserializer, Error};

use crate::MAX_NESTING;

thread_local! {
    static DEPTH: Cell<usize> = const { Cell::new(0) };
}

/// One level deeper for as long as it lives.
pub(crate) struct Level;

impl Level {
    /// One more status of a tweet bincode 2 decodes, the root included.
    #[inline]
    pub(crate) fn decoding() -> Result<Level, bincode2::error::DecodeError> {
        Level::enter().ok_or_else(|| bincode2::error::DecodeError::OtherString(too_deep()))
    }

    fn enter() -> Option<Level> {
        let depth = DEPTH.with(|d| d.get()) + 1;
        // a status counts one level of the JSON text's MAX_NESTING: every canonical tweet fits
        (depth <= MAX_NESTING).then(|| {
            DEPTH.with(|d| d.set(depth));
            Level
        })
    }
}

impl Drop for Level {
    fn drop(&mut self) {
        DEPTH.with(|d| d.set(d.get() - 1));
    }
}

/// Deserializes a field that nests its struct again one level deeper, refusing more than
/// [`MAX_NESTING`] levels.
pub fn nested<'de, D, T>(deserializer: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    let _level = Level::enter().ok_or_else(|| D::Error::custom(too_deep()))?;
    T::deserialize(deserializer)
}

#[cold]
fn too_deep() -> String {
    format!("nested deeper than {MAX_NESTING} levels")
}
