//! Cash-transaction compliance at the cage (docs/compliance.md): the rules and their
//! thresholds (under two-person control), patrons' identities sealed at rest, every cash
//! transaction recorded with who handled it and where, identity required before a patron's
//! day passes the report threshold in either direction, currency transaction reports, and the
//! structuring patterns whose alerts an auditor reviews. djego records and reports; it files
//! nothing with any authority.

pub mod alerts;
pub mod cash;
pub mod exclusion_lists;
pub mod identity;
pub mod patterns;
pub mod reports;
pub mod rules;

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

pub use cash::{CashRequest, CashWatch, IdentityRequired};

use crate::store::AnyConnection;
use crate::users::{self, RosterEntry};

/// The accounts the compliance records name, as the staff's screens name them.
struct Roster(std::collections::HashMap<String, RosterEntry>);

impl Roster {
    fn read(conn: &mut AnyConnection, ids: Vec<String>) -> diesel::QueryResult<Roster> {
        Ok(Roster(
            users::roster(conn, &ids)?
                .into_iter()
                .map(|r| (r.id.clone(), r))
                .collect(),
        ))
    }

    /// The account, or (gone from the roster) one named by its id.
    fn of(&self, id: &str) -> RosterEntry {
        self.0.get(id).cloned().unwrap_or_else(|| RosterEntry {
            id: id.to_owned(),
            username: id.to_owned(),
            display_name: id.to_owned(),
            role: crate::domain::Role::Player,
        })
    }
}
pub use rules::ComplianceRules;

/// Which way cash moves at the cage.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum CashDirection {
    /// Cash in: the cage credits the wallet.
    Deposit,
    /// Cash out: the wallet pays the cage.
    Withdrawal,
}

impl CashDirection {
    pub fn as_str(self) -> &'static str {
        match self {
            CashDirection::Deposit => "deposit",
            CashDirection::Withdrawal => "withdrawal",
        }
    }

    pub fn parse(text: &str) -> Option<CashDirection> {
        [CashDirection::Deposit, CashDirection::Withdrawal]
            .into_iter()
            .find(|d| d.as_str() == text)
    }

    /// As people read it: "deposits", "withdrawals".
    pub fn plural(self) -> &'static str {
        match self {
            CashDirection::Deposit => "deposits",
            CashDirection::Withdrawal => "withdrawals",
        }
    }
}
