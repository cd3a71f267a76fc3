//! Why a deck or a play was refused.

use crate::cards::Card;
use serde::Serialize;
use std::fmt;

/// A play that the rules do not allow in the current state; the message says why.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "reason", rename_all = "snake_case")]
pub enum IllegalPlay {
    RoundOver,
    DuplicateCard {
        card: Card,
    },
    NotInPlayerHand {
        card: Card,
    },
    NotInWolfHand {
        card: Card,
    },
    /// The cards form no capture at all (for example a smaller card over a larger one).
    NoSuchCapture {
        player_sum: u32,
        wolf_sum: u32,
    },
    /// The cards form a capture, but of another kind than the one stated.
    WrongKind {
        stated: super::PlayKind,
        actual: super::PlayKind,
    },
    /// A play at index `index` of a replayed list was refused.
    AtIndex {
        index: usize,
        inner: Box<IllegalPlay>,
    },
    BadDeck(BadDeck),
}

impl fmt::Display for IllegalPlay {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            IllegalPlay::RoundOver => write!(f, "the round is over; no more plays are accepted"),
            IllegalPlay::DuplicateCard { card } => write!(f, "card {} ({card}) is listed twice", card.id()),
            IllegalPlay::NotInPlayerHand { card } => {
                write!(f, "card {} ({card}) is not in the player's hand", card.id())
            }
            IllegalPlay::NotInWolfHand { card } => {
                write!(f, "card {} ({card}) is not in the Wolf's hand", card.id())
            }
            IllegalPlay::NoSuchCapture { player_sum, wolf_sum } => write!(
                f,
                "no capture: the player's cards (sum {player_sum}) and the Wolf's cards (sum {wolf_sum}) \
                 form no Perfect (one equal card), Sum (two or more cards adding to one Wolf card), \
                 Split (one card equal to two or more Wolf cards) or Over (one larger card over one smaller)"
            ),
            IllegalPlay::WrongKind { stated, actual } => {
                write!(f, "these cards make a {actual:?} play, not a {stated:?}")
            }
            IllegalPlay::AtIndex { index, inner } => write!(f, "play {index}: {inner}"),
            IllegalPlay::BadDeck(bad) => write!(f, "{bad}"),
        }
    }
}

impl std::error::Error for IllegalPlay {}

/// A deck that is not a permutation of the mode's cards.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "reason", rename_all = "snake_case")]
pub enum BadDeck {
    WrongLength {
        expected: usize,
        found: usize,
    },
    CardNotInMode {
        card: Card,
    },
    DuplicateCard {
        card: Card,
    },
    /// A later round of three-round play needs two full hands from what is left.
    TooFewCards {
        needed: usize,
        found: usize,
    },
}

impl fmt::Display for BadDeck {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BadDeck::WrongLength { expected, found } => {
                write!(f, "the deck has {found} cards; this mode deals {expected}")
            }
            BadDeck::CardNotInMode { card } => write!(f, "card {} ({card}) is not in this mode's deck", card.id()),
            BadDeck::DuplicateCard { card } => write!(f, "card {} ({card}) appears twice in the deck", card.id()),
            BadDeck::TooFewCards { needed, found } => {
                write!(f, "{found} cards are left; a round needs {needed} to deal both hands")
            }
        }
    }
}

impl std::error::Error for BadDeck {}
