//! Replaying a version-2 transcript (docs/transcript.md, "What a replay
//! checks"): the shuffle, then the play through the engines, the outcome,
//! each bet's return and every transfer. Each check is named; a check whose
//! inputs failed earlier fails as "not checked". Nothing here panics on a
//! malformed or doctored transcript.

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::Value;
use std::borrow::Cow;

use super::ledger_proof::{self, ProofPolicy};
use super::{RoundTranscript, FORMAT, VERSION};

mod bet_returns;
mod confidence;
mod fuerza;
mod pay_tables;
mod transfers;

use crate::cards::shuffle::Game;
use crate::cards::transcript::{self as v1, fail, first_difference, pass, Check, Recomputed, ShuffleTranscript};
use crate::cards::transcript::{Reshuffle, VerificationReport};
use crate::cards::{Card, Suit};
use crate::domain::Amount;
use crate::games::lobo::{self, EndReason, Mode, Outcome};
use crate::games::prima_carta::{
    self as engine, CobreOutcome, CopaDecision, DealFacts, DealOut, Event, Phase, RoundProgress, WinKind,
};
use crate::tables::config::{LoboMode, PrimaCartaConfig};
use bet_returns::*;
use pay_tables::*;
use transfers::*;

/// Verifies any document a verifier may be given: a version-2 transcript, a
/// version-1 shuffle transcript, or a response holding one under `transcript`.
pub fn verify_document(doc: &Value) -> VerificationReport {
    verify_document_with(doc, &ProofPolicy::default())
}

/// [`verify_document`], the ledger proof checked as `policy` asks.
pub fn verify_document_with(doc: &Value, policy: &ProofPolicy) -> VerificationReport {
    let doc = match doc.get("transcript") {
        Some(inner) if inner.is_object() => inner,
        _ => doc,
    };
    if doc.get("version").is_none() {
        return match ShuffleTranscript::deserialize(doc) {
            Ok(t) => v1::verify(&t),
            Err(e) => unreadable(e.to_string()),
        };
    }
    // Read from text: `rules`, `outcome` and pay tables stay JSON text.
    match serde_json::from_str::<RoundTranscript>(&doc.to_string()) {
        Ok(t) => verify_with(&t, policy),
        Err(e) => unreadable(e.to_string()),
    }
}

/// Verifies a document given as JSON text; a version-2 transcript is read
/// straight into its types (the bulk path).
pub fn verify_text(text: &str) -> VerificationReport {
    match serde_json::from_str::<RoundTranscript>(text) {
        Ok(t) => verify(&t),
        Err(_) => match serde_json::from_str::<Value>(text) {
            Ok(doc) => verify_document(&doc),
            Err(e) => unreadable(e.to_string()),
        },
    }
}

/// Verifies one version-2 transcript, its ledger proof when it carries one.
pub fn verify(t: &RoundTranscript) -> VerificationReport {
    verify_with(t, &ProofPolicy::default())
}

/// Verifies one version-2 transcript; last, its ledger proof as `policy` asks.
pub fn verify_with(t: &RoundTranscript, policy: &ProofPolicy) -> VerificationReport {
    let (shuffle_report, recomputed) = v1::verify_dealing(&t.shuffle);
    let shuffle_ok = shuffle_report.passed;
    let mut checks = shuffle_report.checks;
    let mut run = Run { checks: &mut checks };

    let round_ok = run.check("round", check_round(t));
    let dealt = recomputed.filter(|_| shuffle_ok && round_ok);
    match Game::parse(&t.game) {
        Some(Game::PrimaCarta) => verify_prima(t, dealt, &mut run),
        Some(Game::Lobo) => verify_lobo(t, dealt, &mut run),
        None => {
            for name in ["rules", "pay_tables", "play", "outcome", "bets", "transfers"] {
                run.not_checked(name, "the game is unknown");
            }
        }
    }
    if let Some(check) = ledger_proof::report(&t.round_id, &t.table_id, &t.transfers, t.ledger_proof.as_ref(), policy) {
        checks.push(check);
    }
    VerificationReport {
        passed: checks.iter().all(|c| c.passed),
        checks,
    }
}
fn verify_prima(t: &RoundTranscript, dealt: Option<Recomputed>, run: &mut Run<'_>) {
    let config = run.check_value("rules", prima_rules(&t.rules));
    let pay_tables = run.check_value("pay_tables", pay_tables_of(t));
    let Some(config) = config else {
        for name in ["play", "outcome", "bets", "confidence_bets", "fuerza_bets", "transfers"] {
            run.not_checked(name, "the rules do not parse");
        }
        return;
    };
    let Some(dealt) = dealt else {
        for name in ["play", "outcome", "bets", "confidence_bets", "fuerza_bets", "transfers"] {
            run.not_checked(name, "the shuffle does not verify");
        }
        return;
    };
    let voided = t.status == "voided";
    let played = run.check_value("play", play_prima(t, &config, &dealt, voided));
    let Some(played) = played else {
        for name in ["outcome", "bets", "confidence_bets", "fuerza_bets", "transfers"] {
            run.not_checked(name, "the play does not replay");
        }
        return;
    };
    if let (Some(given), Some(game)) = (&t.events, &played.game) {
        run.check("events", same_events(given, &game.events));
    }
    if let (Some(given), Some(out)) = (&t.deal_out_events, &played.deal_out) {
        run.check("deal_out_events", same_events(given, &out.events));
    }
    run.check(
        "outcome",
        check_outcome(t.outcome.as_deref(), prima_outcome(&played).as_ref()),
    );
    let returns = match (&pay_tables, &played.deal_out) {
        (Some(tables), deal_out) => run.check_value(
            "bets",
            bet_returns(t, tables, deal_out.as_ref().map(|d| &d.facts), voided),
        ),
        (None, _) => {
            run.not_checked("bets", "the pay tables do not verify");
            None
        }
    };
    let confidence = match confidence::confidence_legs(t, &config, &played, voided) {
        Ok((legs, summary)) => {
            run.check("confidence_bets", Ok(summary.into()));
            Some(legs)
        }
        Err(why) => {
            run.check("confidence_bets", Err(why.into()));
            None
        }
    };
    let fuerza = match fuerza::fuerza_legs(t, &config, &played, &dealt.deck, voided) {
        Ok((legs, summary)) => {
            run.check("fuerza_bets", Ok(summary.into()));
            Some(legs)
        }
        Err(why) => {
            run.check("fuerza_bets", Err(why.into()));
            None
        }
    };
    match (returns, confidence, fuerza) {
        (Some(returns), Some(mut confidence), Some(fuerza)) => {
            confidence.extend(fuerza);
            run.check(
                "transfers",
                prima_transfers(t, &config, &played, &returns, confidence, voided),
            );
        }
        (None, _, _) => run.not_checked("transfers", "the bets do not verify"),
        (_, None, _) => run.not_checked("transfers", "the confidence bets do not verify"),
        (_, _, None) => run.not_checked("transfers", "the Fuerza bets do not verify"),
    }
}

/// A transcript that is not even the right shape.
fn unreadable(why: impl Into<String>) -> VerificationReport {
    VerificationReport {
        passed: false,
        checks: vec![fail(
            "transcript",
            None,
            format!("not a readable transcript: {}", why.into()),
        )],
    }
}

/// Collects named checks.
struct Run<'a> {
    checks: &'a mut Vec<Check>,
}

impl Run<'_> {
    fn check(&mut self, name: &'static str, result: Result<Cow<'static, str>, Mismatch>) -> bool {
        let ok = result.is_ok();
        self.checks.push(match result {
            Ok(detail) => pass(name, detail),
            Err(m) => fail(name, m.at, m.detail),
        });
        ok
    }

    fn check_value<T>(&mut self, name: &'static str, result: Result<T, String>) -> Option<T> {
        match result {
            Ok(v) => {
                self.checks.push(pass(name, "as replayed"));
                Some(v)
            }
            Err(why) => {
                self.checks.push(fail(name, None, why));
                None
            }
        }
    }

    fn not_checked(&mut self, name: &'static str, why: &str) {
        self.checks.push(fail(name, None, format!("not checked: {why}")));
    }
}

/// A failed comparison: what differs and, where it applies, the first index.
struct Mismatch {
    at: Option<usize>,
    detail: String,
}

impl From<String> for Mismatch {
    fn from(detail: String) -> Mismatch {
        Mismatch { at: None, detail }
    }
}

fn check_round(t: &RoundTranscript) -> Result<Cow<'static, str>, Mismatch> {
    if t.transcript != FORMAT || t.version != VERSION {
        return Err(format!("not a {FORMAT} transcript of version {VERSION}").into());
    }
    if t.game != t.shuffle.game || t.round_id != t.shuffle.round_id {
        return Err(format!(
            "the round is {} {} but its shuffle is of {} {}",
            t.game, t.round_id, t.shuffle.game, t.shuffle.round_id
        )
        .into());
    }
    if t.status != "settled" && t.status != "voided" {
        return Err(format!("status {:?} is neither settled nor voided", t.status).into());
    }
    check_players(t)?;
    Ok(format!("{} round {} ({})", t.game, t.round_id, t.status).into())
}

/// `players` is exactly the round's people: `P1`, `P2`, … in order of first appearance
/// (the seats in order, then the bettors by first bet, then the parties of the confidence bets
/// in order), each once, at most one of them `you`.
fn check_players(t: &RoundTranscript) -> Result<(), String> {
    let mut named: Vec<&str> = Vec::new();
    for who in t
        .seats
        .iter()
        .map(|s| s.player.as_ref())
        .chain(t.bets.iter().map(|b| b.player.as_ref()))
        .chain(
            t.confidence_bets
                .iter()
                .flat_map(|c| std::iter::once(c.offered_by.as_ref()).chain(c.accepted_by.as_deref())),
        )
        .chain(t.fuerza_bets.iter().map(|f| f.player.as_ref()))
    {
        if !named.contains(&who) {
            named.push(who);
        }
    }
    let listed: Vec<&str> = t.players.iter().map(|p| p.pseudonym.as_ref()).collect();
    let expected: Vec<String> = (1..=named.len()).map(|i| format!("P{i}")).collect();
    if listed != named || named.iter().zip(&expected).any(|(n, e)| n != e) {
        return Err(format!(
            "players lists [{}]; the seats and bets name [{}], which must be P1, P2, … in order of first appearance",
            listed.join(", "),
            named.join(", ")
        ));
    }
    if t.players.iter().filter(|p| p.you).count() > 1 {
        return Err("more than one player is marked as you".into());
    }
    Ok(())
}

/// A money string as minor units ("0.00" allowed).
fn minor(text: &str) -> Result<i64, String> {
    if matches!(text, "0" | "0.0" | "0.00") {
        return Ok(0);
    }
    Amount::parse(text)
        .map(Amount::minor)
        .map_err(|e| format!("{text:?}: {e}"))
}

fn suit(name: &str) -> Result<Suit, String> {
    Suit::parse(name).ok_or_else(|| format!("unknown suit {name:?}"))
}

fn prima_rules(rules: &RawValue) -> Result<PrimaCartaConfig, String> {
    serde_json::from_str(rules.get()).map_err(|e| format!("the Prima Carta options do not parse: {e}"))
}

/// The replayed Prima Carta round: `None` parts for a voided round.
struct PrimaPlay<'t> {
    seats: Vec<(Suit, &'t str)>,
    game: Option<RoundProgress>,
    deal_out: Option<DealOut>,
}

fn play_prima<'t>(
    t: &'t RoundTranscript,
    config: &PrimaCartaConfig,
    dealt: &Recomputed,
    voided: bool,
) -> Result<PrimaPlay<'t>, String> {
    let seats = t
        .seats
        .iter()
        .map(|s| {
            let suit = suit(s.suit.as_deref().unwrap_or("(none)"))?;
            known_player(t, &s.player)?;
            Ok((suit, s.player.as_ref()))
        })
        .collect::<Result<Vec<_>, String>>()?;
    if voided {
        if !t.decisions.is_empty() || !t.shuffle.reshuffles.is_empty() {
            return Err("a voided round dealt no card, so it has no decision and no reshuffle".into());
        }
        return Ok(PrimaPlay {
            seats,
            game: None,
            deal_out: None,
        });
    }
    let decisions = t
        .decisions
        .iter()
        .map(|d| {
            Ok(CopaDecision {
                suit: suit(&d.suit)?,
                pay: d.pay,
            })
        })
        .collect::<Result<Vec<_>, String>>()?;
    let seated: Vec<Suit> = seats.iter().map(|(s, _)| *s).collect();
    let rules = config.rules();
    let mut stream = dealt.stream.clone();
    let game = engine::play(&dealt.deck, &rules, &seated, &decisions, &mut |cards| {
        stream.shuffle(cards)
    })
    .map_err(|e| format!("the decisions do not replay: {e}"))?;
    if let Phase::AwaitingCopa(turn) = &game.phase {
        return Err(format!(
            "the round stops at {}'s copa decision, which the transcript lacks",
            turn.turn
        ));
    }
    let mut stream = dealt.stream.clone();
    let deal_out = engine::deal_out(&dealt.deck, rules.variant, &mut |cards| stream.shuffle(cards))
        .map_err(|e| format!("the deal-out does not replay: {e}"))?;
    // One reshuffle at most (Jasper, of the first pass's discards); the game
    // and the deal-out make the same one when both need it.
    let reshuffle = reshuffle_of(&game.events).or_else(|| deal_out.reshuffle());
    let expected: Vec<Reshuffle> = reshuffle.map(|(b, a)| Reshuffle::new(b, a)).into_iter().collect();
    if expected != t.shuffle.reshuffles {
        let detail = match (expected.first(), t.shuffle.reshuffles.first()) {
            (None, Some(_)) => "the rules call for no reshuffle, the transcript shows one".to_owned(),
            (Some(_), None) => "the rules call for a reshuffle of the discards, the transcript shows none".to_owned(),
            (Some(e), Some(g)) if e.before != g.before => format!(
                "the reshuffle's pile differs from the discards at position {}",
                first_difference(&e.before, &g.before).unwrap_or(0)
            ),
            _ => format!(
                "the rules call for {} reshuffle(s), the transcript shows {}",
                expected.len(),
                t.shuffle.reshuffles.len()
            ),
        };
        return Err(detail);
    }
    Ok(PrimaPlay {
        seats,
        game: Some(game),
        deal_out: Some(deal_out),
    })
}

fn reshuffle_of(events: &[Event]) -> Option<(&[Card], &[Card])> {
    events.iter().find_map(|e| match e {
        Event::Reshuffled { before, after } => Some((before.as_slice(), after.as_slice())),
        _ => None,
    })
}

fn known_player(t: &RoundTranscript, pseudonym: &str) -> Result<(), String> {
    if t.players.iter().any(|p| p.pseudonym == pseudonym) {
        Ok(())
    } else {
        Err(format!("{pseudonym} is not among the round's players"))
    }
}

fn same_events(given: &[Value], replayed: &[Event]) -> Result<Cow<'static, str>, Mismatch> {
    let replayed: Vec<Value> = replayed
        .iter()
        .map(|e| serde_json::to_value(e).unwrap_or(Value::Null))
        .collect();
    match first_difference(given, &replayed) {
        None => Ok(format!("{} events as replayed", replayed.len()).into()),
        Some(i) => Err(Mismatch {
            at: Some(i),
            detail: format!(
                "event {i}: replayed {}, transcript {}",
                replayed.get(i).map_or("nothing".into(), Value::to_string),
                given.get(i).map_or("nothing".into(), Value::to_string)
            ),
        }),
    }
}

/// A settled Prima Carta round's outcome as a transcript shows it
/// (docs/transcript.md): the engine's result and the deal-out's facts.
#[derive(Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PrimaOutcome {
    pub winner: Suit,
    pub how: WinKind,
    pub prima: Suit,
    pub passes: u8,
    pub folded: Vec<Suit>,
    pub pot_units: u32,
    pub winner_takes_units: u32,
    pub corte_payer: Option<Suit>,
    pub cobre: Option<CobreOutcome>,
    pub facts: DealFacts,
}

impl PrimaOutcome {
    pub fn new(result: &engine::RoundResult, facts: &DealFacts) -> PrimaOutcome {
        PrimaOutcome {
            winner: result.winner,
            how: result.how,
            prima: result.prima,
            passes: result.passes,
            folded: result.folded.clone(),
            pot_units: result.pot_units,
            winner_takes_units: result.winner_takes_units,
            corte_payer: result.corte_payer,
            cobre: result.cobre.clone(),
            facts: facts.clone(),
        }
    }
}

/// A Lobo round's outcome as a transcript shows it (docs/transcript.md).
#[derive(Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LoboOutcome {
    pub player_won: bool,
    pub points: u32,
    /// The points paid: a loss capped at the table's cap.
    pub paid_points: u32,
    pub reason: EndReason,
    pub wolf_opening_points: u32,
}

impl LoboOutcome {
    pub fn new(outcome: &Outcome, loss_cap_points: u32, wolf_opening_points: u32) -> LoboOutcome {
        LoboOutcome {
            player_won: outcome.player_won,
            points: outcome.points,
            paid_points: outcome.capped_points(Some(loss_cap_points)),
            reason: outcome.reason,
            wolf_opening_points,
        }
    }
}

fn prima_outcome(played: &PrimaPlay) -> Option<PrimaOutcome> {
    let result = played.game.as_ref()?.result()?;
    Some(PrimaOutcome::new(result, &played.deal_out.as_ref()?.facts))
}

/// Compares the transcript's outcome with the replayed one: read into its
/// type when it can be; otherwise field by field, to name the first difference.
fn check_outcome<T>(given: Option<&RawValue>, replayed: Option<&T>) -> Result<Cow<'static, str>, Mismatch>
where
    T: Serialize,
{
    match (given, replayed) {
        (None, None) => Ok("none: the round was voided".into()),
        (Some(g), Some(r)) => {
            // Compared as JSON, not as the typed value: a field left out (even one the
            // replay has as null) or one the outcome does not have is a difference.
            let g: Value = serde_json::from_str(g.get()).unwrap_or(Value::Null);
            let r = serde_json::to_value(r).unwrap_or(Value::Null);
            match first_field_difference(&g, &r, "") {
                None => Ok("as replayed".into()),
                Some(path) => Err(format!(
                    "{path}: replayed {}, transcript {}",
                    pointer(&r, &path),
                    pointer(&g, &path)
                )
                .into()),
            }
        }
        (Some(_), None) => Err("a voided round has no outcome".to_owned().into()),
        (None, Some(_)) => Err("the outcome is missing".to_owned().into()),
    }
}

/// The path of the first field where two JSON values differ (keys in the replayed order).
fn first_field_difference(given: &Value, replayed: &Value, path: &str) -> Option<String> {
    match (given, replayed) {
        (Value::Object(g), Value::Object(r)) => {
            for (k, rv) in r {
                let here = format!("{path}/{k}");
                match g.get(k) {
                    Some(gv) => {
                        if let Some(p) = first_field_difference(gv, rv, &here) {
                            return Some(p);
                        }
                    }
                    None => return Some(here),
                }
            }
            g.keys().find(|k| !r.contains_key(*k)).map(|k| format!("{path}/{k}"))
        }
        (Value::Array(g), Value::Array(r)) if g.len() == r.len() => g
            .iter()
            .zip(r)
            .enumerate()
            .find_map(|(i, (gv, rv))| first_field_difference(gv, rv, &format!("{path}/{i}"))),
        _ if given == replayed => None,
        _ => Some(if path.is_empty() {
            "/".to_owned()
        } else {
            path.to_owned()
        }),
    }
}

fn pointer(v: &Value, path: &str) -> String {
    let p = if path == "/" { "" } else { path };
    v.pointer(p).map_or_else(|| "nothing".to_owned(), Value::to_string)
}

// ---------------------------------------------------------------------------
// Lobo
// ---------------------------------------------------------------------------

/// The Lobo options a transcript carries.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct LoboRules {
    mode: LoboMode,
    unit: Amount,
    loss_cap_points: u32,
    house_rule: lobo::HouseRule,
    /// Carried for the reader; hints change no outcome.
    #[allow(dead_code)]
    hints: bool,
}

fn verify_lobo(t: &RoundTranscript, dealt: Option<Recomputed>, run: &mut Run<'_>) {
    let rules = run.check_value(
        "rules",
        serde_json::from_str::<LoboRules>(t.rules.get()).map_err(|e| format!("the Lobo options do not parse: {e}")),
    );
    run.check(
        "pay_tables",
        if t.pay_tables.is_empty() && t.bets.is_empty() && t.confidence_bets.is_empty() && t.fuerza_bets.is_empty() {
            Ok("Lobo has no side bets".into())
        } else {
            Err(
                "a Lobo round has no pay tables, no side bets, no confidence bets and no Fuerza bets"
                    .to_owned()
                    .into(),
            )
        },
    );
    let (Some(rules), Some(dealt)) = (rules, dealt) else {
        for name in ["play", "outcome", "bets", "transfers"] {
            run.not_checked(name, "the rules or the shuffle do not verify");
        }
        return;
    };
    let mode: Mode = rules.mode.engine();
    // A pit boss voids a Lobo round only while it is in play: its plays stop short of the end.
    let voided = t.status == "voided";
    let state = if dealt.deck.len() != mode.deck_len() {
        Err(format!(
            "a {} deck has {} cards, not {}",
            mode.name(),
            mode.deck_len(),
            dealt.deck.len()
        ))
    } else if let Some(p) = t
        .seats
        .first()
        .map(|s| &s.player)
        .filter(|p| known_player(t, p).is_err())
    {
        Err(format!("{p} is not among the round's players"))
    } else {
        lobo::replay(mode, &dealt.deck, &t.plays)
            .map_err(|e| format!("the plays do not replay: {e}"))
            .and_then(|s| match (s.outcome(), voided) {
                (Some(o), false) => Ok(Some(o)),
                (None, true) => Ok(None),
                (None, false) => Err("the round is not over after the last play".into()),
                (Some(_), true) => Err("a voided Lobo round was over before its void".into()),
            })
    };
    let Some(outcome) = run.check_value("play", state) else {
        for name in ["outcome", "bets", "transfers"] {
            run.not_checked(name, "the plays do not replay");
        }
        return;
    };
    let wolf_points: u32 = dealt.deck[..lobo::HAND_SIZE]
        .iter()
        .map(|c| c.rank().value() as u32)
        .sum();
    let replayed = outcome.map(|o| LoboOutcome::new(&o, rules.loss_cap_points, wolf_points));
    run.check("outcome", check_outcome(t.outcome.as_deref(), replayed.as_ref()));
    run.check("bets", Ok("Lobo has no side bets".into()));
    let player = t.seats.first().map_or("P1", |s| s.player.as_ref());
    let w = Account::Wallet(player);
    let start = lobo::start_money(rules.unit, rules.loss_cap_points, &rules.house_rule, wolf_points);
    let mut expected = vec![leg("lobo_escrow", w, ESCROW, start.escrow_minor)];
    if start.charge_minor > 0 {
        expected.push(leg("lobo_fee", w, HOUSE_REVENUE, start.charge_minor));
    }
    let ends = match outcome {
        // Settled: the win from the bankroll, the loss from the escrow, the rest of it back.
        Some(o) => {
            let settle = lobo::settle_money(rules.unit, rules.loss_cap_points, start.escrow_minor, &o);
            [
                ("lobo_win", HOUSE_BANKROLL, w, settle.win_minor),
                ("lobo_loss", ESCROW, HOUSE_BANKROLL, settle.loss_minor),
                ("lobo_release", ESCROW, w, settle.release_minor),
            ]
            .to_vec()
        }
        // Voided: the whole escrow and the charge back.
        None => [
            ("refund", ESCROW, w, start.escrow_minor),
            ("refund", HOUSE_REVENUE, w, start.charge_minor),
        ]
        .to_vec(),
    };
    for (kind, from, to, amount) in ends {
        if amount > 0 {
            expected.push(leg(kind, from, to, amount));
        }
    }
    run.check("transfers", same_transfers(t, expected));
}
