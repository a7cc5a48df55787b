//! Inputs with known duplicates: every line of a JSON Lines file R times, in a seeded
//! Fisher–Yates shuffle, copied byte for byte after checking that it is a valid object.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;

use serbench_model::ModelType;

use crate::failure::Failure;
use crate::rng::Rng;
use crate::scan::{split_lines, summarize_lines};
use crate::summary::Summary;

pub fn replicate<M: ModelType>(
    input: &Path,
    out: &Path,
    r: u64,
    seed: u64,
) -> Result<Summary, Failure> {
    let data = std::fs::read(input).map_err(Failure::input(input))?;
    let lines = split_lines(&data);
    let summary = summarize_lines::<M>(input, &lines, 0)?;
    let file = File::create(out).map_err(Failure::io(out))?;
    let mut writer = BufWriter::with_capacity(1 << 20, file);
    for line in shuffled_copies(lines.len(), r, seed) {
        writer.write_all(lines[line]).map_err(Failure::io(out))?;
        writer.write_all(b"\n").map_err(Failure::io(out))?;
    }
    writer.flush().map_err(Failure::io(out))?;
    Ok(summary.repeated(r))
}

/// Line numbers 0..n, each r times, shuffled.
fn shuffled_copies(n: usize, r: u64, seed: u64) -> Vec<usize> {
    let mut order: Vec<usize> = (0..n * r as usize).map(|i| i % n.max(1)).collect();
    let mut rng = Rng::new(seed);
    for i in (1..order.len()).rev() {
        let j = rng.below(i as u64 + 1) as usize;
        order.swap(i, j);
    }
    order
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_line_appears_r_times_in_a_seeded_order() {
        let order = shuffled_copies(5, 3, 11);
        let mut sorted = order.clone();
        sorted.sort();
        assert_eq!(sorted, [0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4]);
        assert_eq!(order, shuffled_copies(5, 3, 11));
        assert_ne!(order, shuffled_copies(5, 3, 12));
        assert!(shuffled_copies(0, 3, 1).is_empty());
    }
}
