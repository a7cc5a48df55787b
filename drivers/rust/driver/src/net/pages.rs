//! Network pages (PROTOCOL.md 10.3). A `Pages` frame is `u32 count`, `count` 16-byte entries
//! (page relative to the frame's first page, offset, length: the index entry layout), then
//! whole storage pages laid out exactly as in a paged file, so a receiver appends them to its
//! file unchanged and an object never spans two frames. Three parts: the packer (objects
//! encoded straight into a network page, `ram`), the shipper (stored pages sent as they are,
//! `disk`) and the receiver (frames appended to a paged file, optionally decoding each object).

use std::path::{Path, PathBuf};

use serbench_model::SetChecksum;

use super::wire::{peer_failure, FrameKind, Link};
use crate::paged::index::{EntriesHash, Header, ENTRY_BYTES};
use crate::paged::{data_path, index_path, Entry, PageReader, NO_RUN};
use crate::protocol::{Failure, Kind};
use crate::timing::{IoTimer, TimedFile};

/// A pages frame starts with the entry count and a reserved zero word, so the entries and
/// the pages after them keep 8-byte alignment in an aligned buffer.
pub const HEAD: usize = 8;

/// The default network page: the studies' 20 MiB.
pub const DEFAULT_NET_PAGE: u64 = 20 << 20;

/// A network page size from a request: at least one storage page, at most a frame of the
/// cell's (`max_frame`, from `params.net_frame_bytes`).
pub fn net_page_bytes(requested: u64, page_size: u32, max_frame: usize) -> Result<usize, Failure> {
    if requested < page_size as u64 + (HEAD + ENTRY_BYTES) as u64 || requested > max_frame as u64 {
        return Err(Failure::bad_request(format!(
            "params.net_page_bytes must be between a storage page ({page_size} bytes) plus one \
             entry and params.net_frame_bytes ({max_frame}), got {requested}"
        )));
    }
    Ok(requested as usize)
}

/// The failure of a sender whose object (or stored pages) would not fit the link's frame.
#[cold]
fn too_large(what: String, link: &Link) -> Failure {
    Failure::new(
        Kind::Internal,
        format!(
            "{what} a frame of {} (params.net_frame_bytes)",
            link.max_frame()
        ),
    )
}

fn frame_head(count: u32) -> [u8; HEAD] {
    let mut head = [0u8; HEAD];
    head[..4].copy_from_slice(&count.to_le_bytes());
    head
}

/// Counts of one stream, as the `End` frame reports them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Streamed {
    pub objects: u64,
    pub bytes: u64,
    pub frames: u64,
}

impl Streamed {
    /// Counts one checked pages frame: its object count and storage page bytes.
    pub fn add(&mut self, (count, pages): (usize, &[u8])) {
        self.objects += count as u64;
        self.bytes += pages.len() as u64;
        self.frames += 1;
    }

    /// Sends the end frame closing this stream (PROTOCOL.md 10.3).
    pub fn end(&self, page_size: u32, link: &mut Link, timer: &IoTimer) -> Result<(), Failure> {
        let summary = serde_json::json!({"objects": self.objects, "bytes": self.bytes,
            "frames": self.frames, "page_size": page_size});
        link.send_json(FrameKind::End, &summary, timer)
    }

    /// Compares an end frame's claims with what arrived; a difference names the peer.
    pub fn check_end(&self, end: &[u8], page_size: u32, peer: &str) -> Result<(), Failure> {
        let end = super::wire::json_object(end).map_err(|e| peer_failure(peer, e))?;
        let arrived = [
            ("objects", self.objects),
            ("bytes", self.bytes),
            ("frames", self.frames),
            ("page_size", page_size as u64),
        ];
        for (key, got) in arrived {
            let claimed = end.get(key);
            if claimed.and_then(serde_json::Value::as_u64) != Some(got) {
                let claimed = claimed.map_or("nothing".into(), ToString::to_string);
                return Err(peer_failure(
                    peer,
                    format!("the stream ended claiming {key} {claimed}, {got} arrived"),
                ));
            }
        }
        Ok(())
    }
}

/// Packs encoded objects into network pages and sends each when the next object would not
/// fit, applying the paged file's rules (PROTOCOL.md 4.1) within the frame.
pub struct Packer {
    page_size: usize,
    budget: usize,
    pages: Vec<u8>,
    /// Where the current (last) storage page starts in `pages`.
    page_start: usize,
    entries: Vec<u8>,
    count: u32,
    streamed: Streamed,
}

impl Packer {
    pub fn new(page_size: u32, budget: usize) -> Packer {
        Packer {
            page_size: page_size as usize,
            budget,
            pages: Vec::with_capacity(budget),
            page_start: 0,
            entries: Vec::new(),
            count: 0,
            streamed: Streamed::default(),
        }
    }

    /// Appends one object, which `encode` writes at the end of the network page.
    pub fn push(
        &mut self,
        align: usize,
        encode: impl FnOnce(&mut Vec<u8>),
        link: &mut Link,
        timer: &IoTimer,
    ) -> Result<(), Failure> {
        let p = self.page_size;
        let aligned =
            self.page_start + (self.pages.len() - self.page_start).next_multiple_of(align);
        self.pages.resize(aligned, 0);
        let mut at = self.pages.len();
        encode(&mut self.pages);
        let len = self.pages.len() - at;
        // an object larger than a network page travels alone, in a frame up to the link's
        // maximum (the cell's net_frame_bytes)
        if len == 0 || len.div_ceil(p) * p > link.max_frame() - HEAD - ENTRY_BYTES {
            return Err(too_large(
                format!("an object of {len} bytes does not fit"),
                link,
            ));
        }
        if at > self.page_start && at - self.page_start + len > p {
            // the object starts the next page: pad this one, move the object's bytes after it
            let next = self.page_start + p;
            self.pages.resize(next + len, 0);
            self.pages.copy_within(at..at + len, next);
            self.pages[at..next].fill(0);
            self.page_start = next;
            at = next;
        }
        let entries_after = HEAD + (self.count as usize + 1) * ENTRY_BYTES;
        if at == self.page_start && self.page_start > 0 && at + len + entries_after > self.budget {
            self.send_pages(self.page_start, link, timer)?;
            self.pages.drain(..self.page_start);
            self.page_start = 0;
            at = 0;
        }
        let entry = Entry {
            page: (self.page_start / p) as u64,
            offset: (at - self.page_start) as u32,
            length: len as u32,
        };
        self.entries.extend_from_slice(&entry.to_bytes());
        self.count += 1;
        if len > p {
            // a large object owns its pages; the next object starts after them
            self.page_start += len.div_ceil(p) * p;
            self.pages.resize(self.page_start, 0);
        }
        Ok(())
    }

    /// Sends the first `end` bytes of pages with every entry so far.
    fn send_pages(&mut self, end: usize, link: &mut Link, timer: &IoTimer) -> Result<(), Failure> {
        link.send(
            FrameKind::Pages,
            &[&frame_head(self.count), &self.entries, &self.pages[..end]],
            timer,
        )?;
        self.streamed.objects += self.count as u64;
        self.streamed.bytes += end as u64;
        self.streamed.frames += 1;
        self.entries.clear();
        self.count = 0;
        Ok(())
    }

    /// Sends what is left (its last page unpadded) and returns the stream's counts; the
    /// packer is ready for the next stream.
    pub fn finish(&mut self, link: &mut Link, timer: &IoTimer) -> Result<Streamed, Failure> {
        if self.count > 0 {
            self.send_pages(self.pages.len(), link, timer)?;
        }
        self.pages.clear();
        self.page_start = 0;
        Ok(std::mem::take(&mut self.streamed))
    }
}

/// Sends objects `start .. start + n` of an open paged file as the stored pages holding them,
/// grouped into network pages at object boundaries; `buffer` is reused across streams.
pub fn ship(
    reader: &PageReader<'_, '_>,
    (start, n): (u64, u64),
    budget: usize,
    buffer: &mut Vec<u8>,
    link: &mut Link,
    timer: &IoTimer,
) -> Result<Streamed, Failure> {
    let header = reader.header();
    let p = header.page_size as u64;
    let mut streamed = Streamed::default();
    let mut entries: Vec<u8> = Vec::new();
    let mut count = 0u32;
    // the frame's pages: first_page ..= last_page of the file
    let mut first_page = 0u64;
    let mut last_page: Option<u64> = None;
    let mut send = |first: u64, last: u64, entries: &mut Vec<u8>, count: &mut u32| {
        let from = first * p;
        let to = ((last + 1) * p).min(header.data_len);
        // a large stored object travels alone: refused before its pages are read if the
        // frame would exceed the link's maximum
        if to - from + (HEAD + entries.len()) as u64 > link.max_frame() as u64 {
            return Err(too_large(
                format!("stored pages of {} bytes do not fit", to - from),
                link,
            ));
        }
        buffer.resize((to - from) as usize, 0);
        reader
            .data()
            .read_exact_at(buffer, from)
            .map_err(|e| Failure::io(reader.data_path(), &e))?;
        link.send(
            FrameKind::Pages,
            &[&frame_head(*count), entries, buffer],
            timer,
        )?;
        streamed.objects += *count as u64;
        streamed.bytes += to - from;
        streamed.frames += 1;
        entries.clear();
        *count = 0;
        Ok::<(), Failure>(())
    };
    for k in start..start + n {
        let e = reader.entry(k);
        let last = e.page + e.pages(header.page_size) - 1;
        match last_page {
            Some(lp) if e.page > lp => {
                let bytes = (last - first_page + 1) * p
                    + (HEAD + (count as usize + 1) * ENTRY_BYTES) as u64;
                if bytes > budget as u64 {
                    send(first_page, lp, &mut entries, &mut count)?;
                    first_page = e.page;
                }
            }
            Some(_) => {}
            None => first_page = e.page,
        }
        let rebased = Entry {
            page: e.page - first_page,
            ..e
        };
        entries.extend_from_slice(&rebased.to_bytes());
        count += 1;
        last_page = Some(last_page.map_or(last, |lp| lp.max(last)));
    }
    if let Some(lp) = last_page {
        send(first_page, lp, &mut entries, &mut count)?;
    }
    Ok(streamed)
}

/// Checks every entry of one pages frame (`frame_no` of a stream from `peer`) against its
/// bytes before any is trusted, and calls `visit` with each object's entry and bytes in order;
/// returns the entry count and the frame's page bytes. A `visit` error names the object.
pub fn for_each_object<'p>(
    payload: &'p [u8],
    page_size: u32,
    peer: &str,
    frame_no: u64,
    mut visit: impl FnMut(Entry, &'p [u8]) -> Result<(), String>,
) -> Result<(usize, &'p [u8]), Failure> {
    let bad =
        |what: String| Failure::corrupt(format!("peer {peer}: network page {frame_no}: {what}"));
    let count = payload
        .get(..HEAD)
        .filter(|head| head[4..] == [0; 4])
        .map(|head| u32::from_le_bytes(head[..4].try_into().unwrap()) as usize)
        .ok_or_else(|| bad("has no entry count and zero word".into()))?;
    let pages_at = count
        .checked_mul(ENTRY_BYTES)
        .and_then(|e| e.checked_add(HEAD))
        .filter(|&end| end <= payload.len())
        .ok_or_else(|| {
            bad(format!(
                "{count} entries do not fit its {} bytes",
                payload.len()
            ))
        })?;
    let (entries, pages) = (&payload[HEAD..pages_at], &payload[pages_at..]);
    let p = page_size as usize;
    let mut end_of_previous = 0usize;
    for (i, raw) in entries.chunks_exact(ENTRY_BYTES).enumerate() {
        let e = Entry::from_bytes(raw);
        let start = (e.page as usize)
            .saturating_mul(p)
            .saturating_add(e.offset as usize);
        let len = e.length as usize;
        let fits = if len <= p {
            e.offset as usize + len <= p
        } else {
            e.offset == 0
        };
        if len == 0 || !fits || start < end_of_previous || start.saturating_add(len) > pages.len() {
            return Err(bad(format!(
                "object {i} (page {}, offset {}, length {len}) lies outside the page's {} bytes \
                 or overlaps the object before it",
                e.page,
                e.offset,
                pages.len()
            )));
        }
        end_of_previous = start + len;
        visit(e, &pages[start..start + len]).map_err(|why| bad(format!("object {i}: {why}")))?;
    }
    Ok((count, pages))
}

/// Appends received network pages to a paged file (`<base>.pages`, and its index at the end),
/// checking every entry against the frame before any byte of it is trusted.
pub struct Receiver<'t> {
    data: TimedFile<'t>,
    data_path: PathBuf,
    index_path: PathBuf,
    timer: &'t IoTimer,
    page_size: u32,
    entries: Vec<u8>,
    hash: EntriesHash,
    /// Pages and bytes received so far; whether the last frame ended in a partial page.
    pages: u64,
    bytes: u64,
    partial: bool,
    pub streamed: Streamed,
    pub checksum: SetChecksum,
}

impl<'t> Receiver<'t> {
    pub fn create(
        base: &Path,
        page_size: u32,
        timer: &'t IoTimer,
    ) -> Result<Receiver<'t>, Failure> {
        let data_path = data_path(base);
        let data = TimedFile::create(&data_path, timer).map_err(|e| Failure::io(&data_path, &e))?;
        Ok(Receiver {
            data,
            data_path,
            index_path: index_path(base),
            timer,
            page_size,
            entries: Vec::new(),
            hash: EntriesHash::default(),
            pages: 0,
            bytes: 0,
            partial: false,
            streamed: Streamed::default(),
            checksum: SetChecksum::default(),
        })
    }

    /// Takes one `Pages` frame from `peer`; `visit` sees every object's bytes (e.g. to decode
    /// it) and returns its hash when it computed one.
    pub fn frame(
        &mut self,
        payload: &[u8],
        peer: &str,
        mut visit: impl FnMut(&[u8]) -> Result<Option<u64>, String>,
    ) -> Result<(), Failure> {
        let frame_no = self.streamed.frames;
        if self.partial {
            return Err(Failure::corrupt(format!(
                "peer {peer}: network page {frame_no} follows one that ended inside a storage page"
            )));
        }
        let (checksum, hash, entries, first_page) = (
            &mut self.checksum,
            &mut self.hash,
            &mut self.entries,
            self.pages,
        );
        let (count, pages) =
            for_each_object(payload, self.page_size, peer, frame_no, |e, bytes| {
                if let Some(h) = visit(bytes)? {
                    checksum.add(h);
                }
                let rebased = Entry {
                    page: e.page + first_page,
                    ..e
                };
                hash.add(rebased);
                entries.extend_from_slice(&rebased.to_bytes());
                Ok(())
            })?;
        use std::io::Write;
        self.data
            .write_all(pages)
            .map_err(|e| Failure::io(&self.data_path, &e))?;
        let p = self.page_size as usize;
        self.pages += pages.len().div_ceil(p) as u64;
        self.bytes += pages.len() as u64;
        self.partial = !pages.len().is_multiple_of(p);
        self.streamed.add((count, pages));
        Ok(())
    }

    /// Fsyncs the data file, then writes and fsyncs the index (`writer` wrote the file).
    pub fn finish(self, model: &str, method: &str, writer: &str) -> Result<Streamed, Failure> {
        self.data
            .sync()
            .map_err(|e| Failure::io(&self.data_path, &e))?;
        let header = Header {
            page_size: self.page_size,
            count: self.streamed.objects,
            page_count: self.pages,
            data_len: self.bytes,
            entries_hash: self.hash.finish(),
            model: model.into(),
            method: method.into(),
            writer: writer.into(),
            run_stamp: NO_RUN, // received bytes: only validating reads open the file
        };
        use std::io::Write;
        let io = |e: std::io::Error| Failure::io(&self.index_path, &e);
        let mut index = TimedFile::create(&self.index_path, self.timer).map_err(io)?;
        index.write_all(&header.to_bytes()).map_err(io)?;
        index.write_all(&self.entries).map_err(io)?;
        index.sync().map_err(io)?;
        Ok(self.streamed)
    }
}

/// Network pages through a real socket: packed (`ram`) and shipped (`disk`) streams arrive
/// as paged files that the validating reader accepts, holding exactly the objects sent.
#[cfg(test)]
mod tests {
    use std::net::{TcpListener, TcpStream};
    use std::thread;
    use std::time::Duration;

    use serbench_model::{object_hash, Arrays, Hasher, SetChecksum};

    use super::*;
    use crate::methods::handcoded::Handcoded;
    use crate::methods::Codec;
    use crate::net::wire::Payload;
    use crate::protocol::Depth;
    use crate::tasks::write::write_file;
    use crate::tasks::{read_objects, Read, Selection};
    use crate::test_support::Scratch;

    const P: u32 = 64;

    /// Objects of handcoded lengths around and above the page size (8 + 4k bytes each).
    fn objects() -> Vec<Arrays> {
        [8, 40, 24, 64, 12, 200, 8, 60, 16, 132, 20, 28, 36]
            .iter()
            .map(|&len: &i32| Arrays {
                strings: vec![],
                ints: (0..(len - 8) / 4).collect(),
            })
            .collect()
    }

    fn links() -> (Link, Link) {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let a = TcpStream::connect(listener.local_addr().unwrap()).unwrap();
        let (b, _) = listener.accept().unwrap();
        let t = Duration::from_secs(5);
        (
            Link::new("sender".into(), a, t).unwrap(),
            Link::new("receiver".into(), b, t).unwrap(),
        )
    }

    /// Receives one stream into `base`, decoding every object; returns the counts and the
    /// set checksum of the decoded objects.
    fn receive(mut link: Link, base: &Path) -> (Streamed, SetChecksum) {
        let timer = IoTimer::default();
        let mut receiver = Receiver::create(base, P, &timer).unwrap();
        let mut payload = Payload::default();
        while link.recv(&mut payload, &timer).unwrap() == FrameKind::Pages {
            receiver
                .frame(&payload, "sender", |bytes| {
                    let mut h = Hasher::new();
                    Codec::<Arrays>::fold(&mut Handcoded, bytes, Depth::Materialize, &mut h)
                        .map_err(|e| e.to_string())?;
                    Ok(Some(h.finish()))
                })
                .unwrap();
        }
        receiver.streamed.check_end(&payload, P, "sender").unwrap();
        let checksum = receiver.checksum;
        (
            receiver.finish("arrays", "handcoded", "rust").unwrap(),
            checksum,
        )
    }

    fn read_back(base: &Path) -> SetChecksum {
        let read = Read {
            base,
            selection: Selection::All,
            depth: Depth::Access,
            page_size: Some(P),
            run_stamp: NO_RUN,
        };
        read_objects::<Arrays, _>(
            &mut Handcoded,
            read,
            &mut Default::default(),
            &IoTimer::default(),
        )
        .unwrap()
        .checksum
    }

    #[test]
    fn packed_objects_arrive_as_a_valid_paged_file_in_several_frames() {
        let scratch = Scratch::new();
        let objects = objects();
        let (mut tx, rx) = links();
        let base = scratch.join("got");
        let receiving = {
            let base = base.clone();
            thread::spawn(move || receive(rx, &base))
        };
        let timer = IoTimer::default();
        // room for four pages a frame: the 200-byte object alone takes four
        let mut packer = Packer::new(P, 4 * P as usize + HEAD + 16 * 8);
        for o in &objects {
            packer
                .push(
                    1,
                    |out| Codec::<Arrays>::encode(&mut Handcoded, o, out),
                    &mut tx,
                    &timer,
                )
                .unwrap();
        }
        let sent = packer.finish(&mut tx, &timer).unwrap();
        sent.end(P, &mut tx, &timer).unwrap();
        let (got, decoded) = receiving.join().unwrap();
        let expected: SetChecksum = objects.iter().map(object_hash).collect();
        assert_eq!(got, sent);
        assert!(sent.frames >= 3, "{sent:?}");
        assert_eq!(decoded, expected);
        assert_eq!(read_back(&base), expected);
    }

    #[test]
    fn shipped_pages_of_a_range_arrive_with_only_its_objects() {
        let scratch = Scratch::new();
        let objects = objects();
        let source = scratch.join("source");
        write_file(
            &mut Handcoded,
            &objects,
            &source,
            P,
            NO_RUN,
            &IoTimer::default(),
        )
        .unwrap();
        let (mut tx, rx) = links();
        let base = scratch.join("got");
        let receiving = {
            let base = base.clone();
            thread::spawn(move || receive(rx, &base))
        };
        let timer = IoTimer::default();
        let mut page = crate::paged::PageBuffer::default();
        let expect = crate::paged::Expect {
            model: "arrays",
            method: Some("handcoded"),
            page_size: None,
        };
        let reader = PageReader::open(&source, expect, &timer, &mut page).unwrap();
        let (start, n) = (2, 9);
        let sent = ship(
            &reader,
            (start, n),
            3 * P as usize + HEAD + 16 * 8,
            &mut Vec::new(),
            &mut tx,
            &timer,
        )
        .unwrap();
        sent.end(P, &mut tx, &timer).unwrap();
        let (got, decoded) = receiving.join().unwrap();
        let expected: SetChecksum = objects[2..11].iter().map(object_hash).collect();
        assert_eq!((got, sent.objects), (sent, n));
        assert!(sent.frames >= 3, "{sent:?}");
        assert_eq!(decoded, expected);
        assert_eq!(read_back(&base), expected);
    }

    /// One object of 80,008 bytes, above a 64 KiB frame: refused by the packer naming the
    /// parameter to raise, and through a link whose maximum is 1 MiB it travels alone.
    #[test]
    fn an_object_above_the_links_frame_names_params_net_frame_bytes_and_fits_a_larger_one() {
        let big = Arrays {
            strings: vec![],
            ints: (0..20_000).collect(),
        };
        let timer = IoTimer::default();
        let (mut tx, _rx) = links();
        tx.set_max_frame(64 << 10);
        let mut packer = Packer::new(P, 4096);
        let e = packer
            .push(
                1,
                |out| Codec::<Arrays>::encode(&mut Handcoded, &big, out),
                &mut tx,
                &timer,
            )
            .unwrap_err();
        assert_eq!(e.kind, Kind::Internal);
        assert_eq!(
            e.message,
            "an object of 80008 bytes does not fit a frame of 65536 (params.net_frame_bytes)"
        );
        assert_eq!(tx.bytes_sent, 0);

        let scratch = Scratch::new();
        let base = scratch.join("got");
        let (mut tx, mut rx) = links();
        tx.set_max_frame(1 << 20);
        rx.set_max_frame(1 << 20);
        let receiving = {
            let base = base.clone();
            thread::spawn(move || receive(rx, &base))
        };
        let mut packer = Packer::new(P, 4096);
        packer
            .push(
                1,
                |out| Codec::<Arrays>::encode(&mut Handcoded, &big, out),
                &mut tx,
                &timer,
            )
            .unwrap();
        let sent = packer.finish(&mut tx, &timer).unwrap();
        sent.end(P, &mut tx, &timer).unwrap();
        let (got, decoded) = receiving.join().unwrap();
        assert_eq!((got, sent.frames), (sent, 1));
        assert!(sent.bytes > 64 << 10);
        assert_eq!(decoded, [object_hash(&big)].into_iter().collect());
    }

    /// A stored object whose pages exceed the link's frame is refused before they are read.
    #[test]
    fn stored_pages_above_the_links_frame_are_refused_naming_params_net_frame_bytes() {
        let scratch = Scratch::new();
        let source = scratch.join("source");
        let big = Arrays {
            strings: vec![],
            ints: (0..20_000).collect(),
        };
        let timer = IoTimer::default();
        write_file(&mut Handcoded, &[big], &source, P, NO_RUN, &timer).unwrap();
        let mut page = crate::paged::PageBuffer::default();
        let expect = crate::paged::Expect {
            model: "arrays",
            method: Some("handcoded"),
            page_size: None,
        };
        let reader = PageReader::open(&source, expect, &timer, &mut page).unwrap();
        let (mut tx, _rx) = links();
        tx.set_max_frame(64 << 10);
        let mut buffer = Vec::new();
        let e = ship(&reader, (0, 1), 4096, &mut buffer, &mut tx, &timer).unwrap_err();
        assert_eq!(
            e.message,
            "stored pages of 80008 bytes do not fit a frame of 65536 (params.net_frame_bytes)"
        );
        assert!(buffer.is_empty() && tx.bytes_sent == 0);
    }

    #[test]
    fn a_network_page_may_not_exceed_the_cells_frame() {
        assert_eq!(net_page_bytes(100 << 20, P, 256 << 20).unwrap(), 100 << 20);
        let e = net_page_bytes(2 << 20, P, 1 << 20).unwrap_err();
        assert_eq!(e.kind, Kind::BadRequest);
        assert_eq!(
            e.message,
            "params.net_page_bytes must be between a storage page (64 bytes) plus one entry and \
             params.net_frame_bytes (1048576), got 2097152"
        );
    }

    #[test]
    fn an_end_frame_claiming_other_counts_is_refused_naming_the_peer() {
        let arrived = Streamed {
            objects: 3,
            bytes: 2 * P as u64,
            frames: 2,
        };
        let end = |frames: u64| {
            format!(
                r#"{{"objects": 3, "bytes": {}, "frames": {frames}, "page_size": {P}}}"#,
                2 * P
            )
        };
        arrived.check_end(end(2).as_bytes(), P, "peer-a").unwrap();
        let lost_frame = arrived
            .check_end(end(3).as_bytes(), P, "peer-a")
            .unwrap_err();
        assert!(lost_frame.message.contains("peer-a"), "{lost_frame:?}");
        assert!(
            lost_frame.message.contains("claiming frames 3, 2 arrived"),
            "{lost_frame:?}"
        );
        let other_pages = arrived
            .check_end(end(2).as_bytes(), 2 * P, "peer-a")
            .unwrap_err();
        assert!(
            other_pages.message.contains("claiming page_size"),
            "{other_pages:?}"
        );
        let empty = arrived.check_end(b"{}", P, "peer-a").unwrap_err();
        assert!(
            empty.message.contains("claiming objects nothing"),
            "{empty:?}"
        );
    }

    #[test]
    fn entries_outside_the_frame_are_refused_naming_peer_and_page() {
        let scratch = Scratch::new();
        let timer = IoTimer::default();
        let mut receiver = Receiver::create(&scratch.join("x"), P, &timer).unwrap();
        let entry = Entry {
            page: 0,
            offset: 60,
            length: 8,
        };
        let mut payload = frame_head(1).to_vec();
        payload.extend(entry.to_bytes());
        payload.extend([0u8; 64]);
        let e = receiver
            .frame(&payload, "server3", |_| Ok(None))
            .unwrap_err();
        assert_eq!(e.kind, Kind::CorruptInput);
        assert!(
            e.message
                .starts_with("peer server3: network page 0: object 0"),
            "{e}"
        );
        let e = receiver
            .frame(&frame_head(u32::MAX), "server3", |_| Ok(None))
            .unwrap_err();
        assert!(e.message.contains("entries do not fit"), "{e}");
    }
}
