//! The house's Fuerza at a Jasper Prima Carta round, over HTTP (docs/confidence-bets.md): the
//! quotes now, and a bet at the price of the quote it names. A bet runs in one write
//! transaction behind the round's row lock and is published on the table's live stream with the
//! round.

use actix_web::http::StatusCode;
use actix_web::{get, post, web, HttpRequest, HttpResponse};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::error::{ApiError, ApiResult};
use super::idempotency::{self, IdempotentRequest};
use super::prima_carta::{prima_round, publish_by_id};
use super::state::AppState;
use crate::auth::Caller;
use crate::cards::Suit;
use crate::domain::{Amount, Role};
use crate::rounds::prima_carta::fuerza::{self as service, FuerzaBetView, FuerzaError, FuerzaView, NewFuerzaBet};
use crate::transcript::{Pseudonyms, Viewer};

impl From<FuerzaError> for ApiError {
    fn from(e: FuerzaError) -> ApiError {
        use FuerzaError as F;
        let message = e.to_string();
        match e {
            F::NotQuoted(_) => ApiError::conflict("fuerza_not_quoted", message),
            F::StaleQuote { current, .. } => ApiError::conflict("stale_quote", message)
                .with_details(serde_json::json!({ "current_version": current })),
            F::StalePrice { now, .. } => {
                ApiError::conflict("stale_quote", message).with_details(serde_json::json!({ "price": now }))
            }
            F::NoPrice(_) => ApiError::conflict("no_price", message),
            F::NotAllowed(_) => ApiError::forbidden(message),
            F::StakeOutOfRange(_) => ApiError::unprocessable("bet_out_of_range", message),
            F::InsufficientFunds { needed, balance } => ApiError::unprocessable("insufficient_funds", message)
                .with_details(serde_json::json!({ "needed": needed, "balance": balance })),
            F::Protection(refusal) => ApiError::from(refusal),
            F::Ledger(l) => ApiError::from(l),
            F::Database(d) => ApiError::from(d),
            F::Corrupt(m) => {
                tracing::error!(error = %m, "a Fuerza quote or bet does not read back");
                ApiError::internal(m)
            }
        }
    }
}

/// A bet with the house on a seated player, at a quote's price.
#[derive(Deserialize, Serialize, ToSchema, Debug)]
#[serde(deny_unknown_fields)]
pub struct FuerzaBetRequest {
    /// The seated player's suit: one who has paid the copa.
    #[schema(value_type = super::contract::SuitName, example = "crowns")]
    pub suit: String,
    #[schema(value_type = super::contract::Amount, example = "10.00")]
    pub stake: String,
    /// The quote's version (the number of copa decisions it follows), from
    /// `GET /api/v1/rounds/{round_id}/fuerza`.
    #[serde(deserialize_with = "crate::domain::whole::integer")]
    #[schema(minimum = 1, maximum = 5)]
    pub quote_version: u32,
    /// The price seen on that quote; a different price is refused as stale.
    #[schema(value_type = super::contract::Amount, example = "2.85")]
    pub price: String,
}

/// The house's Fuerza quotes on a round now (any role): for each seated player who has paid the
/// copa, the estimated chance of winning the main game and the house's price, or why there are
/// none (not a Jasper table, not yet or no longer quoted).
#[utoipa::path(tag = "confidence bets", security(("bearer" = [])), responses(
    (status = 200, body = FuerzaView),
    (status = 404, body = super::error::ErrorBody),
))]
#[get("/api/v1/rounds/{round_id}/fuerza")]
pub async fn fuerza_quotes(
    state: web::Data<AppState>,
    _caller: Caller,
    path: web::Path<String>,
) -> ApiResult<HttpResponse> {
    let round_id = path.into_inner();
    let view = state
        .blocking(move |s| {
            let mut conn = s.db.conn()?;
            let row = crate::rounds::record::find(&mut conn, &round_id)?
                .filter(|r| r.game == "prima_carta")
                .ok_or_else(|| ApiError::not_found("Prima Carta round"))?;
            Ok::<_, ApiError>(match service::quotes(&mut conn, &s.vault, &row)? {
                Ok(quotes) => quotes.view(),
                Err(reason) => FuerzaView::closed(reason),
            })
        })
        .await?;
    Ok(HttpResponse::Ok().json(view))
}

/// Backs a seated player with the house (player), at the price of the quote named: the stake
/// moves from the wallet to the round's escrow; a win returns it at the price when the round
/// is settled.
#[utoipa::path(tag = "confidence bets", security(("bearer" = [])), request_body = FuerzaBetRequest,
    params(super::contract::IdempotencyKeyHeader),
    responses(
        (status = 201, body = FuerzaBetView),
        (status = 400, body = super::error::ErrorBody),
        (status = 403, body = super::error::ErrorBody, description = "Not a player, or a seated player still to decide their copa."),
        (status = 404, body = super::error::ErrorBody),
        (status = 409, body = super::error::ErrorBody, description = "No quote now, a stale quote or price, or no price on this player."),
        (status = 422, body = super::error::ErrorBody, description = "Stake outside the table's limits or the round's exposure, or funds short."),
))]
#[post("/api/v1/rounds/{round_id}/fuerza-bets")]
pub async fn place_fuerza_bet(
    state: web::Data<AppState>,
    caller: Caller,
    req: HttpRequest,
    path: web::Path<String>,
    body: web::Json<FuerzaBetRequest>,
) -> ApiResult<HttpResponse> {
    caller.require(&[Role::Player])?;
    let suit = Suit::parse(&body.suit)
        .ok_or_else(|| ApiError::bad_request("invalid_suit", "suit must be crowns, locks, fruit, swords or cups"))?;
    let stake =
        Amount::parse(&body.stake).map_err(|e| ApiError::bad_request("invalid_amount", format!("stake: {e}")))?;
    let price =
        Amount::parse(&body.price).map_err(|e| ApiError::bad_request("invalid_price", format!("price: {e}")))?;
    // A price past any quote's can only be refused as not the quote's (409), like any other.
    let price_hundredths = u32::try_from(price.minor()).unwrap_or(u32::MAX);
    let idem = IdempotentRequest::from_request(&req, &*body)?;
    let version = body.quote_version;
    let round_id = path.into_inner();
    // Draw the quote before the write transaction (a cached quote is then free behind the lock).
    let warm = round_id.clone();
    let _ = state
        .blocking(move |s| {
            let mut conn = s.db.conn()?;
            if let Some(row) = crate::rounds::record::find(&mut conn, &warm)? {
                if row.game == "prima_carta" {
                    let _ = service::quotes(&mut conn, &s.vault, &row);
                }
            }
            Ok::<_, ApiError>(())
        })
        .await;
    let id = round_id.clone();
    let viewer = Viewer::new(&caller.user_id, caller.role);
    let vault = state.vault.clone();
    let caller_id = caller.user_id.clone();
    let response = idempotency::run(&state, &caller_id, idem, StatusCode::CREATED, move |conn, _key| {
        let (row, _table) = prima_round(conn, &id)?;
        let new = NewFuerzaBet {
            suit,
            stake,
            version,
            price_hundredths,
        };
        let bet = service::place(conn, &vault, &row, &caller.user_id, new)?;
        let mut names = Pseudonyms::default();
        let mut seated = crate::rounds::prima_carta::seats(conn, &row.id)?;
        seated.sort_by_key(|s| s.suit());
        for s in &seated {
            names.of(&s.player_id);
        }
        Ok::<_, ApiError>(bet.view(&mut names, &viewer))
    })
    .await?;
    publish_by_id(&state, round_id).await;
    Ok(response)
}
