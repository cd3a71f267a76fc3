//! Two-person control (docs/floor.md, "Two-person control"): a change that
//! moves the house's edge or money is *proposed* by one person and applied
//! only when a second pit boss *approves* it before it expires. Proposing,
//! approving and rejecting are significant events. This module keeps the
//! proposals and the rule; what each kind of change does when applied is the
//! caller's (`api::approvals`).

use diesel::prelude::*;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::domain::Amount;
use crate::settings::{self, SettingError};
use crate::significant_events::{self, EventKind};
use crate::store::schema::proposals as p;
use crate::store::{lock_for_update, new_id, now_us, AnyConnection};

/// The `settings` row holding the rule (an [`ApprovalRule`] as JSON).
const RULE_SETTING: &str = "approvals.rule";
/// Longest a proposal may wait for its approval: a week.
pub const MAX_EXPIRES_AFTER_MINUTES: u32 = 7 * 24 * 60;
const MICROS_PER_MINUTE: i64 = 60_000_000;

/// What needs a second pit boss.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ProposalKind {
    /// Installing a pay table at a Prima Carta table.
    InstallPayTable,
    /// Replacing a table's options (limits, fees, the Lobo house rule and its override…).
    ChangeTableOptions,
    /// Creating a table (its game, fees, limits and, at Lobo, its house rule).
    CreateTable,
    /// A cage correction above the rule's limit, or past its running totals.
    Correction,
    /// Changing this rule.
    ChangeApprovalRule,
    /// Creating a pit boss's or an auditor's account.
    CreateStaffAccount,
    /// Giving an account the pit boss's or the auditor's role, or reactivating one that holds it.
    ChangeStaffAccount,
    /// Resetting a pit boss's or an auditor's password.
    ResetStaffPassword,
    /// Changing the floor calendar (it takes effect from the next gaming day not yet begun).
    ChangeCalendar,
    /// Changing the cash-compliance rules (thresholds, structuring patterns, the casino's facts).
    ChangeComplianceRules,
}

/// Every kind, in the order the API documents them.
const KINDS: [ProposalKind; 10] = [
    ProposalKind::InstallPayTable,
    ProposalKind::ChangeTableOptions,
    ProposalKind::CreateTable,
    ProposalKind::Correction,
    ProposalKind::ChangeApprovalRule,
    ProposalKind::CreateStaffAccount,
    ProposalKind::ChangeStaffAccount,
    ProposalKind::ResetStaffPassword,
    ProposalKind::ChangeCalendar,
    ProposalKind::ChangeComplianceRules,
];

impl ProposalKind {
    pub fn as_str(self) -> &'static str {
        match self {
            ProposalKind::InstallPayTable => "install_pay_table",
            ProposalKind::ChangeTableOptions => "change_table_options",
            ProposalKind::CreateTable => "create_table",
            ProposalKind::Correction => "correction",
            ProposalKind::ChangeApprovalRule => "change_approval_rule",
            ProposalKind::CreateStaffAccount => "create_staff_account",
            ProposalKind::ChangeStaffAccount => "change_staff_account",
            ProposalKind::ResetStaffPassword => "reset_staff_password",
            ProposalKind::ChangeCalendar => "change_calendar",
            ProposalKind::ChangeComplianceRules => "change_compliance_rules",
        }
    }

    fn parse(text: &str) -> Option<ProposalKind> {
        KINDS.into_iter().find(|k| k.as_str() == text)
    }
}

/// Where a proposal stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ProposalStatus {
    Pending,
    Applied,
    Rejected,
    /// Pending past its expiry: it can no longer be approved.
    Expired,
}

/// Longest wait before a new pit boss may approve: a year.
pub const MAX_APPROVER_WAIT_DAYS: u32 = 365;
const MICROS_PER_DAY: i64 = 24 * 60 * MICROS_PER_MINUTE;

/// The rule: which corrections need a second person, how long a proposal waits, and how long a
/// new pit boss waits before approving.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ApprovalRule {
    /// A correction of more than this amount waits for a pit boss's approval.
    #[schema(value_type = crate::api::contract::Amount, example = "100.00")]
    pub correction_limit: Amount,
    /// Corrections made without approval in one shift may add up to this much (credits and
    /// debits alike); one that would pass it waits for a pit boss's approval. Default 300.00.
    #[schema(value_type = crate::api::contract::Amount, example = "300.00")]
    #[serde(default = "default_correction_shift_total")]
    pub correction_shift_total: Amount,
    /// The same running total over a whole gaming day. Default 1000.00.
    #[schema(value_type = crate::api::contract::Amount, example = "1000.00")]
    #[serde(default = "default_correction_day_total")]
    pub correction_day_total: Amount,
    /// A proposal not approved within this many minutes expires (1 to 10080).
    #[schema(example = 60, minimum = 1, maximum = 10080)]
    #[serde(deserialize_with = "crate::domain::whole::integer")]
    pub expires_after_minutes: u32,
    /// A pit boss approves nothing in their first this many days in the role (0 to 365; default
    /// 7), counted from the account's creation, promotion or reactivation through the service.
    /// Accounts the operator makes on the server's command line (`djego user create`) do not wait.
    #[schema(example = 7, minimum = 0, maximum = 365)]
    #[serde(
        default = "default_approver_wait_days",
        deserialize_with = "crate::domain::whole::integer"
    )]
    pub approver_wait_days: u32,
}

fn default_correction_shift_total() -> Amount {
    Amount::from_minor(30_000).expect("300.00 is an amount")
}

fn default_correction_day_total() -> Amount {
    Amount::from_minor(100_000).expect("1000.00 is an amount")
}

fn default_approver_wait_days() -> u32 {
    7
}

impl Default for ApprovalRule {
    fn default() -> ApprovalRule {
        ApprovalRule {
            correction_limit: Amount::from_minor(10_000).expect("100.00 is an amount"),
            correction_shift_total: default_correction_shift_total(),
            correction_day_total: default_correction_day_total(),
            expires_after_minutes: 60,
            approver_wait_days: default_approver_wait_days(),
        }
    }
}

/// Corrections already made without approval: in the present shift, and in the present gaming day.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CorrectionTotals {
    pub shift_minor: i64,
    pub day_minor: i64,
}

impl ApprovalRule {
    /// Whether a correction of `amount` needs a second person under the rule, after the
    /// corrections `made` without approval this shift and gaming day.
    pub fn correction_needs_approval(&self, amount: Amount, made: CorrectionTotals) -> bool {
        let over = |made_minor: i64, limit: Amount| made_minor.saturating_add(amount.minor()) > limit.minor();
        amount.minor() > self.correction_limit.minor()
            || over(made.shift_minor, self.correction_shift_total)
            || over(made.day_minor, self.correction_day_total)
    }

    pub fn check(&self) -> Result<(), ApprovalError> {
        if !(1..=MAX_EXPIRES_AFTER_MINUTES).contains(&self.expires_after_minutes) {
            return Err(ApprovalError::InvalidRule(format!(
                "expires_after_minutes must be 1 to {MAX_EXPIRES_AFTER_MINUTES}"
            )));
        }
        if self.approver_wait_days > MAX_APPROVER_WAIT_DAYS {
            return Err(ApprovalError::InvalidRule(format!(
                "approver_wait_days must be 0 to {MAX_APPROVER_WAIT_DAYS}"
            )));
        }
        Ok(())
    }
}

#[derive(Debug, thiserror::Error)]
pub enum ApprovalError {
    #[error("proposal not found")]
    NotFound,
    #[error("this proposal expired at {0} µs since the epoch; propose the change again")]
    Expired(i64),
    #[error("this proposal is {0:?} already")]
    NotPending(ProposalStatus),
    #[error("a second pit boss must approve a change: its proposer cannot")]
    SamePerson,
    /// The approver's account and the proposer's are one person's as far as djego can tell: one
    /// created, promoted, reactivated or reset the password of the other.
    #[error("{0}")]
    Related(String),
    /// The approver is too new in the role.
    #[error(
        "a pit boss approves nothing in their first {days} days in the role; this account may approve from {from}"
    )]
    TooNew { days: u32, from: String },
    #[error("what this proposal changes has changed since it was proposed; propose the change again")]
    Stale,
    #[error("{0}")]
    InvalidRule(String),
    #[error(transparent)]
    Setting(#[from] SettingError),
    #[error("stored proposal {0} has an unknown kind {1:?}")]
    StoredProposal(String, String),
    #[error(transparent)]
    Db(#[from] diesel::result::Error),
}

/// A proposal as stored and shown.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct Proposal {
    pub id: String,
    pub kind: ProposalKind,
    /// The table, or the player corrected; null for a rule change or a new table.
    pub subject: Option<String>,
    /// The change asked for, as the endpoint that proposed it received it.
    #[schema(value_type = Object)]
    pub request: serde_json::Value,
    pub proposed_by: String,
    pub proposed_at_us: i64,
    pub expires_at_us: i64,
    pub status: ProposalStatus,
    pub decided_by: Option<String>,
    pub decided_at_us: Option<i64>,
    /// Once applied: the answer of the change (a table, a pay table, a receipt…).
    #[schema(value_type = Option<Object>)]
    pub result: Option<serde_json::Value>,
}

/// A proposal as stored: `request` and `result` JSON text, `status` without expiry.
#[derive(Queryable, Selectable)]
#[diesel(table_name = p)]
struct ProposalRow {
    id: String,
    kind: String,
    subject: Option<String>,
    request: String,
    proposed_by: String,
    proposed_at_us: i64,
    expires_at_us: i64,
    status: String,
    decided_by: Option<String>,
    decided_at_us: Option<i64>,
    result: Option<String>,
}

fn from_row(row: ProposalRow, now: i64) -> Result<Proposal, ApprovalError> {
    let ProposalRow {
        id,
        kind,
        subject,
        request,
        proposed_by,
        proposed_at_us,
        expires_at_us,
        status,
        decided_by,
        decided_at_us,
        result,
    } = row;
    let status = match status.as_str() {
        "applied" => ProposalStatus::Applied,
        "rejected" => ProposalStatus::Rejected,
        _ if now >= expires_at_us => ProposalStatus::Expired,
        _ => ProposalStatus::Pending,
    };
    let kind = ProposalKind::parse(&kind).ok_or_else(|| ApprovalError::StoredProposal(id.clone(), kind))?;
    Ok(Proposal {
        id,
        kind,
        subject,
        request: serde_json::from_str(&request).unwrap_or(serde_json::Value::Null),
        proposed_by,
        proposed_at_us,
        expires_at_us,
        status,
        decided_by,
        decided_at_us,
        result: result.and_then(|r| serde_json::from_str(&r).ok()),
    })
}

/// The rule in force: the stored one, or [`ApprovalRule::default`].
pub fn rule(conn: &mut AnyConnection) -> Result<ApprovalRule, ApprovalError> {
    Ok(settings::read(conn, RULE_SETTING)?.unwrap_or_default())
}

/// Replaces the rule (once approved); a significant event with the old and the new.
pub fn set_rule(conn: &mut AnyConnection, actor_id: &str, new: &ApprovalRule) -> Result<(), ApprovalError> {
    new.check()?;
    let old = rule(conn)?;
    Ok(settings::replace(
        conn,
        RULE_SETTING,
        actor_id,
        EventKind::ApprovalRuleChanged,
        &old,
        new,
    )?)
}

impl ProposalKind {
    /// The significant events that change what a proposal of this kind changes, about its
    /// subject: the table's options, pay table and opening and closing for a table's change;
    /// the rule's changes for the rule. A new table and a correction change nothing that was
    /// there before.
    fn changed_by(self) -> &'static [EventKind] {
        match self {
            ProposalKind::InstallPayTable | ProposalKind::ChangeTableOptions => &[
                EventKind::TableReconfigured,
                EventKind::PayTableInstalled,
                EventKind::HouseRuleOverride,
                EventKind::TableOpened,
                EventKind::TableClosed,
            ],
            ProposalKind::ChangeApprovalRule => &[EventKind::ApprovalRuleChanged],
            ProposalKind::ChangeStaffAccount => &[EventKind::RoleChanged],
            ProposalKind::ResetStaffPassword => &[
                EventKind::RoleChanged,
                EventKind::PasswordReset,
                EventKind::PasswordChanged,
            ],
            ProposalKind::ChangeCalendar => &[EventKind::FloorCalendarChanged],
            ProposalKind::ChangeComplianceRules => &[EventKind::ComplianceRulesChanged],
            ProposalKind::CreateTable | ProposalKind::Correction | ProposalKind::CreateStaffAccount => &[],
        }
    }
}

/// The version of what a proposal changes: the id of the last significant event that changed
/// it, or `none`.
fn subject_version(conn: &mut AnyConnection, kind: ProposalKind, subject: Option<&str>) -> QueryResult<String> {
    use crate::store::schema::significant_events as se;
    let kinds: Vec<&str> = kind.changed_by().iter().map(|k| k.as_str()).collect();
    if kinds.is_empty() {
        return Ok("none".into());
    }
    let mut query = se::table.filter(se::kind.eq_any(kinds)).into_boxed();
    query = match subject {
        Some(subject) => query.filter(se::subject.eq(subject.to_owned())),
        None => query.filter(se::subject.is_null()),
    };
    let last: Option<String> = query
        .order((se::at_us.desc(), se::id.desc()))
        .select(se::id)
        .first(conn)
        .optional()?;
    Ok(last.unwrap_or_else(|| "none".into()))
}

/// Records a proposal, pending until approved, rejected or expired.
pub fn propose(
    conn: &mut AnyConnection,
    kind: ProposalKind,
    subject: Option<&str>,
    request: &impl Serialize,
    proposer_id: &str,
) -> Result<Proposal, ApprovalError> {
    propose_with_password(conn, kind, subject, request, None, proposer_id)
}

/// [`propose`], keeping a password hash apart from the request: it is never shown, and read only
/// by [`password_hash`] to apply the change.
pub fn propose_with_password(
    conn: &mut AnyConnection,
    kind: ProposalKind,
    subject: Option<&str>,
    request: &impl Serialize,
    password_hash: Option<&str>,
    proposer_id: &str,
) -> Result<Proposal, ApprovalError> {
    let rule = rule(conn)?;
    let now = now_us();
    let id = new_id();
    let request = serde_json::to_string(request).expect("a request serialises");
    let version = subject_version(conn, kind, subject)?;
    diesel::insert_into(p::table)
        .values((
            p::id.eq(&id),
            p::kind.eq(kind.as_str()),
            p::subject.eq(subject),
            p::request.eq(&request),
            p::proposed_by.eq(proposer_id),
            p::proposed_at_us.eq(now),
            p::expires_at_us.eq(now + i64::from(rule.expires_after_minutes) * MICROS_PER_MINUTE),
            p::status.eq("pending"),
            p::subject_version.eq(&version),
            p::password_hash.eq(password_hash),
        ))
        .execute(conn)?;
    significant_events::record(
        conn,
        EventKind::ChangeProposed,
        Some(proposer_id),
        Some(&id),
        serde_json::json!({ "kind": kind.as_str(), "subject": subject }),
    )?;
    find(conn, &id)
}

/// The password hash a proposal keeps apart (a new staff account's, a reset's).
pub fn password_hash(conn: &mut AnyConnection, id: &str) -> Result<Option<String>, ApprovalError> {
    Ok(p::table.find(id).select(p::password_hash).first(conn)?)
}

pub fn find(conn: &mut AnyConnection, id: &str) -> Result<Proposal, ApprovalError> {
    let row = p::table
        .find(id)
        .select(ProposalRow::as_select())
        .first(conn)
        .optional()?;
    from_row(row.ok_or(ApprovalError::NotFound)?, now_us())
}

/// Newest first; `status` filters (expired is pending past its expiry).
pub fn list(
    conn: &mut AnyConnection,
    status: Option<ProposalStatus>,
    limit: i64,
    offset: i64,
) -> Result<Vec<Proposal>, ApprovalError> {
    let now = now_us();
    let mut query = p::table.select(ProposalRow::as_select()).into_boxed();
    query = match status {
        None => query,
        Some(ProposalStatus::Applied) => query.filter(p::status.eq("applied")),
        Some(ProposalStatus::Rejected) => query.filter(p::status.eq("rejected")),
        Some(ProposalStatus::Pending) => query.filter(p::status.eq("pending").and(p::expires_at_us.gt(now))),
        Some(ProposalStatus::Expired) => query.filter(p::status.eq("pending").and(p::expires_at_us.le(now))),
    };
    let rows: Vec<ProposalRow> = query
        .order((p::proposed_at_us.desc(), p::id.desc()))
        .limit(limit)
        .offset(offset)
        .load(conn)?;
    rows.into_iter().map(|r| from_row(r, now)).collect()
}

/// Takes a pending proposal for a decision, locked until the transaction
/// ends (two approvals at once: the second finds it decided).
fn take_pending(conn: &mut AnyConnection, id: &str) -> Result<Proposal, ApprovalError> {
    if uuid::Uuid::parse_str(id).is_err() {
        return Err(ApprovalError::NotFound);
    }
    lock_for_update(conn, &format!("SELECT id FROM proposals WHERE id = '{id}' FOR UPDATE"))?;
    let proposal = find(conn, id)?;
    match proposal.status {
        ProposalStatus::Pending => Ok(proposal),
        ProposalStatus::Expired => Err(ApprovalError::Expired(proposal.expires_at_us)),
        other => Err(ApprovalError::NotPending(other)),
    }
}

/// The proposal a second pit boss is approving: pending, not expired, not
/// their own. Apply the change, then call [`applied`], in one transaction.
pub fn approving(conn: &mut AnyConnection, id: &str, approver_id: &str) -> Result<Proposal, ApprovalError> {
    let proposal = take_pending(conn, id)?;
    if proposal.proposed_by == approver_id {
        return Err(ApprovalError::SamePerson);
    }
    check_unrelated(conn, &proposal.proposed_by, approver_id)?;
    let rule = rule(conn)?;
    check_standing(conn, &rule, approver_id)?;
    // Stale: a newer change (or the table opened and closed) since it was proposed. Applying it
    // would silently undo what came after; a proposal from before versions were kept has none.
    let proposed_on: Option<String> = p::table.find(id).select(p::subject_version).first(conn)?;
    if let Some(proposed_on) = proposed_on {
        if subject_version(conn, proposal.kind, proposal.subject.as_deref())? != proposed_on {
            return Err(ApprovalError::Stale);
        }
    }
    Ok(proposal)
}

/// Marks an approved proposal applied, with the change's answer.
pub fn applied(
    conn: &mut AnyConnection,
    proposal: &Proposal,
    approver_id: &str,
    result: &impl Serialize,
) -> Result<Proposal, ApprovalError> {
    let result = serde_json::to_string(result).expect("a result serialises");
    decide(
        conn,
        proposal,
        approver_id,
        "applied",
        Some(result),
        EventKind::ChangeApproved,
    )
}

/// Rejects a pending proposal: a pit boss refuses it, or its proposer withdraws it.
pub fn reject(conn: &mut AnyConnection, id: &str, actor_id: &str) -> Result<Proposal, ApprovalError> {
    let proposal = take_pending(conn, id)?;
    decide(conn, &proposal, actor_id, "rejected", None, EventKind::ChangeRejected)
}

fn decide(
    conn: &mut AnyConnection,
    proposal: &Proposal,
    actor_id: &str,
    status: &str,
    result: Option<String>,
    event: EventKind,
) -> Result<Proposal, ApprovalError> {
    diesel::update(p::table.find(&proposal.id))
        .set((
            p::status.eq(status),
            p::decided_by.eq(actor_id),
            p::decided_at_us.eq(now_us()),
            p::result.eq(result),
        ))
        .execute(conn)?;
    significant_events::record(
        conn,
        event,
        Some(actor_id),
        Some(&proposal.id),
        serde_json::json!({
            "kind": proposal.kind.as_str(),
            "subject": proposal.subject,
            "proposed_by": proposal.proposed_by,
        }),
    )?;
    find(conn, &proposal.id)
}

/// What makes one account another's: creating it, changing its role or reactivating it, setting
/// its password. Whoever did one of these to an account may know its password or chose who holds
/// it, so the two may not approve each other's proposals.
const ACCOUNT_MAKING: [EventKind; 3] = [EventKind::UserCreated, EventKind::RoleChanged, EventKind::PasswordReset];

/// Refuses an approver who made the proposer's account, or whose account the proposer made.
fn check_unrelated(conn: &mut AnyConnection, proposer_id: &str, approver_id: &str) -> Result<(), ApprovalError> {
    use crate::store::schema::significant_events as se;
    let kinds: Vec<&str> = ACCOUNT_MAKING.iter().map(|k| k.as_str()).collect();
    let made = |by: &str, of: &str| {
        se::kind
            .eq_any(kinds.clone())
            .and(se::actor_id.eq(by.to_owned()))
            .and(se::subject.eq(of.to_owned()))
    };
    let related: Option<(String, String)> = se::table
        .filter(made(approver_id, proposer_id).or(made(proposer_id, approver_id)))
        .select((se::kind, se::actor_id.assume_not_null()))
        .first(conn)
        .optional()?;
    match related {
        None => Ok(()),
        Some((kind, actor)) => {
            let by = if actor == approver_id {
                "the approver"
            } else {
                "the proposer"
            };
            Err(ApprovalError::Related(format!(
                "this account cannot approve a proposal of an account it made or that made it \
                 (one created, promoted, reactivated or reset the password of the other: {kind} by {by})"
            )))
        }
    }
}

/// Refuses an approver in their first `approver_wait_days` in the role. Their standing starts at
/// the last creation, role change or reactivation of their account; one the operator made on the
/// server's command line (no actor) starts trusted.
fn check_standing(conn: &mut AnyConnection, rule: &ApprovalRule, approver_id: &str) -> Result<(), ApprovalError> {
    use crate::store::schema::significant_events as se;
    let kinds = [EventKind::UserCreated.as_str(), EventKind::RoleChanged.as_str()];
    let last: Option<(i64, Option<String>)> = se::table
        .filter(se::kind.eq_any(kinds).and(se::subject.eq(approver_id.to_owned())))
        .order((se::at_us.desc(), se::id.desc()))
        .select((se::at_us, se::actor_id))
        .first(conn)
        .optional()?;
    let Some((since_us, Some(_actor))) = last else {
        return Ok(());
    };
    let from_us = since_us.saturating_add(i64::from(rule.approver_wait_days) * MICROS_PER_DAY);
    if now_us() < from_us {
        let from = chrono::DateTime::from_timestamp_micros(from_us)
            .map(|at| at.format("%Y-%m-%d %H:%M UTC").to_string())
            .unwrap_or_default();
        return Err(ApprovalError::TooNew {
            days: rule.approver_wait_days,
            from,
        });
    }
    Ok(())
}
