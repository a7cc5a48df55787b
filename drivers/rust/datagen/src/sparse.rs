//! Sparse vectors: round(D·X) distinct positions drawn uniformly without replacement from
//! [0, D), strictly increasing, values uniform in [-1000, 1000) with two decimals.
//!
//! Sampling draws positions with replacement until k distinct ones are seen (which yields a
//! uniform k-subset), in batches that are sorted and merged: O(k log k) time and O(k) memory,
//! whatever D is. Above density 1/2 it samples the excluded positions instead.

use serbench_model::{Entry, SparseVector};

use crate::failure::Failure;
use crate::rng::Rng;
use crate::small::cents;

#[derive(Clone, Copy, Debug)]
pub struct SparseShape {
    pub dimension: u64,
    pub entries: u64,
}

impl SparseShape {
    pub fn new(dimension: i64, density: f64) -> Result<Self, Failure> {
        if dimension < 1 {
            return Err(Failure::Usage(format!(
                "--dimension must be at least 1, got {dimension}"
            )));
        }
        if !(density > 0.0 && density <= 1.0) {
            return Err(Failure::Usage(format!(
                "--density must be in (0, 1], got {density}"
            )));
        }
        let entries = (dimension as f64 * density).round() as u64;
        Ok(SparseShape {
            dimension: dimension as u64,
            entries: entries.min(dimension as u64),
        })
    }
}

pub fn sparse_vector(rng: &mut Rng, shape: SparseShape) -> SparseVector {
    let positions = sorted_sample(rng, shape.dimension, shape.entries);
    SparseVector {
        dimension: shape.dimension as i64,
        entries: positions
            .into_iter()
            .map(|p| Entry {
                position: p as i64,
                value: cents(rng.between(-100_000, 99_999)),
            })
            .collect(),
    }
}

/// k distinct values of [0, d), uniformly chosen, in increasing order.
fn sorted_sample(rng: &mut Rng, d: u64, k: u64) -> Vec<u64> {
    if k > d / 2 {
        return complement(d, &sorted_sample(rng, d, d - k));
    }
    let mut chosen = Vec::new();
    while (chosen.len() as u64) < k {
        let mut draws: Vec<u64> = (chosen.len() as u64..k).map(|_| rng.below(d)).collect();
        draws.sort_unstable();
        chosen = merge_distinct(&chosen, &draws);
    }
    chosen
}

/// The union of two sorted lists, sorted and without repeats.
fn merge_distinct(a: &[u64], b: &[u64]) -> Vec<u64> {
    let mut out = Vec::with_capacity(a.len() + b.len());
    let (mut i, mut j) = (0, 0);
    while i < a.len() || j < b.len() {
        let next = if j == b.len() || (i < a.len() && a[i] <= b[j]) {
            i += 1;
            a[i - 1]
        } else {
            j += 1;
            b[j - 1]
        };
        if out.last() != Some(&next) {
            out.push(next);
        }
    }
    out
}

/// The values of [0, d) not in the sorted list `excluded`.
fn complement(d: u64, excluded: &[u64]) -> Vec<u64> {
    let mut out = Vec::with_capacity((d - excluded.len() as u64) as usize);
    let mut skip = excluded.iter().peekable();
    for p in 0..d {
        if skip.next_if_eq(&&p).is_none() {
            out.push(p);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(dimension: i64, density: f64, expected: usize) {
        let shape = SparseShape::new(dimension, density).unwrap();
        let v = sparse_vector(&mut Rng::new(9), shape);
        assert_eq!(v.entries.len(), expected);
        assert!(v.entries.windows(2).all(|w| w[0].position < w[1].position));
        assert!(v
            .entries
            .iter()
            .all(|e| (0..dimension).contains(&e.position)));
        assert!(v
            .entries
            .iter()
            .all(|e| (-1000.0..1000.0).contains(&e.value)));
    }

    #[test]
    fn exact_counts_strictly_increasing_at_every_density() {
        check(100_000_000, 0.0001, 10_000);
        check(1000, 0.1, 100);
        check(1000, 0.5, 500);
        check(1000, 0.9, 900);
        check(1000, 1.0, 1000);
        check(1, 1.0, 1);
        check(10, 0.01, 0);
    }

    #[test]
    fn positions_are_spread_uniformly() {
        let shape = SparseShape::new(1000, 0.3).unwrap();
        let mut rng = Rng::new(4);
        let mut hits = [0u32; 10];
        for _ in 0..200 {
            for e in sparse_vector(&mut rng, shape).entries {
                hits[e.position as usize / 100] += 1;
            }
        }
        // each tenth expects 6000 hits
        assert!(hits.iter().all(|&h| (5600..6400).contains(&h)), "{hits:?}");
    }

    #[test]
    fn bad_shapes_are_refused() {
        assert!(SparseShape::new(0, 0.5).is_err());
        assert!(SparseShape::new(10, 0.0).is_err());
        assert!(SparseShape::new(10, 1.5).is_err());
        assert!(SparseShape::new(10, f64::NAN).is_err());
    }

    #[test]
    fn merge_and_complement() {
        assert_eq!(merge_distinct(&[1, 3, 5], &[1, 2, 2, 6]), [1, 2, 3, 5, 6]);
        assert_eq!(complement(6, &[0, 2, 5]), [1, 3, 4]);
    }
}
