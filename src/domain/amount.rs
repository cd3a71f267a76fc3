//! Money in the domain: exact decimals with at most two fraction digits,
//! stored as integer minor units (cents). Floats never touch money.

use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};
use std::fmt;

/// Fraction digits of the house currency.
pub const MINOR_DIGITS: u32 = 2;
/// Largest single amount accepted anywhere: 1,000,000,000.00.
pub const MAX_AMOUNT_MINOR: i64 = 100_000_000_000;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AmountError {
    #[error("amount must be a decimal string such as \"12.50\"")]
    NotADecimal,
    #[error("amount must be greater than zero")]
    NotPositive,
    #[error("amount has more than {MINOR_DIGITS} decimal places")]
    TooManyDecimals,
    #[error("amount exceeds the maximum of 1000000000.00")]
    TooLarge,
}

/// Integer digits [`Amount::parse`] reads straight into minor units; longer
/// inputs (too large in any case) go through `Decimal` for its verdict.
const FAST_PARSE_MAX_INT_DIGITS: usize = 15;

/// A strictly positive amount of money with at most two decimals.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Amount(i64);

impl Amount {
    pub fn from_minor(minor: i64) -> Result<Amount, AmountError> {
        if minor <= 0 {
            Err(AmountError::NotPositive)
        } else if minor > MAX_AMOUNT_MINOR {
            Err(AmountError::TooLarge)
        } else {
            Ok(Amount(minor))
        }
    }

    pub fn from_decimal(value: Decimal) -> Result<Amount, AmountError> {
        let normalized = value.normalize();
        if normalized.scale() > MINOR_DIGITS {
            return Err(AmountError::TooManyDecimals);
        }
        if value <= Decimal::ZERO {
            return Err(AmountError::NotPositive);
        }
        let minor = (normalized * Decimal::from(100)).trunc();
        let minor: i64 = minor.try_into().map_err(|_| AmountError::TooLarge)?;
        Amount::from_minor(minor)
    }

    /// Parses a plain decimal string: digits, at most one `.`, an optional
    /// leading `-` (refused as not positive). No exponent, `+`, `_` separators,
    /// surrounding space of any kind, or rounding: `rust_decimal`'s `FromStr`
    /// accepts `1e3` and `1_000` and rounds past 28 digits, none of which is
    /// acceptable for money.
    pub fn parse(text: &str) -> Result<Amount, AmountError> {
        let unsigned = text.strip_prefix('-').unwrap_or(text);
        let (int, frac) = match unsigned.split_once('.') {
            Some((i, f)) => (i, Some(f)),
            None => (unsigned, None),
        };
        let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
        if !digits(int) || !frac.map_or(true, digits) {
            return Err(AmountError::NotADecimal);
        }
        // "1.500" is refused too: a third decimal place is more than the currency has.
        if frac.map_or(0, str::len) > MINOR_DIGITS as usize {
            return Err(AmountError::TooManyDecimals);
        }
        if int.len() <= FAST_PARSE_MAX_INT_DIGITS {
            // Exact in i64 minor units; the same verdicts as the Decimal path below.
            let frac = frac.unwrap_or("").as_bytes();
            let digits = int
                .bytes()
                .chain((0..MINOR_DIGITS as usize).map(|i| frac.get(i).copied().unwrap_or(b'0')));
            let minor = digits.fold(0i64, |m, d| m * 10 + i64::from(d - b'0'));
            if unsigned.len() != text.len() {
                return Err(AmountError::NotPositive);
            }
            return Amount::from_minor(minor);
        }
        let value = Decimal::from_str_exact(text).map_err(|_| AmountError::TooLarge)?;
        Amount::from_decimal(value)
    }

    pub fn minor(self) -> i64 {
        self.0
    }

    pub fn to_decimal(self) -> Decimal {
        minor_to_decimal(self.0)
    }
}

impl fmt::Display for Amount {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.to_decimal())
    }
}

impl Serialize for Amount {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.to_string())
    }
}

impl<'de> Deserialize<'de> for Amount {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = String::deserialize(d)?;
        Amount::parse(&text).map_err(serde::de::Error::custom)
    }
}

/// A balance or total in minor units, shown as a two-decimal string.
pub fn minor_to_decimal(minor: i64) -> Decimal {
    Decimal::new(minor, MINOR_DIGITS)
}

pub fn format_minor(minor: i64) -> String {
    minor_to_decimal(minor).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_exact_decimals() {
        assert_eq!(Amount::parse("12.50").unwrap().minor(), 1250);
        assert_eq!(Amount::parse("7").unwrap().minor(), 700);
        assert_eq!(Amount::parse("0.01").unwrap().minor(), 1);
        assert_eq!(Amount::parse("1.5").unwrap().minor(), 150);
        assert_eq!(Amount::parse("1.500"), Err(AmountError::TooManyDecimals));
        assert_eq!(Amount::parse("12.50").unwrap().to_string(), "12.50");
    }

    #[test]
    fn rejects_what_is_not_money() {
        assert_eq!(Amount::parse("0"), Err(AmountError::NotPositive));
        assert_eq!(Amount::parse("-1"), Err(AmountError::NotPositive));
        assert_eq!(Amount::parse("0.001"), Err(AmountError::TooManyDecimals));
        assert_eq!(Amount::parse("abc"), Err(AmountError::NotADecimal));
        assert_eq!(Amount::parse("1e3"), Err(AmountError::NotADecimal));
        assert_eq!(Amount::parse("1E2"), Err(AmountError::NotADecimal));
        assert_eq!(Amount::parse("1_000"), Err(AmountError::NotADecimal));
        assert_eq!(Amount::parse("+1.00"), Err(AmountError::NotADecimal));
        assert_eq!(Amount::parse(".50"), Err(AmountError::NotADecimal));
        assert_eq!(Amount::parse("5."), Err(AmountError::NotADecimal));
        assert_eq!(Amount::parse(""), Err(AmountError::NotADecimal));
        for padded in [
            " 5.00",
            "5.00 ",
            "\t5.00",
            "5.00\n",
            "\u{a0}5.00",
            "5.00\u{a0}",
            "5 .00",
            "\u{2007}5",
        ] {
            assert_eq!(Amount::parse(padded), Err(AmountError::NotADecimal), "{padded:?}");
        }
        assert_eq!(
            Amount::parse("1.0000000000000000000000000001"),
            Err(AmountError::TooManyDecimals)
        );
        assert_eq!(Amount::parse("-0.01"), Err(AmountError::NotPositive));
        assert_eq!(Amount::parse("1000000000.01"), Err(AmountError::TooLarge));
        assert_eq!(Amount::parse("99999999999999999999999"), Err(AmountError::TooLarge));
    }

    /// The `Decimal` path alone, as `parse` was before its integer fast path.
    fn parse_by_decimal(text: &str) -> Result<Amount, AmountError> {
        let unsigned = text.strip_prefix('-').unwrap_or(text);
        let (int, frac) = unsigned.split_once('.').map_or((unsigned, None), |(i, f)| (i, Some(f)));
        let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
        if !digits(int) || !frac.map_or(true, digits) {
            return Err(AmountError::NotADecimal);
        }
        if frac.map_or(0, str::len) > MINOR_DIGITS as usize {
            return Err(AmountError::TooManyDecimals);
        }
        Amount::from_decimal(Decimal::from_str_exact(text).map_err(|_| AmountError::TooLarge)?)
    }

    proptest::proptest! {
        #[test]
        fn the_fast_path_gives_the_decimal_verdict(text in "-?[0-9]{0,20}(\\.[0-9]{0,3})?") {
            proptest::prop_assert_eq!(Amount::parse(&text), parse_by_decimal(&text), "{:?}", text);
        }
    }
}
