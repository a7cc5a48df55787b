//! `write`: objects already in memory (loading the JSON Lines is untimed) → encode each →
//! pack into pages → write data and index → fsync both. With `raw`, the write floor: the
//! same without the encoding (PROTOCOL.md 5).

use std::path::Path;

use serbench_model::{object_hash, Hasher, ModelType, SetChecksum};
use serde_json::{json, Value};

use super::{
    checksum_json, expect, load_objects, ObjectBytes, Repetitions, Task, TaskRequest, WRITER,
};
use crate::methods::Codec;
use crate::paged::{Entry, PageBuffer, PageReader, PageWriter, RunStamp, WriteCounters};
use crate::protocol::{Depth, Failure};
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
        if !C::WRITES {
            return floor::<M, C>(codec, request);
        }
        let params = request.params;
        let reps = Repetitions::from_params(params)?;
        let output = params.path("output")?;
        let page_size = params.page_size()?.unwrap_or(DEFAULT_PAGE_SIZE);
        let run_stamp = params.run_stamp()?;
        let objects: Vec<M> = load_objects(params.path("input")?)?;
        let checksum: SetChecksum = objects.iter().map(object_hash).collect();
        // nothing is cached before a write, so there is nothing to evict
        let (samples, counters) = reps.run(None, |timer| {
            write_file(codec, &objects, output, page_size, run_stamp, timer)
        })?;
        Ok(result(samples, counters, checksum))
    }
}

fn result(samples: Vec<Value>, counters: WriteCounters, checksum: SetChecksum) -> Value {
    let avg = counters.object_bytes as f64 / counters.objects.max(1) as f64;
    json!({
        "samples": samples,
        "counters": {"objects": counters.objects, "bytes": counters.bytes,
                     "pages": counters.pages, "avg_object_bytes": avg},
        "checksum": checksum_json(checksum),
        "eviction": "none",
    })
}

/// The write floor: the objects of another method's file (`input`, read before timing)
/// placed again exactly as that file has them, written and fsynced: a write without the
/// encoding. The checksum folds each object's bytes, as the raw read does.
fn floor<M: ModelType, C: Codec<M>>(
    codec: &mut C,
    request: &TaskRequest<'_>,
) -> Result<Value, Failure> {
    let params = request.params;
    let reps = Repetitions::from_params(params)?;
    let output = params.path("output")?;
    let page_size = params.page_size()?.unwrap_or(DEFAULT_PAGE_SIZE);
    let run_stamp = params.run_stamp()?;
    let stored = Stored::load::<M, C>(params.path("input")?, page_size)?;
    let mut checksum = SetChecksum::default();
    for object in stored.objects.iter() {
        let mut h = Hasher::new();
        codec
            .fold(object, Depth::None, &mut h)
            .map_err(|e| Failure::corrupt(e.to_string()))?;
        checksum.add(h.finish());
    }
    let (samples, counters) = reps.run(None, |timer| {
        stored.write(output, page_size, run_stamp, timer)
    })?;
    Ok(result(samples, counters, checksum))
}

/// A paged file's objects in memory, with their places.
struct Stored {
    model: String,
    method: String,
    entries: Vec<Entry>,
    objects: ObjectBytes,
}

impl Stored {
    fn load<M: ModelType, C: Codec<M>>(base: &Path, page_size: u32) -> Result<Self, Failure> {
        let timer = IoTimer::default();
        let mut page = PageBuffer::default();
        let mut reader =
            PageReader::open(base, expect::<M, C>(Some(page_size)), &timer, &mut page)?;
        let mut stored = Stored {
            model: reader.header().model.clone(),
            method: reader.header().method.clone(),
            entries: Vec::new(),
            objects: ObjectBytes::with_capacity(reader.header().data_len as usize),
        };
        for n in 0..reader.count() {
            stored.entries.push(reader.entry(n));
            stored.objects.push(reader.object(n)?);
        }
        Ok(stored)
    }

    fn write(
        &self,
        base: &Path,
        page_size: u32,
        run_stamp: RunStamp,
        timer: &IoTimer,
    ) -> Result<WriteCounters, Failure> {
        let mut writer = PageWriter::create(base, page_size, timer)?;
        for (&at, object) in self.entries.iter().zip(self.objects.iter()) {
            writer.place(at, object)?;
        }
        writer.finish(&self.model, &self.method, WRITER, run_stamp)
    }
}

/// Writes `objects` as the paged file `base`, stamped with the run writing it.
pub fn write_file<M: ModelType, C: Codec<M>>(
    codec: &mut C,
    objects: &[M],
    base: &Path,
    page_size: u32,
    run_stamp: RunStamp,
    timer: &IoTimer,
) -> Result<WriteCounters, Failure> {
    let mut writer = PageWriter::create(base, page_size, timer)?;
    for object in objects {
        writer.push(C::ALIGN, |out| codec.encode(object, out))?;
    }
    writer.finish(M::ID.name(), C::ID, WRITER, run_stamp)
}
