//! The money of a three-round contest (docs/lobo.md §9), in minor units: the house's rake
//! and the split of what is left among the best totals. Pure arithmetic, shared by the
//! service and its tests.
//!
//! - The rake is `pot × basis points / 10 000`, rounded down to the cent (never more than
//!   the stated rate).
//! - The rest of the pot is split equally among the entrants with the best total; the cents
//!   an equal split leaves over (fewer than the number of winners) go one each to the
//!   winners in the order they entered, first first.

use serde::{Deserialize, Serialize};

/// The highest rake a contest may take: 20 % of the pot, so that the entrants together
/// always get back at least 80 % of what they paid in (the lowest return the house certifies
/// for any bet).
pub const MAX_RAKE_BASIS_POINTS: u16 = 2000;

/// A rake rate in basis points of the pot (1 = 0.01 %), at most [`MAX_RAKE_BASIS_POINTS`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(into = "u32")]
pub struct RakeRate(u16);

/// Read as any whole JSON number (`500` or `500.0`, as JSON Schema's integers are), then bounded.
impl<'de> Deserialize<'de> for RakeRate {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<RakeRate, D::Error> {
        let basis_points: u32 = crate::domain::whole::integer(d)?;
        RakeRate::try_from(basis_points).map_err(serde::de::Error::custom)
    }
}

impl RakeRate {
    pub fn new(basis_points: u32) -> Option<RakeRate> {
        u16::try_from(basis_points)
            .ok()
            .filter(|&b| b <= MAX_RAKE_BASIS_POINTS)
            .map(RakeRate)
    }

    pub fn basis_points(self) -> u16 {
        self.0
    }

    /// The rake on a pot, rounded down to the cent.
    pub fn of(self, pot_minor: i64) -> i64 {
        pot_minor * i64::from(self.0) / 10_000
    }
}

impl TryFrom<u32> for RakeRate {
    type Error = String;
    fn try_from(basis_points: u32) -> Result<RakeRate, String> {
        RakeRate::new(basis_points)
            .ok_or_else(|| format!("a rake is 0 to {MAX_RAKE_BASIS_POINTS} basis points, not {basis_points}"))
    }
}

impl From<RakeRate> for u32 {
    fn from(r: RakeRate) -> u32 {
        u32::from(r.0)
    }
}

/// Where a settled contest's pot goes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PotSplit {
    /// Entry fee × entrants.
    pub pot_minor: i64,
    /// To house revenue.
    pub rake_minor: i64,
    /// The pot less the rake, all of it paid to the winners.
    pub prize_pool_minor: i64,
    /// The best total (none without entrants).
    pub best_total: Option<i64>,
    /// Each entrant's prize, in entry order (0 for those without the best total).
    pub prizes_minor: Vec<i64>,
}

/// Splits the pot of `totals.len()` entrants who each paid `entry_fee_minor`; `totals` are the
/// entrants' final totals in the order they entered.
pub fn split_pot(entry_fee_minor: i64, totals: &[i64], rake: RakeRate) -> PotSplit {
    let pot_minor = entry_fee_minor * totals.len() as i64;
    let rake_minor = rake.of(pot_minor);
    let prize_pool_minor = pot_minor - rake_minor;
    let best_total = totals.iter().copied().max();
    let winners = totals.iter().filter(|&&t| Some(t) == best_total).count() as i64;
    let mut prizes_minor = vec![0; totals.len()];
    if winners > 0 {
        let share = prize_pool_minor / winners;
        let mut odd_cents = prize_pool_minor % winners;
        for (prize, &total) in prizes_minor.iter_mut().zip(totals) {
            if Some(total) == best_total {
                *prize = share + i64::from(odd_cents > 0);
                odd_cents -= i64::from(odd_cents > 0);
            }
        }
    }
    PotSplit {
        pot_minor,
        rake_minor,
        prize_pool_minor,
        best_total,
        prizes_minor,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn rate(bps: u32) -> RakeRate {
        RakeRate::new(bps).unwrap()
    }

    #[test]
    fn worked_examples() {
        // Three entrants at 10.00, 5 % rake: 30.00 pot, 1.50 rake, 28.50 to the one best total.
        let s = split_pot(1000, &[-12, 7, 3], rate(500));
        assert_eq!((s.pot_minor, s.rake_minor, s.prize_pool_minor), (3000, 150, 2850));
        assert_eq!(s.best_total, Some(7));
        assert_eq!(s.prizes_minor, vec![0, 2850, 0]);
        // A tie of three on 10.00 pool: 3.34 to the first to enter, 3.33 to the others.
        let s = split_pot(250, &[4, 4, -2, 4], rate(0));
        assert_eq!(s.prize_pool_minor, 1000);
        assert_eq!(s.prizes_minor, vec![334, 333, 0, 333]);
        // The rake rounds down: 3 × 3.33 = 9.99 at 7.5 % is 0.749 25 → 0.74.
        let s = split_pot(333, &[1, 1, 1], rate(750));
        assert_eq!(s.rake_minor, 74);
        assert_eq!(s.prizes_minor, vec![309, 308, 308]);
        // No entrants: nothing moves.
        let s = split_pot(1000, &[], rate(500));
        assert_eq!((s.pot_minor, s.rake_minor, s.best_total), (0, 0, None));
    }

    #[test]
    fn rake_bounds() {
        assert_eq!(RakeRate::new(0).map(RakeRate::basis_points), Some(0));
        assert_eq!(RakeRate::new(2000).map(RakeRate::basis_points), Some(2000));
        assert_eq!(RakeRate::new(2001), None);
        assert_eq!(RakeRate::new(70_000), None);
        assert!(serde_json::from_value::<RakeRate>(serde_json::json!(2001)).is_err());
        assert!(serde_json::from_value::<RakeRate>(serde_json::json!(2.5)).is_err());
        assert!(serde_json::from_value::<RakeRate>(serde_json::json!(-1)).is_err());
        // A whole number written with a decimal point is the same integer (JSON Schema's view).
        assert_eq!(
            serde_json::from_value::<RakeRate>(serde_json::json!(500.0)).unwrap(),
            rate(500)
        );
        assert_eq!(serde_json::to_value(rate(500)).unwrap(), serde_json::json!(500));
    }

    proptest! {
        #[test]
        fn every_cent_of_the_pot_is_accounted_for(
            fee in 1i64..=1_000_000,
            totals in proptest::collection::vec(-60i64..=40, 1..=100),
            bps in 0u32..=2000,
        ) {
            let s = split_pot(fee, &totals, rate(bps));
            prop_assert_eq!(s.pot_minor, fee * totals.len() as i64);
            prop_assert_eq!(s.rake_minor + s.prizes_minor.iter().sum::<i64>(), s.pot_minor);
            // The rake is the stated rate rounded down: never more, less by under a cent.
            prop_assert!(s.rake_minor * 10_000 <= s.pot_minor * i64::from(bps));
            prop_assert!((s.rake_minor + 1) * 10_000 > s.pot_minor * i64::from(bps));
            let best = *totals.iter().max().unwrap();
            let won: Vec<i64> = totals.iter().zip(&s.prizes_minor)
                .filter(|(&t, _)| t == best).map(|(_, &p)| p).collect();
            // Winners' prizes differ by at most a cent, the odd cents to the earliest entrants.
            prop_assert!(won.windows(2).all(|w| w[0] >= w[1] && w[0] - w[1] <= 1));
            prop_assert!(totals.iter().zip(&s.prizes_minor).all(|(&t, &p)| t == best || p == 0));
        }
    }
}
