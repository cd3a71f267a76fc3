//! What the wager path keeps of limited players' play between batches, so a batch reads only
//! the ledger's tail rather than each player's month (docs/protection.md, "Where it is
//! enforced"). A tally is a player's [`PlayMove`]s of the last 30 days and the ledger sequence
//! number it has read through; each batch, under the head lock, reads the transfers after the
//! oldest such number for its limited players' wallets — whatever wrote them: this instance,
//! another, a settlement, a seat — and drops moves older than the longest window. The totals
//! are then exactly what [`super::totals`] reads from the whole ledger (tested against it).

use diesel::prelude::*;
use lru::LruCache;
use std::collections::{HashMap, VecDeque};
use std::num::NonZeroUsize;

use super::{plays_of, Period, PlayMove, Standing};
use crate::store::schema::transfers as tr;
use crate::store::AnyConnection;

/// Players whose tallies an instance keeps (the least recently limited go first).
const KEPT_PLAYERS: NonZeroUsize = NonZeroUsize::new(2048).expect("not zero");

struct Tally {
    /// The last ledger sequence number read into `moves`.
    through_seq: i64,
    /// Oldest first.
    moves: VecDeque<PlayMove>,
}

pub struct Tallies {
    kept: LruCache<String, Tally>,
}

impl Default for Tallies {
    fn default() -> Tallies {
        Tallies {
            kept: LruCache::new(KEPT_PLAYERS),
        }
    }
}

impl Tallies {
    /// Fills the totals and sessions of the limited players among `standings` as of `now_us`. `head_seq`
    /// is the ledger head's sequence number read under its lock: every transfer up to it is
    /// committed and visible, and none after it can commit before this batch does.
    pub fn count(
        &mut self,
        conn: &mut AnyConnection,
        standings: &mut HashMap<String, Standing>,
        now_us: i64,
        head_seq: i64,
    ) -> QueryResult<()> {
        let limited: Vec<String> = standings
            .iter()
            .filter(|(_, s)| s.counts_play())
            .map(|(p, _)| p.clone())
            .collect();
        if limited.is_empty() {
            return Ok(());
        }
        let month_us = Period::Month.window_us();
        // Players not kept yet: their month read whole once, from the first transfer of the window.
        let unknown: Vec<&str> = limited
            .iter()
            .filter(|p| !self.kept.contains(*p))
            .map(String::as_str)
            .collect();
        if !unknown.is_empty() {
            let first_seq: Option<i64> = tr::table
                .filter(tr::created_at_us.ge(now_us - month_us))
                .select(diesel::dsl::min(tr::seq))
                .first(conn)?;
            for p in &unknown {
                self.kept.put(
                    (*p).to_owned(),
                    Tally {
                        through_seq: first_seq.map_or(head_seq, |s| s - 1),
                        moves: VecDeque::new(),
                    },
                );
            }
        }
        // The tail after the oldest point any of them has read through.
        let from = limited
            .iter()
            .filter_map(|p| self.kept.peek(p).map(|t| t.through_seq))
            .min()
            .unwrap_or(head_seq);
        if from < head_seq {
            let wallets: Vec<String> = limited.iter().map(|p| format!("wallet:{p}")).collect();
            let rows: Vec<(i64, String, String, String, i64, i64)> = tr::table
                .filter(tr::seq.gt(from).and(tr::seq.le(head_seq)))
                .filter(
                    tr::debit_account
                        .eq_any(&wallets)
                        .or(tr::credit_account.eq_any(&wallets)),
                )
                .order(tr::seq.asc())
                .select((
                    tr::seq,
                    tr::debit_account,
                    tr::credit_account,
                    tr::kind,
                    tr::amount_minor,
                    tr::created_at_us,
                ))
                .load(conn)?;
            for (seq, debit, credit, kind, amount, at_us) in rows {
                for (player, play) in plays_of(&debit, &credit, &kind, amount, at_us) {
                    if let Some(t) = self.kept.peek_mut(player) {
                        if seq > t.through_seq {
                            t.moves.push_back(play);
                        }
                    }
                }
            }
        }
        for p in &limited {
            let Some(t) = self.kept.get_mut(p) else { continue };
            t.through_seq = head_seq;
            while t.moves.front().is_some_and(|m| m.at_us < now_us - month_us) {
                t.moves.pop_front();
            }
            if let Some(s) = standings.get_mut(p) {
                s.count(t.moves.make_contiguous(), now_us);
            }
        }
        Ok(())
    }
}
