//! Parallel validation and checksumming of JSON Lines: a reader thread hands over blocks
//! that end on a line boundary, the lines of a block are parsed on all threads, and the
//! first bad line of the file is reported.

use std::fs::File;
use std::io::{self, Read};
use std::path::Path;
use std::sync::mpsc::{channel, sync_channel, Receiver};
use std::thread;

use rayon::prelude::*;
use serbench_model::{from_json, try_from_json, LineError, ModelType};

use crate::failure::Failure;
use crate::summary::Summary;

const BLOCK_BYTES: usize = 32 << 20;

/// Parses every line of `path` as model `M` and returns the summary of the file.
pub fn checksum_file<M: ModelType>(path: &Path) -> Result<Summary, Failure> {
    let file = File::open(path).map_err(Failure::input(path))?;
    let (sender, blocks) = sync_channel(1);
    // Used blocks go back to the reader: fresh 32 MiB buffers would cost page faults.
    let (recycle, recycled) = channel();
    thread::scope(|scope| {
        scope.spawn(move || read_blocks(file, recycled, |block| sender.send(block).is_ok()));
        let mut summary = Summary::new(M::ID);
        let mut lines_before = 0;
        for block in blocks {
            let block = block.map_err(Failure::io(path))?;
            let lines = split_lines(&block);
            summary.merge(summarize_lines::<M>(path, &lines, lines_before)?);
            lines_before += lines.len() as u64;
            let _ = recycle.send(block); // the reader may have finished already
        }
        summary.bytes = std::fs::metadata(path).map_err(Failure::io(path))?.len();
        Ok(summary)
    })
}

/// Reads `file` in blocks of about [`BLOCK_BYTES`] that end just after a newline (or at the
/// end of the file), passing each to `deliver` until it returns false.
fn read_blocks(
    mut file: File,
    recycled: Receiver<Vec<u8>>,
    mut deliver: impl FnMut(io::Result<Vec<u8>>) -> bool,
) {
    let mut carry = Vec::new();
    loop {
        let mut block = recycled.try_recv().unwrap_or_default();
        block.clear();
        block.extend_from_slice(&carry);
        // A line longer than a block makes the block grow until the line ends.
        let at_end = loop {
            match (&mut file).take(BLOCK_BYTES as u64).read_to_end(&mut block) {
                Ok(0) => break true,
                Ok(_) if memchr::memrchr(b'\n', &block).is_some() => break false,
                Ok(_) => {}
                Err(err) => {
                    deliver(Err(err));
                    return;
                }
            }
        };
        if at_end {
            if !block.is_empty() {
                deliver(Ok(block));
            }
            return;
        }
        let after_newline = memchr::memrchr(b'\n', &block).expect("checked above") + 1;
        carry = block[after_newline..].to_vec();
        block.truncate(after_newline);
        if !deliver(Ok(block)) {
            return;
        }
    }
}

/// The lines of a block, without their newlines; a final newline ends the last line.
pub fn split_lines(block: &[u8]) -> Vec<&[u8]> {
    let mut lines = Vec::new();
    let mut start = 0;
    for end in memchr::memchr_iter(b'\n', block) {
        lines.push(&block[start..end]);
        start = end + 1;
    }
    if start < block.len() {
        lines.push(&block[start..]);
    }
    lines
}

/// Parses `lines` (the first is line `lines_before + 1` of `path`) on all threads.
pub fn summarize_lines<M: ModelType>(
    path: &Path,
    lines: &[&[u8]],
    lines_before: u64,
) -> Result<Summary, Failure> {
    let (summary, first_bad) = lines
        .par_iter()
        .enumerate()
        .fold(
            || (Summary::new(M::ID), None::<usize>),
            |(mut summary, first_bad), (i, line)| match try_from_json::<M>(line) {
                Some(object) => {
                    summary.add(&object, line.len());
                    (summary, first_bad)
                }
                None => (summary, Some(first_bad.map_or(i, |bad| bad.min(i)))),
            },
        )
        .reduce(
            || (Summary::new(M::ID), None),
            |(mut a, bad_a), (b, bad_b)| {
                a.merge(b);
                (a, bad_a.into_iter().chain(bad_b).min())
            },
        );
    match first_bad {
        None => Ok(summary),
        Some(i) => Err(line_failure::<M>(
            path,
            lines[i],
            lines_before + i as u64 + 1,
        )),
    }
}

fn line_failure<M: ModelType>(path: &Path, line: &[u8], number: u64) -> Failure {
    let error = from_json::<M>(line).expect_err("the line failed to parse a moment ago");
    Failure::Data(
        LineError {
            file: path.display().to_string(),
            line: number,
            error,
        }
        .to_string(),
    )
}
