//! `flexbuffers`: FlexBuffers 25 through its serde integration: structs as maps keyed by
//! field name, absent optionals as nulls (its serializer is not human-readable). The
//! serializer (and its builder's buffers) is reused from object to object; its finished
//! bytes are then copied to the page buffer, as the builder owns its output.
//!
//! The reader trusts the bytes: it indexes with offsets taken from them (malformed bytes
//! make it panic: out-of-range slices, overflow in debug builds) and turns an element it
//! cannot find into a default value, so a corrupted vector length yields billions of zeros.
//! Hence the read first walks the tree checking every vector against the bytes (each
//! element takes at least one byte of its vector, and these writers share no values), and a
//! panic while reading (memory-safe) is caught and reported as the corruption it is.
//!
//! Only `materialize`: the lazy `Reader` could visit every field without native objects,
//! but only through a hand-written walk per model type, which this method does not have.

use flexbuffers::{FlexBufferType, FlexbufferSerializer, Reader};
use serbench_model::{Hasher, ModelType};
use std::panic::{catch_unwind, AssertUnwindSafe};

use super::{fold_decoded, Codec, DecodeError, Method};
use crate::protocol::Depth;

#[derive(Default)]
pub struct Flexbuffers {
    serializer: FlexbufferSerializer,
}

impl Method for Flexbuffers {
    const ID: &'static str = "flexbuffers";
    const DEPTHS: &'static [Depth] = &[Depth::Materialize];
    const FILES: &'static [&'static str] = &["drivers/rust/driver/src/methods/flexbuffers.rs"];
}

impl<M: ModelType> Codec<M> for Flexbuffers {
    #[inline]
    fn encode(&mut self, value: &M, out: &mut Vec<u8>) {
        self.serializer.reset();
        value
            .serialize(&mut self.serializer)
            .expect("model values always serialize");
        out.extend_from_slice(self.serializer.view());
    }

    #[inline]
    fn decode(&mut self, bytes: &[u8]) -> Result<M, DecodeError> {
        let error = |e: &dyn std::fmt::Display| DecodeError::new(0, format!("flexbuffers: {e}"));
        let read = || {
            let root = Reader::get_root(bytes).map_err(|e| error(&e))?;
            check_elements(&root, &mut bytes.len(), 0).map_err(|e| error(&e))?;
            M::deserialize(root).map_err(|e| error(&e))
        };
        catch_unwind(AssertUnwindSafe(read))
            .unwrap_or_else(|_| Err(error(&"malformed bytes (offsets or lengths out of range)")))
    }

    #[inline]
    fn fold(&mut self, bytes: &[u8], depth: Depth, h: &mut Hasher) -> Result<(), DecodeError> {
        match depth {
            Depth::Materialize => fold_decoded::<M, _>(self, bytes, h),
            other => Err(DecodeError::depth(Self::ID, other)),
        }
    }
}

/// Deeper than any model (the tweet nests a handful of levels).
const MAX_DEPTH: u32 = 64;

/// Checks that the vectors and maps under `value` hold at most `budget` elements in all,
/// each readable, at most [`MAX_DEPTH`] levels deep, and that every string is UTF-8 (the
/// serde reader would take a string that is not as empty).
fn check_elements(value: &Reader<&[u8]>, budget: &mut usize, depth: u32) -> Result<(), String> {
    if value.flexbuffer_type() == FlexBufferType::String {
        return value
            .get_str()
            .map(|_| ())
            .map_err(|e| format!("a string that is not UTF-8: {e}"));
    }
    if !value.flexbuffer_type().is_vector() {
        return Ok(());
    }
    if depth > MAX_DEPTH {
        return Err(format!("nested deeper than {MAX_DEPTH}"));
    }
    let elements = value.get_vector().map_err(|e| e.to_string())?;
    *budget = budget
        .checked_sub(elements.len())
        .ok_or_else(|| format!("a vector of {} elements cannot fit", elements.len()))?;
    for i in 0..elements.len() {
        let element = elements.index(i).map_err(|e| e.to_string())?;
        check_elements(&element, budget, depth + 1)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serbench_model::Trade;

    #[test]
    fn structs_are_maps_keyed_by_field_name() {
        let trade = Trade {
            source_id: 3,
            special: false,
            order_code: 1,
            priority: 2,
            prices: vec![0.5],
            quantities: vec![],
        };
        let mut codec = Flexbuffers::default();
        let mut out = vec![7];
        Codec::<Trade>::encode(&mut codec, &trade, &mut out);
        Codec::<Trade>::encode(&mut codec, &trade, &mut out);
        let half = (out.len() - 1) / 2;
        assert_eq!(
            out[1..1 + half],
            out[1 + half..],
            "the serializer starts afresh"
        );
        let root = flexbuffers::Reader::get_root(&out[1 + half..])
            .unwrap()
            .as_map();
        assert_eq!(root.idx("priority").as_i64(), 2);
        assert_eq!(root.idx("prices").as_vector().idx(0).as_f64(), 0.5);
    }
}
