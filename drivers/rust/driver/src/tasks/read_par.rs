//! `read_par` (PROTOCOL.md 5.1): T threads, each with its own codec, file handles and page
//! buffer, read contiguous slices of one selection (a range, or the harness's random id
//! list) exactly as `read_seq` / `read_rand` do; the set checksums add up.

use std::sync::Barrier;
use std::thread;
use std::time::Instant;

use serbench_model::ModelType;
use serde_json::{json, Map, Value};

use super::read_rand::read_ids;
use super::TaskRequest;
use super::{checksum_json, read_objects, Read, ReadOutcome, Repetitions, Selection, Task};
use crate::methods::Codec;
use crate::paged::PageBuffer;
use crate::protocol::Failure;
use crate::timing::IoTimer;

pub struct ReadPar;

impl Task for ReadPar {
    const ID: &'static str = "read_par";

    fn run<M: ModelType, C: Codec<M>>(
        _codec: &mut C,
        request: &TaskRequest<'_>,
    ) -> Result<Value, Failure> {
        let params = request.params;
        let reps = Repetitions::from_params(params)?;
        let base = params.path("input")?;
        let threads = params.u64("threads")?;
        if threads == 0 {
            return Err(Failure::bad_request("params.threads must be at least 1"));
        }
        let n = params.u64("n")?;
        let ids;
        let selection = match params.choice("mode", &["seq", "rand"])? {
            "seq" => Selection::Range {
                start: params.u64("start")?,
                n,
            },
            _ => {
                ids = read_ids(params.path("ids")?, n)?;
                Selection::Ids(&ids)
            }
        };
        let read = Read {
            base,
            selection,
            depth: request.depth,
            page_size: params.page_size()?,
            run_stamp: params.run_stamp()?,
        };
        let mut pages: Vec<PageBuffer> = (0..threads).map(|_| PageBuffer::default()).collect();
        let (samples, outcome) = reps.run_with(Some(base), |timer| {
            let (outcome, thread_ns) =
                read_parallel::<M, C>(read, request.variant, &mut pages, timer)?;
            let mut extra = Map::new();
            extra.insert("thread_ns".into(), json!(thread_ns));
            Ok((outcome, extra))
        })?;
        Ok(json!({
            "samples": samples,
            "counters": {"objects": outcome.checksum.count, "threads": threads,
                         "pages_read": outcome.pages_read},
            "checksum": checksum_json(outcome.checksum),
            "eviction": reps.eviction(),
        }))
    }
}

/// Thread `t` of `T` takes positions `floor(t*n/T) .. floor((t+1)*n/T)` of the selection.
pub fn slice(selection: Selection<'_>, t: u64, threads: u64) -> Selection<'_> {
    let n = match selection {
        Selection::All => unreachable!("read_par reads a range or an id list"),
        Selection::Range { n, .. } => n,
        Selection::Ids(ids) => ids.len() as u64,
    };
    let (from, to) = (t * n / threads, (t + 1) * n / threads);
    match selection {
        Selection::Range { start, .. } => Selection::Range {
            start: start + from,
            n: to - from,
        },
        Selection::Ids(ids) => Selection::Ids(&ids[from as usize..to as usize]),
        Selection::All => unreachable!(),
    }
}

/// One repetition: every thread opens the file and reads its slice (with its own codec of the
/// cell's variant); they start together.
/// Returns the merged outcome and each thread's own time; `timer` gets the threads' mean io.
fn read_parallel<M: ModelType, C: Codec<M>>(
    read: Read<'_>,
    variant: &str,
    pages: &mut [PageBuffer],
    timer: &IoTimer,
) -> Result<(ReadOutcome, Vec<u64>), Failure> {
    let threads = pages.len() as u64;
    let start = Barrier::new(pages.len());
    let results: Vec<Result<(ReadOutcome, u64, u64), Failure>> = thread::scope(|scope| {
        let handles: Vec<_> = pages
            .iter_mut()
            .enumerate()
            .map(|(t, page)| {
                let start = &start;
                let mine = Read {
                    selection: slice(read.selection, t as u64, threads),
                    ..read
                };
                scope.spawn(move || {
                    let mut codec = C::for_variant(variant);
                    let own = IoTimer::default();
                    start.wait();
                    let began = Instant::now();
                    let outcome = read_objects(&mut codec, mine, page, &own)?;
                    Ok((outcome, began.elapsed().as_nanos() as u64, own.ns()))
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
            })
            .collect()
    });
    let mut merged: Option<ReadOutcome> = None;
    let (mut thread_ns, mut io_ns) = (Vec::new(), 0);
    for result in results {
        let (outcome, ns, io) = result?;
        thread_ns.push(ns);
        io_ns += io;
        match &mut merged {
            None => merged = Some(outcome),
            Some(m) => {
                m.checksum.merge(outcome.checksum);
                m.pages_read += outcome.pages_read;
            }
        }
    }
    timer.add(io_ns / threads);
    Ok((merged.expect("at least one thread"), thread_ns))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slices_are_contiguous_disjoint_and_cover_the_selection() {
        let range = Selection::Range { start: 10, n: 7 };
        let parts: Vec<(u64, u64)> = (0..3)
            .map(|t| match slice(range, t, 3) {
                Selection::Range { start, n } => (start, n),
                _ => unreachable!(),
            })
            .collect();
        assert_eq!(parts, [(10, 2), (12, 2), (14, 3)]);
        let ids = [5, 5, 1, 9];
        let lens: Vec<usize> = (0..5)
            .map(|t| match slice(Selection::Ids(&ids), t, 5) {
                Selection::Ids(s) => s.len(),
                _ => unreachable!(),
            })
            .collect();
        assert_eq!(lens, [0, 1, 1, 1, 1]);
    }
}
