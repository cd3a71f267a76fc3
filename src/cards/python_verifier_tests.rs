//! docs/verify/verify_round.py must agree with `transcript::verify`, check by check,
//! on honest and deliberately corrupted transcripts.

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::process::Command;

use crate::cards::shuffle::{client_seed_for, shuffled_deck, ClientSeed, Game, ServerSeed};
use crate::cards::transcript::{verify, Reshuffle, ShuffleTranscript, VerificationReport};
use crate::cards::Card;

/// Runs docs/verify/verify_round.py on `docs` (written to a temporary file as one JSON list)
/// and returns its `--json` reports, one per document, and its exit code.
pub(crate) fn python_reports(docs: &impl serde::Serialize, name: &str) -> (Vec<serde_json::Value>, Option<i32>) {
    let path = std::env::temp_dir().join(format!("djego-{name}-{}.json", std::process::id()));
    std::fs::write(&path, serde_json::to_string(docs).unwrap()).unwrap();
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/verify/verify_round.py");
    let output = Command::new("python3")
        .arg(script)
        .arg("--json")
        .arg(&path)
        .output()
        .expect("python3 runs");
    let _ = std::fs::remove_file(&path);
    let python: serde_json::Value = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&output.stderr)));
    (
        python.as_array().expect("a list of reports").clone(),
        output.status.code(),
    )
}

/// The Python report says what djego's says: the same checks in the same order, each with the
/// same verdict and first mismatch, and the same verdict overall. `doc` names the document.
fn assert_same_report(rust: &VerificationReport, python: &serde_json::Value, doc: &str) {
    let checks = python["checks"].as_array().unwrap();
    let python_names: Vec<&str> = checks.iter().map(|c| c["name"].as_str().unwrap()).collect();
    let rust_names: Vec<&str> = rust.checks.iter().map(|c| c.name.as_ref()).collect();
    assert_eq!(python_names, rust_names, "{doc}");
    for (r, pc) in rust.checks.iter().zip(checks) {
        let ctx = format!("{doc}\nrust {r:?}\npython {pc}");
        assert_eq!(pc["passed"].as_bool(), Some(r.passed), "{ctx}");
        assert_eq!(
            pc["first_mismatch"].as_u64().map(|i| i as usize),
            r.first_mismatch,
            "{ctx}"
        );
    }
    assert_eq!(python["passed"].as_bool(), Some(rust.passed), "{doc}");
}

fn random_client_seed(rng: &mut StdRng) -> ClientSeed {
    let len = rng.gen_range(1..=64);
    let text: String = (0..len).map(|_| rng.gen_range(0x20u8..=0x7e) as char).collect();
    ClientSeed::parse(&text).unwrap()
}

fn honest_transcript(rng: &mut StdRng) -> ShuffleTranscript {
    let server_seed = ServerSeed::from_bytes(rng.gen());
    let game = if rng.gen_bool(0.6) {
        Game::PrimaCarta
    } else {
        Game::Lobo
    };
    let max_rank = match game {
        Game::PrimaCarta => 10,
        Game::Lobo => [8, 9, 10][rng.gen_range(0..3)],
    };
    let seed_count = match game {
        Game::PrimaCarta => rng.gen_range(0..=5),
        Game::Lobo => rng.gen_range(0..=1),
    };
    let seeds: Vec<ClientSeed> = (0..seed_count).map(|_| random_client_seed(rng)).collect();
    let round_id = match rng.gen_range(0..3) {
        0 => format!("{}", rng.gen::<u32>()),
        1 => format!("r-{:032x}", rng.gen::<u128>()),
        _ => "mesa/7 ronda ñ".to_owned(),
    };
    let client_seed = client_seed_for(game, &seeds).unwrap();
    let (deck, mut shuffler) = shuffled_deck(&server_seed, game, &round_id, &client_seed, max_rank);
    let mut reshuffles = Vec::new();
    if game == Game::PrimaCarta {
        for _ in 0..rng.gen_range(0..=2) {
            let mut pile: Vec<Card> = deck.iter().copied().filter(|_| rng.gen_bool(0.7)).collect();
            let before = pile.clone();
            shuffler.shuffle(&mut pile);
            reshuffles.push(Reshuffle::new(&before, &pile));
        }
    }
    ShuffleTranscript::record(&server_seed, game, &round_id, &seeds, &deck, reshuffles)
}

/// Applies one of several corruptions; returns whether the result should still verify.
fn corrupt(t: &mut ShuffleTranscript, rng: &mut StdRng) -> bool {
    let n = t.deck.len();
    match rng.gen_range(0..16) {
        0 => t.deck.swap(rng.gen_range(0..n / 2), rng.gen_range(n / 2..n)),
        1 => {
            let i = rng.gen_range(0..64);
            let digit = if &t.server_seed[i..=i] == "0" { "1" } else { "0" };
            t.server_seed.replace_range(i..=i, digit);
        }
        2 => t.commitment = t.commitment.chars().rev().collect(),
        3 => {
            t.commitment = t.commitment.to_uppercase();
            return true;
        }
        4 => t.client_seeds.push("extra".into()),
        5 => t.client_seed.push('x'),
        6 => t.deck.truncate(rng.gen_range(0..n)),
        7 => match t.reshuffles.first_mut() {
            Some(r) if r.after.len() > 1 => r.after.rotate_left(1),
            _ => t.deck[0] = 50,
        },
        8 => match t.reshuffles.last_mut() {
            Some(r) if r.before.len() > 1 => r.before[1] = r.before[0],
            _ => t.round_id.push('!'),
        },
        9 => t.game = "poker".into(),
        10 => t.algorithm = "shuffle-v2".into(),
        11 => t.server_seed = "not hex at all".into(),
        12 => t.client_seeds.push("x".repeat(65)),
        13 => t.client_seeds.insert(0, "tab\there".into()),
        14 => {
            t.game = if t.game == "lobo" {
                "prima_carta".into()
            } else {
                "lobo".into()
            }
        }
        _ => t.reshuffles.push(Reshuffle {
            before: vec![1, 2, 3],
            after: vec![3, 2, 1],
        }),
    }
    false
}

#[test]
fn the_python_verifier_agrees_with_the_rust_one() {
    let mut rng = StdRng::seed_from_u64(20261122);
    let mut transcripts = Vec::new();
    let mut should_pass = Vec::new();
    for i in 0..240 {
        let mut t = honest_transcript(&mut rng);
        let ok = if i % 2 == 0 { true } else { corrupt(&mut t, &mut rng) };
        transcripts.push(t);
        should_pass.push(ok);
    }
    let (python, exit_code) = python_reports(&transcripts, "transcripts");
    assert_eq!(python.len(), transcripts.len());
    let mut failures = 0;
    for ((t, p), ok) in transcripts.iter().zip(&python).zip(&should_pass) {
        let rust = verify(t);
        assert_eq!(
            rust.passed,
            *ok,
            "{}\n{}",
            serde_json::to_string(t).unwrap(),
            rust.to_text()
        );
        failures += usize::from(!rust.passed);
        assert_same_report(&rust, p, &serde_json::to_string(t).unwrap());
    }
    assert!(failures > 100, "the corruptions were caught: {failures}");
    assert_eq!(exit_code, Some(1), "the script exits 1 when any transcript fails");
}

#[test]
fn the_python_verifier_passes_its_self_test() {
    // Published ChaCha20 vectors, uniform's rare rejection branch (which random rounds
    // almost never reach) and the fixed vectors of docs/verify/test_vectors.json.
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/verify/verify_round.py");
    let output = Command::new("python3")
        .arg(script)
        .arg("--self-test")
        .output()
        .expect("python3 runs");
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    assert_eq!(String::from_utf8_lossy(&output.stdout).trim(), "self-test passed");
}

/// A settled contest's recall as djego hands it out, with one of several corruptions (none
/// for `k` = 0).
fn contest_recall(k: usize) -> serde_json::Value {
    use serde_json::json;
    let contest_id = "0190f3a2-0000-7000-8000-00000000c0de";
    let recall = crate::rounds::lobo_contests::sample_recall(contest_id, [k as u8; 32], &["north", "", "south"]);
    let mut doc = serde_json::to_value(&recall).unwrap();
    let entrant = |doc: &mut serde_json::Value, n: usize| doc["entrants"][n].take();
    match k % 16 {
        0 => {}
        1 => {
            let deck = doc["entrants"][0]["shuffle"]["deck"].as_array_mut().unwrap();
            deck.swap(3, 20);
        }
        2 => doc["entrants"][1]["shuffle"] = doc["entrants"][0]["shuffle"].clone(),
        3 => doc["entrants"][2]["shuffle"]["round_id"] = json!(format!("{contest_id}/9")),
        4 => doc["entrants"][0]["client_seed"] = json!("east"),
        5 => doc["contest"]["server_seed"] = json!("00".repeat(32)),
        6 => doc["contest"]["commitment"] = json!("ab".repeat(32)),
        7 => {
            let (a, b) = (entrant(&mut doc, 0), entrant(&mut doc, 1));
            doc["entrants"][0] = b;
            doc["entrants"][1] = a;
        }
        8 => doc["entrants"][1]["total"] = json!(doc["entrants"][1]["total"].as_i64().unwrap() + 1),
        9 => doc["transfers"][0]["amount"] = json!("9.99"),
        10 => {
            doc["entrants"][2]["plays"].as_array_mut().unwrap().pop();
        }
        11 => doc["contest"]["rake_basis_points"] = json!(2001),
        12 => doc["contest"]["mode"] = json!("ordinary"),
        13 => doc["contest"]["client_seed"] = json!("0".repeat(64)),
        14 => doc["contest"]["entry_fee"] = json!("10.001"),
        _ => {
            // Voided: every entry refunded, nothing else moved.
            doc["contest"]["status"] = json!("voided");
            let entries: Vec<serde_json::Value> = doc["transfers"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|t| t["kind"] == "contest_entry")
                .cloned()
                .collect();
            let refunds = entries.iter().map(|t| {
                json!({ "seq": 0, "kind": "refund", "from": "pot", "to": t["from"], "amount": t["amount"], "hash": "" })
            });
            doc["transfers"] = json!(entries.iter().cloned().chain(refunds).collect::<Vec<_>>());
        }
    }
    doc
}

#[test]
fn the_python_verifier_agrees_with_the_rust_one_on_contest_recalls() {
    let docs: Vec<serde_json::Value> = (0..32).map(contest_recall).collect();
    let (python, exit_code) = python_reports(&docs, "contest-recalls");
    assert_eq!(python.len(), docs.len());
    for (k, (doc, p)) in docs.iter().zip(&python).enumerate() {
        let rust = crate::rounds::lobo_contests::verify_recall_document(doc, &Default::default());
        // Honest recalls (and honest voids) verify; every other corruption fails.
        assert_eq!(rust.passed, k % 16 == 0 || k % 16 == 15, "{k}: {}", rust.to_text());
        assert_same_report(&rust, p, &format!("recall {k}: {}", rust.to_text()));
    }
    assert_eq!(exit_code, Some(1), "the script exits 1 when a recall fails");
}
