//! The REST face of djego: handlers by concern, the error shape, the role
//! guard's use, and the OpenAPI document generated from all of it.

pub mod audit;
pub mod auth;
pub mod cage;
pub mod error;
pub mod health;
pub mod idempotency;
pub mod metrics;
pub mod pagination;
pub mod state;
pub mod users;

use actix_web::web;
use utoipa::openapi::security::{HttpAuthScheme, HttpBuilder, SecurityScheme};
use utoipa::{Modify, OpenApi};

#[derive(OpenApi)]
#[openapi(
    info(
        title = "djego",
        description = "Casino table-management and wagering backend: house-banked Postas card games, \
                       side bets, an audited double-entry ledger and certified seeded shuffles.",
    ),
    paths(
        health::health, health::ready, health::metrics,
        auth::login, auth::me,
        users::create_user, users::list_users, users::update_user,
        cage::deposit, cage::withdraw, cage::correction, cage::get_wallet, cage::wallet_history,
        audit::events, audit::ledger, audit::trial_balance, audit::verify_ledger,
    ),
    modifiers(&BearerAuth),
    tags(
        (name = "operations", description = "Health, readiness, metrics"),
        (name = "auth", description = "Login and the caller's account"),
        (name = "users", description = "Player and staff accounts"),
        (name = "cage", description = "Cash in, cash out, corrections (cashier)"),
        (name = "wallets", description = "Player balances and history"),
        (name = "audit", description = "Significant events and the ledger (auditor)"),
    )
)]
pub struct ApiDoc;

struct BearerAuth;

impl Modify for BearerAuth {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        let components = openapi.components.get_or_insert_with(Default::default);
        components.add_security_scheme(
            "bearer",
            SecurityScheme::Http(HttpBuilder::new().scheme(HttpAuthScheme::Bearer).bearer_format("JWT").build()),
        );
    }
}

/// The OpenAPI document as committed in openapi/openapi.json.
pub fn openapi_json() -> String {
    let mut text = ApiDoc::openapi().to_pretty_json().expect("the generated document serializes");
    text.push('\n');
    text
}

pub fn routes(cfg: &mut web::ServiceConfig) {
    cfg.service(health::health)
        .service(health::ready)
        .service(health::metrics)
        .service(auth::login)
        .service(auth::me)
        .service(users::create_user)
        .service(users::list_users)
        .service(users::update_user)
        .service(cage::deposit)
        .service(cage::withdraw)
        .service(cage::correction)
        .service(cage::get_wallet)
        .service(cage::wallet_history)
        .service(audit::events)
        .service(audit::ledger)
        .service(audit::trial_balance)
        .service(audit::verify_ledger);
}
