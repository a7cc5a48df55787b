//! `net_sort_merge` (PROTOCOL.md 10.7): a tree sort of any model with a total order. Every
//! node holds a partition of native objects (decoded at setup); per repetition it sorts a copy
//! of it, merges it with its children's sorted streams (decoding each network page as it
//! arrives, so memory holds a network page per child, not the data), and streams the merged
//! sequence up in network pages, or, at the root, writes it as a paged file and fsyncs it.

use std::collections::VecDeque;
use std::path::PathBuf;

use serbench_model::{hex64, object_hash, Hasher, ModelType, SetChecksum};
use serde_json::json;

use super::node::Node;
use super::pages::{for_each_object, net_page_bytes, Packer, Streamed, DEFAULT_NET_PAGE};
use super::wire::{peer_failure, FrameKind, Link, Payload};
use super::{Links, NetTask, Outcome, Role, Setup};
use crate::methods::Codec;
use crate::paged::{Expect, PageBuffer, PageReader, PageWriter, NO_RUN};
use crate::protocol::Failure;
use crate::tasks::WRITER;
use crate::timing::IoTimer;

pub struct NetSortMerge;

impl NetTask for NetSortMerge {
    const ID: &'static str = "net_sort_merge";

    fn run<M: ModelType, C: Codec<M>>(
        codec: C,
        setup: &Setup,
        node: &mut Node,
    ) -> Result<(), Failure> {
        if setup.role != "tree" {
            return Err(Failure::bad_request(format!(
                "net_sort_merge role '{}': tree",
                setup.role
            )));
        }
        node.drive(&mut TreeSort::<M, C>::new(codec, setup)?)
    }
}

struct TreeSort<M, C> {
    codec: C,
    partition: Vec<M>,
    page_size: u32,
    budget: usize,
    output: Option<PathBuf>,
}

impl<M: ModelType, C: Codec<M>> TreeSort<M, C> {
    fn new(mut codec: C, setup: &Setup) -> Result<Self, Failure> {
        let params = &setup.params;
        let input = params.path("input")?;
        let (start, n) = (params.u64("start")?, params.u64("n")?);
        let timer = IoTimer::default();
        let mut page = PageBuffer::default();
        let expect = Expect {
            model: M::ID.name(),
            method: Some(C::ID),
            page_size: None,
        };
        let mut reader = PageReader::open(input, expect, &timer, &mut page)?;
        super::check_range(&reader, &input, start, n)?;
        let page_size = reader.header().page_size;
        let mut partition = Vec::with_capacity(n as usize);
        for k in start..start + n {
            let object = codec
                .decode(reader.object(k)?)
                .map_err(|e| Failure::corrupt(format!("{}: object {k}: {e}", input.display())))?;
            partition.push(object);
        }
        Ok(TreeSort {
            codec,
            partition,
            page_size,
            budget: net_page_bytes(
                params.u64_or("net_page_bytes", DEFAULT_NET_PAGE)?,
                page_size,
                setup.net_frame_bytes()?,
            )?,
            output: match params.0.contains_key("output") {
                true => Some(params.path("output")?.join("sorted")),
                false => None,
            },
        })
    }
}

/// One child's sorted stream, decoded a network page at a time.
struct Incoming<'l, M> {
    link: &'l mut Link,
    payload: Payload,
    arrived: Streamed,
    ready: VecDeque<M>,
    ended: bool,
}

impl<M: ModelType> Incoming<'_, M> {
    /// The next object of the stream, or None at its end.
    fn next<C: Codec<M>>(
        &mut self,
        codec: &mut C,
        page_size: u32,
        timer: &IoTimer,
    ) -> Result<Option<M>, Failure> {
        while self.ready.is_empty() && !self.ended {
            match self.link.recv(&mut self.payload, timer)? {
                FrameKind::Pages => {
                    let ready = &mut self.ready;
                    self.arrived.add(for_each_object(
                        &self.payload,
                        page_size,
                        &self.link.peer,
                        self.arrived.frames,
                        |_, bytes| {
                            ready.push_back(codec.decode(bytes).map_err(|e| e.to_string())?);
                            Ok(())
                        },
                    )?);
                }
                FrameKind::End => {
                    self.arrived
                        .check_end(&self.payload, page_size, &self.link.peer)?;
                    self.ended = true;
                }
                other => {
                    return Err(peer_failure(
                        &self.link.peer,
                        format!("a {other:?} frame inside a stream"),
                    ))
                }
            }
        }
        Ok(self.ready.pop_front())
    }
}

/// Where the merged sequence goes: up to the parent, or into the root's file.
enum Sink<'a> {
    Parent(&'a mut Link, Packer),
    File(PageWriter<'a>),
}

impl<M: ModelType, C: Codec<M>> Role for TreeSort<M, C> {
    fn check_links(&self, links: &Links) -> Result<(), Failure> {
        super::check_tree_links("net_sort_merge", links, self.output.is_some())
    }

    fn repetition(&mut self, links: &mut Links, timer: &IoTimer) -> Result<Outcome, Failure> {
        let mut own = self.partition.clone();
        own.sort_unstable_by(|a, b| a.total_cmp(b));
        let mut own = own.into_iter().peekable();
        let page_size = self.page_size;
        let mut children: Vec<Incoming<'_, M>> = links
            .accepted
            .iter_mut()
            .map(|link| Incoming {
                link,
                payload: Payload::default(),
                arrived: Streamed::default(),
                ready: VecDeque::new(),
                ended: false,
            })
            .collect();
        let mut heads: Vec<Option<M>> = Vec::with_capacity(children.len());
        for child in &mut children {
            heads.push(child.next(&mut self.codec, page_size, timer)?);
        }
        let mut sink = match (links.dialed.first_mut(), &self.output) {
            (Some(parent), _) => Sink::Parent(parent, Packer::new(page_size, self.budget)),
            (None, Some(base)) => Sink::File(PageWriter::create(base, page_size, timer)?),
            (None, None) => unreachable!("checked in check_links"),
        };
        // the sequence checksum (PROTOCOL.md 6) of what this node emits, and its set checksum
        let (mut count, mut sequence, mut set) = (0u64, Hasher::new(), SetChecksum::default());
        let mut previous: Option<M> = None;
        loop {
            // the smallest head: the node's own first on ties, then children in name order
            let mut pick: Option<usize> = None;
            let mut best: Option<&M> = own.peek();
            for (i, head) in heads.iter().enumerate() {
                if let Some(h) = head {
                    if best.is_none_or(|b| h.total_cmp(b).is_lt()) {
                        best = Some(h);
                        pick = Some(i);
                    }
                }
            }
            let object = match pick {
                None => match own.next() {
                    Some(o) => o,
                    None => break,
                },
                Some(i) => {
                    let next = children[i].next(&mut self.codec, page_size, timer)?;
                    std::mem::replace(&mut heads[i], next).expect("picked a head")
                }
            };
            if let Some(p) = &previous {
                if object.total_cmp(p).is_lt() {
                    return Err(Failure::corrupt(format!(
                        "object {count} of the merge is smaller than the one before it: a child's stream is not sorted"
                    )));
                }
            }
            let hash = object_hash(&object);
            sequence.word(hash);
            set.add(hash);
            count += 1;
            match &mut sink {
                Sink::Parent(parent, packer) => packer.push(
                    C::ALIGN,
                    |out| self.codec.encode(&object, out),
                    parent,
                    timer,
                )?,
                Sink::File(writer) => {
                    writer.push(C::ALIGN, |out| self.codec.encode(&object, out))?
                }
            }
            previous = Some(object);
        }
        match sink {
            Sink::Parent(parent, mut packer) => {
                packer
                    .finish(parent, timer)?
                    .end(page_size, parent, timer)?;
            }
            Sink::File(writer) => {
                // read back only by validating reads
                writer.finish(M::ID.name(), C::ID, WRITER, NO_RUN)?;
            }
        }
        let mut extra = serde_json::Map::new();
        extra.insert("sequence".into(), json!(hex64(sequence.finish())));
        Ok(Outcome {
            objects: count,
            checksum: Some(set),
            extra,
        })
    }
}
