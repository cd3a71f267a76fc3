//! The cage: money entering and leaving djego, and corrections.

use actix_web::http::StatusCode;
use actix_web::{get, post, web, HttpRequest, HttpResponse};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use super::error::{ApiError, ApiResult};
use super::idempotency::{self, IdempotentRequest};
use super::pagination::Page;
use super::state::AppState;
use crate::approvals::{self, Proposal, ProposalKind};
use crate::auth::{Caller, ClaimedCaller};
use crate::domain::{format_minor, Amount, Role};
use crate::ledger::read::{self, TransferFilter, TransferView};
use crate::ledger::{accounts, post, AccountId, LedgerError, Refs, TransferKind, TransferSpec};
use crate::significant_events::{self, EventKind};
use crate::store::AnyConnection;
use crate::users;
use crate::wagers::{CageReceipt, CashDirection, CashWager, Wager};

#[derive(Deserialize, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CageRequest {
    pub player_id: String,
    #[schema(value_type = super::contract::Amount, example = "100.00")]
    pub amount: Amount,
    /// At most 200 characters, kept with the transfer.
    #[schema(max_length = 200)]
    pub memo: Option<String>,
    /// The cage window or other place the cash changes hands (at most 60 characters), for the
    /// multiple-transaction log.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(max_length = 60, example = "Window 2")]
    pub location: Option<String>,
}

#[derive(Deserialize, Serialize, ToSchema, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum CorrectionDirection {
    /// Adds money to the wallet (from the cage).
    Credit,
    /// Takes money from the wallet (to the cage).
    Debit,
}

#[derive(Deserialize, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CorrectionRequest {
    pub player_id: String,
    #[schema(value_type = super::contract::Amount, example = "5.00")]
    pub amount: Amount,
    pub direction: CorrectionDirection,
    /// Why the correction is made (required; recorded as a significant event).
    #[schema(value_type = super::contract::Reason)]
    pub reason: String,
    /// The earlier gaming day this corrects, "YYYY-MM-DD": the correction
    /// belongs to the present day (a closed day never changes) and names it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<String>, format = Date)]
    pub corrects_gaming_day: Option<String>,
}

impl From<LedgerError> for ApiError {
    fn from(e: LedgerError) -> ApiError {
        match e {
            LedgerError::InsufficientFunds {
                ref account,
                ref balance,
                ref needed,
            } => ApiError::unprocessable("insufficient_funds", e.to_string())
                .with_details(serde_json::json!({ "account": account, "needed": needed, "balance": balance })),
            LedgerError::UnknownAccount(_) => ApiError::not_found("account"),
            LedgerError::SameAccount(_) => ApiError::unprocessable("invalid_transfer", e.to_string()),
            LedgerError::GamingDayClosed { .. } => ApiError::conflict("gaming_day_closed", e.to_string()),
            LedgerError::Db(d) => ApiError::from(d),
        }
    }
}

fn player_wallet(conn: &mut AnyConnection, player_id: &str) -> Result<AccountId, ApiError> {
    let user = users::find(conn, player_id)?.ok_or_else(|| ApiError::not_found("player"))?;
    if user.role() != Role::Player {
        return Err(ApiError::unprocessable("not_a_player", "only players hold wallets"));
    }
    Ok(AccountId::wallet(player_id))
}

fn move_money(conn: &mut AnyConnection, spec: TransferSpec, wallet: &AccountId) -> Result<CageReceipt, ApiError> {
    let posted = post(conn, &[spec])?;
    let balance = accounts::balance_minor(conn, wallet)?;
    Ok(CageReceipt {
        transfer: TransferView::from(&posted[0]),
        balance: format_minor(balance),
    })
}

/// Cash in: the cage credits a player's wallet.
#[utoipa::path(tag = "cage", security(("bearer" = [])), request_body = CageRequest,
    params(super::contract::IdempotencyKeyHeader),
    responses(
        (status = 201, body = CageReceipt),
        (status = 400, body = super::error::ErrorBody),
        (status = 403, body = super::error::ErrorBody),
        (status = 404, body = super::error::ErrorBody),
        (status = 409, body = super::error::ErrorBody),
        (status = 422, body = super::error::ErrorBody, description = "The account is not a player's."),
))]
#[post("/api/v1/cage/deposits")]
pub async fn deposit(
    state: web::Data<AppState>,
    caller: ClaimedCaller,
    req: HttpRequest,
    body: web::Json<CageRequest>,
) -> ApiResult<HttpResponse> {
    cash_movement(state, caller, req, body, CashDirection::Deposit).await
}

/// Cash out: a player's wallet pays the cage (never below zero: 422).
#[utoipa::path(tag = "cage", security(("bearer" = [])), request_body = CageRequest,
    params(super::contract::IdempotencyKeyHeader),
    responses(
        (status = 201, body = CageReceipt),
        (status = 400, body = super::error::ErrorBody),
        (status = 403, body = super::error::ErrorBody),
        (status = 404, body = super::error::ErrorBody),
        (status = 409, body = super::error::ErrorBody),
        (status = 422, body = super::error::ErrorBody, description = "Insufficient funds, or not a player's account."),
))]
#[post("/api/v1/cage/withdrawals")]
pub async fn withdraw(
    state: web::Data<AppState>,
    caller: ClaimedCaller,
    req: HttpRequest,
    body: web::Json<CageRequest>,
) -> ApiResult<HttpResponse> {
    cash_movement(state, caller, req, body, CashDirection::Withdrawal).await
}

/// Most characters in a cash transaction's location.
const MAX_LOCATION_CHARS: usize = 60;

fn check_location(location: &Option<String>) -> Result<(), ApiError> {
    match location {
        Some(l) if l.trim().is_empty() || l.chars().count() > MAX_LOCATION_CHARS || l.chars().any(char::is_control) => {
            Err(ApiError::unprocessable(
                "invalid_location",
                format!("location must be 1 to {MAX_LOCATION_CHARS} characters, none of them control characters"),
            ))
        }
        _ => Ok(()),
    }
}

/// Money in (cage → wallet) or out (wallet → cage), by the cashier, on the
/// wager path (committed in groups).
async fn cash_movement(
    state: web::Data<AppState>,
    caller: ClaimedCaller,
    req: HttpRequest,
    body: web::Json<CageRequest>,
    direction: CashDirection,
) -> ApiResult<HttpResponse> {
    caller.require(&[Role::Cashier])?;
    super::contract::check_memo(&body.memo)?;
    check_location(&body.location)?;
    let idem = IdempotentRequest::from_request(&req, &*body)?;
    let body = body.into_inner();
    let wager = Wager::Cash(CashWager {
        direction,
        cashier_id: caller.user_id.clone(),
        player_id: body.player_id,
        amount: body.amount,
        memo: body.memo,
        location: body.location,
    });
    let committed = idempotency::commit_wager(&state, caller, idem, wager).await?;
    Ok(idempotency::committed_response(&committed))
}

/// A correction of a wallet against the cage, with a required reason.
/// Transfers are immutable: a correction is a new transfer, and a significant event.
/// One above the approval rule's limit (`GET /api/v1/approval-rule`) is only
/// proposed, and made when a pit boss approves it.
#[utoipa::path(tag = "cage", security(("bearer" = [])), request_body = CorrectionRequest,
    params(super::contract::IdempotencyKeyHeader),
    responses(
        (status = 201, body = CageReceipt),
        (status = 202, body = Proposal, description = "Above the approval rule's limit: proposed, pending a pit boss's approval."),
        (status = 400, body = super::error::ErrorBody),
        (status = 403, body = super::error::ErrorBody),
        (status = 404, body = super::error::ErrorBody),
        (status = 409, body = super::error::ErrorBody),
        (status = 422, body = super::error::ErrorBody, description = "Insufficient funds, or not a player's account."),
))]
#[post("/api/v1/cage/corrections")]
pub async fn correction(
    state: web::Data<AppState>,
    caller: Caller,
    req: HttpRequest,
    body: web::Json<CorrectionRequest>,
) -> ApiResult<HttpResponse> {
    caller.require(&[Role::Cashier])?;
    super::contract::check_reason(&body.reason, "a correction")?;
    let idem = IdempotentRequest::from_request(&req, &*body)?;
    let body = body.into_inner();
    super::floor::gaming_day(body.corrects_gaming_day.as_deref())?;
    let cashier = caller.user_id.clone();
    idempotency::run_answer(&state, &caller.user_id, idem, move |conn, key| {
        let rule = approvals::rule(conn)?;
        // One correction at a time reads and adds to the running totals: two at once cannot both
        // fit under a limit that only one fits under.
        crate::store::lock_for_update(conn, &format!("SELECT pg_advisory_xact_lock({CORRECTION_TOTALS_LOCK})"))?;
        if rule.correction_needs_approval(body.amount, corrections_made(conn)?) {
            check_correction(conn, &body)?;
            let proposal = approvals::propose(conn, ProposalKind::Correction, Some(&body.player_id), &body, &cashier)?;
            return Ok((
                StatusCode::ACCEPTED,
                serde_json::to_value(proposal).expect("a proposal serialises"),
            ));
        }
        let receipt = correct(conn, &body, &cashier, key, None)?;
        Ok((
            StatusCode::CREATED,
            serde_json::to_value(receipt).expect("a receipt serialises"),
        ))
    })
    .await
}

/// A correction's checks that do not move money: the day it names is past,
/// the wallet exists. Returns the wallet and the day corrected.
fn check_correction(
    conn: &mut AnyConnection,
    body: &CorrectionRequest,
) -> Result<(AccountId, Option<chrono::NaiveDate>), ApiError> {
    let corrects = super::floor::gaming_day(body.corrects_gaming_day.as_deref())?;
    if let Some(day) = corrects {
        let today = crate::floor::day_or_today(conn, None)?;
        if day >= today {
            return Err(ApiError::unprocessable(
                "invalid_corrected_day",
                format!("a correction names an earlier gaming day than the present one ({today})"),
            ));
        }
    }
    Ok((player_wallet(conn, &body.player_id)?, corrects))
}

/// The PostgreSQL advisory lock that serialises corrections made without approval.
const CORRECTION_TOTALS_LOCK: i64 = 0x646a_6567_6f02;

/// Corrections made without approval so far in the present shift and gaming day (their
/// significant events, which say who approved each; one from before they said counts as made
/// without).
fn corrections_made(conn: &mut AnyConnection) -> Result<approvals::CorrectionTotals, ApiError> {
    use crate::store::schema::significant_events as se;
    use diesel::prelude::*;
    let calendar = crate::floor::calendar(conn)?;
    let here = calendar.place(crate::store::now());
    let (day_start, _) = calendar.day_bounds(here.gaming_day);
    let (shift_start, _) = calendar.shift_bounds(here.gaming_day, here.shift);
    let made: Vec<(i64, String)> = se::table
        .filter(se::kind.eq(EventKind::Correction.as_str()))
        .filter(se::at_us.ge(day_start.timestamp_micros()))
        .select((se::at_us, se::details))
        .load(conn)?;
    let (mut shift, mut day) = (0i64, 0i64);
    for (at_us, details) in made {
        let details: serde_json::Value = serde_json::from_str(&details).unwrap_or_default();
        if details.get("approved_by").is_some_and(|a| !a.is_null()) {
            continue;
        }
        let minor = details["amount"]
            .as_str()
            .and_then(|a| Amount::parse(a).ok())
            .map_or(0, |a| a.minor());
        day = day.saturating_add(minor);
        if at_us >= shift_start.timestamp_micros() {
            shift = shift.saturating_add(minor);
        }
    }
    Ok(approvals::CorrectionTotals {
        shift_minor: shift,
        day_minor: day,
    })
}

/// Makes a correction by `cashier` (at once, or once `approved_by` a pit boss).
pub(super) fn correct(
    conn: &mut AnyConnection,
    body: &CorrectionRequest,
    cashier: &str,
    key: Option<&str>,
    approved_by: Option<&str>,
) -> Result<CageReceipt, ApiError> {
    let reason = super::contract::check_reason(&body.reason, "a correction")?;
    let (wallet, corrects) = check_correction(conn, body)?;
    let (debit, credit) = match body.direction {
        CorrectionDirection::Credit => (AccountId::cage(), wallet.clone()),
        CorrectionDirection::Debit => (wallet.clone(), AccountId::cage()),
    };
    let spec = TransferSpec::new(debit, credit, body.amount, TransferKind::Correction)
        .refs(Refs {
            user_id: Some(body.player_id.clone()),
            ..Refs::default()
        })
        .idempotency_key(key)
        .memo(reason.clone());
    let receipt = move_money(conn, spec, &wallet)?;
    significant_events::record(
        conn,
        EventKind::Correction,
        Some(cashier),
        Some(&body.player_id),
        serde_json::json!({
            "transfer_id": receipt.transfer.id,
            "amount": body.amount.to_string(),
            "direction": if body.direction == CorrectionDirection::Credit { "credit" } else { "debit" },
            "reason": reason,
            "corrects_gaming_day": corrects.map(|d| d.to_string()),
            "approved_by": approved_by,
        }),
    )?;
    Ok(receipt)
}

#[derive(Serialize, ToSchema)]
pub struct Wallet {
    pub player_id: String,
    pub account: String,
    pub balance: String,
}

fn may_read_wallet(caller: &Caller, player_id: &str) -> Result<(), ApiError> {
    caller.require(&[Role::Player, Role::Cashier, Role::Auditor, Role::Pitboss])?;
    if caller.role == Role::Player && caller.user_id != player_id {
        return Err(ApiError::forbidden("players may read only their own wallet"));
    }
    Ok(())
}

/// A wallet's balance: the player's own, or any for cashier, pit boss and auditor.
#[utoipa::path(tag = "wallets", security(("bearer" = [])), responses(
    (status = 200, body = Wallet),
    (status = 403, body = super::error::ErrorBody),
    (status = 404, body = super::error::ErrorBody),
))]
#[get("/api/v1/wallets/{player_id}")]
pub async fn get_wallet(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<String>,
) -> ApiResult<web::Json<Wallet>> {
    let player_id = path.into_inner();
    may_read_wallet(&caller, &player_id)?;
    Ok(web::Json(read_wallet(&state, player_id).await?))
}

async fn read_wallet(state: &AppState, player_id: String) -> ApiResult<Wallet> {
    state
        .blocking(move |s| {
            let mut conn = s.db.conn()?;
            let id = AccountId::wallet(&player_id);
            let row = accounts::find(&mut conn, &id)?.ok_or_else(|| ApiError::not_found("wallet"))?;
            Ok(Wallet {
                player_id,
                account: row.id,
                balance: format_minor(row.balance_minor),
            })
        })
        .await
}

/// The caller's own wallet (player): what `/api/v1/wallets/{player_id}` gives
/// without having to know one's id first.
#[utoipa::path(tag = "wallets", security(("bearer" = [])), responses(
    (status = 200, body = Wallet),
    (status = 403, body = super::error::ErrorBody),
))]
#[get("/api/v1/me/wallet")]
pub async fn my_wallet(state: web::Data<AppState>, caller: Caller) -> ApiResult<web::Json<Wallet>> {
    caller.require(&[Role::Player])?;
    Ok(web::Json(read_wallet(&state, caller.user_id.clone()).await?))
}

#[derive(Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
pub struct HistoryQuery {
    /// At most this many transfers (default 50).
    #[param(minimum = 1, maximum = 500)]
    pub limit: Option<i64>,
    /// Skip this many first.
    #[param(minimum = 0)]
    pub offset: Option<i64>,
}

/// A wallet's transfers, newest first, paged.
#[utoipa::path(tag = "wallets", security(("bearer" = [])), params(HistoryQuery), responses(
    (status = 200, body = Vec<TransferView>),
    (status = 403, body = super::error::ErrorBody),
))]
#[get("/api/v1/wallets/{player_id}/transactions")]
pub async fn wallet_history(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<String>,
    query: web::Query<HistoryQuery>,
) -> ApiResult<web::Json<Vec<TransferView>>> {
    let player_id = path.into_inner();
    may_read_wallet(&caller, &player_id)?;
    let page = Page::new(query.limit, query.offset)?;
    let list = state
        .blocking(move |s| {
            let mut conn = s.db.conn()?;
            let filter = TransferFilter {
                account: Some(AccountId::wallet(&player_id)),
                round_id: None,
                from_us: None,
                to_us: None,
                limit: page.limit,
                offset: page.offset,
                newest_first: true,
            };
            Ok(read::transfers(&mut conn, &filter)?
                .iter()
                .map(TransferView::from)
                .collect())
        })
        .await?;
    Ok(web::Json(list))
}
