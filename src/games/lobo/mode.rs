//! Lobo's three difficulty modes: which ranks the deck holds.

use serde::{Deserialize, Serialize};

/// Hard plays the full 50-card deck, ordinary strips the 10s, easy strips the 9s and 10s.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    Hard,
    Ordinary,
    Easy,
}

impl Mode {
    pub const ALL: [Mode; 3] = [Mode::Hard, Mode::Ordinary, Mode::Easy];

    /// The highest rank in this mode's deck (10, 9, 8).
    pub const fn max_rank(self) -> u8 {
        match self {
            Mode::Hard => 10,
            Mode::Ordinary => 9,
            Mode::Easy => 8,
        }
    }

    /// Cards in this mode's deck: five suits of ranks 1..=max_rank.
    pub const fn deck_len(self) -> usize {
        5 * self.max_rank() as usize
    }

    pub const fn name(self) -> &'static str {
        match self {
            Mode::Hard => "hard",
            Mode::Ordinary => "ordinary",
            Mode::Easy => "easy",
        }
    }

    pub fn parse(name: &str) -> Option<Mode> {
        Mode::ALL.into_iter().find(|m| m.name() == name)
    }
}

impl std::fmt::Display for Mode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}
