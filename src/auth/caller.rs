use actix_web::{dev::Payload, web, FromRequest, HttpRequest};
use std::future::{ready, Ready};

use super::TokenKeys;
use crate::api::error::ApiError;
use crate::domain::Role;

/// The authenticated caller, from a valid `Authorization: Bearer` token.
/// Extracting it fails with 401; [`Caller::require`] fails with 403.
#[derive(Debug, Clone)]
pub struct Caller {
    pub user_id: String,
    pub role: Role,
    pub username: String,
}

impl Caller {
    /// The role guard: every protected handler states its roles here.
    pub fn require(&self, roles: &[Role]) -> Result<(), ApiError> {
        if roles.contains(&self.role) {
            Ok(())
        } else {
            Err(ApiError::forbidden(format!(
                "role {} may not call this endpoint",
                self.role
            )))
        }
    }
}

impl FromRequest for Caller {
    type Error = ApiError;
    type Future = Ready<Result<Caller, ApiError>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        ready(authenticate(req))
    }
}

fn authenticate(req: &HttpRequest) -> Result<Caller, ApiError> {
    let keys = req
        .app_data::<web::Data<TokenKeys>>()
        .ok_or_else(|| ApiError::internal("token keys not configured"))?;
    let header = req
        .headers()
        .get(actix_web::http::header::AUTHORIZATION)
        .ok_or_else(|| ApiError::unauthenticated("missing Authorization: Bearer token"))?;
    let token = header
        .to_str()
        .ok()
        .and_then(|h| h.strip_prefix("Bearer "))
        .ok_or_else(|| ApiError::unauthenticated("Authorization header must be 'Bearer <token>'"))?;
    let claims = keys
        .check(token.trim())
        .map_err(|e| ApiError::unauthenticated(format!("invalid token: {e}")))?;
    Ok(Caller {
        user_id: claims.sub,
        role: claims.role,
        username: claims.name,
    })
}
