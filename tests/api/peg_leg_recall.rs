//! Peg Leg rounds proved from outside: a recall saved as it comes replays in `djego verify round`
//! and in docs/verify/verify_round.py with the same checks, and both refuse one whose transfers
//! were doctored (an amount changed, a return redirected, the transfers deleted, a bet removed
//! with its stake), on the replay of the money and on the proof against the signed ledger the
//! recall carries; the auditor's export carries every Peg Leg round that ended, and
//! `djego verify rounds` and the Python replay it.

use serde_json::{json, Value};

use crate::helpers::TestApp;
use crate::peg_leg::{another, bet, casino, deal, likeliest, minor, open_round, s, surrender, Casino};

fn money(minor: i64) -> String {
    format!("{}.{:02}", minor / 100, minor % 100)
}

/// Deals a round to its end at the table: A bets on the likeliest count after the first card
/// and again after the second, B on another count after the first and surrenders it after the
/// fifth. Returns the round's id.
async fn played_round(app: &TestApp, c: &Casino) -> String {
    let (a, b) = (&c.players[0], &c.players[1]);
    let id = s(&open_round(app, c).await["id"]).to_string();
    let q1 = deal(app, c, &id).await.expect(200)["round"]["quote"].clone();
    let (count_a, _) = likeliest(&q1);
    bet(app, a, &id, s(&q1["id"]), count_a, "10.00").await.expect(201);
    let bet_b = bet(app, b, &id, s(&q1["id"]), another(&q1, count_a), "5.00")
        .await
        .expect(201);
    let q2 = deal(app, c, &id).await.expect(200)["round"]["quote"].clone();
    bet(app, a, &id, s(&q2["id"]), likeliest(&q2).0, "7.50")
        .await
        .expect(201);
    let mut q = q2;
    for _ in 2..5 {
        q = deal(app, c, &id).await.expect(200)["round"]["quote"].clone();
    }
    surrender(app, b, &id, s(&bet_b["id"]), s(&q["id"])).await.expect(200);
    for _ in 5..50 {
        deal(app, c, &id).await.expect(200);
    }
    id
}

/// A verifier's verdict on one document: passed, its checks' names, those that failed.
#[derive(Debug)]
struct Verdict {
    passed: bool,
    names: Vec<String>,
    failed: Vec<String>,
    /// What the failed checks said, for the failure message (the verifiers word it their way).
    #[allow(dead_code)]
    said: Vec<String>,
}

impl Verdict {
    fn of(report: &Value) -> Verdict {
        let checks = report["checks"].as_array().expect("a report lists its checks");
        let name = |c: &Value| c["name"].as_str().unwrap().to_owned();
        Verdict {
            passed: report["passed"] == true,
            names: checks.iter().map(name).collect(),
            failed: checks.iter().filter(|c| c["passed"] == false).map(name).collect(),
            said: checks
                .iter()
                .filter(|c| c["passed"] == false)
                .map(|c| c.to_string())
                .collect(),
        }
    }
}

/// `djego verify round --json FILE` and `verify_round.py --json FILE` on `doc` saved as a file,
/// as their users run them; each exits 0 exactly when its report passed.
async fn both_verdicts(doc: &Value) -> (Verdict, Verdict) {
    let file = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(file.path(), doc.to_string()).unwrap();
    let path = file.path().to_str().unwrap().to_string();
    let djego = tokio::task::spawn_blocking(move || {
        std::process::Command::new(env!("CARGO_BIN_EXE_djego"))
            .args(["verify", "round", "--json", &path])
            .output()
            .unwrap()
    })
    .await
    .unwrap();
    let items: Value = serde_json::from_slice(&djego.stdout)
        .unwrap_or_else(|e| panic!("djego verify round: {e}: {}", String::from_utf8_lossy(&djego.stderr)));
    let djego_verdict = Verdict::of(&items[0]["report"]);
    assert_eq!(djego.status.success(), djego_verdict.passed, "djego's exit status");
    let (python_ok, reports) = crate::transcripts::python_verdict(&doc.to_string()).await;
    let python_verdict = Verdict::of(&reports[0]);
    assert_eq!(python_ok, python_verdict.passed, "the Python's exit status");
    (djego_verdict, python_verdict)
}

/// The recall with one transfer changed by `change`, the first for which `pick` holds.
fn with_transfer(recall: &Value, pick: impl Fn(&Value) -> bool, change: impl FnOnce(&mut Value)) -> Value {
    let mut doc = recall.clone();
    let t = doc["transfers"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .find(|t| pick(t))
        .expect("a transfer to change");
    change(t);
    doc
}

both_backends!(
    async fn a_recall_replays_in_both_verifiers_and_a_doctored_transfer_fails_in_both(app: TestApp) {
        let c = casino(&app, 2, 0).await;
        let id = played_round(&app, &c).await;
        let auditor = app.auditor().await.token.clone();
        let recall = app
            .get(&format!("/api/v1/peg-leg-rounds/{id}/recall"), Some(&auditor))
            .await
            .expect(200);
        assert_eq!(recall["verification"]["passed"], true, "{}", recall["verification"]);
        let names: Vec<&str> = recall["verification"]["checks"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["name"].as_str().unwrap())
            .collect();
        assert_eq!(names[names.len() - 2..], ["transfers", "ledger_proof"], "{names:?}");
        assert_eq!(recall["bets"].as_array().unwrap().len(), 3);

        // The recall as the auditor and as a bettor save it: both verifiers pass it, check by check.
        let mine = app
            .get(
                &format!("/api/v1/peg-leg-rounds/{id}/recall"),
                Some(&c.players[0].token),
            )
            .await
            .expect(200);
        for doc in [&recall, &mine] {
            let (djego, python) = both_verdicts(doc).await;
            assert!(djego.passed, "{djego:?}");
            assert!(python.passed, "{python:?}");
            assert_eq!(python.names, djego.names);
            assert_eq!(djego.names, names);
        }

        // The pseudonym of A's wallet in the transfers, and of B's.
        let pseudonym = |player: &str| -> String {
            let parties = recall["parties"].as_array().unwrap();
            let party = parties.iter().find(|p| p["player_id"] == player).expect("a party");
            s(&party["pseudonym"]).to_owned()
        };
        let (wallet_a, wallet_b) = (
            format!("wallet:{}", pseudonym(&c.players[0].id)),
            format!("wallet:{}", pseudonym(&c.players[1].id)),
        );
        let changed_amount = with_transfer(
            &recall,
            |t| t["kind"] == "bet_stake",
            |t| t["amount"] = json!(money(minor(s(&t["amount"])) + 1)),
        );
        // A return to B paid to A instead; when B's surrender was worth nothing (its count had become
        // out of reach) there is no such return, and A's stake drawn from B's wallet instead.
        let pays_b = |t: &Value| t["to"] == wallet_b.as_str();
        let redirected = if recall["transfers"].as_array().unwrap().iter().any(pays_b) {
            with_transfer(&recall, pays_b, |t| t["to"] = json!(wallet_a))
        } else {
            with_transfer(
                &recall,
                |t| t["from"] == wallet_a.as_str(),
                |t| t["from"] = json!(wallet_b),
            )
        };
        let mut deleted = recall.clone();
        deleted["transfers"] = json!([]);
        // A's first bet gone from the bets and its stake from the transfers: what settled it stays.
        let mut removed = recall.clone();
        let gone = removed["bets"].as_array_mut().unwrap().remove(0);
        assert_eq!(gone["player"], c.players[0].id.as_str());
        let stake = money(gone["stake_minor"].as_i64().unwrap());
        let transfers = removed["transfers"].as_array_mut().unwrap();
        let at = transfers
            .iter()
            .position(|t| t["kind"] == "bet_stake" && t["from"] == wallet_a.as_str() && t["amount"] == stake.as_str())
            .expect("the bet's stake");
        transfers.remove(at);

        for (what, doc) in [
            ("a changed amount", changed_amount),
            ("money redirected between players", redirected),
            ("every transfer deleted", deleted),
            ("a bet removed with its stake", removed),
        ] {
            let (djego, python) = both_verdicts(&doc).await;
            assert!(!djego.passed, "djego verify round passes {what}");
            assert_eq!(djego.failed, ["transfers", "ledger_proof"], "{what}");
            assert!(!python.passed, "verify_round.py passes {what}");
            assert_eq!(python.failed, djego.failed, "{what}");
        }
    }
);

both_backends!(
    async fn the_auditors_export_carries_every_peg_leg_round_that_ended(app: TestApp) {
        let c = casino(&app, 2, 0).await;
        let from_us = djego::store::now_us();
        let settled = played_round(&app, &c).await;
        // A round voided after its first card, with a bet open: refunded.
        let voided = s(&open_round(&app, &c).await["id"]).to_string();
        let q1 = deal(&app, &c, &voided).await.expect(200)["round"]["quote"].clone();
        bet(&app, &c.players[1], &voided, s(&q1["id"]), likeliest(&q1).0, "2.00")
            .await
            .expect(201);
        app.post(
            &format!("/api/v1/peg-leg-rounds/{voided}/void"),
            Some(&c.pitboss.token),
            &json!({ "reason": "the shoe was dropped" }),
            None,
        )
        .await
        .expect(200);
        // One still being dealt is not over, so not exported.
        let going = s(&open_round(&app, &c).await["id"]).to_string();
        deal(&app, &c, &going).await.expect(200);
        let to_us = djego::store::now_us() + 1;

        let auditor = app.auditor().await.token.clone();
        let export = app
            .get(
                &format!("/api/v1/audit/transcripts?from_us={from_us}&to_us={to_us}"),
                Some(&auditor),
            )
            .await;
        assert_eq!(export.status, 200, "{}", export.text);
        let lines: Vec<Value> = export.text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
        let ended: Vec<&str> = lines.iter().map(|l| s(&l["round"]["id"])).collect();
        assert_eq!(ended, [settled.as_str(), voided.as_str()], "in the order they ended");
        assert_eq!(lines[0]["round"]["status"], "settled");
        assert_eq!(lines[1]["round"]["status"], "voided");
        assert_eq!(lines[1]["bets"][0]["status"], "refunded");
        // As the auditor's recall: every quote, and who the pseudonyms are.
        assert_eq!(lines[0]["quotes"].as_array().unwrap().len(), 49);
        assert!(lines[0]["parties"]
            .as_array()
            .unwrap()
            .iter()
            .all(|p| p["player_id"].is_string()));
        assert_eq!(lines[0]["verification"]["passed"], true);
        // Paged through the same order.
        let page = app
            .get(
                &format!("/api/v1/audit/transcripts?from_us={from_us}&to_us={to_us}&limit=1&offset=1"),
                Some(&auditor),
            )
            .await;
        assert_eq!(page.status, 200, "{}", page.text);
        assert_eq!(page.text.lines().count(), 1);
        assert!(page.text.contains(&voided));

        // `djego verify rounds` and the independent verifier replay the file, and both refuse it
        // once a transfer of the settled round is doctored.
        let file = tempfile::NamedTempFile::new().unwrap();
        std::fs::write(file.path(), &export.text).unwrap();
        let verify_rounds = |path: &std::path::Path| {
            std::process::Command::new(env!("CARGO_BIN_EXE_djego"))
                .args(["verify", "rounds"])
                .arg(path)
                .output()
                .unwrap()
        };
        let out = verify_rounds(file.path());
        let printed = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "{printed}{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(printed.contains("2 of 2 rounds verified, 0 failed"), "{printed}");
        let (ok, reports) = crate::transcripts::python_verdict(&export.text).await;
        assert!(ok, "verify_round.py refuses the export: {reports:?}");
        assert_eq!(reports.len(), 2);

        let doctored = with_transfer(
            &lines[0],
            |t| t["kind"] == "bet_stake",
            |t| t["amount"] = json!(money(minor(s(&t["amount"])) + 1)),
        );
        let text = format!("{doctored}\n{}\n", lines[1]);
        std::fs::write(file.path(), &text).unwrap();
        let out = verify_rounds(file.path());
        let printed = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(1), "{printed}");
        assert!(
            printed.contains(&format!("line 1: peg_leg round {settled}: FAIL transfers")),
            "{printed}"
        );
        assert!(printed.contains("1 of 2 rounds verified, 1 failed"), "{printed}");
        let (ok, reports) = crate::transcripts::python_verdict(&text).await;
        assert!(!ok);
        assert_eq!(reports[0]["passed"], false);
        assert_eq!(reports[1]["passed"], true);
    }
);
