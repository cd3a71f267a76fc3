//! The audited double-entry ledger (docs/ledger.md). Every coin that moves in djego
//! moves through [`post`], inside the caller's write transaction, so a state
//! change and its money commit together or not at all.
//!
//! Invariants, enforced here and checked by [`verify::verify`]:
//! - every transfer moves a positive amount from one account to another, so
//!   the sum of all balances is always zero;
//! - an account that may not go negative (wallets, escrows, pots) never does;
//! - transfers are immutable and hash-chained in one total order (`seq`);
//! - no transfer is stamped before the end of the latest closed gaming day
//!   (`ledger_head.closed_until_us`, moved by the day close under the head's lock).

pub mod accounts;
mod chain;
mod post;
pub mod read;
pub mod verify;

pub use accounts::{AccountId, AccountKind};
pub use chain::{link_hash, transfer_hash, GENESIS_HASH};
pub(crate) use post::sql_text;
pub use post::{
    close_until, lock_head_row, post, post_paid_by, refuse_if_closed, Appender, LedgerError, PaymentRefused, Refs,
    Transfer, TransferKind, TransferSpec,
};
