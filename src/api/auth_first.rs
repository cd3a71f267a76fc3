//! The token before anything else: a request to an operation that needs a
//! bearer token, without a token that this service signed and that has not
//! expired, is a 401 before its path, query or body is looked at. Otherwise
//! an anonymous caller would learn which bodies an endpoint takes (400, 413,
//! 415) and the order of a handler's extractors would decide the answer.
//!
//! Which operations need a token is read from the OpenAPI document, whose
//! `security` every protected handler states; the handler's `Caller` then
//! checks the account as usual.

use std::collections::HashSet;
use std::sync::Arc;

use actix_web::body::MessageBody;
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::middleware::Next;
use actix_web::web;

use super::error::ApiError;
use crate::auth::{self, TokenKeys};

/// (method, path pattern) of every operation that needs a token.
#[derive(Debug, Default)]
pub struct TokenRoutes(HashSet<(String, String)>);

impl TokenRoutes {
    /// The operations of `doc` whose security requires a scheme: one that
    /// also lists an empty requirement (`{}`) may be called without a token.
    pub fn from_openapi(doc: &utoipa::openapi::OpenApi) -> TokenRoutes {
        let doc = serde_json::to_value(doc).unwrap_or_default();
        let mut routes = HashSet::new();
        for (path, item) in doc["paths"].as_object().into_iter().flatten() {
            for (method, operation) in item.as_object().into_iter().flatten() {
                let needs = operation["security"]
                    .as_array()
                    .is_some_and(|s| !s.is_empty() && s.iter().all(|r| r.as_object().is_some_and(|r| !r.is_empty())));
                if needs {
                    routes.insert((method.to_ascii_uppercase(), path.clone()));
                }
            }
        }
        TokenRoutes(routes)
    }

    pub fn needs_token(&self, method: &str, pattern: &str) -> bool {
        self.0.contains(&(method.to_string(), pattern.to_string()))
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// Refuses with 401 a request to a protected operation whose token is
/// missing, malformed, not signed by a known key, or expired.
pub async fn refuse(
    routes: Arc<TokenRoutes>,
    req: ServiceRequest,
    next: Next<impl MessageBody>,
) -> Result<ServiceResponse<impl MessageBody>, actix_web::Error> {
    let protected = req
        .match_pattern()
        .is_some_and(|pattern| routes.needs_token(req.method().as_str(), &pattern));
    if protected {
        let header = req
            .headers()
            .get(actix_web::http::header::AUTHORIZATION)
            .map(|h| h.as_bytes());
        let checked = match req.app_data::<web::Data<TokenKeys>>() {
            Some(keys) => auth::bearer_token(header).and_then(|token| auth::claim(keys, token)),
            None => return Err(ApiError::internal("authentication is not configured").into()),
        };
        if let Err(e) = checked {
            return Err(ApiError::from(e).into());
        }
    }
    next.call(req).await
}
