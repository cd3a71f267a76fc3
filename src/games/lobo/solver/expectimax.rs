//! Exact expectimax over the unknown cards, memoised on the rank-count position.
//!
//! The value of a position is the player's expected net points under best play:
//! `max(fold, best capture)` where a fold (or having no capture) pays
//! `-min(wolf points, loss cap)`, a win pays the player's hand, and every card turned up
//! or dealt from under the cub is averaged over the unknown multiset.

use super::super::PlayKind;
use super::memo::SharedMemo;
use super::position::{card_count, rank_plays, rank_total, remove_cards, Counts, Position, RankPlay, RANKS};
use std::sync::atomic::{AtomicBool, Ordering};

/// The game the solver plays: Over limit and loss cap.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct GameLimits {
    /// Largest Over difference the player may use (9 or more = the full rules).
    pub max_over_difference: u8,
    pub loss_cap_points: Option<u32>,
}

impl GameLimits {
    pub const FULL_RULES: u8 = 9;
    pub fn full(loss_cap_points: Option<u32>) -> GameLimits {
        GameLimits {
            max_over_difference: Self::FULL_RULES,
            loss_cap_points,
        }
    }
    pub fn is_full_rules(&self) -> bool {
        self.max_over_difference >= Self::FULL_RULES
    }
    pub fn loss_points(&self, wolf: &Counts) -> f64 {
        let points = rank_total(wolf);
        self.loss_cap_points.map_or(points, |cap| points.min(cap)) as f64
    }
}

/// A memoising solver shared by threads. Aborts once `state_budget` states are stored.
pub struct Expectimax {
    limits: GameLimits,
    memo: SharedMemo,
    state_budget: Option<u64>,
    aborted: AtomicBool,
}

/// The solver stopped because it reached its state budget.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BudgetExceeded;

impl Expectimax {
    pub fn new(limits: GameLimits, state_budget: Option<u64>) -> Expectimax {
        Expectimax {
            limits,
            memo: SharedMemo::new(),
            state_budget,
            aborted: AtomicBool::new(false),
        }
    }

    pub fn limits(&self) -> GameLimits {
        self.limits
    }

    /// Distinct decision positions solved and stored.
    pub fn states(&self) -> u64 {
        self.memo.len()
    }

    /// The value of a decision position (the player to choose).
    pub fn value(&self, pos: &Position) -> Result<f64, BudgetExceeded> {
        let key = pos.key();
        if let Some(v) = self.memo.get(key) {
            return Ok(v);
        }
        if self.aborted.load(Ordering::Relaxed) {
            return Err(BudgetExceeded);
        }
        let mut best = -self.limits.loss_points(&pos.wolf);
        let mut plays = Vec::new();
        rank_plays(pos, self.limits.max_over_difference, &mut plays);
        for play in &plays {
            best = best.max(self.play_value(pos, play)?);
        }
        let (best, stored) = self.memo.insert(key, best);
        if self.state_budget.zip(stored).is_some_and(|(budget, n)| n > budget) {
            self.aborted.store(true, Ordering::Relaxed);
        }
        Ok(best)
    }

    /// Each legal capture's expected value, and the fold value, at a decision position.
    pub fn play_values(&self, pos: &Position) -> Result<(f64, Vec<(RankPlay, f64)>), BudgetExceeded> {
        let mut plays = Vec::new();
        rank_plays(pos, self.limits.max_over_difference, &mut plays);
        let mut out = Vec::with_capacity(plays.len());
        for play in plays {
            out.push((play, self.play_value(pos, &play)?));
        }
        Ok((-self.limits.loss_points(&pos.wolf), out))
    }

    /// The expected value after making `play` at `pos`.
    pub fn play_value(&self, pos: &Position, play: &RankPlay) -> Result<f64, BudgetExceeded> {
        expected_after(pos, play, self.limits, &mut |next| self.value(next))
    }
}

/// The expectation, over the cards `play` deals from under the cub and the next cub turned up,
/// of `value` at the decision position that follows; a win pays the player's hand and a fold the
/// Wolf's (capped). Every estimate of a position's value is averaged the same way: the exact one
/// of [`Expectimax`], and the information penalty's (`super::penalty`).
pub fn expected_after<E, V: FnMut(&Position) -> Result<f64, E>>(
    pos: &Position,
    play: &RankPlay,
    limits: GameLimits,
    value: &mut V,
) -> Result<f64, E> {
    let mut next = remove_cards(pos, play);
    match play.kind {
        PlayKind::Perfect | PlayKind::Sum => {
            if next.cub > 0 {
                next.player[next.cub as usize - 1] += 1;
            }
            if card_count(&next.wolf) == 0 {
                return Ok(rank_total(&next.player) as f64);
            }
            turn_up_cub(&next, value)
        }
        PlayKind::Split => {
            if next.cub == 0 {
                return after_deal(&next, value);
            }
            next.wolf[next.cub as usize - 1] += 1;
            turn_up_cub(&next, value)
        }
        PlayKind::Over => {
            if next.cub == 0 {
                return after_deal(&next, value);
            }
            next.wolf[next.cub as usize - 1] += 1;
            let more = (play.difference as u32 - 1).min(next.unknown_count());
            if more == 0 {
                return turn_up_cub(&next, value);
            }
            let total = next.unknown_count();
            let mut acc = 0.0;
            let mut chosen = [0u8; RANKS];
            let mut result = Ok(());
            hypergeometric(&next.unknown, 0, more, &mut chosen, &mut |taken, ways| {
                if result.is_err() {
                    return;
                }
                let mut after = next;
                for r in 0..RANKS {
                    after.unknown[r] -= taken[r];
                    after.wolf[r] += taken[r];
                }
                match turn_up_cub(&after, value) {
                    Ok(v) => acc += ways * v,
                    Err(e) => result = Err(e),
                }
            });
            result?;
            Ok(acc / choose(total, more))
        }
        PlayKind::Fold => Ok(-limits.loss_points(&pos.wolf)),
    }
}

/// The deck ran out before this play dealt anything: the round goes on (or is won).
fn after_deal<E, V: FnMut(&Position) -> Result<f64, E>>(pos: &Position, value: &mut V) -> Result<f64, E> {
    if card_count(&pos.wolf) == 0 {
        return Ok(rank_total(&pos.player) as f64);
    }
    value(pos)
}

/// The old cub has left; the next card is turned up (averaged over the unknown cards).
fn turn_up_cub<E, V: FnMut(&Position) -> Result<f64, E>>(pos: &Position, value: &mut V) -> Result<f64, E> {
    let total = pos.unknown_count();
    if total == 0 {
        let mut next = *pos;
        next.cub = 0;
        return value(&next);
    }
    let mut acc = 0.0;
    for r in 0..RANKS {
        let n = pos.unknown[r];
        if n == 0 {
            continue;
        }
        let mut next = *pos;
        next.unknown[r] -= 1;
        next.cub = r as u8 + 1;
        acc += n as f64 * value(&next)?;
    }
    Ok(acc / total as f64)
}

pub fn choose(n: u32, k: u32) -> f64 {
    if k > n {
        return 0.0;
    }
    (0..k).fold(1.0, |acc, i| acc * (n - i) as f64 / (i + 1) as f64)
}

/// Every multiset of `remaining` cards drawn from `avail`, with its number of ways
/// (product of binomials); dividing by C(total, drawn) gives its probability.
pub fn hypergeometric(
    avail: &Counts,
    rank: usize,
    remaining: u32,
    chosen: &mut Counts,
    found: &mut dyn FnMut(&Counts, f64),
) {
    if remaining == 0 {
        let ways = (0..RANKS).map(|r| choose(avail[r] as u32, chosen[r] as u32)).product();
        found(chosen, ways);
        return;
    }
    if rank == RANKS {
        return;
    }
    let max = (avail[rank] as u32).min(remaining);
    for k in 0..=max {
        chosen[rank] = k as u8;
        hypergeometric(avail, rank + 1, remaining - k, chosen, found);
    }
    chosen[rank] = 0;
}
