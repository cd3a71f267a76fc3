//! The floor over HTTP (docs/floor.md): the calendar of gaming days and
//! shifts, the rating rule, table performance and player ratings.

use actix_web::http::StatusCode;
use actix_web::{get, post, put, web, HttpRequest, HttpResponse};
use chrono::{DateTime, NaiveDate, Utc};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use super::error::{ApiError, ApiResult};
use super::idempotency::{self, IdempotentRequest};
use super::state::AppState;
use crate::auth::Caller;
use crate::domain::Role;
use crate::floor::close::{CloseError, GamingDayView};
use crate::floor::plots::Figure;
use crate::floor::{
    self, CalendarSpec, DayReport, DealerInBox, DealerReport, FloorCalendar, FloorError, Period, PitsSpec,
    RatingReport, RatingRule, RatingRuleSpec, ShiftSpec,
};
use crate::store::AnyConnection;

impl From<FloorError> for ApiError {
    fn from(e: FloorError) -> ApiError {
        match e {
            FloorError::Calendar(e) => ApiError::unprocessable("invalid_calendar", e.to_string()),
            FloorError::RatingRule(e) => ApiError::unprocessable("invalid_rating_rule", e.to_string()),
            FloorError::Pits(e) => ApiError::unprocessable("invalid_pits", e.to_string()),
            e @ FloorError::TableClosed => ApiError::new(StatusCode::CONFLICT, "table_closed", e.to_string()),
            FloorError::NoSuchTable => ApiError::not_found("table"),
            e @ FloorError::NotAssigned => ApiError::unprocessable("not_assigned", e.to_string()),
            e @ FloorError::NotSignedIn => ApiError::new(StatusCode::CONFLICT, "not_signed_in", e.to_string()),
            e @ (FloorError::StoredSetting(..)
            | FloorError::StoredCertificate(..)
            | FloorError::StoredRound(..)
            | FloorError::Plot(_)) => ApiError::internal(e.to_string()),
            FloorError::Database(e) => e.into(),
            FloorError::Store(e) => e.into(),
        }
    }
}

impl From<CloseError> for ApiError {
    fn from(e: CloseError) -> ApiError {
        let message = e.to_string();
        match e {
            CloseError::NotOver(_) => ApiError::conflict("day_not_over", message),
            CloseError::AlreadyClosed(_) => ApiError::conflict("day_closed", message),
            CloseError::UnfinishedRounds { .. } => ApiError::conflict("unfinished_rounds", message),
            CloseError::NotReconciled { .. } => ApiError::conflict("not_reconciled", message),
            CloseError::MetersDisagree { differences, .. } => ApiError::conflict("meters_disagree", message)
                .with_details(serde_json::json!({ "differences": differences })),
            CloseError::BookedWhileClosing(_) => ApiError::conflict("booked_while_closing", message),
            CloseError::Checkpoint(m) => ApiError::internal(m),
            CloseError::Floor(e) => e.into(),
        }
    }
}

/// The calendar in force, where the present instant falls in it, and a change
/// waiting to take effect.
#[derive(Serialize, ToSchema)]
pub struct CalendarView {
    /// The casino's time zone (IANA).
    pub timezone: String,
    /// The local time each gaming day starts, "HH:MM:SS".
    pub day_starts_at: String,
    pub shifts: Vec<ShiftSpec>,
    /// When this calendar took effect, microseconds since the Unix epoch; null
    /// when it has been in force since before anything was recorded.
    pub in_force_since_us: Option<i64>,
    pub now: CalendarNow,
    /// A change made and not yet in force: it takes effect from the next
    /// gaming day not begun when it was made. Null when there is none.
    pub pending: Option<PendingCalendar>,
}

/// The present gaming day and shift, with their bounds.
#[derive(Serialize, ToSchema)]
pub struct CalendarNow {
    /// Microseconds since the Unix epoch.
    pub at_us: i64,
    /// The gaming day, named by the local date it starts on ("YYYY-MM-DD").
    pub gaming_day: String,
    pub shift: String,
    pub day_starts_at_us: i64,
    /// The next gaming day's first instant.
    pub day_ends_at_us: i64,
    pub shift_starts_at_us: i64,
    pub shift_ends_at_us: i64,
}

/// A calendar that takes effect later.
#[derive(Serialize, ToSchema)]
pub struct PendingCalendar {
    /// When it takes effect: the end of the gaming day in which it was made.
    pub effective_from_us: i64,
    /// The first gaming day it governs, which starts at `effective_from_us`
    /// and ends at its own cut-off (so it may be longer or shorter than usual).
    #[schema(value_type = String, format = Date)]
    pub first_gaming_day: String,
    pub timezone: String,
    pub day_starts_at: String,
    pub shifts: Vec<ShiftSpec>,
}

impl CalendarView {
    pub fn new(calendar: &FloorCalendar, at: DateTime<Utc>) -> CalendarView {
        let spec = calendar.rule_at(at).spec();
        let here = calendar.place(at);
        let (day_start, day_end) = calendar.day_bounds(here.gaming_day);
        let (shift_start, shift_end) = calendar.shift_bounds(here.gaming_day, here.shift);
        let shift = calendar
            .shifts(here.gaming_day)
            .get(here.shift)
            .map(|s| s.0.to_owned())
            .unwrap_or_default();
        let pending = calendar.pending(at).map(|(from, first_day, rule)| {
            let spec = rule.spec();
            PendingCalendar {
                effective_from_us: from.timestamp_micros(),
                first_gaming_day: first_day.to_string(),
                timezone: spec.timezone,
                day_starts_at: spec.day_starts_at,
                shifts: spec.shifts,
            }
        });
        CalendarView {
            now: CalendarNow {
                at_us: at.timestamp_micros(),
                gaming_day: here.gaming_day.to_string(),
                shift,
                day_starts_at_us: day_start.timestamp_micros(),
                day_ends_at_us: day_end.timestamp_micros(),
                shift_starts_at_us: shift_start.timestamp_micros(),
                shift_ends_at_us: shift_end.timestamp_micros(),
            },
            in_force_since_us: calendar.in_force_since(at).map(|t| t.timestamp_micros()),
            pending,
            timezone: spec.timezone,
            day_starts_at: spec.day_starts_at,
            shifts: spec.shifts,
        }
    }
}

/// The floor calendar: time zone, gaming-day cut-off and shifts (any role).
/// Until a pit boss sets one: UTC, days from 06:00, shifts day 06:00, swing
/// 14:00, graveyard 22:00.
#[utoipa::path(tag = "floor", security(("bearer" = [])), responses(
    (status = 200, body = CalendarView),
))]
#[get("/api/v1/floor/calendar")]
pub async fn get_calendar(state: web::Data<AppState>, _caller: Caller) -> ApiResult<web::Json<CalendarView>> {
    let calendar = state
        .blocking(|s| s.db.read(|conn| floor::calendar(conn).map_err(ApiError::from)))
        .await?;
    Ok(web::Json(CalendarView::new(&calendar, crate::store::now())))
}

/// Proposes a new floor calendar (pit boss): it applies when a second pit boss approves, from the
/// next gaming day not yet begun at that moment, so no begun or closed day's bounds ever move; a
/// change approved while another waits to take effect replaces it. Applying it is a significant
/// event with the calendar it replaces, the new one, and when it takes effect.
#[utoipa::path(tag = "floor", security(("bearer" = [])), request_body = CalendarSpec,
    params(super::contract::IdempotencyKeyHeader),
    responses(
    (status = 202, body = crate::approvals::Proposal, description = "Proposed: pending a second pit boss's approval."),
    (status = 403, body = super::error::ErrorBody),
    (status = 422, body = super::error::ErrorBody, description = "An unknown time zone, a malformed time, or shifts out of order."),
))]
#[put("/api/v1/floor/calendar")]
pub async fn set_calendar(
    state: web::Data<AppState>,
    caller: Caller,
    http: HttpRequest,
    body: web::Json<CalendarSpec>,
) -> ApiResult<HttpResponse> {
    caller.require(&[Role::Pitboss])?;
    let idem = IdempotentRequest::from_request(&http, &*body)?;
    let spec = body.into_inner();
    floor::CalendarRule::new(&spec).map_err(FloorError::from)?;
    let caller_id = caller.user_id.clone();
    idempotency::run(&state, &caller_id, idem, StatusCode::ACCEPTED, move |conn, _key| {
        Ok(crate::approvals::propose(
            conn,
            crate::approvals::ProposalKind::ChangeCalendar,
            None,
            &spec,
            &caller.user_id,
        )?)
    })
    .await
}

/// Applies an approved calendar, as the approver.
pub(super) fn apply_calendar(
    conn: &mut AnyConnection,
    spec: &CalendarSpec,
    approver_id: &str,
) -> Result<CalendarView, ApiError> {
    let calendar = floor::set_calendar(conn, approver_id, spec)?;
    Ok(CalendarView::new(&calendar, crate::store::now()))
}

#[derive(Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
pub struct TablesParams {
    /// The gaming day, "YYYY-MM-DD" (default: the present one).
    #[param(value_type = Option<String>, format = Date)]
    pub gaming_day: Option<String>,
    /// Instead of `gaming_day`, a period: its first gaming day, with `to`.
    #[param(value_type = Option<String>, format = Date)]
    pub from: Option<String>,
    /// The period's last gaming day (at most 366 days from `from`).
    #[param(value_type = Option<String>, format = Date)]
    pub to: Option<String>,
    /// `json` (default) or `csv`.
    #[param(inline, value_type = Option<super::ReportFormat>)]
    pub format: Option<String>,
}

/// The period a report's `gaming_day`, `from` and `to` name; None for the present gaming day.
fn period(gaming_day: &Option<String>, from: &Option<String>, to: &Option<String>) -> ApiResult<Option<Period>> {
    // Each date is grammar (400 when malformed); how they combine is a rule across fields (422).
    let bad = || {
        ApiError::unprocessable(
            "invalid_period",
            "give gaming_day, or from and to: at most 366 gaming days in order",
        )
    };
    match (
        self::gaming_day(gaming_day.as_deref())?,
        self::gaming_day(from.as_deref())?,
        self::gaming_day(to.as_deref())?,
    ) {
        (None, None, None) => Ok(None),
        (Some(day), None, None) => Ok(Some(Period::day(day))),
        (None, Some(first), Some(last)) => Period::new(first, last).map(Some).map_err(|_| bad()),
        _ => Err(bad()),
    }
}

/// Table performance over a gaming day, or a period of them with `from` and
/// `to` (pit boss, auditor): per table and shift, rounds, open hours, rounds
/// per hour, drop, house win, hold, and the theoretical win of the side bets
/// and fees with its 99% band (docs/floor.md). `format=csv` for a spreadsheet.
#[utoipa::path(tag = "floor", security(("bearer" = [])), params(TablesParams), responses(
    (status = 200, description = "The day's lines", content(
        (DayReport = "application/json"),
        (String = "text/csv"),
    )),
    (status = 400, body = super::error::ErrorBody),
    (status = 403, body = super::error::ErrorBody),
    (status = 422, body = super::error::ErrorBody, description = "gaming_day with from or to, one of from and to alone, or a period out of order or over 366 days."),
))]
#[get("/api/v1/floor/tables")]
pub async fn table_performance(
    state: web::Data<AppState>,
    caller: Caller,
    query: web::Query<TablesParams>,
) -> ApiResult<HttpResponse> {
    period_report(
        state,
        caller,
        query.into_inner(),
        Meters::CatchUp,
        floor::day_report,
        |report| {
            let label = floor::period_label(&report.gaming_day, &report.last_gaming_day);
            floor::performance::to_csv(&label, &report.lines)
        },
    )
    .await
}

/// Whether a report reads the floor's minute meters, and so first brings them up to the ledger.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Meters {
    CatchUp,
    Unused,
}

/// A report over a period for the pit boss and the auditor, as JSON or CSV.
async fn period_report<T: Serialize + Send + 'static>(
    state: web::Data<AppState>,
    caller: Caller,
    q: TablesParams,
    meters: Meters,
    read: fn(&mut crate::store::AnyConnection, Period) -> Result<T, FloorError>,
    to_csv: fn(&T) -> String,
) -> ApiResult<HttpResponse> {
    caller.require(&[Role::Pitboss, Role::Auditor])?;
    let csv = is_csv(q.format.as_deref())?;
    let period = period(&q.gaming_day, &q.from, &q.to)?;
    if meters == Meters::CatchUp {
        // On the primary: the meters are written.
        state.blocking(|s| Ok(catch_up_meters(&s.db))).await?;
    }
    let (report, from) = state
        .report(move |_, db| {
            db.read(|conn| {
                let period = floor::period_or_today(conn, period)?;
                read(conn, period).map_err(ApiError::from)
            })
        })
        .await?;
    Ok(from.mark(if csv {
        HttpResponse::Ok().content_type("text/csv").body(to_csv(&report))
    } else {
        HttpResponse::Ok().json(report)
    }))
}

/// Brings the floor's minute meters up to the ledger before a report reads them. Only for speed:
/// the report reads whatever they do not cover row by row, so a failure is logged, not returned.
fn catch_up_meters(db: &crate::store::Database) {
    if let Err(e) = floor::meters::catch_up(db) {
        tracing::warn!(error = %e, "the floor's minute meters were not brought up to the ledger");
    }
}

/// `format`: false for JSON (the default), true for CSV.
fn is_csv(format: Option<&str>) -> ApiResult<bool> {
    match format {
        None | Some("json") => Ok(false),
        Some("csv") => Ok(true),
        Some(_) => Err(ApiError::bad_request("invalid_format", "format must be json or csv")),
    }
}

/// `gaming_day`, "YYYY-MM-DD" to the letter.
pub(super) fn gaming_day(text: Option<&str>) -> ApiResult<Option<NaiveDate>> {
    text.map(|text| {
        NaiveDate::parse_from_str(text, "%Y-%m-%d")
            .ok()
            .filter(|d| d.to_string() == text)
            .ok_or_else(|| ApiError::bad_request("invalid_gaming_day", "gaming_day must be a date \"YYYY-MM-DD\""))
    })
    .transpose()
}

/// The rating rule in force (any role): when a pause ends a session, and the
/// points a unit of theoretical loss earns. Until a pit boss sets one: 30
/// minutes, one point per unit.
#[utoipa::path(tag = "floor", security(("bearer" = [])), responses(
    (status = 200, body = RatingRuleSpec),
))]
#[get("/api/v1/floor/rating-rule")]
pub async fn get_rating_rule(state: web::Data<AppState>, _caller: Caller) -> ApiResult<web::Json<RatingRuleSpec>> {
    let rule = state
        .blocking(|s| s.db.read(|conn| floor::rating_rule(conn).map_err(ApiError::from)))
        .await?;
    Ok(web::Json(rule.spec()))
}

/// Replaces the rating rule (pit boss); a significant event with the old and
/// the new rule. Ratings are computed when read, so the new rule applies to
/// past days too.
#[utoipa::path(tag = "floor", security(("bearer" = [])), request_body = RatingRuleSpec,
    params(super::contract::IdempotencyKeyHeader),
    responses(
    (status = 200, body = RatingRuleSpec),
    (status = 403, body = super::error::ErrorBody),
    (status = 422, body = super::error::ErrorBody, description = "A gap or a points rate out of range."),
))]
#[put("/api/v1/floor/rating-rule")]
pub async fn set_rating_rule(
    state: web::Data<AppState>,
    caller: Caller,
    http: HttpRequest,
    body: web::Json<RatingRuleSpec>,
) -> ApiResult<HttpResponse> {
    caller.require(&[Role::Pitboss])?;
    let idem = IdempotentRequest::from_request(&http, &*body)?;
    let spec = body.into_inner();
    RatingRule::new(&spec).map_err(FloorError::from)?;
    let caller_id = caller.user_id.clone();
    idempotency::run(&state, &caller_id, idem, StatusCode::OK, move |conn, _key| {
        Ok(floor::set_rating_rule(conn, &caller.user_id, &spec)?.spec())
    })
    .await
}

#[derive(Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
pub struct PlayersParams {
    /// The gaming day, "YYYY-MM-DD" (default: the present one).
    #[param(value_type = Option<String>, format = Date)]
    pub gaming_day: Option<String>,
    /// A period's first gaming day, "YYYY-MM-DD" (with `to`, instead of `gaming_day`).
    #[param(value_type = Option<String>, format = Date)]
    pub from: Option<String>,
    /// A period's last gaming day, "YYYY-MM-DD", at most 366 days from `from`.
    #[param(value_type = Option<String>, format = Date)]
    pub to: Option<String>,
    /// One player's sessions (a player may name only themself, and sees only their own without it).
    pub player_id: Option<String>,
    /// `json` (default) or `csv`.
    #[param(inline, value_type = Option<super::ReportFormat>)]
    pub format: Option<String>,
}

/// Player ratings over a gaming day, or a period of them with `from` and `to`:
/// each player's sessions at each table, with time played, rounds, staked,
/// average bet, actual result, theoretical loss and points (docs/floor.md). A
/// player sees their own; the pit boss and the auditor see everyone's.
/// `format=csv` for a spreadsheet.
#[utoipa::path(tag = "floor", security(("bearer" = [])), params(PlayersParams), responses(
    (status = 200, description = "The day's sessions", content(
        (RatingReport = "application/json"),
        (String = "text/csv"),
    )),
    (status = 400, body = super::error::ErrorBody),
    (status = 403, body = super::error::ErrorBody),
    (status = 422, body = super::error::ErrorBody, description = "gaming_day with from or to, one of from and to alone, or a period out of order or over 366 days."),
))]
#[get("/api/v1/floor/players")]
pub async fn player_ratings(
    state: web::Data<AppState>,
    caller: Caller,
    query: web::Query<PlayersParams>,
) -> ApiResult<HttpResponse> {
    caller.require(&[Role::Pitboss, Role::Auditor, Role::Player])?;
    let q = query.into_inner();
    let csv = is_csv(q.format.as_deref())?;
    let period = period(&q.gaming_day, &q.from, &q.to)?;
    let player_id = match (caller.role, q.player_id) {
        (Role::Player, Some(id)) if id != caller.user_id => {
            return Err(ApiError::forbidden("a player sees only their own ratings"))
        }
        (Role::Player, _) => Some(caller.user_id.clone()),
        (_, id) => id,
    };
    let report = state
        .blocking(move |s| {
            s.db.read(|conn| {
                let period = floor::period_or_today(conn, period)?;
                floor::rating_report(conn, period, player_id.as_deref()).map_err(ApiError::from)
            })
        })
        .await?;
    if csv {
        let body = floor::ratings::to_csv(&report.sessions);
        Ok(HttpResponse::Ok().content_type("text/csv").body(body))
    } else {
        Ok(HttpResponse::Ok().json(report))
    }
}

/// Who is dealing at a table.
#[derive(Serialize, ToSchema)]
pub struct TableDealer {
    pub table_id: String,
    /// Null when no dealer is signed in.
    pub dealer: Option<DealerInBox>,
}

/// Whom a sign-in or sign-out is for.
#[derive(Deserialize, Serialize, ToSchema, Default)]
#[serde(deny_unknown_fields)]
pub struct DealerSignRequest {
    /// The dealer (a pit boss names one; a dealer may leave it out or name themself).
    pub dealer_id: Option<String>,
}

/// The dealer the caller acts for: a dealer only for themself, a pit boss for anyone named.
fn acting_for(caller: &Caller, asked: Option<String>) -> ApiResult<String> {
    caller.require(&[Role::Dealer, Role::Pitboss])?;
    match (caller.role, asked) {
        (Role::Dealer, None) => Ok(caller.user_id.clone()),
        (Role::Dealer, Some(id)) if id == caller.user_id => Ok(id),
        (Role::Dealer, Some(_)) => Err(ApiError::forbidden("a dealer signs only themself in and out")),
        (_, Some(id)) => Ok(id),
        (_, None) => Err(ApiError::unprocessable("dealer_required", "name the dealer: dealer_id")),
    }
}

/// Who is dealing at a table now, and since when (any role).
#[utoipa::path(tag = "floor", security(("bearer" = [])), responses(
    (status = 200, body = TableDealer),
    (status = 404, body = super::error::ErrorBody),
))]
#[get("/api/v1/tables/{table_id}/dealer")]
pub async fn table_dealer(
    state: web::Data<AppState>,
    _caller: Caller,
    path: web::Path<String>,
) -> ApiResult<web::Json<TableDealer>> {
    let table_id = path.into_inner();
    let view = state
        .blocking(move |s| {
            s.db.read(|conn| {
                super::tables::load_table(conn, &table_id)?;
                let dealer = floor::dealer_in_box(conn, &table_id)?;
                Ok::<_, ApiError>(TableDealer { table_id, dealer })
            })
        })
        .await?;
    Ok(web::Json(view))
}

/// Signs a dealer in at an open table they are assigned to (the dealer, or a
/// pit boss for them): the relief of whoever was dealing there, who is
/// signed out, and the dealer is signed out of any other table. Significant
/// events `dealer_signed_in` and `dealer_signed_out`.
#[utoipa::path(tag = "floor", security(("bearer" = [])), request_body = DealerSignRequest,
    params(super::contract::IdempotencyKeyHeader),
    responses(
    (status = 200, body = TableDealer),
    (status = 403, body = super::error::ErrorBody),
    (status = 404, body = super::error::ErrorBody),
    (status = 409, body = super::error::ErrorBody, description = "The table is closed."),
    (status = 422, body = super::error::ErrorBody, description = "The dealer is not assigned to the table, or a pit boss named no dealer."),
))]
#[post("/api/v1/tables/{table_id}/dealer/sign-in")]
pub async fn sign_in(
    state: web::Data<AppState>,
    caller: Caller,
    http: HttpRequest,
    path: web::Path<String>,
    body: web::Json<DealerSignRequest>,
) -> ApiResult<HttpResponse> {
    let idem = IdempotentRequest::from_request(&http, &*body)?;
    let dealer_id = acting_for(&caller, body.into_inner().dealer_id)?;
    let table_id = path.into_inner();
    let caller_id = caller.user_id.clone();
    idempotency::run(&state, &caller_id, idem, StatusCode::OK, move |conn, _key| {
        let dealer = floor::sign_in(conn, &table_id, &dealer_id, &caller.user_id)?;
        Ok(TableDealer {
            table_id,
            dealer: Some(dealer),
        })
    })
    .await
}

/// Signs the dealer out of the table (a break, the end of a shift): the
/// dealer, or a pit boss for them. A significant event `dealer_signed_out`.
#[utoipa::path(tag = "floor", security(("bearer" = [])), request_body = DealerSignRequest,
    params(super::contract::IdempotencyKeyHeader),
    responses(
    (status = 200, body = TableDealer),
    (status = 403, body = super::error::ErrorBody),
    (status = 404, body = super::error::ErrorBody),
    (status = 409, body = super::error::ErrorBody, description = "The dealer is not signed in at this table."),
    (status = 422, body = super::error::ErrorBody, description = "A pit boss named no dealer."),
))]
#[post("/api/v1/tables/{table_id}/dealer/sign-out")]
pub async fn sign_out(
    state: web::Data<AppState>,
    caller: Caller,
    http: HttpRequest,
    path: web::Path<String>,
    body: web::Json<DealerSignRequest>,
) -> ApiResult<HttpResponse> {
    let idem = IdempotentRequest::from_request(&http, &*body)?;
    let dealer_id = acting_for(&caller, body.into_inner().dealer_id)?;
    let table_id = path.into_inner();
    let caller_id = caller.user_id.clone();
    idempotency::run(&state, &caller_id, idem, StatusCode::OK, move |conn, _key| {
        super::tables::load_table(conn, &table_id)?;
        floor::sign_out(conn, &table_id, &dealer_id, &caller.user_id)?;
        Ok(TableDealer { table_id, dealer: None })
    })
    .await
}

/// Dealer performance over a gaming day, or a period of them with `from` and
/// `to` (pit boss, auditor): per dealer and
/// shift, the play at whatever table they were dealing — rounds, hours in the
/// box, rounds per hour, drop, house win, hold, and the theoretical win with
/// its 99% band, flagged when outside (docs/floor.md). `format=csv` for a
/// spreadsheet.
#[utoipa::path(tag = "floor", security(("bearer" = [])), params(TablesParams), responses(
    (status = 200, description = "The day's lines", content(
        (DealerReport = "application/json"),
        (String = "text/csv"),
    )),
    (status = 400, body = super::error::ErrorBody),
    (status = 403, body = super::error::ErrorBody),
    (status = 422, body = super::error::ErrorBody, description = "gaming_day with from or to, one of from and to alone, or a period out of order or over 366 days."),
))]
#[get("/api/v1/floor/dealers")]
pub async fn dealer_performance(
    state: web::Data<AppState>,
    caller: Caller,
    query: web::Query<TablesParams>,
) -> ApiResult<HttpResponse> {
    period_report(
        state,
        caller,
        query.into_inner(),
        Meters::Unused,
        floor::dealer_report,
        floor::dealer_csv,
    )
    .await
}

/// The pits in force (any role): named groups of tables that the table
/// report totals like the floor. None until a pit boss sets them.
#[utoipa::path(tag = "floor", security(("bearer" = [])), responses(
    (status = 200, body = PitsSpec),
))]
#[get("/api/v1/floor/pits")]
pub async fn get_pits(state: web::Data<AppState>, _caller: Caller) -> ApiResult<web::Json<PitsSpec>> {
    let pits = state
        .blocking(|s| s.db.read(|conn| floor::pits(conn).map_err(ApiError::from)))
        .await?;
    Ok(web::Json(pits.spec().clone()))
}

/// Replaces the pits (pit boss): every table in at most one; a significant
/// event with the old and the new pits. Reports are read with the pits in
/// force, so new pits apply to past days too (a closed day keeps its own).
#[utoipa::path(tag = "floor", security(("bearer" = [])), request_body = PitsSpec,
    params(super::contract::IdempotencyKeyHeader),
    responses(
    (status = 200, body = PitsSpec),
    (status = 403, body = super::error::ErrorBody),
    (status = 422, body = super::error::ErrorBody, description = "A blank or repeated name, a table in two pits, an unknown table, or too many pits or tables."),
))]
#[put("/api/v1/floor/pits")]
pub async fn set_pits(
    state: web::Data<AppState>,
    caller: Caller,
    http: HttpRequest,
    body: web::Json<PitsSpec>,
) -> ApiResult<HttpResponse> {
    caller.require(&[Role::Pitboss])?;
    let idem = IdempotentRequest::from_request(&http, &*body)?;
    let spec = body.into_inner();
    floor::Pits::new(&spec).map_err(FloorError::from)?;
    let caller_id = caller.user_id.clone();
    idempotency::run(&state, &caller_id, idem, StatusCode::OK, move |conn, _key| {
        Ok(floor::set_pits(conn, &caller.user_id, &spec)?.spec().clone())
    })
    .await
}

/// A gaming day (pit boss, auditor): once closed, the report frozen at close
/// with who closed it, its hash and whether it is intact; before, the report
/// as it reads now and the rounds of the day not yet ended. Either way, the
/// corrections made on later days that name it.
#[utoipa::path(tag = "floor", security(("bearer" = [])),
    params(("gaming_day" = String, Path, format = Date, description = "YYYY-MM-DD"), DayParams),
    responses(
    (status = 200, description = "The day; with `format=csv`, one CSV section per part of the view", content(
        (GamingDayView = "application/json"),
        (String = "text/csv"),
    )),
    (status = 400, body = super::error::ErrorBody),
    (status = 403, body = super::error::ErrorBody),
))]
#[get("/api/v1/floor/days/{gaming_day}")]
pub async fn gaming_day_view(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<String>,
    q: web::Query<DayParams>,
) -> ApiResult<HttpResponse> {
    caller.require(&[Role::Pitboss, Role::Auditor])?;
    let day = day_in_path(&path)?;
    let csv = is_csv(q.format.as_deref())?;
    let (view, from) = state
        .report(move |_, db| db.read(|conn| floor::close::view(conn, day).map_err(ApiError::from)))
        .await?;
    Ok(from.mark(if csv {
        let body = floor::close::to_csv(&view)?;
        HttpResponse::Ok().content_type("text/csv").body(body)
    } else {
        HttpResponse::Ok().json(view)
    }))
}

#[derive(Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
pub struct DayParams {
    /// `json` (default) or `csv`.
    #[param(inline, value_type = Option<super::ReportFormat>)]
    pub format: Option<String>,
}

/// Closes a gaming day (pit boss): freezes its report, hashes it into the
/// significant events and signs them at once with a checkpoint; no transfer
/// can be booked into the day after. Refused before the day's cut-off, while
/// a round of the day is unfinished (the message names them), when the day
/// does not reconcile to the ledger, when the floor's minute meters disagree
/// with the day's transfers (`details.differences` lists where), when a
/// transfer was booked into the day while it was being closed, and when it
/// is closed already.
#[utoipa::path(tag = "floor", security(("bearer" = [])),
    params(("gaming_day" = String, Path, format = Date, description = "YYYY-MM-DD"), super::contract::IdempotencyKeyHeader),
    responses(
    (status = 201, body = GamingDayView),
    (status = 400, body = super::error::ErrorBody),
    (status = 403, body = super::error::ErrorBody),
    (status = 409, body = super::error::ErrorBody, description = "day_not_over, unfinished_rounds, not_reconciled, meters_disagree, booked_while_closing or day_closed."),
))]
#[post("/api/v1/floor/days/{gaming_day}/close")]
pub async fn close_gaming_day(
    state: web::Data<AppState>,
    caller: Caller,
    http: HttpRequest,
    path: web::Path<String>,
) -> ApiResult<HttpResponse> {
    caller.require(&[Role::Pitboss])?;
    let day = day_in_path(&path)?;
    let idem = IdempotentRequest::from_request(&http, &serde_json::Value::Null)?;
    let caller_id = caller.user_id.clone();
    let key = state.settings.checkpoint_key.clone();
    idempotency::run(&state, &caller_id, idem, StatusCode::CREATED, move |conn, _key| {
        Ok(floor::close::close(conn, day, &caller.user_id, &key)?)
    })
    .await
}

fn day_in_path(text: &str) -> ApiResult<NaiveDate> {
    gaming_day(Some(text))?.ok_or_else(|| ApiError::bad_request("invalid_gaming_day", "a gaming day is YYYY-MM-DD"))
}

#[derive(Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
pub struct PlotParams {
    /// The gaming day, "YYYY-MM-DD" (default: the present one).
    #[param(value_type = Option<String>, format = Date)]
    pub gaming_day: Option<String>,
    /// A period's first gaming day, "YYYY-MM-DD" (with `to`, instead of `gaming_day`).
    #[param(value_type = Option<String>, format = Date)]
    pub from: Option<String>,
    /// A period's last gaming day, "YYYY-MM-DD", at most 366 days from `from`.
    #[param(value_type = Option<String>, format = Date)]
    pub to: Option<String>,
}

/// A plot over a gaming day or a period (pit boss, auditor), as SVG: per table,
/// day by day, `hold` (hold %), `actual-minus-theo` (the side bets' actual −
/// theoretical win with its 99% band) or `rounds-per-hour`.
#[utoipa::path(tag = "floor", security(("bearer" = [])),
    params(("figure" = inline(Figure), Path, description = "hold, actual-minus-theo or rounds-per-hour"), PlotParams),
    responses(
    (status = 200, description = "The plot", content_type = "image/svg+xml", body = String),
    (status = 400, body = super::error::ErrorBody),
    (status = 403, body = super::error::ErrorBody),
    (status = 422, body = super::error::ErrorBody, description = "gaming_day with from or to, one of from and to alone, or a period out of order or over 366 days."),
))]
#[get("/api/v1/floor/plots/{figure}")]
pub async fn floor_plot(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<Figure>,
    query: web::Query<PlotParams>,
) -> ApiResult<HttpResponse> {
    caller.require(&[Role::Pitboss, Role::Auditor])?;
    let figure = path.into_inner();
    let q = query.into_inner();
    let period = period(&q.gaming_day, &q.from, &q.to)?;
    state.blocking(|s| Ok(catch_up_meters(&s.db))).await?;
    let (svg, from) = state
        .report(move |_, db| {
            db.read(|conn| {
                let period = floor::period_or_today(conn, period)?;
                let days = floor::daily_lines(conn, period)?;
                floor::plots::svg(figure, &days).map_err(ApiError::from)
            })
        })
        .await?;
    Ok(from.mark(HttpResponse::Ok().content_type("image/svg+xml").body(svg)))
}
