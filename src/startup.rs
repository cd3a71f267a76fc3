//! Builds the running service from settings: database, migrations, the
//! first-run bootstrap, and the HTTP server.

use actix_web::dev::Server;
use actix_web::middleware::from_fn;
use actix_web::{web, App, HttpServer};
use std::net::TcpListener;
use tracing_actix_web::TracingLogger;
use utoipa::OpenApi;
use utoipa_swagger_ui::SwaggerUi;

use crate::api::error::{json_error_handler, path_error_handler, query_error_handler};
use crate::api::state::AppState;
use crate::api::{self, ApiDoc};
use crate::auth::TokenKeys;
use crate::config::Settings;
use crate::store::Database;

pub struct Application {
    pub port: u16,
    pub server: Server,
    pub state: AppState,
}

impl Application {
    /// Connects, migrates, bootstraps and binds; the server runs when awaited.
    pub fn build(settings: Settings) -> Result<Application, String> {
        let db = Database::connect(&settings.database_url, settings.db_max_connections).map_err(|e| e.to_string())?;
        db.with_startup_lock(|db| -> Result<(), crate::bootstrap::BootstrapError> {
            db.migrate()?;
            crate::bootstrap::ensure_house_accounts(db)?;
            crate::bootstrap::first_admin(db, &settings)
        })
        .map_err(|e| e.to_string())?;
        let listener = TcpListener::bind(&settings.bind).map_err(|e| format!("cannot bind {}: {e}", settings.bind))?;
        let port = listener.local_addr().map_err(|e| e.to_string())?.port();
        let vault = crate::rounds::SeedVault::new(&settings.seed_key);
        let state = AppState {
            committer: crate::wagers::Committer::start(db.clone()),
            db,
            settings,
            vault,
            live: crate::live::LiveHub::new(),
        };
        if state.db.backend() == crate::store::Backend::Postgres {
            let relay_state = state.clone();
            state.live.start_relay(state.settings.database_url.clone(), move |a| {
                api::prima_carta::relay_remote(&relay_state, a)
            });
        }
        let server = run(listener, state.clone()).map_err(|e| e.to_string())?;
        Ok(Application { port, server, state })
    }
}

fn run(listener: TcpListener, state: AppState) -> std::io::Result<Server> {
    let keys = web::Data::new(TokenKeys::new(
        &state.settings.jwt_secret,
        state.settings.token_ttl_seconds,
    ));
    let json_limit = state.settings.json_limit_bytes;
    let workers = state.settings.workers;
    let data = web::Data::new(state);
    let mut server = HttpServer::new(move || {
        App::new()
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
            // 405 with `Allow` for a known path and another method; 404 otherwise.
            .default_service(web::to(api::fallback::not_routed))
    })
    .listen(listener)?;
    if workers > 0 {
        server = server.workers(workers);
    }
    Ok(server.run())
}
