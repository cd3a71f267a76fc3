//! The wager path: side bets on live Prima Carta rounds, Peg Leg bets, and the
//! cage's deposits and withdrawals, committed in groups.
//!
//! These are the requests that arrive by the hundred in the seconds before a
//! round closes, so they do not each take the ledger head for a transaction of
//! their own. Each instance runs one [`Committer`]: requests queue to it, and
//! it commits whatever has queued as one transaction — one head lock, a few
//! set-based statements, one fsync — then answers each request. Every request
//! is checked on its own against the running balances, exposures and round
//! states inside the batch, so one that fails (insufficient funds, a limit,
//! betting closed) fails alone. A request is answered only after the commit
//! that holds it is durable. docs/ledger.md describes the design and its
//! invariants.

mod batch;
mod committer;
mod peg_leg;

use prometheus::{Histogram, HistogramOpts, IntCounterVec, Opts};
use serde::Serialize;
use std::sync::LazyLock;
use utoipa::ToSchema;

use crate::auth::{ClaimedCaller, SessionRefusal};
use crate::bets::BetKind;
use crate::domain::Amount;
use crate::ledger::read::TransferView;

pub use committer::Committer;

/// Wagers the committer answered, by kind (`side_bet`, `peg_leg_bet`, `deposit`,
/// `withdrawal`) and outcome (`committed`, `refused`, `failed`); served on `/metrics`.
pub static WAGERS_ANSWERED: LazyLock<IntCounterVec> = LazyLock::new(|| {
    IntCounterVec::new(
        Opts::new(
            "djego_wagers_total",
            "Wagers the committer answered, by kind and outcome",
        ),
        &["wager", "outcome"],
    )
    .expect("static metric definition")
});

/// Requests per batch the committer took (one transaction, one fsync each); on `/metrics`.
pub static BATCH_SIZE: LazyLock<Histogram> = LazyLock::new(|| {
    Histogram::with_opts(
        HistogramOpts::new("djego_wager_batch_size", "Wagers committed per transaction")
            .buckets(vec![1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0, 128.0, 256.0, 512.0]),
    )
    .expect("static metric definition")
});

/// A money-moving request on the wager path.
#[derive(Clone, Debug)]
pub enum Wager {
    Bet(BetWager),
    PegLegBet(PegLegBetWager),
    Cash(CashWager),
}

impl Wager {
    /// What kind of wager it is, as the metrics name it.
    pub fn kind(&self) -> &'static str {
        match self {
            Wager::Bet(_) => "side_bet",
            Wager::PegLegBet(_) => "peg_leg_bet",
            Wager::Cash(c) => match c.direction {
                CashDirection::Deposit => "deposit",
                CashDirection::Withdrawal => "withdrawal",
            },
        }
    }
}

/// A side bet on a live Prima Carta round, by the player placing it.
#[derive(Clone, Debug)]
pub struct BetWager {
    pub round_id: String,
    pub player_id: String,
    pub kind: BetKind,
    pub suit: Option<String>,
    pub number: Option<i64>,
    pub amount: Amount,
    pub client_seed: Option<String>,
    /// The pay table (id or fingerprint) the player was shown, if the app sent it.
    pub pay_table: Option<String>,
}

/// A bet on a Peg Leg round's final count, by the player placing it, at the price of the
/// quote they saw.
#[derive(Clone, Debug)]
pub struct PegLegBetWager {
    pub round_id: String,
    pub player_id: String,
    pub quote_id: String,
    pub count: u8,
    pub stake: Amount,
}

pub use crate::compliance::CashDirection;

/// A deposit or withdrawal at the cage, by a cashier.
#[derive(Clone, Debug)]
pub struct CashWager {
    pub direction: CashDirection,
    pub cashier_id: String,
    pub player_id: String,
    pub amount: Amount,
    pub memo: Option<String>,
    /// The cage window or other place the cash changed hands, as the cashier named it.
    pub location: Option<String>,
}

/// A client's `Idempotency-Key` and the fingerprint of the request it came
/// with (method, path and body).
#[derive(Clone, Debug)]
pub struct IdempotencyKey {
    pub key: String,
    pub fingerprint: String,
}

/// A wager with who asks and how a retry is recognised.
#[derive(Clone, Debug)]
pub struct WagerRequest {
    /// Who asks; the batch checks their session against the account in its
    /// own transaction before anything else.
    pub caller: ClaimedCaller,
    pub idempotency: Option<IdempotencyKey>,
    pub wager: Wager,
}

/// A committed (or replayed) wager: the response body, as first sent.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Committed {
    /// HTTP status of the first response (201).
    pub status: u16,
    /// Its JSON body: a `BetView` or a [`CageReceipt`].
    pub body: String,
    /// The round a bet went to (so the live view can be refreshed).
    pub round: Option<RoundRef>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RoundRef {
    pub table_id: String,
    pub round_id: String,
}

/// The answer to a deposit or withdrawal (and to a correction).
#[derive(Serialize, ToSchema)]
pub struct CageReceipt {
    pub transfer: TransferView,
    /// The player's wallet balance after the transfer.
    pub balance: String,
}

/// Why a wager was refused. Nothing moved.
#[derive(Debug, thiserror::Error)]
pub enum WagerError {
    #[error(transparent)]
    Session(SessionRefusal),
    #[error("Prima Carta round not found")]
    RoundNotFound,
    #[error("bets are accepted only while betting is open; round is {status}")]
    BettingClosed { status: String },
    #[error("a bet at this table must be between {min} and {max}")]
    AmountOutOfLimits { min: Amount, max: Amount },
    #[error("{0}")]
    BadSelection(String),
    #[error(
        "the round's pay table is {id} (fingerprint {fingerprint}), not the one the bet names; read it and bet again"
    )]
    PayTableMismatch { id: String, fingerprint: String },
    #[error("your bets on this round would total {total}, over the limit of {limit}")]
    ExposureLimit { total: String, limit: String },
    #[error("insufficient funds in {account}: balance {balance}, needs {needed}")]
    InsufficientFunds {
        account: String,
        balance: String,
        needed: String,
    },
    /// A Peg Leg bet refused by the game's rules (a stale quote, a closed window, a count not
    /// offered, the limits): the game's own refusal, answered as everywhere else.
    #[error(transparent)]
    PegLeg(crate::rounds::peg_leg::PegLegRoundError),
    /// The player is excluded from play, or the request would pass a limit they set.
    #[error(transparent)]
    Protection(crate::protection::Refusal),
    /// A deposit or withdrawal that needs the patron's identity on file first.
    #[error(transparent)]
    IdentityRequired(crate::compliance::IdentityRequired),
    #[error("player not found")]
    PlayerNotFound,
    #[error("only players hold wallets")]
    NotAPlayer,
    #[error("this Idempotency-Key was already used with a different request")]
    IdempotencyKeyReused,
    /// Its transfer would be stamped inside a closed gaming day (a clock behind).
    #[error("{0}")]
    GamingDayClosed(String),
    #[error("database unavailable: {0}")]
    Unavailable(String),
    /// The connection was lost during the commit and the database could not
    /// be asked again whether it committed.
    #[error(
        "the database was lost while this was committed, and whether it was is not known yet: \
         retry with the same Idempotency-Key, which applies it at most once"
    )]
    OutcomeUnknown,
    #[error("{0}")]
    Internal(String),
}

impl From<crate::store::StoreError> for WagerError {
    fn from(e: crate::store::StoreError) -> WagerError {
        match e {
            crate::store::StoreError::Unavailable(m) | crate::store::StoreError::ReadOnly(m) => {
                WagerError::Unavailable(m)
            }
            crate::store::StoreError::Query(q) => WagerError::from(q),
            other => WagerError::Internal(other.to_string()),
        }
    }
}
