//! Reality checks (docs/protection.md, "Reality checks"): at an interval the player chooses, the
//! player app stops to show the session so far — how long they have played, what they staked,
//! what came back and the net result. A session is the floor's: play with no pause longer than
//! the rating rule's gap (docs/floor.md, "Player ratings"), read from the wallet's transfers to
//! and from play, so every game counts and nothing is kept beside the ledger.

use diesel::prelude::*;
use serde::Serialize;
use utoipa::ToSchema;

use super::MINUTE_US;
use crate::domain::format_minor;
use crate::significant_events::{self, EventKind};
use crate::store::schema::player_reality_checks as rc;
use crate::store::AnyConnection;

/// The intervals a player may choose, in minutes.
pub const INTERVAL_MINUTES: std::ops::RangeInclusive<u32> = 10..=240;

#[derive(Debug, thiserror::Error)]
pub enum RealityCheckError {
    #[error("a reality check comes every 10 to 240 minutes, or not at all")]
    Interval,
    #[error(transparent)]
    Db(#[from] diesel::result::Error),
}

/// Sets (or, with None, turns off) the player's reality check.
pub fn set(
    conn: &mut AnyConnection,
    player: &str,
    minutes: Option<u32>,
    now_us: i64,
) -> Result<Option<u32>, RealityCheckError> {
    if minutes.is_some_and(|m| !INTERVAL_MINUTES.contains(&m)) {
        return Err(RealityCheckError::Interval);
    }
    let value = minutes.map(|m| m as i32);
    let updated = diesel::update(rc::table.find(player))
        .set((rc::interval_minutes.eq(value), rc::updated_at_us.eq(now_us)))
        .execute(conn)?;
    if updated == 0 {
        diesel::insert_into(rc::table)
            .values((
                rc::player_id.eq(player),
                rc::interval_minutes.eq(value),
                rc::updated_at_us.eq(now_us),
            ))
            .execute(conn)?;
    }
    significant_events::record(
        conn,
        EventKind::RealityCheckSet,
        Some(player),
        Some(player),
        serde_json::json!({ "interval_minutes": minutes }),
    )?;
    Ok(minutes)
}

/// The player's session as a reality check shows it.
#[derive(Serialize, ToSchema, Debug, Clone, PartialEq, Eq)]
pub struct SessionView {
    /// Whether the player is in a session: they played within the last gap.
    pub in_session: bool,
    /// The session's first play (None outside a session).
    pub started_at_us: Option<i64>,
    /// Whole minutes since the session's first play.
    pub minutes_played: i64,
    /// Money put into play this session.
    pub staked: String,
    /// Money that came back from play this session.
    pub returned: String,
    /// Returned less staked: negative when behind.
    pub net: String,
    /// How often the player asked to be shown this, in minutes (None: off).
    pub reality_check_minutes: Option<u32>,
    /// When the next reality check is due (None when off or outside a session).
    pub next_check_at_us: Option<i64>,
    /// A pause longer than this ends a session.
    pub session_gap_minutes: u32,
    /// The length the player allows a session (None: no limit).
    pub session_limit_minutes: Option<u32>,
    /// When this session reaches that limit and stakes are refused until a pause ends it (None
    /// without a limit or outside a session).
    pub play_stops_at_us: Option<i64>,
}

/// The player's current session at `now_us` under a gap of `gap_minutes`.
pub fn session(conn: &mut AnyConnection, player: &str, gap_minutes: u32, now_us: i64) -> QueryResult<SessionView> {
    let interval: Option<u32> = rc::table
        .find(player)
        .select(rc::interval_minutes)
        .first::<Option<i32>>(conn)
        .optional()?
        .flatten()
        .map(|m| m as u32);
    let limit = super::session_limits::view(conn, player)?.minutes;
    let moves = super::moves(conn, &[player], now_us - super::DAY_US)?
        .remove(player)
        .unwrap_or_default();
    let gap_us = i64::from(gap_minutes) * MINUTE_US;
    let plays = moves.iter().rev().filter(|m| m.is_play()).map(|m| (m.at_us, m.lost));
    // To play: the loss it adds; back from play: what it takes off.
    let (mut staked, mut returned, mut started) = (0i64, 0i64, None);
    for (at_us, lost) in super::current_session(plays, now_us, gap_us) {
        if lost > 0 {
            staked += lost;
        } else {
            returned -= lost;
        }
        started = Some(at_us);
    }
    let minutes_played = started.map_or(0, |s| (now_us - s) / MINUTE_US);
    let next_check_at_us = match (started, interval) {
        (Some(s), Some(m)) => {
            let every = i64::from(m) * MINUTE_US;
            Some(s + ((now_us - s) / every + 1) * every)
        }
        _ => None,
    };
    Ok(SessionView {
        in_session: started.is_some(),
        started_at_us: started,
        minutes_played,
        staked: format_minor(staked),
        returned: format_minor(returned),
        net: format_minor(returned - staked),
        reality_check_minutes: interval,
        next_check_at_us,
        session_gap_minutes: gap_minutes,
        session_limit_minutes: limit,
        play_stops_at_us: started.zip(limit).map(|(s, m)| s + i64::from(m) * MINUTE_US),
    })
}
