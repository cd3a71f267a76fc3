//! Two-person control over HTTP (docs/floor.md, "Two-person control"): the
//! proposals that changes of the house's edge or money become, their
//! approval by a second pit boss (which applies the change) or rejection, and
//! the approval rule.

use actix_web::http::StatusCode;
use actix_web::{get, post, put, web, HttpRequest, HttpResponse};
use serde::Deserialize;
use utoipa::IntoParams;

use super::error::{ApiError, ApiResult};
use super::idempotency::{self, IdempotentRequest};
use super::state::AppState;
use crate::approvals::{self, ApprovalError, ApprovalRule, Proposal, ProposalKind, ProposalStatus};
use crate::auth::Caller;
use crate::domain::Role;
use crate::settings::SettingError;
use crate::store::AnyConnection;

impl From<ApprovalError> for ApiError {
    fn from(e: ApprovalError) -> ApiError {
        let message = e.to_string();
        match e {
            ApprovalError::NotFound => ApiError::not_found("proposal"),
            ApprovalError::Expired(_) => ApiError::conflict("proposal_expired", message),
            ApprovalError::NotPending(_) => ApiError::conflict("proposal_decided", message),
            ApprovalError::SamePerson | ApprovalError::Related(_) | ApprovalError::TooNew { .. } => {
                ApiError::forbidden(message)
            }
            ApprovalError::Stale => ApiError::conflict("proposal_stale", message),
            ApprovalError::InvalidRule(_) => ApiError::unprocessable("invalid_approval_rule", message),
            ApprovalError::Setting(SettingError::Stored(..)) | ApprovalError::StoredProposal(..) => {
                ApiError::internal(message)
            }
            ApprovalError::Setting(SettingError::Database(d)) => d.into(),
            ApprovalError::Db(d) => d.into(),
        }
    }
}

fn stored_request<T: serde::de::DeserializeOwned>(proposal: &Proposal) -> Result<T, ApiError> {
    serde_json::from_value(proposal.request.clone())
        .map_err(|e| ApiError::internal(format!("proposal {}: its request does not read: {e}", proposal.id)))
}

fn kept_password_hash(conn: &mut AnyConnection, proposal: &Proposal) -> Result<String, ApiError> {
    approvals::password_hash(conn, &proposal.id)?
        .ok_or_else(|| ApiError::internal(format!("proposal {} keeps no password", proposal.id)))
}

/// Applies an approved proposal's change, as the endpoint that proposed it
/// would have, and returns its answer.
fn apply(conn: &mut AnyConnection, proposal: &Proposal, approver_id: &str) -> Result<serde_json::Value, ApiError> {
    let subject = proposal.subject.as_deref().unwrap_or_default();
    let value = match proposal.kind {
        ProposalKind::InstallPayTable => serde_json::to_value(super::tables::install(
            conn,
            subject,
            &stored_request(proposal)?,
            approver_id,
        )?),
        ProposalKind::ChangeTableOptions => serde_json::to_value(super::tables::reconfigure(
            conn,
            subject,
            &stored_request(proposal)?,
            approver_id,
        )?),
        ProposalKind::CreateTable => serde_json::to_value(super::tables::create(
            conn,
            &stored_request(proposal)?,
            &proposal.proposed_by,
        )?),
        // The correction is the cashier's who proposed it.
        ProposalKind::Correction => serde_json::to_value(super::cage::correct(
            conn,
            &stored_request(proposal)?,
            &proposal.proposed_by,
            None,
            Some(approver_id),
        )?),
        ProposalKind::ChangeApprovalRule => {
            let rule: ApprovalRule = stored_request(proposal)?;
            approvals::set_rule(conn, approver_id, &rule)?;
            serde_json::to_value(rule)
        }
        // An account's making is its proposer's: the approver vouches for it, and so stays free
        // to approve what the account proposes later (docs/floor.md, "Who may approve").
        ProposalKind::CreateStaffAccount => {
            let hash = kept_password_hash(conn, proposal)?;
            serde_json::to_value(super::users::create_proposed_account(
                conn,
                &stored_request(proposal)?,
                &hash,
                &proposal.proposed_by,
            )?)
        }
        ProposalKind::ChangeStaffAccount => serde_json::to_value(super::users::update_account(
            conn,
            &proposal.proposed_by,
            subject,
            &stored_request(proposal)?,
        )?),
        ProposalKind::ResetStaffPassword => {
            let hash = kept_password_hash(conn, proposal)?;
            super::users::reset_to(conn, &proposal.proposed_by, subject, &hash)?;
            Ok(serde_json::json!({ "user_id": subject }))
        }
        ProposalKind::ChangeCalendar => serde_json::to_value(super::floor::apply_calendar(
            conn,
            &stored_request(proposal)?,
            approver_id,
        )?),
        ProposalKind::ChangeComplianceRules => serde_json::to_value(super::compliance::apply_rules(
            conn,
            &stored_request(proposal)?,
            approver_id,
        )?),
    };
    value.map_err(|e| ApiError::internal(e.to_string()))
}

#[derive(Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
pub struct ProposalsQuery {
    /// Only proposals in this state.
    #[param(inline, value_type = Option<ProposalStatus>)]
    pub status: Option<ProposalStatus>,
    /// At most this many (default 50).
    #[param(minimum = 1, maximum = 500)]
    pub limit: Option<i64>,
    /// Skip this many first.
    #[param(minimum = 0)]
    pub offset: Option<i64>,
}

/// Proposals, newest first (pit boss, auditor).
#[utoipa::path(tag = "approvals", security(("bearer" = [])), params(ProposalsQuery), responses(
    (status = 200, body = Vec<Proposal>),
    (status = 400, body = super::error::ErrorBody),
    (status = 403, body = super::error::ErrorBody),
))]
#[get("/api/v1/proposals")]
pub async fn list_proposals(
    state: web::Data<AppState>,
    caller: Caller,
    query: web::Query<ProposalsQuery>,
) -> ApiResult<web::Json<Vec<Proposal>>> {
    caller.require(&[Role::Pitboss, Role::Auditor])?;
    let q = query.into_inner();
    let page = super::pagination::Page::new(q.limit, q.offset)?;
    let list = state
        .blocking(move |s| {
            s.db.read(|conn| Ok::<_, ApiError>(approvals::list(conn, q.status, page.limit, page.offset)?))
        })
        .await?;
    Ok(web::Json(list))
}

/// One proposal (pit boss, auditor, or whoever proposed it).
#[utoipa::path(tag = "approvals", security(("bearer" = [])), responses(
    (status = 200, body = Proposal),
    (status = 403, body = super::error::ErrorBody),
    (status = 404, body = super::error::ErrorBody),
))]
#[get("/api/v1/proposals/{proposal_id}")]
pub async fn get_proposal(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<String>,
) -> ApiResult<web::Json<Proposal>> {
    let id = path.into_inner();
    let proposal = state
        .blocking(move |s| s.db.read(|conn| Ok::<_, ApiError>(approvals::find(conn, &id)?)))
        .await?;
    if proposal.proposed_by != caller.user_id {
        caller.require(&[Role::Pitboss, Role::Auditor])?;
    }
    Ok(web::Json(proposal))
}

/// Approves a pending proposal (a pit boss other than its proposer) and
/// applies its change in the same transaction; the change's answer is the
/// proposal's `result`. Refused when it expired, was decided, or the change
/// no longer applies (the change's own error: a table opened meanwhile…).
#[utoipa::path(tag = "approvals", security(("bearer" = [])),
    params(super::contract::IdempotencyKeyHeader),
    responses(
    (status = 200, body = Proposal),
    (status = 403, body = super::error::ErrorBody, description = "Not a pit boss, or the proposal's own proposer."),
    (status = 404, body = super::error::ErrorBody),
    (status = 409, body = super::error::ErrorBody, description = "proposal_expired, proposal_decided, proposal_stale (what it changes has changed since it was proposed), or the change's own conflict."),
    (status = 422, body = super::error::ErrorBody, description = "The change no longer applies."),
))]
#[post("/api/v1/proposals/{proposal_id}/approve")]
pub async fn approve(
    state: web::Data<AppState>,
    caller: Caller,
    http: HttpRequest,
    path: web::Path<String>,
) -> ApiResult<HttpResponse> {
    caller.require(&[Role::Pitboss])?;
    let idem = IdempotentRequest::from_request(&http, &())?;
    let id = path.into_inner();
    let caller_id = caller.user_id.clone();
    idempotency::run(&state, &caller_id, idem, StatusCode::OK, move |conn, _key| {
        let proposal = approvals::approving(conn, &id, &caller.user_id)?;
        let result = apply(conn, &proposal, &caller.user_id)?;
        Ok(approvals::applied(conn, &proposal, &caller.user_id, &result)?)
    })
    .await
}

/// Rejects a pending proposal: a pit boss refuses it, or its proposer withdraws it.
#[utoipa::path(tag = "approvals", security(("bearer" = [])),
    params(super::contract::IdempotencyKeyHeader),
    responses(
    (status = 200, body = Proposal),
    (status = 403, body = super::error::ErrorBody),
    (status = 404, body = super::error::ErrorBody),
    (status = 409, body = super::error::ErrorBody, description = "proposal_expired or proposal_decided."),
))]
#[post("/api/v1/proposals/{proposal_id}/reject")]
pub async fn reject(
    state: web::Data<AppState>,
    caller: Caller,
    http: HttpRequest,
    path: web::Path<String>,
) -> ApiResult<HttpResponse> {
    let idem = IdempotentRequest::from_request(&http, &())?;
    let id = path.into_inner();
    let caller_id = caller.user_id.clone();
    idempotency::run(&state, &caller_id, idem, StatusCode::OK, move |conn, _key| {
        let proposal = approvals::find(conn, &id)?;
        if proposal.proposed_by != caller.user_id {
            caller.require(&[Role::Pitboss])?;
        }
        Ok(approvals::reject(conn, &id, &caller.user_id)?)
    })
    .await
}

/// The approval rule in force (staff): corrections above `correction_limit`
/// wait for a pit boss's approval; proposals expire after `expires_after_minutes`.
/// Until changed: 100.00 and 60 minutes.
#[utoipa::path(tag = "approvals", security(("bearer" = [])), responses(
    (status = 200, body = ApprovalRule),
    (status = 403, body = super::error::ErrorBody),
))]
#[get("/api/v1/approval-rule")]
pub async fn get_rule(state: web::Data<AppState>, caller: Caller) -> ApiResult<web::Json<ApprovalRule>> {
    caller.require(&[Role::Pitboss, Role::Auditor, Role::Cashier, Role::Dealer])?;
    let rule = state
        .blocking(|s| s.db.read(|conn| Ok::<_, ApiError>(approvals::rule(conn)?)))
        .await?;
    Ok(web::Json(rule))
}

/// Proposes a new approval rule (pit boss): it applies when a second pit boss approves.
#[utoipa::path(tag = "approvals", security(("bearer" = [])), request_body = ApprovalRule,
    params(super::contract::IdempotencyKeyHeader),
    responses(
    (status = 202, body = Proposal, description = "Proposed: pending a second pit boss's approval."),
    (status = 400, body = super::error::ErrorBody),
    (status = 403, body = super::error::ErrorBody),
    (status = 422, body = super::error::ErrorBody),
))]
#[put("/api/v1/approval-rule")]
pub async fn propose_rule(
    state: web::Data<AppState>,
    caller: Caller,
    http: HttpRequest,
    body: web::Json<ApprovalRule>,
) -> ApiResult<HttpResponse> {
    caller.require(&[Role::Pitboss])?;
    let idem = IdempotentRequest::from_request(&http, &*body)?;
    let rule = body.into_inner();
    rule.check()?;
    let caller_id = caller.user_id.clone();
    idempotency::run(&state, &caller_id, idem, StatusCode::ACCEPTED, move |conn, _key| {
        Ok(approvals::propose(
            conn,
            ProposalKind::ChangeApprovalRule,
            None,
            &rule,
            &caller.user_id,
        )?)
    })
    .await
}
