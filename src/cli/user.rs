//! `djego user …`: account management from the command line.

use std::process::ExitCode;

use djego::domain::{Password, Username};

use super::serve::open_db;
use crate::{UserCreateArgs, UserSetPasswordArgs, UserUnlockArgs};

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
    let password_hash = djego::auth::hash_password(password.expose(), argon2::Params::DEFAULT_M_COST);
    let user = db
        .write(|conn| -> Result<_, djego::bootstrap::BootstrapError> {
            Ok(djego::users::create(
                conn,
                &djego::users::NewUser {
                    username: &username,
                    display_name: &display,
                    role,
                    password_hash: &password_hash,
                },
                None,
            )?)
        })
        .map_err(|e| e.to_string())?;
    println!("created {} '{}' with id {}", user.role, user.username, user.id);
    Ok(ExitCode::SUCCESS)
}

pub fn unlock(args: UserUnlockArgs) -> Result<ExitCode, String> {
    let username = Username::parse(&args.username)?;
    let address = match &args.address {
        Some(a) => Some(
            a.trim()
                .parse::<std::net::IpAddr>()
                .map_err(|_| format!("--address {a:?} is not an IP address"))?
                .to_string(),
        ),
        None => None,
    };
    let db = open_db(&args.database)?;
    let policy = djego::auth::throttle::LoginPolicy::default();
    let cleared = db
        .write(|conn| -> Result<usize, djego::bootstrap::BootstrapError> {
            let user = djego::users::find_by_username(conn, username.as_str())?.ok_or_else(|| {
                djego::bootstrap::BootstrapError::Invalid(format!("no account '{}'", username.as_str()))
            })?;
            let cleared = djego::auth::throttle::unlock_account(
                conn,
                &policy,
                &user.username,
                address.as_deref(),
                djego::store::now_us(),
            )?;
            djego::significant_events::record(
                conn,
                djego::significant_events::EventKind::LoginUnlocked,
                None,
                Some(&user.id),
                serde_json::json!({ "username": user.username, "limits_cleared": cleared,
                    "address": address, "from": "command line" }),
            )?;
            Ok(cleared)
        })
        .map_err(|e| e.to_string())?;
    println!("unlocked '{}' ({cleared} login limits cleared)", username.as_str());
    Ok(ExitCode::SUCCESS)
}

pub fn set_password(args: UserSetPasswordArgs) -> Result<ExitCode, String> {
    let username = Username::parse(&args.username)?;
    let password = Password::parse(&args.password)?;
    let (origin, event) = if args.temporary {
        (
            djego::users::PasswordOrigin::Temporary,
            djego::significant_events::EventKind::PasswordReset,
        )
    } else {
        (
            djego::users::PasswordOrigin::Chosen,
            djego::significant_events::EventKind::PasswordChanged,
        )
    };
    let hash = djego::auth::hash_password(password.expose(), argon2::Params::DEFAULT_M_COST);
    let db = open_db(&args.database)?;
    db.write(|conn| -> Result<(), djego::bootstrap::BootstrapError> {
        let user = djego::users::find_by_username(conn, username.as_str())?
            .ok_or_else(|| djego::bootstrap::BootstrapError::Invalid(format!("no account '{}'", username.as_str())))?;
        djego::users::set_password(conn, &user.id, &hash, origin)?;
        djego::significant_events::record(
            conn,
            event,
            None,
            Some(&user.id),
            serde_json::json!({ "username": user.username, "from": "command line", "temporary": args.temporary }),
        )?;
        Ok(())
    })
    .map_err(|e| e.to_string())?;
    let must = if args.temporary {
        "; it must be replaced at the next sign-in"
    } else {
        ""
    };
    println!("password of '{}' set, its sessions ended{must}", username.as_str());
    Ok(ExitCode::SUCCESS)
}
