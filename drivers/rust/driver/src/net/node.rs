//! The node's control loop (PROTOCOL.md 10.4): bind, print the bound address, take the
//! harness's control connection, then `setup` → `prepared`, `connect` → `ready`, and per
//! repetition `go` → `report`, until `shutdown`. Any failure is sent to the harness and to
//! every peer (so they stop at once instead of timing out), and the node exits non-zero.
//! Only connections whose hello carries the cell's token are admitted (PROTOCOL.md 10.2): a
//! stranger is refused, logged and forgotten, and never delays the peer (`door`).

use std::io::{self, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::thread;
use std::time::{Duration, Instant};

use serbench_model::{hex64, ModelId, ModelType};
use serde_json::{json, Value};

use super::door::Door;
use super::wire::{peer_failure, recv_hello, same_token, FrameKind, Hello, Link};
use super::{run_net_task, Links, Role, Setup};
use crate::methods::Codec;
use crate::protocol::{Failure, Kind};
use crate::registry::{self, with_codec, CodecJob};
use crate::timing::IoTimer;

/// How long a node waits for the harness to connect before it gives up.
const CONTROL_WAIT: Duration = Duration::from_secs(60);
/// How long a node waits for the harness's next message (a harness that dies closes the
/// connection, which the node sees at once; this bounds only a harness that hangs).
const CONTROL_IDLE: Duration = Duration::from_secs(3600);
/// The environment variable that gives a node its cell's token (never the command line,
/// which other users see).
pub const TOKEN_ENV: &str = "SERBENCH_NODE_TOKEN";

/// A node between setup and shutdown: its door, the harness's connection, its name and what
/// it speaks.
pub struct Node {
    door: Door,
    control: Link,
    token: String,
    name: String,
    speaks: [String; 4],
    peer_timeout: Duration,
    /// The largest frame on a link to a peer (`params.net_frame_bytes`).
    frame_limit: usize,
}

/// `listen --address HOST:PORT [--allow-wildcard]`: runs one node, which admits only
/// connections presenting `token`, until the harness says `shutdown` (Ok) or anything fails
/// (the failure, already reported to the harness when it could be).
pub fn listen(
    address: &str,
    allow_wildcard: bool,
    token: &str,
    mut stdout: impl Write,
) -> Result<(), Failure> {
    if token.is_empty() {
        return Err(Failure::bad_request(format!(
            "{TOKEN_ENV} is empty or not set: a node admits only peers presenting its cell's token"
        )));
    }
    let mut door = Door::bind(address, allow_wildcard)?;
    let bound = door.local_addr().map_err(internal)?;
    // the first stdout line: how the harness (and through it every peer) reaches this node
    writeln!(
        stdout,
        "{}",
        json!({"address": bound.to_string(), "pid": std::process::id()})
    )
    .and_then(|()| stdout.flush())
    .map_err(internal)?;
    let control = accept_control(&mut door, token)?;
    let mut node = Node {
        door,
        control,
        token: token.to_string(),
        name: String::new(),
        speaks: Default::default(),
        peer_timeout: CONTROL_WAIT,
        frame_limit: super::wire::MAX_FRAME,
    };
    let outcome = node.setup_and_run();
    if let Err(failure) = &outcome {
        node.control.send_error(failure);
    }
    outcome
}

fn internal(e: io::Error) -> Failure {
    Failure::new(Kind::Internal, e.to_string())
}

fn accept_control(door: &mut Door, token: &str) -> Result<Link, Failure> {
    let deadline = Instant::now() + CONTROL_WAIT;
    let (mut link, hello) = door.admit(token, deadline, "the harness")?;
    link.peer = format!("harness at {}", link.peer);
    if hello.role != "control" {
        return Err(peer_failure(&link.peer, "dialed before the harness did"));
    }
    link.set_timeout(CONTROL_IDLE)?;
    Ok(link)
}

/// Runs the cell's method and model through the registry, then the task's role.
struct Session<'a> {
    node: &'a mut Node,
    setup: &'a Setup,
}

impl CodecJob for Session<'_> {
    type Output = Result<(), Failure>;

    fn run<M: ModelType, C: Codec<M>>(self, codec: C) -> Self::Output {
        run_net_task::<M, C>(codec, self.setup, self.node).unwrap_or_else(|| {
            Err(Failure::unsupported(format!(
                "this driver does not run task '{}'",
                self.setup.task
            )))
        })
    }
}

impl Node {
    fn setup_and_run(&mut self) -> Result<(), Failure> {
        let message = self
            .control
            .recv_json(FrameKind::Control, &IoTimer::default())?;
        if message["op"] != "setup" {
            return Err(Failure::bad_request(format!(
                "expected setup, got {message}"
            )));
        }
        let setup: Setup = serde_json::from_value(message)
            .map_err(|e| Failure::bad_request(format!("a malformed setup: {e}")))?;
        self.name = setup.name.clone();
        self.peer_timeout = setup.peer_timeout()?;
        self.frame_limit = setup.net_frame_bytes()?;
        self.speaks =
            [&setup.task, &setup.method, &setup.model, &setup.variant].map(|s| s.to_string());
        let model: ModelId = setup
            .model
            .parse()
            .map_err(|e: serbench_model::UnknownModel| Failure::bad_request(e.to_string()))?;
        let spec = registry::method(&setup.method)
            .ok_or_else(|| Failure::bad_request(format!("unknown method '{}'", setup.method)))?;
        // a node decodes bytes a peer sent: never with a read that trusts them
        with_codec(
            spec.id,
            spec.validating_variant(),
            model,
            Session {
                node: self,
                setup: &setup,
            },
        )
        .expect("a registered method has a codec")
    }

    /// Tells the harness this node has loaded its data, wires its links, then answers every
    /// `go` with a report until `shutdown`.
    pub fn drive(&mut self, role: &mut impl Role) -> Result<(), Failure> {
        let timer = IoTimer::default();
        self.control
            .send_json(FrameKind::Control, &json!({"op": "prepared"}), &timer)?;
        let mut links = self.connect()?;
        let outcome = role
            .check_links(&links)
            .and_then(|()| {
                self.control
                    .send_json(FrameKind::Control, &json!({"op": "ready"}), &timer)
            })
            .and_then(|()| self.repetitions(role, &mut links));
        if let Err(failure) = &outcome {
            for link in links.dialed.iter_mut().chain(&mut links.accepted) {
                link.send_error(failure);
            }
        }
        outcome
    }

    fn repetitions(&mut self, role: &mut impl Role, links: &mut Links) -> Result<(), Failure> {
        loop {
            let message = self
                .control
                .recv_json(FrameKind::Control, &IoTimer::default())?;
            match message["op"].as_str() {
                Some("go") => {
                    let report = self.repetition(role, links, &message)?;
                    self.control
                        .send_json(FrameKind::Control, &report, &IoTimer::default())?;
                }
                Some("shutdown") => return Ok(()),
                _ => {
                    return Err(Failure::bad_request(format!(
                        "expected go or shutdown, got {message}"
                    )))
                }
            }
        }
    }

    fn repetition(
        &mut self,
        role: &mut impl Role,
        links: &mut Links,
        go: &Value,
    ) -> Result<Value, Failure> {
        let (sent, received) = links.bytes();
        let timer = IoTimer::default();
        let start = Instant::now();
        let outcome = role.repetition(links, &timer)?;
        let total_ns = start.elapsed().as_nanos() as u64;
        let (sent_after, received_after) = links.bytes();
        let io_ns = timer.ns().min(total_ns);
        let mut report = json!({
            "op": "report", "node": self.name, "rep": go["rep"], "warmup": go["warmup"],
            "total_ns": total_ns, "io_ns": io_ns, "cpu_ns": total_ns - io_ns,
            "bytes_sent": sent_after - sent, "bytes_received": received_after - received,
            "objects": outcome.objects,
            "checksum": outcome.checksum.map(|c| json!({"count": c.count, "sum": hex64(c.sum)})),
            "peak_rss_bytes": crate::memory::rss().map(|r| r.peak).unwrap_or(0),
        });
        report
            .as_object_mut()
            .expect("an object")
            .extend(outcome.extra);
        Ok(report)
    }

    /// Dials the peers the harness lists, accepts as many as it says will dial, and checks
    /// every hello: a peer of another task, method, model or variant is refused.
    fn connect(&mut self) -> Result<Links, Failure> {
        let message = self
            .control
            .recv_json(FrameKind::Control, &IoTimer::default())?;
        if message["op"] != "connect" {
            return Err(Failure::bad_request(format!(
                "expected connect, got {message}"
            )));
        }
        let accept = message["accept"].as_u64().unwrap_or(0);
        let mut links = Links::default();
        let mut dials = Vec::new();
        for peer in message["dial"].as_array().into_iter().flatten() {
            let (Some(name), Some(address)) = (peer["name"].as_str(), peer["address"].as_str())
            else {
                return Err(Failure::bad_request(format!(
                    "a malformed peer in connect: {peer}"
                )));
            };
            dials.push((name.to_string(), address.to_string()));
        }
        // dial in the background: two nodes may dial each other's listeners at once
        let me = self.hello();
        let timeout = self.peer_timeout;
        let dialer = thread::spawn(move || -> Result<Vec<Link>, Failure> {
            dials
                .into_iter()
                .map(|(name, address)| dial(&name, &address, &me, timeout))
                .collect()
        });
        let deadline = Instant::now() + self.peer_timeout;
        for _ in 0..accept {
            links.accepted.push(self.accept_peer(deadline)?);
        }
        self.door.shut();
        // a fixed order whatever the arrival: a tree sums its children in this order
        links.accepted.sort_by(|a, b| a.peer.cmp(&b.peer));
        links.dialed = dialer
            .join()
            .map_err(|_| Failure::new(Kind::Internal, "the dialing thread panicked"))??;
        // past the hellos, frames between data nodes are bounded by the cell's limit
        for link in links.dialed.iter_mut().chain(&mut links.accepted) {
            link.set_max_frame(self.frame_limit);
        }
        Ok(links)
    }

    fn hello(&self) -> Hello {
        Hello {
            role: "data".into(),
            from: self.name.clone(),
            token: self.token.clone(),
            speaks: self.speaks.clone(),
        }
    }

    fn accept_peer(&mut self, deadline: Instant) -> Result<Link, Failure> {
        let (mut link, hello) =
            self.door
                .admit(&self.token, deadline, "a peer the harness announced")?;
        link.set_timeout(self.peer_timeout)?;
        let timer = IoTimer::default();
        let checked = if hello.role != "data" {
            Err(peer_failure(
                &link.peer,
                format!("a '{}' hello on a data connection", hello.role),
            ))
        } else {
            hello.check_speaks(&self.speaks, &format!("{} ({})", hello.from, link.peer))
        };
        if let Err(failure) = checked {
            link.send_error(&failure);
            return Err(failure);
        }
        link.send(FrameKind::Hello, &[&self.hello().to_payload()], &timer)?;
        link.peer = hello.from;
        Ok(link)
    }
}

fn dial(name: &str, address: &str, me: &Hello, timeout: Duration) -> Result<Link, Failure> {
    let target = address
        .to_socket_addrs()
        .ok()
        .and_then(|mut a| a.next())
        .ok_or_else(|| peer_failure(name, format!("'{address}' is not an address")))?;
    let stream = TcpStream::connect_timeout(&target, timeout)
        .map_err(|e| peer_failure(name, format!("cannot connect to {address}: {e}")))?;
    let mut link = Link::new(name.to_string(), stream, timeout)?;
    let timer = IoTimer::default();
    link.send(FrameKind::Hello, &[&me.to_payload()], &timer)?;
    let answer = recv_hello(&mut link, &timer)?;
    if !same_token(&answer.token, &me.token) {
        return Err(peer_failure(name, "answered without this cell's token"));
    }
    answer.check_speaks(&me.speaks, name)?;
    Ok(link)
}

#[cfg(test)]
mod tests {
    use std::io::Read;
    use std::sync::mpsc;

    use super::*;
    use crate::net::wire::{Payload, MAX_HELLO};

    const TOKEN: &str = "0123456789abcdef0123456789abcdef";

    /// The node's stdout, handed to the test as it is written.
    struct Printed(mpsc::Sender<u8>);

    impl Write for Printed {
        fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
            for b in bytes {
                let _ = self.0.send(*b); // the test stops reading after the address line
            }
            Ok(bytes.len())
        }

        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    /// A node listening on loopback with `TOKEN`, its address and its end.
    fn node() -> (String, thread::JoinHandle<Result<(), Failure>>) {
        let (sender, printed) = mpsc::channel();
        let node = thread::spawn(move || listen("127.0.0.1:0", false, TOKEN, Printed(sender)));
        let line: Vec<u8> = printed.iter().take_while(|b| *b != b'\n').collect();
        let line: Value = serde_json::from_slice(&line).unwrap();
        (line["address"].as_str().unwrap().to_string(), node)
    }

    /// A connection to the node that has sent a control hello carrying `token`.
    fn knock(address: &str, token: &str) -> Link {
        let stream = TcpStream::connect(address).unwrap();
        let mut link = Link::new("node".into(), stream, Duration::from_secs(5)).unwrap();
        let hello = Hello {
            role: "control".into(),
            from: "harness".into(),
            token: token.into(),
            speaks: Default::default(),
        };
        link.send(
            FrameKind::Hello,
            &[&hello.to_payload()],
            &IoTimer::default(),
        )
        .unwrap();
        link
    }

    #[test]
    fn strangers_are_refused_and_the_harness_still_gets_in() {
        let (address, node) = node();
        for (token, said) in [("", "no"), ("0123456789abcdef0123456789abcdeF", "wrong")] {
            let e = knock(&address, token)
                .recv(&mut Payload::default(), &IoTimer::default())
                .unwrap_err();
            assert!(
                e.message
                    .starts_with("peer node: failed: network: peer 127.0.0.1:")
                    && e.message.ends_with(&format!(": {said} token")),
                "{e}"
            );
            assert!(!e.message.contains(TOKEN));
        }
        let mut garbage = TcpStream::connect(&address).unwrap();
        garbage.write_all(b"GET /").unwrap(); // a header of an unknown kind, 47
        let mut answer = Vec::new();
        garbage.read_to_end(&mut answer).unwrap();
        assert!(String::from_utf8_lossy(&answer).contains("unknown frame kind"));
        // the harness is admitted after them all
        the_harness_gets_in(&address, node);
    }

    /// The harness is admitted: its next message reaches the node, which fails on it (a `go`
    /// before `setup`) and ends.
    fn the_harness_gets_in(address: &str, node: thread::JoinHandle<Result<(), Failure>>) {
        let mut harness = knock(address, TOKEN);
        harness
            .send_json(
                FrameKind::Control,
                &json!({"op": "go"}),
                &IoTimer::default(),
            )
            .unwrap();
        let e = harness
            .recv(&mut Payload::default(), &IoTimer::default())
            .unwrap_err();
        assert!(e.message.contains("expected setup"), "{e}");
        assert!(node.join().unwrap().is_err());
    }

    /// A stranger sending a hello header, then one byte of its (4096-byte) payload every
    /// 100 ms, far within any timeout per read, until the node closes it or 20 s have passed;
    /// its connection, to read the node's answer from.
    fn trickle(address: &str) -> TcpStream {
        let stream = TcpStream::connect(address).unwrap();
        let mut sending = stream.try_clone().unwrap();
        thread::spawn(move || {
            let mut frame = (MAX_HELLO as u32).to_le_bytes().to_vec();
            frame.push(FrameKind::Hello as u8);
            frame.extend(b"SERBNET1{");
            let stop = Instant::now() + Duration::from_secs(20);
            for byte in frame.iter().chain(std::iter::repeat(&b' ')) {
                if Instant::now() > stop || sending.write_all(&[*byte]).is_err() {
                    return;
                }
                thread::sleep(Duration::from_millis(100));
            }
        });
        stream
    }

    /// What the node sent a stranger before closing it (a reset after the node's answer, which
    /// closing a socket with unread bytes sends, ends it too).
    fn answer_to(mut stranger: TcpStream) -> String {
        stranger
            .set_read_timeout(Some(Duration::from_secs(30)))
            .unwrap();
        let mut answer = Vec::new();
        match stranger.read_to_end(&mut answer) {
            Err(e) if e.kind() != io::ErrorKind::ConnectionReset => panic!("{e}"),
            _ => String::from_utf8_lossy(&answer).into_owned(),
        }
    }

    #[test]
    fn a_hello_must_arrive_whole_within_5_s_however_it_trickles() {
        let (address, node) = node();
        let answer = answer_to(trickle(&address));
        assert!(
            answer.ends_with(": no complete hello within 5 s\"}"),
            "{answer}"
        );
        the_harness_gets_in(&address, node);
    }

    #[test]
    fn strangers_silent_or_trickling_do_not_delay_the_harness() {
        let (address, node) = node();
        let silent: Vec<TcpStream> = (0..200)
            .map(|_| TcpStream::connect(&address).unwrap())
            .collect();
        let trickler = trickle(&address);
        the_harness_gets_in(&address, node);
        // it got in while every stranger was still held: none was refused before the node
        // ended and closed them (with a hello read per connection in turn, each silent one
        // would hold the harness 5 s and the trickler for as long as it liked)
        for stranger in silent.into_iter().chain([trickler]) {
            assert_eq!(answer_to(stranger), "");
        }
    }

    /// The node reads its data links' maximum frame from its setup: out of its bounds, the
    /// setup fails naming the parameter (before any data is loaded).
    #[test]
    fn a_setup_with_a_frame_limit_out_of_bounds_is_a_bad_request() {
        let (address, node) = node();
        let mut harness = knock(&address, TOKEN);
        let setup = json!({"op": "setup", "task": "net_fetch", "role": "client",
                           "name": "client", "method": "handcoded", "model": "part",
                           "params": {"net_frame_bytes": 4096}});
        harness
            .send_json(FrameKind::Control, &setup, &IoTimer::default())
            .unwrap();
        let e = harness
            .recv(&mut Payload::default(), &IoTimer::default())
            .unwrap_err();
        assert_eq!(
            e.message,
            "peer node: failed: bad_request: params.net_frame_bytes must be between 65536 and \
             1073741824, got 4096"
        );
        assert_eq!(node.join().unwrap().unwrap_err().kind, Kind::BadRequest);
    }

    #[test]
    fn a_node_without_a_token_does_not_start() {
        let e = listen("127.0.0.1:0", false, "", Vec::new()).unwrap_err();
        assert!(e.message.contains("SERBENCH_NODE_TOKEN"), "{e}");
    }
}
