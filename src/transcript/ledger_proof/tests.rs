//! A ledger proof built in memory the way the service builds one, checked, and every way of
//! doctoring the document or the proof refused.

use super::*;
use crate::checkpoints::tree::{to_hex, transfer_leaf};
use crate::checkpoints::{event_chain, CheckpointError, CheckpointKey};
use crate::ledger::Transfer;
use crate::rounds::ledger_proof::assemble;
use crate::significant_events::SignificantEvent;
use crate::transcript::{transfer_entries, Pseudonyms};

const ROUND: &str = "round-7";
const TABLE: &str = "table-1";

fn transfer(
    seq: i64,
    round: Option<&str>,
    debit: &str,
    credit: &str,
    amount_minor: i64,
    bet: Option<&str>,
) -> Transfer {
    Transfer {
        seq,
        id: format!("t{seq}"),
        debit_account: debit.to_owned(),
        credit_account: credit.to_owned(),
        amount_minor,
        kind: if bet.is_some() { "bet" } else { "copa" }.to_owned(),
        user_id: None,
        table_id: Some(TABLE.to_owned()),
        round_id: round.map(str::to_owned),
        bet_id: bet.map(str::to_owned),
        idempotency_key: None,
        memo: None,
        created_at_us: 1_000 + seq,
        prev_hash: "0".repeat(64),
        hash: format!("{seq:064x}"),
    }
}

fn event(id: &str, kind: &str, subject: Option<&str>, details: String) -> SignificantEvent {
    SignificantEvent {
        id: id.to_owned(),
        at_us: 5_000,
        kind: kind.to_owned(),
        actor_id: None,
        subject: subject.map(str::to_owned),
        details,
    }
}

/// A ledger of 11 transfers, 6 of them the round's; an events log of 4 with the round's booking
/// third; a signed head over both; and the round's transcript transfers with their proof.
struct Fixture {
    key: CheckpointKey,
    shown: Vec<TransferEntry<'static>>,
    proof: LedgerProof,
}

fn fixture() -> Fixture {
    let round = Some(ROUND);
    let ledger = vec![
        transfer(1, None, "cage", "wallet:alice", 10_000, None),
        transfer(2, None, "cage", "wallet:bob", 10_000, None),
        transfer(3, round, "wallet:alice", "pot:round-7", 500, None),
        transfer(4, Some("round-6"), "wallet:bob", "pot:round-6", 500, None),
        transfer(5, round, "wallet:bob", "pot:round-7", 500, None),
        transfer(6, round, "wallet:bob", "escrow:round-7", 200, Some("bet-1")),
        transfer(7, round, "wallet:alice", "escrow:round-7", 300, Some("bet-2")),
        transfer(8, None, "cage", "wallet:carol", 10_000, None),
        transfer(9, round, "escrow:round-7", "house", 300, Some("bet-2")),
        transfer(10, round, "pot:round-7", "wallet:alice", 1_000, None),
        transfer(11, None, "cage", "wallet:dave", 10_000, None),
    ];
    let mut transfers_tree = MemoryTree::new();
    for t in &ledger {
        transfers_tree.push(transfer_leaf(t));
    }
    let stored: Vec<Transfer> = ledger
        .iter()
        .filter(|t| t.round_id.as_deref() == round)
        .cloned()
        .collect();
    let mut round_leaves = MemoryTree::new();
    for t in &stored {
        round_leaves.push(transfer_leaf(t));
    }
    let details = serde_json::to_string(&BookingDetails {
        game: "prima_carta".into(),
        round_id: ROUND.into(),
        transfers: stored.len() as u64,
        transfers_root: to_hex(&round_leaves.root(round_leaves.len())),
    })
    .unwrap();
    let events = [
        event("e1", "table_opened", Some(TABLE), "{}".into()),
        event("e2", "round_booked", Some("round-6"), "{}".into()),
        event("e3", BOOKING_KIND, Some(ROUND), details),
        event("e4", "checkpoint_taken", None, "{}".into()),
    ];
    let mut events_tree = MemoryTree::new();
    for (i, e) in events.iter().enumerate() {
        events_tree.push(merkle::leaf_hash(event_chain::canonical(i as i64 + 1, e).as_bytes()));
    }
    let key = CheckpointKey::generate();
    let public = key.public_key();
    let mut head = Checkpoint {
        seq: 3,
        taken_at_us: 9_000,
        ledger_seq: 11,
        ledger_hash: "a".repeat(64),
        events_seq: 4,
        events_hash: "b".repeat(64),
        key_id: public.key_id(),
        public_key: public.to_hex(),
        signature: String::new(),
        version: 2,
        transfers_root: Some(to_hex(&transfers_tree.root(11))),
        events_root: Some(to_hex(&events_tree.root(4))),
    };
    head.signature = key.sign(head.signed_message().as_bytes());
    let shown = transfer_entries(&stored, &mut Pseudonyms::default(), ROUND, TABLE);
    let hex_path = |tree: &mut MemoryTree, index: u64, size: u64| -> Vec<String> {
        merkle::inclusion_proof(tree, index, size)
            .unwrap_or_else(|e| match e {})
            .iter()
            .map(to_hex)
            .collect()
    };
    let booking = BookingProof {
        seq: 3,
        leaf: event_chain::canonical(3, &events[2]),
        path: hex_path(&mut events_tree, 2, 4),
    };
    let proof = assemble(
        &head,
        &stored,
        &shown,
        |seq| Ok::<_, CheckpointError>(hex_path(&mut transfers_tree, (seq - 1) as u64, 11)),
        booking,
    )
    .unwrap();
    Fixture { key, shown, proof }
}

fn checked(f: &Fixture) -> Result<String, String> {
    check(ROUND, TABLE, &f.shown, &f.proof, &[])
}

#[test]
fn an_honest_proof_checks_under_its_key_and_under_the_pinned_key() {
    let f = fixture();
    let detail = checked(&f).unwrap();
    assert!(detail.contains("all 6 of the round's transfers"), "{detail}");
    assert!(detail.contains("not pinned"), "{detail}");
    let pinned = check(ROUND, TABLE, &f.shown, &f.proof, &[f.key.public_key()]).unwrap();
    assert!(pinned.contains("the pinned key"), "{pinned}");
    assert_eq!(f.proof.wallets.len(), 2, "alice and bob, as P1 and P2");
}

#[test]
fn a_doctored_transfer_fails() {
    let mut f = fixture();
    f.shown[4].amount = "2.00".into();
    let why = checked(&f).unwrap_err();
    assert!(why.contains("transfer 4 (seq 9) is not in the ledger"), "{why}");
    let mut f = fixture();
    f.shown[0].to = "house".into();
    assert!(checked(&f).unwrap_err().contains("transfer 0"));
    let mut f = fixture();
    f.proof.transfers[2].bet_id = Some("bet-9".into());
    assert!(checked(&f).unwrap_err().contains("transfer 2"));
}

#[test]
fn removing_a_bet_with_its_transfers_fails_on_the_booking() {
    // bet-2 lost: its stake in (seq 7) and out to the house (seq 9), gone from document and proof.
    let mut f = fixture();
    for i in [4, 3] {
        f.shown.remove(i);
        f.proof.transfers.remove(i);
    }
    let why = checked(&f).unwrap_err();
    assert!(
        why.contains("the round's booking commits to 6 transfers, the document shows 4"),
        "{why}"
    );
}

#[test]
fn a_booking_of_another_round_or_doctored_fails() {
    let mut f = fixture();
    f.proof.booking.leaf = f
        .proof
        .booking
        .leaf
        .replace("\\\"transfers\\\":6", "\\\"transfers\\\":4");
    assert!(checked(&f).is_err());
    let mut f = fixture();
    f.proof.booking.seq = 2;
    assert!(checked(&f).unwrap_err().contains("not the event it claims to be"));
    let mut f = fixture();
    f.proof.booking.path[0] = "0".repeat(64);
    assert!(checked(&f).unwrap_err().contains("is not in the events log"));
}

#[test]
fn a_forged_or_truncated_head_fails() {
    // Re-signed by another key: checks under its own key, fails under the pinned one.
    let mut f = fixture();
    let forger = CheckpointKey::generate();
    let mut head = f.proof.checkpoint.checkpoint();
    head.key_id = forger.public_key().key_id();
    head.public_key = forger.public_key().to_hex();
    head.signature = forger.sign(head.signed_message().as_bytes());
    f.proof.checkpoint = SignedHead::of(&head).unwrap();
    assert!(checked(&f).is_ok());
    let why = check(ROUND, TABLE, &f.shown, &f.proof, &[f.key.public_key()]).unwrap_err();
    assert!(why.contains("not by the pinned key"), "{why}");
    // A root changed without re-signing.
    let mut f = fixture();
    f.proof.checkpoint.transfers_root = "0".repeat(64);
    assert!(checked(&f).unwrap_err().contains("signature does not verify"));
    // A head whose tree stops before the round's last transfer.
    let mut f = fixture();
    f.proof.checkpoint.ledger_seq = 9;
    let forged = f.proof.checkpoint.checkpoint();
    f.proof.checkpoint.signature = f.key.sign(forged.signed_message().as_bytes());
    assert!(checked(&f).unwrap_err().contains("transfer"));
}

#[test]
fn a_missing_proof_fails_only_when_required() {
    let f = fixture();
    assert!(report(ROUND, TABLE, &f.shown, None, &ProofPolicy::default()).is_none());
    let required = ProofPolicy::pinned(vec![f.key.public_key()]);
    let c = report(ROUND, TABLE, &f.shown, None, &required).unwrap();
    assert!(!c.passed && c.detail.starts_with("not included"));
    let c = report(ROUND, TABLE, &f.shown, Some(&f.proof), &required).unwrap();
    assert!(c.passed, "{}", c.detail);
}

#[test]
fn the_proof_reads_strictly() {
    let f = fixture();
    let mut doc = serde_json::to_value(&f.proof).unwrap();
    assert_eq!(serde_json::from_value::<LedgerProof>(doc.clone()).unwrap(), f.proof);
    doc["checkpoint"]["version"] = 2.into();
    assert!(serde_json::from_value::<LedgerProof>(doc.clone()).is_err());
    let mut doc = serde_json::to_value(&f.proof).unwrap();
    doc["transfers"][0].as_object_mut().unwrap().remove("bet_id");
    assert!(serde_json::from_value::<LedgerProof>(doc).is_err());
}

#[test]
fn the_booking_is_the_significant_event_of_that_kind() {
    assert_eq!(crate::significant_events::EventKind::RoundBooked.as_str(), BOOKING_KIND);
}
