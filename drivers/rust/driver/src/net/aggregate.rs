//! `net_aggregate` (PROTOCOL.md 10.6): sparse vectors summed up a tree. Every node holds its
//! own vector (loaded at setup); per repetition a node receives and decodes each child's
//! vector (one thread per child), merge-sums them with its own in a fixed order (own, then
//! children in accept order: floating-point sums are reproducible only in one order), and
//! sends the sum to its parent as network pages, or, at the root, writes it as a paged file
//! and fsyncs it. Only the `sparse` model has a sum.

use std::any::Any;
use std::path::PathBuf;
use std::thread;

use serbench_model::{object_hash, Entry, ModelId, ModelType, SetChecksum, SparseVector};
use serde_json::json;

use super::node::Node;
use super::pages::{for_each_object, net_page_bytes, Packer, Streamed, DEFAULT_NET_PAGE};
use super::wire::{peer_failure, FrameKind, Link, Payload};
use super::{Links, NetTask, Outcome, Role, Setup};
use crate::methods::Codec;
use crate::paged::NO_RUN;
use crate::protocol::{Failure, Kind};
use crate::tasks::load_objects;
use crate::tasks::write::{write_file, DEFAULT_PAGE_SIZE};
use crate::timing::IoTimer;

pub struct NetAggregate;

impl NetTask for NetAggregate {
    const ID: &'static str = "net_aggregate";

    fn run<M: ModelType, C: Codec<M>>(
        codec: C,
        setup: &Setup,
        node: &mut Node,
    ) -> Result<(), Failure> {
        if M::ID != ModelId::Sparse {
            return Err(Failure::unsupported(format!(
                "net_aggregate sums sparse vectors, not {}",
                M::ID
            )));
        }
        if setup.role != "tree" {
            return Err(Failure::bad_request(format!(
                "net_aggregate role '{}': tree",
                setup.role
            )));
        }
        node.drive(&mut TreeSum::<M, C>::new(codec, setup)?)
    }
}

struct TreeSum<M, C> {
    codec: C,
    own: SparseVector,
    page_size: u32,
    budget: usize,
    /// Where the root writes the sum (`<output>/sum`); unused below the root.
    output: Option<PathBuf>,
    _model: std::marker::PhantomData<fn() -> M>,
}

/// `M` is `SparseVector` (checked before any of these is called): values move between the
/// generic codec and the sum without copies.
fn to_sparse<M: 'static>(value: M) -> SparseVector {
    *(Box::new(value) as Box<dyn Any>)
        .downcast::<SparseVector>()
        .expect("net_aggregate runs on the sparse model only")
}

fn from_sparse<M: 'static>(value: SparseVector) -> M {
    *(Box::new(value) as Box<dyn Any>)
        .downcast::<M>()
        .expect("net_aggregate runs on the sparse model only")
}

impl<M: ModelType, C: Codec<M>> TreeSum<M, C> {
    fn new(codec: C, setup: &Setup) -> Result<Self, Failure> {
        let params = &setup.params;
        let input = params.path("input")?;
        let mut vectors: Vec<M> = load_objects(input)?;
        if vectors.len() != 1 {
            return Err(Failure::bad_request(format!(
                "{}: a node's input holds its one vector, this holds {}",
                input.display(),
                vectors.len()
            )));
        }
        let page_size = params.page_size()?.unwrap_or(DEFAULT_PAGE_SIZE);
        Ok(TreeSum {
            codec,
            own: to_sparse(vectors.pop().expect("one vector")),
            page_size,
            budget: net_page_bytes(
                params.u64_or("net_page_bytes", DEFAULT_NET_PAGE)?,
                page_size,
                setup.net_frame_bytes()?,
            )?,
            output: match params.0.contains_key("output") {
                true => Some(params.path("output")?.join("sum")),
                false => None,
            },
            _model: std::marker::PhantomData,
        })
    }
}

/// One child's vector: its stream received, checked and decoded.
fn receive<M: ModelType, C: Codec<M>>(
    link: &mut Link,
    page_size: u32,
    timer: &IoTimer,
) -> Result<SparseVector, Failure> {
    let mut payload = Payload::default();
    let mut codec = C::default();
    let mut vectors = Vec::with_capacity(1);
    let mut arrived = Streamed::default();
    loop {
        match link.recv(&mut payload, timer)? {
            FrameKind::Pages => {
                arrived.add(for_each_object(
                    &payload,
                    page_size,
                    &link.peer,
                    arrived.frames,
                    |_, bytes| {
                        vectors.push(to_sparse(codec.decode(bytes).map_err(|e| e.to_string())?));
                        Ok(())
                    },
                )?);
            }
            FrameKind::End => {
                arrived.check_end(&payload, page_size, &link.peer)?;
                break;
            }
            other => {
                return Err(peer_failure(
                    &link.peer,
                    format!("a {other:?} frame inside a stream"),
                ))
            }
        }
    }
    match <[SparseVector; 1]>::try_from(vectors) {
        Ok([v]) => Ok(v),
        Err(v) => Err(peer_failure(
            &link.peer,
            format!("sent {} vectors, not one", v.len()),
        )),
    }
}

impl<M: ModelType, C: Codec<M>> Role for TreeSum<M, C> {
    fn check_links(&self, links: &Links) -> Result<(), Failure> {
        super::check_tree_links("net_aggregate", links, self.output.is_some())
    }

    fn repetition(&mut self, links: &mut Links, timer: &IoTimer) -> Result<Outcome, Failure> {
        let page_size = self.page_size;
        let children: Vec<Result<(SparseVector, u64), Failure>> = thread::scope(|scope| {
            let threads: Vec<_> = links
                .accepted
                .iter_mut()
                .map(|link| {
                    scope.spawn(move || {
                        let t = IoTimer::default();
                        let v = receive::<M, C>(link, page_size, &t)?;
                        Ok((v, t.ns()))
                    })
                })
                .collect();
            threads
                .into_iter()
                .map(|t| {
                    t.join().unwrap_or_else(|_| {
                        Err(Failure::new(Kind::Internal, "a receiving thread panicked"))
                    })
                })
                .collect()
        });
        let children: Vec<(SparseVector, u64)> = children.into_iter().collect::<Result<_, _>>()?;
        if !children.is_empty() {
            timer.add(children.iter().map(|c| c.1).sum::<u64>() / children.len() as u64);
        }
        let mut sum = self.own.clone();
        for (child, _) in &children {
            sum = merge_sum(&sum, child).map_err(Failure::corrupt)?;
        }
        let entries = sum.entries.len() as u64;
        let value: M = from_sparse(sum);
        let checksum: SetChecksum = std::iter::once(object_hash(&value)).collect();
        match links.dialed.first_mut() {
            Some(parent) => {
                let mut packer = Packer::new(self.page_size, self.budget);
                packer.push(
                    C::ALIGN,
                    |out| self.codec.encode(&value, out),
                    parent,
                    timer,
                )?;
                packer
                    .finish(parent, timer)?
                    .end(self.page_size, parent, timer)?;
            }
            None => {
                let base = self.output.as_ref().expect("checked in check_links");
                write_file(
                    &mut self.codec,
                    std::slice::from_ref(&value),
                    base,
                    self.page_size,
                    NO_RUN, // read back only by validating reads
                    timer,
                )?;
            }
        }
        let mut extra = serde_json::Map::new();
        extra.insert("entries".into(), json!(entries));
        Ok(Outcome {
            objects: 1,
            checksum: Some(checksum),
            extra,
        })
    }
}

/// The element-wise sum of two sparse vectors of one dimension: entries merged by position,
/// values added (`a`'s first) where both have one.
pub fn merge_sum(a: &SparseVector, b: &SparseVector) -> Result<SparseVector, String> {
    if a.dimension != b.dimension {
        return Err(format!(
            "vectors of dimensions {} and {} cannot be summed",
            a.dimension, b.dimension
        ));
    }
    let (x, y) = (&a.entries, &b.entries);
    let mut out = Vec::with_capacity(x.len() + y.len());
    let (mut i, mut j) = (0, 0);
    while i < x.len() && j < y.len() {
        let (p, q) = (x[i].position, y[j].position);
        if p < q {
            out.push(x[i].clone());
            i += 1;
        } else if q < p {
            out.push(y[j].clone());
            j += 1;
        } else {
            out.push(Entry {
                position: p,
                value: x[i].value + y[j].value,
            });
            i += 1;
            j += 1;
        }
    }
    out.extend_from_slice(&x[i..]);
    out.extend_from_slice(&y[j..]);
    Ok(SparseVector {
        dimension: a.dimension,
        entries: out,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(entries: &[(i64, f64)]) -> SparseVector {
        SparseVector {
            dimension: 10,
            entries: entries
                .iter()
                .map(|&(position, value)| Entry { position, value })
                .collect(),
        }
    }

    #[test]
    fn sums_merge_by_position_and_keep_every_position() {
        let sum = merge_sum(
            &v(&[(1, 1.5), (4, 2.0), (9, 1.0)]),
            &v(&[(0, 3.0), (4, -2.0), (5, 0.25)]),
        )
        .unwrap();
        assert_eq!(sum, v(&[(0, 3.0), (1, 1.5), (4, 0.0), (5, 0.25), (9, 1.0)]));
        let other = SparseVector {
            dimension: 11,
            entries: vec![],
        };
        assert!(merge_sum(&sum, &other)
            .unwrap_err()
            .contains("dimensions 10 and 11"));
    }
}
