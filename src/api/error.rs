//! djego's one error shape: `{ "error": { "code": "...", "message": "..." } }`.

use actix_web::http::StatusCode;
use actix_web::{HttpResponse, ResponseError};
use serde::Serialize;
use utoipa::ToSchema;

use crate::store::StoreError;

#[derive(Debug, Clone)]
pub struct ApiError {
    pub status: StatusCode,
    pub code: &'static str,
    pub message: String,
    /// Sent as `Retry-After` (seconds) with a 429 or 503.
    pub retry_after_s: Option<u64>,
    /// Facts a client acts on, beside the message (e.g. the id of the round in the way).
    pub details: Option<serde_json::Value>,
}

#[derive(Serialize, ToSchema)]
pub struct ErrorBody {
    pub error: ErrorDetail,
}

#[derive(Serialize, ToSchema)]
pub struct ErrorDetail {
    /// A stable machine-readable code such as `insufficient_funds`.
    pub code: String,
    /// A sentence for people.
    pub message: String,
    /// Present for some codes: the facts behind the refusal, for programs:
    /// `round_in_progress` names the open round (`{ "round_id" }`); `insufficient_funds`
    /// says what was needed and what the wallet holds (`{ "needed", "balance" }`, and the
    /// `account` when one transfer was refused).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<Object>)]
    pub details: Option<serde_json::Value>,
}

impl ApiError {
    pub fn new(status: StatusCode, code: &'static str, message: impl Into<String>) -> ApiError {
        ApiError {
            status,
            code,
            message: message.into(),
            retry_after_s: None,
            details: None,
        }
    }
    pub fn retry_after(mut self, seconds: u64) -> ApiError {
        self.retry_after_s = Some(seconds);
        self
    }
    pub fn with_details(mut self, details: serde_json::Value) -> ApiError {
        self.details = Some(details);
        self
    }
    pub fn bad_request(code: &'static str, message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::BAD_REQUEST, code, message)
    }
    pub fn unauthenticated(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::UNAUTHORIZED, "unauthenticated", message)
    }
    pub fn forbidden(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::FORBIDDEN, "forbidden", message)
    }
    pub fn not_found(what: &str) -> ApiError {
        ApiError::new(StatusCode::NOT_FOUND, "not_found", format!("{what} not found"))
    }
    pub fn conflict(code: &'static str, message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::CONFLICT, code, message)
    }
    pub fn unprocessable(code: &'static str, message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::UNPROCESSABLE_ENTITY, code, message)
    }
    pub fn internal(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, "internal", message)
    }
    /// The database did not answer in time. What was asked may still be done
    /// (a write may commit after this answer): retry with the same Idempotency-Key.
    pub fn database_timeout(timeout_ms: u64) -> ApiError {
        ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "database_timeout",
            format!(
                "the database did not answer within {timeout_ms} ms; a change may still be applied: \
                 retry with the same Idempotency-Key"
            ),
        )
        .retry_after(1)
    }
    /// The database cannot be reached (or a connection to it was lost):
    /// during a failover, until the new primary takes connections.
    pub fn unavailable(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::SERVICE_UNAVAILABLE, "database_unavailable", message).retry_after(1)
    }
    /// The server behind the connection takes no writes (a primary being
    /// demoted, or a standby): a failover is under way.
    pub fn read_only(message: impl Into<String>) -> ApiError {
        ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "database_read_only",
            format!(
                "{}; the database is changing primaries: retry with the same Idempotency-Key",
                message.into()
            ),
        )
        .retry_after(1)
    }
}

impl std::fmt::Display for ApiError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {}: {}", self.status.as_u16(), self.code, self.message)
    }
}

impl ResponseError for ApiError {
    fn status_code(&self) -> StatusCode {
        self.status
    }
    fn error_response(&self) -> HttpResponse {
        let mut response = HttpResponse::build(self.status);
        if let Some(seconds) = self.retry_after_s {
            response.insert_header((actix_web::http::header::RETRY_AFTER, seconds));
        }
        response.json(ErrorBody {
            error: ErrorDetail {
                code: self.code.to_string(),
                message: self.message.clone(),
                details: self.details.clone(),
            },
        })
    }
}

impl From<crate::auth::AuthError> for ApiError {
    fn from(e: crate::auth::AuthError) -> ApiError {
        use crate::auth::AuthError as A;
        match e {
            A::Refused(refusal) => ApiError::from(refusal),
            A::MissingToken | A::MalformedHeader | A::InvalidToken(_) => ApiError::unauthenticated(e.to_string()),
            A::Db(db) => ApiError::from(db),
        }
    }
}

impl From<crate::auth::SessionRefusal> for ApiError {
    fn from(e: crate::auth::SessionRefusal) -> ApiError {
        use crate::auth::SessionRefusal as S;
        match e {
            S::Forbidden(_) => ApiError::forbidden(e.to_string()),
            S::Revoked => ApiError::new(StatusCode::UNAUTHORIZED, "session_revoked", e.to_string()),
            S::Inactive => ApiError::new(StatusCode::UNAUTHORIZED, "account_inactive", e.to_string()),
            S::PasswordChangeRequired => {
                ApiError::new(StatusCode::FORBIDDEN, "password_change_required", e.to_string())
            }
        }
    }
}

impl From<StoreError> for ApiError {
    fn from(e: StoreError) -> ApiError {
        match e {
            StoreError::Unavailable(m) => ApiError::unavailable(m),
            StoreError::Query(q) => ApiError::from(q),
            StoreError::Migration(m) => ApiError::internal(m),
            StoreError::ReadOnly(m) => ApiError::read_only(m),
        }
    }
}

impl From<crate::rounds::record::RoundError> for ApiError {
    fn from(e: crate::rounds::record::RoundError) -> ApiError {
        use crate::rounds::record::RoundError as R;
        let message = e.to_string();
        match e {
            R::NotFound => ApiError::not_found("round"),
            R::WrongState { .. } => ApiError::conflict("wrong_round_state", message),
            R::Changed => ApiError::conflict("round_changed", message),
            R::GamingDayClosed(_) => ApiError::conflict("gaming_day_closed", message),
            R::Store(q) => ApiError::from(q),
        }
    }
}

impl From<diesel::result::Error> for ApiError {
    fn from(e: diesel::result::Error) -> ApiError {
        use diesel::result::{DatabaseErrorKind, Error};
        crate::store::health::note_error(&e);
        match e {
            Error::NotFound => ApiError::not_found("record"),
            Error::DatabaseError(DatabaseErrorKind::UniqueViolation, info) => {
                ApiError::conflict("conflict", format!("already exists: {}", info.message()))
            }
            Error::DatabaseError(DatabaseErrorKind::SerializationFailure, _) => {
                ApiError::conflict("retry", "concurrent update; retry the request")
            }
            Error::DatabaseError(
                DatabaseErrorKind::ClosedConnection | DatabaseErrorKind::UnableToSendCommand,
                info,
            ) => ApiError::unavailable(info.message().to_string()),
            Error::DatabaseError(DatabaseErrorKind::ReadOnlyTransaction, info) => {
                ApiError::read_only(info.message().to_string())
            }
            other => {
                tracing::error!(error = %other, "database error");
                ApiError::internal("database error")
            }
        }
    }
}

impl From<crate::protection::Refusal> for ApiError {
    fn from(r: crate::protection::Refusal) -> ApiError {
        use crate::domain::format_minor;
        use crate::protection::Refusal as R;
        let message = r.to_string();
        match r {
            R::Excluded { until_us, .. } => ApiError::new(StatusCode::FORBIDDEN, r.code(), message)
                .with_details(serde_json::json!({ "until_us": until_us })),
            R::Limit {
                kind,
                period,
                limit_minor,
                used_minor,
                asked_minor,
            } => ApiError::conflict(r.code(), message).with_details(serde_json::json!({
                "kind": kind, "period": period, "limit": format_minor(limit_minor),
                "used": format_minor(used_minor), "asked": format_minor(asked_minor),
                "left": format_minor((limit_minor - used_minor).max(0)),
            })),
            R::SessionLength {
                limit_minutes,
                started_at_us,
                resumes_at_us,
            } => ApiError::conflict(r.code(), message).with_details(serde_json::json!({
                "limit_minutes": limit_minutes, "started_at_us": started_at_us,
                "resumes_at_us": resumes_at_us,
            })),
        }
    }
}

impl From<crate::protection::AdmitError> for ApiError {
    fn from(e: crate::protection::AdmitError) -> ApiError {
        match e {
            crate::protection::AdmitError::Refused(r) => ApiError::from(r),
            crate::protection::AdmitError::Db(d) => ApiError::from(d),
        }
    }
}

impl From<crate::wagers::WagerError> for ApiError {
    fn from(e: crate::wagers::WagerError) -> ApiError {
        use crate::wagers::WagerError as W;
        let message = e.to_string();
        match e {
            W::Session(refusal) => ApiError::from(refusal),
            W::RoundNotFound => ApiError::not_found("Prima Carta round"),
            W::BettingClosed { .. } => ApiError::conflict("betting_closed", message),
            W::AmountOutOfLimits { .. } => ApiError::unprocessable("amount_out_of_limits", message),
            W::BadSelection(_) => ApiError::unprocessable("bad_selection", message),
            W::PayTableMismatch { .. } => ApiError::conflict("pay_table_mismatch", message),
            W::ExposureLimit { .. } => ApiError::unprocessable("exposure_limit", message),
            W::InsufficientFunds {
                account,
                balance,
                needed,
            } => ApiError::unprocessable("insufficient_funds", message)
                .with_details(serde_json::json!({ "account": account, "needed": needed, "balance": balance })),
            W::PegLeg(refusal) => ApiError::from(refusal),
            W::Protection(refusal) => ApiError::from(refusal),
            W::IdentityRequired(r) => {
                ApiError::conflict("identity_required", message).with_details(serde_json::json!({
                    "missing": crate::compliance::cash::IDENTITY_FIELDS,
                    "direction": r.direction,
                    "gaming_day": r.gaming_day.to_string(),
                    "day_total_before": crate::domain::format_minor(r.before_minor),
                    "day_total_after": crate::domain::format_minor(r.total_minor),
                    "report_threshold": crate::domain::format_minor(r.threshold_minor),
                }))
            }
            W::PlayerNotFound => ApiError::not_found("player"),
            W::NotAPlayer => ApiError::unprocessable("not_a_player", message),
            W::IdempotencyKeyReused => ApiError::conflict("idempotency_key_reused", message),
            W::GamingDayClosed(_) => ApiError::conflict("gaming_day_closed", message),
            W::Unavailable(m) => ApiError::unavailable(m),
            W::OutcomeUnknown => {
                ApiError::new(StatusCode::SERVICE_UNAVAILABLE, "outcome_unknown", message).retry_after(1)
            }
            W::Internal(m) => ApiError::internal(m),
        }
    }
}

impl From<crate::checkpoints::CheckpointError> for ApiError {
    fn from(e: crate::checkpoints::CheckpointError) -> ApiError {
        use crate::checkpoints::CheckpointError as C;
        match e {
            C::Store(s) => ApiError::from(s),
            C::Db(d) => ApiError::from(d),
            C::Tree(t) => ApiError::internal(t.to_string()),
            C::Unprovable(why) => ApiError::internal(why),
        }
    }
}

impl From<actix_web::error::BlockingError> for ApiError {
    fn from(_: actix_web::error::BlockingError) -> ApiError {
        ApiError::internal("worker pool unavailable")
    }
}

pub type ApiResult<T> = Result<T, ApiError>;

/// Turns actix's extractor failures (malformed JSON, bad path, too large) into our shape.
pub fn json_error_handler(err: actix_web::error::JsonPayloadError, _req: &actix_web::HttpRequest) -> actix_web::Error {
    use actix_web::error::JsonPayloadError as J;
    let api = match &err {
        J::OverflowKnownLength { .. } | J::Overflow { .. } => {
            ApiError::new(StatusCode::PAYLOAD_TOO_LARGE, "payload_too_large", err.to_string())
        }
        J::ContentType => ApiError::new(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "unsupported_media_type",
            "expected Content-Type: application/json",
        ),
        J::Deserialize(e) if e.is_data() => ApiError::bad_request("invalid_body", e.to_string()),
        _ => ApiError::bad_request("malformed_json", err.to_string()),
    };
    api.into()
}

pub fn path_error_handler(err: actix_web::error::PathError, _req: &actix_web::HttpRequest) -> actix_web::Error {
    ApiError::bad_request("invalid_path", err.to_string()).into()
}

pub fn query_error_handler(
    err: actix_web::error::QueryPayloadError,
    _req: &actix_web::HttpRequest,
) -> actix_web::Error {
    ApiError::bad_request("invalid_query", err.to_string()).into()
}
