//! The network tasks (PROTOCOL.md section 10): `listen` runs one node of a cell. The harness
//! connects to the node's address, tells it its task, role and data (`setup`), whom to dial
//! and how many to accept (`connect`), then starts every repetition at once (`go`) and
//! collects one report per node and repetition. Nodes talk to each other only through
//! sockets, so the same program runs across machines.
//!
//! The same two axes as the single-machine tasks: the node runs generic code for the cell's
//! method and model (`registry::with_codec`), and each network task is one file here behind
//! [`NetTask`], listed once in [`NET_TASKS`].

pub mod aggregate;
pub mod door;
pub mod fetch;
pub mod node;
pub mod pages;
pub mod sort_merge;
pub mod wire;

use std::time::Duration;

use serbench_model::{ModelType, SetChecksum};
use serde::Deserialize;
use serde_json::{Map, Value};

use crate::methods::Codec;
use crate::protocol::{Depth, Failure, Params};
use crate::timing::IoTimer;
use wire::Link;

pub use node::listen;

/// What the harness's `setup` message says (section 10.4).
#[derive(Debug, Deserialize)]
pub struct Setup {
    pub task: String,
    pub role: String,
    /// This node's name, which its peers see in its hello and their errors.
    pub name: String,
    pub method: String,
    pub model: String,
    #[serde(default)]
    pub variant: String,
    #[serde(default)]
    pub depth: String,
    #[serde(default)]
    pub params: Params,
}

impl Setup {
    /// How long a socket may stay silent before its peer counts as dead.
    pub fn peer_timeout(&self) -> Result<Duration, Failure> {
        match self.params.u64_or("peer_timeout_ms", 30_000)? {
            0 => Err(Failure::bad_request(
                "params.peer_timeout_ms must be at least 1",
            )),
            ms => Ok(Duration::from_millis(ms)),
        }
    }

    /// The largest frame between this cell's data nodes (`params.net_frame_bytes`).
    pub fn net_frame_bytes(&self) -> Result<usize, Failure> {
        wire::net_frame_bytes(&self.params)
    }

    pub fn depth(&self) -> Result<Depth, Failure> {
        Depth::parse(&self.depth)
    }
}

/// The connections of one node: those it dialed, in the order the harness listed them, and
/// those its peers dialed, in the order they arrived (each named by its peer's hello).
#[derive(Default)]
pub struct Links {
    pub dialed: Vec<Link>,
    pub accepted: Vec<Link>,
}

impl Links {
    fn all(&self) -> impl Iterator<Item = &Link> {
        self.dialed.iter().chain(&self.accepted)
    }

    pub fn bytes(&self) -> (u64, u64) {
        self.all()
            .fold((0, 0), |(s, r), l| (s + l.bytes_sent, r + l.bytes_received))
    }
}

/// What one repetition of a role produced, besides the times and bytes the node measures.
#[derive(Debug, Default)]
pub struct Outcome {
    pub objects: u64,
    /// The set or sequence checksum of what this node verified, when it decodes.
    pub checksum: Option<SetChecksum>,
    /// Task-specific figures for the report (e.g. each connection's own time).
    pub extra: Map<String, Value>,
}

/// Objects `start .. start + n` must be in the file a node serves or sorts.
pub fn check_range(
    reader: &crate::paged::PageReader<'_, '_>,
    input: &std::path::Path,
    start: u64,
    n: u64,
) -> Result<(), Failure> {
    if start.checked_add(n).is_none_or(|end| end > reader.count()) {
        return Err(Failure::new(
            crate::protocol::Kind::OutOfRange,
            format!(
                "objects {start}..{start}+{n} asked, {} holds {}",
                input.display(),
                reader.count()
            ),
        ));
    }
    Ok(())
}

/// A tree node dials at most its parent; the root, which has none, writes to `output`.
pub fn check_tree_links(task: &str, links: &Links, has_output: bool) -> Result<(), Failure> {
    if links.dialed.len() > 1 {
        return Err(Failure::bad_request(format!(
            "a {task} node dials at most its parent"
        )));
    }
    if links.dialed.is_empty() && !has_output {
        return Err(Failure::bad_request(
            "the root (no parent) needs params.output",
        ));
    }
    Ok(())
}

/// One node's part in a network task, built from its setup.
pub trait Role {
    /// Checks the links the harness wired against what the role needs.
    fn check_links(&self, links: &Links) -> Result<(), Failure>;
    /// One repetition, started by `go`; socket and file calls are timed into `timer` (a role
    /// that works on several threads adds their mean io).
    fn repetition(&mut self, links: &mut Links, timer: &IoTimer) -> Result<Outcome, Failure>;
}

/// One network task: builds the role a node plays (loading its data is untimed setup work)
/// and hands it to the node's control loop.
pub trait NetTask {
    const ID: &'static str;
    fn run<M: ModelType, C: Codec<M>>(
        codec: C,
        setup: &Setup,
        node: &mut node::Node,
    ) -> Result<(), Failure>;
}

macro_rules! net_tasks {
    ($($task:path),* $(,)?) => {
        /// Every network task this driver runs (the `info` list joins [`crate::registry::TASKS`]).
        pub const NET_TASKS: &[&str] = &[$(<$task as NetTask>::ID),*];

        /// Runs `setup.task` on `node`; None for a task this driver does not run.
        pub fn run_net_task<M: ModelType, C: Codec<M>>(
            codec: C,
            setup: &Setup,
            node: &mut node::Node,
        ) -> Option<Result<(), Failure>> {
            $(
                if setup.task == <$task as NetTask>::ID {
                    return Some(<$task as NetTask>::run::<M, C>(codec, setup, node));
                }
            )*
            None
        }
    };
}

// The network tasks, one line each.
net_tasks! {
    fetch::NetFetch,
    aggregate::NetAggregate,
    sort_merge::NetSortMerge,
}
