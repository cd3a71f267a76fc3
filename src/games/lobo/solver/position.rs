//! The solver's view of a round: suits do not matter in Lobo, so a position is rank counts.
//!
//! Invariant: `player + wolf + cub + unknown` never holds more than five cards of a rank,
//! and `unknown` is the multiset of face-down cards under the cub (what the player does not
//! see is a uniformly random order of it).

use super::super::{LoboState, PlayKind};
use crate::cards::Card;

pub const RANKS: usize = 10;
pub type Counts = [u8; RANKS];

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Position {
    pub player: Counts,
    pub wolf: Counts,
    /// The cub's rank, 0 once the deck has run out.
    pub cub: u8,
    pub unknown: Counts,
}

pub fn counts_of(cards: &[Card]) -> Counts {
    let mut c = [0u8; RANKS];
    for card in cards {
        c[card.rank().value() as usize - 1] += 1;
    }
    c
}

pub fn rank_total(c: &Counts) -> u32 {
    c.iter().enumerate().map(|(i, &n)| (i as u32 + 1) * n as u32).sum()
}

pub fn card_count(c: &Counts) -> u32 {
    c.iter().map(|&n| n as u32).sum()
}

fn pack(c: &Counts) -> u128 {
    c.iter().fold(0u128, |acc, &n| (acc << 3) | n as u128)
}

impl Position {
    pub fn from_state(state: &LoboState) -> Position {
        Position {
            player: counts_of(state.player_hand()),
            wolf: counts_of(state.wolf_hand()),
            cub: state.cub().map_or(0, |c| c.rank().value()),
            unknown: counts_of(state.undealt_under_cub()),
        }
    }

    /// A compact memo key: 3 bits per count (at most 5), 4 bits for the cub.
    pub fn key(&self) -> u128 {
        debug_assert!(self
            .player
            .iter()
            .chain(&self.wolf)
            .chain(&self.unknown)
            .all(|&n| n <= 5));
        (pack(&self.player) << 64) | (pack(&self.wolf) << 34) | (pack(&self.unknown) << 4) | self.cub as u128
    }

    pub fn unknown_count(&self) -> u32 {
        card_count(&self.unknown)
    }
}

/// A play at rank level: the ranks used from each hand, as counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RankPlay {
    pub kind: PlayKind,
    pub player: Counts,
    pub wolf: Counts,
    /// For an Over, the rank difference (cards dealt to the Wolf); 0 otherwise.
    pub difference: u8,
}

fn single(rank: usize) -> Counts {
    let mut c = [0u8; RANKS];
    c[rank] = 1;
    c
}

/// Every rank-level capture, with Overs limited to `max_over_difference`.
pub fn rank_plays(pos: &Position, max_over_difference: u8, out: &mut Vec<RankPlay>) {
    out.clear();
    for p in 0..RANKS {
        if pos.player[p] == 0 {
            continue;
        }
        if pos.wolf[p] > 0 {
            out.push(RankPlay {
                kind: PlayKind::Perfect,
                player: single(p),
                wolf: single(p),
                difference: 0,
            });
        }
        for w in 0..p {
            let d = (p - w) as u8;
            if pos.wolf[w] > 0 && d <= max_over_difference {
                out.push(RankPlay {
                    kind: PlayKind::Over,
                    player: single(p),
                    wolf: single(w),
                    difference: d,
                });
            }
        }
        // Splits: two or more Wolf cards (all smaller than p) adding to p+1.
        let mut chosen = [0u8; RANKS];
        split_multisets(&pos.wolf, 0, p, (p + 1) as u32, &mut chosen, &mut |used| {
            if card_count(used) >= 2 {
                out.push(RankPlay {
                    kind: PlayKind::Split,
                    player: single(p),
                    wolf: *used,
                    difference: 0,
                });
            }
        });
    }
    // Sums: sub-multisets of two or more player cards adding to a Wolf rank.
    let mut chosen = [0u8; RANKS];
    sum_multisets(&pos.player, 0, &mut chosen, &mut |used| {
        let total = rank_total(used);
        if card_count(used) >= 2 && total as usize <= RANKS && pos.wolf[total as usize - 1] > 0 {
            out.push(RankPlay {
                kind: PlayKind::Sum,
                player: *used,
                wolf: single(total as usize - 1),
                difference: 0,
            });
        }
    });
}

fn split_multisets(
    avail: &Counts,
    rank: usize,
    below: usize,
    remaining: u32,
    chosen: &mut Counts,
    found: &mut dyn FnMut(&Counts),
) {
    if remaining == 0 {
        found(chosen);
        return;
    }
    if rank >= below {
        return;
    }
    let value = rank as u32 + 1;
    let mut k = 0u8;
    loop {
        if k as u32 * value > remaining || k > avail[rank] {
            break;
        }
        chosen[rank] = k;
        split_multisets(avail, rank + 1, below, remaining - k as u32 * value, chosen, found);
        k += 1;
    }
    chosen[rank] = 0;
}

fn sum_multisets(avail: &Counts, rank: usize, chosen: &mut Counts, found: &mut dyn FnMut(&Counts)) {
    if rank == RANKS {
        found(chosen);
        return;
    }
    for k in 0..=avail[rank] {
        chosen[rank] = k;
        sum_multisets(avail, rank + 1, chosen, found);
    }
    chosen[rank] = 0;
}

/// Removes a play's cards from both hands.
pub fn remove_cards(pos: &Position, play: &RankPlay) -> Position {
    let mut next = *pos;
    for r in 0..RANKS {
        debug_assert!(next.player[r] >= play.player[r] && next.wolf[r] >= play.wolf[r]);
        next.player[r] -= play.player[r];
        next.wolf[r] -= play.wolf[r];
    }
    next
}

/// Where the cub goes after a play that is not an Over.
pub fn cub_goes_to_player(kind: PlayKind) -> bool {
    matches!(kind, PlayKind::Perfect | PlayKind::Sum)
}

/// Maps a rank-level play to card ids: the lowest-id cards of each rank in each hand.
pub fn to_card_play(state: &LoboState, play: &RankPlay) -> super::super::Play {
    fn pick(hand: &[Card], counts: &Counts) -> Vec<Card> {
        let mut need = *counts;
        let mut picked = Vec::new();
        for &c in hand {
            let r = c.rank().value() as usize - 1;
            if need[r] > 0 {
                need[r] -= 1;
                picked.push(c);
            }
        }
        picked
    }
    super::super::Play::new(
        play.kind,
        pick(state.player_hand(), &play.player),
        pick(state.wolf_hand(), &play.wolf),
    )
}
