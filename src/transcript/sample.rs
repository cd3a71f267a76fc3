//! Random rounds as transcripts, without a database: for the verifiers'
//! tests (every variant, voids, Lobo) and for measuring `djego verify rounds`.
//!
//! A sample is dealt by the same engines as the service and paid by the
//! money rules of docs/transcript.md, written out here the way the service
//! posts them (seat, deal, copa, bets, settlement), so the verifiers check
//! it exactly as they check a real round.

use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rust_decimal::Decimal;

use super::{
    BetEntry, ConfidenceEntry, DecisionEntry, Party, PayTableEntry, RoundTranscript, SeatEntry, TransferEntry, FORMAT,
    VERSION,
};
use crate::bets::{self, BetKind, BetResult, PayTable, Selection};
use crate::cards::shuffle::{client_seed_for, shuffled_deck, ClientSeed, Game, ServerSeed};
use crate::cards::transcript::{Reshuffle, ShuffleTranscript};
use crate::cards::Suit;
use crate::domain::{format_minor, Amount};
use crate::games::lobo::{self, default_house_rule, Mode, PlayKind};
use crate::games::prima_carta::confidence::{self, Outcome, Settlement, Side, Terms};
use crate::games::prima_carta::{self as engine, CobreRule, CopaDecision, Event, Phase};
use crate::tables::config::{CobreOption, LoboMode, PrimaCartaConfig, PrimaVariant};

/// One random settled (or, one time in ten, voided) round; `seed` fixes everything.
pub fn sample_round(seed: u64) -> RoundTranscript<'static> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    if rng.gen_bool(0.2) {
        lobo_round(&mut rng)
    } else {
        prima_round(&mut rng, None)
    }
}

/// A random Prima Carta round under a certified pay table; `seed` fixes everything.
pub fn sample_prima_round(seed: u64) -> RoundTranscript<'static> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    prima_round(&mut rng, None)
}

/// A random Prima Carta round whose bets are placed and paid under `table`, whatever it
/// pays: for the verifiers' tests of pay tables djego would not certify.
pub fn sample_prima_round_under(seed: u64, table: &PayTable) -> RoundTranscript<'static> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    prima_round(&mut rng, Some(table))
}

struct Ledger {
    transfers: Vec<TransferEntry<'static>>,
}

impl Ledger {
    fn post(&mut self, kind: &str, from: &str, to: &str, minor: i64) {
        let seq = self.transfers.len() as i64 + 1;
        self.transfers.push(TransferEntry {
            seq,
            kind: kind.to_owned().into(),
            from: from.to_owned().into(),
            to: to.to_owned().into(),
            amount: format_minor(minor).into(),
            hash: format!("{seq:064x}").into(),
        });
    }
}

/// The players list of a sampled round: everyone by pseudonym, nobody the reader.
fn parties(players: &[String]) -> Vec<Party<'static>> {
    players
        .iter()
        .map(|p| Party {
            pseudonym: p.clone().into(),
            you: false,
            player_id: None,
        })
        .collect()
}

fn wallet(p: &str) -> String {
    format!("wallet:{p}")
}

fn shuffle_of(
    rng: &mut ChaCha8Rng,
    game: Game,
    max_rank: u8,
) -> (ShuffleTranscript, crate::cards::transcript::Recomputed) {
    let server_seed = ServerSeed::from_bytes(rng.gen());
    let round_id = uuid::Builder::from_random_bytes(rng.gen()).into_uuid().to_string();
    let n_seeds = match game {
        Game::PrimaCarta => rng.gen_range(0..=3),
        Game::Lobo => rng.gen_range(0..=1),
    };
    let seeds: Vec<ClientSeed> = (0..n_seeds)
        .map(|i| ClientSeed::parse(&format!("seed {i} {}", rng.gen::<u32>())).expect("printable"))
        .collect();
    let client_seed = client_seed_for(game, &seeds).expect("at most one Lobo seed");
    let (deck, stream) = shuffled_deck(&server_seed, game, &round_id, &client_seed, max_rank);
    let shuffle = ShuffleTranscript::record(&server_seed, game, &round_id, &seeds, &deck, Vec::new());
    (shuffle, crate::cards::transcript::Recomputed { deck, stream })
}

fn skeleton(
    game: &str,
    shuffle: ShuffleTranscript,
    rules: serde_json::Value,
    status: &str,
) -> RoundTranscript<'static> {
    RoundTranscript {
        transcript: FORMAT.to_owned().into(),
        version: VERSION,
        game: game.to_owned().into(),
        round_id: shuffle.round_id.clone().into(),
        table_id: "sample-table".to_owned().into(),
        number: 1,
        status: status.to_owned().into(),
        shuffle,
        rules: super::raw(&rules),
        pay_tables: Vec::new(),
        players: Vec::new(),
        seats: Vec::new(),
        decisions: Vec::new(),
        plays: Vec::new(),
        bets: Vec::new(),
        confidence_bets: Vec::new(),
        fuerza_bets: Vec::new(),
        carried_cobre_in: None,
        outcome: None,
        events: None,
        deal_out_events: None,
        transfers: Vec::new(),
        ledger_proof: None,
    }
}

fn prima_round(rng: &mut ChaCha8Rng, table: Option<&PayTable>) -> RoundTranscript<'static> {
    let variant = *[PrimaVariant::Classic, PrimaVariant::Cinco, PrimaVariant::Jasper]
        .choose(rng)
        .unwrap();
    let cobre = *[CobreOption::Off, CobreOption::Carry, CobreOption::House]
        .choose(rng)
        .unwrap();
    let amount = |minor: i64| Amount::from_minor(minor).expect("positive");
    let config = PrimaCartaConfig {
        variant,
        unit: amount(*[100, 250, 1000].choose(rng).unwrap()),
        seat_fee: rng.gen_bool(0.3).then(|| amount(25)),
        corte: rng.gen_bool(0.5),
        cobre,
        min_bet: amount(100),
        max_bet: amount(10_000),
        max_exposure_per_round: amount(50_000),
        strategy_advice: true,
        confidence_commission_bp: *[0, 500, 1000].choose(rng).unwrap(),
        confidence_commission_cap: amount(2_500),
    };
    let unit = config.unit.minor();
    let (mut shuffle, dealt) = shuffle_of(rng, Game::PrimaCarta, 10);
    let voided = rng.gen_bool(0.1);
    let mut suits = Suit::ALL.to_vec();
    suits.shuffle(rng);
    let mut seated: Vec<Suit> = suits[..rng.gen_range(2..=5)].to_vec();
    seated.sort();
    // A round can only run under a certified pay table: the house table, or a later
    // version of it (another fingerprint).
    let pay_table = if rng.gen_bool(0.5) {
        let mut spec = PayTable::house_table().spec().clone();
        spec.version = 2;
        PayTable::new(spec).expect("a valid pay table")
    } else {
        PayTable::house_table()
    };
    let pay_table = table.cloned().unwrap_or(pay_table);
    let fingerprint = pay_table.fingerprint();

    let mut t = skeleton(
        "prima_carta",
        shuffle.clone(),
        serde_json::to_value(&config).expect("serialises"),
        if voided { "voided" } else { "settled" },
    );
    let mut ledger = Ledger { transfers: Vec::new() };
    let mut players = Vec::new();
    for (i, suit) in seated.iter().enumerate() {
        let p = format!("P{}", i + 1);
        t.seats.push(SeatEntry {
            suit: Some(suit.name().to_owned()),
            player: p.clone().into(),
        });
        let w = wallet(&p);
        ledger.post("spiga", &w, "pot", unit);
        if let Some(fee) = config.seat_fee {
            ledger.post("seat_fee", &w, "house:revenue", fee.minor());
        }
        if config.corte {
            ledger.post("corte_held", &w, "escrow", unit);
        }
        players.push(p);
    }
    // Bets by seated players and by onlookers.
    let mut bets: Vec<(String, BetKind, Selection, i64)> = Vec::new();
    for _ in 0..rng.gen_range(0..=6) {
        let player = if rng.gen_bool(0.5) {
            players[rng.gen_range(0..seated.len())].clone()
        } else {
            let p = format!("P{}", players.len() + 1);
            players.push(p.clone());
            p
        };
        let kind = *BetKind::ALL.choose(rng).unwrap();
        let selection = match kind.selection_needed() {
            crate::bets::SelectionKind::Suit => Selection::Suit(*Suit::ALL.choose(rng).unwrap()),
            crate::bets::SelectionKind::Number => match pay_table.cartas_numbers().choose(rng) {
                Some(&n) => Selection::Number(n),
                None => continue,
            },
            crate::bets::SelectionKind::None => Selection::None,
        };
        let stake = rng.gen_range(1..=5000);
        ledger.post("bet_stake", &wallet(&player), "escrow", stake);
        bets.push((player, kind, selection, stake));
    }
    t.players = parties(&players);
    if !bets.is_empty() {
        t.pay_tables.push(PayTableEntry::new("sample-pay-table", &pay_table));
    }
    let bet_entry =
        |(player, kind, selection, stake): &(String, BetKind, Selection, i64), status: &str, returned: i64| {
            let (suit, number) = match selection {
                Selection::Suit(s) => (Some(s.name().to_owned()), None),
                Selection::Number(n) => (None, Some(*n as i64)),
                Selection::None => (None, None),
            };
            BetEntry {
                player: player.clone().into(),
                kind: kind.name().to_owned().into(),
                suit,
                number,
                amount: format_minor(*stake).into(),
                pay_table: fingerprint.clone().into(),
                status: status.to_owned().into(),
                returned: format_minor(returned).into(),
            }
        };

    if voided {
        let seat_moves: Vec<TransferEntry> = ledger
            .transfers
            .iter()
            .filter(|m| m.kind != "bet_stake")
            .cloned()
            .collect();
        for m in seat_moves {
            ledger.post(
                "refund",
                &m.to,
                &m.from,
                Amount::parse(&m.amount)
                    .map(Amount::minor)
                    .expect("posted amounts parse"),
            );
        }
        for bet in &bets {
            ledger.post("bet_refund", "escrow", &wallet(&bet.0), bet.3);
            t.bets.push(bet_entry(bet, "refunded", bet.3));
        }
        confidence_bets(rng, &mut t, &mut players, &seated, &[], &mut ledger, None, 0, &config);
        t.transfers = ledger.transfers;
        return t;
    }

    let rules = config.rules();
    let owner = |s: Suit| players[seated.iter().position(|x| *x == s).expect("seated")].clone();
    let mut decisions = Vec::new();
    let progress = loop {
        let mut stream = dealt.stream.clone();
        let p = engine::play(&dealt.deck, &rules, &seated, &decisions, &mut |c| stream.shuffle(c)).expect("plays");
        match &p.phase {
            Phase::AwaitingCopa(turn) => decisions.push(CopaDecision {
                suit: turn.turn,
                pay: rng.gen_bool(0.6),
            }),
            Phase::Finished(_) => break p,
        }
    };
    let mut stream = dealt.stream.clone();
    let deal_out = engine::deal_out(&dealt.deck, rules.variant, &mut |c| stream.shuffle(c)).expect("deals out");
    let result = progress.result().expect("finished").clone();
    let reshuffle = progress
        .events
        .iter()
        .find_map(|e| match e {
            Event::Reshuffled { before, after } => Some(Reshuffle::new(before, after)),
            _ => None,
        })
        .or_else(|| deal_out.reshuffle().map(|(b, a)| Reshuffle::new(b, a)));
    shuffle.reshuffles = reshuffle.into_iter().collect();
    t.shuffle = shuffle;
    if config.corte {
        for s in &seated {
            if Some(*s) == result.corte_payer {
                ledger.post("corte", "escrow", "house:tips", unit);
            } else {
                ledger.post("refund", "escrow", &wallet(&owner(*s)), unit);
            }
        }
    }
    for c in &result.contributions {
        if c.copa_units > 0 {
            ledger.post("copa", &wallet(&owner(c.suit)), "pot", unit * c.copa_units as i64);
        }
    }
    let winner = wallet(&owner(result.winner));
    if result.winner_takes_units > 0 {
        ledger.post("pot_payout", "pot", &winner, unit * result.winner_takes_units as i64);
    }
    let carried = if cobre == CobreOption::Carry && rng.gen_bool(0.3) {
        unit * rng.gen_range(1..=4)
    } else {
        0
    };
    if carried > 0 {
        ledger.post("cobre_carried", "cobre", &winner, carried);
    }
    if let Some(c) = &result.cobre {
        let to = if c.disposition == CobreRule::House {
            "house:revenue"
        } else {
            "cobre"
        };
        ledger.post("cobre", "pot", to, unit * c.units as i64);
    }
    for bet in &bets {
        let (player, kind, selection, stake) = bet;
        let settlement = bets::settle(*kind, selection, &pay_table, &deal_out.facts).expect("valid selection");
        let returned = bets::returned_amount(Decimal::new(*stake, 2), &settlement.result);
        let returned: i64 = (returned * Decimal::from(100)).try_into().expect("fits");
        let w = wallet(player);
        let status = match settlement.result {
            BetResult::Lost => {
                ledger.post("bet_collected", "escrow", "house:bankroll", *stake);
                "lost"
            }
            BetResult::Pushed => {
                ledger.post("bet_returned", "escrow", &w, *stake);
                "pushed"
            }
            BetResult::Won { .. } => {
                ledger.post("bet_returned", "escrow", &w, *stake);
                if returned > *stake {
                    ledger.post("bet_payout", "house:bankroll", &w, returned - stake);
                }
                "won"
            }
        };
        t.bets.push(bet_entry(bet, status, returned));
    }
    let events = |list: &[Event]| {
        list.iter()
            .map(|e| serde_json::to_value(e).expect("serialises"))
            .collect()
    };
    t.decisions = decisions
        .iter()
        .map(|d| DecisionEntry {
            suit: d.suit.name().to_owned().into(),
            pay: d.pay,
        })
        .collect();
    let outcome = Outcome {
        first_card: deal_out.facts.first_card,
        winner: result.winner,
        first_to_complete: deal_out.facts.first_to_complete,
        first_pass_count: deal_out.facts.first_pass_count,
    };
    let winnings = unit * result.winner_takes_units as i64 + carried;
    confidence_bets(
        rng,
        &mut t,
        &mut players,
        &seated,
        &decisions,
        &mut ledger,
        Some(&outcome),
        winnings,
        &config,
    );
    fuerza_bets(
        rng,
        &mut t,
        &mut players,
        &seated,
        &decisions,
        &dealt.deck,
        result.winner,
        &mut ledger,
        &config,
    );
    t.carried_cobre_in = Some(format_minor(carried));
    t.outcome = Some(super::raw(&super::PrimaOutcome::new(&result, &deal_out.facts)));
    t.events = Some(events(&progress.events));
    t.deal_out_events = Some(events(&deal_out.events));
    t.transfers = ledger.transfers;
    t
}

/// At a Jasper table, up to two bets with the house's Fuerza, each at the quote after a copa
/// decision drawn at random (docs/confidence-bets.md), by the round's players or newcomers.
#[allow(clippy::too_many_arguments)]
fn fuerza_bets(
    rng: &mut ChaCha8Rng,
    t: &mut RoundTranscript<'static>,
    players: &mut Vec<String>,
    seated: &[Suit],
    decisions: &[CopaDecision],
    deck: &[crate::cards::Card],
    winner: Suit,
    ledger: &mut Ledger,
    config: &PrimaCartaConfig,
) {
    use engine::fuerza::{self as quote, Position};
    if config.variant != PrimaVariant::Jasper || decisions.is_empty() {
        return;
    }
    let Some(position) = engine::first_pass(deck).ok().as_ref().and_then(Position::after) else {
        return;
    };
    for _ in 0..rng.gen_range(0..=2) {
        let k = rng.gen_range(1..=decisions.len());
        let before = &decisions[..k];
        let paid: Vec<Suit> = before.iter().filter(|d| d.pay).map(|d| d.suit).collect();
        let undecided: Vec<Suit> = seated
            .iter()
            .copied()
            .filter(|s| !before.iter().any(|d| d.suit == *s))
            .collect();
        if paid.len() + undecided.len() < 2 {
            continue;
        }
        let quotes = quote::quotes(
            &position,
            &paid,
            &undecided,
            quote::QUOTE_SAMPLES,
            quote::quote_seed(&t.round_id, k),
        );
        let Some(q) = quotes
            .iter()
            .filter(|q| q.price_hundredths.is_some())
            .collect::<Vec<_>>()
            .choose(rng)
            .copied()
        else {
            continue;
        };
        let price = q.price_hundredths.expect("filtered");
        // A seated player still to decide may not bet (the service refuses them).
        let deciding = |p: &String| {
            undecided
                .iter()
                .any(|s| players[seated.iter().position(|x| x == s).expect("seated")] == *p)
        };
        let eligible: Vec<String> = players.iter().filter(|p| !deciding(p)).cloned().collect();
        let player = if let (Some(p), true) = (eligible.choose(rng), rng.gen_bool(0.5)) {
            p.clone()
        } else {
            let p = format!("P{}", players.len() + 1);
            players.push(p.clone());
            p
        };
        let stake = rng.gen_range(100..=5000);
        let w = wallet(&player);
        ledger.post("bet_stake", &w, "escrow", stake);
        let returned = if q.suit == winner {
            let returned = quote::returned_minor(stake, price);
            ledger.post("bet_returned", "escrow", &w, stake);
            if returned > stake {
                ledger.post("bet_payout", "house:bankroll", &w, returned - stake);
            }
            returned
        } else {
            ledger.post("bet_collected", "escrow", "house:bankroll", stake);
            0
        };
        t.fuerza_bets.push(super::FuerzaEntry {
            player: player.into(),
            suit: q.suit.name().to_owned().into(),
            stake: format_minor(stake).into(),
            quote: super::FuerzaQuoteEntry {
                algorithm: quote::ALGORITHM.into(),
                decisions: k as u32,
                samples: q.samples,
                wins: q.wins,
                wins_if_all_pay: q.wins_if_all_pay,
                price: quote::price_text(price).into(),
            },
            status: if q.suit == winner { "won" } else { "lost" }.into(),
            returned: format_minor(returned).into(),
        });
    }
    t.players = parties(players);
}

/// Up to three confidence bets between the round's players (or newcomers), each offered and
/// then taken or not, paid as docs/confidence-bets.md says; the players list grows with them.
#[allow(clippy::too_many_arguments)]
fn confidence_bets(
    rng: &mut ChaCha8Rng,
    t: &mut RoundTranscript<'static>,
    players: &mut Vec<String>,
    seated: &[Suit],
    decisions: &[CopaDecision],
    ledger: &mut Ledger,
    outcome: Option<&Outcome>,
    winnings: i64,
    config: &PrimaCartaConfig,
) {
    let paid: Vec<Suit> = decisions.iter().filter(|d| d.pay).map(|d| d.suit).collect();
    for _ in 0..rng.gen_range(0..=3) {
        if let (Some(o), Some(&backer_suit), true) = (outcome, paid.choose(rng), rng.gen_bool(0.3)) {
            let others: Vec<Suit> = seated.iter().copied().filter(|s| *s != backer_suit).collect();
            let backed_suit = *others.choose(rng).expect("a round seats two or more");
            let seguro = Seguro {
                backer: players[seated.iter().position(|s| *s == backer_suit).expect("seated")].clone(),
                backed: players[seated.iter().position(|s| *s == backed_suit).expect("seated")].clone(),
                suit: backed_suit,
                decision: decisions.iter().find(|d| d.suit == backed_suit).map(|d| d.pay),
            };
            t.confidence_bets.push(seguro.sample(rng, ledger, o, winnings, config));
            continue;
        }
        let newcomer = |players: &mut Vec<String>| {
            let p = format!("P{}", players.len() + 1);
            players.push(p.clone());
            p
        };
        let suit = *Suit::ALL.choose(rng).unwrap();
        let terms = match rng.gen_range(0..5) {
            0 => Terms::Prima {
                suit: seated[rng.gen_range(0..seated.len())],
                ace_voids: rng.gen_bool(0.5),
            },
            1 => match paid.choose(rng) {
                Some(&suit) if outcome.is_some() => Terms::Fuerza { suit },
                _ => continue,
            },
            2 => Terms::Wins { suit },
            3 => Terms::FirstToComplete { suit },
            _ => {
                let min = rng.gen_range(10..=30);
                Terms::FirstPassCount {
                    min,
                    max: rng.gen_range(min..=45),
                }
            }
        };
        // The side against a Prima or a Fuerza is the suit's seated player; the backer, for, is a
        // newcomer (never seated), named only once they offer or take the bet.
        let against = match terms.centrale() {
            Some(suit) => players[seated.iter().position(|s| *s == suit).expect("seated")].clone(),
            None => players[rng.gen_range(0..players.len())].clone(),
        };
        let offerer_side = if rng.gen_bool(0.5) { Side::For } else { Side::Against };
        let taken = rng.gen_bool(0.7);
        let (offerer, taker) = match offerer_side {
            Side::For => (newcomer(players), against),
            Side::Against if taken => (against, newcomer(players)),
            Side::Against => (against, String::new()),
        };
        let stakes = [rng.gen_range(100..=5000), rng.gen_range(100..=5000)];
        let stake_of = |side: Side| if side == Side::For { stakes[0] } else { stakes[1] };
        ledger.post("confidence_stake", &wallet(&offerer), "escrow", stake_of(offerer_side));
        let mut entry = ConfidenceEntry {
            terms: super::raw(&terms),
            offered_by: offerer.clone().into(),
            offerer_side: offerer_side.as_str().into(),
            accepted_by: None,
            for_stake: format_minor(stakes[0]).into(),
            against_stake: format_minor(stakes[1]).into(),
            status: "expired".into(),
            paid: "0.00".into(),
            commission: "0.00".into(),
        };
        if !taken {
            entry.status = (*["withdrawn", "declined", "expired"].choose(rng).unwrap()).into();
            ledger.post("confidence_refund", "escrow", &wallet(&offerer), stake_of(offerer_side));
            t.confidence_bets.push(entry);
            continue;
        }
        ledger.post(
            "confidence_stake",
            &wallet(&taker),
            "escrow",
            stake_of(offerer_side.other()),
        );
        entry.accepted_by = Some(taker.clone().into());
        let holder = |side: Side| {
            if side == offerer_side {
                offerer.clone()
            } else {
                taker.clone()
            }
        };
        let settlement = match outcome {
            Some(o) => confidence::settle(terms.verdict(o), stakes[0], stakes[1], config.confidence_commission()),
            None => Settlement::Void,
        };
        match settlement {
            Settlement::Void => {
                for side in [Side::For, Side::Against] {
                    ledger.post("confidence_refund", "escrow", &wallet(&holder(side)), stake_of(side));
                }
                entry.status = if outcome.is_some() { "void" } else { "refunded" }.into();
            }
            Settlement::Won {
                winner,
                paid_minor,
                commission_minor,
            } => {
                ledger.post("confidence_payout", "escrow", &wallet(&holder(winner)), paid_minor);
                if commission_minor > 0 {
                    ledger.post("confidence_commission", "escrow", "house:revenue", commission_minor);
                }
                entry.status = "settled".into();
                entry.paid = format_minor(paid_minor).into();
                entry.commission = format_minor(commission_minor).into();
            }
        }
        t.confidence_bets.push(entry);
    }
    t.players = parties(players);
}

/// A Seguro between two seated players of a settled round: the backer paid their copa; the
/// backed player's decision is `decision` (none: never asked).
struct Seguro {
    backer: String,
    backed: String,
    suit: Suit,
    decision: Option<bool>,
}

impl Seguro {
    fn sample(
        &self,
        rng: &mut ChaCha8Rng,
        ledger: &mut Ledger,
        outcome: &Outcome,
        winnings: i64,
        config: &PrimaCartaConfig,
    ) -> ConfidenceEntry<'static> {
        let share_bp = if rng.gen_bool(0.5) {
            5_000
        } else {
            rng.gen_range(1..=10_000)
        };
        let contribution = rng.gen_range(100..=500);
        let (backer, backed) = (wallet(&self.backer), wallet(&self.backed));
        ledger.post("confidence_stake", &backer, "escrow", contribution);
        let mut entry = ConfidenceEntry {
            terms: super::raw(&Terms::Seguro {
                suit: self.suit,
                share_bp,
            }),
            offered_by: self.backer.clone().into(),
            offerer_side: "for".into(),
            accepted_by: None,
            for_stake: format_minor(contribution).into(),
            against_stake: "0.00".into(),
            status: "void".into(),
            paid: "0.00".into(),
            commission: "0.00".into(),
        };
        if !rng.gen_bool(0.7) {
            entry.status = (*["withdrawn", "declined", "expired"].choose(rng).unwrap()).into();
            ledger.post("confidence_refund", "escrow", &backer, contribution);
            return entry;
        }
        entry.accepted_by = Some(self.backed.clone().into());
        if self.decision != Some(true) {
            // Folded, or never asked: the contribution goes back and the bet is void.
            ledger.post("confidence_refund", "escrow", &backer, contribution);
            return entry;
        }
        ledger.post("seguro_contribution", "escrow", &backed, contribution);
        entry.status = "settled".into();
        if outcome.winner == self.suit {
            if let Settlement::Won {
                paid_minor,
                commission_minor,
                ..
            } = confidence::seguro_share(winnings, share_bp, contribution, config.confidence_commission())
            {
                for (kind, from, to, amount) in [
                    ("seguro_share", backed.as_str(), "escrow", paid_minor + commission_minor),
                    ("confidence_payout", "escrow", backer.as_str(), paid_minor),
                    ("confidence_commission", "escrow", "house:revenue", commission_minor),
                ] {
                    if amount > 0 {
                        ledger.post(kind, from, to, amount);
                    }
                }
                entry.paid = format_minor(paid_minor).into();
                entry.commission = format_minor(commission_minor).into();
            }
        }
        entry
    }
}

fn lobo_round(rng: &mut ChaCha8Rng) -> RoundTranscript<'static> {
    let table_mode = *[LoboMode::Hard, LoboMode::Ordinary, LoboMode::Easy]
        .choose(rng)
        .unwrap();
    let mode: Mode = table_mode.engine();
    let unit = Amount::from_minor(*[100, 101, 250].choose(rng).unwrap()).expect("positive");
    let cap = 40;
    let house_rule = default_house_rule(mode);
    let (shuffle, dealt) = shuffle_of(rng, Game::Lobo, mode.max_rank());
    let rules = serde_json::json!({
        "mode": table_mode, "unit": unit, "loss_cap_points": cap, "house_rule": house_rule, "hints": false,
    });
    let mut t = skeleton("lobo", shuffle, rules, "settled");
    let mut state = lobo::LoboState::deal(mode, &dealt.deck).expect("a whole deck");
    let mut plays = Vec::new();
    while !state.is_over() {
        let legal = state.legal_plays();
        let captures: Vec<_> = legal.iter().filter(|p| p.kind != PlayKind::Fold).collect();
        let play = match captures.choose(rng) {
            Some(p) if rng.gen_bool(0.95) => (*p).clone(),
            _ => lobo::Play::fold(),
        };
        state = state.apply(&play).expect("legal");
        plays.push(play);
    }
    let outcome = state.outcome().expect("over");
    let wolf_points: u32 = dealt.deck[..lobo::HAND_SIZE]
        .iter()
        .map(|c| c.rank().value() as u32)
        .sum();
    let start = lobo::start_money(unit, cap, &house_rule, wolf_points);
    let settle = lobo::settle_money(unit, cap, start.escrow_minor, &outcome);
    let mut ledger = Ledger { transfers: Vec::new() };
    let w = wallet("P1");
    ledger.post("lobo_escrow", &w, "escrow", start.escrow_minor);
    // One in ten voided by a pit boss before the last play: the escrow and the charge go back.
    let voided = !plays.is_empty() && rng.gen_bool(0.1);
    let ends = if voided {
        plays.pop();
        t.status = "voided".into();
        [
            ("lobo_fee", w.as_str(), "house:revenue", start.charge_minor),
            ("refund", "escrow", w.as_str(), start.escrow_minor),
            ("refund", "house:revenue", w.as_str(), start.charge_minor),
        ]
        .to_vec()
    } else {
        [
            ("lobo_fee", w.as_str(), "house:revenue", start.charge_minor),
            ("lobo_win", "house:bankroll", w.as_str(), settle.win_minor),
            ("lobo_loss", "escrow", "house:bankroll", settle.loss_minor),
            ("lobo_release", "escrow", w.as_str(), settle.release_minor),
        ]
        .to_vec()
    };
    for (kind, from, to, minor) in ends {
        if minor > 0 {
            ledger.post(kind, from, to, minor);
        }
    }
    t.players = vec![Party {
        pseudonym: "P1".to_owned().into(),
        you: false,
        player_id: None,
    }];
    t.seats = vec![SeatEntry {
        suit: None,
        player: "P1".to_owned().into(),
    }];
    t.plays = plays;
    t.outcome = (!voided).then(|| super::raw(&super::LoboOutcome::new(&outcome, cap, wolf_points)));
    t.transfers = ledger.transfers;
    t
}
