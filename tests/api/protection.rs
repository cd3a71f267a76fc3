//! Player protection through HTTP: a loss limit reached inside one batch refuses exactly the
//! bets that would pass it; a deposit limit stops the cage with the amounts named; a
//! self-excluded or timed-out player's every request toward play is refused, in every game of
//! the registry and at the cage, while withdrawals stay open, bets already placed settle, and
//! nothing shortens an exclusion. (A raise's cooling-off and a time-out's end need the clock:
//! tests/protection_clock.rs.)

use serde_json::{json, Value};

use djego::game_registry::Game;

use crate::game_registry::{floor, Floor};
use crate::helpers::{TestApp, TestResponse, TestUser};
use crate::prima_carta::{casino, create_round, dealer_action, play_copa, s, seat, TableOptions};

async fn set_limit(app: &TestApp, player: &TestUser, kind: &str, period: &str, amount: Value) -> TestResponse {
    app.put(
        &format!("/api/v1/me/limits/{kind}/{period}"),
        Some(&player.token),
        &json!({ "amount": amount }),
        None,
    )
    .await
}

/// A request that would move `f.player`'s money toward play in `game` (a side bet on
/// `prima_round`, still betting, for Prima Carta): the round it needs is started by staff
/// first. Exhaustive, so a new game does not compile here until it is tried.
async fn play(app: &TestApp, f: &Floor, game: Game, prima_round: &str) -> TestResponse {
    let p = &f.player;
    match game {
        Game::PrimaCarta => {
            app.post(
                &format!("/api/v1/rounds/{prima_round}/bets"),
                Some(&p.token),
                &json!({ "kind": "conto_alto", "amount": "1.00" }),
                None,
            )
            .await
        }
        Game::PegLeg => {
            let (path, body, _) = crate::game_registry::peg_leg_bet_after_the_first_card(app, f).await;
            app.post(&path, Some(&p.token), &body, None).await
        }
        Game::Lobo => crate::lobo::start(app, p, &f.lobo_table, json!({ "unit": "1.00" })).await,
        Game::LoboContest => {
            let id = crate::game_registry::contest_taking_entries(app, f).await;
            app.post(
                &format!("/api/v1/lobo-contests/{id}/entries"),
                Some(&p.token),
                &json!({}),
                None,
            )
            .await
        }
    }
}

both_backends!(
    async fn a_loss_limit_reached_inside_one_batch_refuses_exactly_the_bets_that_would_pass_it(app: TestApp) {
        let c = casino(
            &app,
            TableOptions {
                players: 2,
                ..Default::default()
            },
        )
        .await;
        let (limited, free) = (&c.players[0], &c.players[1]);
        let view = set_limit(&app, limited, "loss", "day", json!("10.00"))
            .await
            .expect(200);
        assert_eq!(view["amount"], "10.00", "a first limit is in force at once: {view}");
        assert!(view["pending"].is_null(), "{view}");

        let round = create_round(&app, &c).await;
        let id = s(&round["id"]).to_owned();
        // Twelve bets of 2.00 at once, eight by the limited player, four by the other.
        let requests = (0..12)
            .map(|i| {
                let who = if i % 3 == 2 { free } else { limited };
                (
                    format!("/api/v1/rounds/{id}/bets"),
                    who.token.clone(),
                    json!({ "kind": "conto_alto", "amount": "2.00" }),
                    None,
                )
            })
            .collect();
        let answers = app.post_all_at_once(requests).await;
        let (mut placed, mut refused) = (0, 0);
        for (i, (status, text)) in answers.iter().enumerate() {
            if i % 3 == 2 {
                assert_eq!(*status, 201, "the other player's bets are untouched: {text}");
                continue;
            }
            match status {
                201 => placed += 1,
                409 => {
                    let body: Value = serde_json::from_str(text).unwrap();
                    assert_eq!(body["error"]["code"], "play_limit_reached", "{text}");
                    assert_eq!(body["error"]["details"]["limit"], "10.00", "{text}");
                    assert_eq!(body["error"]["details"]["left"], "0.00", "{text}");
                    refused += 1;
                }
                other => panic!("{other}: {text}"),
            }
        }
        assert_eq!(
            (placed, refused),
            (5, 3),
            "five bets of 2.00 fill a loss limit of 10.00"
        );
        let me = app.get("/api/v1/me/protection", Some(&limited.token)).await.expect(200);
        let day = &me["totals"][0];
        assert_eq!(
            (&day["period"], &day["staked"], &day["lost"]),
            (&json!("day"), &json!("10.00"), &json!("10.00"))
        );

        // A lower limit is in force at once; a 1.00 bet no longer fits, even on another round.
        set_limit(&app, limited, "stake", "week", json!("10.00"))
            .await
            .expect(200);
        let refused = app
            .post(
                &format!("/api/v1/rounds/{id}/bets"),
                Some(&limited.token),
                &json!({ "kind": "conto_bajo", "amount": "1.00" }),
                None,
            )
            .await;
        refused.assert_error(409, "play_limit_reached");

        // Seating counts too: the spiga and the corte are stakes.
        seat(&app, limited, &id, "crowns", None)
            .await
            .assert_error(409, "play_limit_reached");
        seat(&app, free, &id, "cups", None).await.expect(201);
    }
);

both_backends!(
    async fn a_deposit_limit_stops_the_cage_and_names_the_amounts(app: TestApp) {
        let cashier = app.create_user(djego::domain::Role::Cashier).await;
        let other_cashier = app.create_user(djego::domain::Role::Cashier).await;
        let player = app.create_user(djego::domain::Role::Player).await;
        set_limit(&app, &player, "deposit", "week", json!("100.00"))
            .await
            .expect(200);
        app.fund(&cashier, &player.id, "60.00").await;
        let refused = app
            .cage(
                &other_cashier,
                "deposits",
                &json!({ "player_id": player.id, "amount": "50.00" }),
                None,
            )
            .await;
        refused.assert_error(409, "play_limit_reached");
        assert!(
            refused
                .text
                .contains("over the weekly deposit limit they set of 100.00 (40.00 left)"),
            "{}",
            refused.text
        );
        app.fund(&other_cashier, &player.id, "40.00").await;
        // The cashier sees why.
        let seen = app
            .get(
                &format!("/api/v1/players/{}/protection", player.id),
                Some(&cashier.token),
            )
            .await
            .expect(200);
        assert_eq!(seen["totals"][1]["deposited"], "100.00", "{seen}");
        assert_eq!(app.balance(&player.id).await, "100.00");
        // A withdrawal is never refused for protection, and does not make room for deposits.
        app.cage(
            &cashier,
            "withdrawals",
            &json!({ "player_id": player.id, "amount": "30.00" }),
            None,
        )
        .await
        .expect(201);
        app.cage(
            &cashier,
            "deposits",
            &json!({ "player_id": player.id, "amount": "0.01" }),
            None,
        )
        .await
        .assert_error(409, "play_limit_reached");
    }
);

both_backends!(
    async fn a_self_excluded_players_every_request_toward_play_is_refused_in_every_game(app: TestApp) {
        let mut f = floor(&app).await;
        let other = app.create_user(djego::domain::Role::Player).await;
        app.fund(&f.pc.cashier, &other.id, "100.00").await;
        f.pc.players.push(other.clone());
        let f = f;
        let p = &f.player;
        // A bet placed before the exclusion settles as usual.
        let round = create_round(&app, &f.pc).await;
        let open_round = s(&round["id"]).to_owned();
        seat(&app, p, &open_round, "crowns", None).await.expect(201);
        seat(&app, &other, &open_round, "cups", None).await.expect(201);
        app.post(
            &format!("/api/v1/rounds/{open_round}/bets"),
            Some(&p.token),
            &json!({ "kind": "conto_medio", "amount": "3.00" }),
            None,
        )
        .await
        .expect(201);

        let excluded = app
            .post(
                "/api/v1/me/self-exclusion",
                Some(&p.token),
                &json!({ "months": 6 }),
                None,
            )
            .await
            .expect(201);
        assert_eq!(excluded["kind"], "self_exclusion");
        let months_6 = excluded["ends_at_us"].as_i64().unwrap();

        for game in Game::ALL {
            let refused = play(&app, &f, game, &open_round).await;
            refused.assert_error(403, "excluded_from_play");
            assert!(
                refused.text.contains("has excluded themself from play until"),
                "{game:?}: {}",
                refused.text
            );
        }
        app.cage(
            &f.pc.cashier,
            "deposits",
            &json!({ "player_id": p.id, "amount": "5.00" }),
            None,
        )
        .await
        .assert_error(403, "excluded_from_play");
        app.cage(
            &f.pc.cashier,
            "withdrawals",
            &json!({ "player_id": p.id, "amount": "5.00" }),
            None,
        )
        .await
        .expect(201);

        // The round already under way plays out and its bet settles.
        dealer_action(&app, &f.pc, &open_round, "close").await.expect(200);
        let dealt = dealer_action(&app, &f.pc, &open_round, "deal").await.expect(200);
        play_copa(&app, &f.pc, &open_round, dealt, 1).await;
        dealer_action(&app, &f.pc, &open_round, "settle").await.expect(200);
        let bets = app.get("/api/v1/me/bets", Some(&p.token)).await.expect(200);
        let settled = bets
            .as_array()
            .unwrap()
            .iter()
            .find(|b| b["round_id"] == open_round.as_str())
            .unwrap_or_else(|| panic!("{bets}"));
        assert!(["won", "lost"].contains(&s(&settled["status"])), "{settled}");

        // Nothing shortens it: a shorter time-out adds nothing, and there is no way to lift it.
        app.post("/api/v1/me/time-out", Some(&p.token), &json!({ "days": 1 }), None)
            .await
            .expect(201);
        let me = app.get("/api/v1/me/protection", Some(&p.token)).await.expect(200);
        assert_eq!(me["excluded"]["ends_at_us"].as_i64(), Some(months_6), "{me}");
        assert_eq!(me["exclusions"].as_array().unwrap().len(), 2);
        for statement in [
            "UPDATE player_exclusions SET ends_at_us = starts_at_us + 1",
            "DELETE FROM player_exclusions",
        ] {
            let lifted = app.state.db.write(|conn| -> Result<usize, djego::store::StoreError> {
                Ok(diesel::RunQueryDsl::execute(diesel::sql_query(statement), conn)?)
            });
            assert!(lifted.is_err(), "the table refuses {statement}: {lifted:?}");
        }
        let pitboss_view = app
            .get(
                &format!("/api/v1/players/{}/protection", p.id),
                Some(&f.pitboss().token),
            )
            .await
            .expect(200);
        assert_eq!(pitboss_view["excluded"]["kind"], "self_exclusion");
        // Bad lengths are refused.
        for body in [
            json!({ "months": 5 }),
            json!({ "months": 61 }),
            json!({}),
            json!({ "months": 6, "permanent": true }),
        ] {
            app.post("/api/v1/me/self-exclusion", Some(&p.token), &body, None)
                .await
                .assert_error(422, "invalid_length");
        }
        app.post("/api/v1/me/time-out", Some(&p.token), &json!({ "days": 43 }), None)
            .await
            .assert_error(422, "invalid_length");
    }
);

both_backends!(
    async fn a_stake_split_between_a_seat_and_bets_at_once_still_meets_the_limit(app: TestApp) {
        let c = casino(&app, TableOptions::default()).await;
        let p = &c.players[0];
        set_limit(&app, p, "stake", "day", json!("5.00")).await.expect(200);
        let round = create_round(&app, &c).await;
        let id = s(&round["id"]).to_owned();
        for attempt in 0..3 {
            // A seat (its spiga and corte held) and three bets of 2.00, all at once.
            let mut requests = vec![app
                .request(
                    reqwest::Method::POST,
                    &format!("/api/v1/rounds/{id}/seats"),
                    Some(&p.token),
                )
                .json(&json!({ "suit": "crowns" }))];
            for _ in 0..3 {
                requests.push(
                    app.request(
                        reqwest::Method::POST,
                        &format!("/api/v1/rounds/{id}/bets"),
                        Some(&p.token),
                    )
                    .json(&json!({ "kind": "conto_alto", "amount": "2.00" })),
                );
            }
            let answers = app.send_all_at_once(requests).await;
            for (status, text) in &answers {
                assert!(
                    *status == 201 || text.contains("play_limit_reached") || text.contains("already_seated"),
                    "{status}: {text}"
                );
            }
            let me = app.get("/api/v1/me/protection", Some(&p.token)).await.expect(200);
            let staked = crate::prima_carta::minor(s(&me["totals"][0]["staked"]));
            assert!(
                staked <= 500,
                "attempt {attempt}: staked {staked} over the limit of 5.00: {me}"
            );
        }
    }
);

both_backends!(
    async fn a_reality_check_shows_the_session_at_the_interval_the_player_chose(app: TestApp) {
        let c = casino(&app, TableOptions::default()).await;
        let p = &c.players[0];
        let set = |minutes: Value| {
            let app = &app;
            let token = p.token.clone();
            async move {
                app.put(
                    "/api/v1/me/reality-check",
                    Some(&token),
                    &json!({ "minutes": minutes }),
                    None,
                )
                .await
            }
        };
        set(json!(5)).await.assert_error(422, "invalid_interval");
        set(json!(241)).await.assert_error(422, "invalid_interval");
        let quiet = set(json!(30)).await.expect(200);
        assert_eq!(quiet["reality_check_minutes"], 30, "{quiet}");
        assert_eq!(quiet["in_session"], false, "no play yet: {quiet}");
        assert!(quiet["next_check_at_us"].is_null());

        let round = create_round(&app, &c).await;
        for kind in ["conto_alto", "conto_bajo"] {
            app.post(
                &format!("/api/v1/rounds/{}/bets", s(&round["id"])),
                Some(&p.token),
                &json!({ "kind": kind, "amount": "2.00" }),
                None,
            )
            .await
            .expect(201);
        }
        let session = app.get("/api/v1/me/session", Some(&p.token)).await.expect(200);
        assert_eq!(session["in_session"], true, "{session}");
        assert_eq!(
            (&session["staked"], &session["returned"], &session["net"]),
            (&json!("4.00"), &json!("0.00"), &json!("-4.00")),
            "{session}"
        );
        let started = session["started_at_us"].as_i64().unwrap();
        assert_eq!(session["next_check_at_us"].as_i64(), Some(started + 30 * 60_000_000));
        assert_eq!(session["session_gap_minutes"], 30);
        // Off, and only the player's own.
        let off = set(Value::Null).await.expect(200);
        assert!(
            off["reality_check_minutes"].is_null() && off["next_check_at_us"].is_null(),
            "{off}"
        );
        assert_eq!(off["staked"], "4.00");
        app.get("/api/v1/me/session", Some(&c.cashier.token))
            .await
            .assert_error(403, "forbidden");
        assert_eq!(app.events("reality_check_set").await.len(), 2);
    }
);
