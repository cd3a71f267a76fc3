//! The stored round: status, sealed seed, decisions, result, and the guard
//! that makes every state change happen once (row lock + version check).

use diesel::prelude::*;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::store::schema::rounds as r;
use crate::store::{lock_for_update, now_us, AnyConnection};

/// Why a stored round refused a change.
#[derive(Debug, thiserror::Error)]
pub enum RoundError {
    #[error("round not found")]
    NotFound,
    #[error("cannot {action}: round is {status}")]
    WrongState { action: String, status: String },
    #[error("the round changed meanwhile; reload and retry")]
    Changed,
    /// The change would be stamped inside a closed gaming day (a clock behind).
    #[error("{0}")]
    GamingDayClosed(String),
    #[error(transparent)]
    Store(#[from] diesel::result::Error),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum RoundStatus {
    /// Seats and side bets are accepted.
    Betting,
    /// Betting closed; the client seed is fixed; awaiting the deal.
    Closed,
    /// The first pass is dealt; awaiting a copa decision.
    Copa,
    /// The main game needs no more cards; awaiting settlement.
    Finished,
    /// Prima Carta: the copa is over and the dealer is dealing the repasso
    /// (its outcome is fixed by the deck, shown at settlement). Lobo: the
    /// player is playing.
    InPlay,
    Settled,
    Voided,
}

impl RoundStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            RoundStatus::Betting => "betting",
            RoundStatus::Closed => "closed",
            RoundStatus::Copa => "copa",
            RoundStatus::Finished => "finished",
            RoundStatus::InPlay => "in_play",
            RoundStatus::Settled => "settled",
            RoundStatus::Voided => "voided",
        }
    }
    pub fn parse(text: &str) -> RoundStatus {
        match text {
            "betting" => RoundStatus::Betting,
            "closed" => RoundStatus::Closed,
            "copa" => RoundStatus::Copa,
            "finished" => RoundStatus::Finished,
            "in_play" => RoundStatus::InPlay,
            "settled" => RoundStatus::Settled,
            _ => RoundStatus::Voided,
        }
    }
    /// Secrets (the server seed and everything derived from it) may be shown.
    pub fn is_over(self) -> bool {
        matches!(self, RoundStatus::Settled | RoundStatus::Voided)
    }
}

#[derive(Queryable, Selectable, Debug, Clone)]
#[diesel(table_name = r)]
pub struct RoundRow {
    pub id: String,
    pub table_id: String,
    pub game: String,
    pub number: i64,
    pub status: String,
    pub config: String,
    pub commitment: String,
    pub server_seed_sealed: String,
    pub client_seed: Option<String>,
    pub revealed_server_seed: Option<String>,
    pub decisions: String,
    pub result: Option<String>,
    pub version: i64,
    pub created_by: String,
    pub created_at_us: i64,
    pub updated_at_us: i64,
}

impl RoundRow {
    pub fn status(&self) -> RoundStatus {
        RoundStatus::parse(&self.status)
    }

    pub fn require_status(&self, allowed: &[RoundStatus], action: &str) -> Result<(), RoundError> {
        if allowed.contains(&self.status()) {
            Ok(())
        } else {
            Err(RoundError::WrongState {
                action: action.to_string(),
                status: self.status.clone(),
            })
        }
    }
}

pub fn find(conn: &mut AnyConnection, id: &str) -> QueryResult<Option<RoundRow>> {
    r::table.find(id).select(RoundRow::as_select()).first(conn).optional()
}

/// A table's rounds not yet over, newest first, at most `limit`.
pub fn in_play_at(conn: &mut AnyConnection, table_id: &str, limit: i64) -> QueryResult<Vec<RoundRow>> {
    r::table
        .filter(r::table_id.eq(table_id))
        .filter(r::status.ne_all([RoundStatus::Settled.as_str(), RoundStatus::Voided.as_str()]))
        .order((r::created_at_us.desc(), r::id.desc()))
        .select(RoundRow::as_select())
        .limit(limit)
        .load(conn)
}

/// The round still going that a new one would clash with: at a Prima Carta
/// table any round not yet settled or voided; at a Lobo table, `player`'s.
pub fn unfinished(
    conn: &mut AnyConnection,
    table_id: &str,
    game: &str,
    player: Option<&str>,
) -> QueryResult<Option<String>> {
    let mut query = r::table
        .filter(r::table_id.eq(table_id))
        .filter(r::game.eq(game))
        .filter(r::status.ne_all([RoundStatus::Settled.as_str(), RoundStatus::Voided.as_str()]))
        .select(r::id)
        .into_boxed();
    if let Some(player) = player {
        query = query.filter(r::created_by.eq(player));
    }
    query.first(conn).optional()
}

/// A round about to be stored: its seed is sealed here, and only its
/// commitment is stored in the clear.
pub struct NewRound<'a> {
    pub id: &'a str,
    pub table_id: &'a str,
    pub game: &'a str,
    pub status: RoundStatus,
    pub config_json: &'a str,
    pub seed: &'a crate::cards::shuffle::ServerSeed,
    pub client_seed: Option<&'a str>,
    pub created_by: &'a str,
    pub pay_table_id: Option<&'a str>,
}

/// Inserts a round numbered after the table's last one. A unique violation
/// means the table (or, for Lobo, the player) already has a round in progress.
pub fn insert(conn: &mut AnyConnection, vault: &super::SeedVault, new: &NewRound<'_>) -> QueryResult<()> {
    let last: Option<i64> = r::table
        .filter(r::table_id.eq(new.table_id))
        .select(diesel::dsl::max(r::number))
        .first(conn)?;
    let now = now_us();
    diesel::insert_into(r::table)
        .values((
            r::id.eq(new.id),
            r::table_id.eq(new.table_id),
            r::game.eq(new.game),
            r::number.eq(last.unwrap_or(0) + 1),
            r::status.eq(new.status.as_str()),
            r::config.eq(new.config_json),
            r::commitment.eq(crate::cards::shuffle::commitment(new.seed)),
            r::server_seed_sealed.eq(vault.seal(new.id, new.seed)),
            r::client_seed.eq(new.client_seed),
            r::decisions.eq("[]"),
            r::version.eq(0i64),
            r::created_by.eq(new.created_by),
            r::created_at_us.eq(now),
            r::updated_at_us.eq(now),
        ))
        .execute(conn)?;
    if let Some(pay_table_id) = new.pay_table_id {
        use crate::store::schema::round_pay_tables as rpt;
        diesel::insert_into(rpt::table)
            .values((rpt::round_id.eq(new.id), rpt::pay_table_id.eq(pay_table_id)))
            .execute(conn)?;
    }
    Ok(())
}

/// The pay table a Prima Carta round was created under (none for rounds
/// from before rounds kept one).
pub fn pay_table_of(conn: &mut AnyConnection, round_id: &str) -> QueryResult<Option<String>> {
    use crate::store::schema::round_pay_tables as rpt;
    rpt::table
        .find(round_id)
        .select(rpt::pay_table_id)
        .first(conn)
        .optional()
}

/// A table's rounds, newest first.
pub fn for_table(conn: &mut AnyConnection, table_id: &str, limit: i64) -> QueryResult<Vec<RoundRow>> {
    r::table
        .filter(r::table_id.eq(table_id))
        .order(r::number.desc())
        .limit(limit)
        .select(RoundRow::as_select())
        .load(conn)
}

/// The rounds of these ids (at most a few thousand: one statement), in no order.
pub fn by_ids(conn: &mut AnyConnection, ids: &[&str]) -> QueryResult<Vec<RoundRow>> {
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    r::table
        .filter(r::id.eq_any(ids))
        .select(RoundRow::as_select())
        .load(conn)
}

/// The table's most recent round.
pub fn latest(conn: &mut AnyConnection, table_id: &str) -> QueryResult<Option<RoundRow>> {
    r::table
        .filter(r::table_id.eq(table_id))
        .order(r::number.desc())
        .select(RoundRow::as_select())
        .first(conn)
        .optional()
}

/// Loads a round and, on PostgreSQL, holds its row lock to the end of the
/// transaction, so concurrent requests about one round run one at a time
/// across every instance.
pub fn lock(conn: &mut AnyConnection, id: &str) -> Result<RoundRow, RoundError> {
    if uuid::Uuid::parse_str(id).is_err() {
        return Err(RoundError::NotFound);
    }
    lock_for_update(conn, &format!("SELECT id FROM rounds WHERE id = '{id}' FOR UPDATE"))?;
    find(conn, id)?.ok_or(RoundError::NotFound)
}

/// Writes a new status (and optionally other fields) if the round is still at
/// `expected_version`; a lost race is a 409, never a double application.
pub struct RoundUpdate<'a> {
    pub status: RoundStatus,
    pub client_seed: Option<&'a str>,
    pub revealed_server_seed: Option<&'a str>,
    pub decisions: Option<&'a str>,
    pub result: Option<&'a str>,
}

impl<'a> RoundUpdate<'a> {
    pub fn status(status: RoundStatus) -> RoundUpdate<'a> {
        RoundUpdate {
            status,
            client_seed: None,
            revealed_server_seed: None,
            decisions: None,
            result: None,
        }
    }
}

pub fn update(conn: &mut AnyConnection, row: &RoundRow, change: RoundUpdate<'_>) -> Result<(), RoundError> {
    let now = now_us();
    crate::ledger::refuse_if_closed(conn, now).map_err(|e| match e {
        crate::ledger::LedgerError::Db(d) => RoundError::Store(d),
        other => RoundError::GamingDayClosed(other.to_string()),
    })?;
    let target = r::table.filter(r::id.eq(&row.id)).filter(r::version.eq(row.version));
    let n = diesel::update(target)
        .set((
            r::status.eq(change.status.as_str()),
            r::client_seed.eq(change
                .client_seed
                .map(str::to_string)
                .or_else(|| row.client_seed.clone())),
            r::revealed_server_seed.eq(change
                .revealed_server_seed
                .map(str::to_string)
                .or_else(|| row.revealed_server_seed.clone())),
            r::decisions.eq(change.decisions.unwrap_or(&row.decisions)),
            r::result.eq(change.result.map(str::to_string).or_else(|| row.result.clone())),
            r::version.eq(row.version + 1),
            r::updated_at_us.eq(now),
        ))
        .execute(conn)?;
    if n == 1 {
        Ok(())
    } else {
        Err(RoundError::Changed)
    }
}
