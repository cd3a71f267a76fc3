//! A Prima Carta round's version-2 transcript (docs/transcript.md): the seats, decisions, side
//! bets, confidence bets and Fuerza bets under pseudonyms, the outcome and every transfer.

use super::{
    confidence, decisions, fuerza, played, round_config, round_transfers, seats, shuffle_transcript,
    submitted_client_seeds, SeatRow, StoredResult,
};
use crate::api::error::ApiError;
use crate::domain::format_minor;
use crate::games::prima_carta::{self as engine, Event};
use crate::rounds::record::RoundRow;
use crate::rounds::seed_vault::SeedVault;
use crate::store::AnyConnection;
use crate::transcript::{BetEntry, DecisionEntry, PayTableEntry, Pseudonyms, RoundTranscript, SeatEntry, Viewer};

/// The round's version-2 transcript (docs/transcript.md), as `viewer` may see it.
pub fn transcript(
    conn: &mut AnyConnection,
    vault: &SeedVault,
    row: &RoundRow,
    viewer: &Viewer,
    with_events: bool,
) -> Result<RoundTranscript<'static>, ApiError> {
    if !row.status().is_over() {
        return Err(ApiError::conflict(
            "round_not_over",
            "the transcript is available once the round is settled or voided",
        ));
    }
    let config = round_config(row)?;
    let mut seated = seats(conn, &row.id)?;
    seated.sort_by_key(SeatRow::suit);
    let played = played(conn, vault, row)?;
    let client_seeds = submitted_client_seeds(conn, &row.id)?;
    let shuffle = shuffle_transcript(row, &client_seeds, played.as_ref())
        .ok_or_else(|| ApiError::internal("a finished round without a revealed seed"))?;
    let mut names = Pseudonyms::default();
    let seats: Vec<SeatEntry> = seated
        .iter()
        .map(|s| SeatEntry {
            suit: Some(s.suit().name().to_owned()),
            player: names.of(&s.player_id).into(),
        })
        .collect();
    let bet_rows = crate::side_bets::round_bets(conn, &row.id)?;
    let mut pay_tables: Vec<PayTableEntry> = Vec::new();
    let mut bets = Vec::with_capacity(bet_rows.len());
    for b in &bet_rows {
        let fingerprint = match pay_tables.iter().find(|p| p.id == b.pay_table_id) {
            Some(p) => p.fingerprint.clone(),
            None => {
                let stored = crate::side_bets::find_pay_table(conn, &b.pay_table_id)?;
                let table = stored.pay_table()?;
                pay_tables.push(PayTableEntry::new(&stored.id, &table));
                table.fingerprint().into()
            }
        };
        let selection: crate::bets::Selection =
            serde_json::from_str(&b.selection).map_err(|e| ApiError::internal(format!("stored selection: {e}")))?;
        let (suit, number) = match selection {
            crate::bets::Selection::Suit(s) => (Some(s.name().to_owned()), None),
            crate::bets::Selection::Number(n) => (None, Some(n as i64)),
            crate::bets::Selection::None => (None, None),
        };
        bets.push(BetEntry {
            player: names.of(&b.player_id).into(),
            kind: b.kind.clone().into(),
            suit,
            number,
            amount: format_minor(b.amount_minor).into(),
            pay_table: fingerprint,
            status: b.status.clone().into(),
            returned: format_minor(b.returned_minor).into(),
        });
    }
    let stored: Option<StoredResult> = match &row.result {
        Some(json) => Some(serde_json::from_str(json).map_err(|e| ApiError::internal(format!("stored result: {e}")))?),
        None => None,
    };
    let confidence_bets = confidence::of_round(conn, &row.id)?
        .iter()
        .map(|b| {
            Ok(crate::transcript::ConfidenceEntry {
                terms: crate::transcript::raw(&b.terms()?),
                offered_by: names.of(&b.offered_by).into(),
                offerer_side: b.offerer_side.clone().into(),
                accepted_by: b.accepted_by.as_deref().map(|p| names.of(p).into()),
                for_stake: format_minor(b.for_stake_minor).into(),
                against_stake: format_minor(b.against_stake_minor).into(),
                status: b.status.clone().into(),
                paid: format_minor(b.paid_minor).into(),
                commission: format_minor(b.commission_minor).into(),
            })
        })
        .collect::<Result<Vec<_>, confidence::ConfidenceError>>()?;
    let fuerza_bets = fuerza::of_round(conn, &row.id)?
        .iter()
        .map(|b| crate::transcript::FuerzaEntry {
            player: names.of(&b.player_id).into(),
            suit: b.suit.clone().into(),
            stake: format_minor(b.stake_minor).into(),
            quote: crate::transcript::FuerzaQuoteEntry {
                algorithm: engine::fuerza::ALGORITHM.into(),
                decisions: b.quote_decisions as u32,
                samples: b.quote_samples as u32,
                wins: b.quote_wins as u32,
                wins_if_all_pay: b.quote_wins_if_all_pay as u32,
                price: engine::fuerza::price_text(b.price_hundredths as u32).into(),
            },
            status: b.status.clone().into(),
            returned: format_minor(b.returned_minor).into(),
        })
        .collect();
    let transfers = round_transfers(conn, &row.id)?;
    let transfers = crate::transcript::transfer_entries(&transfers, &mut names, &row.id, &row.table_id);
    let events = |list: &[Event]| {
        list.iter()
            .map(|e| serde_json::to_value(e).unwrap_or_default())
            .collect()
    };
    Ok(RoundTranscript {
        transcript: crate::transcript::FORMAT.to_owned().into(),
        version: crate::transcript::VERSION,
        game: "prima_carta".to_owned().into(),
        round_id: row.id.clone().into(),
        table_id: row.table_id.clone().into(),
        number: row.number,
        status: row.status.clone().into(),
        shuffle,
        rules: crate::transcript::raw(&config),
        pay_tables,
        players: names.parties(viewer),
        seats,
        decisions: decisions(row)
            .iter()
            .map(|d| DecisionEntry {
                suit: d.suit.name().to_owned().into(),
                pay: d.pay,
            })
            .collect(),
        plays: Vec::new(),
        bets,
        confidence_bets,
        fuerza_bets,
        carried_cobre_in: stored.as_ref().map(|s| s.carried_cobre_in.clone()),
        outcome: stored
            .as_ref()
            .map(|s| crate::transcript::raw(&crate::transcript::PrimaOutcome::new(&s.result, &s.facts))),
        events: played.as_ref().filter(|_| with_events).map(|p| events(&p.game.events)),
        deal_out_events: played
            .as_ref()
            .filter(|_| with_events)
            .map(|p| events(&p.deal_out.events)),
        transfers,
        ledger_proof: None,
    })
}
