//! `net_fetch` (PROTOCOL.md 10.5): S servers each hold objects `start .. start + n` of their
//! paged file; one client asks every server at once (one connection and thread per server),
//! receives network pages and appends them to one paged file per server, fsynced. Variants:
//! `ram` (the server holds native objects and encodes them per request), `disk` (the server
//! ships the stored pages as they are) and `decode` (served as `disk`; the client also decodes
//! every object and returns the set checksum).

use std::marker::PhantomData;
use std::path::PathBuf;
use std::thread;
use std::time::Instant;

use serbench_model::{Hasher, ModelType, SetChecksum};
use serde_json::{json, Value};

use super::node::Node;
use super::pages::{net_page_bytes, ship, Packer, Receiver, Streamed, DEFAULT_NET_PAGE};
use super::wire::{peer_failure, FrameKind, Link, Payload};
use super::{Links, NetTask, Outcome, Role, Setup};
use crate::methods::Codec;
use crate::paged::{Expect, PageBuffer, PageReader};
use crate::protocol::{Depth, Failure, Kind};
use crate::tasks::WRITER;
use crate::timing::IoTimer;

pub struct NetFetch;

impl NetTask for NetFetch {
    const ID: &'static str = "net_fetch";

    fn run<M: ModelType, C: Codec<M>>(
        codec: C,
        setup: &Setup,
        node: &mut Node,
    ) -> Result<(), Failure> {
        let variant = match setup.variant.as_str() {
            v @ ("ram" | "disk" | "decode") => v,
            other => {
                return Err(Failure::bad_request(format!(
                    "net_fetch variant '{other}': one of ram, disk, decode"
                )))
            }
        };
        match setup.role.as_str() {
            "server" => node.drive(&mut Server::<M, C>::new(codec, setup, variant == "ram")?),
            "client" => node.drive(&mut Client::<M, C>::new(setup, variant == "decode")?),
            other => Err(Failure::bad_request(format!(
                "net_fetch role '{other}': server or client"
            ))),
        }
    }
}

/// What a server holds: native objects (`ram`) or the file it ships pages of.
enum Source<M> {
    Ram(Vec<M>),
    Disk,
}

struct Server<M, C> {
    codec: C,
    input: PathBuf,
    start: u64,
    n: u64,
    page_size: u32,
    budget: usize,
    source: Source<M>,
    buffer: Vec<u8>,
}

impl<M: ModelType, C: Codec<M>> Server<M, C> {
    fn new(mut codec: C, setup: &Setup, ram: bool) -> Result<Self, Failure> {
        let params = &setup.params;
        let input = params.path("input")?.to_path_buf();
        let (start, n) = (params.u64("start")?, params.u64("n")?);
        let timer = IoTimer::default();
        let mut page = PageBuffer::default();
        let mut reader = PageReader::open(&input, expect::<M, C>(), &timer, &mut page)?;
        super::check_range(&reader, &input, start, n)?;
        let page_size = reader.header().page_size;
        let budget = net_page_bytes(
            params.u64_or("net_page_bytes", DEFAULT_NET_PAGE)?,
            page_size,
            setup.net_frame_bytes()?,
        )?;
        let source = if ram {
            // held as native objects, as a data system holds what it serves from memory
            let mut objects = Vec::with_capacity(n as usize);
            for k in start..start + n {
                let bytes = reader.object(k)?;
                let object = codec.decode(bytes).map_err(|e| {
                    Failure::corrupt(format!("{}: object {k}: {e}", input.display()))
                })?;
                objects.push(object);
            }
            Source::Ram(objects)
        } else {
            Source::Disk
        };
        Ok(Server {
            codec,
            input,
            start,
            n,
            page_size,
            budget,
            source,
            buffer: Vec::new(),
        })
    }

    fn stream(&mut self, link: &mut Link, timer: &IoTimer) -> Result<Streamed, Failure> {
        match &self.source {
            Source::Ram(objects) => {
                let mut packer = Packer::new(self.page_size, self.budget);
                for object in objects {
                    packer.push(C::ALIGN, |out| self.codec.encode(object, out), link, timer)?;
                }
                packer.finish(link, timer)
            }
            Source::Disk => {
                // opening and checking the index is part of serving from disk
                let mut page = PageBuffer::default();
                let reader = PageReader::open(&self.input, expect::<M, C>(), timer, &mut page)?;
                ship(
                    &reader,
                    (self.start, self.n),
                    self.budget,
                    &mut self.buffer,
                    link,
                    timer,
                )
            }
        }
    }
}

fn expect<'a, M: ModelType, C: Codec<M>>() -> Expect<'a> {
    Expect {
        model: M::ID.name(),
        method: Some(C::ID),
        page_size: None,
    }
}

impl<M: ModelType, C: Codec<M>> Role for Server<M, C> {
    fn check_links(&self, links: &Links) -> Result<(), Failure> {
        if links.accepted.len() != 1 || !links.dialed.is_empty() {
            return Err(Failure::bad_request(
                "a net_fetch server is dialed by one client and dials no one",
            ));
        }
        Ok(())
    }

    fn repetition(&mut self, links: &mut Links, timer: &IoTimer) -> Result<Outcome, Failure> {
        let link = &mut links.accepted[0];
        link.recv_json(FrameKind::Request, timer)?;
        let streamed = self.stream(link, timer)?;
        streamed.end(self.page_size, link, timer)?;
        Ok(Outcome {
            objects: streamed.objects,
            ..Outcome::default()
        })
    }
}

struct Client<M, C> {
    output: PathBuf,
    page_size: u32,
    method: String,
    model: String,
    /// The depth every received object is decoded at (`decode`), else None.
    decode: Option<Depth>,
    buffers: Vec<Payload>,
    _types: PhantomData<fn() -> (M, C)>,
}

/// What one connection's thread brings back.
struct Fetched {
    streamed: Streamed,
    checksum: SetChecksum,
    io_ns: u64,
    ns: u64,
}

impl<M: ModelType, C: Codec<M>> Client<M, C> {
    fn new(setup: &Setup, decode: bool) -> Result<Self, Failure> {
        let params = &setup.params;
        let depth = if setup.depth.is_empty() {
            Depth::Materialize
        } else {
            setup.depth()?
        };
        if decode && !C::DEPTHS.contains(&depth) {
            return Err(Failure::unsupported(format!(
                "{} does not read at depth '{}'",
                C::ID,
                depth.id()
            )));
        }
        Ok(Client {
            output: params.path("output")?.to_path_buf(),
            page_size: params
                .page_size()?
                .unwrap_or(crate::tasks::write::DEFAULT_PAGE_SIZE),
            method: C::ID.into(),
            model: M::ID.name().into(),
            decode: decode.then_some(depth),
            buffers: Vec::new(),
            _types: PhantomData,
        })
    }

    /// One server's stream into its own paged file, named after the server.
    fn fetch(&self, link: &mut Link, payload: &mut Payload) -> Result<Fetched, Failure> {
        let timer = IoTimer::default();
        let started = Instant::now();
        let base = self.output.join(&link.peer);
        let mut receiver = Receiver::create(&base, self.page_size, &timer)?;
        link.send_json(FrameKind::Request, &json!({}), &timer)?;
        let mut codec = C::default();
        let decode = self.decode;
        loop {
            match link.recv(payload, &timer)? {
                FrameKind::Pages => receiver.frame(payload, &link.peer, |bytes| match decode {
                    None => Ok(None),
                    Some(depth) => {
                        let mut h = Hasher::new();
                        codec
                            .fold(bytes, depth, &mut h)
                            .map_err(|e| e.to_string())?;
                        Ok(Some(h.finish()))
                    }
                })?,
                FrameKind::End => break,
                other => {
                    return Err(peer_failure(
                        &link.peer,
                        format!("a {other:?} frame inside a stream"),
                    ))
                }
            }
        }
        receiver
            .streamed
            .check_end(payload, self.page_size, &link.peer)?;
        let checksum = receiver.checksum;
        let streamed = receiver.finish(&self.model, &self.method, WRITER)?;
        Ok(Fetched {
            streamed,
            checksum,
            io_ns: timer.ns(),
            ns: started.elapsed().as_nanos() as u64,
        })
    }
}

impl<M: ModelType, C: Codec<M>> Role for Client<M, C> {
    fn check_links(&self, links: &Links) -> Result<(), Failure> {
        if links.dialed.is_empty() || !links.accepted.is_empty() {
            return Err(Failure::bad_request(
                "a net_fetch client dials at least one server and accepts no one",
            ));
        }
        for link in &links.dialed {
            let plain = !link.peer.is_empty()
                && link
                    .peer
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
            if !plain {
                return Err(Failure::bad_request(format!(
                    "server name '{}' cannot name a file",
                    link.peer
                )));
            }
        }
        Ok(())
    }

    fn repetition(&mut self, links: &mut Links, timer: &IoTimer) -> Result<Outcome, Failure> {
        let mut buffers = std::mem::take(&mut self.buffers);
        buffers.resize_with(links.dialed.len(), Payload::default);
        let this = &*self;
        let fetched: Vec<Result<Fetched, Failure>> = thread::scope(|scope| {
            let threads: Vec<_> = links
                .dialed
                .iter_mut()
                .zip(buffers.iter_mut())
                .map(|(link, payload)| scope.spawn(move || this.fetch(link, payload)))
                .collect();
            threads
                .into_iter()
                .map(|t| {
                    t.join().unwrap_or_else(|_| {
                        Err(Failure::new(Kind::Internal, "a fetch thread panicked"))
                    })
                })
                .collect()
        });
        self.buffers = buffers;
        let fetched: Vec<Fetched> = fetched.into_iter().collect::<Result<_, _>>()?;
        // io is the mean over connections, so cpu = total - io stays a share of the wall time
        timer.add(fetched.iter().map(|f| f.io_ns).sum::<u64>() / fetched.len() as u64);
        let mut checksum = SetChecksum::default();
        for f in &fetched {
            checksum.merge(f.checksum);
        }
        let per_server: Vec<Value> = links
            .dialed
            .iter()
            .zip(&fetched)
            .map(|(l, f)| {
                json!({"server": l.peer, "ns": f.ns, "objects": f.streamed.objects,
                                  "bytes": f.streamed.bytes, "frames": f.streamed.frames})
            })
            .collect();
        let mut extra = serde_json::Map::new();
        extra.insert("servers".into(), Value::Array(per_server));
        Ok(Outcome {
            objects: fetched.iter().map(|f| f.streamed.objects).sum(),
            checksum: self.decode.map(|_| checksum),
            extra,
        })
    }
}
