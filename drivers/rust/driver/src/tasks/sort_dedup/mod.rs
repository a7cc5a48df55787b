//! `sort_dedup` (PROTOCOL.md 5.2): external merge sort with real duplicate removal under a
//! memory budget. Phase 1 decodes the input into a chunk until the objects held reach the
//! budget (counted by the allocator's counting wrapper), sorts it by the model's total order,
//! drops equal neighbours and writes it as a sorted run (a paged file of the same method).
//! Phase 2 merges the runs with a binary heap, one page buffer and one decoded head object per
//! run, dropping every object equal to the last one written; more runs than the budget's
//! fan-in are merged in several passes. With `raw`, the sort floor ([`floor`], PROTOCOL.md
//! 5.2.1): the same two phases at the same budget moving bytes only; both sorts share the
//! phases' frame here ([`Sorter`], [`measure`]).
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

mod floor;

use std::cmp::Ordering;
use std::collections::{BinaryHeap, VecDeque};
use std::marker::PhantomData;
use std::path::{Path, PathBuf};
use std::time::Instant;

use serbench_model::{hex64, object_hash, Hasher, ModelType, TotalOrder};
use serde_json::{json, Map, Value};

use super::memory::start_rss;
use super::write::DEFAULT_PAGE_SIZE;
use super::{check_own_run, expect, located, Repetitions, Task, TaskRequest, WRITER};
use crate::memory::{rss, Window};
use crate::methods::Codec;
use crate::paged::{data_path, index_path, Expect, PageBuffer, PageReader, PageWriter, RunStamp};
use crate::protocol::{Depth, Failure, Kind, Params};
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

impl<'a> Sort<'a> {
    fn from_params(params: &'a Params) -> Result<Self, Failure> {
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
        Ok(sort)
    }

    /// How many runs one merge reads at once: one page each within the budget, at least 2.
    fn fan_in(&self) -> usize {
        ((self.budget / self.page_size as u64).saturating_sub(1)).max(2) as usize
    }

    fn run_path(&self, k: usize) -> PathBuf {
        self.output.join(format!("run-{k}"))
    }
}

/// What phase 1 wrote: the runs in order, with the input's object count and the runs' bytes.
#[derive(Default)]
struct Runs {
    paths: VecDeque<PathBuf>,
    input_objects: u64,
    bytes: u64,
}

impl Runs {
    /// Writes the next run (`<output>/run-<k>`): `fill` pushes its objects; its index names
    /// `model` and `method`.
    fn write(
        &mut self,
        sort: Sort<'_>,
        (model, method): (&str, &str),
        timer: &IoTimer,
        fill: impl FnOnce(&mut PageWriter<'_>) -> Result<(), Failure>,
    ) -> Result<(), Failure> {
        let path = sort.run_path(self.paths.len());
        let mut writer = PageWriter::create(&path, sort.page_size, timer)?;
        fill(&mut writer)?;
        self.bytes += writer.finish(model, method, WRITER, sort.run_stamp)?.bytes;
        self.paths.push_back(path);
        Ok(())
    }
}

/// What one merge wrote: its objects, the sum of the checksum it folded over them, its bytes.
struct Merged {
    objects: u64,
    sum: u64,
    bytes: u64,
}

/// One sort's two phases: the method's (decode, order, drop duplicates) or the floor's
/// (bytes only).
trait Sorter {
    /// Phase 1: the input read in order and written as runs.
    fn make_runs(&mut self, sort: Sort<'_>, timer: &IoTimer) -> Result<Runs, Failure>;

    /// One merge of phase 2: `runs` into the paged file `out`.
    fn merge(
        &mut self,
        sort: Sort<'_>,
        runs: &[PathBuf],
        out: &Path,
        timer: &IoTimer,
    ) -> Result<Merged, Failure>;
}

/// What one repetition produced.
#[derive(Clone, Debug)]
struct Sorted {
    output_objects: u64,
    /// The output's checksum: the sequence checksum of the method's sort, the set checksum of
    /// the floor.
    sum: u64,
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
        let output = |s: &Sorted| (s.input_objects, s.output_objects, s.sum, s.output_bytes);
        output(self) == output(other)
    }
}

impl Task for SortDedup {
    const ID: &'static str = "sort_dedup";

    fn run<M: ModelType, C: Codec<M>>(
        codec: &mut C,
        request: &TaskRequest<'_>,
    ) -> Result<Value, Failure> {
        if !C::WRITES {
            return floor::run::<M, C>(codec, request);
        }
        if request.depth != Depth::Materialize {
            return Err(Failure::unsupported(
                "sort_dedup decodes, sorts and writes: depth materialize of a writing method",
            ));
        }
        let mut sorter = Decoding {
            codec,
            model: PhantomData::<fn() -> M>,
        };
        measure(&mut sorter, request.params)
    }
}

/// The task: `sorter`'s repetitions with the peak RSS around them; the result of PROTOCOL.md
/// 5.2.
fn measure(sorter: &mut impl Sorter, params: &Params) -> Result<Value, Failure> {
    let reps = Repetitions::from_params(params)?;
    let sort = Sort::from_params(params)?;
    let start = start_rss()?;
    let (samples, sorted) =
        reps.run_with(Some(sort.input), |timer| sort_once(sorter, sort, timer))?;
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
        "checksum": {"count": sorted.output_objects, "sum": hex64(sorted.sum)},
        "eviction": reps.eviction(),
    }))
}

/// One repetition: both phases, each timed (the sample's `phase1_ns` and `phase2_ns`).
fn sort_once(
    sorter: &mut impl Sorter,
    sort: Sort<'_>,
    timer: &IoTimer,
) -> Result<(Sorted, Map<String, Value>), Failure> {
    let began = Instant::now();
    let runs = sorter.make_runs(sort, timer)?;
    let phase1_ns = began.elapsed().as_nanos() as u64;
    let merging = Instant::now();
    let (input_objects, made, run_bytes) = (runs.input_objects, runs.paths.len(), runs.bytes);
    let mut sorted = merge_runs(sorter, sort, runs.paths, timer)?;
    let phase2_ns = merging.elapsed().as_nanos() as u64;
    sorted.input_objects = input_objects;
    sorted.runs = made as u64;
    sorted.run_bytes += run_bytes;
    let mut extra = Map::new();
    extra.insert("phase1_ns".into(), json!(phase1_ns));
    extra.insert("phase2_ns".into(), json!(phase2_ns));
    Ok((sorted, extra))
}

/// Phase 2: merges `fan_in` runs at a time into new runs until the last merge writes
/// `sorted`; the merged runs are deleted.
fn merge_runs(
    sorter: &mut impl Sorter,
    sort: Sort<'_>,
    mut runs: VecDeque<PathBuf>,
    timer: &IoTimer,
) -> Result<Sorted, Failure> {
    let (mut passes, mut run_bytes, mut next) = (0, 0, runs.len());
    while runs.len() > sort.fan_in() {
        let group: Vec<PathBuf> = runs.drain(..sort.fan_in()).collect();
        let path = sort.run_path(next);
        next += 1;
        run_bytes += sorter.merge(sort, &group, &path, timer)?.bytes;
        remove(&group)?;
        runs.push_back(path);
        passes += 1;
    }
    let group: Vec<PathBuf> = runs.into_iter().collect();
    let merged = sorter.merge(sort, &group, &sort.output.join("sorted"), timer)?;
    remove(&group)?;
    Ok(Sorted {
        output_objects: merged.objects,
        sum: merged.sum,
        input_objects: 0,
        runs: 0,
        merge_passes: passes + 1,
        run_bytes,
        output_bytes: merged.bytes,
    })
}

/// Opens every run of a merge, each reading into its own page buffer of `pages`.
fn open_runs<'t, 'b>(
    runs: &[PathBuf],
    expect: Expect<'_>,
    timer: &'t IoTimer,
    pages: &'b mut [PageBuffer],
) -> Result<Vec<PageReader<'t, 'b>>, Failure> {
    runs.iter()
        .zip(pages.iter_mut())
        .map(|(run, page)| PageReader::open(run, expect, timer, page))
        .collect()
}

fn remove(runs: &[PathBuf]) -> Result<(), Failure> {
    for run in runs {
        for path in [data_path(run), index_path(run)] {
            std::fs::remove_file(&path).map_err(|e| Failure::io(&path, &e))?;
        }
    }
    Ok(())
}

/// The method's sort: decodes, orders by the model's total order, drops duplicates.
struct Decoding<'c, M, C> {
    codec: &'c mut C,
    model: PhantomData<fn() -> M>,
}

impl<M: ModelType, C: Codec<M>> Sorter for Decoding<'_, M, C> {
    fn make_runs(&mut self, sort: Sort<'_>, timer: &IoTimer) -> Result<Runs, Failure> {
        make_runs(self.codec, sort, timer)
    }

    fn merge(
        &mut self,
        sort: Sort<'_>,
        runs: &[PathBuf],
        out: &Path,
        timer: &IoTimer,
    ) -> Result<Merged, Failure> {
        merge(self.codec, sort, runs, out, timer)
    }
}

/// Phase 1: the sorted, deduplicated runs.
fn make_runs<M: ModelType, C: Codec<M>>(
    codec: &mut C,
    sort: Sort<'_>,
    timer: &IoTimer,
) -> Result<Runs, Failure> {
    let mut page = PageBuffer::default();
    let mut reader = PageReader::open(sort.input, expect::<M, C>(None), timer, &mut page)?;
    check_own_run(codec, sort.input, reader.header(), sort.run_stamp)?;
    let window = Window::open();
    let mut chunk: Vec<M> = Vec::new();
    let mut runs = Runs {
        input_objects: reader.count(),
        ..Runs::default()
    };
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
            write_run(codec, sort, &mut chunk, &mut runs, timer)?;
        }
    }
    if !chunk.is_empty() {
        write_run(codec, sort, &mut chunk, &mut runs, timer)?;
    }
    Ok(runs)
}

/// Sorts the chunk, drops equal neighbours, writes it as the next run and empties it.
fn write_run<M: ModelType, C: Codec<M>>(
    codec: &mut C,
    sort: Sort<'_>,
    chunk: &mut Vec<M>,
    runs: &mut Runs,
    timer: &IoTimer,
) -> Result<(), Failure> {
    chunk.sort_unstable_by(|a, b| a.total_cmp(b));
    chunk.dedup_by(|a, b| a.total_eq(b));
    runs.write(sort, (M::ID.name(), C::ID), timer, |writer| {
        chunk
            .iter()
            .try_for_each(|object| writer.push(C::ALIGN, |out| codec.encode(object, out)))
    })?;
    chunk.clear();
    Ok(())
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
    let expect = expect::<M, C>(Some(sort.page_size));
    let mut readers = open_runs(runs, expect, timer, &mut pages)?;
    for (run, reader) in runs.iter().zip(&readers) {
        check_own_run(&*codec, run, reader.header(), sort.run_stamp)?;
    }
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
        sum: sequence.finish(),
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
