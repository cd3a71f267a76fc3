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
            v["checkpoints"]["failures"]
                .as_array()
                .unwrap()
                .iter()
                .any(|f| f["reason"]
                    .as_str()
                    .unwrap()
                    .starts_with("the transfers tree has 3 leaves but checkpoint 2")),
            "{v}"
        );

        // Stored nodes rewritten to match a rewritten log: the consistency proof between the heads fails.
        app.tamper(&["UPDATE merkle_nodes SET hash = '".to_string()
            + &"33".repeat(32)
            + "' WHERE tree = 'transfers' AND level = 0 AND idx = 3"]);
        let v = app.verify_ledger().await;
        assert!(
            v["checkpoints"]["failures"]
                .as_array()
                .unwrap()
                .iter()
                .any(|f| f["reason"]
                    .as_str()
                    .unwrap()
                    .starts_with("checkpoint 2 does not extend checkpoint 1: the transfers tree")),
            "{v}"
        );
    }
);
