//! The clairvoyant relaxation: a player who knows the whole deck order, optionally charged a
//! penalty for using that knowledge (information relaxation duality, Brown–Smith–Sun 2010).
//!
//! Knowing more can only help (every strategy of the real player is available to the
//! clairvoyant one), so the clairvoyant's expected value is an upper bound on perfect play.
//! With a penalty `V̂(s') − E[V̂(s') | s, a]` charged at each play, for any function `V̂` of
//! the player's information, the bound stays valid (the penalties have zero mean under every
//! strategy that does not see the future) and becomes much tighter when `V̂` is a good value
//! estimate (`super::penalty` has djego's). Each deal is then a deterministic problem, solved
//! exactly by memoised search over (deck position, hands).
//!
//! A penalty may leave some plays uncharged, and once such a play is made no later play is
//! charged: a penalty may depend on the play and on the history the player has seen, as long as
//! its mean given that history is zero, so the bound stays valid.
//!
//! `W(s) = max(fold(s), max_a [ Q̂(s,a) + W(s'_a) − V̂(s'_a) ])`, with `W − V̂ = 0` at a win,
//!
//! where `s'_a` is the position the actual deck leads to and `Q̂(s,a) = E[V̂(s')]`.

use super::super::PlayKind;
use super::expectimax::GameLimits;
use super::penalty::Penalty;
use super::position::{card_count, rank_plays, rank_total, remove_cards, Counts, Position, RANKS};
use std::collections::HashMap;

pub struct Clairvoyant<'a> {
    ranks: &'a [u8],
    limits: GameLimits,
    penalty: Option<&'a dyn Penalty>,
    /// `suffix[i]` = rank counts of `ranks[i..]`.
    suffix: Vec<Counts>,
    memo: HashMap<u128, f32>,
    plays: Vec<Vec<super::position::RankPlay>>,
}

impl<'a> Clairvoyant<'a> {
    /// The bound's value on this deck (ranks top first) and the number of positions searched.
    /// `penalty`'s values must be of the game with `limits.loss_cap_points`.
    pub fn solve(ranks: &'a [u8], limits: GameLimits, penalty: Option<&'a dyn Penalty>) -> (f64, u64) {
        let opening = super::deals::opening_of(ranks);
        Self::solve_from(opening.player, opening.wolf, ranks, 8, limits, penalty)
    }

    /// The bound from the hands `player` and `wolf` with the cub at `ranks[cub_at]` and the
    /// face-down cards in the order `ranks[cub_at + 1..]`.
    pub fn solve_from(
        player: Counts,
        wolf: Counts,
        ranks: &'a [u8],
        cub_at: usize,
        limits: GameLimits,
        penalty: Option<&'a dyn Penalty>,
    ) -> (f64, u64) {
        let mut suffix = vec![[0u8; RANKS]; ranks.len() + 2];
        for i in (0..ranks.len()).rev() {
            suffix[i] = suffix[i + 1];
            suffix[i][ranks[i] as usize - 1] += 1;
        }
        let mut solver = Clairvoyant {
            ranks,
            limits,
            penalty,
            suffix,
            memo: HashMap::new(),
            plays: Vec::new(),
        };
        let v = solver.value(cub_at, player, wolf, 0, penalty.is_some());
        (v, solver.memo.len() as u64)
    }

    fn position(&self, cub_at: usize, player: Counts, wolf: Counts) -> Position {
        match self.ranks.get(cub_at) {
            Some(&cub) => Position {
                player,
                wolf,
                cub,
                unknown: self.suffix[cub_at + 1],
            },
            None => Position {
                player,
                wolf,
                cub: 0,
                unknown: [0; RANKS],
            },
        }
    }

    /// `charged`: penalties still apply (no unpenalised Over has been made on this path).
    fn value(&mut self, cub_at: usize, player: Counts, wolf: Counts, depth: usize, charged: bool) -> f64 {
        let key = ((charged as u128) << 80) | ((cub_at as u128) << 64) | (pack(&player) << 32) | pack(&wolf);
        if let Some(&v) = self.memo.get(&key) {
            return v as f64;
        }
        let mut best = -self.limits.loss_points(&wolf);
        let pos = self.position(cub_at, player, wolf);
        if self.plays.len() <= depth {
            self.plays.resize(depth + 1, Vec::new());
        }
        let mut plays = std::mem::take(&mut self.plays[depth]);
        rank_plays(&pos, self.limits.max_over_difference, &mut plays);
        for play in &plays {
            let mut after = remove_cards(&pos, play);
            let mut at = cub_at;
            let dealt = if play.kind == PlayKind::Over {
                play.difference as usize
            } else {
                1
            };
            for _ in 0..dealt {
                if let Some(&r) = self.ranks.get(at) {
                    let hand = if matches!(play.kind, PlayKind::Perfect | PlayKind::Sum) {
                        &mut after.player
                    } else {
                        &mut after.wolf
                    };
                    hand[r as usize - 1] += 1;
                    at += 1;
                }
            }
            let won = card_count(&after.wolf) == 0;
            let penalised = self.penalty.filter(|p| charged && p.charges(play));
            let v = match penalised {
                None if won => rank_total(&after.player) as f64,
                None => self.value(at, after.player, after.wolf, depth + 1, false),
                // A win's V̂ is its payoff: the charge leaves q.
                Some(vhat) if won => vhat.expected_after(&pos, play),
                Some(vhat) => {
                    let q = vhat.expected_after(&pos, play);
                    let next = self.position(at, after.player, after.wolf);
                    q + self.value(at, after.player, after.wolf, depth + 1, true) - vhat.value(&next)
                }
            };
            best = best.max(v);
        }
        self.plays[depth] = plays;
        self.memo.insert(key, best as f32);
        best
    }
}

fn pack(c: &Counts) -> u128 {
    c.iter().fold(0u128, |acc, &n| (acc << 3) | n as u128)
}
