//! The model registry: one id per benchmarked model and its root type, plus [`dispatch!`]
//! to run code that is generic over the root type of a model chosen at run time. The ids,
//! their roots and `dispatch!` are generated from the definitions (`ModelId` in `models.rs`
//! of the build's output); what does not depend on the models is here.

use std::fmt;
use std::str::FromStr;

use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::checksum::Checksum;
use crate::order::TotalOrder;
use crate::ModelId;

impl fmt::Display for ModelId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// An id that names no model.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownModel(pub String);

impl fmt::Display for UnknownModel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let known: Vec<&str> = ModelId::ALL.iter().map(|m| m.name()).collect();
        write!(
            f,
            "unknown model '{}'; known models: {}",
            self.0,
            known.join(", ")
        )
    }
}

impl std::error::Error for UnknownModel {}

impl FromStr for ModelId {
    type Err = UnknownModel;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        ModelId::ALL
            .into_iter()
            .find(|m| m.name() == s)
            .ok_or_else(|| UnknownModel(s.into()))
    }
}

/// The root type of a model: everything a generic task needs to load, check, order and
/// encode it through serde.
pub trait ModelType:
    Checksum
    + TotalOrder
    + Serialize
    + DeserializeOwned
    + Clone
    + fmt::Debug
    + PartialEq
    + Send
    + Sync
    + 'static
{
    const ID: ModelId;
    /// The fields the total order compares first, by canonical name.
    const KEY: &'static [&'static str];
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id_of<M: ModelType>() -> ModelId {
        M::ID
    }

    #[test]
    fn names_parse_back_and_dispatch_reaches_the_root_type() {
        for model in ModelId::ALL {
            assert_eq!(model.name().parse::<ModelId>(), Ok(model));
            assert_eq!(dispatch!(model, T => id_of::<T>()), model);
        }
    }

    #[test]
    fn unknown_model_lists_the_known_ones() {
        let err = "nope".parse::<ModelId>().unwrap_err().to_string();
        // a user's models follow the built-in ones
        assert!(
            err.starts_with(
                "unknown model 'nope'; known models: part, lineitem, customer, tweet, sparse, \
                 trade, org, arrays"
            ),
            "{err}"
        );
    }
}
