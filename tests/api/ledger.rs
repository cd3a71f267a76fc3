//! The audited ledger through the cage (issue #3): exact amounts, refusals
//! that move nothing, idempotency, concurrency, tamper evidence, who reads what.

use djego::domain::Role;
use serde_json::{json, Value};

use crate::helpers::{TestApp, TestUser};

async fn cashier_and_player(app: &TestApp) -> (TestUser, TestUser) {
    (
        app.create_user(Role::Cashier).await,
        app.create_user(Role::Player).await,
    )
}

async fn history(app: &TestApp, token: &str, player_id: &str) -> Vec<Value> {
    let body = app
        .get(
            &format!("/api/v1/wallets/{player_id}/transactions?limit=500"),
            Some(token),
        )
        .await
        .expect(200);
    body.as_array().unwrap().clone()
}

both_backends!(
    async fn deposits_withdrawals_and_corrections_are_exact_to_the_cent(app: TestApp) {
        let (cashier, player) = cashier_and_player(&app).await;
        // The largest deposit passes the cage's report threshold: the patron's identity first.
        crate::compliance::record_identity(&app, &cashier, &player, "Exact Cents").await;
        let wallet = format!("wallet:{}", player.id);

        let r = app
            .cage(
                &cashier,
                "deposits",
                &json!({ "player_id": player.id, "amount": "100.10", "memo": "cash in" }),
                None,
            )
            .await;
        let receipt = r.expect(201);
        assert_eq!(receipt["balance"], "100.10");
        let t = &receipt["transfer"];
        assert_eq!(t["amount"], "100.10");
        assert_eq!(t["kind"], "deposit");
        assert_eq!(t["debit_account"], "cage");
        assert_eq!(t["credit_account"], wallet.as_str());
        assert_eq!(t["user_id"], player.id.as_str());
        assert_eq!(t["memo"], "cash in");
        assert_eq!(t["hash"].as_str().unwrap().len(), 64);

        let steps: Vec<(&str, Value, &str)> = vec![
            (
                "deposits",
                json!({ "player_id": player.id, "amount": "0.01" }),
                "100.11",
            ),
            ("deposits", json!({ "player_id": player.id, "amount": "2.5" }), "102.61"),
            (
                "withdrawals",
                json!({ "player_id": player.id, "amount": "37.61" }),
                "65.00",
            ),
            (
                "corrections",
                json!({ "player_id": player.id, "amount": "0.99", "direction": "credit", "reason": "short-paid at the cage" }),
                "65.99",
            ),
            (
                "corrections",
                json!({ "player_id": player.id, "amount": "1.00", "direction": "debit", "reason": "over-paid at the cage" }),
                "64.99",
            ),
            (
                "withdrawals",
                json!({ "player_id": player.id, "amount": "64.98" }),
                "0.01",
            ),
            (
                "withdrawals",
                json!({ "player_id": player.id, "amount": "0.01" }),
                "0.00",
            ),
            (
                "deposits",
                json!({ "player_id": player.id, "amount": "999999999.99" }),
                "999999999.99",
            ),
        ];
        for (op, body, balance) in &steps {
            let receipt = app.cage(&cashier, op, body, None).await.expect(201);
            assert_eq!(receipt["balance"], *balance, "{op} {body}");
            assert_eq!(app.balance(&player.id).await, *balance);
        }

        // The player sees the same, and the history newest first.
        let own = app
            .get(&format!("/api/v1/wallets/{}", player.id), Some(&player.token))
            .await
            .expect(200);
        assert_eq!(own["balance"], "999999999.99");
        assert_eq!(own["account"], wallet.as_str());
        let h = history(&app, &player.token, &player.id).await;
        let kinds: Vec<&str> = h.iter().map(|t| t["kind"].as_str().unwrap()).collect();
        assert_eq!(
            kinds,
            [
                "deposit",
                "withdrawal",
                "withdrawal",
                "correction",
                "correction",
                "withdrawal",
                "deposit",
                "deposit",
                "deposit"
            ]
        );
        let amounts: Vec<&str> = h.iter().map(|t| t["amount"].as_str().unwrap()).collect();
        assert_eq!(
            amounts,
            [
                "999999999.99",
                "0.01",
                "64.98",
                "1.00",
                "0.99",
                "37.61",
                "2.50",
                "0.01",
                "100.10"
            ]
        );
        // Paging.
        let page = app
            .get(
                &format!("/api/v1/wallets/{}/transactions?limit=2&offset=1", player.id),
                Some(&player.token),
            )
            .await
            .expect(200);
        let page_amounts: Vec<&str> = page
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["amount"].as_str().unwrap())
            .collect();
        assert_eq!(page_amounts, ["0.01", "64.98"]);

        // The auditor's ledger by account, in chain order, and by time.
        let auditor = app.auditor().await.token.clone();
        let ledger = app
            .get(
                &format!("/api/v1/audit/ledger?account={wallet}&limit=500"),
                Some(&auditor),
            )
            .await
            .expect(200);
        let ledger = ledger.as_array().unwrap();
        assert_eq!(ledger.len(), 9);
        let seqs: Vec<i64> = ledger.iter().map(|t| t["seq"].as_i64().unwrap()).collect();
        assert!(seqs.windows(2).all(|w| w[0] < w[1]), "{seqs:?}");
        let from = ledger[3]["created_at_us"].as_i64().unwrap();
        let later = app
            .get(
                &format!("/api/v1/audit/ledger?account={wallet}&from_us={from}&limit=500"),
                Some(&auditor),
            )
            .await
            .expect(200);
        assert!(later
            .as_array()
            .unwrap()
            .iter()
            .all(|t| t["created_at_us"].as_i64().unwrap() >= from));
        assert!(later.as_array().unwrap().len() >= 6 && later.as_array().unwrap().len() <= 9);

        let tb = app.trial_balance().await;
        let cage = tb["accounts"]
            .as_array()
            .unwrap()
            .iter()
            .find(|a| a["account"] == "cage")
            .unwrap()
            .clone();
        assert_eq!(cage["balance"], "-999999999.99");
    }
);

both_backends!(
    async fn a_withdrawal_beyond_the_balance_is_422_and_moves_nothing(app: TestApp) {
        let (cashier, player) = cashier_and_player(&app).await;
        app.fund(&cashier, &player.id, "10.00").await;
        let before = app.last_seq().await;
        for amount in ["10.01", "1000.00", "999999999.99"] {
            let refused = app
                .cage(
                    &cashier,
                    "withdrawals",
                    &json!({ "player_id": player.id, "amount": amount }),
                    Some(&format!("k-{amount}")),
                )
                .await;
            refused.assert_error(422, "insufficient_funds");
            // The figures, for a program to show.
            assert_eq!(
                refused.json()["error"]["details"],
                json!({ "account": format!("wallet:{}", player.id), "needed": amount, "balance": "10.00" })
            );
        }
        // A debit correction may not overdraw either.
        app.cage(
            &cashier,
            "corrections",
            &json!({ "player_id": player.id, "amount": "10.01", "direction": "debit", "reason": "too much" }),
            None,
        )
        .await
        .assert_error(422, "insufficient_funds");
        assert_eq!(app.last_seq().await, before);
        assert_eq!(app.balance(&player.id).await, "10.00");
        assert_eq!(app.events("correction").await.len(), 0);
        // An empty wallet: even a cent is too much.
        let empty = app.create_user(Role::Player).await;
        app.cage(
            &cashier,
            "withdrawals",
            &json!({ "player_id": empty.id, "amount": "0.01" }),
            None,
        )
        .await
        .assert_error(422, "insufficient_funds");
        // Exactly the balance is fine.
        let r = app
            .cage(
                &cashier,
                "withdrawals",
                &json!({ "player_id": player.id, "amount": "10.00" }),
                None,
            )
            .await
            .expect(201);
        assert_eq!(r["balance"], "0.00");
        // A refused request with a key leaves the key free: the same request succeeds once funded.
        app.fund(&cashier, &player.id, "1000.00").await;
        let r = app
            .cage(
                &cashier,
                "withdrawals",
                &json!({ "player_id": player.id, "amount": "1000.00" }),
                Some("k-1000.00"),
            )
            .await
            .expect(201);
        assert_eq!(r["balance"], "0.00");
    }
);

both_backends!(
    async fn bad_amounts_are_400_and_move_nothing(app: TestApp) {
        let (cashier, player) = cashier_and_player(&app).await;
        app.fund(&cashier, &player.id, "50.00").await;
        let before = app.last_seq().await;
        let bad: Vec<Value> = vec![
            json!("1.001"),
            json!("12.345"),
            json!("0.001"),
            json!("0"),
            json!("0.00"),
            json!("-5.00"),
            json!("-0.01"),
            json!("abc"),
            json!("1e3"),
            json!("1E2"),
            json!("1_000"),
            json!("+1.00"),
            json!(".50"),
            json!("5."),
            json!("1.0000000000000000000000000001"),
            json!("0x10"),
            json!("1,00"),
            json!("NaN"),
            json!(""),
            json!("1000000000.01"),
            json!("99999999999999999999999999"),
            json!(5),
            json!(5.5),
            json!(null),
            json!(true),
            json!({ "amount": "1.00" }),
        ];
        for amount in &bad {
            for op in ["deposits", "withdrawals"] {
                let r = app
                    .cage(&cashier, op, &json!({ "player_id": player.id, "amount": amount }), None)
                    .await;
                assert_eq!(r.status, 400, "{op} amount {amount}: {}", r.text);
                r.assert_error(400, "invalid_body");
            }
            let r = app
            .cage(&cashier, "corrections", &json!({ "player_id": player.id, "amount": amount, "direction": "credit", "reason": "testing amounts" }), None)
            .await;
            assert_eq!(r.status, 400, "correction amount {amount}: {}", r.text);
        }
        // A memo is bounded.
        app.cage(
            &cashier,
            "deposits",
            &json!({ "player_id": player.id, "amount": "1.00", "memo": "m".repeat(201) }),
            None,
        )
        .await
        .assert_error(400, "invalid_memo");
        assert_eq!(app.last_seq().await, before, "a refused request moved money");
        assert_eq!(app.balance(&player.id).await, "50.00");
        assert_eq!(app.events("correction").await.len(), 0);
    }
);

both_backends!(
    async fn the_cage_serves_only_existing_players(app: TestApp) {
        let (cashier, _player) = cashier_and_player(&app).await;
        let dealer = app.create_user(Role::Dealer).await;
        let before = app.last_seq().await;
        app.cage(
            &cashier,
            "deposits",
            &json!({ "player_id": "no-such-player", "amount": "1.00" }),
            None,
        )
        .await
        .assert_error(404, "not_found");
        app.cage(
            &cashier,
            "deposits",
            &json!({ "player_id": dealer.id, "amount": "1.00" }),
            None,
        )
        .await
        .assert_error(422, "not_a_player");
        app.cage(
            &cashier,
            "withdrawals",
            &json!({ "player_id": cashier.id, "amount": "1.00" }),
            None,
        )
        .await
        .assert_error(422, "not_a_player");
        assert_eq!(app.last_seq().await, before);
    }
);

both_backends!(
    async fn a_correction_needs_a_reason(app: TestApp) {
        let (cashier, player) = cashier_and_player(&app).await;
        app.fund(&cashier, &player.id, "20.00").await;
        let before = app.last_seq().await;
        app.cage(
            &cashier,
            "corrections",
            &json!({ "player_id": player.id, "amount": "1.00", "direction": "credit" }),
            None,
        )
        .await
        .assert_error(400, "invalid_body");
        for reason in ["", "   ", "ab", &"r".repeat(501)] {
            app.cage(
                &cashier,
                "corrections",
                &json!({ "player_id": player.id, "amount": "1.00", "direction": "credit", "reason": reason }),
                None,
            )
            .await
            .assert_error(400, "invalid_reason");
        }
        app.cage(
            &cashier,
            "corrections",
            &json!({ "player_id": player.id, "amount": "1.00", "direction": "sideways", "reason": "a reason" }),
            None,
        )
        .await
        .assert_error(400, "invalid_body");
        app.cage(
            &cashier,
            "corrections",
            &json!({ "player_id": player.id, "amount": "1.00", "reason": "a reason" }),
            None,
        )
        .await
        .assert_error(400, "invalid_body");
        assert_eq!(app.last_seq().await, before);
        assert_eq!(app.balance(&player.id).await, "20.00");
        assert!(app.events("correction").await.is_empty());
    }
);

both_backends!(
    async fn a_correction_is_a_significant_event(app: TestApp) {
        let (cashier, player) = cashier_and_player(&app).await;
        app.fund(&cashier, &player.id, "20.00").await;
        let receipt = app
        .cage(&cashier, "corrections", &json!({ "player_id": player.id, "amount": "2.25", "direction": "debit", "reason": "double deposit on 21 Nov" }), None)
        .await
        .expect(201);
        assert_eq!(receipt["balance"], "17.75");
        assert_eq!(receipt["transfer"]["kind"], "correction");
        assert_eq!(receipt["transfer"]["memo"], "double deposit on 21 Nov");
        assert_eq!(receipt["transfer"]["debit_account"], format!("wallet:{}", player.id));
        assert_eq!(receipt["transfer"]["credit_account"], "cage");
        let events = app.events("correction").await;
        assert_eq!(events.len(), 1, "{events:?}");
        let e = &events[0];
        assert_eq!(e["actor_id"], cashier.id.as_str());
        assert_eq!(e["subject"], player.id.as_str());
        let details: Value = serde_json::from_str(e["details"].as_str().unwrap()).unwrap();
        assert_eq!(details["reason"], "double deposit on 21 Nov");
        assert_eq!(details["amount"], "2.25");
        assert_eq!(details["direction"], "debit");
        assert_eq!(details["transfer_id"], receipt["transfer"]["id"]);
        // The original deposit is untouched: a correction is a new transfer.
        let h = history(&app, &player.token, &player.id).await;
        assert_eq!(h.len(), 2);
        assert_eq!(h[1]["amount"], "20.00");
    }
);

both_backends!(
    async fn an_idempotent_retry_returns_the_first_result_and_moves_money_once(app: TestApp) {
        let (cashier, player) = cashier_and_player(&app).await;
        let deposit = json!({ "player_id": player.id, "amount": "40.00" });
        let first = app.cage(&cashier, "deposits", &deposit, Some("dep-1")).await;
        first.expect(201);
        let seq = app.last_seq().await;
        for _ in 0..3 {
            let again = app.cage(&cashier, "deposits", &deposit, Some("dep-1")).await;
            assert_eq!(again.status, 201);
            assert_eq!(again.text, first.text, "a retry returns the very same response");
        }
        assert_eq!(app.last_seq().await, seq);
        assert_eq!(app.balance(&player.id).await, "40.00");

        let withdrawal = json!({ "player_id": player.id, "amount": "15.00" });
        let w1 = app.cage(&cashier, "withdrawals", &withdrawal, Some("wd-1")).await;
        let w2 = app.cage(&cashier, "withdrawals", &withdrawal, Some("wd-1")).await;
        assert_eq!((w1.status, w2.status), (201, 201));
        assert_eq!(w1.text, w2.text);
        assert_eq!(app.balance(&player.id).await, "25.00");

        let correction = json!({ "player_id": player.id, "amount": "0.50", "direction": "credit", "reason": "rounding at the cage" });
        let c1 = app.cage(&cashier, "corrections", &correction, Some("corr-1")).await;
        let c2 = app.cage(&cashier, "corrections", &correction, Some("corr-1")).await;
        assert_eq!((c1.status, c2.status), (201, 201));
        assert_eq!(c1.text, c2.text);
        assert_eq!(app.balance(&player.id).await, "25.50");
        assert_eq!(
            app.events("correction").await.len(),
            1,
            "a retried correction is one event"
        );

        // Without a key every request is new.
        app.cage(&cashier, "deposits", &deposit, None).await.expect(201);
        app.cage(&cashier, "deposits", &deposit, None).await.expect(201);
        assert_eq!(app.balance(&player.id).await, "105.50");
    }
);

both_backends!(
    async fn an_idempotency_key_reused_for_another_request_is_409(app: TestApp) {
        let (cashier, player) = cashier_and_player(&app).await;
        app.cage(
            &cashier,
            "deposits",
            &json!({ "player_id": player.id, "amount": "40.00" }),
            Some("key-A"),
        )
        .await
        .expect(201);
        let seq = app.last_seq().await;
        // Same key, different body.
        app.cage(
            &cashier,
            "deposits",
            &json!({ "player_id": player.id, "amount": "41.00" }),
            Some("key-A"),
        )
        .await
        .assert_error(409, "idempotency_key_reused");
        app.cage(
            &cashier,
            "deposits",
            &json!({ "player_id": player.id, "amount": "40.00", "memo": "x" }),
            Some("key-A"),
        )
        .await
        .assert_error(409, "idempotency_key_reused");
        // Same key and body on another endpoint.
        app.cage(
            &cashier,
            "withdrawals",
            &json!({ "player_id": player.id, "amount": "40.00" }),
            Some("key-A"),
        )
        .await
        .assert_error(409, "idempotency_key_reused");
        assert_eq!(app.last_seq().await, seq);
        assert_eq!(app.balance(&player.id).await, "40.00");
        // Malformed keys.
        for key in ["", "a b", "ключ", &"k".repeat(129)] {
            let r = app
                .cage(
                    &cashier,
                    "deposits",
                    &json!({ "player_id": player.id, "amount": "1.00" }),
                    Some(key),
                )
                .await;
            r.assert_error(400, "invalid_idempotency_key");
        }
        assert_eq!(app.last_seq().await, seq);
    }
);

async fn fire(
    app: &TestApp,
    token: &str,
    op: &str,
    bodies_and_keys: Vec<(Value, Option<String>)>,
) -> Vec<(u16, String)> {
    let requests = bodies_and_keys
        .into_iter()
        .map(|(body, key)| (format!("/api/v1/cage/{op}"), token.to_string(), body, key))
        .collect();
    app.post_all_at_once(requests).await
}

both_backends!(
    async fn parallel_withdrawals_never_overdraw_a_wallet(app: TestApp) {
        let (cashier, player) = cashier_and_player(&app).await;
        app.fund(&cashier, &player.id, "100.00").await;
        let requests = (0..50)
            .map(|i| {
                (
                    json!({ "player_id": player.id, "amount": "7.00" }),
                    Some(format!("par-wd-{i}")),
                )
            })
            .collect();
        let results = fire(&app, &cashier.token, "withdrawals", requests).await;
        let successes = results.iter().filter(|(s, _)| *s == 201).count() as i64;
        let others: Vec<&(u16, String)> = results
            .iter()
            .filter(|(s, t)| *s != 201 && !(*s == 422 && t.contains("insufficient_funds")))
            .collect();
        assert!(
            others.is_empty(),
            "failures other than 422 insufficient_funds under load: {others:?}"
        );
        assert!(successes * 700 <= 10_000);
        assert_eq!(
            successes, 14,
            "every failure was insufficient funds, so exactly 14 fit in 100.00"
        );
        let expected = format!("{:.2}", (10_000 - 700 * successes) as f64 / 100.0);
        assert_eq!(app.balance(&player.id).await, expected);
        assert_eq!(expected, "2.00");
        // Every balance a receipt reported is distinct and none is negative.
        let mut seen: Vec<String> = results
            .iter()
            .filter(|(s, _)| *s == 201)
            .map(|(_, t)| {
                serde_json::from_str::<Value>(t).unwrap()["balance"]
                    .as_str()
                    .unwrap()
                    .to_string()
            })
            .collect();
        seen.sort();
        seen.dedup();
        assert_eq!(
            seen.len() as i64,
            successes,
            "two withdrawals saw the same balance: {seen:?}"
        );
        // Replaying the history from zero never dips below zero.
        let mut h = history(&app, &player.token, &player.id).await;
        h.reverse();
        let wallet = format!("wallet:{}", player.id);
        let mut running: i64 = 0;
        for t in &h {
            let cents: i64 = t["amount"].as_str().unwrap().replace('.', "").parse().unwrap();
            if t["credit_account"] == wallet.as_str() {
                running += cents;
            } else {
                running -= cents;
            }
            assert!(running >= 0, "wallet went negative at seq {}", t["seq"]);
        }
        assert_eq!(running, 200);
        let v = app.verify_ledger().await;
        assert_eq!(v["ok"], true, "{v}");
        assert!(v["negative_accounts"].as_array().unwrap().is_empty());
    }
);

both_backends!(
    async fn parallel_deposits_to_many_wallets_keep_one_chain(app: TestApp) {
        let cashier = app.create_user(Role::Cashier).await;
        let mut players = Vec::new();
        for _ in 0..5 {
            players.push(app.create_user(Role::Player).await);
        }
        let requests = (0..40)
            .map(|i| {
                let p = &players[i % players.len()];
                (
                    json!({ "player_id": p.id, "amount": format!("{}.{:02}", i + 1, i) }),
                    Some(format!("par-dep-{i}")),
                )
            })
            .collect();
        let results = fire(&app, &cashier.token, "deposits", requests).await;
        let bad: Vec<_> = results.iter().filter(|(s, _)| *s != 201).collect();
        assert!(bad.is_empty(), "deposits failed under load: {bad:?}");
        for (k, p) in players.iter().enumerate() {
            let cents: i64 = (0..40)
                .filter(|i| i % players.len() == k)
                .map(|i| (i as i64 + 1) * 100 + i as i64)
                .sum();
            assert_eq!(app.balance(&p.id).await, format!("{}.{:02}", cents / 100, cents % 100));
        }
        let v = app.verify_ledger().await;
        assert_eq!(v["ok"], true, "{v}");
        assert_eq!(v["transfers_checked"], 40);
    }
);

both_backends!(
    async fn parallel_retries_with_one_key_move_money_once(app: TestApp) {
        let (cashier, player) = cashier_and_player(&app).await;
        let body = json!({ "player_id": player.id, "amount": "12.34" });
        let requests = (0..12).map(|_| (body.clone(), Some("same-key".to_string()))).collect();
        let results = fire(&app, &cashier.token, "deposits", requests).await;
        let statuses: Vec<u16> = results.iter().map(|(s, _)| *s).collect();
        assert!(statuses.iter().all(|s| *s == 201), "{results:?}");
        let first = &results[0].1;
        assert!(
            results.iter().all(|(_, t)| t == first),
            "all twins answer with the same receipt: {results:?}"
        );
        assert_eq!(app.balance(&player.id).await, "12.34");
        assert_eq!(app.last_seq().await, 1);
    }
);

// Edits stored transfers behind the service's back: verification names the
// first bad transfer and the balances that no longer add up.
both_backends!(
    #[no_ledger_check]
    async fn verification_names_a_tampered_transfer(app: TestApp) {
        let (cashier, player) = cashier_and_player(&app).await;
        let t1 = app.fund(&cashier, &player.id, "100.00").await["transfer"].clone();
        let t2 = app
            .cage(
                &cashier,
                "withdrawals",
                &json!({ "player_id": player.id, "amount": "30.00" }),
                None,
            )
            .await
            .expect(201)["transfer"]
            .clone();
        app.fund(&cashier, &player.id, "5.00").await;
        let v = app.verify_ledger().await;
        assert_eq!(v["ok"], true, "{v}");
        assert_eq!(v["transfers_checked"], 3);

        // Someone with database access makes the withdrawal look smaller.
        let seq2 = t2["seq"].as_i64().unwrap();
        let changed = app.tamper(&[format!("UPDATE transfers SET amount_minor = 1000 WHERE seq = {seq2}")]);
        assert_eq!(changed, [1]);

        // The stored balances still sum to zero: only the chain tells.
        let tb = app.trial_balance().await;
        assert_eq!(tb["total"], "0.00");
        let v = app.verify_ledger().await;
        assert_eq!(v["ok"], false, "{v}");
        let broken = &v["first_broken_link"];
        assert_eq!(broken["seq"], seq2, "{v}");
        assert_eq!(broken["transfer_id"], t2["id"], "{v}");
        assert!(broken["reason"].as_str().unwrap().contains("hash"), "{v}");
        let mismatches = v["balance_mismatches"].as_array().unwrap();
        let wallet = format!("wallet:{}", player.id);
        let w = mismatches
            .iter()
            .find(|m| m["account"] == wallet.as_str())
            .unwrap_or_else(|| panic!("{v}"));
        assert_eq!(w["stored"], "75.00");
        assert_eq!(w["recomputed"], "95.00");
        let c = mismatches
            .iter()
            .find(|m| m["account"] == "cage")
            .unwrap_or_else(|| panic!("{v}"));
        assert_eq!(c["stored"], "-75.00");
        assert_eq!(c["recomputed"], "-95.00");
        assert_eq!(mismatches.len(), 2, "{v}");

        // An edit to an earlier transfer's memo (no money) becomes the first broken link.
        let seq1 = t1["seq"].as_i64().unwrap();
        app.tamper(&[format!(
            "UPDATE transfers SET memo = 'nothing to see' WHERE seq = {seq1}"
        )]);
        let v = app.verify_ledger().await;
        assert_eq!(v["ok"], false);
        assert_eq!(v["first_broken_link"]["seq"], seq1, "{v}");
        assert_eq!(v["first_broken_link"]["transfer_id"], t1["id"], "{v}");
    }
);

both_backends!(
    #[no_ledger_check]
    async fn verification_notices_a_deleted_transfer(app: TestApp) {
        let (cashier, player) = cashier_and_player(&app).await;
        app.fund(&cashier, &player.id, "10.00").await;
        let last = app.fund(&cashier, &player.id, "20.00").await["transfer"]["seq"]
            .as_i64()
            .unwrap();
        assert_eq!(app.tamper(&[format!("DELETE FROM transfers WHERE seq = {last}")]), [1]);
        let v = app.verify_ledger().await;
        assert_eq!(v["ok"], false, "{v}");
        assert!(
            v["first_broken_link"]["reason"].as_str().unwrap().contains("head"),
            "{v}"
        );
        assert!(!v["balance_mismatches"].as_array().unwrap().is_empty(), "{v}");
    }
);

both_backends!(
    async fn players_read_only_their_own_wallet(app: TestApp) {
        let (cashier, alice) = cashier_and_player(&app).await;
        let bob = app.create_user(Role::Player).await;
        app.fund(&cashier, &alice.id, "30.00").await;
        app.fund(&cashier, &bob.id, "70.00").await;

        let own = app
            .get(&format!("/api/v1/wallets/{}", alice.id), Some(&alice.token))
            .await
            .expect(200);
        assert_eq!(own["balance"], "30.00");
        let h = history(&app, &alice.token, &alice.id).await;
        assert_eq!(h.len(), 1);
        assert_eq!(h[0]["amount"], "30.00");
        // Nothing of Bob's leaks into Alice's history.
        assert!(h.iter().all(|t| t["user_id"] == alice.id.as_str()));

        app.get(&format!("/api/v1/wallets/{}", bob.id), Some(&alice.token))
            .await
            .assert_error(403, "forbidden");
        app.get(&format!("/api/v1/wallets/{}/transactions", bob.id), Some(&alice.token))
            .await
            .assert_error(403, "forbidden");
        // Not even whether a wallet exists.
        app.get("/api/v1/wallets/no-such-player", Some(&alice.token))
            .await
            .assert_error(403, "forbidden");
        // Players do not move money or read the ledger.
        app.post(
            "/api/v1/cage/deposits",
            Some(&alice.token),
            &json!({ "player_id": alice.id, "amount": "1000.00" }),
            None,
        )
        .await
        .assert_error(403, "forbidden");
        app.get("/api/v1/audit/ledger", Some(&alice.token))
            .await
            .assert_error(403, "forbidden");
        // Staff read any wallet.
        for role in [Role::Cashier, Role::Pitboss, Role::Auditor] {
            let staff = app.create_user(role).await;
            let w = app
                .get(&format!("/api/v1/wallets/{}", bob.id), Some(&staff.token))
                .await
                .expect(200);
            assert_eq!(w["balance"], "70.00");
        }
        let dealer = app.create_user(Role::Dealer).await;
        app.get(&format!("/api/v1/wallets/{}", bob.id), Some(&dealer.token))
            .await
            .assert_error(403, "forbidden");
    }
);
