//! The first pass on its own, dealt to the end of the deck whatever completes
//! (no seats, no early end): what the table shows before the copa.

use super::event::Event;
use super::layout::{Layout, StackState};
use super::seats::parse_deck;
use super::EngineError;
use crate::cards::{Card, Suit};
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FirstPass {
    pub events: Vec<Event>,
    pub prima: Suit,
    pub first_card: Card,
    /// Indexed by `Suit::index()`.
    pub stacks: [StackState; Suit::COUNT],
    /// Cards per stack, indexed by `Suit::index()`.
    pub counts: [u8; Suit::COUNT],
    /// N: cards in all five stacks (10..=50).
    pub count: u8,
    /// Suits in the order their foundations were dealt.
    pub foundation_order: [Suit; Suit::COUNT],
    /// Suits that completed during the pass, in order.
    pub completed: Vec<Suit>,
    /// The discard pile, bottom (discarded first, dealt first in the repasso) to top.
    pub discard: Vec<Card>,
}

pub fn first_pass(deck: &[Card]) -> Result<FirstPass, EngineError> {
    let deck = parse_deck(deck)?;
    let (layout, events) = deal_first_pass(&deck)?;
    let counts = layout.counts();
    let mut foundation_order = Suit::ALL;
    foundation_order.copy_from_slice(layout.foundation_order());
    Ok(FirstPass {
        events,
        prima: deck[0].suit(),
        first_card: deck[0],
        stacks: *layout.stacks(),
        counts,
        count: counts.iter().sum(),
        foundation_order,
        completed: layout.completion_order().to_vec(),
        discard: layout.discard().to_vec(),
    })
}

/// Deals a parsed deck's whole first pass.
pub(crate) fn deal_first_pass(deck: &[Card; Card::DECK_SIZE]) -> Result<(Layout, Vec<Event>), EngineError> {
    let mut layout = Layout::new(deck);
    let mut events = Vec::with_capacity(2 * Card::DECK_SIZE);
    layout.start_pass(&mut events, None)?;
    layout.run_pass(&mut events, &mut |_| false)?;
    // Every suit's first card is a foundation, so all five stacks exist.
    if layout.foundation_order().len() != Suit::COUNT {
        return Err(EngineError::Internal {
            reason: "a suit has no foundation after the first pass".into(),
        });
    }
    Ok((layout, events))
}
