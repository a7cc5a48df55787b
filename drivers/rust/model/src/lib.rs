//! serbench's data models in Rust: the structs of `docs/models.md` with canonical JSON through
//! serde, the logical checksum, the total order, and strict JSON Lines loading.
//!
//! The model types are generated from the model definitions at build time (build.rs runs
//! drivers/rust/codegen/generate_models.py into the build's output): the built-in models and
//! a user's own alike. Every struct derives, through `model_struct!`, from one field list in
//! canonical order, `Serialize`/`Deserialize` (canonical keys, absent optionals omitted in
//! human-readable formats, unknown keys rejected), [`Checksum`] and [`TotalOrder`]. Model
//! roots implement [`ModelType`]; [`dispatch!`] turns a run-time [`ModelId`] into a call of
//! generic code; `each_struct!` and its siblings hand a method every struct's fields.

#[macro_use]
mod model_struct;
mod nesting;

// module `types`, `ModelId`, `dispatch!` and the field-list macros, from the definitions
include!(concat!(env!("OUT_DIR"), "/models.rs"));

pub mod checksum;
pub mod jsonl;
pub mod order;
mod registry;
mod tweet_kind;

pub use checksum::{hex64, object_hash, sequence_checksum, Checksum, Hasher, SetChecksum};
pub use jsonl::{
    from_json, nesting, open_json_lines, read_json_lines, try_from_json, write_json_line,
    DataError, JsonLines, LineError, ReadError, MAX_NESTING,
};
pub use order::TotalOrder;
pub use registry::{ModelType, UnknownModel};
pub use tweet_kind::TweetKind;
// the model types by name (a user's struct whose name this crate uses for something else is
// still `types::Name`)
pub use types::*;

#[cfg(test)]
mod tests;
