//! Reading the ledger: an account's history, the ledger by time and account,
//! the trial balance.

use diesel::prelude::*;
use serde::Serialize;
use utoipa::ToSchema;

use super::accounts::{self, AccountId};
use super::post::Transfer;
use crate::domain::format_minor;
use crate::store::schema::transfers as t;
use crate::store::AnyConnection;

pub struct TransferFilter {
    pub account: Option<AccountId>,
    pub round_id: Option<String>,
    pub from_us: Option<i64>,
    pub to_us: Option<i64>,
    pub limit: i64,
    pub offset: i64,
    pub newest_first: bool,
}

pub fn transfers(conn: &mut AnyConnection, f: &TransferFilter) -> QueryResult<Vec<Transfer>> {
    let mut q = t::table.select(Transfer::as_select()).into_boxed();
    if let Some(account) = &f.account {
        let a = account.as_str().to_string();
        q = q.filter(t::debit_account.eq(a.clone()).or(t::credit_account.eq(a)));
    }
    if let Some(round) = &f.round_id {
        q = q.filter(t::round_id.eq(round.clone()));
    }
    if let Some(from) = f.from_us {
        q = q.filter(t::created_at_us.ge(from));
    }
    if let Some(to) = f.to_us {
        q = q.filter(t::created_at_us.lt(to));
    }
    q = if f.newest_first {
        q.order(t::seq.desc())
    } else {
        q.order(t::seq.asc())
    };
    q.limit(f.limit).offset(f.offset).load(conn)
}

#[derive(Serialize, ToSchema, Debug)]
pub struct TrialBalanceLine {
    pub account: String,
    pub kind: String,
    pub balance: String,
}

#[derive(Serialize, ToSchema, Debug)]
pub struct TrialBalance {
    pub accounts: Vec<TrialBalanceLine>,
    /// Sum of every balance: always "0.00" in a sound ledger.
    pub total: String,
    pub balanced: bool,
    pub last_seq: i64,
}

pub fn trial_balance(conn: &mut AnyConnection) -> QueryResult<TrialBalance> {
    let rows = accounts::all(conn)?;
    let total: i64 = rows.iter().map(|r| r.balance_minor).sum();
    let last_seq: i64 = crate::store::schema::ledger_head::table
        .find(1)
        .select(crate::store::schema::ledger_head::seq)
        .first(conn)?;
    Ok(TrialBalance {
        accounts: rows
            .into_iter()
            .map(|r| TrialBalanceLine {
                account: r.id,
                kind: r.kind,
                balance: format_minor(r.balance_minor),
            })
            .collect(),
        total: format_minor(total),
        balanced: total == 0,
        last_seq,
    })
}

/// A transfer as shown over the API: amounts as decimal strings.
#[derive(Serialize, ToSchema, Debug, Clone)]
pub struct TransferView {
    pub seq: i64,
    pub id: String,
    /// The account money left.
    pub debit_account: String,
    /// The account money entered.
    pub credit_account: String,
    pub amount: String,
    pub kind: String,
    pub user_id: Option<String>,
    pub table_id: Option<String>,
    pub round_id: Option<String>,
    pub bet_id: Option<String>,
    pub memo: Option<String>,
    pub created_at_us: i64,
    pub hash: String,
}

impl From<&Transfer> for TransferView {
    fn from(t: &Transfer) -> TransferView {
        TransferView {
            seq: t.seq,
            id: t.id.clone(),
            debit_account: t.debit_account.clone(),
            credit_account: t.credit_account.clone(),
            amount: format_minor(t.amount_minor),
            kind: t.kind.clone(),
            user_id: t.user_id.clone(),
            table_id: t.table_id.clone(),
            round_id: t.round_id.clone(),
            bet_id: t.bet_id.clone(),
            memo: t.memo.clone(),
            created_at_us: t.created_at_us,
            hash: t.hash.clone(),
        }
    }
}
