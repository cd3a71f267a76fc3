//! Player protection over HTTP (docs/protection.md): a player's own limits, time-outs and
//! self-exclusion; staff read a player's standing.

use actix_web::{get, post, put, web, HttpResponse};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::error::{ApiError, ApiResult};
use super::state::AppState;
use crate::auth::Caller;
use crate::domain::{format_minor, Amount, AmountError, Role};
use crate::protection::exclusions::{self, ExclusionError, ExclusionView, Length};
use crate::protection::limits::{self, LimitError, LimitView};
use crate::protection::session_limits::{self, SessionLimitView, SessionMinutes};
use crate::protection::{ExclusionKind, LimitKind, Period};
use crate::store::now_us;

impl From<LimitError> for ApiError {
    fn from(e: LimitError) -> ApiError {
        let message = e.to_string();
        match e {
            LimitError::NothingPending => ApiError::conflict("nothing_pending", message),
            LimitError::SessionMinutes => ApiError::unprocessable("invalid_minutes", message),
            LimitError::CoolingOff { from_us } => ApiError::conflict("cooling_off", message)
                .with_details(serde_json::json!({ "confirmable_from_us": from_us })),
            LimitError::Db(d) => ApiError::from(d),
            LimitError::Store(e) => ApiError::from(e),
        }
    }
}

impl From<ExclusionError> for ApiError {
    fn from(e: ExclusionError) -> ApiError {
        let message = e.to_string();
        match e {
            ExclusionError::TimeOutLength | ExclusionError::SelfExclusionLength => {
                ApiError::unprocessable("invalid_length", message)
            }
            ExclusionError::Db(d) => ApiError::from(d),
            ExclusionError::Store(e) => ApiError::from(e),
        }
    }
}

/// A player's protection: their limits, their exclusions, and what they deposited, staked and
/// lost over each window ending now.
#[derive(Serialize, ToSchema, Debug)]
pub struct ProtectionView {
    pub player_id: String,
    /// The exclusion in force that ends last, if any: no play and no deposit until it ends.
    pub excluded: Option<ExclusionView>,
    /// Every kind and period (deposit, loss, stake × day, week, month).
    pub limits: Vec<LimitView>,
    /// How long a session may run.
    pub session_limit: SessionLimitView,
    /// Every time-out and self-exclusion taken, newest first.
    pub exclusions: Vec<ExclusionView>,
    /// Day, week and month, the windows the limits count over.
    pub totals: Vec<WindowTotals>,
}

#[derive(Serialize, ToSchema, Debug)]
pub struct WindowTotals {
    pub period: Period,
    pub deposited: String,
    pub staked: String,
    /// Staked less won back; negative when ahead.
    pub lost: String,
}

fn protection_of(conn: &mut crate::store::AnyConnection, player_id: &str) -> Result<ProtectionView, ApiError> {
    let now = now_us();
    let exclusions = exclusions::list(conn, player_id, now)?;
    let excluded = exclusions
        .iter()
        .filter(|e| e.in_force)
        .max_by_key(|e| e.ends_at_us.unwrap_or(i64::MAX))
        .cloned();
    let totals = crate::protection::totals(conn, &[player_id], now)?
        .remove(player_id)
        .unwrap_or_default();
    Ok(ProtectionView {
        player_id: player_id.to_owned(),
        excluded,
        limits: limits::list(conn, player_id)?,
        session_limit: session_limits::view(conn, player_id)?,
        exclusions,
        totals: Period::ALL
            .into_iter()
            .map(|period| WindowTotals {
                period,
                deposited: format_minor(totals.of(LimitKind::Deposit, period)),
                staked: format_minor(totals.of(LimitKind::Stake, period)),
                lost: format_minor(totals.of(LimitKind::Loss, period)),
            })
            .collect(),
    })
}

/// The caller's own limits, exclusions and totals (player).
#[utoipa::path(tag = "protection", security(("bearer" = [])), responses(
    (status = 200, body = ProtectionView),
    (status = 403, body = super::error::ErrorBody),
))]
#[get("/api/v1/me/protection")]
pub async fn my_protection(state: web::Data<AppState>, caller: Caller) -> ApiResult<web::Json<ProtectionView>> {
    caller.require(&[Role::Player])?;
    let view = state
        .blocking(move |s| {
            let mut conn = s.db.conn()?;
            protection_of(&mut conn, &caller.user_id)
        })
        .await?;
    Ok(web::Json(view))
}

/// A player's limits, exclusions and totals (pit boss, cashier, auditor): why a deposit or a
/// bet was refused, and until when.
#[utoipa::path(tag = "protection", security(("bearer" = [])),
    params(("player_id" = String, Path, description = "The player's id")),
    responses(
        (status = 200, body = ProtectionView),
        (status = 403, body = super::error::ErrorBody),
        (status = 404, body = super::error::ErrorBody),
))]
#[get("/api/v1/players/{player_id}/protection")]
pub async fn player_protection(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<String>,
) -> ApiResult<web::Json<ProtectionView>> {
    caller.require(&[Role::Pitboss, Role::Cashier, Role::Auditor])?;
    let player_id = path.into_inner();
    let view = state
        .blocking(move |s| {
            let mut conn = s.db.conn()?;
            match crate::users::sessions(&mut conn, &[player_id.as_str()])?.get(&player_id) {
                Some(session) if session.role == Role::Player => {}
                _ => return Err(ApiError::not_found("player")),
            }
            protection_of(&mut conn, &player_id)
        })
        .await?;
    Ok(web::Json(view))
}

#[derive(Deserialize, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct SetLimitRequest {
    /// The limit, a decimal string (`"0"` allows nothing); null removes it. A first or lower
    /// limit is in force at once; a higher one, or a removal, waits 24 hours for confirmation.
    #[schema(value_type = Option<String>, example = "100.00")]
    pub amount: Option<String>,
}

fn limit_path(kind: &str, period: &str) -> Result<(LimitKind, Period), ApiError> {
    match (LimitKind::parse(kind), Period::parse(period)) {
        (Some(k), Some(p)) => Ok((k, p)),
        _ => Err(ApiError::not_found("limit")),
    }
}

/// A limit amount: a plain decimal with at most two places, zero allowed.
fn limit_amount(text: &str) -> Result<i64, ApiError> {
    match Amount::parse(text) {
        Ok(a) => Ok(a.minor()),
        // A well-formed amount that is not positive and not negative is zero.
        Err(AmountError::NotPositive) if !text.starts_with('-') => Ok(0),
        Err(e) => Err(ApiError::unprocessable(
            "invalid_amount",
            format!("amount {text:?}: {e}"),
        )),
    }
}

/// Sets one of the caller's limits (player): on deposits, losses or stakes, over a rolling day
/// (24 hours), week (7 days) or month (30 days). A significant event.
#[utoipa::path(tag = "protection", security(("bearer" = [])),
    params(
        ("kind" = LimitKind, Path, description = "deposit, loss or stake"),
        ("period" = Period, Path, description = "day, week or month"),
    ),
    request_body = SetLimitRequest,
    responses(
        (status = 200, body = LimitView, description = "In force at once, or waiting (`pending`) for its confirmation"),
        (status = 400, body = super::error::ErrorBody),
        (status = 403, body = super::error::ErrorBody),
        (status = 404, body = super::error::ErrorBody),
        (status = 422, body = super::error::ErrorBody),
))]
#[put("/api/v1/me/limits/{kind}/{period}")]
pub async fn set_limit(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<(String, String)>,
    body: web::Json<SetLimitRequest>,
) -> ApiResult<web::Json<LimitView>> {
    caller.require(&[Role::Player])?;
    let (kind, period) = path.into_inner();
    let (kind, period) = limit_path(&kind, &period)?;
    let amount = body.into_inner().amount.as_deref().map(limit_amount).transpose()?;
    let view = state
        .blocking(move |s| {
            Ok(s.db.write(|conn| limits::set(conn, &caller.user_id, kind, period, amount, now_us()))?)
        })
        .await?;
    Ok(web::Json(view))
}

/// Confirms a raise (or a removal) of one of the caller's limits once its 24 hours have passed
/// (player); 409 `cooling_off` before, `nothing_pending` when none waits. A significant event.
#[utoipa::path(tag = "protection", security(("bearer" = [])),
    params(
        ("kind" = LimitKind, Path, description = "deposit, loss or stake"),
        ("period" = Period, Path, description = "day, week or month"),
    ),
    responses(
        (status = 200, body = LimitView),
        (status = 403, body = super::error::ErrorBody),
        (status = 404, body = super::error::ErrorBody),
        (status = 409, body = super::error::ErrorBody),
))]
#[post("/api/v1/me/limits/{kind}/{period}/confirm")]
pub async fn confirm_limit(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<(String, String)>,
) -> ApiResult<web::Json<LimitView>> {
    caller.require(&[Role::Player])?;
    let (kind, period) = path.into_inner();
    let (kind, period) = limit_path(&kind, &period)?;
    let view = state
        .blocking(move |s| {
            Ok(s.db.write(|conn| limits::confirm(conn, &caller.user_id, kind, period, now_us()))?)
        })
        .await?;
    Ok(web::Json(view))
}

#[derive(Deserialize, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct SetSessionLimitRequest {
    /// Minutes a session may run, 10 to 1440; null removes the limit. A first or shorter limit
    /// is in force at once; a longer one, or a removal, waits 24 hours for confirmation.
    #[schema(minimum = 10, maximum = 1440, example = 120)]
    #[serde(default, deserialize_with = "crate::domain::whole::option")]
    pub minutes: Option<u32>,
}

/// Sets how long the caller's sessions may run (player): once a session (play with no pause
/// longer than the floor's session gap) has run this long, every stake is refused until a pause
/// ends it. A significant event.
#[utoipa::path(tag = "protection", security(("bearer" = [])),
    request_body = SetSessionLimitRequest,
    responses(
        (status = 200, body = SessionLimitView, description = "In force at once, or waiting (`pending`) for its confirmation"),
        (status = 400, body = super::error::ErrorBody),
        (status = 403, body = super::error::ErrorBody),
        (status = 422, body = super::error::ErrorBody),
))]
#[put("/api/v1/me/session-limit")]
pub async fn set_session_limit(
    state: web::Data<AppState>,
    caller: Caller,
    body: web::Json<SetSessionLimitRequest>,
) -> ApiResult<web::Json<SessionLimitView>> {
    caller.require(&[Role::Player])?;
    let minutes = body.into_inner().minutes.map(SessionMinutes::parse).transpose()?;
    let view = state
        .blocking(move |s| {
            Ok(s.db.write(|conn| session_limits::set(conn, &caller.user_id, minutes, now_us()))?)
        })
        .await?;
    Ok(web::Json(view))
}

/// Confirms a longer session limit (or its removal) once its 24 hours have passed (player); 409
/// `cooling_off` before, `nothing_pending` when none waits. A significant event.
#[utoipa::path(tag = "protection", security(("bearer" = [])), responses(
    (status = 200, body = SessionLimitView),
    (status = 403, body = super::error::ErrorBody),
    (status = 409, body = super::error::ErrorBody),
))]
#[post("/api/v1/me/session-limit/confirm")]
pub async fn confirm_session_limit(
    state: web::Data<AppState>,
    caller: Caller,
) -> ApiResult<web::Json<SessionLimitView>> {
    caller.require(&[Role::Player])?;
    let view = state
        .blocking(move |s| {
            Ok(s.db.write(|conn| session_limits::confirm(conn, &caller.user_id, now_us()))?)
        })
        .await?;
    Ok(web::Json(view))
}

#[derive(Deserialize, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct TimeOutRequest {
    /// 1 to 42 days.
    #[schema(minimum = 1, maximum = 42)]
    #[serde(deserialize_with = "crate::domain::whole::integer")]
    pub days: u32,
}

/// Takes a time-out (player): no play and no deposit for 1 to 42 days, from now. It cannot be
/// shortened or lifted, by anyone; withdrawals stay open. A significant event.
#[utoipa::path(tag = "protection", security(("bearer" = [])), request_body = TimeOutRequest, responses(
    (status = 201, body = ExclusionView),
    (status = 400, body = super::error::ErrorBody),
    (status = 403, body = super::error::ErrorBody),
    (status = 422, body = super::error::ErrorBody),
))]
#[post("/api/v1/me/time-out")]
pub async fn take_time_out(
    state: web::Data<AppState>,
    caller: Caller,
    body: web::Json<TimeOutRequest>,
) -> ApiResult<HttpResponse> {
    caller.require(&[Role::Player])?;
    let days = body.into_inner().days;
    let view = state
        .blocking(move |s| {
            Ok(s.db.write(|conn| {
                exclusions::take(
                    conn,
                    &caller.user_id,
                    ExclusionKind::TimeOut,
                    Length::Days(days),
                    now_us(),
                )
            })?)
        })
        .await?;
    Ok(HttpResponse::Created().json(view))
}

#[derive(Deserialize, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct SelfExclusionRequest {
    /// 6 to 60 months; leave out with `permanent`.
    #[schema(minimum = 6, maximum = 60)]
    #[serde(default, deserialize_with = "crate::domain::whole::option")]
    pub months: Option<u32>,
    /// True: for good.
    pub permanent: Option<bool>,
}

/// Excludes the caller from play (player): for 6 to 60 months, or for good. It cannot be
/// shortened or lifted, by anyone; withdrawals stay open. A significant event.
#[utoipa::path(tag = "protection", security(("bearer" = [])), request_body = SelfExclusionRequest, responses(
    (status = 201, body = ExclusionView),
    (status = 400, body = super::error::ErrorBody),
    (status = 403, body = super::error::ErrorBody),
    (status = 422, body = super::error::ErrorBody),
))]
#[post("/api/v1/me/self-exclusion")]
pub async fn exclude_self(
    state: web::Data<AppState>,
    caller: Caller,
    body: web::Json<SelfExclusionRequest>,
) -> ApiResult<HttpResponse> {
    caller.require(&[Role::Player])?;
    let length = match body.into_inner() {
        SelfExclusionRequest {
            months: Some(m),
            permanent: None | Some(false),
        } => Length::Months(m),
        SelfExclusionRequest {
            months: None,
            permanent: Some(true),
        } => Length::Permanent,
        _ => {
            return Err(ApiError::unprocessable(
                "invalid_length",
                "give either months (6 to 60) or permanent: true",
            ))
        }
    };
    let view = state
        .blocking(move |s| {
            Ok(s.db.write(|conn| {
                exclusions::take(conn, &caller.user_id, ExclusionKind::SelfExclusion, length, now_us())
            })?)
        })
        .await?;
    Ok(HttpResponse::Created().json(view))
}

impl From<crate::protection::reality_checks::RealityCheckError> for ApiError {
    fn from(e: crate::protection::reality_checks::RealityCheckError) -> ApiError {
        use crate::protection::reality_checks::RealityCheckError as R;
        let message = e.to_string();
        match e {
            R::Interval => ApiError::unprocessable("invalid_interval", message),
            R::Db(d) => ApiError::from(d),
        }
    }
}

#[derive(Deserialize, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct RealityCheckRequest {
    /// Every this many minutes of a session (10 to 240); null turns reality checks off.
    #[schema(minimum = 10, maximum = 240, example = 30)]
    #[serde(default, deserialize_with = "crate::domain::whole::option")]
    pub minutes: Option<u32>,
}

/// Sets how often the player app shows the caller their session (player).
#[utoipa::path(tag = "protection", security(("bearer" = [])), request_body = RealityCheckRequest, responses(
    (status = 200, body = crate::protection::reality_checks::SessionView),
    (status = 400, body = super::error::ErrorBody),
    (status = 403, body = super::error::ErrorBody),
    (status = 422, body = super::error::ErrorBody),
))]
#[put("/api/v1/me/reality-check")]
pub async fn set_reality_check(
    state: web::Data<AppState>,
    caller: Caller,
    body: web::Json<RealityCheckRequest>,
) -> ApiResult<web::Json<crate::protection::reality_checks::SessionView>> {
    caller.require(&[Role::Player])?;
    let minutes = body.into_inner().minutes;
    let view = state
        .blocking(move |s| {
            s.db.write(|conn| {
                crate::protection::reality_checks::set(conn, &caller.user_id, minutes, now_us())?;
                session_of(conn, &caller.user_id)
            })
        })
        .await?;
    Ok(web::Json(view))
}

fn session_of(
    conn: &mut crate::store::AnyConnection,
    player: &str,
) -> Result<crate::protection::reality_checks::SessionView, ApiError> {
    let gap = crate::floor::rating_rule(conn)?.spec().session_gap_minutes;
    Ok(crate::protection::reality_checks::session(conn, player, gap, now_us())?)
}

/// The caller's session so far, as a reality check shows it: time played, staked, won back and
/// net, and when the next check is due (player).
#[utoipa::path(tag = "protection", security(("bearer" = [])), responses(
    (status = 200, body = crate::protection::reality_checks::SessionView),
    (status = 403, body = super::error::ErrorBody),
))]
#[get("/api/v1/me/session")]
pub async fn my_session(
    state: web::Data<AppState>,
    caller: Caller,
) -> ApiResult<web::Json<crate::protection::reality_checks::SessionView>> {
    caller.require(&[Role::Player])?;
    let view = state
        .blocking(move |s| s.db.read(|conn| session_of(conn, &caller.user_id)))
        .await?;
    Ok(web::Json(view))
}
