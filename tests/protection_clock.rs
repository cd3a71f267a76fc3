//! A raise of a limit waits out its 24 hours and then the player's confirmation, a time-out
//! ends when it says, and a session limit stops stakes once the session has run its length
//! until a pause ends the session: through HTTP on both databases, with this program's clock moved forward
//! (`djego::store::clock`). The clock is the whole process's, so this program holds one test,
//! which runs on SQLite and then on PostgreSQL.

#[path = "api/helpers.rs"]
#[macro_use]
#[allow(unused_macros)]
mod helpers;

use serde_json::json;

use djego::domain::Role;
use djego::store::clock;
use helpers::{Backend, TestApp, TestUser};

/// Past a day: the cooling-off and a one-day time-out.
const A_DAY_AND_A_SECOND_US: i64 = 24 * 3_600_000_000 + 1_000_000;

/// The clock moved past a day: tokens issued before have expired, so everyone signs in again.
async fn a_day_later(app: &TestApp, users: &mut [&mut TestUser]) {
    clock::move_forward_for_tests(A_DAY_AND_A_SECOND_US);
    for u in users.iter_mut() {
        u.token = app.login(&u.username, &u.password).await;
    }
}

async fn a_raise_waits_and_a_time_out_ends(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut player = app.create_user(Role::Player).await;
    let mut cashier = app.create_user(Role::Cashier).await;
    let limit = |token: String, amount: serde_json::Value| {
        let app = &app;
        async move {
            app.put(
                "/api/v1/me/limits/stake/day",
                Some(&token),
                &json!({ "amount": amount }),
                None,
            )
            .await
        }
    };
    let confirm = |token: String| {
        let app = &app;
        async move {
            app.post("/api/v1/me/limits/stake/day/confirm", Some(&token), &json!({}), None)
                .await
        }
    };

    let set = limit(player.token.clone(), json!("10.00")).await.expect(200);
    assert_eq!(set["amount"], "10.00");
    let raised = limit(player.token.clone(), json!("50.00")).await.expect(200);
    assert_eq!(raised["amount"], "10.00", "a raise is not in force yet: {raised}");
    assert_eq!(raised["pending"]["amount"], "50.00", "{raised}");
    let early = confirm(player.token.clone()).await;
    early.assert_error(409, "cooling_off");
    assert_eq!(
        early.json()["error"]["details"]["confirmable_from_us"],
        raised["pending"]["confirmable_from_us"]
    );

    a_day_later(&app, &mut [&mut player, &mut cashier]).await;
    let confirmed = confirm(player.token.clone()).await.expect(200);
    assert_eq!(confirmed["amount"], "50.00", "{confirmed}");
    assert!(confirmed["pending"].is_null());
    confirm(player.token.clone()).await.assert_error(409, "nothing_pending");

    // A removal waits the same; lowering meanwhile drops it, so an old request cannot be
    // confirmed later.
    let removal = limit(player.token.clone(), serde_json::Value::Null).await.expect(200);
    assert_eq!(removal["amount"], "50.00");
    assert!(
        removal["pending"]["amount"].is_null() && removal["pending"].is_object(),
        "{removal}"
    );
    let lowered = limit(player.token.clone(), json!("5.00")).await.expect(200);
    assert_eq!(lowered["amount"], "5.00");
    assert!(lowered["pending"].is_null(), "{lowered}");
    a_day_later(&app, &mut [&mut player, &mut cashier]).await;
    confirm(player.token.clone()).await.assert_error(409, "nothing_pending");

    // A one-day time-out: no deposit until it ends, then deposits again.
    app.post("/api/v1/me/time-out", Some(&player.token), &json!({ "days": 1 }), None)
        .await
        .expect(201);
    let deposit = json!({ "player_id": player.id, "amount": "20.00" });
    let refused = app.cage(&cashier, "deposits", &deposit, None).await;
    refused.assert_error(403, "excluded_from_play");
    assert!(refused.text.contains("is taking a time-out until"), "{}", refused.text);
    a_day_later(&app, &mut [&mut player, &mut cashier]).await;
    app.cage(&cashier, "deposits", &deposit, None).await.expect(201);
    let me = app.get("/api/v1/me/protection", Some(&player.token)).await.expect(200);
    assert!(me["excluded"].is_null(), "{me}");
    assert_eq!(me["exclusions"][0]["in_force"], false, "{me}");
}

const MINUTE_US: i64 = 60_000_000;

/// A player at an open Prima Carta table with a round taking bets, funded.
async fn a_betting_round(app: &TestApp) -> (TestUser, TestUser, String) {
    let pitboss = app.create_user(Role::Pitboss).await;
    let dealer = app.create_user(Role::Dealer).await;
    let cashier = app.create_user(Role::Cashier).await;
    let player = app.create_user(Role::Player).await;
    let config = json!({
        "game": "prima_carta", "variant": "classic", "unit": "1.00", "seat_fee": null,
        "corte": true, "cobre": "carry", "min_bet": "1.00", "max_bet": "100.00",
        "max_exposure_per_round": "500.00", "strategy_advice": true
    });
    let table = app.open_table(&pitboss, &[&dealer], "Sessions", config).await;
    app.fund(&cashier, &player.id, "100.00").await;
    let round = app
        .post(
            &format!("/api/v1/tables/{table}/rounds"),
            Some(&dealer.token),
            &json!({}),
            None,
        )
        .await
        .expect(201);
    (player, cashier, round["id"].as_str().unwrap().to_owned())
}

async fn a_session_stops_at_its_length(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let (mut player, mut cashier, round) = a_betting_round(&app).await;
    let bet = |token: String| {
        let app = &app;
        let path = format!("/api/v1/rounds/{round}/bets");
        async move {
            app.post(
                &path,
                Some(&token),
                &json!({ "kind": "conto_alto", "amount": "1.00" }),
                None,
            )
            .await
        }
    };
    let set = |minutes: serde_json::Value| {
        let app = &app;
        let token = player.token.clone();
        async move {
            app.put(
                "/api/v1/me/session-limit",
                Some(&token),
                &json!({ "minutes": minutes }),
                None,
            )
            .await
        }
    };
    set(json!(5)).await.assert_error(422, "invalid_minutes");
    let limit = set(json!(10)).await.expect(200);
    assert_eq!(limit["minutes"], 10, "a first limit is in force at once: {limit}");

    // Bets 6 minutes apart: one session (the floor's gap is 30 minutes) of 6 minutes, then 12.
    bet(player.token.clone()).await.expect(201);
    let first = app.get("/api/v1/me/session", Some(&player.token)).await.expect(200);
    let started = first["started_at_us"].as_i64().unwrap();
    assert_eq!(
        first["play_stops_at_us"].as_i64(),
        Some(started + 10 * MINUTE_US),
        "{first}"
    );
    clock::move_forward_for_tests(6 * MINUTE_US);
    let second = bet(player.token.clone()).await.expect(201);
    let second_at = second["placed_at_us"].as_i64().unwrap();
    clock::move_forward_for_tests(6 * MINUTE_US);
    let refused = bet(player.token.clone()).await;
    refused.assert_error(409, "session_limit_reached");
    let details = &refused.json()["error"]["details"];
    assert_eq!(details["limit_minutes"], 10, "{}", refused.text);
    assert_eq!(details["started_at_us"].as_i64(), Some(started), "{}", refused.text);
    assert_eq!(
        details["resumes_at_us"].as_i64(),
        Some(second_at + 30 * MINUTE_US),
        "{}",
        refused.text
    );
    assert!(refused.text.contains("reached the 10 minutes"), "{}", refused.text);
    // A seat is a stake too, checked in its own transaction against the same session.
    app.post(
        &format!("/api/v1/rounds/{round}/seats"),
        Some(&player.token),
        &json!({ "suit": "cups", "client_seed": "a seat past the session's length" }),
        None,
    )
    .await
    .assert_error(409, "session_limit_reached");
    // The cage still takes a deposit: a session limit bounds play, not cash.
    app.fund(&cashier, &player.id, "5.00").await;
    // A longer limit waits its 24 hours; a refused stake does not keep the session going, so
    // after the floor's gap from the last play, play starts again.
    let longer = set(json!(60)).await.expect(200);
    assert_eq!(
        (longer["minutes"].clone(), longer["pending"]["minutes"].clone()),
        (json!(10), json!(60))
    );
    // 32 minutes after the first play, 26 after the last: still the same session.
    clock::move_forward_for_tests(20 * MINUTE_US);
    bet(player.token.clone())
        .await
        .assert_error(409, "session_limit_reached");
    clock::move_forward_for_tests(5 * MINUTE_US);
    bet(player.token.clone()).await.expect(201);
    let fresh = app.get("/api/v1/me/session", Some(&player.token)).await.expect(200);
    assert_eq!(fresh["minutes_played"], 0, "a new session: {fresh}");
    app.post(
        "/api/v1/me/session-limit/confirm",
        Some(&player.token),
        &json!({}),
        None,
    )
    .await
    .assert_error(409, "cooling_off");
    a_day_later(&app, &mut [&mut player, &mut cashier]).await;
    let confirmed = app
        .post(
            "/api/v1/me/session-limit/confirm",
            Some(&player.token),
            &json!({}),
            None,
        )
        .await
        .expect(200);
    assert_eq!(confirmed["minutes"], 60, "{confirmed}");
    let me = app.get("/api/v1/me/protection", Some(&player.token)).await.expect(200);
    assert_eq!(me["session_limit"]["minutes"], 60, "{me}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_raise_waits_a_day_and_a_confirmation_and_a_time_out_ends_on_both_databases() {
    a_raise_waits_and_a_time_out_ends(Backend::Sqlite).await;
    a_raise_waits_and_a_time_out_ends(Backend::Postgres).await;
    a_session_stops_at_its_length(Backend::Sqlite).await;
    a_session_stops_at_its_length(Backend::Postgres).await;
}
