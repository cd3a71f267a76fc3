//! The append-only log of significant events (docs/architecture.md) that auditors read:
//! tables opened and closed, pay tables installed, role changes, failed
//! logins, logouts and ended sessions, token key rotations, voids, corrections,
//! Lobo rounds timed out, seed reveals, checkpoints, changes of the floor calendar and rating rule, dealers signing in and out of a table. Rows are only ever inserted (triggers refuse
//! anything else), and each checkpoint chains the events recorded since the
//! last one (`checkpoints::event_chain`).

use diesel::prelude::*;
use serde::Serialize;
use utoipa::ToSchema;

use crate::store::schema::significant_events as se;
use crate::store::{new_id, now_us, AnyConnection};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EventKind {
    AdminBootstrapped,
    UserCreated,
    RoleChanged,
    LoginFailed,
    LoginRateLimited,
    LoginUnlocked,
    LoggedOut,
    SessionsEnded,
    PasswordChanged,
    /// A pit boss (or an operator with `djego user set-password --temporary`)
    /// set someone's password for them.
    PasswordReset,
    TokenKeyRotated,
    TableCreated,
    TableReconfigured,
    TableOpened,
    TableClosed,
    DealerAssigned,
    PayTableInstalled,
    RoundVoided,
    /// A Lobo round whose player made no play within the table's play timeout was folded.
    RoundTimedOut,
    /// A round that is over, booked into the transparency log: how many transfers it has and
    /// their Merkle root (docs/transcript.md, "The ledger proof").
    RoundBooked,
    /// A pit boss created a three-round Lobo contest (its entry fee, rake and commitment).
    ContestCreated,
    /// A contest entrant made no play before the contest's play time ran out: their rounds were folded.
    ContestEntrantStopped,
    SeedRevealed,
    Correction,
    HouseRuleOverride,
    CheckpointTaken,
    FloorCalendarChanged,
    FloorRatingRuleChanged,
    DealerSignedIn,
    DealerSignedOut,
    FloorPitsChanged,
    GamingDayClosed,
    ChangeProposed,
    ChangeApproved,
    ChangeRejected,
    ApprovalRuleChanged,
    /// A player set, asked to raise or confirmed a limit on their deposits, losses or stakes.
    PlayerLimitSet,
    /// A player took a time-out or excluded themself from play.
    PlayerExcluded,
    /// A player chose how often to be shown their session (or turned it off).
    RealityCheckSet,
    /// The cash-compliance rules changed (its thresholds, patterns and the casino's facts).
    ComplianceRulesChanged,
    /// A cashier recorded (or re-recorded) a patron's identity.
    PatronIdentityRecorded,
    /// Someone read a patron's identity: who, whose, and for what.
    PatronIdentityRead,
    /// An auditor marked a currency transaction report filed.
    CurrencyTransactionReportFiled,
    /// An auditor dismissed or escalated a structuring alert.
    ComplianceAlertReviewed,
    /// An external exclusion list was imported (its digest, entries and the matches found).
    ExclusionListImported,
    /// A second person confirmed or rejected a patron's match on an exclusion list.
    ExclusionListMatchReviewed,
}

impl EventKind {
    pub fn as_str(self) -> &'static str {
        match self {
            EventKind::AdminBootstrapped => "admin_bootstrapped",
            EventKind::UserCreated => "user_created",
            EventKind::RoleChanged => "role_changed",
            EventKind::LoginFailed => "login_failed",
            EventKind::LoginRateLimited => "login_rate_limited",
            EventKind::LoginUnlocked => "login_unlocked",
            EventKind::LoggedOut => "logged_out",
            EventKind::SessionsEnded => "sessions_ended",
            EventKind::PasswordChanged => "password_changed",
            EventKind::PasswordReset => "password_reset",
            EventKind::TokenKeyRotated => "token_key_rotated",
            EventKind::TableCreated => "table_created",
            EventKind::TableReconfigured => "table_reconfigured",
            EventKind::TableOpened => "table_opened",
            EventKind::TableClosed => "table_closed",
            EventKind::DealerAssigned => "dealer_assigned",
            EventKind::PayTableInstalled => "pay_table_installed",
            EventKind::RoundVoided => "round_voided",
            EventKind::RoundTimedOut => "round_timed_out",
            EventKind::RoundBooked => "round_booked",
            EventKind::ContestCreated => "contest_created",
            EventKind::ContestEntrantStopped => "contest_entrant_stopped",
            EventKind::SeedRevealed => "seed_revealed",
            EventKind::Correction => "correction",
            EventKind::HouseRuleOverride => "house_rule_override",
            EventKind::CheckpointTaken => "checkpoint_taken",
            EventKind::FloorCalendarChanged => "floor_calendar_changed",
            EventKind::FloorRatingRuleChanged => "floor_rating_rule_changed",
            EventKind::DealerSignedIn => "dealer_signed_in",
            EventKind::DealerSignedOut => "dealer_signed_out",
            EventKind::FloorPitsChanged => "floor_pits_changed",
            EventKind::GamingDayClosed => "gaming_day_closed",
            EventKind::ChangeProposed => "change_proposed",
            EventKind::ChangeApproved => "change_approved",
            EventKind::ChangeRejected => "change_rejected",
            EventKind::ApprovalRuleChanged => "approval_rule_changed",
            EventKind::PlayerLimitSet => "player_limit_set",
            EventKind::PlayerExcluded => "player_excluded",
            EventKind::RealityCheckSet => "reality_check_set",
            EventKind::ComplianceRulesChanged => "compliance_rules_changed",
            EventKind::PatronIdentityRecorded => "patron_identity_recorded",
            EventKind::PatronIdentityRead => "patron_identity_read",
            EventKind::CurrencyTransactionReportFiled => "currency_transaction_report_filed",
            EventKind::ComplianceAlertReviewed => "compliance_alert_reviewed",
            EventKind::ExclusionListImported => "exclusion_list_imported",
            EventKind::ExclusionListMatchReviewed => "exclusion_list_match_reviewed",
        }
    }
}

#[derive(Insertable)]
#[diesel(table_name = se)]
struct NewEvent<'a> {
    id: String,
    at_us: i64,
    kind: &'a str,
    actor_id: Option<&'a str>,
    subject: Option<&'a str>,
    details: String,
}

pub fn record(
    conn: &mut AnyConnection,
    kind: EventKind,
    actor_id: Option<&str>,
    subject: Option<&str>,
    details: serde_json::Value,
) -> QueryResult<()> {
    diesel::insert_into(se::table)
        .values(NewEvent {
            id: new_id(),
            at_us: now_us(),
            kind: kind.as_str(),
            actor_id,
            subject,
            details: details.to_string(),
        })
        .execute(conn)?;
    Ok(())
}

#[derive(Queryable, Selectable, Serialize, ToSchema, Debug, Clone)]
#[diesel(table_name = se)]
pub struct SignificantEvent {
    pub id: String,
    /// Microseconds since the Unix epoch.
    pub at_us: i64,
    pub kind: String,
    pub actor_id: Option<String>,
    pub subject: Option<String>,
    /// The event's details as a JSON document.
    pub details: String,
}

/// A significant event as people read it: the actor, and a subject that is a
/// user, named by username besides their id (as the account is named now).
#[derive(Serialize, ToSchema, Debug, Clone)]
pub struct EventView {
    #[serde(flatten)]
    pub event: SignificantEvent,
    /// The actor's username; null when no user acted (the service itself).
    pub actor_username: Option<String>,
    /// The subject's username when the subject is a user; null otherwise.
    pub subject_username: Option<String>,
}

/// Names the users `events` refer to, with one query per thousand of them.
pub fn named(conn: &mut AnyConnection, events: Vec<SignificantEvent>) -> QueryResult<Vec<EventView>> {
    use crate::store::schema::users as u;
    let mut ids: Vec<&str> = events
        .iter()
        .flat_map(|e| [e.actor_id.as_deref(), e.subject.as_deref()])
        .flatten()
        .collect();
    ids.sort_unstable();
    ids.dedup();
    let mut usernames: std::collections::HashMap<String, String> = std::collections::HashMap::new();
    for chunk in ids.chunks(1000) {
        usernames.extend(
            u::table
                .filter(u::id.eq_any(chunk))
                .select((u::id, u::username))
                .load::<(String, String)>(conn)?,
        );
    }
    let name = |id: &Option<String>| id.as_ref().and_then(|id| usernames.get(id).cloned());
    Ok(events
        .into_iter()
        .map(|event| EventView {
            actor_username: name(&event.actor_id),
            subject_username: name(&event.subject),
            event,
        })
        .collect())
}

pub struct EventFilter {
    pub kind: Option<String>,
    pub from_us: Option<i64>,
    pub to_us: Option<i64>,
    pub limit: i64,
    pub offset: i64,
}

/// Newest first.
pub fn list(conn: &mut AnyConnection, filter: &EventFilter) -> QueryResult<Vec<SignificantEvent>> {
    let mut query = se::table.select(SignificantEvent::as_select()).into_boxed();
    if let Some(kind) = &filter.kind {
        query = query.filter(se::kind.eq(kind.clone()));
    }
    if let Some(from) = filter.from_us {
        query = query.filter(se::at_us.ge(from));
    }
    if let Some(to) = filter.to_us {
        query = query.filter(se::at_us.lt(to));
    }
    query
        .order((se::at_us.desc(), se::id.desc()))
        .limit(filter.limit)
        .offset(filter.offset)
        .load(conn)
}
