//! A Prima Carta round as one viewer sees it (docs/prima-carta.md, "What watchers see").
//!
//! Players appear as the transcript names them (docs/transcript.md): `P1`, `P2`, … by seat in
//! suit order. An account id is shown only on the viewer's own seat, and on every seat to staff;
//! the table's live stream carries the view for nobody in particular ([`Viewer::public`]).

use serde::Serialize;
use utoipa::ToSchema;

use super::{copa_text, deal_of, decisions, replay, round_config, seats, visible_events, StoredResult};
use crate::api::error::ApiError;
use crate::cards::shuffle;
use crate::cards::Suit;
use crate::games::prima_carta::{self as engine, Event, Phase, RoundProgress, RoundResult};
use crate::rounds::record::{self, RoundRow, RoundStatus};
use crate::rounds::seed_vault::SeedVault;
use crate::store::AnyConnection;
use crate::tables::config::PrimaCartaConfig;
use crate::transcript::{Pseudonyms, Viewer};

#[derive(Serialize, ToSchema, Debug, Clone)]
pub struct SeatView {
    #[schema(value_type = String)]
    pub suit: Suit,
    /// The seat's player by pseudonym (`P1`, `P2`, … in suit order, as the round's transcript
    /// names them; final once betting closes).
    pub player: String,
    /// The player's account id: only on the caller's own seat, and on every seat for staff.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub player_id: Option<String>,
}

#[derive(Serialize, ToSchema, Debug, Clone)]
pub struct CopaTurnView {
    #[schema(value_type = String)]
    pub suit: Suit,
    /// The deciding player's pseudonym.
    pub player: String,
    /// Their account id: only when it is the caller's own turn, and for staff.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub player_id: Option<String>,
    /// The copa to pay: one unit per card in the stack.
    pub copa: String,
    pub stack_count: u8,
}

/// A settled round's result as the caller may see it.
#[derive(Serialize, ToSchema, Debug, Clone)]
pub struct ResultView {
    #[schema(value_type = Object)]
    pub result: RoundResult,
    /// The winner's pseudonym.
    pub winner: String,
    /// The winner's account id: only when the caller won, and for staff.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub winner_player_id: Option<String>,
    /// Everything the winner received: the pot less any cobre, plus cobre carried in.
    pub winner_paid: String,
    pub carried_cobre_in: String,
    #[schema(value_type = Object)]
    pub facts: engine::DealFacts,
}

/// What anyone at the table may see. Before settlement it holds nothing
/// derived from an undealt card: no seed, no deck, no repasso, no side-bet facts.
#[derive(Serialize, ToSchema, Debug, Clone)]
pub struct RoundView {
    pub id: String,
    pub table_id: String,
    pub game: &'static str,
    pub number: i64,
    pub status: RoundStatus,
    pub commitment: String,
    pub algorithm: &'static str,
    /// Fixed when betting closes.
    pub client_seed: Option<String>,
    /// Revealed when the round is settled or voided.
    pub server_seed: Option<String>,
    pub unit: String,
    /// The table options this round was created under (later changes to the
    /// table apply to later rounds only).
    pub rules: PrimaCartaConfig,
    pub seats: Vec<SeatView>,
    /// The table as dealt so far (stacks, discard count, pass).
    #[schema(value_type = Option<Object>)]
    pub table: Option<engine::TableState>,
    /// Every event shown so far, in order.
    #[schema(value_type = Vec<Object>)]
    pub events: Vec<Event>,
    pub copa_turn: Option<CopaTurnView>,
    pub result: Option<ResultView>,
    pub bet_totals: Vec<crate::side_bets::BetTotal>,
    /// Confidence bets between players (docs/confidence-bets.md): open offers, accepted bets
    /// and how each ended, parties by pseudonym (the caller's own by account id).
    pub confidence_bets: Vec<super::confidence::ConfidenceBetView>,
    /// Jasper tables: the house's Fuerza quotes now (or why there are none); absent at other
    /// tables, where the house quotes no Fuerza.
    pub fuerza: Option<super::fuerza::FuerzaView>,
    /// The house's Fuerza bets on this round, bettors by pseudonym (the caller's own by id).
    pub fuerza_bets: Vec<super::fuerza::FuerzaBetView>,
    /// The pay table every bet on this round uses (`GET /api/v1/pay-tables/{id}`).
    pub pay_table_id: Option<String>,
    pub version: i64,
}

/// The round as `viewer` may see it.
pub fn round_view(
    conn: &mut AnyConnection,
    vault: &SeedVault,
    row: &RoundRow,
    viewer: &Viewer,
) -> Result<RoundView, ApiError> {
    let config = round_config(row)?;
    let seated = seats(conn, &row.id)?;
    let status = row.status();
    let progress = match status {
        RoundStatus::Copa | RoundStatus::Finished | RoundStatus::InPlay | RoundStatus::Settled => {
            Some(replay(&deal_of(vault, row)?, &config, &seated, &decisions(row))?)
        }
        _ => None,
    };
    let events = progress.as_ref().map(|p| visible_events(p, status)).unwrap_or_default();
    let table_visible = match (status, &progress) {
        (RoundStatus::Copa | RoundStatus::Settled, Some(_)) => true,
        (RoundStatus::Finished, Some(p)) => p.result().is_some_and(|r| r.passes == 1),
        _ => false,
    };
    // Seats in suit order first, as the transcript numbers them.
    let mut names = Pseudonyms::default();
    let mut in_suit_order: Vec<_> = seated.iter().collect();
    in_suit_order.sort_by_key(|s| s.suit());
    for s in &in_suit_order {
        names.of(&s.player_id);
    }
    let shown = |id: &str| viewer.sees(id).then(|| id.to_owned());
    let player_of = |suit: Suit| {
        seated
            .iter()
            .find(|s| s.suit() == suit)
            .map(|s| s.player_id.as_str())
            .unwrap_or_default()
    };
    let copa_turn = match (&progress, status) {
        (
            Some(RoundProgress {
                phase: Phase::AwaitingCopa(t),
                ..
            }),
            RoundStatus::Copa,
        ) => {
            let id = player_of(t.turn);
            Some(CopaTurnView {
                suit: t.turn,
                player: names.of(id),
                player_id: shown(id),
                copa: copa_text(config.unit, t.copa_units),
                stack_count: t.stack_count,
            })
        }
        _ => None,
    };
    let stored: Option<StoredResult> = match (status, &row.result) {
        (RoundStatus::Settled, Some(json)) => serde_json::from_str(json).ok(),
        _ => None,
    };
    let result = stored.map(|s| ResultView {
        winner: names.of(&s.winner_player_id),
        winner_player_id: shown(&s.winner_player_id),
        result: s.result,
        winner_paid: s.winner_paid,
        carried_cobre_in: s.carried_cobre_in,
        facts: s.facts,
    });
    let bet_totals = crate::side_bets::round_totals(conn, &row.id)?;
    let confidence_bets = super::confidence::views(&super::confidence::of_round(conn, &row.id)?, &mut names, viewer);
    let fuerza = if config.rules().variant == engine::Variant::Jasper {
        Some(match super::fuerza::quotes(conn, vault, row)? {
            Ok(quotes) => quotes.view(),
            Err(reason) => super::fuerza::FuerzaView::closed(reason),
        })
    } else {
        None
    };
    let fuerza_bets = super::fuerza::of_round(conn, &row.id)?
        .iter()
        .map(|b| b.view(&mut names, viewer))
        .collect();
    Ok(RoundView {
        id: row.id.clone(),
        table_id: row.table_id.clone(),
        game: "prima_carta",
        number: row.number,
        status,
        commitment: row.commitment.clone(),
        algorithm: shuffle::ALGORITHM,
        client_seed: row.client_seed.clone(),
        server_seed: if status.is_over() {
            row.revealed_server_seed.clone()
        } else {
            None
        },
        unit: config.unit.to_string(),
        rules: config.clone(),
        seats: seated
            .iter()
            .map(|s| SeatView {
                suit: s.suit(),
                player: names.of(&s.player_id),
                player_id: shown(&s.player_id),
            })
            .collect(),
        table: if table_visible {
            progress.as_ref().map(|p| p.table.clone())
        } else {
            None
        },
        events,
        copa_turn,
        result,
        bet_totals,
        confidence_bets,
        fuerza,
        fuerza_bets,
        pay_table_id: record::pay_table_of(conn, &row.id)?,
        version: row.version,
    })
}
