//! Round transcripts, version 2 (docs/transcript.md): everything a settled
//! or voided round reveals, enough to replay it from outside djego, and the
//! replay that checks one (`verify`).
//!
//! The document is built by the service (`rounds::prima_carta::transcript`,
//! `rounds::lobo::transcript`) from what it stored and paid; `verify` rebuilds
//! the round from the deck, the rules and the decisions through the same pure
//! engines and bet settlement, and compares every claim. Players appear only
//! as pseudonyms (`P1`, `P2`, …), so a transcript can be shown to anyone.

mod replay;
pub mod sample;

use serde::{Deserialize, Serialize};
use std::collections::HashMap;

use crate::cards::transcript::ShuffleTranscript;

pub use replay::{verify, verify_document, verify_text};

/// The value of `transcript` in every version-2 document.
pub const FORMAT: &str = "djego-round";
pub const VERSION: u32 = 2;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RoundTranscript {
    /// Always [`FORMAT`].
    pub transcript: String,
    pub version: u32,
    /// "prima_carta" or "lobo".
    pub game: String,
    pub round_id: String,
    pub table_id: String,
    pub number: i64,
    /// "settled" or "voided".
    pub status: String,
    pub shuffle: ShuffleTranscript,
    /// The table options the round was created under (per game, docs/transcript.md).
    pub rules: serde_json::Value,
    #[serde(default)]
    pub pay_tables: Vec<PayTableEntry>,
    pub players: Vec<Party>,
    #[serde(default)]
    pub seats: Vec<SeatEntry>,
    /// Prima Carta: the copa decisions in order.
    #[serde(default)]
    pub decisions: Vec<DecisionEntry>,
    /// Lobo: the plays in order.
    #[serde(default)]
    pub plays: Vec<crate::games::lobo::Play>,
    #[serde(default)]
    pub bets: Vec<BetEntry>,
    /// Prima Carta: the cobre carried in from earlier rounds and paid to this round's winner.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub carried_cobre_in: Option<String>,
    /// Null for a voided round.
    pub outcome: Option<serde_json::Value>,
    /// The main game's events (in the recall; left out of bulk exports).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub events: Option<Vec<serde_json::Value>>,
    /// Prima Carta: the events of the full deal-out the side bets settle on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deal_out_events: Option<Vec<serde_json::Value>>,
    pub transfers: Vec<TransferEntry>,
}

/// A person in the round, by pseudonym.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Party {
    pub pseudonym: String,
    /// True on the entry of the caller who fetched the transcript.
    #[serde(default)]
    pub you: bool,
    /// Shown only on the caller's own entry, and to staff.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub player_id: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PayTableEntry {
    /// Hex SHA-256 of `spec` serialised compactly.
    pub fingerprint: String,
    pub id: String,
    pub spec: crate::bets::PayTableSpec,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeatEntry {
    /// Prima Carta: the suit held; Lobo: absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suit: Option<String>,
    pub player: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DecisionEntry {
    pub suit: String,
    /// True: paid the copa; false: folded.
    pub pay: bool,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BetEntry {
    pub player: String,
    pub kind: String,
    pub suit: Option<String>,
    pub number: Option<i64>,
    pub amount: String,
    /// The fingerprint of the pay table the bet was placed under.
    pub pay_table: String,
    /// won, lost, pushed or refunded.
    pub status: String,
    /// What the wallet got back, stake included.
    pub returned: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TransferEntry {
    pub seq: i64,
    pub kind: String,
    pub from: String,
    pub to: String,
    pub amount: String,
    /// The transfer's hash in the ledger chain (checked by ledger verification).
    pub hash: String,
}

/// Gives players their pseudonyms in order of first appearance and names
/// accounts as the transcript shows them.
#[derive(Default)]
pub struct Pseudonyms {
    by_player: HashMap<String, String>,
    parties: Vec<Party>,
}

impl Pseudonyms {
    /// The player's pseudonym, giving the next one on first sight.
    pub fn of(&mut self, player_id: &str) -> String {
        if let Some(p) = self.by_player.get(player_id) {
            return p.clone();
        }
        let pseudonym = format!("P{}", self.parties.len() + 1);
        self.by_player.insert(player_id.to_owned(), pseudonym.clone());
        self.parties.push(Party {
            pseudonym: pseudonym.clone(),
            you: false,
            player_id: Some(player_id.to_owned()),
        });
        pseudonym
    }

    /// An account as the transcript names it: the round's own pot and escrow
    /// and the table's cobre by role, a wallet by its owner's pseudonym.
    pub fn account(&mut self, stored: &str, round_id: &str, table_id: &str) -> String {
        match stored.split_once(':') {
            Some(("wallet", owner)) => format!("wallet:{}", self.of(owner)),
            Some(("pot", id)) if id == round_id => "pot".to_owned(),
            Some(("escrow", id)) if id == round_id => "escrow".to_owned(),
            Some(("cobre", id)) if id == table_id => "cobre".to_owned(),
            _ => stored.to_owned(),
        }
    }

    /// The parties as shown to `viewer`: staff see every player id, a player
    /// only their own.
    pub fn parties(self, viewer: &Viewer) -> Vec<Party> {
        self.parties
            .into_iter()
            .map(|mut p| {
                let own = p.player_id.as_deref() == Some(viewer.user_id.as_str());
                p.you = own;
                if !(own || viewer.sees_identities) {
                    p.player_id = None;
                }
                p
            })
            .collect()
    }
}

/// Who a transcript is built for.
pub struct Viewer {
    pub user_id: String,
    /// Staff (pit boss, auditor) see who every pseudonym is.
    pub sees_identities: bool,
}

impl Viewer {
    /// The caller as a viewer: staff see identities, a player only their own.
    pub fn new(user_id: &str, role: crate::domain::Role) -> Viewer {
        Viewer {
            user_id: user_id.to_owned(),
            sees_identities: role != crate::domain::Role::Player,
        }
    }

    /// A transcript for anyone: every player pseudonymous.
    pub fn public() -> Viewer {
        Viewer {
            user_id: String::new(),
            sees_identities: false,
        }
    }
}

/// The round's ledger transfers as the transcript shows them, in ledger order.
pub fn transfer_entries(
    transfers: &[crate::ledger::Transfer],
    names: &mut Pseudonyms,
    round_id: &str,
    table_id: &str,
) -> Vec<TransferEntry> {
    transfers
        .iter()
        .map(|t| TransferEntry {
            seq: t.seq,
            kind: t.kind.clone(),
            from: names.account(&t.debit_account, round_id, table_id),
            to: names.account(&t.credit_account, round_id, table_id),
            amount: crate::domain::format_minor(t.amount_minor),
            hash: t.hash.clone(),
        })
        .collect()
}

pub(crate) use replay::{lobo_outcome_value, prima_outcome_value};


#[cfg(test)]
mod tests;
