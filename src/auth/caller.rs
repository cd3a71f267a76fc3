use super::{TokenError, TokenKeys};
use crate::domain::Role;
use crate::store::AnyConnection;
use crate::users;

/// The authenticated caller: a valid token whose account is, right now in
/// the database, active and on the session version the token carries. The
/// role and username are the database's, never the token's.
#[derive(Debug, Clone)]
pub struct Caller {
    pub user_id: String,
    pub role: Role,
    pub username: String,
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
    #[error("this session has ended (logout, password or role change); log in again")]
    SessionRevoked,
    #[error("this account is deactivated")]
    AccountInactive,
    #[error("role {0} may not call this endpoint")]
    Forbidden(Role),
    #[error(transparent)]
    Db(#[from] diesel::result::Error),
}

impl Caller {
    /// The role guard: every protected handler states its roles here.
    pub fn require(&self, roles: &[Role]) -> Result<(), AuthError> {
        if roles.contains(&self.role) {
            Ok(())
        } else {
            Err(AuthError::Forbidden(self.role))
        }
    }
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

/// Checks a token's signature and expiry, then the account as it is now.
pub fn authenticate(conn: &mut AnyConnection, keys: &TokenKeys, token: &str) -> Result<Caller, AuthError> {
    let claims = keys.check(token)?;
    let session = users::session(conn, &claims.sub)?.ok_or(AuthError::SessionRevoked)?;
    if !session.active {
        return Err(AuthError::AccountInactive);
    }
    if session.version != claims.sv {
        return Err(AuthError::SessionRevoked);
    }
    Ok(Caller {
        user_id: claims.sub,
        role: session.role,
        username: session.username,
    })
}
