//! Login throttling (docs/security.md): a password is checked only after a
//! slot is taken in three counters at once — the (account, client address)
//! pair, the client address, and the account — each limited per fixed window
//! that starts at its first attempt. Slots are taken by conditional updates,
//! so however many attempts arrive together no counter passes its limit.
//! A refused attempt takes no slot, so hammering a locked pair does not
//! extend its lockout; a successful login gives its slots back.

use diesel::prelude::*;

use crate::store::schema::login_throttles as lt;
use crate::store::{on_backend, AnyConnection};

/// At most `attempts` per `window_s`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limit {
    pub attempts: u32,
    pub window_s: u64,
}

#[derive(Clone, Debug)]
pub struct LoginPolicy {
    /// One account from one address: the limit an attacker meets first.
    pub per_account_address: Limit,
    /// One address, whatever accounts it tries (stops password spraying).
    pub per_address: Limit,
    /// One account from every address: the slower, global backoff that a
    /// distributed attacker meets; a pit boss can lift it.
    pub per_account: Limit,
}

impl Default for LoginPolicy {
    fn default() -> LoginPolicy {
        LoginPolicy {
            per_account_address: Limit {
                attempts: 5,
                window_s: 15 * 60,
            },
            per_address: Limit {
                attempts: 100,
                window_s: 15 * 60,
            },
            per_account: Limit {
                attempts: 50,
                window_s: 60 * 60,
            },
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    AccountAddress,
    Address,
    Account,
}

impl Scope {
    pub fn as_str(self) -> &'static str {
        match self {
            Scope::AccountAddress => "account_address",
            Scope::Address => "address",
            Scope::Account => "account",
        }
    }
}

/// One counter: its scope and the (username, address) it counts, with ''
/// for the part its scope ignores.
#[derive(Clone, Debug)]
struct Counter {
    scope: Scope,
    username: String,
    address: String,
    limit: Limit,
}

/// The slots one login attempt holds.
#[derive(Clone, Debug)]
pub struct Attempt {
    counters: Vec<Counter>,
}

/// A login refused before its password was checked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refusal {
    pub scope: Scope,
    pub retry_after_s: u64,
}

#[derive(Debug, thiserror::Error)]
pub enum ThrottleError {
    #[error("too many login attempts ({}); retry after {} s", .0.scope.as_str(), .0.retry_after_s)]
    Refused(Refusal),
    #[error(transparent)]
    Db(#[from] diesel::result::Error),
    #[error(transparent)]
    Store(#[from] crate::store::StoreError),
}

impl Attempt {
    pub fn new(policy: &LoginPolicy, username: &str, address: &str) -> Attempt {
        let counter = |scope, username: &str, address: &str, limit| Counter {
            scope,
            username: username.to_string(),
            address: address.to_string(),
            limit,
        };
        Attempt {
            counters: vec![
                counter(Scope::AccountAddress, username, address, policy.per_account_address),
                counter(Scope::Address, "", address, policy.per_address),
                counter(Scope::Account, username, "", policy.per_account),
            ],
        }
    }
}

fn window_us(limit: Limit) -> i64 {
    (limit.window_s as i64).saturating_mul(1_000_000)
}

macro_rules! counter_row {
    ($c:expr) => {
        lt::table
            .filter(lt::scope.eq($c.scope.as_str()))
            .filter(lt::username.eq(&$c.username))
            .filter(lt::address.eq(&$c.address))
    };
}

/// Takes a slot in every counter of `attempt`, or none: run it in a write
/// transaction, which an `Err` rolls back.
pub fn take_slots(conn: &mut AnyConnection, attempt: &Attempt, now_us: i64) -> Result<(), ThrottleError> {
    for c in &attempt.counters {
        on_backend!(conn, |conn| diesel::insert_into(lt::table)
            .values((
                lt::scope.eq(c.scope.as_str()),
                lt::username.eq(&c.username),
                lt::address.eq(&c.address),
                lt::window_start_us.eq(now_us),
                lt::attempts.eq(0),
                lt::refusal_logged.eq(false),
            ))
            .on_conflict_do_nothing()
            .execute(conn))?;
        // A window that has passed starts again at this attempt.
        diesel::update(counter_row!(c).filter(lt::window_start_us.le(now_us - window_us(c.limit))))
            .set((
                lt::window_start_us.eq(now_us),
                lt::attempts.eq(0),
                lt::refusal_logged.eq(false),
            ))
            .execute(conn)?;
        // Atomic: concurrent updates of one row serialize and re-check the
        // condition, so no more than `attempts` slots are ever taken.
        let taken = diesel::update(counter_row!(c).filter(lt::attempts.lt(c.limit.attempts as i32)))
            .set(lt::attempts.eq(lt::attempts + 1))
            .execute(conn)?;
        if taken == 0 {
            let start: i64 = counter_row!(c).select(lt::window_start_us).first(conn)?;
            let retry_after_us = (start + window_us(c.limit) - now_us).max(1_000_000);
            return Err(ThrottleError::Refused(Refusal {
                scope: c.scope,
                retry_after_s: (retry_after_us as u64).div_ceil(1_000_000),
            }));
        }
    }
    Ok(())
}

/// Marks a refusal of `scope` for this attempt as logged; true the first time
/// in its window, so a flood of refused attempts makes one significant event.
pub fn first_refusal(conn: &mut AnyConnection, attempt: &Attempt, scope: Scope) -> QueryResult<bool> {
    let Some(c) = attempt.counters.iter().find(|c| c.scope == scope) else {
        return Ok(false);
    };
    let changed = diesel::update(counter_row!(c).filter(lt::refusal_logged.eq(false)))
        .set(lt::refusal_logged.eq(true))
        .execute(conn)?;
    Ok(changed == 1)
}

/// Gives the attempt's slots back: its password was right, or never checked.
/// A right password also forgives its (account, address) pair's failures.
pub fn give_back(conn: &mut AnyConnection, attempt: &Attempt, succeeded: bool) -> QueryResult<()> {
    for c in &attempt.counters {
        if succeeded && c.scope == Scope::AccountAddress {
            diesel::update(counter_row!(c)).set(lt::attempts.eq(0)).execute(conn)?;
        } else {
            diesel::update(counter_row!(c).filter(lt::attempts.gt(0)))
                .set(lt::attempts.eq(lt::attempts - 1))
                .execute(conn)?;
        }
    }
    Ok(())
}

/// Lifts every lockout of an account (a pit boss's unlock). Returns how many
/// counters were cleared.
pub fn unlock_account(conn: &mut AnyConnection, username: &str) -> QueryResult<usize> {
    diesel::delete(
        lt::table
            .filter(lt::username.eq(username))
            .filter(lt::scope.ne(Scope::Address.as_str())),
    )
    .execute(conn)
}

/// Forgets counters whose windows are long over, so names tried by an
/// attacker do not accumulate.
pub fn forget_expired(conn: &mut AnyConnection, policy: &LoginPolicy, now_us: i64) -> QueryResult<usize> {
    let longest = [policy.per_account_address, policy.per_address, policy.per_account]
        .into_iter()
        .map(window_us)
        .max()
        .unwrap_or(0);
    diesel::delete(lt::table.filter(lt::window_start_us.lt(now_us - longest))).execute(conn)
}
