//! `model_struct!` declares a model struct once and derives from that single field list
//! everything that must follow canonical order: the serde shape, the checksum fold and the
//! total order. Adding or moving a field therefore cannot desynchronise them.

/// ```text
/// model_struct! {
///     /// docs
///     pub struct Name key(field, ...) {   // key(...) only for model roots
///         #[serde attributes] pub field: Type,
///     }
/// }
/// ```
macro_rules! model_struct {
    (
        $(#[$meta:meta])*
        pub struct $name:ident $(key($($key:ident),+))? {
            $( $(#[$field_meta:meta])* pub $field:ident : $ty:ty, )*
        }
    ) => {
        // rkyv's derives come first: a struct's `#[rkyv(...)]` attributes (in `$meta`) follow them
        #[derive(::rkyv::Archive, ::rkyv::Serialize, ::rkyv::Deserialize)]
        $(#[$meta])*
        #[derive(Clone, Debug, PartialEq, ::serde::Serialize, ::serde::Deserialize)]
        #[serde(deny_unknown_fields)]
        pub struct $name {
            $( $(#[$field_meta])* pub $field: $ty, )*
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
                    $( $( .then_with(|| TotalOrder::total_cmp(&self.$key, &other.$key)) )+ )?
                    $( .then_with(|| TotalOrder::total_cmp(&self.$field, &other.$field)) )*
            }
        }
    };
}
