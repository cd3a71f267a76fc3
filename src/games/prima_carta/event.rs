//! The ordered event list of a round: enough for a viewer to replay the deal
//! card by card and for an auditor to check every move.

use super::round::{CobreOutcome, WinKind};
use crate::cards::{Card, Suit};
use serde::{Deserialize, Serialize};

/// Where a card dealt from the deck went.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Destination {
    /// The first card of its suit: it starts the suit's stack.
    Foundation,
    /// It followed the stack's top rank.
    Stack,
    /// Not playable: onto the top of the discard pile.
    Discard,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Event {
    /// A pass begins; `deck_count` cards will be dealt (pass 1 is the first pass).
    PassStarted { pass: u8, deck_count: u8 },
    /// Jasper: the discard pile, in the order it would have been dealt (`before`),
    /// was shuffled into `after` (dealt from index 0) before the repasso.
    Reshuffled { before: Vec<Card>, after: Vec<Card> },
    /// A card was dealt from the deck. `stack_count` is its suit's stack size afterwards.
    Dealt {
        pass: u8,
        card: Card,
        to: Destination,
        stack_count: u8,
    },
    /// The first card of the round set the Prima.
    Prima { suit: Suit },
    /// The top of the discard pile was played up onto its suit's stack.
    PlayedUp { pass: u8, card: Card, stack_count: u8 },
    /// A suit's stack holds all ten cards.
    SuitCompleted { pass: u8, suit: Suit },
    /// The deck ran out; `promoted` cards reached the stacks during this pass.
    PassEnded { pass: u8, promoted: u8, discard_count: u8 },
    /// Corte: the owner of the Prima suit tips the dealer.
    Corte { suit: Suit, units: u32 },
    /// A seated player paid the copa.
    CopaPaid { suit: Suit, units: u32 },
    /// A seated player folded at the copa.
    Folded { suit: Suit },
    /// The round is won.
    Won { suit: Suit, how: WinKind },
    /// Folded suits' spigas left the pot.
    Cobre(CobreOutcome),
}

impl Event {
    /// The event as live watchers may see it before the round is settled:
    /// a Jasper reshuffle's `after` is the undealt deck order, so it is left
    /// empty (docs/prima-carta.md). The full event goes
    /// into the round recall after settlement.
    pub fn live_view(&self) -> Event {
        match self {
            Event::Reshuffled { before, .. } => Event::Reshuffled {
                before: before.clone(),
                after: Vec::new(),
            },
            other => other.clone(),
        }
    }
}
