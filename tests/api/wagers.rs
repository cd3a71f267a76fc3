//! The wager path under concurrency, on both backends: bets and cage
//! movements fired at once are committed in groups, yet every request is
//! judged alone (limits, funds), twins of one request all get the first
//! answer, a round's running totals and exposures match its bets, and no bet
//! is accepted after the close commits.

use serde_json::{json, Value};

use djego::cards::shuffle::{combined_client_seed, ClientSeed};
use djego::domain::Role;

use crate::prima_carta::{casino, create_round, minor, s, seat, TableOptions};

fn error_code(text: &str) -> String {
    serde_json::from_str::<Value>(text).unwrap_or_default()["error"]["code"]
        .as_str()
        .unwrap_or("")
        .to_string()
}

both_backends!(
    async fn a_burst_of_bets_is_judged_request_by_request(app: TestApp) {
        // Exposure limit 100.00 per player and round; one player can afford only 60.00.
        let c = casino(
            &app,
            TableOptions {
                max_exposure: "100.00",
                players: 6,
                funds: "1000.00",
                ..TableOptions::default()
            },
        )
        .await;
        let poor = app.create_user(Role::Player).await;
        app.fund(&c.cashier, &poor.id, "60.00").await;
        let round = create_round(&app, &c).await;
        let round_id = s(&round["id"]).to_string();
        let path = format!("/api/v1/rounds/{round_id}/bets");

        // Every player fires 8 bets of 25.00 at once: 4 fit under the limit.
        let mut requests = Vec::new();
        for (p, player) in c.players.iter().chain(std::iter::once(&poor)).enumerate() {
            for i in 0..8 {
                let body = json!({ "kind": "prima", "suit": "cups", "amount": "25.00" });
                requests.push((path.clone(), player.token.clone(), body, Some(format!("burst-{p}-{i}"))));
            }
        }
        let results = app.post_all_at_once(requests).await;

        let mut staked_total = 0;
        for (p, player) in c.players.iter().chain(std::iter::once(&poor)).enumerate() {
            let mine = &results[p * 8..p * 8 + 8];
            let accepted = mine.iter().filter(|(st, _)| *st == 201).count();
            let codes: Vec<String> = mine
                .iter()
                .filter(|(st, _)| *st != 201)
                .map(|(_, t)| error_code(t))
                .collect();
            if player.id == poor.id {
                assert_eq!(accepted, 2, "60.00 pays for two bets of 25.00: {mine:?}");
                assert!(codes.iter().all(|c| c == "insufficient_funds"), "{mine:?}");
                assert_eq!(app.balance(&poor.id).await, "10.00");
            } else {
                assert_eq!(accepted, 4, "the limit of 100.00 holds under a burst: {mine:?}");
                assert!(codes.iter().all(|c| c == "exposure_limit"), "{mine:?}");
                assert_eq!(app.balance(&player.id).await, "900.00");
            }
            staked_total += accepted as i64 * 2500;
        }

        // The escrow, the bet list and the round's public totals agree.
        let auditor = app.auditor().await;
        let bets = app
            .get(&format!("/api/v1/rounds/{round_id}/bets"), Some(&auditor.token))
            .await
            .expect(200);
        let bets = bets.as_array().unwrap();
        assert_eq!(bets.len() as i64 * 2500, staked_total);
        let accepted_ids: Vec<String> = results
            .iter()
            .filter(|(st, _)| *st == 201)
            .map(|(_, t)| {
                serde_json::from_str::<Value>(t).unwrap()["id"]
                    .as_str()
                    .unwrap()
                    .to_string()
            })
            .collect();
        for b in bets {
            assert!(
                accepted_ids.contains(&s(&b["id"]).to_string()),
                "a bet nobody was told of: {b}"
            );
        }
        let view = app
            .get(&format!("/api/v1/rounds/{round_id}"), Some(&c.dealer.token))
            .await
            .expect(200);
        let totals = view["bet_totals"].as_array().unwrap();
        assert_eq!(totals.len(), 1, "{view}");
        assert_eq!(totals[0]["kind"], "prima");
        assert_eq!(totals[0]["bets"], bets.len() as i64);
        assert_eq!(minor(s(&totals[0]["staked"])), staked_total);
        let escrow = crate::prima_carta::account_net(&app, &format!("escrow:{round_id}")).await;
        assert_eq!(escrow, staked_total, "escrow holds every accepted stake");
    }
);

both_backends!(
    async fn twins_of_a_withdrawal_all_get_the_first_answer(app: TestApp) {
        // The wallet covers the withdrawal once. Every copy with the same key
        // and body must be told what happened to the first: 201, one transfer.
        let cashier = app.create_user(Role::Cashier).await;
        let player = app.create_user(Role::Player).await;
        app.fund(&cashier, &player.id, "30.00").await;
        let body = json!({ "player_id": player.id, "amount": "20.00" });
        let requests = (0..30)
            .map(|_| {
                (
                    "/api/v1/cage/withdrawals".to_string(),
                    cashier.token.clone(),
                    body.clone(),
                    Some("one-withdrawal".to_string()),
                )
            })
            .collect();
        let results = app.post_all_at_once(requests).await;
        assert!(
            results.iter().all(|(st, t)| *st == 201 && t == &results[0].1),
            "twins must share the first answer: {results:?}"
        );
        assert_eq!(app.balance(&player.id).await, "10.00");
        assert_eq!(app.last_seq().await, 2, "one deposit and one withdrawal");
    }
);

both_backends!(
    async fn twins_of_a_bet_all_get_the_first_answer(app: TestApp) {
        let c = casino(
            &app,
            TableOptions {
                players: 1,
                funds: "15.00",
                ..TableOptions::default()
            },
        )
        .await;
        let round = create_round(&app, &c).await;
        let path = format!("/api/v1/rounds/{}/bets", s(&round["id"]));
        let body = json!({ "kind": "escucha", "suit": "locks", "amount": "10.00" });
        let requests = (0..20)
            .map(|_| {
                (
                    path.clone(),
                    c.players[0].token.clone(),
                    body.clone(),
                    Some("one-bet".to_string()),
                )
            })
            .collect();
        let results = app.post_all_at_once(requests).await;
        assert!(
            results.iter().all(|(st, t)| *st == 201 && t == &results[0].1),
            "twins must share the first answer: {results:?}"
        );
        assert_eq!(app.balance(&c.players[0].id).await, "5.00");

        // The same key with another body is refused and moves nothing.
        let other = json!({ "kind": "escucha", "suit": "cups", "amount": "1.00" });
        app.post(&path, Some(&c.players[0].token), &other, Some("one-bet"))
            .await
            .assert_error(409, "idempotency_key_reused");
        assert_eq!(app.balance(&c.players[0].id).await, "5.00");
    }
);

both_backends!(
    async fn no_bet_is_accepted_after_the_close(app: TestApp) {
        let c = casino(
            &app,
            TableOptions {
                players: 8,
                ..TableOptions::default()
            },
        )
        .await;
        let round = create_round(&app, &c).await;
        let round_id = s(&round["id"]).to_string();
        let path = format!("/api/v1/rounds/{round_id}/bets");
        let mut accepted_seeds = Vec::new();
        for (p, suit) in c.players.iter().take(2).zip(["cups", "swords"]) {
            seat(&app, p, &round_id, suit, None).await.expect(201);
            accepted_seeds.push(format!("seed of {}", &p.username[..10]));
        }

        // Bets with client seeds race the dealer's close.
        let mut requests = Vec::new();
        for (p, player) in c.players.iter().enumerate() {
            for i in 0..6 {
                let body = json!({ "kind": "conto_medio", "amount": "1.00", "client_seed": format!("race {p} {i}") });
                requests.push((path.clone(), player.token.clone(), body, Some(format!("race-{p}-{i}"))));
            }
        }
        requests.insert(
            20,
            (
                format!("/api/v1/rounds/{round_id}/close"),
                c.dealer.token.clone(),
                json!({}),
                None,
            ),
        );
        let results = app.post_all_at_once(requests).await;
        assert_eq!(results[20].0, 200, "close: {}", results[20].1);
        for (i, (status, text)) in results.iter().enumerate() {
            if i == 20 {
                continue;
            }
            match status {
                201 => {
                    let bet: Value = serde_json::from_str(text).unwrap();
                    let (p, k) = if i < 20 {
                        (i / 6, i % 6)
                    } else {
                        ((i - 1) / 6, (i - 1) % 6)
                    };
                    assert_eq!(bet["round_id"], round_id.as_str());
                    accepted_seeds.push(format!("race {p} {k}"));
                }
                409 => assert_eq!(error_code(text), "betting_closed", "{text}"),
                other => panic!("unexpected {other}: {text}"),
            }
        }
        // After the close every bet is refused.
        let late = json!({ "kind": "conto_medio", "amount": "1.00" });
        app.post(&path, Some(&c.players[0].token), &late, Some("late"))
            .await
            .assert_error(409, "betting_closed");

        // The client seed fixed at the close combines exactly the seats' and the
        // accepted bets' seeds: none was accepted after it, none accepted is missing.
        app.post(
            &format!("/api/v1/rounds/{round_id}/void"),
            Some(&c.pitboss.token),
            &json!({ "reason": "close race test" }),
            None,
        )
        .await
        .expect(200);
        let v = app
            .get(
                &format!("/api/v1/rounds/{round_id}/verification"),
                Some(&c.dealer.token),
            )
            .await
            .expect(200);
        let transcript = &v["transcript"]["shuffle"];
        let mut listed: Vec<String> = transcript["client_seeds"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| s(x).to_string())
            .collect();
        listed.sort();
        accepted_seeds.sort();
        assert_eq!(listed, accepted_seeds);
        let seeds: Vec<ClientSeed> = accepted_seeds.iter().map(|t| ClientSeed::parse(t).unwrap()).collect();
        assert_eq!(s(&transcript["client_seed"]), combined_client_seed(&seeds));
        // Every stake came back with the void.
        for p in &c.players {
            assert_eq!(app.balance(&p.id).await, "1000.00");
        }
    }
);

both_backends!(
    async fn deposits_and_bets_in_one_burst_keep_one_chain(app: TestApp) {
        let c = casino(
            &app,
            TableOptions {
                players: 5,
                funds: "100.00",
                ..TableOptions::default()
            },
        )
        .await;
        let round = create_round(&app, &c).await;
        let path = format!("/api/v1/rounds/{}/bets", s(&round["id"]));
        let mut requests = Vec::new();
        for (p, player) in c.players.iter().enumerate() {
            for i in 0..4 {
                requests.push((
                    "/api/v1/cage/deposits".to_string(),
                    c.cashier.token.clone(),
                    json!({ "player_id": player.id, "amount": "1.50" }),
                    Some(format!("dep-{p}-{i}")),
                ));
                requests.push((
                    path.clone(),
                    player.token.clone(),
                    json!({ "kind": "maximo", "suit": "fruit", "amount": "2.00" }),
                    Some(format!("bet-{p}-{i}")),
                ));
            }
        }
        let results = app.post_all_at_once(requests).await;
        assert!(results.iter().all(|(st, _)| *st == 201), "{results:?}");
        for p in &c.players {
            assert_eq!(app.balance(&p.id).await, "98.00", "100 + 4 × 1.50 − 4 × 2.00");
        }
        // Receipts' sequence numbers are distinct: one total order.
        let mut seqs: Vec<i64> = results
            .iter()
            .filter_map(|(_, t)| serde_json::from_str::<Value>(t).ok())
            .filter_map(|v| v["transfer"]["seq"].as_i64())
            .collect();
        seqs.sort();
        seqs.dedup();
        assert_eq!(seqs.len(), 20);
        let verified = app.verify_ledger().await;
        assert_eq!(verified["ok"], true, "{verified}");
    }
);

// A running total edited behind the service's back is named by verification.
both_backends!(
    #[no_ledger_check]
    async fn verification_recomputes_running_totals_from_the_bets(app: TestApp) {
        let c = casino(
            &app,
            TableOptions {
                players: 1,
                ..TableOptions::default()
            },
        )
        .await;
        let round = create_round(&app, &c).await;
        let round_id = s(&round["id"]).to_string();
        let body = json!({ "kind": "prima", "suit": "crowns", "amount": "3.00" });
        app.post(
            &format!("/api/v1/rounds/{round_id}/bets"),
            Some(&c.players[0].token),
            &body,
            Some("t-1"),
        )
        .await
        .expect(201);
        let v = app.verify_ledger().await;
        assert_eq!(v["ok"], true, "{v}");
        assert_eq!(v["running_total_mismatches"], json!([]));

        use diesel::RunQueryDsl;
        app.database()
            .write(|conn| -> Result<usize, djego::store::StoreError> {
                Ok(diesel::sql_query("UPDATE round_exposures SET staked_minor = 0").execute(conn)?)
            })
            .expect("tamper");
        let v = app.verify_ledger().await;
        assert_eq!(v["ok"], false, "{v}");
        let named = v["running_total_mismatches"].as_array().unwrap();
        assert_eq!(named.len(), 1, "{v}");
        let line = s(&named[0]);
        assert!(line.contains(&round_id) && line.contains(&c.players[0].id), "{line}");
    }
);

both_backends!(
    async fn a_wager_is_judged_against_its_callers_account_at_its_commit(app: TestApp) {
        let c = casino(
            &app,
            TableOptions {
                players: 4,
                funds: "100.00",
                ..TableOptions::default()
            },
        )
        .await;
        let round = create_round(&app, &c).await;
        let round_id = s(&round["id"]).to_string();
        let path = format!("/api/v1/rounds/{round_id}/bets");
        let body = json!({ "kind": "prima", "suit": "cups", "amount": "10.00" });
        let [leaving, deactivated, staying, other] = [&c.players[0], &c.players[1], &c.players[2], &c.players[3]];
        app.post(&path, Some(&leaving.token), &body, Some("before-logout"))
            .await
            .expect(201);

        // One player logs out and another is deactivated; then all four bet
        // in one burst, so the refusals share batches with accepted bets.
        let out = app
            .post("/api/v1/auth/logout", Some(&leaving.token), &json!({}), None)
            .await;
        assert_eq!(out.status, 204, "{}", out.text);
        app.put(
            &format!("/api/v1/users/{}", deactivated.id),
            Some(&c.pitboss.token),
            &json!({ "active": false }),
            None,
        )
        .await
        .expect(200);
        let mut requests = Vec::new();
        for (p, player) in [leaving, deactivated, staying, other].into_iter().enumerate() {
            for i in 0..5 {
                requests.push((
                    path.clone(),
                    player.token.clone(),
                    body.clone(),
                    Some(format!("burst-{p}-{i}")),
                ));
            }
        }
        // A retry of the bet placed before the logout is not replayed to the ended session.
        requests.push((
            path.clone(),
            leaving.token.clone(),
            body.clone(),
            Some("before-logout".into()),
        ));
        let results = app.post_all_at_once(requests).await;
        let codes = |range: std::ops::Range<usize>| -> Vec<(u16, String)> {
            results[range].iter().map(|(st, t)| (*st, error_code(t))).collect()
        };
        assert!(
            codes(0..5).iter().all(|c| *c == (401, "session_revoked".into())),
            "{results:?}"
        );
        assert!(
            codes(5..10).iter().all(|c| *c == (401, "account_inactive".into())),
            "{results:?}"
        );
        assert!(codes(10..20).iter().all(|(st, _)| *st == 201), "{results:?}");
        assert_eq!(codes(20..21), vec![(401, "session_revoked".to_string())], "{results:?}");
        assert_eq!(app.balance(&leaving.id).await, "90.00");
        assert_eq!(app.balance(&deactivated.id).await, "100.00");
        assert_eq!(app.balance(&staying.id).await, "50.00");

        // The token's role opens the door only to the role's own requests:
        // a pit boss cannot bet, a player cannot deposit.
        app.post(&path, Some(&c.pitboss.token), &body, None)
            .await
            .assert_error(403, "forbidden");
        let deposit = json!({ "player_id": other.id, "amount": "5.00" });
        app.post("/api/v1/cage/deposits", Some(&other.token), &deposit, None)
            .await
            .assert_error(403, "forbidden");

        // A cashier made a dealer moves no money with the old token.
        app.put(
            &format!("/api/v1/users/{}", c.cashier.id),
            Some(&c.pitboss.token),
            &json!({ "role": "dealer" }),
            None,
        )
        .await
        .expect(200);
        app.cage(&c.cashier, "deposits", &deposit, Some("after-demotion"))
            .await
            .assert_error(401, "session_revoked");
        assert_eq!(app.balance(&other.id).await, "50.00");
        app.assert_ledger_sound().await;
    }
);

/// Runs `sql` in a transaction that is rolled back: Ok(rows) if the database
/// accepted it, Err(message) if it refused it.
fn accepted(app: &crate::helpers::TestApp, sql: &str) -> Result<usize, String> {
    use diesel::RunQueryDsl;
    #[derive(Debug)]
    enum Outcome {
        Accepted(usize),
        Refused(String),
    }
    impl From<djego::store::StoreError> for Outcome {
        fn from(e: djego::store::StoreError) -> Outcome {
            Outcome::Refused(e.to_string())
        }
    }
    impl From<diesel::result::Error> for Outcome {
        fn from(e: diesel::result::Error) -> Outcome {
            Outcome::Refused(e.to_string())
        }
    }
    let result: Result<(), Outcome> = app.database().write(|conn| {
        let rows = diesel::sql_query(sql).execute(conn)?;
        Err(Outcome::Accepted(rows))
    });
    match result {
        Err(Outcome::Accepted(rows)) => Ok(rows),
        Err(Outcome::Refused(message)) => Err(message),
        Ok(()) => unreachable!("the closure always rolls back"),
    }
}

both_backends!(
    async fn bets_and_transfers_name_only_rows_that_exist_and_stay(app: TestApp) {
        // On PostgreSQL these references are checked per statement by
        // triggers rather than per row by foreign keys: the same refusals.
        let c = casino(
            &app,
            TableOptions {
                players: 1,
                ..TableOptions::default()
            },
        )
        .await;
        let round = create_round(&app, &c).await;
        let round_id = s(&round["id"]).to_string();
        let player = &c.players[0];
        app.post(
            &format!("/api/v1/rounds/{round_id}/bets"),
            Some(&player.token),
            &json!({ "kind": "prima", "suit": "cups", "amount": "1.00" }),
            None,
        )
        .await
        .expect(201);

        let copy_bet = |column: &str, value: &str| {
            let columns = "round_id, table_id, player_id, kind, selection, amount_minor, pay_table_id, client_seed, \
                           status, returned_minor, decided_by, placed_at_us, settled_at_us";
            let values: Vec<&str> = columns
                .split(", ")
                .map(|c| if c == column { value } else { c })
                .collect();
            let values = values.join(", ");
            format!("INSERT INTO bets (id, {columns}) SELECT id || '-copy', {values} FROM bets")
        };
        assert_eq!(
            accepted(&app, &copy_bet("round_id", "round_id")),
            Ok(1),
            "a faithful copy is accepted"
        );
        for (column, missing) in [
            ("round_id", "'no-such-round'"),
            ("table_id", "'no-such-table'"),
            ("player_id", "'no-such-player'"),
            ("pay_table_id", "'no-such-pay-table'"),
        ] {
            let refused = accepted(&app, &copy_bet(column, missing));
            assert!(refused.is_err(), "a bet naming no row in {column}: {refused:?}");
        }

        let copy_transfer = |debit: &str, credit: &str| {
            format!(
                "INSERT INTO transfers (seq, id, debit_account, credit_account, amount_minor, kind, created_at_us, \
                 prev_hash, hash) SELECT seq + 1000000, id || '-copy', {debit}, {credit}, amount_minor, kind, \
                 created_at_us, prev_hash, hash FROM transfers WHERE seq = (SELECT MAX(seq) FROM transfers)"
            )
        };
        assert_eq!(accepted(&app, &copy_transfer("debit_account", "credit_account")), Ok(1));
        for (debit, credit) in [
            ("'no-such-account'", "credit_account"),
            ("debit_account", "'no-such-account'"),
        ] {
            let refused = accepted(&app, &copy_transfer(debit, credit));
            assert!(refused.is_err(), "a transfer naming no account: {refused:?}");
        }

        for sql in [
            format!("DELETE FROM rounds WHERE id = '{round_id}'"),
            format!("UPDATE rounds SET id = 'renamed' WHERE id = '{round_id}'"),
            format!("DELETE FROM users WHERE id = '{}'", player.id),
            format!("UPDATE users SET id = 'renamed' WHERE id = '{}'", player.id),
            format!("DELETE FROM accounts WHERE id = 'wallet:{}'", player.id),
        ] {
            let refused = accepted(&app, &sql);
            assert!(refused.is_err(), "{sql}: {refused:?}");
        }
    }
);
