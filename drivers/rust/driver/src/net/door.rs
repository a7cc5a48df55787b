//! A node's door (PROTOCOL.md 10.1, 10.2): its listener, bound only where the node is told,
//! and the connections still saying hello. Every pending hello is read side by side in one
//! poll loop, each against its own deadline for the whole hello (5 s from the accept), so a
//! stranger, silent or sending a byte at a time, delays no one: the harness and the peers are
//! admitted as soon as their hellos arrive, however many strangers are waiting.

use std::io::{self, Read};
use std::net::{Ipv4Addr, Ipv6Addr, SocketAddr, TcpListener, TcpStream, ToSocketAddrs};
use std::os::fd::AsRawFd;
use std::time::{Duration, Instant};

use super::wire::{
    parse_header, peer_failure, FrameKind, Hello, Link, HEADER, MAX_FRAME, MAX_HELLO,
};
use crate::protocol::{Failure, Kind};

/// How long a fresh connection may take to send its whole hello.
pub const HELLO_WAIT: Duration = Duration::from_secs(5);
/// How many connections may be saying hello at once; past it the oldest is dropped (it has
/// had the longest to speak, and a peer says hello as soon as it has connected).
const MAX_PENDING: usize = 512;
/// The listen queue: room for a flood of strangers arriving while the node loads its data
/// and accepts nothing (std listens with 128).
const BACKLOG: libc::c_int = 1024;
/// The refusals of `listen_addresses`, worded alike in every language.
const NOT_A_PORT: &str = "the port must be a number in 0-65535";
const WILDCARD: &str =
    "an empty or wildcard host (0.0.0.0, ::) listens on every interface; --allow-wildcard allows it";

pub struct Door {
    listener: TcpListener,
    pending: Vec<Knock>,
}

impl Door {
    /// Listens on `address` (checked by `listen_addresses`).
    pub fn bind(address: &str, allow_wildcard: bool) -> Result<Door, Failure> {
        let targets = listen_addresses(address, allow_wildcard)?;
        let cannot =
            |e: io::Error| Failure::bad_request(format!("cannot listen on '{address}': {e}"));
        let listener = TcpListener::bind(&targets[..]).map_err(cannot)?;
        // Linux takes a second listen() on a listening socket as a new queue length
        if unsafe { libc::listen(listener.as_raw_fd(), BACKLOG) } != 0 {
            return Err(cannot(io::Error::last_os_error()));
        }
        listener.set_nonblocking(true).map_err(cannot)?;
        Ok(Door {
            listener,
            pending: Vec::new(),
        })
    }

    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        self.listener.local_addr()
    }

    /// The next connection whose hello carries `token`, admitted before `deadline`, and its
    /// hello (`whom`: who was expected, for the failure); strangers are refused meanwhile.
    pub fn admit(
        &mut self,
        token: &str,
        deadline: Instant,
        whom: &str,
    ) -> Result<(Link, Hello), Failure> {
        loop {
            let ready = self.wait(deadline)?;
            if let Some(admitted) = self.step(&ready, token)? {
                return Ok(admitted);
            }
            if Instant::now() >= deadline {
                return Err(Failure::new(
                    Kind::Network,
                    format!("{whom} did not connect in time"),
                ));
            }
        }
    }

    /// Refuses every connection still saying hello: the node admits no one after its peers.
    pub fn shut(&mut self) {
        for knock in self.pending.drain(..) {
            let refusal = peer_failure(&knock.from, "this node admits no one after its peers");
            knock.refuse(&refusal);
        }
    }

    /// Waits until the listener or a pending connection is readable, or the first deadline;
    /// which were readable (the listener first, then `pending` in order).
    fn wait(&self, deadline: Instant) -> Result<Vec<bool>, Failure> {
        let fds = std::iter::once(self.listener.as_raw_fd())
            .chain(self.pending.iter().map(|k| k.stream.as_raw_fd()));
        let mut polled: Vec<libc::pollfd> = fds
            .map(|fd| libc::pollfd {
                fd,
                events: libc::POLLIN,
                revents: 0,
            })
            .collect();
        let first = self
            .pending
            .iter()
            .map(|k| k.deadline)
            .fold(deadline, Instant::min);
        // rounded up, so the loop never spins just short of a deadline
        let ms = first
            .saturating_duration_since(Instant::now())
            .as_micros()
            .div_ceil(1000);
        let timeout = libc::c_int::try_from(ms).unwrap_or(libc::c_int::MAX);
        let nfds = polled.len() as libc::nfds_t;
        if unsafe { libc::poll(polled.as_mut_ptr(), nfds, timeout) } < 0 {
            let e = io::Error::last_os_error();
            if e.kind() != io::ErrorKind::Interrupted {
                return Err(Failure::new(Kind::Internal, format!("poll: {e}")));
            }
        }
        Ok(polled.iter().map(|p| p.revents != 0).collect())
    }

    /// Reads what arrived on the pending connections, then accepts every new one: the first
    /// admitted, if any (the others stay pending, the refused are closed).
    fn step(&mut self, ready: &[bool], token: &str) -> Result<Option<(Link, Hello)>, Failure> {
        use io::ErrorKind::{ConnectionAborted, Interrupted, WouldBlock};
        let now = Instant::now();
        let mut knocks = std::mem::take(&mut self.pending)
            .into_iter()
            .zip(&ready[1..]);
        while let Some((mut knock, &readable)) = knocks.next() {
            let heard = if now >= knock.deadline {
                Err(peer_failure(&knock.from, "no complete hello within 5 s"))
            } else if readable {
                knock.read()
            } else {
                Ok(None)
            };
            if let Some(admitted) = self.settle(knock, heard, token) {
                self.pending.extend(knocks.map(|(k, _)| k));
                return Ok(Some(admitted));
            }
        }
        loop {
            let (stream, from) = match self.listener.accept() {
                Ok(accepted) => accepted,
                Err(e) if e.kind() == WouldBlock => return Ok(None),
                Err(e) if [Interrupted, ConnectionAborted].contains(&e.kind()) => continue,
                Err(e) => return Err(Failure::new(Kind::Internal, format!("accept: {e}"))),
            };
            // its hello may be here already: a peer sends it as soon as it has connected
            let mut knock = Knock::new(stream, from)?;
            let heard = knock.read();
            if let Some(admitted) = self.settle(knock, heard, token) {
                return Ok(Some(admitted));
            }
            if self.pending.len() > MAX_PENDING {
                let oldest = self.pending.remove(0);
                let refusal = peer_failure(&oldest.from, "too many connections are saying hello");
                oldest.refuse(&refusal);
            }
        }
    }

    /// Keeps a connection still saying hello, admits one whose hello carries `token`, or
    /// refuses it.
    fn settle(
        &mut self,
        knock: Knock,
        heard: Result<Option<Hello>, Failure>,
        token: &str,
    ) -> Option<(Link, Hello)> {
        let checked = match heard {
            Ok(Some(hello)) => hello.check_token(token, &knock.from).map(|()| Some(hello)),
            other => other,
        };
        match checked {
            Ok(None) => {
                self.pending.push(knock);
                None
            }
            Ok(Some(hello)) => match knock.into_link() {
                Ok(link) => Some((link, hello)),
                Err(e) => {
                    eprintln!("serbench-rust listen: lost an admitted connection: {e}");
                    None
                }
            },
            Err(refusal) => {
                knock.refuse(&refusal);
                None
            }
        }
    }
}

/// A fresh connection whose hello is still arriving.
struct Knock {
    stream: TcpStream,
    from: String,
    deadline: Instant,
    /// The frame so far: its header, then its payload.
    frame: Vec<u8>,
}

impl Knock {
    fn new(stream: TcpStream, from: SocketAddr) -> Result<Knock, Failure> {
        stream
            .set_nonblocking(true)
            .map_err(|e| Failure::new(Kind::Internal, e.to_string()))?;
        Ok(Knock {
            stream,
            from: from.to_string(),
            deadline: Instant::now() + HELLO_WAIT,
            frame: Vec::with_capacity(HEADER),
        })
    }

    /// Reads what has arrived: the hello once it is whole, None while it is still coming, or
    /// why the connection is refused (a header is checked as soon as it is in).
    fn read(&mut self) -> Result<Option<Hello>, Failure> {
        loop {
            let want = self.frame_len()?;
            if self.frame.len() == want {
                return Hello::parse(&self.frame[HEADER..], &self.from).map(Some);
            }
            let left = (want - self.frame.len()) as u64;
            // what was read before a WouldBlock stays in the frame
            match (&mut self.stream).take(left).read_to_end(&mut self.frame) {
                Ok(_) if self.frame.len() < want => {
                    return Err(peer_failure(
                        &self.from,
                        "closed the connection before its hello",
                    ))
                }
                Ok(_) => {}
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => return Ok(None),
                Err(e) => return Err(peer_failure(&self.from, e)),
            }
        }
    }

    /// How long the frame is: its header until that is in, then the header and the hello.
    fn frame_len(&self) -> Result<usize, Failure> {
        let Some(header) = self.frame.first_chunk::<HEADER>() else {
            return Ok(HEADER);
        };
        let (kind, len) = parse_header(*header, MAX_FRAME, &self.from)?;
        if kind != FrameKind::Hello {
            return Err(peer_failure(
                &self.from,
                "not a serbench peer (its first frame is no hello)",
            ));
        }
        if len > MAX_HELLO {
            return Err(peer_failure(
                &self.from,
                format!("a hello frame of {len} bytes exceeds its maximum {MAX_HELLO}"),
            ));
        }
        Ok(HEADER + len)
    }

    /// The admitted connection as a blocking link (the caller sets its timeout).
    fn into_link(self) -> Result<Link, Failure> {
        let received = self.frame.len() as u64;
        self.stream
            .set_nonblocking(false)
            .map_err(|e| peer_failure(&self.from, e))?;
        let mut link = Link::new(self.from, self.stream, HELLO_WAIT)?;
        link.bytes_received = received;
        Ok(link)
    }

    /// Sends the stranger an error frame naming its address (best effort: the socket stays
    /// non-blocking), logs one line and closes the connection.
    fn refuse(self, refusal: &Failure) {
        eprintln!(
            "serbench-rust listen: refused a connection: {}",
            refusal.message
        );
        if let Ok(mut link) = Link::new(self.from, self.stream, HELLO_WAIT) {
            link.send_error(refusal);
        }
    }
}

/// Where `listen --address HOST:PORT` binds: refused when the port is not a number in
/// 0-65535, or, unless `allow_wildcard`, when the host is empty or names a wildcard address
/// (every interface: 0.0.0.0, ::, ::ffff:0.0.0.0). Every language checks and says the same.
pub fn listen_addresses(address: &str, allow_wildcard: bool) -> Result<Vec<SocketAddr>, Failure> {
    let refuse = |why: &str| Failure::bad_request(format!("cannot listen on '{address}': {why}"));
    let (host, port) = address
        .rsplit_once(':')
        .ok_or_else(|| refuse("not HOST:PORT"))?;
    let host = host
        .strip_prefix('[')
        .and_then(|h| h.strip_suffix(']'))
        .unwrap_or(host);
    let port = parse_port(port).ok_or_else(|| refuse(NOT_A_PORT))?;
    if host.is_empty() {
        if !allow_wildcard {
            return Err(refuse(WILDCARD));
        }
        // every interface: IPv6's wildcard takes IPv4 too; IPv4's where there is no IPv6
        return Ok(vec![
            (Ipv6Addr::UNSPECIFIED, port).into(),
            (Ipv4Addr::UNSPECIFIED, port).into(),
        ]);
    }
    let found: Vec<SocketAddr> = (host, port)
        .to_socket_addrs()
        .map_err(|e| refuse(&e.to_string()))?
        .collect();
    if !allow_wildcard && found.iter().any(|a| a.ip().to_canonical().is_unspecified()) {
        return Err(refuse(WILDCARD));
    }
    Ok(found)
}

/// A port: decimal digits only, at most 65535.
fn parse_port(text: &str) -> Option<u16> {
    let digits = !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit());
    digits.then(|| text.parse().ok()).flatten()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_node_listens_only_where_it_is_told() {
        let refused = |address: &str| listen_addresses(address, false).unwrap_err().message;
        for wildcard in [
            "0.0.0.0:0",
            "[::]:0",
            ":0",
            "[]:0",
            "[::ffff:0.0.0.0]:0",
            "0:7",
        ] {
            assert_eq!(
                refused(wildcard),
                format!("cannot listen on '{wildcard}': {WILDCARD}")
            );
        }
        for port in ["65536", "-1", "+80", "", "x", "99999999999"] {
            let address = format!("127.0.0.1:{port}");
            assert_eq!(
                refused(&address),
                format!("cannot listen on '{address}': {NOT_A_PORT}")
            );
        }
        assert_eq!(
            refused("127.0.0.1"),
            "cannot listen on '127.0.0.1': not HOST:PORT"
        );
        let loopback = |a: &str| listen_addresses(a, false).unwrap()[0].to_string();
        assert_eq!(loopback("127.0.0.1:65535"), "127.0.0.1:65535");
        assert_eq!(loopback("[::1]:00080"), "[::1]:80");
        // the flag says so explicitly
        assert!(listen_addresses("0.0.0.0:0", true).unwrap()[0]
            .ip()
            .is_unspecified());
        assert!(listen_addresses(":0", true).unwrap()[0]
            .ip()
            .is_unspecified());
    }
}
