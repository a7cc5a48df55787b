//! Small objects from classic micro comparisons: trade, org, arrays.

use serde::{Deserialize, Serialize};

use crate::checksum::{Checksum, Hasher};
use crate::order::TotalOrder;

model_struct! {
    /// A flat record with two primitive arrays.
    pub struct Trade key(source_id) {
        pub source_id: i64,
        pub special: bool,
        pub order_code: i32,
        pub priority: i32,
        pub prices: Vec<f64>,
        pub quantities: Vec<i64>,
    }
}

/// `enum{FOO,BAR,BAZ}`: JSON uses the symbol, checksum and order the ordinal.
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    Hash,
    Serialize,
    Deserialize,
    rkyv::Archive,
    rkyv::Serialize,
    rkyv::Deserialize,
    bincode2::Encode,
    bincode2::Decode,
)]
#[bincode(crate = "bincode2")]
#[serde(rename_all = "UPPERCASE")]
pub enum OrgType {
    Foo,
    Bar,
    Baz,
}

impl OrgType {
    pub const ALL: [OrgType; 3] = [OrgType::Foo, OrgType::Bar, OrgType::Baz];

    /// Declared position, starting at 0.
    pub fn ordinal(self) -> u8 {
        self as u8
    }
}

never_absent!(OrgType);

impl Checksum for OrgType {
    #[inline]
    fn fold(&self, h: &mut Hasher) {
        h.int(self.ordinal() as i64);
    }
}

impl TotalOrder for OrgType {
    fn total_cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.ordinal().cmp(&other.ordinal())
    }
}

model_struct! {
    pub struct Org key(name) {
        pub name: String,
        pub category: String,
        pub country: String,
        pub r#type: OrgType,
        pub attributes: Vec<Attr>,
    }
}

model_struct! {
    pub struct Attr {
        pub id: String,
        pub quantity: i8,
        pub amount: i8,
        pub active: bool,
        pub percent: f64,
        pub size: i16,
    }
}

model_struct! {
    /// `k` strings and `k` ints, for the size sweep.
    pub struct Arrays {
        pub strings: Vec<String>,
        pub ints: Vec<i32>,
    }
}
