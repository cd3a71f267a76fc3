//! A cheap estimate of a position's value for large Wolf hands, where an exact solve costs too
//! much: the value of the Overs-≤-1 game in which every card turned up is drawn uniformly from the
//! mode's ranks, independently of every other card (with replacement), from a deck of as many
//! cards as are left face down.
//!
//! It forgets which ranks the hands and the discards have used up, so it is not the game's value;
//! it is a function of what the player sees, which is all the tiered information penalty
//! (`super::penalty`) needs of an estimate to keep its bound valid. What it gains over the fold
//! value it replaces is that it sees the chance of emptying a large Wolf hand: the cards a
//! clairvoyant player would bank on are charged.
//!
//! Its state is `(player, wolf, cub, cards left)` with no face-down multiset, so one table serves
//! every deal of a run. Each capture takes at least one card out of the two hands, so a round from
//! here turns up at most as many cubs as the hands hold cards: the cards left count only up to
//! that many, and positions that differ beyond it share an entry.

use super::expectimax::GameLimits;
use super::memo::SharedMemo;
use super::position::{card_count, rank_plays, rank_total, remove_cards, Counts, Position, RANKS};
use crate::games::lobo::{Mode, PlayKind};

/// The uniform-draws values of one mode and loss cap, memoised and shared by threads.
pub struct UniformDraws {
    max_rank: u8,
    limits: GameLimits,
    memo: SharedMemo,
}

impl UniformDraws {
    pub fn new(mode: Mode, loss_cap_points: Option<u32>) -> UniformDraws {
        UniformDraws {
            max_rank: mode.max_rank(),
            limits: GameLimits {
                max_over_difference: 1,
                loss_cap_points,
            },
            memo: SharedMemo::new(),
        }
    }

    pub fn loss_cap_points(&self) -> Option<u32> {
        self.limits.loss_cap_points
    }

    /// Distinct positions solved and stored.
    pub fn states(&self) -> u64 {
        self.memo.len()
    }

    /// The estimate at a decision position of the real game.
    pub fn value(&self, pos: &Position) -> f64 {
        self.solve(pos.player, pos.wolf, pos.cub, pos.unknown_count())
    }

    /// `cards_left`: face-down cards under `cub` (0 when there is no cub).
    fn solve(&self, player: Counts, wolf: Counts, cub: u8, cards_left: u32) -> f64 {
        let cards_left = cards_left.min(card_count(&player) + card_count(&wolf));
        let key = key(&player, &wolf, cub, cards_left);
        if let Some(v) = self.memo.get(key) {
            return v;
        }
        // `rank_plays` reads only the hands.
        let pos = Position {
            player,
            wolf,
            cub,
            unknown: [0; RANKS],
        };
        let mut plays = Vec::new();
        rank_plays(&pos, self.limits.max_over_difference, &mut plays);
        let mut best = -self.limits.loss_points(&wolf);
        for play in &plays {
            let mut next = remove_cards(&pos, play);
            if cub > 0 {
                let hand = match play.kind {
                    PlayKind::Perfect | PlayKind::Sum => &mut next.player,
                    _ => &mut next.wolf,
                };
                hand[cub as usize - 1] += 1;
            }
            let v = if card_count(&next.wolf) == 0 {
                rank_total(&next.player) as f64
            } else if cards_left == 0 {
                self.solve(next.player, next.wolf, 0, 0)
            } else {
                let total: f64 = (1..=self.max_rank)
                    .map(|r| self.solve(next.player, next.wolf, r, cards_left - 1))
                    .sum();
                total / self.max_rank as f64
            };
            best = best.max(v);
        }
        self.memo.insert(key, best).0
    }
}

/// 4 bits per count: a Split or an Over by 1 gives the Wolf the cub, so a rank may pass five
/// here (at most four times, once per player card).
fn key(player: &Counts, wolf: &Counts, cub: u8, cards_left: u32) -> u128 {
    let pack = |c: &Counts| c.iter().fold(0u128, |acc, &n| (acc << 4) | n as u128);
    debug_assert!(player.iter().chain(wolf).all(|&n| n < 16) && cards_left < 64);
    (pack(player) << 50) | (pack(wolf) << 10) | ((cub as u128) << 6) | cards_left as u128
}
