//! Accounts over HTTP. Whatever gives someone a pit boss's or an auditor's powers (creating such
//! an account, promoting to or reactivating one, resetting its password) is only proposed, and
//! made when a second pit boss approves it (docs/floor.md, "Two-person control"); the rest is one
//! pit boss's (or, for players, one cashier's) to do.

use actix_web::{get, post, put, web, HttpResponse};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use super::error::{ApiError, ApiResult};
use super::pagination::Page;
use super::state::AppState;
use crate::approvals::{self, ProposalKind};
use crate::auth::Caller;
use crate::domain::{Password, Role, Username};
use crate::significant_events::{self, EventKind};
use crate::store::AnyConnection;
use crate::users::{self, CreateUserError, NewUser, User};

/// What an account change did: made at once, or proposed for a second pit boss.
enum Outcome<T> {
    Made(T),
    Proposed(crate::approvals::Proposal),
}

/// Whether a role holds powers that two-person control guards: a pit boss approves changes, an
/// auditor reads everything, seeds included.
fn under_control(role: Role) -> bool {
    matches!(role, Role::Pitboss | Role::Auditor)
}

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

/// A proposed pit boss's or auditor's account, as its proposal shows it (the password's hash is
/// kept apart and never shown).
#[derive(Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ProposedAccount {
    pub username: String,
    pub display_name: String,
    pub role: Role,
}

/// Creates an account. A pit boss creates dealers, cashiers and players at once, and proposes a
/// pit boss's or an auditor's account (202): it is created when a second pit boss approves. A
/// cashier creates players.
#[utoipa::path(tag = "users", security(("bearer" = [])), request_body = CreateUserRequest, responses(
    (status = 201, body = User),
    (status = 202, body = crate::approvals::Proposal, description = "A pit boss's or an auditor's account: proposed, pending a second pit boss's approval."),
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
    let role = req.role;
    if under_control(role) {
        let proposal = state
            .blocking(move |s| {
                s.db.write(|conn| {
                    if users::find_by_username(conn, username.as_str())?.is_some() {
                        return Err(taken(username.as_str()));
                    }
                    let account = ProposedAccount {
                        username: username.as_str().to_owned(),
                        display_name,
                        role,
                    };
                    Ok::<_, ApiError>(approvals::propose_with_password(
                        conn,
                        ProposalKind::CreateStaffAccount,
                        None,
                        &account,
                        Some(&password_hash),
                        &caller.user_id,
                    )?)
                })
            })
            .await?;
        return Ok(HttpResponse::Accepted().json(proposal));
    }
    let user = state
        .blocking(move |s| {
            s.db.write(|conn| {
                let new = NewUser {
                    username: &username,
                    display_name: &display_name,
                    role,
                    password_hash: &password_hash,
                };
                create_account(conn, &new, &caller.user_id)
            })
        })
        .await?;
    Ok(HttpResponse::Created().json(user))
}

fn taken(username: &str) -> ApiError {
    ApiError::conflict("username_taken", format!("username {username} is taken"))
}

fn create_account(conn: &mut AnyConnection, new: &NewUser<'_>, actor_id: &str) -> Result<User, ApiError> {
    users::create(conn, new, Some(actor_id)).map_err(|e| match e {
        CreateUserError::Taken(name) => taken(&name),
        CreateUserError::Db(d) => ApiError::from(d),
    })
}

/// Creates a proposed pit boss's or auditor's account, once approved: its proposer made it.
pub(super) fn create_proposed_account(
    conn: &mut AnyConnection,
    account: &ProposedAccount,
    password_hash: &str,
    proposer_id: &str,
) -> Result<User, ApiError> {
    let username = Username::parse(&account.username).map_err(|m| ApiError::bad_request("invalid_username", m))?;
    let new = NewUser {
        username: &username,
        display_name: &account.display_name,
        role: account.role,
        password_hash,
    };
    create_account(conn, &new, proposer_id)
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

#[derive(Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct UpdateUserRequest {
    pub role: Option<Role>,
    pub active: Option<bool>,
}

/// Changes an account's role or deactivates it (pit boss). Either ends every session of the
/// account at once. A significant event. Giving the pit boss's or the auditor's role, or
/// reactivating an account that holds one, is only proposed (202), and made when a second pit
/// boss approves it.
///
/// A player's role cannot change (their wallet stays a player's), nor can a
/// staff account become a player.
#[utoipa::path(tag = "users", security(("bearer" = [])), request_body = UpdateUserRequest, responses(
    (status = 200, body = User),
    (status = 202, body = crate::approvals::Proposal, description = "Gives a pit boss's or an auditor's powers: proposed, pending a second pit boss's approval."),
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
) -> ApiResult<HttpResponse> {
    caller.require(&[Role::Pitboss])?;
    let user_id = path.into_inner();
    let req = body.into_inner();
    match state
        .blocking(move |s| {
            s.db.write(|conn| {
                let row = check_update(conn, &caller.user_id, &user_id, &req)?;
                let role = req.role.unwrap_or_else(|| row.role());
                let promotes = req.role.is_some_and(|r| r != row.role());
                let reactivates = req.active == Some(true) && !row.active;
                if under_control(role) && (promotes || reactivates) {
                    let proposal = approvals::propose(
                        conn,
                        ProposalKind::ChangeStaffAccount,
                        Some(&user_id),
                        &req,
                        &caller.user_id,
                    )?;
                    return Ok(Outcome::Proposed(proposal));
                }
                Ok::<_, ApiError>(Outcome::Made(update_account(conn, &caller.user_id, &user_id, &req)?))
            })
        })
        .await?
    {
        Outcome::Made(user) => Ok(HttpResponse::Ok().json(user)),
        Outcome::Proposed(proposal) => Ok(HttpResponse::Accepted().json(proposal)),
    }
}

/// An account update's checks: the account exists, is not the actor's own, and a change of role
/// keeps a player a player and staff staff.
fn check_update(
    conn: &mut AnyConnection,
    actor_id: &str,
    user_id: &str,
    req: &UpdateUserRequest,
) -> Result<users::UserRow, ApiError> {
    let row = users::find(conn, user_id)?.ok_or_else(|| ApiError::not_found("user"))?;
    if user_id == actor_id {
        return Err(ApiError::unprocessable(
            "self_change",
            "a pit boss cannot change their own account",
        ));
    }
    if req
        .role
        .is_some_and(|role| (role == Role::Player) != (row.role() == Role::Player))
    {
        return Err(ApiError::unprocessable(
            "role_change_not_allowed",
            "player and staff accounts cannot be converted into each other",
        ));
    }
    Ok(row)
}

/// Changes an account's role or activity, as `actor_id` (at once, or as the proposer once
/// approved). What changes nothing ends no session and records nothing.
pub(super) fn update_account(
    conn: &mut AnyConnection,
    actor_id: &str,
    user_id: &str,
    req: &UpdateUserRequest,
) -> Result<User, ApiError> {
    use crate::store::schema::users as u;
    use diesel::prelude::*;
    let row = check_update(conn, actor_id, user_id, req)?;
    if let Some(role) = req.role.filter(|r| *r != row.role()) {
        diesel::update(u::table.find(user_id))
            .set(u::role.eq(role.as_str()))
            .execute(conn)?;
        // Tokens issued under the old role end with it.
        users::revoke_sessions(conn, user_id)?;
        significant_events::record(
            conn,
            EventKind::RoleChanged,
            Some(actor_id),
            Some(user_id),
            serde_json::json!({ "from": row.role, "to": role.as_str() }),
        )?;
    }
    if let Some(active) = req.active.filter(|a| *a != row.active) {
        diesel::update(u::table.find(user_id))
            .set(u::active.eq(active))
            .execute(conn)?;
        users::revoke_sessions(conn, user_id)?;
        significant_events::record(
            conn,
            EventKind::RoleChanged,
            Some(actor_id),
            Some(user_id),
            serde_json::json!({ "active": active }),
        )?;
    }
    Ok(users::find(conn, user_id)?
        .ok_or_else(|| ApiError::not_found("user"))?
        .public())
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
/// A pit boss's or an auditor's password is only proposed (202): whoever knows it could act as
/// them, so a second pit boss approves the reset.
#[utoipa::path(tag = "users", security(("bearer" = [])), request_body = ResetPasswordRequest, responses(
    (status = 202, body = crate::approvals::Proposal, description = "A pit boss's or an auditor's password: proposed, pending a second pit boss's approval."),
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
    match state
        .blocking(move |s| {
            s.db.write(|conn| {
                let user = users::find(conn, &user_id)?.ok_or_else(|| ApiError::not_found("user"))?;
                if under_control(user.role()) {
                    let proposal = approvals::propose_with_password(
                        conn,
                        ProposalKind::ResetStaffPassword,
                        Some(&user_id),
                        &serde_json::json!({ "username": user.username }),
                        Some(&hash),
                        &caller.user_id,
                    )?;
                    return Ok(Outcome::Proposed(proposal));
                }
                reset_to(conn, &caller.user_id, &user_id, &hash)?;
                Ok::<_, ApiError>(Outcome::Made(()))
            })
        })
        .await?
    {
        Outcome::Made(()) => Ok(HttpResponse::NoContent().finish()),
        Outcome::Proposed(proposal) => Ok(HttpResponse::Accepted().json(proposal)),
    }
}

/// Sets a temporary password, as `actor_id` (at once, or as the proposer once approved).
pub(super) fn reset_to(conn: &mut AnyConnection, actor_id: &str, user_id: &str, hash: &str) -> Result<(), ApiError> {
    let user = users::find(conn, user_id)?.ok_or_else(|| ApiError::not_found("user"))?;
    let by = users::find(conn, actor_id)?.map(|a| a.username).unwrap_or_default();
    users::set_password(conn, user_id, hash, users::PasswordOrigin::Temporary)?;
    significant_events::record(
        conn,
        EventKind::PasswordReset,
        Some(actor_id),
        Some(user_id),
        serde_json::json!({ "username": user.username, "by": by }),
    )?;
    Ok(())
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
