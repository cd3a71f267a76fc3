//! A best-play hint for any position, from the same solver as the bounds.

use super::super::{LoboState, Play};
use super::expectimax::{Expectimax, GameLimits};
use super::policy::SimplePolicy;
use super::position::{to_card_play, Position};
use serde::{Deserialize, Serialize};

/// How far the solver got within the budget.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum HintBasis {
    /// Solved under the full rules: the play is best and the value is exact.
    Exact,
    /// Solved with Overs limited to `max_over_difference`: the play is best for that game and
    /// the value is a lower bound on what perfect play gets here.
    RestrictedOvers { max_over_difference: u8 },
    /// No solve finished in budget: a simple rule (Perfect/Sum, then Split, then Over by 1, else fold).
    Heuristic,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Hint {
    pub play: Play,
    /// Expected net points from here with this play (None for a heuristic hint).
    pub value_points: Option<f64>,
    pub exact: bool,
    pub basis: HintBasis,
    pub label: String,
    /// Positions the successful (or last) solve stored.
    pub states: u64,
}

/// The best play at `state`, solving first under the full rules, then with Overs limited to 2,
/// then to 1, each within `state_budget` stored positions. `None` once the round is over.
pub fn hint(state: &LoboState, loss_cap_points: Option<u32>, state_budget: u64) -> Option<Hint> {
    if state.is_over() {
        return None;
    }
    let pos = Position::from_state(state);
    let mut states = 0;
    for limit in [GameLimits::FULL_RULES, 2, 1] {
        let limits = GameLimits {
            max_over_difference: limit,
            loss_cap_points,
        };
        let solver = Expectimax::new(limits, Some(state_budget));
        let Ok((fold, plays)) = solver.play_values(&pos) else {
            states = solver.states();
            continue;
        };
        let best = plays.iter().copied().max_by(|a, b| a.1.total_cmp(&b.1));
        let (play, value) = match best {
            Some((p, v)) if v > fold => (to_card_play(state, &p), v),
            _ => (Play::fold(), fold),
        };
        let (basis, label) = if limits.is_full_rules() {
            (HintBasis::Exact, "best play, exact under the full rules".to_string())
        } else {
            (
                HintBasis::RestrictedOvers {
                    max_over_difference: limit,
                },
                format!("best play with Overs limited to a difference of {limit}; the value is a lower bound"),
            )
        };
        return Some(Hint {
            play,
            value_points: Some(value),
            exact: limits.is_full_rules(),
            basis,
            label,
            states: solver.states(),
        });
    }
    let play = SimplePolicy::CaptureWithoutRisk
        .choose(&pos)
        .map_or_else(Play::fold, |p| to_card_play(state, &p));
    Some(Hint {
        play,
        value_points: None,
        exact: false,
        basis: HintBasis::Heuristic,
        label: "no solve finished within the budget; simple-rule play, not proven best".to_string(),
        states,
    })
}
