//! Where the solver's deals come from: every opening (exact) or seeded sampled decks.
//!
//! Sampled decks use the same ChaCha20 stream and rejection-sampled Fisher–Yates as
//! shuffle-v1 (docs/shuffle.md), seeded from a stated `u64`, so every figure is reproducible.

use super::super::{Mode, HAND_SIZE};
use super::expectimax::choose;
use super::position::{Counts, Position, RANKS};
use crate::cards::{ordered_deck, Card};
use rand_chacha::ChaCha20Rng;
use rand_core::{RngCore, SeedableRng};

fn uniform(rng: &mut ChaCha20Rng, n: u32) -> u32 {
    let t = n.wrapping_neg() % n;
    loop {
        let x = rng.next_u32();
        if x >= t {
            return x % n;
        }
    }
}

/// `count` shuffled decks of the mode, from one ChaCha20 stream seeded by `seed`.
pub fn sample_decks(mode: Mode, count: usize, seed: u64) -> Vec<Vec<Card>> {
    let mut rng = ChaCha20Rng::seed_from_u64(seed);
    (0..count)
        .map(|_| {
            let mut deck = ordered_deck(mode.max_rank());
            for i in (1..deck.len()).rev() {
                let j = uniform(&mut rng, i as u32 + 1) as usize;
                deck.swap(i, j);
            }
            deck
        })
        .collect()
}

/// The ranks of a deck, top first.
pub fn deck_ranks(deck: &[Card]) -> Vec<u8> {
    deck.iter().map(|c| c.rank().value()).collect()
}

/// The opening position of a dealt deck (Wolf 0–3, player 4–7, cub 8).
pub fn opening_of(ranks: &[u8]) -> Position {
    let mut pos = Position {
        player: [0; RANKS],
        wolf: [0; RANKS],
        cub: ranks[2 * HAND_SIZE],
        unknown: [0; RANKS],
    };
    for (i, &r) in ranks.iter().enumerate() {
        let slot = match i {
            0..=3 => &mut pos.wolf,
            4..=7 => &mut pos.player,
            8 => continue,
            _ => &mut pos.unknown,
        };
        slot[r as usize - 1] += 1;
    }
    pos
}

/// Every distinct opening (Wolf hand, player hand, cub) at rank level, with its probability.
/// The probabilities add to 1.
pub fn all_openings(mode: Mode) -> Vec<(Position, f64)> {
    let ranks = mode.max_rank() as usize;
    let n = mode.deck_len() as u32;
    let denominator = choose(n, 4) * choose(n - 4, 4) * (n - 8) as f64;
    let hands = multisets(ranks, HAND_SIZE as u32);
    let mut out = Vec::new();
    for wolf in &hands {
        for player in &hands {
            if (0..ranks).any(|r| wolf[r] + player[r] > 5) {
                continue;
            }
            for cub in 0..ranks {
                if wolf[cub] + player[cub] >= 5 {
                    continue;
                }
                let mut unknown = [0u8; RANKS];
                let mut ways = 1.0;
                for r in 0..ranks {
                    let left = 5 - wolf[r] as u32;
                    ways *= choose(5, wolf[r] as u32) * choose(left, player[r] as u32);
                    unknown[r] = 5 - wolf[r] - player[r] - (r == cub) as u8;
                }
                ways *= (5 - wolf[cub] - player[cub]) as f64;
                let pos = Position {
                    player: *player,
                    wolf: *wolf,
                    cub: cub as u8 + 1,
                    unknown,
                };
                out.push((pos, ways / denominator));
            }
        }
    }
    out
}

fn multisets(ranks: usize, size: u32) -> Vec<Counts> {
    fn go(ranks: usize, rank: usize, left: u32, cur: &mut Counts, out: &mut Vec<Counts>) {
        if rank == ranks {
            if left == 0 {
                out.push(*cur);
            }
            return;
        }
        for k in 0..=left.min(5) {
            cur[rank] = k as u8;
            go(ranks, rank + 1, left - k, cur, out);
        }
        cur[rank] = 0;
    }
    let mut out = Vec::new();
    go(ranks, 0, size, &mut [0; RANKS], &mut out);
    out
}

/// The exact expected value of `min(opening Wolf points, cap)`: what a player who folds at once pays,
/// and the round's expected amount at risk before any charge (see docs/lobo.md).
pub fn expected_opening_loss(mode: Mode, loss_cap_points: Option<u32>) -> f64 {
    let ranks = mode.max_rank() as usize;
    let n = mode.deck_len() as u32;
    multisets(ranks, HAND_SIZE as u32)
        .iter()
        .map(|wolf| {
            let ways: f64 = (0..ranks).map(|r| choose(5, wolf[r] as u32)).product();
            let points = super::position::rank_total(wolf);
            ways / choose(n, 4) * loss_cap_points.map_or(points, |c| points.min(c)) as f64
        })
        .sum()
}
