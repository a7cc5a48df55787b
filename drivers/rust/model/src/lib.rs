//! serbench's data models in Rust: the structs of `docs/models.md` with canonical JSON through
//! serde, the logical checksum, the total order, and strict JSON Lines loading.
//!
//! Every struct derives, from one field list in canonical order, `Serialize`/`Deserialize`
//! (canonical keys, absent optionals omitted in human-readable formats, unknown keys
//! rejected), [`Checksum`] and
//! [`TotalOrder`]. Model roots implement [`ModelType`]; [`dispatch!`] turns a run-time
//! [`ModelId`] into a call of generic code.

#[macro_use]
mod model_struct;
mod nesting;

pub mod checksum;
pub mod jsonl;
pub mod order;
mod registry;
mod small;
mod sparse;
mod tpch;
mod tweet;

pub use checksum::{hex64, object_hash, sequence_checksum, Checksum, Hasher, SetChecksum};
pub use jsonl::{
    from_json, nesting, open_json_lines, read_json_lines, try_from_json, write_json_line,
    DataError, JsonLines, LineError, ReadError, MAX_NESTING,
};
pub use order::TotalOrder;
pub use registry::{ModelId, ModelType, UnknownModel};
pub use small::{Arrays, Attr, Org, OrgType, Trade};
pub use sparse::{Entry, SparseVector};
pub use tpch::{Customer, LineItem, Order, Part, Supplier};
pub use tweet::{
    BoundingBox, Coordinates, Entities, ExtendedEntities, Hashtag, Media, Mention, Place, Size,
    Sizes, Tweet, TweetKind, Url, User,
};

/// The archived forms rkyv derives for every model struct, read in place by the driver.
pub mod archived {
    pub use crate::small::{
        ArchivedArrays, ArchivedAttr, ArchivedOrg, ArchivedOrgType, ArchivedTrade,
    };
    pub use crate::sparse::{ArchivedEntry, ArchivedSparseVector};
    pub use crate::tpch::{
        ArchivedCustomer, ArchivedLineItem, ArchivedOrder, ArchivedPart, ArchivedSupplier,
    };
    pub use crate::tweet::{
        ArchivedBoundingBox, ArchivedCoordinates, ArchivedEntities, ArchivedExtendedEntities,
        ArchivedHashtag, ArchivedMedia, ArchivedMention, ArchivedPlace, ArchivedSize,
        ArchivedSizes, ArchivedTweet, ArchivedUrl, ArchivedUser,
    };
}

#[cfg(test)]
mod tests;
