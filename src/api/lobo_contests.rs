//! Three-round Lobo contests over HTTP (docs/lobo.md §9): create, enter, close entry, play,
//! fold, settle, void, recall. The logic is in `crate::rounds::lobo_contests`.

use std::sync::{Arc, OnceLock};

use actix_web::http::StatusCode;
use actix_web::{get, post, web, HttpRequest, HttpResponse};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::error::{ApiError, ApiResult, ErrorBody};
use super::idempotency::{self, IdempotentRequest};
use super::lobo::{LoboFoldRequest, LoboPlayRequest};
use super::state::AppState;
use crate::auth::Caller;
use crate::cards::shuffle::ClientSeed;
use crate::domain::Role;
use crate::games::lobo::Play;
use crate::rounds::lobo::LoboPlay;
use crate::rounds::lobo_contests::{self as service, ContestError, ContestOptions, ContestRecall, ContestView};
use crate::store::AnyConnection;
use crate::tables;
use crate::transcript::Viewer;

impl From<ContestError> for ApiError {
    fn from(e: ContestError) -> ApiError {
        use ContestError as C;
        let message = e.to_string();
        match e {
            C::ContestNotFound => ApiError::not_found("Lobo contest"),
            C::Protection(refusal) => ApiError::from(refusal),
            C::TableNotFound => ApiError::not_found("table"),
            C::WrongGame => ApiError::unprocessable("wrong_game", message),
            C::TableClosed => ApiError::conflict("table_closed", message),
            C::BadOption(_) => ApiError::unprocessable("invalid_contest_option", message),
            C::EntryClosed => ApiError::conflict("entry_closed", message),
            C::AlreadyEntered => ApiError::conflict("already_entered", message),
            C::InsufficientFunds { fee, balance } => ApiError::unprocessable("insufficient_funds", message)
                .with_details(serde_json::json!({ "needed": fee, "balance": balance })),
            C::NoWallet => ApiError::unprocessable("no_wallet", message),
            C::NotEntered => ApiError::forbidden(message),
            C::WrongState { .. } => ApiError::conflict("wrong_contest_state", message),
            C::PlayOver => ApiError::conflict("play_over", message),
            C::PlayTimeOver => ApiError::conflict("play_time_over", message),
            C::StalePlay { .. } => ApiError::conflict("stale_play", message),
            C::IllegalPlay(_) => ApiError::unprocessable("illegal_play", message),
            C::PlayTimeLeft { closes_at_us } => ApiError::conflict("play_time_left", message)
                .with_details(serde_json::json!({ "play_closes_at_us": closes_at_us })),
            C::NotOver => ApiError::conflict("wrong_contest_state", message),
            C::Changed => ApiError::conflict("contest_changed", message),
            C::Ledger(l) => ApiError::from(l),
            C::Store(q) => ApiError::from(q),
            C::Database(d) => ApiError::from(d),
            C::Corrupt(m) => {
                tracing::error!(error = %m, "a stored Lobo contest does not read back");
                ApiError::internal(m)
            }
        }
    }
}

#[derive(Deserialize, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct EnterContest {
    /// Optional, 1 to 64 printable ASCII characters. When entry closes, every entrant's seed
    /// is combined (sorted, joined by newlines, SHA-256) into the client seed of every entrant's deck.
    #[schema(min_length = 1, max_length = 64, pattern = r"^[ -~]*$")]
    pub client_seed: Option<String>,
}

/// Tells this instance's watchers of the table (`lobo_contest`).
pub fn publish_locally(state: &AppState, view: &ContestView) {
    state.live.publish(&view.table_id, "lobo_contest", view);
}

/// [`publish`] for a change made outside a request (an entry window or play time run out).
pub(super) fn tell_watchers(state: &AppState, view: &ContestView) {
    publish_locally(state, view);
    super::live_relay::announce_now(state, &view.table_id, Some(&view.id));
}

/// Tells the table's watchers (here and, on PostgreSQL, on every instance) how the contest
/// stands after a change that succeeded.
async fn publish(
    state: &web::Data<AppState>,
    response: ApiResult<HttpResponse>,
    contest_id: String,
) -> ApiResult<HttpResponse> {
    let response = response?;
    if response.status().is_success() {
        let view = state
            .blocking(move |s| {
                let mut conn = s.db.conn()?;
                let row = service::find(&mut conn, &contest_id)?;
                Ok(service::watcher_view(&mut conn, &s.vault, &row)?)
            })
            .await;
        if let Ok(view) = view {
            publish_locally(state, &view);
            super::live_relay::announce(state, &view.table_id, Some(&view.id));
        }
    }
    Ok(response)
}

/// The roles that may see a contest: every role (a player to decide whether to enter; the cage
/// to answer a player about an entry fee). A view shows no entrant's cards, plays or totals
/// before the contest is over.
const READERS: [Role; 5] = [Role::Player, Role::Dealer, Role::Cashier, Role::Pitboss, Role::Auditor];

fn view_for(
    conn: &mut AnyConnection,
    s: &AppState,
    row: &service::ContestRow,
    caller: &Caller,
) -> Result<ContestView, ApiError> {
    let entries = service::entries(conn, &row.id)?;
    Ok(service::view(
        &s.vault,
        row,
        &entries,
        &Viewer::new(&caller.user_id, caller.role),
    )?)
}

/// Creates a three-round contest at an open Lobo table (pit boss): its decks are committed at
/// once (`commitment`), before anyone enters. A significant event.
#[utoipa::path(tag = "lobo contests", security(("bearer" = [])), request_body = ContestOptions,
    params(("id" = String, Path, description = "Table id"),
           super::contract::IdempotencyKeyHeader),
    responses(
        (status = 201, body = ContestView),
        (status = 400, body = ErrorBody),
        (status = 403, body = ErrorBody),
        (status = 404, body = ErrorBody),
        (status = 409, body = ErrorBody, description = "the table is closed"),
        (status = 422, body = ErrorBody, description = "not a Lobo table, or options that do not fit together"),
))]
#[post("/api/v1/tables/{id}/lobo-contests")]
pub async fn create_contest(
    state: web::Data<AppState>,
    caller: Caller,
    req: HttpRequest,
    path: web::Path<String>,
    body: web::Json<ContestOptions>,
) -> ApiResult<HttpResponse> {
    caller.require(&[Role::Pitboss])?;
    let idem = IdempotentRequest::from_request(&req, &*body)?;
    let options = body.into_inner();
    let table_id = path.into_inner();
    let s = state.get_ref().clone();
    // The id of the contest this request made (none when a retry replays the first answer,
    // which changed nothing to tell).
    let created = Arc::new(OnceLock::new());
    let made = Arc::clone(&created);
    let response = idempotency::run(
        &state,
        &caller.user_id.clone(),
        idem,
        StatusCode::CREATED,
        move |conn, _key| {
            let table = tables::find(conn, &table_id)?.ok_or_else(|| ApiError::not_found("table"))?;
            let row = service::create(conn, &s.vault, &table, &caller.user_id, options)?;
            let _ = made.set(row.id.clone());
            view_for(conn, &s, &row, &caller)
        },
    )
    .await;
    match created.get() {
        Some(id) => publish(&state, response, id.clone()).await,
        None => response,
    }
}

/// A Lobo table's contests, newest first (at most 50), as the caller may see them (any role).
#[utoipa::path(tag = "lobo contests", security(("bearer" = [])),
    params(("id" = String, Path, description = "Table id")),
    responses(
        (status = 200, body = Vec<ContestView>),
        (status = 403, body = ErrorBody),
        (status = 404, body = ErrorBody),
))]
#[get("/api/v1/tables/{id}/lobo-contests")]
pub async fn list_contests(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<String>,
) -> ApiResult<web::Json<Vec<ContestView>>> {
    caller.require(&READERS)?;
    let table_id = path.into_inner();
    let views = state
        .blocking(move |s| {
            let mut conn = s.db.conn()?;
            tables::find(&mut conn, &table_id)?.ok_or_else(|| ApiError::not_found("table"))?;
            service::for_table(&mut conn, &table_id, 50)?
                .iter()
                .map(|row| view_for(&mut conn, s, row, &caller))
                .collect::<Result<Vec<_>, _>>()
        })
        .await?;
    Ok(web::Json(views))
}

/// A contest as the caller may see it (any role): its terms and commitment, and a player's own entry
/// (never another entrant's play, never a face-down card) until it is over.
#[utoipa::path(tag = "lobo contests", security(("bearer" = [])),
    params(("id" = String, Path, description = "Contest id")),
    responses(
        (status = 200, body = ContestView),
        (status = 403, body = ErrorBody),
        (status = 404, body = ErrorBody),
))]
#[get("/api/v1/lobo-contests/{id}")]
pub async fn get_contest(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<String>,
) -> ApiResult<web::Json<ContestView>> {
    caller.require(&READERS)?;
    let contest_id = path.into_inner();
    let view = state
        .blocking(move |s| {
            let mut conn = s.db.conn()?;
            let row = service::find(&mut conn, &contest_id)?;
            view_for(&mut conn, s, &row, &caller)
        })
        .await?;
    Ok(web::Json(view))
}

/// Enters a contest (player): the entry fee moves from the wallet to the contest's pot.
/// Entry closes at once when this entry fills the contest.
#[utoipa::path(tag = "lobo contests", security(("bearer" = [])), request_body = EnterContest,
    params(("id" = String, Path, description = "Contest id"),
           super::contract::IdempotencyKeyHeader),
    responses(
        (status = 201, body = ContestView),
        (status = 400, body = ErrorBody),
        (status = 403, body = ErrorBody),
        (status = 404, body = ErrorBody),
        (status = 409, body = ErrorBody, description = "entry closed, by the pit boss, the window's end or the last seat taken (`entry_closed`), or already entered (`already_entered`)"),
        (status = 422, body = ErrorBody, description = "insufficient funds: nothing moves"),
))]
#[post("/api/v1/lobo-contests/{id}/entries")]
pub async fn enter(
    state: web::Data<AppState>,
    caller: Caller,
    req: HttpRequest,
    path: web::Path<String>,
    body: web::Json<EnterContest>,
) -> ApiResult<HttpResponse> {
    caller.require(&[Role::Player])?;
    let client_seed = match &body.client_seed {
        None => None,
        Some(text) => {
            Some(ClientSeed::parse(text).map_err(|e| ApiError::bad_request("invalid_client_seed", e.to_string()))?)
        }
    };
    let idem = IdempotentRequest::from_request(&req, &*body)?;
    let contest_id = path.into_inner();
    let s = state.get_ref().clone();
    let published = contest_id.clone();
    let response = idempotency::run(
        &state,
        &caller.user_id.clone(),
        idem,
        StatusCode::CREATED,
        move |conn, key| {
            let row = service::enter(conn, &s.vault, &contest_id, &caller.user_id, client_seed.as_ref(), key)?;
            view_for(conn, &s, &row, &caller)
        },
    )
    .await;
    publish(&state, response, published).await
}

/// Closes entry (pit boss): the entrants' seeds are combined and every entrant's deck fixed,
/// and play begins; with fewer entrants than `min_players` the contest is voided and every
/// entry refunded.
#[utoipa::path(tag = "lobo contests", security(("bearer" = [])),
    params(("id" = String, Path, description = "Contest id"),
           super::contract::IdempotencyKeyHeader),
    responses(
        (status = 200, body = ContestView),
        (status = 403, body = ErrorBody),
        (status = 404, body = ErrorBody),
        (status = 409, body = ErrorBody, description = "entry is no longer open"),
))]
#[post("/api/v1/lobo-contests/{id}/close")]
pub async fn close_entry(
    state: web::Data<AppState>,
    caller: Caller,
    req: HttpRequest,
    path: web::Path<String>,
) -> ApiResult<HttpResponse> {
    caller.require(&[Role::Pitboss])?;
    let idem = IdempotentRequest::from_request(&req, &())?;
    let contest_id = path.into_inner();
    let s = state.get_ref().clone();
    let published = contest_id.clone();
    let response = idempotency::run(
        &state,
        &caller.user_id.clone(),
        idem,
        StatusCode::OK,
        move |conn, _key| {
            let row = service::close(conn, &s.vault, &contest_id, Some(&caller.user_id))?;
            view_for(conn, &s, &row, &caller)
        },
    )
    .await;
    publish(&state, response, published).await
}

/// Makes a play in the caller's round in play, by card ids. 422 with the engine's reason when
/// illegal; 409 when `expected_plays` is not the number of plays made in all rounds. The play
/// that ends the last entrant's rounds settles the contest.
#[utoipa::path(operation_id = "lobo_contest_make_play", tag = "lobo contests", security(("bearer" = [])), request_body = LoboPlayRequest,
    params(("id" = String, Path, description = "Contest id"),
           super::contract::IdempotencyKeyHeader),
    responses(
        (status = 200, body = ContestView),
        (status = 400, body = ErrorBody),
        (status = 403, body = ErrorBody, description = "not an entrant"),
        (status = 404, body = ErrorBody),
        (status = 409, body = ErrorBody),
        (status = 422, body = ErrorBody),
))]
#[post("/api/v1/lobo-contests/{id}/plays")]
pub async fn make_play(
    state: web::Data<AppState>,
    caller: Caller,
    req: HttpRequest,
    path: web::Path<String>,
    body: web::Json<LoboPlayRequest>,
) -> ApiResult<HttpResponse> {
    caller.require(&[Role::Player])?;
    let idem = IdempotentRequest::from_request(&req, &*body)?;
    let body = body.into_inner();
    let play = LoboPlay {
        kind: body.kind,
        player_cards: body.player_cards,
        wolf_cards: body.wolf_cards,
    };
    run_play(state, caller, idem, path.into_inner(), play, body.expected_plays).await
}

/// Folds the caller's round in play: the Wolf's points count against the total, and the next
/// round (if any) is dealt.
#[utoipa::path(operation_id = "lobo_contest_fold", tag = "lobo contests", security(("bearer" = [])), request_body = LoboFoldRequest,
    params(("id" = String, Path, description = "Contest id"),
           super::contract::IdempotencyKeyHeader),
    responses(
        (status = 200, body = ContestView),
        (status = 400, body = ErrorBody),
        (status = 403, body = ErrorBody, description = "not an entrant"),
        (status = 404, body = ErrorBody),
        (status = 409, body = ErrorBody),
))]
#[post("/api/v1/lobo-contests/{id}/fold")]
pub async fn fold(
    state: web::Data<AppState>,
    caller: Caller,
    req: HttpRequest,
    path: web::Path<String>,
    body: web::Json<LoboFoldRequest>,
) -> ApiResult<HttpResponse> {
    caller.require(&[Role::Player])?;
    let idem = IdempotentRequest::from_request(&req, &*body)?;
    let play = LoboPlay::from(&Play::fold());
    run_play(state, caller, idem, path.into_inner(), play, body.expected_plays).await
}

async fn run_play(
    state: web::Data<AppState>,
    caller: Caller,
    idem: IdempotentRequest,
    contest_id: String,
    play: LoboPlay,
    expected_plays: u32,
) -> ApiResult<HttpResponse> {
    let s = state.get_ref().clone();
    let published = contest_id.clone();
    let response = idempotency::run(
        &state,
        &caller.user_id.clone(),
        idem,
        StatusCode::OK,
        move |conn, _key| {
            let row = service::make_play(
                conn,
                &s.vault,
                &contest_id,
                &caller.user_id,
                &play,
                expected_plays as usize,
            )?;
            view_for(conn, &s, &row, &caller)
        },
    )
    .await;
    publish(&state, response, published).await
}

/// Settles a contest whose play time has run out (pit boss): the rounds of anyone still
/// playing are folded, then the pot less the rake goes to the best total. 409 `play_time_left`
/// before then (a contest settles by itself when its last entrant finishes).
#[utoipa::path(operation_id = "lobo_contest_settle", tag = "lobo contests", security(("bearer" = [])),
    params(("id" = String, Path, description = "Contest id"),
           super::contract::IdempotencyKeyHeader),
    responses(
        (status = 200, body = ContestView),
        (status = 403, body = ErrorBody),
        (status = 404, body = ErrorBody),
        (status = 409, body = ErrorBody),
))]
#[post("/api/v1/lobo-contests/{id}/settle")]
pub async fn settle(
    state: web::Data<AppState>,
    caller: Caller,
    req: HttpRequest,
    path: web::Path<String>,
) -> ApiResult<HttpResponse> {
    caller.require(&[Role::Pitboss])?;
    let idem = IdempotentRequest::from_request(&req, &())?;
    let contest_id = path.into_inner();
    let s = state.get_ref().clone();
    let published = contest_id.clone();
    let response = idempotency::run(
        &state,
        &caller.user_id.clone(),
        idem,
        StatusCode::OK,
        move |conn, _key| {
            let now = crate::store::now_us();
            let row = service::settle_overdue(conn, &s.vault, &contest_id, Some(&caller.user_id), now)?;
            view_for(conn, &s, &row, &caller)
        },
    )
    .await;
    publish(&state, response, published).await
}

/// Voids a contest not yet over (pit boss): every entry fee goes back to its wallet and the
/// seed is revealed. Significant events: the void with its reason, the reveal.
#[utoipa::path(operation_id = "lobo_contest_void", tag = "lobo contests", security(("bearer" = [])), request_body = super::prima_carta::VoidRequest,
    params(("id" = String, Path, description = "Contest id"),
           super::contract::IdempotencyKeyHeader),
    responses(
        (status = 200, body = ContestView),
        (status = 400, body = ErrorBody),
        (status = 403, body = ErrorBody),
        (status = 404, body = ErrorBody),
        (status = 409, body = ErrorBody, description = "the contest is over"),
))]
#[post("/api/v1/lobo-contests/{id}/void")]
pub async fn void(
    state: web::Data<AppState>,
    caller: Caller,
    req: HttpRequest,
    path: web::Path<String>,
    body: web::Json<super::prima_carta::VoidRequest>,
) -> ApiResult<HttpResponse> {
    caller.require(&[Role::Pitboss])?;
    let idem = IdempotentRequest::from_request(&req, &*body)?;
    let reason = super::contract::check_reason(&body.into_inner().reason, "a void")?;
    let contest_id = path.into_inner();
    let s = state.get_ref().clone();
    let published = contest_id.clone();
    let response = idempotency::run(
        &state,
        &caller.user_id.clone(),
        idem,
        StatusCode::OK,
        move |conn, _key| {
            let row = service::void(conn, &s.vault, &contest_id, &caller.user_id, &reason)?;
            view_for(conn, &s, &row, &caller)
        },
    )
    .await;
    publish(&state, response, published).await
}

/// The recall of a settled or voided contest (its entrants, pit boss, auditor): the revealed
/// seed, every entrant's seed, deck (their own shuffle transcript), plays and rounds, every
/// transfer, and the server's verification of all of it.
#[utoipa::path(operation_id = "lobo_contest_recall", tag = "lobo contests", security(("bearer" = [])),
    params(("id" = String, Path, description = "Contest id")),
    responses(
        (status = 200, body = ContestRecall),
        (status = 403, body = ErrorBody),
        (status = 404, body = ErrorBody),
        (status = 409, body = ErrorBody, description = "the contest is not over yet"),
))]
#[get("/api/v1/lobo-contests/{id}/recall")]
pub async fn recall(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<String>,
) -> ApiResult<web::Json<ContestRecall>> {
    caller.require(&[Role::Player, Role::Pitboss, Role::Auditor])?;
    let contest_id = path.into_inner();
    let recall = state
        .blocking(move |s| {
            let mut conn = s.db.conn()?;
            let row = service::find(&mut conn, &contest_id)?;
            if caller.role == Role::Player
                && !service::entries(&mut conn, &row.id)?
                    .iter()
                    .any(|en| en.player_id == caller.user_id)
            {
                return Err(ApiError::forbidden("players may recall only contests they entered"));
            }
            let mut recall = service::recall(
                &mut conn,
                &s.vault,
                &contest_id,
                &Viewer::new(&caller.user_id, caller.role),
            )?;
            // The proof takes connections of its own.
            drop(conn);
            let key = &s.settings.checkpoint_key;
            let game = crate::game_registry::Game::LoboContest.id();
            let proof = crate::rounds::ledger_proof::prove(&s.db, key, game, &recall.contest.id, &recall.transfers)?;
            recall.ledger_proof = Some(proof);
            recall.verification = service::verify(&recall);
            Ok(recall)
        })
        .await?;
    Ok(web::Json(recall))
}
