//! Logging in and out, and who is calling: every protected request is checked
//! against the account as it is now in the database (docs/security.md).

use actix_web::dev::Payload;
use actix_web::http::StatusCode;
use actix_web::{get, post, put, web, FromRequest, HttpRequest, HttpResponse};
use futures_util::future::LocalBoxFuture;
use serde::{Deserialize, Serialize};
use std::time::Duration;
use utoipa::ToSchema;

use super::error::{ApiError, ApiResult};
use super::state::AppState;
use crate::auth::proxies::TrustedProxies;
use crate::auth::throttle::{self, Attempt, Slots, ThrottleError};
use crate::auth::{self, hash_password, verify_password, Caller, ClaimedCaller, OwnAccountCaller, Reach, TokenKeys};
use crate::domain::{Password, Role};
use crate::significant_events::{self, EventKind};
use crate::store::now_us;
use crate::users::{self, User, UserRow};

/// How long a login waits for one of the bounded password checks before it
/// is told to come back: a flood of logins queues here, not on the database.
const PASSWORD_CHECK_WAIT_MS: u64 = 2_000;
const MAX_USERNAME_CHARS: usize = 64;
const MAX_PASSWORD_CHARS: usize = 256;

impl FromRequest for Caller {
    type Error = ApiError;
    type Future = LocalBoxFuture<'static, Result<Caller, ApiError>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        caller_of(req, Reach::Role)
    }
}

impl FromRequest for OwnAccountCaller {
    type Error = ApiError;
    type Future = LocalBoxFuture<'static, Result<OwnAccountCaller, ApiError>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        let caller = caller_of(req, Reach::OwnAccount);
        Box::pin(async move { caller.await.map(OwnAccountCaller) })
    }
}

/// The request's caller, checked against their account as it is now.
fn caller_of(req: &HttpRequest, reach: Reach) -> LocalBoxFuture<'static, Result<Caller, ApiError>> {
    let token = auth::bearer_token(
        req.headers()
            .get(actix_web::http::header::AUTHORIZATION)
            .map(|h| h.as_bytes()),
    )
    .map(str::to_string);
    let state = req.app_data::<web::Data<AppState>>().cloned();
    let keys = req.app_data::<web::Data<TokenKeys>>().cloned();
    Box::pin(async move {
        let token = token?;
        let (Some(state), Some(keys)) = (state, keys) else {
            return Err(ApiError::internal("authentication is not configured"));
        };
        state
            .blocking(move |s| {
                let mut conn = s.db.conn()?;
                Ok(auth::authenticate(&mut conn, &keys, &token, reach)?)
            })
            .await
    })
}

/// The wager path's caller: the token is checked here, the account by the
/// transaction that commits the wager (`ClaimedCaller`).
impl FromRequest for ClaimedCaller {
    type Error = ApiError;
    type Future = std::future::Ready<Result<ClaimedCaller, ApiError>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        let token = auth::bearer_token(
            req.headers()
                .get(actix_web::http::header::AUTHORIZATION)
                .map(|h| h.as_bytes()),
        );
        std::future::ready(match (token, req.app_data::<web::Data<TokenKeys>>()) {
            (Err(e), _) => Err(e.into()),
            (Ok(token), Some(keys)) => auth::claim(keys, token).map_err(ApiError::from),
            (Ok(_), None) => Err(ApiError::internal("authentication is not configured")),
        })
    }
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct LoginRequest {
    #[schema(max_length = 64)]
    pub username: String,
    #[schema(max_length = 256)]
    pub password: String,
}

#[derive(Serialize, ToSchema)]
pub struct LoginResponse {
    /// A bearer token for the `Authorization` header.
    pub access_token: String,
    pub token_type: &'static str,
    /// Seconds since the Unix epoch when the token expires.
    pub expires_at: u64,
    pub role: Role,
    pub user_id: String,
    /// The password was reset by a pit boss: until the account chooses its own
    /// (`PUT /api/v1/me/password`), this token may only read `/api/v1/me`,
    /// change the password and log out; anything else is a 403
    /// `password_change_required`.
    pub must_change_password: bool,
}

/// The client address that login limits count by: the connection's peer, or,
/// when the peer is a trusted reverse proxy, the client address it forwarded
/// (`auth::proxies`).
fn client_address(req: &HttpRequest, proxies: &TrustedProxies) -> String {
    let header = |name: &str| req.headers().get(name).and_then(|h| h.to_str().ok());
    proxies.client_address(
        req.peer_addr().map(|a| a.ip()),
        header("x-forwarded-for"),
        header("x-real-ip"),
    )
}

/// Exchanges a username and password for an access token.
///
/// Attempts are limited per account and client address, per client address
/// and per account, each in a fixed window; an attempt over a limit is
/// refused with 429 and `Retry-After` without its password being checked
/// (docs/security.md gives the numbers). When every password check is busy
/// for too long the answer is 503 with `Retry-After`. Every failure is a
/// significant event; so is the first refusal of each window.
#[utoipa::path(tag = "auth", request_body = LoginRequest, responses(
    (status = 200, body = LoginResponse),
    (status = 400, body = super::error::ErrorBody),
    (status = 401, body = super::error::ErrorBody),
    (status = 429, body = super::error::ErrorBody),
    (status = 503, body = super::error::ErrorBody),
))]
#[post("/api/v1/auth/login")]
pub async fn login(
    req: HttpRequest,
    state: web::Data<AppState>,
    keys: web::Data<TokenKeys>,
    body: web::Json<LoginRequest>,
) -> ApiResult<web::Json<LoginResponse>> {
    let LoginRequest { username, password } = body.into_inner();
    if username.chars().count() > MAX_USERNAME_CHARS || password.chars().count() > MAX_PASSWORD_CHARS {
        return Err(ApiError::bad_request("invalid_body", "username or password too long"));
    }
    let address = client_address(&req, &state.settings.trusted_proxies);
    let user = check_password(&state, &username, password, address)
        .await?
        .ok_or_else(|| ApiError::unauthenticated("wrong username or password"))?;
    let now_s = (now_us() / 1_000_000) as u64;
    let (access_token, expires_at) = keys.issue(&user.id, user.role(), &user.username, user.session_version, now_s);
    Ok(web::Json(LoginResponse {
        access_token,
        token_type: "Bearer",
        expires_at,
        role: user.role(),
        user_id: user.id,
        must_change_password: user.must_change_password,
    }))
}

/// Checks a password under the login limits: the account if it is active and
/// the password right, `None` (a significant event) if not.
async fn check_password(
    state: &AppState,
    username: &str,
    password: String,
    address: String,
) -> Result<Option<UserRow>, ApiError> {
    let username = username.to_ascii_lowercase();
    let attempt = Attempt::new(&state.settings.login_policy, &username, &address);
    let (found, slots) = take_slots(state, attempt, &username, &address).await?;

    // The password is checked with no database connection held, by at most
    // `password_checks` at a time.
    let permit = match tokio::time::timeout(
        Duration::from_millis(PASSWORD_CHECK_WAIT_MS),
        state.password_checks.clone().acquire_owned(),
    )
    .await
    {
        Ok(Ok(permit)) => permit,
        _ => {
            give_back(state, slots, false).await?;
            return Err(ApiError::new(
                StatusCode::SERVICE_UNAVAILABLE,
                "login_busy",
                "too many logins at once; try again in a moment",
            )
            .retry_after(1));
        }
    };
    let memory_kib = state.settings.argon2_memory_kib;
    let checked = found.clone();
    let ok = web::block(move || {
        let _permit = permit;
        match &checked {
            Some(u) => u.active && verify_password(&password, &u.password_hash),
            None => {
                // Same work as a real check, so timing does not reveal which names exist.
                let _ = verify_password(&password, auth::password_dummy(memory_kib));
                false
            }
        }
    })
    .await?;
    if ok {
        give_back(state, slots, true).await?;
        return Ok(found);
    }
    state
        .blocking(move |s| {
            s.db.write(|conn| -> Result<(), ApiError> {
                significant_events::record(
                    conn,
                    EventKind::LoginFailed,
                    None,
                    Some(&username),
                    serde_json::json!({ "username": username, "address": address }),
                )?;
                Ok(())
            })
        })
        .await?;
    Ok(None)
}

/// Takes the attempt's slots and reads the account, in one short transaction.
async fn take_slots(
    state: &AppState,
    attempt: Attempt,
    username: &str,
    address: &str,
) -> Result<(Option<UserRow>, Slots), ApiError> {
    let username = username.to_string();
    let address = address.to_string();
    state
        .blocking(move |s| {
            let now = now_us();
            let taken = s.db.write(|conn| -> Result<(Option<UserRow>, Slots), ThrottleError> {
                throttle::forget_expired(conn, &s.settings.login_policy, now)?;
                let slots = throttle::take_slots(conn, &attempt, now)?;
                Ok((users::find_by_username(conn, &username)?, slots))
            });
            match taken {
                Ok(found) => Ok(found),
                Err(ThrottleError::Refused(refusal)) => {
                    s.db.write(|conn| -> Result<(), ApiError> {
                        if throttle::first_refusal(conn, &attempt, refusal.scope)? {
                            significant_events::record(
                                conn,
                                EventKind::LoginRateLimited,
                                None,
                                Some(&username),
                                serde_json::json!({
                                    "username": username,
                                    "address": address,
                                    "limit": refusal.scope.as_str(),
                                    "retry_after_s": refusal.retry_after_s,
                                }),
                            )?;
                        }
                        Ok(())
                    })?;
                    Err(ApiError::new(
                        StatusCode::TOO_MANY_REQUESTS,
                        "too_many_attempts",
                        "too many failed logins; try again later",
                    )
                    .retry_after(refusal.retry_after_s))
                }
                Err(ThrottleError::Db(e)) => Err(e.into()),
                Err(ThrottleError::Store(e)) => Err(e.into()),
            }
        })
        .await
}

async fn give_back(state: &AppState, slots: Slots, succeeded: bool) -> Result<(), ApiError> {
    state
        .blocking(move |s| {
            s.db.write(|conn| -> Result<(), ApiError> { Ok(throttle::give_back(conn, &slots, succeeded, now_us())?) })
        })
        .await
}

/// Ends every session of the caller: this token and every other token of the
/// account stop working at once, on every instance. A significant event.
#[utoipa::path(tag = "auth", security(("bearer" = [])), responses(
    (status = 204, description = "Logged out"),
    (status = 401, body = super::error::ErrorBody),
))]
#[post("/api/v1/auth/logout")]
pub async fn logout(state: web::Data<AppState>, OwnAccountCaller(caller): OwnAccountCaller) -> ApiResult<HttpResponse> {
    state
        .blocking(move |s| {
            s.db.write(|conn| -> Result<(), ApiError> {
                users::revoke_sessions(conn, &caller.user_id)?;
                significant_events::record(
                    conn,
                    EventKind::LoggedOut,
                    Some(&caller.user_id),
                    Some(&caller.user_id),
                    serde_json::json!({ "username": caller.username }),
                )?;
                Ok(())
            })
        })
        .await?;
    Ok(HttpResponse::NoContent().finish())
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ChangePasswordRequest {
    #[schema(max_length = 256)]
    pub current_password: String,
    /// 10 to 128 characters.
    #[schema(min_length = 10, max_length = 128)]
    pub new_password: String,
}

/// Changes the caller's own password. Every session of the account ends,
/// this one included; log in again with the new password. A significant event.
#[utoipa::path(tag = "auth", security(("bearer" = [])), request_body = ChangePasswordRequest, responses(
    (status = 204, description = "Password changed; every session ended"),
    (status = 400, body = super::error::ErrorBody),
    (status = 401, body = super::error::ErrorBody),
    (status = 403, body = super::error::ErrorBody),
    (status = 429, body = super::error::ErrorBody),
    (status = 503, body = super::error::ErrorBody),
))]
#[put("/api/v1/me/password")]
pub async fn change_password(
    req: HttpRequest,
    state: web::Data<AppState>,
    OwnAccountCaller(caller): OwnAccountCaller,
    body: web::Json<ChangePasswordRequest>,
) -> ApiResult<HttpResponse> {
    let ChangePasswordRequest {
        current_password,
        new_password,
    } = body.into_inner();
    if current_password.chars().count() > MAX_PASSWORD_CHARS {
        return Err(ApiError::bad_request("invalid_body", "current_password too long"));
    }
    let new_password = Password::parse(&new_password).map_err(|m| ApiError::bad_request("invalid_password", m))?;
    let address = client_address(&req, &state.settings.trusted_proxies);
    check_password(&state, &caller.username, current_password, address)
        .await?
        .ok_or_else(|| ApiError::forbidden("the current password is wrong"))?;
    let new_hash = hash_bounded(&state, new_password).await?;
    state
        .blocking(move |s| {
            s.db.write(|conn| -> Result<(), ApiError> {
                users::set_password(conn, &caller.user_id, &new_hash, users::PasswordOrigin::Chosen)?;
                significant_events::record(
                    conn,
                    EventKind::PasswordChanged,
                    Some(&caller.user_id),
                    Some(&caller.user_id),
                    serde_json::json!({ "username": caller.username }),
                )?;
                Ok(())
            })
        })
        .await?;
    Ok(HttpResponse::NoContent().finish())
}

/// Hashes a new password on one of the bounded password checks: hashing is
/// argon2 work too, so a flood of changes queues with the logins.
pub(super) async fn hash_bounded(state: &AppState, password: Password) -> ApiResult<String> {
    let memory_kib = state.settings.argon2_memory_kib;
    let permit = state
        .password_checks
        .clone()
        .acquire_owned()
        .await
        .map_err(|_| ApiError::internal("password checks unavailable"))?;
    Ok(web::block(move || {
        let _permit = permit;
        hash_password(password.expose(), memory_kib)
    })
    .await?)
}

/// The caller's own account.
#[utoipa::path(tag = "auth", security(("bearer" = [])), responses(
    (status = 200, body = User),
    (status = 401, body = super::error::ErrorBody),
))]
#[get("/api/v1/me")]
pub async fn me(state: web::Data<AppState>, OwnAccountCaller(caller): OwnAccountCaller) -> ApiResult<web::Json<User>> {
    let user = state
        .blocking(move |s| {
            let mut conn = s.db.conn()?;
            users::find(&mut conn, &caller.user_id)?
                .ok_or_else(|| ApiError::unauthenticated("account no longer exists"))
        })
        .await?;
    Ok(web::Json(user.public()))
}

/// A round of the caller's, as their list shows it.
#[derive(Serialize, ToSchema)]
pub struct MyRound {
    pub round_id: String,
    pub table_id: String,
    /// lobo, prima_carta, peg_leg, or lobo_contest (then `round_id` is the contest's id).
    #[schema(example = "lobo")]
    pub game: String,
    /// The round's number at its table; null for a Lobo contest, which has none.
    pub number: Option<i64>,
    pub status: String,
    pub created_at_us: i64,
    pub updated_at_us: i64,
}

/// The caller's rounds, newest first.
#[derive(Serialize, ToSchema)]
pub struct MyRounds {
    /// Not yet settled or voided (at most 50).
    pub open: Vec<MyRound>,
    /// The latest 50 settled or voided.
    pub recent: Vec<MyRound>,
}

/// The caller's own rounds (player): the Lobo rounds they started, the Prima Carta rounds
/// where they took a seat or placed a side bet, the Peg Leg rounds where they bet or gave
/// a client seed, and the Lobo contests they entered (`game` `lobo_contest`, open while entry
/// is open or play goes on); those still going and the latest that are over. The way back to a
/// round whose id the app lost.
#[utoipa::path(tag = "auth", security(("bearer" = [])), responses(
    (status = 200, body = MyRounds),
    (status = 403, body = super::error::ErrorBody),
))]
#[get("/api/v1/me/rounds")]
pub async fn my_rounds(state: web::Data<AppState>, caller: Caller) -> ApiResult<web::Json<MyRounds>> {
    caller.require(&[Role::Player])?;
    let (open, recent) = state
        .blocking(move |s| {
            let mut conn = s.db.conn()?;
            Ok(crate::game_registry::of_player(
                &mut conn,
                &caller.user_id,
                crate::game_registry::MAX_ROUNDS_LISTED,
            )?)
        })
        .await?;
    let view = |rounds: Vec<crate::game_registry::RoundSummary>| {
        rounds
            .into_iter()
            .map(|r| MyRound {
                round_id: r.round_id,
                table_id: r.table_id,
                game: r.game.id().to_owned(),
                number: r.number,
                status: r.status,
                created_at_us: r.created_at_us,
                updated_at_us: r.updated_at_us,
            })
            .collect()
    };
    Ok(web::Json(MyRounds {
        open: view(open),
        recent: view(recent),
    }))
}
