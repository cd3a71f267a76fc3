//! The `djego` command line: serve, migrate, demo, user, verify, openapi.

use clap::{Parser, Subcommand};
use std::process::ExitCode;

use djego::config::{DatabaseArgs, ServeArgs, Settings};
use djego::domain::{Password, Role, Username};
use djego::startup::Application;
use djego::store::Database;

#[derive(Parser)]
#[command(name = "djego", version, about = "Casino table-management and wagering backend")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run the service (SQLite under ./data by default; DATABASE_URL=postgres://… for PostgreSQL).
    Serve(ServeArgs),
    /// Apply pending database migrations and exit.
    Migrate(DatabaseArgs),
    /// Seed the demo casino into the database and print its credentials.
    Demo(ServeArgs),
    /// Manage accounts.
    User {
        #[command(subcommand)]
        command: UserCommand,
    },
    /// Verify the ledger's hash chain and trial balance.
    Verify {
        #[command(subcommand)]
        command: VerifyCommand,
    },
    /// Print the OpenAPI document generated from the code.
    Openapi,
}

#[derive(Subcommand)]
enum UserCommand {
    /// Create an account; the password comes from DJEGO_NEW_PASSWORD.
    Create {
        #[arg(long)]
        username: String,
        #[arg(long, value_parser = parse_role)]
        role: Role,
        #[arg(long)]
        display_name: Option<String>,
        #[arg(long, env = "DJEGO_NEW_PASSWORD", hide_env_values = true)]
        password: String,
        #[command(flatten)]
        database: DatabaseArgs,
    },
}

#[derive(Subcommand)]
enum VerifyCommand {
    /// Recompute the ledger's hash chain and balances; exit 1 when broken.
    Ledger(DatabaseArgs),
}

fn parse_role(text: &str) -> Result<Role, String> {
    Role::parse(text).ok_or_else(|| "role must be one of player, dealer, cashier, pitboss, auditor".to_string())
}

fn open_db(args: &DatabaseArgs) -> Result<Database, String> {
    let db = Database::connect(&args.database_url, args.db_max_connections.min(4)).map_err(|e| e.to_string())?;
    db.migrate().map_err(|e| e.to_string())?;
    djego::bootstrap::ensure_house_accounts(&db).map_err(|e| e.to_string())?;
    Ok(db)
}

fn main() -> ExitCode {
    djego::telemetry::init();
    match run(Cli::parse()) {
        Ok(code) => code,
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::from(2)
        }
    }
}

fn run(cli: Cli) -> Result<ExitCode, String> {
    match cli.command {
        Command::Serve(args) => {
            let settings = Settings::resolve(&args)?;
            let app = Application::build(settings.clone())?;
            if args.demo {
                djego::bootstrap::demo(&app.state.db, &settings).map_err(|e| e.to_string())?;
            }
            tracing::info!(bind = %settings.bind, port = app.port, "djego listening");
            println!("djego listening on http://{} (API docs at /docs)", settings.bind);
            actix_web::rt::System::new().block_on(app.server).map_err(|e| e.to_string())?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Migrate(args) => {
            let db = Database::connect(&args.database_url, 2).map_err(|e| e.to_string())?;
            let applied = db.migrate().map_err(|e| e.to_string())?;
            println!("applied {applied} migration(s)");
            Ok(ExitCode::SUCCESS)
        }
        Command::Demo(args) => {
            let settings = Settings::resolve(&args)?;
            let db = open_db(&args.database)?;
            djego::bootstrap::first_admin(&db, &settings).map_err(|e| e.to_string())?;
            djego::bootstrap::demo(&db, &settings).map_err(|e| e.to_string())?;
            Ok(ExitCode::SUCCESS)
        }
        Command::User { command: UserCommand::Create { username, role, display_name, password, database } } => {
            let username = Username::parse(&username)?;
            let password = Password::parse(&password)?;
            let db = open_db(&database)?;
            let display = display_name.unwrap_or_else(|| username.as_str().to_string());
            let user = db
                .write(|conn| -> Result<_, djego::bootstrap::BootstrapError> {
                    Ok(djego::users::create(
                        conn,
                        &djego::users::NewUser { username: &username, display_name: &display, role, password: password.expose() },
                        None,
                        argon2::Params::DEFAULT_M_COST,
                    )?)
                })
                .map_err(|e| e.to_string())?;
            println!("created {} '{}' with id {}", user.role, user.username, user.id);
            Ok(ExitCode::SUCCESS)
        }
        Command::Verify { command: VerifyCommand::Ledger(args) } => {
            let db = open_db(&args)?;
            let report = db
                .read(|conn| djego::ledger::verify::verify(conn).map_err(djego::store::StoreError::from))
                .map_err(|e| e.to_string())?;
            println!("{}", serde_json::to_string_pretty(&report).map_err(|e| e.to_string())?);
            Ok(if report.ok { ExitCode::SUCCESS } else { ExitCode::from(1) })
        }
        Command::Openapi => {
            print!("{}", djego::api::openapi_json());
            Ok(ExitCode::SUCCESS)
        }
    }
}
