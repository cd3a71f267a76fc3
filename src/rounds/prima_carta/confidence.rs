//! Confidence bets between players at a Prima Carta round (docs/confidence-bets.md): offers,
//! acceptances, withdrawals, refusals and expiries, and the money of each through the ledger.
//!
//! The offerer's stake moves to the round's escrow with the offer, the taker's with the
//! acceptance; an offer that ends unaccepted hands the offerer's stake back. When the round is
//! settled each accepted bet is settled by the engine's terms (`games::prima_carta::confidence`)
//! from the round's outcome: both stakes to the winner less the house's commission on the gain.
//! A voided round hands every stake back. Every operation runs in the caller's write transaction
//! after the round's row lock, so an offer, an acceptance and the phase change that ends its
//! window apply in one order, once.

use diesel::prelude::*;
use serde::Serialize;
use utoipa::ToSchema;

use super::{decisions, seats, SeatRow};
use crate::domain::{format_minor, Amount};
use crate::games::prima_carta::confidence::{self as rules, Commission, Outcome, Settlement, Side, Terms, Window};
use crate::ledger::{self, AccountId, LedgerError, Refs, TransferKind, TransferSpec};
use crate::rounds::record::{RoundRow, RoundStatus};
use crate::store::schema::confidence_bets as cb;
use crate::store::{new_id, now_us, AnyConnection};
use crate::tables::config::PrimaCartaConfig;
use crate::transcript::{Pseudonyms, Viewer};

mod settlement;
mod view;
pub use settlement::{on_copa_decision, outcome_of, refund_round, settle_round};
pub use view::{views, ConfidenceBetView, PartyView};

/// Most offers one player may have open (not yet accepted) in one round: a flood of offers
/// holds their own money, but each is a row every viewer of the round reads.
pub const MAX_OPEN_OFFERS_PER_PLAYER: i64 = 10;

/// Why a confidence-bet request was refused. Nothing moved.
#[derive(Debug, thiserror::Error)]
pub enum ConfidenceError {
    #[error("confidence bet not found")]
    NotFound,
    #[error("{0}")]
    BadTerms(String),
    #[error("this kind of bet is offered {window}; the round is {status}")]
    WindowClosed { window: &'static str, status: String },
    #[error("{0}")]
    NotAllowed(String),
    #[error("the offer is {status}: only an open offer can be {action}")]
    NotOpen { status: String, action: &'static str },
    #[error("{0}")]
    StakeOutOfRange(String),
    #[error("you already have {MAX_OPEN_OFFERS_PER_PLAYER} open offers in this round; withdraw one first")]
    TooManyOffers,
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

type Result<T> = std::result::Result<T, ConfidenceError>;

impl From<LedgerError> for ConfidenceError {
    fn from(e: LedgerError) -> ConfidenceError {
        match e {
            LedgerError::InsufficientFunds { balance, needed, .. } => {
                ConfidenceError::InsufficientFunds { needed, balance }
            }
            other => ConfidenceError::Ledger(other),
        }
    }
}

impl From<crate::protection::AdmitError> for ConfidenceError {
    fn from(e: crate::protection::AdmitError) -> ConfidenceError {
        match e {
            crate::protection::AdmitError::Refused(r) => ConfidenceError::Protection(r),
            crate::protection::AdmitError::Db(d) => d.into(),
        }
    }
}

/// Where a bet stands.
#[derive(Serialize, ToSchema, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum BetStatus {
    /// Waiting for a taker; the offerer's stake is held.
    Offered,
    /// Both stakes held until the round is settled.
    Accepted,
    /// The offerer took the offer back.
    Withdrawn,
    /// The player it was made to refused it.
    Declined,
    /// Its window ended before anyone took it.
    Expired,
    /// Paid to the winner.
    Settled,
    /// The round's outcome voided it under its terms (Prima on the suit's 1 with that exclusion).
    Void,
    /// The round was voided.
    Refunded,
}

impl BetStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            BetStatus::Offered => "offered",
            BetStatus::Accepted => "accepted",
            BetStatus::Withdrawn => "withdrawn",
            BetStatus::Declined => "declined",
            BetStatus::Expired => "expired",
            BetStatus::Settled => "settled",
            BetStatus::Void => "void",
            BetStatus::Refunded => "refunded",
        }
    }
    fn parse(text: &str) -> Option<BetStatus> {
        [
            BetStatus::Offered,
            BetStatus::Accepted,
            BetStatus::Withdrawn,
            BetStatus::Declined,
            BetStatus::Expired,
            BetStatus::Settled,
            BetStatus::Void,
            BetStatus::Refunded,
        ]
        .into_iter()
        .find(|s| s.as_str() == text)
    }
}

#[derive(Queryable, Selectable, Insertable, Debug, Clone)]
#[diesel(table_name = cb)]
pub struct BetRow {
    pub id: String,
    pub round_id: String,
    pub terms: String,
    pub offer_window: String,
    pub offered_by: String,
    pub offerer_side: String,
    pub offered_to: Option<String>,
    pub for_stake_minor: i64,
    pub against_stake_minor: i64,
    pub status: String,
    pub accepted_by: Option<String>,
    pub winner_side: Option<String>,
    pub paid_minor: i64,
    pub commission_minor: i64,
    pub offered_at_us: i64,
    pub updated_at_us: i64,
}

impl BetRow {
    pub fn terms(&self) -> Result<Terms> {
        serde_json::from_str(&self.terms)
            .map_err(|e| ConfidenceError::Corrupt(format!("stored terms of {}: {e}", self.id)))
    }
    pub fn status(&self) -> BetStatus {
        BetStatus::parse(&self.status).unwrap_or(BetStatus::Offered)
    }
    pub fn offerer_side(&self) -> Side {
        if self.offerer_side == "for" {
            Side::For
        } else {
            Side::Against
        }
    }
    /// Who holds `side` (the taker only once accepted).
    pub fn holder(&self, side: Side) -> Option<&str> {
        if side == self.offerer_side() {
            Some(&self.offered_by)
        } else {
            self.accepted_by.as_deref()
        }
    }
    /// Who holds `side` of a bet that was taken (a stored taken bet without a taker is corrupt).
    pub fn holder_of_taken(&self, side: Side) -> Result<&str> {
        self.holder(side)
            .ok_or_else(|| ConfidenceError::Corrupt(format!("bet {} has no taker", self.id)))
    }
    pub fn stake_minor(&self, side: Side) -> i64 {
        match side {
            Side::For => self.for_stake_minor,
            Side::Against => self.against_stake_minor,
        }
    }
}

/// An offer as asked for.
pub struct NewOffer {
    pub terms: Terms,
    /// The side the offerer takes; Prima and Fuerza fix it (the seated player is against).
    pub side: Option<Side>,
    /// What the offerer stakes.
    pub stake: Amount,
    /// What the taker must stake; none for a Seguro, whose backed player stakes nothing now.
    pub taker_stake: Option<Amount>,
    /// The one player who may take it; Prima and Fuerza offered by a backer go to the seated
    /// player of the suit.
    pub to: Option<String>,
}

fn refs(row: &RoundRow, user: &str, bet_id: &str) -> Refs {
    Refs {
        user_id: Some(user.to_owned()),
        table_id: Some(row.table_id.clone()),
        round_id: Some(row.id.clone()),
        bet_id: Some(bet_id.to_owned()),
    }
}

fn amount(minor: i64) -> Result<Amount> {
    Amount::from_minor(minor).map_err(|e| ConfidenceError::Corrupt(format!("stored stake {minor}: {e}")))
}

/// The window the round is in now, if any.
fn current_window(row: &RoundRow) -> Option<Window> {
    match row.status() {
        RoundStatus::Betting => Some(Window::BeforeDeal),
        RoundStatus::Copa => Some(Window::Copa),
        _ => None,
    }
}

fn window_name(w: Window) -> &'static str {
    match w {
        Window::BeforeDeal => "before_deal",
        Window::Copa => "copa",
    }
}

fn window_text(w: Window) -> &'static str {
    match w {
        Window::BeforeDeal => "while the round is taking seats and bets",
        Window::Copa => "after the first pass, while the copa is decided",
    }
}

fn require_window(row: &RoundRow, window: Window) -> Result<()> {
    if current_window(row) == Some(window) {
        Ok(())
    } else {
        Err(ConfidenceError::WindowClosed {
            window: window_text(window),
            status: row.status.clone(),
        })
    }
}

fn seat_of(seated: &[SeatRow], player: &str) -> Option<crate::cards::Suit> {
    seated.iter().find(|s| s.player_id == player).map(SeatRow::suit)
}

/// Whether `player` may hold `side` of `terms` in this round (docs/confidence-bets.md, "Who may
/// take which side"). `paid` are the suits whose copa is paid.
fn may_hold(
    terms: &Terms,
    side: Side,
    player: &str,
    seated: &[SeatRow],
    copa: &Copa,
) -> std::result::Result<(), String> {
    let own = seat_of(seated, player);
    let paid = &copa.paid;
    if let Some(suit) = terms.centrale() {
        let centrale = seated.iter().find(|s| s.suit() == suit);
        let Some(centrale) = centrale else {
            return Err(format!(
                "nobody is seated at {suit}: a {} bet is with its seated player",
                terms.kind()
            ));
        };
        if matches!(terms, Terms::Fuerza { .. }) && !paid.contains(&suit) {
            return Err(format!(
                "a Fuerza is made only with a seated player who has paid the copa; {suit} has not"
            ));
        }
        if matches!(terms, Terms::Seguro { .. }) && copa.decided.contains(&suit) {
            return Err(format!(
                "a Seguro backs a seated player whose copa decision is still to come; {suit} has decided"
            ));
        }
        return match side {
            Side::Against if centrale.player_id == player => Ok(()),
            Side::Against => Err(format!("the side against is {suit}'s seated player's")),
            Side::For if centrale.player_id == player => {
                Err("a seated player cannot back their own suit against themselves".into())
            }
            // Another seated player backing a Fuerza would gain from their own loss.
            Side::For if matches!(terms, Terms::Fuerza { .. }) && own.is_some() => {
                Err("a Fuerza is backed only by someone not seated in the round".into())
            }
            // A Seguro's backer is a fellow seated player who has paid their own copa, so has no
            // decision left that the bet could sway.
            Side::For if matches!(terms, Terms::Seguro { .. }) => match own {
                Some(own) if paid.contains(&own) => Ok(()),
                _ => Err("a Seguro is offered by a seated player who has paid their own copa".into()),
            },
            Side::For => Ok(()),
        };
    }
    if let (Terms::Wins { suit }, Some(own)) = (terms, own) {
        // A seated player's bets on the winner must gain when they win, never when they lose:
        // otherwise a fold at the copa could win their bet.
        let gains_when_own_wins = (own == *suit) == (side == Side::For);
        if !gains_when_own_wins {
            return Err(format!(
                "you hold {own}: a bet on the winner may only be for your own suit or against another's"
            ));
        }
    }
    Ok(())
}

/// The copa so far: who has decided, and who paid.
struct Copa {
    decided: Vec<crate::cards::Suit>,
    paid: Vec<crate::cards::Suit>,
}

fn copa_of(row: &RoundRow) -> Copa {
    let made = decisions(row);
    Copa {
        decided: made.iter().map(|d| d.suit).collect(),
        paid: made.iter().filter(|d| d.pay).map(|d| d.suit).collect(),
    }
}

fn check_stake(config: &PrimaCartaConfig, stake: Amount, whose: &str) -> Result<()> {
    if stake < config.min_bet || stake > config.max_bet {
        return Err(ConfidenceError::StakeOutOfRange(format!(
            "{whose} stake {stake} is outside the table's limits, {} to {}",
            config.min_bet, config.max_bet
        )));
    }
    Ok(())
}

/// Refuses a player who is not a player, and two accounts that are one person.
fn check_parties(conn: &mut AnyConnection, offerer: &str, taker: &str) -> Result<()> {
    if offerer == taker {
        return Err(ConfidenceError::NotAllowed("you cannot take your own offer".into()));
    }
    let user = crate::users::find(conn, taker)?.ok_or(ConfidenceError::NotFound)?;
    if user.role() != crate::domain::Role::Player || !user.active {
        return Err(ConfidenceError::NotAllowed(
            "only an active player may take a confidence bet".into(),
        ));
    }
    if crate::compliance::identity::linked(conn, offerer, taker)? {
        return Err(ConfidenceError::NotAllowed(
            "the offer comes from an account held by the same person as yours (their identities on file match)".into(),
        ));
    }
    Ok(())
}

/// Makes an offer: checks its terms, window, sides and limits, and holds the offerer's stake.
pub fn offer(
    conn: &mut AnyConnection,
    row: &RoundRow,
    config: &PrimaCartaConfig,
    player: &str,
    new: NewOffer,
) -> Result<BetRow> {
    new.terms
        .check()
        .map_err(|e| ConfidenceError::BadTerms(e.to_string()))?;
    let window = new.terms.window();
    require_window(row, window)?;
    check_stake(config, new.stake, "your")?;
    let seguro = matches!(new.terms, Terms::Seguro { .. });
    let taker_minor = match (seguro, new.taker_stake) {
        (false, Some(stake)) => {
            check_stake(config, stake, "the taker's")?;
            stake.minor()
        }
        (false, None) => {
            return Err(ConfidenceError::BadTerms(
                "taker_stake: what the taker must stake".into(),
            ))
        }
        (true, None) => 0,
        (true, Some(_)) => {
            return Err(ConfidenceError::BadTerms(
                "the player a Seguro backs stakes nothing now: leave out taker_stake".into(),
            ))
        }
    };
    let seated = seats(conn, &row.id)?;
    let copa = copa_of(row);
    // Prima and Fuerza: the seated player lays, the backer backs.
    let side = match (new.terms.centrale(), new.side) {
        (Some(suit), asked) => {
            let lays = seated.iter().any(|s| s.suit() == suit && s.player_id == player);
            let side = if lays { Side::Against } else { Side::For };
            if seguro && lays {
                return Err(ConfidenceError::NotAllowed(
                    "a Seguro is offered by the player who backs, not asked for".into(),
                ));
            }
            if asked.is_some_and(|a| a != side) {
                return Err(ConfidenceError::BadTerms(format!(
                    "in a {} the seated player of {suit} is against and the backer for",
                    new.terms.kind()
                )));
            }
            side
        }
        (None, Some(side)) => side,
        (None, None) => return Err(ConfidenceError::BadTerms("side must be for or against".into())),
    };
    may_hold(&new.terms, side, player, &seated, &copa).map_err(ConfidenceError::NotAllowed)?;
    let mut to = new.to;
    if let (Some(suit), Side::For) = (new.terms.centrale(), side) {
        let centrale = seated.iter().find(|s| s.suit() == suit).map(|s| s.player_id.clone());
        if to.is_some() && to != centrale {
            return Err(ConfidenceError::NotAllowed(format!(
                "a backer's {} is offered to {suit}'s seated player",
                new.terms.kind()
            )));
        }
        to = centrale;
    }
    if let Some(to) = &to {
        check_parties(conn, player, to)?;
        may_hold(&new.terms, side.other(), to, &seated, &copa).map_err(ConfidenceError::NotAllowed)?;
    }
    let open: i64 = cb::table
        .filter(cb::round_id.eq(&row.id))
        .filter(cb::offered_by.eq(player))
        .filter(cb::status.eq(BetStatus::Offered.as_str()))
        .count()
        .get_result(conn)?;
    if open >= MAX_OPEN_OFFERS_PER_PLAYER {
        return Err(ConfidenceError::TooManyOffers);
    }
    let now = now_us();
    crate::protection::admit(conn, player, crate::protection::Play::Stake(new.stake.minor()), now)?;
    let (for_stake, against_stake) = match side {
        Side::For => (new.stake.minor(), taker_minor),
        Side::Against => (taker_minor, new.stake.minor()),
    };
    let bet = BetRow {
        id: new_id(),
        round_id: row.id.clone(),
        terms: serde_json::to_string(&new.terms).expect("terms serialise"),
        offer_window: window_name(window).to_owned(),
        offered_by: player.to_owned(),
        offerer_side: side.as_str().to_owned(),
        offered_to: to,
        for_stake_minor: for_stake,
        against_stake_minor: against_stake,
        status: BetStatus::Offered.as_str().to_owned(),
        accepted_by: None,
        winner_side: None,
        paid_minor: 0,
        commission_minor: 0,
        offered_at_us: now,
        updated_at_us: now,
    };
    diesel::insert_into(cb::table).values(&bet).execute(conn)?;
    ledger::post(
        conn,
        &[TransferSpec::new(
            AccountId::wallet(player),
            AccountId::escrow(&row.id),
            new.stake,
            TransferKind::ConfidenceStake,
        )
        .refs(refs(row, player, &bet.id))
        .memo(format!("confidence bet offered: {}", new.terms.describe()))],
    )?;
    Ok(bet)
}

pub fn find(conn: &mut AnyConnection, bet_id: &str) -> Result<BetRow> {
    cb::table
        .find(bet_id)
        .select(BetRow::as_select())
        .first(conn)
        .optional()?
        .ok_or(ConfidenceError::NotFound)
}

/// Every confidence bet of a round, in the order offered.
pub fn of_round(conn: &mut AnyConnection, round_id: &str) -> QueryResult<Vec<BetRow>> {
    cb::table
        .filter(cb::round_id.eq(round_id))
        .select(BetRow::as_select())
        .order((cb::offered_at_us.asc(), cb::id.asc()))
        .load(conn)
}

/// Moves an open offer to `to`, once: false when another request got there first.
fn close_offer(conn: &mut AnyConnection, bet: &BetRow, to: BetStatus, taker: Option<&str>) -> Result<bool> {
    let changed = diesel::update(
        cb::table
            .filter(cb::id.eq(&bet.id))
            .filter(cb::status.eq(BetStatus::Offered.as_str())),
    )
    .set((
        cb::status.eq(to.as_str()),
        cb::accepted_by.eq(taker),
        cb::updated_at_us.eq(now_us()),
    ))
    .execute(conn)?;
    Ok(changed == 1)
}

fn require_open(bet: &BetRow, action: &'static str) -> Result<()> {
    if bet.status() == BetStatus::Offered {
        Ok(())
    } else {
        Err(ConfidenceError::NotOpen {
            status: bet.status.clone(),
            action,
        })
    }
}

fn refund_offerer(conn: &mut AnyConnection, row: &RoundRow, bet: &BetRow, why: &str) -> Result<()> {
    let side = bet.offerer_side();
    ledger::post(
        conn,
        &[TransferSpec::new(
            AccountId::escrow(&row.id),
            AccountId::wallet(&bet.offered_by),
            amount(bet.stake_minor(side))?,
            TransferKind::ConfidenceRefund,
        )
        .refs(refs(row, &bet.offered_by, &bet.id))
        .memo(format!("confidence offer {why}"))],
    )?;
    Ok(())
}

/// Takes an open offer: the taker's stake joins the offerer's in escrow.
pub fn accept(conn: &mut AnyConnection, row: &RoundRow, bet: &BetRow, taker: &str) -> Result<BetRow> {
    require_open(bet, "accepted")?;
    let terms = bet.terms()?;
    require_window(row, terms.window())?;
    if bet.offered_to.as_deref().is_some_and(|to| to != taker) {
        return Err(ConfidenceError::NotAllowed(
            "this offer was made to another player".into(),
        ));
    }
    check_parties(conn, &bet.offered_by, taker)?;
    let seated = seats(conn, &row.id)?;
    let side = bet.offerer_side().other();
    may_hold(&terms, side, taker, &seated, &copa_of(row)).map_err(ConfidenceError::NotAllowed)?;
    let stake_minor = bet.stake_minor(side);
    if stake_minor > 0 {
        crate::protection::admit(conn, taker, crate::protection::Play::Stake(stake_minor), now_us())?;
    }
    if !close_offer(conn, bet, BetStatus::Accepted, Some(taker))? {
        return Err(ConfidenceError::NotOpen {
            status: find(conn, &bet.id)?.status,
            action: "accepted",
        });
    }
    // A Seguro's backed player stakes nothing now.
    if stake_minor > 0 {
        ledger::post(
            conn,
            &[TransferSpec::new(
                AccountId::wallet(taker),
                AccountId::escrow(&row.id),
                amount(stake_minor)?,
                TransferKind::ConfidenceStake,
            )
            .refs(refs(row, taker, &bet.id))
            .memo(format!("confidence bet accepted: {}", terms.describe()))],
        )?;
    }
    find(conn, &bet.id)
}

/// The offerer takes back an offer nobody has taken.
pub fn withdraw(conn: &mut AnyConnection, row: &RoundRow, bet: &BetRow, player: &str) -> Result<BetRow> {
    if bet.offered_by != player {
        return Err(ConfidenceError::NotAllowed(
            "only the player who made an offer may withdraw it".into(),
        ));
    }
    require_open(bet, "withdrawn")?;
    if close_offer(conn, bet, BetStatus::Withdrawn, None)? {
        refund_offerer(conn, row, bet, "withdrawn")?;
    }
    find(conn, &bet.id)
}

/// The player an offer was made to refuses it.
pub fn decline(conn: &mut AnyConnection, row: &RoundRow, bet: &BetRow, player: &str) -> Result<BetRow> {
    if bet.offered_to.as_deref() != Some(player) {
        return Err(ConfidenceError::NotAllowed(
            "only the player an offer was made to may decline it".into(),
        ));
    }
    require_open(bet, "declined")?;
    if close_offer(conn, bet, BetStatus::Declined, None)? {
        refund_offerer(conn, row, bet, "declined")?;
    }
    find(conn, &bet.id)
}

/// Ends every open offer of `window` (its phase of the round is over): each expires and its
/// stake goes back. Called by the phase change itself, in its transaction.
pub fn close_window(conn: &mut AnyConnection, row: &RoundRow, window: Window) -> Result<()> {
    let open: Vec<BetRow> = cb::table
        .filter(cb::round_id.eq(&row.id))
        .filter(cb::status.eq(BetStatus::Offered.as_str()))
        .filter(cb::offer_window.eq(window_name(window)))
        .select(BetRow::as_select())
        .load(conn)?;
    for bet in &open {
        if close_offer(conn, bet, BetStatus::Expired, None)? {
            refund_offerer(conn, row, bet, "expired")?;
        }
    }
    Ok(())
}
