//! The Postas deck: five suits of ranks 1..=10 (the Emperor is never used).
//!
//! A card's id is `suit * 10 + (rank - 1)` (docs/shuffle.md), so ids run 0..=49
//! and sort in the unshuffled deck's order. Types here cannot hold an invalid
//! value: a `Card` is always one of the fifty.

use serde::{Deserialize, Serialize};
use std::fmt;

/// The five Postas suits, in id order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Suit {
    Crowns = 0,
    Locks = 1,
    Fruit = 2,
    Swords = 3,
    Cups = 4,
}

impl Suit {
    pub const COUNT: usize = 5;
    pub const ALL: [Suit; 5] = [Suit::Crowns, Suit::Locks, Suit::Fruit, Suit::Swords, Suit::Cups];

    pub const fn index(self) -> usize {
        self as usize
    }

    pub fn from_index(index: usize) -> Option<Suit> {
        Suit::ALL.get(index).copied()
    }

    /// The next suit in copa turn order: Crowns → Locks → Fruit → Swords → Cups → Crowns.
    pub const fn next(self) -> Suit {
        Suit::ALL[(self as usize + 1) % Suit::COUNT]
    }

    pub const fn name(self) -> &'static str {
        match self {
            Suit::Crowns => "crowns",
            Suit::Locks => "locks",
            Suit::Fruit => "fruit",
            Suit::Swords => "swords",
            Suit::Cups => "cups",
        }
    }

    pub fn parse(name: &str) -> Option<Suit> {
        Suit::ALL.into_iter().find(|s| s.name() == name)
    }
}

impl fmt::Display for Suit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A rank 1..=10 (1 is the Ace).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(try_from = "u8", into = "u8")]
pub struct Rank(u8);

impl Rank {
    pub const MIN: u8 = 1;
    pub const MAX: u8 = 10;
    pub const ACE: Rank = Rank(1);

    pub const fn new(value: u8) -> Option<Rank> {
        if value >= Rank::MIN && value <= Rank::MAX {
            Some(Rank(value))
        } else {
            None
        }
    }

    pub const fn value(self) -> u8 {
        self.0
    }

    /// The rank that follows this one on a Prima Carta stack: the 1 follows the 10.
    pub const fn successor(self) -> Rank {
        if self.0 == Rank::MAX {
            Rank(1)
        } else {
            Rank(self.0 + 1)
        }
    }
}

impl TryFrom<u8> for Rank {
    type Error = String;
    fn try_from(value: u8) -> Result<Self, Self::Error> {
        Rank::new(value).ok_or_else(|| format!("rank {value} is not in 1..=10"))
    }
}

impl From<Rank> for u8 {
    fn from(rank: Rank) -> u8 {
        rank.0
    }
}

/// One of the fifty cards, stored as its id 0..=49.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(try_from = "u8", into = "u8")]
pub struct Card(u8);

impl Card {
    pub const DECK_SIZE: usize = 50;

    pub const fn new(suit: Suit, rank: Rank) -> Card {
        Card(suit as u8 * 10 + (rank.0 - 1))
    }

    pub const fn from_id(id: u8) -> Option<Card> {
        if (id as usize) < Card::DECK_SIZE {
            Some(Card(id))
        } else {
            None
        }
    }

    pub const fn id(self) -> u8 {
        self.0
    }

    pub const fn suit(self) -> Suit {
        Suit::ALL[(self.0 / 10) as usize]
    }

    pub const fn rank(self) -> Rank {
        Rank(self.0 % 10 + 1)
    }
}

impl TryFrom<u8> for Card {
    type Error = String;
    fn try_from(id: u8) -> Result<Self, Self::Error> {
        Card::from_id(id).ok_or_else(|| format!("card id {id} is not in 0..=49"))
    }
}

impl From<Card> for u8 {
    fn from(card: Card) -> u8 {
        card.0
    }
}

impl fmt::Debug for Card {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.rank().value(), &self.suit().name()[..2])
    }
}

impl fmt::Display for Card {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} of {}", self.rank().value(), self.suit())
    }
}

/// The unshuffled deck of the given ranks (all of 1..=max_rank), ids ascending.
/// Prima Carta and Lobo's hard mode use `max_rank = 10`; Lobo's ordinary mode 9, easy 8.
pub fn ordered_deck(max_rank: u8) -> Vec<Card> {
    (0..Card::DECK_SIZE as u8)
        .map(Card)
        .filter(|c| c.rank().value() <= max_rank)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_follow_the_spec_formula() {
        assert_eq!(Card::new(Suit::Crowns, Rank::ACE).id(), 0);
        assert_eq!(Card::new(Suit::Locks, Rank::new(3).unwrap()).id(), 12);
        assert_eq!(Card::new(Suit::Cups, Rank::new(10).unwrap()).id(), 49);
        for id in 0..50u8 {
            let c = Card::from_id(id).unwrap();
            assert_eq!(Card::new(c.suit(), c.rank()), c);
        }
        assert!(Card::from_id(50).is_none());
    }

    #[test]
    fn easier_decks_omit_ranks() {
        assert_eq!(ordered_deck(10).len(), 50);
        assert_eq!(ordered_deck(9).len(), 45);
        assert_eq!(ordered_deck(8).len(), 40);
        assert!(ordered_deck(8).windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn ten_is_followed_by_one() {
        assert_eq!(Rank::new(10).unwrap().successor(), Rank::ACE);
        assert_eq!(Rank::new(4).unwrap().successor().value(), 5);
    }
}
