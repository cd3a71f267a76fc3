//! The auditor's views: significant events, the ledger, its verification and
//! its signed checkpoints.

use actix_web::{get, post, web, HttpResponse};
use serde::Deserialize;
use utoipa::IntoParams;

use super::error::ApiResult;
use super::pagination::Page;
use super::state::AppState;
use crate::auth::Caller;
use crate::checkpoints::verify::AuditVerification;
use crate::checkpoints::{self, CheckpointView, Trigger};
use crate::domain::Role;
use crate::ledger::read::{self, TransferFilter, TransferView, TrialBalance};
use crate::ledger::AccountId;
use crate::rounds::{lobo_contests, peg_leg, Finished};
use crate::significant_events::{self, EventFilter, EventView};

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

/// The significant-events log, newest first (auditor, pit boss), with the
/// usernames of the users each event names.
#[utoipa::path(tag = "audit", security(("bearer" = [])), params(EventsQuery), responses(
    (status = 200, body = Vec<EventView>),
    (status = 403, body = super::error::ErrorBody),
))]
#[get("/api/v1/audit/events")]
pub async fn events(
    state: web::Data<AppState>,
    caller: Caller,
    query: web::Query<EventsQuery>,
) -> ApiResult<HttpResponse> {
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
    let (list, from) = state
        .report(move |_, db| {
            let mut conn = db.conn()?;
            let events = significant_events::list(&mut conn, &filter)?;
            Ok(significant_events::named(&mut conn, events)?)
        })
        .await?;
    Ok(from.mark(HttpResponse::Ok().json(list)))
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
) -> ApiResult<HttpResponse> {
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
    let (list, from) = state
        .report(move |_, db| {
            let mut conn = db.conn()?;
            Ok(read::transfers(&mut conn, &filter)?
                .iter()
                .map(TransferView::from)
                .collect::<Vec<TransferView>>())
        })
        .await?;
    Ok(from.mark(HttpResponse::Ok().json(list)))
}

#[derive(Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
pub struct TranscriptsQuery {
    /// Rounds, Lobo contests and Peg Leg rounds settled or voided from this time (microseconds since the Unix
    /// epoch, inclusive).
    pub from_us: i64,
    /// Until this time (exclusive).
    pub to_us: i64,
    #[param(minimum = 1, maximum = 5000)]
    pub limit: Option<i64>,
    #[param(minimum = 0)]
    pub offset: Option<i64>,
}

/// Most transcripts one export request returns; page on with `offset`.
pub const MAX_EXPORT_ROUNDS: i64 = 5000;

/// The transcripts of every Prima Carta, Lobo and Peg Leg round and Lobo contest
/// settled or voided in a period, oldest first, one JSON document per line
/// (auditor, pit boss): a Prima Carta or Lobo round as its transcript, a Lobo
/// contest as its recall (every entrant's deck and play), a Peg Leg round as its
/// recall (every quote, bet and transfer). The input of `djego verify rounds
/// FILE`. Fewer lines than `limit` means the period is done.
#[utoipa::path(tag = "audit", security(("bearer" = [])), params(TranscriptsQuery), responses(
    (status = 200, content_type = "application/x-ndjson", body = String,
        description = "JSON Lines: one document per line, in the order they ended: a Prima Carta or Lobo round's transcript (docs/transcript.md) without events, a Lobo contest's recall (docs/lobo.md), or a Peg Leg round's recall (docs/peg-leg.md)."),
    (status = 400, body = super::error::ErrorBody),
    (status = 403, body = super::error::ErrorBody),
))]
#[get("/api/v1/audit/transcripts")]
pub async fn transcripts(
    state: web::Data<AppState>,
    caller: Caller,
    query: web::Query<TranscriptsQuery>,
) -> ApiResult<HttpResponse> {
    caller.require(&[Role::Auditor, Role::Pitboss])?;
    let q = query.into_inner();
    let limit = q.limit.unwrap_or(1000);
    if !(1..=MAX_EXPORT_ROUNDS).contains(&limit) {
        return Err(super::error::ApiError::bad_request(
            "invalid_limit",
            format!("limit must be 1 to {MAX_EXPORT_ROUNDS}"),
        ));
    }
    let page = Page::new(Some(1), q.offset)?;
    let viewer = crate::transcript::Viewer::new(&caller.user_id, caller.role);
    let (body, from) = state
        .report(move |s, db| {
            let mut conn = db.conn()?;
            let finished = crate::rounds::finished_between(&mut conn, q.from_us, q.to_us, limit, page.offset)?;
            let mut out = String::new();
            for one in &finished {
                let line = match one {
                    Finished::Round(row) => {
                        serde_json::to_string(&crate::rounds::transcript(&mut conn, &s.vault, row, &viewer, false)?)
                    }
                    Finished::LoboContest(id) => {
                        serde_json::to_string(&lobo_contests::recall(&mut conn, &s.vault, id, &viewer)?)
                    }
                    Finished::PegLeg(id) => serde_json::to_string(&peg_leg::recall(&mut conn, &s.vault, id, &viewer)?),
                };
                out.push_str(&line.map_err(|e| super::error::ApiError::internal(e.to_string()))?);
                out.push('\n');
            }
            Ok(out)
        })
        .await?;
    Ok(from.mark(HttpResponse::Ok().content_type("application/x-ndjson").body(body)))
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

/// Recomputes the hash chain and every balance from the transfers, and the
/// significant-events chain from the events, and checks both against the
/// checkpoints stored in the database; reports the first broken link and
/// every checkpoint that does not match (auditor). Someone who can write the
/// database can also add checkpoints signed with a key of their own: compare
/// `checkpoints.keys` with the published keys, or run `djego verify ledger
/// --checkpoints FILE --public-key HEX` on an exported file.
#[utoipa::path(tag = "audit", security(("bearer" = [])), responses(
    (status = 200, body = AuditVerification),
    (status = 403, body = super::error::ErrorBody),
))]
#[get("/api/v1/audit/ledger/verify")]
pub async fn verify_ledger(state: web::Data<AppState>, caller: Caller) -> ApiResult<web::Json<AuditVerification>> {
    caller.require(&[Role::Auditor])?;
    let report = state
        .blocking(|s| {
            let mut conn = s.db.conn()?;
            let stored = checkpoints::all(&mut conn)?;
            Ok(checkpoints::verify::verify(&mut conn, &stored, "database", &[])?)
        })
        .await?;
    Ok(web::Json(report))
}

#[derive(Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
pub struct CheckpointsQuery {
    #[param(minimum = 1, maximum = 500)]
    pub limit: Option<i64>,
    #[param(minimum = 0)]
    pub offset: Option<i64>,
}

/// Signs the ledger's head and the significant-events chain's head now
/// (auditor, pit boss). The checkpoint is also a significant event.
#[utoipa::path(tag = "audit", security(("bearer" = [])), responses(
    (status = 201, body = CheckpointView),
    (status = 403, body = super::error::ErrorBody),
))]
#[post("/api/v1/audit/checkpoints")]
pub async fn take_checkpoint(state: web::Data<AppState>, caller: Caller) -> ApiResult<HttpResponse> {
    caller.require(&[Role::Auditor, Role::Pitboss])?;
    let actor = caller.user_id.clone();
    let checkpoint = state
        .blocking(move |s| {
            let key = &s.settings.checkpoint_key;
            Ok(s.db.write(|conn| checkpoints::take(conn, key, Some(&actor), Trigger::Request))?)
        })
        .await?;
    Ok(HttpResponse::Created().json(checkpoint.view()))
}

/// The signed checkpoints, oldest first (auditor, pit boss): save them, and
/// later verify the database against them with `djego verify ledger --checkpoints`.
#[utoipa::path(tag = "audit", security(("bearer" = [])), params(CheckpointsQuery), responses(
    (status = 200, body = Vec<CheckpointView>),
    (status = 403, body = super::error::ErrorBody),
))]
#[get("/api/v1/audit/checkpoints")]
pub async fn list_checkpoints(
    state: web::Data<AppState>,
    caller: Caller,
    query: web::Query<CheckpointsQuery>,
) -> ApiResult<web::Json<Vec<CheckpointView>>> {
    caller.require(&[Role::Auditor, Role::Pitboss])?;
    let page = Page::new(query.limit, query.offset)?;
    let list = state
        .blocking(move |s| {
            let mut conn = s.db.conn()?;
            Ok(checkpoints::list(&mut conn, page.limit, page.offset)?)
        })
        .await?;
    Ok(web::Json(list.iter().map(|c| c.view()).collect()))
}
