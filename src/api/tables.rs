//! Tables: the pit boss creates, configures, opens and closes them, assigns
//! dealers and installs certified pay tables; everyone may look; watchers
//! follow a table live over Server-Sent Events.

use actix_web::http::StatusCode;
use actix_web::{delete, get, post, put, web, HttpRequest, HttpResponse};
use actix_web_lab::sse;
use serde::{Deserialize, Serialize};
use std::time::Duration;
use utoipa::ToSchema;

use super::error::{ApiError, ApiResult};
use super::idempotency::{self, IdempotentRequest};
use super::state::AppState;
use crate::approvals::{self, Proposal, ProposalKind};
use crate::auth::{self, Caller, TokenKeys};
use crate::bets::{PayTable, PayTableSpec};
use crate::domain::Role;
use crate::rounds::{self, prima_carta};
use crate::side_bets::{self, PayTableView};
use crate::store::AnyConnection;
use crate::tables::{self, Table, TableConfig, TableStatus};
use crate::users;

#[derive(Deserialize, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateTableRequest {
    #[schema(value_type = super::contract::TableName)]
    pub name: String,
    pub config: TableConfig,
}

fn check_config(config: &TableConfig) -> Result<(), ApiError> {
    config
        .validate()
        .map_err(|m| ApiError::unprocessable("invalid_config", m))
}

pub fn load_table(conn: &mut AnyConnection, id: &str) -> Result<Table, ApiError> {
    if uuid::Uuid::parse_str(id).is_err() {
        return Err(ApiError::not_found("table"));
    }
    tables::find(conn, id)?.ok_or_else(|| ApiError::not_found("table"))
}

/// Proposes a table (pit boss): its game, fees, limits and house rule are the house's economics,
/// so it is created, closed, when a second pit boss approves it.
#[utoipa::path(tag = "tables", security(("bearer" = [])), request_body = CreateTableRequest,
    params(super::contract::IdempotencyKeyHeader),
    responses(
    (status = 202, body = Proposal, description = "Proposed: pending a second pit boss's approval."),
    (status = 400, body = super::error::ErrorBody),
    (status = 403, body = super::error::ErrorBody),
    (status = 409, body = super::error::ErrorBody),
    (status = 422, body = super::error::ErrorBody),
))]
#[post("/api/v1/tables")]
pub async fn create_table(
    state: web::Data<AppState>,
    caller: Caller,
    http: HttpRequest,
    body: web::Json<CreateTableRequest>,
) -> ApiResult<HttpResponse> {
    caller.require(&[Role::Pitboss])?;
    let idem = IdempotentRequest::from_request(&http, &*body)?;
    let req = body.into_inner();
    super::contract::check_table_name(&req.name)?;
    check_config(&req.config)?;
    let caller_id = caller.user_id.clone();
    idempotency::run(
        &state,
        &caller.user_id,
        idem,
        StatusCode::ACCEPTED,
        move |conn, _key| {
            if tables::name_taken(conn, req.name.trim())? {
                return Err(ApiError::conflict("name_taken", "a table with this name exists"));
            }
            Ok(approvals::propose(
                conn,
                ProposalKind::CreateTable,
                None,
                &req,
                &caller_id,
            )?)
        },
    )
    .await
}

/// Creates a table (the name is checked already).
pub(super) fn create(conn: &mut AnyConnection, req: &CreateTableRequest, actor_id: &str) -> Result<Table, ApiError> {
    // A unique violation here is the name: a twin's key claim came first.
    tables::create(conn, req.name.trim(), &req.config, Some(actor_id)).map_err(|e| match e {
        diesel::result::Error::DatabaseError(diesel::result::DatabaseErrorKind::UniqueViolation, _) => {
            ApiError::conflict("name_taken", "a table with this name exists")
        }
        other => other.into(),
    })
}

/// Loads a table after a change and shows it to its watchers.
async fn publish_table(state: &web::Data<AppState>, id: String) {
    let table = state
        .blocking(move |s| {
            let mut conn = s.db.conn()?;
            load_table(&mut conn, &id)
        })
        .await;
    if let Ok(table) = table {
        state.live.publish(&table.id, "table", &table);
        super::live_relay::announce(state, &table.id, None);
    }
}

/// Every table (any role).
#[utoipa::path(tag = "tables", security(("bearer" = [])), responses((status = 200, body = Vec<Table>)))]
#[get("/api/v1/tables")]
pub async fn list_tables(state: web::Data<AppState>, _caller: Caller) -> ApiResult<web::Json<Vec<Table>>> {
    let list = state
        .blocking(|s| {
            let mut conn = s.db.conn()?;
            Ok(tables::list(&mut conn)?)
        })
        .await?;
    Ok(web::Json(list))
}

/// One table (any role).
#[utoipa::path(tag = "tables", security(("bearer" = [])), responses(
    (status = 200, body = Table),
    (status = 404, body = super::error::ErrorBody),
))]
#[get("/api/v1/tables/{table_id}")]
pub async fn get_table(
    state: web::Data<AppState>,
    _caller: Caller,
    path: web::Path<String>,
) -> ApiResult<web::Json<Table>> {
    let id = path.into_inner();
    let table = state
        .blocking(move |s| {
            let mut conn = s.db.conn()?;
            load_table(&mut conn, &id)
        })
        .await?;
    Ok(web::Json(table))
}

/// Proposes new options for a closed table (pit boss): they apply when a
/// second pit boss approves (`POST /api/v1/proposals/{id}/approve`). The game cannot change.
#[utoipa::path(tag = "tables", security(("bearer" = [])), request_body = TableConfig,
    params(super::contract::IdempotencyKeyHeader),
    responses(
    (status = 202, body = Proposal, description = "Proposed: pending a second pit boss's approval."),
    (status = 403, body = super::error::ErrorBody),
    (status = 404, body = super::error::ErrorBody),
    (status = 409, body = super::error::ErrorBody),
    (status = 422, body = super::error::ErrorBody),
))]
#[put("/api/v1/tables/{table_id}/config")]
pub async fn update_table_config(
    state: web::Data<AppState>,
    caller: Caller,
    http: HttpRequest,
    path: web::Path<String>,
    body: web::Json<TableConfig>,
) -> ApiResult<HttpResponse> {
    caller.require(&[Role::Pitboss])?;
    let idem = IdempotentRequest::from_request(&http, &*body)?;
    let id = path.into_inner();
    let config = body.into_inner();
    check_config(&config)?;
    let caller_id = caller.user_id.clone();
    idempotency::run(&state, &caller_id, idem, StatusCode::ACCEPTED, move |conn, _key| {
        // Refused now what would be refused at approval: the approver sees a change that can apply.
        check_reconfigurable(conn, &id, &config)?;
        Ok(approvals::propose(
            conn,
            ProposalKind::ChangeTableOptions,
            Some(&id),
            &config,
            &caller.user_id,
        )?)
    })
    .await
}

fn check_reconfigurable(conn: &mut AnyConnection, id: &str, config: &TableConfig) -> Result<(), ApiError> {
    let table = load_table(conn, id)?;
    if table.is_open() {
        return Err(ApiError::conflict(
            "table_open",
            "close the table before changing its options",
        ));
    }
    if table.config.game() != config.game() {
        return Err(ApiError::unprocessable("wrong_game", "a table's game cannot change"));
    }
    Ok(())
}

/// Replaces a closed table's options (once approved).
pub(super) fn reconfigure(
    conn: &mut AnyConnection,
    id: &str,
    config: &TableConfig,
    actor_id: &str,
) -> Result<Table, ApiError> {
    check_reconfigurable(conn, id, config)?;
    tables::update_config(conn, id, config)?;
    crate::significant_events::record(
        conn,
        crate::significant_events::EventKind::TableReconfigured,
        Some(actor_id),
        Some(id),
        serde_json::json!({ "config": config }),
    )?;
    load_table(conn, id)
}

/// Opens a table (pit boss). A significant event.
#[utoipa::path(tag = "tables", security(("bearer" = [])),
    params(super::contract::IdempotencyKeyHeader),
    responses(
    (status = 200, body = Table),
    (status = 403, body = super::error::ErrorBody),
    (status = 404, body = super::error::ErrorBody),
    (status = 422, body = super::error::ErrorBody),
))]
#[post("/api/v1/tables/{table_id}/open")]
pub async fn open_table(
    state: web::Data<AppState>,
    caller: Caller,
    http: HttpRequest,
    path: web::Path<String>,
) -> ApiResult<HttpResponse> {
    caller.require(&[Role::Pitboss])?;
    let idem = IdempotentRequest::from_request(&http, &())?;
    let id = path.into_inner();
    let table_id = id.clone();
    let caller_id = caller.user_id.clone();
    let response = idempotency::run(&state, &caller_id, idem, StatusCode::OK, move |conn, _key| {
        let table = load_table(conn, &id)?;
        let details = match &table.config {
            TableConfig::Lobo(cfg) => match rounds::lobo::check_openable(cfg)? {
                Some(edge) => serde_json::json!({ "proven_house_edge": edge }),
                None => {
                    crate::significant_events::record(
                        conn,
                        crate::significant_events::EventKind::HouseRuleOverride,
                        Some(&caller.user_id),
                        Some(&id),
                        serde_json::json!({ "house_rule": cfg.house_rule, "loss_cap_points": cfg.loss_cap_points }),
                    )?;
                    serde_json::json!({ "house_rule_override": true })
                }
            },
            TableConfig::PegLeg(cfg) => serde_json::json!({ "target_rtp_bp": cfg.target_rtp_bp }),
            TableConfig::PrimaCarta(_) => {
                let pay = side_bets::for_table(conn, &id)?;
                serde_json::json!({ "pay_table_id": pay.id, "pay_table": pay.name, "version": pay.version })
            }
        };
        tables::set_status(conn, &id, TableStatus::Open, &caller.user_id, details)?;
        load_table(conn, &id)
    })
    .await?;
    publish_table(&state, table_id).await;
    Ok(response)
}

/// Closes a table (pit boss): no new rounds; a round in progress may finish.
#[utoipa::path(tag = "tables", security(("bearer" = [])),
    params(super::contract::IdempotencyKeyHeader),
    responses(
    (status = 200, body = Table),
    (status = 403, body = super::error::ErrorBody),
    (status = 404, body = super::error::ErrorBody),
))]
#[post("/api/v1/tables/{table_id}/close")]
pub async fn close_table(
    state: web::Data<AppState>,
    caller: Caller,
    http: HttpRequest,
    path: web::Path<String>,
) -> ApiResult<HttpResponse> {
    caller.require(&[Role::Pitboss])?;
    let idem = IdempotentRequest::from_request(&http, &())?;
    let id = path.into_inner();
    let table_id = id.clone();
    let caller_id = caller.user_id.clone();
    let response = idempotency::run(&state, &caller_id, idem, StatusCode::OK, move |conn, _key| {
        load_table(conn, &id)?;
        tables::set_status(conn, &id, TableStatus::Closed, &caller.user_id, serde_json::json!({}))?;
        load_table(conn, &id)
    })
    .await?;
    publish_table(&state, table_id).await;
    Ok(response)
}

/// Assigns a dealer to a table (pit boss). Assigning one already assigned changes nothing.
#[utoipa::path(tag = "tables", security(("bearer" = [])),
    params(super::contract::IdempotencyKeyHeader),
    responses(
    (status = 200, body = Table),
    (status = 403, body = super::error::ErrorBody),
    (status = 404, body = super::error::ErrorBody, description = "No such table or dealer."),
    (status = 422, body = super::error::ErrorBody, description = "The account is not a dealer."),
))]
#[put("/api/v1/tables/{table_id}/dealers/{dealer_id}")]
pub async fn assign_dealer(
    state: web::Data<AppState>,
    caller: Caller,
    http: HttpRequest,
    path: web::Path<(String, String)>,
) -> ApiResult<HttpResponse> {
    caller.require(&[Role::Pitboss])?;
    let idem = IdempotentRequest::from_request(&http, &())?;
    let (id, dealer_id) = path.into_inner();
    let caller_id = caller.user_id.clone();
    idempotency::run(&state, &caller_id, idem, StatusCode::OK, move |conn, _key| {
        load_table(conn, &id)?;
        let dealer = users::find(conn, &dealer_id)?.ok_or_else(|| ApiError::not_found("dealer"))?;
        if dealer.role() != Role::Dealer {
            return Err(ApiError::unprocessable(
                "not_a_dealer",
                "only dealer accounts can be assigned to tables",
            ));
        }
        tables::assign_dealer(conn, &id, &dealer_id, Some(&caller.user_id))?;
        load_table(conn, &id)
    })
    .await
}

/// Removes a dealer from a table (pit boss).
#[utoipa::path(tag = "tables", security(("bearer" = [])),
    params(super::contract::IdempotencyKeyHeader),
    responses(
    (status = 200, body = Table),
    (status = 403, body = super::error::ErrorBody),
    (status = 404, body = super::error::ErrorBody, description = "No such table, or the dealer is not assigned to it."),
))]
#[delete("/api/v1/tables/{table_id}/dealers/{dealer_id}")]
pub async fn unassign_dealer(
    state: web::Data<AppState>,
    caller: Caller,
    http: HttpRequest,
    path: web::Path<(String, String)>,
) -> ApiResult<HttpResponse> {
    caller.require(&[Role::Pitboss])?;
    let idem = IdempotentRequest::from_request(&http, &())?;
    let (id, dealer_id) = path.into_inner();
    let caller_id = caller.user_id.clone();
    idempotency::run(&state, &caller_id, idem, StatusCode::OK, move |conn, _key| {
        load_table(conn, &id)?;
        if tables::unassign_dealer(conn, &id, &dealer_id)? == 0 {
            return Err(ApiError::new(
                StatusCode::NOT_FOUND,
                "not_found",
                "this dealer is not assigned to this table",
            ));
        }
        load_table(conn, &id)
    })
    .await
}

/// Proposes a pay table for a Prima Carta table (pit boss): installed, for the
/// rounds created from then on (a round keeps the pay table it was created under),
/// when a second pit boss approves. It is certified and stored first; one with any
/// bet outside the RTP bounds is refused with a 422 that names the bet and its RTP.
#[utoipa::path(tag = "side bets", security(("bearer" = [])), request_body(content = crate::bets::PayTableSpec, description = "A pay table (docs/side-bets.md)"),
    params(super::contract::IdempotencyKeyHeader),
    responses(
    (status = 202, body = Proposal, description = "Proposed: pending a second pit boss's approval; `request.pay_table_id` is the stored pay table."),
    (status = 400, body = super::error::ErrorBody),
    (status = 403, body = super::error::ErrorBody),
    (status = 404, body = super::error::ErrorBody),
    (status = 422, body = super::error::ErrorBody, description = "Not a Prima Carta table, a rule of pay tables broken \
        (overlapping Começo lines, a Cartas number twice), or the pay table fails certification."),
))]
#[put("/api/v1/tables/{table_id}/pay-table")]
pub async fn install_pay_table(
    state: web::Data<AppState>,
    caller: Caller,
    http: HttpRequest,
    path: web::Path<String>,
    body: web::Json<PayTableSpec>,
) -> ApiResult<HttpResponse> {
    caller.require(&[Role::Pitboss])?;
    let idem = IdempotentRequest::from_request(&http, &*body)?;
    let id = path.into_inner();
    let pay_table = PayTable::new(body.into_inner()).map_err(|e| ApiError::unprocessable("invalid_pay_table", e.0))?;
    let caller_id = caller.user_id.clone();
    idempotency::run(&state, &caller_id, idem, StatusCode::ACCEPTED, move |conn, _key| {
        let table = load_table(conn, &id)?;
        prima_carta::config_of(&table)?;
        // Certified and stored now (a stored pay table changes nothing until installed).
        let row = side_bets::store_certified(conn, &pay_table, Some(&caller.user_id))?;
        let request = InstallPayTableRequest { pay_table_id: row.id };
        Ok(approvals::propose(
            conn,
            ProposalKind::InstallPayTable,
            Some(&id),
            &request,
            &caller.user_id,
        )?)
    })
    .await
}

/// What an `install_pay_table` proposal installs: a stored, certified pay table.
#[derive(Serialize, Deserialize)]
pub(super) struct InstallPayTableRequest {
    pub pay_table_id: String,
}

/// Installs a stored pay table on a Prima Carta table (once approved).
pub(super) fn install(
    conn: &mut AnyConnection,
    id: &str,
    request: &InstallPayTableRequest,
    actor_id: &str,
) -> Result<PayTableView, ApiError> {
    let table = load_table(conn, id)?;
    prima_carta::config_of(&table)?;
    let row = side_bets::install_stored(conn, id, &request.pay_table_id, actor_id)?;
    Ok(PayTableView::from(&row))
}

/// The pay table a Prima Carta table uses, with its certificate (any role).
#[utoipa::path(tag = "side bets", security(("bearer" = [])), responses(
    (status = 200, body = PayTableView),
    (status = 404, body = super::error::ErrorBody),
    (status = 422, body = super::error::ErrorBody, description = "Not a Prima Carta table."),
))]
#[get("/api/v1/tables/{table_id}/pay-table")]
pub async fn table_pay_table(
    state: web::Data<AppState>,
    _caller: Caller,
    path: web::Path<String>,
) -> ApiResult<web::Json<PayTableView>> {
    let id = path.into_inner();
    let row = state
        .blocking(move |s| {
            s.db.write(|conn| {
                let table = load_table(conn, &id)?;
                prima_carta::config_of(&table)?;
                side_bets::for_table(conn, &id)
            })
        })
        .await?;
    Ok(web::Json(PayTableView::from(&row)))
}

/// Every stored (certified) pay table with its certificate (any role: a
/// player app shows the pays and RTP of what it bets into).
#[utoipa::path(tag = "side bets", security(("bearer" = [])), responses(
    (status = 200, body = Vec<PayTableView>),
))]
#[get("/api/v1/pay-tables")]
pub async fn list_pay_tables(state: web::Data<AppState>, _caller: Caller) -> ApiResult<web::Json<Vec<PayTableView>>> {
    let rows = state
        .blocking(|s| {
            s.db.write(|conn| {
                side_bets::builtin(conn)?;
                side_bets::list_pay_tables(conn)
            })
        })
        .await?;
    Ok(web::Json(rows.iter().map(PayTableView::from).collect()))
}

/// One pay table with its certificate, by id or by fingerprint (any role):
/// the pays of a round (`pay_table_id` in the round view) or of a bet.
#[utoipa::path(tag = "side bets", security(("bearer" = [])),
    params(("pay_table" = String, Path, description = "The pay table's id or its fingerprint")),
    responses(
    (status = 200, body = PayTableView),
    (status = 404, body = super::error::ErrorBody),
))]
#[get("/api/v1/pay-tables/{pay_table}")]
pub async fn pay_table_by_id(
    state: web::Data<AppState>,
    _caller: Caller,
    path: web::Path<String>,
) -> ApiResult<web::Json<PayTableView>> {
    let wanted = path.into_inner();
    let row = state
        .blocking(move |s| {
            s.db.write(|conn| {
                side_bets::builtin(conn)?;
                side_bets::find_by_id_or_fingerprint(conn, &wanted)
            })
        })
        .await?;
    Ok(web::Json(PayTableView::from(&row)))
}

/// How often an open stream checks that the session it was opened with still
/// holds (logout, deactivation, a role or password change end it).
const LIVE_SESSION_CHECK_MS: u64 = 5_000;

/// Why the session behind a stream no longer holds, or `None` while it does
/// (or while the database cannot say: the next check will).
async fn session_ended(state: &web::Data<AppState>, keys: &web::Data<TokenKeys>, token: &str) -> Option<String> {
    let (keys, token) = (keys.clone(), token.to_string());
    let checked = state
        .blocking(move |s| {
            let mut conn = s.db.conn()?;
            Ok(auth::authenticate(&mut conn, &keys, &token, auth::Reach::Role))
        })
        .await;
    match checked {
        Ok(Err(auth::AuthError::Db(_))) | Err(_) => None,
        Ok(Err(refused)) => Some(refused.to_string()),
        Ok(Ok(_)) => None,
    }
}

/// Rounds in play listed in a Lobo table's first `state` at most (newest first);
/// later ones arrive as `lobo_round` events.
const MAX_LOBO_ROUNDS_IN_STATE: i64 = 500;

/// Contests still running listed in a Lobo table's first `state` at most (newest
/// first); later changes arrive as `lobo_contest` events.
const MAX_CONTESTS_IN_STATE: i64 = 50;

/// The table's live events as Server-Sent Events (any role). The first event,
/// `state`, is the current round's public view (or `null`; at a Lobo table the
/// table, its rounds in play and its contests still running); then every change.
#[utoipa::path(tag = "tables", security(("bearer" = [])), responses(
    (status = 200, content_type = "text/event-stream", body = super::contract::TableEvent,
        description = "A stream of Server-Sent Events; the schema describes each event."),
    (status = 404, body = super::error::ErrorBody),
))]
#[get("/api/v1/tables/{table_id}/events")]
pub async fn table_events(
    req: HttpRequest,
    state: web::Data<AppState>,
    keys: web::Data<TokenKeys>,
    _caller: Caller,
    path: web::Path<String>,
) -> ApiResult<impl actix_web::Responder> {
    // The extractor has checked this token; the stream checks it again as it runs.
    let token = auth::bearer_token(
        req.headers()
            .get(actix_web::http::header::AUTHORIZATION)
            .map(|h| h.as_bytes()),
    )?
    .to_string();
    let id = path.into_inner();
    // Subscribe first, so nothing published between the snapshot and the stream is lost.
    let mut live = state.live.subscribe(&id);
    let table_id = id.clone();
    let snapshot = state
        .blocking(move |s| {
            let mut conn = s.db.conn()?;
            let table = load_table(&mut conn, &table_id)?;
            match &table.config {
                TableConfig::PrimaCarta(_) => match rounds::record::latest(&mut conn, &table_id)? {
                    Some(row) => Ok(
                        serde_json::to_value(super::prima_carta::watcher_view(&mut conn, s, &row)?).unwrap_or_default(),
                    ),
                    None => Ok(serde_json::Value::Null),
                },
                TableConfig::PegLeg(_) => match crate::rounds::peg_leg::of_table(&mut conn, &table_id, 1)?.first() {
                    Some(row) => {
                        Ok(serde_json::to_value(super::peg_leg::watcher_view(&mut conn, s, row)?).unwrap_or_default())
                    }
                    None => Ok(serde_json::Value::Null),
                },
                // Every round in play, as each player sees their own (nothing face down) but
                // without their id; and the contests still running, as any watcher sees them.
                TableConfig::Lobo(_) => {
                    let rounds_in_play = rounds::record::in_play_at(&mut conn, &table_id, MAX_LOBO_ROUNDS_IN_STATE)?
                        .iter()
                        .map(|row| super::lobo::watcher_view(&s.vault, row))
                        .collect::<Result<Vec<_>, _>>()?;
                    let contests = rounds::lobo_contests::running_at(&mut conn, &table_id, MAX_CONTESTS_IN_STATE)?
                        .iter()
                        .map(|row| rounds::lobo_contests::watcher_view(&mut conn, &s.vault, row))
                        .collect::<Result<Vec<_>, _>>()?;
                    Ok(serde_json::json!({ "table": table, "rounds_in_play": rounds_in_play, "contests": contests }))
                }
            }
        })
        .await?;
    let (tx, rx) = tokio::sync::mpsc::channel::<sse::Event>(64);
    let closed = state.live.closed();
    actix_web::rt::spawn(async move {
        let first = sse::Data::new(snapshot.to_string()).event("state");
        if tx.send(first.into()).await.is_err() {
            return;
        }
        tokio::pin!(closed);
        let mut session_check = tokio::time::interval(Duration::from_millis(LIVE_SESSION_CHECK_MS));
        session_check.tick().await;
        loop {
            // The stream ends when the service shuts down, the client has gone,
            // or the session it was opened with has ended.
            let received = tokio::select! {
                _ = &mut closed => break,
                _ = tx.closed() => break,
                _ = session_check.tick() => {
                    if let Some(reason) = session_ended(&state, &keys, &token).await {
                        let ended = serde_json::json!({ "reason": reason }).to_string();
                        let _ = tx.send(sse::Data::new(ended).event("ended").into()).await;
                        break;
                    }
                    continue;
                }
                received = live.recv() => received,
            };
            let event = match received {
                Ok(e) => sse::Data::new(e.data).event(e.name),
                Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => {
                    sse::Data::new("{\"reason\":\"fell behind; reload the table state\"}").event("resync")
                }
                Err(tokio::sync::broadcast::error::RecvError::Closed) => break,
            };
            if tx.send(event.into()).await.is_err() {
                break;
            }
        }
    });
    Ok(sse::Sse::from_infallible_receiver(rx).with_keep_alive(Duration::from_secs(15)))
}
