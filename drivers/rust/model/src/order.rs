//! The total order of `docs/models.md`: a model's key fields first, then every field in canonical
//! order. Strings compare by UTF-8 bytes, lists lexicographically, absent before present,
//! f64 by IEEE total order (so -0.0 < 0.0), false < true, enums by ordinal.

use std::cmp::Ordering;

/// A total order over model values; the external sort and duplicate removal rely on it.
pub trait TotalOrder {
    fn total_cmp(&self, other: &Self) -> Ordering;

    /// Duplicates are values equal in every field. Unlike the derived `PartialEq`, this tells
    /// -0.0 from 0.0, as the checksum does.
    fn total_eq(&self, other: &Self) -> bool {
        self.total_cmp(other) == Ordering::Equal
    }
}

macro_rules! ord_total_order {
    ($($t:ty),*) => {$(
        impl TotalOrder for $t {
            #[inline]
            fn total_cmp(&self, other: &Self) -> Ordering {
                self.cmp(other)
            }
        }
    )*};
}
// str's Ord is bytewise, which is the UTF-8 byte order the spec asks for.
ord_total_order!(i8, i16, i32, i64, bool, String, str);

impl TotalOrder for f64 {
    #[inline]
    fn total_cmp(&self, other: &Self) -> Ordering {
        f64::total_cmp(self, other)
    }
}

impl<T: TotalOrder> TotalOrder for Option<T> {
    #[inline]
    fn total_cmp(&self, other: &Self) -> Ordering {
        match (self, other) {
            (None, None) => Ordering::Equal,
            (None, Some(_)) => Ordering::Less,
            (Some(_), None) => Ordering::Greater,
            (Some(a), Some(b)) => a.total_cmp(b),
        }
    }
}

impl<T: TotalOrder> TotalOrder for [T] {
    fn total_cmp(&self, other: &Self) -> Ordering {
        for (a, b) in self.iter().zip(other) {
            match a.total_cmp(b) {
                Ordering::Equal => {}
                unequal => return unequal,
            }
        }
        self.len().cmp(&other.len())
    }
}

impl<T: TotalOrder> TotalOrder for Vec<T> {
    #[inline]
    fn total_cmp(&self, other: &Self) -> Ordering {
        self.as_slice().total_cmp(other.as_slice())
    }
}

impl<T: TotalOrder + ?Sized> TotalOrder for Box<T> {
    #[inline]
    fn total_cmp(&self, other: &Self) -> Ordering {
        (**self).total_cmp(&**other)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_use_ieee_total_order() {
        assert_eq!(TotalOrder::total_cmp(&-0.0f64, &0.0), Ordering::Less);
        assert!(!TotalOrder::total_eq(&-0.0f64, &0.0));
        assert_eq!(TotalOrder::total_cmp(&-1.0f64, &-0.0), Ordering::Less);
    }

    #[test]
    fn absent_before_present_and_lists_lexicographic() {
        assert_eq!(None.total_cmp(&Some(i64::MIN)), Ordering::Less);
        assert_eq!(vec![1i32, 2].total_cmp(&vec![1, 3]), Ordering::Less);
        assert_eq!(vec![1i32, 2].total_cmp(&vec![1]), Ordering::Greater);
        assert_eq!(Vec::<i32>::new().total_cmp(&vec![i32::MIN]), Ordering::Less);
    }

    #[test]
    fn strings_compare_by_utf8_bytes() {
        // U+FF21 (3 bytes, 0xEF...) sorts after U+00E9 (0xC3...) and after ASCII.
        assert_eq!(
            "\u{ff21}".to_string().total_cmp(&"\u{e9}".to_string()),
            Ordering::Greater
        );
        assert_eq!("Z".to_string().total_cmp(&"a".to_string()), Ordering::Less);
        assert_eq!(false.total_cmp(&true), Ordering::Less);
    }
}
