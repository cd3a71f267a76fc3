//! One corpus of well-formed and tampered transcripts, made from sampled rounds, read by both
//! verifiers from JSON: `djego verify round` and docs/verify/verify_round.py give the same
//! verdict and fail the same check first, and that check is the one the canonical rule names
//! (docs/transcript.md, "Reading a transcript strictly").

use serde_json::{json, Value};

use super::sample::{sample_prima_round, sample_prima_round_under, sample_round};
use super::verify_text;
use crate::bets::PayTable;
use crate::cards::python_verifier_tests::python_reports;
use crate::cards::transcript::VerificationReport;

fn first_failure(r: &VerificationReport) -> Option<String> {
    r.checks.iter().find(|c| !c.passed).map(|c| c.name.to_string())
}

fn python_first_failure(report: &Value) -> Option<String> {
    report["checks"]
        .as_array()
        .and_then(|checks| checks.iter().find(|c| c["passed"] == false))
        .map(|c| c["name"].as_str().unwrap_or("?").to_owned())
}

/// A case: its name, the document, and the check that must fail first (None: it verifies).
type Case = (String, Value, Option<&'static str>);

/// The JSON text of a document with every object's keys in reverse alphabetical order (a
/// `Value` writes them in alphabetical order, itself not the pay table's canonical order).
fn reversed_text(v: &Value) -> String {
    match v {
        Value::Object(map) => {
            let fields: Vec<String> = map
                .iter()
                .rev()
                .map(|(k, x)| format!("{}:{}", Value::String(k.clone()), reversed_text(x)))
                .collect();
            format!("{{{}}}", fields.join(","))
        }
        Value::Array(items) => format!("[{}]", items.iter().map(reversed_text).collect::<Vec<_>>().join(",")),
        other => other.to_string(),
    }
}

/// Runs every case through both verifiers; asserts both give the expected first failure, and
/// returns each case's (Rust detail, Python detail) of that failure.
fn run_both(cases: &[Case]) -> Vec<(String, String)> {
    run_both_texts(
        &cases
            .iter()
            .map(|(name, doc, expected)| (name.clone(), doc.to_string(), *expected))
            .collect::<Vec<_>>(),
    )
}

/// As [`run_both`], the documents given as JSON text (read by both exactly as written).
fn run_both_texts(cases: &[(String, String, Option<&'static str>)]) -> Vec<(String, String)> {
    let docs: Vec<Box<serde_json::value::RawValue>> = cases
        .iter()
        .map(|(_, text, _)| serde_json::value::RawValue::from_string(text.clone()).unwrap())
        .collect();
    // One file per call: the tests run side by side in one process.
    static CALLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let call = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let (python, _) = python_reports(&docs, &format!("corpus-{call}"));
    assert_eq!(python.len(), cases.len());
    let mut details = Vec::new();
    for ((name, doc, expected), p) in cases.iter().zip(&python) {
        let rust = verify_text(doc);
        let rust_first = first_failure(&rust);
        let python_first = python_first_failure(p);
        let ctx = format!("case {name}:\nrust:\n{}\npython: {p}", rust.to_text());
        assert_eq!(rust_first.as_deref(), *expected, "{ctx}");
        assert_eq!(python_first.as_deref(), *expected, "{ctx}");
        assert_eq!(rust.passed, expected.is_none(), "{ctx}");
        assert_eq!(p["passed"].as_bool(), Some(expected.is_none()), "{ctx}");
        let rust_detail = rust
            .checks
            .iter()
            .find(|c| !c.passed)
            .map_or(String::new(), |c| c.detail.to_string());
        let python_detail = p["checks"]
            .as_array()
            .and_then(|c| c.iter().find(|c| c["passed"] == false))
            .map_or(String::new(), |c| c["detail"].as_str().unwrap_or("").to_owned());
        details.push((rust_detail, python_detail));
    }
    details
}

/// A settled Prima Carta round with at least one bet of every kind in `kinds`, as JSON.
fn settled_prima_with(kinds: &[&str], table: Option<&PayTable>) -> Value {
    for seed in 0..5_000 {
        let t = match table {
            Some(table) => sample_prima_round_under(seed, table),
            None => sample_prima_round(seed),
        };
        if t.status != "settled" || !kinds.iter().all(|k| t.bets.iter().any(|b| b.kind == *k)) {
            continue;
        }
        return serde_json::to_value(&t).unwrap();
    }
    panic!("no sampled round has bets of {kinds:?}");
}

fn house_with(edit: impl FnOnce(&mut crate::bets::PayTableSpec)) -> PayTable {
    let mut spec = PayTable::house_table().spec().clone();
    edit(&mut spec);
    PayTable::new(spec).unwrap()
}

fn edited(doc: &Value, edit: impl FnOnce(&mut Value)) -> Value {
    let mut doc = doc.clone();
    edit(&mut doc);
    doc
}

fn remove(v: &mut Value, key: &str) {
    v.as_object_mut().unwrap().remove(key).unwrap();
}

/// A round paid consistently (returns, transfers, fingerprint) under a pay table below the
/// certified bounds: Conto Medio at 1:1 returns about 65.6% of the stakes.
#[test]
fn a_consistently_underpaid_pay_table_fails_in_both_verifiers() {
    let table = house_with(|s| s.conto_medio = 1.into());
    let doc = settled_prima_with(&["conto_medio"], Some(&table));
    let details = run_both(&[("underpaid conto_medio".into(), doc, Some("pay_tables"))]);
    for d in [&details[0].0, &details[0].1] {
        assert!(
            d.contains("not a certifiable pay table: conto_medio returns 65.")
                && d.contains("outside the certified bounds 80%–99.5%"),
            "{d}"
        );
    }
    assert_eq!(details[0].0, details[0].1, "the same words in both");
}

/// Conto Alto at 50:1 (some 637% of the stakes) cannot be certified, so no round may run under it.
#[test]
fn an_uncertifiable_conto_alto_at_50_to_1_fails_in_both_verifiers() {
    let table = house_with(|s| s.conto_alto = 50.into());
    let doc = settled_prima_with(&["conto_alto"], Some(&table));
    let details = run_both(&[("conto_alto 50:1".into(), doc, Some("pay_tables"))]);
    assert!(
        details[0].0.contains("conto_alto returns 636.549% of the stakes"),
        "{}",
        details[0].0
    );
    assert_eq!(details[0].0, details[0].1, "the same words in both");
}

/// Key order in a pay table carries no meaning: the fingerprint is over the canonical form.
#[test]
fn a_reordered_pay_table_with_its_fingerprint_verifies_in_both() {
    let doc = settled_prima_with(&["cartas"], None);
    let canonical = (0..5_000)
        .map(sample_prima_round)
        .find(|t| t.status == "settled" && t.bets.iter().any(|b| b.kind == "cartas"))
        .unwrap();
    // As the service writes it: the spec's keys in the canonical order.
    let written = serde_json::to_string(&canonical).unwrap();
    assert!(written.contains("\"spec\":{\"name\":"), "{written}");
    let reversed = reversed_text(&serde_json::from_str::<Value>(&written).unwrap());
    assert!(reversed.contains("\"spec\":{\"version\":"), "{reversed}");
    run_both_texts(&[
        ("canonical order".into(), written, None),
        ("every key reversed".into(), reversed, None),
        ("keys in alphabetical order".into(), doc.to_string(), None),
    ]);
}

/// The malformed cases of the issue and their neighbours: a field left out (null or not), a
/// null where a value is required, a field nobody defined, and a doctored `players` list.
#[test]
fn both_verifiers_read_malformed_transcripts_alike() {
    let doc = settled_prima_with(&["conto_alto", "prima"], None);
    let no_cobre = (0..5_000)
        .map(|seed| serde_json::to_value(sample_prima_round(seed)).unwrap())
        .find(|d| {
            d["status"] == "settled" && d["outcome"]["cobre"].is_null() && !d["bets"].as_array().unwrap().is_empty()
        })
        .unwrap();
    let voided = (0..5_000)
        .map(|seed| serde_json::to_value(sample_prima_round(seed)).unwrap())
        .find(|d| d["status"] == "voided" && !d["bets"].as_array().unwrap().is_empty())
        .unwrap();
    let lobo = (0..5_000)
        .map(|seed| serde_json::to_value(sample_round(seed)).unwrap())
        .find(|d| d["game"] == "lobo" && d["status"] == "settled")
        .unwrap();
    let conto = doc["bets"]
        .as_array()
        .unwrap()
        .iter()
        .position(|b| b["kind"] == "conto_alto")
        .unwrap();
    let seats = doc["seats"].as_array().unwrap().len();
    // A round with a confidence bet that was taken and paid, with a commission.
    let commissioned = |b: &Value| b["status"] == "settled" && b["commission"] != "0.00";
    let confident = (0..5_000)
        .map(|seed| serde_json::to_value(sample_prima_round(seed)).unwrap())
        .find(|d| {
            d["confidence_bets"]
                .as_array()
                .is_some_and(|bets| bets.iter().any(commissioned))
        })
        .unwrap();
    let paid = confident["confidence_bets"]
        .as_array()
        .unwrap()
        .iter()
        .position(commissioned)
        .unwrap();
    // A Seguro the backed player won, so its share was paid.
    let shared = |b: &Value| b["terms"]["kind"] == "seguro" && b["paid"] != "0.00";
    let seguro = (0..5_000)
        .map(|seed| serde_json::to_value(sample_prima_round(seed)).unwrap())
        .find(|d| {
            d["confidence_bets"]
                .as_array()
                .is_some_and(|bets| bets.iter().any(shared))
        })
        .unwrap();
    let share = seguro["confidence_bets"]
        .as_array()
        .unwrap()
        .iter()
        .position(shared)
        .unwrap();
    // A Jasper round with a Fuerza bet the house paid.
    let won = |b: &Value| b["status"] == "won";
    let fuerza = (0..5_000)
        .map(|seed| serde_json::to_value(sample_prima_round(seed)).unwrap())
        .find(|d| d["fuerza_bets"].as_array().is_some_and(|bets| bets.iter().any(won)))
        .unwrap();
    let paid_fuerza = fuerza["fuerza_bets"].as_array().unwrap().iter().position(won).unwrap();
    let cases: Vec<Case> = vec![
        ("honest".into(), doc.clone(), None),
        ("honest with a Fuerza bet won".into(), fuerza.clone(), None),
        (
            "Fuerza quote with its wins and price rewritten far off".into(),
            edited(&fuerza, |d| {
                let q = &mut d["fuerza_bets"][paid_fuerza]["quote"];
                let wins = q["wins"].as_u64().unwrap() / 2;
                q["wins"] = json!(wins);
                q["wins_if_all_pay"] = json!(wins.min(q["wins_if_all_pay"].as_u64().unwrap()));
                let price = crate::games::prima_carta::fuerza::price_hundredths(wins as u32, 65_536);
                q["price"] = json!(price.map_or("1.01".into(), crate::games::prima_carta::fuerza::price_text));
            }),
            Some("fuerza_bets"),
        ),
        (
            "Fuerza price raised a cent".into(),
            edited(&fuerza, |d| {
                let q = &mut d["fuerza_bets"][paid_fuerza]["quote"];
                let cents = crate::domain::Amount::parse(q["price"].as_str().unwrap())
                    .unwrap()
                    .minor();
                q["price"] = json!(crate::games::prima_carta::fuerza::price_text(cents as u32 + 1));
            }),
            Some("fuerza_bets"),
        ),
        (
            "Fuerza quoted after a decision the round never made".into(),
            edited(&fuerza, |d| {
                let n = d["decisions"].as_array().unwrap().len();
                d["fuerza_bets"][paid_fuerza]["quote"]["decisions"] = json!(n + 1);
            }),
            Some("fuerza_bets"),
        ),
        (
            "Fuerza bet turned lost with its payout kept".into(),
            edited(&fuerza, |d| d["fuerza_bets"][paid_fuerza]["status"] = json!("lost")),
            Some("fuerza_bets"),
        ),
        (
            "Fuerza payout removed".into(),
            edited(&fuerza, |d| {
                d["transfers"]
                    .as_array_mut()
                    .unwrap()
                    .retain(|t| t["kind"] != "bet_payout");
            }),
            Some("transfers"),
        ),
        (
            "Fuerza quote with an extra field".into(),
            edited(&fuerza, |d| d["fuerza_bets"][paid_fuerza]["quote"]["edge"] = json!(0)),
            Some("transcript"),
        ),
        ("honest with confidence bets".into(), confident.clone(), None),
        ("honest with a Seguro paid".into(), seguro.clone(), None),
        (
            "Seguro with a larger share".into(),
            edited(&seguro, |d| {
                let bp = d["confidence_bets"][share]["terms"]["share_bp"].as_u64().unwrap();
                d["confidence_bets"][share]["terms"]["share_bp"] = json!(if bp > 1 { bp - 1 } else { 2 });
            }),
            Some("confidence_bets"),
        ),
        (
            "Seguro whose backed player stakes".into(),
            edited(&seguro, |d| {
                d["confidence_bets"][share]["against_stake"] = json!("1.00")
            }),
            Some("confidence_bets"),
        ),
        (
            "Seguro share left unpaid".into(),
            edited(&seguro, |d| {
                d["transfers"]
                    .as_array_mut()
                    .unwrap()
                    .retain(|t| t["kind"] != "seguro_share");
            }),
            Some("transfers"),
        ),
        (
            "confidence bet taker null".into(),
            edited(&confident, |d| d["confidence_bets"][paid]["accepted_by"] = Value::Null),
            Some("transcript"),
        ),
        (
            "confidence bet status left out".into(),
            edited(&confident, |d| remove(&mut d["confidence_bets"][paid], "status")),
            Some("transcript"),
        ),
        (
            "confidence terms with an extra field".into(),
            edited(&confident, |d| d["confidence_bets"][paid]["terms"]["odds"] = json!(4)),
            Some("confidence_bets"),
        ),
        (
            "confidence terms of an unknown kind".into(),
            edited(&confident, |d| {
                d["confidence_bets"][paid]["terms"]["kind"] = json!("raffle")
            }),
            Some("confidence_bets"),
        ),
        (
            "confidence commission waived".into(),
            edited(&confident, |d| {
                let bet = &mut d["confidence_bets"][paid];
                let commission =
                    crate::domain::Amount::parse(bet["commission"].as_str().unwrap()).map_or(0, |a| a.minor());
                let paid_out = crate::domain::Amount::parse(bet["paid"].as_str().unwrap())
                    .unwrap()
                    .minor();
                bet["commission"] = json!("0.00");
                bet["paid"] = json!(crate::domain::format_minor(paid_out + commission));
            }),
            Some("confidence_bets"),
        ),
        (
            "confidence bet turned void".into(),
            edited(&confident, |d| d["confidence_bets"][paid]["status"] = json!("void")),
            Some("confidence_bets"),
        ),
        (
            "confidence bet with its transfers removed".into(),
            edited(&confident, |d| {
                d["transfers"]
                    .as_array_mut()
                    .unwrap()
                    .retain(|t| t["kind"] != "confidence_payout");
            }),
            Some("transfers"),
        ),
        ("honest, no cobre".into(), no_cobre.clone(), None),
        ("honest voided".into(), voided.clone(), None),
        ("honest lobo".into(), lobo.clone(), None),
        // a null field left out
        (
            "outcome.cobre null left out".into(),
            edited(&no_cobre, |d| remove(&mut d["outcome"], "cobre")),
            Some("outcome"),
        ),
        (
            "bet suit null left out".into(),
            edited(&doc, |d| remove(&mut d["bets"][conto], "suit")),
            Some("transcript"),
        ),
        (
            "voided outcome null left out".into(),
            edited(&voided, |d| remove(d, "outcome")),
            Some("transcript"),
        ),
        (
            "lobo decisions left out".into(),
            edited(&lobo, |d| remove(d, "decisions")),
            Some("transcript"),
        ),
        (
            "bet returned left out".into(),
            edited(&doc, |d| remove(&mut d["bets"][0], "returned")),
            Some("transcript"),
        ),
        (
            "you left out".into(),
            edited(&doc, |d| remove(&mut d["players"][0], "you")),
            Some("transcript"),
        ),
        // a null where a value is required
        (
            "bet amount null".into(),
            edited(&doc, |d| d["bets"][0]["amount"] = Value::Null),
            Some("transcript"),
        ),
        (
            "carried_cobre_in null".into(),
            edited(&doc, |d| d["carried_cobre_in"] = Value::Null),
            Some("transcript"),
        ),
        (
            "player_id null".into(),
            edited(&doc, |d| d["players"][0]["player_id"] = Value::Null),
            Some("transcript"),
        ),
        (
            "outcome.winner null".into(),
            edited(&doc, |d| d["outcome"]["winner"] = Value::Null),
            Some("outcome"),
        ),
        // an unknown field
        (
            "extra outcome field".into(),
            edited(&doc, |d| d["outcome"]["bonus"] = json!(1)),
            Some("outcome"),
        ),
        (
            "extra facts field".into(),
            edited(&doc, |d| d["outcome"]["facts"]["bonus"] = json!(1)),
            Some("outcome"),
        ),
        (
            "extra lobo outcome field".into(),
            edited(&lobo, |d| d["outcome"]["bonus"] = json!(1)),
            Some("outcome"),
        ),
        (
            "extra top-level field".into(),
            edited(&doc, |d| d["bonus"] = json!(1)),
            Some("transcript"),
        ),
        (
            "extra bet field".into(),
            edited(&doc, |d| d["bets"][0]["bonus"] = json!("1.00")),
            Some("transcript"),
        ),
        (
            "extra player field".into(),
            edited(&doc, |d| d["players"][0]["name"] = json!("Ann")),
            Some("transcript"),
        ),
        (
            "extra transfer field".into(),
            edited(&doc, |d| d["transfers"][0]["memo"] = json!("x")),
            Some("transcript"),
        ),
        (
            "extra rules field".into(),
            edited(&doc, |d| d["rules"]["bonus"] = json!(true)),
            Some("rules"),
        ),
        (
            "extra pay table field".into(),
            edited(&doc, |d| d["pay_tables"][0]["spec"]["bonus"] = json!("1")),
            Some("pay_tables"),
        ),
        (
            "foundations as a list".into(),
            edited(&doc, |d| {
                let f = &d["outcome"]["facts"]["foundations"];
                let list: Vec<Value> = ["crowns", "locks", "fruit", "swords", "cups"]
                    .iter()
                    .map(|s| f[*s].clone())
                    .collect();
                d["outcome"]["facts"]["foundations"] = Value::Array(list);
            }),
            Some("outcome"),
        ),
        // a doctored players list
        (
            "a stranger added".into(),
            edited(&doc, |d| {
                let n = d["players"].as_array().unwrap().len() + 1;
                d["players"]
                    .as_array_mut()
                    .unwrap()
                    .push(json!({ "pseudonym": format!("P{n}"), "you": false }));
            }),
            Some("round"),
        ),
        (
            "a player dropped".into(),
            edited(&doc, |d| {
                d["players"].as_array_mut().unwrap().pop();
            }),
            Some("round"),
        ),
        (
            "players reordered".into(),
            edited(&doc, |d| d["players"].as_array_mut().unwrap().reverse()),
            Some("round"),
        ),
        (
            "a pseudonym renamed everywhere".into(),
            edited(&doc, |d| {
                let text = serde_json::to_string(d)
                    .unwrap()
                    .replace("\"P1\"", "\"P7\"")
                    .replace("wallet:P1\"", "wallet:P7\"");
                *d = serde_json::from_str(&text).unwrap();
            }),
            Some("round"),
        ),
        (
            "two players marked you".into(),
            edited(&doc, |d| {
                for p in d["players"].as_array_mut().unwrap().iter_mut().take(2) {
                    p["you"] = json!(true);
                }
            }),
            Some("round"),
        ),
    ];
    assert!(seats >= 2);
    run_both(&cases);
}
