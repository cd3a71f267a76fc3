//! The replay against random rounds of every kind, honest and doctored.

use super::sample::sample_round;
use super::{raw, verify, verify_document, verify_text, RoundTranscript};
use crate::cards::shuffle::{deck_seed, Game, ServerSeed, Shuffler};
use crate::cards::transcript::VerificationReport;
use crate::cards::{ordered_deck, Card};

const ROUNDS: u64 = 1500;

fn first_failure(r: &VerificationReport) -> Option<&str> {
    r.checks.iter().find(|c| !c.passed).map(|c| c.name.as_ref())
}

#[test]
fn every_random_round_replays() {
    let mut seen = std::collections::BTreeMap::new();
    for seed in 0..ROUNDS {
        let t = sample_round(seed);
        let report = verify(&t);
        assert!(report.passed, "round {seed}:\n{}", report.to_text());
        let rules: serde_json::Value = serde_json::from_str(t.rules.get()).unwrap();
        let variant = rules
            .get("variant")
            .and_then(|v| v.as_str())
            .unwrap_or("lobo")
            .to_owned();
        let outcome: Option<serde_json::Value> = t.outcome.as_ref().map(|o| serde_json::from_str(o.get()).unwrap());
        let how = outcome
            .as_ref()
            .and_then(|o| o.get("how"))
            .and_then(|h| h.as_str())
            .unwrap_or(&t.status);
        let reshuffled = !t.shuffle.reshuffles.is_empty();
        *seen
            .entry(format!("{variant} {how} reshuffled={reshuffled}"))
            .or_insert(0) += 1;
        // Through JSON too, as a verifier reads it.
        let json = serde_json::to_value(&t).unwrap();
        assert!(verify_document(&json).passed);
        assert!(verify_document(&serde_json::json!({ "transcript": json })).passed);
        // And as a line of a bulk export, read in place.
        assert!(verify_text(&serde_json::to_string(&t).unwrap()).passed);
    }
    for must in [
        "classic last_live reshuffled=false",
        "classic repasso_completion reshuffled=false",
        "cinco cinco_tallest reshuffled=false",
        "jasper last_live reshuffled=true",
        "jasper repasso_completion reshuffled=true",
        "classic voided reshuffled=false",
        "lobo settled reshuffled=false",
        "lobo voided reshuffled=false",
    ] {
        assert!(seen.get(must).copied().unwrap_or(0) > 0, "no {must} among {seen:?}");
    }
}

/// The stream just after the deck shuffle, recomputed from the transcript's seeds.
fn stream_of(t: &RoundTranscript) -> Shuffler {
    let seed = ServerSeed::from_hex(&t.shuffle.server_seed).unwrap();
    let mut s = Shuffler::from_deck_seed(deck_seed(&seed, Game::PrimaCarta, &t.round_id, &t.shuffle.client_seed));
    let mut deck: Vec<Card> = ordered_deck(10);
    s.shuffle(&mut deck);
    s
}

/// Each doctoring, the rounds it applies to, and the check that must fail first.
type Doctor = (&'static str, &'static str, fn(&mut RoundTranscript<'static>) -> bool);

fn doctorings() -> Vec<Doctor> {
    vec![
        ("swapped deck cards", "deck", |t| {
            t.shuffle.deck.swap(3, 17);
            true
        }),
        ("reshuffle of another pile, consistently shuffled", "play", |t| {
            let Some(r) = t.shuffle.reshuffles.first().cloned() else {
                return false;
            };
            if r.before.len() < 2 {
                return false;
            }
            let mut before = r.before.clone();
            before.swap(0, 1);
            let mut after = before.clone();
            stream_of(t).shuffle_slice(&mut after);
            t.shuffle.reshuffles[0].before = before;
            t.shuffle.reshuffles[0].after = after;
            true
        }),
        ("reshuffle removed", "play", |t| t.shuffle.reshuffles.pop().is_some()),
        ("decision flipped", "play|events|outcome", |t| {
            match t.decisions.first_mut() {
                Some(d) => {
                    d.pay = !d.pay;
                    true
                }
                None => false,
            }
        }),
        ("bet return raised", "bets", |t| match t.bets.first_mut() {
            Some(b) if t.status == "settled" => {
                b.returned = raise(&b.returned).into();
                true
            }
            _ => false,
        }),
        ("transfer raised", "transfers", |t| match t.transfers.last_mut() {
            Some(x) => {
                x.amount = raise(&x.amount).into();
                true
            }
            None => false,
        }),
        ("transfer removed", "transfers", |t| t.transfers.pop().is_some()),
        ("pay table pays changed", "pay_tables", |t| {
            match t.pay_tables.first_mut() {
                Some(p) => {
                    let mut spec: crate::bets::PayTableSpec = serde_json::from_str(p.spec.get()).unwrap();
                    spec.prima.pays += rust_decimal::Decimal::ONE;
                    p.spec = raw(&spec);
                    true
                }
                None => false,
            }
        }),
        ("winner changed", "outcome", |t| {
            let Some(mut outcome) = t
                .outcome
                .as_ref()
                .map(|o| serde_json::from_str::<serde_json::Value>(o.get()).unwrap())
            else {
                return false;
            };
            let Some(w) = outcome.get_mut("winner") else {
                return false;
            };
            *w = serde_json::json!(if w == "crowns" { "cups" } else { "crowns" });
            t.outcome = Some(raw(&outcome));
            true
        }),
        // A voided Lobo round stopped in play, and any shorter legal start of it is one too.
        ("last Lobo play dropped", "play", |t| {
            t.status == "settled" && t.plays.pop().is_some()
        }),
    ]
}

fn raise(amount: &str) -> String {
    let minor = crate::domain::Amount::parse(amount).map_or(0, |a| a.minor());
    crate::domain::format_minor(minor + 1)
}

#[test]
fn every_doctored_round_fails_where_it_was_doctored() {
    let mut applied = std::collections::BTreeMap::new();
    for seed in 0..ROUNDS / 3 {
        let honest = sample_round(seed);
        for (what, expected, doctor) in doctorings() {
            let mut t = honest.clone();
            if !doctor(&mut t) {
                continue;
            }
            let report = verify(&t);
            let failed = first_failure(&report);
            assert!(
                failed.is_some_and(|f| expected.split('|').any(|e| e == f)),
                "round {seed}, {what}: first failure {failed:?}, expected {expected}\n{}",
                report.to_text()
            );
            *applied.entry(what).or_insert(0) += 1;
        }
    }
    assert_eq!(
        applied.len(),
        doctorings().len(),
        "every doctoring applied: {applied:?}"
    );
}

/// The bulk path reads strings in place; one written with JSON escapes (as
/// any JSON writer may) reads and verifies the same.
#[test]
fn escaped_strings_read_as_their_text() {
    for seed in 0..50 {
        let line = serde_json::to_string(&sample_round(seed)).unwrap();
        let escaped = line
            .replace("\"P1\"", "\"\\u00501\"")
            .replace("\"escrow\"", "\"esc\\u0072ow\"");
        assert_ne!(escaped, line);
        let t: RoundTranscript = serde_json::from_str(&escaped).expect("reads in place, escapes and all");
        let report = verify(&t);
        assert!(report.passed, "round {seed}:\n{}", report.to_text());
        assert!(verify_text(&escaped).passed);
    }
}

#[test]
fn a_version_1_transcript_is_still_read() {
    let t = sample_round(7);
    let v1 = serde_json::to_value(&t.shuffle).unwrap();
    let report = verify_document(&v1);
    assert!(report.passed);
    assert!(report.check("round").is_none(), "only the shuffle is checked");
}

#[test]
fn malformed_documents_fail_without_panicking() {
    for doc in [
        serde_json::json!(null),
        serde_json::json!([]),
        serde_json::json!({ "version": 2 }),
        serde_json::json!({ "transcript": 5 }),
    ] {
        assert!(!verify_document(&doc).passed, "{doc}");
    }
    let mut t = serde_json::to_value(sample_round(3)).unwrap();
    t["rules"] = serde_json::json!({ "variant": "poker" });
    let report = verify_document(&t);
    assert_eq!(first_failure(&report), Some("rules"));
}

/// The independent Python verifier (docs/verify/verify_round.py) replays the
/// same random rounds, honest and doctored, to the same verdict and the same
/// first failed check as this one.
#[test]
fn the_python_verifier_agrees_on_whole_rounds() {
    const PYTHON_ROUNDS: u64 = 2000;
    let mut docs = Vec::new();
    for seed in 0..PYTHON_ROUNDS {
        let honest = sample_round(1_000_000 + seed);
        if seed % 4 == 0 {
            // A quarter of them doctored, each way in turn where it applies.
            let doctorings = doctorings();
            for k in 0..doctorings.len() {
                let (_, _, doctor) = doctorings[(seed as usize / 4 + k) % doctorings.len()];
                let mut t = honest.clone();
                if doctor(&mut t) {
                    docs.push(t);
                    break;
                }
            }
        }
        docs.push(honest);
    }
    let (python, _) = crate::cards::python_verifier_tests::python_reports(&docs, "rounds");
    assert_eq!(python.len(), docs.len());
    let (mut passed, mut failed) = (0, 0);
    for (t, p) in docs.iter().zip(&python) {
        let rust = verify(t);
        let p_first = p["checks"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["passed"] == false)
            .map(|c| c["name"].as_str().unwrap_or("?"));
        assert_eq!(
            (p["passed"].as_bool(), p_first),
            (Some(rust.passed), first_failure(&rust)),
            "round {}: python {p}\nrust:\n{}",
            t.round_id,
            rust.to_text()
        );
        if rust.passed {
            passed += 1;
        } else {
            failed += 1;
        }
    }
    assert!(passed > 1000 && failed > 400, "{passed} honest, {failed} doctored");
}
