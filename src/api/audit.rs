//! The auditor's read-only views: significant events and the ledger.

use actix_web::{get, web};
use serde::Deserialize;
use utoipa::IntoParams;

use super::error::ApiResult;
use super::pagination::Page;
use super::state::AppState;
use crate::auth::Caller;
use crate::domain::Role;
use crate::ledger::read::{self, TransferFilter, TransferView, TrialBalance};
use crate::ledger::verify::{self, LedgerVerification};
use crate::ledger::AccountId;
use crate::significant_events::{self, EventFilter, SignificantEvent};

#[derive(Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
pub struct EventsQuery {
    /// Only events of this kind (e.g. `login_failed`, `correction`).
    pub kind: Option<String>,
    /// From this time (microseconds since the Unix epoch, inclusive).
    pub from_us: Option<i64>,
    /// Until this time (exclusive).
    pub to_us: Option<i64>,
    #[param(minimum = 1, maximum = 500)]
    pub limit: Option<i64>,
    #[param(minimum = 0)]
    pub offset: Option<i64>,
}

/// The significant-events log, newest first (auditor, pit boss).
#[utoipa::path(tag = "audit", security(("bearer" = [])), params(EventsQuery), responses(
    (status = 200, body = Vec<SignificantEvent>),
    (status = 403, body = super::error::ErrorBody),
))]
#[get("/api/v1/audit/events")]
pub async fn events(
    state: web::Data<AppState>,
    caller: Caller,
    query: web::Query<EventsQuery>,
) -> ApiResult<web::Json<Vec<SignificantEvent>>> {
    caller.require(&[Role::Auditor, Role::Pitboss])?;
    let q = query.into_inner();
    let page = Page::new(q.limit, q.offset)?;
    let filter = EventFilter {
        kind: q.kind,
        from_us: q.from_us,
        to_us: q.to_us,
        limit: page.limit,
        offset: page.offset,
    };
    let list = state
        .blocking(move |s| {
            let mut conn = s.db.conn()?;
            Ok(significant_events::list(&mut conn, &filter)?)
        })
        .await?;
    Ok(web::Json(list))
}

#[derive(Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
pub struct LedgerQuery {
    /// Only transfers into or out of this account (e.g. `wallet:<id>`, `house:bankroll`).
    pub account: Option<String>,
    pub round_id: Option<String>,
    pub from_us: Option<i64>,
    pub to_us: Option<i64>,
    #[param(minimum = 1, maximum = 500)]
    pub limit: Option<i64>,
    #[param(minimum = 0)]
    pub offset: Option<i64>,
}

/// Ledger transfers in chain order, by time range, account or round (auditor).
#[utoipa::path(tag = "audit", security(("bearer" = [])), params(LedgerQuery), responses(
    (status = 200, body = Vec<TransferView>),
    (status = 403, body = super::error::ErrorBody),
))]
#[get("/api/v1/audit/ledger")]
pub async fn ledger(
    state: web::Data<AppState>,
    caller: Caller,
    query: web::Query<LedgerQuery>,
) -> ApiResult<web::Json<Vec<TransferView>>> {
    caller.require(&[Role::Auditor])?;
    let q = query.into_inner();
    let page = Page::new(q.limit, q.offset)?;
    let filter = TransferFilter {
        account: q.account.map(AccountId::from_stored),
        round_id: q.round_id,
        from_us: q.from_us,
        to_us: q.to_us,
        limit: page.limit,
        offset: page.offset,
        newest_first: false,
    };
    let list = state
        .blocking(move |s| {
            let mut conn = s.db.conn()?;
            Ok(read::transfers(&mut conn, &filter)?
                .iter()
                .map(TransferView::from)
                .collect())
        })
        .await?;
    Ok(web::Json(list))
}

/// Every account's balance and their sum, which must be zero (auditor).
#[utoipa::path(tag = "audit", security(("bearer" = [])), responses(
    (status = 200, body = TrialBalance),
    (status = 403, body = super::error::ErrorBody),
))]
#[get("/api/v1/audit/ledger/trial-balance")]
pub async fn trial_balance(state: web::Data<AppState>, caller: Caller) -> ApiResult<web::Json<TrialBalance>> {
    caller.require(&[Role::Auditor])?;
    let tb = state
        .blocking(|s| {
            let mut conn = s.db.conn()?;
            Ok(read::trial_balance(&mut conn)?)
        })
        .await?;
    Ok(web::Json(tb))
}

/// Recomputes the hash chain and every balance from the transfers and
/// reports the first broken link, if any (auditor).
#[utoipa::path(tag = "audit", security(("bearer" = [])), responses(
    (status = 200, body = LedgerVerification),
    (status = 403, body = super::error::ErrorBody),
))]
#[get("/api/v1/audit/ledger/verify")]
pub async fn verify_ledger(state: web::Data<AppState>, caller: Caller) -> ApiResult<web::Json<LedgerVerification>> {
    caller.require(&[Role::Auditor])?;
    let report = state
        .blocking(|s| {
            let mut conn = s.db.conn()?;
            Ok(verify::verify(&mut conn)?)
        })
        .await?;
    Ok(web::Json(report))
}
