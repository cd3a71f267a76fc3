//! Settlement tests: worked decks for every kind, and a property test against
//! The side-bet rules (docs/side-bets.md) computed independently from a full deal-out done here.

use super::*;
use crate::cards::{ordered_deck, Card, Rank, Suit};
use crate::games::prima_carta::{first_pass_count, DealFacts};
use proptest::prelude::*;
use rust_decimal::Decimal;

fn card(suit: Suit, rank: u8) -> Card {
    Card::new(suit, Rank::new(rank).unwrap())
}

/// A deliberately plain full deal-out (no variant, no folding): passes repeat,
/// the discard pile turned over so that the first discarded card is dealt first,
/// until every suit is complete. Returns the facts and the first-pass count.
fn reference_facts(deck: &[Card]) -> DealFacts {
    let mut stacks: Vec<Vec<Card>> = vec![Vec::new(); 5];
    let mut foundation_order = Vec::new();
    let mut first_to_complete = None;
    let mut first_pass_counts = [0u8; 5];
    let mut to_deal: Vec<Card> = deck.to_vec();
    let mut pass = 0;
    let can_play = |stacks: &Vec<Vec<Card>>, c: Card| {
        let s = &stacks[c.suit().index()];
        match s.last() {
            None => true,
            Some(top) => s.len() < 10 && top.rank().successor() == c.rank(),
        }
    };
    loop {
        let mut discards: Vec<Card> = Vec::new();
        let play = |stacks: &mut Vec<Vec<Card>>, c: Card, first: &mut Option<Suit>, order: &mut Vec<Suit>| {
            if stacks[c.suit().index()].is_empty() {
                order.push(c.suit());
            }
            stacks[c.suit().index()].push(c);
            if stacks[c.suit().index()].len() == 10 && first.is_none() {
                *first = Some(c.suit());
            }
        };
        for &c in &to_deal {
            while let Some(&top) = discards.last() {
                if !can_play(&stacks, top) {
                    break;
                }
                discards.pop();
                play(&mut stacks, top, &mut first_to_complete, &mut foundation_order);
            }
            if can_play(&stacks, c) {
                play(&mut stacks, c, &mut first_to_complete, &mut foundation_order);
            } else {
                discards.push(c);
            }
        }
        while let Some(&top) = discards.last() {
            if !can_play(&stacks, top) {
                break;
            }
            discards.pop();
            play(&mut stacks, top, &mut first_to_complete, &mut foundation_order);
        }
        if pass == 0 {
            for s in 0..5 {
                first_pass_counts[s] = stacks[s].len() as u8;
            }
        }
        pass += 1;
        if discards.is_empty() {
            break;
        }
        assert!(discards.len() < to_deal.len(), "every pass promotes a card");
        to_deal = discards;
    }
    DealFacts {
        first_card: deck[0],
        foundations: [0, 1, 2, 3, 4].map(|s| stacks[s][0]),
        foundation_order: [0, 1, 2, 3, 4].map(|i| foundation_order[i]),
        first_pass_counts,
        first_pass_count: first_pass_counts.iter().sum(),
        first_to_complete: first_to_complete.unwrap(),
    }
}

/// Facts with the given first card, foundation ranks (by suit index), N and completer.
fn facts(first: Card, foundation_ranks: [u8; 5], n: u8, first_to_complete: Suit) -> DealFacts {
    DealFacts {
        first_card: first,
        foundations: [0, 1, 2, 3, 4].map(|s| card(Suit::ALL[s], foundation_ranks[s])),
        foundation_order: Suit::ALL,
        first_pass_counts: [n / 5, n / 5, n / 5, n / 5, n - 4 * (n / 5)],
        first_pass_count: n,
        first_to_complete,
    }
}

fn result(kind: BetKind, sel: Selection, table: &PayTable, f: &DealFacts) -> BetResult {
    settle(kind, &sel, table, f).unwrap().result
}

fn won(a: i64) -> BetResult {
    BetResult::Won { pays: Decimal::from(a) }
}

#[test]
fn sorted_deck_gives_the_expected_facts() {
    // The unshuffled deck: Crowns 1..10 play straight up, and so on: N = 50.
    let deck = ordered_deck(10);
    let f = reference_facts(&deck);
    assert_eq!(f.first_pass_count, 50);
    assert_eq!(first_pass_count(&deck), 50);
    assert_eq!(f.first_to_complete, Suit::Crowns);
    let t = PayTable::default_table();
    assert_eq!(result(BetKind::Prima, Selection::Suit(Suit::Crowns), &t, &f), won(2)); // first card is an Ace
    assert_eq!(result(BetKind::Escucha, Selection::Suit(Suit::Crowns), &t, &f), won(2)); // Ace foundation
    assert_eq!(
        result(BetKind::Escucha, Selection::Suit(Suit::Cups), &t, &f),
        BetResult::Lost
    );
    assert_eq!(result(BetKind::ContoAlto, Selection::None, &t, &f), won(8));
    assert_eq!(result(BetKind::Comeco, Selection::None, &t, &f), won(50));
}

#[test]
fn prima_wins_loses_and_pays_less_on_an_ace() {
    let t = PayTable::default_table();
    let f = facts(card(Suit::Fruit, 7), [1, 2, 7, 4, 5], 14, Suit::Cups);
    assert_eq!(result(BetKind::Prima, Selection::Suit(Suit::Fruit), &t, &f), won(4));
    assert_eq!(
        result(BetKind::Prima, Selection::Suit(Suit::Cups), &t, &f),
        BetResult::Lost
    );
    let f = facts(card(Suit::Fruit, 1), [1, 2, 1, 4, 5], 14, Suit::Cups);
    assert_eq!(result(BetKind::Prima, Selection::Suit(Suit::Fruit), &t, &f), won(2));
    assert_eq!(
        settle(BetKind::Prima, &Selection::Suit(Suit::Fruit), &t, &f)
            .unwrap()
            .decided_by,
        DecidedBy::FirstCard {
            card: card(Suit::Fruit, 1)
        }
    );
}

#[test]
fn escucha_follows_the_completing_suit_and_its_foundation() {
    let t = PayTable::default_table();
    let f = facts(card(Suit::Crowns, 3), [3, 1, 9, 4, 5], 14, Suit::Locks);
    assert_eq!(result(BetKind::Escucha, Selection::Suit(Suit::Locks), &t, &f), won(2));
    assert_eq!(
        result(BetKind::Escucha, Selection::Suit(Suit::Crowns), &t, &f),
        BetResult::Lost
    );
    let f = facts(card(Suit::Crowns, 3), [3, 1, 9, 4, 5], 14, Suit::Fruit);
    assert_eq!(result(BetKind::Escucha, Selection::Suit(Suit::Fruit), &t, &f), won(4));
}

#[test]
fn maximo_alone_pair_tie_and_wider_tie() {
    let t = PayTable::default_table();
    let mut push = t.spec().clone();
    push.maximo.pair_tie = PairTieRule::Push;
    push.version = 2;
    let push = PayTable::new(push).unwrap();
    let first = card(Suit::Crowns, 3);
    // alone
    let f = facts(first, [3, 10, 9, 4, 5], 14, Suit::Locks);
    assert_eq!(result(BetKind::Maximo, Selection::Suit(Suit::Locks), &t, &f), won(4));
    assert_eq!(
        result(BetKind::Maximo, Selection::Suit(Suit::Fruit), &t, &f),
        BetResult::Lost
    );
    // tied with exactly one other: lose, or push under the push rule
    let f = facts(first, [3, 10, 10, 4, 5], 14, Suit::Locks);
    assert_eq!(
        result(BetKind::Maximo, Selection::Suit(Suit::Locks), &t, &f),
        BetResult::Lost
    );
    assert_eq!(
        result(BetKind::Maximo, Selection::Suit(Suit::Locks), &push, &f),
        BetResult::Pushed
    );
    assert_eq!(
        result(BetKind::Maximo, Selection::Suit(Suit::Crowns), &push, &f),
        BetResult::Lost
    );
    // tied with two or more others: wins
    let f = facts(first, [3, 8, 8, 8, 5], 14, Suit::Locks);
    assert_eq!(result(BetKind::Maximo, Selection::Suit(Suit::Swords), &t, &f), won(4));
    assert_eq!(
        settle(BetKind::Maximo, &Selection::Suit(Suit::Swords), &t, &f)
            .unwrap()
            .decided_by,
        DecidedBy::HighestFoundation {
            rank: Rank::new(8).unwrap(),
            suits: vec![Suit::Locks, Suit::Fruit, Suit::Swords]
        }
    );
}

#[test]
fn count_bets_at_their_edges() {
    let t = PayTable::default_table();
    let at = |n: u8| facts(card(Suit::Crowns, 3), [3, 1, 9, 4, 5], n, Suit::Locks);
    let r = |k: BetKind, s: Selection, n: u8| result(k, s, &t, &at(n));
    assert_eq!(r(BetKind::ContoAlto, Selection::None, 16), BetResult::Lost);
    assert_eq!(r(BetKind::ContoAlto, Selection::None, 17), won(8));
    assert_eq!(r(BetKind::ContoBajo, Selection::None, 11), won(14));
    assert_eq!(r(BetKind::ContoBajo, Selection::None, 12), BetResult::Lost);
    assert_eq!(r(BetKind::ContoMedio, Selection::None, 13), BetResult::Lost);
    assert_eq!(r(BetKind::ContoMedio, Selection::None, 15), won(2));
    assert_eq!(
        r(BetKind::Cartas, Selection::Number(13), 13),
        BetResult::Won {
            pays: Decimal::new(410, 2)
        }
    );
    assert_eq!(r(BetKind::Cartas, Selection::Number(13), 12), BetResult::Lost);
    assert_eq!(r(BetKind::Comeco, Selection::None, 10), won(6));
    assert_eq!(r(BetKind::Comeco, Selection::None, 14), BetResult::Lost);
    assert_eq!(r(BetKind::Comeco, Selection::None, 30), won(50));
}

#[test]
fn selections_are_validated() {
    let t = PayTable::default_table();
    assert_eq!(
        BetKind::Prima.parse_selection(Some("cups"), None, &t),
        Ok(Selection::Suit(Suit::Cups))
    );
    assert!(matches!(
        BetKind::Prima.parse_selection(Some("hearts"), None, &t),
        Err(BetError::UnknownSuit(_))
    ));
    assert!(matches!(
        BetKind::Prima.parse_selection(None, Some(12), &t),
        Err(BetError::WrongSelection { .. })
    ));
    assert_eq!(
        BetKind::Cartas.parse_selection(None, Some(12), &t),
        Ok(Selection::Number(12))
    );
    assert_eq!(
        BetKind::Cartas.parse_selection(None, Some(14), &t),
        Err(BetError::NumberNotOffered(14))
    );
    assert_eq!(
        BetKind::Cartas.parse_selection(None, Some(-3), &t),
        Err(BetError::NumberNotOffered(-3))
    );
    assert_eq!(BetKind::Comeco.parse_selection(None, None, &t), Ok(Selection::None));
    assert!(BetKind::ContoAlto.parse_selection(Some("cups"), None, &t).is_err());
    let f = facts(card(Suit::Crowns, 3), [3, 1, 9, 4, 5], 12, Suit::Locks);
    assert!(settle(BetKind::Cartas, &Selection::Number(14), &t, &f).is_err());
    assert!(settle(BetKind::Maximo, &Selection::None, &t, &f).is_err());
    // serde names
    assert_eq!(serde_json::to_string(&BetKind::ContoAlto).unwrap(), "\"conto_alto\"");
    assert_eq!(
        serde_json::to_string(&Selection::Suit(Suit::Cups)).unwrap(),
        "{\"suit\":\"cups\"}"
    );
    assert_eq!(serde_json::to_string(&Selection::None).unwrap(), "\"none\"");
}

/// The side-bet rules (docs/side-bets.md), written out independently of `settle`: the multiple of the stake returned.
fn spec_return(kind: BetKind, sel: Selection, t: &PayTableSpec, deck: &[Card], f: &DealFacts) -> Decimal {
    let one = Decimal::ONE;
    let n = f.first_pass_count;
    match (kind, sel) {
        (BetKind::Prima, Selection::Suit(s)) => {
            if deck[0].suit() != s {
                Decimal::ZERO
            } else if deck[0].rank().value() == 1 {
                one + t.prima.ace_pays
            } else {
                one + t.prima.pays
            }
        }
        (BetKind::Escucha, Selection::Suit(s)) => {
            // the foundation is the first card of the suit in the deck
            let foundation = deck.iter().find(|c| c.suit() == s).unwrap();
            if f.first_to_complete != s {
                Decimal::ZERO
            } else if foundation.rank().value() == 1 {
                one + t.escucha.ace_pays
            } else {
                one + t.escucha.pays
            }
        }
        (BetKind::Maximo, Selection::Suit(s)) => {
            let rank_of = |x: Suit| deck.iter().find(|c| c.suit() == x).unwrap().rank().value();
            let mine = rank_of(s);
            let higher = Suit::ALL.iter().filter(|&&x| rank_of(x) > mine).count();
            let equal_others = Suit::ALL.iter().filter(|&&x| x != s && rank_of(x) == mine).count();
            if higher > 0 {
                Decimal::ZERO
            } else if equal_others == 1 {
                if t.maximo.pair_tie == PairTieRule::Push {
                    one
                } else {
                    Decimal::ZERO
                }
            } else {
                one + t.maximo.pays
            }
        }
        (BetKind::ContoAlto, _) => {
            if n >= 17 {
                one + t.conto_alto
            } else {
                Decimal::ZERO
            }
        }
        (BetKind::ContoBajo, _) => {
            if n <= 11 {
                one + t.conto_bajo
            } else {
                Decimal::ZERO
            }
        }
        (BetKind::ContoMedio, _) => {
            if n == 14 || n == 15 {
                one + t.conto_medio
            } else {
                Decimal::ZERO
            }
        }
        (BetKind::Cartas, Selection::Number(x)) => {
            let line = t.cartas.iter().find(|l| l.number == x).unwrap();
            if n == x {
                one + line.pays
            } else {
                Decimal::ZERO
            }
        }
        (BetKind::Comeco, _) => match t.comeco.iter().find(|l| l.n_from <= n && n <= l.n_to) {
            Some(l) => one + l.pays,
            None => Decimal::ZERO,
        },
        _ => unreachable!(),
    }
}

fn as_multiple(r: &BetResult) -> Decimal {
    match r {
        BetResult::Won { pays } => Decimal::ONE + pays,
        BetResult::Pushed => Decimal::ONE,
        BetResult::Lost => Decimal::ZERO,
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]
    #[test]
    fn settlement_matches_the_spec_on_random_decks(
        deck in Just(ordered_deck(10)).prop_shuffle(),
        push in any::<bool>(),
        number in 10u8..=20,
    ) {
        let f = reference_facts(&deck);
        prop_assert_eq!(first_pass_count(&deck), f.first_pass_count);
        let mut spec = PayTable::default_table().spec().clone();
        if push { spec.maximo.pair_tie = PairTieRule::Push; }
        spec.cartas = vec![CartasLine { number, pays: Decimal::new(75, 1) }];
        let t = PayTable::new(spec).unwrap();
        for kind in BetKind::ALL {
            let selections: Vec<Selection> = match kind.selection_needed() {
                SelectionKind::Suit => Suit::ALL.into_iter().map(Selection::Suit).collect(),
                SelectionKind::Number => vec![Selection::Number(number)],
                SelectionKind::None => vec![Selection::None],
            };
            for sel in selections {
                let got = settle(kind, &sel, &t, &f).unwrap();
                prop_assert_eq!(as_multiple(&got.result), spec_return(kind, sel, t.spec(), &deck, &f), "{:?} {:?}", kind, sel);
            }
        }
        // exactly one suit wins Prima and Escúcha
        let prima_wins = Suit::ALL.iter().filter(|&&s| matches!(settle(BetKind::Prima, &Selection::Suit(s), &t, &f).unwrap().result, BetResult::Won { .. })).count();
        prop_assert_eq!(prima_wins, 1);
    }
}

#[test]
fn settlements_round_trip_through_json() {
    let t = PayTable::default_table();
    let f = facts(card(Suit::Crowns, 3), [3, 8, 8, 8, 5], 12, Suit::Locks);
    for (kind, sel) in [
        (BetKind::Maximo, Selection::Suit(Suit::Fruit)),
        (BetKind::Cartas, Selection::Number(12)),
        (BetKind::Prima, Selection::Suit(Suit::Cups)),
        (BetKind::Escucha, Selection::Suit(Suit::Locks)),
    ] {
        let s = settle(kind, &sel, &t, &f).unwrap();
        let json = serde_json::to_string(&s).unwrap();
        assert_eq!(serde_json::from_str::<Settlement>(&json).unwrap(), s, "{json}");
    }
    let s = settle(BetKind::Cartas, &Selection::Number(12), &t, &f).unwrap();
    assert_eq!(
        serde_json::to_string(&s).unwrap(),
        r#"{"result":"won","pays":"5.40","decided_by":{"fact":"first_pass_count","n":12}}"#
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]
    /// The engine's facts of the full deal-out equal the plain reference's.
    #[test]
    fn engine_deal_facts_match_the_reference(deck in Just(ordered_deck(10)).prop_shuffle()) {
        use crate::games::prima_carta::{deal_facts, Variant};
        let engine = deal_facts(&deck, Variant::Classic, &mut |_| {}).unwrap();
        prop_assert_eq!(engine, reference_facts(&deck));
    }
}
