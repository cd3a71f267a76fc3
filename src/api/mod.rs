//! The REST face of djego: handlers by concern, the error shape, the role
//! guard's use, and the OpenAPI document generated from all of it.

pub mod approvals;
pub mod audit;
pub mod auth;
pub mod auth_first;
pub mod cage;
pub mod compliance;
pub mod confidence_bets;
pub mod contract;
pub mod error;
pub mod exclusion_lists;
pub mod fallback;
pub mod floor;
pub mod fuerza;
pub mod games;
pub mod health;
pub mod idempotency;
pub mod input_gate;
pub mod live_relay;
pub mod lobo;
pub mod lobo_contests;
pub mod metrics;
pub mod pagination;
pub mod peg_leg;
pub mod prima_carta;
pub mod proofs;
pub mod protection;
pub mod replica;
pub mod state;
pub mod tables;
pub mod users;

use actix_web::web;
use contract::Conformance;
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
        auth::login, auth::logout, auth::me, auth::change_password, auth::my_rounds,
        users::create_user, users::list_users, users::roster, users::update_user, users::end_sessions, users::unlock, users::reset_password,
        cage::deposit, cage::withdraw, cage::correction, cage::get_wallet, cage::my_wallet, cage::wallet_history,
        protection::my_protection, protection::player_protection, protection::set_limit, protection::confirm_limit,
        protection::set_session_limit, protection::confirm_session_limit,
        protection::take_time_out, protection::exclude_self, protection::set_reality_check, protection::my_session,
        compliance::get_rules, compliance::propose_rules, compliance::record_identity, compliance::read_identity,
        compliance::cash_today, compliance::cash_log, compliance::list_reports, compliance::export_reports,
        compliance::get_report, compliance::file_report, compliance::list_alerts, compliance::review_alert,
        compliance::suspicious_activity,
        exclusion_lists::import, exclusion_lists::lists, exclusion_lists::matches, exclusion_lists::review,
        audit::events, audit::ledger, audit::trial_balance, audit::verify_ledger,
        audit::take_checkpoint, audit::list_checkpoints, audit::transcripts, proofs::inclusion, proofs::consistency,
        games::list_games,
        tables::create_table, tables::list_tables, tables::get_table, tables::update_table_config,
        tables::open_table, tables::close_table, tables::assign_dealer, tables::unassign_dealer,
        tables::install_pay_table, tables::table_pay_table, tables::list_pay_tables, tables::pay_table_by_id, tables::table_events,
        prima_carta::create_round, prima_carta::list_rounds, prima_carta::get_round, prima_carta::take_seat,
        prima_carta::close_betting, prima_carta::deal, prima_carta::copa, prima_carta::advice, prima_carta::settle,
        prima_carta::void, prima_carta::recall, prima_carta::verification, prima_carta::place_bet,
        prima_carta::round_bets, prima_carta::my_bets, prima_carta::observed_rtp,
        confidence_bets::offer_confidence_bet, confidence_bets::list_confidence_bets,
        confidence_bets::accept_confidence_bet, confidence_bets::decline_confidence_bet,
        confidence_bets::withdraw_confidence_bet, fuerza::fuerza_quotes, fuerza::place_fuerza_bet,
        lobo::start_round, lobo::house_edge, lobo::list_rounds, lobo::get_round, lobo::void, lobo::make_play, lobo::fold, lobo::hint, lobo::recall,
        lobo_contests::create_contest, lobo_contests::list_contests, lobo_contests::get_contest, lobo_contests::enter,
        lobo_contests::close_entry, lobo_contests::make_play, lobo_contests::fold, lobo_contests::settle,
        lobo_contests::void, lobo_contests::recall,
        peg_leg::create_round, peg_leg::list_rounds, peg_leg::get_round, peg_leg::give_client_seed, peg_leg::deal,
        peg_leg::place_bet, peg_leg::surrender, peg_leg::void, peg_leg::recall, peg_leg::observed_rtp,
        floor::get_calendar, floor::set_calendar, floor::table_performance,
        floor::get_rating_rule, floor::set_rating_rule, floor::player_ratings,
        floor::table_dealer, floor::sign_in, floor::sign_out, floor::dealer_performance,
        floor::get_pits, floor::set_pits, floor::gaming_day_view, floor::close_gaming_day, floor::floor_plot,
        approvals::list_proposals, approvals::get_proposal, approvals::approve, approvals::reject,
        approvals::get_rule, approvals::propose_rule,
    ),
    modifiers(&BearerAuth, &Conformance),
    tags(
        (name = "operations", description = "Health, readiness, metrics"),
        (name = "auth", description = "Login, logout and the caller's account"),
        (name = "users", description = "Player and staff accounts"),
        (name = "cage", description = "Cash in, cash out, corrections (cashier)"),
        (name = "wallets", description = "Player balances and history"),
        (name = "protection", description = "A player's own limits, time-outs and self-exclusion"),
        (name = "compliance", description = "Cash-transaction compliance: patron identity, the multiple-transaction log, currency transaction reports and structuring alerts"),
        (name = "audit", description = "Significant events, the ledger, its signed checkpoints and observed RTP (auditor)"),
        (name = "tables", description = "Tables, dealers and live events"),
        (name = "prima carta", description = "Prima Carta rounds at the house table"),
        (name = "side bets", description = "House side bets and pay tables"),
        (name = "confidence bets", description = "Confidence bets between players at a Prima Carta round: offers with their terms and stakes, acceptance, refusal, withdrawal, and settlement from the round's outcome with the house's commission; and at Jasper tables the house's Fuerza, quoted on each seated player who paid the copa"),
        (name = "lobo", description = "Lobo against the house: rounds, plays, hints, recall"),
        (name = "lobo contests", description = "Three-round Lobo contests: players pay an entry into a pot, play three rounds from one committed deck, and the best total takes the pot less the house's rake"),
        (name = "peg leg", description = "Peg Leg: a pass dealt card by card by the dealer; bets on the key suit's final count at prices quoted after every card, surrenders between cards"),
        (name = "floor", description = "Running the floor: gaming days and shifts, pits, table and dealer performance, dealers in the box, player ratings, closing a gaming day"),
        (name = "approvals", description = "Two-person control: changes of the house's edge or money proposed by one person and applied when a second pit boss approves"),
    )
)]
pub struct ApiDoc;

/// The formats a report is served in: JSON, or CSV for a spreadsheet.
#[derive(utoipa::ToSchema)]
#[schema(rename_all = "snake_case")]
#[allow(dead_code)] // documents the values a report's `format` accepts
pub enum ReportFormat {
    Json,
    Csv,
}

struct BearerAuth;

impl Modify for BearerAuth {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        let components = openapi.components.get_or_insert_with(Default::default);
        components.add_security_scheme(
            "bearer",
            SecurityScheme::Http(
                HttpBuilder::new()
                    .scheme(HttpAuthScheme::Bearer)
                    .bearer_format("JWT")
                    .build(),
            ),
        );
    }
}

/// The OpenAPI document as committed in openapi/openapi.json.
pub fn openapi_json() -> String {
    let mut text = ApiDoc::openapi()
        .to_pretty_json()
        .expect("the generated document serializes");
    text.push('\n');
    text
}

pub fn routes(cfg: &mut web::ServiceConfig) {
    // The router tries resources in the order registered, and every path
    // with a parameter before the one that matches costs a regex search: the
    // wager path's routes come first. No two patterns below match one path
    // (a route's method is checked after its pattern), so order changes no
    // answer.
    cfg.service(prima_carta::place_bet)
        .service(cage::deposit)
        .service(cage::withdraw)
        .service(health::health)
        .service(health::ready)
        .service(health::metrics)
        .service(auth::login)
        .service(auth::logout)
        .service(auth::me)
        .service(auth::change_password)
        .service(auth::my_rounds)
        .service(games::list_games)
        .service(users::create_user)
        .service(users::list_users)
        .service(users::roster)
        .service(users::update_user)
        .service(users::end_sessions)
        .service(users::unlock)
        .service(users::reset_password)
        .service(cage::correction)
        .service(cage::get_wallet)
        .service(cage::my_wallet)
        .service(protection::my_protection)
        .service(protection::player_protection)
        .service(protection::set_limit)
        .service(protection::confirm_limit)
        .service(protection::set_session_limit)
        .service(protection::confirm_session_limit)
        .service(protection::take_time_out)
        .service(protection::exclude_self)
        .service(protection::set_reality_check)
        .service(protection::my_session)
        .service(compliance::get_rules)
        .service(compliance::propose_rules)
        .service(compliance::record_identity)
        .service(compliance::read_identity)
        .service(compliance::cash_today)
        .service(compliance::cash_log)
        .service(compliance::list_reports)
        .service(compliance::export_reports)
        .service(compliance::get_report)
        .service(compliance::file_report)
        .service(compliance::list_alerts)
        .service(compliance::review_alert)
        .service(compliance::suspicious_activity)
        .service(exclusion_lists::matches)
        .service(exclusion_lists::review)
        .service(exclusion_lists::import)
        .service(exclusion_lists::lists)
        .service(cage::wallet_history)
        .service(audit::events)
        .service(audit::ledger)
        .service(audit::trial_balance)
        .service(audit::verify_ledger)
        .service(audit::take_checkpoint)
        .service(audit::list_checkpoints)
        .service(proofs::inclusion)
        .service(proofs::consistency)
        .service(audit::transcripts)
        .service(tables::create_table)
        .service(tables::list_tables)
        .service(tables::get_table)
        .service(tables::update_table_config)
        .service(tables::open_table)
        .service(tables::close_table)
        .service(tables::assign_dealer)
        .service(tables::unassign_dealer)
        .service(tables::install_pay_table)
        .service(tables::table_pay_table)
        .service(tables::list_pay_tables)
        .service(tables::pay_table_by_id)
        .service(tables::table_events)
        .service(prima_carta::create_round)
        .service(prima_carta::list_rounds)
        .service(prima_carta::get_round)
        .service(prima_carta::take_seat)
        .service(prima_carta::close_betting)
        .service(prima_carta::deal)
        .service(prima_carta::copa)
        .service(prima_carta::advice)
        .service(prima_carta::settle)
        .service(prima_carta::void)
        .service(prima_carta::recall)
        .service(prima_carta::verification)
        .service(prima_carta::round_bets)
        .service(prima_carta::my_bets)
        .service(prima_carta::observed_rtp)
        .service(confidence_bets::offer_confidence_bet)
        .service(confidence_bets::list_confidence_bets)
        .service(confidence_bets::accept_confidence_bet)
        .service(confidence_bets::decline_confidence_bet)
        .service(confidence_bets::withdraw_confidence_bet)
        .service(fuerza::fuerza_quotes)
        .service(fuerza::place_fuerza_bet)
        .service(lobo::start_round)
        .service(lobo::house_edge)
        .service(lobo::list_rounds)
        .service(lobo::get_round)
        .service(lobo::void)
        .service(lobo::make_play)
        .service(lobo::fold)
        .service(lobo::hint)
        .service(lobo::recall)
        .service(lobo_contests::create_contest)
        .service(lobo_contests::list_contests)
        .service(lobo_contests::get_contest)
        .service(lobo_contests::enter)
        .service(lobo_contests::close_entry)
        .service(lobo_contests::make_play)
        .service(lobo_contests::fold)
        .service(lobo_contests::settle)
        .service(lobo_contests::void)
        .service(lobo_contests::recall)
        .service(peg_leg::create_round)
        .service(peg_leg::list_rounds)
        .service(peg_leg::get_round)
        .service(peg_leg::give_client_seed)
        .service(peg_leg::deal)
        .service(peg_leg::place_bet)
        .service(peg_leg::surrender)
        .service(peg_leg::void)
        .service(peg_leg::recall)
        .service(peg_leg::observed_rtp)
        .service(floor::get_calendar)
        .service(floor::set_calendar)
        .service(floor::table_performance)
        .service(floor::get_rating_rule)
        .service(floor::set_rating_rule)
        .service(floor::player_ratings)
        .service(floor::table_dealer)
        .service(floor::sign_in)
        .service(floor::sign_out)
        .service(floor::dealer_performance)
        .service(floor::get_pits)
        .service(floor::set_pits)
        .service(floor::gaming_day_view)
        .service(floor::close_gaming_day)
        .service(floor::floor_plot)
        .service(approvals::list_proposals)
        .service(approvals::get_proposal)
        .service(approvals::approve)
        .service(approvals::reject)
        .service(approvals::get_rule)
        .service(approvals::propose_rule);
}
