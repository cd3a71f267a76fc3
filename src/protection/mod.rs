//! Player protection (docs/protection.md): the limits a player sets on their deposits, losses
//! and stakes and on the length of a session, and the time-outs and self-exclusions they take,
//! and the player's *standing* that every money-moving request toward play is checked against.
//!
//! What a player has deposited, staked and lost over a rolling window is read from the ledger
//! itself (their wallet's transfers), never kept beside it, so no path that moves money can
//! miss it. The wager path loads the standings of a batch's players once, under the ledger
//! head's lock, and checks each request against the running totals in memory (`Standing::check`,
//! then `record` once it moved money), so a batch admits exactly the requests that fit and no
//! other.

pub mod exclusions;
pub mod limits;
pub mod reality_checks;
pub mod session_limits;
pub mod tally;

use diesel::prelude::*;
use serde::Serialize;
use std::collections::HashMap;
use utoipa::ToSchema;

use crate::domain::format_minor;
use crate::store::schema::{
    player_exclusions as px, player_limits as pl, player_session_limits as psl, transfers as tr,
};
use crate::store::AnyConnection;

/// Microseconds in an hour.
pub const HOUR_US: i64 = 3_600_000_000;
/// Microseconds in a day.
pub const DAY_US: i64 = 24 * HOUR_US;
/// Microseconds in a minute.
pub const MINUTE_US: i64 = 60_000_000;
/// A raise of a limit waits this long before the player may confirm it.
pub const COOLING_OFF_US: i64 = DAY_US;

/// What a limit bounds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, serde::Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum LimitKind {
    /// Cash the cage credits to the wallet.
    Deposit,
    /// Money staked less money won back: what the player may lose.
    Loss,
    /// Money put into play (bets, seats, escrows, entry fees), less what came back unrisked.
    Stake,
}

impl LimitKind {
    pub const ALL: [LimitKind; 3] = [LimitKind::Deposit, LimitKind::Loss, LimitKind::Stake];

    pub fn as_str(self) -> &'static str {
        match self {
            LimitKind::Deposit => "deposit",
            LimitKind::Loss => "loss",
            LimitKind::Stake => "stake",
        }
    }

    pub fn parse(text: &str) -> Option<LimitKind> {
        LimitKind::ALL.into_iter().find(|k| k.as_str() == text)
    }

    /// As people read it: "deposits", "losses", "stakes".
    fn plural(self) -> &'static str {
        match self {
            LimitKind::Deposit => "deposits",
            LimitKind::Loss => "losses",
            LimitKind::Stake => "stakes",
        }
    }
}

/// The rolling window a limit counts over, ending now.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, serde::Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Period {
    /// The last 24 hours.
    Day,
    /// The last 7 days.
    Week,
    /// The last 30 days.
    Month,
}

impl Period {
    pub const ALL: [Period; 3] = [Period::Day, Period::Week, Period::Month];

    pub fn as_str(self) -> &'static str {
        match self {
            Period::Day => "day",
            Period::Week => "week",
            Period::Month => "month",
        }
    }

    pub fn parse(text: &str) -> Option<Period> {
        Period::ALL.into_iter().find(|p| p.as_str() == text)
    }

    pub fn window_us(self) -> i64 {
        match self {
            Period::Day => DAY_US,
            Period::Week => 7 * DAY_US,
            Period::Month => 30 * DAY_US,
        }
    }

    /// "daily", "weekly", "monthly".
    fn adjective(self) -> &'static str {
        match self {
            Period::Day => "daily",
            Period::Week => "weekly",
            Period::Month => "monthly",
        }
    }

    /// "24 hours", "7 days", "30 days".
    fn span(self) -> &'static str {
        match self {
            Period::Day => "24 hours",
            Period::Week => "7 days",
            Period::Month => "30 days",
        }
    }
}

/// A time-out or a self-exclusion.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, serde::Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ExclusionKind {
    TimeOut,
    SelfExclusion,
}

impl ExclusionKind {
    pub fn as_str(self) -> &'static str {
        match self {
            ExclusionKind::TimeOut => "time_out",
            ExclusionKind::SelfExclusion => "self_exclusion",
        }
    }

    pub fn parse(text: &str) -> Option<ExclusionKind> {
        [ExclusionKind::TimeOut, ExclusionKind::SelfExclusion]
            .into_iter()
            .find(|k| k.as_str() == text)
    }
}

/// A money-moving request toward play, as protection weighs it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Play {
    /// Money put at risk (a bet's stake, a seat's spiga and fees, a Lobo escrow and charge, an
    /// entry fee), in minor units: all of it counts as staked and as possibly lost.
    Stake(i64),
    /// Cash in at the cage, in minor units.
    Deposit(i64),
}

/// Why a request toward play was refused. Nothing moved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    Excluded {
        kind: ExclusionKind,
        /// When it ends (`None`: never).
        until_us: Option<i64>,
    },
    Limit {
        kind: LimitKind,
        period: Period,
        limit_minor: i64,
        used_minor: i64,
        asked_minor: i64,
    },
    /// The session has run as long as the player allowed it.
    SessionLength {
        limit_minutes: u32,
        started_at_us: i64,
        /// When the session ends, a pause of the floor's gap after its last play, and play may
        /// start again.
        resumes_at_us: i64,
    },
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {
            Refusal::Excluded { kind, until_us } => {
                let what = match kind {
                    ExclusionKind::TimeOut => "is taking a time-out",
                    ExclusionKind::SelfExclusion => "has excluded themself from play",
                };
                match until_us {
                    Some(until) => write!(
                        f,
                        "the player {what} until {}: no play and no deposit until then",
                        utc_minute(until)
                    ),
                    None => write!(f, "the player {what} for good: no play and no deposit"),
                }
            }
            Refusal::Limit {
                kind,
                period,
                limit_minor,
                used_minor,
                asked_minor,
            } => write!(
                f,
                "{} of {} would take the player's {} over the last {} to {}, over the {} {} limit they set of {} \
                 ({} left)",
                match kind {
                    LimitKind::Deposit => "a deposit",
                    _ => "a stake",
                },
                format_minor(asked_minor),
                kind.plural(),
                period.span(),
                format_minor(used_minor + asked_minor),
                period.adjective(),
                kind.as_str(),
                format_minor(limit_minor),
                format_minor((limit_minor - used_minor).max(0)),
            ),
            Refusal::SessionLength {
                limit_minutes,
                started_at_us,
                resumes_at_us,
            } => write!(
                f,
                "the player's session began at {} and has reached the {limit_minutes} minutes they set as its \
                 limit: play starts again from {}, after a pause",
                utc_minute(started_at_us),
                utc_minute(resumes_at_us),
            ),
        }
    }
}

impl std::error::Error for Refusal {}

/// An instant as people read it: `2026-12-01 18:05 UTC`.
pub fn utc_minute(at_us: i64) -> String {
    chrono::DateTime::from_timestamp_micros(at_us)
        .map(|t| t.format("%Y-%m-%d %H:%M UTC").to_string())
        .unwrap_or_else(|| format!("{at_us} µs"))
}

impl Refusal {
    /// The API's error code.
    pub fn code(&self) -> &'static str {
        match self {
            Refusal::Excluded { .. } => "excluded_from_play",
            Refusal::Limit { .. } => "play_limit_reached",
            Refusal::SessionLength { .. } => "session_limit_reached",
        }
    }
}

/// A limit in force.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limit {
    pub kind: LimitKind,
    pub period: Period,
    pub amount_minor: i64,
}

/// What a player has deposited, staked and lost over each window ending now, in minor units.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Totals {
    /// Indexed by `Period as usize`.
    pub deposited: [i64; 3],
    pub staked: [i64; 3],
    /// Staked less won back; negative when ahead.
    pub lost: [i64; 3],
}

/// One transfer's effect on a player's totals, at its instant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PlayMove {
    pub at_us: i64,
    pub deposited: i64,
    pub staked: i64,
    pub lost: i64,
}

impl PlayMove {
    /// Money to or from play, not the cage: what a session is made of.
    pub fn is_play(&self) -> bool {
        self.staked != 0 || self.lost != 0
    }
}

/// The plays of the session running at `now_us`, newest first: back from now while no pause
/// (between two plays, or since the last one) is longer than `gap_us`. The floor's rule for a
/// session (docs/floor.md, "Player ratings"), for the reality checks and the session limits.
pub fn current_session<T>(
    plays_newest_first: impl IntoIterator<Item = (i64, T)>,
    now_us: i64,
    gap_us: i64,
) -> impl Iterator<Item = (i64, T)> {
    let mut later_us = now_us;
    plays_newest_first.into_iter().take_while(move |(at_us, _)| {
        let within = later_us - *at_us <= gap_us;
        later_us = *at_us;
        within
    })
}

/// The players whose wallet a transfer touches, and what it adds to each one's totals: a deposit
/// from the cage counts as deposited; money to play counts as staked and lost; money back from
/// play is taken off the loss, and off the stake when it came back unrisked. One rule for the
/// ledger read ([`totals`]) and the wager path's kept tallies (`tally`).
pub fn plays_of<'a>(
    debit: &'a str,
    credit: &'a str,
    kind: &str,
    amount: i64,
    at_us: i64,
) -> impl Iterator<Item = (&'a str, PlayMove)> {
    let cage = crate::ledger::AccountId::cage();
    let unrisked = crate::game_registry::returns_unrisked(kind);
    let deposit = kind == "deposit";
    [(debit, credit, true), (credit, debit, false)]
        .into_iter()
        .filter_map(move |(wallet, other, toward_play)| {
            let player = wallet.strip_prefix("wallet:")?;
            let mut m = PlayMove {
                at_us,
                deposited: 0,
                staked: 0,
                lost: 0,
            };
            if other == cage.as_str() {
                if !toward_play && deposit {
                    m.deposited = amount;
                }
            } else if toward_play {
                m.staked = amount;
                m.lost = amount;
            } else {
                m.lost = -amount;
                if unrisked {
                    m.staked = -amount;
                }
            }
            Some((player, m))
        })
}

impl Totals {
    /// Adds a move to every window ending at `now_us` that holds it.
    pub fn add(&mut self, m: &PlayMove, now_us: i64) {
        for period in Period::ALL {
            if m.at_us < now_us - period.window_us() {
                continue;
            }
            let i = period as usize;
            self.deposited[i] += m.deposited;
            self.staked[i] += m.staked;
            self.lost[i] += m.lost;
        }
    }

    pub fn of(&self, kind: LimitKind, period: Period) -> i64 {
        let i = period as usize;
        match kind {
            LimitKind::Deposit => self.deposited[i],
            LimitKind::Loss => self.lost[i],
            LimitKind::Stake => self.staked[i],
        }
    }
}

/// A player's standing at one moment: whether they are excluded, their limits in force, and
/// (when they have any) their totals over each window.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Standing {
    /// The exclusion in force that ends last (a permanent one first).
    pub excluded: Option<(ExclusionKind, Option<i64>)>,
    pub limits: Vec<Limit>,
    pub totals: Totals,
    /// The session limit in force, with the session as it stands.
    pub session: Option<SessionClock>,
}

/// A session limit and the session it bounds, as of one moment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SessionClock {
    pub limit_minutes: u32,
    /// A pause longer than this ends a session (the floor's rating rule).
    pub gap_us: i64,
    pub now_us: i64,
    /// The session's first and last play; None outside a session.
    pub span_us: Option<(i64, i64)>,
}

impl SessionClock {
    /// Sets the session at `now_us` from the player's moves, oldest first.
    fn from_moves(&mut self, moves: &[PlayMove], now_us: i64) {
        self.now_us = now_us;
        let plays = moves.iter().rev().filter(|m| m.is_play()).map(|m| (m.at_us, ()));
        let mut session = current_session(plays, self.now_us, self.gap_us);
        self.span_us = session.next().map(|(last, ())| {
            let first = session.last().map_or(last, |(at, ())| at);
            (first, last)
        });
    }

    fn refusal(&self) -> Option<Refusal> {
        let (started_at_us, last_us) = self.span_us?;
        let limit_us = i64::from(self.limit_minutes) * MINUTE_US;
        (self.now_us - started_at_us >= limit_us).then_some(Refusal::SessionLength {
            limit_minutes: self.limit_minutes,
            started_at_us,
            resumes_at_us: last_us + self.gap_us,
        })
    }
}

impl Standing {
    /// Whether the wager path must count this player's play: a limit of either sort.
    pub fn counts_play(&self) -> bool {
        !self.limits.is_empty() || self.session.is_some()
    }

    /// Sets the totals and the session from the player's moves of the last 30 days, oldest first.
    pub fn count(&mut self, moves: &[PlayMove], now_us: i64) {
        let mut totals = Totals::default();
        for m in moves {
            totals.add(m, now_us);
        }
        self.totals = totals;
        if let Some(clock) = &mut self.session {
            clock.from_moves(moves, now_us);
        }
    }

    /// Whether `play` fits: not excluded, and within every limit on what it adds to.
    pub fn check(&self, play: Play) -> Result<(), Refusal> {
        if let Some((kind, until_us)) = self.excluded {
            return Err(Refusal::Excluded { kind, until_us });
        }
        if let (Play::Stake(_), Some(refusal)) = (play, self.session.and_then(|c| c.refusal())) {
            return Err(refusal);
        }
        let (asked, kinds): (i64, &[LimitKind]) = match play {
            Play::Stake(m) => (m, &[LimitKind::Stake, LimitKind::Loss]),
            Play::Deposit(m) => (m, &[LimitKind::Deposit]),
        };
        for limit in &self.limits {
            if !kinds.contains(&limit.kind) {
                continue;
            }
            let used = self.totals.of(limit.kind, limit.period);
            if used + asked > limit.amount_minor {
                return Err(Refusal::Limit {
                    kind: limit.kind,
                    period: limit.period,
                    limit_minor: limit.amount_minor,
                    used_minor: used,
                    asked_minor: asked,
                });
            }
        }
        Ok(())
    }

    /// Counts `play`, once it moved money.
    pub fn record(&mut self, play: Play) {
        if let (Play::Stake(_), Some(clock)) = (play, &mut self.session) {
            let first = clock.span_us.map_or(clock.now_us, |(first, _)| first);
            clock.span_us = Some((first, clock.now_us));
        }
        for i in 0..3 {
            match play {
                Play::Stake(m) => {
                    self.totals.staked[i] += m;
                    self.totals.lost[i] += m;
                }
                Play::Deposit(m) => self.totals.deposited[i] += m,
            }
        }
    }
}

/// The exclusions and limits in force of `players` (only those with any appear): what does
/// not move with the ledger, so the wager path reads it before the ledger head's lock. A
/// session limit's clock stands at `now_us`, outside a session until the moves are counted.
pub fn rules(conn: &mut AnyConnection, players: &[&str], now_us: i64) -> QueryResult<HashMap<String, Standing>> {
    let mut out: HashMap<String, Standing> = HashMap::new();
    if players.is_empty() {
        return Ok(out);
    }
    let exclusions: Vec<(String, String, Option<i64>)> = px::table
        .filter(px::player_id.eq_any(players))
        .filter(px::starts_at_us.le(now_us))
        .filter(px::ends_at_us.is_null().or(px::ends_at_us.gt(now_us)))
        .select((px::player_id, px::kind, px::ends_at_us))
        .load(conn)?;
    for (player, kind, ends) in exclusions {
        let kind = ExclusionKind::parse(&kind).unwrap_or(ExclusionKind::SelfExclusion);
        let standing = out.entry(player).or_default();
        // The one that ends last: a permanent one (None) outlasts any.
        let later = match standing.excluded {
            None => true,
            Some((_, None)) => false,
            Some((_, Some(current))) => ends.is_none_or(|e| e > current),
        };
        if later {
            standing.excluded = Some((kind, ends));
        }
    }
    let limits: Vec<(String, String, String, i64)> = pl::table
        .filter(pl::player_id.eq_any(players))
        .filter(pl::amount_minor.is_not_null())
        .select((pl::player_id, pl::kind, pl::period, pl::amount_minor.assume_not_null()))
        .load(conn)?;
    for (player, kind, period, amount_minor) in limits {
        if let (Some(kind), Some(period)) = (LimitKind::parse(&kind), Period::parse(&period)) {
            out.entry(player).or_default().limits.push(Limit {
                kind,
                period,
                amount_minor,
            });
        }
    }
    let sessions: Vec<(String, i32)> = psl::table
        .filter(psl::player_id.eq_any(players))
        .filter(psl::minutes.is_not_null())
        .select((psl::player_id, psl::minutes.assume_not_null()))
        .load(conn)?;
    if !sessions.is_empty() {
        let gap_us = session_gap_us(conn)?;
        for (player, minutes) in sessions {
            out.entry(player).or_default().session = Some(SessionClock {
                limit_minutes: minutes.max(0) as u32,
                gap_us,
                now_us,
                span_us: None,
            });
        }
    }
    Ok(out)
}

/// The floor's session gap (its rating rule), in microseconds.
pub fn session_gap_us(conn: &mut AnyConnection) -> QueryResult<i64> {
    let rule = crate::floor::rating_rule(conn).map_err(|e| match e {
        crate::floor::FloorError::Database(d) => d,
        other => diesel::result::Error::DeserializationError(other.to_string().into()),
    })?;
    Ok(i64::from(rule.spec().session_gap_minutes) * MINUTE_US)
}

/// Checks one request toward play (a seat, a Lobo round, a contest entry) against the player's
/// standing, inside the caller's write transaction. A player with a limit gets the ledger head's
/// lock first, as every writer of transfers takes it, so their totals cannot move between this
/// check and the caller's own transfers: a stake split across the wager path and these paths
/// still meets the limit whole.
pub fn admit(conn: &mut AnyConnection, player: &str, play: Play, now_us: i64) -> Result<(), AdmitError> {
    let Some(mut standing) = rules(conn, &[player], now_us)?.remove(player) else {
        return Ok(());
    };
    if standing.excluded.is_none() && standing.counts_play() {
        crate::ledger::lock_head_row(conn)?;
        let moves = moves(conn, &[player], now_us - Period::Month.window_us())?
            .remove(player)
            .unwrap_or_default();
        standing.count(&moves, now_us);
    }
    standing.check(play).map_err(AdmitError::Refused)
}

#[derive(Debug, thiserror::Error)]
pub enum AdmitError {
    #[error(transparent)]
    Refused(Refusal),
    #[error(transparent)]
    Db(#[from] diesel::result::Error),
}

/// Every wallet's deposits, stakes and losses over the three windows ending at `now_us`, from
/// the ledger's transfers since the longest window began.
pub fn totals(conn: &mut AnyConnection, players: &[&str], now_us: i64) -> QueryResult<HashMap<String, Totals>> {
    let moves = moves(conn, players, now_us - Period::Month.window_us())?;
    Ok(moves
        .into_iter()
        .map(|(player, moves)| {
            let mut totals = Totals::default();
            for m in &moves {
                totals.add(m, now_us);
            }
            (player, totals)
        })
        .collect())
}

/// Each wallet's moves to and from play and from the cage since `since_us`, oldest first, read
/// from the ledger's transfers ([`plays_of`]).
///
/// Toward play: a transfer from the wallet to anything but the cage. Back from play: one from
/// anything but the cage to the wallet. Staked is toward play less what came back unrisked (a
/// void's refund, a game's return of untouched escrow: `game_registry::returns_unrisked`);
/// lost is toward play less everything back from play.
pub fn moves(conn: &mut AnyConnection, players: &[&str], since_us: i64) -> QueryResult<HashMap<String, Vec<PlayMove>>> {
    let mut out: HashMap<String, Vec<PlayMove>> = HashMap::new();
    if players.is_empty() {
        return Ok(out);
    }
    // The first transfer of the window, by the time index; then each wallet's by its own.
    let first_seq: Option<i64> = tr::table
        .filter(tr::created_at_us.ge(since_us))
        .select(diesel::dsl::min(tr::seq))
        .first(conn)?;
    let Some(first_seq) = first_seq else { return Ok(out) };
    let wallets: Vec<String> = players.iter().map(|p| format!("wallet:{p}")).collect();
    let rows: Vec<(String, String, String, i64, i64)> = tr::table
        .filter(tr::seq.ge(first_seq))
        .filter(
            tr::debit_account
                .eq_any(&wallets)
                .or(tr::credit_account.eq_any(&wallets)),
        )
        .order(tr::seq.asc())
        .select((
            tr::debit_account,
            tr::credit_account,
            tr::kind,
            tr::amount_minor,
            tr::created_at_us,
        ))
        .load(conn)?;
    for (debit, credit, kind, amount, at_us) in rows {
        for (player, play) in plays_of(&debit, &credit, &kind, amount, at_us) {
            out.entry(player.to_owned()).or_default().push(play);
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests;
