//! The wire between nodes and between the harness and a node (PROTOCOL.md section 10): frames
//! of `u32 length | u8 kind | payload`, a maximum frame size per link checked before anything
//! is allocated (fixed for the harness's link and the hello, the cell's `net_frame_bytes`
//! between data nodes), and a handshake that carries the run's token and names both ends'
//! task, method and model, so a node refuses a stranger and a peer speaking anything else.

use std::io::{self, IoSlice, Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use serde_json::{json, Value};

use crate::paged::PageBuffer;
use crate::protocol::{Failure, Kind, Params};
use crate::timing::IoTimer;

/// The largest frame payload on a link until it is told otherwise: the harness's control link
/// keeps it, and it is the default of a data link's (`params.net_frame_bytes`). A declared
/// length above a link's maximum is refused before any allocation.
pub const MAX_FRAME: usize = 64 << 20;
/// The bounds of `params.net_frame_bytes`: a data link's maximum frame (a network page, at
/// most this, with its entries, or one larger object alone). Every driver checks the same.
pub const MIN_NET_FRAME: usize = 64 << 10;
pub const MAX_NET_FRAME: usize = 1 << 30;
/// The first bytes of every hello: anything else on a fresh connection is not a serbench peer.
pub const MAGIC: &[u8; 8] = b"SERBNET1";
/// The largest hello payload a node reads from a fresh connection: a stranger's declared
/// length above it is refused before anything is allocated.
pub const MAX_HELLO: usize = 4096;
pub const HEADER: usize = 5;

/// What a frame carries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FrameKind {
    /// `MAGIC` then a JSON object: who is speaking and what it speaks.
    Hello = 1,
    /// A JSON object: the harness's control messages and the nodes' answers.
    Control = 2,
    /// A network page: entries and whole storage pages (section 10.3).
    Pages = 3,
    /// The end of one stream: a JSON summary.
    End = 4,
    /// A request for one stream: a JSON object.
    Request = 5,
    /// The sender failed: a JSON `{"kind", "message"}`; the connection closes after it.
    Error = 6,
}

impl FrameKind {
    fn from_byte(b: u8) -> Option<FrameKind> {
        use FrameKind::*;
        [Hello, Control, Pages, End, Request, Error]
            .into_iter()
            .find(|k| *k as u8 == b)
    }
}

/// A received frame's payload, in a 4096-aligned buffer reused from frame to frame: network
/// pages keep the paged file's alignment, so in-place formats read objects where they lie.
#[derive(Default)]
pub struct Payload {
    buffer: PageBuffer,
    len: usize,
}

impl Payload {
    /// The first `len` bytes, to be filled.
    fn fill(&mut self, len: usize) -> &mut [u8] {
        self.len = len;
        self.buffer.first_mut(len)
    }
}

impl std::ops::Deref for Payload {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        &self.buffer.bytes()[..self.len]
    }
}

/// The largest frame between this cell's data nodes (`params.net_frame_bytes`, default
/// `MAX_FRAME`), refused outside `MIN_NET_FRAME..=MAX_NET_FRAME`.
pub fn net_frame_bytes(params: &Params) -> Result<usize, Failure> {
    let requested = params.u64_or("net_frame_bytes", MAX_FRAME as u64)?;
    if requested < MIN_NET_FRAME as u64 || requested > MAX_NET_FRAME as u64 {
        return Err(Failure::bad_request(format!(
            "params.net_frame_bytes must be between {MIN_NET_FRAME} and {MAX_NET_FRAME}, got \
             {requested}"
        )));
    }
    Ok(requested as usize)
}

/// A network failure naming the peer.
#[cold]
pub fn peer_failure(peer: &str, what: impl std::fmt::Display) -> Failure {
    Failure::new(Kind::Network, format!("peer {peer}: {what}"))
}

/// One TCP connection to a named peer, counting the bytes it moves and timing every socket
/// call as io (a node blocked on its peers is not computing).
pub struct Link {
    pub peer: String,
    stream: TcpStream,
    /// The largest frame payload it sends or accepts.
    max_frame: usize,
    pub bytes_sent: u64,
    pub bytes_received: u64,
}

impl Link {
    /// `timeout`: how long a read or write may block before the peer counts as dead.
    pub fn new(peer: String, stream: TcpStream, timeout: Duration) -> Result<Link, Failure> {
        let setup = |r: io::Result<()>| r.map_err(|e| peer_failure(&peer, e));
        setup(stream.set_nodelay(true))?;
        setup(stream.set_read_timeout(Some(timeout)))?;
        setup(stream.set_write_timeout(Some(timeout)))?;
        Ok(Link {
            peer,
            stream,
            max_frame: MAX_FRAME,
            bytes_sent: 0,
            bytes_received: 0,
        })
    }

    /// The largest frame payload it sends or accepts (`MAX_FRAME` until told otherwise).
    pub fn max_frame(&self) -> usize {
        self.max_frame
    }

    /// A data link's maximum, the cell's `net_frame_bytes`, set once its hello is through.
    pub fn set_max_frame(&mut self, max: usize) {
        self.max_frame = max;
    }

    /// How long a read or write may block from now on.
    pub fn set_timeout(&mut self, timeout: Duration) -> Result<(), Failure> {
        self.stream
            .set_read_timeout(Some(timeout))
            .and_then(|()| self.stream.set_write_timeout(Some(timeout)))
            .map_err(|e| peer_failure(&self.peer, e))
    }

    /// Sends one frame whose payload is the concatenation of `parts`.
    pub fn send(
        &mut self,
        kind: FrameKind,
        parts: &[&[u8]],
        timer: &IoTimer,
    ) -> Result<(), Failure> {
        let len: usize = parts.iter().map(|p| p.len()).sum();
        if len > self.max_frame {
            return Err(Failure::new(
                Kind::Internal,
                format!(
                    "a {len}-byte frame to {} exceeds the maximum {}",
                    self.peer, self.max_frame
                ),
            ));
        }
        let mut header = [0u8; HEADER];
        header[..4].copy_from_slice(&(len as u32).to_le_bytes());
        header[4] = kind as u8;
        let mut slices: Vec<IoSlice<'_>> = Vec::with_capacity(parts.len() + 1);
        slices.push(IoSlice::new(&header));
        slices.extend(parts.iter().map(|p| IoSlice::new(p)));
        timer
            .time(|| write_all_vectored(&mut self.stream, &mut slices))
            .map_err(|e| peer_failure(&self.peer, format!("sending a frame: {e}")))?;
        self.bytes_sent += (HEADER + len) as u64;
        Ok(())
    }

    pub fn send_json(
        &mut self,
        kind: FrameKind,
        value: &Value,
        timer: &IoTimer,
    ) -> Result<(), Failure> {
        let bytes = serde_json::to_vec(value).expect("a JSON value serializes");
        self.send(kind, &[&bytes], timer)
    }

    /// Receives one frame into `payload` (reused; resized to the frame's length). An error
    /// frame from the peer becomes the failure it names.
    pub fn recv(&mut self, payload: &mut Payload, timer: &IoTimer) -> Result<FrameKind, Failure> {
        self.recv_at_most(self.max_frame, payload, timer)
    }

    /// As `recv`, refusing a declared length above `max` before reading the payload.
    fn recv_at_most(
        &mut self,
        max: usize,
        payload: &mut Payload,
        timer: &IoTimer,
    ) -> Result<FrameKind, Failure> {
        let mut header = [0u8; HEADER];
        timer
            .time(|| self.stream.read_exact(&mut header))
            .map_err(|e| self.read_failure(e))?;
        let (kind, len) = parse_header(header, self.max_frame, &self.peer)?;
        if len > max {
            return Err(peer_failure(
                &self.peer,
                format!("a {kind:?} frame of {len} bytes exceeds its maximum {max}"),
            ));
        }
        let into = payload.fill(len);
        timer
            .time(|| self.stream.read_exact(into))
            .map_err(|e| self.read_failure(e))?;
        self.bytes_received += (HEADER + len) as u64;
        if kind == FrameKind::Error {
            return Err(self.reported_failure(payload));
        }
        Ok(kind)
    }

    /// Receives one frame that must be `want` and carry a JSON object.
    pub fn recv_json(&mut self, want: FrameKind, timer: &IoTimer) -> Result<Value, Failure> {
        let mut payload = Payload::default();
        let kind = self.recv(&mut payload, timer)?;
        if kind != want {
            return Err(peer_failure(
                &self.peer,
                format!("expected a {want:?} frame, got {kind:?}"),
            ));
        }
        json_object(&payload)
            .map(Value::Object)
            .map_err(|e| peer_failure(&self.peer, e))
    }

    /// Tells the peer why this node stops; best effort (the peer may be gone already).
    pub fn send_error(&mut self, failure: &Failure) {
        let body = json!({"kind": failure.kind.id(), "message": failure.message});
        let _ = self.send_json(FrameKind::Error, &body, &IoTimer::default());
    }

    fn read_failure(&self, e: io::Error) -> Failure {
        let what = match e.kind() {
            io::ErrorKind::UnexpectedEof => "closed the connection mid-stream (died?)".to_string(),
            io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut => {
                "sent nothing within the peer timeout (hung or dead?)".to_string()
            }
            _ => e.to_string(),
        };
        peer_failure(&self.peer, what)
    }

    fn reported_failure(&self, payload: &[u8]) -> Failure {
        let body = json_object(payload).unwrap_or_default();
        let text = |k: &str| {
            body.get(k)
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string()
        };
        peer_failure(
            &self.peer,
            format!("failed: {}: {}", text("kind"), text("message")),
        )
    }
}

/// A frame header's kind and payload length, checked against `max` before anything is
/// allocated.
pub fn parse_header(
    header: [u8; HEADER],
    max: usize,
    peer: &str,
) -> Result<(FrameKind, usize), Failure> {
    let len = u32::from_le_bytes(header[..4].try_into().unwrap()) as usize;
    let kind = FrameKind::from_byte(header[4]).ok_or_else(|| {
        peer_failure(
            peer,
            format!("unknown frame kind {} (garbage on the socket?)", header[4]),
        )
    })?;
    if len > max {
        return Err(peer_failure(
            peer,
            format!("a frame of {len} bytes exceeds the maximum {max}"),
        ));
    }
    Ok((kind, len))
}

fn write_all_vectored(stream: &mut TcpStream, mut slices: &mut [IoSlice<'_>]) -> io::Result<()> {
    while !slices.is_empty() {
        match stream.write_vectored(slices) {
            Ok(0) => return Err(io::ErrorKind::WriteZero.into()),
            Ok(n) => IoSlice::advance_slices(&mut slices, n),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// A payload that must be one JSON object.
pub fn json_object(payload: &[u8]) -> Result<serde_json::Map<String, Value>, String> {
    match serde_json::from_slice::<Value>(payload) {
        Ok(Value::Object(map)) => Ok(map),
        Ok(_) => Err("a frame that should hold a JSON object holds another JSON value".into()),
        Err(e) => Err(format!("a frame that should hold JSON does not parse: {e}")),
    }
}

/// What one end of a connection says it is (section 10.2).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hello {
    /// `control` (the harness) or `data` (a peer node).
    pub role: String,
    /// The speaker's node name (the harness: `harness`).
    pub from: String,
    /// The cell's secret: a node admits only connections whose hello carries its own.
    pub token: String,
    /// task, method, model and variant: a data peer must match all four.
    pub speaks: [String; 4],
}

impl Hello {
    pub fn to_payload(&self) -> Vec<u8> {
        let [task, method, model, variant] = &self.speaks;
        let body = json!({"role": self.role, "from": self.from, "token": self.token,
                          "task": task, "method": method, "model": model, "variant": variant});
        let mut out = MAGIC.to_vec();
        out.extend(serde_json::to_vec(&body).expect("serializes"));
        out
    }

    /// Parses a hello payload from a connection we know only as `peer` (its address).
    pub fn parse(payload: &[u8], peer: &str) -> Result<Hello, Failure> {
        let body = payload
            .strip_prefix(MAGIC)
            .ok_or_else(|| peer_failure(peer, "not a serbench peer (no hello magic)"))?;
        let body = json_object(body).map_err(|e| peer_failure(peer, e))?;
        let text = |k: &str| {
            body.get(k)
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string()
        };
        Ok(Hello {
            role: text("role"),
            from: text("from"),
            token: text("token"),
            speaks: ["task", "method", "model", "variant"].map(text),
        })
    }

    /// Checks the hello's token against this node's in constant time; the refusal names the
    /// connection's address `from`, never a token.
    pub fn check_token(&self, mine: &str, from: &str) -> Result<(), Failure> {
        let what = if self.token.is_empty() {
            "no token"
        } else if same_token(&self.token, mine) {
            return Ok(());
        } else {
            "wrong token"
        };
        Err(peer_failure(from, what))
    }

    /// Checks a data peer's hello against what this node speaks.
    pub fn check_speaks(&self, mine: &[String; 4], peer: &str) -> Result<(), Failure> {
        for (what, (theirs, ours)) in ["task", "method", "model", "variant"]
            .iter()
            .zip(self.speaks.iter().zip(mine))
        {
            if theirs != ours {
                return Err(peer_failure(
                    peer,
                    format!("speaks {what} '{theirs}', this node speaks '{ours}'"),
                ));
            }
        }
        Ok(())
    }
}

/// Whether two tokens are equal, in a time that depends on their lengths only (a stranger
/// timing the answers learns nothing of the token's bytes).
pub fn same_token(theirs: &str, mine: &str) -> bool {
    let (a, b) = (theirs.as_bytes(), mine.as_bytes());
    let differ = a
        .iter()
        .zip(b)
        .fold(a.len() ^ b.len(), |d, (x, y)| d | usize::from(x ^ y));
    std::hint::black_box(differ) == 0
}

/// Reads a fresh connection's first frame, which must be a hello of at most `MAX_HELLO` bytes.
pub fn recv_hello(link: &mut Link, timer: &IoTimer) -> Result<Hello, Failure> {
    let mut payload = Payload::default();
    let kind = link.recv_at_most(MAX_HELLO, &mut payload, timer)?;
    if kind != FrameKind::Hello {
        return Err(peer_failure(
            &link.peer,
            "not a serbench peer (its first frame is no hello)",
        ));
    }
    Hello::parse(&payload, &link.peer)
}

#[cfg(test)]
mod tests {
    use std::net::TcpListener;
    use std::thread;

    use super::*;

    /// A connected pair of links over loopback.
    fn pair() -> (Link, TcpStream) {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let client = TcpStream::connect(listener.local_addr().unwrap()).unwrap();
        let (server, _) = listener.accept().unwrap();
        (
            Link::new("server".into(), server, Duration::from_secs(5)).unwrap(),
            client,
        )
    }

    fn hello() -> Hello {
        Hello {
            role: "data".into(),
            from: "leaf0".into(),
            token: "0123456789abcdef0123456789abcdef".into(),
            speaks: ["net_fetch", "handcoded", "part", "disk"].map(String::from),
        }
    }

    #[test]
    fn frames_round_trip_and_count_bytes() {
        let (mut a, raw) = pair();
        let mut b = Link::new("a".into(), raw, Duration::from_secs(5)).unwrap();
        let t = IoTimer::default();
        b.send(FrameKind::Pages, &[b"abc", b"defg"], &t).unwrap();
        b.send_json(FrameKind::Control, &json!({"op": "go"}), &t)
            .unwrap();
        let mut buf = Payload::default();
        assert_eq!(a.recv(&mut buf, &t).unwrap(), FrameKind::Pages);
        assert_eq!(&*buf, b"abcdefg");
        assert_eq!(a.recv_json(FrameKind::Control, &t).unwrap()["op"], "go");
        assert_eq!(b.bytes_sent, a.bytes_received);
        assert_eq!(a.bytes_received, 5 + 7 + 5 + 11);
    }

    #[test]
    fn a_huge_declared_length_is_refused_without_allocating_it() {
        let (mut a, mut raw) = pair();
        let mut header = u32::MAX.to_le_bytes().to_vec();
        header.push(FrameKind::Pages as u8);
        raw.write_all(&header).unwrap();
        let mut buf = Payload::default();
        let e = a.recv(&mut buf, &IoTimer::default()).unwrap_err();
        assert_eq!(e.kind, Kind::Network);
        assert!(e.message.contains("peer server") && e.message.contains("exceeds the maximum"));
        assert!(buf.is_empty());
    }

    /// A data link's maximum is its cell's: a frame up to it arrives, a longer one is refused
    /// from its header by the receiver (nothing allocated) and by the sender (nothing sent).
    #[test]
    fn a_data_link_takes_frames_up_to_its_own_maximum_and_refuses_longer_unread() {
        let (mut a, mut raw) = pair();
        let mut b =
            Link::new("a".into(), raw.try_clone().unwrap(), Duration::from_secs(5)).unwrap();
        let limit = 1 << 20;
        a.set_max_frame(limit);
        b.set_max_frame(limit);
        let sender = thread::spawn(move || {
            let t = IoTimer::default();
            let page = vec![7u8; limit];
            b.send(FrameKind::Pages, &[&page], &t).unwrap();
            let e = b.send(FrameKind::Pages, &[&page, b"x"], &t).unwrap_err();
            assert_eq!(e.kind, Kind::Internal);
            assert_eq!(
                e.message,
                "a 1048577-byte frame to a exceeds the maximum 1048576"
            );
            assert_eq!(b.bytes_sent, (HEADER + limit) as u64);
        });
        let t = IoTimer::default();
        let mut buf = Payload::default();
        assert_eq!(a.recv(&mut buf, &t).unwrap(), FrameKind::Pages);
        assert_eq!(buf.len(), limit);
        sender.join().unwrap();

        let mut header = ((limit + 1) as u32).to_le_bytes().to_vec();
        header.push(FrameKind::Pages as u8);
        raw.write_all(&header).unwrap();
        let mut fresh = Payload::default();
        let e = a.recv(&mut fresh, &t).unwrap_err();
        assert_eq!(e.kind, Kind::Network);
        assert_eq!(
            e.message,
            "peer server: a frame of 1048577 bytes exceeds the maximum 1048576"
        );
        assert!(fresh.is_empty() && fresh.buffer.bytes().is_empty());
    }

    /// Above 64 MiB (the control link's maximum and the default): a frame a link allows
    /// arrives whole (the aggregation's sums of BSON vectors need this), a hostile length is
    /// still refused before anything is allocated, and the harness's link keeps 64 MiB.
    #[test]
    fn a_frame_above_64_mib_passes_a_link_whose_maximum_allows_it() {
        let (mut a, raw) = pair();
        let mut b = Link::new("a".into(), raw, Duration::from_secs(5)).unwrap();
        let limit = 128 << 20;
        a.set_max_frame(limit);
        b.set_max_frame(limit);
        let len = MAX_FRAME + 4097;
        let sender = thread::spawn(move || {
            let big: Vec<u8> = (0..len).map(|i| i as u8).collect();
            b.send(
                FrameKind::Pages,
                &[&big[..8], &big[8..]],
                &IoTimer::default(),
            )
            .unwrap();
            b
        });
        let mut buf = Payload::default();
        assert_eq!(
            a.recv(&mut buf, &IoTimer::default()).unwrap(),
            FrameKind::Pages
        );
        assert_eq!(buf.len(), len);
        assert!(buf.iter().enumerate().all(|(i, b)| *b == i as u8));
        let mut b = sender.join().unwrap();
        assert_eq!(b.bytes_sent, a.bytes_received);

        let mut header = u32::MAX.to_le_bytes();
        let hostile = [
            header[0],
            header[1],
            header[2],
            header[3],
            FrameKind::Pages as u8,
        ];
        let e = parse_header(hostile, MAX_NET_FRAME, "p").unwrap_err();
        assert_eq!(
            e.message,
            "peer p: a frame of 4294967295 bytes exceeds the maximum 1073741824"
        );
        header = ((MAX_FRAME + 1) as u32).to_le_bytes();
        let just_over = [
            header[0],
            header[1],
            header[2],
            header[3],
            FrameKind::Pages as u8,
        ];
        assert_eq!(
            parse_header(just_over, limit, "p").unwrap(),
            (FrameKind::Pages, MAX_FRAME + 1)
        );
        assert!(parse_header(just_over, MAX_FRAME, "p").is_err());
        // the sender's end of a default link (the harness's) still stops at 64 MiB
        b.set_max_frame(MAX_FRAME);
        let e = b
            .send(
                FrameKind::Control,
                &[&vec![0u8; MAX_FRAME + 1]],
                &IoTimer::default(),
            )
            .unwrap_err();
        assert!(e.message.ends_with("exceeds the maximum 67108864"), "{e}");
    }

    #[test]
    fn net_frame_bytes_defaults_to_64_mib_and_is_refused_out_of_its_bounds() {
        let params =
            |v: Value| Params(json!({ "net_frame_bytes": v }).as_object().unwrap().clone());
        assert_eq!(net_frame_bytes(&Params::default()).unwrap(), 64 << 20);
        assert_eq!(net_frame_bytes(&params(json!(65536))).unwrap(), 65536);
        assert_eq!(
            net_frame_bytes(&params(json!(1u64 << 30))).unwrap(),
            1 << 30
        );
        for bad in [
            json!(65535),
            json!((1u64 << 30) + 1),
            json!(1u64 << 40),
            json!(0),
        ] {
            let e = net_frame_bytes(&params(bad.clone())).unwrap_err();
            assert_eq!(e.kind, Kind::BadRequest);
            assert_eq!(
                e.message,
                format!("params.net_frame_bytes must be between 65536 and 1073741824, got {bad}")
            );
        }
        assert!(net_frame_bytes(&params(json!("big"))).is_err());
    }

    #[test]
    fn truncated_frames_garbage_and_errors_name_the_peer() {
        let (mut a, mut raw) = pair();
        raw.write_all(&[10, 0, 0, 0, FrameKind::Pages as u8, 1, 2])
            .unwrap();
        drop(raw);
        let e = a
            .recv(&mut Payload::default(), &IoTimer::default())
            .unwrap_err();
        assert!(
            e.message.contains("closed the connection mid-stream"),
            "{e}"
        );

        let (mut a, mut raw) = pair();
        raw.write_all(b"GET / HTTP/1.1\r\n\r\n").unwrap();
        let e = recv_hello(&mut a, &IoTimer::default()).unwrap_err();
        assert!(
            e.message.contains("peer server") && e.message.contains("unknown frame kind"),
            "{e}"
        );

        let (mut a, raw) = pair();
        let mut b = Link::new("a".into(), raw, Duration::from_secs(5)).unwrap();
        b.send_error(&Failure::corrupt("part.pages: page 3"));
        let e = a
            .recv(&mut Payload::default(), &IoTimer::default())
            .unwrap_err();
        assert_eq!(
            e.message,
            "peer server: failed: corrupt_input: part.pages: page 3"
        );
    }

    #[test]
    fn a_silent_peer_times_out() {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let _client = TcpStream::connect(listener.local_addr().unwrap()).unwrap();
        let (server, _) = listener.accept().unwrap();
        let mut a = Link::new("quiet".into(), server, Duration::from_millis(50)).unwrap();
        let e = a
            .recv(&mut Payload::default(), &IoTimer::default())
            .unwrap_err();
        assert!(
            e.message
                .contains("peer quiet: sent nothing within the peer timeout"),
            "{e}"
        );
    }

    #[test]
    fn hellos_round_trip_and_a_mismatch_is_named() {
        let h = hello();
        assert_eq!(Hello::parse(&h.to_payload(), "x").unwrap(), h);
        let mine = ["net_fetch", "json", "part", "disk"].map(String::from);
        let e = h.check_speaks(&mine, "127.0.0.1:9").unwrap_err();
        assert_eq!(
            e.message,
            "peer 127.0.0.1:9: speaks method 'handcoded', this node speaks 'json'"
        );
        let e = Hello::parse(b"SERBNET1[1]", "p").unwrap_err();
        assert!(e.message.contains("JSON object"), "{e}");
    }

    #[test]
    fn only_the_same_token_passes_and_a_refusal_names_the_address_not_the_token() {
        let h = hello();
        assert!(h.check_token(&h.token, "10.0.0.5:4711").is_ok());
        for (theirs, said) in [
            ("", "no"),
            ("0123456789abcdef0123456789abcdeF", "wrong"),
            ("0123456789abcdef", "wrong"),
            ("x", "wrong"),
        ] {
            let e = Hello {
                token: theirs.into(),
                ..hello()
            }
            .check_token(&h.token, "10.0.0.5:4711")
            .unwrap_err();
            assert_eq!(e.kind, Kind::Network);
            assert_eq!(e.message, format!("peer 10.0.0.5:4711: {said} token"));
        }
        assert!(same_token("ab", "ab") && !same_token("ab", "abc") && !same_token("", "a"));
    }

    #[test]
    fn a_hello_longer_than_its_maximum_is_refused_unread() {
        let (mut a, mut raw) = pair();
        let mut header = ((MAX_HELLO + 1) as u32).to_le_bytes().to_vec();
        header.push(FrameKind::Hello as u8);
        raw.write_all(&header).unwrap();
        let e = recv_hello(&mut a, &IoTimer::default()).unwrap_err();
        assert!(e.message.contains("exceeds its maximum 4096"), "{e}");
    }

    #[test]
    fn a_hello_sent_over_a_socket_is_checked() {
        let (mut a, raw) = pair();
        let sender = thread::spawn(move || {
            let mut b = Link::new("a".into(), raw, Duration::from_secs(5)).unwrap();
            b.send(
                FrameKind::Hello,
                &[&hello().to_payload()],
                &IoTimer::default(),
            )
            .unwrap();
        });
        assert_eq!(recv_hello(&mut a, &IoTimer::default()).unwrap(), hello());
        sender.join().unwrap();
    }
}
