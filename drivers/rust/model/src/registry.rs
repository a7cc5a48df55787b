//! The model registry: one id per benchmarked model and its root type, plus [`dispatch!`]
//! to run code that is generic over the root type of a model chosen at run time.

use std::fmt;
use std::str::FromStr;

use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::checksum::Checksum;
use crate::order::TotalOrder;
use crate::{Arrays, Customer, LineItem, Org, Part, SparseVector, Trade, Tweet};

/// The benchmarked models, by their snake_case ids.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ModelId {
    Part,
    LineItem,
    Customer,
    Tweet,
    Sparse,
    Trade,
    Org,
    Arrays,
}

impl ModelId {
    pub const ALL: [ModelId; 8] = [
        ModelId::Part,
        ModelId::LineItem,
        ModelId::Customer,
        ModelId::Tweet,
        ModelId::Sparse,
        ModelId::Trade,
        ModelId::Org,
        ModelId::Arrays,
    ];

    /// The id used in CLIs, file names, JSON and results.
    pub fn name(self) -> &'static str {
        match self {
            ModelId::Part => "part",
            ModelId::LineItem => "lineitem",
            ModelId::Customer => "customer",
            ModelId::Tweet => "tweet",
            ModelId::Sparse => "sparse",
            ModelId::Trade => "trade",
            ModelId::Org => "org",
            ModelId::Arrays => "arrays",
        }
    }
}

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

macro_rules! model_type {
    ($($ty:ty => $id:ident [$($key:literal),*]),* $(,)?) => {$(
        impl ModelType for $ty {
            const ID: ModelId = ModelId::$id;
            const KEY: &'static [&'static str] = &[$($key),*];
        }
    )*};
}

model_type! {
    Part => Part ["partkey"],
    LineItem => LineItem ["orderkey", "linenumber"],
    Customer => Customer ["custkey"],
    Tweet => Tweet ["id"],
    SparseVector => Sparse [],
    Trade => Trade ["source_id"],
    Org => Org ["name"],
    Arrays => Arrays [],
}

/// Evaluates `body` with the type alias `T` bound to the root type of `model` (a
/// [`ModelId`]); every arm must produce the same type.
///
/// ```
/// use serbench_model::{dispatch, ModelId, ModelType};
/// fn key_of<M: ModelType>() -> &'static [&'static str] { M::KEY }
/// let key = dispatch!(ModelId::LineItem, T => key_of::<T>());
/// assert_eq!(key, ["orderkey", "linenumber"]);
/// ```
#[macro_export]
macro_rules! dispatch {
    ($model:expr, $t:ident => $body:expr) => {
        match $model {
            $crate::ModelId::Part => {
                type $t = $crate::Part;
                $body
            }
            $crate::ModelId::LineItem => {
                type $t = $crate::LineItem;
                $body
            }
            $crate::ModelId::Customer => {
                type $t = $crate::Customer;
                $body
            }
            $crate::ModelId::Tweet => {
                type $t = $crate::Tweet;
                $body
            }
            $crate::ModelId::Sparse => {
                type $t = $crate::SparseVector;
                $body
            }
            $crate::ModelId::Trade => {
                type $t = $crate::Trade;
                $body
            }
            $crate::ModelId::Org => {
                type $t = $crate::Org;
                $body
            }
            $crate::ModelId::Arrays => {
                type $t = $crate::Arrays;
                $body
            }
        }
    };
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
        assert_eq!(
            err,
            "unknown model 'nope'; known models: part, lineitem, customer, tweet, sparse, \
             trade, org, arrays"
        );
    }
}
