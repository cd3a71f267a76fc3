//! The house side bets on Prima Carta (docs/side-bets.md) and what a bettor selects.

use super::pay_table::PayTable;
use crate::cards::Suit;
use serde::{Deserialize, Serialize};
use std::fmt;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum BetKind {
    Prima,
    Escucha,
    Maximo,
    ContoAlto,
    ContoBajo,
    ContoMedio,
    Cartas,
    Comeco,
}

impl BetKind {
    pub const ALL: [BetKind; 8] = [
        BetKind::Prima,
        BetKind::Escucha,
        BetKind::Maximo,
        BetKind::ContoAlto,
        BetKind::ContoBajo,
        BetKind::ContoMedio,
        BetKind::Cartas,
        BetKind::Comeco,
    ];

    /// The snake_case name used in JSON and messages.
    pub const fn name(self) -> &'static str {
        match self {
            BetKind::Prima => "prima",
            BetKind::Escucha => "escucha",
            BetKind::Maximo => "maximo",
            BetKind::ContoAlto => "conto_alto",
            BetKind::ContoBajo => "conto_bajo",
            BetKind::ContoMedio => "conto_medio",
            BetKind::Cartas => "cartas",
            BetKind::Comeco => "comeco",
        }
    }

    pub fn parse(name: &str) -> Option<BetKind> {
        BetKind::ALL.into_iter().find(|k| k.name() == name)
    }

    /// What the bettor must select for this kind.
    pub const fn selection_needed(self) -> SelectionKind {
        match self {
            BetKind::Prima | BetKind::Escucha | BetKind::Maximo => SelectionKind::Suit,
            BetKind::Cartas => SelectionKind::Number,
            _ => SelectionKind::None,
        }
    }

    /// Validates a raw selection (as it arrives from a client) against this kind
    /// and, for Cartas, against the numbers the pay table offers.
    pub fn parse_selection(
        self,
        suit: Option<&str>,
        number: Option<i64>,
        pay_table: &PayTable,
    ) -> Result<Selection, BetError> {
        match (self.selection_needed(), suit, number) {
            (SelectionKind::Suit, Some(name), None) => Suit::parse(name)
                .map(Selection::Suit)
                .ok_or_else(|| BetError::UnknownSuit(name.to_string())),
            (SelectionKind::Number, None, Some(n)) => {
                let n = u8::try_from(n).map_err(|_| BetError::NumberNotOffered(n))?;
                if pay_table.cartas_pays(n).is_some() {
                    Ok(Selection::Number(n))
                } else {
                    Err(BetError::NumberNotOffered(n as i64))
                }
            }
            (SelectionKind::None, None, None) => Ok(Selection::None),
            (needed, _, _) => Err(BetError::WrongSelection { kind: self, needed }),
        }
    }

    /// Checks an already typed selection (e.g. one read back from storage).
    pub fn check_selection(self, selection: &Selection, pay_table: &PayTable) -> Result<(), BetError> {
        match (self.selection_needed(), selection) {
            (SelectionKind::Suit, Selection::Suit(_)) | (SelectionKind::None, Selection::None) => Ok(()),
            (SelectionKind::Number, Selection::Number(n)) => match pay_table.cartas_pays(*n) {
                Some(_) => Ok(()),
                None => Err(BetError::NumberNotOffered(*n as i64)),
            },
            (needed, _) => Err(BetError::WrongSelection { kind: self, needed }),
        }
    }
}

impl BetError {
    /// The refusal in words for the player.
    pub fn describe(&self) -> String {
        match self {
            BetError::WrongSelection { kind, needed } => {
                format!("a {} bet needs a selection of kind {:?}", kind.name(), needed).to_lowercase()
            }
            BetError::UnknownSuit(s) => format!("unknown suit '{s}'"),
            BetError::NumberNotOffered(n) => format!("Cartas number {n} is not offered at this table"),
        }
    }
}

impl fmt::Display for BetKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The shape of selection a bet kind takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SelectionKind {
    Suit,
    Number,
    None,
}

/// A validated selection: JSON `{"suit":"crowns"}`, `{"number":12}` or `"none"`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Selection {
    Suit(Suit),
    Number(u8),
    None,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "error")]
pub enum BetError {
    /// The selection's shape does not fit the bet kind.
    WrongSelection {
        kind: BetKind,
        needed: SelectionKind,
    },
    UnknownSuit(String),
    /// A Cartas number the pay table does not offer.
    NumberNotOffered(i64),
}

impl fmt::Display for BetError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BetError::WrongSelection { kind, needed } => {
                let what = match needed {
                    SelectionKind::Suit => "a suit",
                    SelectionKind::Number => "a number",
                    SelectionKind::None => "no selection",
                };
                write!(f, "a {kind} bet takes {what}")
            }
            BetError::UnknownSuit(s) => write!(f, "unknown suit {s:?}"),
            BetError::NumberNotOffered(n) => write!(f, "Cartas on {n} is not offered by this pay table"),
        }
    }
}

impl std::error::Error for BetError {}
