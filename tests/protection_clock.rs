//! A raise of a limit waits out its 24 hours and then the player's confirmation, and a time-out
//! ends when it says: through HTTP on both databases, with this program's clock moved forward
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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_raise_waits_a_day_and_a_confirmation_and_a_time_out_ends_on_both_databases() {
    a_raise_waits_and_a_time_out_ends(Backend::Sqlite).await;
    a_raise_waits_and_a_time_out_ends(Backend::Postgres).await;
}
