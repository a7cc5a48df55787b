//! Parallel, deterministic generation: objects come in fixed-size chunks, chunk `c` draws
//! from RNG stream `c` of the seed, chunks are built and formatted on all threads and written
//! strictly in order by a writer thread. The output therefore depends only on the seed and n.

use std::fs::File;
use std::io::Write;
use std::path::Path;
use std::sync::mpsc::sync_channel;
use std::thread;

use rayon::prelude::*;
use serbench_model::{write_json_line, ModelType};

use crate::failure::Failure;
use crate::rng::Rng;
use crate::summary::Summary;

/// How a generator cuts its output: objects per chunk (fixed per generator, since it shapes
/// the output) and the chunks built per parallel round (only affects memory and speed).
#[derive(Clone, Copy, Debug)]
pub struct Chunking {
    pub objects: u64,
    pub per_round: usize,
}

impl Chunking {
    /// `objects` per chunk, with enough chunks per round to keep every thread busy.
    pub fn of(objects: u64) -> Self {
        Chunking {
            objects: objects.max(1),
            per_round: 4 * rayon::current_num_threads(),
        }
    }
}

/// Writes objects `make(rng, index)` for index in `0..n` to `out` as JSON Lines and returns
/// their summary.
pub fn generate<M, F>(
    out: &Path,
    n: u64,
    seed: u64,
    chunking: Chunking,
    make: F,
) -> Result<Summary, Failure>
where
    M: ModelType,
    F: Fn(&mut Rng, u64) -> M + Sync,
{
    let file = File::create(out).map_err(Failure::io(out))?;
    let chunks = n.div_ceil(chunking.objects);
    let build = |chunk: u64| {
        let mut rng = Rng::stream(seed, chunk);
        let mut buf = Vec::new();
        let mut summary = Summary::new(M::ID);
        let first = chunk * chunking.objects;
        for index in first..n.min(first + chunking.objects) {
            let object = make(&mut rng, index);
            let start = buf.len();
            write_json_line(&object, &mut buf);
            summary.add(&object, buf.len() - start - 1);
        }
        (buf, summary)
    };
    let (sender, receiver) = sync_channel::<Vec<u8>>(chunking.per_round);
    thread::scope(|scope| {
        let writer = scope.spawn(move || -> std::io::Result<()> {
            let mut file = file;
            receiver
                .into_iter()
                .try_for_each(|buf| file.write_all(&buf))
        });
        let mut total = Summary::new(M::ID);
        let mut start = 0;
        'rounds: while start < chunks {
            let end = chunks.min(start + chunking.per_round as u64);
            let built: Vec<_> = (start..end).into_par_iter().map(build).collect();
            for (buf, summary) in built {
                total.merge(summary);
                if sender.send(buf).is_err() {
                    break 'rounds; // the writer failed; its error is reported below
                }
            }
            start = end;
        }
        drop(sender);
        writer
            .join()
            .expect("writer thread panicked")
            .map_err(Failure::io(out))?;
        Ok(total)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{small, tweet};

    fn temp_file(name: &str) -> std::path::PathBuf {
        std::env::temp_dir().join(format!("serbench_datagen_{}_{name}", std::process::id()))
    }

    /// Generates on a pool of `threads` and returns the file's bytes and the summary.
    fn run_on<M: ModelType>(
        threads: usize,
        n: u64,
        chunking: Chunking,
        make: fn(&mut Rng, u64) -> M,
    ) -> (Vec<u8>, String) {
        let out = temp_file(&format!("{threads}_{n}_{}", chunking.per_round));
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        let summary = pool
            .install(|| generate(&out, n, 7, chunking, make))
            .unwrap();
        let bytes = std::fs::read(&out).unwrap();
        std::fs::remove_file(&out).unwrap();
        (bytes, summary.to_json())
    }

    #[test]
    fn output_depends_only_on_seed_and_n() {
        let one = run_on(
            1,
            1_234,
            Chunking {
                objects: 100,
                per_round: 1,
            },
            tweet::tweet,
        );
        let two = run_on(
            2,
            1_234,
            Chunking {
                objects: 100,
                per_round: 8,
            },
            tweet::tweet,
        );
        let three = run_on(
            3,
            1_234,
            Chunking {
                objects: 100,
                per_round: 3,
            },
            tweet::tweet,
        );
        assert!(one == two && two == three);
        assert_eq!(one.0.iter().filter(|&&b| b == b'\n').count(), 1_234);
        assert!(one.1.contains(r#""count":1234,"#) && one.1.contains(r#""distinct":1234,"#));
    }

    #[test]
    fn summary_matches_a_checksum_of_the_file() {
        let chunking = Chunking {
            objects: 64,
            per_round: 4,
        };
        let out = temp_file("orgs");
        let generated = generate(&out, 300, 5, chunking, small::org)
            .unwrap()
            .to_json();
        let scanned = crate::scan::checksum_file::<serbench_model::Org>(&out)
            .unwrap()
            .to_json();
        std::fs::remove_file(&out).unwrap();
        assert_eq!(generated, scanned);
    }

    #[test]
    fn zero_objects_make_an_empty_file() {
        let (bytes, summary) = run_on(2, 0, Chunking::of(10), small::trade);
        assert!(bytes.is_empty());
        assert!(summary.contains(r#""count":0,"sum":"0000000000000000","distinct":0,"bytes":0,"#));
    }
}
