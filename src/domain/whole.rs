//! Integers in JSON request bodies as JSON Schema reads them: `2` and `2.0`
//! are the same integer, so a body the OpenAPI document allows is not
//! refused for spelling a whole number with a fraction point. A fraction
//! (`2.5`), a number past 2^53 written as a float, or a value out of the
//! field's range is still refused.
//!
//! ```ignore
//! #[serde(deserialize_with = "crate::domain::whole::integer")]
//! expected_plays: u32,
//! ```

use serde::de::Error;
use serde::{Deserialize, Deserializer};

/// The largest magnitude at which every whole float is exactly one integer.
const EXACT: f64 = 9_007_199_254_740_992.0;

fn whole<'de, D: Deserializer<'de>>(d: D) -> Result<i128, D::Error> {
    let n = serde_json::Number::deserialize(d)?;
    if let Some(v) = n.as_i64() {
        return Ok(v.into());
    }
    if let Some(v) = n.as_u64() {
        return Ok(v.into());
    }
    match n.as_f64() {
        Some(f) if f.fract() == 0.0 && f.abs() <= EXACT => Ok(f as i128),
        _ => Err(D::Error::custom(format!("invalid value: {n}, expected an integer"))),
    }
}

/// An integer field.
pub fn integer<'de, D, T>(d: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: TryFrom<i128>,
{
    let v = whole(d)?;
    T::try_from(v).map_err(|_| D::Error::custom(format!("invalid value: {v}, out of range for this field")))
}

struct Whole<T>(T);

impl<'de, T: TryFrom<i128>> Deserialize<'de> for Whole<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        integer(d).map(Whole)
    }
}

/// An optional integer field (`null` or absent is `None`; use with `#[serde(default)]`).
pub fn option<'de, D, T>(d: D) -> Result<Option<T>, D::Error>
where
    D: Deserializer<'de>,
    T: TryFrom<i128>,
{
    Ok(Option::<Whole<T>>::deserialize(d)?.map(|w| w.0))
}

/// A list of integers.
pub fn list<'de, D, T>(d: D) -> Result<Vec<T>, D::Error>
where
    D: Deserializer<'de>,
    T: TryFrom<i128>,
{
    Ok(Vec::<Whole<T>>::deserialize(d)?.into_iter().map(|w| w.0).collect())
}

#[cfg(test)]
mod tests {
    use serde::Deserialize;

    #[derive(Deserialize, Debug, PartialEq)]
    struct Body {
        #[serde(deserialize_with = "super::integer")]
        n: u8,
        #[serde(default, deserialize_with = "super::option")]
        o: Option<i64>,
        #[serde(default, deserialize_with = "super::list")]
        l: Vec<u8>,
    }

    fn parse(text: &str) -> Result<Body, String> {
        serde_json::from_str(text).map_err(|e| e.to_string())
    }

    #[test]
    fn whole_floats_are_integers() {
        assert_eq!(
            parse(r#"{"n": 7.0, "o": -3.0, "l": [1, 2.0]}"#).unwrap(),
            Body {
                n: 7,
                o: Some(-3),
                l: vec![1, 2]
            }
        );
        assert_eq!(
            parse(r#"{"n": 7, "o": null}"#).unwrap(),
            Body {
                n: 7,
                o: None,
                l: vec![]
            }
        );
    }

    #[test]
    fn fractions_strings_and_out_of_range_are_refused() {
        assert!(parse(r#"{"n": 7.5}"#).is_err());
        assert!(parse(r#"{"n": "7"}"#).is_err());
        assert!(parse(r#"{"n": 256}"#).is_err());
        assert!(parse(r#"{"n": -1.0}"#).is_err());
        assert!(parse(r#"{"n": 1, "o": 1e300}"#).is_err());
        assert!(parse(r#"{"n": 1, "l": [300]}"#).is_err());
    }
}
