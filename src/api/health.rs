use actix_web::{get, web, HttpResponse};
use serde::Serialize;
use utoipa::ToSchema;

use super::error::{ApiError, ApiResult};
use super::state::AppState;

#[derive(Serialize, ToSchema)]
pub struct Health {
    pub status: &'static str,
    pub version: &'static str,
}

/// Liveness: the process answers.
#[utoipa::path(tag = "operations", responses((status = 200, body = Health)))]
#[get("/health")]
pub async fn health() -> web::Json<Health> {
    web::Json(Health {
        status: "ok",
        version: env!("CARGO_PKG_VERSION"),
    })
}

#[derive(Serialize, ToSchema)]
pub struct Ready {
    pub status: &'static str,
    pub database: &'static str,
}

/// How long readiness waits for a database connection: well inside the
/// orchestrator's probe timeout (deploy/k8s/deployment.yaml), so a database
/// outage reads as 503, not as a probe timeout.
pub const READY_TIMEOUT_MS: u64 = 1_000;

/// Readiness: the database answers within a second (503 otherwise).
#[utoipa::path(tag = "operations", responses(
    (status = 200, body = Ready),
    (status = 503, body = super::error::ErrorBody),
))]
#[get("/ready")]
pub async fn ready(state: web::Data<AppState>) -> ApiResult<web::Json<Ready>> {
    state
        .blocking(|s| {
            s.db.ping(READY_TIMEOUT_MS)
                .map_err(|e| ApiError::unavailable(e.to_string()))
        })
        .await?;
    let database = match state.db.backend() {
        crate::store::Backend::Sqlite => "sqlite",
        crate::store::Backend::Postgres => "postgres",
    };
    Ok(web::Json(Ready {
        status: "ready",
        database,
    }))
}

/// Prometheus metrics in the text exposition format.
#[utoipa::path(tag = "operations", responses((status = 200, content_type = "text/plain", body = String)))]
#[get("/metrics")]
pub async fn metrics() -> HttpResponse {
    HttpResponse::Ok()
        .content_type("text/plain; version=0.0.4")
        .body(super::metrics::render())
}
