//! Inclusion and consistency proofs against signed tree heads, as the audit
//! endpoints serve them (docs/ledger.md, "The transparency log").

use diesel::prelude::*;
use serde::Serialize;
use utoipa::ToSchema;

use super::tree::{self, Tree, TreeError};
use super::{Checkpoint, CheckpointView};
use crate::store::schema::checkpoints as cp;
use crate::store::AnyConnection;

#[derive(Debug, thiserror::Error)]
pub enum ProofError {
    #[error("no such checkpoint: {0}")]
    NoCheckpoint(i64),
    #[error("no version-2 checkpoint signs a tree yet: take one first")]
    NoTreeHead,
    #[error("checkpoint {0} is version 1: it signs no tree")]
    Version1(i64),
    #[error("{what} {seq} is not covered by checkpoint {checkpoint}, whose {tree} tree has {size} leaves")]
    NotCovered {
        what: &'static str,
        seq: i64,
        checkpoint: i64,
        tree: &'static str,
        size: i64,
    },
    #[error("checkpoint {from} is not older than checkpoint {to}")]
    Order { from: i64, to: i64 },
    #[error(transparent)]
    Tree(#[from] TreeError),
    #[error(transparent)]
    Db(#[from] diesel::result::Error),
}

#[derive(Serialize, ToSchema, Debug, Clone)]
pub struct InclusionProof {
    /// `transfers` or `events`.
    pub tree: String,
    /// The transfer's or the chained event's `seq`; its leaf index is `seq - 1`.
    pub seq: i64,
    pub leaf_index: i64,
    /// The leaf's hash, `SHA-256(0x00 ‖ leaf data)`, 64 hex digits.
    pub leaf_hash: String,
    /// The tree's size at the checkpoint (its `ledger_seq` or `events_seq`).
    pub tree_size: i64,
    /// The audit path, leaf end first, each 64 hex digits.
    pub proof: Vec<String>,
    /// The signed head the proof leads to.
    pub checkpoint: CheckpointView,
}

#[derive(Serialize, ToSchema, Debug, Clone)]
pub struct ConsistencyProof {
    pub tree: String,
    pub old_size: i64,
    pub new_size: i64,
    /// The hashes that show the older tree is a prefix of the newer, 64 hex digits each.
    pub proof: Vec<String>,
    pub from: CheckpointView,
    pub to: CheckpointView,
}

fn head(conn: &mut AnyConnection, seq: Option<i64>) -> Result<Checkpoint, ProofError> {
    let found = match seq {
        Some(seq) => cp::table
            .find(seq)
            .select(Checkpoint::as_select())
            .first(conn)
            .optional()?
            .ok_or(ProofError::NoCheckpoint(seq))?,
        None => cp::table
            .filter(cp::version.eq(2))
            .select(Checkpoint::as_select())
            .order(cp::seq.desc())
            .first(conn)
            .optional()?
            .ok_or(ProofError::NoTreeHead)?,
    };
    if found.version != 2 {
        return Err(ProofError::Version1(found.seq));
    }
    Ok(found)
}

fn size_of(c: &Checkpoint, which: Tree) -> i64 {
    match which {
        Tree::Transfers => c.ledger_seq,
        Tree::Events => c.events_seq,
    }
}

/// The inclusion proof of the transfer or chained event at `seq` against
/// checkpoint `checkpoint` (the latest version-2 one when `None`).
pub fn inclusion(
    conn: &mut AnyConnection,
    which: Tree,
    seq: i64,
    checkpoint: Option<i64>,
) -> Result<InclusionProof, ProofError> {
    let c = head(conn, checkpoint)?;
    let size = size_of(&c, which);
    if seq < 1 || seq > size {
        return Err(ProofError::NotCovered {
            what: match which {
                Tree::Transfers => "transfer",
                Tree::Events => "event",
            },
            seq,
            checkpoint: c.seq,
            tree: which.as_str(),
            size,
        });
    }
    let mut nodes = tree::DbNodes::new(conn, which);
    let leaf = super::merkle::Nodes::node(&mut nodes, 0, (seq - 1) as u64)?;
    let proof = tree::inclusion_proof(conn, which, (seq - 1) as u64, size as u64)?;
    Ok(InclusionProof {
        tree: which.as_str().to_string(),
        seq,
        leaf_index: seq - 1,
        leaf_hash: tree::to_hex(&leaf),
        tree_size: size,
        proof,
        checkpoint: c.view(),
    })
}

/// The consistency proof between two version-2 checkpoints' trees.
pub fn consistency(conn: &mut AnyConnection, which: Tree, from: i64, to: i64) -> Result<ConsistencyProof, ProofError> {
    if from >= to {
        return Err(ProofError::Order { from, to });
    }
    let (old, new) = (head(conn, Some(from))?, head(conn, Some(to))?);
    let (old_size, new_size) = (size_of(&old, which), size_of(&new, which));
    let proof = tree::consistency_proof(conn, which, old_size as u64, new_size.max(old_size) as u64)?;
    Ok(ConsistencyProof {
        tree: which.as_str().to_string(),
        old_size,
        new_size,
        proof,
        from: old.view(),
        to: new.view(),
    })
}
