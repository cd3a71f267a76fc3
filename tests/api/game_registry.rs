//! Every game in the registry through every concern that cuts across games: the screens' list
//! of games names it; a round of it still going appears in the player's rounds, is named as
//! unfinished by the gaming day and stops the day's close; once ended, the floor counts it at
//! its table. A game added to the registry without a way to play it here does not compile
//! (the matches below are exhaustive), and one that misses a concern fails.

use serde_json::json;

use djego::game_registry::{self, Game};

use crate::helpers::{TestApp, TestUser};
use crate::prima_carta::{casino, create_round, s, seat, Casino, TableOptions};

/// The people and tables of one casino, a table for each game.
pub(crate) struct Floor {
    pub(crate) pc: Casino,
    pub(crate) player: TestUser,
    pub(crate) peg_leg_table: String,
    pub(crate) lobo_table: String,
}

impl Floor {
    pub(crate) fn pitboss(&self) -> &TestUser {
        &self.pc.pitboss
    }

    pub(crate) fn table_of(&self, game: Game) -> &str {
        match game {
            Game::PrimaCarta => &self.pc.table,
            Game::PegLeg => &self.peg_leg_table,
            Game::Lobo | Game::LoboContest => &self.lobo_table,
        }
    }
}

/// A casino with a table of every game, a dealer at the dealt ones and a funded player.
pub(crate) async fn floor(app: &TestApp) -> Floor {
    let pc = casino(
        app,
        TableOptions {
            players: 1,
            ..Default::default()
        },
    )
    .await;
    let player = pc.players[0].clone();
    let name = format!("Peg Leg {}", &uuid::Uuid::new_v4().simple().to_string()[..8]);
    let config = json!({ "game": "peg_leg", "min_bet": "1.00", "max_bet": "50.00",
        "max_exposure_per_round": "120.00", "betting_window_ms": 0 });
    let table = app
        .create_table(&pc.pitboss, &json!({ "name": name, "config": config }))
        .await;
    let peg_leg_table = s(&table["id"]).to_owned();
    app.put(
        &format!("/api/v1/tables/{peg_leg_table}/dealers/{}", pc.dealer.id),
        Some(&pc.pitboss.token),
        &json!({}),
        None,
    )
    .await
    .expect(200);
    app.post(
        &format!("/api/v1/tables/{peg_leg_table}/open"),
        Some(&pc.pitboss.token),
        &json!({}),
        None,
    )
    .await
    .expect(200);
    let lobo_table = crate::lobo::lobo_table(app, false);
    Floor {
        pc,
        player,
        peg_leg_table,
        lobo_table,
    }
}

/// Starts a round of `game` holding some of the player's money, and leaves it going: its id.
pub(crate) async fn round_left_going(app: &TestApp, f: &Floor, game: Game) -> String {
    match game {
        Game::PrimaCarta => {
            let round = create_round(app, &f.pc).await;
            let id = s(&round["id"]).to_owned();
            seat(app, &f.player, &id, "crowns", None).await.expect(201);
            app.post(
                &format!("/api/v1/rounds/{id}/bets"),
                Some(&f.player.token),
                &json!({ "kind": "prima", "suit": "crowns", "amount": "2.00" }),
                None,
            )
            .await
            .expect(201);
            id
        }
        Game::PegLeg => {
            let bet = peg_leg_bet_after_the_first_card(app, f).await;
            app.post(&bet.0, Some(&f.player.token), &bet.1, None).await.expect(201);
            bet.2
        }
        Game::Lobo => {
            for _ in 0..10 {
                let round = crate::lobo::start(app, &f.player, &f.lobo_table, json!({ "unit": "1.00" }))
                    .await
                    .expect(201);
                if round["status"] == "in_play" {
                    return s(&round["id"]).to_owned();
                }
            }
            panic!("ten Lobo deals in a row ended at once")
        }
        Game::LoboContest => {
            let id = contest_taking_entries(app, f).await;
            app.post(
                &format!("/api/v1/lobo-contests/{id}/entries"),
                Some(&f.player.token),
                &json!({}),
                None,
            )
            .await
            .expect(201);
            id
        }
    }
}

/// A Peg Leg round the dealer opened and dealt a card of: where to bet on it, a bet of 2.00 on
/// a count its quote offers, and the round's id.
pub(crate) async fn peg_leg_bet_after_the_first_card(app: &TestApp, f: &Floor) -> (String, serde_json::Value, String) {
    let round = app
        .post(
            &format!("/api/v1/tables/{}/peg-leg-rounds", f.peg_leg_table),
            Some(&f.pc.dealer.token),
            &json!({}),
            None,
        )
        .await
        .expect(201);
    let id = s(&round["id"]).to_owned();
    let dealt = app
        .post(
            &format!("/api/v1/peg-leg-rounds/{id}/deal"),
            Some(&f.pc.dealer.token),
            &json!({}),
            None,
        )
        .await
        .expect(200);
    let quote = &dealt["round"]["quote"];
    let count = quote["counts"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["multiplier"].is_string())
        .unwrap_or_else(|| panic!("a count is offered after the first card: {dealt}"))["count"]
        .clone();
    let body = json!({ "quote_id": quote["id"], "count": count, "stake": "2.00" });
    (format!("/api/v1/peg-leg-rounds/{id}/bets"), body, id)
}

/// A Lobo contest a pit boss created at the Lobo table, taking entries: its id.
pub(crate) async fn contest_taking_entries(app: &TestApp, f: &Floor) -> String {
    let terms = json!({ "entry_fee": "2.50", "rake_basis_points": 500, "min_players": 2,
        "max_players": 4, "entry_seconds": 600, "play_seconds": 600 });
    let contest = app
        .post(
            &format!("/api/v1/tables/{}/lobo-contests", f.lobo_table),
            Some(&f.pitboss().token),
            &terms,
            None,
        )
        .await
        .expect(201);
    s(&contest["id"]).to_owned()
}

/// Where a round of `game` is recalled, one at a time.
pub(crate) fn recall_path(game: Game, id: &str) -> String {
    match game {
        Game::PrimaCarta => format!("/api/v1/rounds/{id}/recall"),
        Game::PegLeg => format!("/api/v1/peg-leg-rounds/{id}/recall"),
        Game::Lobo => format!("/api/v1/lobo-rounds/{id}/recall"),
        Game::LoboContest => format!("/api/v1/lobo-contests/{id}/recall"),
    }
}

/// Voids a round of `game` (a pit boss, with a reason where the game takes one).
pub(crate) async fn void(app: &TestApp, f: &Floor, game: Game, id: &str) {
    let reason = json!({ "reason": "the gaming day's cut-off came first" });
    let (path, body) = match game {
        Game::PrimaCarta => (format!("/api/v1/rounds/{id}/void"), reason),
        Game::PegLeg => (format!("/api/v1/peg-leg-rounds/{id}/void"), reason),
        Game::Lobo => (format!("/api/v1/lobo-rounds/{id}/void"), reason),
        Game::LoboContest => (format!("/api/v1/lobo-contests/{id}/void"), reason),
    };
    let voided = app.post(&path, Some(&f.pitboss().token), &body, None).await.expect(200);
    assert_eq!(voided["status"], "voided", "{game:?}: {voided}");
}

both_backends!(
    async fn every_game_is_named_listed_held_to_the_day_close_exported_verified_and_counted_by_the_floor(app: TestApp) {
        // The screens' list of games is the registry, each by its name.
        let listed = app.get("/api/v1/games", None).await.expect(200);
        let listed = listed.as_array().unwrap();
        assert_eq!(listed.len(), Game::ALL.len(), "{listed:?}");
        for (entry, shown) in game_registry::games().zip(listed) {
            assert_eq!(shown["game"], entry.game.id());
            assert_eq!(shown["name"], entry.name);
            assert_ne!(shown["name"], shown["game"], "people read a name, not an id");
            assert_eq!(shown["table_game"], entry.table_game);
        }

        let f = floor(&app).await;
        let from_us = djego::store::now_us();
        let mut going = Vec::new();
        for game in Game::ALL {
            going.push((game, round_left_going(&app, &f, game).await));
        }

        // The player finds each in their rounds, by its game.
        let mine = app.get("/api/v1/me/rounds", Some(&f.player.token)).await.expect(200);
        for (game, id) in &going {
            let listed = mine["open"]
                .as_array()
                .unwrap()
                .iter()
                .find(|r| r["round_id"] == id.as_str());
            let listed =
                listed.unwrap_or_else(|| panic!("{game:?} round {id} not among the player's open rounds: {mine}"));
            assert_eq!(listed["game"], game.id());
            assert_eq!(listed["table_id"], f.table_of(*game));
        }

        // The gaming day ends with every one of them still going: each is named, and the day stays open.
        let at = chrono::Utc::now() + chrono::Duration::seconds(2);
        let starts = at.format("%H:%M:%S").to_string();
        // In force since ever: a change through the API would wait for the next gaming day.
        app.install_calendar(
            &json!({ "timezone": "UTC", "day_starts_at": starts, "shifts": [{ "name": "all", "starts_at": starts }] }),
        );
        let calendar = app
            .get("/api/v1/floor/calendar", Some(&f.pitboss().token))
            .await
            .expect(200);
        let day = s(&calendar["now"]["gaming_day"]).to_owned();
        let ends_at_us = calendar["now"]["day_ends_at_us"].as_i64().unwrap();
        let wait_us = ends_at_us - chrono::Utc::now().timestamp_micros();
        assert!(wait_us > 0, "the machine is too slow for this test");
        tokio::time::sleep(std::time::Duration::from_micros(wait_us as u64 + 50_000)).await;
        let close = format!("/api/v1/floor/days/{day}/close");
        let refused = app.post(&close, Some(&f.pitboss().token), &json!({}), None).await;
        refused.assert_error(409, "unfinished_rounds");
        let view = app
            .get(&format!("/api/v1/floor/days/{day}"), Some(&f.pitboss().token))
            .await
            .expect(200);
        let unfinished = view["unfinished_rounds"].as_array().unwrap();
        for (game, id) in &going {
            assert!(
                refused.text.contains(id.as_str()),
                "{game:?}: the refusal names round {id}: {}",
                refused.text
            );
            let named = unfinished.iter().find(|u| u["round_id"] == id.as_str());
            let named = named.unwrap_or_else(|| panic!("{game:?} round {id} not among the unfinished: {view}"));
            assert_eq!(named["game"], game.id());
        }

        // Ended, each is counted at its table on the day it ended, and the day closes.
        for (game, id) in &going {
            void(&app, &f, *game, id).await;
        }
        app.post(&close, Some(&f.pitboss().token), &json!({}), None)
            .await
            .expect(201);

        // The auditor's export carries each, and both verifiers replay every line of it.
        let to_us = djego::store::now_us() + 1;
        let auditor = app.auditor().await.token.clone();
        let export = app
            .get(
                &format!("/api/v1/audit/transcripts?from_us={from_us}&to_us={to_us}"),
                Some(&auditor),
            )
            .await;
        assert_eq!(export.status, 200, "{}", export.text);
        assert_eq!(export.text.lines().count(), Game::ALL.len(), "{}", export.text);
        for (game, id) in &going {
            assert!(
                export.text.contains(id.as_str()),
                "{game:?}: round {id} not exported: {}",
                export.text
            );
        }
        let file = tempfile::NamedTempFile::new().unwrap();
        std::fs::write(file.path(), &export.text).unwrap();
        let path = file.path().to_path_buf();
        let out = tokio::task::spawn_blocking(move || {
            std::process::Command::new(env!("CARGO_BIN_EXE_djego"))
                .args(["verify", "rounds"])
                .arg(&path)
                .output()
                .unwrap()
        })
        .await
        .unwrap();
        let printed = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "{printed}{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let all = Game::ALL.len();
        assert!(
            printed.contains(&format!("{all} of {all} rounds verified, 0 failed")),
            "{printed}"
        );
        let (ok, reports) = crate::transcripts::python_verdict(&export.text).await;
        assert!(ok, "verify_round.py refuses the export: {reports:?}");
        assert_eq!(reports.len(), all);

        // Recalled on its own, each proves its transfers against the signed ledger, under the
        // casino's pinned key, in both verifiers.
        let key = app.state.settings.checkpoint_key.public_key().to_hex();
        for (game, id) in &going {
            let recall = app.get(&recall_path(*game, id), Some(&auditor)).await.expect(200);
            let doc = if recall["transcript"].is_object() {
                recall["transcript"].clone()
            } else {
                recall.clone()
            };
            assert!(doc["ledger_proof"].is_object(), "{game:?}: no ledger proof: {recall}");
            let (rust, python, report) = crate::transparency_log::verify_pinned(&doc, &key).await;
            assert!(rust && python, "{game:?}: {report}");
            let last = report["checks"].as_array().unwrap().last().unwrap().clone();
            assert_eq!(last["name"], "ledger_proof", "{game:?}: {report}");
            if !recall["verification"].is_null() {
                let served = recall["verification"]["checks"]
                    .as_array()
                    .unwrap()
                    .last()
                    .unwrap()
                    .clone();
                assert_eq!(
                    served["name"], "ledger_proof",
                    "{game:?}: the served verification checks it too"
                );
                assert_eq!(served["passed"], true, "{game:?}: {served}");
            }
        }
        let report = app
            .get("/api/v1/floor/tables", Some(&f.pitboss().token))
            .await
            .expect(200);
        for game in Game::ALL {
            let table = f.table_of(game);
            let line = report["lines"]
                .as_array()
                .unwrap()
                .iter()
                .find(|l| l["table_id"] == table && l["shift"].is_null())
                .unwrap_or_else(|| panic!("{game:?}: no line for table {table}: {report}"));
            let ended_here = game_registry::games().filter(|g| f.table_of(g.game) == table).count() as i64;
            assert_eq!(line["voided_rounds"], ended_here, "{game:?}: {line}");
            assert_eq!(line["rounds"], 0, "{game:?}: {line}");
        }
    }
);
