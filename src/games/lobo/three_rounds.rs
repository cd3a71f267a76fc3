//! Three-round play (docs/lobo.md §9): one player plays three rounds of Lobo from one deck,
//! each round dealt from the cards the round before left undealt, and scores the rounds'
//! points: the player's points when they win a round, minus the Wolf's points when they
//! lose one (folded or out of captures). No loss cap: no money rides on a single round.
//!
//! The plays of all three rounds form one list; a round ends as the engine ends it, and the
//! next is dealt at once. A round that cannot be dealt (fewer than two hands' worth of cards
//! left) is not played: it scores 0 and the player's play is over.

use serde::Serialize;

use super::error::{BadDeck, IllegalPlay};
use super::mode::Mode;
use super::play::Play;
use super::state::{LoboState, Outcome};
use crate::cards::Card;

/// Rounds each player plays from the one deck.
pub const ROUNDS: usize = 3;

/// One player's three rounds: every round dealt so far, the last perhaps in play.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ThreeRounds {
    mode: Mode,
    rounds: Vec<LoboState>,
    /// A round came due with too few cards left to deal it.
    dealt_out: bool,
}

/// How one of the three rounds stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct RoundScore {
    /// 1, 2 or 3.
    pub number: usize,
    /// The round was dealt (false: not yet, or too few cards were left).
    pub dealt: bool,
    /// The engine's outcome once the round is over.
    pub outcome: Option<Outcome>,
    /// The round's score: +points on a win, −points on a loss, 0 otherwise.
    pub score: i64,
}

impl ThreeRounds {
    /// Deals the first round from a full shuffled deck (and the next ones, when a deal
    /// leaves no capture and ends its round at once).
    pub fn deal(mode: Mode, deck: &[Card]) -> Result<ThreeRounds, BadDeck> {
        let mut game = ThreeRounds {
            mode,
            rounds: vec![LoboState::deal(mode, deck)?],
            dealt_out: false,
        };
        game.deal_due_rounds();
        Ok(game)
    }

    /// While the last round is over and another is due, deals it from what the last one left.
    fn deal_due_rounds(&mut self) {
        while !self.dealt_out && self.rounds.len() < ROUNDS {
            let last = self.rounds.last().expect("the first round is dealt at once");
            if !last.is_over() {
                return;
            }
            match LoboState::deal_rest(self.mode, last.undealt()) {
                Ok(next) => self.rounds.push(next),
                // The cards left are distinct cards of the mode: only a short deck refuses.
                Err(_) => self.dealt_out = true,
            }
        }
    }

    pub fn mode(&self) -> Mode {
        self.mode
    }

    /// Every round dealt so far, in order.
    pub fn rounds(&self) -> &[LoboState] {
        &self.rounds
    }

    /// The round in play, if any.
    pub fn current(&self) -> Option<&LoboState> {
        self.rounds.last().filter(|r| !r.is_over())
    }

    /// All three rounds are over (or no more could be dealt).
    pub fn is_over(&self) -> bool {
        self.current().is_none()
    }

    /// A round came due with too few cards left to deal it.
    pub fn dealt_out(&self) -> bool {
        self.dealt_out
    }

    /// Every play of every round, in order.
    pub fn plays(&self) -> Vec<Play> {
        self.rounds.iter().flat_map(|r| r.plays().iter().cloned()).collect()
    }

    /// Applies a play to the round in play, dealing the next round when it ends.
    pub fn apply(&self, play: &Play) -> Result<ThreeRounds, IllegalPlay> {
        let current = self.current().ok_or(IllegalPlay::RoundOver)?;
        let after = current.apply(play)?;
        let mut next = self.clone();
        *next.rounds.last_mut().expect("a round is in play") = after;
        next.deal_due_rounds();
        Ok(next)
    }

    /// The folds that end the play of a player who stops: the round in play is folded, and
    /// every round still due is dealt and folded at once, as the rules settle a player who
    /// stops. Empty when the play is already over.
    pub fn folds_to_stop(&self) -> Vec<Play> {
        let mut game = self.clone();
        let mut folds = Vec::new();
        while !game.is_over() {
            game = game
                .apply(&Play::fold())
                .expect("a fold is legal while a round is in play");
            folds.push(Play::fold());
        }
        folds
    }

    /// The three rounds' scores, in order.
    pub fn scores(&self) -> [RoundScore; ROUNDS] {
        std::array::from_fn(|i| {
            let round = self.rounds.get(i);
            let outcome = round.and_then(LoboState::outcome);
            RoundScore {
                number: i + 1,
                dealt: round.is_some(),
                outcome,
                score: outcome.map_or(0, |o| o.player_net_points(None)),
            }
        })
    }

    /// The total so far: the sum of the rounds' scores.
    pub fn total(&self) -> i64 {
        self.scores().iter().map(|s| s.score).sum()
    }
}

/// Replays one player's three rounds from the deck and their plays (all the service stores).
pub fn replay_three_rounds(mode: Mode, deck: &[Card], plays: &[Play]) -> Result<ThreeRounds, IllegalPlay> {
    let mut game = ThreeRounds::deal(mode, deck).map_err(IllegalPlay::BadDeck)?;
    for (index, play) in plays.iter().enumerate() {
        game = game.apply(play).map_err(|e| IllegalPlay::AtIndex {
            index,
            inner: Box::new(e),
        })?;
    }
    Ok(game)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cards::shuffle::{shuffled_deck, Game, ServerSeed};
    use crate::games::lobo::EndReason;

    fn deck(mode: Mode, n: u8) -> Vec<Card> {
        let seed = ServerSeed::from_bytes([n; 32]);
        shuffled_deck(&seed, Game::Lobo, "three-rounds-test", "", mode.max_rank()).0
    }

    /// Plays the first legal play until the end.
    fn play_out(mut game: ThreeRounds) -> ThreeRounds {
        while let Some(round) = game.current() {
            let play = round.legal_plays()[0].clone();
            game = game.apply(&play).unwrap();
        }
        game
    }

    #[test]
    fn each_round_is_dealt_from_what_the_last_left() {
        for n in 0..40 {
            let mode = Mode::ALL[n as usize % 3];
            let deck = deck(mode, n);
            let game = play_out(ThreeRounds::deal(mode, &deck).unwrap());
            assert!(game.is_over());
            let mut offset = 0;
            for round in game.rounds() {
                // Each round's deck is the tail of the one deck, where the last round stopped.
                assert_eq!(round.deck(), &deck[offset..]);
                assert!(round.is_over());
                offset = deck.len() - round.undealt().len();
            }
            assert_eq!(game.rounds().len() == ROUNDS, !game.dealt_out());
            if game.dealt_out() {
                assert!(game.rounds().last().unwrap().undealt().len() < 8);
            }
            // The replay of the stored plays is the same game.
            assert_eq!(replay_three_rounds(mode, &deck, &game.plays()).unwrap(), game);
            let scores = game.scores();
            assert_eq!(game.total(), scores.iter().map(|s| s.score).sum::<i64>());
            for s in scores {
                match s.outcome {
                    Some(o) if o.player_won => assert_eq!(s.score, o.points as i64),
                    Some(o) => assert_eq!(s.score, -(o.points as i64)),
                    None => assert_eq!(s.score, 0),
                }
            }
        }
    }

    #[test]
    fn a_player_who_stops_folds_every_round_left() {
        let mode = Mode::Easy;
        for n in 0..20 {
            let deck = deck(mode, n);
            let game = ThreeRounds::deal(mode, &deck).unwrap();
            let folds = game.folds_to_stop();
            let mut stopped = game.clone();
            for f in &folds {
                stopped = stopped.apply(f).unwrap();
            }
            assert!(stopped.is_over());
            assert!(folds.len() <= ROUNDS);
            // Folding at once never plays a capture: four cards leave the deck per hand, so
            // three rounds of a 40-card deck are always dealt.
            assert_eq!(stopped.rounds().len(), ROUNDS);
            for (round, score) in stopped.rounds().iter().zip(stopped.scores()) {
                let o = round.outcome().unwrap();
                assert!(!o.player_won || o.reason == EndReason::WolfEmptied);
                assert_eq!(score.score, o.player_net_points(None));
            }
            assert!(stopped.folds_to_stop().is_empty());
        }
    }

    #[test]
    fn a_play_after_the_end_is_refused_and_a_short_deck_is_not_dealt() {
        let mode = Mode::Easy;
        let deck = deck(mode, 7);
        let game = play_out(ThreeRounds::deal(mode, &deck).unwrap());
        assert_eq!(game.apply(&Play::fold()), Err(IllegalPlay::RoundOver));
        assert_eq!(
            LoboState::deal_rest(mode, &deck[..7]),
            Err(BadDeck::TooFewCards { needed: 8, found: 7 })
        );
        let eight = LoboState::deal_rest(mode, &deck[..8]).unwrap();
        assert_eq!(eight.cub(), None);
        assert!(eight.conserves_cards());
    }
}
