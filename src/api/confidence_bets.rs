//! Confidence bets between players at a Prima Carta round, over HTTP (docs/confidence-bets.md):
//! offer, accept, decline, withdraw, and the round's list as the caller may see it. Each change
//! runs in one write transaction behind the round's row lock and is published on the table's
//! live stream with the round.

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
use crate::games::prima_carta::confidence::{Side, Terms};
use crate::rounds::prima_carta::confidence::{self as service, ConfidenceBetView, ConfidenceError, NewOffer};
use crate::rounds::prima_carta::{round_config, seats};
use crate::transcript::{Pseudonyms, Viewer};

impl From<ConfidenceError> for ApiError {
    fn from(e: ConfidenceError) -> ApiError {
        use ConfidenceError as C;
        let message = e.to_string();
        match e {
            C::NotFound => ApiError::not_found("confidence bet"),
            C::BadTerms(_) => ApiError::unprocessable("invalid_terms", message),
            C::WindowClosed { .. } => ApiError::conflict("offer_window_closed", message),
            C::NotAllowed(_) => ApiError::forbidden(message),
            C::NotOpen { .. } => ApiError::conflict("offer_not_open", message),
            C::StakeOutOfRange(_) => ApiError::unprocessable("bet_out_of_range", message),
            C::TooManyOffers => ApiError::conflict("too_many_offers", message),
            C::InsufficientFunds { needed, balance } => ApiError::unprocessable("insufficient_funds", message)
                .with_details(serde_json::json!({ "needed": needed, "balance": balance })),
            C::Protection(refusal) => ApiError::from(refusal),
            C::Ledger(l) => ApiError::from(l),
            C::Database(d) => ApiError::from(d),
            C::Corrupt(m) => {
                tracing::error!(error = %m, "a stored confidence bet does not read back");
                ApiError::internal(m)
            }
        }
    }
}

/// An offer. `kind` chooses the terms; the fields each kind reads are listed with it, and a
/// field another kind reads is refused.
#[derive(Deserialize, Serialize, ToSchema, Debug)]
#[serde(deny_unknown_fields)]
pub struct OfferRequest {
    /// `prima` (suit, ace_voids), `fuerza` (suit), `seguro` (suit, share_bp), `wins` (suit),
    /// `first_to_complete` (suit) or `first_pass_count` (min, max).
    #[schema(value_type = super::contract::ConfidenceKindName, example = "prima")]
    pub kind: String,
    #[schema(value_type = Option<super::contract::SuitName>)]
    pub suit: Option<String>,
    /// Prima: a first card that is the suit's 1 voids the bet (default false).
    pub ace_voids: Option<bool>,
    /// first_pass_count: the fewest and most cards in the five stacks after the first pass.
    #[serde(default, deserialize_with = "crate::domain::whole::option")]
    #[schema(minimum = 10, maximum = 50)]
    pub min: Option<u8>,
    #[serde(default, deserialize_with = "crate::domain::whole::option")]
    #[schema(minimum = 10, maximum = 50)]
    pub max: Option<u8>,
    /// seguro: the backer's share of the backed player's winnings, in basis points (default
    /// 5000: half).
    #[serde(default, deserialize_with = "crate::domain::whole::option")]
    #[schema(minimum = 1, maximum = 10000)]
    pub share_bp: Option<u32>,
    /// `for` or `against` the proposition. Prima and Fuerza fix it: the suit's seated player is
    /// against, the backer for.
    #[schema(value_type = Option<super::contract::SideName>, example = "for")]
    pub side: Option<String>,
    /// What the offerer stakes, held from the offer (a Seguro's: the contribution to the copa).
    #[schema(value_type = super::contract::Amount, example = "5.00")]
    pub stake: String,
    /// What the taker must stake: with `stake`, the odds (4:1 is a taker's 20.00 against 5.00).
    /// Left out of a Seguro, whose backed player stakes nothing now; required otherwise.
    #[schema(value_type = Option<super::contract::Amount>, example = "20.00")]
    pub taker_stake: Option<String>,
    /// The one player who may take it (their account id); anyone eligible when left out. A
    /// backer's Prima or Fuerza goes to the suit's seated player.
    pub to_player_id: Option<String>,
}

fn parse_amount(text: &str, field: &str) -> Result<Amount, ApiError> {
    Amount::parse(text).map_err(|e| ApiError::bad_request("invalid_amount", format!("{field}: {e}")))
}

impl OfferRequest {
    fn terms(&self) -> Result<Terms, ApiError> {
        let unused = |fields: &[(&str, bool)]| -> Result<(), ApiError> {
            match fields.iter().find(|(_, present)| *present) {
                Some((name, _)) => Err(ApiError::unprocessable(
                    "invalid_terms",
                    format!("a {} bet does not read `{name}`", self.kind),
                )),
                None => Ok(()),
            }
        };
        let suit = || -> Result<Suit, ApiError> {
            let name = self
                .suit
                .as_deref()
                .ok_or_else(|| ApiError::unprocessable("invalid_terms", format!("a {} bet names a suit", self.kind)))?;
            Suit::parse(name).ok_or_else(|| {
                ApiError::bad_request("invalid_suit", "suit must be crowns, locks, fruit, swords or cups")
            })
        };
        let counts = [
            ("min", self.min.is_some()),
            ("max", self.max.is_some()),
            ("share_bp", self.share_bp.is_some()),
        ];
        let terms = match self.kind.as_str() {
            "seguro" => {
                unused(&counts[..2])?;
                unused(&[("ace_voids", self.ace_voids.is_some())])?;
                Terms::Seguro {
                    suit: suit()?,
                    share_bp: self.share_bp.unwrap_or(5_000),
                }
            }
            "prima" => {
                unused(&counts)?;
                Terms::Prima {
                    suit: suit()?,
                    ace_voids: self.ace_voids.unwrap_or(false),
                }
            }
            "fuerza" | "wins" | "first_to_complete" => {
                unused(&counts)?;
                unused(&[("ace_voids", self.ace_voids.is_some())])?;
                let suit = suit()?;
                match self.kind.as_str() {
                    "fuerza" => Terms::Fuerza { suit },
                    "wins" => Terms::Wins { suit },
                    _ => Terms::FirstToComplete { suit },
                }
            }
            "first_pass_count" => {
                unused(&[
                    ("suit", self.suit.is_some()),
                    ("ace_voids", self.ace_voids.is_some()),
                    ("share_bp", self.share_bp.is_some()),
                ])?;
                match (self.min, self.max) {
                    (Some(min), Some(max)) => Terms::FirstPassCount { min, max },
                    _ => {
                        return Err(ApiError::unprocessable(
                            "invalid_terms",
                            "a first_pass_count bet names min and max",
                        ))
                    }
                }
            }
            _ => {
                return Err(ApiError::bad_request(
                    "unknown_bet_kind",
                    "kind must be prima, fuerza, seguro, wins, first_to_complete or first_pass_count",
                ))
            }
        };
        Ok(terms)
    }

    fn side(&self) -> Result<Option<Side>, ApiError> {
        match self.side.as_deref() {
            None => Ok(None),
            Some("for") => Ok(Some(Side::For)),
            Some("against") => Ok(Some(Side::Against)),
            Some(_) => Err(ApiError::bad_request("invalid_side", "side must be for or against")),
        }
    }
}

/// The round's confidence bets as `viewer` sees them (seats named first, as the round's view).
fn views_of(
    conn: &mut crate::store::AnyConnection,
    round_id: &str,
    viewer: &Viewer,
) -> Result<Vec<ConfidenceBetView>, ApiError> {
    let mut names = Pseudonyms::default();
    let mut seated = seats(conn, round_id)?;
    seated.sort_by_key(|s| s.suit());
    for s in &seated {
        names.of(&s.player_id);
    }
    Ok(service::views(&service::of_round(conn, round_id)?, &mut names, viewer))
}

fn view_of(
    conn: &mut crate::store::AnyConnection,
    round_id: &str,
    bet_id: &str,
    viewer: &Viewer,
) -> Result<ConfidenceBetView, ApiError> {
    views_of(conn, round_id, viewer)?
        .into_iter()
        .find(|v| v.id == bet_id)
        .ok_or_else(|| ApiError::not_found("confidence bet"))
}

/// Offers a confidence bet on a Prima Carta round (player). The offerer's stake moves from
/// their wallet to the round's escrow at once; it comes back if nobody takes the offer.
#[utoipa::path(tag = "confidence bets", security(("bearer" = [])), request_body = OfferRequest,
    params(super::contract::IdempotencyKeyHeader),
    responses(
        (status = 201, body = ConfidenceBetView),
        (status = 400, body = super::error::ErrorBody),
        (status = 403, body = super::error::ErrorBody, description = "Not a player, or a side this player may not hold."),
        (status = 404, body = super::error::ErrorBody),
        (status = 409, body = super::error::ErrorBody, description = "Not the window for this kind of bet, or too many open offers."),
        (status = 422, body = super::error::ErrorBody, description = "Terms, stakes or funds refused."),
))]
#[post("/api/v1/rounds/{round_id}/confidence-bets")]
pub async fn offer_confidence_bet(
    state: web::Data<AppState>,
    caller: Caller,
    req: HttpRequest,
    path: web::Path<String>,
    body: web::Json<OfferRequest>,
) -> ApiResult<HttpResponse> {
    caller.require(&[Role::Player])?;
    let terms = body.terms()?;
    let side = body.side()?;
    let stake = parse_amount(&body.stake, "stake")?;
    let taker_stake = body
        .taker_stake
        .as_deref()
        .map(|t| parse_amount(t, "taker_stake"))
        .transpose()?;
    let idem = IdempotentRequest::from_request(&req, &*body)?;
    let to = body.into_inner().to_player_id;
    let round_id = path.into_inner();
    let id = round_id.clone();
    let viewer = Viewer::new(&caller.user_id, caller.role);
    let caller_id = caller.user_id.clone();
    let response = idempotency::run(&state, &caller_id, idem, StatusCode::CREATED, move |conn, _key| {
        let (row, _table) = prima_round(conn, &id)?;
        let config = round_config(&row)?;
        let new = NewOffer {
            terms,
            side,
            stake,
            taker_stake,
            to,
        };
        let bet = service::offer(conn, &row, &config, &caller.user_id, new)?;
        view_of(conn, &row.id, &bet.id, &viewer)
    })
    .await?;
    publish_by_id(&state, round_id).await;
    Ok(response)
}

/// A round's confidence bets (any role): every offer and bet with its status, the caller's own
/// parties by account id and everyone else's by pseudonym (staff see every account id).
#[utoipa::path(tag = "confidence bets", security(("bearer" = [])), responses(
    (status = 200, body = Vec<ConfidenceBetView>),
    (status = 404, body = super::error::ErrorBody),
))]
#[get("/api/v1/rounds/{round_id}/confidence-bets")]
pub async fn list_confidence_bets(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<String>,
) -> ApiResult<HttpResponse> {
    let round_id = path.into_inner();
    let viewer = Viewer::new(&caller.user_id, caller.role);
    let views = state
        .blocking(move |s| {
            let mut conn = s.db.conn()?;
            let row = crate::rounds::record::find(&mut conn, &round_id)?
                .filter(|r| r.game == "prima_carta")
                .ok_or_else(|| ApiError::not_found("Prima Carta round"))?;
            views_of(&mut conn, &row.id, &viewer)
        })
        .await?;
    Ok(HttpResponse::Ok().json(views))
}

#[derive(Clone, Copy)]
enum Answer {
    Accept,
    Decline,
    Withdraw,
}

async fn answer(
    state: web::Data<AppState>,
    caller: Caller,
    req: HttpRequest,
    bet_id: String,
    answer: Answer,
) -> ApiResult<HttpResponse> {
    caller.require(&[Role::Player])?;
    let idem = IdempotentRequest::from_request(&req, &())?;
    let viewer = Viewer::new(&caller.user_id, caller.role);
    let caller_id = caller.user_id.clone();
    let state_for_publish = state.clone();
    let (response, round_id) = {
        let round_cell = std::sync::Arc::new(std::sync::Mutex::new(None::<String>));
        let cell = round_cell.clone();
        let response = idempotency::run(&state, &caller_id, idem, StatusCode::OK, move |conn, _key| {
            let bet = service::find(conn, &bet_id)?;
            let (row, _table) = prima_round(conn, &bet.round_id)?;
            // Read again behind the round's lock: the offer as it stands now.
            let bet = service::find(conn, &bet.id)?;
            let bet = match answer {
                Answer::Accept => service::accept(conn, &row, &bet, &caller.user_id)?,
                Answer::Decline => service::decline(conn, &row, &bet, &caller.user_id)?,
                Answer::Withdraw => service::withdraw(conn, &row, &bet, &caller.user_id)?,
            };
            *cell.lock().expect("not poisoned") = Some(row.id.clone());
            view_of(conn, &row.id, &bet.id, &viewer)
        })
        .await?;
        let round_id = round_cell.lock().expect("not poisoned").take();
        (response, round_id)
    };
    if let Some(round_id) = round_id {
        publish_by_id(&state_for_publish, round_id).await;
    }
    Ok(response)
}

/// Takes an open offer (player): the taker's stake moves to the round's escrow; the bet stands
/// until the round is settled. Refused for the offerer, an account held by the same person, a
/// player the offer was not made to, or a side the taker may not hold.
#[utoipa::path(tag = "confidence bets", security(("bearer" = [])),
    params(super::contract::IdempotencyKeyHeader),
    responses(
        (status = 200, body = ConfidenceBetView),
        (status = 403, body = super::error::ErrorBody),
        (status = 404, body = super::error::ErrorBody),
        (status = 409, body = super::error::ErrorBody, description = "The offer is no longer open, or its window has ended."),
        (status = 422, body = super::error::ErrorBody),
))]
#[post("/api/v1/confidence-bets/{bet_id}/accept")]
pub async fn accept_confidence_bet(
    state: web::Data<AppState>,
    caller: Caller,
    req: HttpRequest,
    path: web::Path<String>,
) -> ApiResult<HttpResponse> {
    answer(state, caller, req, path.into_inner(), Answer::Accept).await
}

/// Refuses an offer made to the caller (player): the offerer's stake goes back.
#[utoipa::path(tag = "confidence bets", security(("bearer" = [])),
    params(super::contract::IdempotencyKeyHeader),
    responses(
        (status = 200, body = ConfidenceBetView),
        (status = 403, body = super::error::ErrorBody),
        (status = 404, body = super::error::ErrorBody),
        (status = 409, body = super::error::ErrorBody),
))]
#[post("/api/v1/confidence-bets/{bet_id}/decline")]
pub async fn decline_confidence_bet(
    state: web::Data<AppState>,
    caller: Caller,
    req: HttpRequest,
    path: web::Path<String>,
) -> ApiResult<HttpResponse> {
    answer(state, caller, req, path.into_inner(), Answer::Decline).await
}

/// Takes back the caller's own offer nobody has taken (player): its stake goes back.
#[utoipa::path(tag = "confidence bets", security(("bearer" = [])),
    params(super::contract::IdempotencyKeyHeader),
    responses(
        (status = 200, body = ConfidenceBetView),
        (status = 403, body = super::error::ErrorBody),
        (status = 404, body = super::error::ErrorBody),
        (status = 409, body = super::error::ErrorBody),
))]
#[post("/api/v1/confidence-bets/{bet_id}/withdraw")]
pub async fn withdraw_confidence_bet(
    state: web::Data<AppState>,
    caller: Caller,
    req: HttpRequest,
    path: web::Path<String>,
) -> ApiResult<HttpResponse> {
    answer(state, caller, req, path.into_inner(), Answer::Withdraw).await
}
