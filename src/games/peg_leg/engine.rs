//! Peg Leg's pass: Cinco's single first pass dealt one card at a time, through
//! the Prima Carta engine itself. The general layout (`Layout::deal_card`)
//! gives the events; the allocation-free cursor (`FirstPassCursor`) carries
//! the same state in the compact form the pricing resumes from. Both are the
//! Prima Carta first pass; a test checks that they agree card by card.

use crate::cards::{Card, Rank, Suit};
use crate::games::prima_carta::{Event, FirstPassCursor, Layout};
use serde::{Deserialize, Serialize};

/// The most cards the key suit's stack can hold.
pub const MAX_COUNT: u8 = Rank::MAX;

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PegLegError {
    #[error("{card} was already dealt in this pass")]
    AlreadyDealt { card: Card },
    #[error("the pass is over: all fifty cards are dealt")]
    PassOver,
}

/// What one dealt card did.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CardStep {
    /// 0 for the first card (the one that sets the key suit).
    pub index: u8,
    pub card: Card,
    pub key_suit: Suit,
    /// The card's moves, then the play-up that followed it, as the Prima Carta
    /// engine reports them (the first card's `Prima` event names the key suit;
    /// the fiftieth card's list ends with `PassEnded`).
    pub events: Vec<Event>,
    /// Key-suit cards promoted by this card and its play-up.
    pub key_promoted: u8,
    /// The key suit's stack after this card and its play-up.
    pub key_count: u8,
    /// The final count, once no later card can change it (the stack is full,
    /// the card it needs next is buried for good in the discard pile, or the
    /// pass is over).
    pub settled: Option<u8>,
}

/// A Peg Leg pass in progress.
#[derive(Clone, Debug)]
pub struct PegLegPass {
    layout: Layout,
    cursor: FirstPassCursor,
    dealt: Vec<Card>,
    /// Bit `id` set: the card is dealt.
    dealt_mask: u64,
    events: Vec<Event>,
}

impl Default for PegLegPass {
    fn default() -> Self {
        PegLegPass::new()
    }
}

impl PegLegPass {
    /// Before the first card.
    pub fn new() -> PegLegPass {
        let mut layout = Layout::new(&[]);
        let mut events = Vec::with_capacity(2 * Card::DECK_SIZE + 2);
        layout
            .start_pass(&mut events, None)
            .expect("the first pass starts without a reshuffle");
        // The layout announced a pass of the deck it was given (none yet);
        // a Peg Leg pass deals the whole deck.
        events.clear();
        events.push(Event::PassStarted {
            pass: 1,
            deck_count: Card::DECK_SIZE as u8,
        });
        PegLegPass {
            layout,
            cursor: FirstPassCursor::new(),
            dealt: Vec::with_capacity(Card::DECK_SIZE),
            dealt_mask: 0,
            events,
        }
    }

    /// The pass after `cards` (a replay, or a position to price).
    pub fn from_dealt(cards: &[Card]) -> Result<PegLegPass, PegLegError> {
        let mut pass = PegLegPass::new();
        for &card in cards {
            pass.deal(card)?;
        }
        Ok(pass)
    }

    /// Deals the pass's next card and its play-up.
    pub fn deal(&mut self, card: Card) -> Result<CardStep, PegLegError> {
        if self.dealt.len() == Card::DECK_SIZE {
            return Err(PegLegError::PassOver);
        }
        let bit = 1u64 << card.id();
        if self.dealt_mask & bit != 0 {
            return Err(PegLegError::AlreadyDealt { card });
        }
        let before = self.key_count();
        let from = self.events.len();
        self.layout.deal_card(card, &mut self.events);
        self.cursor.deal(card);
        self.dealt.push(card);
        self.dealt_mask |= bit;
        if self.dealt.len() == Card::DECK_SIZE {
            self.events.push(self.layout.pass_ended());
        }
        let key_suit = self.dealt[0].suit();
        let key_count = self.key_count();
        debug_assert_eq!(
            self.layout.counts(),
            self.cursor.counts(),
            "the two first-pass forms agree"
        );
        Ok(CardStep {
            index: (self.dealt.len() - 1) as u8,
            card,
            key_suit,
            events: self.events[from..].to_vec(),
            key_promoted: key_count - before,
            key_count,
            settled: self.settled_count(),
        })
    }

    /// The key suit: the first card's suit.
    pub fn key_suit(&self) -> Option<Suit> {
        self.dealt.first().map(|c| c.suit())
    }

    /// The key suit's stack now (0 before the first card).
    pub fn key_count(&self) -> u8 {
        self.key_suit().map_or(0, |s| self.cursor.count(s))
    }

    /// The cards dealt so far, in order.
    pub fn dealt(&self) -> &[Card] {
        &self.dealt
    }

    /// Bit `id` set: the card is dealt.
    pub fn dealt_mask(&self) -> u64 {
        self.dealt_mask
    }

    /// The cards not yet dealt, in id order.
    pub fn undealt(&self) -> Vec<Card> {
        (0..Card::DECK_SIZE as u8)
            .filter(|&id| self.dealt_mask & (1u64 << id) == 0)
            .filter_map(Card::from_id)
            .collect()
    }

    /// Every event so far, from `PassStarted`.
    pub fn events(&self) -> &[Event] {
        &self.events
    }

    /// All fifty cards are dealt.
    pub fn is_over(&self) -> bool {
        self.dealt.len() == Card::DECK_SIZE
    }

    /// The final key-suit count, once the pass is over.
    pub fn final_count(&self) -> Option<u8> {
        self.is_over().then(|| self.key_count())
    }

    /// The final key-suit count as soon as no undealt card can change it.
    pub fn settled_count(&self) -> Option<u8> {
        let key = self.key_suit()?;
        settled(&self.cursor, key, !self.dealt_mask & DECK_MASK).then(|| self.key_count())
    }

    /// The compact first-pass state (for the pricing).
    pub fn cursor(&self) -> &FirstPassCursor {
        &self.cursor
    }
}

/// The fifty card ids' bits.
pub(crate) const DECK_MASK: u64 = (1u64 << Card::DECK_SIZE) - 1;

/// The key suit's next card: the one that follows its stack's top (the suit
/// has a foundation).
#[inline]
pub(crate) fn key_next(cursor: &FirstPassCursor, key: Suit) -> u8 {
    let lane = cursor.playable_mask() >> (10 * key.index()) & 0x3ff;
    debug_assert_eq!(lane.count_ones(), 1, "a founded suit has one card it waits for");
    (10 * key.index()) as u8 + lane.trailing_zeros() as u8
}

/// How many cards at the bottom of the discard pile (bottom first) can never
/// move again: everything up to and including the highest card whose
/// predecessor (the card of its suit one rank below; 10 below 1) lies deeper
/// in the pile. Such a card can only be played once its predecessor is on the
/// stack, and the predecessor can only come up after the card above it has
/// gone, so neither moves, nor anything beneath them.
#[inline]
pub(crate) fn frozen_len(pile: &[u8]) -> usize {
    let mut below: u64 = 0;
    let mut frozen = 0;
    for (i, &id) in pile.iter().enumerate() {
        if below & (1u64 << predecessor(id)) != 0 {
            frozen = i + 1;
        }
        below |= 1u64 << id;
    }
    frozen
}

/// The card one rank below `id` in its suit (10 below 1).
#[inline]
pub(crate) fn predecessor(id: u8) -> u8 {
    let suit = id / 10;
    let rank0 = id % 10;
    suit * 10 + if rank0 == 0 { 9 } else { rank0 - 1 }
}

/// True when the key suit's count can no longer change, whatever the
/// undealt cards' order: its stack is full, or the card it needs next is
/// neither undealt nor free to come up from the discard pile.
pub(crate) fn settled(cursor: &FirstPassCursor, key: Suit, undealt: u64) -> bool {
    if cursor.count(key) >= MAX_COUNT || undealt == 0 {
        return true;
    }
    let next = key_next(cursor, key);
    if undealt & (1u64 << next) != 0 {
        return false;
    }
    let pile = cursor.discard_ids();
    match pile.iter().position(|&id| id == next) {
        Some(at) => at < frozen_len(pile),
        // Not undealt, not in the pile, not on a stack that is not full: no such card.
        None => true,
    }
}

/// The largest final count still possible: the key suit's cards from the one
/// it needs next onwards, up to the first that is frozen in the discard pile.
pub(crate) fn reachable_max(cursor: &FirstPassCursor, key: Suit, undealt: u64) -> u8 {
    let mut count = cursor.count(key);
    if count == 0 {
        // No foundation yet (no card dealt): anything goes.
        return MAX_COUNT;
    }
    let pile = cursor.discard_ids();
    let frozen = frozen_len(pile);
    let mut next = key_next(cursor, key);
    while count < MAX_COUNT {
        let free = undealt & (1u64 << next) != 0 || pile[frozen..].contains(&next);
        if !free {
            break;
        }
        count += 1;
        next = successor(next);
    }
    count
}

/// The smallest final count still possible as far as the next card goes: one more than now
/// while the card the key suit needs next is undealt, since it plays the moment it is dealt.
pub(crate) fn reachable_min(cursor: &FirstPassCursor, key: Suit, undealt: u64) -> u8 {
    let count = cursor.count(key);
    if count == 0 || count >= MAX_COUNT {
        return count;
    }
    count + u8::from(undealt & (1u64 << key_next(cursor, key)) != 0)
}

/// The card one rank above `id` in its suit (1 above 10).
#[inline]
pub(crate) fn successor(id: u8) -> u8 {
    let suit = id / 10;
    let rank0 = id % 10;
    suit * 10 + if rank0 == 9 { 0 } else { rank0 + 1 }
}
