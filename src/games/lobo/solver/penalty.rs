//! The information penalties of the clairvoyant bound (`super::clairvoyant`): an estimate `V̂` of
//! a position's value, and `E[V̂(next) | position, play]` averaged over what the play deals.
//!
//! Any `V̂` that is a function of what the player has seen keeps the bound valid; the closer it
//! is to the true value, the tighter the bound. Two are offered:
//!
//! - [`Restricted`]: the exact values of the game with Overs limited to `k`, charged only on plays
//!   of that game (the first penalty djego measured; it barely tightens the bound, because the
//!   clairvoyant's gain is in the larger Overs it leaves uncharged);
//! - [`Tiered`]: charges every play, Overs of any size included, with `V̂` = the exact
//!   Overs-≤-1 value while the Wolf holds at most 4 cards, the exact no-Overs value at 5, and the
//!   fold value beyond. A large Over leaves the Wolf more than 5 cards, where `V̂` is the fold
//!   value of the Wolf's hand: its expectation over the dealt cards is a sum, not a solve.

use super::expectimax::{choose, expected_after, hypergeometric, Expectimax, GameLimits};
use super::position::{card_count, rank_total, remove_cards, Position, RankPlay, RANKS};
use crate::games::lobo::PlayKind;

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
}

/// Where the tiered `V̂` changes estimate, by the number of cards in the Wolf's hand.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tiers {
    /// The largest Wolf hand whose `V̂` is the Overs-≤-1 value.
    pub overs_1_up_to_cards: u32,
    /// The largest Wolf hand `V̂` solves for (the no-Overs value above `overs_1_up_to_cards`);
    /// beyond, it is the fold value.
    pub solved_up_to_cards: u32,
}

impl Tiers {
    /// The tiers of the bound the house rule stands on (docs/lobo.md §4).
    pub const DEFAULT: Tiers = Tiers {
        overs_1_up_to_cards: 4,
        solved_up_to_cards: 5,
    };

    /// `"o,s"`: `overs_1_up_to_cards`, `solved_up_to_cards` (with `o ≤ s`).
    pub fn parse(text: &str) -> Result<Tiers, String> {
        let bad = || format!("tiers must be two card counts o,s with 1 <= o <= s <= 40, not {text:?}");
        let (o, s) = text.split_once(',').ok_or_else(bad)?;
        let (o, s): (u32, u32) = (
            o.trim().parse().map_err(|_| bad())?,
            s.trim().parse().map_err(|_| bad())?,
        );
        if !(1..=40).contains(&o) || o > s || s > 40 {
            return Err(bad());
        }
        Ok(Tiers {
            overs_1_up_to_cards: o,
            solved_up_to_cards: s,
        })
    }
}

impl Tiered {
    pub fn new(loss_cap_points: Option<u32>) -> Tiered {
        Tiered::with_tiers(loss_cap_points, Tiers::DEFAULT)
    }

    pub fn with_tiers(loss_cap_points: Option<u32>, tiers: Tiers) -> Tiered {
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
        }
    }

    /// The Wolf's hand after `play`, when the deal leaves it past [`Tiers::solved_up_to_cards`]: the
    /// cards it keeps, the cub and how many face-down cards it is dealt. `None` otherwise.
    fn past_solved(&self, pos: &Position, play: &RankPlay) -> Option<(Position, u32)> {
        if !matches!(play.kind, PlayKind::Split | PlayKind::Over) || pos.cub == 0 {
            return None;
        }
        let mut next = remove_cards(pos, play);
        next.wolf[pos.cub as usize - 1] += 1;
        let more = match play.kind {
            PlayKind::Over => (play.difference as u32 - 1).min(next.unknown_count()),
            _ => 0,
        };
        (card_count(&next.wolf) + more > self.tiers.solved_up_to_cards).then_some((next, more))
    }
}

impl Penalty for Tiered {
    fn value(&self, pos: &Position) -> f64 {
        let solved = |e: &Expectimax| e.value(pos).expect("the penalty solvers have no budget");
        match card_count(&pos.wolf) {
            0 => rank_total(&pos.player) as f64,
            n if n <= self.tiers.overs_1_up_to_cards => solved(&self.overs_1),
            n if n <= self.tiers.solved_up_to_cards => solved(&self.no_overs),
            _ => -self.limits.loss_points(&pos.wolf),
        }
    }

    fn expected_after(&self, pos: &Position, play: &RankPlay) -> f64 {
        // Past 5 cards `V̂` is minus the Wolf's capped points, whatever the next cub: average it
        // over the multisets the play deals, without turning up a cub.
        if let Some((next, more)) = self.past_solved(pos, play) {
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

    fn states(&self) -> u64 {
        self.overs_1.states() + self.no_overs.states()
    }
}

#[cfg(test)]
mod tests {
    use super::Tiers;

    #[test]
    fn tiers_parse_two_ordered_card_counts() {
        assert_eq!(Tiers::parse("4,5"), Ok(Tiers::DEFAULT));
        assert_eq!(
            Tiers::parse(" 4 , 6 "),
            Ok(Tiers {
                overs_1_up_to_cards: 4,
                solved_up_to_cards: 6
            })
        );
        for bad in ["", "4", "5,4", "0,3", "4,41", "a,5", "4,5,6", "-1,5"] {
            assert!(Tiers::parse(bad).is_err(), "{bad:?} accepted");
        }
    }
}
