//! The transparency log: version-2 checkpoints sign the roots of Merkle trees
//! over the transfers and the chained events; the audit endpoints serve
//! inclusion and consistency proofs that djego's own verification and the
//! standard-library Python verifier both check; a rewritten or truncated log
//! and a forged head are refused.

use djego::checkpoints::merkle::{verify_consistency, verify_inclusion, Hash};
use djego::checkpoints::tree::{from_hex, transfer_leaf};
use djego::checkpoints::verify::check_signature;
use djego::checkpoints::{Checkpoint, CheckpointKey, PublicKey};
use djego::domain::Role;
use serde_json::{json, Value};

use crate::checkpoints::{rewrite_ledger_from, truncate_ledger_to};
use crate::helpers::TestApp;

fn hashes(v: &Value) -> Vec<Hash> {
    v.as_array()
        .expect("a list of hashes")
        .iter()
        .map(|h| from_hex(h.as_str().unwrap()).expect("64 hex digits"))
        .collect()
}

fn root(checkpoint: &Value, field: &str) -> Hash {
    from_hex(checkpoint[field].as_str().expect("a root")).expect("64 hex digits")
}

/// Runs `code` in Python with docs/verify/verify_round.py importable and
/// `doc` as the JSON value `doc`; its standard output, trimmed.
fn python(doc: &Value, code: &str) -> String {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("doc.json");
    std::fs::write(&path, doc.to_string()).unwrap();
    let program = format!(
        "import json, sys\nsys.path.insert(0, {verify:?})\nfrom verify_round import *\n\
         doc = json.load(open({path:?}))\n{code}",
        verify = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/verify"),
        path = path.display().to_string(),
    );
    let out = std::process::Command::new("python3")
        .arg("-c")
        .arg(&program)
        .output()
        .expect("python3 runs");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

const PY_INCLUSION: &str = "c = doc['checkpoint']\n\
    root = bytes.fromhex(c[doc['tree'] + '_root'])\n\
    ok = checkpoint_problem(c) is None and merkle_verify_inclusion(bytes.fromhex(doc['leaf_hash']), \
    doc['leaf_index'], doc['tree_size'], [bytes.fromhex(h) for h in doc['proof']], root)\n\
    print('ok' if ok else 'refused')";

const PY_CONSISTENCY: &str = "a, b = doc['from'], doc['to']\n\
    t = doc['tree'] + '_root'\n\
    ok = checkpoint_problem(a) is None and checkpoint_problem(b) is None and merkle_verify_consistency(\
    doc['old_size'], doc['new_size'], bytes.fromhex(a[t]), bytes.fromhex(b[t]), [bytes.fromhex(h) for h in doc['proof']])\n\
    print('ok' if ok else 'refused')";

/// Whether a ledger verification report names a checkpoint failure starting with `prefix`.
fn a_failure_starts_with(v: &Value, prefix: &str) -> bool {
    v["checkpoints"]["failures"]
        .as_array()
        .unwrap()
        .iter()
        .any(|f| f["reason"].as_str().unwrap().starts_with(prefix))
}

fn checkpoint_of(v: &Value) -> Checkpoint {
    serde_json::from_value(v.clone()).expect("a checkpoint")
}

both_backends!(
    #[no_ledger_check]
    async fn proofs_against_signed_heads_verify_and_tampering_is_refused(app: TestApp) {
        let cashier = app.create_user(Role::Cashier).await;
        let player = app.create_user(Role::Player).await;
        let auditor = app.auditor().await.clone();
        for amount in ["1.00", "2.00", "3.00"] {
            app.fund(&cashier, &player.id, amount).await;
        }
        let first = app
            .post("/api/v1/audit/checkpoints", Some(&auditor.token), &json!({}), None)
            .await
            .expect(201);
        assert_eq!(first["version"], 2, "{first}");
        assert!(first["signed_message"]
            .as_str()
            .unwrap()
            .starts_with("[\"djego-checkpoint-v2\","));
        for amount in ["4.00", "5.00"] {
            app.fund(&cashier, &player.id, amount).await;
        }
        let second = app
            .post("/api/v1/audit/checkpoints", Some(&auditor.token), &json!({}), None)
            .await
            .expect(201);
        assert_eq!(second["ledger_seq"], 5);
        let v = app.verify_ledger().await;
        assert_eq!(v["ok"], true, "{v}");

        // Every transfer's inclusion proof against the latest head, checked by both verifiers.
        let transfers = crate::checkpoints::all_transfers(&app);
        for t in &transfers {
            let p = app
                .get(
                    &format!("/api/v1/audit/proofs/inclusion?tree=transfers&seq={}", t.seq),
                    Some(&auditor.token),
                )
                .await
                .expect(200);
            assert_eq!(p["checkpoint"]["seq"], second["seq"], "{p}");
            let leaf = transfer_leaf(t);
            assert_eq!(
                p["leaf_hash"],
                hex::encode(leaf),
                "the leaf recomputes from the transfer"
            );
            let proof = hashes(&p["proof"]);
            assert!(verify_inclusion(
                &leaf,
                (t.seq - 1) as u64,
                5,
                &proof,
                &root(&second, "transfers_root")
            ));
            assert_eq!(python(&p, PY_INCLUSION), "ok", "{p}");
            // A doctored amount makes another leaf: refused by both.
            let mut doctored = t.clone();
            doctored.amount_minor += 1;
            assert!(!verify_inclusion(
                &transfer_leaf(&doctored),
                (t.seq - 1) as u64,
                5,
                &proof,
                &root(&second, "transfers_root")
            ));
            let mut bad = p.clone();
            bad["leaf_hash"] = json!(hex::encode(transfer_leaf(&doctored)));
            assert_eq!(python(&bad, PY_INCLUSION), "refused");
        }
        // Against the older head, and an event's.
        let p = app
            .get(
                "/api/v1/audit/proofs/inclusion?tree=transfers&seq=2&checkpoint=1",
                Some(&auditor.token),
            )
            .await
            .expect(200);
        assert_eq!(p["tree_size"], 3);
        assert_eq!(python(&p, PY_INCLUSION), "ok");
        let p = app
            .get("/api/v1/audit/proofs/inclusion?tree=events&seq=1", Some(&auditor.token))
            .await
            .expect(200);
        assert_eq!(python(&p, PY_INCLUSION), "ok", "{p}");

        // The consistency proof between the two heads.
        for tree in ["transfers", "events"] {
            let c = app
                .get(
                    &format!("/api/v1/audit/proofs/consistency?tree={tree}&from=1&to=2"),
                    Some(&auditor.token),
                )
                .await
                .expect(200);
            let field = format!("{tree}_root");
            assert!(verify_consistency(
                c["old_size"].as_u64().unwrap(),
                c["new_size"].as_u64().unwrap(),
                &root(&first, &field),
                &root(&second, &field),
                &hashes(&c["proof"])
            ));
            assert_eq!(python(&c, PY_CONSISTENCY), "ok", "{c}");
            // A forged newer head (its root altered) fails its signature and the proof, in both.
            let mut forged = c.clone();
            forged["to"][&field] = json!("00".repeat(32));
            assert_eq!(python(&forged, PY_CONSISTENCY), "refused");
        }

        // Bad requests: a seq the head does not cover, no such checkpoint, the wrong order, a player.
        app.get(
            "/api/v1/audit/proofs/inclusion?tree=transfers&seq=6",
            Some(&auditor.token),
        )
        .await
        .expect(422);
        app.get(
            "/api/v1/audit/proofs/inclusion?tree=transfers&seq=1&checkpoint=99",
            Some(&auditor.token),
        )
        .await
        .expect(404);
        app.get(
            "/api/v1/audit/proofs/consistency?tree=events&from=2&to=1",
            Some(&auditor.token),
        )
        .await
        .assert_error(422, "bad_checkpoint_order");
        app.get("/api/v1/audit/proofs/inclusion?tree=ledger&seq=1", Some(&auditor.token))
            .await
            .expect(400);
        app.get(
            "/api/v1/audit/proofs/inclusion?tree=transfers&seq=1",
            Some(&player.token),
        )
        .await
        .expect(403);

        // A forged head: altered root or size, another key; refused by both verifiers.
        let pinned = PublicKey::parse_hex(second["public_key"].as_str().unwrap()).unwrap();
        assert_eq!(check_signature(&checkpoint_of(&second), &[pinned]), Ok(()));
        for (field, value) in [
            ("transfers_root", json!("11".repeat(32))),
            ("events_root", json!("22".repeat(32))),
            ("ledger_seq", json!(4)),
        ] {
            let mut forged = second.clone();
            forged[field] = value;
            assert!(check_signature(&checkpoint_of(&forged), &[pinned]).is_err(), "{field}");
            assert_eq!(
                python(&forged, "print('refused' if checkpoint_problem(doc) else 'ok')"),
                "refused",
                "{field}"
            );
        }
        let other = CheckpointKey::generate();
        let mut resigned = checkpoint_of(&second);
        resigned.public_key = other.public_key().to_hex();
        resigned.key_id = other.public_key().key_id();
        resigned.signature = other.sign(resigned.signed_message().as_bytes());
        assert_eq!(check_signature(&resigned, &[]), Ok(()), "it carries its own valid key");
        assert!(check_signature(&resigned, &[pinned]).is_err(), "but not the pinned one");
        let resigned_doc = serde_json::to_value(&resigned).unwrap();
        let pin = pinned.to_hex();
        assert_eq!(
            python(
                &resigned_doc,
                &format!("print('refused' if checkpoint_problem(doc, pinned={pin:?}) else 'ok')")
            ),
            "refused"
        );

        // A rewritten log: the chain and balances check again, the signed transfers root does not.
        rewrite_ledger_from(&app, 4, 400_000);
        let v = app.verify_ledger().await;
        assert_eq!(v["first_broken_link"], Value::Null, "{v}");
        let reasons: Vec<String> = v["checkpoints"]["failures"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["reason"].as_str().unwrap().to_string())
            .collect();
        assert!(
            reasons
                .iter()
                .any(|r| r.starts_with("the transfers tree's first 5 leaves do not hash to the root checkpoint 2")),
            "{v}"
        );
        assert!(
            !reasons
                .iter()
                .any(|r| r.contains("checkpoint 1 (") && r.contains("tree")),
            "{v}"
        );

        // A truncated log: checkpoint 2's tree covers leaves that are gone.
        truncate_ledger_to(&app, 3);
        let v = app.verify_ledger().await;
        assert!(
            a_failure_starts_with(&v, "the transfers tree has 3 leaves but checkpoint 2"),
            "{v}"
        );

        // Stored nodes rewritten to match a rewritten log: the consistency proof between the heads fails.
        app.tamper(&["UPDATE merkle_nodes SET hash = '".to_string()
            + &"33".repeat(32)
            + "' WHERE tree = 'transfers' AND level = 0 AND idx = 3"]);
        let v = app.verify_ledger().await;
        assert!(
            a_failure_starts_with(&v, "checkpoint 2 does not extend checkpoint 1: the transfers tree"),
            "{v}"
        );
    }
);

/// `djego verify round --public-key KEY FILE` and `verify_round.py --public-key KEY FILE` on
/// `doc` (no key when `key` is empty), as their users run them: each one's exit status and the
/// Rust verifier's report.
pub(crate) async fn verify_pinned(doc: &Value, key: &str) -> (bool, bool, Value) {
    let file = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(file.path(), doc.to_string()).unwrap();
    let path = file.path().to_str().unwrap().to_string();
    let key = key.to_owned();
    let (rust, python) = tokio::task::spawn_blocking(move || {
        let pin: Vec<&str> = if key.is_empty() {
            vec![]
        } else {
            vec!["--public-key", &key]
        };
        let rust = std::process::Command::new(env!("CARGO_BIN_EXE_djego"))
            .args(["verify", "round", "--json"])
            .args(&pin)
            .arg(&path)
            .output()
            .unwrap();
        let python = std::process::Command::new("python3")
            .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/verify/verify_round.py"))
            .args(&pin)
            .arg(&path)
            .output()
            .unwrap();
        (rust, python)
    })
    .await
    .unwrap();
    let report: Value = serde_json::from_slice(&rust.stdout)
        .unwrap_or_else(|e| panic!("djego verify round: {e}: {}", String::from_utf8_lossy(&rust.stderr)));
    (
        rust.status.success(),
        python.status.success(),
        report[0]["report"].clone(),
    )
}

/// The names of the checks a report fails.
fn failed_checks(report: &Value) -> Vec<String> {
    report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["passed"] == false)
        .map(|c| c["name"].as_str().unwrap().to_owned())
        .collect()
}

/// A settled Prima Carta round in which the first of two seated players also staked three
/// Conto bets of which at most one can win; the round's id.
async fn round_with_lost_bets(app: &TestApp, c: &crate::prima_carta::Casino) -> String {
    use crate::prima_carta::{create_round, dealer_action, play_copa, s, seat};
    let round = create_round(app, c).await;
    let id = s(&round["id"]).to_string();
    seat(app, &c.players[0], &id, "crowns", None).await.expect(201);
    seat(app, &c.players[1], &id, "cups", None).await.expect(201);
    for kind in ["conto_alto", "conto_bajo", "conto_medio"] {
        app.post(
            &format!("/api/v1/rounds/{id}/bets"),
            Some(&c.players[0].token),
            &json!({ "kind": kind, "amount": "2.00" }),
            None,
        )
        .await
        .expect(201);
    }
    dealer_action(app, c, &id, "close").await.expect(200);
    let dealt = dealer_action(app, c, &id, "deal").await.expect(200);
    play_copa(app, c, &id, dealt, 3).await;
    dealer_action(app, c, &id, "settle").await.expect(200);
    id
}

both_backends!(
    async fn a_transcript_proves_its_transfers_are_all_of_the_rounds_and_in_the_signed_ledger(app: TestApp) {
        let c = crate::prima_carta::casino(&app, Default::default()).await;
        let id = round_with_lost_bets(&app, &c).await;
        let key = app.state.settings.checkpoint_key.public_key().to_hex();
        let recall = app
            .get(&format!("/api/v1/rounds/{id}/recall"), Some(&c.players[0].token))
            .await
            .expect(200);
        let transcript = recall["transcript"].clone();
        let proof = &transcript["ledger_proof"];
        assert_eq!(
            proof["transfers"].as_array().unwrap().len(),
            transcript["transfers"].as_array().unwrap().len()
        );
        assert_eq!(proof["checkpoint"]["public_key"], key.as_str());
        let (rust, python, report) = verify_pinned(&transcript, &key).await;
        assert!(rust && python, "an honest transcript: {report}");
        let proved = report["checks"].as_array().unwrap().last().unwrap().clone();
        assert_eq!(proved["name"], "ledger_proof", "{report}");
        assert!(
            proved["detail"].as_str().unwrap().contains("the pinned key"),
            "{proved}"
        );

        // Any inclusion path checks against the signed root with the standard's algorithm alone.
        let (seq, path) = (&proof["transfers"][0]["seq"], &proof["transfers"][0]["path"]);
        let leaf = app
            .get(
                &format!("/api/v1/audit/proofs/inclusion?tree=transfers&seq={seq}"),
                Some(&app.auditor().await.token),
            )
            .await
            .expect(200);
        assert_eq!(&leaf["proof"], path);

        // A lost bet removed with its two transfers and their proofs: the replay holds together,
        // the booking does not.
        let lost = transcript["bets"]
            .as_array()
            .unwrap()
            .iter()
            .position(|b| b["status"] == "lost")
            .expect("two of the three Conto bets lose");
        let mut doctored = transcript.clone();
        doctored["bets"].as_array_mut().unwrap().remove(lost);
        let legs: Vec<usize> = doctored["transfers"]
            .as_array()
            .unwrap()
            .iter()
            .enumerate()
            .filter(|(_, t)| t["kind"] == "bet_stake" || t["kind"] == "bet_collected")
            .map(|(i, _)| i)
            .collect();
        assert!(
            legs.len() >= 4,
            "the bets' stakes and collections: {}",
            doctored["transfers"]
        );
        // The first lost bet's stake and collection are the first of each kind whose amount is 2.00.
        let stake = legs
            .iter()
            .copied()
            .find(|&i| doctored["transfers"][i]["kind"] == "bet_stake")
            .unwrap();
        let collected = legs
            .iter()
            .copied()
            .find(|&i| doctored["transfers"][i]["kind"] == "bet_collected")
            .unwrap();
        for i in [stake.max(collected), stake.min(collected)] {
            doctored["transfers"].as_array_mut().unwrap().remove(i);
            doctored["ledger_proof"]["transfers"].as_array_mut().unwrap().remove(i);
        }
        let (rust, python, report) = verify_pinned(&doctored, &key).await;
        assert!(!rust && !python, "a bet and its transfers removed: {report}");
        assert_eq!(failed_checks(&report), ["ledger_proof"], "{report}");
        assert!(
            report.to_string().contains("the round's booking commits to"),
            "{report}"
        );

        // A transfer's amount doctored.
        let mut doctored = transcript.clone();
        doctored["transfers"][0]["amount"] = json!("999.00");
        let (rust, python, report) = verify_pinned(&doctored, &key).await;
        assert!(!rust && !python, "a doctored amount: {report}");
        assert!(failed_checks(&report).contains(&"ledger_proof".to_string()), "{report}");

        // The proof left out: fine when nothing is pinned, refused when the key is.
        let mut stripped = transcript.clone();
        stripped.as_object_mut().unwrap().remove("ledger_proof");
        let (rust, python, report) = verify_pinned(&stripped, "").await;
        assert!(rust && python, "no proof, no key: the replay alone: {report}");
        let (rust, python, report) = verify_pinned(&stripped, &key).await;
        assert!(!rust && !python, "no proof under a pinned key: {report}");
        assert_eq!(failed_checks(&report), ["ledger_proof"], "{report}");

        // Signed by another key: checks under the key it carries, refused under the casino's.
        let forger = CheckpointKey::generate();
        let mut forged = transcript.clone();
        let head = &mut forged["ledger_proof"]["checkpoint"];
        head["public_key"] = json!(forger.public_key().to_hex());
        head["key_id"] = json!(forger.public_key().key_id());
        let mut signed = checkpoint_of(&json!({
            "seq": head["seq"], "taken_at_us": head["taken_at_us"], "ledger_seq": head["ledger_seq"],
            "ledger_hash": head["ledger_hash"], "events_seq": head["events_seq"], "events_hash": head["events_hash"],
            "key_id": head["key_id"], "public_key": head["public_key"], "signature": "", "version": 2,
            "transfers_root": head["transfers_root"], "events_root": head["events_root"],
        }));
        signed.signature = forger.sign(signed.signed_message().as_bytes());
        head["signature"] = json!(signed.signature);
        let (rust, python, report) = verify_pinned(&forged, "").await;
        assert!(rust && python, "a re-signed head checks under its own key: {report}");
        let (rust, python, report) = verify_pinned(&forged, &key).await;
        assert!(!rust && !python, "but not under the pinned key: {report}");
    }
);

both_backends!(
    async fn a_flood_of_requests_for_new_rounds_shares_one_checkpoint_each(app: TestApp) {
        let c = crate::prima_carta::casino(&app, Default::default()).await;
        let auditor = app.auditor().await.token.clone();
        let count = |list: Value| list.as_array().unwrap().len();
        for round in 0..2 {
            let id = round_with_lost_bets(&app, &c).await;
            let before = count(
                app.get("/api/v1/audit/checkpoints?limit=500", Some(&auditor))
                    .await
                    .expect(200),
            );
            // Anyone may ask, with no account: 16 at once.
            let path = format!("/api/v1/rounds/{id}/verification");
            let requests = (0..16)
                .map(|_| app.request(reqwest::Method::GET, &path, None))
                .collect();
            let answers = app.send_all_at_once(requests).await;
            let mut heads = std::collections::BTreeSet::new();
            for (status, text) in &answers {
                assert_eq!(*status, 200, "{text}");
                let v: Value = serde_json::from_str(text).unwrap();
                heads.insert(v["transcript"]["ledger_proof"]["checkpoint"]["seq"].as_i64().unwrap());
            }
            assert_eq!(heads.len(), 1, "every answer proves against the same head: {heads:?}");
            let after = count(
                app.get("/api/v1/audit/checkpoints?limit=500", Some(&auditor))
                    .await
                    .expect(200),
            );
            assert_eq!(after, before + 1, "round {round}: one checkpoint for 16 requests");
            // Asked again, it is already covered: nothing is written.
            app.get(&path, None).await.expect(200);
            let again = count(
                app.get("/api/v1/audit/checkpoints?limit=500", Some(&auditor))
                    .await
                    .expect(200),
            );
            assert_eq!(again, after, "round {round}: a covered round takes no checkpoint");
        }
    }
);

both_backends!(
    #[no_ledger_check]
    async fn the_auditor_finds_a_booking_that_leaves_a_transfer_out(app: TestApp) {
        let c = crate::prima_carta::casino(&app, Default::default()).await;
        let id = round_with_lost_bets(&app, &c).await;
        let auditor = app.auditor().await.token.clone();
        app.get(&format!("/api/v1/rounds/{id}/recall"), Some(&auditor))
            .await
            .expect(200);
        let v = app.verify_ledger().await;
        assert_eq!(v["bookings"]["ok"], true, "{v}");
        assert_eq!(v["bookings"]["bookings_checked"], 1, "{v}");
        assert_eq!(v["ok"], true, "{v}");

        // A second booking of the round that counts one transfer fewer, as a dishonest service
        // would make to prove a transcript with a bet left out.
        let recall = app
            .get(&format!("/api/v1/rounds/{id}/recall"), Some(&auditor))
            .await
            .expect(200);
        let n = recall["transcript"]["transfers"].as_array().unwrap().len() as u64;
        app.state
            .db
            .write(|conn| -> Result<(), djego::store::StoreError> {
                djego::significant_events::record(
                    conn,
                    djego::significant_events::EventKind::RoundBooked,
                    None,
                    Some(&id),
                    json!({ "game": "prima_carta", "round_id": id, "transfers": n - 2,
                        "transfers_root": "00".repeat(32) }),
                )?;
                Ok(())
            })
            .unwrap();
        let v = app.verify_ledger().await;
        assert_eq!(v["ok"], false, "{v}");
        let failures = v["bookings"]["failures"].as_array().unwrap();
        assert_eq!(failures.len(), 1, "{v}");
        let reason = failures[0]["reason"].as_str().unwrap();
        assert!(
            reason.contains(&format!("was booked with {} transfers; the ledger holds {n}", n - 2)),
            "{reason}"
        );
    }
);
