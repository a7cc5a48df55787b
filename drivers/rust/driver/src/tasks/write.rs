//! `write`: objects already in memory (loading the JSON Lines is untimed) → encode each →
//! pack into pages → write data and index → fsync both.

use std::path::Path;

use serbench_model::{object_hash, ModelType, SetChecksum};
use serde_json::{json, Value};

use super::{checksum_json, load_objects, Repetitions, Task, TaskRequest, WRITER};
use crate::methods::Codec;
use crate::paged::{PageWriter, WriteCounters};
use crate::protocol::Failure;
use crate::timing::IoTimer;

/// PROTOCOL.md 4.1: the page size when a request names none.
pub const DEFAULT_PAGE_SIZE: u32 = 262_144;

pub struct Write;

impl Task for Write {
    const ID: &'static str = "write";

    fn run<M: ModelType, C: Codec<M>>(
        codec: &mut C,
        request: &TaskRequest<'_>,
    ) -> Result<Value, Failure> {
        let params = request.params;
        let reps = Repetitions::from_params(params)?;
        let output = params.path("output")?;
        let page_size = params.page_size()?.unwrap_or(DEFAULT_PAGE_SIZE);
        let objects: Vec<M> = load_objects(params.path("input")?)?;
        let checksum: SetChecksum = objects.iter().map(object_hash).collect();
        // nothing is cached before a write, so there is nothing to evict
        let (samples, counters) = reps.run(None, |timer| {
            write_file(codec, &objects, output, page_size, timer)
        })?;
        let avg = counters.object_bytes as f64 / counters.objects.max(1) as f64;
        Ok(json!({
            "samples": samples,
            "counters": {"objects": counters.objects, "bytes": counters.bytes,
                         "pages": counters.pages, "avg_object_bytes": avg},
            "checksum": checksum_json(checksum),
            "eviction": "none",
        }))
    }
}

/// Writes `objects` as the paged file `base` (also the `encode` op, untimed).
pub fn write_file<M: ModelType, C: Codec<M>>(
    codec: &mut C,
    objects: &[M],
    base: &Path,
    page_size: u32,
    timer: &IoTimer,
) -> Result<WriteCounters, Failure> {
    let mut writer = PageWriter::create(base, page_size, timer)?;
    for object in objects {
        writer.push(C::ALIGN, |out| codec.encode(object, out))?;
    }
    writer.finish(M::ID.name(), C::ID, WRITER)
}
