//! The transparency log's two trees in the database (docs/ledger.md, "The
//! transparency log"): one leaf per transfer (leaf `i` is the transfer with
//! `seq` `i + 1`) and one per chained significant event (leaf `i` is the
//! event chained at `seq` `i + 1`). A checkpoint appends the leaves added
//! since the last one and every complete subtree they close to the
//! insert-only `merkle_nodes`, so that any proof is a handful of reads.
//!
//! A transfer's leaf is built so that a round transcript, which names
//! players only by pseudonym, can recompute it: a wallet appears as a tag
//! (a hash of the round and the owner) that the transcript carries with the
//! pseudonym, the round's pot and escrow and the table's cobre by their ids.

use diesel::prelude::*;
use sha2::{Digest, Sha256};
use std::collections::HashMap;

use super::event_chain;
use super::merkle::{self, Hash, Nodes};
use crate::ledger::Transfer;
use crate::significant_events::SignificantEvent;
use crate::store::schema::{event_chain as ec, merkle_nodes as mn, significant_events as se, transfers};
use crate::store::{on_backend, AnyConnection};

/// Leaves read and appended per query: bounds memory.
const PAGE_ROWS: i64 = 10_000;
/// Rows per multi-row INSERT (4 columns each).
const ROWS_PER_INSERT: usize = 1000;

/// Which tree.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tree {
    Transfers,
    Events,
}

impl Tree {
    pub fn as_str(self) -> &'static str {
        match self {
            Tree::Transfers => "transfers",
            Tree::Events => "events",
        }
    }
}

/// The tag a transfer's leaf shows for the wallet of `owner` in a transfer
/// of round `round_id` (empty when the transfer has none): the first 32 hex
/// digits of `SHA-256("djego-wallet-v1\n" ‖ round_id ‖ "\n" ‖ owner)`. Scoped
/// to the round, so that tags do not link one player's rounds.
pub fn wallet_tag(round_id: &str, owner: &str) -> String {
    let digest = Sha256::digest(format!("djego-wallet-v1\n{round_id}\n{owner}").as_bytes());
    hex::encode(digest)[..32].to_string()
}

/// An account as a transfer's leaf names it: a wallet by its tag, anything
/// else by its stored name.
pub fn leaf_account(stored: &str, round_id: &str) -> String {
    match stored.split_once(':') {
        Some(("wallet", owner)) => format!("wallet#{}", wallet_tag(round_id, owner)),
        _ => stored.to_owned(),
    }
}

/// A transfer's leaf data: the compact JSON array
/// `["djego-transfer-leaf-v1", seq, kind, debit, credit, amount_minor, round_id, bet_id, hash]`
/// with the accounts as [`leaf_account`] names them and `hash` the transfer's
/// chain hash, which binds the fields the leaf leaves out.
pub fn transfer_leaf_data(
    seq: i64,
    kind: &str,
    debit: &str,
    credit: &str,
    amount_minor: i64,
    round_id: Option<&str>,
    bet_id: Option<&str>,
    chain_hash: &str,
) -> String {
    serde_json::json!([
        "djego-transfer-leaf-v1",
        seq,
        kind,
        debit,
        credit,
        amount_minor,
        round_id,
        bet_id,
        chain_hash
    ])
    .to_string()
}

pub fn transfer_leaf(t: &Transfer) -> Hash {
    let round = t.round_id.as_deref().unwrap_or("");
    merkle::leaf_hash(
        transfer_leaf_data(
            t.seq,
            &t.kind,
            &leaf_account(&t.debit_account, round),
            &leaf_account(&t.credit_account, round),
            t.amount_minor,
            t.round_id.as_deref(),
            t.bet_id.as_deref(),
            &t.hash,
        )
        .as_bytes(),
    )
}

/// A chained event's leaf data is its canonical form in the events chain
/// (`["djego-event-v1", seq, id, at_us, kind, actor_id, subject, details]`).
pub fn event_leaf(seq: i64, e: &SignificantEvent) -> Hash {
    merkle::leaf_hash(event_chain::canonical(seq, e).as_bytes())
}

pub fn to_hex(h: &Hash) -> String {
    hex::encode(h)
}

pub fn from_hex(text: &str) -> Option<Hash> {
    hex::decode(text).ok()?.try_into().ok()
}

/// A tree's stored nodes, read as proofs need them.
pub struct DbNodes<'c> {
    pub conn: &'c mut AnyConnection,
    pub tree: Tree,
    /// Nodes appended in this transaction and not read back.
    cache: HashMap<(u32, u64), Hash>,
}

impl<'c> DbNodes<'c> {
    pub fn new(conn: &'c mut AnyConnection, tree: Tree) -> DbNodes<'c> {
        DbNodes {
            conn,
            tree,
            cache: HashMap::new(),
        }
    }

    /// How many leaves are stored.
    pub fn size(&mut self) -> QueryResult<u64> {
        let last: Option<i64> = mn::table
            .filter(mn::tree.eq(self.tree.as_str()))
            .filter(mn::level.eq(0))
            .select(diesel::dsl::max(mn::idx))
            .first(self.conn)?;
        Ok(last.map_or(0, |i| i as u64 + 1))
    }
}

#[derive(Debug, thiserror::Error)]
pub enum TreeError {
    #[error(transparent)]
    Db(#[from] diesel::result::Error),
    #[error("the {tree} tree has no stored node at level {level}, index {index}")]
    Missing { tree: &'static str, level: u32, index: u64 },
    #[error("the {tree} tree's node at level {level}, index {index} is not 64 hex digits")]
    Malformed { tree: &'static str, level: u32, index: u64 },
}

impl Nodes for DbNodes<'_> {
    type Error = TreeError;
    fn node(&mut self, level: u32, index: u64) -> Result<Hash, TreeError> {
        if let Some(h) = self.cache.get(&(level, index)) {
            return Ok(*h);
        }
        let tree = self.tree.as_str();
        let text: Option<String> = mn::table
            .filter(mn::tree.eq(tree))
            .filter(mn::level.eq(level as i32))
            .filter(mn::idx.eq(index as i64))
            .select(mn::hash)
            .first(self.conn)
            .optional()?;
        let text = text.ok_or(TreeError::Missing { tree, level, index })?;
        from_hex(&text).ok_or(TreeError::Malformed { tree, level, index })
    }
}

#[derive(Insertable)]
#[diesel(table_name = mn)]
struct NodeRow<'a> {
    tree: &'a str,
    level: i32,
    idx: i64,
    hash: String,
}

/// Appends leaves (in order, from the stored size on) and the nodes they
/// complete. The caller holds the checkpoint lock.
fn append(nodes: &mut DbNodes<'_>, leaves: &[Hash]) -> Result<(), TreeError> {
    let mut index = nodes.size()?;
    let mut rows = Vec::new();
    for leaf in leaves {
        let added = merkle::appended_nodes(index, *leaf, |level, i| nodes.node(level, i))?;
        for (level, i, hash) in added {
            nodes.cache.insert((level, i), hash);
            rows.push((level, i, hash));
        }
        index += 1;
    }
    let tree = nodes.tree.as_str();
    let rows: Vec<NodeRow> = rows
        .into_iter()
        .map(|(level, i, hash)| NodeRow {
            tree,
            level: level as i32,
            idx: i as i64,
            hash: to_hex(&hash),
        })
        .collect();
    for chunk in rows.chunks(ROWS_PER_INSERT) {
        on_backend!(nodes.conn, |c| diesel::insert_into(mn::table).values(chunk).execute(c))?;
    }
    Ok(())
}

/// Brings the transfers tree up to `ledger_seq` leaves and returns its root.
pub fn extend_transfers(conn: &mut AnyConnection, ledger_seq: i64) -> Result<Hash, TreeError> {
    let mut nodes = DbNodes::new(conn, Tree::Transfers);
    loop {
        let size = nodes.size()? as i64;
        if size >= ledger_seq {
            break;
        }
        let page: Vec<Transfer> = transfers::table
            .filter(transfers::seq.gt(size))
            .filter(transfers::seq.le(ledger_seq))
            .order(transfers::seq.asc())
            .limit(PAGE_ROWS)
            .select(Transfer::as_select())
            .load(nodes.conn)?;
        if page.is_empty() || page[0].seq != size + 1 {
            // A gap: the ledger's own verification names it; the tree stops here.
            break;
        }
        let leaves: Vec<Hash> = page
            .iter()
            .enumerate()
            .take_while(|(i, t)| t.seq == size + 1 + *i as i64)
            .map(|(_, t)| transfer_leaf(t))
            .collect();
        append(&mut nodes, &leaves)?;
    }
    let size = nodes.size()?;
    Ok(merkle::root(&mut nodes, size)?)
}

/// Brings the events tree up to `events_seq` leaves and returns its root.
pub fn extend_events(conn: &mut AnyConnection, events_seq: i64) -> Result<Hash, TreeError> {
    let mut nodes = DbNodes::new(conn, Tree::Events);
    loop {
        let size = nodes.size()? as i64;
        if size >= events_seq {
            break;
        }
        let page: Vec<(i64, SignificantEvent)> = ec::table
            .inner_join(se::table)
            .filter(ec::seq.gt(size))
            .filter(ec::seq.le(events_seq))
            .order(ec::seq.asc())
            .limit(PAGE_ROWS)
            .select((ec::seq, SignificantEvent::as_select()))
            .load(nodes.conn)?;
        if page.is_empty() || page[0].0 != size + 1 {
            break;
        }
        let leaves: Vec<Hash> = page
            .iter()
            .enumerate()
            .take_while(|(i, (seq, _))| *seq == size + 1 + *i as i64)
            .map(|(_, (seq, e))| event_leaf(*seq, e))
            .collect();
        append(&mut nodes, &leaves)?;
    }
    let size = nodes.size()?;
    Ok(merkle::root(&mut nodes, size)?)
}

/// The inclusion proof of leaf `index` in the stored tree's first `size`
/// leaves, as hex.
pub fn inclusion_proof(conn: &mut AnyConnection, tree: Tree, index: u64, size: u64) -> Result<Vec<String>, TreeError> {
    let mut nodes = DbNodes::new(conn, tree);
    Ok(merkle::inclusion_proof(&mut nodes, index, size)?
        .iter()
        .map(to_hex)
        .collect())
}

/// The consistency proof between the stored tree's first `old_size` and
/// first `new_size` leaves, as hex.
pub fn consistency_proof(
    conn: &mut AnyConnection,
    tree: Tree,
    old_size: u64,
    new_size: u64,
) -> Result<Vec<String>, TreeError> {
    let mut nodes = DbNodes::new(conn, tree);
    Ok(merkle::consistency_proof(&mut nodes, old_size, new_size)?
        .iter()
        .map(to_hex)
        .collect())
}

/// Both trees recomputed from the transfers and the chained events
/// themselves, never from stored nodes: what the auditor compares the signed
/// roots with.
pub fn recompute(conn: &mut AnyConnection) -> QueryResult<(merkle::MemoryTree, merkle::MemoryTree)> {
    let mut transfers_tree = merkle::MemoryTree::new();
    let mut after = 0i64;
    loop {
        let page: Vec<Transfer> = transfers::table
            .filter(transfers::seq.gt(after))
            .order(transfers::seq.asc())
            .limit(PAGE_ROWS)
            .select(Transfer::as_select())
            .load(conn)?;
        let Some(last) = page.last() else { break };
        after = last.seq;
        for t in &page {
            transfers_tree.push(transfer_leaf(t));
        }
    }
    let mut events_tree = merkle::MemoryTree::new();
    let mut after = 0i64;
    loop {
        let page: Vec<(i64, SignificantEvent)> = ec::table
            .inner_join(se::table)
            .filter(ec::seq.gt(after))
            .order(ec::seq.asc())
            .limit(PAGE_ROWS)
            .select((ec::seq, SignificantEvent::as_select()))
            .load(conn)?;
        let Some((last, _)) = page.last() else { break };
        after = *last;
        for (seq, e) in &page {
            events_tree.push(event_leaf(*seq, e));
        }
    }
    Ok((transfers_tree, events_tree))
}
