//! The cards on the table during a deal: five stacks, the discard pile and
//! the deck still to deal, with the play-up rules of docs/prima-carta.md.

use super::event::{Destination, Event};
use super::seats::same_cards;
use super::EngineError;
use crate::cards::{Card, Rank, Suit};
use serde::{Deserialize, Serialize};

/// One suit's stack as the table shows it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StackState {
    pub suit: Suit,
    pub foundation: Option<Card>,
    pub top: Option<Card>,
    pub count: u8,
}

/// The public table: only dealt cards and counts, nothing about undealt cards
/// beyond how many remain.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TableState {
    /// Indexed by `Suit::index()`.
    pub stacks: [StackState; Suit::COUNT],
    pub discard_count: u8,
    pub discard_top: Option<Card>,
    /// Cards still to be dealt in the current pass.
    pub deck_remaining: u8,
    /// The pass being dealt (or last dealt); 1 is the first pass.
    pub pass: u8,
    pub prima: Option<Suit>,
    pub seated: Vec<Suit>,
    pub folded: Vec<Suit>,
}

/// Jasper's reshuffle: shuffles the cards in place, continuing the round's RNG stream.
pub(crate) type Reshuffle<'a> = &'a mut dyn FnMut(&mut [Card]);

/// How a pass stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum PassEnd {
    /// The deck ran out (and the final play-up was made).
    Exhausted,
    /// A suit completed and the caller asked to stop there.
    Stopped(Suit),
}

#[derive(Clone, Debug)]
pub(crate) struct Layout {
    stacks: [StackState; Suit::COUNT],
    /// Index 0 is the bottom: the card discarded first.
    discard: Vec<Card>,
    /// The current pass's deck, dealt from index `next`.
    deck: Vec<Card>,
    next: usize,
    pass: u8,
    promoted_this_pass: u8,
    prima: Option<Suit>,
    foundation_order: Vec<Suit>,
    completion_order: Vec<Suit>,
}

impl Layout {
    pub(crate) fn new(deck: &[Card]) -> Layout {
        Layout {
            stacks: Suit::ALL.map(|suit| StackState {
                suit,
                foundation: None,
                top: None,
                count: 0,
            }),
            discard: Vec::with_capacity(deck.len()),
            deck: deck.to_vec(),
            next: 0,
            pass: 0,
            promoted_this_pass: 0,
            prima: None,
            foundation_order: Vec::with_capacity(Suit::COUNT),
            completion_order: Vec::with_capacity(Suit::COUNT),
        }
    }

    pub(crate) fn stacks(&self) -> &[StackState; Suit::COUNT] {
        &self.stacks
    }
    pub(crate) fn count(&self, suit: Suit) -> u8 {
        self.stacks[suit.index()].count
    }
    pub(crate) fn counts(&self) -> [u8; Suit::COUNT] {
        self.stacks.map(|s| s.count)
    }
    pub(crate) fn discard(&self) -> &[Card] {
        &self.discard
    }
    pub(crate) fn undealt(&self) -> &[Card] {
        &self.deck[self.next..]
    }
    pub(crate) fn pass(&self) -> u8 {
        self.pass
    }
    pub(crate) fn prima(&self) -> Option<Suit> {
        self.prima
    }
    pub(crate) fn foundation_order(&self) -> &[Suit] {
        &self.foundation_order
    }
    pub(crate) fn completion_order(&self) -> &[Suit] {
        &self.completion_order
    }

    pub(crate) fn table_state(&self, seated: Vec<Suit>, folded: Vec<Suit>) -> TableState {
        TableState {
            stacks: self.stacks,
            discard_count: self.discard.len() as u8,
            discard_top: self.discard.last().copied(),
            deck_remaining: self.undealt().len() as u8,
            pass: self.pass,
            prima: self.prima,
            seated,
            folded,
        }
    }

    /// Starts the next pass. For the first pass the deck is the shuffled deck;
    /// afterwards the discard pile is turned over (the card discarded first is
    /// dealt first), optionally reshuffled first (Jasper).
    pub(crate) fn start_pass(
        &mut self,
        events: &mut Vec<Event>,
        reshuffle: Option<Reshuffle<'_>>,
    ) -> Result<(), EngineError> {
        if self.pass > 0 {
            debug_assert!(self.undealt().is_empty(), "a pass starts only when the deck ran out");
            let mut deck = std::mem::take(&mut self.discard);
            if let Some(reshuffle) = reshuffle {
                let before = deck.clone();
                reshuffle(&mut deck);
                if !same_cards(&before, &deck) {
                    return Err(EngineError::ReshuffleNotPermutation);
                }
                events.push(Event::Reshuffled {
                    before,
                    after: deck.clone(),
                });
            }
            self.deck = deck;
            self.next = 0;
        }
        self.pass += 1;
        self.promoted_this_pass = 0;
        events.push(Event::PassStarted {
            pass: self.pass,
            deck_count: self.deck.len() as u8,
        });
        Ok(())
    }

    /// Deals the rest of the current pass. Before each card, and after the last,
    /// the top of the discard pile is played up while playable. When a suit
    /// completes and `stop(suit)` is true the pass stops at once.
    pub(crate) fn run_pass(
        &mut self,
        events: &mut Vec<Event>,
        stop: &mut dyn FnMut(Suit) -> bool,
    ) -> Result<PassEnd, EngineError> {
        loop {
            if let Some(end) = self.play_up(events, stop) {
                return Ok(end);
            }
            if self.next >= self.deck.len() {
                break;
            }
            if let Some(end) = self.deal_next(events, stop) {
                return Ok(end);
            }
        }
        events.push(self.pass_ended());
        // Every pass over an unfinished layout promotes a card: the card after
        // any incomplete stack's top is somewhere in the deck and nothing else
        // can take its place.
        if self.promoted_this_pass == 0 && self.completion_order.len() < Suit::COUNT {
            return Err(EngineError::Internal {
                reason: format!("pass {} promoted nothing", self.pass),
            });
        }
        Ok(PassEnd::Exhausted)
    }

    /// Plays up the top of the discard pile while it is playable.
    fn play_up(&mut self, events: &mut Vec<Event>, stop: &mut dyn FnMut(Suit) -> bool) -> Option<PassEnd> {
        while let Some(&top) = self.discard.last() {
            if !self.playable(top) {
                break;
            }
            self.discard.pop();
            let stack_count = self.promote(top);
            events.push(Event::PlayedUp {
                pass: self.pass,
                card: top,
                stack_count,
            });
            if let Some(end) = self.after_promotion(top.suit(), events, stop) {
                return Some(end);
            }
        }
        None
    }

    /// Deals the deck's next card (there must be one) onto its stack or the discard pile.
    fn deal_next(&mut self, events: &mut Vec<Event>, stop: &mut dyn FnMut(Suit) -> bool) -> Option<PassEnd> {
        let card = self.deck[self.next];
        self.next += 1;
        let first_card = self.prima.is_none();
        if first_card {
            self.prima = Some(card.suit());
        }
        if self.playable(card) {
            let to = if self.stacks[card.suit().index()].count == 0 {
                Destination::Foundation
            } else {
                Destination::Stack
            };
            let stack_count = self.promote(card);
            events.push(Event::Dealt {
                pass: self.pass,
                card,
                to,
                stack_count,
            });
            if first_card {
                events.push(Event::Prima { suit: card.suit() });
            }
            self.after_promotion(card.suit(), events, stop)
        } else {
            self.discard.push(card);
            let stack_count = self.count(card.suit());
            events.push(Event::Dealt {
                pass: self.pass,
                card,
                to: Destination::Discard,
                stack_count,
            });
            None
        }
    }

    /// The first pass dealt one card at a time, the deck unknown in advance
    /// (Peg Leg, dealt from a layout made with an empty deck and started): deals
    /// `card` as the pass's next card, then makes the play-up that follows it,
    /// which is the play-up before the next card or, after the last, the pass's
    /// final one. The caller checks that the cards are distinct. Nothing stops
    /// at a completed suit (Cinco deals the pass to its end).
    pub(crate) fn deal_card(&mut self, card: Card, events: &mut Vec<Event>) {
        debug_assert_eq!(self.pass, 1, "cards are dealt one at a time in the first pass only");
        debug_assert_eq!(self.next, self.deck.len(), "the deck given so far is all dealt");
        self.deck.push(card);
        let mut never = |_| false;
        let _ = self.deal_next(events, &mut never);
        let _ = self.play_up(events, &mut never);
    }

    /// The event that closes the current pass.
    pub(crate) fn pass_ended(&self) -> Event {
        Event::PassEnded {
            pass: self.pass,
            promoted: self.promoted_this_pass,
            discard_count: self.discard.len() as u8,
        }
    }

    fn after_promotion(
        &mut self,
        suit: Suit,
        events: &mut Vec<Event>,
        stop: &mut dyn FnMut(Suit) -> bool,
    ) -> Option<PassEnd> {
        if self.count(suit) as usize == Rank::MAX as usize {
            self.completion_order.push(suit);
            events.push(Event::SuitCompleted { pass: self.pass, suit });
            if stop(suit) {
                return Some(PassEnd::Stopped(suit));
            }
        }
        None
    }

    /// A card plays onto its suit's stack when the suit has no stack yet, or
    /// when its rank follows the top's (1 follows 10). A full stack's top is
    /// followed by its own foundation's rank, already in the stack, so nothing
    /// plays onto it.
    fn playable(&self, card: Card) -> bool {
        let stack = &self.stacks[card.suit().index()];
        match stack.top {
            None => true,
            Some(top) => stack.count < Rank::MAX && top.rank().successor() == card.rank(),
        }
    }

    fn promote(&mut self, card: Card) -> u8 {
        let stack = &mut self.stacks[card.suit().index()];
        if stack.foundation.is_none() {
            stack.foundation = Some(card);
            self.foundation_order.push(card.suit());
        }
        stack.top = Some(card);
        stack.count += 1;
        self.promoted_this_pass += 1;
        debug_assert!(stack.count <= Rank::MAX);
        stack.count
    }

    /// Deals passes until `stop` accepts a completed suit, starting with a fresh
    /// pass after the current one. Bounded: every pass promotes a card.
    pub(crate) fn run_repassos(
        &mut self,
        events: &mut Vec<Event>,
        mut reshuffle_first: Option<Reshuffle<'_>>,
        stop: &mut dyn FnMut(Suit) -> bool,
    ) -> Result<Suit, EngineError> {
        for _ in 0..=Card::DECK_SIZE {
            self.start_pass(events, reshuffle_first.take())?;
            if let PassEnd::Stopped(suit) = self.run_pass(events, stop)? {
                return Ok(suit);
            }
        }
        Err(EngineError::Internal {
            reason: "no suit completed after 50 repassos".into(),
        })
    }
}
