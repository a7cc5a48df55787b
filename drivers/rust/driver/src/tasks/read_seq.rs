//! `read_seq`: n consecutive objects from `start`: open and check the index (timed: it is
//! part of the work), read pages only when the page changes, decode, visit every field.

use serbench_model::ModelType;
use serde_json::{json, Value};

use super::{checksum_json, read_objects, Read, Repetitions, Selection, Task, TaskRequest};
use crate::methods::Codec;
use crate::paged::PageBuffer;
use crate::protocol::Failure;

pub struct ReadSeq;

impl Task for ReadSeq {
    const ID: &'static str = "read_seq";

    fn run<M: ModelType, C: Codec<M>>(
        codec: &mut C,
        request: &TaskRequest<'_>,
    ) -> Result<Value, Failure> {
        let params = request.params;
        let reps = Repetitions::from_params(params)?;
        let base = params.path("input")?;
        let read = Read {
            base,
            selection: Selection::Range {
                start: params.u64("start")?,
                n: params.u64("n")?,
            },
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
