//! Builds the running service from settings: database, migrations, the
//! first-run bootstrap, the periodic checkpoints, and the HTTP server.

use actix_web::dev::Server;
use actix_web::middleware::from_fn;
use actix_web::{web, App, HttpServer};
use std::net::TcpListener;
use std::time::Duration;
use tracing_actix_web::TracingLogger;
use utoipa::OpenApi;
use utoipa_swagger_ui::SwaggerUi;

use crate::api::error::{json_error_handler, path_error_handler, query_error_handler};
use crate::api::state::AppState;
use crate::api::{self, ApiDoc};
use crate::auth::TokenKeys;
use crate::checkpoints::schedule::CheckpointSchedule;
use crate::config::Settings;
use crate::rounds::lobo_timeouts::TimeoutSweep;
use crate::store::Database;

pub struct Application {
    pub port: u16,
    pub server: Server,
    pub state: AppState,
    /// The periodic checkpoints; they stop when this is dropped.
    pub checkpoint_schedule: Option<CheckpointSchedule>,
    /// The fold of silent Lobo rounds and the clock of Lobo contests; it stops when this is dropped.
    pub lobo_timeouts: Option<TimeoutSweep>,
    /// The floor's minute meters kept up with the ledger; it stops when this is dropped.
    pub floor_meters: Option<crate::floor::meters::MeterSchedule>,
}

impl Application {
    /// Connects, migrates, bootstraps and binds; the server runs when awaited.
    pub fn build(settings: Settings) -> Result<Application, String> {
        let db = Database::connect_with(
            &settings.database_url,
            settings.db_max_connections,
            Some(settings.db_timeout_ms),
        )
        .map_err(|e| e.to_string())?;
        let keys = TokenKeys::new(
            &settings.jwt_secret,
            &settings.jwt_previous_secrets,
            settings.token_ttl_seconds,
        );
        db.with_startup_lock(|db| -> Result<(), crate::bootstrap::BootstrapError> {
            db.migrate_through(settings.migration_database_url.as_deref())?;
            crate::bootstrap::ensure_house_accounts(db)?;
            crate::bootstrap::first_admin(db, &settings)?;
            crate::bootstrap::record_token_keys(db, &keys)
        })
        .map_err(|e| e.to_string())?;
        let replica = match &settings.read_replica {
            Some(r) => Some(api::replica::Replica {
                db: Database::connect_replica(&r.url, settings.db_max_connections, Some(settings.db_timeout_ms))
                    .map_err(|e| format!("the read replica: {e}"))?,
                max_lag_ms: r.max_lag_ms,
            }),
            None => None,
        };
        let listener = TcpListener::bind(&settings.bind).map_err(|e| format!("cannot bind {}: {e}", settings.bind))?;
        let port = listener.local_addr().map_err(|e| e.to_string())?.port();
        let vault = crate::rounds::SeedVault::new(&settings.seed_key);
        let password_checks =
            std::sync::Arc::new(tokio::sync::Semaphore::new(settings.password_check_concurrency.max(1)));
        let hints = std::sync::Arc::new(crate::rounds::lobo_hints::HintDesk::new(settings.hint_limits));
        let state = AppState {
            committer: crate::wagers::Committer::start(db.clone()),
            db,
            replica,
            settings,
            vault,
            live: crate::live::LiveHub::new(),
            password_checks,
            hints,
        };
        if state.db.backend() == crate::store::Backend::Postgres {
            let relay_state = state.clone();
            state.live.start_relay(state.settings.database_url.clone(), move |a| {
                api::live_relay::relay_remote(&relay_state, a)
            });
        }
        let checkpoint_schedule = CheckpointSchedule::start(
            state.db.clone(),
            state.settings.checkpoint_key.clone(),
            Duration::from_secs(state.settings.checkpoint_interval_seconds),
        );
        let told = state.clone();
        let lobo_timeouts = TimeoutSweep::start(
            state.db.clone(),
            state.vault.clone(),
            Duration::from_millis(state.settings.lobo_timeout_sweep_ms),
            move |swept| api::lobo::tell_swept(&told, swept),
        );
        let floor_meters = crate::floor::meters::MeterSchedule::start(
            state.db.clone(),
            Duration::from_millis(state.settings.floor_meters_interval_ms),
        );
        let server = run(listener, state.clone(), keys).map_err(|e| e.to_string())?;
        Ok(Application {
            port,
            server,
            state,
            checkpoint_schedule,
            lobo_timeouts,
            floor_meters,
        })
    }
}

fn run(listener: TcpListener, state: AppState, keys: TokenKeys) -> std::io::Result<Server> {
    let keys = web::Data::new(keys);
    let json_limit = state.settings.json_limit_bytes;
    let workers = state.settings.workers;
    let data = web::Data::new(state);
    let token_routes = std::sync::Arc::new(api::auth_first::TokenRoutes::from_openapi(&ApiDoc::openapi()));
    let mut server = HttpServer::new(move || {
        let token_routes = token_routes.clone();
        App::new()
            .wrap(from_fn(move |req, next| api::input_gate::refuse(json_limit, req, next)))
            // Outside the input gate: a protected operation without a valid token is a 401 first.
            .wrap(from_fn(move |req, next| {
                api::auth_first::refuse(token_routes.clone(), req, next)
            }))
            .wrap(from_fn(api::metrics::track))
            .wrap(TracingLogger::default())
            .app_data(data.clone())
            .app_data(keys.clone())
            .app_data(
                web::JsonConfig::default()
                    .limit(json_limit)
                    .error_handler(json_error_handler),
            )
            .app_data(web::PathConfig::default().error_handler(path_error_handler))
            .app_data(web::QueryConfig::default().error_handler(query_error_handler))
            .configure(api::routes)
            .service(SwaggerUi::new("/docs/{_:.*}").url("/api-docs/openapi.json", ApiDoc::openapi()))
            .service(web::redirect("/docs", "/docs/"))
            .configure(crate::screens::routes)
            // 405 with `Allow` for a known path and another method; 404 otherwise.
            .default_service(web::to(api::fallback::not_routed))
    })
    .listen(listener)?;
    if workers > 0 {
        server = server.workers(workers);
    }
    Ok(server.run())
}
