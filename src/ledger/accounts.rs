//! Ledger accounts. An account's id says what it is (`wallet:<user>`,
//! `escrow:<round>`, ...); docs/ledger.md lists every kind.

use diesel::prelude::*;
use serde::Serialize;
use utoipa::ToSchema;

use crate::store::schema::accounts;
use crate::store::{now_us, AnyConnection};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum AccountKind {
    /// A player's money.
    Wallet,
    /// Money a player committed and the round has not settled yet (stakes,
    /// a Lobo loss cap).
    Escrow,
    /// A Prima Carta round's pot (spigas and copas).
    Pot,
    /// The house's money at risk: pays wins, receives losses.
    HouseBankroll,
    /// Fees and cobre paid to the house.
    HouseRevenue,
    /// The dealers' tips (corte).
    DealerTips,
    /// A table's cobre carried to its next pot.
    TableCobre,
    /// Cash in and out at the cage: goes negative as money enters djego.
    Cage,
}

impl AccountKind {
    pub fn as_str(self) -> &'static str {
        match self {
            AccountKind::Wallet => "wallet",
            AccountKind::Escrow => "escrow",
            AccountKind::Pot => "pot",
            AccountKind::HouseBankroll => "house_bankroll",
            AccountKind::HouseRevenue => "house_revenue",
            AccountKind::DealerTips => "dealer_tips",
            AccountKind::TableCobre => "table_cobre",
            AccountKind::Cage => "cage",
        }
    }

    /// Only the house's own accounts and the cage may hold a negative balance.
    pub fn may_go_negative(self) -> bool {
        matches!(self, AccountKind::HouseBankroll | AccountKind::Cage)
    }
}

/// An account's id, built only from its kind and owner.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct AccountId(String);

impl AccountId {
    pub fn wallet(user_id: &str) -> AccountId {
        AccountId(format!("wallet:{user_id}"))
    }
    pub fn escrow(scope: &str) -> AccountId {
        AccountId(format!("escrow:{scope}"))
    }
    pub fn pot(round_id: &str) -> AccountId {
        AccountId(format!("pot:{round_id}"))
    }
    pub fn table_cobre(table_id: &str) -> AccountId {
        AccountId(format!("cobre:{table_id}"))
    }
    pub fn house_bankroll() -> AccountId {
        AccountId("house:bankroll".into())
    }
    pub fn house_revenue() -> AccountId {
        AccountId("house:revenue".into())
    }
    pub fn dealer_tips() -> AccountId {
        AccountId("house:tips".into())
    }
    pub fn cage() -> AccountId {
        AccountId("cage".into())
    }
    pub fn as_str(&self) -> &str {
        &self.0
    }
    /// Wraps an id read back from storage or a request path.
    pub fn from_stored(id: String) -> AccountId {
        AccountId(id)
    }

    pub fn kind(&self) -> AccountKind {
        match self.0.split(':').next() {
            Some("wallet") => AccountKind::Wallet,
            Some("escrow") => AccountKind::Escrow,
            Some("pot") => AccountKind::Pot,
            Some("cobre") => AccountKind::TableCobre,
            Some("cage") => AccountKind::Cage,
            _ => match self.0.as_str() {
                "house:revenue" => AccountKind::HouseRevenue,
                "house:tips" => AccountKind::DealerTips,
                _ => AccountKind::HouseBankroll,
            },
        }
    }

    /// The user who owns a wallet account.
    pub fn wallet_owner(&self) -> Option<&str> {
        self.0.strip_prefix("wallet:")
    }
}

impl std::fmt::Display for AccountId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

#[derive(Queryable, Selectable, Debug, Clone, Serialize)]
#[diesel(table_name = accounts)]
pub struct AccountRow {
    pub id: String,
    pub kind: String,
    pub owner_id: Option<String>,
    pub balance_minor: i64,
    pub may_go_negative: bool,
    pub created_at_us: i64,
}

/// Creates the account if it does not exist yet (idempotent).
pub fn ensure(conn: &mut AnyConnection, id: &AccountId, owner_id: Option<&str>) -> QueryResult<()> {
    let exists: i64 = accounts::table
        .filter(accounts::id.eq(id.as_str()))
        .count()
        .get_result(conn)?;
    if exists == 0 {
        let kind = id.kind();
        diesel::insert_into(accounts::table)
            .values((
                accounts::id.eq(id.as_str()),
                accounts::kind.eq(kind.as_str()),
                accounts::owner_id.eq(owner_id),
                accounts::balance_minor.eq(0i64),
                accounts::may_go_negative.eq(kind.may_go_negative()),
                accounts::created_at_us.eq(now_us()),
            ))
            .execute(conn)?;
    }
    Ok(())
}

pub fn open_wallet(conn: &mut AnyConnection, user_id: &str) -> QueryResult<()> {
    ensure(conn, &AccountId::wallet(user_id), Some(user_id))
}

pub fn find(conn: &mut AnyConnection, id: &AccountId) -> QueryResult<Option<AccountRow>> {
    accounts::table
        .find(id.as_str())
        .select(AccountRow::as_select())
        .first(conn)
        .optional()
}

pub fn balance_minor(conn: &mut AnyConnection, id: &AccountId) -> QueryResult<i64> {
    Ok(find(conn, id)?.map(|a| a.balance_minor).unwrap_or(0))
}

pub fn all(conn: &mut AnyConnection) -> QueryResult<Vec<AccountRow>> {
    accounts::table
        .select(AccountRow::as_select())
        .order(accounts::id.asc())
        .load(conn)
}

/// The house's standing accounts, created at start-up.
pub fn ensure_house_accounts(conn: &mut AnyConnection) -> QueryResult<()> {
    for id in [
        AccountId::house_bankroll(),
        AccountId::house_revenue(),
        AccountId::dealer_tips(),
        AccountId::cage(),
    ] {
        ensure(conn, &id, None)?;
    }
    Ok(())
}
