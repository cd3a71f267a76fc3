//! Exact outcome probabilities for the bets that have them (docs/math.md argues
//! each): Prima, Escúcha and Máximo. All rational.
//!
//! - The first card is uniform over the 50 cards, so its suit is uniform (1/5)
//!   and, given the suit, its rank is uniform (1/10).
//! - Relabelling the ranks of one suit by a rotation r ↦ r + k (mod 10) maps
//!   decks one-to-one onto decks and preserves every "plays onto" relation, so
//!   every move of the deal-out is unchanged: which suit completes first is
//!   unchanged while that suit's foundation rank is rotated. Hence each suit's
//!   foundation rank is uniform and independent of the other suits' foundation
//!   ranks and of which suit completes first.
//! - Relabelling suits maps decks onto decks and permutes outcomes, so each
//!   suit completes first with probability 1/5.

use num_bigint::BigInt;
use num_rational::BigRational;
use num_traits::{One, Signed, Zero};
use rust_decimal::Decimal;

pub fn ratio(num: i64, den: i64) -> BigRational {
    BigRational::new(BigInt::from(num), BigInt::from(den))
}

/// A pay or amount as an exact rational.
pub fn decimal_to_rational(d: Decimal) -> BigRational {
    BigRational::new(BigInt::from(d.mantissa()), BigInt::from(10).pow(d.scale()))
}

/// `r` written in decimal with `digits` places, rounded half away from zero.
pub fn rational_to_decimal_string(r: &BigRational, digits: u32) -> String {
    let scale = BigInt::from(10).pow(digits);
    let scaled = r * BigRational::from_integer(scale.clone());
    let rounded = scaled.round().to_integer();
    let negative = rounded.is_negative();
    let abs = rounded.abs().to_string();
    let padded = format!("{:0>width$}", abs, width = digits as usize + 1);
    let (int, frac) = padded.split_at(padded.len() - digits as usize);
    let sign = if negative { "-" } else { "" };
    if digits == 0 {
        format!("{sign}{int}")
    } else {
        format!("{sign}{int}.{frac}")
    }
}

pub fn rational_to_f64(r: &BigRational) -> f64 {
    // 17 significant digits are plenty for statistics and plots.
    rational_to_decimal_string(r, 17).parse().unwrap_or(f64::NAN)
}

/// P(first card is of the chosen suit and not an Ace), P(... and an Ace).
pub fn prima_probabilities() -> (BigRational, BigRational) {
    (ratio(9, 50), ratio(1, 50))
}

/// P(chosen suit completes first and its foundation is not an Ace), P(... is an Ace).
pub fn escucha_probabilities() -> (BigRational, BigRational) {
    (ratio(1, 5) * ratio(9, 10), ratio(1, 5) * ratio(1, 10))
}

/// Máximo on a suit: (P(win), P(tied for highest with exactly one other),
/// P(lose otherwise)), by enumerating the 10^5 equally likely foundation-rank
/// vectors (the chosen suit first).
pub fn maximo_probabilities() -> (BigRational, BigRational, BigRational) {
    static COUNTS: std::sync::OnceLock<(i64, i64)> = std::sync::OnceLock::new();
    let &(win, pair) = COUNTS.get_or_init(maximo_counts);
    let total = 100_000i64;
    (ratio(win, total), ratio(pair, total), ratio(total - win - pair, total))
}

/// (vectors where the chosen suit wins, vectors where it ties with exactly one other).
fn maximo_counts() -> (i64, i64) {
    let (mut win, mut pair) = (0i64, 0i64);
    let total = 100_000i64;
    for code in 0..total {
        let mut ranks = [0u32; 5];
        let mut c = code;
        for r in ranks.iter_mut() {
            *r = (c % 10) as u32;
            c /= 10;
        }
        let top = *ranks.iter().max().unwrap_or(&0);
        if ranks[0] != top {
            continue;
        }
        let at_top = ranks.iter().filter(|&&r| r == top).count();
        if at_top == 2 {
            pair += 1;
        } else {
            win += 1;
        }
    }
    (win, pair)
}

/// Σ p·x over (probability, value) lines.
pub fn expectation(lines: &[(BigRational, BigRational)]) -> BigRational {
    lines.iter().fold(BigRational::zero(), |acc, (p, x)| acc + p * x)
}

/// The standard deviation of a return with the given (probability, return
/// multiple) lines, per unit staked.
pub fn std_dev(lines: &[(BigRational, BigRational)]) -> f64 {
    let mean = expectation(lines);
    let second = lines.iter().fold(BigRational::zero(), |acc, (p, x)| acc + p * x * x);
    rational_to_f64(&(second - &mean * &mean)).max(0.0).sqrt()
}

pub fn one() -> BigRational {
    BigRational::one()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn probabilities_add_up() {
        let (a, b) = prima_probabilities();
        assert_eq!(a + b, ratio(1, 5));
        let (w, p, l) = maximo_probabilities();
        assert_eq!(w.clone() + p.clone() + l, one());
        // P(alone at the top) = Σ_m (1/10)((m-1)/10)^4 = 25333/100000
        // P(top with exactly two others or more): computed below independently
        let alone: i64 = (1..=10).map(|m: i64| (m - 1).pow(4)).sum();
        let with_three_plus: i64 = (1..=10)
            .map(|m: i64| {
                let below = m - 1;
                // k others tied (k = 2, 3, 4) among 4, rest strictly below
                6 * below.pow(2) + 4 * below + 1
            })
            .sum();
        assert_eq!(w, ratio(alone + with_three_plus, 100_000));
        let pair_only: i64 = (1..=10).map(|m: i64| 4 * (m - 1).pow(3)).sum();
        assert_eq!(p, ratio(pair_only, 100_000));
    }

    #[test]
    fn decimal_strings() {
        assert_eq!(rational_to_decimal_string(&ratio(24, 25), 4), "0.9600");
        assert_eq!(rational_to_decimal_string(&ratio(2, 3), 3), "0.667");
        assert_eq!(rational_to_decimal_string(&ratio(-1, 8), 2), "-0.13");
        assert_eq!(decimal_to_rational(Decimal::new(540, 2)), ratio(27, 5));
    }
}
