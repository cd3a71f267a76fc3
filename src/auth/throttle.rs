//! Login throttling (docs/security.md, "Login limits"): a password is checked
//! only after slots are taken in the counters that apply, all at once in one
//! transaction: the (account, client address) pair, the client address, and,
//! for an address the account has not signed in from, the account. Each
//! counter is limited per fixed window that starts at its first attempt.
//! Slots are taken by conditional updates, so however many attempts arrive
//! together no counter passes its limit. A refused attempt takes no slot, so
//! hammering a locked counter does not extend its lockout; a successful
//! login gives its slots back and makes its address known to the account.
//!
//! The account's counter is a backoff, never a lockout: once an account's
//! budget of attempts from unknown addresses is spent, an unknown address
//! gets one attempt per (account, address) window instead of five, and an
//! address that has failed in its window gets none; an address the account
//! signed in from recently, or one that has not failed, still signs in. So
//! guessing from many addresses cannot keep the holder out.

use diesel::prelude::*;

use crate::store::schema::login_known_addresses as known;
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
    /// One account from every address it has not signed in from: past this
    /// budget the account is in backoff (below) until its window ends.
    pub per_account: Limit,
    /// In backoff, attempts per (account, address) window from an address the
    /// account has not signed in from: one, so each address that has failed
    /// waits out its window.
    pub backoff_per_account_address: u32,
    /// How long after a successful sign-in its address stays known to the
    /// account, exempt from the backoff.
    pub known_address_s: u64,
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
            backoff_per_account_address: 1,
            known_address_s: 30 * 24 * 60 * 60,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    AccountAddress,
    Address,
    /// The account's backoff: an unknown address that has failed, or has
    /// used its one attempt, waits.
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

/// One login attempt: the account and the client address it comes from.
#[derive(Clone, Debug)]
pub struct Attempt {
    username: String,
    address: String,
    policy: LoginPolicy,
}

/// The slots an admitted attempt holds, to be given back or kept.
#[derive(Clone, Debug)]
pub struct Slots {
    attempt: Attempt,
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
        Attempt {
            username: username.to_string(),
            address: address.to_string(),
            policy: policy.clone(),
        }
    }

    fn counter(&self, scope: Scope) -> Counter {
        let (username, address, limit) = match scope {
            Scope::AccountAddress => (&*self.username, &*self.address, self.policy.per_account_address),
            Scope::Address => ("", &*self.address, self.policy.per_address),
            Scope::Account => (&*self.username, "", self.policy.per_account),
        };
        Counter {
            scope,
            username: username.to_string(),
            address: address.to_string(),
            limit,
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

/// Takes a slot in `c` if fewer than `attempts` are taken in its window;
/// otherwise the seconds until its window ends.
fn take(conn: &mut AnyConnection, c: &Counter, attempts: u32, now_us: i64) -> Result<Result<(), u64>, ThrottleError> {
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
    let taken = diesel::update(counter_row!(c).filter(lt::attempts.lt(attempts as i32)))
        .set(lt::attempts.eq(lt::attempts + 1))
        .execute(conn)?;
    if taken == 1 {
        return Ok(Ok(()));
    }
    Ok(Err(seconds_left(conn, c, now_us)?))
}

fn seconds_left(conn: &mut AnyConnection, c: &Counter, now_us: i64) -> QueryResult<u64> {
    let start: i64 = counter_row!(c).select(lt::window_start_us).first(conn)?;
    let left_us = (start + window_us(c.limit) - now_us).max(1_000_000);
    Ok((left_us as u64).div_ceil(1_000_000))
}

/// Whether the account signed in from this address within the policy's
/// `known_address_s`.
pub fn is_known(conn: &mut AnyConnection, attempt: &Attempt, now_us: i64) -> QueryResult<bool> {
    let since = now_us - (attempt.policy.known_address_s as i64).saturating_mul(1_000_000);
    let found: i64 = known::table
        .filter(known::username.eq(&attempt.username))
        .filter(known::address.eq(&attempt.address))
        .filter(known::last_success_us.gt(since))
        .count()
        .get_result(conn)?;
    Ok(found > 0)
}

/// Takes the attempt's slots, or none: run it in a write transaction, which
/// an `Err` rolls back. A known address takes no slot of the account's; an
/// unknown one takes one, or, when the account's budget is spent, meets the
/// backoff.
pub fn take_slots(conn: &mut AnyConnection, attempt: &Attempt, now_us: i64) -> Result<Slots, ThrottleError> {
    let refused = |scope, retry_after_s| ThrottleError::Refused(Refusal { scope, retry_after_s });
    let mut counters = Vec::new();
    let pair = attempt.counter(Scope::AccountAddress);
    let mut pair_limit = pair.limit.attempts;
    let mut backoff_left_s = None;
    if !is_known(conn, attempt, now_us)? {
        let account = attempt.counter(Scope::Account);
        match take(conn, &account, account.limit.attempts, now_us)? {
            Ok(()) => counters.push(account),
            Err(left_s) => {
                pair_limit = attempt.policy.backoff_per_account_address.min(pair_limit);
                backoff_left_s = Some(left_s);
            }
        }
    }
    if let Err(pair_left_s) = take(conn, &pair, pair_limit, now_us)? {
        return Err(match backoff_left_s {
            // Free again when the pair's window or the account's ends.
            Some(account_left_s) => refused(Scope::Account, pair_left_s.min(account_left_s)),
            None => refused(Scope::AccountAddress, pair_left_s),
        });
    }
    counters.push(pair);
    let address = attempt.counter(Scope::Address);
    if let Err(left_s) = take(conn, &address, address.limit.attempts, now_us)? {
        return Err(refused(Scope::Address, left_s));
    }
    counters.push(address);
    Ok(Slots {
        attempt: attempt.clone(),
        counters,
    })
}

/// Marks a refusal of `scope` for this attempt as logged; true the first time
/// in its window, so a flood of refused attempts makes one significant event.
pub fn first_refusal(conn: &mut AnyConnection, attempt: &Attempt, scope: Scope) -> QueryResult<bool> {
    let c = attempt.counter(scope);
    let changed = diesel::update(counter_row!(c).filter(lt::refusal_logged.eq(false)))
        .set(lt::refusal_logged.eq(true))
        .execute(conn)?;
    Ok(changed == 1)
}

/// Gives the slots back: the password was right, or never checked. A right
/// password also forgives its (account, address) pair's failures and makes
/// the address known to the account.
pub fn give_back(conn: &mut AnyConnection, slots: &Slots, succeeded: bool, now_us: i64) -> QueryResult<()> {
    for c in &slots.counters {
        if succeeded && c.scope == Scope::AccountAddress {
            diesel::update(counter_row!(c)).set(lt::attempts.eq(0)).execute(conn)?;
        } else {
            diesel::update(counter_row!(c).filter(lt::attempts.gt(0)))
                .set(lt::attempts.eq(lt::attempts - 1))
                .execute(conn)?;
        }
    }
    if succeeded {
        remember(conn, &slots.attempt.username, &slots.attempt.address, now_us)?;
    }
    Ok(())
}

/// Records that `username` signed in from `address` now.
fn remember(conn: &mut AnyConnection, username: &str, address: &str, now_us: i64) -> QueryResult<()> {
    on_backend!(conn, |conn| diesel::insert_into(known::table)
        .values((
            known::username.eq(username),
            known::address.eq(address),
            known::last_success_us.eq(now_us),
        ))
        .on_conflict((known::username, known::address))
        .do_update()
        .set(known::last_success_us.eq(now_us))
        .execute(conn))?;
    Ok(())
}

/// Lifts an account's lockouts where its holder signs in (a pit boss's or an
/// operator's unlock): the (account, address) counters of the addresses the
/// account signed in from within `known_address_s`, and of `holder_address`
/// when given, which becomes known to the account, so the backoff no longer
/// applies to it. Nothing else is reset: the addresses that only failed keep
/// their counters and the account stays in backoff, so an unlock gives a
/// guesser no new attempts. Returns how many counters were cleared.
pub fn unlock_account(
    conn: &mut AnyConnection,
    policy: &LoginPolicy,
    username: &str,
    holder_address: Option<&str>,
    now_us: i64,
) -> QueryResult<usize> {
    if let Some(address) = holder_address {
        remember(conn, username, address, now_us)?;
    }
    let since = now_us - (policy.known_address_s as i64).saturating_mul(1_000_000);
    let addresses: Vec<String> = known::table
        .filter(known::username.eq(username))
        .filter(known::last_success_us.gt(since))
        .select(known::address)
        .load(conn)?;
    diesel::delete(
        lt::table
            .filter(lt::scope.eq(Scope::AccountAddress.as_str()))
            .filter(lt::username.eq(username))
            .filter(lt::address.eq_any(&addresses)),
    )
    .execute(conn)
}

/// Forgets counters whose windows are long over, so names tried by an
/// attacker do not accumulate, and addresses not signed in from for longer
/// than `known_address_s`.
pub fn forget_expired(conn: &mut AnyConnection, policy: &LoginPolicy, now_us: i64) -> QueryResult<usize> {
    let longest = [policy.per_account_address, policy.per_address, policy.per_account]
        .into_iter()
        .map(window_us)
        .max()
        .unwrap_or(0);
    let counters = diesel::delete(lt::table.filter(lt::window_start_us.lt(now_us - longest))).execute(conn)?;
    let since = now_us - (policy.known_address_s as i64).saturating_mul(1_000_000);
    let addresses = diesel::delete(known::table.filter(known::last_success_us.le(since))).execute(conn)?;
    Ok(counters + addresses)
}
