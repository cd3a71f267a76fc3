//! The facts of a Prima Carta deal that the house side bets are settled on
//! (docs/prima-carta.md). The engine produces them; `bets` consumes them.

use crate::cards::{Card, Suit};
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DealFacts {
    /// The first card dealt; its suit is the Prima.
    pub first_card: Card,
    /// Each suit's foundation card, indexed by `Suit::index()`. In a full first
    /// pass every suit is dealt, so every suit has a foundation.
    #[serde(with = "crate::cards::per_suit")]
    pub foundations: [Card; 5],
    /// Suits in the order their foundations appeared.
    pub foundation_order: [Suit; 5],
    /// Cards in each suit's stack at the end of the first pass (foundation included),
    /// indexed by `Suit::index()`.
    #[serde(with = "crate::cards::per_suit")]
    pub first_pass_counts: [u8; 5],
    /// N: cards in all five stacks at the end of the first pass (10..=50).
    pub first_pass_count: u8,
    /// The first suit to complete all ten cards in the full deal-out, owned or
    /// not, folded or not.
    pub first_to_complete: Suit,
}
