//! Integration tests through real HTTP, each on SQLite and on PostgreSQL.
//!
//! `cargo test --test api` (PostgreSQL at TEST_DATABASE_URL, default
//! postgres://postgres@127.0.0.1:5432/postgres; the PostgreSQL tests fail,
//! never skip, when it cannot be reached).

#[macro_use]
mod helpers;

mod approvals;
mod auth;
mod bad_input;
mod bootstrap;
mod checkpoints;
mod compliance;
mod confidence_bets;
mod conformance;
mod database_roles;
mod failover;
mod floor;
mod fuerza;
mod game_registry;
mod idempotency;
mod ledger;
mod lobo;
mod lobo_contests;
mod operations;
mod peg_leg;
mod peg_leg_recall;
mod pg_proxy;
mod prima_carta;
mod protection;
mod proxy;
mod roles;
mod schema;
mod sessions;
mod side_bets;
mod silent_database;
mod transcripts;
mod transparency_log;
mod wagers;
