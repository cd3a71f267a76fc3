use actix_web::{get, post, web};
use diesel::prelude::*;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::error::{ApiError, ApiResult};
use super::state::AppState;
use crate::auth::{verify_password, Caller, TokenKeys};
use crate::domain::Role;
use crate::significant_events::{self, EventKind};
use crate::store::schema::login_failures as lf;
use crate::store::{new_id, now_us};
use crate::users::{self, User};

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
}

/// Exchanges a username and password for an access token.
///
/// After too many failed attempts for one username within the window, further
/// attempts are refused with 429 until the window passes. Every failure is a
/// significant event.
#[utoipa::path(tag = "auth", request_body = LoginRequest, responses(
    (status = 200, body = LoginResponse),
    (status = 400, body = super::error::ErrorBody),
    (status = 401, body = super::error::ErrorBody),
    (status = 429, body = super::error::ErrorBody),
))]
#[post("/api/v1/auth/login")]
pub async fn login(
    state: web::Data<AppState>,
    keys: web::Data<TokenKeys>,
    body: web::Json<LoginRequest>,
) -> ApiResult<web::Json<LoginResponse>> {
    let LoginRequest { username, password } = body.into_inner();
    if username.chars().count() > 64 || password.chars().count() > 256 {
        return Err(ApiError::bad_request("invalid_body", "username or password too long"));
    }
    let username = username.to_ascii_lowercase();
    let user = state
        .blocking(move |s| {
            let window_start = now_us() - (s.settings.login_window_seconds as i64) * 1_000_000;
            let mut conn = s.db.conn()?;
            let recent_failures: i64 = lf::table
                .filter(lf::username.eq(&username))
                .filter(lf::at_us.ge(window_start))
                .count()
                .get_result(&mut *conn)?;
            if recent_failures >= s.settings.login_failures_allowed as i64 {
                record_failure(s, &username, true)?;
                return Err(ApiError::new(
                    actix_web::http::StatusCode::TOO_MANY_REQUESTS,
                    "too_many_attempts",
                    "too many failed logins for this account; try again later",
                ));
            }
            let found = users::find_by_username(&mut conn, &username)?;
            let ok = match &found {
                Some(u) => u.active && verify_password(&password, &u.password_hash),
                None => {
                    // Same work as a real check, so timing does not reveal which names exist.
                    let _ = verify_password(&password, crate::auth::password_dummy(s.settings.argon2_memory_kib));
                    false
                }
            };
            match (ok, found) {
                (true, Some(u)) => Ok(u),
                _ => {
                    record_failure(s, &username, false)?;
                    Err(ApiError::unauthenticated("wrong username or password"))
                }
            }
        })
        .await?;
    let now_s = (now_us() / 1_000_000) as u64;
    let (access_token, expires_at) = keys.issue(&user.id, user.role(), &user.username, now_s);
    Ok(web::Json(LoginResponse {
        access_token,
        token_type: "Bearer",
        expires_at,
        role: user.role(),
        user_id: user.id,
    }))
}

fn record_failure(s: &AppState, username: &str, rate_limited: bool) -> Result<(), ApiError> {
    let username = username.to_string();
    s.db.write(|conn| -> Result<(), ApiError> {
        diesel::insert_into(lf::table)
            .values((lf::id.eq(new_id()), lf::username.eq(&username), lf::at_us.eq(now_us())))
            .execute(conn)?;
        let kind = if rate_limited {
            EventKind::LoginRateLimited
        } else {
            EventKind::LoginFailed
        };
        significant_events::record(
            conn,
            kind,
            None,
            Some(&username),
            serde_json::json!({ "username": username }),
        )?;
        Ok(())
    })
}

/// The caller's own account.
#[utoipa::path(tag = "auth", security(("bearer" = [])), responses(
    (status = 200, body = User),
    (status = 401, body = super::error::ErrorBody),
))]
#[get("/api/v1/me")]
pub async fn me(state: web::Data<AppState>, caller: Caller) -> ApiResult<web::Json<User>> {
    let user = state
        .blocking(move |s| {
            let mut conn = s.db.conn()?;
            users::find(&mut conn, &caller.user_id)?
                .ok_or_else(|| ApiError::unauthenticated("account no longer exists"))
        })
        .await?;
    Ok(web::Json(user.public()))
}
