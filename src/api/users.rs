use actix_web::{get, post, put, web, HttpResponse};
use serde::Deserialize;
use utoipa::{IntoParams, ToSchema};

use super::error::{ApiError, ApiResult};
use super::pagination::Page;
use super::state::AppState;
use crate::auth::Caller;
use crate::domain::{Password, Role, Username};
use crate::significant_events::{self, EventKind};
use crate::users::{self, CreateUserError, NewUser, User};

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateUserRequest {
    /// 3–32 letters, digits, '.', '_' or '-'; stored lower-case.
    #[schema(min_length = 3, max_length = 32, pattern = r"^[A-Za-z0-9._-]{3,32}$")]
    pub username: String,
    /// 1–64 characters; the username when omitted.
    #[schema(min_length = 1, max_length = 64)]
    pub display_name: Option<String>,
    pub role: Role,
    /// 10–128 characters.
    #[schema(min_length = 10, max_length = 128)]
    pub password: String,
}

/// Creates an account. A pit boss creates staff and players; a cashier creates players.
#[utoipa::path(tag = "users", security(("bearer" = [])), request_body = CreateUserRequest, responses(
    (status = 201, body = User),
    (status = 400, body = super::error::ErrorBody),
    (status = 403, body = super::error::ErrorBody),
    (status = 409, body = super::error::ErrorBody),
))]
#[post("/api/v1/users")]
pub async fn create_user(
    state: web::Data<AppState>,
    caller: Caller,
    body: web::Json<CreateUserRequest>,
) -> ApiResult<HttpResponse> {
    caller.require(&[Role::Pitboss, Role::Cashier])?;
    let req = body.into_inner();
    if caller.role == Role::Cashier && req.role != Role::Player {
        return Err(ApiError::forbidden("a cashier may create player accounts only"));
    }
    let username = Username::parse(&req.username).map_err(|m| ApiError::bad_request("invalid_username", m))?;
    let password = Password::parse(&req.password).map_err(|m| ApiError::bad_request("invalid_password", m))?;
    let display_name = req.display_name.unwrap_or_else(|| username.as_str().to_string());
    if display_name.is_empty() || display_name.chars().count() > 64 {
        return Err(ApiError::bad_request(
            "invalid_display_name",
            "display name must be 1 to 64 characters",
        ));
    }
    let password_hash = super::auth::hash_bounded(&state, password).await?;
    let user = state
        .blocking(move |s| {
            s.db.write(|conn| {
                let new = NewUser {
                    username: &username,
                    display_name: &display_name,
                    role: req.role,
                    password_hash: &password_hash,
                };
                users::create(conn, &new, Some(&caller.user_id)).map_err(|e| match e {
                    CreateUserError::Taken(name) => {
                        ApiError::conflict("username_taken", format!("username {name} is taken"))
                    }
                    CreateUserError::Db(d) => ApiError::from(d),
                })
            })
        })
        .await?;
    Ok(HttpResponse::Created().json(user))
}

#[derive(Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
pub struct ListUsersQuery {
    pub role: Option<Role>,
    #[param(minimum = 1, maximum = 500)]
    pub limit: Option<i64>,
    #[param(minimum = 0)]
    pub offset: Option<i64>,
}

/// Lists accounts. Pit boss and auditor see everyone; a cashier sees players.
#[utoipa::path(tag = "users", security(("bearer" = [])), params(ListUsersQuery), responses(
    (status = 200, body = Vec<User>),
    (status = 403, body = super::error::ErrorBody),
))]
#[get("/api/v1/users")]
pub async fn list_users(
    state: web::Data<AppState>,
    caller: Caller,
    query: web::Query<ListUsersQuery>,
) -> ApiResult<web::Json<Vec<User>>> {
    caller.require(&[Role::Pitboss, Role::Auditor, Role::Cashier])?;
    let q = query.into_inner();
    let role = if caller.role == Role::Cashier {
        if q.role.is_some_and(|r| r != Role::Player) {
            return Err(ApiError::forbidden("a cashier may list player accounts only"));
        }
        Some(Role::Player)
    } else {
        q.role
    };
    let page = Page::new(q.limit, q.offset)?;
    let list = state
        .blocking(move |s| {
            let mut conn = s.db.conn()?;
            Ok(users::list(&mut conn, role, page.limit, page.offset)?)
        })
        .await?;
    Ok(web::Json(list))
}

/// Most accounts one roster request names.
pub const MAX_ROSTER_IDS: usize = 200;

#[derive(Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
pub struct RosterQuery {
    /// Account ids, comma-separated, at most 200.
    #[param(example = "0190a1b2-0000-7000-8000-000000000001,0190a1b2-0000-7000-8000-000000000002")]
    pub ids: String,
}

/// Names the accounts behind ids a staff screen was given (a round's seats and bets, an event's
/// actor, a transfer's author): username, display name and role (dealer, cashier, pit boss,
/// auditor). Unknown ids are left out. Players are never given this: to another player a player
/// is a pseudonym.
#[utoipa::path(tag = "users", security(("bearer" = [])), params(RosterQuery), responses(
    (status = 200, body = Vec<crate::users::RosterEntry>),
    (status = 400, body = super::error::ErrorBody),
    (status = 403, body = super::error::ErrorBody),
))]
#[get("/api/v1/roster")]
pub async fn roster(
    state: web::Data<AppState>,
    caller: Caller,
    query: web::Query<RosterQuery>,
) -> ApiResult<web::Json<Vec<crate::users::RosterEntry>>> {
    caller.require(&[Role::Dealer, Role::Cashier, Role::Pitboss, Role::Auditor])?;
    let ids: Vec<String> = query
        .ids
        .split(',')
        .map(str::trim)
        .filter(|id| !id.is_empty())
        .map(str::to_owned)
        .collect();
    if ids.len() > MAX_ROSTER_IDS {
        return Err(ApiError::bad_request(
            "too_many_ids",
            format!(
                "a roster request names at most {MAX_ROSTER_IDS} accounts; it named {}",
                ids.len()
            ),
        ));
    }
    let entries = state
        .blocking(move |s| {
            let mut conn = s.db.conn()?;
            Ok(users::roster(&mut conn, &ids)?)
        })
        .await?;
    Ok(web::Json(entries))
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct UpdateUserRequest {
    pub role: Option<Role>,
    pub active: Option<bool>,
}

/// Changes an account's role or deactivates it (pit boss). Either ends every
/// session of the account at once. A significant event.
///
/// A player's role cannot change (their wallet stays a player's), nor can a
/// staff account become a player.
#[utoipa::path(tag = "users", security(("bearer" = [])), request_body = UpdateUserRequest, responses(
    (status = 200, body = User),
    (status = 403, body = super::error::ErrorBody),
    (status = 404, body = super::error::ErrorBody),
    (status = 422, body = super::error::ErrorBody),
))]
#[put("/api/v1/users/{user_id}")]
pub async fn update_user(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<String>,
    body: web::Json<UpdateUserRequest>,
) -> ApiResult<web::Json<User>> {
    caller.require(&[Role::Pitboss])?;
    let user_id = path.into_inner();
    let req = body.into_inner();
    let user = state
        .blocking(move |s| {
            s.db.write(|conn| {
                use crate::store::schema::users as u;
                use diesel::prelude::*;
                let row = users::find(conn, &user_id)?.ok_or_else(|| ApiError::not_found("user"))?;
                if user_id == caller.user_id {
                    return Err(ApiError::unprocessable(
                        "self_change",
                        "a pit boss cannot change their own account",
                    ));
                }
                // What changes nothing ends no session and records nothing.
                if let Some(role) = req.role.filter(|r| *r != row.role()) {
                    if (role == Role::Player) != (row.role() == Role::Player) {
                        return Err(ApiError::unprocessable(
                            "role_change_not_allowed",
                            "player and staff accounts cannot be converted into each other",
                        ));
                    }
                    diesel::update(u::table.find(&user_id))
                        .set(u::role.eq(role.as_str()))
                        .execute(conn)?;
                    // Tokens issued under the old role end with it.
                    users::revoke_sessions(conn, &user_id)?;
                    significant_events::record(
                        conn,
                        EventKind::RoleChanged,
                        Some(&caller.user_id),
                        Some(&user_id),
                        serde_json::json!({ "from": row.role, "to": role.as_str() }),
                    )?;
                }
                if let Some(active) = req.active.filter(|a| *a != row.active) {
                    diesel::update(u::table.find(&user_id))
                        .set(u::active.eq(active))
                        .execute(conn)?;
                    users::revoke_sessions(conn, &user_id)?;
                    significant_events::record(
                        conn,
                        EventKind::RoleChanged,
                        Some(&caller.user_id),
                        Some(&user_id),
                        serde_json::json!({ "active": active }),
                    )?;
                }
                Ok(users::find(conn, &user_id)?
                    .ok_or_else(|| ApiError::not_found("user"))?
                    .public())
            })
        })
        .await?;
    Ok(web::Json(user))
}

/// Ends every session of an account (pit boss): its tokens stop working at
/// their next request on every instance. A significant event.
#[utoipa::path(tag = "users", security(("bearer" = [])), responses(
    (status = 204, description = "Every session of the account ended"),
    (status = 401, body = super::error::ErrorBody),
    (status = 403, body = super::error::ErrorBody),
    (status = 404, body = super::error::ErrorBody),
))]
#[post("/api/v1/users/{user_id}/logout")]
pub async fn end_sessions(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<String>,
) -> ApiResult<HttpResponse> {
    caller.require(&[Role::Pitboss])?;
    let user_id = path.into_inner();
    state
        .blocking(move |s| {
            s.db.write(|conn| -> Result<(), ApiError> {
                if !users::revoke_sessions(conn, &user_id)? {
                    return Err(ApiError::not_found("user"));
                }
                significant_events::record(
                    conn,
                    EventKind::SessionsEnded,
                    Some(&caller.user_id),
                    Some(&user_id),
                    serde_json::json!({ "by": caller.username }),
                )?;
                Ok(())
            })
        })
        .await?;
    Ok(HttpResponse::NoContent().finish())
}

/// A pit boss's reset of someone else's password.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ResetPasswordRequest {
    /// A temporary password, 10 to 128 characters, to hand to the account's
    /// holder; they must replace it at their next sign-in.
    #[schema(min_length = 10, max_length = 128)]
    pub temporary_password: String,
}

/// Resets another account's password (pit boss): every session of the
/// account ends, and at its next sign-in it may do nothing but choose its
/// own password (the login answer says `must_change_password`). A pit boss
/// changes their own with `PUT /api/v1/me/password`. A significant event.
#[utoipa::path(tag = "users", security(("bearer" = [])), request_body = ResetPasswordRequest, responses(
    (status = 204, description = "Password reset; the account's sessions ended"),
    (status = 400, body = super::error::ErrorBody),
    (status = 401, body = super::error::ErrorBody),
    (status = 403, body = super::error::ErrorBody),
    (status = 404, body = super::error::ErrorBody),
    (status = 503, body = super::error::ErrorBody),
))]
#[post("/api/v1/users/{user_id}/password")]
pub async fn reset_password(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<String>,
    body: web::Json<ResetPasswordRequest>,
) -> ApiResult<HttpResponse> {
    caller.require(&[Role::Pitboss])?;
    let user_id = path.into_inner();
    if user_id == caller.user_id {
        return Err(ApiError::forbidden(
            "a pit boss changes their own password with PUT /api/v1/me/password",
        ));
    }
    let password = Password::parse(&body.into_inner().temporary_password)
        .map_err(|m| ApiError::bad_request("invalid_password", m))?;
    let hash = super::auth::hash_bounded(&state, password).await?;
    state
        .blocking(move |s| {
            s.db.write(|conn| -> Result<(), ApiError> {
                let user = users::find(conn, &user_id)?.ok_or_else(|| ApiError::not_found("user"))?;
                users::set_password(conn, &user_id, &hash, users::PasswordOrigin::Temporary)?;
                significant_events::record(
                    conn,
                    EventKind::PasswordReset,
                    Some(&caller.user_id),
                    Some(&user_id),
                    serde_json::json!({ "username": user.username, "by": caller.username }),
                )?;
                Ok(())
            })
        })
        .await?;
    Ok(HttpResponse::NoContent().finish())
}

#[derive(Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
pub struct UnlockQuery {
    /// The client address the holder signs in from, as the `login_failed` events show it: its
    /// lockout is lifted too and it becomes known to the account. One that is not an IP
    /// address names no client and lifts nothing; empty is the same as none.
    #[param(max_length = 64)]
    pub address: Option<String>,
}

/// Lifts an account's login lockouts where its holder signs in (pit boss): at the addresses the
/// account signed in from in the last 30 days, and at `address` when given, which becomes known
/// to the account and so exempt from its per-account backoff. Addresses that only failed keep
/// their limits and the backoff stays, so an unlock gives a guesser no new attempts
/// (docs/security.md). A significant event.
#[utoipa::path(tag = "users", security(("bearer" = [])), params(UnlockQuery), responses(
    (status = 204, description = "The account's login limits are lifted where its holder signs in"),
    (status = 400, body = super::error::ErrorBody),
    (status = 401, body = super::error::ErrorBody),
    (status = 403, body = super::error::ErrorBody),
    (status = 404, body = super::error::ErrorBody),
))]
#[post("/api/v1/users/{user_id}/unlock")]
pub async fn unlock(
    state: web::Data<AppState>,
    caller: Caller,
    path: web::Path<String>,
    query: web::Query<UnlockQuery>,
) -> ApiResult<HttpResponse> {
    caller.require(&[Role::Pitboss])?;
    let user_id = path.into_inner();
    let address = match query.address.as_deref().map(str::trim) {
        Some(a) if a.chars().count() > 64 => {
            return Err(ApiError::bad_request(
                "invalid_address",
                "address is at most 64 characters",
            ))
        }
        Some("") | None => None,
        Some(a) => Some(crate::auth::proxies::canonical_address(a).unwrap_or_else(|| a.to_string())),
    };
    state
        .blocking(move |s| {
            s.db.write(|conn| -> Result<(), ApiError> {
                let user = users::find(conn, &user_id)?.ok_or_else(|| ApiError::not_found("user"))?;
                let cleared = crate::auth::throttle::unlock_account(
                    conn,
                    &s.settings.login_policy,
                    &user.username,
                    address.as_deref(),
                    crate::store::now_us(),
                )?;
                significant_events::record(
                    conn,
                    EventKind::LoginUnlocked,
                    Some(&caller.user_id),
                    Some(&user_id),
                    serde_json::json!({ "username": user.username, "limits_cleared": cleared, "address": address }),
                )?;
                Ok(())
            })
        })
        .await?;
    Ok(HttpResponse::NoContent().finish())
}
