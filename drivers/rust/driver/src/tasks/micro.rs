//! `micro` (PROTOCOL.md 5.4): per-object encode and decode in memory, hot. Each pass encodes
//! the n objects (a fresh `Vec` per object, or one reused `Vec` they are appended to), then
//! decodes and visits each at the cell's depth, folding its hash.

use std::time::Instant;

use serbench_model::{Hasher, ModelType, SetChecksum};
use serde_json::{json, Map, Value};

use super::{checksum_json, load_objects, Repetitions, Task, TaskRequest};
use crate::methods::Codec;
use crate::protocol::{Depth, Failure, Kind};

pub struct Micro;

/// Where a pass's encodings live.
enum Buffers {
    /// One `Vec` per object, replaced by a new one every pass.
    Fresh(Vec<Vec<u8>>),
    /// One `Vec` cleared every pass (its capacity stays) and each object's end in it.
    Reused { bytes: Vec<u8>, ends: Vec<usize> },
}

impl Buffers {
    fn new(kind: &str, n: usize) -> Buffers {
        if kind == "fresh" {
            Buffers::Fresh(vec![Vec::new(); n])
        } else {
            Buffers::Reused {
                bytes: Vec::new(),
                ends: Vec::with_capacity(n),
            }
        }
    }

    fn encode<M: ModelType, C: Codec<M>>(&mut self, codec: &mut C, objects: &[M]) {
        match self {
            Buffers::Fresh(buffers) => {
                for (buffer, object) in buffers.iter_mut().zip(objects) {
                    let mut out = Vec::new();
                    codec.encode(object, &mut out);
                    *buffer = out;
                }
            }
            Buffers::Reused { bytes, ends } => {
                bytes.clear();
                ends.clear();
                for object in objects {
                    codec.encode(object, bytes);
                    ends.push(bytes.len());
                }
            }
        }
    }

    /// Folds the hash of every encoded object at `depth` into one set checksum.
    fn decode<M: ModelType, C: Codec<M>>(
        &self,
        codec: &mut C,
        depth: Depth,
    ) -> Result<SetChecksum, Failure> {
        let mut checksum = SetChecksum::default();
        let mut fold = |i: usize, bytes: &[u8]| {
            let mut h = Hasher::new();
            codec.fold(bytes, depth, &mut h).map_err(|e| {
                Failure::new(
                    Kind::ChecksumMismatch,
                    format!("object {i}: reading back its own encoding failed: {e}"),
                )
            })?;
            checksum.add(h.finish());
            Ok::<(), Failure>(())
        };
        match self {
            Buffers::Fresh(buffers) => {
                for (i, bytes) in buffers.iter().enumerate() {
                    fold(i, bytes)?;
                }
            }
            Buffers::Reused { bytes, ends } => {
                let mut start = 0;
                for (i, &end) in ends.iter().enumerate() {
                    fold(i, &bytes[start..end])?;
                    start = end;
                }
            }
        }
        Ok(checksum)
    }

    fn encoded_bytes(&self) -> u64 {
        match self {
            Buffers::Fresh(buffers) => buffers.iter().map(|b| b.len() as u64).sum(),
            Buffers::Reused { bytes, .. } => bytes.len() as u64,
        }
    }
}

impl Task for Micro {
    const ID: &'static str = "micro";

    fn run<M: ModelType, C: Codec<M>>(
        codec: &mut C,
        request: &TaskRequest<'_>,
    ) -> Result<Value, Failure> {
        if !C::WRITES {
            return Err(Failure::unsupported(format!("{} encodes nothing", C::ID)));
        }
        let params = request.params;
        let reps = Repetitions::from_params(params)?;
        let n = params.u64("n")?;
        let iterations = params.u64("iterations")?.max(1);
        let buffer = params.choice("buffer", &["fresh", "reused"])?;
        let mut objects: Vec<M> = load_objects(params.path("input")?)?;
        if (objects.len() as u64) < n {
            return Err(Failure::new(
                Kind::OutOfRange,
                format!("{} objects asked, the input holds {}", n, objects.len()),
            ));
        }
        objects.truncate(n as usize);
        let mut buffers = Buffers::new(buffer, objects.len());
        // the file is JSON Lines loaded once, untimed: there is nothing to evict
        let (samples, checksum) = reps.run_with(None, |_| {
            let (mut encode_ns, mut decode_ns) = (0u64, 0u64);
            let mut first: Option<SetChecksum> = None;
            for pass in 0..iterations {
                let start = Instant::now();
                buffers.encode(codec, &objects);
                let encoded = Instant::now();
                let checksum = buffers.decode(codec, request.depth)?;
                decode_ns += encoded.elapsed().as_nanos() as u64;
                encode_ns += (encoded - start).as_nanos() as u64;
                match first {
                    Some(f) if f != checksum => {
                        return Err(Failure::new(
                            Kind::ChecksumMismatch,
                            format!("pass {pass} decoded something else than the first"),
                        ))
                    }
                    Some(_) => {}
                    None => first = Some(checksum),
                }
            }
            let mut extra = Map::new();
            extra.insert("encode_ns".into(), json!(encode_ns));
            extra.insert("decode_ns".into(), json!(decode_ns));
            Ok((first.expect("at least one pass"), extra))
        })?;
        Ok(json!({
            "samples": samples,
            "counters": {"objects": n, "iterations": iterations,
                         "encoded_bytes": buffers.encoded_bytes(), "buffer": buffer},
            "checksum": checksum_json(checksum),
            "eviction": "none",
        }))
    }
}
