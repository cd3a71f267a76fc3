//! Peg Leg rounds (docs/peg-leg.md): a Prima Carta deck dealt card by card in one pass by
//! the dealer; after every card the house quotes a price for every final count of the key
//! suit, and players bet, bet again, or surrender a bet for its cash-out value until the
//! next card.
//!
//! - A dealer opens a round at an open Peg Leg table: its server seed is drawn and sealed
//!   and its commitment published. Players may give a client seed until the first card.
//! - Each card is one request: the first one combines the client seeds (as Prima Carta
//!   combines them), which fixes the deck (shuffle-v1, game `prima_carta`, the round id).
//!   The card is dealt through the pure engine (`games::peg_leg`) and, unless it is the
//!   last, priced: exactly when the search is small enough, otherwise by simulation from a
//!   freshly drawn seed that is stored with the quote so the verifier can redo it.
//! - A bet names the quote it was placed on; a quote is current until the next card (or
//!   the end of a timed window), and an older one is refused (409). Stakes go to the
//!   round's escrow; a surrender pays the cash-out value of the current quote; the last
//!   card settles every open bet; a pit-boss void refunds the open ones.
//!
//! Every change runs in one write transaction holding the round's row lock, so bets,
//! surrenders and cards apply once and in one order; the quote itself is computed before
//! the transaction when it can be, so the database's write lock is not held while pricing.

use diesel::prelude::*;
use rand::{RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::seed_vault::SeedVault;
use crate::cards::shuffle::{self, ClientSeed, Game, ServerSeed};
use crate::cards::transcript::{self as shuffle_transcript, ShuffleTranscript, VerificationReport};
use crate::cards::{Card, Suit};
use crate::domain::{format_minor, Amount};
use crate::games::peg_leg::{self as engine, CardStep, Distribution, Method, PegLegPass, PricingConfig, Quote};
use crate::ledger::{self, accounts, AccountId, LedgerError, Refs, TransferKind, TransferSpec};
use crate::significant_events::{self, EventKind};
use crate::store::schema::{peg_leg_bets as b, peg_leg_client_seeds as cs, peg_leg_quotes as q, peg_leg_rounds as r};
use crate::store::{lock_for_update, new_id, now_us, AnyConnection};
use crate::tables::config::PegLegConfig;
use crate::tables::{Table, TableConfig};
use crate::transcript::{Party, Pseudonyms, TransferEntry, Viewer};

mod bets;
mod recall;
mod rtp;
mod view;
use bets::find_bet;
pub use bets::{cash_out_minor, check_bet, placed_bet, stake_transfer, surrender, BetAsked};
pub use recall::{
    is_recall_document, recall, verify, verify_recall, verify_recall_document, CardClaim, PegLegRecall, RecallClaims,
    RecalledBet, RecalledQuote, RoundClaims,
};
pub use rtp::{observed_rtp, PegLegRtp};
pub use view::*;

/// Cards in the pass.
pub const PASS_CARDS: usize = Card::DECK_SIZE;

/// Why a Peg Leg operation was refused or failed; `api/` turns each into its HTTP answer.
#[derive(Debug, thiserror::Error)]
pub enum PegLegRoundError {
    #[error("Peg Leg round not found")]
    RoundNotFound,
    #[error("this table does not deal Peg Leg")]
    WrongGame,
    #[error("this table is closed")]
    TableClosed,
    #[error("this table already has a Peg Leg round in progress: {round_id}; settle or void it first")]
    RoundInProgress { round_id: String },
    #[error("cannot {action}: the round is {status}")]
    WrongState { action: &'static str, status: String },
    #[error("you have already given a client seed for this round")]
    SeedAlreadyGiven,
    #[error("quote {given} is no longer current; the current quote is {current}")]
    StaleQuote { given: String, current: String },
    #[error("the betting window after this card has closed; wait for the next card")]
    WindowClosed,
    #[error("the betting window after this card is still open; the next card may be dealt when it closes")]
    WindowOpen { closes_at_us: i64 },
    #[error("count {count} is not offered in this quote")]
    CountNotOffered { count: u8 },
    #[error("a bet must be between {min} and {max}")]
    StakeOutOfRange { min: String, max: String },
    #[error("a player may stake at most {limit} on one round; you have staked {staked}")]
    ExposureExceeded { limit: String, staked: String },
    #[error("the stake is {needed}; the wallet holds {balance}")]
    InsufficientFunds { needed: String, balance: String },
    #[error("only players with a wallet may bet")]
    NoWallet,
    #[error("bet not found")]
    BetNotFound,
    #[error("this bet is {status}; only an open bet can be surrendered")]
    BetClosed { status: String },
    #[error("the round is not over: its recall waits for settlement or a void")]
    NotOver,
    #[error(transparent)]
    Ledger(#[from] LedgerError),
    #[error(transparent)]
    Store(#[from] diesel::result::Error),
    #[error("stored Peg Leg round is inconsistent: {0}")]
    Corrupt(String),
}

type Result<T, E = PegLegRoundError> = std::result::Result<T, E>;

// ---------------------------------------------------------------------------
// Stored rows
// ---------------------------------------------------------------------------

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum PegLegStatus {
    /// Open, no card dealt: client seeds are taken.
    Seeding,
    /// Cards are being dealt; bets and surrenders are taken between them.
    Dealing,
    Settled,
    Voided,
}

impl PegLegStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            PegLegStatus::Seeding => "seeding",
            PegLegStatus::Dealing => "dealing",
            PegLegStatus::Settled => "settled",
            PegLegStatus::Voided => "voided",
        }
    }
    fn parse(text: &str) -> Result<PegLegStatus> {
        [
            PegLegStatus::Seeding,
            PegLegStatus::Dealing,
            PegLegStatus::Settled,
            PegLegStatus::Voided,
        ]
        .into_iter()
        .find(|s| s.as_str() == text)
        .ok_or_else(|| PegLegRoundError::Corrupt(format!("status {text}")))
    }
    /// The seed and everything derived from it may be shown.
    pub fn is_over(self) -> bool {
        matches!(self, PegLegStatus::Settled | PegLegStatus::Voided)
    }
}

#[derive(Queryable, Selectable, Debug, Clone)]
#[diesel(table_name = r)]
pub struct PegLegRoundRow {
    pub id: String,
    pub table_id: String,
    pub number: i64,
    pub status: String,
    pub config: String,
    pub commitment: String,
    pub server_seed_sealed: String,
    pub client_seed: Option<String>,
    pub revealed_server_seed: Option<String>,
    pub cards_dealt: i32,
    pub window_closes_at_us: Option<i64>,
    pub final_count: Option<i32>,
    pub version: i64,
    pub created_by: String,
    pub created_at_us: i64,
    pub updated_at_us: i64,
}

impl PegLegRoundRow {
    pub fn status(&self) -> Result<PegLegStatus> {
        PegLegStatus::parse(&self.status)
    }
    pub fn config(&self) -> Result<PegLegConfig> {
        serde_json::from_str(&self.config).map_err(|e| PegLegRoundError::Corrupt(format!("config: {e}")))
    }
    fn require(&self, allowed: &[PegLegStatus], action: &'static str) -> Result<PegLegStatus> {
        let status = self.status()?;
        if allowed.contains(&status) {
            Ok(status)
        } else {
            Err(PegLegRoundError::WrongState {
                action,
                status: self.status.clone(),
            })
        }
    }
    fn cards_dealt(&self) -> usize {
        self.cards_dealt.clamp(0, PASS_CARDS as i32) as usize
    }
}

#[derive(Queryable, Selectable, Debug, Clone)]
#[diesel(table_name = q)]
pub struct QuoteRow {
    pub id: String,
    pub round_id: String,
    pub cards_dealt: i32,
    pub quote: String,
    pub distribution: String,
    pub simulation_seed: Option<String>,
    pub created_at_us: i64,
}

impl QuoteRow {
    /// The quote with the distribution its surrender values come from.
    pub fn quote(&self) -> Result<Quote> {
        let mut quote: Quote =
            serde_json::from_str(&self.quote).map_err(|e| PegLegRoundError::Corrupt(format!("quote: {e}")))?;
        let stored: StoredDistribution = serde_json::from_str(&self.distribution)
            .map_err(|e| PegLegRoundError::Corrupt(format!("distribution: {e}")))?;
        quote.distribution = Some(stored.into_distribution()?);
        Ok(quote)
    }
}

/// A quote's distribution as stored, bit for bit: order counts (beyond JSON's safe
/// integers) as decimal strings and the simulated bounds as their IEEE-754 bits, so a
/// surrender is valued on exactly the numbers the quote was priced on.
#[derive(Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
enum StoredDistribution {
    Exact {
        orders: Vec<String>,
        total: String,
        states: usize,
    },
    Simulated {
        hits: Vec<u64>,
        samples: u64,
        delta_bits: u64,
        lower_bits: Vec<u64>,
        upper_bits: Vec<u64>,
    },
}

impl StoredDistribution {
    fn of(dist: &Distribution) -> StoredDistribution {
        match dist {
            Distribution::Exact { orders, total, states } => StoredDistribution::Exact {
                orders: orders.iter().map(u128::to_string).collect(),
                total: total.to_string(),
                states: *states,
            },
            Distribution::Simulated {
                hits,
                samples,
                delta,
                lower,
                upper,
            } => StoredDistribution::Simulated {
                hits: hits.to_vec(),
                samples: *samples,
                delta_bits: delta.to_bits(),
                lower_bits: lower.iter().map(|x| x.to_bits()).collect(),
                upper_bits: upper.iter().map(|x| x.to_bits()).collect(),
            },
        }
    }

    fn into_distribution(self) -> Result<Distribution> {
        let corrupt = |what: &str| PegLegRoundError::Corrupt(format!("stored distribution: {what}"));
        Ok(match self {
            StoredDistribution::Exact { orders, total, states } => Distribution::Exact {
                orders: orders
                    .iter()
                    .map(|o| o.parse::<u128>())
                    .collect::<std::result::Result<Vec<_>, _>>()
                    .map_err(|_| corrupt("orders"))?
                    .try_into()
                    .map_err(|_| corrupt("orders"))?,
                total: total.parse().map_err(|_| corrupt("total"))?,
                states,
            },
            StoredDistribution::Simulated {
                hits,
                samples,
                delta_bits,
                lower_bits,
                upper_bits,
            } => {
                let floats = |bits: Vec<u64>| -> Result<[f64; engine::COUNTS]> {
                    bits.into_iter()
                        .map(f64::from_bits)
                        .collect::<Vec<_>>()
                        .try_into()
                        .map_err(|_| corrupt("bounds"))
                };
                Distribution::Simulated {
                    hits: hits.try_into().map_err(|_| corrupt("hits"))?,
                    samples,
                    delta: f64::from_bits(delta_bits),
                    lower: floats(lower_bits)?,
                    upper: floats(upper_bits)?,
                }
            }
        })
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum BetStatus {
    Open,
    Surrendered,
    Won,
    Lost,
    Refunded,
}

impl BetStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            BetStatus::Open => "open",
            BetStatus::Surrendered => "surrendered",
            BetStatus::Won => "won",
            BetStatus::Lost => "lost",
            BetStatus::Refunded => "refunded",
        }
    }
    fn parse(text: &str) -> Result<BetStatus> {
        [
            BetStatus::Open,
            BetStatus::Surrendered,
            BetStatus::Won,
            BetStatus::Lost,
            BetStatus::Refunded,
        ]
        .into_iter()
        .find(|s| s.as_str() == text)
        .ok_or_else(|| PegLegRoundError::Corrupt(format!("bet status {text}")))
    }
}

#[derive(Queryable, Selectable, Insertable, Debug, Clone)]
#[diesel(table_name = b)]
pub struct BetRow {
    pub id: String,
    pub round_id: String,
    pub player_id: String,
    pub count: i32,
    pub stake_minor: i64,
    pub multiplier_cents: i64,
    pub quote_id: String,
    pub status: String,
    pub surrender_quote_id: Option<String>,
    pub returned_minor: Option<i64>,
    pub placed_at_us: i64,
    pub closed_at_us: Option<i64>,
}

pub fn find(conn: &mut AnyConnection, id: &str) -> Result<PegLegRoundRow> {
    // Ids are UUIDs: anything else is a round that does not exist.
    if uuid::Uuid::parse_str(id).is_err() {
        return Err(PegLegRoundError::RoundNotFound);
    }
    r::table
        .find(id)
        .select(PegLegRoundRow::as_select())
        .first(conn)
        .optional()?
        .ok_or(PegLegRoundError::RoundNotFound)
}

/// The round, with its row locked for the rest of the transaction (PostgreSQL; SQLite's
/// single writer already serializes).
fn lock(conn: &mut AnyConnection, id: &str) -> Result<PegLegRoundRow> {
    // The id is checked (a UUID, a round) before it enters the statement.
    find(conn, id)?;
    lock_for_update(
        conn,
        &format!("SELECT id FROM peg_leg_rounds WHERE id = '{id}' FOR UPDATE"),
    )?;
    find(conn, id)
}

/// A table's rounds, newest first.
pub fn of_table(conn: &mut AnyConnection, table_id: &str, limit: i64) -> Result<Vec<PegLegRoundRow>> {
    Ok(r::table
        .filter(r::table_id.eq(table_id))
        .order(r::created_at_us.desc())
        .limit(limit)
        .select(PegLegRoundRow::as_select())
        .load(conn)?)
}

/// The table's round not yet settled or voided, if any.
pub fn unfinished(conn: &mut AnyConnection, table_id: &str) -> Result<Option<PegLegRoundRow>> {
    Ok(r::table
        .filter(r::table_id.eq(table_id))
        .filter(r::status.eq_any([PegLegStatus::Seeding.as_str(), PegLegStatus::Dealing.as_str()]))
        .select(PegLegRoundRow::as_select())
        .first(conn)
        .optional()?)
}

pub fn bets(conn: &mut AnyConnection, round_id: &str) -> Result<Vec<BetRow>> {
    Ok(b::table
        .filter(b::round_id.eq(round_id))
        .order((b::placed_at_us.asc(), b::id.asc()))
        .select(BetRow::as_select())
        .load(conn)?)
}

pub fn quotes(conn: &mut AnyConnection, round_id: &str) -> Result<Vec<QuoteRow>> {
    Ok(q::table
        .filter(q::round_id.eq(round_id))
        .order(q::cards_dealt.asc())
        .select(QuoteRow::as_select())
        .load(conn)?)
}

/// The quote in force: the one made after the last card dealt (none before the first
/// card or after the last).
pub fn current_quote(conn: &mut AnyConnection, row: &PegLegRoundRow) -> Result<Option<QuoteRow>> {
    Ok(q::table
        .filter(q::round_id.eq(&row.id))
        .filter(q::cards_dealt.eq(row.cards_dealt))
        .select(QuoteRow::as_select())
        .first(conn)
        .optional()?)
}

fn client_seeds(conn: &mut AnyConnection, round_id: &str) -> Result<Vec<ClientSeed>> {
    let texts: Vec<String> = cs::table
        .filter(cs::round_id.eq(round_id))
        .select(cs::client_seed)
        .load(conn)?;
    texts
        .iter()
        .map(|s| ClientSeed::parse(s).map_err(|e| PegLegRoundError::Corrupt(format!("stored client seed: {e}"))))
        .collect()
}

/// The deck: shuffle-v1, game `prima_carta` (Peg Leg deals the house game's fifty cards),
/// the round id, the combined client seed.
fn deck_of(seed: &ServerSeed, round_id: &str, client_seed: &str) -> Vec<Card> {
    shuffle::shuffled_deck(seed, Game::PrimaCarta, round_id, client_seed, 10).0
}

fn open_seed(vault: &SeedVault, row: &PegLegRoundRow) -> Result<ServerSeed> {
    vault
        .open(&row.id, &row.server_seed_sealed)
        .map_err(|e| PegLegRoundError::Corrupt(e.to_string()))
}

fn amount(minor: i64) -> Result<Amount> {
    Amount::from_minor(minor).map_err(|e| PegLegRoundError::Corrupt(e.to_string()))
}

fn refs(row: &PegLegRoundRow, player_id: &str, bet_id: &str) -> Refs {
    Refs {
        user_id: Some(player_id.to_string()),
        table_id: Some(row.table_id.clone()),
        round_id: Some(row.id.clone()),
        bet_id: Some(bet_id.to_string()),
    }
}

/// A bet's win: stake × multiplier, rounded down to the cent.
pub fn win_minor(stake_minor: i64, multiplier_cents: i64) -> i64 {
    (i128::from(stake_minor) * i128::from(multiplier_cents) / 100) as i64
}

// ---------------------------------------------------------------------------
// Pricing
// ---------------------------------------------------------------------------

/// A quote ready to be stored, with the simulation seed it was drawn from (if simulated).
#[derive(Clone, Debug)]
pub struct PricedQuote {
    pub quote: Quote,
    pub simulation_seed: Option<u64>,
}

/// Prices the position: exact when the search finishes within the budget, otherwise
/// simulated from `simulation_seed` (ChaCha8). `None` before the first card.
pub fn price(pass: &PegLegPass, config: &PricingConfig, simulation_seed: u64) -> Option<PricedQuote> {
    let mut rng = ChaCha8Rng::seed_from_u64(simulation_seed);
    let quote = engine::quote(pass, config, &mut rng)?;
    let simulated = matches!(quote.method, Method::Simulated { .. });
    Some(PricedQuote {
        quote,
        simulation_seed: simulated.then_some(simulation_seed),
    })
}

/// The exact search's memos of the rounds this process deals, by round, most recent first:
/// the next card's search finds the states the last card's search solved. A pure cache:
/// a quote is the same with or without it (another instance, or the recall's check,
/// prices from scratch). At most `MEMO_ROUNDS` rounds are kept.
static MEMOS: std::sync::Mutex<Vec<(String, engine::ExactMemo)>> = std::sync::Mutex::new(Vec::new());
const MEMO_ROUNDS: usize = 4;

/// `price`, with the round's exact-search memo carried from its last card.
fn price_carried(
    round_id: &str,
    pass: &PegLegPass,
    config: &PricingConfig,
    simulation_seed: u64,
) -> Option<PricedQuote> {
    let mut memo = {
        let mut memos = MEMOS.lock().unwrap_or_else(|e| e.into_inner());
        match memos.iter().position(|(id, _)| id == round_id) {
            Some(at) => memos.remove(at).1,
            None => engine::ExactMemo::new(),
        }
    };
    let mut rng = ChaCha8Rng::seed_from_u64(simulation_seed);
    let quote = engine::quote_in(&mut memo, pass, config, &mut rng)?;
    let simulated = matches!(quote.method, Method::Simulated { .. });
    let mut memos = MEMOS.lock().unwrap_or_else(|e| e.into_inner());
    memos.insert(0, (round_id.to_string(), memo));
    memos.truncate(MEMO_ROUNDS);
    Some(PricedQuote {
        quote,
        simulation_seed: simulated.then_some(simulation_seed),
    })
}

fn forget_memo(round_id: &str) {
    MEMOS
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .retain(|(id, _)| id != round_id);
}

/// The next card dealt and priced, worked out before the write transaction.
#[derive(Clone, Debug)]
pub struct NextCard {
    /// Cards dealt before this one.
    pub cards_dealt_before: usize,
    /// The client seed the deck was shuffled with.
    pub client_seed: String,
    pub step: CardStep,
    /// The quote after it; none after the last card.
    pub quote: Option<PricedQuote>,
    /// The final count, after the last card.
    pub final_count: Option<u8>,
}

fn next_card(seed: &ServerSeed, row: &PegLegRoundRow, client_seed: &str, config: &PegLegConfig) -> Result<NextCard> {
    let deck = deck_of(seed, &row.id, client_seed);
    let dealt = row.cards_dealt();
    if dealt >= PASS_CARDS {
        return Err(PegLegRoundError::WrongState {
            action: "deal",
            status: row.status.clone(),
        });
    }
    let mut pass = PegLegPass::from_dealt(&deck[..dealt]).map_err(|e| PegLegRoundError::Corrupt(e.to_string()))?;
    let step = pass
        .deal(deck[dealt])
        .map_err(|e| PegLegRoundError::Corrupt(e.to_string()))?;
    let quote = if pass.is_over() {
        forget_memo(&row.id);
        None
    } else {
        price_carried(&row.id, &pass, &config.pricing(), rand::rngs::OsRng.next_u64())
    };
    Ok(NextCard {
        cards_dealt_before: dealt,
        client_seed: client_seed.to_string(),
        step,
        quote,
        final_count: pass.final_count(),
    })
}

/// Works out the next card of the round as it stands now, outside any write transaction
/// (pricing takes milliseconds). `None` when the round cannot be dealt now: the write
/// transaction then gives the reason.
pub fn prepare_next_card(conn: &mut AnyConnection, vault: &SeedVault, round_id: &str) -> Option<NextCard> {
    let row = find(conn, round_id).ok()?;
    let status = row.status().ok()?;
    let client_seed = match status {
        PegLegStatus::Seeding => shuffle::combined_client_seed(&client_seeds(conn, &row.id).ok()?),
        PegLegStatus::Dealing => row.client_seed.clone()?,
        _ => return None,
    };
    let seed = open_seed(vault, &row).ok()?;
    next_card(&seed, &row, &client_seed, &row.config().ok()?).ok()
}

// ---------------------------------------------------------------------------
// Operations
// ---------------------------------------------------------------------------

/// Opens a round at an open Peg Leg table: draws and seals the server seed and publishes
/// its commitment before any seed or bet is taken.
pub fn create_round(
    conn: &mut AnyConnection,
    vault: &SeedVault,
    table: &Table,
    dealer_id: &str,
) -> Result<PegLegRoundRow> {
    let TableConfig::PegLeg(config) = &table.config else {
        return Err(PegLegRoundError::WrongGame);
    };
    if !table.is_open() {
        return Err(PegLegRoundError::TableClosed);
    }
    if let Some(open) = unfinished(conn, &table.id)? {
        return Err(PegLegRoundError::RoundInProgress { round_id: open.id });
    }
    let id = new_id();
    let seed = SeedVault::draw_seed();
    let now = now_us();
    ledger::refuse_if_closed(conn, now)?;
    let last: Option<i64> = r::table
        .filter(r::table_id.eq(&table.id))
        .select(diesel::dsl::max(r::number))
        .first(conn)?;
    let inserted = diesel::insert_into(r::table)
        .values((
            r::id.eq(&id),
            r::table_id.eq(&table.id),
            r::number.eq(last.unwrap_or(0) + 1),
            r::status.eq(PegLegStatus::Seeding.as_str()),
            r::config.eq(serde_json::to_string(config).expect("configs serialize")),
            r::commitment.eq(shuffle::commitment(&seed)),
            r::server_seed_sealed.eq(vault.seal(&id, &seed)),
            r::cards_dealt.eq(0),
            r::version.eq(0i64),
            r::created_by.eq(dealer_id),
            r::created_at_us.eq(now),
            r::updated_at_us.eq(now),
        ))
        .execute(conn);
    match inserted {
        Ok(_) => {}
        // Another round was opened at the same instant.
        Err(diesel::result::Error::DatabaseError(diesel::result::DatabaseErrorKind::UniqueViolation, _)) => {
            let open = unfinished(conn, &table.id)?.map(|row| row.id).unwrap_or_default();
            return Err(PegLegRoundError::RoundInProgress { round_id: open });
        }
        Err(other) => return Err(other.into()),
    }
    accounts::ensure(conn, &AccountId::escrow(&id), None)?;
    find(conn, &id)
}

/// A player's client seed, taken until the first card (one per player).
pub fn give_client_seed(
    conn: &mut AnyConnection,
    round_id: &str,
    player_id: &str,
    client_seed: &ClientSeed,
) -> Result<PegLegRoundRow> {
    let row = lock(conn, round_id)?;
    row.require(&[PegLegStatus::Seeding], "give a client seed")?;
    let given: i64 = cs::table
        .filter(cs::round_id.eq(round_id))
        .filter(cs::player_id.eq(player_id))
        .count()
        .get_result(conn)?;
    if given > 0 {
        return Err(PegLegRoundError::SeedAlreadyGiven);
    }
    diesel::insert_into(cs::table)
        .values((
            cs::round_id.eq(round_id),
            cs::player_id.eq(player_id),
            cs::client_seed.eq(client_seed.as_str()),
            cs::submitted_at_us.eq(now_us()),
        ))
        .execute(conn)?;
    find(conn, round_id)
}

/// What dealing a card did.
#[derive(Clone, Debug)]
pub struct Dealt {
    pub row: PegLegRoundRow,
    pub step: CardStep,
}

/// Deals the next card. `prepared` is used when it was worked out from the round as it
/// still stands; otherwise the card is worked out here. The first card fixes the client
/// seed; every later one but the last is priced; the last settles the round.
pub fn deal(conn: &mut AnyConnection, vault: &SeedVault, round_id: &str, prepared: Option<NextCard>) -> Result<Dealt> {
    let row = lock(conn, round_id)?;
    let status = row.require(&[PegLegStatus::Seeding, PegLegStatus::Dealing], "deal")?;
    let now = now_us();
    ledger::refuse_if_closed(conn, now)?;
    if let Some(closes_at_us) = row.window_closes_at_us {
        if now < closes_at_us {
            return Err(PegLegRoundError::WindowOpen { closes_at_us });
        }
    }
    let client_seed = match status {
        PegLegStatus::Seeding => shuffle::combined_client_seed(&client_seeds(conn, &row.id)?),
        _ => row
            .client_seed
            .clone()
            .ok_or_else(|| PegLegRoundError::Corrupt("a round dealing without its client seed".into()))?,
    };
    let config = row.config()?;
    let next = match prepared {
        Some(p) if p.cards_dealt_before == row.cards_dealt() && p.client_seed == client_seed => p,
        _ => next_card(&open_seed(vault, &row)?, &row, &client_seed, &config)?,
    };
    let cards_dealt = next.cards_dealt_before as i32 + 1;
    if let Some(priced) = &next.quote {
        let dist = priced
            .quote
            .distribution
            .as_ref()
            .expect("a fresh quote keeps its distribution");
        diesel::insert_into(q::table)
            .values((
                q::id.eq(new_id()),
                q::round_id.eq(&row.id),
                q::cards_dealt.eq(cards_dealt),
                q::quote.eq(serde_json::to_string(&priced.quote).expect("quotes serialize")),
                q::distribution
                    .eq(serde_json::to_string(&StoredDistribution::of(dist)).expect("distributions serialize")),
                q::simulation_seed.eq(priced.simulation_seed.map(|s| s.to_string())),
                q::created_at_us.eq(now),
            ))
            .execute(conn)?;
    }
    let window = (config.betting_window_ms > 0 && next.quote.is_some())
        .then(|| now + i64::from(config.betting_window_ms) * 1_000);
    diesel::update(r::table.find(&row.id))
        .set((
            r::status.eq(PegLegStatus::Dealing.as_str()),
            r::client_seed.eq(&client_seed),
            r::cards_dealt.eq(cards_dealt),
            r::window_closes_at_us.eq(window),
            r::version.eq(row.version + 1),
            r::updated_at_us.eq(now),
        ))
        .execute(conn)?;
    if let Some(final_count) = next.final_count {
        let dealt = find(conn, round_id)?;
        settle(conn, vault, &dealt, final_count)?;
    }
    Ok(Dealt {
        row: find(conn, round_id)?,
        step: next.step,
    })
}

/// Settles every open bet on the final count and reveals the seed.
fn settle(conn: &mut AnyConnection, vault: &SeedVault, row: &PegLegRoundRow, final_count: u8) -> Result<()> {
    let now = now_us();
    let escrow = AccountId::escrow(&row.id);
    let mut specs = Vec::new();
    for bet in bets(conn, &row.id)? {
        if BetStatus::parse(&bet.status)? != BetStatus::Open {
            continue;
        }
        let r = refs(row, &bet.player_id, &bet.id);
        let wallet = AccountId::wallet(&bet.player_id);
        let stake = amount(bet.stake_minor)?;
        let (status, returned) = if bet.count == i32::from(final_count) {
            let win = win_minor(bet.stake_minor, bet.multiplier_cents);
            specs.push(
                TransferSpec::new(escrow.clone(), wallet.clone(), stake, TransferKind::BetReturned).refs(r.clone()),
            );
            if win > bet.stake_minor {
                specs.push(
                    TransferSpec::new(
                        AccountId::house_bankroll(),
                        wallet,
                        amount(win - bet.stake_minor)?,
                        TransferKind::BetPayout,
                    )
                    .refs(r),
                );
            }
            (BetStatus::Won, win)
        } else {
            specs.push(
                TransferSpec::new(
                    escrow.clone(),
                    AccountId::house_bankroll(),
                    stake,
                    TransferKind::BetCollected,
                )
                .refs(r),
            );
            (BetStatus::Lost, 0)
        };
        close_bet(conn, &bet.id, status, None, returned, now)?;
    }
    ledger::post(conn, &specs)?;
    finish(conn, vault, row, PegLegStatus::Settled, Some(final_count), now)?;
    assert_escrow_empty(conn, row)
}

fn close_bet(
    conn: &mut AnyConnection,
    bet_id: &str,
    status: BetStatus,
    surrender_quote_id: Option<&str>,
    returned_minor: i64,
    now: i64,
) -> Result<()> {
    diesel::update(b::table.find(bet_id))
        .set((
            b::status.eq(status.as_str()),
            b::surrender_quote_id.eq(surrender_quote_id),
            b::returned_minor.eq(returned_minor),
            b::closed_at_us.eq(now),
        ))
        .execute(conn)?;
    Ok(())
}

fn finish(
    conn: &mut AnyConnection,
    vault: &SeedVault,
    row: &PegLegRoundRow,
    status: PegLegStatus,
    final_count: Option<u8>,
    now: i64,
) -> Result<()> {
    let seed = open_seed(vault, row)?;
    diesel::update(r::table.find(&row.id))
        .set((
            r::status.eq(status.as_str()),
            r::revealed_server_seed.eq(seed.to_hex()),
            r::final_count.eq(final_count.map(i32::from)),
            r::window_closes_at_us.eq(None::<i64>),
            r::version.eq(row.version + 1),
            r::updated_at_us.eq(now),
        ))
        .execute(conn)?;
    Ok(())
}

/// Every stake in escrow has gone back to its player or to the house.
fn assert_escrow_empty(conn: &mut AnyConnection, row: &PegLegRoundRow) -> Result<()> {
    let held = accounts::balance_minor(conn, &AccountId::escrow(&row.id))?;
    if held != 0 {
        return Err(PegLegRoundError::Corrupt(format!(
            "the round's escrow holds {} after it ended",
            format_minor(held)
        )));
    }
    Ok(())
}

/// Voids a round not yet over (pit boss): every open bet's stake goes back; surrendered
/// bets stand. The seed is revealed. A significant event.
pub fn void(
    conn: &mut AnyConnection,
    vault: &SeedVault,
    round_id: &str,
    actor_id: &str,
    reason: &str,
) -> Result<PegLegRoundRow> {
    let row = lock(conn, round_id)?;
    row.require(&[PegLegStatus::Seeding, PegLegStatus::Dealing], "void")?;
    let now = now_us();
    ledger::refuse_if_closed(conn, now)?;
    let mut specs = Vec::new();
    let mut refunded = 0usize;
    for bet in bets(conn, &row.id)? {
        if BetStatus::parse(&bet.status)? != BetStatus::Open {
            continue;
        }
        specs.push(
            TransferSpec::new(
                AccountId::escrow(&row.id),
                AccountId::wallet(&bet.player_id),
                amount(bet.stake_minor)?,
                TransferKind::BetRefund,
            )
            .refs(refs(&row, &bet.player_id, &bet.id)),
        );
        close_bet(conn, &bet.id, BetStatus::Refunded, None, bet.stake_minor, now)?;
        refunded += 1;
    }
    ledger::post(conn, &specs)?;
    finish(conn, vault, &row, PegLegStatus::Voided, None, now)?;
    assert_escrow_empty(conn, &row)?;
    significant_events::record(
        conn,
        EventKind::RoundVoided,
        Some(actor_id),
        Some(&row.id),
        serde_json::json!({ "game": "peg_leg", "table_id": row.table_id, "reason": reason,
            "cards_dealt": row.cards_dealt, "bets_refunded": refunded }),
    )?;
    find(conn, round_id)
}

#[cfg(test)]
mod tests {
    use super::*;

    const ROUND: &str = "01935a2c-0000-7000-8000-000000000001";

    #[test]
    fn a_stored_distribution_reads_back_bit_for_bit() {
        let seed = ServerSeed::from_bytes([3; 32]);
        let deck = deck_of(&seed, ROUND, "");
        for dealt in [1, 45] {
            let pass = PegLegPass::from_dealt(&deck[..dealt]).unwrap();
            let dist = price(&pass, &PricingConfig::default(), 5)
                .unwrap()
                .quote
                .distribution
                .unwrap();
            let text = serde_json::to_string(&StoredDistribution::of(&dist)).unwrap();
            let back = serde_json::from_str::<StoredDistribution>(&text)
                .unwrap()
                .into_distribution()
                .unwrap();
            assert_eq!(back, dist);
        }
    }
}
