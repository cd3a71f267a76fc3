//! djego: a casino table-management and wagering backend.
//!
//! Layers, inside out: pure game engines and card code (`cards`, `games`,
//! `bets`, `math`) with no I/O; the `ledger` and `store` that persist money
//! and state; `api` handlers that check roles and call the layers below;
//! `startup` and `main` that wire it together. docs/architecture.md has more.

pub mod api;
pub mod approvals;
pub mod auth;
pub mod bets;
pub mod bootstrap;
pub mod cards;
pub mod checkpoints;
pub mod compliance;
pub mod config;
pub mod domain;
pub mod floor;
pub mod game_registry;
pub mod games;
pub mod ledger;
pub mod live;
pub mod math;
pub mod periodic;
pub mod protection;
pub mod rounds;
pub mod screens;
pub mod settings;
pub mod side_bets;
pub mod significant_events;
pub mod startup;
pub mod store;
pub mod tables;
pub mod telemetry;
pub mod transcript;
pub mod users;
pub mod wagers;
