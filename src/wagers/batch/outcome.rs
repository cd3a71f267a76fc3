//! A batch whose connection was lost at its commit: did it commit?
//!
//! PostgreSQL may have committed a transaction whose client never heard back
//! (the server crashed after writing its commit record, or the network failed
//! between the two). Retrying such a batch would pay twice; answering it as
//! failed would lose wagers that stand. So the committer asks the database,
//! once it answers again, whether the batch's last transfer is there: a
//! transaction commits all or nothing, so that one row says.
//!
//! The question is asked on the primary only (a standby may not have replayed
//! the commit yet), and under the ledger head's lock: if the old transaction
//! is still alive on the server (only the client's side of the connection was
//! lost), the lock waits until it has committed or rolled back, so the answer
//! is never read before the outcome is decided.

use diesel::prelude::*;
use std::time::{Duration, Instant};

use crate::store::{health, AnyConnection, Database, StoreError};

/// How long the committer keeps asking: longer than a failover (Patroni
/// promotes a standby within its leader key's time to live, 30 s by default).
pub const ASK_FOR_MS: u64 = 60_000;

/// Between two attempts to reach the database again.
const RETRY_EVERY_MS: u64 = 250;

/// Whether the transfer `last_transfer_id` was committed, asked until the
/// primary answers or [`ASK_FOR_MS`] has passed (then `None`: not known).
pub(super) fn committed(db: &Database, last_transfer_id: &str) -> Option<bool> {
    let started = Instant::now();
    loop {
        match ask(db, last_transfer_id) {
            Ok(found) => {
                tracing::warn!(
                    committed = found,
                    after_ms = started.elapsed().as_millis() as u64,
                    "the lost commit's outcome is known"
                );
                return Some(found);
            }
            Err(e) => tracing::info!(error = %e, "the database does not answer yet whether a batch committed"),
        }
        if started.elapsed() >= Duration::from_millis(ASK_FOR_MS) {
            tracing::error!(
                transfer = last_transfer_id,
                "whether a wager batch committed is not known"
            );
            return None;
        }
        std::thread::sleep(Duration::from_millis(RETRY_EVERY_MS));
    }
}

fn ask(db: &Database, last_transfer_id: &str) -> Result<bool, StoreError> {
    use crate::store::schema::transfers;
    let mut conn = db.dedicated_connection()?;
    if health::read_only(&mut conn)? {
        return Err(StoreError::ReadOnly(
            "a read-only server cannot say what the primary committed".into(),
        ));
    }
    db.write_on(&mut conn, |c: &mut AnyConnection| -> Result<bool, StoreError> {
        crate::ledger::lock_head_row(c)?;
        let found: i64 = transfers::table
            .filter(transfers::id.eq(last_transfer_id))
            .count()
            .get_result(c)?;
        Ok(found == 1)
    })
}
