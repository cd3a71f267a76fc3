use super::{TokenError, TokenKeys};
use crate::domain::Role;
use crate::store::AnyConnection;
use crate::users::{self, Session};

/// The authenticated caller: a valid token whose account is, right now in
/// the database, active and on the session version the token carries. The
/// role and username are the database's, never the token's.
#[derive(Debug, Clone)]
pub struct Caller {
    pub user_id: String,
    pub role: Role,
    pub username: String,
}

/// A caller whose request touches only their own account ([`Reach::OwnAccount`]):
/// let through while a reset password waits to be replaced.
#[derive(Debug, Clone)]
pub struct OwnAccountCaller(pub Caller);

/// A caller known so far by a valid token only, whose session is checked by
/// the transaction that carries its request: the wager path checks every
/// request of a batch against its account in the batch's own transaction, so
/// a bet or a deposit needs no round trip of its own to the database and is
/// judged against the account as it is at its commit. Every other request
/// uses [`Caller`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClaimedCaller {
    pub user_id: String,
    /// The role the token was issued with. A role change ends the account's
    /// sessions, so on the session version the token carries this is the
    /// account's role; [`ClaimedCaller::admitted_by`] checks both.
    pub role: Role,
    pub session_version: i64,
}

/// Why an account's session does not let a request through.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum SessionRefusal {
    #[error("this session has ended (logout, password or role change); log in again")]
    Revoked,
    #[error("this account is deactivated")]
    Inactive,
    #[error("role {0} may not call this endpoint")]
    Forbidden(Role),
    #[error("this account's password was reset: choose a new one (PUT /api/v1/me/password) before anything else")]
    PasswordChangeRequired,
}

/// What a request does with the caller's rights.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reach {
    /// Anything the role allows; refused while a reset password waits to be replaced.
    Role,
    /// Only the caller's own account: reading it, choosing a new password,
    /// logging out. Allowed while a reset password waits to be replaced.
    OwnAccount,
}

/// Why a request is not let through.
#[derive(Debug, thiserror::Error)]
pub enum AuthError {
    #[error("missing Authorization: Bearer token")]
    MissingToken,
    #[error("Authorization header must be 'Bearer <token>'")]
    MalformedHeader,
    #[error("invalid token: {0}")]
    InvalidToken(#[from] TokenError),
    #[error(transparent)]
    Refused(#[from] SessionRefusal),
    #[error(transparent)]
    Db(#[from] diesel::result::Error),
}

fn require(role: Role, roles: &[Role]) -> Result<(), SessionRefusal> {
    if roles.contains(&role) {
        Ok(())
    } else {
        Err(SessionRefusal::Forbidden(role))
    }
}

impl Caller {
    /// The role guard: every protected handler states its roles here.
    pub fn require(&self, roles: &[Role]) -> Result<(), AuthError> {
        Ok(require(self.role, roles)?)
    }
}

impl ClaimedCaller {
    /// The role guard on the token's role; [`ClaimedCaller::admitted_by`]
    /// later confirms that role is still the account's.
    pub fn require(&self, roles: &[Role]) -> Result<(), AuthError> {
        Ok(require(self.role, roles)?)
    }

    /// Whether the account, as read now, still holds the session this token
    /// belongs to, in the role the token was issued with.
    pub fn admitted_by(&self, session: Option<&Session>) -> Result<(), SessionRefusal> {
        let session = admit(session, self.session_version, Reach::Role)?;
        if session.role != self.role {
            return Err(SessionRefusal::Revoked);
        }
        Ok(())
    }
}

/// An account admits a token while it is active and on the token's session
/// version, and, once its password was reset, only to replace it.
fn admit(session: Option<&Session>, token_version: i64, reach: Reach) -> Result<&Session, SessionRefusal> {
    let session = session.ok_or(SessionRefusal::Revoked)?;
    if !session.active {
        return Err(SessionRefusal::Inactive);
    }
    if session.version != token_version {
        return Err(SessionRefusal::Revoked);
    }
    if session.must_change_password && reach == Reach::Role {
        return Err(SessionRefusal::PasswordChangeRequired);
    }
    Ok(session)
}

/// The bearer token of an `Authorization` header value.
pub fn bearer_token(header: Option<&[u8]>) -> Result<&str, AuthError> {
    let header = header.ok_or(AuthError::MissingToken)?;
    std::str::from_utf8(header)
        .ok()
        .and_then(|h| h.strip_prefix("Bearer "))
        .map(str::trim)
        .ok_or(AuthError::MalformedHeader)
}

/// Checks a token's signature and expiry, then the account as it is now,
/// for a request of the given reach.
pub fn authenticate(
    conn: &mut AnyConnection,
    keys: &TokenKeys,
    token: &str,
    reach: Reach,
) -> Result<Caller, AuthError> {
    let claims = keys.check(token)?;
    let session = users::session(conn, &claims.sub)?;
    let session = admit(session.as_ref(), claims.sv, reach)?;
    Ok(Caller {
        user_id: claims.sub,
        role: session.role,
        username: session.username.clone(),
    })
}

/// Checks a token's signature and expiry only; the account is checked later,
/// in the transaction of the request (see [`ClaimedCaller`]).
pub fn claim(keys: &TokenKeys, token: &str) -> Result<ClaimedCaller, AuthError> {
    let claims = keys.check(token)?;
    Ok(ClaimedCaller {
        user_id: claims.sub,
        role: claims.role,
        session_version: claims.sv,
    })
}
