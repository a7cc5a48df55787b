//! `memory` (PROTOCOL.md 5.3): materialize objects `0 .. n` of the method's file and keep
//! them; the retained bytes are the live heap's growth, counted by the process allocator's
//! counting wrapper ([`crate::memory`]), with the container of the n objects included and the
//! reader (index, page buffer) already freed.

use serbench_model::{Hasher, ModelType, SetChecksum};
use serde_json::{json, Value};

use super::{
    check_own_run, checksum_json, expect, located, out_of_range, Repetitions, Task, TaskRequest,
};
use crate::memory::{reset_peak, rss, Window};
use crate::methods::Codec;
use crate::paged::{PageBuffer, PageReader, RunStamp};
use crate::protocol::{Depth, Failure, Kind};
use crate::timing::IoTimer;

pub struct Memory;

impl Task for Memory {
    const ID: &'static str = "memory";

    fn run<M: ModelType, C: Codec<M>>(
        codec: &mut C,
        request: &TaskRequest<'_>,
    ) -> Result<Value, Failure> {
        if request.depth != Depth::Materialize {
            return Err(Failure::unsupported(
                "memory keeps native objects: depth materialize only",
            ));
        }
        let params = request.params;
        let reps = Repetitions::from_params(params)?;
        let base = params.path("input")?;
        let n = params.u64("n")?;
        let page_size = params.page_size()?;
        let run_stamp = params.run_stamp()?;
        let start = start_rss()?;
        let mut retained = 0;
        let (samples, checksum) = reps.run(Some(base), |timer| {
            let window = Window::open();
            let (objects, checksum) =
                materialize::<M, C>(codec, base, n, page_size, run_stamp, timer)?;
            retained = window.bytes().max(0) as u64;
            if !window.counted() {
                return Err(Failure::new(
                    Kind::Internal,
                    "the counting allocator is not the process allocator",
                ));
            }
            drop(objects); // after the window's reading: kept until measured
            Ok(checksum)
        })?;
        let peak = rss()
            .map_err(|e| Failure::new(Kind::Internal, e.to_string()))?
            .peak;
        Ok(json!({
            "samples": samples,
            "counters": {"objects": n, "retained_bytes": retained,
                         "retained_bytes_per_object": retained as f64 / n.max(1) as f64,
                         "peak_rss_bytes": peak, "rss_start_bytes": start,
                         "accounting": "counting_allocator"},
            "checksum": checksum_json(checksum),
            "eviction": reps.eviction(),
        }))
    }
}

/// Resets the resident high-water mark; the resident set at the start, in bytes.
pub fn start_rss() -> Result<u64, Failure> {
    let io = |e: std::io::Error| Failure::new(Kind::Internal, format!("resident set: {e}"));
    reset_peak().map_err(io)?;
    Ok(rss().map_err(io)?.current)
}

/// Decodes objects `0 .. n` into one container sized up front, folding each one's hash after
/// decoding it (the visit of depth materialize); the reader is dropped before returning. A
/// trusting codec reads only a file of its own run (`run_stamp`).
fn materialize<M: ModelType, C: Codec<M>>(
    codec: &mut C,
    base: &std::path::Path,
    n: u64,
    page_size: Option<u32>,
    run_stamp: RunStamp,
    timer: &IoTimer,
) -> Result<(Vec<M>, SetChecksum), Failure> {
    let mut page = PageBuffer::default();
    let mut reader = PageReader::open(base, expect::<M, C>(page_size), timer, &mut page)?;
    check_own_run(codec, base, reader.header(), run_stamp)?;
    if n > reader.count() {
        return Err(out_of_range(
            base,
            format!("objects 0..{n}"),
            reader.count(),
        ));
    }
    let mut objects = Vec::with_capacity(n as usize);
    let mut checksum = SetChecksum::default();
    for i in 0..n {
        let object = codec
            .decode(reader.object(i)?)
            .map_err(|e| located(&reader, i, e))?;
        let mut h = Hasher::new();
        object.fold(&mut h);
        checksum.add(h.finish());
        objects.push(object);
    }
    Ok((objects, checksum))
}
