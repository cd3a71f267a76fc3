//! Serde for values indexed by `Suit::index()`: written as an object keyed by
//! suit name (`{"crowns": 4, …}`) so JSON readers need not know the index
//! order; read from that object or, as stored by earlier versions, a
//! five-element array.

use super::Suit;
use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::ser::{SerializeMap, Serializer};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::marker::PhantomData;

pub fn serialize<S: Serializer, T: Serialize>(values: &[T; Suit::COUNT], s: S) -> Result<S::Ok, S::Error> {
    let mut map = s.serialize_map(Some(Suit::COUNT))?;
    for suit in Suit::ALL {
        map.serialize_entry(suit.name(), &values[suit.index()])?;
    }
    map.end()
}

pub fn deserialize<'de, D, T>(d: D) -> Result<[T; Suit::COUNT], D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de> + Copy,
{
    struct PerSuit<T>(PhantomData<T>);

    impl<'de, T: Deserialize<'de> + Copy> Visitor<'de> for PerSuit<T> {
        type Value = [T; Suit::COUNT];

        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("an object with one entry per suit, or five values in suit order")
        }

        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
            let mut values: [Option<T>; Suit::COUNT] = [None; Suit::COUNT];
            while let Some(name) = map.next_key::<String>()? {
                let suit = Suit::parse(&name).ok_or_else(|| de::Error::custom(format!("unknown suit {name:?}")))?;
                if values[suit.index()].replace(map.next_value()?).is_some() {
                    return Err(de::Error::custom(format!("{name} given twice")));
                }
            }
            let mut out = Vec::with_capacity(Suit::COUNT);
            for suit in Suit::ALL {
                out.push(values[suit.index()].ok_or_else(|| de::Error::custom(format!("{suit} missing")))?);
            }
            out.try_into().map_err(|_| de::Error::custom("five suits"))
        }

        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
            let mut out = Vec::with_capacity(Suit::COUNT);
            while let Some(v) = seq.next_element()? {
                out.push(v);
            }
            let n = out.len();
            out.try_into()
                .map_err(|_| de::Error::invalid_length(n, &"five values in suit order"))
        }
    }

    d.deserialize_any(PerSuit(PhantomData))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Serialize, Deserialize, PartialEq, Debug)]
    struct Counts(#[serde(with = "super")] [u8; 5]);

    #[test]
    fn written_by_name_read_by_name_or_in_order() {
        let c = Counts([1, 2, 3, 4, 5]);
        let json = serde_json::to_string(&c).unwrap();
        assert_eq!(json, r#"{"crowns":1,"locks":2,"fruit":3,"swords":4,"cups":5}"#);
        assert_eq!(serde_json::from_str::<Counts>(&json).unwrap(), c);
        assert_eq!(serde_json::from_str::<Counts>("[1,2,3,4,5]").unwrap(), c);
        assert!(serde_json::from_str::<Counts>("[1,2,3,4]").is_err());
        assert!(serde_json::from_str::<Counts>(r#"{"crowns":1}"#).is_err());
        assert!(serde_json::from_str::<Counts>(r#"{"stars":1}"#).is_err());
    }
}
