//! Reports read from a read replica (`--read-database-url`): the floor's
//! reports and plots, the auditor's ledger, events and transcript export.
//! They are the heavy reads of a floor. Reads that write (a single round's
//! recall books the round; the compliance export records identity reads) and
//! the live views (their snapshot must agree with the events that follow)
//! stay on the primary.
//!
//! A replica is read only while it says it is streaming from a primary and is
//! no further behind than `--read-max-lag-ms`; otherwise, or when the replica
//! fails, the primary is read. Every such answer says where it was read
//! (`Djego-Read-From: primary` or `replica`) and, from a replica, how far
//! behind it was (`Djego-Replica-Lag-Ms`). The replica's sessions are
//! read-only (store::SessionSetup), so nothing writes through it.

use actix_web::http::header::{HeaderName, HeaderValue};
use actix_web::HttpResponse;

use super::error::ApiError;
use super::state::AppState;
use crate::store::Database;

/// A read replica and how stale a read from it may be.
#[derive(Clone)]
pub struct Replica {
    pub db: Database,
    pub max_lag_ms: u64,
}

/// Where a report was read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReadFrom {
    Primary,
    /// A replica this far behind its primary when the read began.
    Replica {
        lag_ms: i64,
    },
}

pub const READ_FROM: &str = "djego-read-from";
pub const REPLICA_LAG_MS: &str = "djego-replica-lag-ms";

impl ReadFrom {
    /// `response` with headers saying where it was read.
    pub fn mark(self, mut response: HttpResponse) -> HttpResponse {
        let headers = response.headers_mut();
        let (from, lag) = match self {
            ReadFrom::Primary => ("primary", None),
            ReadFrom::Replica { lag_ms } => ("replica", Some(lag_ms)),
        };
        headers.insert(HeaderName::from_static(READ_FROM), HeaderValue::from_static(from));
        if let Some(lag_ms) = lag {
            headers.insert(HeaderName::from_static(REPLICA_LAG_MS), HeaderValue::from(lag_ms));
        }
        response
    }
}

impl AppState {
    /// Runs a report's read on the replica when one is configured, streaming
    /// and recent enough, on the primary otherwise (also when the replica's
    /// read fails on the server's side: a 4xx from it is the answer).
    pub async fn report<T, F>(&self, read: F) -> Result<(T, ReadFrom), ApiError>
    where
        F: Fn(&AppState, &Database) -> Result<T, ApiError> + Send + 'static,
        T: Send + 'static,
    {
        self.blocking(move |s| {
            if let Some(replica) = &s.replica {
                match replica.db.replay_lag_ms() {
                    Ok(Some(lag_ms)) if lag_ms <= replica.max_lag_ms as i64 => match read(s, &replica.db) {
                        Ok(value) => return Ok((value, ReadFrom::Replica { lag_ms })),
                        Err(e) if e.status.is_client_error() => return Err(e),
                        Err(e) => tracing::warn!(error = %e, "a report failed on the replica; reading the primary"),
                    },
                    Ok(Some(lag_ms)) => {
                        tracing::info!(
                            lag_ms,
                            max_lag_ms = replica.max_lag_ms,
                            "the replica is too far behind; reading the primary"
                        )
                    }
                    Ok(None) => tracing::info!("the replica is not streaming from a primary; reading the primary"),
                    Err(e) => tracing::warn!(error = %e, "the replica does not answer; reading the primary"),
                }
            }
            Ok((read(s, &s.db)?, ReadFrom::Primary))
        })
        .await
    }
}
