//! The auditor's checks of the transparency log (docs/ledger.md, "The
//! transparency log"): every version-2 checkpoint's roots against the trees
//! recomputed from the transfers and the chained events themselves, and a
//! consistency proof, built from the stored nodes, between each pair of
//! consecutive signed heads.

use diesel::QueryResult;

use super::merkle::{self, Hash};
use super::tree::{self, DbNodes, Tree};
use super::verify::CheckpointFailure;
use super::Checkpoint;
use crate::store::AnyConnection;

/// Failures of the signed tree heads among `signed` (checkpoints whose
/// signature already checked); version-1 checkpoints sign no tree.
pub fn check(conn: &mut AnyConnection, signed: &[&Checkpoint]) -> QueryResult<Vec<CheckpointFailure>> {
    let mut heads: Vec<&Checkpoint> = signed.iter().copied().filter(|c| c.version == 2).collect();
    if heads.is_empty() {
        return Ok(Vec::new());
    }
    heads.sort_by_key(|c| c.seq);
    let (mut transfers, mut events) = tree::recompute(conn)?;
    let mut failures = Vec::new();
    let mut fail = |c: &Checkpoint, reason: String| {
        failures.push(CheckpointFailure {
            checkpoint: c.seq,
            reason,
        })
    };
    for c in &heads {
        let signed = format!("checkpoint {} (signed at {})", c.seq, c.taken_at());
        for (name, recomputed, size, root) in [
            ("transfers", &mut transfers, c.ledger_seq, &c.transfers_root),
            ("events", &mut events, c.events_seq, &c.events_root),
        ] {
            let Some(root) = root.as_deref().and_then(tree::from_hex) else {
                fail(c, format!("{signed} has no valid {name} root"));
                continue;
            };
            if size < 0 || recomputed.len() < size as u64 {
                fail(
                    c,
                    format!(
                        "the {name} tree has {} leaves but {signed} covers {size}: truncated",
                        recomputed.len()
                    ),
                );
            } else if recomputed.root(size as u64) != root {
                fail(
                    c,
                    format!("the {name} tree's first {size} leaves do not hash to the root {signed}: rewritten"),
                );
            }
        }
    }
    for pair in heads.windows(2) {
        let (old, new) = (pair[0], pair[1]);
        for (which, old_size, new_size, old_root, new_root) in [
            (
                Tree::Transfers,
                old.ledger_seq,
                new.ledger_seq,
                &old.transfers_root,
                &new.transfers_root,
            ),
            (
                Tree::Events,
                old.events_seq,
                new.events_seq,
                &old.events_root,
                &new.events_root,
            ),
        ] {
            let (Some(old_root), Some(new_root)) = (
                old_root.as_deref().and_then(tree::from_hex),
                new_root.as_deref().and_then(tree::from_hex),
            ) else {
                continue; // Reported above.
            };
            if let Some(reason) = consistency(conn, which, old_size, new_size, &old_root, &new_root) {
                fail(
                    new,
                    format!(
                        "checkpoint {} does not extend checkpoint {}: the {} tree {reason}",
                        new.seq,
                        old.seq,
                        which.as_str()
                    ),
                );
            }
        }
    }
    Ok(failures)
}

/// Why the stored tree cannot prove that `old` is a prefix of `new`, if so.
fn consistency(
    conn: &mut AnyConnection,
    which: Tree,
    old_size: i64,
    new_size: i64,
    old_root: &Hash,
    new_root: &Hash,
) -> Option<String> {
    if old_size < 0 || new_size < old_size {
        return Some(format!("shrinks from {old_size} to {new_size} leaves"));
    }
    let mut nodes = DbNodes::new(conn, which);
    match merkle::consistency_proof(&mut nodes, old_size as u64, new_size as u64) {
        Err(e) => Some(format!("gives no consistency proof: {e}")),
        Ok(proof) if !merkle::verify_consistency(old_size as u64, new_size as u64, old_root, new_root, &proof) => Some(
            format!("has no valid consistency proof from {old_size} to {new_size} leaves"),
        ),
        Ok(_) => None,
    }
}
