//! serbench-datagen: the native hot loop of `serbench data`. Generates the synthetic
//! datasets as canonical JSON Lines, replicates inputs with duplicates, and checksums JSON
//! Lines files. Every subcommand prints one JSON summary line on stdout; invalid data and
//! bad parameters exit with status 2, I/O failures with 1.

mod clock;
mod failure;
mod pipeline;
mod replicate;
mod rng;
mod scan;
mod small;
mod sparse;
mod summary;
mod tweet;
#[rustfmt::skip] // one row per table entry reads better than rustfmt's columns
mod words;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use serbench_model::{dispatch, ModelId};

use crate::failure::Failure;
use crate::pipeline::{generate, Chunking};
use crate::sparse::{sparse_vector, SparseShape};
use crate::summary::Summary;

#[derive(Parser)]
#[command(
    name = "serbench-datagen",
    version,
    about = "serbench's native data generator and checksummer"
)]
struct Cli {
    /// Worker threads (default: one per core); outputs never depend on it.
    #[arg(long, global = true, value_parser = clap::value_parser!(u16).range(1..))]
    threads: Option<u16>,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Synthetic Twitter API v1.1 statuses in the measured mix of kinds.
    Tweet {
        #[arg(long, allow_negative_numbers = true, value_parser = count())]
        n: i64,
        #[arg(long)]
        seed: u64,
        #[arg(long)]
        out: PathBuf,
    },
    /// Sparse vectors with round(dimension × density) entries each.
    Sparse {
        #[arg(long, allow_negative_numbers = true, value_parser = count())]
        n: i64,
        #[arg(long, allow_negative_numbers = true)]
        dimension: i64,
        #[arg(long, allow_negative_numbers = true)]
        density: f64,
        #[arg(long)]
        seed: u64,
        #[arg(long)]
        out: PathBuf,
    },
    /// Trades; the first is the reference instance.
    Trade {
        #[arg(long, allow_negative_numbers = true, value_parser = count())]
        n: i64,
        #[arg(long)]
        seed: u64,
        #[arg(long)]
        out: PathBuf,
    },
    /// Organisations with 40–70 attributes.
    Org {
        #[arg(long, allow_negative_numbers = true, value_parser = count())]
        n: i64,
        #[arg(long)]
        seed: u64,
        #[arg(long)]
        out: PathBuf,
    },
    /// n identical objects of k strings "Dummy text" and k zeros.
    Arrays {
        #[arg(long, allow_negative_numbers = true, value_parser = count())]
        k: i64,
        #[arg(long, allow_negative_numbers = true, value_parser = count())]
        n: i64,
        #[arg(long)]
        out: PathBuf,
    },
    /// Every line of --in r times, shuffled with the seed (lines are validated first).
    Replicate {
        #[arg(long)]
        model: ModelId,
        #[arg(long, allow_negative_numbers = true, value_parser = clap::value_parser!(i64).range(1..))]
        r: i64,
        #[arg(long)]
        seed: u64,
        #[arg(long = "in")]
        input: PathBuf,
        #[arg(long)]
        out: PathBuf,
    },
    /// Validates every line of --in as the model and prints the set checksum.
    Checksum {
        #[arg(long)]
        model: ModelId,
        #[arg(long = "in")]
        input: PathBuf,
        /// Also write each object's hash, in file order, as u64 little-endian.
        #[arg(long)]
        hashes: Option<PathBuf>,
    },
}

fn count() -> clap::builder::RangedI64ValueParser<i64> {
    clap::value_parser!(i64).range(0..)
}

/// Objects per generated chunk: about a megabyte of JSON or more, so threads stay busy.
const TWEETS_PER_CHUNK: u64 = 500;
const ORGS_PER_CHUNK: u64 = 500;
const TRADES_PER_CHUNK: u64 = 10_000;

fn run(command: Command) -> Result<Summary, Failure> {
    match command {
        Command::Tweet { n, seed, out } => generate(
            &out,
            n as u64,
            seed,
            Chunking::of(TWEETS_PER_CHUNK),
            tweet::tweet,
        ),
        Command::Sparse {
            n,
            dimension,
            density,
            seed,
            out,
        } => {
            let shape = SparseShape::new(dimension, density)?;
            // one vector per chunk: a vector can hold millions of entries
            let chunking = Chunking {
                objects: 1,
                per_round: rayon::current_num_threads(),
            };
            generate(&out, n as u64, seed, chunking, |rng, _| {
                sparse_vector(rng, shape)
            })
        }
        Command::Trade { n, seed, out } => generate(
            &out,
            n as u64,
            seed,
            Chunking::of(TRADES_PER_CHUNK),
            small::trade,
        ),
        Command::Org { n, seed, out } => generate(
            &out,
            n as u64,
            seed,
            Chunking::of(ORGS_PER_CHUNK),
            small::org,
        ),
        Command::Arrays { k, n, out } => {
            let per_chunk = (1 << 20) / (14 * k as u64 + 30);
            generate(&out, n as u64, 0, Chunking::of(per_chunk), |_, _| {
                small::arrays(k as usize)
            })
        }
        Command::Replicate {
            model,
            r,
            seed,
            input,
            out,
        } => {
            dispatch!(model, M => replicate::replicate::<M>(&input, &out, r as u64, seed))
        }
        Command::Checksum {
            model,
            input,
            hashes,
        } => {
            let summary = dispatch!(model, M => scan::checksum_file::<M>(&input))?;
            if let Some(path) = hashes {
                let bytes: Vec<u8> = summary
                    .hashes()
                    .iter()
                    .flat_map(|h| h.to_le_bytes())
                    .collect();
                std::fs::write(&path, bytes).map_err(Failure::io(&path))?;
            }
            Ok(summary)
        }
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    if let Some(threads) = cli.threads {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads.into())
            .build_global()
            .expect("the thread pool is configured once, before any use");
    }
    match run(cli.command) {
        Ok(summary) => {
            println!("{}", summary.to_json());
            ExitCode::SUCCESS
        }
        Err(failure) => {
            eprintln!("{failure}");
            ExitCode::from(failure.exit_code())
        }
    }
}
