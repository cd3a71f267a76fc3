//! Accounts of the people who use djego, and the first-run bootstrap.

use diesel::prelude::*;
use serde::Serialize;
use std::collections::HashMap;
use utoipa::ToSchema;

use crate::domain::{Role, Username};
use crate::significant_events::{self, EventKind};
use crate::store::schema::users;
use crate::store::{new_id, now_us, AnyConnection};

#[derive(Queryable, Selectable, Debug, Clone)]
#[diesel(table_name = users)]
pub struct UserRow {
    pub id: String,
    pub username: String,
    pub display_name: String,
    pub role: String,
    pub password_hash: String,
    pub active: bool,
    pub created_at_us: i64,
    /// Tokens carry the version current when they were issued; a bump
    /// revokes them all (see [`revoke_sessions`]).
    pub session_version: i64,
    /// Set by a pit boss's reset: the account must choose its own password
    /// before anything else.
    pub must_change_password: bool,
}

/// A user as shown over the API (never the password hash).
#[derive(Serialize, ToSchema, Debug, Clone)]
pub struct User {
    pub id: String,
    pub username: String,
    pub display_name: String,
    pub role: Role,
    pub active: bool,
    pub created_at_us: i64,
    /// The password was reset: the account must choose a new one at its next sign-in.
    pub must_change_password: bool,
}

impl UserRow {
    pub fn role(&self) -> Role {
        // The CHECK constraint on users.role admits only the five names.
        Role::parse(&self.role).unwrap_or(Role::Player)
    }
    pub fn public(&self) -> User {
        User {
            id: self.id.clone(),
            username: self.username.clone(),
            display_name: self.display_name.clone(),
            role: self.role(),
            active: self.active,
            created_at_us: self.created_at_us,
            must_change_password: self.must_change_password,
        }
    }
}

pub struct NewUser<'a> {
    pub username: &'a Username,
    pub display_name: &'a str,
    pub role: Role,
    /// The password's argon2 hash (`crate::auth::hash_password`), computed before the write
    /// transaction: hashing takes tens of milliseconds, and on SQLite every wager waits for a
    /// write to end.
    pub password_hash: &'a str,
}

#[derive(Debug, thiserror::Error)]
pub enum CreateUserError {
    #[error("username {0} is taken")]
    Taken(String),
    #[error(transparent)]
    Db(#[from] diesel::result::Error),
}

/// Inserts a user (and, for a player, opens their wallet), recording who did it.
pub fn create(conn: &mut AnyConnection, new: &NewUser<'_>, created_by: Option<&str>) -> Result<User, CreateUserError> {
    if find_by_username(conn, new.username.as_str())?.is_some() {
        return Err(CreateUserError::Taken(new.username.as_str().to_string()));
    }
    let row = UserRow {
        id: new_id(),
        username: new.username.as_str().to_string(),
        display_name: new.display_name.to_string(),
        role: new.role.as_str().to_string(),
        password_hash: new.password_hash.to_string(),
        active: true,
        created_at_us: now_us(),
        session_version: 0,
        must_change_password: false,
    };
    diesel::insert_into(users::table)
        .values((
            users::id.eq(&row.id),
            users::username.eq(&row.username),
            users::display_name.eq(&row.display_name),
            users::role.eq(&row.role),
            users::password_hash.eq(&row.password_hash),
            users::active.eq(row.active),
            users::created_at_us.eq(row.created_at_us),
        ))
        .execute(conn)?;
    if new.role == Role::Player {
        crate::ledger::accounts::open_wallet(conn, &row.id)?;
    }
    significant_events::record(
        conn,
        EventKind::UserCreated,
        created_by,
        Some(&row.id),
        serde_json::json!({ "username": row.username, "role": row.role }),
    )?;
    Ok(row.public())
}

pub fn find_by_username(conn: &mut AnyConnection, username: &str) -> QueryResult<Option<UserRow>> {
    users::table
        .filter(users::username.eq(username.to_ascii_lowercase()))
        .select(UserRow::as_select())
        .first(conn)
        .optional()
}

pub fn find(conn: &mut AnyConnection, id: &str) -> QueryResult<Option<UserRow>> {
    users::table
        .find(id)
        .select(UserRow::as_select())
        .first(conn)
        .optional()
}

pub fn count(conn: &mut AnyConnection) -> QueryResult<i64> {
    users::table.count().get_result(conn)
}

/// How the staff's screens name an account: its username and display name, never more.
#[derive(Serialize, ToSchema, Debug, Clone, PartialEq, Eq)]
pub struct RosterEntry {
    pub id: String,
    pub username: String,
    pub display_name: String,
    pub role: Role,
}

/// The accounts among `ids` (unknown ids are left out), as the roster names them.
pub fn roster(conn: &mut AnyConnection, ids: &[String]) -> QueryResult<Vec<RosterEntry>> {
    Ok(users::table
        .filter(users::id.eq_any(ids))
        .order(users::username.asc())
        .select(UserRow::as_select())
        .load(conn)?
        .into_iter()
        .map(|u| RosterEntry {
            role: u.role(),
            id: u.id,
            username: u.username,
            display_name: u.display_name,
        })
        .collect())
}

pub fn list(conn: &mut AnyConnection, role: Option<Role>, limit: i64, offset: i64) -> QueryResult<Vec<User>> {
    let mut query = users::table.select(UserRow::as_select()).into_boxed();
    if let Some(role) = role {
        query = query.filter(users::role.eq(role.as_str()));
    }
    Ok(query
        .order((users::created_at_us.asc(), users::id.asc()))
        .limit(limit)
        .offset(offset)
        .load(conn)?
        .iter()
        .map(UserRow::public)
        .collect())
}

/// What every request checks of its caller's account.
pub struct Session {
    pub username: String,
    pub role: Role,
    pub active: bool,
    pub version: i64,
    pub must_change_password: bool,
}

type SessionColumns = (String, String, bool, i64, bool);

impl Session {
    fn from_row((username, role, active, version, must_change_password): SessionColumns) -> Session {
        Session {
            username,
            // The CHECK constraint on users.role admits only the five names.
            role: Role::parse(&role).unwrap_or(Role::Player),
            active,
            version,
            must_change_password,
        }
    }
}

pub fn session(conn: &mut AnyConnection, id: &str) -> QueryResult<Option<Session>> {
    let row: Option<SessionColumns> = users::table
        .find(id)
        .select((
            users::username,
            users::role,
            users::active,
            users::session_version,
            users::must_change_password,
        ))
        .first(conn)
        .optional()?;
    Ok(row.map(Session::from_row))
}

/// The sessions of several accounts by id, in one query; unknown ids are absent.
pub fn sessions(conn: &mut AnyConnection, ids: &[&str]) -> QueryResult<HashMap<String, Session>> {
    let rows: Vec<(String, SessionColumns)> = users::table
        .filter(users::id.eq_any(ids))
        .select((
            users::id,
            (
                users::username,
                users::role,
                users::active,
                users::session_version,
                users::must_change_password,
            ),
        ))
        .load(conn)?;
    Ok(rows.into_iter().map(|(id, row)| (id, Session::from_row(row))).collect())
}

/// Ends every session of an account: tokens issued before stop working at
/// their next request, on every instance. Returns false for an unknown id.
pub fn revoke_sessions(conn: &mut AnyConnection, id: &str) -> QueryResult<bool> {
    let changed = diesel::update(users::table.find(id))
        .set(users::session_version.eq(users::session_version + 1))
        .execute(conn)?;
    Ok(changed == 1)
}

/// Whose choice a new password is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PasswordOrigin {
    /// The account holder's own: it is theirs from now on.
    Chosen,
    /// Set for them (a pit boss's reset, an operator's temporary one): they
    /// must replace it at their next sign-in.
    Temporary,
}

/// Replaces an account's password and ends its sessions. Returns false for
/// an unknown id.
pub fn set_password(
    conn: &mut AnyConnection,
    id: &str,
    password_hash: &str,
    origin: PasswordOrigin,
) -> QueryResult<bool> {
    let changed = diesel::update(users::table.find(id))
        .set((
            users::password_hash.eq(password_hash),
            users::session_version.eq(users::session_version + 1),
            users::must_change_password.eq(origin == PasswordOrigin::Temporary),
        ))
        .execute(conn)?;
    Ok(changed == 1)
}
