//! `postcard`: postcard 1.1 (`alloc`) through serde: varint integers (zigzag for signed),
//! positional fields, a tag byte per optional. Written straight into the page buffer through
//! a postcard flavor (its sanctioned output extension point), read with `take_from_bytes` so
//! that bytes after the object are an error.

use postcard::ser_flavors::Flavor;
use serbench_model::{Hasher, ModelType};

use super::{fold_decoded, Codec, DecodeError, Method};
use crate::protocol::Depth;

#[derive(Default)]
pub struct Postcard;

impl Method for Postcard {
    const ID: &'static str = "postcard";
    const DEPTHS: &'static [Depth] = &[Depth::Materialize];
    const FILES: &'static [&'static str] = &["drivers/rust/driver/src/methods/postcard.rs"];
    const LIBRARIES: &'static [&'static str] = &["postcard", "serde"];
}

/// A postcard output appending to a caller's buffer (postcard's own `StdVec` owns its Vec).
struct AppendTo<'a>(&'a mut Vec<u8>);

impl Flavor for AppendTo<'_> {
    type Output = ();

    #[inline]
    fn try_extend(&mut self, data: &[u8]) -> postcard::Result<()> {
        self.0.extend_from_slice(data);
        Ok(())
    }

    #[inline]
    fn try_push(&mut self, data: u8) -> postcard::Result<()> {
        self.0.push(data);
        Ok(())
    }

    #[inline]
    fn finalize(self) -> postcard::Result<()> {
        Ok(())
    }
}

impl<M: ModelType> Codec<M> for Postcard {
    #[inline]
    fn encode(&mut self, value: &M, out: &mut Vec<u8>) {
        postcard::serialize_with_flavor(value, AppendTo(out))
            .expect("model values always serialize");
    }

    #[inline]
    fn decode(&mut self, bytes: &[u8]) -> Result<M, DecodeError> {
        let (value, rest) = postcard::take_from_bytes(bytes)
            .map_err(|e| DecodeError::new(0, format!("postcard: {e}")))?;
        if !rest.is_empty() {
            let at = bytes.len() - rest.len();
            return Err(DecodeError::new(at, "bytes after the object"));
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

#[cfg(test)]
mod tests {
    use super::*;
    use serbench_model::Arrays;

    #[test]
    fn appends_varints_with_zigzag_for_signed_integers() {
        let arrays = Arrays {
            strings: vec!["ab".into()],
            ints: vec![-1, 64, -65],
        };
        let mut out = vec![9];
        Codec::<Arrays>::encode(&mut Postcard, &arrays, &mut out);
        assert_eq!(out, [9, 1, 2, b'a', b'b', 3, 1, 0x80, 1, 0x81, 1]);
        let err = Codec::<Arrays>::decode(&mut Postcard, &[out[1..].to_vec(), vec![0]].concat())
            .unwrap_err();
        assert_eq!(err.at, 10);
    }
}
