//! Bets priced from a quote that states the chance of what they back — Peg Leg's counts
//! (docs/floor.md, "Peg Leg's theoretical win") and the house's Fuerza (docs/confidence-bets.md)
//! — so the house's expected win on each is known when it is placed: `stake × (1 − m × p)`,
//! `m` the price and `p` the chance in its quote.

use rust_decimal::Decimal;
use std::collections::BTreeMap;

/// A priced bet that closed, with what the house won on it and expected to.
#[derive(Clone, Debug, PartialEq)]
pub struct PricedBet {
    pub bet_id: String,
    pub round_id: String,
    pub table_id: String,
    pub player_id: String,
    pub closed_at_us: i64,
    pub stake_minor: i64,
    /// Stake − what came back to the player (a win's payout, a surrender's cash-out).
    pub win_minor: i64,
    /// `stake × (1 − m × p)`, plus, for a Peg Leg surrender, `stake × m × p_now − paid`.
    pub theo_minor: Decimal,
    /// The standard deviation of the bet's result when placed, `stake × m × √(p(1 − p))`,
    /// which bounds that of a surrendered bet's too.
    pub sd_minor: f64,
}

/// A round's closed bets summed: what the house won on them, what it expected, and a bound on
/// the spread (the bets of a round share its deal, so their deviations are added, not their
/// variances). The round counts when its last bet among them closed.
#[derive(Clone, Debug, PartialEq)]
pub struct PricedRoundFact {
    pub table_id: String,
    pub at_us: i64,
    pub win_minor: i64,
    pub theo_minor: Decimal,
    pub sd_bound_minor: f64,
}

/// The bets summed per round.
pub(super) fn by_round(bets: &[PricedBet]) -> Vec<PricedRoundFact> {
    let mut rounds: BTreeMap<&str, PricedRoundFact> = BTreeMap::new();
    for bet in bets {
        let fact = rounds.entry(bet.round_id.as_str()).or_insert_with(|| PricedRoundFact {
            table_id: bet.table_id.clone(),
            at_us: bet.closed_at_us,
            win_minor: 0,
            theo_minor: Decimal::ZERO,
            sd_bound_minor: 0.0,
        });
        fact.at_us = fact.at_us.max(bet.closed_at_us);
        fact.win_minor += bet.win_minor;
        fact.theo_minor += bet.theo_minor;
        fact.sd_bound_minor += bet.sd_minor;
    }
    rounds.into_values().collect()
}
