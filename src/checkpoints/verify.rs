//! Verification of the ledger, the events chain and the checkpoints together:
//! what `GET /api/v1/audit/ledger/verify` and `djego verify ledger` report.
//!
//! A checkpoint is checked twice: its signature (against the public keys the
//! auditor pinned, when any, else against the key it carries), then the
//! database: the transfer at its `ledger_seq` must exist and the chain must
//! recompute, from the first transfer, to exactly its `ledger_hash`; the
//! events chain likewise. Each failure names the checkpoint and the position.

use diesel::prelude::*;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};
use utoipa::ToSchema;

use super::bookings::BookingVerification;
use super::event_chain::{self, EventChainVerification};
use super::{Checkpoint, PublicKey};
use crate::ledger::verify::{self as ledger_verify, ChainPoints, LedgerVerification};
use crate::store::AnyConnection;

#[derive(Serialize, ToSchema, Debug, Clone)]
pub struct AuditVerification {
    /// The ledger's own checks. Its `ok` here is true only when the events
    /// chain and every checkpoint check too.
    #[serde(flatten)]
    pub ledger: LedgerVerification,
    pub event_chain: EventChainVerification,
    pub checkpoints: CheckpointVerification,
    /// Every round's booking against the transfers the ledger holds for it.
    pub bookings: BookingVerification,
}

#[derive(Serialize, ToSchema, Debug, Clone)]
pub struct CheckpointVerification {
    pub ok: bool,
    /// Where the checkpoints came from: `database`, or the file given.
    pub source: String,
    pub checkpoints_checked: i64,
    /// The keys every checkpoint had to be signed with one of (none pinned:
    /// each checkpoint's own key was used).
    pub pinned_key_ids: Vec<String>,
    /// Every key that signed a checkpoint checked: compare them with the keys
    /// the casino published.
    pub keys: Vec<KeyUse>,
    /// The newest checkpoint checked.
    pub latest: Option<CheckpointSummary>,
    /// Each checkpoint that does not check, and why.
    pub failures: Vec<CheckpointFailure>,
}

#[derive(Serialize, ToSchema, Debug, Clone, PartialEq)]
pub struct KeyUse {
    pub key_id: String,
    pub public_key: String,
    pub checkpoints: i64,
}

#[derive(Serialize, ToSchema, Debug, Clone)]
pub struct CheckpointSummary {
    pub seq: i64,
    /// An ISO 8601 time in UTC, e.g. `2026-11-23T10:00:00Z`.
    pub taken_at: String,
    pub ledger_seq: i64,
    pub events_seq: i64,
}

#[derive(Serialize, ToSchema, Debug, Clone, PartialEq)]
pub struct CheckpointFailure {
    pub checkpoint: i64,
    pub reason: String,
}

/// Verifies the ledger and the events chain, and both against `checkpoints`.
pub fn verify(
    conn: &mut AnyConnection,
    checkpoints: &[Checkpoint],
    source: &str,
    pinned: &[PublicKey],
) -> QueryResult<AuditVerification> {
    let mut failures = Vec::new();
    let mut signed = Vec::new();
    for c in checkpoints {
        match check_signature(c, pinned) {
            Ok(()) => signed.push(c),
            Err(reason) => failures.push(CheckpointFailure {
                checkpoint: c.seq,
                reason,
            }),
        }
    }
    let ledger_wanted: BTreeSet<i64> = signed.iter().map(|c| c.ledger_seq).collect();
    let events_wanted: BTreeSet<i64> = signed.iter().map(|c| c.events_seq).collect();
    let (mut ledger, ledger_points) = ledger_verify::verify_at(conn, &ledger_wanted)?;
    let (events, event_points) = event_chain::verify_at(conn, &events_wanted)?;

    // In chain order, so that a failure can name the last position that still matches.
    signed.sort_by_key(|c| (c.ledger_seq, c.seq));
    let mut last_match: Option<&Checkpoint> = None;
    for c in &signed {
        match compare(
            c,
            c.ledger_seq,
            &c.ledger_hash,
            &ledger_points,
            Chain::Ledger,
            last_match,
        ) {
            Some(reason) => failures.push(CheckpointFailure {
                checkpoint: c.seq,
                reason,
            }),
            None => last_match = Some(c),
        }
    }
    signed.sort_by_key(|c| (c.events_seq, c.seq));
    let mut last_match: Option<&Checkpoint> = None;
    for c in &signed {
        match compare(
            c,
            c.events_seq,
            &c.events_hash,
            &event_points,
            Chain::Events,
            last_match,
        ) {
            Some(reason) => failures.push(CheckpointFailure {
                checkpoint: c.seq,
                reason,
            }),
            None => last_match = Some(c),
        }
    }
    failures.extend(super::log_audit::check(conn, &signed)?);
    failures.sort_by_key(|f| f.checkpoint);

    let mut keys: BTreeMap<(String, String), i64> = BTreeMap::new();
    for c in checkpoints {
        *keys.entry((c.key_id.clone(), c.public_key.clone())).or_default() += 1;
    }
    let latest = checkpoints.iter().max_by_key(|c| c.seq).map(|c| CheckpointSummary {
        seq: c.seq,
        taken_at: c.taken_at(),
        ledger_seq: c.ledger_seq,
        events_seq: c.events_seq,
    });
    let report = CheckpointVerification {
        ok: failures.is_empty(),
        source: source.to_string(),
        checkpoints_checked: checkpoints.len() as i64,
        pinned_key_ids: pinned.iter().map(PublicKey::key_id).collect(),
        keys: keys
            .into_iter()
            .map(|((key_id, public_key), checkpoints)| KeyUse {
                key_id,
                public_key,
                checkpoints,
            })
            .collect(),
        latest,
        failures,
    };
    let bookings = super::bookings::audit(conn)?;
    ledger.ok = ledger.ok && events.ok && report.ok && bookings.ok;
    Ok(AuditVerification {
        ledger,
        event_chain: events,
        checkpoints: report,
        bookings,
    })
}

/// Whether `c`'s signature verifies (under one of `pinned` when any are given,
/// else under the key it carries), or why not.
pub fn check_signature(c: &Checkpoint, pinned: &[PublicKey]) -> Result<(), String> {
    let carried = PublicKey::parse_hex(&c.public_key).map_err(|e| format!("checkpoint {}: {e}", c.seq))?;
    if carried.key_id() != c.key_id {
        return Err(format!(
            "checkpoint {}: key id {} is not the id of its public key ({})",
            c.seq,
            c.key_id,
            carried.key_id()
        ));
    }
    if !pinned.is_empty() && !pinned.contains(&carried) {
        let ids: Vec<String> = pinned.iter().map(PublicKey::key_id).collect();
        return Err(format!(
            "checkpoint {} is signed by key {}, not by {} {}",
            c.seq,
            carried.key_id(),
            if ids.len() == 1 {
                "the pinned key"
            } else {
                "any of the pinned keys"
            },
            ids.join(", ")
        ));
    }
    // A pinned key, or the carried one: equal when pinned.
    let key = &carried;
    key.verify(c.signed_message().as_bytes(), &c.signature).map_err(|e| {
        format!(
            "checkpoint {} (signed at {}): {e} under key {}",
            c.seq,
            c.taken_at(),
            key.key_id()
        )
    })
}

#[derive(Clone, Copy)]
enum Chain {
    Ledger,
    Events,
}

impl Chain {
    fn item(self) -> &'static str {
        match self {
            Chain::Ledger => "transfer",
            Chain::Events => "event",
        }
    }
    fn name(self) -> &'static str {
        match self {
            Chain::Ledger => "ledger",
            Chain::Events => "events chain",
        }
    }
    fn seq_of(self, c: &Checkpoint) -> i64 {
        match self {
            Chain::Ledger => c.ledger_seq,
            Chain::Events => c.events_seq,
        }
    }
}

/// Why the chain does not hold `hash` at `seq` as checkpoint `c` signed, if so.
fn compare(
    c: &Checkpoint,
    seq: i64,
    hash: &str,
    points: &ChainPoints,
    chain: Chain,
    last_match: Option<&Checkpoint>,
) -> Option<String> {
    let signed = format!("checkpoint {} (signed at {})", c.seq, c.taken_at());
    if seq == 0 {
        // Signed while this chain was empty: nothing to find.
        return None;
    }
    if points.last_seq < seq {
        return Some(format!(
            "{} ends at seq {} but {signed} covers seq {seq}: truncated",
            chain.name(),
            points.last_seq
        ));
    }
    let since = match last_match {
        Some(m) if chain.seq_of(m) > 0 => format!(
            " (after seq {}, which checkpoint {} still matches)",
            chain.seq_of(m),
            m.seq
        ),
        _ => String::new(),
    };
    match points.hashes.get(&seq) {
        None => Some(format!(
            "{} {seq} is missing but {signed} covers it: {} rewritten at or before seq {seq}{since}",
            chain.item(),
            chain.name()
        )),
        Some(h) if h != hash => Some(format!(
            "{} {seq} does not match {signed}: {} rewritten at or before seq {seq}{since}",
            chain.item(),
            chain.name()
        )),
        Some(_) => None,
    }
}
