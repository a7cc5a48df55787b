//! `sort_dedup` (PROTOCOL.md 5.2): external merge sort with real duplicate removal under a
//! memory budget. Phase 1 decodes the input into a chunk until the objects held reach the
//! budget (counted by the allocator's counting wrapper), sorts it by the model's total order,
//! drops equal neighbours and writes it as a sorted run (a paged file of the same method).
//! Phase 2 merges the runs with a binary heap, one page buffer and one decoded head object per
//! run, dropping every object equal to the last one written; more runs than the budget's
//! fan-in are merged in several passes.
//!
//! Memory: the chunk (objects and the `Vec` holding them, at most the budget plus one object)
//! in phase 1; at most `fan_in` run pages and head objects in phase 2. Beyond the budget, the
//! slack (peak RSS over the RSS at the start), which `tests/test_sort_budget.py` checks on an
//! input whose decoded objects would exceed budget and slack by half again:
//! - fixed, 16 MiB: the input's and the runs' page buffers, a writer's 1 MiB write
//!   buffer and two pages, and above all the allocator's own: mimalloc commits its arenas in
//!   large chunks and keeps freed memory for reuse (measured: 10-13 MiB);
//! - per input object, 64 bytes: the paged format's indexes, held whole while
//!   their file is read or written (the input's, 16 bytes; the merged runs', 16 bytes; the
//!   output's, up to 32 bytes while its `Vec` doubles).

use std::cmp::Ordering;
use std::collections::{BinaryHeap, VecDeque};
use std::path::{Path, PathBuf};
use std::time::Instant;

use serbench_model::{hex64, object_hash, Hasher, ModelType, TotalOrder};
use serde_json::{json, Map, Value};

use super::memory::start_rss;
use super::write::DEFAULT_PAGE_SIZE;
use super::{check_own_run, expect, located, Repetitions, Task, TaskRequest, WRITER};
use crate::memory::{rss, Window};
use crate::methods::Codec;
use crate::paged::{data_path, index_path, PageBuffer, PageReader, PageWriter, RunStamp};
use crate::protocol::{Depth, Failure, Kind};
use crate::timing::IoTimer;

pub struct SortDedup;

/// One sort's files and limits.
#[derive(Clone, Copy)]
struct Sort<'a> {
    input: &'a Path,
    output: &'a Path,
    budget: u64,
    page_size: u32,
    /// The request's: in every run's and the output's index, and the only run whose files a
    /// trusting codec reads.
    run_stamp: RunStamp,
}

impl Sort<'_> {
    /// How many runs one merge reads at once: one page each within the budget, at least 2.
    fn fan_in(&self) -> usize {
        ((self.budget / self.page_size as u64).saturating_sub(1)).max(2) as usize
    }

    fn run_path(&self, k: usize) -> PathBuf {
        self.output.join(format!("run-{k}"))
    }
}

/// What one repetition produced.
#[derive(Clone, Debug)]
struct Sorted {
    output_objects: u64,
    sequence: u64,
    input_objects: u64,
    runs: u64,
    merge_passes: u64,
    run_bytes: u64,
    output_bytes: u64,
}

/// Every repetition must write the same output from the same input; how the input was split
/// into runs may differ (a codec's scratch buffers, allocated on its first use, count towards
/// the budget in the first repetition only), so the runs are not compared.
impl PartialEq for Sorted {
    fn eq(&self, other: &Self) -> bool {
        let output = |s: &Sorted| {
            (
                s.input_objects,
                s.output_objects,
                s.sequence,
                s.output_bytes,
            )
        };
        output(self) == output(other)
    }
}

impl Task for SortDedup {
    const ID: &'static str = "sort_dedup";

    fn run<M: ModelType, C: Codec<M>>(
        codec: &mut C,
        request: &TaskRequest<'_>,
    ) -> Result<Value, Failure> {
        if request.depth != Depth::Materialize || !C::WRITES {
            return Err(Failure::unsupported(
                "sort_dedup decodes, sorts and writes: depth materialize of a writing method",
            ));
        }
        let params = request.params;
        let reps = Repetitions::from_params(params)?;
        let sort = Sort {
            input: params.path("input")?,
            output: params.path("output")?,
            budget: params.u64("budget_bytes")?,
            page_size: params.page_size()?.unwrap_or(DEFAULT_PAGE_SIZE),
            run_stamp: params.run_stamp()?,
        };
        if sort.budget == 0 {
            return Err(Failure::bad_request(
                "params.budget_bytes must be at least 1",
            ));
        }
        if !sort.output.is_dir() {
            return Err(Failure::new(
                Kind::NotFound,
                format!(
                    "{}: the output directory does not exist",
                    sort.output.display()
                ),
            ));
        }
        let start = start_rss()?;
        let (samples, sorted) = reps.run_with(Some(sort.input), |timer| {
            let began = Instant::now();
            let (runs, input_objects, run_bytes) = make_runs(codec, sort, timer)?;
            let phase1_ns = began.elapsed().as_nanos() as u64;
            let merging = Instant::now();
            let runs_made = runs.len() as u64;
            let mut sorted = merge_runs(codec, sort, runs, timer)?;
            sorted.input_objects = input_objects;
            sorted.runs = runs_made;
            sorted.run_bytes += run_bytes;
            let mut extra = Map::new();
            extra.insert("phase1_ns".into(), json!(phase1_ns));
            let phase2_ns = merging.elapsed().as_nanos() as u64;
            extra.insert("phase2_ns".into(), json!(phase2_ns));
            Ok((sorted, extra))
        })?;
        let peak = rss()
            .map_err(|e| Failure::new(Kind::Internal, format!("resident set: {e}")))?
            .peak;
        Ok(json!({
            "samples": samples,
            "counters": {"input_objects": sorted.input_objects,
                         "output_objects": sorted.output_objects, "runs": sorted.runs,
                         "merge_passes": sorted.merge_passes, "budget_bytes": sort.budget,
                         "peak_rss_bytes": peak, "rss_start_bytes": start,
                         "run_bytes": sorted.run_bytes, "output_bytes": sorted.output_bytes},
            "checksum": {"count": sorted.output_objects, "sum": hex64(sorted.sequence)},
            "eviction": reps.eviction(),
        }))
    }
}

/// Phase 1: the sorted, deduplicated runs; also the input's object count and the runs' bytes.
fn make_runs<M: ModelType, C: Codec<M>>(
    codec: &mut C,
    sort: Sort<'_>,
    timer: &IoTimer,
) -> Result<(VecDeque<PathBuf>, u64, u64), Failure> {
    let mut page = PageBuffer::default();
    let mut reader = PageReader::open(sort.input, expect::<M, C>(None), timer, &mut page)?;
    check_own_run(codec, sort.input, reader.header(), sort.run_stamp)?;
    let window = Window::open();
    let mut chunk: Vec<M> = Vec::new();
    let (mut runs, mut run_bytes) = (VecDeque::new(), 0);
    for i in 0..reader.count() {
        let object = codec
            .decode(reader.object(i)?)
            .map_err(|e| located(&reader, i, e))?;
        chunk.push(object);
        if window.bytes() >= sort.budget as i64 {
            if !window.counted() {
                return Err(Failure::new(
                    Kind::Internal,
                    "the counting allocator is not the process allocator",
                ));
            }
            run_bytes += write_run(codec, sort, &mut chunk, &mut runs, timer)?;
        }
    }
    if !chunk.is_empty() {
        run_bytes += write_run(codec, sort, &mut chunk, &mut runs, timer)?;
    }
    Ok((runs, reader.count(), run_bytes))
}

/// Sorts the chunk, drops equal neighbours, writes it as the next run and empties it.
fn write_run<M: ModelType, C: Codec<M>>(
    codec: &mut C,
    sort: Sort<'_>,
    chunk: &mut Vec<M>,
    runs: &mut VecDeque<PathBuf>,
    timer: &IoTimer,
) -> Result<u64, Failure> {
    chunk.sort_unstable_by(|a, b| a.total_cmp(b));
    chunk.dedup_by(|a, b| a.total_eq(b));
    let path = sort.run_path(runs.len());
    let mut writer = PageWriter::create(&path, sort.page_size, timer)?;
    for object in chunk.iter() {
        writer.push(C::ALIGN, |out| codec.encode(object, out))?;
    }
    chunk.clear();
    let counters = writer.finish(M::ID.name(), C::ID, WRITER, sort.run_stamp)?;
    runs.push_back(path);
    Ok(counters.bytes)
}

/// Phase 2: merges `fan_in` runs at a time into new runs until the last merge writes
/// `sorted`; the merged runs are deleted.
fn merge_runs<M: ModelType, C: Codec<M>>(
    codec: &mut C,
    sort: Sort<'_>,
    mut runs: VecDeque<PathBuf>,
    timer: &IoTimer,
) -> Result<Sorted, Failure> {
    let (mut passes, mut run_bytes, mut next) = (0, 0, runs.len());
    while runs.len() > sort.fan_in() {
        let group: Vec<PathBuf> = runs.drain(..sort.fan_in()).collect();
        let path = sort.run_path(next);
        next += 1;
        run_bytes += merge(codec, sort, &group, &path, timer)?.bytes;
        remove(&group)?;
        runs.push_back(path);
        passes += 1;
    }
    let group: Vec<PathBuf> = runs.into_iter().collect();
    let merged = merge(codec, sort, &group, &sort.output.join("sorted"), timer)?;
    remove(&group)?;
    Ok(Sorted {
        output_objects: merged.objects,
        sequence: merged.sequence,
        input_objects: 0,
        runs: 0,
        merge_passes: passes + 1,
        run_bytes,
        output_bytes: merged.bytes,
    })
}

/// A run's current object in the merge heap: the smallest object (then the lowest run) on top.
struct Head<M> {
    object: M,
    run: usize,
}

impl<M: TotalOrder> Ord for Head<M> {
    fn cmp(&self, other: &Self) -> Ordering {
        // BinaryHeap is a max-heap: reversed
        other
            .object
            .total_cmp(&self.object)
            .then(other.run.cmp(&self.run))
    }
}

impl<M: TotalOrder> PartialOrd for Head<M> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl<M: TotalOrder> PartialEq for Head<M> {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl<M: TotalOrder> Eq for Head<M> {}

struct Merged {
    objects: u64,
    sequence: u64,
    bytes: u64,
}

/// Merges sorted runs into `out`, writing each distinct object once, and folds the sequence
/// checksum of what it wrote.
fn merge<M: ModelType, C: Codec<M>>(
    codec: &mut C,
    sort: Sort<'_>,
    runs: &[PathBuf],
    out: &Path,
    timer: &IoTimer,
) -> Result<Merged, Failure> {
    let mut pages: Vec<PageBuffer> = runs.iter().map(|_| PageBuffer::default()).collect();
    let mut readers = runs
        .iter()
        .zip(pages.iter_mut())
        .map(|(run, page)| {
            let reader = PageReader::open(run, expect::<M, C>(Some(sort.page_size)), timer, page)?;
            check_own_run(&*codec, run, reader.header(), sort.run_stamp)?;
            Ok(reader)
        })
        .collect::<Result<Vec<_>, Failure>>()?;
    let mut next = vec![0u64; runs.len()];
    let mut heap = BinaryHeap::with_capacity(runs.len());
    for run in 0..readers.len() {
        if let Some(head) = advance(codec, &mut readers[run], &mut next[run], run)? {
            heap.push(head);
        }
    }
    let mut writer = PageWriter::create(out, sort.page_size, timer)?;
    let mut sequence = Hasher::new();
    let mut last: Option<M> = None;
    while let Some(Head { object, run }) = heap.pop() {
        if let Some(head) = advance(codec, &mut readers[run], &mut next[run], run)? {
            heap.push(head);
        }
        if last.as_ref().is_some_and(|l| l.total_eq(&object)) {
            continue;
        }
        writer.push(C::ALIGN, |bytes| codec.encode(&object, bytes))?;
        sequence.word(object_hash(&object));
        last = Some(object);
    }
    let counters = writer.finish(M::ID.name(), C::ID, WRITER, sort.run_stamp)?;
    Ok(Merged {
        objects: counters.objects,
        sequence: sequence.finish(),
        bytes: counters.bytes,
    })
}

/// The next object of a run, decoded, or None at its end.
fn advance<M: ModelType, C: Codec<M>>(
    codec: &mut C,
    reader: &mut PageReader<'_, '_>,
    next: &mut u64,
    run: usize,
) -> Result<Option<Head<M>>, Failure> {
    if *next == reader.count() {
        return Ok(None);
    }
    let n = *next;
    let object = codec
        .decode(reader.object(n)?)
        .map_err(|e| located(reader, n, e))?;
    *next += 1;
    Ok(Some(Head { object, run }))
}

fn remove(runs: &[PathBuf]) -> Result<(), Failure> {
    for run in runs {
        for path in [data_path(run), index_path(run)] {
            std::fs::remove_file(&path).map_err(|e| Failure::io(&path, &e))?;
        }
    }
    Ok(())
}
