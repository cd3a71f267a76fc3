//! Three-round Lobo contests over HTTP: the commitment before entry, entries into the pot
//! (idempotent, refused when closed, duplicate or unfunded), a deck per entrant (each the
//! shuffle of their own round id) played to the end, the pot, the rake and a tie split
//! reconciled to the cent in the ledger, nothing of any deck but the caller's own round or of
//! another entrant shown before settlement, voids refunding every entry, the play time running
//! out, and the recall verifying.

use serde_json::{json, Value};

use djego::cards::shuffle::{self, ClientSeed, Game, ServerSeed};
use djego::domain::Role;
use djego::games::lobo::{Mode, ThreeRounds};

use crate::helpers::{TestApp, TestUser};
use crate::lobo::{funded_player, lobo_table};

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

fn account_minor(tb: &Value, account: &str) -> i64 {
    tb["accounts"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["account"] == account)
        .map_or(0, |a| minor(a["balance"].as_str().unwrap()))
}

fn terms(fee: &str, rake_bps: u32, min_players: u32, max_players: u32) -> Value {
    json!({ "entry_fee": fee, "rake_basis_points": rake_bps, "min_players": min_players,
        "max_players": max_players, "entry_seconds": 600, "play_seconds": 600 })
}

async fn create(app: &TestApp, pit_boss: &TestUser, table: &str, body: Value) -> Value {
    app.post(
        &format!("/api/v1/tables/{table}/lobo-contests"),
        Some(&pit_boss.token),
        &body,
        None,
    )
    .await
    .expect(201)
}

async fn enter(
    app: &TestApp,
    player: &TestUser,
    contest: &str,
    body: Value,
    key: Option<&str>,
) -> crate::helpers::TestResponse {
    app.post(
        &format!("/api/v1/lobo-contests/{contest}/entries"),
        Some(&player.token),
        &body,
        key,
    )
    .await
}

async fn contest_as(app: &TestApp, user: &TestUser, contest: &str) -> Value {
    app.get(&format!("/api/v1/lobo-contests/{contest}"), Some(&user.token))
        .await
        .expect(200)
}

/// `POST /api/v1/lobo-contests/{contest}/{action}` (close, settle, void…) by `user`.
async fn contest_action(
    app: &TestApp,
    user: &TestUser,
    contest: &str,
    action: &str,
    body: Value,
) -> crate::helpers::TestResponse {
    app.post(
        &format!("/api/v1/lobo-contests/{contest}/{action}"),
        Some(&user.token),
        &body,
        None,
    )
    .await
}

/// Plays the player's rounds to the end: the first legal play each time, or a fold when
/// `fold_only`. Returns the last answer.
async fn play_out(app: &TestApp, player: &TestUser, contest: &str, fold_only: bool) -> Value {
    let mut view = contest_as(app, player, contest).await;
    for _ in 0..200 {
        let entry = &view["my_entry"];
        if entry["finished"] == true {
            return view;
        }
        let made = entry["plays_made"].as_u64().unwrap();
        let legal = entry["table"]["legal_plays"].as_array().unwrap();
        let play = &legal[0];
        view = if fold_only || play["kind"] == "fold" {
            app.post(
                &format!("/api/v1/lobo-contests/{contest}/fold"),
                Some(&player.token),
                &json!({ "expected_plays": made }),
                None,
            )
            .await
            .expect(200)
        } else {
            app.post(
                &format!("/api/v1/lobo-contests/{contest}/plays"),
                Some(&player.token),
                &json!({ "kind": play["kind"], "player_cards": play["player_cards"],
                    "wolf_cards": play["wolf_cards"], "expected_plays": made }),
                None,
            )
            .await
            .expect(200)
        };
    }
    panic!("three rounds did not end in 200 plays")
}

/// Nothing of any deck beyond the caller's own table, and nothing of another entrant.
fn assert_private(view: &Value, others: &[&TestUser]) {
    let text = view.to_string();
    assert!(!text.contains("\"deck\""), "a view shows a deck: {view}");
    assert!(!text.contains("\"shuffle\""), "a view shows a shuffle: {view}");
    assert!(view["server_seed"].is_null(), "{view}");
    assert!(view["progress"].is_null(), "a player sees others' progress: {view}");
    assert!(view["result"].is_null(), "{view}");
    for other in others {
        assert!(!text.contains(&other.id), "a view names another entrant: {view}");
    }
}

/// The contest's server seed, unsealed as only the house can: for a test that must know the
/// decks before they are revealed.
fn sealed_seed(app: &TestApp, contest: &str) -> ServerSeed {
    let row = app
        .state
        .db
        .read(|conn| djego::rounds::lobo_contests::find(conn, contest))
        .expect("the contest reads");
    app.state
        .vault
        .open(&row.id, &row.server_seed_sealed)
        .expect("the seed unseals")
}

/// Entrant `n`'s deck by the public shuffle: shuffle-v1, game `lobo`, round id
/// `<contest>/<n>`, the combined client seed; easy mode (the test tables'), 40 cards.
fn entrant_deck(seed: &ServerSeed, contest: &str, n: i32, client_seed: &str) -> Vec<djego::cards::Card> {
    let round_id = format!("{contest}/{n}");
    shuffle::shuffled_deck(seed, Game::Lobo, &round_id, client_seed, Mode::Easy.max_rank()).0
}

/// The total of an entrant who folds every round of their deck.
fn folding_total(deck: &[djego::cards::Card]) -> i64 {
    let mut game = ThreeRounds::deal(Mode::Easy, deck).expect("a full deck deals");
    for fold in game.folds_to_stop() {
        game = game.apply(&fold).expect("a fold is always legal");
    }
    game.total()
}

fn seeds(texts: &[&str]) -> Vec<ClientSeed> {
    texts.iter().map(|t| ClientSeed::parse(t).unwrap()).collect()
}

fn ids(values: &Value) -> Vec<u8> {
    let mut ids: Vec<u8> = values
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap() as u8)
        .collect();
    ids.sort_unstable();
    ids
}

both_backends!(
    async fn a_three_way_tie_splits_the_pot_less_the_rake_to_the_cent(app: TestApp) {
        let table = lobo_table(&app, false);
        let pit_boss = app.create_user(Role::Pitboss).await;
        let players = [
            funded_player(&app, "100.00").await,
            funded_player(&app, "100.00").await,
            funded_player(&app, "100.00").await,
        ];
        let revenue_before = account_minor(&app.trial_balance().await, "house:revenue");

        // 3 × 3.33 = 9.99 at 7.5 %: a rake of 0.749 25, rounded down to 0.74.
        let contest = create(&app, &pit_boss, &table, terms("3.33", 750, 2, 3)).await;
        let id = contest["id"].as_str().unwrap().to_string();
        assert_eq!(contest["status"], "entry");
        assert_eq!(contest["commitment"].as_str().unwrap().len(), 64);
        assert!(contest["server_seed"].is_null() && contest["client_seed"].is_null());
        assert_eq!(contest["rounds_per_player"], 3);
        let listed = app
            .get(
                &format!("/api/v1/tables/{table}/lobo-contests"),
                Some(&players[0].token),
            )
            .await
            .expect(200);
        assert_eq!(listed[0]["id"], id.as_str());
        assert_eq!(listed[0]["commitment"], contest["commitment"]);

        // An entry retried with its key pays once and answers the same.
        let seq = app.last_seq().await;
        let first = enter(
            &app,
            &players[0],
            &id,
            json!({ "client_seed": "alpha" }),
            Some("enter-1"),
        )
        .await
        .expect(201);
        let again = enter(
            &app,
            &players[0],
            &id,
            json!({ "client_seed": "alpha" }),
            Some("enter-1"),
        )
        .await
        .expect(201);
        assert_eq!(first, again);
        assert_eq!(app.last_seq().await, seq + 1);
        assert_eq!(app.balance(&players[0].id).await, "96.67");
        assert_eq!(first["my_entry"]["entry_number"], 1);
        assert_eq!(first["pot"], "3.33");
        enter(&app, &players[0], &id, json!({}), Some("enter-2"))
            .await
            .assert_error(409, "already_entered");

        // Too little in the wallet: 422 and nothing moves.
        let poor = funded_player(&app, "3.32").await;
        let seq = app.last_seq().await;
        let r = enter(&app, &poor, &id, json!({}), None).await;
        r.assert_error(422, "insufficient_funds");
        assert_eq!(r.json()["error"]["details"]["needed"], "3.33");
        assert_eq!(app.last_seq().await, seq);
        assert_eq!(app.balance(&poor.id).await, "3.32");

        // Staff may not enter; a player may not play before entry closes.
        let cashier = app.create_user(Role::Cashier).await;
        enter(&app, &cashier, &id, json!({}), None)
            .await
            .assert_error(403, "forbidden");
        app.post(
            &format!("/api/v1/lobo-contests/{id}/fold"),
            Some(&players[0].token),
            &json!({ "expected_plays": 0 }),
            None,
        )
        .await
        .assert_error(409, "wrong_contest_state");

        enter(&app, &players[1], &id, json!({}), None).await.expect(201);
        // Each entrant has a deck of their own, so a tie takes finding: the last entrant's seed
        // is picked (knowing the sealed seed, as no player can) so that folding every round
        // gives the three decks the same total.
        let seed = sealed_seed(&app, &id);
        let (gamma, combined) = (0..200_000)
            .map(|k| {
                let gamma = format!("gamma {k}");
                let combined = shuffle::combined_client_seed(&seeds(&["alpha", &gamma]));
                (gamma, combined)
            })
            .find(|(_, combined)| {
                let totals: Vec<i64> = (1..=3)
                    .map(|n| folding_total(&entrant_deck(&seed, &id, n, combined)))
                    .collect();
                totals[0] == totals[1] && totals[1] == totals[2]
            })
            .expect("a seed that ties the three decks");
        // The last seat closes entry: the seeds combine and the decks are fixed.
        let full = enter(&app, &players[2], &id, json!({ "client_seed": gamma }), None)
            .await
            .expect(201);
        assert_eq!(full["status"], "in_play");
        assert_eq!(full["entrants"], 3);
        assert_eq!(full["pot"], "9.99");
        assert_eq!(full["client_seed"], combined.as_str());
        assert!(full["play_closes_at_us"].as_i64().is_some());
        enter(&app, &poor, &id, json!({}), None)
            .await
            .assert_error(409, "entry_closed");
        let tb = app.trial_balance().await;
        assert_eq!(account_minor(&tb, &format!("pot:{id}")), 999);

        // Each entrant sees only their own table, dealt from their own deck: two hands of four,
        // no deck, nobody else.
        let v0 = contest_as(&app, &players[0], &id).await;
        assert_private(&v0, &[&players[1], &players[2]]);
        assert_eq!(v0["my_entry"]["round_in_play"], 1);
        assert_eq!(v0["my_entry"]["table"]["player_hand"].as_array().unwrap().len(), 4);
        assert_eq!(v0["my_entry"]["table"]["wolf_hand"].as_array().unwrap().len(), 4);
        for (n, player) in players.iter().enumerate() {
            let deck = entrant_deck(&seed, &id, n as i32 + 1, &combined);
            let table = &contest_as(&app, player, &id).await["my_entry"]["table"];
            let dealt = |range: std::ops::Range<usize>| {
                let mut ids: Vec<u8> = deck[range].iter().map(|c| c.id()).collect();
                ids.sort_unstable();
                ids
            };
            assert_eq!(ids(&table["wolf_hand"]), dealt(0..4));
            assert_eq!(ids(&table["player_hand"]), dealt(4..8));
        }
        // Staff see progress, never cards or scores.
        let staff = contest_as(&app, &pit_boss, &id).await;
        assert_eq!(staff["progress"].as_array().unwrap().len(), 3);
        assert!(staff["my_entry"].is_null());
        assert!(!staff.to_string().contains("legal_plays"));

        // A stale play, and a play by someone who did not enter.
        app.post(
            &format!("/api/v1/lobo-contests/{id}/fold"),
            Some(&players[0].token),
            &json!({ "expected_plays": 5 }),
            None,
        )
        .await
        .assert_error(409, "stale_play");
        app.post(
            &format!("/api/v1/lobo-contests/{id}/fold"),
            Some(&poor.token),
            &json!({ "expected_plays": 0 }),
            None,
        )
        .await
        .assert_error(403, "forbidden");

        // Every entrant folds every round of their own deck: the three-way tie picked above.
        let done0 = play_out(&app, &players[0], &id, true).await;
        assert_eq!(done0["status"], "in_play");
        assert_eq!(done0["my_entry"]["finished"], true);
        assert_eq!(done0["finished"], 1);
        assert_private(&done0, &[&players[1], &players[2]]);
        app.post(
            &format!("/api/v1/lobo-contests/{id}/fold"),
            Some(&players[0].token),
            &json!({ "expected_plays": done0["my_entry"]["plays_made"] }),
            None,
        )
        .await
        .assert_error(409, "play_over");
        // The one still playing sees nothing of the finished one.
        let v2 = contest_as(&app, &players[2], &id).await;
        assert_private(&v2, &[&players[0], &players[1]]);
        app.get(&format!("/api/v1/lobo-contests/{id}/recall"), Some(&players[0].token))
            .await
            .assert_error(409, "wrong_contest_state");
        play_out(&app, &players[1], &id, true).await;
        let settled = play_out(&app, &players[2], &id, true).await;

        assert_eq!(settled["status"], "settled");
        assert_eq!(settled["server_seed"].as_str().unwrap().len(), 64);
        let result = &settled["result"];
        assert_eq!(result["pot"], "9.99");
        assert_eq!(result["rake"], "0.74");
        assert_eq!(result["prize_pool"], "9.25");
        let standings = result["standings"].as_array().unwrap();
        let total = done0["my_entry"]["total"].as_i64().unwrap();
        assert!(standings.iter().all(|s| s["total"] == total), "{result}");
        assert_eq!(result["best_total"], total);
        // The odd cent goes to the first to enter.
        let prizes: Vec<&str> = standings.iter().map(|s| s["prize"].as_str().unwrap()).collect();
        assert_eq!(prizes, ["3.09", "3.08", "3.08"]);
        // A player sees their own id in the standings, no other.
        assert_eq!(standings[2]["player_id"], players[2].id.as_str());
        assert_eq!(standings[0]["player_id"], "");

        assert_eq!(app.balance(&players[0].id).await, "99.76");
        assert_eq!(app.balance(&players[1].id).await, "99.75");
        assert_eq!(app.balance(&players[2].id).await, "99.75");
        let tb = app.trial_balance().await;
        assert_eq!(account_minor(&tb, &format!("pot:{id}")), 0);
        assert_eq!(account_minor(&tb, "house:revenue") - revenue_before, 74);

        // The recall: revealed seed, each entrant's deck, everyone's plays, every transfer, all
        // verified.
        let recall = app
            .get(&format!("/api/v1/lobo-contests/{id}/recall"), Some(&players[1].token))
            .await
            .expect(200);
        assert_eq!(recall["verification"]["passed"], true, "{}", recall["verification"]);
        assert!(recall.get("shuffle").is_none());
        let entrants = recall["entrants"].as_array().unwrap();
        assert_eq!(entrants.len(), 3);
        for (n, entrant) in entrants.iter().enumerate() {
            let shuffle = &entrant["shuffle"];
            assert_eq!(shuffle["game"], "lobo");
            assert_eq!(shuffle["round_id"], format!("{id}/{}", n + 1).as_str());
            assert_eq!(shuffle["client_seed"], combined.as_str());
            assert_eq!(shuffle["server_seed"], seed.to_hex().as_str());
            let deck: Vec<u8> = entrant_deck(&seed, &id, n as i32 + 1, &combined)
                .iter()
                .map(|c| c.id())
                .collect();
            assert_eq!(shuffle["deck"], json!(deck));
        }
        assert_ne!(entrants[0]["shuffle"]["deck"], entrants[2]["shuffle"]["deck"]);
        assert!(entrants[0]["player_id"].is_null() && entrants[1]["player_id"] == players[1].id.as_str());
        let kinds: Vec<&str> = recall["transfers"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["kind"].as_str().unwrap())
            .collect();
        assert_eq!(kinds.iter().filter(|k| **k == "contest_entry").count(), 3);
        assert_eq!(kinds.iter().filter(|k| **k == "contest_rake").count(), 1);
        assert_eq!(kinds.iter().filter(|k| **k == "contest_prize").count(), 3);
        let staff_recall = app
            .get(
                &format!("/api/v1/lobo-contests/{id}/recall"),
                Some(&app.auditor().await.token),
            )
            .await
            .expect(200);
        assert_eq!(staff_recall["entrants"][0]["player_id"], players[0].id.as_str());
        app.get(&format!("/api/v1/lobo-contests/{id}/recall"), Some(&poor.token))
            .await
            .assert_error(403, "forbidden");
        let reveals = app.events("seed_revealed").await;
        assert!(reveals.iter().any(|e| e["subject"] == id.as_str()));
    }
);

both_backends!(
    async fn each_entrant_plays_a_deck_of_their_own_and_sees_nothing_of_another(app: TestApp) {
        let table = lobo_table(&app, false);
        let pit_boss = app.create_user(Role::Pitboss).await;
        let first = funded_player(&app, "30.00").await;
        let second = funded_player(&app, "30.00").await;
        let contest = create(&app, &pit_boss, &table, terms("5.00", 500, 2, 2)).await;
        let id = contest["id"].as_str().unwrap().to_string();
        enter(&app, &first, &id, json!({ "client_seed": "north" }), None)
            .await
            .expect(201);
        let full = enter(&app, &second, &id, json!({ "client_seed": "south" }), None)
            .await
            .expect(201);
        assert_eq!(full["status"], "in_play");
        let combined = shuffle::combined_client_seed(&seeds(&["north", "south"]));
        assert_eq!(full["client_seed"], combined.as_str());

        // The two entrants are dealt from two decks: the shuffles of round ids `<id>/1` and
        // `<id>/2` under the one server seed, so their first tables differ.
        let seed = sealed_seed(&app, &id);
        let decks = [
            entrant_deck(&seed, &id, 1, &combined),
            entrant_deck(&seed, &id, 2, &combined),
        ];
        assert_ne!(decks[0], decks[1]);
        let v1 = contest_as(&app, &first, &id).await;
        let v2 = contest_as(&app, &second, &id).await;
        assert_private(&v1, &[&second]);
        assert_private(&v2, &[&first]);
        assert_eq!(v1["my_entry"]["entry_number"], 1);
        assert_eq!(v2["my_entry"]["entry_number"], 2);
        let hand = |deck: &[djego::cards::Card]| {
            let mut ids: Vec<u8> = deck[4..8].iter().map(|c| c.id()).collect();
            ids.sort_unstable();
            ids
        };
        assert_eq!(ids(&v1["my_entry"]["table"]["player_hand"]), hand(&decks[0]));
        assert_eq!(ids(&v2["my_entry"]["table"]["player_hand"]), hand(&decks[1]));
        assert_ne!(
            v1["my_entry"]["table"]["player_hand"],
            v2["my_entry"]["table"]["player_hand"]
        );

        // The first plays out; the second's view shows nothing of it but the count of those
        // finished, and nothing of any deck but their own table.
        play_out(&app, &first, &id, false).await;
        let v2_after = contest_as(&app, &second, &id).await;
        assert_private(&v2_after, &[&first]);
        assert_eq!(v2_after["finished"], 1);
        let mut unchanged = v2_after.clone();
        unchanged["finished"] = v2["finished"].clone();
        assert_eq!(unchanged, v2, "the second's view changed with the first's play");

        let settled = play_out(&app, &second, &id, false).await;
        assert_eq!(settled["status"], "settled");
        assert_eq!(settled["server_seed"], seed.to_hex().as_str());

        // The recall carries each entrant's own shuffle and verifies entrant by entrant.
        let recall = app
            .get(&format!("/api/v1/lobo-contests/{id}/recall"), Some(&second.token))
            .await
            .expect(200);
        let verification = &recall["verification"];
        assert_eq!(verification["passed"], true, "{verification}");
        let names: Vec<&str> = verification["checks"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["name"].as_str().unwrap())
            .collect();
        for name in [
            "seed",
            "entrant_seeds",
            "entry[1].deck",
            "entry[1].deal",
            "entry[1].plays",
        ] {
            assert!(names.contains(&name), "{name} in {names:?}");
        }
        for name in ["entry[2].deck", "entry[2].deal", "entry[2].plays", "transfers"] {
            assert!(names.contains(&name), "{name} in {names:?}");
        }
        for (n, entrant) in recall["entrants"].as_array().unwrap().iter().enumerate() {
            let deck: Vec<u8> = decks[n].iter().map(|c| c.id()).collect();
            assert_eq!(entrant["shuffle"]["round_id"], format!("{id}/{}", n + 1).as_str());
            assert_eq!(entrant["shuffle"]["deck"], json!(deck));
            // Each entrant's transcript is an ordinary Lobo shuffle transcript.
            let t: djego::cards::transcript::ShuffleTranscript =
                serde_json::from_value(entrant["shuffle"].clone()).unwrap();
            assert!(djego::cards::transcript::verify(&t).passed);
        }

        // The independent Python verifier takes the saved recall and runs djego's checks, by
        // name; it refuses a deck with two cards swapped and an entrant shown under another's
        // round id.
        let (ok, reports) = crate::transcripts::python_verdict(&recall.to_string()).await;
        assert!(ok, "verify_round.py refuses the recall: {reports:?}");
        let python_names: Vec<&str> = reports[0]["checks"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["name"].as_str().unwrap())
            .collect();
        assert_eq!(python_names, names);
        let failing = |report: &Value| -> Vec<String> {
            report["checks"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|c| c["passed"] == false)
                .map(|c| c["name"].as_str().unwrap().to_owned())
                .collect()
        };
        let mut swapped = recall.clone();
        let deck = swapped["entrants"][0]["shuffle"]["deck"].as_array_mut().unwrap();
        deck.swap(4, 30);
        let mut renamed = recall.clone();
        renamed["entrants"][1]["shuffle"] = recall["entrants"][0]["shuffle"].clone();
        let both = format!("{swapped}\n{renamed}\n");
        let (ok, reports) = crate::transcripts::python_verdict(&both).await;
        assert!(!ok, "verify_round.py exits 1 when a recall fails");
        assert_eq!(reports.len(), 2);
        assert_eq!(reports[0]["passed"], false);
        assert!(
            failing(&reports[0]).starts_with(&["entry[1].deck".to_owned(), "entry[1].plays".to_owned()]),
            "{:?}",
            failing(&reports[0])
        );
        assert_eq!(reports[1]["passed"], false);
        assert!(
            failing(&reports[1]).contains(&"entry[2].deal".to_owned()),
            "{:?}",
            failing(&reports[1])
        );
        assert!(!failing(&reports[1]).contains(&"entry[2].deck".to_owned()));
    }
);

both_backends!(
    async fn the_best_total_takes_the_pot_and_a_zero_rake_moves_nothing_to_the_house(app: TestApp) {
        let table = lobo_table(&app, false);
        let pit_boss = app.create_user(Role::Pitboss).await;
        let folder = funded_player(&app, "50.00").await;
        let player = funded_player(&app, "50.00").await;
        let revenue_before = account_minor(&app.trial_balance().await, "house:revenue");
        let contest = create(&app, &pit_boss, &table, terms("5.00", 0, 2, 5)).await;
        let id = contest["id"].as_str().unwrap().to_string();
        enter(&app, &folder, &id, json!({}), None).await.expect(201);
        enter(&app, &player, &id, json!({ "client_seed": "mine" }), None)
            .await
            .expect(201);
        // Only a pit boss closes entry early.
        contest_action(&app, &player, &id, "close", json!({}))
            .await
            .assert_error(403, "forbidden");
        let closed = contest_action(&app, &pit_boss, &id, "close", json!({}))
            .await
            .expect(200);
        assert_eq!(closed["status"], "in_play");
        // Settling before the play time is over is refused.
        contest_action(&app, &pit_boss, &id, "settle", json!({}))
            .await
            .assert_error(409, "play_time_left");

        let folded = play_out(&app, &folder, &id, true).await;
        let rounds = folded["my_entry"]["rounds"].as_array().unwrap();
        assert_eq!(rounds.len(), 3);
        assert!(rounds.iter().all(|r| r["score"].as_i64().unwrap() <= 0), "{rounds:?}");
        let settled = play_out(&app, &player, &id, false).await;
        assert_eq!(settled["status"], "settled");
        let standings = settled["result"]["standings"].as_array().unwrap();
        let (t0, t1) = (
            standings[0]["total"].as_i64().unwrap(),
            standings[1]["total"].as_i64().unwrap(),
        );
        let expected: [i64; 2] = match t0.cmp(&t1) {
            std::cmp::Ordering::Greater => [1000, 0],
            std::cmp::Ordering::Less => [0, 1000],
            std::cmp::Ordering::Equal => [500, 500],
        };
        assert_eq!(settled["result"]["rake"], "0.00");
        assert_eq!(app.balance(&folder.id).await, money(5000 - 500 + expected[0]));
        assert_eq!(app.balance(&player.id).await, money(5000 - 500 + expected[1]));
        let tb = app.trial_balance().await;
        assert_eq!(account_minor(&tb, "house:revenue"), revenue_before);
        assert_eq!(account_minor(&tb, &format!("pot:{id}")), 0);
        let recall = app
            .get(&format!("/api/v1/lobo-contests/{id}/recall"), Some(&folder.token))
            .await
            .expect(200);
        assert_eq!(recall["verification"]["passed"], true, "{}", recall["verification"]);
    }
);

both_backends!(
    async fn voids_refund_every_entry(app: TestApp) {
        let table = lobo_table(&app, false);
        let pit_boss = app.create_user(Role::Pitboss).await;
        let a = funded_player(&app, "20.00").await;
        let b = funded_player(&app, "20.00").await;

        // Entry closes with fewer than the minimum: voided, every entry back.
        let short = create(&app, &pit_boss, &table, terms("2.50", 500, 3, 4)).await;
        let short_id = short["id"].as_str().unwrap().to_string();
        enter(&app, &a, &short_id, json!({ "client_seed": "a" }), None)
            .await
            .expect(201);
        enter(&app, &b, &short_id, json!({}), None).await.expect(201);
        let closed = contest_action(&app, &pit_boss, &short_id, "close", json!({}))
            .await
            .expect(200);
        assert_eq!(closed["status"], "voided");
        assert_eq!(closed["server_seed"].as_str().unwrap().len(), 64);
        assert_eq!(app.balance(&a.id).await, "20.00");
        assert_eq!(app.balance(&b.id).await, "20.00");
        let recall = app
            .get(&format!("/api/v1/lobo-contests/{short_id}/recall"), Some(&a.token))
            .await
            .expect(200);
        assert_eq!(recall["verification"]["passed"], true, "{}", recall["verification"]);

        // A pit boss voids a contest in play, with a reason: every entry back, seed revealed.
        let contest = create(&app, &pit_boss, &table, terms("4.00", 1000, 2, 2)).await;
        let id = contest["id"].as_str().unwrap().to_string();
        enter(&app, &a, &id, json!({}), None).await.expect(201);
        let full = enter(&app, &b, &id, json!({}), None).await.expect(201);
        assert_eq!(full["status"], "in_play");
        app.post(
            &format!("/api/v1/lobo-contests/{id}/fold"),
            Some(&a.token),
            &json!({ "expected_plays": 0 }),
            None,
        )
        .await
        .expect(200);
        let path = format!("/api/v1/lobo-contests/{id}/void");
        app.post(&path, Some(&a.token), &json!({ "reason": "mine" }), None)
            .await
            .assert_error(403, "forbidden");
        app.post(&path, Some(&pit_boss.token), &json!({ "reason": "  " }), None)
            .await
            .assert_error(400, "invalid_reason");
        let voided = app
            .post(
                &path,
                Some(&pit_boss.token),
                &json!({ "reason": "dealer error" }),
                Some("void-1"),
            )
            .await
            .expect(200);
        assert_eq!(voided["status"], "voided");
        let replayed = app
            .post(
                &path,
                Some(&pit_boss.token),
                &json!({ "reason": "dealer error" }),
                Some("void-1"),
            )
            .await
            .expect(200);
        assert_eq!(voided, replayed);
        app.post(&path, Some(&pit_boss.token), &json!({ "reason": "again" }), None)
            .await
            .assert_error(409, "wrong_contest_state");
        assert_eq!(app.balance(&a.id).await, "20.00");
        assert_eq!(app.balance(&b.id).await, "20.00");
        assert_eq!(account_minor(&app.trial_balance().await, &format!("pot:{id}")), 0);
        app.post(
            &format!("/api/v1/lobo-contests/{id}/fold"),
            Some(&b.token),
            &json!({ "expected_plays": 0 }),
            None,
        )
        .await
        .assert_error(409, "wrong_contest_state");
        let recall = app
            .get(&format!("/api/v1/lobo-contests/{id}/recall"), Some(&b.token))
            .await
            .expect(200);
        assert_eq!(recall["verification"]["passed"], true, "{}", recall["verification"]);
        let voids = app.events("round_voided").await;
        assert!(voids.iter().any(|e| e["subject"] == id.as_str()));
    }
);

/// One pass of the contest sweep as if the clock read `ahead_s` seconds from now.
async fn sweep_ahead(app: &TestApp, ahead_s: i64) -> Vec<String> {
    let (db, vault) = (app.state.db.clone(), app.state.vault.clone());
    tokio::task::spawn_blocking(move || {
        djego::rounds::lobo_timeouts::advance_contests(&db, &vault, djego::store::now_us() + ahead_s * 1_000_000)
            .into_iter()
            .map(|view| view.id)
            .collect()
    })
    .await
    .expect("the sweep ran")
}

both_backends!(
    async fn the_clock_closes_entry_and_settles_folding_whoever_is_still_playing(app: TestApp) {
        let table = lobo_table(&app, false);
        let pit_boss = app.create_user(Role::Pitboss).await;
        let finisher = funded_player(&app, "20.00").await;
        let walker = funded_player(&app, "20.00").await;
        let contest = create(&app, &pit_boss, &table, terms("2.00", 500, 2, 10)).await;
        let id = contest["id"].as_str().unwrap().to_string();
        enter(&app, &finisher, &id, json!({}), None).await.expect(201);
        enter(&app, &walker, &id, json!({}), None).await.expect(201);
        assert!(sweep_ahead(&app, 0).await.is_empty());
        // The entry window (600 s) runs out: entry closes, play begins.
        assert_eq!(sweep_ahead(&app, 601).await, vec![id.clone()]);
        assert_eq!(contest_as(&app, &finisher, &id).await["status"], "in_play");
        play_out(&app, &finisher, &id, false).await;
        // The play time (600 s after the close) runs out: the silent entrant's rounds are folded.
        assert!(sweep_ahead(&app, 30).await.is_empty());
        assert_eq!(sweep_ahead(&app, 1300).await, vec![id.clone()]);
        let settled = contest_as(&app, &walker, &id).await;
        assert_eq!(settled["status"], "settled");
        let standings = settled["result"]["standings"].as_array().unwrap();
        assert_eq!(standings[1]["stopped"], true);
        assert_eq!(standings[0]["stopped"], false);
        assert_eq!(settled["my_entry"]["stopped"], true);
        assert!(settled["my_entry"]["rounds"]
            .as_array()
            .unwrap()
            .iter()
            .all(|r| r["dealt"] == true && r["score"].as_i64().unwrap() <= 0));
        let paid: i64 = standings.iter().map(|s| minor(s["prize"].as_str().unwrap())).sum();
        assert_eq!(paid, 400 - 20);
        assert_eq!(account_minor(&app.trial_balance().await, &format!("pot:{id}")), 0);
        let stopped = app.events("contest_entrant_stopped").await;
        assert!(stopped.iter().any(|e| e["subject"] == id.as_str()));
        let recall = app
            .get(&format!("/api/v1/lobo-contests/{id}/recall"), Some(&walker.token))
            .await
            .expect(200);
        assert_eq!(recall["verification"]["passed"], true, "{}", recall["verification"]);
    }
);

both_backends!(
    async fn contest_options_are_checked(app: TestApp) {
        let table = lobo_table(&app, false);
        let pit_boss = app.create_user(Role::Pitboss).await;
        let path = format!("/api/v1/tables/{table}/lobo-contests");
        let post = |body: Value| {
            let token = pit_boss.token.clone();
            let path = path.clone();
            let app = &app;
            async move { app.post(&path, Some(&token), &body, None).await }
        };
        post(terms("1.00", 2001, 2, 3)).await.assert_error(400, "invalid_body");
        post(terms("1.00", 500, 3, 2))
            .await
            .assert_error(422, "invalid_contest_option");
        post(terms("1.00", 500, 1, 2))
            .await
            .assert_error(422, "invalid_contest_option");
        post(terms("0.00", 500, 2, 3)).await.assert_error(400, "invalid_body");
        let player = funded_player(&app, "1.00").await;
        app.post(&path, Some(&player.token), &terms("1.00", 500, 2, 3), None)
            .await
            .assert_error(403, "forbidden");
        app.get("/api/v1/lobo-contests/not-an-id", Some(&player.token))
            .await
            .assert_error(404, "not_found");
    }
);

both_backends!(
    async fn a_tables_watchers_see_its_contests_and_no_entrants_cards(app: TestApp) {
        let table = lobo_table(&app, false);
        let pit_boss = app.create_user(Role::Pitboss).await;
        let a = funded_player(&app, "100.00").await;
        let b = funded_player(&app, "100.00").await;
        // On PostgreSQL the watcher is on another instance: the change crosses over.
        let other = match app.backend {
            crate::helpers::Backend::Postgres => Some(crate::lobo::same_casino(&app, |_| {}).await),
            crate::helpers::Backend::Sqlite => None,
        };
        let watcher = other.as_ref().unwrap_or(&app);
        let (mut stream, mut seen) = crate::lobo::watch_table(watcher, &table, &pit_boss.token).await;
        let contest = create(&app, &pit_boss, &table, terms("5.00", 500, 2, 2)).await;
        let id = contest["id"].as_str().unwrap().to_string();
        crate::lobo::read_until(&mut stream, &mut seen, |t| {
            t.contains("event: lobo_contest") && t.contains(&id)
        })
        .await;
        enter(&app, &a, &id, json!({ "client_seed": "a" }), None)
            .await
            .expect(201);
        crate::lobo::read_until(&mut stream, &mut seen, |t| t.contains("\"entrants\":1")).await;
        // The last seat closes entry: play begins, and still nothing of anyone's deck is shown.
        enter(&app, &b, &id, json!({}), None).await.expect(201);
        crate::lobo::read_until(&mut stream, &mut seen, |t| t.contains("\"status\":\"in_play\"")).await;
        assert!(
            !seen.contains("\"my_entry\":{") && !seen.contains("\"shuffle\""),
            "{seen}"
        );
        assert!(!seen.contains("\"server_seed\":\""), "{seen}");
        assert!(
            !seen.contains(&a.id) && !seen.contains(&b.id),
            "watchers are not told who entered: {seen}"
        );

        // A watcher who arrives now finds the contest in play in the table's first state, as any
        // watcher sees it; one that is over is not listed.
        let over = create(&app, &pit_boss, &table, terms("1.00", 0, 2, 2)).await;
        let over_id = over["id"].as_str().unwrap();
        contest_action(
            &app,
            &pit_boss,
            &over_id,
            "void",
            json!({ "reason": "opened by mistake" }),
        )
        .await
        .expect(200);
        let (mut late, mut first) = crate::lobo::watch_table(watcher, &table, &pit_boss.token).await;
        crate::lobo::read_until(&mut late, &mut first, |t| {
            t.split("event: state\n")
                .nth(1)
                .is_some_and(|rest| rest.contains("\n\n"))
        })
        .await;
        let data = first
            .split("event: state\ndata: ")
            .nth(1)
            .unwrap()
            .split('\n')
            .next()
            .unwrap();
        let state: Value = serde_json::from_str(data).unwrap();
        let contests = state["contests"].as_array().unwrap();
        assert_eq!(contests.len(), 1, "{state}");
        assert_eq!(contests[0]["id"], id.as_str());
        assert_eq!(contests[0]["status"], "in_play");
        assert_eq!(contests[0]["entrants"], 2);
        assert!(contests[0]["my_entry"].is_null() && contests[0]["progress"].is_null());
        assert!(!data.contains(&a.id) && !data.contains(&b.id), "{data}");
    }
);

/// The caller's own rounds that are Lobo contests, in the list they are in.
async fn my_contests(app: &TestApp, player: &TestUser) -> (Vec<Value>, Vec<Value>) {
    let mine = app.get("/api/v1/me/rounds", Some(&player.token)).await.expect(200);
    let contests = |list: &str| -> Vec<Value> {
        mine[list]
            .as_array()
            .unwrap()
            .iter()
            .filter(|r| r["game"] == "lobo_contest")
            .cloned()
            .collect()
    };
    (contests("open"), contests("recent"))
}

fn round_ids(rounds: &[Value]) -> Vec<&str> {
    rounds.iter().map(|r| r["round_id"].as_str().unwrap()).collect()
}

both_backends!(
    async fn a_players_own_rounds_list_the_contests_they_entered(app: TestApp) {
        let table = lobo_table(&app, false);
        let pit_boss = app.create_user(Role::Pitboss).await;
        let a = funded_player(&app, "50.00").await;
        let b = funded_player(&app, "50.00").await;
        let outsider = funded_player(&app, "50.00").await;
        let first = create(&app, &pit_boss, &table, terms("2.00", 500, 2, 2)).await;
        let first_id = first["id"].as_str().unwrap().to_string();
        let second = create(&app, &pit_boss, &table, terms("3.00", 500, 2, 3)).await;
        let second_id = second["id"].as_str().unwrap().to_string();
        enter(&app, &a, &first_id, json!({}), None).await.expect(201);
        enter(&app, &a, &second_id, json!({}), None).await.expect(201);

        // Entry open: both listed as open, newest first, each with its table and status.
        let (open, recent) = my_contests(&app, &a).await;
        assert_eq!(round_ids(&open), [second_id.as_str(), first_id.as_str()], "{open:?}");
        assert!(recent.is_empty(), "{recent:?}");
        let listed = &open[1];
        assert_eq!(listed["table_id"], table.as_str());
        assert_eq!(listed["status"], "entry");
        assert!(listed["number"].is_null(), "contests are not numbered: {listed}");
        let (created, updated) = (
            listed["created_at_us"].as_i64().unwrap(),
            listed["updated_at_us"].as_i64().unwrap(),
        );
        assert!(created > 0 && updated >= created, "{listed}");
        // Someone who did not enter sees neither.
        let mine = app.get("/api/v1/me/rounds", Some(&outsider.token)).await.expect(200);
        assert_eq!(mine, json!({ "open": [], "recent": [] }));

        // The last seat closes entry: still open while play goes on.
        enter(&app, &b, &first_id, json!({}), None).await.expect(201);
        let (open, _) = my_contests(&app, &a).await;
        assert_eq!(open[1]["status"], "in_play", "{open:?}");
        assert!(open[1]["updated_at_us"].as_i64().unwrap() >= updated);
        let (open_b, _) = my_contests(&app, &b).await;
        assert_eq!(round_ids(&open_b), [first_id.as_str()]);

        // Settled: recent, for both entrants.
        play_out(&app, &a, &first_id, true).await;
        let settled = play_out(&app, &b, &first_id, true).await;
        assert_eq!(settled["status"], "settled");
        let (open, recent) = my_contests(&app, &a).await;
        assert_eq!(round_ids(&open), [second_id.as_str()]);
        assert_eq!(round_ids(&recent), [first_id.as_str()]);
        assert_eq!(recent[0]["status"], "settled");
        let (open_b, recent_b) = my_contests(&app, &b).await;
        assert!(open_b.is_empty());
        assert_eq!(round_ids(&recent_b), [first_id.as_str()]);

        // Voided: recent too, newest first.
        contest_action(&app, &pit_boss, &second_id, "void", json!({ "reason": "table moved" }))
            .await
            .expect(200);
        let (open, recent) = my_contests(&app, &a).await;
        assert!(open.is_empty(), "{open:?}");
        assert_eq!(round_ids(&recent), [second_id.as_str(), first_id.as_str()]);
        assert_eq!(recent[0]["status"], "voided");
        let mine = app.get("/api/v1/me/rounds", Some(&outsider.token)).await.expect(200);
        assert_eq!(mine, json!({ "open": [], "recent": [] }));
    }
);

/// Moves the contest's clock on by `seconds`, as if they had passed: its entry window, or its
/// play time once entry has closed.
fn run_clock(app: &TestApp, contest: &str, seconds: i64) {
    use diesel::RunQueryDsl;
    let shift = seconds * 1_000_000;
    let n = app
        .state
        .db
        .write(|conn| -> Result<usize, djego::store::StoreError> {
            Ok(diesel::sql_query(format!(
                "UPDATE lobo_contests SET entry_closes_at_us = entry_closes_at_us - {shift}, \
                 play_closes_at_us = play_closes_at_us - {shift} WHERE id = '{contest}'"
            ))
            .execute(conn)?)
        })
        .expect("the contest's clock moved on");
    assert_eq!(n, 1);
}

/// The `lobo_contest` events about `contest` the stream has sent so far.
fn contest_events(seen: &str, contest: &str) -> Vec<Value> {
    let mut events = Vec::new();
    let mut name = "";
    for line in seen.lines() {
        if let Some(n) = line.strip_prefix("event: ") {
            name = n;
        } else if let Some(data) = line.strip_prefix("data: ") {
            if name == "lobo_contest" {
                if let Ok(v) = serde_json::from_str::<Value>(data) {
                    if v["id"] == contest {
                        events.push(v);
                    }
                }
            }
        }
    }
    events
}

both_backends!(
    async fn the_sweeps_changes_are_sent_live_as_a_watcher_sees_them(app: TestApp) {
        let table = lobo_table(&app, false);
        let pit_boss = app.create_user(Role::Pitboss).await;
        let a = funded_player(&app, "20.00").await;
        let b = funded_player(&app, "20.00").await;
        // The sweep runs on its own on a second instance, every 100 ms; on PostgreSQL the
        // watcher is on the first instance, so the sweep's changes cross over.
        let sweeping = crate::lobo::same_casino(&app, |s| s.lobo_timeout_sweep_ms = 100).await;
        let watched = match app.backend {
            crate::helpers::Backend::Postgres => &app,
            crate::helpers::Backend::Sqlite => &sweeping,
        };
        let (mut stream, mut seen) = crate::lobo::watch_table(watched, &table, &pit_boss.token).await;

        // The shortest entry window and play time a contest may have.
        let short = json!({ "entry_fee": "2.00", "rake_basis_points": 500, "min_players": 2,
            "max_players": 10, "entry_seconds": 30, "play_seconds": 60 });
        let contest = create(&app, &pit_boss, &table, short.clone()).await;
        let id = contest["id"].as_str().unwrap().to_string();
        let lonely = create(&app, &pit_boss, &table, short).await;
        let lonely_id = lonely["id"].as_str().unwrap().to_string();
        enter(&app, &a, &id, json!({ "client_seed": "a" }), None)
            .await
            .expect(201);
        enter(&app, &b, &id, json!({}), None).await.expect(201);
        enter(&app, &a, &lonely_id, json!({}), None).await.expect(201);

        // The entry windows run out: the sweep closes one and voids the other (one entrant of
        // the two needed), and the watcher is told of both.
        run_clock(&app, &id, 31);
        run_clock(&app, &lonely_id, 31);
        crate::lobo::read_until(&mut stream, &mut seen, |s| {
            contest_events(s, &id).iter().any(|v| v["status"] == "in_play")
                && contest_events(s, &lonely_id).iter().any(|v| v["status"] == "voided")
        })
        .await;
        let closed = contest_events(&seen, &id)
            .into_iter()
            .find(|v| v["status"] == "in_play")
            .unwrap();
        assert_eq!(closed["entrants"], 2, "{closed}");
        assert!(
            closed["client_seed"].is_string() && closed["play_closes_at_us"].is_i64(),
            "{closed}"
        );
        assert!(closed["server_seed"].is_null(), "{closed}");
        let voided = contest_events(&seen, &lonely_id).pop().unwrap();
        assert_eq!(voided["status"], "voided");
        assert_eq!(voided["server_seed"].as_str().unwrap().len(), 64, "{voided}");
        assert_eq!(app.balance(&a.id).await, "18.00", "the lonely entry refunded");

        // One entrant plays out; the play time runs out: the sweep folds the other and settles,
        // and the watcher is told, the standings without anyone's id.
        play_out(&app, &a, &id, false).await;
        run_clock(&app, &id, 61);
        crate::lobo::read_until(&mut stream, &mut seen, |s| {
            contest_events(s, &id).iter().any(|v| v["status"] == "settled")
        })
        .await;
        let settled = contest_events(&seen, &id).pop().unwrap();
        assert_eq!(settled["status"], "settled", "{settled}");
        assert_eq!(settled["server_seed"].as_str().unwrap().len(), 64);
        let standings = settled["result"]["standings"].as_array().unwrap();
        assert_eq!(standings.len(), 2);
        assert_eq!(standings[1]["stopped"], true, "{settled}");
        assert!(standings.iter().all(|s| s["player_id"] == ""), "{settled}");
        // Nothing of any entrant's cards, deck or id in anything the stream sent.
        assert!(
            !seen.contains("\"my_entry\":{") && !seen.contains("\"shuffle\"") && !seen.contains("\"deck\""),
            "{seen}"
        );
        assert!(!seen.contains(&a.id) && !seen.contains(&b.id), "{seen}");
        assert_eq!(contest_as(&app, &b, &id).await["status"], "settled");
        drop(sweeping);
    }
);

both_backends!(
    async fn the_auditors_export_carries_every_contest_that_ended_and_each_line_verifies(app: TestApp) {
        let table = lobo_table(&app, false);
        let pit_boss = app.create_user(Role::Pitboss).await;
        let a = funded_player(&app, "50.00").await;
        let b = funded_player(&app, "50.00").await;
        let from_us = djego::store::now_us();

        // A contest played to its settlement, …
        let settled = create(&app, &pit_boss, &table, terms("3.00", 500, 2, 2)).await;
        let settled_id = settled["id"].as_str().unwrap().to_string();
        enter(&app, &a, &settled_id, json!({ "client_seed": "a" }), None)
            .await
            .expect(201);
        enter(&app, &b, &settled_id, json!({}), None).await.expect(201);
        play_out(&app, &a, &settled_id, true).await;
        assert_eq!(play_out(&app, &b, &settled_id, false).await["status"], "settled");
        // … a Lobo round of the same table, folded at once, …
        let round = crate::lobo::start(&app, &a, &table, json!({ "unit": "1.00" }))
            .await
            .expect(201);
        let round_id = round["id"].as_str().unwrap().to_string();
        if round["status"] == "in_play" {
            crate::lobo::fold_at_once(&app, &a, &round_id).await.expect(200);
        }
        // … a contest voided short of entrants, and one still taking entries.
        let voided = create(&app, &pit_boss, &table, terms("1.00", 0, 2, 3)).await;
        let voided_id = voided["id"].as_str().unwrap().to_string();
        enter(&app, &a, &voided_id, json!({}), None).await.expect(201);
        let closed = contest_action(&app, &pit_boss, &voided_id, "close", json!({}))
            .await
            .expect(200);
        assert_eq!(closed["status"], "voided");
        let open = create(&app, &pit_boss, &table, terms("1.00", 0, 2, 3)).await;
        enter(&app, &b, open["id"].as_str().unwrap(), json!({}), None)
            .await
            .expect(201);
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
        // In the order they ended; the contest still open is not there.
        let ended: Vec<&str> = lines
            .iter()
            .map(|l| l["contest"]["id"].as_str().or(l["round_id"].as_str()).unwrap())
            .collect();
        assert_eq!(ended, [settled_id.as_str(), round_id.as_str(), voided_id.as_str()]);
        assert_eq!(lines[0]["contest"]["status"], "settled");
        assert_eq!(lines[0]["entrants"].as_array().unwrap().len(), 2);
        assert_eq!(lines[0]["verification"]["passed"], true, "{}", lines[0]["verification"]);
        assert_eq!(lines[1]["game"], "lobo");
        assert_eq!(lines[2]["contest"]["status"], "voided");
        // Staff read who entered, as in the recall a pit boss or an auditor asks for.
        assert_eq!(lines[0]["entrants"][0]["player_id"], a.id.as_str());
        // Paged through one order across rounds and contests.
        let page = app
            .get(
                &format!("/api/v1/audit/transcripts?from_us={from_us}&to_us={to_us}&limit=1&offset=2"),
                Some(&auditor),
            )
            .await;
        assert_eq!(page.status, 200, "{}", page.text);
        assert_eq!(page.text.lines().count(), 1);
        assert!(page.text.contains(&voided_id));

        // `djego verify rounds` and the independent verifier replay the file, contests included,
        // and both refuse it once a settled contest's prize is doctored.
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
        assert!(printed.contains("3 of 3 rounds verified, 0 failed"), "{printed}");
        let python = |path: &std::path::Path| {
            let script = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/verify/verify_round.py");
            std::process::Command::new("python3")
                .arg(script)
                .arg(path)
                .output()
                .unwrap()
        };
        let out = python(file.path());
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stdout));

        let mut doctored = lines.clone();
        let prize = doctored[0]["transfers"]
            .as_array_mut()
            .unwrap()
            .iter_mut()
            .find(|t| t["kind"] == "contest_prize")
            .expect("a prize");
        prize["amount"] = json!(money(minor(prize["amount"].as_str().unwrap()) + 1));
        let text: String = doctored.iter().map(|l| format!("{l}\n")).collect();
        std::fs::write(file.path(), text).unwrap();
        let out = verify_rounds(file.path());
        let printed = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(1), "{printed}");
        assert!(
            printed.contains(&format!("line 1: lobo_contest round {settled_id}: FAIL transfers")),
            "{printed}"
        );
        assert!(printed.contains("2 of 3 rounds verified, 1 failed"), "{printed}");
        assert_eq!(python(file.path()).status.code(), Some(1));
    }
);
