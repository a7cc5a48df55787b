//! The node's control loop (PROTOCOL.md 10.4): bind, print the bound address, take the
//! harness's control connection, then `setup` → `prepared`, `connect` → `ready`, and per
//! repetition `go` → `report`, until `shutdown`. Any failure is sent to the harness and to
//! every peer (so they stop at once instead of timing out), and the node exits non-zero.

use std::io::{self, Write};
use std::net::{SocketAddr, TcpListener, TcpStream, ToSocketAddrs};
use std::thread;
use std::time::{Duration, Instant};

use serbench_model::{hex64, ModelId, ModelType};
use serde_json::{json, Value};

use super::wire::{peer_failure, recv_hello, FrameKind, Hello, Link};
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

/// A node between setup and shutdown: its listener, the harness's connection, its name and
/// what it speaks.
pub struct Node {
    listener: TcpListener,
    control: Link,
    name: String,
    speaks: [String; 4],
    peer_timeout: Duration,
}

/// `listen --address HOST:PORT`: runs one node until the harness says `shutdown` (Ok) or
/// anything fails (the failure, already reported to the harness when it could be).
pub fn listen(address: &str, mut stdout: impl Write) -> Result<(), Failure> {
    let listener = TcpListener::bind(address)
        .map_err(|e| Failure::bad_request(format!("cannot listen on {address}: {e}")))?;
    let bound = listener.local_addr().map_err(internal)?;
    // the first stdout line: how the harness (and through it every peer) reaches this node
    writeln!(
        stdout,
        "{}",
        json!({"address": bound.to_string(), "pid": std::process::id()})
    )
    .and_then(|()| stdout.flush())
    .map_err(internal)?;
    let control = accept_control(&listener)?;
    let mut node = Node {
        listener,
        control,
        name: String::new(),
        speaks: Default::default(),
        peer_timeout: CONTROL_WAIT,
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

fn accept_control(listener: &TcpListener) -> Result<Link, Failure> {
    let (stream, from) = accept_until(listener, Instant::now() + CONTROL_WAIT, "the harness")?;
    let mut link = Link::new(format!("harness at {from}"), stream, CONTROL_IDLE)?;
    let hello = recv_hello(&mut link, &IoTimer::default())?;
    if hello.role != "control" {
        return Err(peer_failure(&link.peer, "dialed before the harness did"));
    }
    Ok(link)
}

fn accept_until(
    listener: &TcpListener,
    deadline: Instant,
    whom: &str,
) -> Result<(TcpStream, SocketAddr), Failure> {
    listener.set_nonblocking(true).map_err(internal)?;
    loop {
        match listener.accept() {
            Ok((stream, from)) => {
                stream.set_nonblocking(false).map_err(internal)?;
                return Ok((stream, from));
            }
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                if Instant::now() >= deadline {
                    return Err(Failure::new(
                        Kind::Network,
                        format!("{whom} did not connect in time"),
                    ));
                }
                thread::sleep(Duration::from_millis(1));
            }
            Err(e) => return Err(internal(e)),
        }
    }
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
        self.speaks =
            [&setup.task, &setup.method, &setup.model, &setup.variant].map(|s| s.to_string());
        let model: ModelId = setup
            .model
            .parse()
            .map_err(|e: serbench_model::UnknownModel| Failure::bad_request(e.to_string()))?;
        let spec = registry::method(&setup.method)
            .ok_or_else(|| Failure::bad_request(format!("unknown method '{}'", setup.method)))?;
        with_codec(
            spec.id,
            "",
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
        // a fixed order whatever the arrival: a tree sums its children in this order
        links.accepted.sort_by(|a, b| a.peer.cmp(&b.peer));
        links.dialed = dialer
            .join()
            .map_err(|_| Failure::new(Kind::Internal, "the dialing thread panicked"))??;
        Ok(links)
    }

    fn hello(&self) -> Hello {
        Hello {
            role: "data".into(),
            from: self.name.clone(),
            speaks: self.speaks.clone(),
        }
    }

    fn accept_peer(&mut self, deadline: Instant) -> Result<Link, Failure> {
        let (stream, from) =
            accept_until(&self.listener, deadline, "a peer the harness announced")?;
        let mut link = Link::new(from.to_string(), stream, self.peer_timeout)?;
        let timer = IoTimer::default();
        let hello = recv_hello(&mut link, &timer)?;
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
    answer.check_speaks(&me.speaks, name)?;
    Ok(link)
}
