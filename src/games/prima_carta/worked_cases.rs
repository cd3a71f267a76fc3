//! The worked cases of the rules, on hand-built decks.

use super::*;
use crate::cards::{Card, Rank, Suit};
use Suit::{Crowns, Cups, Fruit, Locks, Swords};

fn c(suit: Suit, rank: u8) -> Card {
    Card::new(suit, Rank::new(rank).unwrap())
}

/// Completes `prefix` into a full deck by appending the missing cards in id order.
fn deck_starting(prefix: &[Card]) -> Vec<Card> {
    let mut deck = prefix.to_vec();
    deck.extend(
        crate::cards::ordered_deck(10)
            .into_iter()
            .filter(|card| !prefix.contains(card)),
    );
    deck
}

/// One suit's block that leaves exactly two cards on its stack: 1 (foundation),
/// 3..=10 to the discard, then 2 plays up; the 10 on the discard does not.
fn block(suit: Suit) -> Vec<Card> {
    let mut cards = vec![c(suit, 1)];
    cards.extend((3..=10).map(|r| c(suit, r)));
    cards.push(c(suit, 2));
    cards
}

/// Crowns 1, Crowns 3..10 discarded, then the other suits' blocks, Crowns 2 last.
/// Every stack holds 2 after the first pass (N = 10); the repasso deals
/// Crowns 3..10 first, so Crowns completes first, then Locks.
fn crowns_first_in_repasso() -> Vec<Card> {
    let mut deck = vec![c(Crowns, 1)];
    deck.extend((3..=10).map(|r| c(Crowns, r)));
    for suit in [Locks, Fruit, Swords, Cups] {
        deck.extend(block(suit));
    }
    deck.push(c(Crowns, 2));
    assert_eq!(deck.len(), 50);
    deck
}

fn no_reshuffle() -> impl FnMut(&mut [Card]) {
    |_: &mut [Card]| panic!("this round must not reshuffle")
}

fn pay(suit: Suit) -> CopaDecision {
    CopaDecision { suit, pay: true }
}
fn fold(suit: Suit) -> CopaDecision {
    CopaDecision { suit, pay: false }
}

#[test]
fn the_ace_plays_on_the_ten() {
    let deck = deck_starting(&[c(Crowns, 9), c(Crowns, 10), c(Crowns, 1)]);
    let pass = first_pass(&deck).unwrap();
    let dealt: Vec<_> = pass
        .events
        .iter()
        .filter(|e| matches!(e, Event::Dealt { .. }))
        .take(3)
        .collect();
    assert_eq!(
        dealt,
        vec![
            &Event::Dealt {
                pass: 1,
                card: c(Crowns, 9),
                to: Destination::Foundation,
                stack_count: 1
            },
            &Event::Dealt {
                pass: 1,
                card: c(Crowns, 10),
                to: Destination::Stack,
                stack_count: 2
            },
            &Event::Dealt {
                pass: 1,
                card: c(Crowns, 1),
                to: Destination::Stack,
                stack_count: 3
            },
        ]
    );
    assert_eq!(pass.prima, Crowns);
}

#[test]
fn several_discards_play_up_in_a_row() {
    let deck = deck_starting(&[c(Locks, 3), c(Locks, 6), c(Locks, 5), c(Locks, 4), c(Fruit, 9)]);
    let pass = first_pass(&deck).unwrap();
    assert_eq!(
        pass.events[1..8].to_vec(),
        vec![
            Event::Dealt {
                pass: 1,
                card: c(Locks, 3),
                to: Destination::Foundation,
                stack_count: 1
            },
            Event::Prima { suit: Locks },
            Event::Dealt {
                pass: 1,
                card: c(Locks, 6),
                to: Destination::Discard,
                stack_count: 1
            },
            Event::Dealt {
                pass: 1,
                card: c(Locks, 5),
                to: Destination::Discard,
                stack_count: 1
            },
            Event::Dealt {
                pass: 1,
                card: c(Locks, 4),
                to: Destination::Stack,
                stack_count: 2
            },
            // Before the next card (Fruit 9) is dealt, the 5 then the 6 play up.
            Event::PlayedUp {
                pass: 1,
                card: c(Locks, 5),
                stack_count: 3
            },
            Event::PlayedUp {
                pass: 1,
                card: c(Locks, 6),
                stack_count: 4
            },
        ]
    );
}

#[test]
fn the_discard_is_played_up_after_the_last_card_too() {
    let mut deck: Vec<Card> = Vec::new();
    for suit in [Crowns, Fruit, Swords, Cups] {
        deck.extend(block(suit));
    }
    deck.push(c(Locks, 1));
    deck.extend((4..=10).map(|r| c(Locks, r)));
    deck.extend([c(Locks, 3), c(Locks, 2)]);
    let pass = first_pass(&deck).unwrap();
    let n = pass.events.len();
    assert_eq!(
        pass.events[n - 3..].to_vec(),
        vec![
            Event::Dealt {
                pass: 1,
                card: c(Locks, 2),
                to: Destination::Stack,
                stack_count: 2
            },
            Event::PlayedUp {
                pass: 1,
                card: c(Locks, 3),
                stack_count: 3
            },
            Event::PassEnded {
                pass: 1,
                promoted: 11,
                discard_count: 39
            },
        ]
    );
    assert_eq!(pass.counts, [2, 3, 2, 2, 2]);
    assert_eq!(first_pass_counts(&deck), pass.counts);
}

#[test]
fn a_live_suit_completing_in_the_first_pass_wins_at_once() {
    let deck = deck_starting(&(1..=10).map(|r| c(Swords, r)).collect::<Vec<_>>());
    let rules = TableRules {
        variant: Variant::Classic,
        corte: true,
        cobre: CobreRule::House,
    };
    let round = play(&deck, &rules, &[Swords, Cups], &[], &mut no_reshuffle()).unwrap();
    let result = round.result().expect("finished");
    assert_eq!((result.winner, result.how), (Swords, WinKind::FirstPassCompletion));
    assert_eq!(result.pot_units, 2);
    assert_eq!(result.winner_takes_units, 2);
    assert_eq!(result.corte_payer, Some(Swords));
    assert_eq!(round.table.deck_remaining, 40, "dealing stops at once");
    assert_eq!(
        round.events.last(),
        Some(&Event::Won {
            suit: Swords,
            how: WinKind::FirstPassCompletion
        })
    );
    // No copa after an early end.
    assert_eq!(
        play(&deck, &rules, &[Swords, Cups], &[pay(Swords)], &mut no_reshuffle()),
        Err(EngineError::NoCopaPending { suit: Swords })
    );
    // The side bets still see the whole first pass.
    let facts = deal_facts(&deck, Variant::Classic, &mut no_reshuffle()).unwrap();
    assert_eq!(facts.first_to_complete, Swords);
    assert_eq!(facts.first_pass_count, first_pass_count(&deck));
    assert_eq!(facts.first_pass_counts[Swords.index()], 10);
}

#[test]
fn an_unowned_suit_completing_in_the_first_pass_does_not_end_it() {
    let mut deck: Vec<Card> = (1..=10).map(|r| c(Swords, r)).collect();
    for suit in [Crowns, Locks, Fruit, Cups] {
        deck.extend(block(suit));
    }
    let round = play(&deck, &TableRules::CLASSIC, &[Locks, Cups], &[], &mut no_reshuffle()).unwrap();
    let Phase::AwaitingCopa(turn) = &round.phase else {
        panic!("copa expected")
    };
    // Prima is Swords, unowned: the copa starts at the next owned suit, Cups.
    assert_eq!(turn.turn, Cups);
    assert_eq!(turn.waiting, vec![Locks]);
    assert!(round.events.contains(&Event::SuitCompleted { pass: 1, suit: Swords }));
}

#[test]
fn a_folded_suit_finishing_first_forms_the_cobre() {
    let deck = crowns_first_in_repasso();
    let rules = TableRules {
        variant: Variant::Classic,
        corte: true,
        cobre: CobreRule::Carry,
    };
    let seated = [Fruit, Crowns, Locks];
    let waiting = play(&deck, &rules, &seated, &[], &mut no_reshuffle()).unwrap();
    let Phase::AwaitingCopa(turn) = &waiting.phase else {
        panic!("copa expected")
    };
    assert_eq!((turn.turn, turn.copa_units), (Crowns, 2));
    assert_eq!(waiting.table.stacks.map(|s| s.count), [2; 5]);

    let decisions = [fold(Crowns), pay(Locks), pay(Fruit)];
    let round = play(&deck, &rules, &seated, &decisions, &mut no_reshuffle()).unwrap();
    let result = round.result().expect("finished");
    assert_eq!(
        (result.winner, result.how, result.passes),
        (Locks, WinKind::RepassoCompletion, 2)
    );
    assert_eq!(result.folded, vec![Crowns]);
    assert_eq!(result.pot_units, 3 + 2 + 2);
    assert_eq!(result.corte_payer, Some(Crowns));
    let cobre = result.cobre.clone().expect("cobre");
    assert_eq!(
        cobre,
        CobreOutcome {
            triggered_by: Crowns,
            folded_suits: vec![Crowns],
            units: 1,
            disposition: CobreRule::Carry
        }
    );
    assert_eq!(result.winner_takes_units, 6);
    let completed: Vec<_> = round
        .events
        .iter()
        .filter_map(|e| {
            if let Event::SuitCompleted { suit, .. } = e {
                Some(*suit)
            } else {
                None
            }
        })
        .collect();
    assert_eq!(completed, vec![Crowns, Locks]);

    // Cobre off: the winner takes the whole pot.
    let off = TableRules {
        cobre: CobreRule::Off,
        ..rules
    };
    let result = play(&deck, &off, &seated, &decisions, &mut no_reshuffle())
        .unwrap()
        .result()
        .cloned()
        .unwrap();
    assert_eq!((result.cobre, result.winner_takes_units), (None, 7));

    let facts = deal_facts(&deck, Variant::Classic, &mut no_reshuffle()).unwrap();
    assert_eq!(facts.first_pass_count, 10);
    assert_eq!(facts.first_to_complete, Crowns);
    assert_eq!(facts.foundation_order, [Crowns, Locks, Fruit, Swords, Cups]);
}

#[test]
fn the_last_live_player_wins_at_the_copa() {
    let deck = crowns_first_in_repasso();
    let round = play(
        &deck,
        &TableRules::CLASSIC,
        &[Crowns, Cups],
        &[fold(Crowns)],
        &mut no_reshuffle(),
    )
    .unwrap();
    let result = round.result().expect("finished");
    assert_eq!((result.winner, result.how, result.passes), (Cups, WinKind::LastLive, 1));
    assert_eq!(result.pot_units, 2);
    // Cups never decides: anything more is refused.
    assert_eq!(
        play(
            &deck,
            &TableRules::CLASSIC,
            &[Crowns, Cups],
            &[fold(Crowns), pay(Cups)],
            &mut no_reshuffle()
        ),
        Err(EngineError::NoCopaPending { suit: Cups })
    );
}

#[test]
fn copa_decisions_out_of_turn_are_errors() {
    let deck = crowns_first_in_repasso();
    assert_eq!(
        play(
            &deck,
            &TableRules::CLASSIC,
            &[Crowns, Cups],
            &[pay(Cups)],
            &mut no_reshuffle()
        ),
        Err(EngineError::NotYourTurn {
            expected: Crowns,
            got: Cups
        })
    );
    assert_eq!(
        play(
            &deck,
            &TableRules::CLASSIC,
            &[Crowns, Cups],
            &[pay(Crowns), pay(Crowns)],
            &mut no_reshuffle()
        ),
        Err(EngineError::NotYourTurn {
            expected: Cups,
            got: Crowns
        })
    );
    assert_eq!(
        play(
            &deck,
            &TableRules::CLASSIC,
            &[Crowns, Cups],
            &[pay(Crowns), pay(Cups), pay(Crowns)],
            &mut no_reshuffle()
        ),
        Err(EngineError::NoCopaPending { suit: Crowns })
    );
}

#[test]
fn cinco_ties_go_to_the_first_foundation() {
    let deck = crowns_first_in_repasso();
    let cinco = TableRules {
        variant: Variant::Cinco,
        corte: false,
        cobre: CobreRule::Off,
    };
    for (seated, winner) in [
        ([Swords, Fruit], Fruit),
        ([Cups, Locks], Locks),
        ([Crowns, Cups], Crowns),
    ] {
        let round = play(&deck, &cinco, &seated, &[], &mut no_reshuffle()).unwrap();
        let result = round.result().expect("cinco finishes after one pass");
        assert_eq!(
            (result.winner, result.how, result.passes),
            (winner, WinKind::CincoTallest, 1)
        );
    }
    assert_eq!(
        play(&deck, &cinco, &[Swords, Fruit], &[pay(Swords)], &mut no_reshuffle()),
        Err(EngineError::NoCopaPending { suit: Swords })
    );
}

#[test]
fn cinco_prefers_the_tallest_stack() {
    // Swords: 1, 2, 3 play, 5..10 are discarded, 4 plays last: four cards;
    // every other suit two. Crowns' foundation comes later than Swords'.
    let mut deck = vec![c(Swords, 1), c(Swords, 2), c(Swords, 3)];
    deck.extend((5..=10).map(|r| c(Swords, r)));
    for suit in [Crowns, Locks, Fruit, Cups] {
        deck.extend(block(suit));
    }
    deck.push(c(Swords, 4));
    let pass = first_pass(&deck).unwrap();
    assert_eq!(pass.counts, [2, 2, 2, 4, 2]);
    let cinco = TableRules {
        variant: Variant::Cinco,
        corte: false,
        cobre: CobreRule::Off,
    };
    let result = play(&deck, &cinco, &[Crowns, Swords], &[], &mut no_reshuffle()).unwrap();
    assert_eq!(result.result().unwrap().winner, Swords);
}

#[test]
fn jasper_reshuffles_the_discards_once_and_records_it() {
    let deck = crowns_first_in_repasso();
    let jasper = TableRules {
        variant: Variant::Jasper,
        corte: false,
        cobre: CobreRule::House,
    };
    let mut calls = 0;
    // Reversing puts Cups 10..3 first: nothing plays until Crowns 3 arrives late.
    let mut reverse = |cards: &mut [Card]| {
        calls += 1;
        cards.reverse()
    };
    let decisions = [pay(Crowns), pay(Cups)];
    let round = play(&deck, &jasper, &[Crowns, Cups], &decisions, &mut reverse).unwrap();
    assert_eq!(calls, 1);
    let reshuffled = round.events.iter().find_map(|e| match e {
        Event::Reshuffled { before, after } => Some((before.clone(), after.clone())),
        _ => None,
    });
    let (before, after) = reshuffled.expect("a reshuffle event");
    assert_eq!(before[..8], (3..=10).map(|r| c(Crowns, r)).collect::<Vec<_>>()[..]);
    assert_eq!(after, before.iter().rev().copied().collect::<Vec<_>>());
    let live = Event::Reshuffled {
        before: before.clone(),
        after: after.clone(),
    }
    .live_view();
    assert_eq!(
        live,
        Event::Reshuffled {
            before: before.clone(),
            after: vec![]
        }
    );

    // The same stream gives the same facts.
    let facts = deal_facts(&deck, Variant::Jasper, &mut |cards: &mut [Card]| cards.reverse()).unwrap();
    let first_completed = round.events.iter().find_map(|e| match e {
        Event::SuitCompleted { suit, .. } => Some(*suit),
        _ => None,
    });
    assert_eq!(first_completed, Some(facts.first_to_complete));

    // A reshuffle that is not a permutation is refused.
    let mut cheat = |cards: &mut [Card]| cards[0] = cards[1];
    assert_eq!(
        play(&deck, &jasper, &[Crowns, Cups], &decisions, &mut cheat),
        Err(EngineError::ReshuffleNotPermutation)
    );
}

#[test]
fn bad_decks_and_seats_are_errors() {
    let deck = crowns_first_in_repasso();
    assert!(matches!(
        play(
            &deck[1..],
            &TableRules::CLASSIC,
            &[Crowns, Cups],
            &[],
            &mut no_reshuffle()
        ),
        Err(EngineError::InvalidDeck { .. })
    ));
    assert_eq!(
        play(&deck, &TableRules::CLASSIC, &[Crowns], &[], &mut no_reshuffle()),
        Err(EngineError::SeatCount { seated: 1 })
    );
    assert!(deal_facts(&deck[..10], Variant::Classic, &mut no_reshuffle()).is_err());
    assert!(first_pass(&[]).is_err());
}

#[test]
fn events_serialise_with_snake_case_tags() {
    let deck = crowns_first_in_repasso();
    let round = play(
        &deck,
        &TableRules::CLASSIC,
        &[Crowns, Cups],
        &[fold(Crowns)],
        &mut no_reshuffle(),
    )
    .unwrap();
    let json = serde_json::to_value(&round).unwrap();
    assert_eq!(
        json["events"][0],
        serde_json::json!({"type": "pass_started", "pass": 1, "deck_count": 50})
    );
    assert_eq!(
        json["events"][1],
        serde_json::json!({"type": "dealt", "pass": 1, "card": 0, "to": "foundation", "stack_count": 1})
    );
    assert_eq!(json["phase"]["phase"], "finished");
    assert_eq!(json["phase"]["how"], "last_live");
    let back: RoundProgress = serde_json::from_value(json).unwrap();
    assert_eq!(back, round);
}
