//! The sort floor (PROTOCOL.md 5.2.1): `sort_dedup` with `raw`, the same input through the
//! same two phases at the same budget, moving bytes only. Phase 1 copies the objects' bytes
//! into one buffer until the bytes held would exceed the budget and writes each chunk, objects
//! in input order, as a run; phase 2 merges the runs with the sort's fan-in and passes,
//! taking one object in turn from each run that has any left. Nothing is decoded, compared or
//! dropped. The run files and `sorted` carry the input's model and method, their objects
//! aligned as that method's writer aligns them (PROTOCOL.md 4.1; 1 for a method this driver
//! does not have).
//!
//! Checksum: the set checksum of the objects each merge writes, each folded as the raw read
//! folds it (the method's sort likewise folds the objects it merges); the last merge's, of
//! `sorted`, is every input object's.
//!
//! Memory: the chunk, at most the budget (or one object larger than it) and 8 bytes an object
//! for where each ends; then the merge's page buffers. Within the sort's slack (mod.rs).

use std::marker::PhantomData;
use std::path::{Path, PathBuf};

use serbench_model::{Hasher, ModelType, SetChecksum};
use serde_json::Value;

use super::{measure, open_runs, Merged, Runs, Sort, Sorter, WRITER};
use crate::methods::Codec;
use crate::paged::index::Header;
use crate::paged::{Expect, PageBuffer, PageReader, PageWriter};
use crate::protocol::{Depth, Failure};
use crate::tasks::{expect, ObjectBytes, TaskRequest};
use crate::timing::IoTimer;

/// `sort_dedup` with a method that writes nothing (`raw`): the floor.
pub(super) fn run<M: ModelType, C: Codec<M>>(
    codec: &mut C,
    request: &TaskRequest<'_>,
) -> Result<Value, Failure> {
    if request.depth != Depth::None {
        return Err(Failure::unsupported(
            "the sort floor decodes nothing: depth \"\" only",
        ));
    }
    let mut floor = Floor {
        codec,
        label: Label::default(),
        model: PhantomData::<fn() -> M>,
    };
    measure(&mut floor, request.params)
}

/// What the floor's files carry: the input's model and method, and that method's alignment.
#[derive(Default)]
struct Label {
    model: String,
    method: String,
    align: usize,
}

impl Label {
    fn of(input: &Header) -> Label {
        let align = crate::registry::method(&input.method).map_or(1, |m| m.align);
        Label {
            model: input.model.clone(),
            method: input.method.clone(),
            align,
        }
    }

    fn names(&self) -> (&str, &str) {
        (&self.model, &self.method)
    }

    /// What a reader of the floor's own files accepts.
    fn expect(&self, page_size: u32) -> Expect<'_> {
        Expect {
            model: &self.model,
            method: Some(&self.method),
            page_size: Some(page_size),
        }
    }
}

/// The floor's sort, folding with the raw codec `C`.
struct Floor<'c, M, C> {
    codec: &'c mut C,
    /// The input's, read in phase 1.
    label: Label,
    model: PhantomData<fn() -> M>,
}

impl<M: ModelType, C: Codec<M>> Floor<'_, M, C> {
    /// Writes the chunk as the next run, objects in the order held, and empties it.
    fn write_run(
        &self,
        sort: Sort<'_>,
        chunk: &mut ObjectBytes,
        runs: &mut Runs,
        timer: &IoTimer,
    ) -> Result<(), Failure> {
        let align = self.label.align;
        runs.write(sort, self.label.names(), timer, |writer| {
            chunk
                .iter()
                .try_for_each(|object| push(writer, align, object))
        })?;
        chunk.clear();
        Ok(())
    }

    /// An object's hash as the raw read folds it.
    fn hash(&mut self, object: &[u8]) -> Result<u64, Failure> {
        let mut h = Hasher::new();
        self.codec
            .fold(object, Depth::None, &mut h)
            .map_err(|e| Failure::corrupt(e.to_string()))?;
        Ok(h.finish())
    }
}

fn push(writer: &mut PageWriter<'_>, align: usize, object: &[u8]) -> Result<(), Failure> {
    writer.push(align, |out| out.extend_from_slice(object))
}

impl<M: ModelType, C: Codec<M>> Sorter for Floor<'_, M, C> {
    /// Chunks of the input's bytes in input order, each as large as the budget allows.
    fn make_runs(&mut self, sort: Sort<'_>, timer: &IoTimer) -> Result<Runs, Failure> {
        let mut page = PageBuffer::default();
        let mut reader = PageReader::open(sort.input, expect::<M, C>(None), timer, &mut page)?;
        self.label = Label::of(reader.header());
        let room = sort.budget.min(reader.header().data_len) as usize;
        let mut chunk = ObjectBytes::with_capacity(room);
        let mut runs = Runs {
            input_objects: reader.count(),
            ..Runs::default()
        };
        for n in 0..reader.count() {
            let object = reader.object(n)?;
            if !chunk.is_empty() && (chunk.held() + object.len()) as u64 > sort.budget {
                self.write_run(sort, &mut chunk, &mut runs, timer)?;
            }
            chunk.push(object);
        }
        if !chunk.is_empty() {
            self.write_run(sort, &mut chunk, &mut runs, timer)?;
        }
        Ok(runs)
    }

    /// The runs' objects taken in turn, one from each run that has any left.
    fn merge(
        &mut self,
        sort: Sort<'_>,
        runs: &[PathBuf],
        out: &Path,
        timer: &IoTimer,
    ) -> Result<Merged, Failure> {
        let mut pages: Vec<PageBuffer> = runs.iter().map(|_| PageBuffer::default()).collect();
        let mut readers = open_runs(runs, self.label.expect(sort.page_size), timer, &mut pages)?;
        let mut writer = PageWriter::create(out, sort.page_size, timer)?;
        let mut checksum = SetChecksum::default();
        let mut taken = vec![0u64; readers.len()];
        let mut left: Vec<usize> = (0..readers.len()).collect();
        loop {
            left.retain(|&run| taken[run] < readers[run].count());
            if left.is_empty() {
                break;
            }
            for &run in &left {
                let object = readers[run].object(taken[run])?;
                taken[run] += 1;
                push(&mut writer, self.label.align, object)?;
                checksum.add(self.hash(object)?);
            }
        }
        let (model, method) = self.label.names();
        let counters = writer.finish(model, method, WRITER, sort.run_stamp)?;
        Ok(Merged {
            objects: counters.objects,
            sum: checksum.sum,
            bytes: counters.bytes,
        })
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use serbench_model::{hex64, Part};
    use serde_json::json;

    use super::*;
    use crate::methods::raw::Raw;
    use crate::protocol::Params;
    use crate::tasks::sort_dedup::SortDedup;
    use crate::tasks::Task;
    use crate::test_support::{Scratch, TEST_RUN};

    const PAGE: u32 = 64;
    const N: usize = 40;

    /// Object `i` of the tests' inputs: 1 to 150 bytes (some span pages), no two alike (no two
    /// of the first 150 have the same length).
    fn object(i: usize) -> Vec<u8> {
        let len = 1 + (i * 37) % 150;
        (0..len).map(|j| (i * 7 + j * 13) as u8).collect()
    }

    /// A paged file of model part and method `method` holding `objects`, packed.
    fn paged(base: &Path, method: &str, objects: &[Vec<u8>]) -> PathBuf {
        let timer = IoTimer::default();
        let mut writer = PageWriter::create(base, PAGE, &timer).unwrap();
        for object in objects {
            push(&mut writer, 1, object).unwrap();
        }
        writer.finish("part", method, "cpp", TEST_RUN).unwrap();
        base.to_path_buf()
    }

    /// The input: objects `0 .. N`.
    fn input(dir: &Scratch, method: &str) -> PathBuf {
        let objects: Vec<Vec<u8>> = (0..N).map(object).collect();
        paged(&dir.join("input"), method, &objects)
    }

    /// A paged file as a plain reader sees it (none of the floor's code).
    struct Read {
        header: Header,
        objects: Vec<Vec<u8>>,
        offsets: Vec<u32>,
    }

    fn read(base: &Path) -> Read {
        let (timer, mut page) = (IoTimer::default(), PageBuffer::default());
        let expect = Expect {
            model: "part",
            method: None,
            page_size: Some(PAGE),
        };
        let mut reader = PageReader::open(base, expect, &timer, &mut page).unwrap();
        let objects = (0..reader.count())
            .map(|n| reader.object(n).unwrap().to_vec())
            .collect();
        let offsets = (0..reader.count())
            .map(|n| reader.entry(n).offset)
            .collect();
        Read {
            header: reader.header().clone(),
            objects,
            offsets,
        }
    }

    /// The raw read's set checksum of `objects`, folded here: length, then 8-byte chunks.
    fn raw_checksum(objects: &[Vec<u8>]) -> SetChecksum {
        let hash = |object: &Vec<u8>| {
            let mut h = Hasher::new();
            h.bytes(object);
            h.finish()
        };
        objects.iter().map(hash).collect()
    }

    fn sorted_set(objects: &[Vec<u8>]) -> Vec<Vec<u8>> {
        let mut sorted = objects.to_vec();
        sorted.sort();
        sorted
    }

    /// `sort_dedup` with `raw`, as the driver answers a request: 1 warm-up, 2 repetitions.
    fn sort_floor(input: &Path, output: &Path, budget: u64) -> Value {
        std::fs::create_dir_all(output).unwrap();
        let stamp: String = TEST_RUN.iter().map(|b| format!("{b:02x}")).collect();
        let params: Params = serde_json::from_value(json!({
            "input": input, "output": output, "budget_bytes": budget, "page_size": PAGE,
            "warmups": 1, "repetitions": 2, "cold": false, "run_stamp": stamp}))
        .unwrap();
        let request = TaskRequest {
            depth: Depth::None,
            variant: "",
            params: &params,
        };
        SortDedup::run::<Part, Raw>(&mut Raw, &request).unwrap()
    }

    /// `sorted` holds exactly the input's objects, the checksum and the counters say so, and
    /// the run files are gone.
    fn check_sorted(input: &Path, output: &Path, result: &Value) {
        let (given, sorted) = (read(input), read(&output.join("sorted")));
        assert_eq!(sorted_set(&sorted.objects), sorted_set(&given.objects));
        let expected = raw_checksum(&given.objects);
        assert_eq!(raw_checksum(&sorted.objects), expected);
        let checksum = json!({"count": N, "sum": hex64(expected.sum)});
        assert_eq!(result["checksum"], checksum);
        let counters = &result["counters"];
        assert_eq!(counters["input_objects"], N);
        assert_eq!(counters["output_objects"], N);
        let pages = std::fs::metadata(crate::paged::data_path(&output.join("sorted"))).unwrap();
        assert_eq!(counters["output_bytes"], pages.len());
        assert!(counters["run_bytes"].as_u64().unwrap() > 0);
        let left: BTreeSet<String> = std::fs::read_dir(output)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        assert_eq!(
            left,
            BTreeSet::from(["sorted.index".into(), "sorted.pages".into()])
        );
    }

    fn check_phases(result: &Value) {
        let samples = result["samples"].as_array().unwrap();
        assert_eq!(samples.len(), 3);
        for sample in samples {
            let ns = |key: &str| sample[key].as_u64().unwrap();
            assert!(ns("phase1_ns") > 0 && ns("phase2_ns") > 0, "{sample}");
            assert!(
                ns("phase1_ns") + ns("phase2_ns") <= ns("total_ns"),
                "{sample}"
            );
        }
    }

    #[test]
    fn the_sort_floor_writes_every_input_object_to_sorted() {
        let dir = Scratch::new();
        let (input, output) = (input(&dir, "handcoded"), dir.join("out"));
        // about 3,000 bytes in chunks of at most 1,024, merged at once (fan-in 15)
        let result = sort_floor(&input, &output, 1024);
        check_sorted(&input, &output, &result);
        check_phases(&result);
        let counters = &result["counters"];
        assert!(counters["runs"].as_u64().unwrap() > 1, "{counters}");
        assert_eq!(counters["merge_passes"], 1);
        assert_eq!(counters["budget_bytes"], 1024);
        let sorted = read(&output.join("sorted")).header;
        assert_eq!(
            (sorted.model.as_str(), sorted.method.as_str()),
            ("part", "handcoded")
        );
        assert_eq!(
            (sorted.writer.as_str(), sorted.run_stamp),
            ("rust", TEST_RUN)
        );
    }

    #[test]
    fn a_budget_of_one_page_merges_two_runs_at_a_time_in_several_passes() {
        let dir = Scratch::new();
        let (input, output) = (input(&dir, "bincode"), dir.join("out"));
        let result = sort_floor(&input, &output, PAGE as u64);
        check_sorted(&input, &output, &result);
        check_phases(&result);
        let counters = &result["counters"];
        assert!(counters["runs"].as_u64().unwrap() > 2, "{counters}");
        assert!(counters["merge_passes"].as_u64().unwrap() > 1, "{counters}");
        assert_eq!(read(&output.join("sorted")).header.method, "bincode");
    }

    fn floor(raw: &mut Raw) -> Floor<'_, Part, Raw> {
        Floor {
            codec: raw,
            label: Label::default(),
            model: PhantomData,
        }
    }

    #[test]
    fn the_runs_are_the_input_in_order_in_chunks_as_full_as_the_budget_allows() {
        let dir = Scratch::new();
        let input = input(&dir, "handcoded");
        let budget = 300;
        let sort = Sort {
            input: &input,
            output: &dir.0,
            budget,
            page_size: PAGE,
            run_stamp: TEST_RUN,
        };
        let runs = floor(&mut Raw)
            .make_runs(sort, &IoTimer::default())
            .unwrap();
        assert_eq!(runs.input_objects, N as u64);
        assert!(runs.paths.len() > 1);
        let mut bytes = 0;
        let mut chunks = Vec::new();
        for (k, path) in runs.paths.iter().enumerate() {
            assert_eq!(*path, dir.join(&format!("run-{k}")));
            let run = read(path);
            let names = (run.header.model.as_str(), run.header.method.as_str());
            assert_eq!(names, ("part", "handcoded"));
            bytes += std::fs::metadata(crate::paged::data_path(path))
                .unwrap()
                .len();
            chunks.push(run.objects);
        }
        assert_eq!(runs.bytes, bytes);
        assert_eq!(chunks.concat(), read(&input).objects);
        let held = |chunk: &[Vec<u8>]| chunk.iter().map(Vec::len).sum::<usize>() as u64;
        for (k, chunk) in chunks.iter().enumerate() {
            assert!(
                held(chunk) <= budget || chunk.len() == 1,
                "run {k} too large"
            );
            if let Some(next) = chunks.get(k + 1) {
                assert!(
                    held(chunk) + next[0].len() as u64 > budget,
                    "run {k} not full"
                );
            }
        }
    }

    #[test]
    fn the_merge_takes_one_object_in_turn_from_each_run_that_has_any_left() {
        let dir = Scratch::new();
        let o: Vec<Vec<u8>> = (0..6).map(object).collect();
        let runs = [
            paged(&dir.join("a"), "handcoded", &o[0..3]),
            paged(&dir.join("b"), "handcoded", &o[3..4]),
            paged(&dir.join("c"), "handcoded", &o[4..6]),
        ];
        let sort = Sort {
            input: &runs[0],
            output: &dir.0,
            budget: 1024,
            page_size: PAGE,
            run_stamp: TEST_RUN,
        };
        let mut raw = Raw;
        let mut floor = floor(&mut raw);
        floor.label = Label {
            model: "part".into(),
            method: "handcoded".into(),
            align: 1,
        };
        let out = dir.join("merged");
        let merged = floor.merge(sort, &runs, &out, &IoTimer::default()).unwrap();
        let order = [&o[0], &o[3], &o[4], &o[1], &o[5], &o[2]];
        assert_eq!(read(&out).objects, order.map(Vec::clone));
        assert_eq!(merged.objects, 6);
        assert_eq!(merged.sum, raw_checksum(&o).sum);
    }

    #[test]
    fn the_files_keep_the_alignment_of_the_inputs_method() {
        for (method, aligned) in [("rkyv", true), ("handcoded", false)] {
            let dir = Scratch::new();
            let (input, output) = (input(&dir, method), dir.join("out"));
            sort_floor(&input, &output, 1024);
            let sorted = read(&output.join("sorted"));
            assert_eq!(sorted.header.method, method);
            let all_aligned = sorted.offsets.iter().all(|offset| offset % 8 == 0);
            assert_eq!(all_aligned, aligned, "{method}: {:?}", sorted.offsets);
        }
    }
}
