//! A whole round, rebuilt from what the service persists: the deck, the
//! seated suits, the table rules and the copa decisions so far (a replay API).
//! `play` deals the first pass, applies the copa decisions in turn, and deals
//! the repasso once the copa is over; it stops where it needs a decision.

use super::event::Event;
use super::layout::{Layout, PassEnd, TableState};
use super::rules::{CobreRule, TableRules, Variant};
use super::seats::{parse_deck, Seats};
use super::strategy::{basic_strategy, CopaAdvice};
use super::EngineError;
use crate::cards::{Card, Suit};
use serde::{Deserialize, Serialize};

/// The spiga, in table units (docs/prima-carta.md).
pub const SPIGA_UNITS: u32 = 1;
/// The corte, in table units (docs/prima-carta.md).
pub const CORTE_UNITS: u32 = 1;

/// A seated player's copa decision, given in turn.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CopaDecision {
    pub suit: Suit,
    pub pay: bool,
}

/// How the winner won.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WinKind {
    /// A live suit completed during the first pass: no copa (docs/prima-carta.md).
    FirstPassCompletion,
    /// Everyone else folded at the copa (docs/prima-carta.md).
    LastLive,
    /// The first live suit to complete in the repasso (docs/prima-carta.md).
    RepassoCompletion,
    /// Cinco: the tallest owned stack after the only pass (docs/prima-carta.md).
    CincoTallest,
}

/// One seated suit's money in the pot, in table units.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Contribution {
    pub suit: Suit,
    pub spiga_units: u32,
    pub copa_units: u32,
}

/// The cobre (docs/prima-carta.md): the folded players' spigas leave the pot.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CobreOutcome {
    /// The first folded suit to complete, before the winner.
    pub triggered_by: Suit,
    /// Every folded suit, whose spiga leaves the pot.
    pub folded_suits: Vec<Suit>,
    pub units: u32,
    /// `Carry` (to the table's next pot) or `House` (house revenue); never `Off`.
    pub disposition: CobreRule,
}

/// The outcome of a finished round, in integer table units.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RoundResult {
    pub winner: Suit,
    pub how: WinKind,
    pub prima: Suit,
    /// Passes dealt (1 when the round ended in the first pass or at the copa).
    pub passes: u8,
    pub folded: Vec<Suit>,
    /// One per seated suit, Crowns → Cups.
    pub contributions: Vec<Contribution>,
    /// All spigas and copas of this round.
    pub pot_units: u32,
    /// Who paid the corte to the dealer's tips (outside the pot).
    pub corte_payer: Option<Suit>,
    pub corte_units: u32,
    pub cobre: Option<CobreOutcome>,
    /// `pot_units` less the cobre. A cobre carried in from an earlier round is
    /// added by the service; it is not this round's spiga and never leaves again.
    pub winner_takes_units: u32,
}

/// Whose copa turn it is and what it costs.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CopaTurn {
    pub turn: Suit,
    /// The copa: the number of cards in the player's stack.
    pub copa_units: u32,
    pub stack_count: u8,
    /// The printed basic strategy against the other live players' counts.
    pub advice: CopaAdvice,
    /// Live players (not folded), in copa turn order.
    pub live: Vec<Suit>,
    /// Players still to decide after `turn`, in order.
    pub waiting: Vec<Suit>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "phase", rename_all = "snake_case")]
pub enum Phase {
    AwaitingCopa(CopaTurn),
    Finished(RoundResult),
}

/// Everything the service shows after rebuilding a round.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RoundProgress {
    pub phase: Phase,
    pub events: Vec<Event>,
    pub table: TableState,
}

impl RoundProgress {
    pub fn result(&self) -> Option<&RoundResult> {
        match &self.phase {
            Phase::Finished(result) => Some(result),
            Phase::AwaitingCopa(_) => None,
        }
    }
}

/// Replays a round from its deck, rules, seated suits and the copa decisions
/// given so far. Starts by dealing the first pass (call it once the dealer
/// deals); returns at the first pending copa decision or at the end.
///
/// `reshuffle` is used only by Jasper, once, after the copa: it receives the
/// discard pile in the order it would be dealt and must shuffle it in place by
/// continuing the round's RNG stream. On every replay pass a stream positioned
/// just after the deck shuffle.
pub fn play(
    deck: &[Card],
    rules: &TableRules,
    seated: &[Suit],
    decisions: &[CopaDecision],
    reshuffle: &mut dyn FnMut(&mut [Card]),
) -> Result<RoundProgress, EngineError> {
    let deck = parse_deck(deck)?;
    let seats = Seats::new(seated)?;
    let mut layout = Layout::new(&deck);
    // As the deal-out reserves: a pass's events, twice over, before growing.
    let mut events = Vec::with_capacity(2 * Card::DECK_SIZE);
    let mut round = Round {
        seats,
        rules: *rules,
        copas: [0; Suit::COUNT],
        folded: Vec::new(),
    };

    layout.start_pass(&mut events, None)?;
    let early_end = rules.variant != Variant::Cinco;
    let first = layout.run_pass(&mut events, &mut |suit| early_end && seats.owns(suit))?;
    let prima = layout.prima().unwrap_or(deck[0].suit());
    if rules.corte && seats.owns(prima) {
        events.push(Event::Corte {
            suit: prima,
            units: CORTE_UNITS,
        });
    }

    if let PassEnd::Stopped(winner) = first {
        reject_any(decisions)?;
        return Ok(round.finish(layout, events, winner, WinKind::FirstPassCompletion));
    }
    if rules.variant == Variant::Cinco {
        reject_any(decisions)?;
        let winner = cinco_winner(&layout, &seats);
        return Ok(round.finish(layout, events, winner, WinKind::CincoTallest));
    }

    // The copa, in turn order; it ends as soon as one live player remains.
    let order = seats.copa_order(prima);
    let mut given = decisions.iter();
    for (position, &suit) in order.iter().enumerate() {
        if round.live(&order).len() == 1 {
            break;
        }
        let Some(decision) = given.next() else {
            let turn = round.copa_turn(&layout, &order, position);
            let table = layout.table_state(seats.suits(), round.folded.clone());
            return Ok(RoundProgress {
                phase: Phase::AwaitingCopa(turn),
                events,
                table,
            });
        };
        if decision.suit != suit {
            return Err(EngineError::NotYourTurn {
                expected: suit,
                got: decision.suit,
            });
        }
        if decision.pay {
            let units = layout.count(suit) as u32;
            round.copas[suit.index()] = units;
            events.push(Event::CopaPaid { suit, units });
        } else {
            round.folded.push(suit);
            events.push(Event::Folded { suit });
        }
    }
    reject_any(given.as_slice())?;
    let live = round.live(&order);
    if let [winner] = live[..] {
        return Ok(round.finish(layout, events, winner, WinKind::LastLive));
    }

    // The repasso: until a live suit completes.
    let reshuffle = (rules.variant == Variant::Jasper).then_some(reshuffle);
    let winner = layout.run_repassos(&mut events, reshuffle, &mut |suit| live.contains(&suit))?;
    Ok(round.finish(layout, events, winner, WinKind::RepassoCompletion))
}

fn reject_any(decisions: &[CopaDecision]) -> Result<(), EngineError> {
    match decisions.first() {
        Some(d) => Err(EngineError::NoCopaPending { suit: d.suit }),
        None => Ok(()),
    }
}

/// Cinco: the tallest owned stack; ties to the suit whose foundation was dealt first.
fn cinco_winner(layout: &Layout, seats: &Seats) -> Suit {
    let mut best: Option<Suit> = None;
    for &suit in layout.foundation_order() {
        if seats.owns(suit) && best.map_or(true, |b| layout.count(suit) > layout.count(b)) {
            best = Some(suit);
        }
    }
    // After a full first pass every suit has a foundation, so an owned suit is found.
    best.unwrap_or_else(|| seats.suits()[0])
}

struct Round {
    seats: Seats,
    rules: TableRules,
    copas: [u32; Suit::COUNT],
    folded: Vec<Suit>,
}

impl Round {
    fn live(&self, order: &[Suit]) -> Vec<Suit> {
        order.iter().copied().filter(|s| !self.folded.contains(s)).collect()
    }

    fn copa_turn(&self, layout: &Layout, order: &[Suit], position: usize) -> CopaTurn {
        let turn = order[position];
        let live = self.live(order);
        let others: Vec<u8> = live.iter().filter(|&&s| s != turn).map(|&s| layout.count(s)).collect();
        CopaTurn {
            turn,
            copa_units: layout.count(turn) as u32,
            stack_count: layout.count(turn),
            advice: basic_strategy(layout.count(turn), &others),
            live,
            waiting: order[position + 1..].to_vec(),
        }
    }

    fn finish(self, layout: Layout, mut events: Vec<Event>, winner: Suit, how: WinKind) -> RoundProgress {
        let prima = layout.prima().unwrap_or(winner);
        let seated = self.seats.suits();
        let contributions: Vec<Contribution> = seated
            .iter()
            .map(|&suit| Contribution {
                suit,
                spiga_units: SPIGA_UNITS,
                copa_units: self.copas[suit.index()],
            })
            .collect();
        let pot_units: u32 = contributions.iter().map(|c| c.spiga_units + c.copa_units).sum();
        let corte_payer = (self.rules.corte && self.seats.owns(prima)).then_some(prima);

        // A folded suit that completed before the winner (only possible in a repasso).
        let triggered_by = layout
            .completion_order()
            .iter()
            .take_while(|&&s| s != winner)
            .copied()
            .find(|s| self.folded.contains(s));
        let cobre = match (self.rules.cobre, triggered_by) {
            (CobreRule::Off, _) | (_, None) => None,
            (disposition, Some(triggered_by)) => Some(CobreOutcome {
                triggered_by,
                folded_suits: self.folded.clone(),
                units: SPIGA_UNITS * self.folded.len() as u32,
                disposition,
            }),
        };
        let cobre_units = cobre.as_ref().map_or(0, |c| c.units);
        events.push(Event::Won { suit: winner, how });
        if let Some(c) = &cobre {
            events.push(Event::Cobre(c.clone()));
        }
        let result = RoundResult {
            winner,
            how,
            prima,
            passes: layout.pass(),
            folded: self.folded.clone(),
            contributions,
            pot_units,
            corte_payer,
            corte_units: if corte_payer.is_some() { CORTE_UNITS } else { 0 },
            cobre,
            winner_takes_units: pot_units - cobre_units,
        };
        let table = layout.table_state(seated, self.folded);
        RoundProgress {
            phase: Phase::Finished(result),
            events,
            table,
        }
    }
}
