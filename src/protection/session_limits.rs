//! The limit a player sets on the length of a session (docs/protection.md, "Session limits"):
//! once a session — play with no pause longer than the floor's gap — has run this many minutes,
//! every stake is refused until a pause ends it. Set and raised as the money limits are
//! (`limits`): a first or shorter limit at once, a longer one or a removal after the cooling-off
//! and the player's confirmation.

use diesel::prelude::*;
use serde::Serialize;
use utoipa::ToSchema;

use super::limits::{at_once, cooled_off, LimitError};
use super::COOLING_OFF_US;
use crate::significant_events::{self, EventKind};
use crate::store::schema::player_session_limits as psl;
use crate::store::AnyConnection;

/// The lengths a player may set, in minutes: 10 minutes to a day.
pub const MINUTES: std::ops::RangeInclusive<u32> = 10..=1440;

/// A session's length a player may set.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SessionMinutes(u32);

impl SessionMinutes {
    pub fn parse(minutes: u32) -> Result<SessionMinutes, LimitError> {
        if MINUTES.contains(&minutes) {
            Ok(SessionMinutes(minutes))
        } else {
            Err(LimitError::SessionMinutes)
        }
    }

    pub fn get(self) -> u32 {
        self.0
    }
}

/// The player's session limit as they see it.
#[derive(Serialize, ToSchema, Debug, Clone, PartialEq, Eq)]
pub struct SessionLimitView {
    /// Minutes a session may run; null when no limit.
    pub minutes: Option<u32>,
    /// A longer limit (or a removal) waiting for its cooling-off and confirmation.
    pub pending: Option<PendingSessionLimit>,
}

#[derive(Serialize, ToSchema, Debug, Clone, PartialEq, Eq)]
pub struct PendingSessionLimit {
    /// The limit asked for; null: no limit.
    pub minutes: Option<u32>,
    pub asked_at_us: i64,
    /// From when the player may confirm it.
    pub confirmable_from_us: i64,
}

type Row = (Option<i32>, Option<i32>, Option<i64>);

fn row(conn: &mut AnyConnection, player: &str) -> QueryResult<Option<Row>> {
    psl::table
        .find(player)
        .select((psl::minutes, psl::pending_minutes, psl::pending_asked_at_us))
        .first(conn)
        .optional()
}

fn minutes(stored: Option<i32>) -> Option<u32> {
    stored.map(|m| m.max(0) as u32)
}

/// The player's session limit.
pub fn view(conn: &mut AnyConnection, player: &str) -> QueryResult<SessionLimitView> {
    let stored = row(conn, player)?;
    Ok(SessionLimitView {
        minutes: minutes(stored.and_then(|r| r.0)),
        pending: stored.and_then(|(_, pending, asked)| {
            asked.map(|asked_at_us| PendingSessionLimit {
                minutes: minutes(pending),
                asked_at_us,
                confirmable_from_us: asked_at_us + COOLING_OFF_US,
            })
        }),
    })
}

fn store(
    conn: &mut AnyConnection,
    player: &str,
    in_force: Option<i32>,
    pending: Option<(Option<i32>, i64)>,
    now_us: i64,
) -> QueryResult<()> {
    let (pending_minutes, pending_at) = match pending {
        Some((m, at)) => (m, Some(at)),
        None => (None, None),
    };
    let updated = diesel::update(psl::table.find(player))
        .set((
            psl::minutes.eq(in_force),
            psl::pending_minutes.eq(pending_minutes),
            psl::pending_asked_at_us.eq(pending_at),
            psl::updated_at_us.eq(now_us),
        ))
        .execute(conn)?;
    if updated == 0 {
        diesel::insert_into(psl::table)
            .values((
                psl::player_id.eq(player),
                psl::minutes.eq(in_force),
                psl::pending_minutes.eq(pending_minutes),
                psl::pending_asked_at_us.eq(pending_at),
                psl::updated_at_us.eq(now_us),
            ))
            .execute(conn)?;
    }
    Ok(())
}

/// Sets the player's session limit (`None`: no limit); a first or shorter one is in force at
/// once, a longer one or a removal waits (see the module).
pub fn set(
    conn: &mut AnyConnection,
    player: &str,
    asked: Option<SessionMinutes>,
    now_us: i64,
) -> Result<SessionLimitView, LimitError> {
    let asked = asked.map(|m| m.get() as i32);
    let current = row(conn, player)?.and_then(|r| r.0);
    let waits = !at_once(current.map(i64::from), asked.map(i64::from));
    let (in_force, pending) = if waits {
        (current, Some((asked, now_us)))
    } else {
        (asked, None)
    };
    store(conn, player, in_force, pending, now_us)?;
    changed(conn, player, ("asked", asked), in_force, waits)
}

/// Puts a pending longer limit (or a removal) in force, once its cooling-off is over.
pub fn confirm(conn: &mut AnyConnection, player: &str, now_us: i64) -> Result<SessionLimitView, LimitError> {
    let Some((_, pending, Some(asked_at_us))) = row(conn, player)? else {
        return Err(LimitError::NothingPending);
    };
    cooled_off(asked_at_us, now_us)?;
    store(conn, player, pending, None, now_us)?;
    changed(conn, player, ("confirmed", pending), pending, false)
}

/// Records the change as a significant event and answers the limit as it now is.
fn changed(
    conn: &mut AnyConnection,
    player: &str,
    (what, asked): (&str, Option<i32>),
    in_force: Option<i32>,
    waits: bool,
) -> Result<SessionLimitView, LimitError> {
    significant_events::record(
        conn,
        EventKind::PlayerLimitSet,
        Some(player),
        Some(player),
        serde_json::json!({
            "kind": "session_length",
            what: asked.map(|m| format!("{m} minutes")),
            "in_force": in_force.map(|m| format!("{m} minutes")),
            "waits_for_confirmation": waits,
        }),
    )?;
    Ok(view(conn, player)?)
}
