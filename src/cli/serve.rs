//! `djego serve`, `migrate`, `demo` and `openapi`: running and preparing the service.

use std::process::ExitCode;

use djego::config::{DatabaseArgs, ServeArgs, Settings};
use djego::startup::Application;
use djego::store::Database;

/// Connects, migrates and makes sure the house accounts exist.
pub fn open_db(args: &DatabaseArgs) -> Result<Database, String> {
    let db = Database::connect(&args.database_url, args.db_max_connections.min(4)).map_err(|e| e.to_string())?;
    db.migrate_through(args.migration_database_url.as_deref())
        .map_err(|e| e.to_string())?;
    djego::bootstrap::ensure_house_accounts(&db).map_err(|e| e.to_string())?;
    Ok(db)
}

pub fn serve(args: ServeArgs) -> Result<ExitCode, String> {
    let settings = Settings::resolve(&args)?;
    let app = Application::build(settings.clone())?;
    if args.demo {
        djego::bootstrap::demo(&app.state.db, &settings).map_err(|e| e.to_string())?;
    }
    // Checkpoints are taken for as long as the server runs.
    let _checkpoints = app.checkpoint_schedule;
    // So are silent Lobo rounds folded.
    let _lobo_timeouts = app.lobo_timeouts;
    tracing::info!(bind = %settings.bind, port = app.port, "djego listening");
    // The bound port, not the configured one: with `--bind 127.0.0.1:0` the
    // system picks a free port, and this line is how a script learns it.
    let host = settings
        .bind
        .rsplit_once(':')
        .map_or(settings.bind.as_str(), |(h, _)| h);
    println!("djego listening on http://{host}:{} (API docs at /docs)", app.port);
    let live = app.state.live.clone();
    let server = app.server;
    actix_web::rt::System::new()
        .block_on(async move {
            // actix stops gracefully on the same signals, waiting for open
            // responses; live streams would hold it for its whole timeout.
            actix_web::rt::spawn(async move {
                shutdown_signal().await;
                live.close_streams();
            });
            server.await
        })
        .map_err(|e| e.to_string())?;
    Ok(ExitCode::SUCCESS)
}

/// Ctrl-C, or SIGTERM on Unix.
async fn shutdown_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        match signal(SignalKind::terminate()) {
            Ok(mut term) => {
                tokio::select! {
                    _ = tokio::signal::ctrl_c() => {}
                    _ = term.recv() => {}
                }
            }
            Err(_) => {
                let _ = tokio::signal::ctrl_c().await;
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
}

/// Through `DJEGO_MIGRATION_DATABASE_URL` (the schema owner) when given.
pub fn migrate(args: DatabaseArgs) -> Result<ExitCode, String> {
    let url = args.migration_database_url.as_deref().unwrap_or(&args.database_url);
    let db = Database::connect(url, 2).map_err(|e| e.to_string())?;
    let applied = db.migrate().map_err(|e| e.to_string())?;
    println!("applied {applied} migration(s)");
    Ok(ExitCode::SUCCESS)
}

pub fn demo(args: ServeArgs) -> Result<ExitCode, String> {
    let settings = Settings::resolve(&args)?;
    let db = open_db(&args.database)?;
    djego::bootstrap::first_admin(&db, &settings).map_err(|e| e.to_string())?;
    djego::bootstrap::demo(&db, &settings).map_err(|e| e.to_string())?;
    Ok(ExitCode::SUCCESS)
}

pub fn openapi() -> Result<ExitCode, String> {
    print!("{}", djego::api::openapi_json());
    Ok(ExitCode::SUCCESS)
}
