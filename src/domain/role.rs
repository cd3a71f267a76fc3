use serde::{Deserialize, Serialize};
use std::fmt;
use utoipa::ToSchema;

/// The five roles (README.md). A token bears exactly one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    Player,
    Dealer,
    Cashier,
    Pitboss,
    Auditor,
}

impl Role {
    pub const ALL: [Role; 5] = [Role::Player, Role::Dealer, Role::Cashier, Role::Pitboss, Role::Auditor];

    pub fn as_str(self) -> &'static str {
        match self {
            Role::Player => "player",
            Role::Dealer => "dealer",
            Role::Cashier => "cashier",
            Role::Pitboss => "pitboss",
            Role::Auditor => "auditor",
        }
    }

    pub fn parse(text: &str) -> Option<Role> {
        Role::ALL.into_iter().find(|r| r.as_str() == text)
    }

    pub fn is_staff(self) -> bool {
        self != Role::Player
    }
}

impl fmt::Display for Role {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
