//! A round's proof against the signed ledger (docs/transcript.md, "The
//! ledger proof"): that every transfer a round's document shows is in the
//! transparency log under a signed tree head, and that these are all of the
//! round's transfers, as the round's booking (a significant event in the log)
//! commits. Pure: the verifiers call [`check`]; the service builds proofs in
//! `checkpoints::round_booking`.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::TransferEntry;
use crate::cards::transcript::{fail, pass, Check};
pub use crate::checkpoints::bookings::{BookingDetails, BOOKING_KIND};
use crate::checkpoints::merkle::{self, Hash, MemoryTree};
use crate::checkpoints::tree::{from_hex, transfer_leaf_data};
use crate::checkpoints::{Checkpoint, PublicKey};

/// The check's name in a verification report.
pub const CHECK_NAME: &str = "ledger_proof";

/// Carried by a round's transcript or recall when served one at a time.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct LedgerProof {
    /// The signed tree head every path below leads to.
    pub checkpoint: SignedHead,
    /// The tag of each pseudonym's wallet in this round's leaves, in order of first appearance.
    pub wallets: Vec<WalletTag>,
    /// One per transfer the document shows, in the same order.
    pub transfers: Vec<TransferProof>,
    /// The round's booking.
    pub booking: BookingProof,
}

/// A version-2 checkpoint: the fields its signature covers, the key and the signature.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct SignedHead {
    pub seq: i64,
    pub taken_at_us: i64,
    pub ledger_seq: i64,
    pub ledger_hash: String,
    pub events_seq: i64,
    pub events_hash: String,
    pub transfers_root: String,
    pub events_root: String,
    pub key_id: String,
    pub public_key: String,
    pub signature: String,
}

impl SignedHead {
    /// The head of a version-2 checkpoint (`None` for version 1, which signs no tree).
    pub fn of(c: &Checkpoint) -> Option<SignedHead> {
        Some(SignedHead {
            seq: c.seq,
            taken_at_us: c.taken_at_us,
            ledger_seq: c.ledger_seq,
            ledger_hash: c.ledger_hash.clone(),
            events_seq: c.events_seq,
            events_hash: c.events_hash.clone(),
            transfers_root: c.transfers_root.clone().filter(|_| c.version == 2)?,
            events_root: c.events_root.clone()?,
            key_id: c.key_id.clone(),
            public_key: c.public_key.clone(),
            signature: c.signature.clone(),
        })
    }

    fn checkpoint(&self) -> Checkpoint {
        Checkpoint {
            seq: self.seq,
            taken_at_us: self.taken_at_us,
            ledger_seq: self.ledger_seq,
            ledger_hash: self.ledger_hash.clone(),
            events_seq: self.events_seq,
            events_hash: self.events_hash.clone(),
            key_id: self.key_id.clone(),
            public_key: self.public_key.clone(),
            signature: self.signature.clone(),
            version: 2,
            transfers_root: Some(self.transfers_root.clone()),
            events_root: Some(self.events_root.clone()),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct WalletTag {
    /// The pseudonym (`P1`, …).
    pub player: String,
    /// 32 hex digits: `SHA-256("djego-wallet-v1\n" ‖ round_id ‖ "\n" ‖ user_id)`, first half.
    pub tag: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct TransferProof {
    /// The transfer's `seq`; its leaf index is `seq - 1`.
    pub seq: i64,
    /// The bet the transfer belongs to (null when none): part of the leaf.
    #[serde(deserialize_with = "Option::deserialize")]
    pub bet_id: Option<String>,
    /// The audit path to `transfers_root`, leaf end first.
    pub path: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct BookingProof {
    /// The booking's `seq` in the events chain; its leaf index is `seq - 1`.
    pub seq: i64,
    /// The booking's leaf data, exactly: `["djego-event-v1",seq,id,at_us,"round_booked",null,round_id,details]`
    /// with `details` the JSON text `{"game":…,"round_id":…,"transfers":n,"transfers_root":…}`.
    pub leaf: String,
    /// The audit path to `events_root`, leaf end first.
    pub path: Vec<String>,
}

/// What a verifier asks of a document's ledger proof.
#[derive(Clone, Debug, Default)]
pub struct ProofPolicy {
    /// The keys the head must be signed by (any of them); empty: the key the head carries.
    pub pinned: Vec<PublicKey>,
    /// A document without a proof fails (set whenever a key is pinned).
    pub required: bool,
}

impl ProofPolicy {
    pub fn pinned(keys: Vec<PublicKey>) -> ProofPolicy {
        ProofPolicy {
            required: !keys.is_empty(),
            pinned: keys,
        }
    }
}

/// The `ledger_proof` check of a document, or none when it carries no proof and none is required.
pub fn report(
    round_id: &str,
    table_id: &str,
    transfers: &[TransferEntry],
    proof: Option<&LedgerProof>,
    policy: &ProofPolicy,
) -> Option<Check> {
    match proof {
        Some(proof) => Some(match check(round_id, table_id, transfers, proof, &policy.pinned) {
            Ok(detail) => pass(CHECK_NAME, detail),
            Err(why) => fail(CHECK_NAME, None, why),
        }),
        None if policy.required => Some(fail(
            CHECK_NAME,
            None,
            "not included: nothing shows these transfers are in the signed ledger (a round's transcript or recall \
             fetched on its own carries the proof)",
        )),
        None => None,
    }
}

/// The `ledger_proof` check of a recall read as JSON: its `transfers` and `ledger_proof`, for the
/// round and table whose ids are at the JSON pointers given.
pub fn report_document(
    doc: &serde_json::Value,
    round_id_at: &str,
    table_id_at: &str,
    policy: &ProofPolicy,
) -> Option<Check> {
    let proof = match doc.get("ledger_proof") {
        None => None,
        Some(p) => match LedgerProof::deserialize(p) {
            Ok(p) => Some(p),
            Err(e) => return Some(fail(CHECK_NAME, None, format!("the ledger proof does not read: {e}"))),
        },
    };
    let ids = (
        doc.pointer(round_id_at).and_then(|v| v.as_str()),
        doc.pointer(table_id_at).and_then(|v| v.as_str()),
    );
    let transfers = doc.get("transfers").map(Vec::<TransferEntry>::deserialize);
    match (ids, transfers) {
        ((Some(round_id), Some(table_id)), Some(Ok(transfers))) => {
            report(round_id, table_id, &transfers, proof.as_ref(), policy)
        }
        _ if proof.is_none() && !policy.required => None,
        _ => Some(fail(
            CHECK_NAME,
            None,
            "not checked: the document's round, table or transfers do not read",
        )),
    }
}

/// Checks `proof` for a round's `transfers` as its document names them; the detail on
/// success, the first failure otherwise.
pub fn check(
    round_id: &str,
    table_id: &str,
    transfers: &[TransferEntry],
    proof: &LedgerProof,
    pinned: &[PublicKey],
) -> Result<String, String> {
    let head = &proof.checkpoint;
    crate::checkpoints::verify::check_signature(&head.checkpoint(), pinned)?;
    let transfers_root = root_of(&head.transfers_root, "transfers_root")?;
    let events_root = root_of(&head.events_root, "events_root")?;
    if proof.transfers.len() != transfers.len() {
        return Err(format!(
            "the proof covers {} transfers but the document shows {}",
            proof.transfers.len(),
            transfers.len()
        ));
    }
    let tags = wallet_tags(&proof.wallets)?;
    let mut leaves = MemoryTree::new();
    let mut previous = 0i64;
    for (i, (entry, p)) in transfers.iter().zip(&proof.transfers).enumerate() {
        if p.seq != entry.seq {
            return Err(format!(
                "transfer {i}: the proof is for transfer {}, not {}",
                p.seq, entry.seq
            ));
        }
        if entry.seq <= previous {
            return Err(format!("transfer {i}: transfer {} is out of ledger order", entry.seq));
        }
        previous = entry.seq;
        let amount = crate::domain::Amount::parse(&entry.amount)
            .map_err(|_| format!("transfer {i}: amount {:?} is not an amount", entry.amount))?;
        let data = transfer_leaf_data(
            entry.seq,
            &entry.kind,
            &leaf_account(&entry.from, round_id, table_id, &tags).map_err(|e| format!("transfer {i}: {e}"))?,
            &leaf_account(&entry.to, round_id, table_id, &tags).map_err(|e| format!("transfer {i}: {e}"))?,
            amount.minor(),
            Some(round_id),
            p.bet_id.as_deref(),
            &entry.hash,
        );
        let leaf = merkle::leaf_hash(data.as_bytes());
        if !included(&leaf, entry.seq, head.ledger_seq, &p.path, &transfers_root) {
            return Err(format!(
                "transfer {i} (seq {}) is not in the ledger that checkpoint {} signs: its path does not lead from \
                 this transfer to the signed root of {} transfers",
                entry.seq, head.seq, head.ledger_seq
            ));
        }
        leaves.push(leaf);
    }
    let booking = booking_details(&proof.booking, round_id)?;
    if booking.transfers != transfers.len() as u64 {
        return Err(format!(
            "the round's booking commits to {} transfers, the document shows {}",
            booking.transfers,
            transfers.len()
        ));
    }
    let shown_root = crate::checkpoints::tree::to_hex(&leaves.root(leaves.len()));
    if booking.transfers_root != shown_root {
        return Err("the round's booking commits to other transfers than the document shows".to_string());
    }
    let booking_leaf = merkle::leaf_hash(proof.booking.leaf.as_bytes());
    if !included(
        &booking_leaf,
        proof.booking.seq,
        head.events_seq,
        &proof.booking.path,
        &events_root,
    ) {
        return Err(format!(
            "the round's booking (event {}) is not in the events log that checkpoint {} signs",
            proof.booking.seq, head.seq
        ));
    }
    let key = if pinned.is_empty() {
        format!("key {}, not pinned", head.key_id)
    } else {
        format!("the pinned key {}", head.key_id)
    };
    Ok(format!(
        "all {} of the round's transfers are in the ledger signed by checkpoint {} ({key}), as the round's booking \
         commits",
        transfers.len(),
        head.seq
    ))
}

fn root_of(text: &str, field: &str) -> Result<Hash, String> {
    from_hex(text).ok_or_else(|| format!("the checkpoint's {field} is not 64 hex digits"))
}

fn included(leaf: &Hash, seq: i64, size: i64, path: &[String], root: &Hash) -> bool {
    if seq < 1 || seq > size {
        return false;
    }
    let Some(path) = path.iter().map(|h| from_hex(h)).collect::<Option<Vec<Hash>>>() else {
        return false;
    };
    merkle::verify_inclusion(leaf, (seq - 1) as u64, size as u64, &path, root)
}

fn wallet_tags(wallets: &[WalletTag]) -> Result<Vec<(&str, &str)>, String> {
    let mut tags: Vec<(&str, &str)> = Vec::with_capacity(wallets.len());
    for w in wallets {
        if w.tag.len() != 32 || !w.tag.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b)) {
            return Err(format!("the wallet tag of {} is not 32 lowercase hex digits", w.player));
        }
        if tags.iter().any(|(p, _)| *p == w.player) {
            return Err(format!("{} has two wallet tags", w.player));
        }
        tags.push((&w.player, &w.tag));
    }
    Ok(tags)
}

/// The account as the round's leaves name it, from the name a document shows.
fn leaf_account(shown: &str, round_id: &str, table_id: &str, tags: &[(&str, &str)]) -> Result<String, String> {
    Ok(match shown {
        "pot" => format!("pot:{round_id}"),
        "escrow" => format!("escrow:{round_id}"),
        "cobre" => format!("cobre:{table_id}"),
        _ => match shown.strip_prefix("wallet:") {
            Some(player) => {
                let (_, tag) = tags
                    .iter()
                    .find(|(p, _)| *p == player)
                    .ok_or_else(|| format!("no wallet tag for {player}"))?;
                format!("wallet#{tag}")
            }
            None => shown.to_owned(),
        },
    })
}

/// The booking's details, once its leaf is shown to be this round's booking.
fn booking_details(booking: &BookingProof, round_id: &str) -> Result<BookingDetails, String> {
    let bad = |why: &str| format!("the round's booking: {why}");
    let fields: Vec<serde_json::Value> =
        serde_json::from_str(&booking.leaf).map_err(|_| bad("its leaf is not a JSON array"))?;
    let [tag, seq, _id, _at, kind, _actor, subject, details] = fields.as_slice() else {
        return Err(bad("its leaf does not have the eight fields of an event"));
    };
    if tag != "djego-event-v1" || seq.as_i64() != Some(booking.seq) {
        return Err(bad("its leaf is not the event it claims to be"));
    }
    if kind != BOOKING_KIND || subject != round_id {
        return Err(bad("the event is not this round's booking"));
    }
    let details: BookingDetails = details
        .as_str()
        .and_then(|d| serde_json::from_str(d).ok())
        .ok_or_else(|| bad("its details do not read"))?;
    if details.round_id != round_id {
        return Err(bad("the event is not this round's booking"));
    }
    Ok(details)
}

#[cfg(test)]
mod tests;
