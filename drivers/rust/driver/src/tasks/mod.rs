//! The task axis: one file per task, each written only against the method interface
//! ([`Codec`]) and generic over the model type. Here: what the tasks share (repetitions with
//! cold eviction and timing, reading a selection of objects, loading JSON Lines).

pub mod memory;
pub mod micro;
pub mod read_par;
pub mod read_rand;
pub mod read_seq;
pub mod sort_dedup;
pub mod write;

use std::path::Path;
use std::time::{Duration, Instant};

use serbench_model::{
    hex64, open_json_lines, read_json_lines, Hasher, ModelType, ReadError, SetChecksum,
};
use serde_json::{json, Map, Value};

use crate::evict::{evict, EVICTION};
use crate::methods::Codec;
use crate::paged::index::Header;
use crate::paged::{data_path, index_path, Expect, PageBuffer, PageReader, RunStamp};
use crate::protocol::{Depth, Failure, Kind, Params};
use crate::timing::{IoTimer, Sample};

/// The language id this driver writes into index headers.
pub const WRITER: &str = "rust";

/// One `run` request, as a task sees it.
pub struct TaskRequest<'a> {
    pub depth: Depth,
    /// The read variant (`""` or one of the method's), for codecs a task makes itself.
    pub variant: &'a str,
    pub params: &'a Params,
}

pub trait Task {
    const ID: &'static str;
    /// Runs the task's warm-ups and repetitions; the result object of PROTOCOL.md section 5.
    fn run<M: ModelType, C: Codec<M>>(
        codec: &mut C,
        request: &TaskRequest<'_>,
    ) -> Result<Value, Failure>;
}

/// Warm-ups, repetitions and whether each starts from a cold page cache. Warm-ups go on
/// past `warmups` until `warmup` has passed since the first began (JMH's time-based
/// warm-up), numbered on.
pub struct Repetitions {
    pub warmups: u64,
    pub warmup: Duration,
    pub repetitions: u64,
    pub cold: bool,
}

impl Repetitions {
    pub fn from_params(params: &Params) -> Result<Self, Failure> {
        Ok(Repetitions {
            warmups: params.u64("warmups")?,
            warmup: Duration::from_millis(params.u64_or("warmup_ms", 0)?),
            repetitions: params.u64("repetitions")?,
            cold: params.bool("cold")?,
        })
    }

    /// Runs `once` for every warm-up and repetition, evicting `base`'s files first when
    /// cold, and times it. Every repetition must produce the same outcome; returns the
    /// samples and that outcome.
    pub fn run<T: PartialEq>(
        &self,
        evict_base: Option<&Path>,
        mut once: impl FnMut(&IoTimer) -> Result<T, Failure>,
    ) -> Result<(Vec<Value>, T), Failure> {
        self.run_with(evict_base, |timer| Ok((once(timer)?, Map::new())))
    }

    /// [`run`](Self::run) for tasks whose samples carry their own times: `once` also returns
    /// the sample's extra keys (PROTOCOL.md section 5).
    pub fn run_with<T: PartialEq>(
        &self,
        evict_base: Option<&Path>,
        mut once: impl FnMut(&IoTimer) -> Result<(T, Map<String, Value>), Failure>,
    ) -> Result<(Vec<Value>, T), Failure> {
        let began = Instant::now();
        let warmups = (0..).map_while(|rep| {
            (rep < self.warmups || began.elapsed() < self.warmup).then_some((rep, true))
        });
        let reps = warmups.chain((0..self.repetitions).map(|rep| (rep, false)));
        let mut samples = Vec::new();
        let mut outcome: Option<T> = None;
        for (rep, warmup) in reps {
            let cached = match (self.cold, evict_base) {
                (true, Some(base)) => Some(evict(&[&data_path(base), &index_path(base)])?),
                _ => None,
            };
            let timer = IoTimer::default();
            let start = Instant::now();
            let (result, extra) = once(&timer)?;
            let total_ns = start.elapsed().as_nanos() as u64;
            let mut sample = Sample {
                rep,
                warmup,
                total_ns,
                io_ns: timer.ns(),
            }
            .to_json();
            let keys = sample.as_object_mut().expect("a sample is an object");
            keys.extend(extra);
            if let Some(cached) = cached {
                keys.insert("cached_fraction".into(), cached.into());
            }
            samples.push(sample);
            match &outcome {
                Some(first) if *first != result => {
                    return Err(Failure::new(
                        Kind::ChecksumMismatch,
                        format!(
                        "repetition {rep} (warm-up: {warmup}) read something else than the first"
                    ),
                    ))
                }
                Some(_) => {}
                None => outcome = Some(result),
            }
        }
        let outcome = outcome.ok_or_else(|| Failure::bad_request("warmups + repetitions is 0"))?;
        Ok((samples, outcome))
    }

    /// The eviction a read reports.
    pub fn eviction(&self) -> &'static str {
        if self.cold {
            EVICTION
        } else {
            "none"
        }
    }
}

/// Which objects of a file a read visits.
#[derive(Clone, Copy, Debug)]
pub enum Selection<'a> {
    All,
    Range { start: u64, n: u64 },
    Ids(&'a [u64]),
}

/// What a read saw: the set checksum of the objects, the pages it loaded and the file's
/// writer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReadOutcome {
    pub checksum: SetChecksum,
    pub pages_read: u64,
    pub writer: String,
}

/// What a reader accepts: this model, this method's files (any method's for raw), and the
/// page size when the request names one.
fn expect<'a, M: ModelType, C: Codec<M>>(page_size: Option<u32>) -> Expect<'a> {
    Expect {
        model: M::ID.name(),
        method: C::WRITES.then_some(C::ID),
        page_size,
    }
}

/// One read's request: the file, the objects, how deep to go, and the request's run stamp
/// (the only run whose files a trusting codec opens).
#[derive(Clone, Copy, Debug)]
pub struct Read<'a> {
    pub base: &'a Path,
    pub selection: Selection<'a>,
    pub depth: Depth,
    pub page_size: Option<u32>,
    pub run_stamp: RunStamp,
}

/// Refuses, unread, the file `base` (index `header`) when `codec` trusts its bytes and this
/// driver did not write it in run `run_stamp` (PROTOCOL.md 3): another language's layout, or
/// bytes damaged or replaced since, read without checks is undefined behaviour, not an error.
pub fn check_own_run<M: ModelType, C: Codec<M>>(
    codec: &C,
    base: &Path,
    header: &Header,
    run_stamp: RunStamp,
) -> Result<(), Failure> {
    if !codec.trusting() {
        return Ok(());
    }
    match header.foreign_run(WRITER, run_stamp) {
        None => Ok(()),
        Some(why) => Err(Failure::new(
            Kind::WrongFile,
            format!(
                "{}: {why}; {}'s trusting read takes only files this driver wrote in this run \
                 (its validate variant reads any)",
                index_path(base).display(),
                C::ID
            ),
        )),
    }
}

/// Opens the paged file, checks its index, and folds the checksum of the selected objects,
/// reading each page (into `page`, reused across repetitions) only when the page changes.
pub fn read_objects<M: ModelType, C: Codec<M>>(
    codec: &mut C,
    read: Read<'_>,
    page: &mut PageBuffer,
    timer: &IoTimer,
) -> Result<ReadOutcome, Failure> {
    let Read {
        base,
        selection,
        depth,
        page_size,
        run_stamp,
    } = read;
    let mut reader = PageReader::open(base, expect::<M, C>(page_size), timer, page)?;
    check_own_run(codec, base, reader.header(), run_stamp)?;
    let count = reader.count();
    let mut checksum = SetChecksum::default();
    let mut visit = |n: u64| -> Result<(), Failure> {
        let bytes = reader.object(n)?;
        let mut h = Hasher::new();
        match codec.fold(bytes, depth, &mut h) {
            Ok(()) => {
                checksum.add(h.finish());
                Ok(())
            }
            Err(e) => Err(located(&reader, n, e)),
        }
    };
    match selection {
        Selection::All => (0..count).try_for_each(&mut visit)?,
        Selection::Range { start, n } => {
            if start.checked_add(n).is_none_or(|end| end > count) {
                return Err(out_of_range(
                    base,
                    format!("objects {start}..{start}+{n}"),
                    count,
                ));
            }
            (start..start + n).try_for_each(&mut visit)?
        }
        Selection::Ids(ids) => {
            if let Some(&bad) = ids.iter().find(|&&id| id >= count) {
                return Err(out_of_range(base, format!("object {bad}"), count));
            }
            ids.iter().try_for_each(|&id| visit(id))?
        }
    }
    Ok(ReadOutcome {
        checksum,
        pages_read: reader.pages_read,
        writer: reader.header().writer.clone(),
    })
}

fn out_of_range(base: &Path, what: String, count: u64) -> Failure {
    Failure::new(
        Kind::OutOfRange,
        format!("{what} asked, {} holds {count} objects", base.display()),
    )
}

/// A decode error, placed: file, page, object and offset.
fn located(reader: &PageReader<'_, '_>, n: u64, e: crate::methods::DecodeError) -> Failure {
    let entry = reader.entry(n);
    Failure::corrupt(format!(
        "{}: page {}, object {n} at offset {}: {e}",
        reader.data_path().display(),
        entry.page,
        entry.offset
    ))
}

/// Objects' bytes back to back in one buffer, with where each ends: what the floors move
/// (the write floor's stored file, the sort floor's chunk).
#[derive(Default)]
pub struct ObjectBytes {
    bytes: Vec<u8>,
    ends: Vec<usize>,
}

impl ObjectBytes {
    /// Room for `bytes` bytes of objects before the buffer grows.
    pub fn with_capacity(bytes: usize) -> Self {
        ObjectBytes {
            bytes: Vec::with_capacity(bytes),
            ends: Vec::new(),
        }
    }

    pub fn push(&mut self, object: &[u8]) {
        self.bytes.extend_from_slice(object);
        self.ends.push(self.bytes.len());
    }

    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// The bytes of all objects held.
    pub fn held(&self) -> usize {
        self.bytes.len()
    }

    /// Forgets every object, keeping the buffer.
    pub fn clear(&mut self) {
        self.bytes.clear();
        self.ends.clear();
    }

    /// Each object's bytes, in the order pushed.
    pub fn iter(&self) -> impl Iterator<Item = &[u8]> {
        let starts = std::iter::once(0).chain(self.ends.iter().copied());
        starts.zip(&self.ends).map(|(a, &b)| &self.bytes[a..b])
    }
}

/// `{"count", "sum"}` as the protocol carries checksums.
pub fn checksum_json(c: SetChecksum) -> Value {
    json!({"count": c.count, "sum": hex64(c.sum)})
}

/// A JSON Lines file of model `M` (untimed work): missing is `not_found`, a bad line
/// `corrupt_input` naming the line and field.
pub fn load_objects<M: ModelType>(path: &Path) -> Result<Vec<M>, Failure> {
    read_json_lines(path).map_err(read_failure)
}

/// Each object of a JSON Lines file in turn, as [`load_objects`] reads them but holding one
/// at a time: what verifies and encodes a dataset larger than memory.
pub fn each_object<M: ModelType>(
    path: &Path,
    mut f: impl FnMut(M) -> Result<(), Failure>,
) -> Result<(), Failure> {
    for object in open_json_lines(path).map_err(read_failure)? {
        f(object.map_err(read_failure)?)?;
    }
    Ok(())
}

fn read_failure(e: ReadError) -> Failure {
    match e {
        ReadError::Io { ref error, .. } => Failure::new(
            if error.kind() == std::io::ErrorKind::NotFound {
                Kind::NotFound
            } else {
                Kind::Internal
            },
            e.to_string(),
        ),
        ReadError::Data(line) => Failure::corrupt(line.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn counts(samples: &[Value]) -> (Vec<u64>, Vec<u64>) {
        let reps = |warm: bool| {
            samples
                .iter()
                .filter(|s| s["warmup"] == warm)
                .map(|s| s["rep"].as_u64().unwrap())
                .collect()
        };
        (reps(true), reps(false))
    }

    #[test]
    fn warm_ups_go_on_for_warmup_ms_then_the_repetitions_run() {
        let reps = Repetitions {
            warmups: 1,
            warmup: Duration::from_millis(40),
            repetitions: 2,
            cold: false,
        };
        let (samples, _) = reps
            .run(None, |_| {
                std::thread::sleep(Duration::from_millis(5));
                Ok(7)
            })
            .unwrap();
        let (warm, measured) = counts(&samples);
        // more than the one asked, to fill the 40 ms; no more than 5 ms sleeps fit in them
        assert!(warm.len() > 1 && warm.len() <= 9, "{} warm-ups", warm.len());
        assert_eq!(warm, (0..warm.len() as u64).collect::<Vec<_>>());
        assert_eq!(measured, vec![0, 1]);
    }

    #[test]
    fn without_warmup_ms_the_warm_ups_are_counted() {
        let params: Params =
            serde_json::from_str(r#"{"warmups": 3, "repetitions": 1, "cold": false}"#).unwrap();
        let reps = Repetitions::from_params(&params).unwrap();
        let (samples, _) = reps.run(None, |_| Ok(())).unwrap();
        assert_eq!(counts(&samples), (vec![0, 1, 2], vec![0]));
    }
}
