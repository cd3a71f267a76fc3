//! The service's clock: every instant djego records or judges by — a
//! transfer's, a round's, an event's, a token's, the present gaming day — is
//! read here, so that one place decides what "now" is.
//!
//! It is the system's UTC clock. A test that must live through an instant the
//! system clock will not reach while it runs (a change of clocks, a gaming
//! day's cut-off) moves this process's clock forward with [`move_forward_for_tests`];
//! the service itself never does, and nothing outside the process can.

use std::sync::atomic::{AtomicI64, Ordering};

/// How far this process's clock is ahead of the system's, in microseconds.
static AHEAD_US: AtomicI64 = AtomicI64::new(0);

/// Microseconds since the Unix epoch, now.
pub fn now_us() -> i64 {
    chrono::Utc::now().timestamp_micros() + AHEAD_US.load(Ordering::Relaxed)
}

/// Now, as a date and time in UTC.
pub fn now() -> chrono::DateTime<chrono::Utc> {
    chrono::DateTime::from_timestamp_micros(now_us()).expect("the clock reads a representable instant")
}

/// Moves this process's clock forward by `by_us` (≥ 0): for tests only, and
/// only in a test program of its own, since every thread of the process sees
/// it. The clock never goes back, so the ledger's instants stay in order.
#[doc(hidden)]
pub fn move_forward_for_tests(by_us: i64) {
    assert!(by_us >= 0, "the clock only moves forward");
    AHEAD_US.fetch_add(by_us, Ordering::Relaxed);
}
