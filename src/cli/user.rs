//! `djego user …`: account management from the command line.

use std::process::ExitCode;

use djego::domain::{Password, Username};

use super::serve::open_db;
use crate::UserCreateArgs;

pub fn create(args: UserCreateArgs) -> Result<ExitCode, String> {
    let UserCreateArgs {
        username,
        role,
        display_name,
        password,
        database,
    } = args;
    let username = Username::parse(&username)?;
    let password = Password::parse(&password)?;
    let db = open_db(&database)?;
    let display = display_name.unwrap_or_else(|| username.as_str().to_string());
    let user = db
        .write(|conn| -> Result<_, djego::bootstrap::BootstrapError> {
            Ok(djego::users::create(
                conn,
                &djego::users::NewUser {
                    username: &username,
                    display_name: &display,
                    role,
                    password: password.expose(),
                },
                None,
                argon2::Params::DEFAULT_M_COST,
            )?)
        })
        .map_err(|e| e.to_string())?;
    println!("created {} '{}' with id {}", user.role, user.username, user.id);
    Ok(ExitCode::SUCCESS)
}
