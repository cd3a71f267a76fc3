//! The state of one Lobo round and the rules that move it (docs/lobo.md).
//!
//! Invariant: the deck is a permutation of the mode's cards; every card of it is in exactly
//! one of: the player's hand, the Wolf's hand, the discards, or the undealt part
//! `deck[next..]` (whose first card is the face-up cub).

use super::error::{BadDeck, IllegalPlay};
use super::mode::Mode;
use super::play::{kind_of, rank_sum, Play, PlayKind};
use crate::cards::{ordered_deck, Card};
use serde::{Deserialize, Serialize};

/// Cards dealt to each hand at the start (positions 0–3 to the Wolf, 4–7 to the player).
pub const HAND_SIZE: usize = 4;

/// Why a round ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EndReason {
    /// The Wolf's hand is empty: the player wins their hand's points.
    WolfEmptied,
    /// The player folded: they pay the Wolf's hand.
    Folded,
    /// The Wolf still has cards and the player has no capture left: they pay the Wolf's hand.
    NoLegalPlay,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct LoboState {
    mode: Mode,
    deck: Vec<Card>,
    /// Index of the cub in `deck`; `deck.len()` once the deck has run out.
    next: usize,
    player: Vec<Card>,
    wolf: Vec<Card>,
    discards: Vec<Card>,
    plays: Vec<Play>,
    end: Option<EndReason>,
}

impl LoboState {
    /// Deals a fresh round from a shuffled deck (position 0 is the top).
    pub fn deal(mode: Mode, deck: &[Card]) -> Result<LoboState, BadDeck> {
        check_deck(mode, deck)?;
        Ok(LoboState::dealt_from(mode, deck))
    }

    /// Deals a later round of three-round play from the cards an earlier round left undealt,
    /// top first (docs/lobo.md §9): the same deal, from a shorter deck. `cards` must be distinct
    /// cards of the mode, at least two hands' worth; fewer cannot be dealt.
    pub fn deal_rest(mode: Mode, cards: &[Card]) -> Result<LoboState, BadDeck> {
        check_rest(mode, cards)?;
        Ok(LoboState::dealt_from(mode, cards))
    }

    /// The deal itself, from checked cards: the Wolf's hand, then the player's.
    fn dealt_from(mode: Mode, cards: &[Card]) -> LoboState {
        let mut wolf = cards[0..HAND_SIZE].to_vec();
        let mut player = cards[HAND_SIZE..2 * HAND_SIZE].to_vec();
        wolf.sort();
        player.sort();
        let mut state = LoboState {
            mode,
            deck: cards.to_vec(),
            next: 2 * HAND_SIZE,
            player,
            wolf,
            discards: Vec::new(),
            plays: Vec::new(),
            end: None,
        };
        state.settle_end();
        state
    }

    /// The cards still undealt, top first: the cub, then the face-down cards under it.
    pub fn undealt(&self) -> &[Card] {
        &self.deck[self.next.min(self.deck.len())..]
    }

    pub fn mode(&self) -> Mode {
        self.mode
    }
    /// The player's hand, sorted by id.
    pub fn player_hand(&self) -> &[Card] {
        &self.player
    }
    /// The Wolf's hand (face up), sorted by id.
    pub fn wolf_hand(&self) -> &[Card] {
        &self.wolf
    }
    /// The face-up top card of the deck, if any card is left.
    pub fn cub(&self) -> Option<Card> {
        self.deck.get(self.next).copied()
    }
    /// Cards left in the deck, the cub included.
    pub fn cards_left(&self) -> usize {
        self.deck.len() - self.next
    }
    /// The face-down cards under the cub, top first (hidden from the player).
    pub fn undealt_under_cub(&self) -> &[Card] {
        &self.deck[(self.next + 1).min(self.deck.len())..]
    }
    pub fn discards(&self) -> &[Card] {
        &self.discards
    }
    pub fn plays(&self) -> &[Play] {
        &self.plays
    }
    pub fn deck(&self) -> &[Card] {
        &self.deck
    }
    pub fn end_reason(&self) -> Option<EndReason> {
        self.end
    }
    pub fn is_over(&self) -> bool {
        self.end.is_some()
    }

    /// Every legal play, captures first (all card-id combinations), then Fold.
    /// Empty once the round is over.
    pub fn legal_plays(&self) -> Vec<Play> {
        if self.end.is_some() {
            return Vec::new();
        }
        let mut plays = captures(&self.player, &self.wolf);
        plays.push(Play::fold());
        plays
    }

    /// Applies a play, or says why it is illegal. Card lists may come in any order.
    pub fn apply(&self, play: &Play) -> Result<LoboState, IllegalPlay> {
        if self.end.is_some() {
            return Err(IllegalPlay::RoundOver);
        }
        let play = play.canonical();
        check_distinct(&play.player_cards)?;
        check_distinct(&play.wolf_cards)?;
        if let Some(&card) = play.player_cards.iter().find(|c| !self.player.contains(c)) {
            return Err(IllegalPlay::NotInPlayerHand { card });
        }
        if let Some(&card) = play.wolf_cards.iter().find(|c| !self.wolf.contains(c)) {
            return Err(IllegalPlay::NotInWolfHand { card });
        }
        let actual = kind_of(&play.player_cards, &play.wolf_cards).ok_or(IllegalPlay::NoSuchCapture {
            player_sum: rank_sum(&play.player_cards),
            wolf_sum: rank_sum(&play.wolf_cards),
        })?;
        if actual != play.kind {
            return Err(IllegalPlay::WrongKind {
                stated: play.kind,
                actual,
            });
        }
        let mut next = self.clone();
        if play.kind == PlayKind::Fold {
            next.end = Some(EndReason::Folded);
            next.plays.push(play);
            return Ok(next);
        }
        next.player.retain(|c| !play.player_cards.contains(c));
        next.wolf.retain(|c| !play.wolf_cards.contains(c));
        next.discards.extend(play.player_cards.iter().chain(&play.wolf_cards));
        match play.kind {
            PlayKind::Perfect | PlayKind::Sum => {
                if let Some(cub) = next.take_top() {
                    next.player.push(cub);
                }
            }
            PlayKind::Split => {
                if let Some(cub) = next.take_top() {
                    next.wolf.push(cub);
                }
            }
            PlayKind::Over => {
                let difference = play.player_cards[0].rank().value() - play.wolf_cards[0].rank().value();
                for _ in 0..difference {
                    if let Some(card) = next.take_top() {
                        next.wolf.push(card);
                    }
                }
            }
            PlayKind::Fold => unreachable!("handled above"),
        }
        next.player.sort();
        next.wolf.sort();
        next.plays.push(play);
        next.settle_end();
        debug_assert!(next.conserves_cards());
        Ok(next)
    }

    /// The round's result once it is over.
    pub fn outcome(&self) -> Option<Outcome> {
        let reason = self.end?;
        Some(match reason {
            EndReason::WolfEmptied => Outcome {
                player_won: true,
                points: rank_sum(&self.player),
                reason,
            },
            EndReason::Folded | EndReason::NoLegalPlay => Outcome {
                player_won: false,
                points: rank_sum(&self.wolf),
                reason,
            },
        })
    }

    /// What the player may see: everything except the face-down cards under the cub.
    pub fn public_view(&self) -> PublicView {
        PublicView {
            mode: self.mode,
            player_hand: self.player.clone(),
            wolf_hand: self.wolf.clone(),
            cub: self.cub(),
            cards_left: self.cards_left(),
            face_down_left: self.undealt_under_cub().len(),
            discards: self.discards.clone(),
            plays: self.plays.clone(),
            legal_plays: self.legal_plays(),
            outcome: self.outcome(),
        }
    }

    /// A mid-round state built from its parts (tests only): `deck` order is discards, hands, then
    /// the cub and the face-down cards.
    #[cfg(test)]
    pub(crate) fn from_parts(
        mode: Mode,
        wolf: &[Card],
        player: &[Card],
        discards: &[Card],
        rest: &[Card],
    ) -> LoboState {
        let mut deck: Vec<Card> = discards.iter().chain(wolf).chain(player).copied().collect();
        let next = deck.len();
        deck.extend(rest);
        let (mut wolf, mut player) = (wolf.to_vec(), player.to_vec());
        wolf.sort();
        player.sort();
        let mut s = LoboState {
            mode,
            deck,
            next,
            player,
            wolf,
            discards: discards.to_vec(),
            plays: Vec::new(),
            end: None,
        };
        s.settle_end();
        debug_assert!(s.conserves_cards());
        s
    }

    /// The same state with the face-down cards in another order (tests only).
    #[cfg(test)]
    pub(crate) fn with_face_down(&self, order: &[Card]) -> LoboState {
        let mut s = self.clone();
        let start = (s.next + 1).min(s.deck.len());
        s.deck.truncate(start);
        s.deck.extend(order);
        debug_assert!(s.conserves_cards());
        s
    }

    fn take_top(&mut self) -> Option<Card> {
        let card = self.deck.get(self.next).copied()?;
        self.next += 1;
        Some(card)
    }

    fn settle_end(&mut self) {
        if self.end.is_some() {
            return;
        }
        if self.wolf.is_empty() {
            self.end = Some(EndReason::WolfEmptied);
        } else if captures(&self.player, &self.wolf).is_empty() {
            self.end = Some(EndReason::NoLegalPlay);
        }
    }

    /// Every card of the deck is in exactly one place.
    pub fn conserves_cards(&self) -> bool {
        let mut all: Vec<Card> = self
            .player
            .iter()
            .chain(&self.wolf)
            .chain(&self.discards)
            .chain(&self.deck[self.next..])
            .copied()
            .collect();
        all.sort();
        let mut deck = self.deck.clone();
        deck.sort();
        all == deck
    }
}

/// Replays a round from its deck and its plays (all the service needs to store).
pub fn replay(mode: Mode, deck: &[Card], plays: &[Play]) -> Result<LoboState, IllegalPlay> {
    let mut state = LoboState::deal(mode, deck).map_err(IllegalPlay::BadDeck)?;
    for (index, play) in plays.iter().enumerate() {
        state = state.apply(play).map_err(|e| IllegalPlay::AtIndex {
            index,
            inner: Box::new(e),
        })?;
    }
    Ok(state)
}

/// Free-function forms of the state's methods.
pub fn legal_plays(state: &LoboState) -> Vec<Play> {
    state.legal_plays()
}
pub fn apply(state: &LoboState, play: &Play) -> Result<LoboState, IllegalPlay> {
    state.apply(play)
}
pub fn outcome(state: &LoboState) -> Option<Outcome> {
    state.outcome()
}

/// The end of a round. `points` is the player's hand sum on a win, the Wolf's hand sum on a loss.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Outcome {
    pub player_won: bool,
    pub points: u32,
    pub reason: EndReason,
}

impl Outcome {
    /// Points actually paid: a loss is capped at `loss_cap_points` when the table has a cap.
    pub fn capped_points(&self, loss_cap_points: Option<u32>) -> u32 {
        match (self.player_won, loss_cap_points) {
            (false, Some(cap)) => self.points.min(cap),
            _ => self.points,
        }
    }

    /// The player's net result in points (positive on a win), before any house charge.
    pub fn player_net_points(&self, loss_cap_points: Option<u32>) -> i64 {
        let paid = self.capped_points(loss_cap_points) as i64;
        if self.player_won {
            paid
        } else {
            -paid
        }
    }
}

/// The player's view of a round: no face-down card and nothing derived from one.
/// The Wolf's hand is face up (the player must see it to choose captures; docs/lobo.md).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PublicView {
    pub mode: Mode,
    pub player_hand: Vec<Card>,
    pub wolf_hand: Vec<Card>,
    pub cub: Option<Card>,
    /// Cards left in the deck, the cub included.
    pub cards_left: usize,
    /// Face-down cards under the cub.
    pub face_down_left: usize,
    pub discards: Vec<Card>,
    pub plays: Vec<Play>,
    pub legal_plays: Vec<Play>,
    pub outcome: Option<Outcome>,
}

fn check_deck(mode: Mode, deck: &[Card]) -> Result<(), BadDeck> {
    if deck.len() != mode.deck_len() {
        return Err(BadDeck::WrongLength {
            expected: mode.deck_len(),
            found: deck.len(),
        });
    }
    check_cards(mode, deck)?;
    debug_assert_eq!(deck.len(), ordered_deck(mode.max_rank()).len());
    Ok(())
}

fn check_rest(mode: Mode, cards: &[Card]) -> Result<(), BadDeck> {
    if cards.len() < 2 * HAND_SIZE {
        return Err(BadDeck::TooFewCards {
            needed: 2 * HAND_SIZE,
            found: cards.len(),
        });
    }
    check_cards(mode, cards)
}

/// Every card is of the mode and none is repeated.
fn check_cards(mode: Mode, cards: &[Card]) -> Result<(), BadDeck> {
    let mut seen = [false; Card::DECK_SIZE];
    for &card in cards {
        if card.rank().value() > mode.max_rank() {
            return Err(BadDeck::CardNotInMode { card });
        }
        if std::mem::replace(&mut seen[card.id() as usize], true) {
            return Err(BadDeck::DuplicateCard { card });
        }
    }
    Ok(())
}

fn check_distinct(cards: &[Card]) -> Result<(), IllegalPlay> {
    // `cards` is sorted, so a repeat is adjacent.
    match cards.windows(2).find(|w| w[0] == w[1]) {
        Some(w) => Err(IllegalPlay::DuplicateCard { card: w[0] }),
        None => Ok(()),
    }
}

/// Every capture (no Fold) between two hands, as canonical plays.
fn captures(player: &[Card], wolf: &[Card]) -> Vec<Play> {
    let mut plays = Vec::new();
    for &p in player {
        for &w in wolf {
            if p.rank() == w.rank() {
                plays.push(Play::new(PlayKind::Perfect, vec![p], vec![w]));
            } else if p.rank() > w.rank() {
                plays.push(Play::new(PlayKind::Over, vec![p], vec![w]));
            }
        }
    }
    // Sums: subsets of at least two player cards (the player holds at most a few).
    let n = player.len();
    if n < 16 {
        for mask in 1u32..(1 << n) {
            if mask.count_ones() < 2 {
                continue;
            }
            let used: Vec<Card> = (0..n).filter(|i| mask & (1 << i) != 0).map(|i| player[i]).collect();
            let sum = rank_sum(&used);
            for &w in wolf {
                if w.rank().value() as u32 == sum {
                    plays.push(Play::new(PlayKind::Sum, used.clone(), vec![w]));
                }
            }
        }
    }
    // Splits: subsets of at least two Wolf cards adding to one player card (at most 10).
    for &p in player {
        let target = p.rank().value() as u32;
        let mut chosen = Vec::new();
        subsets_summing(wolf, 0, target, &mut chosen, &mut |subset| {
            if subset.len() >= 2 {
                plays.push(Play::new(PlayKind::Split, vec![p], subset.to_vec()));
            }
        });
    }
    plays
}

/// Calls `found` with every subset of `cards[from..]` (by position) whose ranks add to `remaining`.
fn subsets_summing(
    cards: &[Card],
    from: usize,
    remaining: u32,
    chosen: &mut Vec<Card>,
    found: &mut dyn FnMut(&[Card]),
) {
    if remaining == 0 {
        found(chosen);
        return;
    }
    for i in from..cards.len() {
        let r = cards[i].rank().value() as u32;
        if r <= remaining {
            chosen.push(cards[i]);
            subsets_summing(cards, i + 1, remaining - r, chosen, found);
            chosen.pop();
        }
    }
}
