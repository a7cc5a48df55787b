//! THE registry of this driver: every method and every task, one line each (the list at the
//! end of this file). Methods and tasks are two axes; [`with_codec`] joins them, turning a
//! method id and a model id chosen at run time into a call of code generic over both
//! (`Codec<M>` for model type `M`), and [`run_task`] picks the task.

use serbench_model::{dispatch, ModelId, ModelType};
use serde_json::{Map, Value};

use crate::methods::{Codec, Method, REPEAT_ENV};
use crate::protocol::{Depth, Failure};
use crate::tasks::{Task, TaskRequest};

/// Work done with one method on one model type, whichever they are.
pub trait CodecJob {
    type Output;
    fn run<M: ModelType, C: Codec<M>>(self, codec: C) -> Self::Output;
}

/// A method's capabilities, from its [`Method`] implementation.
pub struct MethodSpec {
    pub id: &'static str,
    pub depths: &'static [Depth],
    pub files: &'static [&'static str],
    pub libraries: &'static [&'static str],
    pub writes: bool,
    /// Where its objects start within a page: a multiple of this (PROTOCOL.md 4.1).
    pub align: usize,
    pub variants: &'static [&'static str],
    pub test_variants: &'static [&'static str],
    pub settings: fn() -> Map<String, Value>,
}

impl MethodSpec {
    /// Its variants, with the test-only ones while [`REPEAT_ENV`] is set.
    pub fn offered_variants(&self) -> Vec<&'static str> {
        let testing = std::env::var_os(REPEAT_ENV).is_some();
        let extra = self.test_variants.iter().filter(|_| testing);
        self.variants.iter().chain(extra).copied().collect()
    }

    /// The read variant that checks every byte: `validate` where the method's default trusts
    /// its bytes (PROTOCOL.md 3), else the default. Bytes from another process read this way.
    pub fn validating_variant(&self) -> &'static str {
        match self.variants.contains(&"validate") {
            true => "validate",
            false => "",
        }
    }
}

pub fn method(id: &str) -> Option<&'static MethodSpec> {
    METHODS.iter().find(|m| m.id == id)
}

macro_rules! registry {
    (methods { $($method:path),* $(,)? } tasks { $($task:path),* $(,)? }) => {
        /// Every method, in `info` order.
        pub const METHODS: &[MethodSpec] = &[$(
            MethodSpec {
                id: <$method as Method>::ID,
                depths: <$method as Method>::DEPTHS,
                files: <$method as Method>::FILES,
                libraries: <$method as Method>::LIBRARIES,
                writes: <$method as Method>::WRITES,
                align: <$method as Method>::ALIGN,
                variants: <$method as Method>::VARIANTS,
                test_variants: <$method as Method>::TEST_VARIANTS,
                settings: <$method as Method>::settings,
            },
        )*];

        /// Every task this driver runs.
        pub const TASKS: &[&str] = &[$(<$task as Task>::ID),*];

        /// Runs `job` with a fresh codec of `method` for `model`, reading as `variant` (one the
        /// method lists, or `""`); None for an unknown method.
        pub fn with_codec<J: CodecJob>(
            method: &str,
            variant: &str,
            model: ModelId,
            job: J,
        ) -> Option<J::Output> {
            dispatch!(model, M => {
                $(
                    if method == <$method as Method>::ID {
                        return Some(job.run::<M, $method>(<$method>::for_variant(variant)));
                    }
                )*
                None
            })
        }

        /// Runs task `task` with `codec`; None for an unknown task.
        pub fn run_task<M: ModelType, C: Codec<M>>(
            task: &str,
            codec: &mut C,
            request: &TaskRequest<'_>,
        ) -> Option<Result<Value, Failure>> {
            $(
                if task == <$task as Task>::ID {
                    return Some(<$task as Task>::run::<M, C>(codec, request));
                }
            )*
            None
        }
    };
}

// The registry: one line per method, one line per task.
registry! {
    methods {
        crate::methods::handcoded::Handcoded,
        crate::methods::bincode::Bincode,
        crate::methods::json_gzip::JsonGzip,
        crate::methods::json::Json,
        crate::methods::msgpack::Msgpack,
        crate::methods::bson::Bson,
        crate::methods::postcard::Postcard,
        crate::methods::bincode2::Bincode2,
        crate::methods::bitcode::Bitcode,
        crate::methods::flexbuffers::Flexbuffers,
        crate::methods::raw::Raw,
        crate::methods::rkyv::Rkyv,
        crate::methods::protobuf::Protobuf,
        crate::methods::flatbuffers::Flatbuffers,
        crate::methods::capnp::Capnp,
        // last: the fuzz seeds number the methods by this order
        crate::methods::msgpack_arrays::MsgpackArrays,
    }
    tasks {
        crate::tasks::write::Write,
        crate::tasks::read_seq::ReadSeq,
        crate::tasks::read_rand::ReadRand,
        crate::tasks::read_par::ReadPar,
        crate::tasks::sort_dedup::SortDedup,
        crate::tasks::memory::Memory,
        crate::tasks::micro::Micro,
    }
}

#[cfg(test)]
mod tests {
    use super::method;

    #[test]
    fn bytes_from_elsewhere_are_read_by_the_validating_variant() {
        assert_eq!(method("rkyv").unwrap().validating_variant(), "validate");
        assert_eq!(method("handcoded").unwrap().validating_variant(), "");
    }
}
