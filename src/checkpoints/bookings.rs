//! A round's booking in the transparency log (docs/transcript.md, "The ledger proof"): a
//! `round_booked` significant event that says how many transfers a round that is over has and
//! the Merkle root of their leaves. A round's ledger proof shows a document's transfers are
//! those; the auditor's verification (`audit`) shows every booking is what the ledger holds
//! for its round, so a booking cannot leave a transfer out either.

use diesel::prelude::*;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::merkle::MemoryTree;
use super::tree::{to_hex, transfer_leaf};
use crate::ledger::Transfer;
use crate::store::schema::{significant_events as se, transfers as tr};
use crate::store::AnyConnection;

/// The kind of the significant event that books a round.
pub const BOOKING_KIND: &str = "round_booked";

/// What a booking's `details` say.
#[derive(Serialize, Deserialize, Debug, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct BookingDetails {
    pub game: String,
    pub round_id: String,
    /// How many transfers the round has.
    pub transfers: u64,
    /// The Merkle root over those transfers' leaf hashes in ledger order.
    pub transfers_root: String,
}

impl BookingDetails {
    /// The booking of the round `round_id` of `game` whose transfers, in ledger order, are these.
    pub fn of(game: &str, round_id: &str, transfers: &[Transfer]) -> BookingDetails {
        let mut leaves = MemoryTree::new();
        for t in transfers {
            leaves.push(transfer_leaf(t));
        }
        BookingDetails {
            game: game.to_owned(),
            round_id: round_id.to_owned(),
            transfers: transfers.len() as u64,
            transfers_root: to_hex(&leaves.root(leaves.len())),
        }
    }
}

/// Every transfer of a round, in ledger order.
pub fn round_transfers(conn: &mut AnyConnection, round_id: &str) -> QueryResult<Vec<Transfer>> {
    tr::table
        .filter(tr::round_id.eq(round_id))
        .order(tr::seq.asc())
        .select(Transfer::as_select())
        .load(conn)
}

#[derive(Serialize, ToSchema, Debug, Clone)]
pub struct BookingVerification {
    pub ok: bool,
    /// Every round booked so far.
    pub bookings_checked: i64,
    /// Each booking that is not what the ledger holds for its round, and why.
    pub failures: Vec<BookingFailure>,
}

#[derive(Serialize, ToSchema, Debug, Clone, PartialEq)]
pub struct BookingFailure {
    pub round_id: String,
    pub reason: String,
}

/// Checks every booking against the transfers the ledger holds for its round: their count and
/// the root of their leaves.
pub fn audit(conn: &mut AnyConnection) -> QueryResult<BookingVerification> {
    let bookings: Vec<(Option<String>, String)> = se::table
        .filter(se::kind.eq(BOOKING_KIND))
        .order((se::at_us.asc(), se::id.asc()))
        .select((se::subject, se::details))
        .load(conn)?;
    let mut failures = Vec::new();
    for (subject, details) in &bookings {
        let round_id = subject.clone().unwrap_or_default();
        let mut fail = |reason: String| {
            failures.push(BookingFailure {
                round_id: round_id.clone(),
                reason,
            })
        };
        let booked: BookingDetails = match serde_json::from_str(details) {
            Ok(b) => b,
            Err(e) => {
                fail(format!("round {round_id}: its booking's details do not read: {e}"));
                continue;
            }
        };
        if booked.round_id != round_id {
            fail(format!(
                "a booking of round {} is filed under round {round_id}",
                booked.round_id
            ));
            continue;
        }
        let held = BookingDetails::of(&booked.game, &round_id, &round_transfers(conn, &round_id)?);
        if held.transfers != booked.transfers {
            fail(format!(
                "round {round_id} was booked with {} transfers; the ledger holds {} for it",
                booked.transfers, held.transfers
            ));
        } else if held.transfers_root != booked.transfers_root {
            fail(format!(
                "round {round_id}'s {} transfers in the ledger are not the ones it was booked with",
                held.transfers
            ));
        }
    }
    Ok(BookingVerification {
        ok: failures.is_empty(),
        bookings_checked: bookings.len() as i64,
        failures,
    })
}
