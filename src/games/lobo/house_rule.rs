//! House rules with a proven edge (docs/lobo.md).
//!
//! A charge fixed before any decision (a flat fee per round, an ante per point of the Wolf's
//! opening hand) does not change the best play, so it lowers the player's value by exactly its
//! expectation. The house's edge is therefore proven once the charge exceeds an upper bound on
//! the perfect player's value; the bounds used are embedded below with the commands that
//! reproduce them (docs/lobo.md).

use super::mode::Mode;
use super::solver::deals::expected_opening_loss;
use serde::{Deserialize, Serialize};

/// Charges the player pays the house when a round starts, in hundredths of a table unit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct HouseRule {
    /// Flat fee per round.
    #[serde(deserialize_with = "crate::domain::whole::integer")]
    pub fee_per_round_hundredths: u32,
    /// Ante per point of the Wolf's opening hand (known at the deal, before any decision).
    #[serde(deserialize_with = "crate::domain::whole::integer")]
    pub ante_per_wolf_point_hundredths: u32,
}

impl HouseRule {
    pub const NONE: HouseRule = HouseRule {
        fee_per_round_hundredths: 0,
        ante_per_wolf_point_hundredths: 0,
    };

    /// The round's charge in hundredths of a unit, given the Wolf's opening points.
    pub fn charge_hundredths(&self, wolf_opening_points: u32) -> u64 {
        self.fee_per_round_hundredths as u64 + self.ante_per_wolf_point_hundredths as u64 * wolf_opening_points as u64
    }

    /// The expected charge in units (exact: the ante's expectation uses the mean opening hand).
    pub fn expected_charge_units(&self, mode: Mode) -> f64 {
        (self.fee_per_round_hundredths as f64
            + self.ante_per_wolf_point_hundredths as f64 * expected_opening_loss(mode, None))
            / 100.0
    }

    /// Parses `fee=<hundredths>` and/or `ante=<hundredths>`, comma-separated.
    pub fn parse(text: &str) -> Result<HouseRule, String> {
        let mut rule = HouseRule::NONE;
        for part in text.split(',').filter(|p| !p.is_empty()) {
            let (name, value) = part
                .split_once('=')
                .ok_or(format!("rule part {part:?} is not name=value"))?;
            let value: u32 = value
                .parse()
                .map_err(|_| format!("{value:?} is not a whole number of hundredths"))?;
            match name {
                "fee" => rule.fee_per_round_hundredths = value,
                "ante" => rule.ante_per_wolf_point_hundredths = value,
                _ => return Err(format!("unknown rule {name:?}; expected fee or ante")),
            }
        }
        Ok(rule)
    }

    pub fn describe(&self) -> String {
        format!(
            "fee={},ante={}",
            self.fee_per_round_hundredths, self.ante_per_wolf_point_hundredths
        )
    }
}

/// The expected amount at risk in a round, in units: the charge plus what the player pays if
/// they fold at once, `E[min(Wolf's opening points, loss cap)]` (docs/lobo.md, "House edge").
pub fn expected_amount_at_risk_units(mode: Mode, rule: &HouseRule, loss_cap_points: Option<u32>) -> f64 {
    rule.expected_charge_units(mode) + expected_opening_loss(mode, loss_cap_points)
}

/// The house edge in percent of the expected amount at risk, for a player whose value
/// before charges is `player_value_points`.
pub fn house_edge_percent(mode: Mode, rule: &HouseRule, loss_cap_points: Option<u32>, player_value_points: f64) -> f64 {
    let house_gain = rule.expected_charge_units(mode) - player_value_points;
    100.0 * house_gain / expected_amount_at_risk_units(mode, rule, loss_cap_points)
}

/// An upper bound on the perfect player's value (before charges), as the solver produced it.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct UpperBound {
    pub mode: Mode,
    /// The bound holds for this loss cap and every larger one (`None` = no cap).
    pub loss_cap_points: Option<u32>,
    pub value_points: f64,
    pub basis: UpperBasis,
    /// The seeded deals the sampled part was measured on.
    pub samples: usize,
    pub seed: u64,
    /// The run that measured it.
    pub command: &'static str,
}

/// How an upper bound was reached. Both start from the clairvoyant player charged the tiered
/// information penalty (docs/lobo.md, §3), solved on seeded deals beside best play with Overs
/// limited to difference 1 on the same deals.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum UpperBasis {
    /// The exact value of the restricted strategy over every opening at the same cap, plus the
    /// one-sided 99.9% upper limit of the mean gap between the two bounds, deal by deal. The only
    /// sampling margin is the gap's, which varies far less from deal to deal than either bound.
    ExactLowerPlusGap {
        lower: LowerBound,
        width_mean_points: f64,
        width_limit_points: f64,
    },
    /// The penalised clairvoyant value's own one-sided 99.9% upper limit (the further of the
    /// normal and the bootstrap one): used where the exact lower bound has not been computed.
    SampledLimit { mean_points: f64 },
}

impl UpperBound {
    /// The bound's sampling margin: how far it lies above the estimate it was drawn from.
    pub fn margin_points(&self) -> f64 {
        match self.basis {
            UpperBasis::ExactLowerPlusGap {
                width_mean_points,
                width_limit_points,
                ..
            } => width_limit_points - width_mean_points,
            UpperBasis::SampledLimit { mean_points } => self.value_points - mean_points,
        }
    }
}

/// A lower bound on the perfect player's value (before charges): the value of best play with
/// Overs limited to difference 1 — a strategy a player can follow, so perfect play is worth at
/// least as much — exact over every opening, or its one-sided 99.9% lower limit over sampled deals.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct LowerBound {
    pub mode: Mode,
    /// The bound holds for this loss cap and every smaller one (`None` = no cap: every cap), since a
    /// smaller cap never hurts the player.
    pub loss_cap_points: Option<u32>,
    pub value_points: f64,
    /// `None` when exact (every opening, weighted); else the sampled deals behind the 99.9% limit.
    pub samples: Option<usize>,
    pub command: &'static str,
}

macro_rules! lower {
    ($mode:ident, $cap:expr, $value:expr, $samples:expr, $cmd:expr) => {
        LowerBound {
            mode: Mode::$mode,
            loss_cap_points: $cap,
            value_points: $value,
            samples: $samples,
            command: $cmd,
        }
    };
}

/// The lower bounds, from `djego solve lobo --bound lower` on the 2-core dev machine (docs/lobo.md,
/// §4): exact over every opening at cap 20 (`--full`; the memo's single-precision values leave
/// an error far below the last digit kept) where that solve has been run; with no cap, the
/// one-sided 99.9% lower limits of the sampled runs, which hold at every cap.
pub const LOWER_BOUNDS: &[LowerBound] = &[
    lower!(
        Easy,
        Some(20),
        2.36335,
        None,
        "djego solve lobo --mode easy --bound lower --full --cap 20"
    ),
    lower!(
        Easy,
        None,
        2.0916,
        Some(400),
        "djego solve lobo --mode easy --bound lower --samples 400"
    ),
    lower!(
        Ordinary,
        None,
        -0.7630,
        Some(200),
        "djego solve lobo --mode ordinary --bound lower --samples 200"
    ),
    lower!(
        Hard,
        None,
        -3.3227,
        Some(150),
        "djego solve lobo --mode hard --bound lower --samples 150"
    ),
];

macro_rules! exact_lower_plus_gap {
    ($mode:ident, $lower:expr, $mean:expr, $limit:expr, $samples:expr, $cmd:expr) => {
        UpperBound {
            mode: Mode::$mode,
            loss_cap_points: $lower.loss_cap_points,
            value_points: $lower.value_points + $limit,
            basis: UpperBasis::ExactLowerPlusGap {
                lower: $lower,
                width_mean_points: $mean,
                width_limit_points: $limit,
            },
            samples: $samples,
            seed: 1,
            command: $cmd,
        }
    };
}

/// Upper bounds at cap 20, from `djego solve lobo --bound upper --penalty tiered`, which solves
/// both bounds on the same seeded deals and prints the gap deal by deal (docs/lobo.md lists every
/// run), on the 2-core dev machine. Each holds at cap 20 and so at every larger cap and with none
/// (a larger cap never helps the player).
pub const UPPER_BOUNDS: &[UpperBound] = &[
    exact_lower_plus_gap!(
        Easy,
        LOWER_BOUNDS[0],
        0.657,
        0.896,
        600,
        "djego solve lobo --mode easy --bound upper --penalty tiered --tiers 4,5 --cap 20 --samples 600"
    ),
    UpperBound {
        mode: Mode::Ordinary,
        loss_cap_points: Some(20),
        value_points: 2.1982,
        basis: UpperBasis::SampledLimit { mean_points: 1.235 },
        samples: 600,
        seed: 1,
        command: "djego solve lobo --mode ordinary --bound upper --penalty tiered --tiers 4,5,7 --cap 20 --samples 600",
    },
    UpperBound {
        mode: Mode::Hard,
        loss_cap_points: Some(20),
        value_points: 0.6490,
        basis: UpperBasis::SampledLimit { mean_points: -0.283 },
        samples: 600,
        seed: 1,
        command: "djego solve lobo --mode hard --bound upper --penalty tiered --tiers 4,5,7 --cap 20 --samples 600",
    },
];

/// A proof that a rule favours the house at a loss cap.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct ProvenEdge {
    pub bound: UpperBound,
    /// The house edge against the upper bound, in percent of the expected amount at risk:
    /// the edge against any player is at least this (at the bound's confidence).
    pub house_edge_percent_at_least: f64,
}

/// The smallest house edge `rule` is proven to give at `loss_cap_points` (`None` = no cap), or
/// `None` when no embedded bound proves the house is favoured. A bound computed at a smaller
/// cap is valid at a larger one (a larger cap never helps the player); the bound used is the one
/// computed at the largest cap not above the table's (chosen by cap alone, never by value, so
/// picking among sampled bounds does not weaken their confidence).
pub fn proven_edge(mode: Mode, rule: &HouseRule, loss_cap_points: Option<u32>) -> Option<ProvenEdge> {
    upper_bound(mode, loss_cap_points)
        .map(|bound| ProvenEdge {
            bound,
            house_edge_percent_at_least: house_edge_percent(mode, rule, loss_cap_points, bound.value_points),
        })
        .filter(|p| p.house_edge_percent_at_least > 0.0)
}

/// The embedded upper bound on the perfect player's value that holds at `loss_cap_points`
/// (`None` = no cap): the one computed at the largest cap not above it, or `None` below every
/// computed cap.
pub fn upper_bound(mode: Mode, loss_cap_points: Option<u32>) -> Option<UpperBound> {
    // `None` (no cap) sorts above every cap.
    let as_cap = |c: Option<u32>| c.map_or(u64::MAX, u64::from);
    UPPER_BOUNDS
        .iter()
        .filter(|b| b.mode == mode && as_cap(b.loss_cap_points) <= as_cap(loss_cap_points))
        .max_by_key(|b| as_cap(b.loss_cap_points))
        .copied()
}

/// The most a player's play can win in one round, in points: a hand of at most four cards
/// ([`super::HAND_SIZE`]) of the mode's highest rank.
pub fn max_win_points(mode: Mode) -> u32 {
    super::HAND_SIZE as u32 * u32::from(mode.max_rank())
}

/// The smallest loss cap at which the default rules are proven (the bounds are computed at 20).
pub const MIN_PROVEN_LOSS_CAP_POINTS: u32 = 20;

/// The house edge the default rules aim at, as a share of the expected amount at risk against
/// the upper bound on perfect play, at every proven cap: the smallest fee that proves it.
pub const DEFAULT_HOUSE_EDGE: f64 = 0.01;

/// The default rule for a mode: the smallest flat fee per round, in hundredths of a unit, that
/// gives the house [`DEFAULT_HOUSE_EDGE`] of the expected amount at risk against the embedded
/// upper bound at every loss cap of 20 or more: `fee = (U + e·R)/(1 − e)` rounded up to a
/// hundredth, with U the cap-20 bound and R = E[Wolf's opening points] (no cap: the largest amount
/// at risk, so the edge is at least e at every cap; docs/lobo.md, §5). So the fee follows the
/// bound: a tighter bound is a smaller fee.
pub fn default_house_rule(mode: Mode) -> HouseRule {
    let bound = UPPER_BOUNDS
        .iter()
        .find(|b| b.mode == mode && b.loss_cap_points == Some(MIN_PROVEN_LOSS_CAP_POINTS))
        .expect("every mode has a bound at the smallest proven cap");
    let at_risk = expected_opening_loss(mode, None);
    let fee_units = (bound.value_points + DEFAULT_HOUSE_EDGE * at_risk) / (1.0 - DEFAULT_HOUSE_EDGE);
    // Hundredths, rounded up; the nudge keeps a fee that is a whole hundredth from rounding up once more.
    let fee = (fee_units * 100.0 - 1e-9).ceil();
    assert!(
        fee > 0.0 && fee < f64::from(u32::MAX),
        "a default fee of {fee_units} units"
    );
    HouseRule {
        fee_per_round_hundredths: fee as u32,
        ante_per_wolf_point_hundredths: 0,
    }
}

/// The embedded lower bound on the perfect player's value that holds at `loss_cap_points`
/// (`None` = no cap): the one computed at the smallest cap not below it (no cap holds at every
/// cap).
pub fn lower_bound(mode: Mode, loss_cap_points: Option<u32>) -> LowerBound {
    let as_cap = |c: Option<u32>| c.map_or(u64::MAX, u64::from);
    LOWER_BOUNDS
        .iter()
        .filter(|b| b.mode == mode && as_cap(b.loss_cap_points) >= as_cap(loss_cap_points))
        .min_by_key(|b| as_cap(b.loss_cap_points))
        .copied()
        .expect("every mode has a lower bound with no cap")
}

/// What a rule costs the best possible player, per round, in units of the round's stake: the
/// figures a player is shown beside the fee (docs/lobo.md, §5).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct PerfectPlayerCost {
    /// The expected charge (fee plus the ante's expectation).
    pub charge_units: f64,
    /// The expected amount at risk: the charge plus E[min(Wolf's opening points, cap)].
    pub amount_at_risk_units: f64,
    /// The perfect player's expected loss, fee included, lies in [at_least, at_most]: the charge
    /// less the upper bound, and the charge less the exact lower bound.
    pub loss_units_at_least: f64,
    pub loss_units_at_most: f64,
    /// The same as percentages of the expected amount at risk; `at_least` is the proven edge.
    pub loss_percent_at_least: f64,
    pub loss_percent_at_most: f64,
}

/// The perfect player's expected loss under `rule` at `loss_cap_points`, or `None` below every
/// computed cap (where no upper bound holds).
pub fn perfect_player_cost(mode: Mode, rule: &HouseRule, loss_cap_points: Option<u32>) -> Option<PerfectPlayerCost> {
    let upper = upper_bound(mode, loss_cap_points)?;
    let lower = lower_bound(mode, loss_cap_points);
    let charge = rule.expected_charge_units(mode);
    let at_risk = expected_amount_at_risk_units(mode, rule, loss_cap_points);
    let least = charge - upper.value_points;
    let most = charge - lower.value_points;
    Some(PerfectPlayerCost {
        charge_units: charge,
        amount_at_risk_units: at_risk,
        loss_units_at_least: least,
        loss_units_at_most: most,
        loss_percent_at_least: 100.0 * least / at_risk,
        loss_percent_at_most: 100.0 * most / at_risk,
    })
}
