//! The tamper-evident hash chain over transfers.
//!
//! `hash = hex(SHA-256(prev_hash + "\n" + canonical))`, where `canonical` is
//! the JSON array of the transfer's fields in a fixed order (see
//! docs/ledger.md). Any edit to a stored transfer changes its hash, and so
//! breaks the link to every later one.

use sha2::{Digest, Sha256};

use super::post::Transfer;

pub const GENESIS_HASH: &str = "0000000000000000000000000000000000000000000000000000000000000000";

pub fn canonical_bytes(t: &Transfer) -> String {
    serde_json::json!([
        "djego-transfer-v1",
        t.seq,
        t.id,
        t.debit_account,
        t.credit_account,
        t.amount_minor,
        t.kind,
        t.user_id,
        t.table_id,
        t.round_id,
        t.bet_id,
        t.idempotency_key,
        t.memo,
        t.created_at_us,
    ])
    .to_string()
}

pub fn transfer_hash(prev_hash: &str, t: &Transfer) -> String {
    link_hash(prev_hash, &canonical_bytes(t))
}

/// One link of a hash chain: `hex(SHA-256(prev_hash + "\n" + canonical))`.
/// The significant-events chain is built the same way.
pub fn link_hash(prev_hash: &str, canonical: &str) -> String {
    let mut h = Sha256::new();
    h.update(prev_hash.as_bytes());
    h.update(b"\n");
    h.update(canonical.as_bytes());
    hex::encode(h.finalize())
}
