//! Formats that are not self-describing (bincode and its kin) need every field in place,
//! but the model's serde derive leaves absent optionals out, as canonical JSON wants.
//! [`Filled`] serializes a value through the format's own serializer and writes each field
//! the derive skips as `None`, so the format's derived deserializer reads it back.

use serde::ser::{
    Serialize, SerializeMap, SerializeSeq, SerializeStruct, SerializeStructVariant, SerializeTuple,
    SerializeTupleStruct, SerializeTupleVariant, Serializer,
};

/// `value`, serialized with every absent optional written as `None`.
pub struct Filled<'a, T: ?Sized>(pub &'a T);

impl<T: Serialize + ?Sized> Serialize for Filled<'_, T> {
    #[inline]
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(Fill(s))
    }
}

/// A serializer (or one of its compound states) that forwards everything and fills skips.
struct Fill<S>(S);

macro_rules! forward {
    ($($method:ident($($arg:ident: $ty:ty),*);)*) => {$(
        #[inline]
        fn $method(self, $($arg: $ty),*) -> Result<S::Ok, S::Error> {
            self.0.$method($($arg),*)
        }
    )*};
}

impl<S: Serializer> Serializer for Fill<S> {
    type Ok = S::Ok;
    type Error = S::Error;
    type SerializeSeq = Fill<S::SerializeSeq>;
    type SerializeTuple = Fill<S::SerializeTuple>;
    type SerializeTupleStruct = Fill<S::SerializeTupleStruct>;
    type SerializeTupleVariant = Fill<S::SerializeTupleVariant>;
    type SerializeMap = Fill<S::SerializeMap>;
    type SerializeStruct = Fill<S::SerializeStruct>;
    type SerializeStructVariant = Fill<S::SerializeStructVariant>;

    forward! {
        serialize_bool(v: bool);
        serialize_i8(v: i8);
        serialize_i16(v: i16);
        serialize_i32(v: i32);
        serialize_i64(v: i64);
        serialize_u8(v: u8);
        serialize_u16(v: u16);
        serialize_u32(v: u32);
        serialize_u64(v: u64);
        serialize_f32(v: f32);
        serialize_f64(v: f64);
        serialize_char(v: char);
        serialize_str(v: &str);
        serialize_bytes(v: &[u8]);
        serialize_none();
        serialize_unit();
        serialize_unit_struct(name: &'static str);
        serialize_unit_variant(name: &'static str, index: u32, variant: &'static str);
    }

    #[inline]
    fn serialize_some<T: Serialize + ?Sized>(self, v: &T) -> Result<S::Ok, S::Error> {
        self.0.serialize_some(&Filled(v))
    }

    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        name: &'static str,
        v: &T,
    ) -> Result<S::Ok, S::Error> {
        self.0.serialize_newtype_struct(name, &Filled(v))
    }

    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        name: &'static str,
        index: u32,
        variant: &'static str,
        v: &T,
    ) -> Result<S::Ok, S::Error> {
        self.0
            .serialize_newtype_variant(name, index, variant, &Filled(v))
    }

    #[inline]
    fn serialize_seq(self, len: Option<usize>) -> Result<Self::SerializeSeq, S::Error> {
        self.0.serialize_seq(len).map(Fill)
    }

    fn serialize_tuple(self, len: usize) -> Result<Self::SerializeTuple, S::Error> {
        self.0.serialize_tuple(len).map(Fill)
    }

    fn serialize_tuple_struct(
        self,
        name: &'static str,
        len: usize,
    ) -> Result<Self::SerializeTupleStruct, S::Error> {
        self.0.serialize_tuple_struct(name, len).map(Fill)
    }

    fn serialize_tuple_variant(
        self,
        name: &'static str,
        index: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Self::SerializeTupleVariant, S::Error> {
        self.0
            .serialize_tuple_variant(name, index, variant, len)
            .map(Fill)
    }

    fn serialize_map(self, len: Option<usize>) -> Result<Self::SerializeMap, S::Error> {
        self.0.serialize_map(len).map(Fill)
    }

    #[inline]
    fn serialize_struct(
        self,
        name: &'static str,
        len: usize,
    ) -> Result<Self::SerializeStruct, S::Error> {
        self.0.serialize_struct(name, len).map(Fill)
    }

    fn serialize_struct_variant(
        self,
        name: &'static str,
        index: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Self::SerializeStructVariant, S::Error> {
        self.0
            .serialize_struct_variant(name, index, variant, len)
            .map(Fill)
    }

    fn is_human_readable(&self) -> bool {
        self.0.is_human_readable()
    }
}

impl<S: SerializeSeq> SerializeSeq for Fill<S> {
    type Ok = S::Ok;
    type Error = S::Error;

    #[inline]
    fn serialize_element<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<(), S::Error> {
        self.0.serialize_element(&Filled(v))
    }

    fn end(self) -> Result<S::Ok, S::Error> {
        self.0.end()
    }
}

impl<S: SerializeTuple> SerializeTuple for Fill<S> {
    type Ok = S::Ok;
    type Error = S::Error;

    fn serialize_element<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<(), S::Error> {
        self.0.serialize_element(&Filled(v))
    }

    fn end(self) -> Result<S::Ok, S::Error> {
        self.0.end()
    }
}

impl<S: SerializeTupleStruct> SerializeTupleStruct for Fill<S> {
    type Ok = S::Ok;
    type Error = S::Error;

    fn serialize_field<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<(), S::Error> {
        self.0.serialize_field(&Filled(v))
    }

    fn end(self) -> Result<S::Ok, S::Error> {
        self.0.end()
    }
}

impl<S: SerializeTupleVariant> SerializeTupleVariant for Fill<S> {
    type Ok = S::Ok;
    type Error = S::Error;

    fn serialize_field<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<(), S::Error> {
        self.0.serialize_field(&Filled(v))
    }

    fn end(self) -> Result<S::Ok, S::Error> {
        self.0.end()
    }
}

impl<S: SerializeMap> SerializeMap for Fill<S> {
    type Ok = S::Ok;
    type Error = S::Error;

    fn serialize_key<T: Serialize + ?Sized>(&mut self, k: &T) -> Result<(), S::Error> {
        self.0.serialize_key(&Filled(k))
    }

    fn serialize_value<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<(), S::Error> {
        self.0.serialize_value(&Filled(v))
    }

    fn end(self) -> Result<S::Ok, S::Error> {
        self.0.end()
    }
}

impl<S: SerializeStruct> SerializeStruct for Fill<S> {
    type Ok = S::Ok;
    type Error = S::Error;

    #[inline]
    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        v: &T,
    ) -> Result<(), S::Error> {
        self.0.serialize_field(key, &Filled(v))
    }

    /// The derive skips only absent optionals: write them as `None`.
    #[inline]
    fn skip_field(&mut self, key: &'static str) -> Result<(), S::Error> {
        self.0.serialize_field(key, &None::<()>)
    }

    fn end(self) -> Result<S::Ok, S::Error> {
        self.0.end()
    }
}

impl<S: SerializeStructVariant> SerializeStructVariant for Fill<S> {
    type Ok = S::Ok;
    type Error = S::Error;

    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        v: &T,
    ) -> Result<(), S::Error> {
        self.0.serialize_field(key, &Filled(v))
    }

    fn skip_field(&mut self, key: &'static str) -> Result<(), S::Error> {
        self.0.serialize_field(key, &None::<()>)
    }

    fn end(self) -> Result<S::Ok, S::Error> {
        self.0.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::{Deserialize, Serialize};

    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    struct Sample {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        absent: Option<i32>,
        nested: Vec<Option<Box<Sample>>>,
    }

    #[test]
    fn skipped_optionals_are_written_as_none_at_every_level() {
        let value = Sample {
            absent: None,
            nested: vec![Some(Box::new(Sample {
                absent: None,
                nested: vec![],
            }))],
        };
        let plain = bincode::serialize(&value).unwrap();
        assert_ne!(
            bincode::deserialize::<Sample>(&plain).ok().as_ref(),
            Some(&value)
        );
        let filled = bincode::serialize(&Filled(&value)).unwrap();
        assert_eq!(bincode::deserialize::<Sample>(&filled).unwrap(), value);
        assert_eq!(
            serde_json::to_string(&Filled(&value)).unwrap(),
            r#"{"absent":null,"nested":[{"absent":null,"nested":[]}]}"#
        );
    }
}
