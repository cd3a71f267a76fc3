//! A player's decision, identified by the card ids the client sends.

use crate::cards::Card;
use serde::{Deserialize, Serialize};

/// The five kinds of decision in Lobo (docs/lobo.md).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PlayKind {
    /// One player card takes one Wolf card of the same rank; the cub goes to the player.
    Perfect,
    /// Two or more player cards take one Wolf card equal to their sum; the cub goes to the player.
    Sum,
    /// One player card takes two or more Wolf cards summing to it; the cub goes to the Wolf.
    Split,
    /// One player card takes one smaller Wolf card; the Wolf is dealt `difference` cards, cub first.
    Over,
    /// The player stops and pays the Wolf's hand.
    Fold,
}

/// A play: its kind, the player's cards it uses and the Wolf's cards it takes.
/// `Fold` uses no cards. Card lists are kept sorted by id (see [`Play::new`]).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Play {
    pub kind: PlayKind,
    pub player_cards: Vec<Card>,
    pub wolf_cards: Vec<Card>,
}

impl PlayKind {
    pub const ALL: [PlayKind; 5] = [
        PlayKind::Perfect,
        PlayKind::Sum,
        PlayKind::Split,
        PlayKind::Over,
        PlayKind::Fold,
    ];
}

impl Play {
    /// A play with its card lists sorted by id (the canonical form `legal_plays` lists).
    pub fn new(kind: PlayKind, mut player_cards: Vec<Card>, mut wolf_cards: Vec<Card>) -> Play {
        player_cards.sort();
        wolf_cards.sort();
        Play {
            kind,
            player_cards,
            wolf_cards,
        }
    }

    pub fn fold() -> Play {
        Play {
            kind: PlayKind::Fold,
            player_cards: Vec::new(),
            wolf_cards: Vec::new(),
        }
    }

    /// The same play with its card lists sorted, so plays compare by content.
    pub fn canonical(&self) -> Play {
        Play::new(self.kind, self.player_cards.clone(), self.wolf_cards.clone())
    }
}

pub(crate) fn rank_sum(cards: &[Card]) -> u32 {
    cards.iter().map(|c| c.rank().value() as u32).sum()
}

/// The kind a set of cards makes, if any: the rules admit at most one kind per
/// (player cards, Wolf cards) pair, so a client's stated kind can be checked against it.
pub(crate) fn kind_of(player: &[Card], wolf: &[Card]) -> Option<PlayKind> {
    match (player.len(), wolf.len()) {
        (0, 0) => Some(PlayKind::Fold),
        (1, 1) => {
            let (p, w) = (player[0].rank(), wolf[0].rank());
            if p == w {
                Some(PlayKind::Perfect)
            } else if p > w {
                Some(PlayKind::Over)
            } else {
                None
            }
        }
        (n, 1) if n >= 2 => (rank_sum(player) == rank_sum(wolf)).then_some(PlayKind::Sum),
        (1, n) if n >= 2 => (rank_sum(player) == rank_sum(wolf)).then_some(PlayKind::Split),
        _ => None,
    }
}
