//! `json_gzip`: compact canonical JSON (serde_json, absent optionals omitted), each object
//! a complete gzip member (RFC 1952) at level 6 through flate2's zlib-rs backend. The
//! deflate and inflate states and the JSON buffer are reused from object to object
//! (`reset`), as the library allows; only the 10-byte gzip header and 8-byte trailer are
//! written here, with flate2's CRC-32.

use flate2::{Compress, Compression, Crc, Decompress, FlushCompress, FlushDecompress, Status};
use serbench_model::{Hasher, ModelType};
use serde_json::{json, Map, Value};

use super::{fold_decoded, Codec, DecodeError, Method};
use crate::protocol::Depth;

/// The gzip level (zlib's default).
pub const LEVEL: u32 = 6;
/// ID1 ID2, CM = deflate, no flags, MTIME 0, XFL 0, OS 255 (unknown): what flate2 writes.
const HEADER: [u8; 10] = [0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff];
const TRAILER: usize = 8;
/// Deflate cannot expand data by more than this factor; it bounds what a corrupted size
/// field can make the decoder reserve.
const MAX_RATIO: usize = 1032;

pub struct JsonGzip {
    json: Vec<u8>,
    deflate: Compress,
    inflate: Decompress,
}

impl Default for JsonGzip {
    fn default() -> Self {
        JsonGzip {
            json: Vec::new(),
            deflate: Compress::new(Compression::new(LEVEL), false),
            inflate: Decompress::new(false),
        }
    }
}

impl Method for JsonGzip {
    const ID: &'static str = "json_gzip";
    const DEPTHS: &'static [Depth] = &[Depth::Materialize];
    const FILES: &'static [&'static str] = &["drivers/rust/driver/src/methods/json_gzip.rs"];
    const LIBRARIES: &'static [&'static str] = &["serde_json", "flate2", "zlib-rs", "serde"];

    fn settings() -> Map<String, Value> {
        let Value::Object(settings) = json!({"gzip_level": LEVEL, "gzip_backend": "zlib-rs"})
        else {
            unreachable!()
        };
        settings
    }
}

impl<M: ModelType> Codec<M> for JsonGzip {
    fn encode(&mut self, value: &M, out: &mut Vec<u8>) {
        self.json.clear();
        serde_json::to_writer(&mut self.json, value).expect("model values always serialize");
        out.extend_from_slice(&HEADER);
        self.deflate.reset();
        loop {
            out.reserve(self.json.len() / 2 + 64);
            if self.deflate_step(out) {
                break;
            }
        }
        let mut crc = Crc::new();
        crc.update(&self.json);
        out.extend_from_slice(&crc.sum().to_le_bytes());
        out.extend_from_slice(&(self.json.len() as u32).to_le_bytes());
    }

    fn decode(&mut self, bytes: &[u8]) -> Result<M, DecodeError> {
        self.inflate_member(bytes)?;
        let text = std::str::from_utf8(&self.json)
            .map_err(|e| DecodeError::new(0, format!("the JSON is not UTF-8: {e}")))?;
        serde_json::from_str(text).map_err(|e| DecodeError::new(0, format!("JSON: {e}")))
    }

    fn fold(&mut self, bytes: &[u8], depth: Depth, h: &mut Hasher) -> Result<(), DecodeError> {
        match depth {
            Depth::Materialize => fold_decoded::<M, _>(self, bytes, h),
            other => Err(DecodeError::depth(Self::ID, other)),
        }
    }
}

impl JsonGzip {
    /// One deflate step into `out`'s spare capacity; true once the stream has ended.
    fn deflate_step(&mut self, out: &mut Vec<u8>) -> bool {
        let rest = &self.json[self.deflate.total_in() as usize..];
        let status = self
            .deflate
            .compress_vec(rest, out, FlushCompress::Finish)
            .expect("deflating into memory cannot fail");
        status == Status::StreamEnd
    }

    /// Inflates one gzip member into `self.json`, checking header, CRC and size.
    fn inflate_member(&mut self, bytes: &[u8]) -> Result<(), DecodeError> {
        let start = header_len(bytes)?;
        if bytes.len() < start + TRAILER {
            return Err(DecodeError::new(bytes.len(), "truncated gzip member"));
        }
        let trailer = &bytes[bytes.len() - TRAILER..];
        let crc = u32::from_le_bytes(trailer[..4].try_into().unwrap());
        let size = u32::from_le_bytes(trailer[4..].try_into().unwrap()) as usize;
        let body = &bytes[start..bytes.len() - TRAILER];
        if size > body.len().saturating_mul(MAX_RATIO) {
            return Err(DecodeError::new(
                bytes.len() - 4,
                format!("stated size {size} is impossible"),
            ));
        }
        self.json.clear();
        self.json.reserve(size);
        self.inflate.reset(false);
        let status = self
            .inflate
            .decompress_vec(body, &mut self.json, FlushDecompress::Finish)
            .map_err(|e| DecodeError::new(start, format!("deflate data: {e}")))?;
        let used = self.inflate.total_in() as usize;
        if status != Status::StreamEnd {
            return Err(DecodeError::new(
                start + used,
                "deflate data truncated or larger than its stated size",
            ));
        }
        if used != body.len() {
            return Err(DecodeError::new(
                start + used,
                "bytes between the deflate data and the trailer",
            ));
        }
        if self.json.len() != size {
            return Err(DecodeError::new(
                bytes.len() - 4,
                format!("size {} differs from the stated {size}", self.json.len()),
            ));
        }
        let mut actual = Crc::new();
        actual.update(&self.json);
        if actual.sum() != crc {
            return Err(DecodeError::new(bytes.len() - TRAILER, "CRC-32 mismatch"));
        }
        Ok(())
    }
}

/// The length of a gzip member's header (RFC 1952 section 2.3), any writer's.
fn header_len(b: &[u8]) -> Result<usize, DecodeError> {
    const FHCRC: u8 = 2;
    const FEXTRA: u8 = 4;
    const FNAME: u8 = 8;
    const FCOMMENT: u8 = 16;
    if b.len() < HEADER.len() || b[0] != 0x1f || b[1] != 0x8b || b[2] != 8 {
        return Err(DecodeError::new(0, "not a gzip member of deflate data"));
    }
    let flags = b[3];
    if flags & 0xe0 != 0 {
        return Err(DecodeError::new(
            3,
            format!("reserved gzip flags {flags:#x}"),
        ));
    }
    let mut at = HEADER.len();
    let truncated = |at| DecodeError::new(at, "truncated gzip header");
    if flags & FEXTRA != 0 {
        let len = b.get(at..at + 2).ok_or_else(|| truncated(at))?;
        at += 2 + u16::from_le_bytes([len[0], len[1]]) as usize;
    }
    for flag in [FNAME, FCOMMENT] {
        if flags & flag != 0 {
            let end = b
                .get(at..)
                .and_then(|rest| rest.iter().position(|&c| c == 0));
            at += end.ok_or_else(|| truncated(at))? + 1;
        }
    }
    if flags & FHCRC != 0 {
        at += 2;
    }
    if at > b.len() {
        return Err(truncated(b.len()));
    }
    Ok(at)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serbench_model::{object_hash, Trade};
    use std::io::Read;

    fn trade() -> Trade {
        Trade {
            source_id: 5,
            special: false,
            order_code: 1,
            priority: 2,
            prices: vec![0.5; 40],
            quantities: vec![7; 40],
        }
    }

    #[test]
    fn members_are_standard_gzip_and_buffers_are_reused() {
        let mut codec = JsonGzip::default();
        let mut out = Vec::new();
        for _ in 0..3 {
            out.clear();
            Codec::<Trade>::encode(&mut codec, &trade(), &mut out);
            let mut text = String::new();
            flate2::read::GzDecoder::new(&out[..])
                .read_to_string(&mut text)
                .unwrap();
            assert_eq!(text, serde_json::to_string(&trade()).unwrap());
            let mut h = Hasher::new();
            Codec::<Trade>::fold(&mut codec, &out, Depth::Materialize, &mut h).unwrap();
            assert_eq!(h.finish(), object_hash(&trade()));
        }
    }

    #[test]
    fn other_writers_headers_are_read() {
        let mut named = flate2::GzBuilder::new()
            .filename("x.json")
            .comment("c")
            .extra(vec![1, 2, 3])
            .write(Vec::new(), Compression::best());
        std::io::Write::write_all(
            &mut named,
            serde_json::to_string(&trade()).unwrap().as_bytes(),
        )
        .unwrap();
        let bytes = named.finish().unwrap();
        let decoded = Codec::<Trade>::decode(&mut JsonGzip::default(), &bytes).unwrap();
        assert_eq!(decoded, trade());
    }

    #[test]
    fn corruption_is_an_error() {
        let mut codec = JsonGzip::default();
        let mut out = Vec::new();
        Codec::<Trade>::encode(&mut codec, &trade(), &mut out);
        for cut in [0, 5, 12, out.len() - 4, out.len() - 1] {
            assert!(
                Codec::<Trade>::decode(&mut codec, &out[..cut]).is_err(),
                "cut at {cut}"
            );
        }
        let mut bad_crc = out.clone();
        let at = bad_crc.len() - 8;
        bad_crc[at] ^= 1;
        let err = Codec::<Trade>::decode(&mut codec, &bad_crc).unwrap_err();
        assert_eq!(err.message, "CRC-32 mismatch");
        let mut trailing = out.clone();
        trailing.insert(out.len() - 8, 0);
        assert!(Codec::<Trade>::decode(&mut codec, &trailing).is_err());
    }
}
