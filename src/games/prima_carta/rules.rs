//! Table options and variants of the house game (docs/prima-carta.md).

use serde::{Deserialize, Serialize};

/// Which Prima Carta the table deals.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Variant {
    /// First pass, copa, then repassos without shuffling until a live suit completes.
    Classic,
    /// One pass only, no copa: the owned suit with the tallest stack wins.
    Cinco,
    /// Classic, but the discards are reshuffled once, after the copa, before the repasso.
    Jasper,
}

/// What happens to the folded players' spigas when a folded suit completes first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CobreRule {
    /// No cobre: the winner takes the whole pot.
    Off,
    /// The cobre is added to the table's next pot.
    Carry,
    /// The cobre is paid to house revenue.
    House,
}

/// The rules a table deals by.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct TableRules {
    pub variant: Variant,
    /// The owner of the Prima suit tips 1 unit to the dealer.
    pub corte: bool,
    pub cobre: CobreRule,
}

impl TableRules {
    pub const CLASSIC: TableRules = TableRules {
        variant: Variant::Classic,
        corte: false,
        cobre: CobreRule::Off,
    };
}
