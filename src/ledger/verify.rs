//! Recomputes the hash chain and the trial balance from the transfers alone
//! and compares them with what is stored. Names the first bad transfer.

use diesel::prelude::*;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};
use utoipa::ToSchema;

use super::accounts;
use super::chain::{transfer_hash, GENESIS_HASH};
use super::post::Transfer;
use crate::domain::format_minor;
use crate::store::schema::{ledger_head, transfers as t};
use crate::store::AnyConnection;

/// Transfers read per query while verifying: bounds memory on long ledgers.
const VERIFY_PAGE_ROWS: i64 = 10_000;

#[derive(Serialize, ToSchema, Debug, Clone, PartialEq)]
pub struct BrokenLink {
    pub seq: i64,
    pub transfer_id: String,
    pub reason: String,
}

#[derive(Serialize, ToSchema, Debug, Clone, PartialEq)]
pub struct BalanceMismatch {
    pub account: String,
    pub stored: String,
    pub recomputed: String,
}

#[derive(Serialize, ToSchema, Debug, Clone)]
pub struct LedgerVerification {
    /// True when the chain, the balances and the trial balance all check.
    pub ok: bool,
    pub transfers_checked: i64,
    pub head_seq: i64,
    pub head_hash: String,
    /// The first transfer whose hash, link or sequence does not check.
    pub first_broken_link: Option<BrokenLink>,
    pub balance_mismatches: Vec<BalanceMismatch>,
    /// Sum of the stored balances (must be 0.00).
    pub stored_total: String,
    pub negative_accounts: Vec<String>,
    /// Running totals the wager path keeps (a player's stake on a round, a
    /// round's totals by bet kind) that differ from its bets, each named.
    pub running_total_mismatches: Vec<String>,
}

/// Hashes recomputed from the genesis hash through every stored link, at the
/// positions a caller asked for: what a signed checkpoint is compared with.
#[derive(Debug, Default, Clone)]
pub struct ChainPoints {
    /// The last position present (0 when the chain is empty).
    pub last_seq: i64,
    pub hashes: BTreeMap<i64, String>,
}

pub fn verify(conn: &mut AnyConnection) -> QueryResult<LedgerVerification> {
    Ok(verify_at(conn, &BTreeSet::new())?.0)
}

/// [`verify`], and the recomputed hash at each of `wanted`'s positions that exists.
pub fn verify_at(conn: &mut AnyConnection, wanted: &BTreeSet<i64>) -> QueryResult<(LedgerVerification, ChainPoints)> {
    let mut points = ChainPoints::default();
    // Unlike `expected_prev`, never taken from a stored hash: a rewrite that
    // rehashed consistently recomputes the same, only a checkpoint tells.
    let mut recomputed_prev = GENESIS_HASH.to_string();
    let (head_seq, head_hash): (i64, String) = ledger_head::table
        .find(1)
        .select((ledger_head::seq, ledger_head::hash))
        .first(conn)?;
    let mut recomputed: BTreeMap<String, i64> = BTreeMap::new();
    let mut first_broken: Option<BrokenLink> = None;
    let mut expected_prev = GENESIS_HASH.to_string();
    let mut expected_seq = 1i64;
    let mut checked = 0i64;
    let mut after_seq = 0i64;
    loop {
        let page: Vec<Transfer> = t::table
            .select(Transfer::as_select())
            .filter(t::seq.gt(after_seq))
            .order(t::seq.asc())
            .limit(VERIFY_PAGE_ROWS)
            .load(conn)?;
        let Some(last) = page.last() else { break };
        after_seq = last.seq;
        for tr in &page {
            checked += 1;
            let stored_link_hash = transfer_hash(&tr.prev_hash, tr);
            let recomputed_hash = if tr.prev_hash == recomputed_prev {
                stored_link_hash.clone()
            } else {
                transfer_hash(&recomputed_prev, tr)
            };
            if wanted.contains(&tr.seq) {
                points.hashes.insert(tr.seq, recomputed_hash.clone());
            }
            points.last_seq = tr.seq;
            recomputed_prev = recomputed_hash;
            if first_broken.is_none() {
                let reason = if tr.seq != expected_seq {
                    Some(format!("sequence gap: expected {expected_seq}, found {}", tr.seq))
                } else if tr.prev_hash != expected_prev {
                    Some("prev_hash does not match the previous transfer's hash".to_string())
                } else if stored_link_hash != tr.hash {
                    Some("hash does not match the transfer's contents".to_string())
                } else if tr.amount_minor <= 0 {
                    Some("amount is not positive".to_string())
                } else {
                    None
                };
                if let Some(reason) = reason {
                    first_broken = Some(BrokenLink {
                        seq: tr.seq,
                        transfer_id: tr.id.clone(),
                        reason,
                    });
                }
            }
            expected_seq = tr.seq + 1;
            // Recompute forward from the stored hash so one bad row is named once.
            expected_prev = tr.hash.clone();
            *recomputed.entry(tr.debit_account.clone()).or_default() -= tr.amount_minor;
            *recomputed.entry(tr.credit_account.clone()).or_default() += tr.amount_minor;
        }
    }
    if first_broken.is_none() && (expected_seq - 1 != head_seq || expected_prev != head_hash) {
        first_broken = Some(BrokenLink {
            seq: head_seq,
            transfer_id: String::new(),
            reason: "ledger head does not match the last transfer (a transfer was removed or added)".into(),
        });
    }

    let stored = accounts::all(conn)?;
    let mut mismatches = Vec::new();
    let mut negative = Vec::new();
    let mut stored_total = 0i64;
    for a in &stored {
        stored_total += a.balance_minor;
        let r = recomputed.remove(&a.id).unwrap_or(0);
        if r != a.balance_minor {
            mismatches.push(BalanceMismatch {
                account: a.id.clone(),
                stored: format_minor(a.balance_minor),
                recomputed: format_minor(r),
            });
        }
        if !a.may_go_negative && a.balance_minor < 0 {
            negative.push(a.id.clone());
        }
    }
    for (account, r) in recomputed {
        mismatches.push(BalanceMismatch {
            account,
            stored: "missing".into(),
            recomputed: format_minor(r),
        });
    }
    let running = running_total_mismatches(conn)?;
    let report = LedgerVerification {
        ok: first_broken.is_none()
            && mismatches.is_empty()
            && stored_total == 0
            && negative.is_empty()
            && running.is_empty(),
        transfers_checked: checked,
        head_seq,
        head_hash,
        first_broken_link: first_broken,
        balance_mismatches: mismatches,
        stored_total: format_minor(stored_total),
        negative_accounts: negative,
        running_total_mismatches: running,
    };
    Ok((report, points))
}

/// Recomputes `round_exposures` and `round_bet_totals` from the bets.
fn running_total_mismatches(conn: &mut AnyConnection) -> QueryResult<Vec<String>> {
    use crate::store::schema::{bets as b, round_bet_totals as rt, round_exposures as ex};
    let mut exposures: BTreeMap<(String, String), i64> = BTreeMap::new();
    let mut totals: BTreeMap<(String, String), (i64, i64)> = BTreeMap::new();
    let bets: Vec<(String, String, String, i64)> = b::table
        .select((b::round_id, b::player_id, b::kind, b::amount_minor))
        .load(conn)?;
    for (round, player, kind, amount) in bets {
        *exposures.entry((round.clone(), player)).or_default() += amount;
        let t = totals.entry((round, kind)).or_default();
        t.0 += 1;
        t.1 += amount;
    }
    let mut out = Vec::new();
    let stored: Vec<(String, String, i64)> = ex::table
        .select((ex::round_id, ex::player_id, ex::staked_minor))
        .load(conn)?;
    for (round, player, staked) in stored {
        let recomputed = exposures.remove(&(round.clone(), player.clone())).unwrap_or(0);
        if recomputed != staked {
            out.push(format!(
                "exposure of {player} on round {round}: stored {}, bets {}",
                format_minor(staked),
                format_minor(recomputed)
            ));
        }
    }
    for ((round, player), recomputed) in exposures {
        out.push(format!(
            "exposure of {player} on round {round}: missing, bets {}",
            format_minor(recomputed)
        ));
    }
    let stored: Vec<(String, String, i64, i64)> = rt::table
        .select((rt::round_id, rt::kind, rt::bets, rt::staked_minor))
        .load(conn)?;
    for (round, kind, count, staked) in stored {
        let recomputed = totals.remove(&(round.clone(), kind.clone())).unwrap_or((0, 0));
        if recomputed != (count, staked) {
            out.push(format!(
                "{kind} totals of round {round}: stored {count} bets, {}; bets {}, {}",
                format_minor(staked),
                recomputed.0,
                format_minor(recomputed.1)
            ));
        }
    }
    for ((round, kind), (count, staked)) in totals {
        out.push(format!(
            "{kind} totals of round {round}: missing; bets {count}, {}",
            format_minor(staked)
        ));
    }
    Ok(out)
}
