//! serbench's Rust driver (PROTOCOL.md): answers the harness's requests for every Rust
//! method, model and task.
//!
//! Two axes joined in one place: `methods/` (one file per method, behind the `Codec`
//! interface) × `tasks/` (one file per task, written against that interface only), listed in
//! `registry.rs`; the network tasks' node (`net/`) joins the same methods. Around them: the shared paged file (`paged/`), cold-cache eviction
//! (`evict.rs`), io timing (`timing.rs`), the wire format (`protocol.rs`) and the ops
//! (`ops.rs`) that `serve.rs` answers.

pub mod evict;
#[cfg(any(test, feature = "fuzz"))]
pub mod fuzz;
pub mod info;
pub mod memory;
pub mod methods;
pub mod net;
pub mod ops;
pub mod paged;
pub mod protocol;
pub mod registry;
pub mod serve;
pub mod tasks;
pub mod timing;

#[cfg(test)]
mod test_support;

/// Tests measure memory like the binary does (main.rs installs the same wrapper).
#[cfg(test)]
#[global_allocator]
static TEST_ALLOCATOR: memory::Counting<std::alloc::System> = memory::Counting(std::alloc::System);
