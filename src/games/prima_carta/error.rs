//! Everything the engine refuses. Bad input is an error, never a panic.

use crate::cards::Suit;
use serde::{Deserialize, Serialize};
use std::fmt;

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "code", rename_all = "snake_case")]
pub enum EngineError {
    /// The deck is not a permutation of the fifty Postas cards.
    InvalidDeck { reason: String },
    /// A table seats 2 to 5 centrales.
    SeatCount { seated: usize },
    /// A suit was seated twice.
    DuplicateSeat { suit: Suit },
    /// A copa decision arrived when no copa decision is pending
    /// (Cinco, an early end, after the copa, or after the round finished).
    NoCopaPending { suit: Suit },
    /// A copa decision from a suit whose turn it is not.
    NotYourTurn { expected: Suit, got: Suit },
    /// The reshuffle callback did not return a permutation of the cards it was given.
    ReshuffleNotPermutation,
    /// An invariant of the engine broke (a pass promoted nothing). Never expected.
    Internal { reason: String },
}

impl fmt::Display for EngineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EngineError::InvalidDeck { reason } => write!(f, "invalid deck: {reason}"),
            EngineError::SeatCount { seated } => {
                write!(f, "a table seats 2 to 5 centrales, not {seated}")
            }
            EngineError::DuplicateSeat { suit } => write!(f, "{suit} is seated twice"),
            EngineError::NoCopaPending { suit } => {
                write!(f, "no copa decision is pending (got one from {suit})")
            }
            EngineError::NotYourTurn { expected, got } => {
                write!(f, "it is {expected}'s copa turn, not {got}'s")
            }
            EngineError::ReshuffleNotPermutation => {
                f.write_str("the reshuffle did not return a permutation of the discards")
            }
            EngineError::Internal { reason } => write!(f, "engine invariant broken: {reason}"),
        }
    }
}

impl std::error::Error for EngineError {}
