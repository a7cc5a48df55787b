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
    const LIBRARIES: &'static [&'static str] = &["flexbuffers", "serde"];
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
            if root.flexbuffer_type() != FlexBufferType::Map {
                return Err(error(&format!(
                    "the root is a {:?}, not a map",
                    root.flexbuffer_type()
                )));
            }
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

/// Checks that the vectors and maps under `value` hold at most `budget` elements and string
/// or blob bytes in all, each readable, at most [`MAX_DEPTH`] levels deep, and that every
/// string is UTF-8 (the serde reader would take a string that is not as empty). Each element
/// takes at least one byte of its vector and each string byte one byte of the buffer, and
/// these writers share no values (only map keys, which `check_elements` does not visit), so
/// an honest buffer fits a budget of its length: one whose offsets share a value (a tree
/// folded into a DAG) is refused before the reader does work its size does not pay for.
fn check_elements(value: &Reader<&[u8]>, budget: &mut usize, depth: u32) -> Result<(), String> {
    match value.flexbuffer_type() {
        FlexBufferType::String => {
            spend(budget, value.length(), "string bytes")?;
            return value
                .get_str()
                .map(|_| ())
                .map_err(|e| format!("a string that is not UTF-8: {e}"));
        }
        FlexBufferType::Blob => return spend(budget, value.length(), "blob bytes"),
        // a key's length is where its terminating zero is found: unbounded work per visit
        FlexBufferType::Key => return Err("a map key where a value belongs".into()),
        kind if !kind.is_vector() => return Ok(()),
        _ => {}
    }
    if depth > MAX_DEPTH {
        return Err(format!("nested deeper than {MAX_DEPTH}"));
    }
    let elements = value.get_vector().map_err(|e| e.to_string())?;
    spend(budget, elements.len(), "vector elements")?;
    for i in 0..elements.len() {
        let element = elements.index(i).map_err(|e| e.to_string())?;
        // get_bool reads the bool's claimed width without a bounds check (a panic past the
        // buffer's end): an inline value is never wider than its vector's slots
        if element.flexbuffer_type() == FlexBufferType::Bool
            && element.bitwidth() > value.bitwidth()
        {
            return Err(format!("element {i}: a bool wider than its vector's slots"));
        }
        check_elements(&element, budget, depth + 1)?;
    }
    Ok(())
}

/// Takes `n` from what is left of the budget, or says what does not fit.
fn spend(budget: &mut usize, n: usize, what: &str) -> Result<(), String> {
    *budget = budget.checked_sub(n).ok_or_else(|| {
        format!("{n} {what} cannot fit in the {budget} bytes left (values shared between offsets?)")
    })?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serbench_model::{Arrays, Trade};

    fn trade(special: bool) -> Trade {
        Trade {
            source_id: 3,
            special,
            order_code: 1,
            priority: 2,
            prices: vec![0.5],
            quantities: vec![],
        }
    }

    #[test]
    fn bools_claiming_bytes_past_the_end_are_refused_before_they_are_read() {
        // the root: a bool claiming 8 bytes (type 26, width W64) 4 bytes before the end
        let bytes = [1, 0, 0, 0, 26 << 2 | 3, 4];
        let err = Codec::<Trade>::decode(&mut Flexbuffers::default(), &bytes).unwrap_err();
        assert!(
            err.to_string().contains("the root is a Bool, not a map"),
            "{err}"
        );
        // trade's last field in key order, `special`, as an 8-byte bool in 1-byte slots: its
        // type byte is the map's last, just before the root's offset, type and width
        let trade = trade(true);
        let mut bytes = vec![];
        Codec::<Trade>::encode(&mut Flexbuffers::default(), &trade, &mut bytes);
        let root_width = *bytes.last().unwrap() as usize;
        let last_type = bytes.len() - 3 - root_width;
        assert_eq!(bytes[last_type], 26 << 2, "a one-byte bool");
        bytes[last_type] = 26 << 2 | 3;
        let err = Codec::<Trade>::decode(&mut Flexbuffers::default(), &bytes).unwrap_err();
        assert!(err.to_string().contains("element 5: a bool wider"), "{err}");
    }

    #[test]
    fn structs_are_maps_keyed_by_field_name() {
        let trade = trade(false);
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

    /// Packed type bytes (type << 2 | width code), every width 32 bits.
    const STRING: u8 = 5 << 2 | 2;
    const KEY: u8 = 4 << 2 | 2;
    const MAP: u8 = 9 << 2 | 2;
    const VECTOR: u8 = 10 << 2 | 2;
    const VECTOR_INT: u8 = 11 << 2 | 2;

    fn word(b: &mut Vec<u8>, v: usize) {
        b.extend_from_slice(&u32::try_from(v).unwrap().to_le_bytes());
    }

    fn align(b: &mut Vec<u8>) {
        b.resize(b.len().next_multiple_of(4), 0);
    }

    /// An `Arrays` written by hand whose `n` strings are all one `text`, each element of type
    /// `element` (offsets count back from where they are stored).
    fn arrays_sharing_one_string(text: &str, n: usize, element: u8) -> Vec<u8> {
        let mut b = Vec::new();
        let ints_key = b.len();
        b.extend_from_slice(b"ints\0");
        let strings_key = b.len();
        b.extend_from_slice(b"strings\0");
        align(&mut b);
        word(&mut b, text.len());
        let string = b.len();
        b.extend_from_slice(text.as_bytes());
        b.push(0);
        align(&mut b);
        word(&mut b, n);
        let strings = b.len();
        for i in 0..n {
            word(&mut b, strings + 4 * i - string);
        }
        b.resize(b.len() + n, element);
        align(&mut b);
        word(&mut b, 0);
        let ints = b.len();
        word(&mut b, 2);
        let keys = b.len();
        word(&mut b, keys - ints_key);
        word(&mut b, keys + 4 - strings_key);
        // the map: its keys (offset, width) and length, then its values and their types
        let at = b.len();
        word(&mut b, at - keys);
        word(&mut b, 4);
        word(&mut b, 2);
        let map = b.len();
        word(&mut b, map - ints);
        word(&mut b, map + 4 - strings);
        b.extend_from_slice(&[VECTOR_INT, VECTOR]);
        align(&mut b);
        let at = b.len();
        word(&mut b, at - map);
        b.extend_from_slice(&[MAP, 4]);
        b
    }

    #[test]
    fn a_string_shared_by_many_elements_is_refused_by_its_bytes() {
        let mut codec = Flexbuffers::default();
        let once = arrays_sharing_one_string("lavender", 1, STRING);
        let read: Arrays = Codec::<Arrays>::decode(&mut codec, &once).unwrap();
        assert_eq!(
            (read.strings, read.ints),
            (vec!["lavender".to_string()], vec![])
        );
        let text = "x".repeat(4096);
        let bomb = arrays_sharing_one_string(&text, 4096, STRING);
        let err = Codec::<Arrays>::decode(&mut codec, &bomb).unwrap_err();
        assert!(
            err.message.contains("4096 string bytes cannot fit in the"),
            "{err}"
        );
    }

    #[test]
    fn a_key_where_a_value_belongs_is_an_error() {
        let keyed = arrays_sharing_one_string("lavender", 1, KEY);
        let err = Codec::<Arrays>::decode(&mut Flexbuffers::default(), &keyed).unwrap_err();
        assert_eq!(err.message, "flexbuffers: a map key where a value belongs");
    }
}
