//! Peg Leg bets on the wager path. A batch reads each of its Peg Leg rounds once, with the
//! quote in force, share-locking the rounds' rows before the ledger head as it does Prima
//! Carta's (so a card dealt, which locks its round for update, waits for the batch, and a
//! batch after the card sees it); then, under the head lock, what each of its players has
//! staked on each round. Each bet is checked by the same rules as everywhere
//! (`rounds::peg_leg::check_bet`) against what the batch has read and placed before it.

use diesel::prelude::*;
use diesel::sql_types::{Array, BigInt, Text};
use lru::LruCache;
use std::collections::{BTreeSet, HashMap};
use std::num::NonZeroUsize;
use std::sync::Arc;

use super::{Committed, PegLegBetWager, RoundRef, WagerError};
use crate::games::peg_leg::Quote;
use crate::ledger::{AccountId, Appender};
use crate::rounds::peg_leg::{self as service, BetAsked, BetRow, PegLegRoundRow, QuoteRow};
use crate::store::schema::{peg_leg_bets as b, peg_leg_quotes as q, peg_leg_rounds as r};
use crate::store::{new_id, AnyConnection};
use crate::transcript::{Pseudonyms, Viewer};

/// Quotes an instance keeps: a quote never changes once stored, and a round's current one is
/// read by every batch that bets on it.
const KEPT_QUOTES: NonZeroUsize = NonZeroUsize::new(1024).expect("not zero");

/// A stored quote with its distribution read (what a cash-out value is computed from).
pub(super) struct KeptQuote {
    row: QuoteRow,
    quote: Quote,
}

pub(super) struct KeptQuotes(LruCache<String, Arc<KeptQuote>>);

impl Default for KeptQuotes {
    fn default() -> KeptQuotes {
        KeptQuotes(LruCache::new(KEPT_QUOTES))
    }
}

/// A Peg Leg round as one batch sees it.
struct LiveRound {
    row: PegLegRoundRow,
    current: Option<Arc<KeptQuote>>,
}

/// What a batch read of its Peg Leg rounds.
#[derive(Default)]
pub(super) struct Loaded {
    rounds: HashMap<String, LiveRound>,
    /// (round, player) → staked so far, every bet and rebet; the batch's own added as placed.
    staked: HashMap<(String, String), i64>,
}

/// The Peg Leg rounds' rows, share-locked on PostgreSQL, in id order as every round action
/// locks them, and each one's quote in force. Before the ledger head.
pub(super) fn load_rounds(
    conn: &mut AnyConnection,
    kept: &mut KeptQuotes,
    ids: &BTreeSet<&str>,
) -> Result<Loaded, WagerError> {
    let mut loaded = Loaded::default();
    if ids.is_empty() {
        return Ok(loaded);
    }
    let ids: Vec<&str> = ids.iter().copied().collect();
    let rows: Vec<PegLegRoundRow> = match conn {
        AnyConnection::Postgresql(c) => r::table
            .filter(r::id.eq_any(&ids))
            .order(r::id)
            .for_share()
            .select(PegLegRoundRow::as_select())
            .load(c)?,
        AnyConnection::Sqlite(c) => r::table
            .filter(r::id.eq_any(&ids))
            .select(PegLegRoundRow::as_select())
            .load(c)?,
    };
    // The quote in force is the one made after the round's last card.
    let dealt: Vec<i32> = rows.iter().map(|row| row.cards_dealt).collect();
    let candidates: Vec<(String, String, i32)> = q::table
        .filter(q::round_id.eq_any(&ids))
        .filter(q::cards_dealt.eq_any(&dealt))
        .select((q::id, q::round_id, q::cards_dealt))
        .load(conn)?;
    let current_ids: HashMap<&str, &str> = candidates
        .iter()
        .filter(|(_, round, at)| rows.iter().any(|row| &row.id == round && row.cards_dealt == *at))
        .map(|(id, round, _)| (round.as_str(), id.as_str()))
        .collect();
    let unknown: Vec<&str> = current_ids
        .values()
        .copied()
        .filter(|id| !kept.0.contains(*id))
        .collect();
    if !unknown.is_empty() {
        let found: Vec<QuoteRow> = q::table
            .filter(q::id.eq_any(&unknown))
            .select(QuoteRow::as_select())
            .load(conn)?;
        for row in found {
            let quote = row.quote().map_err(|e| WagerError::Internal(e.to_string()))?;
            kept.0.put(row.id.clone(), Arc::new(KeptQuote { row, quote }));
        }
    }
    for row in rows {
        let current = match current_ids.get(row.id.as_str()) {
            Some(id) => Some(
                kept.0
                    .get(*id)
                    .cloned()
                    .ok_or_else(|| WagerError::Internal(format!("quote {id} not loaded")))?,
            ),
            None => None,
        };
        loaded.rounds.insert(row.id.clone(), LiveRound { row, current });
    }
    Ok(loaded)
}

/// What the batch's players have staked on its Peg Leg rounds, read under the ledger head
/// (the batch before may just have placed bets).
pub(super) fn load_staked(
    conn: &mut AnyConnection,
    loaded: &mut Loaded,
    players: &BTreeSet<&str>,
) -> Result<(), WagerError> {
    if loaded.rounds.is_empty() || players.is_empty() {
        return Ok(());
    }
    let rounds: Vec<&str> = loaded.rounds.keys().map(String::as_str).collect();
    let players: Vec<&str> = players.iter().copied().collect();
    let sums: Vec<(String, String, i64)> = match conn {
        AnyConnection::Postgresql(c) => diesel::sql_query(
            "SELECT round_id, player_id, SUM(stake_minor)::bigint AS staked FROM peg_leg_bets \
             WHERE round_id = ANY($1) AND player_id = ANY($2) GROUP BY round_id, player_id",
        )
        .bind::<Array<Text>, _>(&rounds)
        .bind::<Array<Text>, _>(&players)
        .load::<StakedRow>(c)?
        .into_iter()
        .map(|row| (row.round_id, row.player_id, row.staked))
        .collect(),
        AnyConnection::Sqlite(c) => b::table
            .filter(b::round_id.eq_any(&rounds))
            .filter(b::player_id.eq_any(&players))
            .select((b::round_id, b::player_id, b::stake_minor))
            .load::<(String, String, i64)>(c)?,
    };
    for (round, player, staked) in sums {
        *loaded.staked.entry((round, player)).or_default() += staked;
    }
    Ok(())
}

#[derive(QueryableByName)]
struct StakedRow {
    #[diesel(sql_type = Text)]
    round_id: String,
    #[diesel(sql_type = Text)]
    player_id: String,
    #[diesel(sql_type = BigInt)]
    staked: i64,
}

/// Places one bet in the batch: checked, its stake appended to the ledger, its row added to
/// `placed`; answers the player's own view of it.
pub(super) fn place(
    bet: &PegLegBetWager,
    key: Option<&str>,
    now_us: i64,
    loaded: &mut Loaded,
    appender: &mut Appender,
    placed: &mut Vec<BetRow>,
) -> Result<Committed, WagerError> {
    let round = loaded
        .rounds
        .get(&bet.round_id)
        .ok_or(WagerError::PegLeg(service::PegLegRoundError::RoundNotFound))?;
    let asked = BetAsked {
        player_id: &bet.player_id,
        quote_id: &bet.quote_id,
        count: bet.count,
        stake: bet.stake,
    };
    let staked_key = (bet.round_id.clone(), bet.player_id.clone());
    let staked = loaded.staked.get(&staked_key).copied().unwrap_or(0);
    let current = round.current.as_deref();
    let multiplier = service::check_bet(
        &round.row,
        current.map(|k| &k.row),
        current.map(|k| &k.quote),
        &asked,
        staked,
        now_us,
    )
    .map_err(WagerError::PegLeg)?;
    let id = new_id();
    appender.append(&[service::stake_transfer(&round.row, &asked, &id, key)])?;
    let row = service::placed_bet(&round.row, &asked, &id, multiplier, now_us);
    let viewer = Viewer {
        user_id: bet.player_id.clone(),
        sees_identities: false,
    };
    let view = service::bet_view(&row, current.map(|k| &k.quote), &viewer, &mut Pseudonyms::default())
        .map_err(WagerError::PegLeg)?;
    let body = serde_json::to_string(&view).map_err(|e| WagerError::Internal(e.to_string()))?;
    *loaded.staked.entry(staked_key).or_default() += bet.stake.minor();
    let round_ref = RoundRef {
        table_id: round.row.table_id.clone(),
        round_id: round.row.id.clone(),
    };
    placed.push(row);
    Ok(Committed {
        status: 201,
        body,
        round: Some(round_ref),
    })
}

/// The accounts a bet touches, whose balances the batch reads under the head lock.
pub(super) fn accounts(bet: &PegLegBetWager) -> [AccountId; 2] {
    [AccountId::wallet(&bet.player_id), AccountId::escrow(&bet.round_id)]
}

/// The batch's bets as one part of PostgreSQL's one statement.
pub(super) fn write_pg<'a>(statement: &mut crate::store::pg_with::WithStatement<'a>, bets: &'a [BetRow]) {
    use diesel::sql_types::{Integer, Nullable};
    if bets.is_empty() {
        return;
    }
    let text = move |f: fn(&BetRow) -> &str| bets.iter().map(f).collect::<Vec<&str>>();
    let number = move |f: fn(&BetRow) -> i64| bets.iter().map(f).collect::<Vec<i64>>();
    statement.part(
        "INSERT INTO peg_leg_bets (id, round_id, player_id, count, stake_minor, multiplier_cents, quote_id, \
         status, surrender_quote_id, returned_minor, placed_at_us, closed_at_us) \
         SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::int[], $5::bigint[], $6::bigint[], \
         $7::text[], $8::text[], $9::text[], $10::bigint[], $11::bigint[], $12::bigint[])",
        move |q| {
            q.bind::<Array<Text>, _>(text(|b| &b.id))
                .bind::<Array<Text>, _>(text(|b| &b.round_id))
                .bind::<Array<Text>, _>(text(|b| &b.player_id))
                .bind::<Array<Integer>, _>(bets.iter().map(|b| b.count).collect::<Vec<i32>>())
                .bind::<Array<BigInt>, _>(number(|b| b.stake_minor))
                .bind::<Array<BigInt>, _>(number(|b| b.multiplier_cents))
                .bind::<Array<Text>, _>(text(|b| &b.quote_id))
                .bind::<Array<Text>, _>(text(|b| &b.status))
                .bind::<Array<Nullable<Text>>, _>(
                    bets.iter().map(|b| b.surrender_quote_id.as_deref()).collect::<Vec<_>>(),
                )
                .bind::<Array<Nullable<BigInt>>, _>(bets.iter().map(|b| b.returned_minor).collect::<Vec<_>>())
                .bind::<Array<BigInt>, _>(number(|b| b.placed_at_us))
                .bind::<Array<Nullable<BigInt>>, _>(bets.iter().map(|b| b.closed_at_us).collect::<Vec<_>>())
        },
    );
}

/// The batch's bets as multi-row inserts on SQLite.
pub(super) fn write_sqlite(
    conn: &mut diesel::SqliteConnection,
    bets: &[BetRow],
    rows_per_insert: usize,
) -> QueryResult<()> {
    for chunk in bets.chunks(rows_per_insert) {
        diesel::insert_into(b::table).values(chunk).execute(conn)?;
    }
    Ok(())
}
