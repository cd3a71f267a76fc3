//! The multiple-transaction log and currency transaction reports (docs/compliance.md): read
//! from the cage's cash transactions; a report's figures stay live until an auditor files it,
//! and filing freezes the document as filed (only once its gaming day is over, and only with
//! every field a filing needs).

use chrono::{DateTime, NaiveDate};
use diesel::prelude::*;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::cash::{self, Selection};
use super::identity::{self, IdentityError, PatronIdentity, Purpose};
use super::patterns::CashEntry;
use super::rules::ComplianceRules;
use super::CashDirection;
use super::Roster;
use crate::domain::format_minor;
use crate::floor::calendar::FloorCalendar;
use crate::rounds::SeedVault;
use crate::significant_events::{self, EventKind};
use crate::store::schema::currency_transaction_reports as ctr;
use crate::store::{now_us, AnyConnection};
use crate::users::RosterEntry;

/// Most characters in a filing reference.
pub const MAX_REFERENCE_CHARS: usize = 100;

#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    #[error("currency transaction report not found")]
    NotFound,
    #[error("this report was already filed")]
    AlreadyFiled,
    #[error("gaming day {0} is not over yet: a report covers the whole day, so it is filed after the day ends")]
    DayNotOver(NaiveDate),
    #[error("the report lacks what a filing needs: {}", .0.join(", "))]
    Incomplete(Vec<String>),
    #[error("{0}")]
    Invalid(String),
    #[error("a stored report does not read: {0}")]
    Stored(String),
    #[error(transparent)]
    Identity(#[from] IdentityError),
    #[error(transparent)]
    Db(#[from] diesel::result::Error),
}

impl From<crate::settings::SettingError> for ReportError {
    fn from(e: crate::settings::SettingError) -> ReportError {
        match e {
            crate::settings::SettingError::Database(d) => ReportError::Db(d),
            other => ReportError::Stored(other.to_string()),
        }
    }
}

/// A line of the multiple-transaction log.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct LogLine {
    pub transfer_id: String,
    pub at_us: i64,
    pub gaming_day: String,
    pub direction: CashDirection,
    #[schema(value_type = crate::api::contract::Amount)]
    pub amount: String,
    pub patron: RosterEntry,
    /// The patron's name from their identity, when it is on file.
    pub patron_name: Option<String>,
    pub cashier: RosterEntry,
    pub location: Option<String>,
}

/// The day's multiple-transaction log: every cash transaction at or above the log threshold,
/// oldest first. Opens the identities it names (each read recorded).
pub fn cash_log(
    conn: &mut AnyConnection,
    vault: &SeedVault,
    rules: &ComplianceRules,
    day: NaiveDate,
    reader_id: &str,
) -> Result<Vec<LogLine>, ReportError> {
    let day = day.to_string();
    let entries = cash::entries(
        conn,
        &Selection {
            gaming_day: Some(&day),
            min_amount_minor: Some(rules.log_threshold.minor()),
            ..Selection::default()
        },
    )?;
    let mut ids: Vec<String> = entries
        .iter()
        .flat_map(|e| [e.player_id.clone(), e.cashier_id.clone()])
        .collect();
    ids.sort_unstable();
    ids.dedup();
    let names = Roster::read(conn, ids)?;
    let mut players: Vec<&str> = entries.iter().map(|e| e.player_id.as_str()).collect();
    players.sort_unstable();
    players.dedup();
    let identities = identity::read(conn, vault, &players, reader_id, Purpose::CashLog)?;
    Ok(entries
        .iter()
        .map(|e| LogLine {
            transfer_id: e.transfer_id.clone().unwrap_or_default(),
            at_us: e.at_us,
            gaming_day: e.gaming_day.clone(),
            direction: e.direction,
            amount: format_minor(e.amount_minor),
            patron: names.of(&e.player_id),
            patron_name: identities.get(&e.player_id).map(|i| i.identity.full_name.clone()),
            cashier: names.of(&e.cashier_id),
            location: e.location.clone(),
        })
        .collect())
}

/// A report as the queue lists it: no identity, so listing reads none.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct ReportSummary {
    pub id: String,
    pub gaming_day: String,
    pub patron: RosterEntry,
    /// A decimal string, "0.00" when none.
    pub cash_in_total: String,
    /// A decimal string, "0.00" when none.
    pub cash_out_total: String,
    pub created_at_us: i64,
    pub filing: Option<Filing>,
}

/// Who marked a report filed, when, and under what reference.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct Filing {
    pub filed_by: String,
    pub filed_at_us: i64,
    /// The authority's reference for the filing, if it gave one.
    pub reference: Option<String>,
}

/// One direction of a patron's day.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct DirectionTotal {
    /// A decimal string, "0.00" when none.
    pub total: String,
    /// Whether it is more than the report threshold (what makes the report due).
    pub over_threshold: bool,
    pub transactions: Vec<ReportTransaction>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct ReportTransaction {
    pub transfer_id: String,
    pub at_us: i64,
    #[schema(value_type = crate::api::contract::Amount)]
    pub amount: String,
    /// The cashier's username.
    pub cashier: String,
    pub location: Option<String>,
}

/// The casino as the report names it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct Casino {
    pub name: String,
    pub address: String,
    pub tax_id: String,
}

/// A currency transaction report: every field a filing needs.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct ReportDocument {
    pub id: String,
    pub gaming_day: String,
    /// The gaming day's bounds (microseconds since the epoch).
    pub day_from_us: i64,
    pub day_to_us: i64,
    pub casino: Casino,
    pub player_id: String,
    /// The patron's username.
    pub patron: String,
    pub identity: Option<PatronIdentity>,
    #[schema(value_type = crate::api::contract::Amount)]
    pub report_threshold: String,
    pub cash_in: DirectionTotal,
    pub cash_out: DirectionTotal,
    /// What a filing needs and the report lacks (a filing is refused until it is empty).
    pub missing: Vec<String>,
    pub filing: Option<Filing>,
}

type ReportRow = (
    String,
    String,
    String,
    i64,
    Option<String>,
    Option<i64>,
    Option<String>,
    Option<String>,
);

macro_rules! report_columns {
    () => {
        (
            ctr::id,
            ctr::player_id,
            ctr::gaming_day,
            ctr::created_at_us,
            ctr::filed_by,
            ctr::filed_at_us,
            ctr::filing_reference,
            ctr::filed_document,
        )
    };
}

fn filing_of(row: &ReportRow) -> Option<Filing> {
    match (&row.4, row.5) {
        (Some(by), Some(at)) => Some(Filing {
            filed_by: by.clone(),
            filed_at_us: at,
            reference: row.6.clone(),
        }),
        _ => None,
    }
}

fn day_entries(conn: &mut AnyConnection, player: &str, day: &str) -> QueryResult<Vec<CashEntry>> {
    cash::entries(
        conn,
        &Selection {
            player_id: Some(player),
            gaming_day: Some(day),
            ..Selection::default()
        },
    )
}

fn total(entries: &[CashEntry], direction: CashDirection) -> i64 {
    entries
        .iter()
        .filter(|e| e.direction == direction)
        .map(|e| e.amount_minor)
        .sum()
}

/// Reports, newest day first: of one gaming day, and filed or not, when asked.
pub fn list(
    conn: &mut AnyConnection,
    day: Option<NaiveDate>,
    filed: Option<bool>,
    limit: i64,
    offset: i64,
) -> Result<Vec<ReportSummary>, ReportError> {
    let mut query = ctr::table.select(report_columns!()).into_boxed();
    if let Some(day) = day {
        query = query.filter(ctr::gaming_day.eq(day.to_string()));
    }
    match filed {
        Some(true) => query = query.filter(ctr::filed_at_us.is_not_null()),
        Some(false) => query = query.filter(ctr::filed_at_us.is_null()),
        None => {}
    }
    let rows: Vec<ReportRow> = query
        .order((ctr::gaming_day.desc(), ctr::created_at_us.desc(), ctr::id.asc()))
        .limit(limit)
        .offset(offset)
        .load(conn)?;
    let names = Roster::read(conn, rows.iter().map(|r| r.1.clone()).collect())?;
    let mut out = Vec::with_capacity(rows.len());
    for row in rows {
        let entries = day_entries(conn, &row.1, &row.2)?;
        out.push(ReportSummary {
            id: row.0.clone(),
            gaming_day: row.2.clone(),
            patron: names.of(&row.1),
            cash_in_total: format_minor(total(&entries, CashDirection::Deposit)),
            cash_out_total: format_minor(total(&entries, CashDirection::Withdrawal)),
            created_at_us: row.3,
            filing: filing_of(&row),
        });
    }
    Ok(out)
}

fn find(conn: &mut AnyConnection, id: &str) -> Result<ReportRow, ReportError> {
    ctr::table
        .find(id)
        .select(report_columns!())
        .first(conn)
        .optional()?
        .ok_or(ReportError::NotFound)
}

/// The report as filed, or (not filed yet) as it reads now. Opens the patron's identity for
/// `reader_id` (recorded) unless the report is filed, whose document carries it already.
pub fn document(
    conn: &mut AnyConnection,
    vault: &SeedVault,
    calendar: &FloorCalendar,
    id: &str,
    reader_id: &str,
) -> Result<ReportDocument, ReportError> {
    let row = find(conn, id)?;
    if let Some(filed) = &row.7 {
        significant_events::record(
            conn,
            EventKind::PatronIdentityRead,
            Some(reader_id),
            Some(&row.1),
            serde_json::json!({ "purpose": Purpose::Report, "report_id": id }),
        )?;
        return serde_json::from_str(filed).map_err(|e| ReportError::Stored(e.to_string()));
    }
    live_document(conn, vault, calendar, &row, reader_id)
}

fn live_document(
    conn: &mut AnyConnection,
    vault: &SeedVault,
    calendar: &FloorCalendar,
    row: &ReportRow,
    reader_id: &str,
) -> Result<ReportDocument, ReportError> {
    let rules = super::rules::rules(conn)?;
    let day = NaiveDate::parse_from_str(&row.2, "%Y-%m-%d").map_err(|e| ReportError::Stored(e.to_string()))?;
    let (from, to) = calendar.day_bounds(day);
    let entries = day_entries(conn, &row.1, &row.2)?;
    let mut ids: Vec<String> = entries.iter().map(|e| e.cashier_id.clone()).collect();
    ids.push(row.1.clone());
    ids.sort_unstable();
    ids.dedup();
    let names = Roster::read(conn, ids)?;
    let identity = identity::read(conn, vault, &[&row.1], reader_id, Purpose::Report)?
        .remove(&row.1)
        .map(|i| i.identity);
    let threshold = rules.report_threshold.minor();
    let direction_total = |direction| {
        let sum = total(&entries, direction);
        DirectionTotal {
            total: format_minor(sum),
            over_threshold: sum > threshold,
            transactions: entries
                .iter()
                .filter(|e| e.direction == direction)
                .map(|e| ReportTransaction {
                    transfer_id: e.transfer_id.clone().unwrap_or_default(),
                    at_us: e.at_us,
                    amount: format_minor(e.amount_minor),
                    cashier: names.of(&e.cashier_id).username,
                    location: e.location.clone(),
                })
                .collect(),
        }
    };
    let mut missing: Vec<String> = rules
        .casino_facts()
        .into_iter()
        .filter(|(_, value)| value.trim().is_empty())
        .map(|(name, _)| name.to_owned())
        .collect();
    if identity.is_none() {
        missing.push("identity".into());
    }
    Ok(ReportDocument {
        id: row.0.clone(),
        gaming_day: row.2.clone(),
        day_from_us: from.timestamp_micros(),
        day_to_us: to.timestamp_micros(),
        casino: Casino {
            name: rules.casino_name.clone(),
            address: rules.casino_address.clone(),
            tax_id: rules.casino_tax_id.clone(),
        },
        player_id: row.1.clone(),
        patron: names.of(&row.1).username,
        identity,
        report_threshold: format_minor(threshold),
        cash_in: direction_total(CashDirection::Deposit),
        cash_out: direction_total(CashDirection::Withdrawal),
        missing,
        filing: None,
    })
}

/// Marks a report filed by an auditor, freezing its document.
pub fn file(
    conn: &mut AnyConnection,
    vault: &SeedVault,
    calendar: &FloorCalendar,
    id: &str,
    auditor_id: &str,
    reference: Option<&str>,
) -> Result<ReportDocument, ReportError> {
    if let Some(r) = reference {
        if r.trim().is_empty() || r.chars().count() > MAX_REFERENCE_CHARS || r.chars().any(char::is_control) {
            return Err(ReportError::Invalid(format!(
                "reference must be 1 to {MAX_REFERENCE_CHARS} characters, none of them control characters"
            )));
        }
    }
    let row = find(conn, id)?;
    if row.5.is_some() {
        return Err(ReportError::AlreadyFiled);
    }
    let day = NaiveDate::parse_from_str(&row.2, "%Y-%m-%d").map_err(|e| ReportError::Stored(e.to_string()))?;
    let now = now_us();
    let (_, day_end) = calendar.day_bounds(day);
    if DateTime::from_timestamp_micros(now).unwrap_or_default() < day_end {
        return Err(ReportError::DayNotOver(day));
    }
    let mut document = live_document(conn, vault, calendar, &row, auditor_id)?;
    if !document.missing.is_empty() {
        return Err(ReportError::Incomplete(document.missing));
    }
    let filing = Filing {
        filed_by: auditor_id.to_owned(),
        filed_at_us: now,
        reference: reference.map(str::to_owned),
    };
    document.filing = Some(filing.clone());
    let frozen = serde_json::to_string(&document).expect("a report serialises");
    let updated = diesel::update(ctr::table.find(id).filter(ctr::filed_at_us.is_null()))
        .set((
            ctr::filed_by.eq(auditor_id),
            ctr::filed_at_us.eq(now),
            ctr::filing_reference.eq(reference),
            ctr::filed_document.eq(&frozen),
        ))
        .execute(conn)?;
    if updated == 0 {
        return Err(ReportError::AlreadyFiled);
    }
    significant_events::record(
        conn,
        EventKind::CurrencyTransactionReportFiled,
        Some(auditor_id),
        Some(&row.1),
        serde_json::json!({ "report_id": id, "gaming_day": row.2, "reference": reference }),
    )?;
    Ok(document)
}

/// The CSV header of [`to_csv`].
const CSV_HEADER: [&str; 24] = [
    "report_id",
    "gaming_day",
    "casino_name",
    "casino_address",
    "casino_tax_id",
    "patron",
    "full_name",
    "date_of_birth",
    "address",
    "document_type",
    "document_number",
    "document_issuer",
    "occupation",
    "cash_in_total",
    "cash_in_over_threshold",
    "cash_out_total",
    "cash_out_over_threshold",
    "transactions",
    "report_threshold",
    "missing",
    "filed_by",
    "filed_at_us",
    "filing_reference",
    "player_id",
];

/// Reports as CSV, one row per report.
pub fn to_csv(documents: &[ReportDocument]) -> String {
    let mut out = csv::Writer::from_writer(Vec::new());
    out.write_record(CSV_HEADER).expect("writing to memory");
    for d in documents {
        let id = d.identity.as_ref();
        let text = |f: fn(&PatronIdentity) -> String| id.map(f).unwrap_or_default();
        let filing = d.filing.as_ref();
        out.write_record([
            d.id.clone(),
            d.gaming_day.clone(),
            d.casino.name.clone(),
            d.casino.address.clone(),
            d.casino.tax_id.clone(),
            d.patron.clone(),
            text(|i| i.full_name.clone()),
            text(|i| i.date_of_birth.to_string()),
            text(|i| i.address.clone()),
            text(|i| {
                serde_json::to_value(i.document_type)
                    .ok()
                    .and_then(|v| v.as_str().map(str::to_owned))
                    .unwrap_or_default()
            }),
            text(|i| i.document_number.clone()),
            text(|i| i.document_issuer.clone()),
            text(|i| i.occupation.clone().unwrap_or_default()),
            d.cash_in.total.clone(),
            d.cash_in.over_threshold.to_string(),
            d.cash_out.total.clone(),
            d.cash_out.over_threshold.to_string(),
            (d.cash_in.transactions.len() + d.cash_out.transactions.len()).to_string(),
            d.report_threshold.clone(),
            d.missing.join(" "),
            filing.map(|f| f.filed_by.clone()).unwrap_or_default(),
            filing.map(|f| f.filed_at_us.to_string()).unwrap_or_default(),
            filing.and_then(|f| f.reference.clone()).unwrap_or_default(),
            d.player_id.clone(),
        ])
        .expect("writing to memory");
    }
    String::from_utf8(out.into_inner().expect("writing to memory")).expect("CSV of UTF-8 fields is UTF-8")
}

/// The ids of a gaming day's reports.
pub fn ids_of_day(conn: &mut AnyConnection, day: NaiveDate) -> QueryResult<Vec<String>> {
    ctr::table
        .filter(ctr::gaming_day.eq(day.to_string()))
        .order((ctr::created_at_us.asc(), ctr::id.asc()))
        .select(ctr::id)
        .load(conn)
}
