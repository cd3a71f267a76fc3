//! The auditor's alert queue (docs/compliance.md, "Structuring alerts"): alerts the cage's
//! patterns raised, with their evidence, each dismissed or escalated once by an auditor with a
//! note. Escalating makes a suspicious-activity record, which only auditors ever see: no
//! answer to the patron or to the cashier says one exists.

use diesel::prelude::*;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::patterns::{Finding, Pattern};
use super::Roster;
use crate::significant_events::{self, EventKind};
use crate::store::schema::{compliance_alerts as ca, suspicious_activity_reports as sar};
use crate::store::{new_id, now_us, AnyConnection};
use crate::users::RosterEntry;

/// Most characters in a review note or a narrative.
pub const MAX_NOTE_CHARS: usize = 2000;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum AlertStatus {
    /// Waiting for an auditor.
    Open,
    /// Reviewed, nothing suspicious.
    Dismissed,
    /// Reviewed and escalated: a suspicious-activity record was made.
    Escalated,
}

impl AlertStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            AlertStatus::Open => "open",
            AlertStatus::Dismissed => "dismissed",
            AlertStatus::Escalated => "escalated",
        }
    }

    fn parse(text: &str) -> AlertStatus {
        match text {
            "dismissed" => AlertStatus::Dismissed,
            "escalated" => AlertStatus::Escalated,
            _ => AlertStatus::Open,
        }
    }
}

#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct Alert {
    pub id: String,
    pub patron: RosterEntry,
    pub pattern: Pattern,
    pub gaming_day: String,
    pub raised_at_us: i64,
    pub evidence: Finding,
    pub status: AlertStatus,
    pub reviewed_by: Option<String>,
    pub reviewed_at_us: Option<i64>,
    pub review_note: Option<String>,
}

/// An auditor's decision on an alert.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Decision {
    Dismiss,
    Escalate,
}

#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct SuspiciousActivity {
    pub id: String,
    pub alert_id: String,
    pub patron: RosterEntry,
    pub narrative: String,
    pub created_by: String,
    pub created_at_us: i64,
}

#[derive(Debug, thiserror::Error)]
pub enum AlertError {
    #[error("alert not found")]
    NotFound,
    #[error("this alert was already reviewed")]
    AlreadyReviewed,
    #[error("{0}")]
    Invalid(String),
    #[error("a stored alert does not read: {0}")]
    Stored(String),
    #[error(transparent)]
    Db(#[from] diesel::result::Error),
}

type AlertRow = (
    String,
    String,
    String,
    String,
    i64,
    String,
    String,
    Option<String>,
    Option<i64>,
    Option<String>,
);

macro_rules! alert_columns {
    () => {
        (
            ca::id,
            ca::player_id,
            ca::pattern,
            ca::gaming_day,
            ca::raised_at_us,
            ca::evidence,
            ca::status,
            ca::reviewed_by,
            ca::reviewed_at_us,
            ca::review_note,
        )
    };
}

/// Alerts, newest first, in one state when asked.
pub fn list(
    conn: &mut AnyConnection,
    status: Option<AlertStatus>,
    limit: i64,
    offset: i64,
) -> Result<Vec<Alert>, AlertError> {
    let mut query = ca::table.select(alert_columns!()).into_boxed();
    if let Some(status) = status {
        query = query.filter(ca::status.eq(status.as_str()));
    }
    let rows: Vec<AlertRow> = query
        .order((ca::raised_at_us.desc(), ca::id.asc()))
        .limit(limit)
        .offset(offset)
        .load(conn)?;
    let names = Roster::read(conn, rows.iter().map(|r| r.1.clone()).collect())?;
    rows.into_iter()
        .map(|r| {
            Ok(Alert {
                patron: names.of(&r.1),
                pattern: Pattern::parse(&r.2).ok_or_else(|| AlertError::Stored(format!("pattern {}", r.2)))?,
                evidence: serde_json::from_str(&r.5).map_err(|e| AlertError::Stored(e.to_string()))?,
                status: AlertStatus::parse(&r.6),
                id: r.0,
                gaming_day: r.3,
                raised_at_us: r.4,
                reviewed_by: r.7,
                reviewed_at_us: r.8,
                review_note: r.9,
            })
        })
        .collect()
}

/// Dismisses or escalates an open alert; escalating makes its suspicious-activity record with
/// the note as its narrative.
pub fn review(
    conn: &mut AnyConnection,
    id: &str,
    decision: Decision,
    note: &str,
    auditor_id: &str,
) -> Result<Option<SuspiciousActivity>, AlertError> {
    if note.trim().is_empty() || note.chars().count() > MAX_NOTE_CHARS {
        return Err(AlertError::Invalid(format!(
            "note must say why, in 1 to {MAX_NOTE_CHARS} characters"
        )));
    }
    let player: String = ca::table
        .find(id)
        .select(ca::player_id)
        .first(conn)
        .optional()?
        .ok_or(AlertError::NotFound)?;
    let status = match decision {
        Decision::Dismiss => AlertStatus::Dismissed,
        Decision::Escalate => AlertStatus::Escalated,
    };
    let now = now_us();
    let updated = diesel::update(ca::table.find(id).filter(ca::status.eq("open")))
        .set((
            ca::status.eq(status.as_str()),
            ca::reviewed_by.eq(auditor_id),
            ca::reviewed_at_us.eq(now),
            ca::review_note.eq(note),
        ))
        .execute(conn)?;
    if updated == 0 {
        return Err(AlertError::AlreadyReviewed);
    }
    significant_events::record(
        conn,
        EventKind::ComplianceAlertReviewed,
        Some(auditor_id),
        Some(&player),
        serde_json::json!({ "alert_id": id, "decision": decision }),
    )?;
    if decision == Decision::Dismiss {
        return Ok(None);
    }
    let record_id = new_id();
    diesel::insert_into(sar::table)
        .values((
            sar::id.eq(&record_id),
            sar::alert_id.eq(id),
            sar::player_id.eq(&player),
            sar::narrative.eq(note),
            sar::created_by.eq(auditor_id),
            sar::created_at_us.eq(now),
        ))
        .execute(conn)?;
    let names = Roster::read(conn, vec![player.clone()])?;
    Ok(Some(SuspiciousActivity {
        id: record_id,
        alert_id: id.to_owned(),
        patron: names.of(&player),
        narrative: note.to_owned(),
        created_by: auditor_id.to_owned(),
        created_at_us: now,
    }))
}

/// Suspicious-activity records, newest first.
pub fn suspicious_activity(
    conn: &mut AnyConnection,
    limit: i64,
    offset: i64,
) -> Result<Vec<SuspiciousActivity>, AlertError> {
    let rows: Vec<(String, String, String, String, String, i64)> = sar::table
        .order((sar::created_at_us.desc(), sar::id.asc()))
        .limit(limit)
        .offset(offset)
        .select((
            sar::id,
            sar::alert_id,
            sar::player_id,
            sar::narrative,
            sar::created_by,
            sar::created_at_us,
        ))
        .load(conn)?;
    let names = Roster::read(conn, rows.iter().map(|r| r.2.clone()).collect())?;
    Ok(rows
        .into_iter()
        .map(|r| SuspiciousActivity {
            patron: names.of(&r.2),
            id: r.0,
            alert_id: r.1,
            narrative: r.3,
            created_by: r.4,
            created_at_us: r.5,
        })
        .collect())
}
