//! Lobo against the house over HTTP: start (escrow in the ledger), illegal and stale plays,
//! play to the end, exact settlement, recall verification, privacy of rounds and of the deck.

use serde_json::{json, Value};
use std::collections::BTreeSet;

use djego::domain::Role;
use djego::tables::{self, TableConfig, TableStatus};

use crate::helpers::{TestApp, TestUser};

/// The demo table's charge a round at unit 1.00, in cents: easy mode's default fee.
pub(crate) fn demo_fee_minor() -> i64 {
    i64::from(djego::games::lobo::default_house_rule(djego::games::lobo::Mode::Easy).fee_per_round_hundredths)
}

/// An open Lobo table created directly in the app's database (easy mode, units 1.00–10.00,
/// loss cap 40, default house rule: easy mode's default fee per round, play timeout 600 s).
pub(crate) fn lobo_table(app: &TestApp, hints: bool) -> String {
    lobo_table_timing_out_after(app, hints, 600)
}

fn lobo_table_timing_out_after(app: &TestApp, hints: bool, play_timeout_seconds: u32) -> String {
    app.state
        .db
        .write(|conn| -> Result<String, djego::store::StoreError> {
            let mut config = TableConfig::demo_lobo();
            if let TableConfig::Lobo(c) = &mut config {
                c.hints = hints;
                c.play_timeout_seconds = play_timeout_seconds;
            }
            let name = format!("Lobo test {}", uuid::Uuid::now_v7());
            let t = tables::create(conn, &name, &config, None)?;
            tables::set_status(conn, &t.id, TableStatus::Open, "test", json!({}))?;
            Ok(t.id)
        })
        .expect("table created")
}

pub(crate) async fn funded_player(app: &TestApp, amount: &str) -> TestUser {
    let cashier = app.create_user(Role::Cashier).await;
    let player = app.create_user(Role::Player).await;
    app.fund(&cashier, &player.id, amount).await;
    player
}

fn minor(text: &str) -> i64 {
    let neg = text.starts_with('-');
    let t = text.trim_start_matches('-');
    let (a, b) = t.split_once('.').unwrap_or((t, "00"));
    let v = a.parse::<i64>().unwrap() * 100 + b.parse::<i64>().unwrap();
    if neg {
        -v
    } else {
        v
    }
}

fn money(m: i64) -> String {
    format!("{}.{:02}", m / 100, m % 100)
}

fn rank(id: &Value) -> i64 {
    id.as_i64().unwrap() % 10 + 1
}

fn account_balance(tb: &Value, account: &str) -> Option<String> {
    tb["accounts"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["account"] == account)
        .map(|a| a["balance"].as_str().unwrap().to_string())
}

/// Every card id a view shows.
fn shown_ids(view: &Value) -> BTreeSet<i64> {
    let t = &view["table"];
    let mut ids = BTreeSet::new();
    for key in ["player_hand", "wolf_hand", "discards"] {
        ids.extend(t[key].as_array().unwrap().iter().map(|v| v.as_i64().unwrap()));
    }
    if let Some(c) = t["cub"].as_i64() {
        ids.insert(c);
    }
    for list in ["plays", "legal_plays"] {
        for p in t[list].as_array().unwrap() {
            for key in ["player_cards", "wolf_cards"] {
                ids.extend(p[key].as_array().unwrap().iter().map(|v| v.as_i64().unwrap()));
            }
        }
    }
    ids
}

/// Folds `round_id` at its first position, without an Idempotency-Key.
pub(crate) async fn fold_at_once(app: &TestApp, player: &TestUser, round_id: &str) -> crate::helpers::TestResponse {
    app.post(
        &format!("/api/v1/lobo-rounds/{round_id}/fold"),
        Some(&player.token),
        &json!({ "expected_plays": 0 }),
        None,
    )
    .await
}

pub(crate) async fn start(app: &TestApp, player: &TestUser, table: &str, body: Value) -> crate::helpers::TestResponse {
    app.post(
        &format!("/api/v1/tables/{table}/lobo-rounds"),
        Some(&player.token),
        &body,
        None,
    )
    .await
}

both_backends!(
    async fn a_round_plays_to_an_exact_settlement(app: TestApp) {
        let table = lobo_table(&app, true);
        let player = funded_player(&app, "500.00").await;
        let seq_before = app.last_seq().await;

        let round = start(
            &app,
            &player,
            &table,
            json!({ "unit": "2.00", "client_seed": "lucky wolf" }),
        )
        .await
        .expect(201);
        let id = round["id"].as_str().unwrap().to_string();
        assert_eq!(round["commitment"].as_str().unwrap().len(), 64);
        assert_eq!(round["client_seed"], "lucky wolf");
        assert!(round["server_seed"].is_null());
        assert_eq!(round["escrow"], "80.00");
        assert_eq!(round["charge"], money(2 * demo_fee_minor()));
        assert_eq!(round["table"]["player_hand"].as_array().unwrap().len(), 4);
        assert_eq!(round["table"]["wolf_hand"].as_array().unwrap().len(), 4);
        assert!(
            !round.to_string().contains("\"deck\""),
            "the deck must never be sent: {round}"
        );
        let mut views = vec![round.clone()];

        if round["status"] == "in_play" {
            // The escrow is visible in the ledger; the fee went to house revenue.
            let tb = app.trial_balance().await;
            assert_eq!(account_balance(&tb, &format!("escrow:{id}")).as_deref(), Some("80.00"));
            assert_eq!(
                app.balance(&player.id).await,
                money(50_000 - 8000 - 2 * demo_fee_minor())
            );
            assert_eq!(app.last_seq().await, seq_before + 2);

            // Illegal: a Split needs two Wolf cards; taking the player's own card is not a capture.
            let p = round["table"]["player_hand"][0].clone();
            let w = round["table"]["wolf_hand"][0].clone();
            let r = app
                .post(
                    &format!("/api/v1/lobo-rounds/{id}/plays"),
                    Some(&player.token),
                    &json!({ "kind": "split", "player_cards": [p], "wolf_cards": [w], "expected_plays": 0 }),
                    None,
                )
                .await;
            r.assert_error(422, "illegal_play");
            let r = app
                .post(
                    &format!("/api/v1/lobo-rounds/{id}/plays"),
                    Some(&player.token),
                    &json!({ "kind": "perfect", "player_cards": [p.clone()], "wolf_cards": [p], "expected_plays": 0 }),
                    None,
                )
                .await;
            r.assert_error(422, "illegal_play");
            assert!(
                r.json()["error"]["message"]
                    .as_str()
                    .unwrap()
                    .contains("not in the Wolf's hand"),
                "{}",
                r.text
            );

            // A hint from the solver, labelled.
            let h = app
                .get(&format!("/api/v1/lobo-rounds/{id}/hint"), Some(&player.token))
                .await
                .expect(200);
            assert!(
                ["exact", "restricted_overs", "heuristic"].contains(&h["basis"].as_str().unwrap()),
                "{h}"
            );
            assert_eq!(h["plays_made"], 0);
        }

        // Play the first legal play until the round ends; the first play goes twice with one key.
        let mut view = round.clone();
        let mut first = true;
        while view["status"] == "in_play" {
            let made = view["plays_made"].as_u64().unwrap();
            let legal = view["table"]["legal_plays"].as_array().unwrap();
            let play = legal[0].clone();
            let mut body = json!({ "kind": play["kind"], "player_cards": play["player_cards"],
                               "wolf_cards": play["wolf_cards"], "expected_plays": made });
            if made > 0 {
                // A stale view is refused and applies nothing.
                body["expected_plays"] = json!(made - 1);
                let r = app
                    .post(
                        &format!("/api/v1/lobo-rounds/{id}/plays"),
                        Some(&player.token),
                        &body,
                        None,
                    )
                    .await;
                r.assert_error(409, "stale_play");
                body["expected_plays"] = json!(made);
            }
            let key = format!("play-{made}");
            let next = app
                .post(
                    &format!("/api/v1/lobo-rounds/{id}/plays"),
                    Some(&player.token),
                    &body,
                    Some(&key),
                )
                .await
                .expect(200);
            if first {
                first = false;
                let again = app
                    .post(
                        &format!("/api/v1/lobo-rounds/{id}/plays"),
                        Some(&player.token),
                        &body,
                        Some(&key),
                    )
                    .await
                    .expect(200);
                assert_eq!(again, next, "the same key returns the original response");
                let r = app
                    .post(
                        &format!("/api/v1/lobo-rounds/{id}/plays"),
                        Some(&player.token),
                        &body,
                        None,
                    )
                    .await;
                assert_eq!(r.status, 409, "a repeat without the key is stale: {}", r.text);
            }
            assert_eq!(next["plays_made"].as_u64().unwrap(), made + 1);
            views.push(next.clone());
            view = next;
        }
        assert_eq!(view["status"], "settled");
        let result = view["result"].clone();
        assert!(view["server_seed"].as_str().unwrap().len() == 64);
        let seen = app
            .get(&format!("/api/v1/lobo-rounds/{id}"), Some(&player.token))
            .await
            .expect(200);
        assert_eq!(seen["result"], result);
        views.push(seen);
        // Staff find it among the table's rounds, as its player sees it; players use /me/rounds.
        let listed = app
            .get(
                &format!("/api/v1/tables/{table}/lobo-rounds"),
                Some(&app.auditor().await.token.clone()),
            )
            .await
            .expect(200);
        assert_eq!(listed[0]["id"], id.as_str(), "{listed}");
        assert_eq!(listed[0]["result"], result);
        app.get(&format!("/api/v1/tables/{table}/lobo-rounds"), Some(&player.token))
            .await
            .assert_error(403, "forbidden");

        // Settlement amounts, exact.
        let points = result["points"].as_i64().unwrap();
        let (win, loss, release) = if result["player_won"] == true {
            (200 * points, 0, 8000)
        } else {
            let l = 200 * points.min(40);
            (0, l, 8000 - l)
        };
        assert_eq!(result["won"], money(win));
        assert_eq!(result["lost"], money(loss));
        assert_eq!(result["released"], money(release));
        assert_eq!(
            minor(result["player_net"].as_str().unwrap()),
            win - loss - 2 * demo_fee_minor()
        );
        assert_eq!(
            minor(&app.balance(&player.id).await),
            50000 + win - loss - 2 * demo_fee_minor()
        );
        let tb = app.trial_balance().await;
        assert_eq!(tb["total"], "0.00");
        assert_eq!(account_balance(&tb, &format!("escrow:{id}")).as_deref(), Some("0.00"));

        // The recall: transcript verifies, every transfer of the round, the plays.
        let recall = app
            .get(&format!("/api/v1/lobo-rounds/{id}/recall"), Some(&player.token))
            .await
            .expect(200);
        let auditor = app.auditor().await.token.clone();
        let by_auditor = app
            .get(&format!("/api/v1/lobo-rounds/{id}/recall"), Some(&auditor))
            .await
            .expect(200);
        assert_eq!(by_auditor["transcript"]["shuffle"], recall["transcript"]["shuffle"]);
        assert_eq!(by_auditor["transcript"]["transfers"], recall["transcript"]["transfers"]);
        let whole = djego::transcript::verify_document(&recall);
        assert!(
            whole.passed,
            "the Lobo round replays from its transcript:\n{}",
            whole.to_text()
        );
        assert_eq!(recall["transcript"]["players"][0]["you"], true);
        let transcript: djego::cards::transcript::ShuffleTranscript =
            serde_json::from_value(recall["transcript"]["shuffle"].clone()).unwrap();
        assert_eq!(transcript.game, "lobo");
        assert_eq!(transcript.client_seed, "lucky wolf");
        assert_eq!(transcript.commitment, round["commitment"].as_str().unwrap());
        assert_eq!(transcript.deck.len(), 40);
        let report = djego::cards::transcript::verify(&transcript);
        assert!(report.passed, "{}", report.to_text());
        assert_eq!(recall["verification"]["passed"], true);
        crate::transcripts::every_verifier_accepts("the Lobo recall", &recall.to_string()).await;
        assert_eq!(
            recall["plays"].as_array().unwrap().len() as u64,
            view["plays_made"].as_u64().unwrap()
        );
        let kinds: Vec<(String, String)> = recall["transcript"]["transfers"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| {
                (
                    t["kind"].as_str().unwrap().to_string(),
                    t["amount"].as_str().unwrap().to_string(),
                )
            })
            .collect();
        let mut expected = vec![
            ("lobo_escrow".to_string(), "80.00".to_string()),
            ("lobo_fee".to_string(), money(2 * demo_fee_minor())),
        ];
        if win > 0 {
            expected.push(("lobo_win".into(), money(win)));
        }
        if loss > 0 {
            expected.push(("lobo_loss".into(), money(loss)));
        }
        if release > 0 {
            expected.push(("lobo_release".into(), money(release)));
        }
        assert_eq!(kinds, expected);

        // No view ever showed a card that was still face down at that moment.
        let deck: Vec<i64> = transcript.deck.iter().map(|&c| c as i64).collect();
        for v in &views {
            let face_down = v["table"]["face_down_left"].as_u64().unwrap() as usize;
            let hidden: BTreeSet<i64> = deck[deck.len() - face_down..].iter().copied().collect();
            let shown = shown_ids(v);
            assert!(shown.is_disjoint(&hidden), "a view showed a face-down card: {v}");
        }
        // The opening hands are the deck's positions 0–3 (Wolf) and 4–7 (player).
        let mut wolf: Vec<i64> = deck[0..4].to_vec();
        wolf.sort();
        let got: Vec<i64> = round["table"]["wolf_hand"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_i64().unwrap())
            .collect();
        assert_eq!(got, wolf);
    }
);

both_backends!(
    async fn fold_pays_the_wolfs_hand_and_rounds_are_private(app: TestApp) {
        let table = lobo_table(&app, false);
        let player = funded_player(&app, "100.00").await;
        let other = funded_player(&app, "100.00").await;
        let round = start(&app, &player, &table, json!({ "unit": "1.00" }))
            .await
            .expect(201);
        let id = round["id"].as_str().unwrap().to_string();
        assert_eq!(round["client_seed"], "");

        // Another player may neither see nor play this round; a dealer may not see it.
        app.get(&format!("/api/v1/lobo-rounds/{id}"), Some(&other.token))
            .await
            .assert_error(403, "forbidden");
        fold_at_once(&app, &other, &id).await.assert_error(403, "forbidden");
        let dealer = app.create_user(Role::Dealer).await;
        app.get(&format!("/api/v1/lobo-rounds/{id}"), Some(&dealer.token))
            .await
            .assert_error(403, "forbidden");
        let pitboss = app.create_user(Role::Pitboss).await;
        app.get(&format!("/api/v1/lobo-rounds/{id}"), Some(&pitboss.token))
            .await
            .expect(200);
        // Another player may play their own round at the same table meanwhile.
        let theirs = start(&app, &other, &table, json!({ "unit": "1.00" })).await.expect(201);
        if round["status"] == "in_play" {
            // One round in play per player per table.
            let refused = start(&app, &player, &table, json!({ "unit": "1.00" })).await;
            refused.assert_error(409, "round_in_progress");
            assert!(
                refused.text.contains(&id),
                "the refusal names the round in play: {}",
                refused.text
            );
            assert_eq!(
                refused.json()["error"]["details"]["round_id"],
                id.as_str(),
                "and names it for programs too"
            );
            // Hints are off at this table; the recall waits for settlement.
            app.get(&format!("/api/v1/lobo-rounds/{id}/hint"), Some(&player.token))
                .await
                .assert_error(409, "hints_off");
            app.get(&format!("/api/v1/lobo-rounds/{id}/recall"), Some(&player.token))
                .await
                .assert_error(409, "wrong_round_state");

            let wolf_points: i64 = round["table"]["wolf_hand"].as_array().unwrap().iter().map(rank).sum();
            let folded = app
                .post(
                    &format!("/api/v1/lobo-rounds/{id}/fold"),
                    Some(&player.token),
                    &json!({ "expected_plays": 0 }),
                    Some("fold-1"),
                )
                .await
                .expect(200);
            assert_eq!(folded["status"], "settled");
            assert_eq!(folded["result"]["player_won"], false);
            assert_eq!(folded["result"]["reason"], "folded");
            assert_eq!(folded["result"]["points"].as_i64().unwrap(), wolf_points);
            let loss = 100 * wolf_points.min(40);
            assert_eq!(folded["result"]["lost"], money(loss));
            assert_eq!(minor(&app.balance(&player.id).await), 10000 - demo_fee_minor() - loss);
            // Folding again: the same key answers as before; without it the round is over.
            let again = app
                .post(
                    &format!("/api/v1/lobo-rounds/{id}/fold"),
                    Some(&player.token),
                    &json!({ "expected_plays": 0 }),
                    Some("fold-1"),
                )
                .await
                .expect(200);
            assert_eq!(again, folded);
            fold_at_once(&app, &player, &id)
                .await
                .assert_error(409, "wrong_round_state");
        }
        app.get(&format!("/api/v1/lobo-rounds/{id}/recall"), Some(&other.token))
            .await
            .assert_error(403, "forbidden");
        let theirs_id = theirs["id"].as_str().unwrap();
        if theirs["status"] == "in_play" {
            fold_at_once(&app, &other, &theirs_id).await.expect(200);
        }
        let tb = app.trial_balance().await;
        assert_eq!(account_balance(&tb, &format!("escrow:{id}")).as_deref(), Some("0.00"));
        assert_eq!(
            account_balance(&tb, &format!("escrow:{theirs_id}")).as_deref(),
            Some("0.00")
        );
    }
);

both_backends!(
    async fn racing_starts_leave_one_round_in_play_and_every_refusal_names_it(app: TestApp) {
        let table = lobo_table(&app, false);
        let player = funded_player(&app, "1000.00").await;
        let path = format!("/api/v1/tables/{table}/lobo-rounds");
        let requests = (0..6)
            .map(|i| {
                (
                    path.clone(),
                    player.token.clone(),
                    json!({ "unit": "1.00" }),
                    Some(format!("race-{i}")),
                )
            })
            .collect();
        let results = app.post_all_at_once(requests).await;
        let started: Vec<Value> = results
            .iter()
            .filter(|(status, _)| *status == 201)
            .map(|(_, body)| serde_json::from_str(body).unwrap())
            .collect();
        assert!(!started.is_empty(), "{results:?}");
        let in_play: Vec<&str> = started
            .iter()
            .filter(|r| r["status"] == "in_play")
            .map(|r| r["id"].as_str().unwrap())
            .collect();
        assert!(in_play.len() <= 1, "one round in play at a time: {results:?}");
        for (status, body) in results.iter().filter(|(status, _)| *status != 201) {
            assert_eq!(*status, 409, "{body}");
            let refusal: Value = serde_json::from_str(body).unwrap();
            assert_eq!(refusal["error"]["code"], "round_in_progress", "{body}");
            // The winner of the race is named, whether this start saw it or lost to it on the index.
            assert_eq!(
                refusal["error"]["details"]["round_id"].as_str(),
                in_play.first().copied(),
                "{body}"
            );
        }
    }
);

both_backends!(
    async fn a_round_needs_funds_and_a_unit_in_range(app: TestApp) {
        let table = lobo_table(&app, true);
        // 40.00 escrow + the fee > 40.00 + the fee − 0.01.
        let short_of = money(4000 + demo_fee_minor() - 1);
        let player = funded_player(&app, &short_of).await;
        let seq = app.last_seq().await;
        let short = start(&app, &player, &table, json!({ "unit": "1.00" })).await;
        short.assert_error(422, "insufficient_funds");
        assert_eq!(
            short.json()["error"]["details"],
            json!({ "needed": money(4000 + demo_fee_minor()), "balance": short_of })
        );
        assert!(
            short.text.contains(&format!("the wallet holds {short_of}")),
            "{}",
            short.text
        );
        start(&app, &player, &table, json!({ "unit": "0.50" }))
            .await
            .assert_error(422, "unit_out_of_range");
        start(&app, &player, &table, json!({ "unit": "11.00" }))
            .await
            .assert_error(422, "unit_out_of_range");
        start(&app, &player, &table, json!({ "unit": "1.001" }))
            .await
            .assert_error(400, "invalid_body");
        start(&app, &player, &table, json!({ "unit": "1.00", "client_seed": "" }))
            .await
            .assert_error(400, "invalid_client_seed");
        start(
            &app,
            &player,
            &table,
            json!({ "unit": "1.00", "client_seed": "x".repeat(65) }),
        )
        .await
        .assert_error(400, "invalid_client_seed");
        let cashier = app.create_user(Role::Cashier).await;
        let auditor = app.auditor().await.token.clone();
        app.post(
            &format!("/api/v1/tables/{table}/lobo-rounds"),
            Some(&auditor),
            &json!({ "unit": "1.00" }),
            None,
        )
        .await
        .assert_error(403, "forbidden");
        assert_eq!(app.last_seq().await, seq, "refused requests move no money");
        assert_eq!(app.balance(&player.id).await, short_of);
        // Nothing was left behind: with enough money the same player can start.
        app.fund(&cashier, &player.id, "0.01").await;
        let round = start(&app, &player, &table, json!({ "unit": "1.00" }))
            .await
            .expect(201);
        assert_eq!(app.balance(&player.id).await, "0.00", "exactly what the start needed");
        let id = round["id"].as_str().unwrap();
        if round["status"] == "in_play" {
            fold_at_once(&app, &player, &id).await.expect(200);
        }
        app.get("/api/v1/lobo-rounds/not-a-round", Some(&player.token))
            .await
            .assert_error(404, "not_found");
    }
);

both_backends!(
    async fn a_player_finds_their_rounds_and_wallet_without_knowing_ids(app: TestApp) {
        let table = lobo_table(&app, false);
        let player = funded_player(&app, "100.00").await;
        let other = funded_player(&app, "100.00").await;
        let mine = |user: &TestUser| {
            let (app, token) = (&app, user.token.clone());
            async move { app.get("/api/v1/me/rounds", Some(&token)).await.expect(200) }
        };
        let listed = mine(&player).await;
        assert_eq!(
            (
                listed["open"].as_array().unwrap().len(),
                listed["recent"].as_array().unwrap().len()
            ),
            (0, 0)
        );

        let round = start(&app, &player, &table, json!({ "unit": "1.00" }))
            .await
            .expect(201);
        let id = round["id"].as_str().unwrap().to_string();
        let listed = mine(&player).await;
        let (open, recent) = (listed["open"].as_array().unwrap(), listed["recent"].as_array().unwrap());
        if round["status"] == "in_play" {
            assert_eq!((open.len(), recent.len()), (1, 0), "{listed}");
            assert_eq!(open[0]["round_id"], id.as_str());
            assert_eq!(
                (open[0]["game"].as_str(), open[0]["table_id"].as_str()),
                (Some("lobo"), Some(table.as_str()))
            );
            fold_at_once(&app, &player, &id).await.expect(200);
        }
        // Over, it moves to the recent rounds.
        let listed = mine(&player).await;
        assert_eq!(listed["open"].as_array().unwrap().len(), 0, "{listed}");
        assert_eq!(listed["recent"][0]["round_id"], id.as_str(), "{listed}");
        assert_eq!(listed["recent"][0]["status"], "settled");
        // Nobody else's list shows it; the list is a player's.
        assert_eq!(mine(&other).await["recent"].as_array().unwrap().len(), 0);
        let dealer = app.create_user(Role::Dealer).await;
        app.get("/api/v1/me/rounds", Some(&dealer.token))
            .await
            .assert_error(403, "forbidden");

        // The wallet, as the wallet endpoint gives it under the player's id.
        let wallet = app.get("/api/v1/me/wallet", Some(&player.token)).await.expect(200);
        assert_eq!(
            wallet,
            app.get(&format!("/api/v1/wallets/{}", player.id), Some(&player.token))
                .await
                .expect(200)
        );
        assert!(
            minor(wallet["balance"].as_str().unwrap()) < 100_00,
            "the round cost its fee: {wallet}"
        );
        app.get("/api/v1/me/wallet", Some(&dealer.token))
            .await
            .assert_error(403, "forbidden");
    }
);

both_backends!(
    async fn a_hint_is_solved_once_per_position_and_new_ones_are_limited(app: TestApp) {
        let app = TestApp::spawn_with(app.backend, |s| {
            s.hint_limits.solves_per_player_per_minute = 1;
        })
        .await;
        let table = lobo_table(&app, true);
        let player = funded_player(&app, "2000.00").await;
        // A round still in play after its first play (most deals are).
        let mut found = None;
        for attempt in 0..20 {
            let round = start(
                &app,
                &player,
                &table,
                json!({ "unit": "1.00", "client_seed": format!("hint {attempt}") }),
            )
            .await
            .expect(201);
            if round["status"] != "in_play" {
                continue;
            }
            let id = round["id"].as_str().unwrap().to_string();
            let legal = round["table"]["legal_plays"].as_array().unwrap();
            let after_one = legal.iter().find(|p| p["kind"] != "fold").cloned();
            if let Some(play) = after_one {
                found = Some((id, play));
                break;
            }
            fold_at_once(&app, &player, &id).await.expect(200);
        }
        let (id, play) = found.expect("a round in play within 20 deals");
        let path = format!("/api/v1/lobo-rounds/{id}/hint");

        let first = app.get(&path, Some(&player.token)).await.expect(200);
        assert_eq!(
            (first["cached"].as_bool(), first["plays_made"].as_u64()),
            (Some(false), Some(0)),
            "{first}"
        );
        // The same position again: from memory, the same hint, not a new solve.
        for _ in 0..3 {
            let again = app.get(&path, Some(&player.token)).await.expect(200);
            assert_eq!(again["cached"], true, "{again}");
            assert_eq!(
                (&again["play"], &again["value_points"]),
                (&first["play"], &first["value_points"])
            );
        }

        let body = json!({ "kind": play["kind"], "player_cards": play["player_cards"],
                           "wolf_cards": play["wolf_cards"], "expected_plays": 0 });
        let view = app
            .post(
                &format!("/api/v1/lobo-rounds/{id}/plays"),
                Some(&player.token),
                &body,
                None,
            )
            .await
            .expect(200);
        if view["status"] == "in_play" {
            // A new position is a new solve: beyond one a minute, refused at once with when to ask again.
            let refused = app.get(&path, Some(&player.token)).await;
            refused.assert_error(429, "too_many_hints");
            let retry: u64 = refused.headers["retry-after"].to_str().unwrap().parse().unwrap();
            assert!((1..=60).contains(&retry), "Retry-After {retry}");
        }
    }
);

/// Reads a live stream until `done` holds for what it has sent, or panics after 10 s.
pub(crate) async fn read_until(stream: &mut reqwest::Response, seen: &mut String, done: impl Fn(&str) -> bool) {
    let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(10);
    while !done(seen) {
        let chunk = tokio::time::timeout_at(deadline, stream.chunk())
            .await
            .unwrap_or_else(|_| panic!("the stream did not say it in time: {seen}"))
            .expect("the stream reads")
            .expect("the stream is open");
        seen.push_str(&String::from_utf8_lossy(&chunk));
    }
}

/// Another instance of the same casino on `app`'s database: the same token and seed keys, as
/// every instance of one casino has; `adjust` sets the rest.
pub(crate) async fn same_casino(app: &TestApp, adjust: impl FnOnce(&mut djego::config::Settings)) -> TestApp {
    let (jwt_secret, seed_key) = (app.state.settings.jwt_secret.clone(), app.state.settings.seed_key);
    app.spawn_another_with(|s| {
        s.jwt_secret = jwt_secret;
        s.seed_key = seed_key;
        adjust(s);
    })
    .await
}

/// Opens the table's live stream as `token` and reads it to its first `state`.
pub(crate) async fn watch_table(app: &TestApp, table: &str, token: &str) -> (reqwest::Response, String) {
    let mut stream = app
        .request(
            reqwest::Method::GET,
            &format!("/api/v1/tables/{table}/events"),
            Some(token),
        )
        .send()
        .await
        .expect("the stream opens");
    assert_eq!(stream.status(), 200);
    let mut seen = String::new();
    read_until(&mut stream, &mut seen, |s| s.contains("event: state")).await;
    (stream, seen)
}

both_backends!(
    async fn a_lobo_tables_rounds_are_shown_live_without_a_face_down_card(app: TestApp) {
        let table = lobo_table(&app, false);
        let player = funded_player(&app, "500.00").await;
        let pitboss = app.create_user(Role::Pitboss).await;
        // On PostgreSQL the watcher is on another instance: the change crosses over.
        let watched = match app.backend {
            crate::helpers::Backend::Postgres => Some(same_casino(&app, |_| {}).await),
            crate::helpers::Backend::Sqlite => None,
        };
        let watcher = watched.as_ref().unwrap_or(&app);
        let (mut stream, mut seen) = watch_table(watcher, &table, &pitboss.token).await;

        let round = start(&app, &player, &table, json!({ "unit": "1.00" }))
            .await
            .expect(201);
        let id = round["id"].as_str().unwrap().to_string();
        read_until(&mut stream, &mut seen, |s| {
            s.contains("event: lobo_round") && s.contains(&id)
        })
        .await;
        if round["status"] == "in_play" {
            // A watcher arriving now is shown the round in play at once, as its player sees it.
            let (_, first) = watch_table(watcher, &table, &pitboss.token).await;
            let state: Value = first
                .lines()
                .skip_while(|l| *l != "event: state")
                .find_map(|l| l.strip_prefix("data: "))
                .map(|d| serde_json::from_str(d).expect("state is JSON"))
                .expect("a state event");
            assert_eq!(state["table"]["id"], table.as_str(), "{state}");
            let in_play = state["rounds_in_play"].as_array().expect("rounds in play");
            assert_eq!(in_play.len(), 1, "{state}");
            assert_eq!(in_play[0]["id"], id.as_str());
            assert_eq!(in_play[0]["table"], round["table"], "the player's own view: {state}");
            assert!(in_play[0]["server_seed"].is_null() && !first.contains("\"deck\""));
            assert!(!first.contains(&player.id), "whose round it is: {first}");
            fold_at_once(&app, &player, &id).await.expect(200);
        }
        read_until(&mut stream, &mut seen, |s| s.contains("\"status\":\"settled\"")).await;
        let views: Vec<Value> = seen
            .lines()
            .filter_map(|l| l.strip_prefix("data: "))
            .filter_map(|d| serde_json::from_str::<Value>(d).ok())
            .filter(|v| v["id"] == id.as_str())
            .collect();
        for view in views.iter().filter(|v| v["status"] == "in_play") {
            assert!(view["server_seed"].is_null(), "no seed before settlement: {view}");
        }
        let last = views.last().expect("the round's view");
        assert_eq!(last["status"], "settled", "{last}");
        assert!(
            last["server_seed"].is_string(),
            "the seed is revealed once settled: {last}"
        );
        assert!(!seen.contains("\"deck\""), "no deck in the stream: {seen}");
        // Any account watches the table: the stream never says whose round it is.
        assert!(!seen.contains(&player.id), "the player's id in the stream: {seen}");
        assert!(views.iter().all(|v| v.get("player_id").is_none()), "{seen}");
        // The round's player and staff still read it under the player's id.
        for token in [&player.token, &pitboss.token] {
            let view = app
                .get(&format!("/api/v1/lobo-rounds/{id}"), Some(token))
                .await
                .expect(200);
            assert_eq!(view["player_id"], player.id.as_str(), "{view}");
        }
    }
);

// ---------------------------------------------------------------------------
// Rounds that end without their player: timeouts and voids
// ---------------------------------------------------------------------------

/// Starts a round that is in play (a deal that leaves no capture settles at once: deal again).
async fn start_in_play(app: &TestApp, player: &TestUser, table: &str) -> Value {
    for _ in 0..10 {
        let round = start(app, player, table, json!({ "unit": "1.00" })).await.expect(201);
        if round["status"] == "in_play" {
            return round;
        }
    }
    panic!("ten deals in a row left no capture")
}

/// Makes the round look silent for `seconds` more than it has been, as if its player walked away.
fn backdate(app: &TestApp, round_id: &str, seconds: i64) {
    use diesel::RunQueryDsl;
    let n = app
        .state
        .db
        .write(|conn| -> Result<usize, djego::store::StoreError> {
            Ok(diesel::sql_query(format!(
                "UPDATE rounds SET updated_at_us = updated_at_us - {} WHERE id = '{round_id}'",
                seconds * 1_000_000
            ))
            .execute(conn)?)
        })
        .expect("round backdated");
    assert_eq!(n, 1);
}

/// One sweep of `app`'s instance as if its clock read `ahead_s` seconds from now.
async fn sweep_ahead(app: &TestApp, ahead_s: i64) -> Vec<String> {
    let (db, vault) = (app.state.db.clone(), app.state.vault.clone());
    tokio::task::spawn_blocking(move || {
        djego::rounds::lobo_timeouts::sweep(&db, &vault, djego::store::now_us() + ahead_s * 1_000_000)
            .rounds
            .into_iter()
            .map(|v| v.id)
            .collect()
    })
    .await
    .expect("the sweep ran")
}

async fn events_about(app: &TestApp, kind: &str, round_id: &str) -> Vec<Value> {
    app.events(kind)
        .await
        .into_iter()
        .filter(|e| e["subject"] == round_id)
        .map(|mut e| {
            e["details"] = serde_json::from_str(e["details"].as_str().unwrap()).unwrap();
            e
        })
        .collect()
}

both_backends!(
    async fn a_silent_players_round_is_folded_when_its_play_timeout_passes(app: TestApp) {
        let table = lobo_table(&app, false);
        let walked_away = funded_player(&app, "500.00").await;
        let still_playing = funded_player(&app, "500.00").await;
        let pitboss = app.create_user(Role::Pitboss).await;
        let round = start_in_play(&app, &walked_away, &table).await;
        let id = round["id"].as_str().unwrap().to_string();
        let other = start_in_play(&app, &still_playing, &table).await;
        let other_id = other["id"].as_str().unwrap().to_string();
        let wolf_points: i64 = round["table"]["wolf_hand"].as_array().unwrap().iter().map(rank).sum();

        // The sweep runs on its own on a second instance of the casino, every 100 ms; on
        // PostgreSQL the first instance's watchers hear of the fold across instances.
        let sweeping = same_casino(&app, |s| s.lobo_timeout_sweep_ms = 100).await;
        let watcher = match app.backend {
            crate::helpers::Backend::Postgres => &app,
            crate::helpers::Backend::Sqlite => &sweeping,
        };
        // Watching before the round is overdue, so that the fold comes after the stream's state.
        let (mut stream, mut seen) = watch_table(watcher, &table, &pitboss.token).await;
        // Silent for 601 s at a table whose rounds wait 600 s for a play.
        backdate(&app, &id, 601);

        let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(10);
        let folded = loop {
            let view = app
                .get(&format!("/api/v1/lobo-rounds/{id}"), Some(&walked_away.token))
                .await
                .expect(200);
            if view["status"] != "in_play" {
                break view;
            }
            assert!(tokio::time::Instant::now() < deadline, "not folded within 10 s: {view}");
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        };
        assert_eq!(folded["status"], "settled", "{folded}");
        assert!(folded["play_deadline_us"].is_null(), "{folded}");
        let result = &folded["result"];
        assert_eq!(result["timed_out"], true, "{folded}");
        assert_eq!(result["reason"], "folded");
        assert_eq!(result["player_won"], false);
        // A fold with the Wolf's points as they stand: no play was made, so the opening hand.
        assert_eq!(result["points"], wolf_points);
        assert_eq!(result["lost"], money(wolf_points.min(40) * 100));
        assert_eq!(
            app.balance(&walked_away.id).await,
            money(50_000 - demo_fee_minor() - wolf_points.min(40) * 100)
        );
        read_until(&mut stream, &mut seen, |s| {
            s.contains("event: lobo_round") && s.contains(&id) && s.contains("\"timed_out\":true")
        })
        .await;

        // A play that comes after the fold finds the round over.
        let late = fold_at_once(&app, &walked_away, &id).await;
        late.assert_error(409, "wrong_round_state");
        // The other player's round was not silent long enough.
        let view = app
            .get(&format!("/api/v1/lobo-rounds/{other_id}"), Some(&still_playing.token))
            .await
            .expect(200);
        assert_eq!(view["status"], "in_play");

        let timed_out = events_about(&app, "round_timed_out", &id).await;
        assert_eq!(timed_out.len(), 1, "{timed_out:?}");
        assert_eq!(timed_out[0]["details"]["play_timeout_seconds"], 600);
        assert_eq!(events_about(&app, "seed_revealed", &id).await.len(), 1);
        let recall = app
            .get(&format!("/api/v1/lobo-rounds/{id}/recall"), Some(&walked_away.token))
            .await
            .expect(200);
        assert_eq!(recall["verification"]["passed"], true, "{recall}");
        assert_eq!(recall["plays"].as_array().unwrap().last().unwrap()["kind"], "fold");
        crate::transcripts::every_verifier_accepts("a timed-out Lobo round", &recall["transcript"].to_string()).await;
        let tb = app.trial_balance().await;
        assert_eq!(account_balance(&tb, &format!("escrow:{id}")).as_deref(), Some("0.00"));
        drop(sweeping);
    }
);

both_backends!(
    async fn each_play_restarts_the_clock_and_each_table_sets_its_own(app: TestApp) {
        let patient = lobo_table(&app, false);
        let brisk = lobo_table_timing_out_after(&app, false, 30);
        let player = funded_player(&app, "500.00").await;
        let round = start_in_play(&app, &player, &patient).await;
        let id = round["id"].as_str().unwrap().to_string();
        let quick = start_in_play(&app, &player, &brisk).await;
        let quick_id = quick["id"].as_str().unwrap().to_string();

        // A play 590 s into the round: the player is back, and has 600 s again from it.
        backdate(&app, &id, 590);
        let legal = round["table"]["legal_plays"].as_array().unwrap();
        let play = &legal[0];
        let after = app
            .post(
                &format!("/api/v1/lobo-rounds/{id}/plays"),
                Some(&player.token),
                &json!({ "kind": play["kind"], "player_cards": play["player_cards"],
                         "wolf_cards": play["wolf_cards"], "expected_plays": 0 }),
                None,
            )
            .await
            .expect(200);
        assert!(
            sweep_ahead(&app, 20).await.is_empty(),
            "the clock restarted at the play"
        );
        // The player is told when: 600 s from the start, then from the play.
        let started_us = round["play_deadline_us"].as_i64().expect("a deadline while in play");
        let now_us = djego::store::now_us();
        assert!(started_us - 600_000_000 <= now_us && now_us <= started_us, "{round}");
        if after["status"] == "in_play" {
            let moved_us = after["play_deadline_us"].as_i64().unwrap();
            assert!(moved_us > started_us && moved_us <= now_us + 600_000_000, "{after}");
        } else {
            assert!(after["play_deadline_us"].is_null(), "no deadline once over: {after}");
        }
        // 31 s on, the brisk table's round is past its 30 s; the other is not.
        assert_eq!(sweep_ahead(&app, 31).await, vec![quick_id.clone()]);
        let later = sweep_ahead(&app, 601).await;
        if after["status"] == "in_play" {
            assert_eq!(later, vec![id.clone()]);
            let view = app
                .get(&format!("/api/v1/lobo-rounds/{id}"), Some(&player.token))
                .await
                .expect(200);
            assert_eq!(view["plays_made"], 2, "the play, then the fold");
            assert_eq!(view["result"]["timed_out"], true);
        } else {
            assert!(later.is_empty(), "a settled round has nothing to time out");
        }
        // Sweeping again folds nothing twice.
        assert!(sweep_ahead(&app, 3600).await.is_empty());
        assert_eq!(events_about(&app, "round_timed_out", &quick_id).await.len(), 1);
    }
);

both_backends!(
    async fn instances_sweeping_together_fold_each_round_once(app: TestApp) {
        let table = lobo_table(&app, false);
        let other = same_casino(&app, |_| {}).await;
        let mut ids = Vec::new();
        for _ in 0..4 {
            let player = funded_player(&app, "100.00").await;
            ids.push(
                start_in_play(&app, &player, &table).await["id"]
                    .as_str()
                    .unwrap()
                    .to_string(),
            );
        }
        let (a, b) = tokio::join!(sweep_ahead(&app, 601), sweep_ahead(&other, 601));
        let mut folded: Vec<String> = a.into_iter().chain(b).collect();
        folded.sort();
        ids.sort();
        assert_eq!(folded, ids, "each round folded by exactly one instance");
        for id in &ids {
            assert_eq!(events_about(&app, "round_timed_out", id).await.len(), 1);
        }
        drop(other);
    }
);

both_backends!(
    async fn a_pit_boss_voids_a_round_in_play_and_the_player_gets_everything_back(app: TestApp) {
        let table = lobo_table(&app, false);
        let player = funded_player(&app, "500.00").await;
        let pitboss = app.create_user(Role::Pitboss).await;
        let round = start_in_play(&app, &player, &table).await;
        let id = round["id"].as_str().unwrap().to_string();
        let after_start = money(50_000 - 4000 - demo_fee_minor());
        assert_eq!(app.balance(&player.id).await, after_start);
        let path = format!("/api/v1/lobo-rounds/{id}/void");
        let body = json!({ "reason": "player's phone died; refunded at the cage's request" });

        // Only a pit boss voids, with a reason.
        app.post(&path, Some(&player.token), &body, None)
            .await
            .assert_error(403, "forbidden");
        app.post(&path, Some(&pitboss.token), &json!({ "reason": " " }), None)
            .await
            .assert_error(400, "invalid_reason");
        app.post(
            &format!("/api/v1/lobo-rounds/{}/void", uuid::Uuid::now_v7()),
            Some(&pitboss.token),
            &body,
            None,
        )
        .await
        .assert_error(404, "not_found");
        // The Prima Carta route points to this one.
        let elsewhere = app
            .post(&format!("/api/v1/rounds/{id}/void"), Some(&pitboss.token), &body, None)
            .await;
        elsewhere.assert_error(404, "not_found");
        assert!(elsewhere.text.contains("/api/v1/lobo-rounds/"), "{}", elsewhere.text);
        assert_eq!(app.balance(&player.id).await, after_start, "nothing moved");

        let voided = app
            .post(&path, Some(&pitboss.token), &body, Some("void-1"))
            .await
            .expect(200);
        assert_eq!(voided["status"], "voided");
        assert!(voided["result"].is_null());
        assert!(voided["server_seed"].is_string(), "the seed is revealed: {voided}");
        assert_eq!(
            app.balance(&player.id).await,
            "500.00",
            "the escrow and the charge came back"
        );
        let tb = app.trial_balance().await;
        assert_eq!(account_balance(&tb, &format!("escrow:{id}")).as_deref(), Some("0.00"));
        // A retry with its key is answered again; without it, the round is over.
        let again = app
            .post(&path, Some(&pitboss.token), &body, Some("void-1"))
            .await
            .expect(200);
        assert_eq!(again, voided);
        app.post(&path, Some(&pitboss.token), &body, None)
            .await
            .assert_error(409, "wrong_round_state");
        assert_eq!(app.balance(&player.id).await, "500.00");
        fold_at_once(&app, &player, &id)
            .await
            .assert_error(409, "wrong_round_state");
        // Nothing left for the sweep.
        assert!(sweep_ahead(&app, 3600).await.is_empty());

        let void_events = events_about(&app, "round_voided", &id).await;
        assert_eq!(void_events.len(), 1, "{void_events:?}");
        assert_eq!(void_events[0]["details"]["refunded"], money(4000 + demo_fee_minor()));
        assert_eq!(events_about(&app, "seed_revealed", &id).await.len(), 1);
        let recall = app
            .get(&format!("/api/v1/lobo-rounds/{id}/recall"), Some(&player.token))
            .await
            .expect(200);
        assert_eq!(recall["verification"]["passed"], true, "{recall}");
        crate::transcripts::every_verifier_accepts("a voided Lobo round", &recall["transcript"].to_string()).await;
        // The floor sees nothing at risk and nothing won, in theory as in fact.
        let report = app.get("/api/v1/floor/tables", Some(&pitboss.token)).await.expect(200);
        let line = report["lines"]
            .as_array()
            .unwrap()
            .iter()
            .find(|l| l["table_id"] == table.as_str() && l["shift"].is_null())
            .unwrap_or_else(|| panic!("no day line for the table: {report}"));
        assert_eq!(
            (
                &line["voided_rounds"],
                &line["drop"],
                &line["house_win"],
                &line["theo_win"]
            ),
            (&json!(1), &json!("0.00"), &json!("0.00"), &json!("0.00")),
            "{line}"
        );
        let ratings = app.get("/api/v1/floor/players", Some(&pitboss.token)).await.expect(200);
        let session = ratings["sessions"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["player_id"] == player.id.as_str())
            .unwrap_or_else(|| panic!("no session for the player: {ratings}"));
        assert_eq!(
            (&session["theo_loss"], &session["actual_result"]),
            (&json!("0.00"), &json!("0.00")),
            "{session}"
        );
        // The player may start again at once.
        start(&app, &player, &table, json!({ "unit": "1.00" }))
            .await
            .expect(201);
    }
);

both_backends!(
    async fn a_closed_tables_rounds_still_end_by_play_or_timeout(app: TestApp) {
        let table = lobo_table(&app, false);
        let player = funded_player(&app, "500.00").await;
        let late = funded_player(&app, "500.00").await;
        let pitboss = app.create_user(Role::Pitboss).await;
        let first = start_in_play(&app, &player, &table).await;
        let second = start_in_play(&app, &late, &table).await;
        app.post(
            &format!("/api/v1/tables/{table}/close"),
            Some(&pitboss.token),
            &json!({}),
            None,
        )
        .await
        .expect(200);
        start(&app, &player, &table, json!({ "unit": "1.00" }))
            .await
            .assert_error(409, "table_closed");
        fold_at_once(&app, &player, first["id"].as_str().unwrap())
            .await
            .expect(200);
        assert_eq!(
            sweep_ahead(&app, 601).await,
            vec![second["id"].as_str().unwrap().to_string()]
        );
    }
);

both_backends!(
    async fn a_play_timeout_outside_its_bounds_is_refused(app: TestApp) {
        let pitboss = app.create_user(Role::Pitboss).await;
        for (timeout, status) in [(29, 422), (86_401, 422), (30, 202), (86_400, 202)] {
            let r = app
                .post(
                    "/api/v1/tables",
                    Some(&pitboss.token),
                    &json!({ "name": format!("Lobo {timeout}"), "config": { "game": "lobo", "mode": "easy",
                        "min_unit": "1.00", "max_unit": "10.00", "loss_cap_points": 40, "hints": false,
                        "play_timeout_seconds": timeout } }),
                    None,
                )
                .await;
            assert_eq!(r.status, status, "{timeout}: {}", r.text);
            if status == 202 {
                let table = app.approve(&r.json()).await;
                assert_eq!(table["result"]["config"]["play_timeout_seconds"], timeout);
            }
        }
    }
);

/// A Lobo table with `rule` (hundredths of a unit) at `loss_cap_points`, created directly in the
/// app's database, overriding the proof as a pit boss may.
fn lobo_table_with_rule(app: &TestApp, loss_cap_points: u32, fee_hundredths: u32) -> String {
    app.state
        .db
        .write(|conn| -> Result<String, djego::store::StoreError> {
            let mut config = TableConfig::demo_lobo();
            if let TableConfig::Lobo(c) = &mut config {
                c.loss_cap_points = loss_cap_points;
                c.house_rule.fee_per_round_hundredths = fee_hundredths;
                c.house_rule_override = true;
            }
            let t = tables::create(conn, &format!("Lobo rule {}", uuid::Uuid::now_v7()), &config, None)?;
            Ok(t.id)
        })
        .expect("table created")
}

both_backends!(
    async fn a_lobo_table_states_its_fee_proven_edge_and_the_perfect_players_loss(app: TestApp) {
        use djego::games::lobo::{lower_bound, upper_bound, Mode};
        let player = app.create_user(Role::Player).await;
        let path = |t: &str| format!("/api/v1/tables/{t}/lobo-house-edge");

        // The demo table: easy mode, cap 40, the default fee.
        let demo = lobo_table(&app, true);
        let e = app.get(&path(&demo), Some(&player.token)).await.expect(200);
        let fee = demo_fee_minor() as f64 / 100.0;
        assert!((e["charge_units"].as_f64().unwrap() - fee).abs() < 1e-9, "{e}");
        let edge = e["proven_house_edge_percent"].as_f64().unwrap();
        assert!(edge >= 1.0, "the default fee proves at least 1%: {e}");
        let [least, most] = [0, 1].map(|i| e["perfect_player_loss_units"][i].as_f64().unwrap());
        let upper = upper_bound(Mode::Easy, Some(40)).unwrap().value_points;
        let lower = lower_bound(Mode::Easy, Some(40)).value_points;
        assert!(
            (least - (fee - upper)).abs() < 1e-9 && (most - (fee - lower)).abs() < 1e-9,
            "{e}"
        );
        assert!(least < most, "{e}");
        // The smallest loss is the proven edge, as a share of the amount at risk.
        let at_risk = e["amount_at_risk_units"].as_f64().unwrap();
        assert!((100.0 * least / at_risk - edge).abs() < 1e-9, "{e}");
        assert!(e["basis"].as_str().unwrap().contains("99.9%"), "{e}");

        // A fee under the bound proves nothing; a cap under 20 has no bound at all.
        let cheap = lobo_table_with_rule(&app, 20, 100);
        let e = app.get(&path(&cheap), Some(&player.token)).await.expect(200);
        assert!(e["proven_house_edge_percent"].is_null(), "{e}");
        assert!(e["perfect_player_loss_units"][0].as_f64().unwrap() < 0.0, "{e}");
        let low_cap = lobo_table_with_rule(&app, 10, 500);
        let e = app.get(&path(&low_cap), Some(&player.token)).await.expect(200);
        assert!(
            e["proven_house_edge_percent"].is_null() && e["perfect_player_loss_units"].is_null(),
            "{e}"
        );

        // Not a table; not a Lobo table; not signed in.
        app.get(&path(&uuid::Uuid::now_v7().to_string()), Some(&player.token))
            .await
            .assert_error(404, "not_found");
        let prima = app
            .state
            .db
            .write(|conn| -> Result<String, djego::store::StoreError> {
                Ok(tables::create(conn, "Prima for terms", &TableConfig::demo_prima_carta(), None)?.id)
            })
            .expect("table created");
        app.get(&path(&prima), Some(&player.token))
            .await
            .assert_error(422, "wrong_game");
        assert_eq!(app.get(&path(&demo), None).await.status, 401);
    }
);
