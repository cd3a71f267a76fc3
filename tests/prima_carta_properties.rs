//! Properties of the Prima Carta engine over random decks, seats, options and
//! copa decisions. Each round is checked by replaying its event list against a
//! model of the table built only from the deck.
//!
//! `cargo test --release --test prima_carta_properties -- --ignored --nocapture`
//! runs the bulk check over 100,000 decks.

use djego::cards::{ordered_deck, Card, Suit};
use djego::games::prima_carta::*;
use proptest::prelude::*;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// One random round: what the service would persist, plus the players' choices.
#[derive(Clone, Debug)]
struct Case {
    deck: Vec<Card>,
    seated: Vec<Suit>,
    /// Pay (true) or fold, by suit index, for whoever is asked.
    pays: [bool; 5],
    rules: TableRules,
    reshuffle_seed: u64,
}

fn reshuffler(seed: u64) -> impl FnMut(&mut [Card]) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    move |cards: &mut [Card]| cards.shuffle(&mut rng)
}

/// Plays the round by asking for each pending decision in turn.
fn play_out(case: &Case) -> Result<RoundProgress, String> {
    let mut decisions = Vec::new();
    for _ in 0..=Suit::COUNT {
        let progress = play(
            &case.deck,
            &case.rules,
            &case.seated,
            &decisions,
            &mut reshuffler(case.reshuffle_seed),
        )
        .map_err(|e| format!("engine error: {e}"))?;
        match &progress.phase {
            Phase::Finished(_) => return Ok(progress),
            Phase::AwaitingCopa(turn) => {
                if !case.seated.contains(&turn.turn) {
                    return Err(format!("copa turn for unseated {}", turn.turn));
                }
                // A decision from anyone else is refused, never a panic.
                for other in Suit::ALL.into_iter().filter(|&s| s != turn.turn) {
                    let mut wrong = decisions.clone();
                    wrong.push(CopaDecision { suit: other, pay: true });
                    let got = play(
                        &case.deck,
                        &case.rules,
                        &case.seated,
                        &wrong,
                        &mut reshuffler(case.reshuffle_seed),
                    );
                    if got
                        != Err(EngineError::NotYourTurn {
                            expected: turn.turn,
                            got: other,
                        })
                    {
                        return Err(format!("out-of-turn decision from {other} gave {got:?}"));
                    }
                }
                decisions.push(CopaDecision {
                    suit: turn.turn,
                    pay: case.pays[turn.turn.index()],
                });
            }
        }
    }
    Err("copa did not end after every seat decided".into())
}

/// The table rebuilt from the deck and the event list alone.
struct Model {
    deck: Vec<Card>,
    next: usize,
    discard: Vec<Card>,
    stacks: [Vec<Card>; 5],
    pass: u8,
    promoted: u8,
}

impl Model {
    fn push_stack(&mut self, card: Card) -> Result<u8, String> {
        let stack = &mut self.stacks[card.suit().index()];
        if let Some(top) = stack.last() {
            if top.rank().successor() != card.rank() || stack.len() >= 10 {
                return Err(format!("{card:?} does not follow {top:?} (stack of {})", stack.len()));
            }
        }
        stack.push(card);
        self.promoted += 1;
        Ok(stack.len() as u8)
    }
}

fn check(case: &Case) -> Result<(), String> {
    let progress = play_out(case)?;
    let again = play_out(case)?;
    if again != progress {
        return Err("replaying the same inputs gave a different round".into());
    }
    let result = progress.result().ok_or("round not finished")?;
    let live_seats: Vec<Suit> = case
        .seated
        .iter()
        .copied()
        .filter(|s| !result.folded.contains(s))
        .collect();

    // The winner is a live suit.
    if !live_seats.contains(&result.winner) {
        return Err(format!(
            "winner {} is not live (seated {:?}, folded {:?})",
            result.winner, case.seated, result.folded
        ));
    }

    // Replay the events against the model.
    let mut m = Model {
        deck: case.deck.clone(),
        next: 0,
        discard: vec![],
        stacks: Default::default(),
        pass: 0,
        promoted: 0,
    };
    let mut completed = Vec::new();
    let mut copas = [0u32; 5];
    for event in &progress.events {
        match event {
            Event::PassStarted { pass, deck_count } => {
                if m.pass > 0 {
                    if m.next != m.deck.len() {
                        return Err("a pass started before the deck ran out".into());
                    }
                    m.deck = std::mem::take(&mut m.discard);
                    m.next = 0;
                }
                m.pass += 1;
                m.promoted = 0;
                if *pass != m.pass || *deck_count as usize != m.deck.len() {
                    return Err(format!("pass {pass} start mismatch"));
                }
            }
            Event::Reshuffled { before, after } => {
                if case.rules.variant != Variant::Jasper || m.pass != 1 {
                    return Err("reshuffle outside Jasper's first repasso".into());
                }
                if *before != m.discard {
                    return Err("reshuffle did not start from the discard pile in deal order".into());
                }
                let mut a = before.clone();
                let mut b = after.clone();
                a.sort();
                b.sort();
                if a != b {
                    return Err("reshuffle lost or gained cards".into());
                }
                m.discard = after.clone();
            }
            Event::Dealt {
                card,
                to,
                stack_count,
                pass,
            } => {
                if *pass != m.pass || m.deck.get(m.next) != Some(card) {
                    return Err(format!("dealt {card:?} out of order"));
                }
                m.next += 1;
                let count = match to {
                    Destination::Discard => {
                        let stack = &m.stacks[card.suit().index()];
                        let playable = stack
                            .last()
                            .map_or(true, |t| t.rank().successor() == card.rank() && stack.len() < 10);
                        if playable {
                            return Err(format!("playable {card:?} was discarded"));
                        }
                        m.discard.push(*card);
                        stack.len() as u8
                    }
                    Destination::Foundation => {
                        if !m.stacks[card.suit().index()].is_empty() {
                            return Err("second foundation".into());
                        }
                        m.push_stack(*card)?
                    }
                    Destination::Stack => m.push_stack(*card)?,
                };
                if count != *stack_count {
                    return Err("stack count mismatch".into());
                }
            }
            Event::PlayedUp { card, stack_count, .. } => {
                if m.discard.pop() != Some(*card) {
                    return Err(format!("played up {card:?}, not the top discard"));
                }
                if m.push_stack(*card)? != *stack_count {
                    return Err("stack count mismatch".into());
                }
            }
            Event::SuitCompleted { suit, .. } => {
                if m.stacks[suit.index()].len() != 10 || completed.contains(suit) {
                    return Err(format!("{suit} completed with {} cards", m.stacks[suit.index()].len()));
                }
                completed.push(*suit);
            }
            Event::PassEnded {
                promoted,
                discard_count,
                ..
            } => {
                // Every pass promotes at least one card.
                if *promoted == 0 || *promoted != m.promoted || *discard_count as usize != m.discard.len() {
                    return Err(format!(
                        "pass {} ended with {promoted} promoted (model {})",
                        m.pass, m.promoted
                    ));
                }
                if let Some(top) = m.discard.last() {
                    let stack = &m.stacks[top.suit().index()];
                    if stack
                        .last()
                        .map_or(true, |t| t.rank().successor() == top.rank() && stack.len() < 10)
                    {
                        return Err("pass ended with a playable top discard".into());
                    }
                }
            }
            Event::CopaPaid { suit, units } => {
                if *units != m.stacks[suit.index()].len() as u32 {
                    return Err("copa is not the stack size".into());
                }
                copas[suit.index()] = *units;
            }
            Event::Prima { suit } => {
                if *suit != case.deck[0].suit() {
                    return Err("wrong prima".into());
                }
            }
            Event::Folded { .. } | Event::Corte { .. } | Event::Won { .. } | Event::Cobre(_) => {}
        }
    }

    // Card conservation: every card is in exactly one place.
    let mut seen = [0u8; 50];
    for card in m.stacks.iter().flatten().chain(&m.discard).chain(&m.deck[m.next..]) {
        seen[card.id() as usize] += 1;
    }
    if seen.iter().any(|&n| n != 1) {
        return Err("card conservation broken".into());
    }
    // The public table agrees with the model.
    let table = &progress.table;
    for suit in Suit::ALL {
        let s = &table.stacks[suit.index()];
        let model = &m.stacks[suit.index()];
        if s.count as usize != model.len() || s.top != model.last().copied() || s.foundation != model.first().copied() {
            return Err(format!("table stack {suit} disagrees with the events"));
        }
    }
    if table.discard_count as usize != m.discard.len() || table.deck_remaining as usize != m.deck.len() - m.next {
        return Err("table discard or deck size disagrees".into());
    }

    // The winner's stack: complete when won by completion.
    if matches!(result.how, WinKind::FirstPassCompletion | WinKind::RepassoCompletion) {
        if completed.last() != Some(&result.winner) {
            return Err("the winner is not the suit that completed last".into());
        }
        // No earlier completion was live.
        if completed[..completed.len() - 1].iter().any(|s| live_seats.contains(s)) {
            return Err("a live suit completed before the winner".into());
        }
    }
    // Money.
    let pot: u32 = case.seated.len() as u32 + copas.iter().sum::<u32>();
    if result.pot_units != pot {
        return Err(format!("pot {} != {pot}", result.pot_units));
    }
    let cobre = result.cobre.as_ref().map_or(0, |c| c.units);
    if result.winner_takes_units + cobre != pot {
        return Err("winner's take and cobre do not add up to the pot".into());
    }
    let folded_completed_first = completed
        .iter()
        .take_while(|&&s| s != result.winner)
        .any(|s| result.folded.contains(s));
    let expect_cobre = case.rules.cobre != CobreRule::Off && folded_completed_first;
    if expect_cobre != result.cobre.is_some() || (expect_cobre && cobre != result.folded.len() as u32) {
        return Err("cobre wrong".into());
    }
    let prima_owned = case.seated.contains(&case.deck[0].suit());
    if result.corte_payer != (case.rules.corte && prima_owned).then_some(case.deck[0].suit()) {
        return Err("corte wrong".into());
    }

    // First pass: N in 10..=50, fast counts agree with the general engine.
    let first = first_pass(&case.deck).map_err(|e| e.to_string())?;
    if !(10..=50).contains(&first.count) || first.counts.iter().any(|&c| c < 2) {
        return Err(format!("N = {} out of range", first.count));
    }
    if first_pass_counts(&case.deck) != first.counts || first_pass_count(&case.deck) != first.count {
        return Err("fast first-pass count disagrees with the engine".into());
    }
    // Side-bet facts: same as the live round where the round saw it.
    let facts =
        deal_facts(&case.deck, case.rules.variant, &mut reshuffler(case.reshuffle_seed)).map_err(|e| e.to_string())?;
    if facts.first_pass_counts != first.counts || facts.first_pass_count != first.count {
        return Err("facts' counts disagree".into());
    }
    if facts.first_card != case.deck[0] || facts.foundation_order != first.foundation_order {
        return Err("facts' first card or foundations disagree".into());
    }
    for suit in Suit::ALL {
        if Some(facts.foundations[suit.index()]) != first.stacks[suit.index()].foundation {
            return Err("facts' foundation disagrees".into());
        }
    }
    if let Some(&first_done) = completed.first() {
        let comparable = case.rules.variant != Variant::Cinco || result.passes == 1;
        if comparable && first_done != facts.first_to_complete {
            return Err(format!(
                "live round's first completion {first_done} but facts say {}",
                facts.first_to_complete
            ));
        }
    }
    Ok(())
}

fn random_case(rng: &mut ChaCha8Rng) -> Case {
    let mut deck = ordered_deck(10);
    deck.shuffle(rng);
    let mut suits = Suit::ALL.to_vec();
    suits.shuffle(rng);
    let seats = rng.gen_range(2..=5);
    let variant = [Variant::Classic, Variant::Cinco, Variant::Jasper][rng.gen_range(0..3)];
    let cobre = [CobreRule::Off, CobreRule::Carry, CobreRule::House][rng.gen_range(0..3)];
    Case {
        deck,
        seated: suits[..seats].to_vec(),
        pays: std::array::from_fn(|_| rng.gen_bool(0.6)),
        rules: TableRules {
            variant,
            corte: rng.gen(),
            cobre,
        },
        reshuffle_seed: rng.gen(),
    }
}

fn run_bulk(decks: u64, seed: u64) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    for i in 0..decks {
        let case = random_case(&mut rng);
        if let Err(why) = check(&case) {
            panic!("deck #{i}: {why}\n{case:?}");
        }
    }
    println!("prima carta properties held over {decks} random decks (seed {seed})");
}

#[test]
fn properties_hold_over_5000_random_decks() {
    run_bulk(5_000, 20_261_122);
}

#[test]
#[ignore = "bulk: run with --release --ignored"]
fn properties_hold_over_100000_random_decks() {
    run_bulk(100_000, 100_000);
}

fn case_strategy() -> impl Strategy<Value = Case> {
    (
        Just(ordered_deck(10)).prop_shuffle(),
        Just(Suit::ALL.to_vec()).prop_shuffle(),
        2..=5usize,
        any::<[bool; 5]>(),
        0..3usize,
        0..3usize,
        any::<bool>(),
        any::<u64>(),
    )
        .prop_map(|(deck, suits, seats, pays, v, c, corte, reshuffle_seed)| Case {
            deck,
            seated: suits[..seats].to_vec(),
            pays,
            rules: TableRules {
                variant: [Variant::Classic, Variant::Cinco, Variant::Jasper][v],
                corte,
                cobre: [CobreRule::Off, CobreRule::Carry, CobreRule::House][c],
            },
            reshuffle_seed,
        })
}

proptest! {
    #![proptest_config(ProptestConfig { failure_persistence: None, ..ProptestConfig::with_cases(1_000) })]

    #[test]
    fn every_round_keeps_the_rules(case in case_strategy()) {
        if let Err(why) = check(&case) {
            prop_assert!(false, "{}", why);
        }
    }

    #[test]
    fn arbitrary_decisions_never_panic(
        case in case_strategy(),
        decisions in proptest::collection::vec((0..5usize, any::<bool>()), 0..7),
    ) {
        let decisions: Vec<CopaDecision> =
            decisions.into_iter().map(|(s, pay)| CopaDecision { suit: Suit::ALL[s], pay }).collect();
        let _ = play(&case.deck, &case.rules, &case.seated, &decisions, &mut reshuffler(case.reshuffle_seed));
    }

    #[test]
    fn fast_count_matches_the_engine(deck in Just(ordered_deck(10)).prop_shuffle()) {
        let first = first_pass(&deck).unwrap();
        prop_assert_eq!(first_pass_counts(&deck), first.counts);
        prop_assert_eq!(first_pass_count(&deck), first.count);
    }

    #[test]
    fn arbitrary_slices_never_panic(ids in proptest::collection::vec(0..50u8, 0..80)) {
        let deck: Vec<Card> = ids.into_iter().filter_map(Card::from_id).collect();
        let _ = first_pass_counts(&deck);
        prop_assert_eq!(first_pass(&deck).is_ok(), deck.len() == 50 && {
            let mut s = deck.clone(); s.sort(); s.dedup(); s.len() == 50
        });
    }
}
