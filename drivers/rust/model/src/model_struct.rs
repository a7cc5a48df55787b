//! `model_struct!` declares a model struct once and derives from that single field list
//! everything that must follow canonical order: the serde shape, the checksum fold and the
//! total order. Adding or moving a field therefore cannot desynchronise them.
//!
//! The serde shape depends on the format: human-readable ones (JSON) omit absent optionals,
//! as canonical JSON wants; the others (bincode, postcard, …, which read fields by position)
//! get every field, an absent optional as `None`.

/// Whether a field's value is an absent optional (only `Option` can be).
pub trait Omittable {
    #[inline(always)]
    fn is_absent(&self) -> bool {
        false
    }
}

impl<T> Omittable for Option<T> {
    #[inline(always)]
    fn is_absent(&self) -> bool {
        self.is_none()
    }
}

impl<T> Omittable for Vec<T> {}
impl<T: ?Sized> Omittable for Box<T> {}

macro_rules! never_absent {
    ($($t:ty)*) => {$( impl $crate::model_struct::Omittable for $t {} )*};
}

never_absent!(i8 i16 i32 i64 f64 bool String);

/// ```text
/// model_struct! {
///     pub struct Name key(field, ...) recursive {   // key(...) only for model roots,
///                                                    // recursive for a struct that nests itself
///         #[serde attributes] pub field: Type = "json key",
///     }
/// }
/// ```
///
/// The invocations are generated (drivers/rust/codegen/generate_models.py).
macro_rules! model_struct {
    (
        $(#[$meta:meta])*
        pub struct $name:ident $(key($($order:ident),+))? recursive { $($fields:tt)* }
    ) => {
        model_struct!(@[recursive] $(#[$meta])* pub struct $name $(key($($order),+))? { $($fields)* });
    };
    (
        $(#[$meta:meta])*
        pub struct $name:ident $(key($($order:ident),+))? { $($fields:tt)* }
    ) => {
        model_struct!(@[] $(#[$meta])* pub struct $name $(key($($order),+))? { $($fields)* });
    };
    (
        @[$($recursive:ident)?]
        $(#[$meta:meta])*
        pub struct $name:ident $(key($($order:ident),+))? {
            $( $(#[$field_meta:meta])* pub $field:ident : $ty:ty = $key:literal, )*
        }
    ) => {
        // rkyv's derives come first: a struct's `#[rkyv(...)]` attributes (in `$meta`) follow them
        #[derive(::rkyv::Archive, ::rkyv::Serialize, ::rkyv::Deserialize)]
        $(#[$meta])*
        #[derive(Clone, Debug, PartialEq, ::serde::Deserialize)]
        #[derive(::bincode2::Encode)] #[bincode(crate = "::bincode2")]
        #[serde(deny_unknown_fields)]
        pub struct $name {
            $( $(#[$field_meta])* #[serde(rename = $key)] pub $field: $ty, )*
        }

        impl $crate::model_struct::Omittable for $name {}

        // bincode 2's derive, plus a bound on the levels of a recursive struct
        impl<__Context> ::bincode2::Decode<__Context> for $name {
            fn decode<__D: ::bincode2::de::Decoder<Context = __Context>>(
                decoder: &mut __D,
            ) -> Result<Self, ::bincode2::error::DecodeError> {
                let _level = model_struct!(@level $($recursive)?);
                Ok(Self { $( $field: ::bincode2::Decode::decode(decoder)?, )* })
            }
        }

        ::bincode2::impl_borrow_decode!($name);

        impl ::serde::Serialize for $name {
            fn serialize<S: ::serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                use ::serde::ser::SerializeStruct;
                use $crate::model_struct::Omittable;
                let omit = s.is_human_readable();
                let len = 0 $( + !(omit && self.$field.is_absent()) as usize )*;
                let mut out = s.serialize_struct(stringify!($name), len)?;
                $(
                    if omit && self.$field.is_absent() {
                        out.skip_field($key)?;
                    } else {
                        out.serialize_field($key, &self.$field)?;
                    }
                )*
                out.end()
            }
        }

        impl $crate::checksum::Checksum for $name {
            #[inline]
            fn fold(&self, h: &mut $crate::checksum::Hasher) {
                $( $crate::checksum::Checksum::fold(&self.$field, h); )*
            }
        }

        impl $crate::order::TotalOrder for $name {
            fn total_cmp(&self, other: &Self) -> ::std::cmp::Ordering {
                use $crate::order::TotalOrder;
                ::std::cmp::Ordering::Equal
                    $( $( .then_with(|| TotalOrder::total_cmp(&self.$order, &other.$order)) )+ )?
                    $( .then_with(|| TotalOrder::total_cmp(&self.$field, &other.$field)) )*
            }
        }
    };
    (@level) => { () };
    (@level recursive) => { $crate::nesting::Level::decoding()? };
}

/// ```text
/// model_enum! {
///     pub enum Name [count] "what it is" { Variant = "SYMBOL", ... }
/// }
/// ```
///
/// An enum of the models: JSON uses the symbol, the checksum, the order and every binary
/// layout the ordinal (its position, from 0). The invocations are generated.
macro_rules! model_enum {
    (
        pub enum $name:ident [$count:literal] $what:literal {
            $( $variant:ident = $symbol:literal, )+
        }
    ) => {
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        #[derive(::serde::Serialize, ::serde::Deserialize)]
        #[derive(::rkyv::Archive, ::rkyv::Serialize, ::rkyv::Deserialize)]
        #[derive(::bincode2::Encode, ::bincode2::Decode)]
        #[bincode(crate = "::bincode2")]
        pub enum $name {
            $( #[serde(rename = $symbol)] $variant, )+
        }

        impl $name {
            pub const ALL: [$name; $count] = [$( $name::$variant ),+];
            /// What it is, in words, for error messages.
            pub const WHAT: &'static str = $what;

            /// Declared position, starting at 0.
            #[inline(always)]
            pub fn ordinal(self) -> u8 {
                self as u8
            }

            /// The value at a declared position.
            #[inline]
            pub fn from_ordinal(ordinal: usize) -> Option<Self> {
                Self::ALL.get(ordinal).copied()
            }
        }

        impl $crate::model_struct::Omittable for $name {}

        impl $crate::checksum::Checksum for $name {
            #[inline]
            fn fold(&self, h: &mut $crate::checksum::Hasher) {
                h.int(self.ordinal() as i64);
            }
        }

        impl $crate::order::TotalOrder for $name {
            fn total_cmp(&self, other: &Self) -> ::std::cmp::Ordering {
                self.ordinal().cmp(&other.ordinal())
            }
        }
    };
}

/// `Root => Variant [key fields]`: each root's `ModelType` (invoked by the generated code).
macro_rules! model_type {
    ($($ty:ty => $id:ident [$($key:literal),*]),* $(,)?) => {$(
        impl $crate::ModelType for $ty {
            const ID: $crate::ModelId = $crate::ModelId::$id;
            const KEY: &'static [&'static str] = &[$($key),*];
        }
    )*};
}
