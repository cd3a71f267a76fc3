//! Time-outs and self-exclusions (docs/protection.md, "Time-outs and self-exclusion"): taken by
//! the player, never shortened. The table is insert-only (its triggers refuse UPDATE and
//! DELETE), so a second one can only add time: the one that ends last is in force.

use chrono::{Months, TimeZone, Utc};
use diesel::prelude::*;
use serde::Serialize;
use utoipa::ToSchema;

use super::{ExclusionKind, DAY_US};
use crate::significant_events::{self, EventKind};
use crate::store::schema::player_exclusions as px;
use crate::store::{new_id, AnyConnection};

/// A time-out lasts from one day to six weeks.
pub const TIME_OUT_DAYS: std::ops::RangeInclusive<u32> = 1..=42;
/// A self-exclusion lasts from six months to five years, or for good.
pub const SELF_EXCLUSION_MONTHS: std::ops::RangeInclusive<u32> = 6..=60;

/// How long an exclusion lasts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Length {
    Days(u32),
    Months(u32),
    Permanent,
}

#[derive(Debug, thiserror::Error)]
pub enum ExclusionError {
    #[error("a time-out lasts 1 to 42 days")]
    TimeOutLength,
    #[error("a self-exclusion lasts 6 to 60 months, or is permanent")]
    SelfExclusionLength,
    #[error(transparent)]
    Db(#[from] diesel::result::Error),
    #[error(transparent)]
    Store(#[from] crate::store::StoreError),
}

/// Excludes a player found on an external exclusion list, as its entry says (to the end of
/// `ends_at_us`, or for good), once a reviewer confirmed the match: recorded as a
/// self-exclusion, by the reviewer.
pub fn from_list(
    conn: &mut AnyConnection,
    player: &str,
    ends_at_us: Option<i64>,
    now_us: i64,
    reviewer_id: &str,
    list_id: &str,
) -> Result<ExclusionView, ExclusionError> {
    let kind = ExclusionKind::SelfExclusion;
    let details = serde_json::json!({ "kind": kind.as_str(), "ends_at_us": ends_at_us, "exclusion_list": list_id });
    start(conn, player, kind, ends_at_us, now_us, reviewer_id, details)
}

#[derive(Serialize, ToSchema, Debug, Clone, PartialEq, Eq)]
pub struct ExclusionView {
    pub id: String,
    pub kind: ExclusionKind,
    pub starts_at_us: i64,
    /// Null: permanent.
    pub ends_at_us: Option<i64>,
    /// Whether it is in force now.
    pub in_force: bool,
}

/// Starts an exclusion of `kind` for `length` from `now_us`.
pub fn take(
    conn: &mut AnyConnection,
    player: &str,
    kind: ExclusionKind,
    length: Length,
    now_us: i64,
) -> Result<ExclusionView, ExclusionError> {
    let ends_at_us = match (kind, length) {
        (ExclusionKind::TimeOut, Length::Days(d)) if TIME_OUT_DAYS.contains(&d) => Some(now_us + i64::from(d) * DAY_US),
        (ExclusionKind::TimeOut, _) => return Err(ExclusionError::TimeOutLength),
        (ExclusionKind::SelfExclusion, Length::Months(m)) if SELF_EXCLUSION_MONTHS.contains(&m) => {
            let start = Utc
                .timestamp_micros(now_us)
                .single()
                .ok_or(ExclusionError::SelfExclusionLength)?;
            let end = start
                .checked_add_months(Months::new(m))
                .ok_or(ExclusionError::SelfExclusionLength)?;
            Some(end.timestamp_micros())
        }
        (ExclusionKind::SelfExclusion, Length::Permanent) => None,
        (ExclusionKind::SelfExclusion, _) => return Err(ExclusionError::SelfExclusionLength),
    };
    let details = serde_json::json!({ "kind": kind.as_str(), "ends_at_us": ends_at_us });
    start(conn, player, kind, ends_at_us, now_us, player, details)
}

/// Inserts an exclusion in force from `now_us` and records it as `actor_id`'s.
fn start(
    conn: &mut AnyConnection,
    player: &str,
    kind: ExclusionKind,
    ends_at_us: Option<i64>,
    now_us: i64,
    actor_id: &str,
    details: serde_json::Value,
) -> Result<ExclusionView, ExclusionError> {
    let id = new_id();
    diesel::insert_into(px::table)
        .values((
            px::id.eq(&id),
            px::player_id.eq(player),
            px::kind.eq(kind.as_str()),
            px::starts_at_us.eq(now_us),
            px::ends_at_us.eq(ends_at_us),
            px::created_at_us.eq(now_us),
        ))
        .execute(conn)?;
    significant_events::record(conn, EventKind::PlayerExcluded, Some(actor_id), Some(player), details)?;
    Ok(ExclusionView {
        id,
        kind,
        starts_at_us: now_us,
        ends_at_us,
        in_force: true,
    })
}

/// Every exclusion the player took, newest first.
pub fn list(conn: &mut AnyConnection, player: &str, now_us: i64) -> QueryResult<Vec<ExclusionView>> {
    let rows: Vec<(String, String, i64, Option<i64>)> = px::table
        .filter(px::player_id.eq(player))
        .order(px::starts_at_us.desc())
        .select((px::id, px::kind, px::starts_at_us, px::ends_at_us))
        .load(conn)?;
    Ok(rows
        .into_iter()
        .map(|(id, kind, starts_at_us, ends_at_us)| ExclusionView {
            id,
            kind: ExclusionKind::parse(&kind).unwrap_or(ExclusionKind::SelfExclusion),
            starts_at_us,
            ends_at_us,
            in_force: starts_at_us <= now_us && ends_at_us.is_none_or(|e| e > now_us),
        })
        .collect())
}
