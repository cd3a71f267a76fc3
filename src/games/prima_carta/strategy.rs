//! The printed basic strategy for the copa (the traditional "Basic Strategy for
//! Prima Carta"), transcribed as a pure function. It assumes no memory of the
//! card order and that every other player stays in; djego offers it to seated
//! players as advice and the game-math analysis uses it.
//!
//! The printed table:
//! 1. If you are in the lead, or tied for the lead, always play.
//! 2. Fold if the total number of cards above you is:
//!    a. 2 or more in 1 card, except: Play 2 vs 2-2-2-4
//!    b. 3 or more in 2 cards, except: Play 3 vs 2-2-4-4
//!    c. 4 or more in 3 cards, or
//!    d. 5 or more in 4 cards
//! 3. Otherwise bet, except:
//!    a. Fold 3 vs 2-4-4-4, 3-4-4-4
//!    b. Fold 4 vs 3-5-5-5
//!
//! Reading (see docs/prima-carta.md): "in k cards" means "spread over the k
//! opponents whose stacks are taller than yours", and "the total number of
//! cards above you" is the sum of how far each of them is above you. Each of
//! them is at least 1 above, so rule 2 folds exactly when some opponent is 2
//! or more above you. Exceptions name the whole table: own count, then the
//! other four counts in any order. Under this reading exception 2b's line
//! "Play 3 vs 2-2-4-4" (two stacks each 1 above: total 2, under 3) already
//! plays by rule 3; it is kept as printed and changes nothing.

use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CopaAdvice {
    Pay,
    Fold,
}

/// Rule 2's exceptions: play although rule 2 says fold (own, others sorted).
const PLAY_EXCEPTIONS: [(u8, [u8; 4]); 2] = [(2, [2, 2, 2, 4]), (3, [2, 2, 4, 4])];
/// Rule 3's exceptions: fold although rule 3 says bet (own, others sorted).
const FOLD_EXCEPTIONS: [(u8, [u8; 4]); 3] = [(3, [2, 4, 4, 4]), (3, [3, 4, 4, 4]), (4, [3, 5, 5, 5])];

/// The printed basic strategy. `own_count` is the player's stack size after
/// the first pass; `others_counts` the other live players' stack sizes, in
/// any order. With no others the player leads and pays.
pub fn basic_strategy(own_count: u8, others_counts: &[u8]) -> CopaAdvice {
    // Rule 1: leading or tied for the lead.
    if others_counts.iter().all(|&other| other <= own_count) {
        return CopaAdvice::Pay;
    }
    let table = sorted_four(others_counts);
    let is = |exceptions: &[(u8, [u8; 4])]| {
        table.is_some_and(|others| exceptions.iter().any(|&(own, t)| own == own_count && t == others))
    };
    // Rule 2: k stacks above you, `above` cards above you in total.
    let k = others_counts.iter().filter(|&&other| other > own_count).count();
    let above: u32 = others_counts
        .iter()
        .filter(|&&other| other > own_count)
        .map(|&other| (other - own_count) as u32)
        .sum();
    let rule_2_folds = match k {
        1 => above >= 2,
        2 => above >= 3,
        3 => above >= 4,
        _ => above >= 5, // k == 4 (more opponents than a table holds: same threshold)
    };
    if rule_2_folds {
        return if is(&PLAY_EXCEPTIONS) {
            CopaAdvice::Pay
        } else {
            CopaAdvice::Fold
        };
    }
    // Rule 3.
    if is(&FOLD_EXCEPTIONS) {
        CopaAdvice::Fold
    } else {
        CopaAdvice::Pay
    }
}

fn sorted_four(others: &[u8]) -> Option<[u8; 4]> {
    let mut four: [u8; 4] = others.try_into().ok()?;
    four.sort_unstable();
    Some(four)
}

#[cfg(test)]
mod tests {
    use super::CopaAdvice::{Fold, Pay};
    use super::*;

    #[test]
    fn rule_1_leading_or_tied_always_plays() {
        assert_eq!(basic_strategy(5, &[2, 3, 4, 5]), Pay);
        assert_eq!(basic_strategy(2, &[2]), Pay);
        assert_eq!(basic_strategy(2, &[2, 2, 2, 2]), Pay);
        assert_eq!(basic_strategy(9, &[]), Pay);
    }

    #[test]
    fn rule_2a_two_or_more_above_in_one_stack_folds() {
        assert_eq!(basic_strategy(2, &[4]), Fold);
        assert_eq!(basic_strategy(3, &[2, 5]), Fold);
        assert_eq!(basic_strategy(2, &[2, 2, 2, 5]), Fold);
        assert_eq!(basic_strategy(3, &[2, 2, 2, 5]), Fold);
        // one stack 1 above: not rule 2
        assert_eq!(basic_strategy(3, &[4]), Pay);
    }

    #[test]
    fn rule_2a_exception_play_2_vs_2_2_2_4() {
        assert_eq!(basic_strategy(2, &[2, 2, 2, 4]), Pay);
        assert_eq!(
            basic_strategy(2, &[4, 2, 2, 2]),
            Pay,
            "order of the others does not matter"
        );
        // Not the exception: three others only.
        assert_eq!(basic_strategy(2, &[2, 2, 4]), Fold);
    }

    #[test]
    fn rule_2b_three_or_more_in_two_stacks_folds() {
        assert_eq!(basic_strategy(3, &[4, 5]), Fold);
        assert_eq!(basic_strategy(2, &[2, 3, 4]), Fold);
        assert_eq!(basic_strategy(3, &[4, 4]), Pay);
    }

    #[test]
    fn rule_2b_exception_play_3_vs_2_2_4_4() {
        assert_eq!(basic_strategy(3, &[2, 2, 4, 4]), Pay);
        assert_eq!(basic_strategy(3, &[4, 2, 4, 2]), Pay);
    }

    #[test]
    fn rule_2c_four_or_more_in_three_stacks_folds() {
        assert_eq!(basic_strategy(3, &[4, 4, 5]), Fold);
        assert_eq!(basic_strategy(3, &[2, 4, 4, 5]), Fold);
        assert_eq!(basic_strategy(4, &[5, 5, 5]), Pay);
    }

    #[test]
    fn rule_2d_five_or_more_in_four_stacks_folds() {
        assert_eq!(basic_strategy(2, &[3, 3, 3, 4]), Fold);
        assert_eq!(basic_strategy(2, &[3, 3, 3, 3]), Pay);
    }

    #[test]
    fn rule_3_otherwise_bets() {
        assert_eq!(basic_strategy(4, &[5, 5, 5, 5]), Pay);
        assert_eq!(basic_strategy(2, &[3, 2, 2, 2]), Pay);
        assert_eq!(basic_strategy(3, &[4, 4, 4, 4]), Pay);
    }

    #[test]
    fn rule_3a_fold_3_vs_2_4_4_4_and_3_4_4_4() {
        assert_eq!(basic_strategy(3, &[2, 4, 4, 4]), Fold);
        assert_eq!(basic_strategy(3, &[4, 4, 2, 4]), Fold);
        assert_eq!(basic_strategy(3, &[3, 4, 4, 4]), Fold);
        assert_eq!(basic_strategy(3, &[4, 3, 4, 4]), Fold);
    }

    #[test]
    fn rule_3b_fold_4_vs_3_5_5_5() {
        assert_eq!(basic_strategy(4, &[3, 5, 5, 5]), Fold);
        assert_eq!(basic_strategy(4, &[5, 5, 3, 5]), Fold);
        assert_eq!(basic_strategy(4, &[2, 5, 5, 5]), Pay);
    }
}
