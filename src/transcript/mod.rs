//! Round transcripts, version 2 (docs/transcript.md): everything a settled
//! or voided round reveals, enough to replay it from outside djego, and the
//! replay that checks one (`verify`).
//!
//! The document is built by the service (`rounds::prima_carta::transcript`,
//! `rounds::lobo::transcript`) from what it stored and paid; `verify` rebuilds
//! the round from the deck, the rules and the decisions through the same pure
//! engines and bet settlement, and compares every claim. Players appear only
//! as pseudonyms (`P1`, `P2`, …), so a transcript can be shown to anyone.

pub mod ledger_proof;
mod replay;
pub mod sample;

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use std::borrow::Cow;
use std::collections::HashMap;

use crate::cards::transcript::ShuffleTranscript;

pub use replay::{verify, verify_document, verify_document_with, verify_text, verify_with};

/// The value of `transcript` in every version-2 document.
pub const FORMAT: &str = "djego-round";
pub const VERSION: u32 = 2;

/// Read from JSON, a transcript borrows its strings from the text (copying
/// only one written with escapes), and keeps `rules`, `outcome` and each pay
/// table's `spec` as the JSON text they arrived as: the replay reads them
/// straight into their types (a pay table once per bulk run), with no untyped
/// tree in between. The service builds owned ones (`RoundTranscript<'static>`).
///
/// Read strictly (docs/transcript.md, "Reading a transcript strictly"): an unknown field,
/// a missing one, or a null where a value is required makes the document unreadable;
/// only `carried_cobre_in`, `confidence_bets`, `fuerza_bets`, `events`, `deal_out_events` and `ledger_proof`
/// may be left out.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RoundTranscript<'a> {
    /// Always [`FORMAT`].
    #[serde(borrow)]
    pub transcript: Cow<'a, str>,
    pub version: u32,
    /// "prima_carta" or "lobo".
    #[serde(borrow)]
    pub game: Cow<'a, str>,
    #[serde(borrow)]
    pub round_id: Cow<'a, str>,
    #[serde(borrow)]
    pub table_id: Cow<'a, str>,
    pub number: i64,
    /// "settled" or "voided".
    #[serde(borrow)]
    pub status: Cow<'a, str>,
    pub shuffle: ShuffleTranscript,
    /// The table options the round was created under (per game, docs/transcript.md).
    #[serde(borrow, deserialize_with = "borrow_json")]
    pub rules: Json<'a>,
    #[serde(borrow)]
    pub pay_tables: Vec<PayTableEntry<'a>>,
    #[serde(borrow)]
    pub players: Vec<Party<'a>>,
    #[serde(borrow)]
    pub seats: Vec<SeatEntry<'a>>,
    /// Prima Carta: the copa decisions in order.
    #[serde(borrow)]
    pub decisions: Vec<DecisionEntry<'a>>,
    /// Lobo: the plays in order.
    pub plays: Vec<crate::games::lobo::Play>,
    #[serde(borrow)]
    pub bets: Vec<BetEntry<'a>>,
    /// Prima Carta: the confidence bets between players, every offer among them, in the order
    /// offered (docs/confidence-bets.md). Left out when the round had none.
    #[serde(borrow, default, skip_serializing_if = "Vec::is_empty")]
    pub confidence_bets: Vec<ConfidenceEntry<'a>>,
    /// Prima Carta at a Jasper table: the house's Fuerza bets, each with the quote it was
    /// placed on, in the order placed (docs/confidence-bets.md). Left out when there were none.
    #[serde(borrow, default, skip_serializing_if = "Vec::is_empty")]
    pub fuerza_bets: Vec<FuerzaEntry<'a>>,
    /// Prima Carta: the cobre carried in from earlier rounds and paid to this round's winner.
    /// Absent (a voided round, Lobo) or an amount, never null.
    #[serde(default, deserialize_with = "present", skip_serializing_if = "Option::is_none")]
    pub carried_cobre_in: Option<String>,
    /// A [`PrimaOutcome`] or a [`LoboOutcome`]; null for a voided round (written, not left out).
    #[serde(borrow, deserialize_with = "borrow_optional_json")]
    pub outcome: Option<Json<'a>>,
    /// The main game's events (in the recall; left out of bulk exports).
    #[serde(default, deserialize_with = "present", skip_serializing_if = "Option::is_none")]
    pub events: Option<Vec<serde_json::Value>>,
    /// Prima Carta: the events of the full deal-out the side bets settle on.
    #[serde(default, deserialize_with = "present", skip_serializing_if = "Option::is_none")]
    pub deal_out_events: Option<Vec<serde_json::Value>>,
    #[serde(borrow)]
    pub transfers: Vec<TransferEntry<'a>>,
    /// The proof that `transfers` are all of the round's and in the signed ledger (a transcript
    /// served on its own; left out of bulk exports).
    #[serde(default, deserialize_with = "present", skip_serializing_if = "Option::is_none")]
    pub ledger_proof: Option<ledger_proof::LedgerProof>,
}

/// A person in the round, by pseudonym.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Party<'a> {
    #[serde(borrow)]
    pub pseudonym: Cow<'a, str>,
    /// True on the entry of the caller who fetched the transcript.
    pub you: bool,
    /// Shown only on the caller's own entry, and to staff (absent otherwise, never null).
    #[serde(default, deserialize_with = "present", skip_serializing_if = "Option::is_none")]
    pub player_id: Option<String>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PayTableEntry<'a> {
    /// Hex SHA-256 of `spec` in its canonical form: serialised compactly, keys in the
    /// order of docs/side-bets.md (`PayTable::fingerprint`), whatever order `spec` has here.
    #[serde(borrow)]
    pub fingerprint: Cow<'a, str>,
    #[serde(borrow)]
    pub id: Cow<'a, str>,
    /// A [`crate::bets::PayTableSpec`].
    #[serde(borrow, deserialize_with = "borrow_json")]
    pub spec: Json<'a>,
}

impl PayTableEntry<'static> {
    pub fn new(id: &str, table: &crate::bets::PayTable) -> PayTableEntry<'static> {
        PayTableEntry {
            fingerprint: table.fingerprint().into(),
            id: id.to_owned().into(),
            spec: raw(table.spec()),
        }
    }
}

/// A JSON value kept as its text: borrowed from the document being read, or
/// owned by a transcript the service built.
pub type Json<'a> = Cow<'a, RawValue>;

/// A value as the JSON text a transcript carries.
pub fn raw<T: Serialize + ?Sized>(value: &T) -> Json<'static> {
    Cow::Owned(serde_json::value::to_raw_value(value).expect("transcript values serialise"))
}

fn borrow_json<'de: 'a, 'a, D: serde::Deserializer<'de>>(d: D) -> Result<Json<'a>, D::Error> {
    <&'de RawValue>::deserialize(d).map(Cow::Borrowed)
}

/// An optional field that may be left out but, when present, is not null.
fn present<'de, D: serde::Deserializer<'de>, T: Deserialize<'de>>(d: D) -> Result<Option<T>, D::Error> {
    T::deserialize(d).map(Some)
}

fn borrow_optional_json<'de: 'a, 'a, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Json<'a>>, D::Error> {
    Option::<&'de RawValue>::deserialize(d).map(|v| v.map(Cow::Borrowed))
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SeatEntry<'a> {
    /// Prima Carta: the suit held; Lobo: absent (never null).
    #[serde(default, deserialize_with = "present", skip_serializing_if = "Option::is_none")]
    pub suit: Option<String>,
    #[serde(borrow)]
    pub player: Cow<'a, str>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DecisionEntry<'a> {
    #[serde(borrow)]
    pub suit: Cow<'a, str>,
    /// True: paid the copa; false: folded.
    pub pay: bool,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BetEntry<'a> {
    #[serde(borrow)]
    pub player: Cow<'a, str>,
    #[serde(borrow)]
    pub kind: Cow<'a, str>,
    /// Written as null when the bet takes no suit (required, not left out).
    #[serde(deserialize_with = "Option::deserialize")]
    pub suit: Option<String>,
    #[serde(deserialize_with = "Option::deserialize")]
    pub number: Option<i64>,
    #[serde(borrow)]
    pub amount: Cow<'a, str>,
    /// The fingerprint of the pay table the bet was placed under.
    #[serde(borrow)]
    pub pay_table: Cow<'a, str>,
    /// won, lost, pushed or refunded.
    #[serde(borrow)]
    pub status: Cow<'a, str>,
    /// What the wallet got back, stake included.
    #[serde(borrow)]
    pub returned: Cow<'a, str>,
}

/// A bet with the house's Fuerza, as a transcript shows it.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FuerzaEntry<'a> {
    /// The bettor, by pseudonym.
    #[serde(borrow)]
    pub player: Cow<'a, str>,
    /// The seated player's suit the bet backs.
    #[serde(borrow)]
    pub suit: Cow<'a, str>,
    #[serde(borrow)]
    pub stake: Cow<'a, str>,
    #[serde(borrow)]
    pub quote: FuerzaQuoteEntry<'a>,
    /// won or lost (settled); refunded (a voided round).
    #[serde(borrow)]
    pub status: Cow<'a, str>,
    /// What the bet returned, the stake included (0.00 when lost).
    #[serde(borrow)]
    pub returned: Cow<'a, str>,
}

/// The quote a Fuerza bet was placed on: drawn again by both verifiers.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FuerzaQuoteEntry<'a> {
    /// Always `fuerza-quote-v1`.
    #[serde(borrow)]
    pub algorithm: Cow<'a, str>,
    /// The copa decisions made when it was quoted (its version).
    pub decisions: u32,
    /// Orders of the first pass's discard pile drawn, and in how many the suit won: against
    /// the players who had paid, and against those and everyone still to decide.
    pub samples: u32,
    pub wins: u32,
    pub wins_if_all_pay: u32,
    /// The decimal odds offered, the stake included.
    #[serde(borrow)]
    pub price: Cow<'a, str>,
}

/// A confidence bet between players, or an offer of one, as a transcript shows it.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConfidenceEntry<'a> {
    /// The terms: `kind` and its fields (read by the replay, so a malformed term fails the
    /// `confidence_bets` check in both verifiers alike).
    #[serde(borrow, deserialize_with = "borrow_json")]
    pub terms: Json<'a>,
    /// Who offered it, by pseudonym, and the side they took (`for` or `against`).
    #[serde(borrow)]
    pub offered_by: Cow<'a, str>,
    #[serde(borrow)]
    pub offerer_side: Cow<'a, str>,
    /// Who took it (absent when nobody did, never null).
    #[serde(
        borrow,
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub accepted_by: Option<Cow<'a, str>>,
    #[serde(borrow)]
    pub for_stake: Cow<'a, str>,
    #[serde(borrow)]
    pub against_stake: Cow<'a, str>,
    /// withdrawn, declined, expired (never taken); settled, void or refunded (taken).
    #[serde(borrow)]
    pub status: Cow<'a, str>,
    /// What the winner was paid (both stakes less the commission), and the commission.
    #[serde(borrow)]
    pub paid: Cow<'a, str>,
    #[serde(borrow)]
    pub commission: Cow<'a, str>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TransferEntry<'a> {
    pub seq: i64,
    #[serde(borrow)]
    pub kind: Cow<'a, str>,
    #[serde(borrow)]
    pub from: Cow<'a, str>,
    #[serde(borrow)]
    pub to: Cow<'a, str>,
    #[serde(borrow)]
    pub amount: Cow<'a, str>,
    /// The transfer's hash in the ledger chain (checked by ledger verification).
    #[serde(borrow)]
    pub hash: Cow<'a, str>,
}

/// Gives players their pseudonyms in order of first appearance and names
/// accounts as the transcript shows them.
#[derive(Default)]
pub struct Pseudonyms {
    by_player: HashMap<String, String>,
    parties: Vec<Party<'static>>,
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
            pseudonym: pseudonym.clone().into(),
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
    pub fn parties(self, viewer: &Viewer) -> Vec<Party<'static>> {
        self.parties
            .into_iter()
            .map(|mut p| {
                let id = p.player_id.take().unwrap_or_default();
                p.you = viewer.is(&id);
                p.player_id = viewer.sees(&id).then_some(id);
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

    /// Whether `player_id` is the viewer themself (never for the public viewer).
    pub fn is(&self, player_id: &str) -> bool {
        !self.user_id.is_empty() && self.user_id == player_id
    }

    /// Whether the viewer may see `player_id`: their own, or anyone's for staff.
    pub fn sees(&self, player_id: &str) -> bool {
        self.sees_identities || self.is(player_id)
    }
}

/// The round's ledger transfers as the transcript shows them, in ledger order.
pub fn transfer_entries(
    transfers: &[crate::ledger::Transfer],
    names: &mut Pseudonyms,
    round_id: &str,
    table_id: &str,
) -> Vec<TransferEntry<'static>> {
    transfers
        .iter()
        .map(|t| TransferEntry {
            seq: t.seq,
            kind: t.kind.clone().into(),
            from: names.account(&t.debit_account, round_id, table_id).into(),
            to: names.account(&t.credit_account, round_id, table_id).into(),
            amount: crate::domain::format_minor(t.amount_minor).into(),
            hash: t.hash.clone().into(),
        })
        .collect()
}

pub use replay::{LoboOutcome, PrimaOutcome};

#[cfg(test)]
mod corpus_tests;
#[cfg(test)]
mod tests;
