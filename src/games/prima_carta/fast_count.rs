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
    let mut cursor = FirstPassCursor::new();
    for card in deck.iter().take(Card::DECK_SIZE) {
        cursor.deal(*card);
    }
    cursor.packed
}

/// The first pass stopped between two cards: what `first_pass_counts` keeps
/// in registers, for callers that deal card by card or resume a pass from a
/// dealt prefix many times (Peg Leg's pricing). Dealing a card also makes the
/// play-up that follows it, so after any number of cards the state is the
/// general engine's just before the next card (and, after the last card, at
/// the end of the pass).
///
/// At most fifty distinct cards may be dealt (a permutation's prefix); a
/// fifty-first deal panics on the pile's bounds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FirstPassCursor {
    /// Bit `id` set: the card would be promoted if it were dealt now.
    playable: u64,
    /// Stack sizes in 8-bit lanes, Crowns in the lowest.
    packed: u64,
    /// discard[0] is the sentinel; discard[len] is the top (len 0: empty).
    discard: [u8; Card::DECK_SIZE + 1],
    len: u8,
}

impl Default for FirstPassCursor {
    fn default() -> Self {
        FirstPassCursor::new()
    }
}

impl FirstPassCursor {
    /// Before the first card: no stacks, an empty discard pile.
    pub const fn new() -> FirstPassCursor {
        FirstPassCursor {
            // Before a suit has a foundation, any card of it would play.
            playable: (1u64 << Card::DECK_SIZE) - 1,
            packed: 0,
            discard: [SENTINEL; Card::DECK_SIZE + 1],
            len: 0,
        }
    }

    /// Deals one card, then plays up the top of the discard pile while it is playable.
    #[inline(always)]
    pub fn deal(&mut self, card: Card) {
        let id = card.id() as usize;
        let hit = (self.playable >> id) & 1;
        let mut len = self.len as usize;
        // Write above the pile unconditionally; it joins the pile only on a miss.
        self.discard[len + 1] = id as u8;
        len += (1 - hit) as usize;
        promote(id, hit, &mut self.playable, &mut self.packed);
        // Play up the top discard while playable. After a miss the top is the
        // card just discarded, unplayable, so this branch is rarely taken.
        while (self.playable >> self.discard[len]) & 1 != 0 {
            promote(self.discard[len] as usize, 1, &mut self.playable, &mut self.packed);
            len -= 1;
        }
        self.len = len as u8;
    }

    /// Cards on `suit`'s stack.
    #[inline]
    pub fn count(&self, suit: Suit) -> u8 {
        (self.packed >> (8 * suit.index())) as u8
    }

    /// Cards per stack, indexed by `Suit::index()`.
    pub fn counts(&self) -> [u8; Suit::COUNT] {
        std::array::from_fn(|suit| (self.packed >> (8 * suit)) as u8)
    }

    /// The cards that would be promoted if dealt now, one bit per card id.
    /// A suit without a foundation has all ten bits; any other suit the bit of
    /// the card that follows its top (for a full stack, its own foundation,
    /// already on the stack).
    #[inline]
    pub fn playable_mask(&self) -> u64 {
        self.playable
    }

    /// The discard pile's card ids, bottom (discarded first) to top.
    #[inline]
    pub fn discard_ids(&self) -> &[u8] {
        &self.discard[1..=self.len as usize]
    }
}

// Promotes `id` when `hit` is 1; changes nothing when 0. A full stack's
// successor is its own foundation, already on the stack, so it never
// plays again (in a permutation) without a special case.
#[inline(always)]
fn promote(id: usize, hit: u64, playable: &mut u64, packed: &mut u64) {
    *packed += hit << TABLES.lane_shift[id];
    let promoted = (*playable & TABLES.keep_others[id]) | TABLES.successor_bit[id];
    *playable ^= (*playable ^ promoted) & 0u64.wrapping_sub(hit);
}
