//! The house's Fuerza at a Jasper Prima Carta round (docs/confidence-bets.md): quotes on each
//! seated player who paid the copa, from the first pass on; a bet at the price of the quote it
//! names; settlement with the round.
//!
//! A quote is drawn again from public data (the first pass and the round's id and copa
//! decisions, `games::prima_carta::fuerza`), so nothing is stored but the bet and the counts it
//! was priced on; the last few are cached in memory because a quote costs tens of milliseconds.
//! A bet runs in the caller's write transaction behind the round's row lock, so a copa decision
//! that changes the quote and a bet on the old one apply in one order: the bet is then refused
//! as stale.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use diesel::prelude::*;
use serde::Serialize;
use utoipa::ToSchema;

use super::{deal_of, decisions, round_config, seats, SeatRow};
use crate::cards::Suit;
use crate::domain::{format_minor, Amount};
use crate::games::prima_carta::fuerza::{self as engine, price_text, Position, Quote};
use crate::games::prima_carta::{first_pass, RoundResult, Variant};
use crate::ledger::{self, AccountId, LedgerError, Refs, TransferKind, TransferSpec};
use crate::rounds::record::{RoundRow, RoundStatus};
use crate::rounds::seed_vault::SeedVault;
use crate::store::schema::fuerza_bets as fb;
use crate::store::{new_id, now_us, AnyConnection};

/// Why a Fuerza request was refused. Nothing moved.
#[derive(Debug, thiserror::Error)]
pub enum FuerzaError {
    #[error("{0}")]
    NotQuoted(String),
    #[error("the quote has moved on: you named the one after {asked} copa decisions, and {current} have been made; look again and bet on the new price")]
    StaleQuote { asked: u32, current: u32 },
    #[error("the price on this quote is {now}, not {asked}; look again")]
    StalePrice { asked: String, now: String },
    #[error("{0}")]
    NoPrice(String),
    #[error("{0}")]
    NotAllowed(String),
    #[error("{0}")]
    StakeOutOfRange(String),
    #[error("the stake is {needed}; the wallet holds {balance}")]
    InsufficientFunds { needed: String, balance: String },
    #[error(transparent)]
    Protection(crate::protection::Refusal),
    #[error(transparent)]
    Ledger(LedgerError),
    #[error(transparent)]
    Database(#[from] diesel::result::Error),
    #[error("{0}")]
    Corrupt(String),
}

type Result<T> = std::result::Result<T, FuerzaError>;

impl From<LedgerError> for FuerzaError {
    fn from(e: LedgerError) -> FuerzaError {
        match e {
            LedgerError::InsufficientFunds { balance, needed, .. } => {
                FuerzaError::InsufficientFunds { needed, balance }
            }
            other => FuerzaError::Ledger(other),
        }
    }
}

impl From<crate::protection::AdmitError> for FuerzaError {
    fn from(e: crate::protection::AdmitError) -> FuerzaError {
        match e {
            crate::protection::AdmitError::Refused(r) => FuerzaError::Protection(r),
            crate::protection::AdmitError::Db(d) => d.into(),
        }
    }
}

#[derive(Queryable, Selectable, Insertable, Debug, Clone)]
#[diesel(table_name = fb)]
pub struct FuerzaBetRow {
    pub id: String,
    pub round_id: String,
    pub player_id: String,
    pub suit: String,
    pub stake_minor: i64,
    pub quote_decisions: i32,
    pub quote_samples: i32,
    pub quote_wins: i32,
    pub quote_wins_if_all_pay: i32,
    pub price_hundredths: i32,
    pub status: String,
    pub returned_minor: i64,
    pub placed_at_us: i64,
    pub settled_at_us: Option<i64>,
}

impl FuerzaBetRow {
    pub fn suit(&self) -> Result<Suit> {
        Suit::parse(&self.suit)
            .ok_or_else(|| FuerzaError::Corrupt(format!("stored suit of {}: {}", self.id, self.suit)))
    }
}

/// The quotes of a round now: which copa decision they follow and each paid player's.
#[derive(Clone, Debug)]
pub struct Quotes {
    /// The number of copa decisions made: the quote's version, which a bet names.
    pub version: u32,
    /// Players still to decide (their decisions can only raise a paid player's chance).
    pub undecided: Vec<Suit>,
    pub quotes: Vec<Quote>,
}

/// One player's quote as the API shows it.
#[derive(Serialize, ToSchema, Debug, Clone)]
pub struct QuoteView {
    #[schema(value_type = String, example = "crowns")]
    pub suit: Suit,
    /// The estimated chance that this player wins the main game whatever the players still to
    /// decide do, to four decimals (wins ÷ samples).
    #[schema(example = "0.3512")]
    pub chance: String,
    /// The chance if everyone still to decide pays the copa too (equal to `chance` once the copa
    /// is over).
    #[schema(example = "0.3011")]
    pub chance_if_all_pay: String,
    pub wins: u32,
    pub wins_if_all_pay: u32,
    /// Decimal odds, the stake included (10.00 at 2.85 returns 28.50); absent when the house
    /// offers no price on this player.
    #[schema(example = "2.85")]
    pub price: Option<String>,
}

/// A round's Fuerza: the quotes, or why there are none.
#[derive(Serialize, ToSchema, Debug, Clone)]
pub struct FuerzaView {
    /// Whether the house takes Fuerza bets on this round now.
    pub open: bool,
    /// Why not, in words, when it does not.
    pub reason: Option<String>,
    /// The quote's version: the number of copa decisions it follows. A bet names it.
    pub version: Option<u32>,
    #[schema(example = "fuerza-quote-v1")]
    pub algorithm: &'static str,
    /// Orders of the discard pile drawn per quote.
    pub samples: u32,
    /// What a price returns on the estimated chance, in basis points (9500: a 5% house edge).
    pub return_bp: u32,
    /// The players still to decide, whose decisions the chance does not count on.
    #[schema(value_type = Vec<String>)]
    pub undecided: Vec<Suit>,
    pub quotes: Vec<QuoteView>,
}

/// Four decimals of `wins / samples`, rounded down.
fn chance_text(wins: u32, samples: u32) -> String {
    let ten_thousandths = wins as u64 * 10_000 / samples.max(1) as u64;
    format!("{}.{:04}", ten_thousandths / 10_000, ten_thousandths % 10_000)
}

impl Quotes {
    pub fn view(&self) -> FuerzaView {
        FuerzaView {
            open: true,
            reason: None,
            version: Some(self.version),
            algorithm: engine::ALGORITHM,
            samples: engine::QUOTE_SAMPLES,
            return_bp: engine::RETURN_BP as u32,
            undecided: self.undecided.clone(),
            quotes: self
                .quotes
                .iter()
                .map(|q| QuoteView {
                    suit: q.suit,
                    chance: chance_text(q.wins, q.samples),
                    chance_if_all_pay: chance_text(q.wins_if_all_pay, q.samples),
                    wins: q.wins,
                    wins_if_all_pay: q.wins_if_all_pay,
                    price: q.price_hundredths.map(price_text),
                })
                .collect(),
        }
    }
}

impl FuerzaView {
    pub fn closed(reason: String) -> FuerzaView {
        FuerzaView {
            open: false,
            reason: Some(reason),
            version: None,
            algorithm: engine::ALGORITHM,
            samples: engine::QUOTE_SAMPLES,
            return_bp: engine::RETURN_BP as u32,
            undecided: Vec::new(),
            quotes: Vec::new(),
        }
    }
}

/// The last quotes drawn, by round and the decisions they follow (the paid and the undecided,
/// not only how many: a quote drawn inside a transaction that rolled back must not stand for a
/// different decision made later): a quote is a pure function of them, and every viewer of a
/// round asks for the same one after each decision.
type CacheKey = (String, u32, u8, u8);
fn cache() -> &'static Mutex<HashMap<CacheKey, Arc<Vec<Quote>>>> {
    static CACHE: OnceLock<Mutex<HashMap<CacheKey, Arc<Vec<Quote>>>>> = OnceLock::new();
    CACHE.get_or_init(Default::default)
}

fn mask(suits: &[Suit]) -> u8 {
    suits.iter().fold(0, |m, s| m | 1 << s.index())
}
/// Most quotes kept; the cache is emptied when full (a quote is drawn again on demand).
const CACHED_QUOTES_MAX: usize = 256;

/// The round's quotes now, or why the house quotes none.
pub fn quotes(
    conn: &mut AnyConnection,
    vault: &SeedVault,
    row: &RoundRow,
) -> Result<std::result::Result<Quotes, String>> {
    let config = round_config(row).map_err(|e| FuerzaError::Corrupt(format!("{e:?}")))?;
    if config.rules().variant != Variant::Jasper {
        return Ok(Err(
            "the house quotes a Fuerza only at Jasper tables: at a classic table the cards after the first pass are already known".into(),
        ));
    }
    let status = row.status();
    let made = decisions(row);
    let paid: Vec<Suit> = made.iter().filter(|d| d.pay).map(|d| d.suit).collect();
    match status {
        RoundStatus::Copa | RoundStatus::InPlay => {}
        _ => {
            return Ok(Err(format!(
                "the house quotes a Fuerza after the first pass until the round is settled; the round is {}",
                row.status
            )))
        }
    }
    if paid.is_empty() {
        return Ok(Err("no seated player has paid the copa yet".into()));
    }
    let deal = deal_of(vault, row).map_err(|e| FuerzaError::Corrupt(format!("{e:?}")))?;
    let first = first_pass(&deal.deck).map_err(|e| FuerzaError::Corrupt(e.to_string()))?;
    let Some(position) = Position::after(&first) else {
        return Ok(Err("a suit completed in the first pass".into()));
    };
    let version = made.len() as u32;
    let undecided: Vec<Suit> = if status == RoundStatus::Copa {
        let seated: Vec<SeatRow> = seats(conn, &row.id)?;
        seated
            .iter()
            .map(SeatRow::suit)
            .filter(|s| !made.iter().any(|d| d.suit == *s))
            .collect()
    } else {
        Vec::new()
    };
    let key = (row.id.clone(), version, mask(&paid), mask(&undecided));
    let cached = cache().lock().expect("not poisoned").get(&key).cloned();
    let quotes = match cached {
        Some(q) => q,
        None => {
            let drawn = Arc::new(engine::quotes(
                &position,
                &paid,
                &undecided,
                engine::QUOTE_SAMPLES,
                engine::quote_seed(&row.id, made.len()),
            ));
            let mut cache = cache().lock().expect("not poisoned");
            if cache.len() >= CACHED_QUOTES_MAX {
                cache.clear();
            }
            cache.insert(key, drawn.clone());
            drawn
        }
    };
    Ok(Ok(Quotes {
        version,
        undecided,
        quotes: quotes.to_vec(),
    }))
}

/// A Fuerza bet as asked for: on `suit`, at the quote `version` and the `price` the player saw.
pub struct NewFuerzaBet {
    pub suit: Suit,
    pub stake: Amount,
    pub version: u32,
    pub price_hundredths: u32,
}

fn refs(row: &RoundRow, player: &str, bet_id: &str) -> Refs {
    Refs {
        user_id: Some(player.to_owned()),
        table_id: Some(row.table_id.clone()),
        round_id: Some(row.id.clone()),
        bet_id: Some(bet_id.to_owned()),
    }
}

fn amount(minor: i64) -> Result<Amount> {
    Amount::from_minor(minor).map_err(|e| FuerzaError::Corrupt(format!("stored amount {minor}: {e}")))
}

/// The round's Fuerza bets in the order placed.
pub fn of_round(conn: &mut AnyConnection, round_id: &str) -> QueryResult<Vec<FuerzaBetRow>> {
    fb::table
        .filter(fb::round_id.eq(round_id))
        .order((fb::placed_at_us, fb::id))
        .select(FuerzaBetRow::as_select())
        .load(conn)
}

/// What the house would pay out beyond the stakes if `suit` won, over the round's open bets.
fn winnings_if(bets: &[FuerzaBetRow], suit: Suit) -> i64 {
    bets.iter()
        .filter(|b| b.status == "open" && b.suit == suit.name())
        .map(|b| engine::returned_minor(b.stake_minor, b.price_hundredths as u32) - b.stake_minor)
        .sum()
}

/// Places a bet at the current quote: refused if the quote moved on (a copa decision since),
/// if its price differs from the one the player saw, or if the house offers no price; the stake
/// moves to the round's escrow.
pub fn place(
    conn: &mut AnyConnection,
    vault: &SeedVault,
    row: &RoundRow,
    player: &str,
    new: NewFuerzaBet,
) -> Result<FuerzaBetRow> {
    let config = round_config(row).map_err(|e| FuerzaError::Corrupt(format!("{e:?}")))?;
    let current = quotes(conn, vault, row)?.map_err(FuerzaError::NotQuoted)?;
    if new.version != current.version {
        return Err(FuerzaError::StaleQuote {
            asked: new.version,
            current: current.version,
        });
    }
    let quote = current.quotes.iter().find(|q| q.suit == new.suit).ok_or_else(|| {
        FuerzaError::NoPrice(format!(
            "{} has not paid the copa: the house quotes only players who have",
            new.suit
        ))
    })?;
    let Some(price) = quote.price_hundredths else {
        return Err(FuerzaError::NoPrice(format!(
            "the house offers no price on {} at this quote (a chance above 95% or below 2%)",
            new.suit
        )));
    };
    if price != new.price_hundredths {
        return Err(FuerzaError::StalePrice {
            asked: price_text(new.price_hundredths),
            now: price_text(price),
        });
    }
    // A seated player still to decide could sway the round with their decision.
    let seated = seats(conn, &row.id)?;
    if let Some(own) = seated.iter().find(|s| s.player_id == player) {
        if current.undecided.contains(&own.suit()) {
            return Err(FuerzaError::NotAllowed(
                "decide your own copa first: a seated player bets a Fuerza only once their decision is made".into(),
            ));
        }
    }
    if new.stake < config.min_bet || new.stake > config.max_bet {
        return Err(FuerzaError::StakeOutOfRange(format!(
            "the stake {} is outside the table's limits, {} to {}",
            new.stake, config.min_bet, config.max_bet
        )));
    }
    let open = of_round(conn, &row.id)?;
    let winnings = engine::returned_minor(new.stake.minor(), price) - new.stake.minor();
    let exposure = winnings_if(&open, new.suit) + winnings;
    if exposure > config.max_exposure_per_round.minor() {
        return Err(FuerzaError::StakeOutOfRange(format!(
            "the house would owe {} on {} winning, over the round's limit of {}",
            format_minor(exposure),
            new.suit,
            config.max_exposure_per_round
        )));
    }
    let now = now_us();
    crate::protection::admit(conn, player, crate::protection::Play::Stake(new.stake.minor()), now)?;
    let bet = FuerzaBetRow {
        id: new_id(),
        round_id: row.id.clone(),
        player_id: player.to_owned(),
        suit: new.suit.name().to_owned(),
        stake_minor: new.stake.minor(),
        quote_decisions: current.version as i32,
        quote_samples: quote.samples as i32,
        quote_wins: quote.wins as i32,
        quote_wins_if_all_pay: quote.wins_if_all_pay as i32,
        price_hundredths: price as i32,
        status: "open".into(),
        returned_minor: 0,
        placed_at_us: now,
        settled_at_us: None,
    };
    diesel::insert_into(fb::table).values(&bet).execute(conn)?;
    ledger::post(
        conn,
        &[TransferSpec::new(
            AccountId::wallet(player),
            AccountId::escrow(&row.id),
            new.stake,
            TransferKind::BetStake,
        )
        .refs(refs(row, player, &bet.id))
        .memo(format!("Fuerza on {} at {}", new.suit, price_text(price)))],
    )?;
    Ok(bet)
}

/// Settles every open Fuerza bet on the main game's winner: a winning stake returns at its
/// price (the winnings from the house bankroll), a losing one goes to the bankroll.
pub fn settle_round(conn: &mut AnyConnection, row: &RoundRow, result: &RoundResult) -> Result<()> {
    let open: Vec<FuerzaBetRow> = of_round(conn, &row.id)?
        .into_iter()
        .filter(|b| b.status == "open")
        .collect();
    let mut specs = Vec::with_capacity(open.len() * 2);
    let now = now_us();
    for bet in &open {
        let escrow = AccountId::escrow(&row.id);
        let wallet = AccountId::wallet(&bet.player_id);
        let r = refs(row, &bet.player_id, &bet.id);
        let stake = amount(bet.stake_minor)?;
        let (status, returned) = if bet.suit()? == result.winner {
            let returned = engine::returned_minor(bet.stake_minor, bet.price_hundredths as u32);
            specs.push(TransferSpec::new(escrow, wallet.clone(), stake, TransferKind::BetReturned).refs(r.clone()));
            specs.push(
                TransferSpec::new(
                    AccountId::house_bankroll(),
                    wallet,
                    amount(returned - bet.stake_minor)?,
                    TransferKind::BetPayout,
                )
                .refs(r),
            );
            ("won", returned)
        } else {
            specs.push(
                TransferSpec::new(escrow, AccountId::house_bankroll(), stake, TransferKind::BetCollected).refs(r),
            );
            ("lost", 0)
        };
        diesel::update(fb::table.find(&bet.id))
            .set((
                fb::status.eq(status),
                fb::returned_minor.eq(returned),
                fb::settled_at_us.eq(now),
            ))
            .execute(conn)?;
    }
    ledger::post(conn, &specs)?;
    Ok(())
}

/// A voided round hands every open stake back. (A round is voided only before the deal, when
/// no Fuerza is quoted; this keeps the escrow's invariant whatever the order of events.)
pub fn refund_round(conn: &mut AnyConnection, row: &RoundRow) -> Result<()> {
    let open: Vec<FuerzaBetRow> = of_round(conn, &row.id)?
        .into_iter()
        .filter(|b| b.status == "open")
        .collect();
    let mut specs = Vec::with_capacity(open.len());
    for bet in &open {
        specs.push(
            TransferSpec::new(
                AccountId::escrow(&row.id),
                AccountId::wallet(&bet.player_id),
                amount(bet.stake_minor)?,
                TransferKind::BetRefund,
            )
            .refs(refs(row, &bet.player_id, &bet.id)),
        );
        diesel::update(fb::table.find(&bet.id))
            .set((
                fb::status.eq("refunded"),
                fb::returned_minor.eq(bet.stake_minor),
                fb::settled_at_us.eq(now_us()),
            ))
            .execute(conn)?;
    }
    ledger::post(conn, &specs)?;
    Ok(())
}

/// A Fuerza bet as the API shows it (the bettor by account id to themselves and to staff).
#[derive(Serialize, ToSchema, Debug, Clone)]
pub struct FuerzaBetView {
    pub id: String,
    /// The bettor by pseudonym, as the round names its parties.
    pub player: String,
    /// The bettor's account id, to themselves and to staff.
    pub player_id: Option<String>,
    #[schema(example = "crowns")]
    pub suit: String,
    #[schema(example = "10.00")]
    pub stake: String,
    #[schema(example = "2.85")]
    pub price: String,
    /// The quote it was placed on: its version (copa decisions made) and counts.
    pub quote_version: u32,
    pub quote_wins: u32,
    pub quote_samples: u32,
    /// `open`, `won`, `lost` or `refunded`.
    pub status: String,
    /// What came back (the stake included); 0.00 until settled and when lost.
    pub returned: String,
    /// What a win would return.
    pub returns_if_won: String,
}

impl FuerzaBetRow {
    pub fn view(&self, names: &mut crate::transcript::Pseudonyms, viewer: &crate::transcript::Viewer) -> FuerzaBetView {
        FuerzaBetView {
            id: self.id.clone(),
            player: names.of(&self.player_id),
            player_id: viewer.sees(&self.player_id).then(|| self.player_id.clone()),
            suit: self.suit.clone(),
            stake: format_minor(self.stake_minor),
            price: price_text(self.price_hundredths as u32),
            quote_version: self.quote_decisions as u32,
            quote_wins: self.quote_wins as u32,
            quote_samples: self.quote_samples as u32,
            status: self.status.clone(),
            returned: format_minor(self.returned_minor),
            returns_if_won: format_minor(engine::returned_minor(self.stake_minor, self.price_hundredths as u32)),
        }
    }
}
