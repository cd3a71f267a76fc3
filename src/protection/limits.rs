//! Setting and confirming a player's limits (docs/protection.md, "Limits"): a lower limit, or
//! a first one, takes effect at once; a higher one, or removing one, waits out the cooling-off
//! and then the player's confirmation. Asking again restarts the wait; lowering meanwhile drops
//! the pending raise.

use diesel::prelude::*;
use serde::Serialize;
use utoipa::ToSchema;

use super::{LimitKind, Period, COOLING_OFF_US};
use crate::domain::format_minor;
use crate::significant_events::{self, EventKind};
use crate::store::schema::player_limits as pl;
use crate::store::AnyConnection;

#[derive(Debug, thiserror::Error)]
pub enum LimitError {
    #[error("no raise of this limit is waiting for confirmation")]
    NothingPending,
    #[error("the raise may be confirmed from {}, 24 hours after it was asked for", super::utc_minute(*from_us))]
    CoolingOff { from_us: i64 },
    #[error("a session limit is 10 to 1440 minutes (24 hours), or none")]
    SessionMinutes,
    #[error(transparent)]
    Db(#[from] diesel::result::Error),
    #[error(transparent)]
    Store(#[from] crate::store::StoreError),
}

/// One of a player's nine limits as they see it.
#[derive(Serialize, ToSchema, Debug, Clone, PartialEq, Eq)]
pub struct LimitView {
    pub kind: LimitKind,
    pub period: Period,
    /// The limit in force, a decimal string; null when none.
    pub amount: Option<String>,
    /// A raise (or a removal) waiting for its cooling-off and confirmation.
    pub pending: Option<PendingRaise>,
}

#[derive(Serialize, ToSchema, Debug, Clone, PartialEq, Eq)]
pub struct PendingRaise {
    /// The limit asked for; null: no limit.
    pub amount: Option<String>,
    pub asked_at_us: i64,
    /// From when the player may confirm it.
    pub confirmable_from_us: i64,
}

type Row = (String, String, Option<i64>, Option<i64>, Option<i64>);

fn rows(conn: &mut AnyConnection, player: &str) -> QueryResult<Vec<Row>> {
    pl::table
        .filter(pl::player_id.eq(player))
        .select((
            pl::kind,
            pl::period,
            pl::amount_minor,
            pl::pending_amount_minor,
            pl::pending_asked_at_us,
        ))
        .load(conn)
}

/// Every kind and period, in that order, with what is set.
pub fn list(conn: &mut AnyConnection, player: &str) -> QueryResult<Vec<LimitView>> {
    let stored = rows(conn, player)?;
    let mut out = Vec::with_capacity(9);
    for kind in LimitKind::ALL {
        for period in Period::ALL {
            let row = stored
                .iter()
                .find(|(k, p, ..)| *k == kind.as_str() && *p == period.as_str());
            out.push(LimitView {
                kind,
                period,
                amount: row.and_then(|r| r.2).map(format_minor),
                pending: row.and_then(|r| {
                    r.4.map(|asked_at_us| PendingRaise {
                        amount: r.3.map(format_minor),
                        asked_at_us,
                        confirmable_from_us: asked_at_us + COOLING_OFF_US,
                    })
                }),
            });
        }
    }
    Ok(out)
}

fn find(conn: &mut AnyConnection, player: &str, kind: LimitKind, period: Period) -> QueryResult<Option<Row>> {
    Ok(rows(conn, player)?
        .into_iter()
        .find(|(k, p, ..)| *k == kind.as_str() && *p == period.as_str()))
}

fn view(conn: &mut AnyConnection, player: &str, kind: LimitKind, period: Period) -> QueryResult<LimitView> {
    Ok(list(conn, player)?
        .into_iter()
        .find(|v| v.kind == kind && v.period == period)
        .expect("every kind and period is listed"))
}

fn store(
    conn: &mut AnyConnection,
    player: &str,
    kind: LimitKind,
    period: Period,
    amount_minor: Option<i64>,
    pending: Option<(Option<i64>, i64)>,
    now_us: i64,
    existed: bool,
) -> QueryResult<()> {
    let (pending_amount, pending_at) = match pending {
        Some((amount, at)) => (amount, Some(at)),
        None => (None, None),
    };
    if existed {
        diesel::update(
            pl::table
                .filter(pl::player_id.eq(player))
                .filter(pl::kind.eq(kind.as_str()))
                .filter(pl::period.eq(period.as_str())),
        )
        .set((
            pl::amount_minor.eq(amount_minor),
            pl::pending_amount_minor.eq(pending_amount),
            pl::pending_asked_at_us.eq(pending_at),
            pl::updated_at_us.eq(now_us),
        ))
        .execute(conn)?;
    } else {
        diesel::insert_into(pl::table)
            .values((
                pl::player_id.eq(player),
                pl::kind.eq(kind.as_str()),
                pl::period.eq(period.as_str()),
                pl::amount_minor.eq(amount_minor),
                pl::pending_amount_minor.eq(pending_amount),
                pl::pending_asked_at_us.eq(pending_at),
                pl::updated_at_us.eq(now_us),
            ))
            .execute(conn)?;
    }
    Ok(())
}

/// Whether asking for `asked` (`None`: no limit) where `current` is in force takes effect at
/// once: a first limit or a lower one does; a higher one or a removal waits.
pub(super) fn at_once(current: Option<i64>, asked: Option<i64>) -> bool {
    match (current, asked) {
        (None, _) => true,
        (Some(c), Some(a)) => a <= c,
        (Some(_), None) => false,
    }
}

/// Whether a raise asked for at `asked_at_us` may be confirmed at `now_us`.
pub(super) fn cooled_off(asked_at_us: i64, now_us: i64) -> Result<(), LimitError> {
    let from_us = asked_at_us + COOLING_OFF_US;
    if now_us < from_us {
        return Err(LimitError::CoolingOff { from_us });
    }
    Ok(())
}

/// Sets the limit on `kind` over `period` to `amount_minor` (`None`: no limit). A first limit
/// or a lower one is in force at once; a higher one or a removal waits (see the module).
pub fn set(
    conn: &mut AnyConnection,
    player: &str,
    kind: LimitKind,
    period: Period,
    amount_minor: Option<i64>,
    now_us: i64,
) -> Result<LimitView, LimitError> {
    let row = find(conn, player, kind, period)?;
    let current = row.as_ref().and_then(|r| r.2);
    let at_once = at_once(current, amount_minor);
    let (in_force, pending) = if at_once {
        (amount_minor, None)
    } else {
        (current, Some((amount_minor, now_us)))
    };
    store(conn, player, kind, period, in_force, pending, now_us, row.is_some())?;
    changed(conn, player, kind, period, ("asked", amount_minor), in_force, !at_once)
}

/// Puts a pending raise in force, once its cooling-off is over.
pub fn confirm(
    conn: &mut AnyConnection,
    player: &str,
    kind: LimitKind,
    period: Period,
    now_us: i64,
) -> Result<LimitView, LimitError> {
    let row = find(conn, player, kind, period)?.ok_or(LimitError::NothingPending)?;
    let (_, _, _, pending_amount, Some(asked_at_us)) = row else {
        return Err(LimitError::NothingPending);
    };
    cooled_off(asked_at_us, now_us)?;
    store(conn, player, kind, period, pending_amount, None, now_us, true)?;
    changed(
        conn,
        player,
        kind,
        period,
        ("confirmed", pending_amount),
        pending_amount,
        false,
    )
}

/// Records the change as a significant event and answers the limit as it now is.
fn changed(
    conn: &mut AnyConnection,
    player: &str,
    kind: LimitKind,
    period: Period,
    (what, amount_minor): (&str, Option<i64>),
    in_force: Option<i64>,
    waits: bool,
) -> Result<LimitView, LimitError> {
    significant_events::record(
        conn,
        EventKind::PlayerLimitSet,
        Some(player),
        Some(player),
        serde_json::json!({
            "kind": kind.as_str(),
            "period": period.as_str(),
            what: amount_minor.map(format_minor),
            "in_force": in_force.map(format_minor),
            "waits_for_confirmation": waits,
        }),
    )?;
    Ok(view(conn, player, kind, period)?)
}
