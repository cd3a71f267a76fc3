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

/// How long readiness waits for the database, a connection and its answer
/// together: well inside the orchestrator's probe timeout
/// (deploy/k8s/deployment.yaml), so a database outage reads as 503, not as a
/// probe timeout.
pub const READY_TIMEOUT_MS: u64 = 1_000;

/// Readiness: the database answers within a second and takes writes (503
/// otherwise: `database_unavailable` when it does not answer or has gone
/// silent, `database_read_only` when the server behind the pool is a standby,
/// as during a failover).
#[utoipa::path(tag = "operations", responses(
    (status = 200, body = Ready),
    (status = 503, body = super::error::ErrorBody),
))]
#[get("/ready")]
pub async fn ready(state: web::Data<AppState>) -> ApiResult<web::Json<Ready>> {
    let db = state.db.clone();
    // The whole probe is bounded, not only the wait for a connection: a query
    // on a connection whose server went silent would otherwise never return.
    // The thread it blocks is released when the connection answers or dies.
    let probe = actix_web::web::block(move || db.ping(READY_TIMEOUT_MS));
    match tokio::time::timeout(std::time::Duration::from_millis(READY_TIMEOUT_MS), probe).await {
        Ok(Ok(Ok(()))) => {}
        Ok(Ok(Err(e))) => return Err(e.into()),
        Ok(Err(e)) => return Err(e.into()),
        Err(_) => {
            return Err(ApiError::unavailable(format!(
                "the database did not answer within {READY_TIMEOUT_MS} ms"
            )))
        }
    }
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
