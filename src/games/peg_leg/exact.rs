//! The exact distribution of the final key-suit count: a memoised search over
//! the orders of the undealt cards, on a reduced state.
//!
//! The state reduction (a test checks it against brute force over every
//! order of the undealt cards, through the general engine):
//!
//! - Of the five stacks only two things matter: which card each suit would
//!   take next (the cursor's playable mask: it also tells which suits have no
//!   foundation yet) and the key suit's count. Other suits' counts never
//!   change a move.
//! - Of the discard pile only the part above its frozen floor matters
//!   (`frozen_len`): the cards at and below the highest card whose
//!   predecessor lies deeper in the pile never move again, so they take part
//!   in no later move.
//! - Once the key suit's count is settled (`settled`: full, or the card it
//!   needs next is frozen in the pile) every order of the rest gives the same
//!   count, and the search stops there.
//!
//! Counts are numbers of orders of the undealt cards (r! in all for r
//! undealt cards), exact integers; a probability is such a count over r!.

use super::engine::{frozen_len, settled, MAX_COUNT};
use crate::cards::{Card, Suit};
use crate::games::prima_carta::FirstPassCursor;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// Orders counted per final count 0..=10.
pub type OrderCounts = [u128; MAX_COUNT as usize + 1];

/// The largest number of undealt cards whose orders (r!) fit in a `u128` with
/// room for the pricing's products: 30! ≈ 2.65e32.
pub const MAX_EXACT_UNDEALT: u32 = 30;

/// What decides the rest of the pass, for the key suit's count: fixed-size,
/// so a lookup allocates nothing.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
struct StateKey {
    undealt: u64,
    playable: u64,
    /// The key suit's count, and the live pile's length above it (bits 8..).
    head: u64,
    /// The discard pile above its frozen floor, bottom first, ten 6-bit card ids a word.
    live_pile: [u64; 5],
}

impl StateKey {
    fn of(cursor: &FirstPassCursor, key: Suit, undealt: u64) -> StateKey {
        let pile = cursor.discard_ids();
        let live = &pile[frozen_len(pile)..];
        let mut live_pile = [0u64; 5];
        for (i, &id) in live.iter().enumerate() {
            live_pile[i / 10] |= (id as u64) << (6 * (i % 10));
        }
        StateKey {
            undealt,
            playable: cursor.playable_mask(),
            head: cursor.count(key) as u64 | (live.len() as u64) << 8,
            live_pile,
        }
    }
}

/// A multiply-rotate hasher: the keys are a handful of words from the
/// engine, not attacker-chosen, and SipHash would dominate the search.
#[derive(Default)]
struct WordHasher(u64);

impl Hasher for WordHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.write_u64(u64::from_le_bytes(word));
        }
    }
    fn write_u64(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(0x51_7cc1_b727_220a_95);
    }
    fn write_u8(&mut self, byte: u8) {
        self.write_u64(byte as u64);
    }
    fn write_usize(&mut self, word: usize) {
        self.write_u64(word as u64);
    }
}

type Memo = HashMap<StateKey, OrderCounts, BuildHasherDefault<WordHasher>>;

/// The search's memo, kept from one card's quote to the next of the same pass: every
/// state a later card's search meets below the cards dealt since is a state the earlier
/// search may already have solved (its entries are exact whatever position they were
/// found from, for the key suit they were found for).
#[derive(Default)]
pub struct ExactMemo {
    key: Option<Suit>,
    memo: Memo,
}

impl ExactMemo {
    pub fn new() -> ExactMemo {
        ExactMemo::default()
    }

    /// States stored.
    pub fn len(&self) -> usize {
        self.memo.len()
    }

    pub fn is_empty(&self) -> bool {
        self.memo.is_empty()
    }

    /// Drops every state (the memory goes back).
    pub fn clear(&mut self) {
        self.memo = Memo::default();
        self.key = None;
    }

    fn for_key(&mut self, key: Suit) -> &mut Memo {
        if self.key != Some(key) {
            self.memo.clear();
            self.key = Some(key);
        }
        &mut self.memo
    }
}

/// The result of an exact search.
#[derive(Clone, Debug)]
pub struct ExactSearch {
    /// Orders of the undealt cards per final count (`None`: the search
    /// needed more than its budget of states and was abandoned).
    pub counts: Option<OrderCounts>,
    /// What the counts add up to: r! for r undealt cards, or 1 when the
    /// count is already settled (a point mass, whatever r is).
    pub total: u128,
    /// Distinct states the search stored.
    pub states: usize,
}

/// The orders of the undealt cards (the bits of `undealt`) per final count
/// of `key`, from `cursor`, storing at most `budget` states.
pub fn exact_order_counts(cursor: &FirstPassCursor, key: Suit, undealt: u64, budget: usize) -> ExactSearch {
    exact_order_counts_in(&mut ExactMemo::new(), cursor, key, undealt, budget)
}

/// As `exact_order_counts`, reusing and growing `memo` (at most `budget` states stored
/// in it in all). The counts are the same whatever the memo held; `states` is the memo's
/// size afterwards.
pub fn exact_order_counts_in(
    memo: &mut ExactMemo,
    cursor: &FirstPassCursor,
    key: Suit,
    undealt: u64,
    budget: usize,
) -> ExactSearch {
    let r = undealt.count_ones();
    if settled(cursor, key, undealt) {
        let mut counts = [0u128; MAX_COUNT as usize + 1];
        counts[cursor.count(key) as usize] = 1;
        return ExactSearch {
            counts: Some(counts),
            total: 1,
            states: 0,
        };
    }
    if r > MAX_EXACT_UNDEALT {
        return ExactSearch {
            counts: None,
            total: 0,
            states: 0,
        };
    }
    let memo = memo.for_key(key);
    // States with a card undealt that is dealt now never come up again.
    memo.retain(|state, _| state.undealt & !undealt == 0);
    let counts = search(cursor, key, undealt, budget, memo);
    ExactSearch {
        counts,
        total: factorial(r),
        states: memo.len(),
    }
}

fn factorial(n: u32) -> u128 {
    (1..=n as u128).product()
}

fn search(cursor: &FirstPassCursor, key: Suit, undealt: u64, budget: usize, memo: &mut Memo) -> Option<OrderCounts> {
    let count = cursor.count(key);
    if settled(cursor, key, undealt) {
        let mut out = [0u128; MAX_COUNT as usize + 1];
        out[count as usize] = factorial(undealt.count_ones());
        return Some(out);
    }
    let state = StateKey::of(cursor, key, undealt);
    if let Some(known) = memo.get(&state) {
        return Some(*known);
    }
    if memo.len() >= budget {
        return None;
    }
    let mut out = [0u128; MAX_COUNT as usize + 1];
    let mut rest = undealt;
    while rest != 0 {
        let id = rest.trailing_zeros() as u8;
        rest &= rest - 1;
        let mut next = *cursor;
        next.deal(Card::from_id(id).expect("a bit of the deck mask"));
        let sub = search(&next, key, undealt & !(1u64 << id), budget, memo)?;
        for (o, s) in out.iter_mut().zip(sub) {
            *o += s;
        }
    }
    memo.insert(state, out);
    Some(out)
}
