//! Running the floor (docs/floor.md). So far: the casino's calendar of
//! gaming days and shifts, kept in the `settings` table and changed by a pit
//! boss as a significant event; and each gaming day's table performance,
//! read from the ledger, the rounds and the bets.

pub mod calendar;
pub mod performance;

use chrono::NaiveDate;
use diesel::prelude::*;
use rust_decimal::prelude::FromPrimitive;
use rust_decimal::Decimal;
use serde::Serialize;
use std::collections::HashMap;
use utoipa::ToSchema;

use crate::significant_events::{self, EventKind};
use crate::store::schema::settings;
use crate::store::AnyConnection;
pub use calendar::{CalendarError, CalendarSpec, FloorCalendar, Placement, ShiftSpec};
pub use performance::PerformanceLine;

/// The `settings` row holding the calendar (a [`CalendarSpec`] as JSON).
const CALENDAR_SETTING: &str = "floor.calendar";

#[derive(Debug, thiserror::Error)]
pub enum FloorError {
    #[error(transparent)]
    Calendar(#[from] CalendarError),
    #[error("the stored calendar does not read: {0}")]
    StoredCalendar(String),
    #[error("pay table {0}: its stored certificate does not read: {1}")]
    StoredCertificate(String, String),
    #[error(transparent)]
    Database(#[from] diesel::result::Error),
    #[error(transparent)]
    Store(#[from] crate::store::StoreError),
}

/// The calendar in force: the stored one, or [`FloorCalendar::default`] until
/// a pit boss sets one.
pub fn calendar(conn: &mut AnyConnection) -> Result<FloorCalendar, FloorError> {
    let stored: Option<String> = settings::table
        .find(CALENDAR_SETTING)
        .select(settings::value)
        .first(conn)
        .optional()?;
    match stored {
        None => Ok(FloorCalendar::default()),
        Some(json) => {
            let spec: CalendarSpec = serde_json::from_str(&json).map_err(|e| FloorError::StoredCalendar(e.to_string()))?;
            FloorCalendar::new(&spec).map_err(|e| FloorError::StoredCalendar(e.to_string()))
        }
    }
}

/// Replaces the calendar and records who did it, with the old and the new.
pub fn set_calendar(conn: &mut AnyConnection, actor_id: &str, spec: &CalendarSpec) -> Result<FloorCalendar, FloorError> {
    let new = FloorCalendar::new(spec)?;
    let old = calendar(conn)?;
    let value = serde_json::to_string(&new.spec()).expect("a calendar serialises");
    let updated = diesel::update(settings::table.find(CALENDAR_SETTING))
        .set(settings::value.eq(&value))
        .execute(conn)?;
    if updated == 0 {
        diesel::insert_into(settings::table)
            .values((settings::name.eq(CALENDAR_SETTING), settings::value.eq(&value)))
            .execute(conn)?;
    }
    significant_events::record(
        conn,
        EventKind::FloorCalendarChanged,
        Some(actor_id),
        None,
        serde_json::json!({ "old": old.spec(), "new": new.spec() }),
    )?;
    Ok(new)
}

/// A gaming day's table performance (`GET /api/v1/floor/tables`).
#[derive(Serialize, ToSchema)]
pub struct DayReport {
    /// "YYYY-MM-DD": the local date the gaming day starts on.
    pub gaming_day: String,
    pub timezone: String,
    /// The day's first instant and the next day's, microseconds since the Unix epoch.
    pub from_us: i64,
    pub to_us: i64,
    /// Per table: a line per shift with activity, then the day; then the floor's.
    pub lines: Vec<PerformanceLine>,
}

/// The table performance of one gaming day under the calendar in force.
pub fn day_report(conn: &mut AnyConnection, day: NaiveDate) -> Result<DayReport, FloorError> {
    use crate::store::schema::{bets as b, casino_tables as ct, pay_tables as pt, rounds as r, transfers as t};
    let calendar = calendar(conn)?;
    let (from, to) = calendar.day_bounds(day);
    let (from_us, to_us) = (from.timestamp_micros(), to.timestamp_micros());
    let shifts: Vec<(String, i64, i64)> = calendar
        .shift_names()
        .enumerate()
        .map(|(k, name)| {
            let (s, e) = calendar.shift_bounds(day, k);
            (name.to_owned(), s.timestamp_micros(), e.timestamp_micros())
        })
        .collect();

    type TransferRow = (Option<String>, String, String, String, i64, i64);
    let transfers: Vec<TransferRow> = t::table
        .filter(t::created_at_us.ge(from_us).and(t::created_at_us.lt(to_us)))
        .filter(t::table_id.is_not_null())
        .select((t::table_id, t::kind, t::debit_account, t::credit_account, t::amount_minor, t::created_at_us))
        .load(conn)?;
    let rounds: Vec<(String, String, i64)> = r::table
        .filter(r::updated_at_us.ge(from_us).and(r::updated_at_us.lt(to_us)))
        .filter(r::status.eq_any(["settled", "voided"]))
        .select((r::table_id, r::status, r::updated_at_us))
        .load(conn)?;
    type BetRow = (String, String, String, String, String, i64, i64, Option<i64>);
    let bet_rows: Vec<BetRow> = b::table
        .filter(b::settled_at_us.ge(from_us).and(b::settled_at_us.lt(to_us)))
        .filter(b::status.eq_any(["won", "lost", "pushed"]))
        .select((b::table_id, b::round_id, b::pay_table_id, b::kind, b::selection, b::amount_minor, b::returned_minor, b::settled_at_us))
        .load(conn)?;
    let mut certificates: HashMap<String, crate::math::Certificate> = HashMap::new();
    for (_, _, pay_table_id, ..) in &bet_rows {
        if !certificates.contains_key(pay_table_id) {
            let text: String = pt::table.find(pay_table_id).select(pt::certificate).first(conn)?;
            let certificate = serde_json::from_str(&text)
                .map_err(|e| FloorError::StoredCertificate(pay_table_id.clone(), e.to_string()))?;
            certificates.insert(pay_table_id.clone(), certificate);
        }
    }
    let table_rows: Vec<(String, String, String)> = ct::table.select((ct::id, ct::name, ct::game)).load(conn)?;

    let mut bets = Vec::with_capacity(bet_rows.len());
    for (table_id, round_id, pay_table_id, kind, selection, stake, returned, settled_at_us) in &bet_rows {
        let number = match serde_json::from_str::<crate::bets::Selection>(selection) {
            Ok(crate::bets::Selection::Number(n)) => Some(n),
            _ => None,
        };
        let certified = certificates[pay_table_id]
            .bets
            .iter()
            .find(|c| c.kind.name() == kind && c.number == number)
            .ok_or_else(|| FloorError::StoredCertificate(pay_table_id.clone(), format!("no {kind} bet certified")))?;
        bets.push(performance::BetFact {
            table_id,
            round_id,
            certified_as: (pay_table_id, &certified.bet),
            stake_minor: *stake,
            returned_minor: *returned,
            settled_at_us: settled_at_us.unwrap_or(from_us),
            house_edge: house_edge(&certified.rtp),
            sd_per_unit: certified.std_dev_per_unit,
        });
    }
    let transfer_facts: Vec<performance::TransferFact> = transfers
        .iter()
        .filter_map(|(table_id, kind, debit, credit, amount, at)| {
            Some(performance::TransferFact {
                table_id: table_id.as_deref()?,
                kind,
                debit_account: debit,
                credit_account: credit,
                amount_minor: *amount,
                at_us: *at,
            })
        })
        .collect();
    let round_facts: Vec<performance::RoundFact> = rounds
        .iter()
        .map(|(table_id, status, at)| performance::RoundFact {
            table_id,
            voided: status == "voided",
            at_us: *at,
        })
        .collect();
    let tables: Vec<performance::TableInfo> = table_rows
        .iter()
        .map(|(id, name, game)| performance::TableInfo { id, name, game })
        .collect();
    let shift_bounds: Vec<(&str, i64, i64)> = shifts.iter().map(|(n, s, e)| (n.as_str(), *s, *e)).collect();
    Ok(DayReport {
        gaming_day: day.to_string(),
        timezone: calendar.spec().timezone,
        from_us,
        to_us,
        lines: performance::day_lines(&shift_bounds, &tables, &transfer_facts, &round_facts, &bets),
    })
}

/// 1 − the certified RTP: exact where the certificate is.
fn house_edge(rtp: &crate::math::Rtp) -> Decimal {
    use crate::math::Rtp;
    let rtp = match rtp {
        Rtp::Exact { decimal, .. } => decimal.parse().ok(),
        Rtp::Estimate { value, .. } => Decimal::from_f64(*value),
    };
    Decimal::ONE - rtp.unwrap_or(Decimal::ONE)
}
