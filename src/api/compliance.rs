//! Cash-transaction compliance over HTTP (docs/compliance.md): the rules (changed under
//! two-person control), patron identity at the cage, the cashier's view of a patron's cash
//! today, and the auditor's multiple-transaction log, currency transaction reports, alert
//! queue and suspicious-activity records.

use actix_web::http::StatusCode;
use actix_web::{get, post, put, web, HttpRequest, HttpResponse};
use chrono::NaiveDate;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use super::error::{ApiError, ApiResult};
use super::idempotency::{self, IdempotentRequest};
use super::pagination::Page;
use super::state::AppState;
use crate::approvals::{self, Proposal, ProposalKind};
use crate::auth::Caller;
use crate::compliance::alerts::{self, Alert, AlertError, AlertStatus, Decision, SuspiciousActivity};
use crate::compliance::identity::{self, IdentityError, IdentityOnFile, PatronIdentity, Purpose};
use crate::compliance::reports::{self, LogLine, ReportDocument, ReportError, ReportSummary};
use crate::compliance::rules::{self, ComplianceRules, RulesError};
use crate::domain::{format_minor, Role};
use crate::store::{now_us, AnyConnection};
use crate::users;

impl From<RulesError> for ApiError {
    fn from(e: RulesError) -> ApiError {
        match e {
            RulesError::Invalid(m) => ApiError::unprocessable("invalid_compliance_rules", m),
            RulesError::Setting(s) => ApiError::internal(s.to_string()),
        }
    }
}

impl From<IdentityError> for ApiError {
    fn from(e: IdentityError) -> ApiError {
        let message = e.to_string();
        match e {
            IdentityError::Invalid(_) => ApiError::unprocessable("invalid_identity", message),
            IdentityError::Unreadable(_) => ApiError::internal(message),
            IdentityError::Db(d) => ApiError::from(d),
        }
    }
}

impl From<ReportError> for ApiError {
    fn from(e: ReportError) -> ApiError {
        let message = e.to_string();
        match e {
            ReportError::NotFound => ApiError::not_found("currency transaction report"),
            ReportError::AlreadyFiled => ApiError::conflict("report_filed", message),
            ReportError::DayNotOver(_) => ApiError::conflict("gaming_day_not_over", message),
            ReportError::Incomplete(missing) => {
                ApiError::conflict("report_incomplete", message).with_details(serde_json::json!({ "missing": missing }))
            }
            ReportError::Invalid(_) => ApiError::unprocessable("invalid_reference", message),
            ReportError::Stored(_) => ApiError::internal(message),
            ReportError::Identity(i) => ApiError::from(i),
            ReportError::Db(d) => ApiError::from(d),
        }
    }
}

impl From<AlertError> for ApiError {
    fn from(e: AlertError) -> ApiError {
        let message = e.to_string();
        match e {
            AlertError::NotFound => ApiError::not_found("alert"),
            AlertError::AlreadyReviewed => ApiError::conflict("alert_reviewed", message),
            AlertError::Invalid(_) => ApiError::unprocessable("invalid_review", message),
            AlertError::Stored(_) => ApiError::internal(message),
            AlertError::Db(d) => ApiError::from(d),
        }
    }
}

fn read_rules(conn: &mut AnyConnection) -> Result<ComplianceRules, ApiError> {
    rules::rules(conn).map_err(|e| ApiError::from(RulesError::Setting(e)))
}

fn calendar(conn: &mut AnyConnection) -> Result<crate::floor::calendar::FloorCalendar, ApiError> {
    Ok(crate::floor::calendar(conn)?)
}

/// The cash-compliance rules in force (cashier, pit boss, auditor).
#[utoipa::path(tag = "compliance", security(("bearer" = [])), responses(
    (status = 200, body = ComplianceRules),
    (status = 403, body = super::error::ErrorBody),
))]
#[get("/api/v1/compliance/rules")]
pub async fn get_rules(state: web::Data<AppState>, caller: Caller) -> ApiResult<web::Json<ComplianceRules>> {
    caller.require(&[Role::Cashier, Role::Pitboss, Role::Auditor])?;
    let rules = state.blocking(|s| s.db.read(read_rules)).await?;
    Ok(web::Json(rules))
}

/// Proposes new cash-compliance rules (pit boss): they apply when a second pit boss approves.
#[utoipa::path(tag = "compliance", security(("bearer" = [])), request_body = ComplianceRules,
    params(super::contract::IdempotencyKeyHeader),
    responses(
    (status = 202, body = Proposal, description = "Proposed: pending a second pit boss's approval."),
    (status = 400, body = super::error::ErrorBody),
    (status = 403, body = super::error::ErrorBody),
    (status = 409, body = super::error::ErrorBody),
    (status = 422, body = super::error::ErrorBody),
))]
#[put("/api/v1/compliance/rules")]
pub async fn propose_rules(
    state: web::Data<AppState>,
    caller: Caller,
    http: HttpRequest,
    body: web::Json<ComplianceRules>,
) -> ApiResult<HttpResponse> {
    caller.require(&[Role::Pitboss])?;
    let idem = IdempotentRequest::from_request(&http, &*body)?;
    let proposed = body.into_inner();
    proposed.check()?;
    let caller_id = caller.user_id.clone();
    idempotency::run(&state, &caller_id, idem, StatusCode::ACCEPTED, move |conn, _key| {
        Ok(approvals::propose(
            conn,
            ProposalKind::ChangeComplianceRules,
            None,
            &proposed,
            &caller.user_id,
        )?)
    })
    .await
}

/// Applies approved rules (called by the approval).
pub(super) fn apply_rules(
    conn: &mut AnyConnection,
    proposed: &ComplianceRules,
    approver_id: &str,
) -> Result<ComplianceRules, ApiError> {
    rules::set_rules(conn, approver_id, proposed)?;
    Ok(proposed.clone())
}

fn require_player(conn: &mut AnyConnection, player_id: &str) -> Result<(), ApiError> {
    let user = users::find(conn, player_id)?.ok_or_else(|| ApiError::not_found("player"))?;
    if user.role() != Role::Player {
        return Err(ApiError::unprocessable(
            "not_a_player",
            "only players are patrons of the cage",
        ));
    }
    Ok(())
}

/// Whether a patron's identity is on file, without it.
#[derive(Serialize, ToSchema)]
pub struct IdentityRecorded {
    pub player_id: String,
    pub on_file: bool,
}

/// Records a patron's identity from the document the cashier examined (cashier). It is kept
/// sealed; a later recording replaces it.
#[utoipa::path(tag = "compliance", security(("bearer" = [])), request_body = PatronIdentity,
    params(("player_id" = String, Path, description = "The patron's player id")),
    responses(
    (status = 200, body = IdentityRecorded),
    (status = 400, body = super::error::ErrorBody),
    (status = 403, body = super::error::ErrorBody),
    (status = 404, body = super::error::ErrorBody),
    (status = 422, body = super::error::ErrorBody),
))]
#[put("/api/v1/players/{player_id}/identity")]
pub async fn record_identity(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<String>,
    body: web::Json<PatronIdentity>,
) -> ApiResult<web::Json<IdentityRecorded>> {
    caller.require(&[Role::Cashier])?;
    let player_id = path.into_inner();
    let given = body.into_inner();
    let today = chrono::DateTime::from_timestamp_micros(now_us())
        .unwrap_or_default()
        .date_naive();
    given.check(today)?;
    let recorded = state
        .blocking(move |s| {
            s.db.write(|conn| {
                require_player(conn, &player_id)?;
                identity::record(conn, &s.vault, &player_id, &given, &caller.user_id)?;
                Ok::<_, ApiError>(IdentityRecorded {
                    player_id,
                    on_file: true,
                })
            })
        })
        .await?;
    Ok(web::Json(recorded))
}

/// A patron's identity (cashier, auditor). Every read is recorded as a significant event
/// naming the reader.
#[utoipa::path(tag = "compliance", security(("bearer" = [])),
    params(("player_id" = String, Path, description = "The patron's player id")),
    responses(
    (status = 200, body = IdentityOnFile),
    (status = 403, body = super::error::ErrorBody),
    (status = 404, body = super::error::ErrorBody, description = "No such player, or no identity on file."),
))]
#[get("/api/v1/players/{player_id}/identity")]
pub async fn read_identity(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<String>,
) -> ApiResult<web::Json<IdentityOnFile>> {
    caller.require(&[Role::Cashier, Role::Auditor])?;
    let player_id = path.into_inner();
    let found = state
        .blocking(move |s| {
            s.db.write(|conn| {
                identity::read(conn, &s.vault, &[&player_id], &caller.user_id, Purpose::Identity)?
                    .remove(&player_id)
                    .ok_or_else(|| ApiError::not_found("identity"))
            })
        })
        .await?;
    Ok(web::Json(found))
}

/// A patron's cash at the cage this gaming day, as the cashier needs it before taking more.
#[derive(Serialize, ToSchema)]
pub struct CashToday {
    pub player_id: String,
    pub gaming_day: String,
    pub identity_on_file: bool,
    /// A decimal string, "0.00" when none.
    pub deposits: String,
    /// A decimal string, "0.00" when none.
    pub withdrawals: String,
    /// How much more the patron may deposit today before their identity is needed (None when
    /// it is on file).
    pub deposits_before_identity: Option<String>,
    /// The same for withdrawals.
    pub withdrawals_before_identity: Option<String>,
    #[schema(value_type = super::contract::Amount)]
    pub log_threshold: String,
    #[schema(value_type = super::contract::Amount)]
    pub report_threshold: String,
}

/// A patron's cash today and how far it is from the report threshold (cashier, auditor).
#[utoipa::path(tag = "compliance", security(("bearer" = [])),
    params(("player_id" = String, Path, description = "The patron's player id")),
    responses(
    (status = 200, body = CashToday),
    (status = 403, body = super::error::ErrorBody),
    (status = 404, body = super::error::ErrorBody),
    (status = 422, body = super::error::ErrorBody),
))]
#[get("/api/v1/cage/patrons/{player_id}/today")]
pub async fn cash_today(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<String>,
) -> ApiResult<web::Json<CashToday>> {
    caller.require(&[Role::Cashier, Role::Auditor])?;
    let player_id = path.into_inner();
    let today = state
        .blocking(move |s| {
            s.db.read(|conn| {
                require_player(conn, &player_id)?;
                let rules = read_rules(conn)?;
                let calendar = calendar(conn)?;
                let (day, deposits, withdrawals) =
                    crate::compliance::cash::day_totals(conn, &calendar, &player_id, now_us())?;
                let on_file = !identity::on_file(conn, &[&player_id])?.is_empty();
                let threshold = rules.report_threshold.minor();
                let left = |total: i64| (!on_file).then(|| format_minor((threshold - total).max(0)));
                Ok::<_, ApiError>(CashToday {
                    gaming_day: day.to_string(),
                    identity_on_file: on_file,
                    deposits: format_minor(deposits),
                    withdrawals: format_minor(withdrawals),
                    deposits_before_identity: left(deposits),
                    withdrawals_before_identity: left(withdrawals),
                    log_threshold: format_minor(rules.log_threshold.minor()),
                    report_threshold: format_minor(threshold),
                    player_id,
                })
            })
        })
        .await?;
    Ok(web::Json(today))
}

/// JSON, or CSV for a spreadsheet.
#[derive(Deserialize, Serialize, ToSchema, Clone, Copy, PartialEq, Eq, Default)]
#[serde(rename_all = "snake_case")]
pub enum Format {
    #[default]
    Json,
    Csv,
}

#[derive(Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
pub struct DayParams {
    /// The gaming day, "YYYY-MM-DD" (default: the current one).
    #[param(value_type = Option<String>, format = Date)]
    pub gaming_day: Option<String>,
    #[param(inline)]
    pub format: Option<Format>,
}

fn day_or_today(conn: &mut AnyConnection, day: Option<NaiveDate>) -> Result<NaiveDate, ApiError> {
    match day {
        Some(day) => Ok(day),
        None => {
            let now = chrono::DateTime::from_timestamp_micros(now_us()).unwrap_or_default();
            Ok(calendar(conn)?.place(now).gaming_day)
        }
    }
}

/// The multiple-transaction log of a gaming day (auditor): every deposit and withdrawal at or
/// above the log threshold, with time, cashier, location, amount and, when on file, the
/// patron's name (each patron's identity read is recorded).
#[utoipa::path(tag = "compliance", security(("bearer" = [])), params(DayParams), responses(
    (status = 200, description = "The day's log", content(
        (Vec<LogLine> = "application/json"),
        (String = "text/csv"),
    )),
    (status = 400, body = super::error::ErrorBody),
    (status = 403, body = super::error::ErrorBody),
))]
#[get("/api/v1/compliance/cash-log")]
pub async fn cash_log(state: web::Data<AppState>, caller: Caller, q: web::Query<DayParams>) -> ApiResult<HttpResponse> {
    caller.require(&[Role::Auditor])?;
    let q = q.into_inner();
    let day = super::floor::gaming_day(q.gaming_day.as_deref())?;
    let lines = state
        .blocking(move |s| {
            s.db.write(|conn| {
                let day = day_or_today(conn, day)?;
                let rules = read_rules(conn)?;
                Ok::<_, ApiError>(reports::cash_log(conn, &s.vault, &rules, day, &caller.user_id)?)
            })
        })
        .await?;
    if q.format.unwrap_or_default() == Format::Csv {
        return Ok(HttpResponse::Ok().content_type("text/csv").body(log_csv(&lines)));
    }
    Ok(HttpResponse::Ok().json(lines))
}

fn log_csv(lines: &[LogLine]) -> String {
    let mut out = csv::Writer::from_writer(Vec::new());
    let header = [
        "at_us",
        "gaming_day",
        "direction",
        "amount",
        "patron",
        "patron_name",
        "cashier",
        "location",
        "transfer_id",
    ];
    out.write_record(header).expect("writing to memory");
    for l in lines {
        out.write_record([
            l.at_us.to_string(),
            l.gaming_day.clone(),
            l.direction.as_str().to_owned(),
            l.amount.clone(),
            l.patron.username.clone(),
            l.patron_name.clone().unwrap_or_default(),
            l.cashier.username.clone(),
            l.location.clone().unwrap_or_default(),
            l.transfer_id.clone(),
        ])
        .expect("writing to memory");
    }
    String::from_utf8(out.into_inner().expect("writing to memory")).expect("UTF-8 in, UTF-8 out")
}

#[derive(Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
pub struct ReportsParams {
    /// Only this gaming day's, "YYYY-MM-DD".
    #[param(value_type = Option<String>, format = Date)]
    pub gaming_day: Option<String>,
    /// Only filed (true) or not yet filed (false) reports.
    pub filed: Option<bool>,
    #[param(minimum = 1, maximum = 500)]
    pub limit: Option<i64>,
    #[param(minimum = 0)]
    pub offset: Option<i64>,
}

/// Currency transaction reports, newest day first (auditor). Lists no identity.
#[utoipa::path(tag = "compliance", security(("bearer" = [])), params(ReportsParams), responses(
    (status = 200, body = Vec<ReportSummary>),
    (status = 400, body = super::error::ErrorBody),
    (status = 403, body = super::error::ErrorBody),
))]
#[get("/api/v1/compliance/reports")]
pub async fn list_reports(
    state: web::Data<AppState>,
    caller: Caller,
    q: web::Query<ReportsParams>,
) -> ApiResult<web::Json<Vec<ReportSummary>>> {
    caller.require(&[Role::Auditor])?;
    let q = q.into_inner();
    let page = Page::new(q.limit, q.offset)?;
    let day = super::floor::gaming_day(q.gaming_day.as_deref())?;
    let list = state
        .blocking(move |s| {
            s.db.read(|conn| Ok::<_, ApiError>(reports::list(conn, day, q.filed, page.limit, page.offset)?))
        })
        .await?;
    Ok(web::Json(list))
}

#[derive(Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
pub struct ExportParams {
    /// The gaming day, "YYYY-MM-DD".
    #[param(value_type = String, format = Date)]
    pub gaming_day: String,
    #[param(inline)]
    pub format: Option<Format>,
}

/// Every currency transaction report of a gaming day, whole, as JSON or CSV (auditor). Each
/// patron's identity read is recorded.
#[utoipa::path(tag = "compliance", security(("bearer" = [])), params(ExportParams), responses(
    (status = 200, description = "The day's reports", content(
        (Vec<ReportDocument> = "application/json"),
        (String = "text/csv"),
    )),
    (status = 400, body = super::error::ErrorBody),
    (status = 403, body = super::error::ErrorBody),
))]
#[get("/api/v1/compliance/reports/export")]
pub async fn export_reports(
    state: web::Data<AppState>,
    caller: Caller,
    q: web::Query<ExportParams>,
) -> ApiResult<HttpResponse> {
    caller.require(&[Role::Auditor])?;
    let q = q.into_inner();
    let day = super::floor::gaming_day(Some(&q.gaming_day))?.expect("a day was given");
    let documents = state
        .blocking(move |s| {
            s.db.write(|conn| {
                let calendar = calendar(conn)?;
                let mut out = Vec::new();
                for id in reports::ids_of_day(conn, day)? {
                    out.push(reports::document(conn, &s.vault, &calendar, &id, &caller.user_id)?);
                }
                Ok::<_, ApiError>(out)
            })
        })
        .await?;
    if q.format.unwrap_or_default() == Format::Csv {
        return Ok(HttpResponse::Ok()
            .content_type("text/csv")
            .body(reports::to_csv(&documents)));
    }
    Ok(HttpResponse::Ok().json(documents))
}

/// A currency transaction report, whole (auditor): as filed, or as it reads now. The patron's
/// identity read is recorded.
#[utoipa::path(tag = "compliance", security(("bearer" = [])),
    params(("report_id" = String, Path, description = "The report's id")),
    responses(
    (status = 200, body = ReportDocument),
    (status = 403, body = super::error::ErrorBody),
    (status = 404, body = super::error::ErrorBody),
))]
#[get("/api/v1/compliance/reports/{report_id}")]
pub async fn get_report(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<String>,
) -> ApiResult<web::Json<ReportDocument>> {
    caller.require(&[Role::Auditor])?;
    let id = path.into_inner();
    let document = state
        .blocking(move |s| {
            s.db.write(|conn| {
                let calendar = calendar(conn)?;
                Ok::<_, ApiError>(reports::document(conn, &s.vault, &calendar, &id, &caller.user_id)?)
            })
        })
        .await?;
    Ok(web::Json(document))
}

#[derive(Deserialize, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct FilingRequest {
    /// The authority's reference for the filing, if it gave one (at most 100 characters).
    #[schema(max_length = 100)]
    pub reference: Option<String>,
}

/// Marks a report filed (auditor), once its gaming day is over and it has every field a filing
/// needs; the document is frozen as filed. djego files nothing itself.
#[utoipa::path(tag = "compliance", security(("bearer" = [])), request_body = FilingRequest,
    params(("report_id" = String, Path, description = "The report's id")),
    responses(
    (status = 200, body = ReportDocument),
    (status = 400, body = super::error::ErrorBody),
    (status = 403, body = super::error::ErrorBody),
    (status = 404, body = super::error::ErrorBody),
    (status = 409, body = super::error::ErrorBody, description = "Filed already, its day not over, or a field missing."),
    (status = 422, body = super::error::ErrorBody),
))]
#[post("/api/v1/compliance/reports/{report_id}/filing")]
pub async fn file_report(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<String>,
    body: web::Json<FilingRequest>,
) -> ApiResult<web::Json<ReportDocument>> {
    caller.require(&[Role::Auditor])?;
    let id = path.into_inner();
    let reference = body.into_inner().reference;
    let document = state
        .blocking(move |s| {
            s.db.write(|conn| {
                let calendar = calendar(conn)?;
                Ok::<_, ApiError>(reports::file(
                    conn,
                    &s.vault,
                    &calendar,
                    &id,
                    &caller.user_id,
                    reference.as_deref(),
                )?)
            })
        })
        .await?;
    Ok(web::Json(document))
}

#[derive(Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
pub struct AlertsParams {
    /// Only alerts in this state.
    #[param(inline, value_type = Option<AlertStatus>)]
    pub status: Option<AlertStatus>,
    #[param(minimum = 1, maximum = 500)]
    pub limit: Option<i64>,
    #[param(minimum = 0)]
    pub offset: Option<i64>,
}

/// Structuring alerts with their evidence, newest first (auditor).
#[utoipa::path(tag = "compliance", security(("bearer" = [])), params(AlertsParams), responses(
    (status = 200, body = Vec<Alert>),
    (status = 400, body = super::error::ErrorBody),
    (status = 403, body = super::error::ErrorBody),
))]
#[get("/api/v1/compliance/alerts")]
pub async fn list_alerts(
    state: web::Data<AppState>,
    caller: Caller,
    q: web::Query<AlertsParams>,
) -> ApiResult<web::Json<Vec<Alert>>> {
    caller.require(&[Role::Auditor])?;
    let q = q.into_inner();
    let page = Page::new(q.limit, q.offset)?;
    let list = state
        .blocking(move |s| {
            s.db.read(|conn| Ok::<_, ApiError>(alerts::list(conn, q.status, page.limit, page.offset)?))
        })
        .await?;
    Ok(web::Json(list))
}

#[derive(Deserialize, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ReviewRequest {
    pub decision: Decision,
    /// Why (required, at most 2000 characters); an escalation's note is its record's narrative.
    #[schema(min_length = 1, max_length = 2000)]
    pub note: String,
}

/// The outcome of a review.
#[derive(Serialize, ToSchema)]
pub struct ReviewOutcome {
    pub alert_id: String,
    pub status: AlertStatus,
    /// The suspicious-activity record an escalation made.
    pub suspicious_activity: Option<SuspiciousActivity>,
}

/// Dismisses or escalates an open alert (auditor); escalating makes a suspicious-activity
/// record.
#[utoipa::path(tag = "compliance", security(("bearer" = [])), request_body = ReviewRequest,
    params(("alert_id" = String, Path, description = "The alert's id")),
    responses(
    (status = 200, body = ReviewOutcome),
    (status = 400, body = super::error::ErrorBody),
    (status = 403, body = super::error::ErrorBody),
    (status = 404, body = super::error::ErrorBody),
    (status = 409, body = super::error::ErrorBody, description = "Reviewed already."),
    (status = 422, body = super::error::ErrorBody),
))]
#[post("/api/v1/compliance/alerts/{alert_id}/review")]
pub async fn review_alert(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<String>,
    body: web::Json<ReviewRequest>,
) -> ApiResult<web::Json<ReviewOutcome>> {
    caller.require(&[Role::Auditor])?;
    let id = path.into_inner();
    let ReviewRequest { decision, note } = body.into_inner();
    let outcome = state
        .blocking(move |s| {
            s.db.write(|conn| {
                let record = alerts::review(conn, &id, decision, &note, &caller.user_id)?;
                Ok::<_, ApiError>(ReviewOutcome {
                    alert_id: id,
                    status: match decision {
                        Decision::Dismiss => AlertStatus::Dismissed,
                        Decision::Escalate => AlertStatus::Escalated,
                    },
                    suspicious_activity: record,
                })
            })
        })
        .await?;
    Ok(web::Json(outcome))
}

#[derive(Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
pub struct ListParams {
    #[param(minimum = 1, maximum = 500)]
    pub limit: Option<i64>,
    #[param(minimum = 0)]
    pub offset: Option<i64>,
}

/// Suspicious-activity records, newest first (auditor only: never the patron, never the cage).
#[utoipa::path(tag = "compliance", security(("bearer" = [])), params(ListParams), responses(
    (status = 200, body = Vec<SuspiciousActivity>),
    (status = 400, body = super::error::ErrorBody),
    (status = 403, body = super::error::ErrorBody),
))]
#[get("/api/v1/compliance/suspicious-activity")]
pub async fn suspicious_activity(
    state: web::Data<AppState>,
    caller: Caller,
    q: web::Query<ListParams>,
) -> ApiResult<web::Json<Vec<SuspiciousActivity>>> {
    caller.require(&[Role::Auditor])?;
    let page = Page::new(q.limit, q.offset)?;
    let list = state
        .blocking(move |s| {
            s.db.read(|conn| Ok::<_, ApiError>(alerts::suspicious_activity(conn, page.limit, page.offset)?))
        })
        .await?;
    Ok(web::Json(list))
}
