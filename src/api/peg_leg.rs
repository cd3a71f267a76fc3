//! Peg Leg over HTTP (docs/peg-leg.md): a dealer opens a round and deals it card by card;
//! players give client seeds before the first card, then bet on the key suit's final count
//! at the quoted prices and surrender bets between cards; a pit boss may void; the round's
//! recall carries every quote and bet with the server's verification. Every change is
//! published on the table's live stream (`peg_leg_round`). The logic is in
//! `crate::rounds::peg_leg`.

use actix_web::http::StatusCode;
use actix_web::{get, post, web, HttpRequest, HttpResponse};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::error::{ApiError, ApiResult, ErrorBody};
use super::idempotency::{self, IdempotentRequest};
use super::prima_carta::{require_dealer_of, RoundsQuery};
use super::state::AppState;
use super::tables::load_table;
use crate::auth::{Caller, ClaimedCaller};
use crate::cards::shuffle::ClientSeed;
use crate::domain::{Amount, Role};
use crate::rounds::peg_leg::{
    self as service, DealtCardView, PegLegBetView, PegLegRecall, PegLegRoundError, PegLegRoundRow, PegLegRoundView,
    PegLegRtp,
};
use crate::store::AnyConnection;
use crate::transcript::Viewer;
use crate::wagers::{PegLegBetWager, Wager};

impl From<PegLegRoundError> for ApiError {
    fn from(e: PegLegRoundError) -> ApiError {
        use PegLegRoundError as P;
        let message = e.to_string();
        match e {
            P::RoundNotFound => ApiError::not_found("Peg Leg round"),
            P::BetNotFound => ApiError::not_found("bet"),
            P::WrongGame => ApiError::unprocessable("wrong_game", message),
            P::TableClosed => ApiError::conflict("table_closed", message),
            P::RoundInProgress { round_id } => ApiError::conflict("round_in_progress", message)
                .with_details(serde_json::json!({ "round_id": round_id })),
            P::WrongState { .. } => ApiError::conflict("wrong_round_state", message),
            P::SeedAlreadyGiven => ApiError::conflict("client_seed_already_given", message),
            P::StaleQuote { current, .. } => ApiError::conflict("stale_quote", message)
                .with_details(serde_json::json!({ "current_quote_id": current })),
            P::WindowClosed => ApiError::conflict("betting_window_closed", message),
            P::WindowOpen { closes_at_us } => ApiError::conflict("betting_window_open", message)
                .with_details(serde_json::json!({ "window_closes_at_us": closes_at_us })),
            P::CountNotOffered { .. } => ApiError::unprocessable("count_not_offered", message),
            P::StakeOutOfRange { .. } => ApiError::unprocessable("bet_out_of_range", message),
            P::ExposureExceeded { .. } => ApiError::unprocessable("exposure_limit", message),
            P::InsufficientFunds { needed, balance } => ApiError::unprocessable("insufficient_funds", message)
                .with_details(serde_json::json!({ "needed": needed, "balance": balance })),
            P::NoWallet => ApiError::unprocessable("no_wallet", message),
            P::BetClosed { .. } => ApiError::conflict("bet_closed", message),
            P::NotOver => ApiError::conflict("wrong_round_state", message),
            P::Ledger(l) => ApiError::from(l),
            P::Store(q) => ApiError::from(q),
            P::Corrupt(m) => {
                tracing::error!(error = %m, "a stored Peg Leg round does not read back");
                ApiError::internal(m)
            }
        }
    }
}

#[derive(Deserialize, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PegLegClientSeed {
    /// 1 to 64 printable ASCII characters. At the first card every seed given is combined
    /// (sorted, joined by newlines, SHA-256) into the deck's client seed.
    #[schema(min_length = 1, max_length = 64, pattern = r"^[ -~]*$")]
    pub client_seed: String,
}

#[derive(Deserialize, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PlacePegLegBet {
    /// The quote the price was read from (`quote.id` of the round): 409 `stale_quote` once a
    /// later card has been dealt.
    pub quote_id: String,
    /// The key suit's final count bet on (1 to 10), one the quote offers.
    #[serde(deserialize_with = "crate::domain::whole::integer")]
    #[schema(minimum = 0, maximum = 255)]
    pub count: u8,
    #[schema(value_type = super::contract::Amount, example = "5.00")]
    pub stake: Amount,
}

#[derive(Deserialize, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct SurrenderPegLegBet {
    /// The quote the cash-out value was read from: 409 `stale_quote` once a later card has
    /// been dealt.
    pub quote_id: String,
}

/// One card dealt, and the round after it.
#[derive(Serialize, ToSchema)]
pub struct PegLegDealt {
    pub card: DealtCardView,
    pub round: PegLegRoundView,
}

/// The roles that may see a round as it stands: every role. A view holds nothing secret (no
/// seed, no undealt card) and names players by pseudonym to players; the cage may look up a
/// round a player asks about.
const VIEWERS: [Role; 5] = [Role::Player, Role::Dealer, Role::Cashier, Role::Pitboss, Role::Auditor];
/// The roles that may recall a round (players only the rounds they bet on).
const READERS: [Role; 4] = [Role::Player, Role::Dealer, Role::Pitboss, Role::Auditor];

fn viewer(caller: &Caller) -> Viewer {
    Viewer::new(&caller.user_id, caller.role)
}

fn view_for(
    conn: &mut AnyConnection,
    s: &AppState,
    row: &PegLegRoundRow,
    v: &Viewer,
) -> Result<PegLegRoundView, ApiError> {
    Ok(service::view(conn, &s.vault, row, v)?)
}

/// Tells the table's watchers (here and, on PostgreSQL, on every instance) how the round
/// stands now.
async fn publish(state: &web::Data<AppState>, round_id: String) {
    let view = state
        .blocking(move |s| {
            let mut conn = s.db.conn()?;
            let row = service::find(&mut conn, &round_id)?;
            view_for(&mut conn, s, &row, &Viewer::public())
        })
        .await;
    if let Ok(view) = view {
        publish_locally(state, &view);
        super::live_relay::announce(state, &view.table_id, Some(&view.id));
    }
}

/// Tells this instance's watchers of the table (`peg_leg_round`).
pub fn publish_locally(state: &AppState, view: &PegLegRoundView) {
    state.live.publish(&view.table_id, "peg_leg_round", view);
}

/// The round as watchers see it, for the live stream's relay and snapshot.
pub fn watcher_view(
    conn: &mut AnyConnection,
    state: &AppState,
    row: &PegLegRoundRow,
) -> Result<PegLegRoundView, ApiError> {
    view_for(conn, state, row, &Viewer::public())
}

/// Opens a Peg Leg round (the table's assigned dealer): the server seed is drawn and sealed
/// and its commitment published; client seeds are taken until the first card.
#[utoipa::path(operation_id = "peg_leg_create_round", tag = "peg leg", security(("bearer" = [])),
    params(("id" = String, Path, description = "Table id"), super::contract::IdempotencyKeyHeader),
    responses(
        (status = 201, body = PegLegRoundView),
        (status = 403, body = ErrorBody),
        (status = 404, body = ErrorBody),
        (status = 409, body = ErrorBody, description = "the table is closed, or has a round in progress (`round_in_progress`, its id in `details.round_id`)"),
        (status = 422, body = ErrorBody, description = "not a Peg Leg table"),
))]
#[post("/api/v1/tables/{id}/peg-leg-rounds")]
pub async fn create_round(
    state: web::Data<AppState>,
    caller: Caller,
    req: HttpRequest,
    path: web::Path<String>,
) -> ApiResult<HttpResponse> {
    caller.require(&[Role::Dealer])?;
    let idem = IdempotentRequest::from_request(&req, &())?;
    let table_id = path.into_inner();
    let s = state.get_ref().clone();
    let v = viewer(&caller);
    let id = table_id.clone();
    let response = idempotency::run(
        &state,
        &caller.user_id.clone(),
        idem,
        StatusCode::CREATED,
        move |conn, _| {
            let table = load_table(conn, &id)?;
            require_dealer_of(&caller, &table)?;
            let row = service::create_round(conn, &s.vault, &table, &caller.user_id)?;
            view_for(conn, &s, &row, &v)
        },
    )
    .await?;
    let opened = state
        .blocking(move |s| {
            let mut conn = s.db.conn()?;
            Ok(service::unfinished(&mut conn, &table_id)?)
        })
        .await;
    if let Ok(Some(row)) = opened {
        publish(&state, row.id).await;
    }
    Ok(response)
}

/// A Peg Leg table's rounds, newest first (any role), each as the caller may see it.
#[utoipa::path(operation_id = "peg_leg_list_rounds", tag = "peg leg", security(("bearer" = [])),
    params(("id" = String, Path, description = "Table id"), RoundsQuery),
    responses(
        (status = 200, body = Vec<PegLegRoundView>),
        (status = 400, body = ErrorBody),
        (status = 403, body = ErrorBody),
        (status = 404, body = ErrorBody),
))]
#[get("/api/v1/tables/{id}/peg-leg-rounds")]
pub async fn list_rounds(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<String>,
    query: web::Query<RoundsQuery>,
) -> ApiResult<web::Json<Vec<PegLegRoundView>>> {
    caller.require(&VIEWERS)?;
    let table_id = path.into_inner();
    let limit = super::pagination::Page::new(query.limit, None)?.limit;
    let views = state
        .blocking(move |s| {
            let mut conn = s.db.conn()?;
            load_table(&mut conn, &table_id)?;
            let v = viewer(&caller);
            service::of_table(&mut conn, &table_id, limit)?
                .iter()
                .map(|row| view_for(&mut conn, s, row, &v))
                .collect::<Result<Vec<_>, _>>()
        })
        .await?;
    Ok(web::Json(views))
}

/// A round as it stands (any role): the cards dealt, the quote in force, the bets (the caller's own
/// with their cash-out values; others' under pseudonyms). Nothing of an undealt card.
#[utoipa::path(operation_id = "peg_leg_get_round", tag = "peg leg", security(("bearer" = [])),
    params(("id" = String, Path, description = "Round id")),
    responses(
        (status = 200, body = PegLegRoundView),
        (status = 403, body = ErrorBody),
        (status = 404, body = ErrorBody),
))]
#[get("/api/v1/peg-leg-rounds/{id}")]
pub async fn get_round(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<String>,
) -> ApiResult<web::Json<PegLegRoundView>> {
    caller.require(&VIEWERS)?;
    let round_id = path.into_inner();
    let view = state
        .blocking(move |s| {
            let mut conn = s.db.conn()?;
            let row = service::find(&mut conn, &round_id)?;
            view_for(&mut conn, s, &row, &viewer(&caller))
        })
        .await?;
    Ok(web::Json(view))
}

/// Gives the caller's client seed for the round's deck (players, before the first card; one
/// each).
#[utoipa::path(tag = "peg leg", security(("bearer" = [])), request_body = PegLegClientSeed,
    params(("id" = String, Path, description = "Round id"), super::contract::IdempotencyKeyHeader),
    responses(
        (status = 200, body = PegLegRoundView),
        (status = 400, body = ErrorBody),
        (status = 403, body = ErrorBody),
        (status = 404, body = ErrorBody),
        (status = 409, body = ErrorBody, description = "the first card is dealt, or a seed of yours is already in"),
))]
#[post("/api/v1/peg-leg-rounds/{id}/client-seed")]
pub async fn give_client_seed(
    state: web::Data<AppState>,
    caller: Caller,
    req: HttpRequest,
    path: web::Path<String>,
    body: web::Json<PegLegClientSeed>,
) -> ApiResult<HttpResponse> {
    caller.require(&[Role::Player])?;
    let seed = ClientSeed::parse(&body.client_seed)
        .map_err(|e| ApiError::bad_request("invalid_client_seed", e.to_string()))?;
    let idem = IdempotentRequest::from_request(&req, &*body)?;
    let round_id = path.into_inner();
    let s = state.get_ref().clone();
    let v = viewer(&caller);
    idempotency::run(&state, &caller.user_id.clone(), idem, StatusCode::OK, move |conn, _| {
        let row = service::give_client_seed(conn, &round_id, &caller.user_id, &seed)?;
        view_for(conn, &s, &row, &v)
    })
    .await
}

/// Deals the next card (the table's assigned dealer). The first card fixes the deck from
/// the client seeds and sets the key suit; every card but the last is priced, and its quote
/// takes bets until the next card (or the table's timed window ends: until then the next
/// card is refused with 409 `betting_window_open`); the fiftieth settles every bet.
#[utoipa::path(operation_id = "peg_leg_deal", tag = "peg leg", security(("bearer" = [])),
    params(("id" = String, Path, description = "Round id"), super::contract::IdempotencyKeyHeader),
    responses(
        (status = 200, body = PegLegDealt),
        (status = 403, body = ErrorBody),
        (status = 404, body = ErrorBody),
        (status = 409, body = ErrorBody, description = "the round is over, or the betting window is still open"),
))]
#[post("/api/v1/peg-leg-rounds/{id}/deal")]
pub async fn deal(
    state: web::Data<AppState>,
    caller: Caller,
    req: HttpRequest,
    path: web::Path<String>,
) -> ApiResult<HttpResponse> {
    caller.require(&[Role::Dealer])?;
    let idem = IdempotentRequest::from_request(&req, &())?;
    let round_id = path.into_inner();
    // Priced before the write transaction; used if the round has not moved meanwhile.
    let id = round_id.clone();
    let prepared = state
        .blocking(move |s| {
            let mut conn = s.db.conn()?;
            Ok(service::prepare_next_card(&mut conn, &s.vault, &id))
        })
        .await?;
    let s = state.get_ref().clone();
    let v = viewer(&caller);
    let id = round_id.clone();
    let response = idempotency::run(&state, &caller.user_id.clone(), idem, StatusCode::OK, move |conn, _| {
        let row = service::find(conn, &id)?;
        require_dealer_of(&caller, &load_table(conn, &row.table_id)?)?;
        let dealt = service::deal(conn, &s.vault, &id, prepared)?;
        Ok(PegLegDealt {
            card: DealtCardView::from(&dealt.step),
            round: view_for(conn, &s, &dealt.row, &v)?,
        })
    })
    .await?;
    if response.status().is_success() {
        publish(&state, round_id).await;
    }
    Ok(response)
}

/// Places a bet on the key suit's final count at the current quote's price (players): the
/// stake goes to the round's escrow.
#[utoipa::path(operation_id = "peg_leg_place_bet", tag = "peg leg", security(("bearer" = [])), request_body = PlacePegLegBet,
    params(("id" = String, Path, description = "Round id"), super::contract::IdempotencyKeyHeader),
    responses(
        (status = 201, body = PegLegBetView),
        (status = 400, body = ErrorBody),
        (status = 403, body = ErrorBody),
        (status = 404, body = ErrorBody),
        (status = 409, body = ErrorBody, description = "a stale quote (`stale_quote`, the current one in `details.current_quote_id`), a closed window, or a round not dealing"),
        (status = 422, body = ErrorBody, description = "a count not offered, a stake outside the limits, the round's exposure limit, insufficient funds"),
))]
#[post("/api/v1/peg-leg-rounds/{id}/bets")]
pub async fn place_bet(
    state: web::Data<AppState>,
    caller: ClaimedCaller,
    req: HttpRequest,
    path: web::Path<String>,
    body: web::Json<PlacePegLegBet>,
) -> ApiResult<HttpResponse> {
    caller.require(&[Role::Player])?;
    let idem = IdempotentRequest::from_request(&req, &*body)?;
    let body = body.into_inner();
    // On the wager path with Prima Carta's side bets and the cage: committed in groups.
    let wager = Wager::PegLegBet(PegLegBetWager {
        round_id: path.into_inner(),
        player_id: caller.user_id.clone(),
        quote_id: body.quote_id,
        count: body.count,
        stake: body.stake,
    });
    let committed = idempotency::commit_wager(&state, caller, idem, wager).await?;
    if let Some(round) = committed.round.clone() {
        publish(&state, round.round_id).await;
    }
    Ok(idempotency::committed_response(&committed))
}

/// The caller's bet as their view of the round shows it.
fn own_bet(conn: &mut AnyConnection, round_id: &str, bet_id: &str, v: &Viewer) -> Result<PegLegBetView, ApiError> {
    let row = service::find(conn, round_id)?;
    Ok(service::bet_view_of(conn, &row, bet_id, v)?)
}

/// Surrenders one of the caller's open bets for its cash-out value under the current quote
/// (players).
#[utoipa::path(tag = "peg leg", security(("bearer" = [])), request_body = SurrenderPegLegBet,
    params(("id" = String, Path, description = "Round id"), ("bet_id" = String, Path, description = "Bet id"),
           super::contract::IdempotencyKeyHeader),
    responses(
        (status = 200, body = PegLegBetView),
        (status = 400, body = ErrorBody),
        (status = 403, body = ErrorBody),
        (status = 404, body = ErrorBody),
        (status = 409, body = ErrorBody, description = "a stale quote, a closed window, a bet already closed, or a round not dealing"),
))]
#[post("/api/v1/peg-leg-rounds/{id}/bets/{bet_id}/surrender")]
pub async fn surrender(
    state: web::Data<AppState>,
    caller: Caller,
    req: HttpRequest,
    path: web::Path<(String, String)>,
    body: web::Json<SurrenderPegLegBet>,
) -> ApiResult<HttpResponse> {
    caller.require(&[Role::Player])?;
    let idem = IdempotentRequest::from_request(&req, &*body)?;
    let (round_id, bet_id) = path.into_inner();
    let quote_id = body.into_inner().quote_id;
    let id = round_id.clone();
    let v = viewer(&caller);
    let response = idempotency::run(&state, &caller.user_id.clone(), idem, StatusCode::OK, move |conn, _| {
        let bet = service::surrender(conn, &id, &caller.user_id, &bet_id, &quote_id)?;
        own_bet(conn, &id, &bet.id, &v)
    })
    .await?;
    if response.status().is_success() {
        publish(&state, round_id).await;
    }
    Ok(response)
}

/// Voids a round not yet over (pit boss), with a reason: open bets are refunded, surrendered
/// ones stand, the seed is revealed. A significant event, with the reason.
#[utoipa::path(operation_id = "peg_leg_void", tag = "peg leg", security(("bearer" = [])),
    request_body = super::prima_carta::VoidRequest,
    params(("id" = String, Path, description = "Round id"), super::contract::IdempotencyKeyHeader),
    responses(
        (status = 200, body = PegLegRoundView),
        (status = 403, body = ErrorBody),
        (status = 404, body = ErrorBody),
        (status = 409, body = ErrorBody, description = "the round is already over"),
))]
#[post("/api/v1/peg-leg-rounds/{id}/void")]
pub async fn void(
    state: web::Data<AppState>,
    caller: Caller,
    req: HttpRequest,
    path: web::Path<String>,
    body: web::Json<super::prima_carta::VoidRequest>,
) -> ApiResult<HttpResponse> {
    caller.require(&[Role::Pitboss])?;
    let reason = super::contract::check_reason(&body.into_inner().reason, "a void")?;
    let idem = IdempotentRequest::from_request(&req, &())?;
    let round_id = path.into_inner();
    let id = round_id.clone();
    let s = state.get_ref().clone();
    let v = viewer(&caller);
    let response = idempotency::run(&state, &caller.user_id.clone(), idem, StatusCode::OK, move |conn, _| {
        let row = service::void(conn, &s.vault, &id, &caller.user_id, &reason)?;
        view_for(conn, &s, &row, &v)
    })
    .await?;
    if response.status().is_success() {
        publish(&state, round_id).await;
    }
    Ok(response)
}

/// The recall of a settled or voided round (its bettors, the dealers, pit boss, auditor):
/// the revealed seed and the deck, every quote with what it was computed from, every bet,
/// every transfer, and the server's verification of all of it.
#[utoipa::path(operation_id = "peg_leg_recall", tag = "peg leg", security(("bearer" = [])),
    params(("id" = String, Path, description = "Round id")),
    responses(
        (status = 200, body = PegLegRecall),
        (status = 403, body = ErrorBody),
        (status = 404, body = ErrorBody),
        (status = 409, body = ErrorBody, description = "the round is not over yet"),
))]
#[get("/api/v1/peg-leg-rounds/{id}/recall")]
pub async fn recall(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<String>,
) -> ApiResult<web::Json<PegLegRecall>> {
    caller.require(&READERS)?;
    let round_id = path.into_inner();
    let recall = state
        .blocking(move |s| {
            let mut conn = s.db.conn()?;
            let row = service::find(&mut conn, &round_id)?;
            if caller.role == Role::Player
                && !service::bets(&mut conn, &row.id)?
                    .iter()
                    .any(|bet| bet.player_id == caller.user_id)
            {
                return Err(ApiError::forbidden("players may recall only rounds they bet on"));
            }
            let mut recall = service::recall(&mut conn, &s.vault, &round_id, &viewer(&caller))?;
            // The proof takes connections of its own.
            drop(conn);
            let key = &s.settings.checkpoint_key;
            let game = crate::game_registry::Game::PegLeg.id();
            let proof = crate::rounds::ledger_proof::prove(&s.db, key, game, &recall.round.id, &recall.transfers)?;
            recall.ledger_proof = Some(proof);
            recall.verification = service::verify_recall(&recall);
            Ok(recall)
        })
        .await?;
    Ok(web::Json(recall))
}

#[derive(Deserialize, utoipa::IntoParams)]
#[serde(deny_unknown_fields)]
pub struct RtpPeriod {
    /// Bets placed at or after this instant (microseconds since the Unix epoch).
    pub from_us: Option<i64>,
    /// Bets placed before this instant.
    pub to_us: Option<i64>,
}

/// Observed against promised RTP of a Peg Leg table's settled bets (auditor, pit boss): what
/// the bets returned, what the prices they were placed at promised, and whether the
/// difference lies outside the 99% band.
#[utoipa::path(operation_id = "peg_leg_observed_rtp", tag = "peg leg", security(("bearer" = [])),
    params(("id" = String, Path, description = "Table id"), RtpPeriod),
    responses(
        (status = 200, body = PegLegRtp),
        (status = 400, body = ErrorBody),
        (status = 403, body = ErrorBody),
        (status = 404, body = ErrorBody),
        (status = 422, body = ErrorBody, description = "not a Peg Leg table"),
))]
#[get("/api/v1/tables/{id}/peg-leg-rtp")]
pub async fn observed_rtp(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<String>,
    period: web::Query<RtpPeriod>,
) -> ApiResult<web::Json<PegLegRtp>> {
    caller.require(&[Role::Auditor, Role::Pitboss])?;
    let table_id = path.into_inner();
    let RtpPeriod { from_us, to_us } = period.into_inner();
    let rtp = state
        .blocking(move |s| {
            let mut conn = s.db.conn()?;
            let table = load_table(&mut conn, &table_id)?;
            if !matches!(table.config, crate::tables::TableConfig::PegLeg(_)) {
                return Err(PegLegRoundError::WrongGame.into());
            }
            Ok(service::observed_rtp(&mut conn, &table_id, from_us, to_us)?)
        })
        .await?;
    Ok(web::Json(rtp))
}
