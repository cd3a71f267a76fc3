//! The first-pass count N for simulation hot loops: no allocation, and per
//! card only a rarely-taken branch (the play-up loop). One 64-bit mask holds
//! the cards that would play up right now.
//!
//! Equivalent to the general engine's first pass (tested on random decks):
//! the top discard can only become playable after a promotion, so checking it
//! right after each promotion, rather than before every deal, gives the same
//! moves.

use crate::cards::{Card, Suit};

/// Per card id: the mask that clears its suit, the bit of the card that
/// follows it (1 follows 10), and its suit's 8-bit lane in the packed counts.
struct CardTables {
    keep_others: [u64; Card::DECK_SIZE],
    successor_bit: [u64; Card::DECK_SIZE],
    lane_shift: [u8; Card::DECK_SIZE],
}

const TABLES: CardTables = {
    let mut t = CardTables {
        keep_others: [0; Card::DECK_SIZE],
        successor_bit: [0; Card::DECK_SIZE],
        lane_shift: [0; Card::DECK_SIZE],
    };
    let mut id = 0;
    while id < Card::DECK_SIZE {
        let suit = id / 10;
        let rank0 = id % 10;
        let next0 = if rank0 == 9 { 0 } else { rank0 + 1 };
        t.keep_others[id] = !(((1u64 << 10) - 1) << (suit * 10));
        t.successor_bit[id] = 1u64 << (suit * 10 + next0);
        t.lane_shift[id] = (suit * 8) as u8;
        id += 1;
    }
    t
};

/// Bit 63 is never playable: the empty discard pile's sentinel.
const SENTINEL: u8 = 63;

/// N, the number of cards in all five stacks after the first pass.
#[inline]
pub fn first_pass_count(deck: &[Card]) -> u8 {
    let packed = packed_counts(deck);
    // Sum the five 8-bit lanes (each at most 50, so no carry between lanes).
    (packed.wrapping_mul(0x01_0101_0101) >> 32) as u8
}

/// Cards per stack after the first pass, indexed by `Suit::index()`.
///
/// `deck` should be a permutation of the fifty cards; for any other slice the
/// result is unspecified, but this never panics (only the first 50 cards are read).
#[inline]
pub fn first_pass_counts(deck: &[Card]) -> [u8; Suit::COUNT] {
    let packed = packed_counts(deck);
    std::array::from_fn(|suit| (packed >> (8 * suit)) as u8)
}

/// The five stack sizes in 8-bit lanes, Crowns in the lowest.
#[inline(always)]
fn packed_counts(deck: &[Card]) -> u64 {
    // Before a suit has a foundation, any card of it would play.
    let mut playable: u64 = (1u64 << Card::DECK_SIZE) - 1;
    let mut packed: u64 = 0;
    // discard[0] is the sentinel; discard[len] is the top (len 0: empty).
    let mut discard = [SENTINEL; Card::DECK_SIZE + 1];
    let mut len = 0usize;

    // Promotes `id` when `hit` is 1; changes nothing when 0. A full stack's
    // successor is its own foundation, already on the stack, so it never
    // plays again (in a permutation) without a special case.
    #[inline(always)]
    fn promote(id: usize, hit: u64, playable: &mut u64, packed: &mut u64) {
        *packed += hit << TABLES.lane_shift[id];
        let promoted = (*playable & TABLES.keep_others[id]) | TABLES.successor_bit[id];
        *playable ^= (*playable ^ promoted) & 0u64.wrapping_sub(hit);
    }

    for card in deck.iter().take(Card::DECK_SIZE) {
        let id = card.id() as usize;
        let hit = (playable >> id) & 1;
        // Write above the pile unconditionally; it joins the pile only on a miss.
        discard[len + 1] = id as u8;
        len += (1 - hit) as usize;
        promote(id, hit, &mut playable, &mut packed);
        // Play up the top discard while playable. After a miss the top is the
        // card just discarded, unplayable, so this branch is rarely taken.
        while (playable >> discard[len]) & 1 != 0 {
            promote(discard[len] as usize, 1, &mut playable, &mut packed);
            len -= 1;
        }
    }
    packed
}
