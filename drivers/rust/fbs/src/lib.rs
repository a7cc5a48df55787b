//! The FlatBuffers tables of every model, generated at build time by flatc 2.0.8 from
//! the models' fbs schemas (namespace `serbench.fb`), and the verification of a buffer's root.
//!
//! A crate of its own so that the verifier is compiled here, once per root table: flatbuffers
//! 2.1.2 negates a table's signed vtable offset with `abs()`, which overflows on i32::MIN,
//! and then refuses the wrapped offset as out of bounds. The measured release build has no
//! overflow checks; the test and fuzz builds turn them off for this crate alone (the
//! workspace's and fuzz/Cargo.toml's profiles), so they test the refusal a user gets, and
//! the driver's own code keeps its checks.

/// The generated tables.
#[allow(
    clippy::all,
    unused_imports,
    non_camel_case_types,
    non_snake_case,
    dead_code
)]
mod generated {
    include!(concat!(env!("OUT_DIR"), "/fbs/mod.rs"));
}
pub use generated::serbench::fb;

use flatbuffers::{InvalidFlatbuffer, VerifierOptions};

/// A root table: a buffer verified with `options`, then read as `Self`.
pub trait Root<'a>: Sized {
    fn verified(options: &VerifierOptions, bytes: &'a [u8]) -> Result<Self, InvalidFlatbuffer>;
}

macro_rules! roots {
    ($($table:ident),*) => {$(
        impl<'a> Root<'a> for fb::$table<'a> {
            #[inline(never)]
            fn verified(
                options: &VerifierOptions,
                bytes: &'a [u8],
            ) -> Result<Self, InvalidFlatbuffer> {
                flatbuffers::root_with_opts::<fb::$table>(options, bytes)
            }
        }
    )*};
}

// one line naming every schema's root table, written by build.rs
include!(concat!(env!("OUT_DIR"), "/fbs/roots.rs"));
