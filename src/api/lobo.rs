//! Lobo against the house over HTTP (docs/lobo.md): start a round, play, fold, see the round,
//! ask for a hint, recall a settled round. The logic is in `crate::rounds::lobo`.

use actix_web::http::StatusCode;
use actix_web::{get, post, web, HttpRequest, HttpResponse};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::error::{ApiError, ApiResult, ErrorBody};
use super::idempotency::{self, IdempotentRequest};
use super::state::AppState;
use crate::auth::Caller;
use crate::cards::shuffle::ClientSeed;
use crate::cards::transcript::VerificationReport;
use crate::domain::{Amount, Role};
use crate::games::lobo::solver::{self, HintBasis};
use crate::games::lobo::{Play, PlayKind};
use crate::rounds::lobo::{self as service, LoboError, LoboPlay, LoboResult, LoboView};
use crate::rounds::lobo_hints::HintRefusal;
use crate::rounds::{record, RoundRow};
use crate::tables;
use crate::transcript::{RoundTranscript, Viewer};

impl From<LoboError> for ApiError {
    fn from(e: LoboError) -> ApiError {
        use LoboError as L;
        let message = e.to_string();
        match e {
            L::RoundNotFound => ApiError::not_found("Lobo round"),
            L::Protection(refusal) => ApiError::from(refusal),
            L::TableNotFound => ApiError::not_found("table"),
            L::WrongGame => ApiError::unprocessable("wrong_game", message),
            L::TableClosed => ApiError::conflict("table_closed", message),
            L::RuleNotProven(_) => ApiError::unprocessable("house_rule_not_proven", message),
            L::TableRuleNotProven(_) => ApiError::conflict("house_rule_not_proven", message),
            L::UnitOutOfRange { .. } => ApiError::unprocessable("unit_out_of_range", message),
            L::RoundInProgress { round_id } => {
                let refusal = ApiError::conflict("round_in_progress", message);
                match round_id {
                    Some(id) => refusal.with_details(serde_json::json!({ "round_id": id })),
                    None => refusal,
                }
            }
            L::InsufficientFunds { needed, balance, .. } => ApiError::unprocessable("insufficient_funds", message)
                .with_details(serde_json::json!({ "needed": needed, "balance": balance })),
            L::NoWallet => ApiError::unprocessable("no_wallet", message),
            L::NotYourRound => ApiError::forbidden(message),
            L::StalePlay { .. } => ApiError::conflict("stale_play", message),
            L::IllegalPlay(_) => ApiError::unprocessable("illegal_play", message),
            L::NotSettled => ApiError::conflict("wrong_round_state", message),
            L::Round(r) => ApiError::from(r),
            L::Ledger(l) => ApiError::from(l),
            L::Store(q) => ApiError::from(q),
            L::Database(d) => ApiError::from(d),
            L::Corrupt(m) => {
                tracing::error!(error = %m, "a stored Lobo round does not read back");
                ApiError::internal(m)
            }
        }
    }
}

#[derive(Deserialize, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct StartLoboRound {
    /// The stake per point, within the table's unit range (422 outside it).
    #[schema(value_type = super::contract::Amount, example = "1.00")]
    pub unit: Amount,
    /// Optional, 1 to 64 printable ASCII characters; enters the shuffle raw (docs/shuffle.md).
    #[schema(min_length = 1, max_length = 64, pattern = r"^[ -~]*$")]
    pub client_seed: Option<String>,
}

#[derive(Deserialize, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct LoboPlayRequest {
    /// perfect, sum, split or over (fold has its own endpoint, but is accepted here too).
    #[schema(value_type = super::contract::PlayKindName, example = "perfect")]
    pub kind: PlayKind,
    /// Card ids from the player's hand.
    #[serde(default, deserialize_with = "crate::domain::whole::list")]
    #[schema(value_type = Vec<super::contract::CardId>)]
    pub player_cards: Vec<u8>,
    /// Card ids from the Wolf's hand.
    #[serde(default, deserialize_with = "crate::domain::whole::list")]
    #[schema(value_type = Vec<super::contract::CardId>)]
    pub wolf_cards: Vec<u8>,
    /// The number of plays the client has seen (`plays_made` of its view): a stale or
    /// repeated play is refused with 409.
    #[serde(deserialize_with = "crate::domain::whole::integer")]
    #[schema(maximum = 4294967295_u64)]
    pub expected_plays: u32,
}

#[derive(Deserialize, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct LoboFoldRequest {
    /// The number of plays the client has seen (`plays_made` of its view).
    #[serde(deserialize_with = "crate::domain::whole::integer")]
    #[schema(maximum = 4294967295_u64)]
    pub expected_plays: u32,
}

#[derive(Serialize, ToSchema)]
pub struct LoboHint {
    pub play: LoboPlay,
    /// Expected net points from here with this play (absent for a heuristic hint).
    pub value_points: Option<f64>,
    /// True when solved under the full rules.
    pub exact: bool,
    /// exact, restricted_overs or heuristic.
    pub basis: String,
    /// For restricted_overs: the largest Over difference the solve allowed.
    pub max_over_difference: Option<u8>,
    pub label: String,
    pub states: u64,
    /// The hint is for the position after this many plays.
    pub plays_made: usize,
    /// Answered from memory: this position was solved before (for anyone).
    pub cached: bool,
}

#[derive(Serialize, ToSchema)]
pub struct LoboRecall {
    pub round: LoboView,
    /// The round's transcript (docs/transcript.md): the deck, the rules, the
    /// plays, the outcome and every transfer.
    #[schema(value_type = Object)]
    pub transcript: RoundTranscript<'static>,
    /// The transcript replayed by the server (anyone can redo it: `djego verify round`).
    #[schema(value_type = Object)]
    pub verification: VerificationReport,
    pub plays: Vec<LoboPlay>,
    pub result: Option<LoboResult>,
}

/// Starts a Lobo round: deals, escrows unit × loss cap, charges the house rule.
#[utoipa::path(tag = "lobo", security(("bearer" = [])), request_body = StartLoboRound,
    params(("id" = String, Path, description = "Table id"),
           super::contract::IdempotencyKeyHeader),
    responses(
        (status = 201, body = LoboView),
        (status = 400, body = ErrorBody),
        (status = 403, body = ErrorBody),
        (status = 404, body = ErrorBody),
        (status = 409, body = ErrorBody, description = "table closed, rule not proven, or a round of yours is in play here (`round_in_progress`, its id in `details.round_id`)"),
        (status = 422, body = ErrorBody, description = "unit out of range, insufficient funds, not a Lobo table"),
))]
#[post("/api/v1/tables/{id}/lobo-rounds")]
pub async fn start_round(
    state: web::Data<AppState>,
    caller: Caller,
    req: HttpRequest,
    path: web::Path<String>,
    body: web::Json<StartLoboRound>,
) -> ApiResult<HttpResponse> {
    caller.require(&[Role::Player])?;
    let client_seed = match &body.client_seed {
        None => None,
        Some(text) => {
            Some(ClientSeed::parse(text).map_err(|e| ApiError::bad_request("invalid_client_seed", e.to_string()))?)
        }
    };
    let idem = IdempotentRequest::from_request(&req, &*body)?;
    let table_id = path.into_inner();
    let unit = body.unit;
    let vault = state.vault.clone();
    let player = caller.user_id.clone();
    let started = std::sync::Arc::new(std::sync::Mutex::new(None::<String>));
    let started_in = started.clone();
    let response = idempotency::run(&state, &caller.user_id, idem, StatusCode::CREATED, move |conn, key| {
        let table = tables::find(conn, &table_id)?.ok_or_else(|| ApiError::not_found("table"))?;
        let view = service::start_round(conn, &vault, &table, &player, unit, client_seed.as_ref(), key)
            .map_err(ApiError::from)?;
        *started_in.lock().unwrap_or_else(|p| p.into_inner()) = Some(view.id.clone());
        Ok(view)
    })
    .await?;
    // A replayed answer started nothing new: nothing to tell.
    let round_id = started.lock().unwrap_or_else(|p| p.into_inner()).take();
    if let Some(round_id) = round_id {
        publish(&state, round_id).await;
    }
    Ok(response)
}

/// What a Lobo table's house rule costs, in the player's terms: the fee, the house's proven edge
/// and what the best possible player loses per round (docs/lobo.md, §5). Figures per unit of the
/// round's stake; percentages of the expected amount at risk.
#[derive(Serialize, ToSchema)]
pub struct LoboHouseEdge {
    pub mode: tables::config::LoboMode,
    pub loss_cap_points: u32,
    /// The expected charge per round (the fee, plus the ante's expectation), in units.
    #[schema(example = 1.83)]
    pub charge_units: f64,
    /// The expected amount at risk per round, in units: the charge plus what folding at once costs.
    pub amount_at_risk_units: f64,
    /// The smallest edge the rule is proven to give the house against any player, in percent of
    /// the amount at risk (at 99.9% confidence); null when no bound proves the house is favoured
    /// (a cap below 20, or a fee under the bound: the table needed a pit boss's override).
    pub proven_house_edge_percent: Option<f64>,
    /// The best possible player's expected loss per round, fee included, lies in this range, in
    /// units and in percent of the amount at risk; null below every proven cap.
    pub perfect_player_loss_units: Option<[f64; 2]>,
    pub perfect_player_loss_percent: Option<[f64; 2]>,
    /// How the figures were reached, in plain words.
    pub basis: String,
}

impl LoboHouseEdge {
    pub fn of(config: &tables::config::LoboConfig) -> LoboHouseEdge {
        use crate::games::lobo::{
            expected_amount_at_risk_units, lower_bound, perfect_player_cost, proven_edge, upper_bound, UpperBasis,
        };
        let mode = config.mode.engine();
        let cap = Some(config.loss_cap_points);
        let rule = &config.house_rule;
        let cost = perfect_player_cost(mode, rule, cap);
        let lower = lower_bound(mode, cap);
        let basis = match upper_bound(mode, cap) {
            Some(upper) => {
                let below = match lower.samples {
                    None => format!("exactly {:+.4} points over every opening hand", lower.value_points),
                    Some(n) => format!(
                        "at least {:+.4} points at 99.9% confidence, measured on {n} dealt rounds with no cap, which holds at every cap",
                        lower.value_points
                    ),
                };
                let above = match upper.basis {
                    UpperBasis::ExactLowerPlusGap { lower, .. } => format!(
                        "that strategy's exact value over every opening hand at a cap of 20 points ({:+.4}) plus the 99.9% limit \
                         of the gap to a player who sees the deck and pays for what it reveals, measured on {} dealt rounds",
                        lower.value_points, upper.samples
                    ),
                    UpperBasis::SampledLimit { .. } => format!(
                        "the 99.9% limit of the value of a player who sees the deck and pays for what it reveals, measured on {} \
                         dealt rounds at a cap of 20 points",
                        upper.samples
                    ),
                };
                format!(
                    "The best possible player's value per round lies between two bounds. Below: best play making Overs of at \
                     most one point, {below}. Above: {above}: {:+.4} points, which holds at every larger cap.",
                    upper.value_points
                )
            }
            None => format!(
                "No bound on the best possible player holds at a loss cap under {} points.",
                crate::games::lobo::MIN_PROVEN_LOSS_CAP_POINTS
            ),
        };
        LoboHouseEdge {
            mode: config.mode,
            loss_cap_points: config.loss_cap_points,
            charge_units: rule.expected_charge_units(mode),
            amount_at_risk_units: expected_amount_at_risk_units(mode, rule, cap),
            proven_house_edge_percent: proven_edge(mode, rule, cap).map(|p| p.house_edge_percent_at_least),
            perfect_player_loss_units: cost.map(|c| [c.loss_units_at_least, c.loss_units_at_most]),
            perfect_player_loss_percent: cost.map(|c| [c.loss_percent_at_least, c.loss_percent_at_most]),
            basis,
        }
    }
}

/// What a Lobo table's house rule costs a player: the fee, the house's proven edge, and the
/// range the best possible player's loss per round lies in. Any signed-in user.
#[utoipa::path(operation_id = "lobo_house_edge", tag = "lobo", security(("bearer" = [])),
    params(("id" = String, Path, description = "Table id")),
    responses(
        (status = 200, body = LoboHouseEdge),
        (status = 404, body = ErrorBody),
        (status = 422, body = ErrorBody, description = "Not a Lobo table."),
))]
#[get("/api/v1/tables/{id}/lobo-house-edge")]
pub async fn house_edge(
    state: web::Data<AppState>,
    _caller: Caller,
    path: web::Path<String>,
) -> ApiResult<web::Json<LoboHouseEdge>> {
    let table_id = path.into_inner();
    let edge = state
        .blocking(move |s| {
            let mut conn = s.db.conn()?;
            let table = tables::find(&mut conn, &table_id)?.ok_or_else(|| ApiError::not_found("table"))?;
            Ok::<_, ApiError>(LoboHouseEdge::of(service::config_of(&table)?))
        })
        .await?;
    Ok(web::Json(edge))
}

/// A Lobo table's rounds, newest first (pit boss, auditor), each as its
/// player's view: nothing face down. A player finds their own with
/// `GET /api/v1/me/rounds`.
#[utoipa::path(operation_id = "lobo_list_rounds", tag = "lobo", security(("bearer" = [])),
    params(("id" = String, Path, description = "Table id"), super::prima_carta::RoundsQuery),
    responses(
        (status = 200, body = Vec<LoboView>),
        (status = 403, body = ErrorBody),
        (status = 404, body = ErrorBody),
        (status = 422, body = ErrorBody, description = "Not a Lobo table."),
))]
#[get("/api/v1/tables/{id}/lobo-rounds")]
pub async fn list_rounds(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<String>,
    query: web::Query<super::prima_carta::RoundsQuery>,
) -> ApiResult<web::Json<Vec<LoboView>>> {
    caller.require(&[Role::Auditor, Role::Pitboss])?;
    let table_id = path.into_inner();
    let page = super::pagination::Page::new(query.limit, None)?;
    let views = state
        .blocking(move |s| {
            let mut conn = s.db.conn()?;
            let table = tables::find(&mut conn, &table_id)?.ok_or_else(|| ApiError::not_found("table"))?;
            service::config_of(&table)?;
            record::for_table(&mut conn, &table_id, page.limit)?
                .iter()
                .map(|row| round_view(&s.vault, row))
                .collect::<Result<Vec<_>, _>>()
        })
        .await?;
    Ok(web::Json(views))
}

fn may_read(caller: &Caller, row: &RoundRow) -> Result<(), ApiError> {
    caller.require(&[Role::Player, Role::Auditor, Role::Pitboss])?;
    if caller.role == Role::Player && row.created_by != caller.user_id {
        return Err(ApiError::forbidden("players may see only their own rounds"));
    }
    Ok(())
}

fn load(conn: &mut crate::store::AnyConnection, round_id: &str) -> Result<RoundRow, ApiError> {
    if uuid::Uuid::parse_str(round_id).is_err() {
        return Err(ApiError::not_found("Lobo round"));
    }
    let row = record::find(conn, round_id)?.ok_or_else(|| ApiError::not_found("Lobo round"))?;
    if row.game != "lobo" {
        return Err(ApiError::not_found("Lobo round"));
    }
    Ok(row)
}

/// A Lobo round: the player's view (never a face-down card), its money and result.
#[utoipa::path(operation_id = "lobo_get_round", tag = "lobo", security(("bearer" = [])),
    params(("id" = String, Path, description = "Round id")),
    responses(
        (status = 200, body = LoboView),
        (status = 403, body = ErrorBody),
        (status = 404, body = ErrorBody),
))]
#[get("/api/v1/lobo-rounds/{id}")]
pub async fn get_round(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<String>,
) -> ApiResult<web::Json<LoboView>> {
    caller.require(&[Role::Player, Role::Auditor, Role::Pitboss])?;
    let round_id = path.into_inner();
    let view = state
        .blocking(move |s| {
            let mut conn = s.db.conn()?;
            let row = load(&mut conn, &round_id)?;
            may_read(&caller, &row)?;
            round_view(&s.vault, &row)
        })
        .await?;
    Ok(web::Json(view))
}

/// Makes a play by card ids. 422 with the engine's reason when illegal; 409 when
/// `expected_plays` is not the number of plays made (stale or repeated).
#[utoipa::path(operation_id = "lobo_make_play", tag = "lobo", security(("bearer" = [])), request_body = LoboPlayRequest,
    params(("id" = String, Path, description = "Round id"),
           super::contract::IdempotencyKeyHeader),
    responses(
        (status = 200, body = LoboView),
        (status = 400, body = ErrorBody),
        (status = 403, body = ErrorBody),
        (status = 404, body = ErrorBody),
        (status = 409, body = ErrorBody),
        (status = 422, body = ErrorBody),
))]
#[post("/api/v1/lobo-rounds/{id}/plays")]
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

/// Folds: the player pays the Wolf's hand (at most the loss cap) and the round settles.
#[utoipa::path(operation_id = "lobo_fold", tag = "lobo", security(("bearer" = [])), request_body = LoboFoldRequest,
    params(("id" = String, Path, description = "Round id"),
           super::contract::IdempotencyKeyHeader),
    responses(
        (status = 200, body = LoboView),
        (status = 400, body = ErrorBody),
        (status = 403, body = ErrorBody),
        (status = 404, body = ErrorBody),
        (status = 409, body = ErrorBody),
))]
#[post("/api/v1/lobo-rounds/{id}/fold")]
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
    round_id: String,
    play: LoboPlay,
    expected_plays: u32,
) -> ApiResult<HttpResponse> {
    if uuid::Uuid::parse_str(&round_id).is_err() {
        return Err(ApiError::not_found("Lobo round"));
    }
    let vault = state.vault.clone();
    let player = caller.user_id.clone();
    let played = round_id.clone();
    let response = idempotency::run(&state, &caller.user_id, idem, StatusCode::OK, move |conn, _key| {
        load(conn, &played)?;
        Ok(service::make_play(
            conn,
            &vault,
            &played,
            &player,
            &play,
            expected_plays as usize,
        )?)
    })
    .await?;
    publish(&state, round_id).await;
    Ok(response)
}

/// Voids a round in play (pit boss): the escrow and the house rule's charge go back to the
/// player, and the seed is revealed. Significant events: the void with its reason, the reveal.
#[utoipa::path(operation_id = "lobo_void", tag = "lobo", security(("bearer" = [])), request_body = super::prima_carta::VoidRequest,
    params(("id" = String, Path, description = "Round id"),
           super::contract::IdempotencyKeyHeader),
    responses(
        (status = 200, body = LoboView),
        (status = 400, body = ErrorBody),
        (status = 403, body = ErrorBody),
        (status = 404, body = ErrorBody),
        (status = 409, body = ErrorBody, description = "the round is over"),
))]
#[post("/api/v1/lobo-rounds/{id}/void")]
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
    let round_id = path.into_inner();
    let voided = round_id.clone();
    let vault = state.vault.clone();
    let pit_boss = caller.user_id.clone();
    let response = idempotency::run(&state, &caller.user_id, idem, StatusCode::OK, move |conn, _key| {
        load(conn, &voided)?;
        Ok(service::void(conn, &vault, &voided, &pit_boss, &reason)?)
    })
    .await?;
    publish(&state, round_id).await;
    Ok(response)
}

/// Tells the table's watchers, on this instance and the others, about the
/// round as it now stands: the player's view, which holds no face-down card.
async fn publish(state: &web::Data<AppState>, round_id: String) {
    let view = state
        .blocking(move |s| {
            let mut conn = s.db.conn()?;
            round_view(&s.vault, &load(&mut conn, &round_id)?)
        })
        .await;
    if let Ok(view) = view {
        publish_locally(state, &view);
        super::live_relay::announce(state, &view.table_id, Some(&view.id));
    }
}

/// Tells this instance's watchers of the table (`lobo_round`): any account watches, so the
/// round's player is not named.
pub fn publish_locally(state: &AppState, view: &LoboView) {
    state
        .live
        .publish(&view.table_id, "lobo_round", &view.clone().for_watchers());
}

/// The round as the table's watchers see it, for the live stream's first `state`.
pub fn watcher_view(vault: &crate::rounds::SeedVault, row: &RoundRow) -> Result<LoboView, ApiError> {
    Ok(round_view(vault, row)?.for_watchers())
}

/// [`publish`] for a change made outside a request (a round folded by its timeout).
fn tell_watchers(state: &AppState, view: &LoboView) {
    publish_locally(state, view);
    super::live_relay::announce_now(state, &view.table_id, Some(&view.id));
}

/// Tells the tables' watchers, here and on the other instances, of everything a pass of the
/// sweep changed: rounds folded (`lobo_round`) and contests moved on (`lobo_contest`).
pub fn tell_swept(state: &AppState, swept: &crate::rounds::lobo_timeouts::Swept) {
    for view in &swept.rounds {
        tell_watchers(state, view);
    }
    for view in &swept.contests {
        super::lobo_contests::tell_watchers(state, view);
    }
}

pub(super) fn round_view(vault: &crate::rounds::SeedVault, row: &RoundRow) -> Result<LoboView, ApiError> {
    let (config, st) = service::state_of(vault, row)?;
    Ok(service::view(row, &config, &st)?)
}

/// The solver's best play for the round's position (when the table offers hints), labelled
/// exact, restricted_overs (best play with Overs limited; the value a lower bound) or heuristic.
/// A position is solved once and then answered from memory; a player may ask for only so many
/// new positions a minute (429 `too_many_hints`), and when every solver is busy the answer is
/// 503 `hints_busy`; both say when to ask again (`Retry-After`).
#[utoipa::path(tag = "lobo", security(("bearer" = [])),
    params(("id" = String, Path, description = "Round id")),
    responses(
        (status = 200, body = LoboHint),
        (status = 403, body = ErrorBody),
        (status = 404, body = ErrorBody),
        (status = 409, body = ErrorBody),
        (status = 429, body = ErrorBody, description = "too many new positions this minute (`Retry-After`)"),
        (status = 503, body = ErrorBody, description = "every hint solver is busy (`Retry-After`)"),
))]
#[get("/api/v1/lobo-rounds/{id}/hint")]
pub async fn hint(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<String>,
) -> ApiResult<web::Json<LoboHint>> {
    caller.require(&[Role::Player])?;
    let round_id = path.into_inner();
    let hint = state
        .blocking(move |s| {
            let (config, st) = {
                let mut conn = s.db.conn()?;
                let row = load(&mut conn, &round_id)?;
                may_read(&caller, &row)?;
                row.require_status(&[crate::rounds::RoundStatus::InPlay], "hint")?;
                let table = tables::find(&mut conn, &row.table_id)?.ok_or_else(|| ApiError::not_found("table"))?;
                if !service::config_of(&table)?.hints {
                    return Err(ApiError::conflict("hints_off", "this table does not offer hints"));
                }
                service::state_of(&s.vault, &row)?
            };
            // The connection is back in the pool before the solve.
            let plays_made = st.plays().len();
            let answer = s
                .hints
                .hint(&caller.user_id, &round_id, plays_made, || {
                    solver::hint(&st, Some(config.table.loss_cap_points), service::HINT_STATE_BUDGET)
                })
                .map_err(|refusal| match refusal {
                    HintRefusal::TooMany { retry_after_s } => {
                        ApiError::new(StatusCode::TOO_MANY_REQUESTS, "too_many_hints", refusal.to_string())
                            .retry_after(retry_after_s)
                    }
                    HintRefusal::Busy => {
                        ApiError::new(StatusCode::SERVICE_UNAVAILABLE, "hints_busy", refusal.to_string()).retry_after(1)
                    }
                })?;
            let (h, cached) = answer.ok_or_else(|| ApiError::conflict("wrong_round_state", "the round is over"))?;
            let (basis, max_over) = match h.basis {
                HintBasis::Exact => ("exact", None),
                HintBasis::RestrictedOvers { max_over_difference } => ("restricted_overs", Some(max_over_difference)),
                HintBasis::Heuristic => ("heuristic", None),
            };
            Ok(LoboHint {
                play: LoboPlay::from(&h.play),
                value_points: h.value_points,
                exact: h.exact,
                basis: basis.to_string(),
                max_over_difference: max_over,
                label: h.label,
                states: h.states,
                plays_made,
                cached,
            })
        })
        .await?;
    Ok(web::Json(hint))
}

/// The recall of a settled round: the shuffle transcript with the revealed seed and its
/// verification, every play, every ledger transfer of the round, the result.
#[utoipa::path(operation_id = "lobo_recall", tag = "lobo", security(("bearer" = [])),
    params(("id" = String, Path, description = "Round id")),
    responses(
        (status = 200, body = LoboRecall),
        (status = 403, body = ErrorBody),
        (status = 404, body = ErrorBody),
        (status = 409, body = ErrorBody, description = "the round is not settled yet"),
))]
#[get("/api/v1/lobo-rounds/{id}/recall")]
pub async fn recall(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<String>,
) -> ApiResult<web::Json<LoboRecall>> {
    caller.require(&[Role::Player, Role::Auditor, Role::Pitboss])?;
    let round_id = path.into_inner();
    let recall = state
        .blocking(move |s| {
            let mut conn = s.db.conn()?;
            let row = load(&mut conn, &round_id)?;
            may_read(&caller, &row)?;
            if !row.status().is_over() {
                return Err(ApiError::conflict(
                    "wrong_round_state",
                    "the recall is available once the round is settled",
                ));
            }
            let (config, st) = service::state_of(&s.vault, &row)?;
            let mut transcript = service::transcript(&mut conn, &row, &Viewer::new(&caller.user_id, caller.role))?;
            // The proof takes connections of its own.
            drop(conn);
            crate::rounds::ledger_proof::prove_transcript(&s.db, &s.settings.checkpoint_key, &mut transcript)?;
            let verification = crate::transcript::verify(&transcript);
            let round = service::view(&row, &config, &st)?;
            Ok(LoboRecall {
                plays: st.plays().iter().map(LoboPlay::from).collect(),
                result: round.result.clone(),
                round,
                transcript,
                verification,
            })
        })
        .await?;
    Ok(web::Json(recall))
}
