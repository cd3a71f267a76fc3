//! Prima Carta rounds over HTTP: the dealer runs them, players sit and
//! decide, everyone watches, auditors recall. Side bets live here too, since
//! they are placed on a round.

use actix_web::http::StatusCode;
use actix_web::{get, post, web, HttpRequest, HttpResponse};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use super::error::{ApiError, ApiResult};
use super::idempotency::{self, IdempotentRequest};
use super::state::AppState;
use super::tables::load_table;
use crate::auth::{Caller, ClaimedCaller};
use crate::bets::BetKind;
use crate::cards::shuffle::ClientSeed;
use crate::cards::Suit;
use crate::domain::{Amount, Role};
use crate::games::prima_carta::{strategy::CopaAdvice, Event, Phase};
use crate::rounds::prima_carta::{self as service, DecisionSource, RoundRecall, RoundView};
use crate::rounds::record::{self, RoundRow, RoundStatus};
use crate::side_bets::{self, BetView};
use crate::significant_events::{self, EventKind};
use crate::store::AnyConnection;
use crate::tables::Table;
use crate::transcript::Viewer;
use crate::wagers::{BetWager, RoundRef, Wager};

fn parse_client_seed(seed: &Option<String>) -> Result<Option<ClientSeed>, ApiError> {
    match seed.as_deref() {
        None | Some("") => Ok(None),
        Some(s) => ClientSeed::parse(s).map(Some).map_err(|_| {
            ApiError::bad_request(
                "invalid_client_seed",
                "client_seed must be 1 to 64 printable ASCII characters",
            )
        }),
    }
}

fn parse_suit(name: &str) -> Result<Suit, ApiError> {
    Suit::parse(name)
        .ok_or_else(|| ApiError::bad_request("invalid_suit", "suit must be crowns, locks, fruit, swords or cups"))
}

pub(super) fn require_dealer_of(caller: &Caller, table: &Table) -> Result<(), ApiError> {
    caller.require(&[Role::Dealer])?;
    if table.dealer_ids.iter().any(|d| d == &caller.user_id) {
        Ok(())
    } else {
        Err(ApiError::forbidden("you are not assigned to this table"))
    }
}

/// The caller as a round's viewer: staff see every player's id, a player only their own.
fn viewer_of(caller: &Caller) -> Viewer {
    Viewer::new(&caller.user_id, caller.role)
}

pub(super) fn prima_round(conn: &mut AnyConnection, round_id: &str) -> Result<(RoundRow, Table), ApiError> {
    let row = record::lock(conn, round_id)?;
    if row.game == "lobo" {
        return Err(ApiError::new(
            StatusCode::NOT_FOUND,
            "not_found",
            format!("{round_id} is a Lobo round: its actions are under /api/v1/lobo-rounds/{round_id}"),
        ));
    }
    if row.game != "prima_carta" {
        return Err(ApiError::not_found("Prima Carta round"));
    }
    let table = load_table(conn, &row.table_id)?;
    Ok((row, table))
}

/// Tells this instance's watchers about the round as it now stands (every
/// event not yet sent, then the whole public view), and announces the change
/// to the other instances.
fn publish(state: &AppState, view: &RoundView) {
    publish_locally(state, view);
    super::live_relay::announce(state, &view.table_id, Some(&view.id));
}

/// Tells this instance's watchers of the table (`round` and its events).
pub(super) fn publish_locally(state: &AppState, view: &RoundView) {
    let events: Vec<(&str, &Event)> = view.events.iter().map(|e| (event_name(e), e)).collect();
    state
        .live
        .publish_round(&view.table_id, &view.id, &events, "round", view);
}

/// The round as the table's watchers see it (any account watches): every
/// player by pseudonym, no account id.
pub fn watcher_view(conn: &mut AnyConnection, state: &AppState, row: &RoundRow) -> Result<RoundView, ApiError> {
    service::round_view(conn, &state.vault, row, &Viewer::public())
}

/// Reloads a round after an idempotent action and publishes it.
pub(super) async fn publish_by_id(state: &web::Data<AppState>, round_id: String) {
    let view = state
        .blocking(move |s| {
            let mut conn = s.db.conn()?;
            let row = find_prima(&mut conn, &round_id)?;
            watcher_view(&mut conn, s, &row)
        })
        .await;
    if let Ok(view) = view {
        publish(state, &view);
    }
}

fn event_name(event: &Event) -> &'static str {
    match event {
        Event::PassStarted { .. } => "pass_started",
        Event::Reshuffled { .. } => "reshuffled",
        Event::Dealt { .. } => "card_dealt",
        Event::Prima { .. } => "prima",
        Event::PlayedUp { .. } => "played_up",
        Event::SuitCompleted { .. } => "suit_completed",
        Event::PassEnded { .. } => "pass_ended",
        Event::Corte { .. } => "corte",
        Event::CopaPaid { .. } => "copa_paid",
        Event::Folded { .. } => "folded",
        Event::Won { .. } => "won",
        Event::Cobre(_) => "cobre",
    }
}

/// Runs a dealer or player action on a locked round and returns the new view
/// as `viewer` sees it.
/// A dealer's or pit boss's step on a round, in one write transaction, made
/// safe to retry by its Idempotency-Key; then the live view is published.
async fn round_action<F>(
    state: web::Data<AppState>,
    caller_id: &str,
    viewer: Viewer,
    idem: IdempotentRequest,
    round_id: String,
    action: F,
) -> ApiResult<HttpResponse>
where
    F: FnOnce(&mut AnyConnection, &AppState, &RoundRow, &Table) -> Result<(), ApiError> + Send + 'static,
{
    let id = round_id.clone();
    let s = state.get_ref().clone();
    let response = idempotency::run(&state, caller_id, idem, StatusCode::OK, move |conn, _key| {
        let (row, table) = prima_round(conn, &id)?;
        action(conn, &s, &row, &table)?;
        let row = record::find(conn, &id)?.ok_or_else(|| ApiError::not_found("round"))?;
        service::round_view(conn, &s.vault, &row, &viewer)
    })
    .await?;
    publish_by_id(&state, round_id).await;
    Ok(response)
}

/// Opens a new round at the table (assigned dealer): the server seed is drawn
/// and sealed, its commitment published; betting opens.
#[utoipa::path(tag = "prima carta", security(("bearer" = [])),
    params(super::contract::IdempotencyKeyHeader),
    responses(
    (status = 201, body = RoundView),
    (status = 403, body = super::error::ErrorBody),
    (status = 404, body = super::error::ErrorBody),
    (status = 409, body = super::error::ErrorBody, description = "The table is closed, or a round is in progress."),
    (status = 422, body = super::error::ErrorBody, description = "Not a Prima Carta table."),
))]
#[post("/api/v1/tables/{table_id}/rounds")]
pub async fn create_round(
    state: web::Data<AppState>,
    caller: Caller,
    req: HttpRequest,
    path: web::Path<String>,
) -> ApiResult<HttpResponse> {
    let idem = IdempotentRequest::from_request(&req, &())?;
    let table_id = path.into_inner();
    let id = table_id.clone();
    let vault = state.vault.clone();
    let caller_id = caller.user_id.clone();
    let viewer = viewer_of(&caller);
    let response = idempotency::run(&state, &caller_id, idem, StatusCode::CREATED, move |conn, _key| {
        let table = load_table(conn, &id)?;
        require_dealer_of(&caller, &table)?;
        if !table.is_open() {
            return Err(ApiError::conflict("table_closed", "the table is closed"));
        }
        let row = service::create_round(conn, &vault, &table, &caller.user_id)?;
        service::round_view(conn, &vault, &row, &viewer)
    })
    .await?;
    let latest = state
        .blocking(move |s| {
            let mut conn = s.db.conn()?;
            Ok(record::latest(&mut conn, &table_id)?)
        })
        .await;
    if let Ok(Some(row)) = latest {
        publish_by_id(&state, row.id).await;
    }
    Ok(response)
}

#[derive(Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
pub struct RoundsQuery {
    /// At most this many rounds (default 50).
    #[param(minimum = 1, maximum = 500)]
    pub limit: Option<i64>,
}

/// A table's rounds, newest first (any role), each as the caller may see it:
/// players by pseudonym, an account id only on the caller's own seat (every
/// seat for staff).
#[utoipa::path(tag = "prima carta", security(("bearer" = [])), params(RoundsQuery), responses(
    (status = 200, body = Vec<RoundView>),
    (status = 404, body = super::error::ErrorBody),
))]
#[get("/api/v1/tables/{table_id}/rounds")]
pub async fn list_rounds(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<String>,
    query: web::Query<RoundsQuery>,
) -> ApiResult<web::Json<Vec<RoundView>>> {
    let table_id = path.into_inner();
    let page = super::pagination::Page::new(query.limit, None)?;
    let viewer = viewer_of(&caller);
    let views = state
        .blocking(move |s| {
            let mut conn = s.db.conn()?;
            load_table(&mut conn, &table_id)?;
            let rows = record::for_table(&mut conn, &table_id, page.limit)?;
            rows.iter()
                .filter(|r| r.game == "prima_carta")
                .map(|r| service::round_view(&mut conn, &s.vault, r, &viewer))
                .collect::<Result<Vec<_>, _>>()
        })
        .await?;
    Ok(web::Json(views))
}

/// A round's view (any role): nothing secret before settlement; players by
/// pseudonym, an account id only on the caller's own seat (every seat for
/// staff).
#[utoipa::path(tag = "prima carta", security(("bearer" = [])), responses(
    (status = 200, body = RoundView),
    (status = 404, body = super::error::ErrorBody),
))]
#[get("/api/v1/rounds/{round_id}")]
pub async fn get_round(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<String>,
) -> ApiResult<web::Json<RoundView>> {
    let round_id = path.into_inner();
    let viewer = viewer_of(&caller);
    let view = state
        .blocking(move |s| {
            let mut conn = s.db.conn()?;
            let row = find_prima(&mut conn, &round_id)?;
            service::round_view(&mut conn, &s.vault, &row, &viewer)
        })
        .await?;
    Ok(web::Json(view))
}

fn find_prima(conn: &mut AnyConnection, round_id: &str) -> Result<RoundRow, ApiError> {
    if uuid::Uuid::parse_str(round_id).is_err() {
        return Err(ApiError::not_found("round"));
    }
    record::find(conn, round_id)?
        .filter(|r| r.game == "prima_carta")
        .ok_or_else(|| ApiError::not_found("round"))
}

#[derive(Deserialize, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct SeatRequest {
    #[schema(value_type = super::contract::SuitName)]
    pub suit: String,
    /// Optional, at most 64 printable ASCII characters; mixed into the shuffle
    /// (an empty one is the same as none).
    #[schema(max_length = 64, pattern = r"^[ -~]*$")]
    pub client_seed: Option<String>,
}

/// Takes a seat (player) while betting is open: pays the spiga (and seat fee;
/// with corte on, one unit is held in escrow until the first card).
#[utoipa::path(tag = "prima carta", security(("bearer" = [])), request_body = SeatRequest,
    params(super::contract::IdempotencyKeyHeader),
    responses(
        (status = 201, body = RoundView),
        (status = 403, body = super::error::ErrorBody),
        (status = 404, body = super::error::ErrorBody),
        (status = 409, body = super::error::ErrorBody),
        (status = 422, body = super::error::ErrorBody),
))]
#[post("/api/v1/rounds/{round_id}/seats")]
pub async fn take_seat(
    state: web::Data<AppState>,
    caller: Caller,
    req: HttpRequest,
    path: web::Path<String>,
    body: web::Json<SeatRequest>,
) -> ApiResult<HttpResponse> {
    caller.require(&[Role::Player])?;
    let suit = parse_suit(&body.suit)?;
    let client_seed = parse_client_seed(&body.client_seed)?;
    let idem = IdempotentRequest::from_request(&req, &*body)?;
    let round_id = path.into_inner();
    let player = caller.user_id.clone();
    let viewer = viewer_of(&caller);
    let id = round_id.clone();
    let vault = state.vault.clone();
    let response = idempotency::run(&state, &caller.user_id, idem, StatusCode::CREATED, move |conn, key| {
        let (row, _) = prima_round(conn, &id)?;
        service::take_seat(conn, &row, &player, suit, client_seed.as_ref(), key)?;
        let row = record::find(conn, &id)?.ok_or_else(|| ApiError::not_found("round"))?;
        service::round_view(conn, &vault, &row, &viewer)
    })
    .await?;
    publish_by_id(&state, round_id).await;
    Ok(response)
}

/// Closes betting (assigned dealer): at least two seats; fixes the client seed.
#[utoipa::path(tag = "prima carta", security(("bearer" = [])),
    params(super::contract::IdempotencyKeyHeader),
    responses(
    (status = 200, body = RoundView),
    (status = 403, body = super::error::ErrorBody),
    (status = 404, body = super::error::ErrorBody),
    (status = 409, body = super::error::ErrorBody),
    (status = 422, body = super::error::ErrorBody),
))]
#[post("/api/v1/rounds/{round_id}/close")]
pub async fn close_betting(
    state: web::Data<AppState>,
    caller: Caller,
    req: HttpRequest,
    path: web::Path<String>,
) -> ApiResult<HttpResponse> {
    let idem = IdempotentRequest::from_request(&req, &())?;
    let caller_id = caller.user_id.clone();
    let viewer = viewer_of(&caller);
    round_action(
        state,
        &caller_id,
        viewer,
        idem,
        path.into_inner(),
        move |conn, _s, row, table| {
            require_dealer_of(&caller, table)?;
            service::close_betting(conn, row).map(|_| ())
        },
    )
    .await
}

/// Deals the first pass (assigned dealer); stops at the first copa turn.
#[utoipa::path(tag = "prima carta", security(("bearer" = [])),
    params(super::contract::IdempotencyKeyHeader),
    responses(
    (status = 200, body = RoundView),
    (status = 403, body = super::error::ErrorBody),
    (status = 404, body = super::error::ErrorBody),
    (status = 409, body = super::error::ErrorBody),
))]
#[post("/api/v1/rounds/{round_id}/deal")]
pub async fn deal(
    state: web::Data<AppState>,
    caller: Caller,
    req: HttpRequest,
    path: web::Path<String>,
) -> ApiResult<HttpResponse> {
    let idem = IdempotentRequest::from_request(&req, &())?;
    let caller_id = caller.user_id.clone();
    let viewer = viewer_of(&caller);
    round_action(
        state,
        &caller_id,
        viewer,
        idem,
        path.into_inner(),
        move |conn, s, row, table| {
            require_dealer_of(&caller, table)?;
            service::deal_first_pass(conn, &s.vault, row).map(|_| ())
        },
    )
    .await
}

#[derive(Deserialize, Serialize, ToSchema, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum CopaChoice {
    Pay,
    Fold,
}

#[derive(Deserialize, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CopaRequest {
    pub decision: CopaChoice,
    /// Required when a dealer records a seated player's spoken decision (422
    /// without it); a player decides for their own seat and may omit it.
    #[schema(value_type = Option<super::contract::SuitName>)]
    pub suit: Option<String>,
}

/// A copa decision in turn: the seated player's own, or one the dealer
/// records by voice. Paying moves the copa from the wallet to the pot.
#[utoipa::path(tag = "prima carta", security(("bearer" = [])), request_body = CopaRequest,
    params(super::contract::IdempotencyKeyHeader),
    responses(
        (status = 200, body = RoundView),
        (status = 403, body = super::error::ErrorBody),
        (status = 404, body = super::error::ErrorBody),
        (status = 409, body = super::error::ErrorBody),
        (status = 422, body = super::error::ErrorBody),
))]
#[post("/api/v1/rounds/{round_id}/copa")]
pub async fn copa(
    state: web::Data<AppState>,
    caller: Caller,
    req: HttpRequest,
    path: web::Path<String>,
    body: web::Json<CopaRequest>,
) -> ApiResult<HttpResponse> {
    caller.require(&[Role::Player, Role::Dealer])?;
    let stated_suit = body.suit.as_deref().map(parse_suit).transpose()?;
    let pay = body.decision == CopaChoice::Pay;
    let idem = IdempotentRequest::from_request(&req, &*body)?;
    let round_id = path.into_inner();
    let id = round_id.clone();
    let vault = state.vault.clone();
    let caller_id = caller.user_id.clone();
    let viewer = viewer_of(&caller);
    let response = idempotency::run(&state, &caller_id, idem, StatusCode::OK, move |conn, _key| {
        let (row, table) = prima_round(conn, &id)?;
        let seated = service::seats(conn, &row.id)?;
        let (suit, source) = match caller.role {
            Role::Dealer => {
                require_dealer_of(&caller, &table)?;
                let suit = stated_suit.ok_or_else(|| {
                    ApiError::unprocessable("suit_required", "a dealer must name the suit whose decision this is")
                })?;
                (suit, DecisionSource::DealerVoice)
            }
            _ => {
                let seat = seated
                    .iter()
                    .find(|s| s.player_id == caller.user_id)
                    .ok_or_else(|| ApiError::forbidden("you are not seated in this round"))?;
                if stated_suit.is_some_and(|s| s != seat.suit()) {
                    return Err(ApiError::forbidden("you may decide only for your own seat"));
                }
                (seat.suit(), DecisionSource::Player)
            }
        };
        service::decide(conn, &vault, &row, suit, pay, source, &caller.user_id)?;
        let row = record::find(conn, &id)?.ok_or_else(|| ApiError::not_found("round"))?;
        service::round_view(conn, &vault, &row, &viewer)
    })
    .await?;
    publish_by_id(&state, round_id).await;
    Ok(response)
}

#[derive(Serialize, ToSchema)]
pub struct Advice {
    #[schema(value_type = super::contract::SuitName)]
    pub suit: Suit,
    /// The printed basic strategy's advice: pay or fold.
    pub advice: String,
    pub copa: String,
}

/// The printed basic strategy's advice for the seated player whose copa turn
/// it is (only at tables that offer it).
#[utoipa::path(tag = "prima carta", security(("bearer" = [])), responses(
    (status = 200, body = Advice),
    (status = 403, body = super::error::ErrorBody),
    (status = 404, body = super::error::ErrorBody),
    (status = 409, body = super::error::ErrorBody),
))]
#[get("/api/v1/rounds/{round_id}/advice")]
pub async fn advice(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<String>,
) -> ApiResult<web::Json<Advice>> {
    caller.require(&[Role::Player])?;
    let round_id = path.into_inner();
    let advice = state
        .blocking(move |s| {
            let mut conn = s.db.conn()?;
            let row = find_prima(&mut conn, &round_id)?;
            let config = service::round_config(&row)?;
            if !config.strategy_advice {
                return Err(ApiError::forbidden("this table does not offer strategy advice"));
            }
            row.require_status(&[RoundStatus::Copa], "advise")?;
            let seated = service::seats(&mut conn, &row.id)?;
            let seat = seated
                .iter()
                .find(|s| s.player_id == caller.user_id)
                .ok_or_else(|| ApiError::forbidden("you are not seated in this round"))?;
            let progress = service::replay(
                &service::deal_of(&s.vault, &row)?,
                &config,
                &seated,
                &service::decisions(&row),
            )?;
            match progress.phase {
                Phase::AwaitingCopa(turn) if turn.turn == seat.suit() => Ok(Advice {
                    suit: turn.turn,
                    advice: match turn.advice {
                        CopaAdvice::Pay => "pay".into(),
                        CopaAdvice::Fold => "fold".into(),
                    },
                    copa: service::copa_text(config.unit, turn.copa_units),
                }),
                _ => Err(ApiError::conflict(
                    "not_your_turn",
                    "advice is given on your own copa turn",
                )),
            }
        })
        .await?;
    Ok(web::Json(advice))
}

/// Runs the repasso and settles (assigned dealer): pays the pot, the cobre and
/// every side bet; reveals the server seed.
#[utoipa::path(tag = "prima carta", security(("bearer" = [])),
    params(super::contract::IdempotencyKeyHeader),
    responses(
    (status = 200, body = RoundView),
    (status = 403, body = super::error::ErrorBody),
    (status = 404, body = super::error::ErrorBody),
    (status = 409, body = super::error::ErrorBody),
))]
#[post("/api/v1/rounds/{round_id}/settle")]
pub async fn settle(
    state: web::Data<AppState>,
    caller: Caller,
    req: HttpRequest,
    path: web::Path<String>,
) -> ApiResult<HttpResponse> {
    let idem = IdempotentRequest::from_request(&req, &())?;
    let caller_id = caller.user_id.clone();
    let viewer = viewer_of(&caller);
    round_action(
        state,
        &caller_id,
        viewer,
        idem,
        path.into_inner(),
        move |conn, s, row, table| {
            require_dealer_of(&caller, table)?;
            service::settle(conn, &s.vault, row)?;
            significant_events::record(
                conn,
                EventKind::SeedRevealed,
                Some(&caller.user_id),
                Some(&row.id),
                serde_json::json!({ "reason": "settled" }),
            )?;
            Ok(())
        },
    )
    .await
}

#[derive(Deserialize, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct VoidRequest {
    /// Why the round is voided (recorded as a significant event).
    #[schema(value_type = super::contract::Reason)]
    pub reason: String,
}

/// Voids a round before any card is dealt (pit boss): every stake is refunded.
/// A significant event.
#[utoipa::path(tag = "prima carta", security(("bearer" = [])), request_body = VoidRequest,
    params(super::contract::IdempotencyKeyHeader),
    responses(
    (status = 200, body = RoundView),
    (status = 400, body = super::error::ErrorBody),
    (status = 403, body = super::error::ErrorBody),
    (status = 404, body = super::error::ErrorBody),
    (status = 409, body = super::error::ErrorBody),
))]
#[post("/api/v1/rounds/{round_id}/void")]
pub async fn void(
    state: web::Data<AppState>,
    caller: Caller,
    req: HttpRequest,
    path: web::Path<String>,
    body: web::Json<VoidRequest>,
) -> ApiResult<HttpResponse> {
    caller.require(&[Role::Pitboss])?;
    let idem = IdempotentRequest::from_request(&req, &*body)?;
    let reason = super::contract::check_reason(&body.into_inner().reason, "a void")?;
    let caller_id = caller.user_id.clone();
    let viewer = viewer_of(&caller);
    round_action(
        state,
        &caller_id,
        viewer,
        idem,
        path.into_inner(),
        move |conn, s, row, _table| {
            service::void(conn, &s.vault, row)?;
            significant_events::record(
                conn,
                EventKind::RoundVoided,
                Some(&caller.user_id),
                Some(&row.id),
                serde_json::json!({ "reason": reason }),
            )?;
            significant_events::record(
                conn,
                EventKind::SeedRevealed,
                Some(&caller.user_id),
                Some(&row.id),
                serde_json::json!({ "reason": "voided" }),
            )?;
            Ok(())
        },
    )
    .await
}

/// The full transcript of a settled or voided round: seeds, dealt order, every
/// event, decision, bet and ledger transfer (auditor; or a player who sat or bet).
#[utoipa::path(tag = "prima carta", security(("bearer" = [])), responses(
    (status = 200, body = RoundRecall),
    (status = 403, body = super::error::ErrorBody),
    (status = 404, body = super::error::ErrorBody),
    (status = 409, body = super::error::ErrorBody),
))]
#[get("/api/v1/rounds/{round_id}/recall")]
pub async fn recall(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<String>,
) -> ApiResult<web::Json<RoundRecall>> {
    caller.require(&[Role::Auditor, Role::Player, Role::Pitboss])?;
    let round_id = path.into_inner();
    let recall = state
        .blocking(move |s| {
            let mut conn = s.db.conn()?;
            let row = find_prima(&mut conn, &round_id)?;
            if caller.role == Role::Player && !service::participants(&mut conn, &row.id)?.contains(&caller.user_id) {
                return Err(ApiError::forbidden("players may recall only rounds they played in"));
            }
            let mut recall = service::recall(&mut conn, &s.vault, &row, &viewer_of(&caller))?;
            // The proof takes connections of its own.
            drop(conn);
            crate::rounds::ledger_proof::prove_transcript(&s.db, &s.settings.checkpoint_key, &mut recall.transcript)?;
            Ok(recall)
        })
        .await?;
    Ok(web::Json(recall))
}

#[derive(Serialize, ToSchema)]
pub struct Verification {
    pub round_id: String,
    pub status: RoundStatus,
    pub algorithm: &'static str,
    pub commitment: String,
    /// After settlement or a void: the round's transcript (docs/transcript.md),
    /// every player pseudonymous, in the format `djego verify round` and
    /// docs/verify/verify_round.py read.
    #[schema(value_type = Option<Object>)]
    pub transcript: Option<crate::transcript::RoundTranscript<'static>>,
}

/// What anyone needs to check the round, with no account and no token (any
/// token sent is ignored): the commitment before settlement, the full
/// transcript after, every player pseudonymous.
#[utoipa::path(tag = "prima carta", responses(
    (status = 200, body = Verification),
    (status = 404, body = super::error::ErrorBody),
))]
#[get("/api/v1/rounds/{round_id}/verification")]
pub async fn verification(state: web::Data<AppState>, path: web::Path<String>) -> ApiResult<web::Json<Verification>> {
    let round_id = path.into_inner();
    let v = state
        .blocking(move |s| {
            let mut conn = s.db.conn()?;
            let row = find_prima(&mut conn, &round_id)?;
            let transcript = if row.status().is_over() {
                let mut t = service::transcript(&mut conn, &s.vault, &row, &Viewer::public(), false)?;
                // The proof takes connections of its own.
                drop(conn);
                crate::rounds::ledger_proof::prove_transcript(&s.db, &s.settings.checkpoint_key, &mut t)?;
                Some(t)
            } else {
                None
            };
            Ok(Verification {
                round_id: row.id.clone(),
                status: row.status(),
                algorithm: crate::cards::shuffle::ALGORITHM,
                commitment: row.commitment.clone(),
                transcript,
            })
        })
        .await?;
    Ok(web::Json(v))
}

#[derive(Deserialize, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct BetRequest {
    #[schema(value_type = super::contract::BetKindName)]
    pub kind: String,
    /// For Prima, Escúcha and Máximo (422 when the kind takes no suit).
    #[schema(value_type = Option<super::contract::SuitName>)]
    pub suit: Option<String>,
    /// For Cartas: one of the numbers the pay table offers (422 otherwise).
    #[serde(default, deserialize_with = "crate::domain::whole::option")]
    pub number: Option<i64>,
    /// The stake, within the table's limits (422 outside them).
    #[schema(value_type = super::contract::Amount)]
    pub amount: String,
    /// Optional, at most 64 printable ASCII characters; mixed into the shuffle
    /// (an empty one is the same as none).
    #[schema(max_length = 64, pattern = r"^[ -~]*$")]
    pub client_seed: Option<String>,
    /// The pay table the player was shown (its id or fingerprint): if it is
    /// not the round's, the bet is refused (409 `pay_table_mismatch`).
    #[schema(max_length = 64)]
    pub pay_table: Option<String>,
}

/// Places a side bet on a round while betting is open (player). The stake
/// moves from the wallet to the round's escrow in the same transaction.
#[utoipa::path(tag = "side bets", security(("bearer" = [])), request_body = BetRequest,
    params(super::contract::IdempotencyKeyHeader),
    responses(
        (status = 201, body = BetView),
        (status = 400, body = super::error::ErrorBody),
        (status = 403, body = super::error::ErrorBody),
        (status = 404, body = super::error::ErrorBody),
        (status = 409, body = super::error::ErrorBody),
        (status = 422, body = super::error::ErrorBody),
))]
#[post("/api/v1/rounds/{round_id}/bets")]
pub async fn place_bet(
    state: web::Data<AppState>,
    caller: ClaimedCaller,
    req: HttpRequest,
    path: web::Path<String>,
    body: web::Json<BetRequest>,
) -> ApiResult<HttpResponse> {
    caller.require(&[Role::Player])?;
    let kind = BetKind::parse(&body.kind).ok_or_else(|| {
        ApiError::bad_request(
            "unknown_bet_kind",
            "kind must be prima, escucha, maximo, conto_alto, conto_bajo, conto_medio, cartas or comeco",
        )
    })?;
    let amount = Amount::parse(&body.amount).map_err(|e| ApiError::bad_request("invalid_amount", e.to_string()))?;
    parse_client_seed(&body.client_seed)?;
    let idem = IdempotentRequest::from_request(&req, &*body)?;
    let body = body.into_inner();
    let wager = Wager::Bet(BetWager {
        round_id: path.into_inner(),
        player_id: caller.user_id.clone(),
        kind,
        suit: body.suit,
        number: body.number,
        amount,
        client_seed: body.client_seed.filter(|s| !s.is_empty()),
        pay_table: body.pay_table,
    });
    let committed = idempotency::commit_wager(&state, caller, idem, wager).await?;
    if let Some(round) = committed.round.clone() {
        refresh_live_soon(&state, round);
    }
    Ok(idempotency::committed_response(&committed))
}

/// Refreshes a round's live view shortly after a bet, once for every bet
/// that lands meanwhile: watchers see the totals move without one
/// publication (and one cross-instance announcement) per bet. The view is
/// built only when this instance has watchers at the table.
fn refresh_live_soon(state: &web::Data<AppState>, round: RoundRef) {
    if !state.live.claim_refresh(&round.round_id) {
        return; // one is already scheduled and will include this bet
    }
    let state = state.clone();
    actix_web::rt::spawn(async move {
        actix_web::rt::time::sleep(std::time::Duration::from_millis(crate::live::REFRESH_COALESCE_MS)).await;
        // Released before reading, so a bet committed after the read
        // schedules the next refresh.
        state.live.release_refresh(&round.round_id);
        if state.live.has_watchers(&round.table_id) {
            publish_by_id(&state, round.round_id).await;
        } else {
            super::live_relay::announce(&state, &round.table_id, Some(&round.round_id));
        }
    });
}

/// A round's bets: every bet for the auditor and pit boss, their own for a player.
#[utoipa::path(tag = "side bets", security(("bearer" = [])), responses(
    (status = 200, body = Vec<BetView>),
    (status = 403, body = super::error::ErrorBody),
    (status = 404, body = super::error::ErrorBody),
))]
#[get("/api/v1/rounds/{round_id}/bets")]
pub async fn round_bets(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<String>,
) -> ApiResult<web::Json<Vec<BetView>>> {
    caller.require(&[Role::Auditor, Role::Pitboss, Role::Player])?;
    let round_id = path.into_inner();
    let list = state
        .blocking(move |s| {
            let mut conn = s.db.conn()?;
            let row = find_prima(&mut conn, &round_id)?;
            Ok(side_bets::round_bets(&mut conn, &row.id)?
                .iter()
                .filter(|b| caller.role != Role::Player || b.player_id == caller.user_id)
                .map(BetView::from)
                .collect())
        })
        .await?;
    Ok(web::Json(list))
}

/// The caller's own side bets, newest first (player).
#[utoipa::path(tag = "side bets", security(("bearer" = [])), responses(
    (status = 200, body = Vec<BetView>),
    (status = 403, body = super::error::ErrorBody),
))]
#[get("/api/v1/me/bets")]
pub async fn my_bets(state: web::Data<AppState>, caller: Caller) -> ApiResult<web::Json<Vec<BetView>>> {
    caller.require(&[Role::Player])?;
    let list = state
        .blocking(move |s| {
            let mut conn = s.db.conn()?;
            Ok(side_bets::player_bets(&mut conn, &caller.user_id, 200)?
                .iter()
                .map(BetView::from)
                .collect())
        })
        .await?;
    Ok(web::Json(list))
}

#[derive(Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
pub struct RtpParams {
    pub table_id: Option<String>,
    pub kind: Option<String>,
    pub from_us: Option<i64>,
    pub to_us: Option<i64>,
    /// `json` (default) or `csv`.
    #[param(inline, value_type = Option<super::ReportFormat>)]
    pub format: Option<String>,
}

/// Observed against certified RTP by bet, table and period, with the 99% band
/// check (auditor). `format=csv` for a spreadsheet.
#[utoipa::path(tag = "audit", security(("bearer" = [])), params(RtpParams), responses(
    (status = 200, description = "One line per bet kind, table and pay table", content(
        (Vec<side_bets::RtpLine> = "application/json"),
        (String = "text/csv"),
    )),
    (status = 403, body = super::error::ErrorBody),
))]
#[get("/api/v1/audit/rtp")]
pub async fn observed_rtp(
    state: web::Data<AppState>,
    caller: Caller,
    query: web::Query<RtpParams>,
) -> ApiResult<HttpResponse> {
    caller.require(&[Role::Auditor])?;
    let q = query.into_inner();
    let csv = match q.format.as_deref() {
        None | Some("json") => false,
        Some("csv") => true,
        Some(_) => return Err(ApiError::bad_request("invalid_format", "format must be json or csv")),
    };
    let filter = side_bets::RtpQuery {
        table_id: q.table_id,
        kind: q.kind,
        from_us: q.from_us,
        to_us: q.to_us,
    };
    let lines = state
        .blocking(move |s| {
            let mut conn = s.db.conn()?;
            side_bets::observed_rtp(&mut conn, &filter)
        })
        .await?;
    if csv {
        let mut out = String::from("kind,table_id,pay_table_id,bets,staked,returned,observed_rtp,theoretical_rtp,standard_error,outside_99_band,rounds,independent_error,clustered_error\n");
        for l in &lines {
            out.push_str(&format!(
                "{},{},{},{},{},{},{:.6},{:.6},{:.6},{},{},{:.6},{:.6}\n",
                l.kind,
                l.table_id,
                l.pay_table_id,
                l.bets,
                l.staked,
                l.returned,
                l.observed_rtp,
                l.theoretical_rtp,
                l.standard_error,
                l.outside_99_band,
                l.rounds,
                l.independent_error,
                l.clustered_error
            ));
        }
        Ok(HttpResponse::Ok().content_type("text/csv").body(out))
    } else {
        Ok(HttpResponse::Ok().json(lines))
    }
}
