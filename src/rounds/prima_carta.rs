//! Prima Carta rounds at a house table: the engine's replay plus the money.
//!
//! Only the deck's secret (the sealed server seed), the seats and the copa
//! decisions are stored; every request rebuilds the round by replaying the
//! pure engine (`games::prima_carta::play`). Each operation runs inside one
//! write transaction that holds the round's row lock, so a state change and
//! its ledger transfers commit together, once.

use diesel::prelude::*;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::record::{self, RoundRow, RoundStatus, RoundUpdate};
use super::seed_vault::SeedVault;
use crate::api::error::ApiError;
use crate::cards::shuffle::{self, ClientSeed, Game, Shuffler};
use crate::cards::transcript::{Reshuffle, ShuffleTranscript};
use crate::cards::{Card, Suit};
use crate::domain::{format_minor, Amount};
use crate::games::prima_carta::{
    self as engine, CobreRule, CopaDecision, CopaTurn, Event, Phase, RoundProgress, RoundResult, TableRules,
    CORTE_UNITS, SPIGA_UNITS,
};
use crate::ledger::{self, accounts, AccountId, Refs, TransferKind, TransferSpec};
use crate::store::schema::seats as st;
use crate::store::{new_id, now_us, AnyConnection};
use crate::tables::config::PrimaCartaConfig;
use crate::tables::{self, Table, TableConfig};
use crate::transcript::{RoundTranscript, Viewer};

pub mod confidence;
pub mod fuerza;
mod transcript;
mod view;
pub use transcript::transcript;
pub use view::{round_view, CopaTurnView, ResultView, RoundView, SeatView};

/// Seats a Prima Carta round needs before betting closes, and may hold.
pub const MIN_SEATS: usize = 2;
pub const MAX_SEATS: usize = 5;

/// How a copa decision reached djego.
#[derive(Serialize, Deserialize, ToSchema, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum DecisionSource {
    /// The seated player sent it from their app.
    Player,
    /// The player said it aloud and the dealer recorded it.
    DealerVoice,
}

#[derive(Serialize, Deserialize, ToSchema, Debug, Clone)]
pub struct RecordedDecision {
    #[schema(value_type = String)]
    pub suit: Suit,
    pub pay: bool,
    pub source: DecisionSource,
    pub recorded_by: String,
    pub at_us: i64,
}

#[derive(Queryable, Selectable, Debug, Clone)]
#[diesel(table_name = st)]
pub struct SeatRow {
    pub round_id: String,
    pub suit: String,
    pub player_id: String,
    pub client_seed: Option<String>,
    pub seated_at_us: i64,
}

impl SeatRow {
    pub fn suit(&self) -> Suit {
        Suit::parse(&self.suit).unwrap_or(Suit::Crowns)
    }
}

pub fn config_of(table: &Table) -> Result<&PrimaCartaConfig, ApiError> {
    match &table.config {
        TableConfig::PrimaCarta(c) => Ok(c),
        _ => Err(ApiError::unprocessable(
            "wrong_game",
            "this table does not deal Prima Carta",
        )),
    }
}

pub fn round_config(row: &RoundRow) -> Result<PrimaCartaConfig, ApiError> {
    serde_json::from_str(&row.config).map_err(|e| ApiError::internal(format!("stored round config: {e}")))
}

pub fn rules_of(c: &PrimaCartaConfig) -> TableRules {
    c.rules()
}

pub fn units(unit: Amount, count: u32) -> Result<Amount, ApiError> {
    Amount::from_minor(unit.minor() * count as i64).map_err(|e| ApiError::internal(e.to_string()))
}

fn refs(row: &RoundRow, user_id: Option<&str>) -> Refs {
    Refs {
        user_id: user_id.map(str::to_string),
        table_id: Some(row.table_id.clone()),
        round_id: Some(row.id.clone()),
        bet_id: None,
    }
}

pub fn seats(conn: &mut AnyConnection, round_id: &str) -> QueryResult<Vec<SeatRow>> {
    st::table
        .filter(st::round_id.eq(round_id))
        .select(SeatRow::as_select())
        .order(st::suit.asc())
        .load(conn)
}

pub fn decisions(row: &RoundRow) -> Vec<RecordedDecision> {
    serde_json::from_str(&row.decisions).unwrap_or_default()
}

/// The round's deck and its RNG stream positioned just after the deck shuffle.
pub struct Deal {
    pub deck: Vec<Card>,
    pub stream: Shuffler,
}

pub fn deal_of(vault: &SeedVault, row: &RoundRow) -> Result<Deal, ApiError> {
    let client_seed = row
        .client_seed
        .as_deref()
        .ok_or_else(|| ApiError::conflict("wrong_round_state", "betting has not closed; there is no deck yet"))?;
    let seed = vault
        .open(&row.id, &row.server_seed_sealed)
        .map_err(|e| ApiError::internal(e.to_string()))?;
    let (deck, stream) = shuffle::shuffled_deck(&seed, Game::PrimaCarta, &row.id, client_seed, 10);
    Ok(Deal { deck, stream })
}

/// Rebuilds the round from its deck, seats and decisions.
pub fn replay(
    deal: &Deal,
    config: &PrimaCartaConfig,
    seats: &[SeatRow],
    decided: &[RecordedDecision],
) -> Result<RoundProgress, ApiError> {
    let seated: Vec<Suit> = seats.iter().map(SeatRow::suit).collect();
    let decisions: Vec<CopaDecision> = decided
        .iter()
        .map(|d| CopaDecision {
            suit: d.suit,
            pay: d.pay,
        })
        .collect();
    let mut stream = deal.stream.clone();
    engine::play(&deal.deck, &rules_of(config), &seated, &decisions, &mut |cards| {
        stream.shuffle(cards)
    })
    .map_err(|e| ApiError::unprocessable("rule_violation", e.to_string()))
}

/// The events watchers may see now. Before settlement nothing after the copa
/// (the repasso, a Jasper reshuffle) is shown: those cards are not dealt yet.
pub fn visible_events(progress: &RoundProgress, status: RoundStatus) -> Vec<Event> {
    if status.is_over() {
        return progress.events.clone();
    }
    progress
        .events
        .iter()
        .take_while(|e| {
            !matches!(e, Event::Reshuffled { .. }) && !matches!(e, Event::PassStarted { pass, .. } if *pass >= 2)
        })
        .filter(|e| {
            !matches!(e, Event::Won { .. } | Event::Cobre(_)) || progress.result().is_some_and(|r| r.passes == 1)
        })
        .map(Event::live_view)
        .collect()
}

/// The copa as shown: one unit per card in the stack (zero shows as 0.00).
pub fn copa_text(unit: Amount, copa_units: u32) -> String {
    format_minor(unit.minor() * copa_units as i64)
}

/// Creates a round at an open table: draws and seals the server seed and
/// publishes its commitment before any seat or bet is accepted.
pub fn create_round(
    conn: &mut AnyConnection,
    vault: &SeedVault,
    table: &Table,
    dealer_id: &str,
) -> Result<RoundRow, ApiError> {
    let config = config_of(table)?.clone();
    let id = new_id();
    let seed = SeedVault::draw_seed();
    let config_json = serde_json::to_string(&config).expect("configs serialize");
    // The round keeps the pay table installed now; a later swap applies to later rounds.
    let pay_table = crate::side_bets::for_table(conn, &table.id)?;
    let new = record::NewRound {
        pay_table_id: Some(&pay_table.id),
        id: &id,
        table_id: &table.id,
        game: "prima_carta",
        status: RoundStatus::Betting,
        config_json: &config_json,
        seed: &seed,
        client_seed: None,
        created_by: dealer_id,
    };
    if let Some(open) = record::unfinished(conn, &table.id, "prima_carta", None)? {
        return Err(ApiError::conflict(
            "round_in_progress",
            format!("this table already has a round in progress: {open}; settle or void it first"),
        ));
    }
    // Not opened inside a closed gaming day (a clock behind).
    ledger::refuse_if_closed(conn, now_us())?;
    record::insert(conn, vault, &new).map_err(|e| match e {
        // Another round was opened at the same instant.
        diesel::result::Error::DatabaseError(diesel::result::DatabaseErrorKind::UniqueViolation, _) => {
            ApiError::conflict("round_in_progress", "this table already has a round in progress")
        }
        other => other.into(),
    })?;
    accounts::ensure(conn, &AccountId::pot(&id), None)?;
    accounts::ensure(conn, &AccountId::escrow(&id), None)?;
    accounts::ensure(conn, &AccountId::table_cobre(&table.id), None)?;
    record::find(conn, &id)?.ok_or_else(|| ApiError::internal("round vanished"))
}

/// A player takes a free suit: the spiga goes to the pot, the seat fee to
/// house revenue, and (with corte on) one unit to escrow in case theirs is the
/// Prima suit.
pub fn take_seat(
    conn: &mut AnyConnection,
    row: &RoundRow,
    player_id: &str,
    suit: Suit,
    client_seed: Option<&ClientSeed>,
    idempotency_key: Option<&str>,
) -> Result<(), ApiError> {
    row.require_status(&[RoundStatus::Betting], "take a seat")?;
    let config = round_config(row)?;
    let taken = seats(conn, &row.id)?;
    if taken.len() >= MAX_SEATS {
        return Err(ApiError::conflict("table_full", "all five suits are taken"));
    }
    if taken.iter().any(|s| s.player_id == player_id) {
        return Err(ApiError::conflict(
            "already_seated",
            "you already hold a seat in this round",
        ));
    }
    if taken.iter().any(|s| s.suit() == suit) {
        return Err(ApiError::conflict("suit_taken", format!("{suit} is already taken")));
    }
    // The spiga, the seat fee and the corte held are the seat's stake.
    let stake_minor = units(config.unit, SPIGA_UNITS)?.minor()
        + config.seat_fee.map_or(0, |f| f.minor())
        + if config.corte {
            units(config.unit, CORTE_UNITS)?.minor()
        } else {
            0
        };
    crate::protection::admit(conn, player_id, crate::protection::Play::Stake(stake_minor), now_us())?;
    diesel::insert_into(st::table)
        .values((
            st::round_id.eq(&row.id),
            st::suit.eq(suit.name()),
            st::player_id.eq(player_id),
            st::client_seed.eq(client_seed.map(|c| c.as_str().to_string())),
            st::seated_at_us.eq(now_us()),
        ))
        .execute(conn)?;
    let wallet = AccountId::wallet(player_id);
    let mut specs = vec![TransferSpec::new(
        wallet.clone(),
        AccountId::pot(&row.id),
        units(config.unit, SPIGA_UNITS)?,
        TransferKind::Spiga,
    )
    .refs(refs(row, Some(player_id)))
    .idempotency_key(idempotency_key)
    .memo(format!("spiga for {suit}"))];
    if let Some(fee) = config.seat_fee {
        specs.push(
            TransferSpec::new(wallet.clone(), AccountId::house_revenue(), fee, TransferKind::SeatFee)
                .refs(refs(row, Some(player_id)))
                .idempotency_key(idempotency_key),
        );
    }
    if config.corte {
        specs.push(
            TransferSpec::new(
                wallet,
                AccountId::escrow(&row.id),
                units(config.unit, CORTE_UNITS)?,
                TransferKind::CorteHeld,
            )
            .refs(refs(row, Some(player_id)))
            .idempotency_key(idempotency_key)
            .memo("corte held until the first card"),
        );
    }
    ledger::post(conn, &specs)?;
    Ok(record::update(conn, row, RoundUpdate::status(RoundStatus::Betting))?)
}

/// Closes betting: fixes the combined client seed (docs/shuffle.md).
pub fn close_betting(conn: &mut AnyConnection, row: &RoundRow) -> Result<String, ApiError> {
    row.require_status(&[RoundStatus::Betting], "close betting")?;
    let taken = seats(conn, &row.id)?;
    if taken.len() < MIN_SEATS {
        return Err(ApiError::unprocessable(
            "not_enough_players",
            format!(
                "a round needs at least {MIN_SEATS} seated players; {} seated",
                taken.len()
            ),
        ));
    }
    let combined = shuffle::combined_client_seed(&submitted_client_seeds(conn, &row.id)?);
    record::update(
        conn,
        row,
        RoundUpdate {
            client_seed: Some(&combined),
            ..RoundUpdate::status(RoundStatus::Closed)
        },
    )?;
    confidence::close_window(conn, row, engine::confidence::Window::BeforeDeal)?;
    Ok(combined)
}

/// Deals the first pass; moves the corte; stops at the first copa turn or the end.
pub fn deal_first_pass(conn: &mut AnyConnection, vault: &SeedVault, row: &RoundRow) -> Result<RoundProgress, ApiError> {
    row.require_status(&[RoundStatus::Closed], "deal")?;
    let config = round_config(row)?;
    let seated = seats(conn, &row.id)?;
    let deal = deal_of(vault, row)?;
    let progress = replay(&deal, &config, &seated, &[])?;
    if config.corte {
        let corte = units(config.unit, CORTE_UNITS)?;
        let payer = progress.events.iter().find_map(|e| match e {
            Event::Corte { suit, .. } => Some(*suit),
            _ => None,
        });
        let specs: Vec<TransferSpec> = seated
            .iter()
            .map(|s| {
                let (credit, kind) = if Some(s.suit()) == payer {
                    (AccountId::dealer_tips(), TransferKind::Corte)
                } else {
                    (AccountId::wallet(&s.player_id), TransferKind::Refund)
                };
                TransferSpec::new(AccountId::escrow(&row.id), credit, corte, kind).refs(refs(row, Some(&s.player_id)))
            })
            .collect();
        ledger::post(conn, &specs)?;
    }
    record::update(conn, row, RoundUpdate::status(status_after(&progress)))?;
    Ok(progress)
}

/// The round's status once the engine has replayed it: awaiting a copa
/// decision; `in_play` while the dealer deals the repasso (the copa left two
/// or more live players); `finished` when no card remains to be dealt for
/// the main game.
fn status_after(progress: &RoundProgress) -> RoundStatus {
    match &progress.phase {
        Phase::AwaitingCopa(_) => RoundStatus::Copa,
        Phase::Finished(r) if r.how == engine::WinKind::RepassoCompletion => RoundStatus::InPlay,
        Phase::Finished(_) => RoundStatus::Finished,
    }
}

/// Records a copa decision in turn; a paid copa moves from the wallet to the pot.
pub fn decide(
    conn: &mut AnyConnection,
    vault: &SeedVault,
    row: &RoundRow,
    suit: Suit,
    pay: bool,
    source: DecisionSource,
    recorded_by: &str,
) -> Result<RoundProgress, ApiError> {
    row.require_status(&[RoundStatus::Copa], "decide a copa")?;
    let config = round_config(row)?;
    let seated = seats(conn, &row.id)?;
    let deal = deal_of(vault, row)?;
    let mut decided = decisions(row);
    let before = replay(&deal, &config, &seated, &decided)?;
    let turn: CopaTurn = match before.phase {
        Phase::AwaitingCopa(t) => t,
        Phase::Finished(_) => return Err(ApiError::conflict("wrong_round_state", "no copa decision is pending")),
    };
    if turn.turn != suit {
        return Err(ApiError::conflict(
            "not_your_turn",
            format!("it is {}'s turn to decide, not {suit}'s", turn.turn),
        ));
    }
    let seat = seated
        .iter()
        .find(|s| s.suit() == suit)
        .ok_or_else(|| ApiError::internal("turn suit is not seated"))?;
    decided.push(RecordedDecision {
        suit,
        pay,
        source,
        recorded_by: recorded_by.to_string(),
        at_us: now_us(),
    });
    let after = replay(&deal, &config, &seated, &decided)?;
    // A Seguro's contribution reaches the wallet before the copa leaves it.
    confidence::on_copa_decision(conn, row, suit, pay)?;
    if pay && turn.copa_units > 0 {
        let copa = units(config.unit, turn.copa_units)?;
        ledger::post(
            conn,
            &[TransferSpec::new(
                AccountId::wallet(&seat.player_id),
                AccountId::pot(&row.id),
                copa,
                TransferKind::Copa,
            )
            .refs(refs(row, Some(&seat.player_id)))
            .memo(format!("copa of {} cards for {suit}", turn.stack_count))],
        )
        .map_err(|e| match e {
            ledger::LedgerError::InsufficientFunds { .. } => ApiError::unprocessable(
                "insufficient_funds",
                format!("the copa is {}; the wallet cannot pay it (fold instead)", copa),
            ),
            other => other.into(),
        })?;
    }
    let status = status_after(&after);
    let json = serde_json::to_string(&decided).expect("decisions serialize");
    record::update(
        conn,
        row,
        RoundUpdate {
            decisions: Some(&json),
            ..RoundUpdate::status(status)
        },
    )?;
    if status != RoundStatus::Copa {
        confidence::close_window(conn, row, engine::confidence::Window::Copa)?;
    }
    Ok(after)
}

#[derive(Serialize, Deserialize, ToSchema, Debug, Clone)]
pub struct StoredResult {
    #[schema(value_type = Object)]
    pub result: RoundResult,
    pub winner_player_id: String,
    /// Everything the winner received: the pot less any cobre, plus cobre carried in.
    pub winner_paid: String,
    pub carried_cobre_in: String,
    #[schema(value_type = Object)]
    pub facts: engine::DealFacts,
}

/// Runs the repasso (already determined by the replay), pays the pot, the
/// cobre and the side bets, and reveals the seed.
pub fn settle(conn: &mut AnyConnection, vault: &SeedVault, row: &RoundRow) -> Result<StoredResult, ApiError> {
    row.require_status(&[RoundStatus::Finished, RoundStatus::InPlay], "settle")?;
    let config = round_config(row)?;
    let seated = seats(conn, &row.id)?;
    let deal = deal_of(vault, row)?;
    let progress = replay(&deal, &config, &seated, &decisions(row))?;
    let result = progress
        .result()
        .cloned()
        .ok_or_else(|| ApiError::conflict("wrong_round_state", "the round is not finished"))?;
    let winner = seated
        .iter()
        .find(|s| s.suit() == result.winner)
        .ok_or_else(|| ApiError::internal("winner suit is not seated"))?;
    let pot = AccountId::pot(&row.id);
    let cobre_account = AccountId::table_cobre(&row.table_id);
    let carried_in = accounts::balance_minor(conn, &cobre_account)?;
    let mut specs = Vec::new();
    if result.winner_takes_units > 0 {
        specs.push(
            TransferSpec::new(
                pot.clone(),
                AccountId::wallet(&winner.player_id),
                units(config.unit, result.winner_takes_units)?,
                TransferKind::PotPayout,
            )
            .refs(refs(row, Some(&winner.player_id))),
        );
    }
    if carried_in > 0 {
        let amount = Amount::from_minor(carried_in).map_err(|e| ApiError::internal(e.to_string()))?;
        specs.push(
            TransferSpec::new(
                cobre_account.clone(),
                AccountId::wallet(&winner.player_id),
                amount,
                TransferKind::CobreCarried,
            )
            .refs(refs(row, Some(&winner.player_id))),
        );
    }
    if let Some(cobre) = &result.cobre {
        let credit = match cobre.disposition {
            CobreRule::House => AccountId::house_revenue(),
            _ => cobre_account.clone(),
        };
        specs.push(
            TransferSpec::new(
                pot.clone(),
                credit,
                units(config.unit, cobre.units)?,
                TransferKind::Cobre,
            )
            .refs(refs(row, None)),
        );
    }
    ledger::post(conn, &specs)?;
    // Invariant: the pot held exactly this round's spigas and copas, and is now empty.
    let left = accounts::balance_minor(conn, &pot)?;
    if left != 0 {
        return Err(ApiError::internal(format!(
            "pot of round {} would keep {}",
            row.id,
            format_minor(left)
        )));
    }
    let mut facts_stream = deal.stream.clone();
    let facts = engine::deal_facts(&deal.deck, rules_of(&config).variant, &mut |cards| {
        facts_stream.shuffle(cards)
    })
    .map_err(|e| ApiError::internal(e.to_string()))?;
    crate::side_bets::settle_round(conn, row, &facts)?;
    let paid = result.winner_takes_units as i64 * config.unit.minor() + carried_in;
    confidence::settle_round(
        conn,
        row,
        config.confidence_commission(),
        &confidence::outcome_of(&result, &facts),
        paid,
    )?;
    fuerza::settle_round(conn, row, &result)?;
    require_empty_escrow(conn, row)?;
    let stored = StoredResult {
        result,
        winner_player_id: winner.player_id.clone(),
        winner_paid: format_minor(paid),
        carried_cobre_in: format_minor(carried_in),
        facts,
    };
    let seed = vault
        .open(&row.id, &row.server_seed_sealed)
        .map_err(|e| ApiError::internal(e.to_string()))?;
    let json = serde_json::to_string(&stored).expect("results serialize");
    record::update(
        conn,
        row,
        RoundUpdate {
            result: Some(&json),
            revealed_server_seed: Some(&seed.to_hex()),
            ..RoundUpdate::status(RoundStatus::Settled)
        },
    )?;
    Ok(stored)
}

/// Voids a round before any card is dealt: every stake goes back.
pub fn void(conn: &mut AnyConnection, vault: &SeedVault, row: &RoundRow) -> Result<(), ApiError> {
    row.require_status(
        &[RoundStatus::Betting, RoundStatus::Closed],
        "void (cards have been dealt)",
    )?;
    refund_round_transfers(conn, row)?;
    crate::side_bets::refund_round(conn, row)?;
    confidence::refund_round(conn, row)?;
    fuerza::refund_round(conn, row)?;
    require_empty_escrow(conn, row)?;
    let seed = vault
        .open(&row.id, &row.server_seed_sealed)
        .map_err(|e| ApiError::internal(e.to_string()))?;
    record::update(
        conn,
        row,
        RoundUpdate {
            revealed_server_seed: Some(&seed.to_hex()),
            ..RoundUpdate::status(RoundStatus::Voided)
        },
    )?;
    Ok(())
}

/// Invariant: once a round is settled or voided its escrow (corte held, side-bet and
/// confidence stakes) holds nothing.
fn require_empty_escrow(conn: &mut AnyConnection, row: &RoundRow) -> Result<(), ApiError> {
    let left = accounts::balance_minor(conn, &AccountId::escrow(&row.id))?;
    if left != 0 {
        return Err(ApiError::internal(format!(
            "escrow of round {} would keep {}",
            row.id,
            format_minor(left)
        )));
    }
    Ok(())
}

/// Reverses every seat transfer of the round (spiga, seat fee, corte escrow).
fn refund_round_transfers(conn: &mut AnyConnection, row: &RoundRow) -> Result<(), ApiError> {
    use crate::store::schema::transfers as t;
    let moved: Vec<(String, String, i64, Option<String>, String)> = t::table
        .filter(t::round_id.eq(&row.id))
        .filter(t::kind.eq_any(["spiga", "seat_fee", "corte_held"]))
        .select((
            t::debit_account,
            t::credit_account,
            t::amount_minor,
            t::user_id,
            t::kind,
        ))
        .order(t::seq.asc())
        .load(conn)?;
    let specs = moved
        .into_iter()
        .map(|(debit, credit, minor, user, kind)| {
            let amount = Amount::from_minor(minor).map_err(|e| ApiError::internal(e.to_string()))?;
            Ok(TransferSpec::new(
                AccountId::from_stored(credit),
                AccountId::from_stored(debit),
                amount,
                TransferKind::Refund,
            )
            .refs(refs(row, user.as_deref()))
            .memo(format!("void: refund of {kind}")))
        })
        .collect::<Result<Vec<_>, ApiError>>()?;
    ledger::post(conn, &specs)?;
    Ok(())
}

/// The shuffle transcript of a settled or voided round (docs/shuffle.md):
/// the deck and the reshuffle the round or its deal-out made.
pub fn shuffle_transcript(
    row: &RoundRow,
    client_seeds: &[ClientSeed],
    played: Option<&Played>,
) -> Option<ShuffleTranscript> {
    let seed_hex = row.revealed_server_seed.as_deref()?;
    let seed = shuffle::ServerSeed::from_hex(seed_hex).ok()?;
    let client_seed = row
        .client_seed
        .clone()
        .unwrap_or_else(|| shuffle::combined_client_seed(client_seeds));
    let (deck, _) = shuffle::shuffled_deck(&seed, Game::PrimaCarta, &row.id, &client_seed, 10);
    let reshuffles = played.and_then(Played::reshuffle).into_iter().collect();
    Some(ShuffleTranscript::record(
        &seed,
        Game::PrimaCarta,
        &row.id,
        client_seeds,
        &deck,
        reshuffles,
    ))
}

/// A settled round replayed: the main game and the full deal-out its side
/// bets settled on.
pub struct Played {
    pub game: RoundProgress,
    pub deal_out: engine::DealOut,
}

impl Played {
    /// The Jasper reshuffle, made by the main game's repasso or by the
    /// deal-out (the same one when both need it: the first pass's discards
    /// shuffled by the stream just after the deck).
    pub fn reshuffle(&self) -> Option<Reshuffle> {
        let of_game = self.game.events.iter().find_map(|e| match e {
            Event::Reshuffled { before, after } => Some(Reshuffle::new(before, after)),
            _ => None,
        });
        of_game.or_else(|| {
            self.deal_out
                .reshuffle()
                .map(|(before, after)| Reshuffle::new(before, after))
        })
    }
}

/// Replays a settled round; `None` for any other.
pub fn played(conn: &mut AnyConnection, vault: &SeedVault, row: &RoundRow) -> Result<Option<Played>, ApiError> {
    if row.status() != RoundStatus::Settled {
        return Ok(None);
    }
    let config = round_config(row)?;
    let seated = seats(conn, &row.id)?;
    let deal = deal_of(vault, row)?;
    let game = replay(&deal, &config, &seated, &decisions(row))?;
    let mut stream = deal.stream.clone();
    let deal_out = engine::deal_out(&deal.deck, config.rules().variant, &mut |cards| stream.shuffle(cards))
        .map_err(|e| ApiError::internal(e.to_string()))?;
    Ok(Some(Played { game, deal_out }))
}

/// Every ledger transfer of a round, in ledger order.
pub fn round_transfers(conn: &mut AnyConnection, round_id: &str) -> QueryResult<Vec<crate::ledger::Transfer>> {
    crate::ledger::read::transfers(
        conn,
        &crate::ledger::read::TransferFilter {
            account: None,
            round_id: Some(round_id.to_owned()),
            from_us: None,
            to_us: None,
            limit: 10_000,
            offset: 0,
            newest_first: false,
        },
    )
}

/// Every client seed submitted with a seat or a side bet of the round.
pub fn submitted_client_seeds(conn: &mut AnyConnection, round_id: &str) -> Result<Vec<ClientSeed>, ApiError> {
    let mut texts: Vec<String> = st::table
        .filter(st::round_id.eq(round_id))
        .select(st::client_seed)
        .load::<Option<String>>(conn)?
        .into_iter()
        .flatten()
        .collect();
    texts.extend(crate::side_bets::client_seeds(conn, round_id)?);
    Ok(texts.iter().filter_map(|s| ClientSeed::parse(s).ok()).collect())
}

pub fn find_table(conn: &mut AnyConnection, table_id: &str) -> Result<Table, ApiError> {
    tables::find(conn, table_id)?.ok_or_else(|| ApiError::not_found("table"))
}

/// A settled or voided round as its players, the pit boss and the auditor
/// may recall it: the round view and the whole transcript, other players by
/// pseudonym only; staff also get the stored decisions, bets and transfers
/// under their real ids.
#[derive(Serialize, ToSchema, Debug)]
pub struct RoundRecall {
    /// The round view as the caller sees it (ids as in the transcript's `players`).
    pub round: RoundView,
    /// docs/transcript.md; `djego verify round` and docs/verify/verify_round.py read it.
    #[schema(value_type = Object)]
    pub transcript: RoundTranscript<'static>,
    /// Staff only: the copa decisions as recorded (who recorded each, when).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub decisions: Option<Vec<RecordedDecision>>,
    /// Staff only: the bets with their players and settlements.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bets: Option<Vec<crate::side_bets::BetView>>,
    /// Staff only: the round's ledger transfers with their accounts.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub transfers: Option<Vec<crate::ledger::read::TransferView>>,
}

pub fn recall(
    conn: &mut AnyConnection,
    vault: &SeedVault,
    row: &RoundRow,
    viewer: &Viewer,
) -> Result<RoundRecall, ApiError> {
    let transcript = transcript(conn, vault, row, viewer, true)?;
    let staff = viewer.sees_identities;
    Ok(RoundRecall {
        round: round_view(conn, vault, row, viewer)?,
        transcript,
        decisions: staff.then(|| decisions(row)),
        bets: if staff {
            Some(
                crate::side_bets::round_bets(conn, &row.id)?
                    .iter()
                    .map(crate::side_bets::BetView::from)
                    .collect(),
            )
        } else {
            None
        },
        transfers: if staff {
            Some(
                round_transfers(conn, &row.id)?
                    .iter()
                    .map(crate::ledger::read::TransferView::from)
                    .collect(),
            )
        } else {
            None
        },
    })
}

/// Who took part in a round (seated or bet): they may read its recall.
pub fn participants(conn: &mut AnyConnection, round_id: &str) -> Result<Vec<String>, ApiError> {
    let mut ids: Vec<String> = seats(conn, round_id)?.into_iter().map(|s| s.player_id).collect();
    ids.extend(
        crate::side_bets::round_bets(conn, round_id)?
            .into_iter()
            .map(|b| b.player_id),
    );
    for bet in confidence::of_round(conn, round_id)? {
        ids.push(bet.offered_by);
        ids.extend(bet.accepted_by);
    }
    ids.sort();
    ids.dedup();
    Ok(ids)
}
