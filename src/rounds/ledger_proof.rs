//! A round's proof against the signed ledger, built for its transcript or
//! recall (docs/transcript.md, "The ledger proof").
//!
//! The first time a round that is over is asked for, it is *booked*: a
//! `round_booked` significant event records how many transfers the round has
//! and their Merkle root, and a checkpoint signs a tree head covering both
//! the transfers and that event. Later requests find both and only read.
//! Booking takes the checkpoint lock and re-checks under it, so concurrent
//! requests for rounds that are not covered yet share one checkpoint: at most
//! one checkpoint per round ever booked, whatever the flood of requests.

use diesel::prelude::*;

use crate::checkpoints::bookings::{round_transfers, BookingDetails, BOOKING_KIND};
use crate::checkpoints::tree::{self, wallet_tag, Tree};
use crate::checkpoints::{self, event_chain, Checkpoint, CheckpointError, CheckpointKey, Trigger};
use crate::ledger::Transfer;
use crate::significant_events::{self, EventKind, SignificantEvent};
use crate::store::schema::{checkpoints as cp, event_chain as ec, significant_events as se, transfers as tr};
use crate::store::{AnyConnection, Database};
use crate::transcript::ledger_proof::{BookingProof, LedgerProof, SignedHead, TransferProof, WalletTag};
use crate::transcript::TransferEntry;

/// The proof for the round `round_id` of `game` whose document shows `shown` (the round's
/// transfers as `transcript::transfer_entries` names them). The round must be over.
pub fn prove(
    db: &Database,
    key: &CheckpointKey,
    game: &str,
    round_id: &str,
    shown: &[TransferEntry],
) -> Result<LedgerProof, CheckpointError> {
    let covered = db.read(|conn| covered(conn, round_id))?;
    let (head, booking_seq, booking) = match covered {
        Some(found) => found,
        None => db.write(|conn| book(conn, key, game, round_id))?,
    };
    db.read(|conn| build(conn, &head, booking_seq, &booking, round_id, shown))
}

/// The latest signed head, the round's booking and its place in the events chain, when that
/// head covers the booking and every transfer of the round.
fn covered(
    conn: &mut AnyConnection,
    round_id: &str,
) -> Result<Option<(Checkpoint, i64, SignificantEvent)>, CheckpointError> {
    let booking: Option<(SignificantEvent, Option<i64>)> = se::table
        .left_join(ec::table)
        .filter(se::kind.eq(BOOKING_KIND))
        .filter(se::subject.eq(round_id))
        .select((SignificantEvent::as_select(), ec::seq.nullable()))
        .first(conn)
        .optional()?;
    let Some((event, Some(booking_seq))) = booking else {
        return Ok(None);
    };
    let head: Option<Checkpoint> = cp::table
        .filter(cp::version.eq(2))
        .select(Checkpoint::as_select())
        .order(cp::seq.desc())
        .first(conn)
        .optional()?;
    let Some(head) = head else { return Ok(None) };
    let last_transfer: Option<i64> = tr::table
        .filter(tr::round_id.eq(round_id))
        .select(diesel::dsl::max(tr::seq))
        .first(conn)?;
    let ok = head.events_seq >= booking_seq && head.ledger_seq >= last_transfer.unwrap_or(0);
    Ok(ok.then_some((head, booking_seq, event)))
}

/// Books the round if it is not booked yet and takes a checkpoint that covers it, unless
/// another request did so first (re-checked under the checkpoint lock).
fn book(
    conn: &mut AnyConnection,
    key: &CheckpointKey,
    game: &str,
    round_id: &str,
) -> Result<(Checkpoint, i64, SignificantEvent), CheckpointError> {
    checkpoints::lock_checkpoints(conn)?;
    if let Some(found) = covered(conn, round_id)? {
        return Ok(found);
    }
    let booked = se::table
        .filter(se::kind.eq(BOOKING_KIND))
        .filter(se::subject.eq(round_id))
        .select(se::id)
        .first::<String>(conn)
        .optional()?
        .is_some();
    if !booked {
        let details = BookingDetails::of(game, round_id, &round_transfers(conn, round_id)?);
        let details = serde_json::to_value(&details).map_err(|e| CheckpointError::Unprovable(e.to_string()))?;
        significant_events::record(conn, EventKind::RoundBooked, None, Some(round_id), details)?;
    }
    checkpoints::take_locked(conn, key, None, Trigger::Proof)?;
    covered(conn, round_id)?
        .ok_or_else(|| CheckpointError::Unprovable(format!("round {round_id}: the new checkpoint does not cover it")))
}

fn build(
    conn: &mut AnyConnection,
    head: &Checkpoint,
    booking_seq: i64,
    booking: &SignificantEvent,
    round_id: &str,
    shown: &[TransferEntry],
) -> Result<LedgerProof, CheckpointError> {
    let stored = round_transfers(conn, round_id)?;
    let booking_path = tree::inclusion_proof(conn, Tree::Events, (booking_seq - 1) as u64, head.events_seq as u64)?;
    assemble(
        head,
        &stored,
        shown,
        |seq| tree::inclusion_proof(conn, Tree::Transfers, (seq - 1) as u64, head.ledger_seq as u64),
        BookingProof {
            seq: booking_seq,
            leaf: event_chain::canonical(booking_seq, booking),
            path: booking_path,
        },
    )
}

/// A round's proof from its stored transfers, as the document shows them (`shown`, the same
/// transfers in the same order), the audit path of each, and its booking's proof.
pub fn assemble<E: Into<CheckpointError>>(
    head: &Checkpoint,
    stored: &[Transfer],
    shown: &[TransferEntry],
    mut path_of: impl FnMut(i64) -> Result<Vec<String>, E>,
    booking: BookingProof,
) -> Result<LedgerProof, CheckpointError> {
    let unprovable = |why: &str| CheckpointError::Unprovable(why.to_owned());
    if stored.len() != shown.len() || stored.iter().zip(shown).any(|(s, e)| s.seq != e.seq) {
        return Err(unprovable("the transfers shown are not the round's transfers"));
    }
    let mut wallets: Vec<WalletTag> = Vec::new();
    let mut transfers = Vec::with_capacity(stored.len());
    for (s, e) in stored.iter().zip(shown) {
        let round_id = s.round_id.as_deref().unwrap_or("");
        for (account, name) in [(&s.debit_account, &e.from), (&s.credit_account, &e.to)] {
            if let (Some(owner), Some(player)) = (account.strip_prefix("wallet:"), name.strip_prefix("wallet:")) {
                if !wallets.iter().any(|w| w.player == player) {
                    wallets.push(WalletTag {
                        player: player.to_owned(),
                        tag: wallet_tag(round_id, owner),
                    });
                }
            }
        }
        transfers.push(TransferProof {
            seq: s.seq,
            bet_id: s.bet_id.clone(),
            path: path_of(s.seq).map_err(Into::into)?,
        });
    }
    Ok(LedgerProof {
        checkpoint: SignedHead::of(head).ok_or_else(|| unprovable("the latest checkpoint signs no tree"))?,
        wallets,
        transfers,
        booking,
    })
}

/// Adds its ledger proof to a round's transcript.
pub fn prove_transcript(
    db: &Database,
    key: &CheckpointKey,
    t: &mut crate::transcript::RoundTranscript<'static>,
) -> Result<(), CheckpointError> {
    t.ledger_proof = Some(prove(db, key, &t.game, &t.round_id, &t.transfers)?);
    Ok(())
}
