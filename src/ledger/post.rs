//! The ledger's one write path.

use diesel::prelude::*;
use serde::Serialize;
use std::collections::BTreeMap;
use utoipa::ToSchema;

use super::accounts::{self, AccountId};
use super::chain::transfer_hash;
use crate::domain::{format_minor, Amount};
use crate::store::schema::{accounts as acc, ledger_head, transfers};
use crate::store::{lock_for_update, new_id, now_us, AnyConnection};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum TransferKind {
    Deposit,
    Withdrawal,
    Correction,
    Spiga,
    SeatFee,
    Copa,
    Corte,
    CorteHeld,
    Cobre,
    CobreCarried,
    PotPayout,
    BetStake,
    BetCollected,
    BetReturned,
    BetPayout,
    BetRefund,
    LoboEscrow,
    LoboFee,
    LoboLoss,
    LoboWin,
    LoboRelease,
    Refund,
}

impl TransferKind {
    pub fn as_str(self) -> &'static str {
        match self {
            TransferKind::Deposit => "deposit",
            TransferKind::Withdrawal => "withdrawal",
            TransferKind::Correction => "correction",
            TransferKind::Spiga => "spiga",
            TransferKind::SeatFee => "seat_fee",
            TransferKind::Copa => "copa",
            TransferKind::Corte => "corte",
            TransferKind::CorteHeld => "corte_held",
            TransferKind::Cobre => "cobre",
            TransferKind::CobreCarried => "cobre_carried",
            TransferKind::PotPayout => "pot_payout",
            TransferKind::BetStake => "bet_stake",
            TransferKind::BetCollected => "bet_collected",
            TransferKind::BetReturned => "bet_returned",
            TransferKind::BetPayout => "bet_payout",
            TransferKind::BetRefund => "bet_refund",
            TransferKind::LoboEscrow => "lobo_escrow",
            TransferKind::LoboFee => "lobo_fee",
            TransferKind::LoboLoss => "lobo_loss",
            TransferKind::LoboWin => "lobo_win",
            TransferKind::LoboRelease => "lobo_release",
            TransferKind::Refund => "refund",
        }
    }
}

/// What a transfer refers to.
#[derive(Clone, Debug, Default)]
pub struct Refs {
    pub user_id: Option<String>,
    pub table_id: Option<String>,
    pub round_id: Option<String>,
    pub bet_id: Option<String>,
}

/// A transfer to be posted: `amount` leaves `debit` and enters `credit`.
#[derive(Clone, Debug)]
pub struct TransferSpec {
    pub debit: AccountId,
    pub credit: AccountId,
    pub amount: Amount,
    pub kind: TransferKind,
    pub refs: Refs,
    pub idempotency_key: Option<String>,
    pub memo: Option<String>,
}

impl TransferSpec {
    pub fn new(debit: AccountId, credit: AccountId, amount: Amount, kind: TransferKind) -> TransferSpec {
        TransferSpec {
            debit,
            credit,
            amount,
            kind,
            refs: Refs::default(),
            idempotency_key: None,
            memo: None,
        }
    }
    pub fn refs(mut self, refs: Refs) -> TransferSpec {
        self.refs = refs;
        self
    }
    pub fn memo(mut self, memo: impl Into<String>) -> TransferSpec {
        self.memo = Some(memo.into());
        self
    }
    pub fn idempotency_key(mut self, key: Option<&str>) -> TransferSpec {
        self.idempotency_key = key.map(str::to_string);
        self
    }
}

/// A posted, immutable transfer.
#[derive(Queryable, Selectable, Insertable, Serialize, ToSchema, Debug, Clone, PartialEq)]
#[diesel(table_name = transfers)]
pub struct Transfer {
    /// Position in the ledger's single total order, from 1.
    pub seq: i64,
    pub id: String,
    pub debit_account: String,
    pub credit_account: String,
    pub amount_minor: i64,
    pub kind: String,
    pub user_id: Option<String>,
    pub table_id: Option<String>,
    pub round_id: Option<String>,
    pub bet_id: Option<String>,
    pub idempotency_key: Option<String>,
    pub memo: Option<String>,
    pub created_at_us: i64,
    pub prev_hash: String,
    pub hash: String,
}

impl Transfer {
    pub fn amount(&self) -> String {
        format_minor(self.amount_minor)
    }
}

#[derive(Debug, thiserror::Error)]
pub enum LedgerError {
    #[error("insufficient funds in {account}: balance {balance}, needs {needed}")]
    InsufficientFunds {
        account: String,
        balance: String,
        needed: String,
    },
    #[error("account {0} does not exist")]
    UnknownAccount(String),
    #[error("a transfer cannot move money from an account to itself ({0})")]
    SameAccount(String),
    #[error(transparent)]
    Db(#[from] diesel::result::Error),
}

/// Posts `specs` in order, atomically with the caller's transaction.
///
/// Takes the ledger head's row lock first (PostgreSQL), so concurrent writers
/// from any instance append one after another: balances read here are current
/// and the chain has a single order. Accounts must exist (see
/// [`accounts::ensure`]). All transfers in one call pass or none do.
pub fn post(conn: &mut AnyConnection, specs: &[TransferSpec]) -> Result<Vec<Transfer>, LedgerError> {
    if specs.is_empty() {
        return Ok(Vec::new());
    }
    lock_for_update(conn, "SELECT seq FROM ledger_head WHERE id = 1 FOR UPDATE")?;
    let (mut seq, mut prev_hash): (i64, String) = ledger_head::table
        .find(1)
        .select((ledger_head::seq, ledger_head::hash))
        .first(conn)?;

    // Current balances of every touched account.
    let mut balances: BTreeMap<AccountId, (i64, bool)> = BTreeMap::new();
    for spec in specs {
        if spec.debit == spec.credit {
            return Err(LedgerError::SameAccount(spec.debit.to_string()));
        }
        for id in [&spec.debit, &spec.credit] {
            if !balances.contains_key(id) {
                let row = accounts::find(conn, id)?.ok_or_else(|| LedgerError::UnknownAccount(id.to_string()))?;
                balances.insert(id.clone(), (row.balance_minor, row.may_go_negative));
            }
        }
    }

    let now = now_us();
    let mut posted = Vec::with_capacity(specs.len());
    for spec in specs {
        let amount = spec.amount.minor();
        let (debit_balance, may_go_negative) = balances[&spec.debit];
        if !may_go_negative && debit_balance < amount {
            return Err(LedgerError::InsufficientFunds {
                account: spec.debit.to_string(),
                balance: format_minor(debit_balance),
                needed: format_minor(amount),
            });
        }
        balances.get_mut(&spec.debit).expect("loaded above").0 -= amount;
        balances.get_mut(&spec.credit).expect("loaded above").0 += amount;

        seq += 1;
        let mut t = Transfer {
            seq,
            id: new_id(),
            debit_account: spec.debit.to_string(),
            credit_account: spec.credit.to_string(),
            amount_minor: amount,
            kind: spec.kind.as_str().to_string(),
            user_id: spec.refs.user_id.clone(),
            table_id: spec.refs.table_id.clone(),
            round_id: spec.refs.round_id.clone(),
            bet_id: spec.refs.bet_id.clone(),
            idempotency_key: spec.idempotency_key.clone(),
            memo: spec.memo.clone(),
            created_at_us: now,
            prev_hash: prev_hash.clone(),
            hash: String::new(),
        };
        t.hash = transfer_hash(&prev_hash, &t);
        prev_hash = t.hash.clone();
        posted.push(t);
    }

    for t in &posted {
        diesel::insert_into(transfers::table).values(t).execute(conn)?;
    }
    for (id, (balance, _)) in &balances {
        diesel::update(acc::table.find(id.as_str()))
            .set(acc::balance_minor.eq(balance))
            .execute(conn)?;
    }
    diesel::update(ledger_head::table.find(1))
        .set((ledger_head::seq.eq(seq), ledger_head::hash.eq(&prev_hash)))
        .execute(conn)?;
    Ok(posted)
}
