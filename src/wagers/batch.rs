//! One batch of wagers, committed as one transaction.
//!
//! Reads are one query per kind of thing for the whole batch (rounds, the
//! ledger head, stored idempotency keys, pay tables, exposures, players,
//! balances); each request is then checked and applied in memory, in arrival
//! order; writes are multi-row statements. So a batch costs about fifteen
//! round trips and one fsync whatever its size.

use diesel::prelude::*;
use diesel::sql_types::{Array, BigInt, Integer, Nullable, Text};
use lru::LruCache;
use std::collections::{BTreeSet, HashMap};
use std::num::NonZeroUsize;
use std::sync::Arc;
use std::time::{Duration, Instant};

mod write;

use super::peg_leg;
use super::{BetWager, CageReceipt, CashDirection, CashWager, Committed, RoundRef, Wager, WagerError, WagerRequest};
use crate::bets::PayTable;
use crate::domain::{format_minor, Role};
use crate::ledger::read::TransferView;
use crate::ledger::{sql_text, AccountId, Appender, LedgerError, Refs, TransferKind, TransferSpec};
use crate::protection::{self, Play, Standing};
use crate::rounds::record::RoundStatus;
use crate::side_bets::{self, BetRow, BetView};
use crate::store::pg_with::WithStatement;
use crate::store::schema::{
    idempotency_keys as ik, pay_tables as pt, round_exposures as ex, round_pay_tables as rpt, rounds as r,
    table_pay_tables as tpt,
};
use crate::store::{new_id, AnyConnection, Database};
use crate::tables::config::PrimaCartaConfig;
use crate::users::{self, Session};
use write::write;

mod outcome;

impl From<diesel::result::Error> for WagerError {
    fn from(e: diesel::result::Error) -> WagerError {
        use diesel::result::{DatabaseErrorKind, Error};
        crate::store::health::note_error(&e);
        match e {
            Error::DatabaseError(
                DatabaseErrorKind::ClosedConnection
                | DatabaseErrorKind::UnableToSendCommand
                | DatabaseErrorKind::ReadOnlyTransaction,
                info,
            ) => WagerError::Unavailable(info.message().to_string()),
            other => {
                tracing::error!(error = %other, "database error on the wager path");
                WagerError::Internal("database error".into())
            }
        }
    }
}

impl From<LedgerError> for WagerError {
    fn from(e: LedgerError) -> WagerError {
        match e {
            LedgerError::InsufficientFunds {
                account,
                balance,
                needed,
            } => WagerError::InsufficientFunds {
                account,
                balance,
                needed,
            },
            e @ LedgerError::GamingDayClosed { .. } => WagerError::GamingDayClosed(e.to_string()),
            LedgerError::Db(d) => d.into(),
            other => WagerError::Internal(other.to_string()),
        }
    }
}

/// A pay table as the wager path uses it. Stored pay tables never change, so
/// this instance keeps them once read.
struct CachedPayTable {
    id: String,
    fingerprint: String,
    table: PayTable,
}

/// What never changes once stored, kept by this instance: pay tables by id,
/// the id of the built-in pay table (certifying it again for every table
/// would cost more than the rest of the batch), and the facts of recent
/// rounds. A round's table, options and pinned pay table are written when it
/// is created and never updated, so nothing needs invalidating across
/// instances; its status changes and is read in every batch.
struct Kept {
    pay_tables: HashMap<String, Arc<CachedPayTable>>,
    builtin_pay_table: Option<String>,
    rounds: LruCache<String, Arc<RoundFacts>>,
    /// Peg Leg quotes by id.
    quotes: peg_leg::KeptQuotes,
    /// Limited players' play of the last 30 days, read from the ledger's tail each batch.
    tallies: crate::protection::tally::Tallies,
    /// (patron, gaming day) currency transaction reports a batch found committed (never
    /// removed; the set is cleared when it grows past a day's worth).
    open_reports: std::collections::HashSet<(String, String)>,
}

/// Open reports an instance remembers before starting afresh.
const MAX_KEPT_REPORTS: usize = 100_000;

/// Rounds whose facts an instance keeps (the least recently bet on go first).
const KEPT_ROUNDS: NonZeroUsize = NonZeroUsize::new(4096).expect("not zero");

impl Default for Kept {
    fn default() -> Kept {
        Kept {
            pay_tables: HashMap::new(),
            builtin_pay_table: None,
            rounds: LruCache::new(KEPT_ROUNDS),
            quotes: peg_leg::KeptQuotes::default(),
            tallies: crate::protection::tally::Tallies::default(),
            open_reports: std::collections::HashSet::new(),
        }
    }
}

/// What a bet needs of its round besides its status.
struct RoundFacts {
    id: String,
    table_id: String,
    config: PrimaCartaConfig,
    pay_table: Arc<CachedPayTable>,
}

/// A round as one batch sees it: its status in this transaction, and its facts.
struct LiveRound {
    status: String,
    facts: Arc<RoundFacts>,
}

/// Commits batches on its own connection and keeps what never changes.
pub(super) struct Batcher {
    db: Database,
    /// A WAL checkpointer runs for this committer (SQLite): its connection
    /// leaves checkpoints to it.
    checkpointer: bool,
    conn: Option<AnyConnection>,
    kept: Kept,
}

type Outcome = Result<Committed, WagerError>;

/// A batch that takes this long, from asking for the writer's turn to its commit, is logged
/// with the time of each phase.
const SLOW_BATCH: Duration = Duration::from_millis(40);

impl Batcher {
    pub fn new(db: Database, checkpointer: bool) -> Batcher {
        Batcher {
            db,
            checkpointer,
            conn: None,
            kept: Kept::default(),
        }
    }

    /// Commits `requests` and answers each. When the batch as a whole fails
    /// (a database error, not a refused wager), its requests are committed
    /// one by one, so a request that breaks a batch fails alone; a lone
    /// request whose connection was lost is tried once more on a new one.
    /// Either way the failed batch committed nothing (`try_commit` finds out
    /// when its commit's outcome was lost).
    ///
    /// `hand_off` is called once the batch has written everything and only
    /// its commit is left (or once it has failed): another lane may then
    /// start the next batch.
    pub fn commit(&mut self, requests: &[&WagerRequest], hand_off: &mut dyn FnMut()) -> Vec<Outcome> {
        let first = self.try_commit(requests, hand_off);
        hand_off();
        match first {
            Ok(outcomes) => outcomes,
            Err(e) if requests.len() > 1 || matches!(e, WagerError::Unavailable(_)) => {
                tracing::warn!(error = %e, size = requests.len(), "a wager batch failed; committing its requests one by one");
                // Once the database cannot be reached the rest are not tried:
                // each attempt would wait out a connection timeout.
                let mut unreachable: Option<String> = None;
                requests
                    .iter()
                    .map(|one| {
                        if let Some(why) = &unreachable {
                            return Err(WagerError::Unavailable(why.clone()));
                        }
                        match self.try_commit(std::slice::from_ref(one), &mut || {}) {
                            Ok(mut single) => single
                                .pop()
                                .unwrap_or_else(|| Err(WagerError::Internal("no answer".into()))),
                            Err(WagerError::Unavailable(why)) => {
                                unreachable = Some(why.clone());
                                Err(WagerError::Unavailable(why))
                            }
                            Err(e) => Err(e),
                        }
                    })
                    .collect()
            }
            Err(e) => vec![Err(e)],
        }
    }

    /// Drops the connection (its state is unknown after a panic).
    pub fn discard_connection(&mut self) {
        self.conn = None;
    }

    fn try_commit(
        &mut self,
        requests: &[&WagerRequest],
        hand_off: &mut dyn FnMut(),
    ) -> Result<Vec<Outcome>, WagerError> {
        if self.conn.is_none() {
            let mut conn = self.db.dedicated_connection()?;
            if let AnyConnection::Sqlite(c) = &mut conn {
                use diesel::connection::SimpleConnection;
                c.batch_execute(crate::store::SQLITE_COMMITTER_PRAGMAS)?;
                if self.checkpointer {
                    c.batch_execute(crate::store::SQLITE_NO_AUTOCHECKPOINT)?;
                }
            }
            self.conn = Some(conn);
        }
        let conn = self.conn.as_mut().expect("connected above");
        let kept = &mut self.kept;
        // When each phase ended, for the log of a slow batch.
        let started = Instant::now();
        let (mut begun, mut written) = (started, started);
        // The batch's answers once everything is written, and its last
        // transfer: if the commit then fails, both say what to find out.
        let mut decided: Option<(Vec<Outcome>, Option<String>)> = None;
        let result = self.db.write_on(conn, |conn| {
            begun = Instant::now();
            decided = Some(commit_batch(conn, kept, requests, &mut || {
                written = Instant::now();
                hand_off()
            })?);
            Ok::<(), WagerError>(())
        });
        let ended = Instant::now();
        if ended - started >= SLOW_BATCH {
            let ms = |from: Instant, to: Instant| to.saturating_duration_since(from).as_secs_f64() * 1e3;
            tracing::info!(
                size = requests.len(),
                total_ms = ms(started, ended),
                turn_wait_ms = ms(started, begun),
                write_ms = ms(begun, written),
                commit_ms = ms(written, ended),
                "a slow wager batch"
            );
        }
        let Err(error) = result else {
            return Ok(decided.expect("a committed batch has its answers").0);
        };
        // The connection may be what failed: start the next batch afresh. What
        // was kept may hold the failed batch's effects (a report opened).
        self.conn = None;
        self.kept = Kept::default();
        match decided {
            // Everything was written and the commit itself failed on a lost
            // connection: it may have committed. Find out, never guess.
            Some((outcomes, Some(last_transfer))) if matches!(error, WagerError::Unavailable(_)) => {
                tracing::warn!(error = %error, size = requests.len(), "a wager batch lost its connection at commit; finding out whether it committed");
                match outcome::committed(&self.db, &last_transfer) {
                    Some(true) => Ok(outcomes),
                    // Nothing was committed: the batch is retried as any failed one is.
                    Some(false) => Err(error),
                    None => Ok(requests.iter().map(|_| Err(WagerError::OutcomeUnknown)).collect()),
                }
            }
            _ => Err(error),
        }
    }
}

/// What a batch read before applying its requests.
struct Loaded {
    /// The batch's Prima Carta rounds by id.
    rounds: HashMap<String, LiveRound>,
    /// (caller, key) → (fingerprint, status, body).
    stored_keys: HashMap<(String, String), (String, i32, String)>,
    /// (round, player) → staked so far.
    exposures: HashMap<(String, String), i64>,
    /// The account of every caller and every player the cage pays, by id.
    accounts: HashMap<String, Session>,
    /// The batch's Peg Leg rounds, their quotes in force and what was staked on them.
    peg_leg: peg_leg::Loaded,
    /// The exclusions and limits of the players this batch's requests would move money toward
    /// play for (only those with either), their totals read under the head lock.
    standings: HashMap<String, Standing>,
    /// The cash the cage moves: the compliance rules and calendar (read before the head lock),
    /// then, under it, the patrons' recent cash transactions. None when the batch moves none.
    cash: Option<CashPhase>,
}

/// Where the cash-compliance view of a batch is.
enum CashPhase {
    Unlocked(
        crate::compliance::ComplianceRules,
        crate::floor::calendar::FloorCalendar,
    ),
    Watching(crate::compliance::CashWatch),
}

/// (caller, key, fingerprint, status, body) of a first answer.
type StoredAnswer = (String, String, String, u16, String);

/// What a batch will write besides the ledger.
#[derive(Default)]
struct Writes {
    bets: Vec<BetRow>,
    peg_leg_bets: Vec<crate::rounds::peg_leg::BetRow>,
    /// (round, player) → added stake.
    exposure_added: HashMap<(String, String), i64>,
    /// (round, kind) → (bets, staked) added.
    totals_added: HashMap<(String, String), (i64, i64)>,
    keys: Vec<StoredAnswer>,
}

fn commit_batch(
    conn: &mut AnyConnection,
    kept: &mut Kept,
    requests: &[&WagerRequest],
    hand_off: &mut dyn FnMut(),
) -> Result<(Vec<Outcome>, Option<String>), WagerError> {
    // The rounds' ids; their rows are shared-locked first (load_unlocked).
    let round_ids: BTreeSet<&str> = requests
        .iter()
        .filter_map(|q| match &q.wager {
            Wager::Bet(b) if uuid::Uuid::parse_str(&b.round_id).is_ok() => Some(b.round_id.as_str()),
            _ => None,
        })
        .collect();
    let peg_leg_round_ids: BTreeSet<&str> = requests
        .iter()
        .filter_map(|q| match &q.wager {
            Wager::PegLegBet(b) if uuid::Uuid::parse_str(&b.round_id).is_ok() => Some(b.round_id.as_str()),
            _ => None,
        })
        .collect();
    // What does not move with the ledger's tail is read before the head lock,
    // so on PostgreSQL it overlaps the previous batch's commit: the rounds
    // (shared-locked), their facts and the callers' sessions.
    let mut loaded = load_unlocked(conn, kept, requests, &round_ids)?;
    // Peg Leg's rounds are locked after Prima Carta's: no round is both, so the order is fixed.
    loaded.peg_leg = peg_leg::load_rounds(conn, &mut kept.quotes, &peg_leg_round_ids)?;
    // From here to the commit this batch is the ledger's one writer; what
    // the batch before it wrote (stored answers, exposures, balances) is read
    // under the lock.
    let mut appender = Appender::lock_head(conn)?;
    load_locked(conn, requests, &round_ids, &mut loaded, &mut appender)?;

    // Bets are placed at the instant their transfers are stamped with.
    let now = appender.now_us();
    // What the limited players have staked, lost and deposited, as of this batch's turn.
    kept.tallies
        .count(conn, &mut loaded.standings, now, appender.head_seq())?;
    // The cage's patrons' cash so far, for the day's totals and the structuring patterns.
    if let Some(CashPhase::Unlocked(rules, calendar)) = loaded.cash.take() {
        let mut patrons: Vec<&str> = requests
            .iter()
            .filter_map(|q| match &q.wager {
                Wager::Cash(c) => Some(c.player_id.as_str()),
                _ => None,
            })
            .collect();
        patrons.sort_unstable();
        patrons.dedup();
        if kept.open_reports.len() > MAX_KEPT_REPORTS {
            kept.open_reports.clear();
        }
        let watch = crate::compliance::CashWatch::load(conn, rules, &calendar, &patrons, now, &kept.open_reports)?;
        loaded.cash = Some(CashPhase::Watching(watch));
    }
    let mut writes = Writes::default();
    // First answers within this batch, for twins that arrive together.
    let mut answered: HashMap<(String, String), (String, Committed)> = HashMap::new();
    let mut outcomes = Vec::with_capacity(requests.len());
    for q in requests {
        // The caller's rights as they are in this transaction, before
        // anything else (a stored answer is replayed only to its session).
        if let Err(refusal) = q.caller.admitted_by(loaded.accounts.get(&q.caller.user_id)) {
            outcomes.push(Err(WagerError::Session(refusal)));
            continue;
        }
        if let Some(idem) = &q.idempotency {
            let slot = (q.caller.user_id.clone(), idem.key.clone());
            if let Some((fingerprint, status, body)) = loaded.stored_keys.get(&slot) {
                outcomes.push(replay(fingerprint, &idem.fingerprint, || Committed {
                    status: *status as u16,
                    body: body.clone(),
                    round: None,
                }));
                continue;
            }
            if let Some((fingerprint, first)) = answered.get(&slot) {
                outcomes.push(replay(fingerprint, &idem.fingerprint, || first.clone()));
                continue;
            }
        }
        let key = q.idempotency.as_ref().map(|i| i.key.as_str());
        // Exclusions and limits first: nothing else is said to an excluded player.
        let play = toward_play(&q.wager);
        if let Some((player, play)) = play {
            if let Some(Err(refusal)) = loaded.standings.get(player).map(|s| s.check(play)) {
                outcomes.push(Err(WagerError::Protection(refusal)));
                continue;
            }
        }
        let outcome = match &q.wager {
            Wager::Bet(b) => place_bet(b, key, now, &mut loaded, &mut appender, &mut writes),
            Wager::PegLegBet(b) => peg_leg::place(
                b,
                key,
                now,
                &mut loaded.peg_leg,
                &mut appender,
                &mut writes.peg_leg_bets,
            ),
            Wager::Cash(c) => move_cash(conn, c, key, now, &mut loaded, &mut appender),
        };
        if let (Ok(_), Some((player, play))) = (&outcome, play) {
            if let Some(standing) = loaded.standings.get_mut(player) {
                standing.record(play);
            }
        }
        if let (Ok(committed), Some(idem)) = (&outcome, &q.idempotency) {
            writes.keys.push((
                q.caller.user_id.clone(),
                idem.key.clone(),
                idem.fingerprint.clone(),
                committed.status,
                committed.body.clone(),
            ));
            answered.insert(
                (q.caller.user_id.clone(), idem.key.clone()),
                (idem.fingerprint.clone(), committed.clone()),
            );
        }
        outcomes.push(outcome);
    }

    let last_transfer = appender.last_transfer_id().map(str::to_string);
    write(conn, appender, writes, now)?;
    if let Some(CashPhase::Watching(watch)) = loaded.cash.take() {
        kept.open_reports.extend(watch.open_reports());
        watch.write(conn)?;
    }
    // Only the commit is left: the next batch may start its unlocked reads.
    hand_off();
    Ok((outcomes, last_transfer))
}

fn replay(stored: &str, asked: &str, first: impl FnOnce() -> Committed) -> Outcome {
    if stored == asked {
        Ok(first())
    } else {
        Err(WagerError::IdempotencyKeyReused)
    }
}

/// Reads the rounds' statuses, shared-locking their rows on PostgreSQL: a
/// close (which locks its round for update) waits for this batch, and a batch
/// after the close sees it; taken before the ledger head, in the order every
/// round action uses. Then the facts of rounds this instance does not keep
/// yet, and the accounts of the callers and of the players the cage pays:
/// nothing here changes while the batch holds its round locks, or it is a
/// fact of "now" as good before the head lock as after.
fn load_unlocked(
    conn: &mut AnyConnection,
    kept: &mut Kept,
    requests: &[&WagerRequest],
    round_ids: &BTreeSet<&str>,
) -> Result<Loaded, WagerError> {
    let mut loaded = Loaded {
        rounds: HashMap::new(),
        stored_keys: HashMap::new(),
        exposures: HashMap::new(),
        accounts: HashMap::new(),
        peg_leg: peg_leg::Loaded::default(),
        standings: HashMap::new(),
        cash: None,
    };

    if !round_ids.is_empty() {
        let ids: Vec<&str> = round_ids.iter().copied().collect();
        let statuses: Vec<(String, String)> = match conn {
            AnyConnection::Postgresql(c) => diesel::sql_query(
                "SELECT id, status FROM rounds WHERE id = ANY($1) AND game = 'prima_carta' ORDER BY id FOR SHARE",
            )
            .bind::<Array<Text>, _>(&ids)
            .load::<RoundStatusRow>(c)?
            .into_iter()
            .map(|row| (row.id, row.status))
            .collect(),
            AnyConnection::Sqlite(c) => r::table
                .filter(r::id.eq_any(&ids))
                .filter(r::game.eq("prima_carta"))
                .select((r::id, r::status))
                .load(c)?,
        };
        let unknown: Vec<&str> = statuses
            .iter()
            .filter(|(id, _)| !kept.rounds.contains(id))
            .map(|(id, _)| id.as_str())
            .collect();
        let mut found = if unknown.is_empty() {
            HashMap::new()
        } else {
            load_round_facts(conn, kept, &unknown)?
        };
        for (id, status) in statuses {
            let facts = match found.remove(&id) {
                Some(facts) => facts,
                None => kept
                    .rounds
                    .get(&id)
                    .cloned()
                    .ok_or_else(|| WagerError::Internal(format!("no facts loaded for round {id}")))?,
            };
            loaded.rounds.insert(id, LiveRound { status, facts });
        }
    }

    // Every caller's account (its session is checked in this transaction),
    // and every player the cage pays (the cage pays only players).
    let mut ids: Vec<&str> = Vec::with_capacity(requests.len() * 2);
    for q in requests {
        ids.push(&q.caller.user_id);
        if let Wager::Cash(c) = &q.wager {
            ids.push(&c.player_id);
        }
    }
    ids.sort_unstable();
    ids.dedup();
    loaded.accounts = users::sessions(conn, &ids)?;
    let mut players: Vec<&str> = requests
        .iter()
        .filter_map(|q| toward_play(&q.wager).map(|(p, _)| p))
        .collect();
    players.sort_unstable();
    players.dedup();
    loaded.standings = protection::rules(conn, &players, crate::store::now_us())?;
    if requests.iter().any(|q| matches!(q.wager, Wager::Cash(_))) {
        let rules = crate::compliance::rules::rules(conn).map_err(|e| WagerError::Internal(e.to_string()))?;
        let calendar = crate::floor::calendar(conn).map_err(|e| WagerError::Internal(e.to_string()))?;
        loaded.cash = Some(CashPhase::Unlocked(rules, calendar));
    }
    Ok(loaded)
}

/// The player a wager moves money toward play for, and how much: a bet's stake, a deposit
/// (a withdrawal moves money away from play and is never refused for protection).
fn toward_play(wager: &Wager) -> Option<(&str, Play)> {
    match wager {
        Wager::Bet(b) => Some((&b.player_id, Play::Stake(b.amount.minor()))),
        Wager::PegLegBet(b) => Some((&b.player_id, Play::Stake(b.stake.minor()))),
        Wager::Cash(c) if c.direction == CashDirection::Deposit => {
            Some((&c.player_id, Play::Deposit(c.amount.minor())))
        }
        Wager::Cash(_) => None,
    }
}

/// The facts of rounds this instance does not keep yet: their options and
/// the pay table each was created under (rounds from before rounds kept one
/// use their table's, which a pit boss may change, so those are not kept).
fn load_round_facts(
    conn: &mut AnyConnection,
    kept: &mut Kept,
    ids: &[&str],
) -> Result<HashMap<String, Arc<RoundFacts>>, WagerError> {
    let rows: Vec<(String, String, String)> = r::table
        .filter(r::id.eq_any(ids))
        .select((r::id, r::table_id, r::config))
        .load(conn)?;
    let pinned: HashMap<String, String> = rpt::table
        .filter(rpt::round_id.eq_any(ids))
        .select((rpt::round_id, rpt::pay_table_id))
        .load::<(String, String)>(conn)?
        .into_iter()
        .collect();
    let unpinned_tables: BTreeSet<&str> = rows
        .iter()
        .filter(|(id, _, _)| !pinned.contains_key(id))
        .map(|(_, table_id, _)| table_id.as_str())
        .collect();
    let installed: HashMap<String, String> = if unpinned_tables.is_empty() {
        HashMap::new()
    } else {
        tpt::table
            .filter(tpt::table_id.eq_any(unpinned_tables.iter().copied().collect::<Vec<_>>()))
            .select((tpt::table_id, tpt::pay_table_id))
            .load::<(String, String)>(conn)?
            .into_iter()
            .collect()
    };
    let mut found = HashMap::with_capacity(rows.len());
    for (id, table_id, config) in rows {
        let config: PrimaCartaConfig =
            serde_json::from_str(&config).map_err(|e| WagerError::Internal(format!("stored round options: {e}")))?;
        let pay_table_id = match (pinned.get(&id), installed.get(&table_id), &kept.builtin_pay_table) {
            (Some(pinned), _, _) => pinned.clone(),
            (None, Some(installed), _) => installed.clone(),
            (None, None, Some(builtin)) => builtin.clone(),
            (None, None, None) => {
                let builtin = side_bets::builtin(conn)
                    .map_err(|e| WagerError::Internal(e.message))?
                    .id;
                kept.builtin_pay_table = Some(builtin.clone());
                builtin
            }
        };
        let facts = Arc::new(RoundFacts {
            pay_table: cached_pay_table(conn, &mut kept.pay_tables, &pay_table_id)?,
            id: id.clone(),
            table_id,
            config,
        });
        if pinned.contains_key(&id) {
            kept.rounds.put(id.clone(), facts.clone());
        }
        found.insert(id, facts);
    }
    Ok(found)
}

/// A round's id and status, as the batch's first statement reads them.
#[derive(QueryableByName)]
struct RoundStatusRow {
    #[diesel(sql_type = Text)]
    id: String,
    #[diesel(sql_type = Text)]
    status: String,
}

/// Reads what the batch before this one may have just written: the stored
/// answers to this batch's keys, what its players have staked on its rounds,
/// and the balances of every account its requests touch (into `appender`).
/// On PostgreSQL one statement, since it runs inside the ledger's serial
/// section.
fn load_locked(
    conn: &mut AnyConnection,
    requests: &[&WagerRequest],
    round_ids: &BTreeSet<&str>,
    loaded: &mut Loaded,
    appender: &mut Appender,
) -> Result<(), WagerError> {
    let mut slots: Vec<(&str, &str)> = requests
        .iter()
        .filter_map(|q| {
            q.idempotency
                .as_ref()
                .map(|i| (q.caller.user_id.as_str(), i.key.as_str()))
        })
        .collect();
    slots.sort_unstable();
    slots.dedup();
    let players: BTreeSet<&str> = requests
        .iter()
        .filter_map(|q| match &q.wager {
            Wager::Bet(b) => Some(b.player_id.as_str()),
            Wager::PegLegBet(_) | Wager::Cash(_) => None,
        })
        .collect();
    let peg_leg_players: BTreeSet<&str> = requests
        .iter()
        .filter_map(|q| match &q.wager {
            Wager::PegLegBet(b) => Some(b.player_id.as_str()),
            _ => None,
        })
        .collect();
    let mut accounts: Vec<AccountId> = Vec::with_capacity(requests.len() * 2);
    for q in requests {
        match &q.wager {
            Wager::Bet(b) => {
                accounts.push(AccountId::wallet(&b.player_id));
                accounts.push(AccountId::escrow(&b.round_id));
            }
            Wager::PegLegBet(b) => accounts.extend(peg_leg::accounts(b)),
            Wager::Cash(c) => {
                accounts.push(AccountId::wallet(&c.player_id));
                accounts.push(AccountId::cage());
            }
        }
    }
    accounts.sort_unstable_by(|a, b| a.as_str().cmp(b.as_str()));
    accounts.dedup();

    match conn {
        AnyConnection::Postgresql(c) => {
            // Stored answers by exact (caller, key) lookups (a plain IN on
            // both columns would scan every key of every caller), then
            // exposures, then balances: three kinds of row in one result.
            let rows: Vec<LockedRow> = diesel::sql_query(
                "SELECT 'key' AS what, k.user_id AS a, k.idem_key AS b, k.request_hash AS c, \
                 k.status_code::bigint AS n, false AS flag, k.response_body AS body \
                 FROM unnest($1::text[], $2::text[]) AS q(user_id, idem_key) \
                 CROSS JOIN LATERAL (SELECT * FROM idempotency_keys i \
                 WHERE i.user_id = q.user_id AND i.idem_key = q.idem_key) AS k \
                 UNION ALL SELECT 'exposure', e.round_id, e.player_id, NULL, e.staked_minor, false, NULL \
                 FROM round_exposures e WHERE e.round_id = ANY($3) AND e.player_id = ANY($4) \
                 UNION ALL SELECT 'balance', a.id, NULL, NULL, a.balance_minor, a.may_go_negative, NULL \
                 FROM accounts a WHERE a.id = ANY($5)",
            )
            .bind::<Array<Text>, _>(slots.iter().map(|s| s.0).collect::<Vec<_>>())
            .bind::<Array<Text>, _>(slots.iter().map(|s| s.1).collect::<Vec<_>>())
            .bind::<Array<Text>, _>(round_ids.iter().copied().collect::<Vec<_>>())
            .bind::<Array<Text>, _>(players.iter().copied().collect::<Vec<_>>())
            .bind::<Array<Text>, _>(accounts.iter().map(AccountId::as_str).collect::<Vec<_>>())
            .load(c)?;
            for row in rows {
                match row.what.as_str() {
                    "key" => {
                        loaded.stored_keys.insert(
                            (row.a, row.b.unwrap_or_default()),
                            (row.c.unwrap_or_default(), row.n as i32, row.body.unwrap_or_default()),
                        );
                    }
                    "exposure" => {
                        loaded.exposures.insert((row.a, row.b.unwrap_or_default()), row.n);
                    }
                    _ => appender.loaded(AccountId::from_stored(row.a), row.n, row.flag),
                }
            }
        }
        AnyConnection::Sqlite(c) => {
            for chunk in slots.chunks(MAX_KEYS_PER_QUERY) {
                let mut query = ik::table
                    .select((
                        ik::user_id,
                        ik::idem_key,
                        ik::request_hash,
                        ik::status_code,
                        ik::response_body,
                    ))
                    .into_boxed();
                for (caller, key) in chunk {
                    query = query.or_filter(ik::user_id.eq(*caller).and(ik::idem_key.eq(*key)));
                }
                let rows: Vec<(String, String, String, i32, String)> = query.load(c)?;
                for (user, key, hash, status, body) in rows {
                    loaded.stored_keys.insert((user, key), (hash, status, body));
                }
            }
            if !round_ids.is_empty() {
                let rows: Vec<(String, String, i64)> = ex::table
                    .filter(ex::round_id.eq_any(round_ids.iter().copied().collect::<Vec<_>>()))
                    .filter(ex::player_id.eq_any(players.iter().copied().collect::<Vec<_>>()))
                    .select((ex::round_id, ex::player_id, ex::staked_minor))
                    .load(c)?;
                for (round, player, staked) in rows {
                    loaded.exposures.insert((round, player), staked);
                }
            }
            appender.load_accounts(conn, accounts.iter())?;
        }
    }
    peg_leg::load_staked(conn, &mut loaded.peg_leg, &peg_leg_players)?;
    Ok(())
}

/// A row of [`load_locked`]'s one statement: `what` says which kind.
#[derive(QueryableByName)]
struct LockedRow {
    #[diesel(sql_type = Text)]
    what: String,
    #[diesel(sql_type = Text)]
    a: String,
    #[diesel(sql_type = Nullable<Text>)]
    b: Option<String>,
    #[diesel(sql_type = Nullable<Text>)]
    c: Option<String>,
    #[diesel(sql_type = BigInt)]
    n: i64,
    #[diesel(sql_type = diesel::sql_types::Bool)]
    flag: bool,
    #[diesel(sql_type = Nullable<Text>)]
    body: Option<String>,
}

fn cached_pay_table(
    conn: &mut AnyConnection,
    cache: &mut HashMap<String, Arc<CachedPayTable>>,
    id: &str,
) -> Result<Arc<CachedPayTable>, WagerError> {
    if let Some(hit) = cache.get(id) {
        return Ok(hit.clone());
    }
    let spec: String = pt::table.find(id).select(pt::spec).first(conn)?;
    let table = PayTable::from_json(&spec).map_err(|e| WagerError::Internal(format!("stored pay table: {}", e.0)))?;
    let entry = Arc::new(CachedPayTable {
        id: id.to_string(),
        fingerprint: table.fingerprint(),
        table,
    });
    cache.insert(id.to_string(), entry.clone());
    Ok(entry)
}

fn place_bet(
    bet: &BetWager,
    key: Option<&str>,
    now: i64,
    loaded: &mut Loaded,
    appender: &mut Appender,
    writes: &mut Writes,
) -> Outcome {
    let round = loaded.rounds.get(&bet.round_id).ok_or(WagerError::RoundNotFound)?;
    if RoundStatus::parse(&round.status) != RoundStatus::Betting {
        return Err(WagerError::BettingClosed {
            status: round.status.clone(),
        });
    }
    let row = &*round.facts;
    let config = &row.config;
    if bet.amount < config.min_bet || bet.amount > config.max_bet {
        return Err(WagerError::AmountOutOfLimits {
            min: config.min_bet,
            max: config.max_bet,
        });
    }
    let pay_table = &row.pay_table;
    if let Some(shown) = bet.pay_table.as_deref() {
        if shown != pay_table.id && shown != pay_table.fingerprint {
            return Err(WagerError::PayTableMismatch {
                id: pay_table.id.clone(),
                fingerprint: pay_table.fingerprint.clone(),
            });
        }
    }
    let selection = bet
        .kind
        .parse_selection(bet.suit.as_deref(), bet.number, &pay_table.table)
        .map_err(|e| WagerError::BadSelection(e.describe()))?;
    let exposure_key = (row.id.clone(), bet.player_id.clone());
    let exposure = loaded.exposures.get(&exposure_key).copied().unwrap_or(0) + bet.amount.minor();
    if exposure > config.max_exposure_per_round.minor() {
        return Err(WagerError::ExposureLimit {
            total: format_minor(exposure),
            limit: config.max_exposure_per_round.to_string(),
        });
    }
    let id = new_id();
    let stake = TransferSpec::new(
        AccountId::wallet(&bet.player_id),
        AccountId::escrow(&row.id),
        bet.amount,
        TransferKind::BetStake,
    )
    .refs(side_bets::refs_of(&row.table_id, &row.id, &bet.player_id, &id))
    .idempotency_key(key)
    .memo(format!("{} bet", bet.kind.name()));
    appender.append(&[stake])?;

    loaded.exposures.insert(exposure_key.clone(), exposure);
    *writes.exposure_added.entry(exposure_key).or_default() += bet.amount.minor();
    let totals = writes
        .totals_added
        .entry((row.id.clone(), bet.kind.name().to_string()))
        .or_default();
    totals.0 += 1;
    totals.1 += bet.amount.minor();
    let placed = BetRow {
        id,
        round_id: row.id.clone(),
        table_id: row.table_id.clone(),
        player_id: bet.player_id.clone(),
        kind: bet.kind.name().to_string(),
        selection: serde_json::to_string(&selection).expect("selections serialize"),
        amount_minor: bet.amount.minor(),
        pay_table_id: pay_table.id.clone(),
        client_seed: bet.client_seed.clone(),
        status: "open".into(),
        returned_minor: 0,
        decided_by: None,
        placed_at_us: now,
        settled_at_us: None,
    };
    let body = serde_json::to_string(&BetView::from(&placed)).map_err(|e| WagerError::Internal(e.to_string()))?;
    writes.bets.push(placed);
    Ok(Committed {
        status: 201,
        body,
        round: Some(RoundRef {
            table_id: row.table_id.clone(),
            round_id: row.id.clone(),
        }),
    })
}

/// A deposit or withdrawal: checked against the patron's cash today (identity before the
/// report threshold), moved, then recorded for the cage's compliance.
fn move_cash(
    conn: &mut AnyConnection,
    cash: &CashWager,
    key: Option<&str>,
    now: i64,
    loaded: &mut Loaded,
    appender: &mut Appender,
) -> Outcome {
    match loaded.accounts.get(&cash.player_id).map(|a| a.role) {
        None => return Err(WagerError::PlayerNotFound),
        Some(Role::Player) => {}
        Some(_) => return Err(WagerError::NotAPlayer),
    }
    let Some(CashPhase::Watching(watch)) = loaded.cash.as_mut() else {
        return Err(WagerError::Internal("the batch loaded no cash view".into()));
    };
    let request = crate::compliance::CashRequest {
        player_id: &cash.player_id,
        direction: cash.direction,
        amount_minor: cash.amount.minor(),
        cashier_id: &cash.cashier_id,
        location: cash.location.as_deref(),
    };
    let wallet = AccountId::wallet(&cash.player_id);
    // A withdrawal the wallet cannot pay is refused for that, before any question of identity
    // (nor is it evidence of a split).
    if let (CashDirection::Withdrawal, Some(balance)) = (cash.direction, appender.balance_minor(&wallet)) {
        if balance < cash.amount.minor() {
            return Err(WagerError::InsufficientFunds {
                account: wallet.as_str().to_owned(),
                balance: format_minor(balance),
                needed: format_minor(cash.amount.minor()),
            });
        }
    }
    watch.check(conn, &request)?.map_err(WagerError::IdentityRequired)?;
    let (debit, credit, kind) = match cash.direction {
        CashDirection::Deposit => (AccountId::cage(), wallet.clone(), TransferKind::Deposit),
        CashDirection::Withdrawal => (wallet.clone(), AccountId::cage(), TransferKind::Withdrawal),
    };
    let memo = cash
        .memo
        .clone()
        .unwrap_or_else(|| format!("{} by {}", kind.as_str(), cash.cashier_id));
    let spec = TransferSpec::new(debit, credit, cash.amount, kind)
        .refs(Refs {
            user_id: Some(cash.player_id.clone()),
            ..Refs::default()
        })
        .idempotency_key(key)
        .memo(memo);
    let transfer = TransferView::from(&appender.append(&[spec])?[0]);
    let balance = appender.balance_minor(&wallet).ok_or(WagerError::PlayerNotFound)?;
    watch.record(conn, &request, &transfer.id, |conn| {
        crate::compliance::cash::staked_last_day(conn, &cash.player_id, now)
    })?;
    let receipt = CageReceipt {
        transfer,
        balance: format_minor(balance),
    };
    Ok(Committed {
        status: 201,
        body: serde_json::to_string(&receipt).map_err(|e| WagerError::Internal(e.to_string()))?,
        round: None,
    })
}

/// (caller, key) pairs looked up per query on SQLite.
const MAX_KEYS_PER_QUERY: usize = 256;
