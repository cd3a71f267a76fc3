//! Hints at a price the service can pay (docs/lobo.md, "Hints"). A hint is a
//! solve of up to a few hundred milliseconds of CPU, so:
//!
//! - each position's hint is solved once and kept: a round's position is fixed
//!   by its deck and the plays made, so (round, plays made) names it, and every
//!   later request for it is answered from memory;
//! - a player starts at most [`HintLimits::solves_per_player_per_minute`]
//!   solves a minute (answers from memory are free);
//! - at most [`HintLimits::concurrent_solves`] solves run at once on an
//!   instance, so hints never take every core from the wager path.
//!
//! What exceeds a limit is refused at once, with when to ask again; nothing
//! waits. The limits are per instance: behind several instances a player's
//! allowance is that many times larger, and still bounded.

use governor::clock::{Clock, DefaultClock};
use governor::{DefaultKeyedRateLimiter, Quota, RateLimiter};
use lru::LruCache;
use std::num::NonZeroU32;
use std::num::NonZeroUsize;
use std::sync::Mutex;
use tokio::sync::Semaphore;

use crate::games::lobo::solver::Hint;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HintLimits {
    pub solves_per_player_per_minute: u32,
    pub concurrent_solves: usize,
    /// Positions whose hints are kept (the least recently asked go first).
    pub cached_positions: usize,
}

impl Default for HintLimits {
    fn default() -> HintLimits {
        let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
        HintLimits {
            solves_per_player_per_minute: 6,
            concurrent_solves: (cores / 2).max(1),
            cached_positions: 4096,
        }
    }
}

/// Why a hint was not solved now.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum HintRefusal {
    #[error("too many new hints this minute; ask again in {retry_after_s} s")]
    TooMany { retry_after_s: u64 },
    #[error("every hint solver is busy; ask again in a moment")]
    Busy,
}

/// A position: the round and how many plays were made in it.
type Position = (String, usize);

pub struct HintDesk {
    solved: Mutex<LruCache<Position, Hint>>,
    starts: DefaultKeyedRateLimiter<String>,
    solving: Semaphore,
}

impl HintDesk {
    pub fn new(limits: HintLimits) -> HintDesk {
        let per_minute = NonZeroU32::new(limits.solves_per_player_per_minute.max(1)).expect("at least one");
        HintDesk {
            solved: Mutex::new(LruCache::new(
                NonZeroUsize::new(limits.cached_positions.max(1)).expect("at least one"),
            )),
            starts: RateLimiter::keyed(Quota::per_minute(per_minute)),
            solving: Semaphore::new(limits.concurrent_solves.max(1)),
        }
    }

    /// The hint at `plays_made` in `round_id`, from memory when it was solved
    /// before (`true`), else solved now by `solve` for `player_id` (`false`).
    /// `solve` returns `None` when the round is over.
    pub fn hint(
        &self,
        player_id: &str,
        round_id: &str,
        plays_made: usize,
        solve: impl FnOnce() -> Option<Hint>,
    ) -> Result<Option<(Hint, bool)>, HintRefusal> {
        let position: Position = (round_id.to_owned(), plays_made);
        if let Some(hint) = self.remembered(&position) {
            return Ok(Some((hint, true)));
        }
        let _slot = self.solving.try_acquire().map_err(|_| HintRefusal::Busy)?;
        // Counted only once a solver is free, so a refusal for being busy
        // does not use up the player's allowance.
        if let Err(not_until) = self.starts.check_key(&player_id.to_owned()) {
            let wait = not_until.wait_time_from(DefaultClock::default().now());
            return Err(HintRefusal::TooMany {
                retry_after_s: wait.as_secs() + u64::from(wait.subsec_nanos() > 0),
            });
        }
        // Forget players whose allowance is whole again, so the limiter's
        // memory follows the active players, not every player ever.
        if self.starts.len() > 10_000 {
            self.starts.retain_recent();
        }
        let Some(hint) = solve() else { return Ok(None) };
        self.lock().put(position, hint.clone());
        Ok(Some((hint, false)))
    }

    fn remembered(&self, position: &Position) -> Option<Hint> {
        self.lock().get(position).cloned()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, LruCache<Position, Hint>> {
        // A panic while holding the lock leaves only a cache behind: use it.
        self.solved.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::lobo::solver::HintBasis;
    use crate::games::lobo::Play;
    use std::cell::Cell;

    fn a_hint(label: &str) -> Hint {
        Hint {
            play: Play::fold(),
            value_points: Some(-1.0),
            exact: true,
            basis: HintBasis::Exact,
            label: label.to_string(),
            states: 1,
        }
    }

    #[test]
    fn a_position_is_solved_once_and_then_answered_from_memory() {
        let desk = HintDesk::new(HintLimits {
            solves_per_player_per_minute: 1,
            concurrent_solves: 1,
            cached_positions: 2,
        });
        let solves = Cell::new(0);
        let solve = || {
            solves.set(solves.get() + 1);
            Some(a_hint("solved"))
        };
        assert_eq!(desk.hint("ana", "r1", 0, solve), Ok(Some((a_hint("solved"), false))));
        for player in ["ana", "ana", "bea"] {
            assert_eq!(desk.hint(player, "r1", 0, solve), Ok(Some((a_hint("solved"), true))));
        }
        assert_eq!(solves.get(), 1);
        // A new position is a new solve, beyond Ana's one a minute; Bea has hers.
        let refused = desk.hint("ana", "r1", 1, solve);
        assert!(
            matches!(refused, Err(HintRefusal::TooMany { retry_after_s }) if (1..=60).contains(&retry_after_s)),
            "{refused:?}"
        );
        assert_eq!(desk.hint("bea", "r1", 1, solve), Ok(Some((a_hint("solved"), false))));
        assert_eq!(solves.get(), 2);
        // An over round is not remembered.
        assert_eq!(desk.hint("cid", "r2", 9, || None), Ok(None));
        assert_eq!(
            desk.hint("cid", "r2", 9, || None),
            Err(HintRefusal::TooMany { retry_after_s: 60 })
        );
    }

    #[test]
    fn no_more_solves_run_at_once_than_allowed() {
        let desk = HintDesk::new(HintLimits {
            solves_per_player_per_minute: 100,
            concurrent_solves: 1,
            cached_positions: 8,
        });
        let inner = desk.hint("ana", "r1", 0, || {
            // While this solve runs, another position must wait its turn.
            assert_eq!(
                desk.hint("bea", "r2", 0, || Some(a_hint("never"))),
                Err(HintRefusal::Busy)
            );
            Some(a_hint("first"))
        });
        assert_eq!(inner, Ok(Some((a_hint("first"), false))));
        assert_eq!(
            desk.hint("bea", "r2", 0, || Some(a_hint("second"))),
            Ok(Some((a_hint("second"), false)))
        );
    }
}
