//! First-run set-up: the house's standing accounts, the first pit boss, and
//! the optional demo casino.

use rand_core::{OsRng, RngCore};

use crate::config::Settings;
use crate::domain::{Amount, Role, Username};
use crate::ledger::{self, AccountId, Refs, TransferKind, TransferSpec};
use crate::significant_events::{self, EventKind};
use crate::store::{Database, StoreError};
use crate::users::{self, CreateUserError, NewUser};

pub const ADMIN_USERNAME: &str = "admin";

#[derive(Debug, thiserror::Error)]
pub enum BootstrapError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Db(#[from] diesel::result::Error),
    #[error("{0}")]
    Invalid(String),
}

impl From<CreateUserError> for BootstrapError {
    fn from(e: CreateUserError) -> Self {
        BootstrapError::Invalid(e.to_string())
    }
}

impl From<ledger::LedgerError> for BootstrapError {
    fn from(e: ledger::LedgerError) -> Self {
        BootstrapError::Invalid(e.to_string())
    }
}

pub fn ensure_house_accounts(db: &Database) -> Result<(), BootstrapError> {
    db.write(|conn| ledger::accounts::ensure_house_accounts(conn).map_err(BootstrapError::from))
}

/// With no users at all, creates the pit boss `admin` with the password from
/// `DJEGO_ADMIN_PASSWORD`, or a generated one printed once to stdout.
pub fn first_admin(db: &Database, settings: &Settings) -> Result<(), BootstrapError> {
    db.write(|conn| {
        if users::count(conn)? > 0 {
            return Ok(());
        }
        let (password, generated) = match std::env::var("DJEGO_ADMIN_PASSWORD") {
            Ok(p) if !p.is_empty() => (p, false),
            _ => {
                let mut bytes = [0u8; 12];
                OsRng.fill_bytes(&mut bytes);
                (hex::encode(bytes), true)
            }
        };
        crate::domain::Password::parse(&password)
            .map_err(|m| BootstrapError::Invalid(format!("DJEGO_ADMIN_PASSWORD: {m}")))?;
        let username = Username::parse(ADMIN_USERNAME).map_err(BootstrapError::Invalid)?;
        let user = users::create(
            conn,
            &NewUser {
                username: &username,
                display_name: "Pit boss",
                role: Role::Pitboss,
                password_hash: &crate::auth::hash_password(&password, settings.argon2_memory_kib),
            },
            None,
        )?;
        significant_events::record(
            conn,
            EventKind::AdminBootstrapped,
            None,
            Some(&user.id),
            serde_json::json!({ "username": ADMIN_USERNAME, "password_generated": generated }),
        )?;
        if generated {
            println!("First start: created pit boss '{ADMIN_USERNAME}' with password {password}");
            println!("(shown once; set DJEGO_ADMIN_PASSWORD to choose it)");
        }
        Ok(())
    })
}

/// One demo account: username, role, password.
pub struct DemoAccount {
    pub username: &'static str,
    pub role: Role,
    pub password: &'static str,
}

pub const DEMO_ACCOUNTS: [DemoAccount; 5] = [
    DemoAccount {
        username: "dealer",
        role: Role::Dealer,
        password: "demo-dealer-pass",
    },
    DemoAccount {
        username: "cashier",
        role: Role::Cashier,
        password: "demo-cashier-pass",
    },
    DemoAccount {
        username: "auditor",
        role: Role::Auditor,
        password: "demo-auditor-pass",
    },
    DemoAccount {
        username: "ana",
        role: Role::Player,
        password: "demo-player-pass",
    },
    DemoAccount {
        username: "bruno",
        role: Role::Player,
        password: "demo-player-pass",
    },
];

/// Each demo player's starting balance.
pub const DEMO_FUNDS: &str = "1000.00";

/// Seeds a small casino once (a no-op when the demo accounts exist) and prints
/// how to log in as each role. For trying djego, never for a real floor.
pub fn demo(db: &Database, settings: &Settings) -> Result<(), BootstrapError> {
    let created = db.write(|conn| -> Result<bool, BootstrapError> {
        if users::find_by_username(conn, "dealer")?.is_some() {
            return Ok(false);
        }
        let admin = users::find_by_username(conn, ADMIN_USERNAME)?.map(|u| u.id);
        let mut ids = Vec::new();
        for account in &DEMO_ACCOUNTS {
            let username = Username::parse(account.username).map_err(BootstrapError::Invalid)?;
            let user = users::create(
                conn,
                &NewUser {
                    username: &username,
                    display_name: account.username,
                    role: account.role,
                    password_hash: &crate::auth::hash_password(account.password, settings.argon2_memory_kib),
                },
                admin.as_deref(),
            )?;
            ids.push((account.role, user.id));
        }
        let funds = Amount::parse(DEMO_FUNDS).map_err(|e| BootstrapError::Invalid(e.to_string()))?;
        let deposits: Vec<TransferSpec> = ids
            .iter()
            .filter(|(role, _)| *role == Role::Player)
            .map(|(_, id)| {
                TransferSpec::new(AccountId::cage(), AccountId::wallet(id), funds, TransferKind::Deposit)
                    .refs(Refs {
                        user_id: Some(id.clone()),
                        ..Refs::default()
                    })
                    .memo("demo funds")
            })
            .collect();
        ledger::post(conn, &deposits)?;
        let dealer_id = ids.iter().find(|(r, _)| *r == Role::Dealer).map(|(_, id)| id.clone());
        crate::tables::seed_demo_tables(conn, admin.as_deref(), dealer_id.as_deref())?;
        Ok(true)
    })?;
    println!("Demo casino {}:", if created { "created" } else { "already present" });
    println!("  pit boss  admin   (password from first start or DJEGO_ADMIN_PASSWORD)");
    for a in &DEMO_ACCOUNTS {
        println!("  {:<9} {:<7} password {}", a.role.as_str(), a.username, a.password);
    }
    println!("  players ana and bruno hold {DEMO_FUNDS} each; tables 'Prima Carta 1' and 'Lobo 1' are open.");
    Ok(())
}

/// Records a significant event when the service starts signing tokens with a
/// key other than the one last recorded: a key rotation (or the first key).
pub fn record_token_keys(db: &Database, keys: &crate::auth::TokenKeys) -> Result<(), BootstrapError> {
    use crate::store::schema::significant_events as se;
    use diesel::prelude::*;
    db.write(|conn| {
        let last: Option<String> = se::table
            .filter(se::kind.eq(EventKind::TokenKeyRotated.as_str()))
            .order((se::at_us.desc(), se::id.desc()))
            .select(se::details)
            .first(conn)
            .optional()?;
        let last_key_id = last
            .and_then(|d| serde_json::from_str::<serde_json::Value>(&d).ok())
            .and_then(|d| d["key_id"].as_str().map(str::to_string));
        if last_key_id.as_deref() == Some(keys.current_key_id()) {
            return Ok(());
        }
        significant_events::record(
            conn,
            EventKind::TokenKeyRotated,
            None,
            None,
            serde_json::json!({
                "key_id": keys.current_key_id(),
                "previous_key_id": last_key_id,
                "accepted_key_ids": keys.accepted_key_ids(),
            }),
        )?;
        Ok(())
    })
}
