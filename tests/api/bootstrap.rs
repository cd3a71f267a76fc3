//! First-run bootstrap: exactly one pit boss `admin` on a new database, and
//! none added when the service starts again on the same database.

use serde_json::{json, Value};

use crate::helpers::TestApp;

async fn pitbosses(app: &TestApp) -> Vec<Value> {
    let token = app.auditor().await.token.clone();
    let list = app
        .get("/api/v1/users?role=pitboss&limit=500", Some(&token))
        .await
        .expect(200);
    list.as_array().unwrap().clone()
}

both_backends!(
    async fn first_start_creates_exactly_one_admin_and_a_restart_adds_none(app: TestApp) {
        let bosses = pitbosses(&app).await;
        assert_eq!(bosses.len(), 1, "{bosses:?}");
        assert_eq!(bosses[0]["username"], "admin");
        assert_eq!(bosses[0]["role"], "pitboss");
        assert_eq!(bosses[0]["active"], true);
        let events = app.events("admin_bootstrapped").await;
        assert_eq!(events.len(), 1, "{events:?}");
        assert_eq!(events[0]["subject"], bosses[0]["id"]);

        // The admin's password is generated and printed once; set a known one and log in.
        app.set_password("admin", "a-known-admin-password");
        let token = app.login("admin", "a-known-admin-password").await;
        let me = app.get("/api/v1/me", Some(&token)).await.expect(200);
        assert_eq!(me["role"], "pitboss");
        let dealer = app
            .post(
                "/api/v1/users",
                Some(&token),
                &json!({ "username": "first-dealer", "role": "dealer", "password": "dealer-password" }),
                None,
            )
            .await
            .expect(201);
        assert_eq!(dealer["role"], "dealer");

        // Migrations are idempotent on the running database.
        assert_eq!(app.database().migrate().expect("migrate again"), 0);

        // Start again on the same database: no second admin, same house accounts.
        let accounts_before = app.trial_balance().await["accounts"].as_array().unwrap().len();
        let again = app.spawn_another().await;
        let bosses = pitbosses(&again).await;
        assert_eq!(bosses.len(), 1, "{bosses:?}");
        assert_eq!(again.events("admin_bootstrapped").await.len(), 1);
        // The admin's password survived the restart.
        again.login("admin", "a-known-admin-password").await;
        // The restarted instance created no new house accounts (only its auditor's nothing: staff have no wallet).
        let accounts_after = again.trial_balance().await["accounts"].as_array().unwrap().len();
        assert_eq!(accounts_before, accounts_after);
        again.assert_ledger_sound().await;
    }
);

both_backends!(
    async fn the_house_accounts_exist_from_the_start(app: TestApp) {
        let tb = app.trial_balance().await;
        let ids: Vec<&str> = tb["accounts"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| a["account"].as_str().unwrap())
            .collect();
        for id in ["cage", "house:bankroll", "house:revenue", "house:tips"] {
            assert!(ids.contains(&id), "{id} missing: {tb}");
        }
        assert_eq!(tb["total"], "0.00");
        assert_eq!(tb["last_seq"], 0);
        let v = app.verify_ledger().await;
        assert_eq!(v["ok"], true, "{v}");
        assert_eq!(v["transfers_checked"], 0);
    }
);
