//! Signed checkpoints (docs/ledger.md, "Checkpoints"): the ledger's head and
//! the significant-events chain's head, signed with an Ed25519 key that is not
//! in the database. Someone who can write the database can rehash the ledger
//! from any point, or cut its end off and roll the head back, and the chain
//! alone would still check; a checkpoint exported before then cannot be
//! re-signed without the key, so `djego verify ledger --checkpoints FILE`
//! names where the ledger no longer matches it.

pub mod bookings;
pub mod event_chain;
pub mod key;
pub mod log_audit;
pub mod merkle;
pub mod proofs;
pub mod schedule;
pub mod tree;
pub mod verify;

use diesel::prelude::*;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::significant_events::{self, EventKind};
use crate::store::schema::{checkpoints as cp, ledger_head};
use crate::store::{lock_for_update, now_us, AnyConnection, StoreError};

pub use key::{CheckpointKey, PublicKey};

/// The version tag that opens a version-1 signed message (heads only).
pub const MESSAGE_TAG: &str = "djego-checkpoint-v1";
/// The version tag that opens a version-2 signed message (heads and tree roots).
pub const MESSAGE_TAG_V2: &str = "djego-checkpoint-v2";
/// The version tag of an exported checkpoints file.
pub const EXPORT_FORMAT: &str = "djego-checkpoints-v1";

#[derive(Debug, thiserror::Error)]
pub enum CheckpointError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Db(#[from] diesel::result::Error),
    #[error(transparent)]
    Tree(#[from] tree::TreeError),
    /// A round's transfers as shown and as stored differ: a proof cannot be built.
    #[error("{0}")]
    Unprovable(String),
}

/// A stored checkpoint, as exported and as `GET /api/v1/audit/checkpoints`
/// lists it. `signed_message` is given for convenience; a verifier rebuilds it
/// from the fields and never trusts it.
#[derive(Queryable, Selectable, Insertable, Serialize, Deserialize, ToSchema, Debug, Clone, PartialEq)]
#[diesel(table_name = cp)]
pub struct Checkpoint {
    /// Position among the checkpoints, from 1.
    pub seq: i64,
    /// When it was signed, microseconds since the Unix epoch.
    pub taken_at_us: i64,
    /// The ledger's head: the last transfer's `seq` (0 for an empty ledger)...
    pub ledger_seq: i64,
    /// ...and its hash.
    pub ledger_hash: String,
    /// The significant-events chain's head: the last chained event's `seq`...
    pub events_seq: i64,
    /// ...and its hash.
    pub events_hash: String,
    /// The first 16 hex digits of SHA-256 of the public key.
    pub key_id: String,
    /// The Ed25519 public key, 64 hex digits.
    pub public_key: String,
    /// The Ed25519 signature of the signed message, 128 hex digits.
    pub signature: String,
    /// 2: the signature also covers both Merkle trees' roots; 1: heads only
    /// (checkpoints signed before the transparency log).
    #[serde(default = "version_1")]
    pub version: i32,
    /// Version 2: the root of the Merkle tree over the first `ledger_seq`
    /// transfers, 64 hex digits.
    #[serde(default)]
    pub transfers_root: Option<String>,
    /// Version 2: the root of the Merkle tree over the first `events_seq`
    /// chained events, 64 hex digits.
    #[serde(default)]
    pub events_root: Option<String>,
}

fn version_1() -> i32 {
    1
}

impl Checkpoint {
    /// The exact bytes signed: the compact JSON array
    /// `["djego-checkpoint-v2",seq,taken_at_us,ledger_seq,"ledger_hash",events_seq,"events_hash","transfers_root","events_root"]`,
    /// or for version 1
    /// `["djego-checkpoint-v1",seq,taken_at_us,ledger_seq,"ledger_hash",events_seq,"events_hash"]`.
    pub fn signed_message(&self) -> String {
        let tag = if self.version == 2 { MESSAGE_TAG_V2 } else { MESSAGE_TAG };
        let mut fields = vec![
            serde_json::json!(tag),
            self.seq.into(),
            self.taken_at_us.into(),
            self.ledger_seq.into(),
            self.ledger_hash.clone().into(),
            self.events_seq.into(),
            self.events_hash.clone().into(),
        ];
        if self.version == 2 {
            for root in [&self.transfers_root, &self.events_root] {
                fields.push(root.as_deref().unwrap_or("").into());
            }
        }
        serde_json::Value::Array(fields).to_string()
    }

    /// `taken_at_us` as an ISO 8601 time in UTC, for people.
    pub fn taken_at(&self) -> String {
        chrono::DateTime::from_timestamp_micros(self.taken_at_us)
            .map(|t| t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true))
            .unwrap_or_else(|| format!("{} µs", self.taken_at_us))
    }

    pub fn view(&self) -> CheckpointView {
        CheckpointView {
            signed_message: self.signed_message(),
            checkpoint: self.clone(),
        }
    }
}

#[derive(Serialize, Deserialize, ToSchema, Debug, Clone)]
pub struct CheckpointView {
    #[serde(flatten)]
    pub checkpoint: Checkpoint,
    /// The bytes that `signature` signs (UTF-8), rebuilt from the fields above.
    pub signed_message: String,
}

/// An exported checkpoints file (`djego checkpoint export`).
#[derive(Serialize, Deserialize, Debug)]
pub struct CheckpointsFile {
    pub format: String,
    pub exported_at_us: i64,
    pub checkpoints: Vec<CheckpointView>,
}

/// Who asked for a checkpoint, as the significant event records it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Trigger {
    /// The service's own timer.
    Schedule,
    /// `POST /api/v1/audit/checkpoints`.
    Request,
    /// `djego checkpoint take`.
    Command,
    /// A gaming day's close, signed as it is recorded.
    DayClose,
    /// A round's transcript or recall asked for a proof that no checkpoint covered yet.
    Proof,
}

impl Trigger {
    pub fn as_str(self) -> &'static str {
        match self {
            Trigger::Schedule => "schedule",
            Trigger::Request => "request",
            Trigger::Command => "command",
            Trigger::DayClose => "day_close",
            Trigger::Proof => "proof",
        }
    }
}

/// Takes a checkpoint inside the caller's write transaction: records the
/// significant event, seals the events chain (that event included), signs
/// both heads and stores the checkpoint.
pub fn take(
    conn: &mut AnyConnection,
    key: &CheckpointKey,
    actor_id: Option<&str>,
    trigger: Trigger,
) -> Result<Checkpoint, CheckpointError> {
    lock_checkpoints(conn)?;
    take_locked(conn, key, actor_id, trigger)
}

/// Like [`take`], unless neither the ledger nor the events changed since the
/// last checkpoint.
pub fn take_if_changed(conn: &mut AnyConnection, key: &CheckpointKey) -> Result<Option<Checkpoint>, CheckpointError> {
    lock_checkpoints(conn)?;
    if let Some(last) = latest(conn)? {
        let (head_seq, _) = read_ledger_head(conn)?;
        if head_seq == last.ledger_seq && !event_chain::has_unsealed(conn)? {
            return Ok(None);
        }
    }
    take_locked(conn, key, None, Trigger::Schedule).map(Some)
}

/// Instances that checkpoint at the same moment take turns (PostgreSQL; on
/// SQLite writers already do), so the events chain never forks.
pub(crate) fn lock_checkpoints(conn: &mut AnyConnection) -> QueryResult<()> {
    const CHECKPOINT_LOCK: i64 = 0x646a65676f02; // "djego" + 2
    lock_for_update(conn, &format!("SELECT pg_advisory_xact_lock({CHECKPOINT_LOCK})"))
}

fn read_ledger_head(conn: &mut AnyConnection) -> QueryResult<(i64, String)> {
    ledger_head::table
        .find(1)
        .select((ledger_head::seq, ledger_head::hash))
        .first(conn)
}

pub(crate) fn take_locked(
    conn: &mut AnyConnection,
    key: &CheckpointKey,
    actor_id: Option<&str>,
    trigger: Trigger,
) -> Result<Checkpoint, CheckpointError> {
    let seq = latest(conn)?.map_or(1, |c| c.seq + 1);
    // The head as last committed: every transfer up to it is committed too.
    let (ledger_seq, ledger_hash) = read_ledger_head(conn)?;
    let public = key.public_key();
    significant_events::record(
        conn,
        EventKind::CheckpointTaken,
        actor_id,
        None,
        serde_json::json!({
            "checkpoint": seq,
            "ledger_seq": ledger_seq,
            "ledger_hash": ledger_hash,
            "key_id": public.key_id(),
            "trigger": trigger.as_str(),
        }),
    )?;
    let (events_seq, events_hash) = event_chain::seal(conn)?;
    // The trees take the leaves added since the last checkpoint, off the wager path.
    let transfers_root = tree::extend_transfers(conn, ledger_seq)?;
    let events_root = tree::extend_events(conn, events_seq)?;
    let mut checkpoint = Checkpoint {
        seq,
        taken_at_us: now_us(),
        ledger_seq,
        ledger_hash,
        events_seq,
        events_hash,
        key_id: public.key_id(),
        public_key: public.to_hex(),
        signature: String::new(),
        version: 2,
        transfers_root: Some(tree::to_hex(&transfers_root)),
        events_root: Some(tree::to_hex(&events_root)),
    };
    checkpoint.signature = key.sign(checkpoint.signed_message().as_bytes());
    diesel::insert_into(cp::table).values(&checkpoint).execute(conn)?;
    Ok(checkpoint)
}

pub fn latest(conn: &mut AnyConnection) -> QueryResult<Option<Checkpoint>> {
    cp::table
        .select(Checkpoint::as_select())
        .order(cp::seq.desc())
        .first(conn)
        .optional()
}

/// Checkpoints in order, a page at a time.
pub fn list(conn: &mut AnyConnection, limit: i64, offset: i64) -> QueryResult<Vec<Checkpoint>> {
    cp::table
        .select(Checkpoint::as_select())
        .order(cp::seq.asc())
        .limit(limit)
        .offset(offset)
        .load(conn)
}

/// Every checkpoint, in order.
pub fn all(conn: &mut AnyConnection) -> QueryResult<Vec<Checkpoint>> {
    cp::table
        .select(Checkpoint::as_select())
        .order(cp::seq.asc())
        .load(conn)
}
