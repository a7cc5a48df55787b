//! `read_rand`: the objects named by the first n ids of the harness's id file (u64
//! little-endian, the same list for every method and language): look each up in the index,
//! read its page unless it is the current one, decode, visit every field.

use std::path::Path;

use serbench_model::ModelType;
use serde_json::{json, Value};

use super::{checksum_json, read_objects, Read, Repetitions, Selection, Task, TaskRequest};
use crate::methods::Codec;
use crate::paged::PageBuffer;
use crate::protocol::Failure;

pub struct ReadRand;

impl Task for ReadRand {
    const ID: &'static str = "read_rand";

    fn run<M: ModelType, C: Codec<M>>(
        codec: &mut C,
        request: &TaskRequest<'_>,
    ) -> Result<Value, Failure> {
        let params = request.params;
        let reps = Repetitions::from_params(params)?;
        let base = params.path("input")?;
        let ids = read_ids(params.path("ids")?, params.u64("n")?)?;
        let read = Read {
            base,
            selection: Selection::Ids(&ids),
            depth: request.depth,
            page_size: params.page_size()?,
            run_stamp: params.run_stamp()?,
        };
        let mut page = PageBuffer::default();
        let (samples, outcome) = reps.run(Some(base), |timer| {
            read_objects(codec, read, &mut page, timer)
        })?;
        Ok(json!({
            "samples": samples,
            "counters": {"objects": outcome.checksum.count, "pages_read": outcome.pages_read},
            "checksum": checksum_json(outcome.checksum),
            "eviction": reps.eviction(),
        }))
    }
}

/// The first `n` ids of the file (untimed: the list is the harness's, not the read's work).
pub fn read_ids(path: &Path, n: u64) -> Result<Vec<u64>, Failure> {
    let bytes = std::fs::read(path).map_err(|e| Failure::io(path, &e))?;
    let held = bytes.len() as u64 / 8;
    if held < n {
        return Err(Failure::bad_request(format!(
            "{}: holds {held} ids, n = {n} asked",
            path.display()
        )));
    }
    Ok(bytes
        .chunks_exact(8)
        .take(n as usize)
        .map(|b| u64::from_le_bytes(b.try_into().unwrap()))
        .collect())
}
