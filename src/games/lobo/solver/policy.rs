//! Simple strategies, measured on dealt decks to show the skill gap to perfect play.

use super::super::PlayKind;
use super::expectimax::GameLimits;
use super::position::{card_count, rank_plays, rank_total, remove_cards, Position, RankPlay, RANKS};
use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SimplePolicy {
    /// Fold before any play: pays the Wolf's opening hand.
    FoldAtOnce,
    /// Take a Perfect or a Sum when there is one (the one taking the highest Wolf card), otherwise fold.
    PerfectOrSum,
    /// As `PerfectOrSum`, then a Split, then an Over by 1, otherwise fold.
    CaptureWithoutRisk,
}

impl SimplePolicy {
    pub const ALL: [SimplePolicy; 3] = [
        SimplePolicy::FoldAtOnce,
        SimplePolicy::PerfectOrSum,
        SimplePolicy::CaptureWithoutRisk,
    ];

    pub fn choose(self, pos: &Position) -> Option<RankPlay> {
        if self == SimplePolicy::FoldAtOnce {
            return None;
        }
        let mut plays = Vec::new();
        rank_plays(pos, 1, &mut plays);
        let taken = |p: &RankPlay| rank_total(&p.wolf);
        let best_of = |kinds: &[PlayKind]| {
            plays
                .iter()
                .filter(|p| kinds.contains(&p.kind))
                .max_by_key(|p| (taken(p), std::cmp::Reverse(card_count(&p.player))))
                .copied()
        };
        let safe = best_of(&[PlayKind::Perfect, PlayKind::Sum]);
        if self == SimplePolicy::PerfectOrSum || safe.is_some() {
            return safe;
        }
        best_of(&[PlayKind::Split]).or_else(|| best_of(&[PlayKind::Over]))
    }
}

/// Net points of one deck (ranks, top first) played by `policy`, with the table's loss cap.
pub fn play_deck(ranks: &[u8], policy: SimplePolicy, limits: GameLimits) -> f64 {
    let mut pos = super::deals::opening_of(ranks);
    let mut cub_at = 8usize;
    loop {
        let Some(play) = policy.choose(&pos) else {
            return -limits.loss_points(&pos.wolf);
        };
        let mut after = remove_cards(&pos, &play);
        let deal = match play.kind {
            PlayKind::Over => play.difference as usize,
            _ => 1,
        };
        for _ in 0..deal {
            if let Some(&r) = ranks.get(cub_at) {
                let hand = if matches!(play.kind, PlayKind::Perfect | PlayKind::Sum) {
                    &mut after.player
                } else {
                    &mut after.wolf
                };
                hand[r as usize - 1] += 1;
                cub_at += 1;
            }
        }
        if card_count(&after.wolf) == 0 {
            return rank_total(&after.player) as f64;
        }
        after.cub = ranks.get(cub_at).copied().unwrap_or(0);
        after.unknown = [0; RANKS];
        for &r in ranks.iter().skip(cub_at + 1) {
            after.unknown[r as usize - 1] += 1;
        }
        pos = after;
    }
}
