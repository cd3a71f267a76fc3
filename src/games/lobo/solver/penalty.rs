//! The information penalties of the clairvoyant bound (`super::clairvoyant`): an estimate `V̂` of
//! a position's value, and `E[V̂(next) | position, play]` averaged over what the play deals.
//!
//! Any `V̂` that is a function of what the player has seen keeps the bound valid; the closer it
//! is to the true value, the tighter the bound. Two are offered:
//!
//! - [`Restricted`]: the exact values of the game with Overs limited to `k`, charged only on plays
//!   of that game (the first penalty djego measured; it barely tightens the bound, because the
//!   clairvoyant's gain is in the larger Overs it leaves uncharged);
//! - [`Tiered`]: charges every play, Overs of any size included, with `V̂` by the size of the
//!   Wolf's hand ([`Tiers`]): the exact Overs-≤-1 value up to 4 cards, the exact no-Overs value at
//!   5, the uniform-draws estimate (`super::uniform_draws`) at 6 and 7, and the fold value beyond.
//!   An Over that leaves the Wolf more than 7 cards needs no value but the fold's: its
//!   expectation over the dealt cards is a sum, not a solve.

use super::expectimax::{choose, expected_after, hypergeometric, Expectimax, GameLimits};
use super::position::{card_count, rank_total, remove_cards, Position, RankPlay, RANKS};
use super::uniform_draws::UniformDraws;
use crate::games::lobo::{Mode, PlayKind};
use std::sync::Arc;

pub trait Penalty: Sync {
    /// `V̂` at a decision position.
    fn value(&self, pos: &Position) -> f64;
    /// `E[V̂(next) | pos, play]`, the next cub and any cards the play deals averaged over the
    /// face-down multiset.
    fn expected_after(&self, pos: &Position, play: &RankPlay) -> f64;
    /// Whether `play` is charged; once an uncharged play is made, no later play is.
    fn charges(&self, play: &RankPlay) -> bool;
    /// The exact value at `pos` of the restricted game whose values `V̂` uses: a lower bound on
    /// perfect play, to set beside the upper one on the same deal.
    fn restricted_value(&self, pos: &Position) -> f64;
    /// Positions solved to compute `V̂`.
    fn states(&self) -> u64;
}

/// `V̂` = the exact values of the game with Overs limited to the solver's limit, charged on
/// plays with Overs up to `max_over_charged`.
pub struct Restricted {
    pub values: Expectimax,
    pub max_over_charged: u8,
}

impl Penalty for Restricted {
    fn value(&self, pos: &Position) -> f64 {
        self.values.value(pos).expect("the penalty solver has no budget")
    }
    fn expected_after(&self, pos: &Position, play: &RankPlay) -> f64 {
        self.values
            .play_value(pos, play)
            .expect("the penalty solver has no budget")
    }
    fn charges(&self, play: &RankPlay) -> bool {
        play.kind != PlayKind::Over || play.difference <= self.max_over_charged
    }
    fn restricted_value(&self, pos: &Position) -> f64 {
        self.value(pos)
    }
    fn states(&self) -> u64 {
        self.values.states()
    }
}

/// `V̂` by the size of the Wolf's hand (the module's docs).
pub struct Tiered {
    limits: GameLimits,
    tiers: Tiers,
    overs_1: Expectimax,
    no_overs: Expectimax,
    /// Shared by every deal of a run: its values do not depend on the face-down cards.
    uniform_draws: Arc<UniformDraws>,
}

/// Where the tiered `V̂` changes estimate, by the number of cards in the Wolf's hand.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tiers {
    /// The largest Wolf hand whose `V̂` is the Overs-≤-1 value.
    pub overs_1_up_to_cards: u32,
    /// The largest Wolf hand `V̂` solves for (the no-Overs value above `overs_1_up_to_cards`).
    pub solved_up_to_cards: u32,
    /// The largest Wolf hand whose `V̂` is the uniform-draws estimate (`super::uniform_draws`)
    /// above `solved_up_to_cards`; beyond, it is the fold value.
    pub estimated_up_to_cards: u32,
}

impl Tiers {
    /// The tiers of the bounds the house rule stands on (docs/lobo.md §4).
    pub const DEFAULT: Tiers = Tiers {
        overs_1_up_to_cards: 4,
        solved_up_to_cards: 5,
        estimated_up_to_cards: 7,
    };

    /// `"o,s"` or `"o,s,e"`: `overs_1_up_to_cards`, `solved_up_to_cards` and
    /// `estimated_up_to_cards` (with `o ≤ s ≤ e`; without `e`, no estimate: `e = s`).
    pub fn parse(text: &str) -> Result<Tiers, String> {
        let bad = || format!("tiers must be card counts o,s or o,s,e with 1 <= o <= s <= e <= 40, not {text:?}");
        let counts: Vec<u32> = text
            .split(',')
            .map(|n| n.trim().parse().map_err(|_| bad()))
            .collect::<Result<_, _>>()?;
        let (o, s, e) = match counts[..] {
            [o, s] => (o, s, s),
            [o, s, e] => (o, s, e),
            _ => return Err(bad()),
        };
        if !(1..=40).contains(&o) || o > s || s > e || e > 40 {
            return Err(bad());
        }
        Ok(Tiers {
            overs_1_up_to_cards: o,
            solved_up_to_cards: s,
            estimated_up_to_cards: e,
        })
    }
}

impl Tiered {
    /// The default tiers, with a uniform-draws table of its own.
    pub fn new(mode: Mode, loss_cap_points: Option<u32>) -> Tiered {
        Tiered::with_tiers(Tiers::DEFAULT, Arc::new(UniformDraws::new(mode, loss_cap_points)))
    }

    /// `uniform_draws` sets the loss cap of every game `V̂` solves.
    pub fn with_tiers(tiers: Tiers, uniform_draws: Arc<UniformDraws>) -> Tiered {
        let loss_cap_points = uniform_draws.loss_cap_points();
        let limited = |max_over_difference| {
            Expectimax::new(
                GameLimits {
                    max_over_difference,
                    loss_cap_points,
                },
                None,
            )
        };
        Tiered {
            limits: GameLimits::full(loss_cap_points),
            tiers,
            overs_1: limited(1),
            no_overs: limited(0),
            uniform_draws,
        }
    }

    /// The Wolf's hand after `play`, when the deal leaves it past [`Tiers::estimated_up_to_cards`]:
    /// the cards it keeps, the cub and how many face-down cards it is dealt. `None` otherwise.
    fn past_estimated(&self, pos: &Position, play: &RankPlay) -> Option<(Position, u32)> {
        if !matches!(play.kind, PlayKind::Split | PlayKind::Over) || pos.cub == 0 {
            return None;
        }
        let mut next = remove_cards(pos, play);
        next.wolf[pos.cub as usize - 1] += 1;
        let more = match play.kind {
            PlayKind::Over => (play.difference as u32 - 1).min(next.unknown_count()),
            _ => 0,
        };
        (card_count(&next.wolf) + more > self.tiers.estimated_up_to_cards).then_some((next, more))
    }
}

impl Penalty for Tiered {
    fn value(&self, pos: &Position) -> f64 {
        let solved = |e: &Expectimax| e.value(pos).expect("the penalty solvers have no budget");
        match card_count(&pos.wolf) {
            0 => rank_total(&pos.player) as f64,
            n if n <= self.tiers.overs_1_up_to_cards => solved(&self.overs_1),
            n if n <= self.tiers.solved_up_to_cards => solved(&self.no_overs),
            n if n <= self.tiers.estimated_up_to_cards => self.uniform_draws.value(pos),
            _ => -self.limits.loss_points(&pos.wolf),
        }
    }

    fn expected_after(&self, pos: &Position, play: &RankPlay) -> f64 {
        // Past the estimated tier `V̂` is minus the Wolf's capped points, whatever the next cub:
        // average it over the multisets the play deals, without turning up a cub.
        if let Some((next, more)) = self.past_estimated(pos, play) {
            let kept = rank_total(&next.wolf);
            if self.limits.loss_cap_points.is_none() {
                let mean_dealt = if more == 0 {
                    0.0
                } else {
                    more as f64 * rank_total(&next.unknown) as f64 / next.unknown_count() as f64
                };
                return -(kept as f64 + mean_dealt);
            }
            let mut acc = 0.0;
            let mut chosen = [0u8; RANKS];
            hypergeometric(&next.unknown, 0, more, &mut chosen, &mut |taken, ways| {
                let mut wolf = next.wolf;
                for r in 0..RANKS {
                    wolf[r] += taken[r];
                }
                acc += ways * -self.limits.loss_points(&wolf);
            });
            return acc / choose(next.unknown_count(), more);
        }
        expected_after(pos, play, self.limits, &mut |next| {
            Ok::<f64, std::convert::Infallible>(self.value(next))
        })
        .unwrap_or_else(|never| match never {})
    }

    fn charges(&self, _play: &RankPlay) -> bool {
        true
    }

    /// The Overs-≤-1 game's.
    fn restricted_value(&self, pos: &Position) -> f64 {
        self.overs_1.value(pos).expect("the penalty solvers have no budget")
    }

    /// The deal's own solves; the shared uniform-draws table is counted once by its owner.
    fn states(&self) -> u64 {
        self.overs_1.states() + self.no_overs.states()
    }
}

#[cfg(test)]
mod tests {
    use super::Tiers;

    #[test]
    fn tiers_parse_two_ordered_card_counts() {
        assert_eq!(Tiers::parse("4,5,7"), Ok(Tiers::DEFAULT));
        assert_eq!(
            Tiers::parse(" 4 , 6 "),
            Ok(Tiers {
                overs_1_up_to_cards: 4,
                solved_up_to_cards: 6,
                estimated_up_to_cards: 6,
            })
        );
        assert_eq!(
            Tiers::parse("4,5"),
            Ok(Tiers {
                overs_1_up_to_cards: 4,
                solved_up_to_cards: 5,
                estimated_up_to_cards: 5,
            })
        );
        for bad in [
            "", "4", "5,4", "0,3", "4,41", "a,5", "4,5,4", "4,5,41", "4,5,6,7", "-1,5",
        ] {
            assert!(Tiers::parse(bad).is_err(), "{bad:?} accepted");
        }
    }
}
