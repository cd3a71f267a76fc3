//! A token is only as good as the account behind it, now: deactivation, role
//! and password changes, logout and a pit boss's forced logout end sessions at
//! the next request on every instance; token keys rotate without logging
//! everyone out at once.

use crate::helpers::{TestApp, TestUser};
use serde_json::{json, Value};

use djego::domain::Role;

async fn set_user(app: &TestApp, boss: &TestUser, user: &TestUser, change: Value) {
    app.put(&format!("/api/v1/users/{}", user.id), Some(&boss.token), &change, None)
        .await
        .expect(200);
}

both_backends!(
    async fn a_deactivated_cashiers_token_moves_no_money(app: TestApp) {
        let boss = app.create_user(Role::Pitboss).await;
        let cashier = app.create_user(Role::Cashier).await;
        let player = app.create_user(Role::Player).await;
        app.fund(&cashier, &player.id, "10.00").await;
        let seq = app.last_seq().await;

        set_user(&app, &boss, &cashier, json!({ "active": false })).await;
        let deposit = json!({ "player_id": player.id, "amount": "5.00" });
        app.cage(&cashier, "deposits", &deposit, None)
            .await
            .assert_error(401, "account_inactive");
        app.cage(&cashier, "deposits", &deposit, Some("after-deactivation"))
            .await
            .assert_error(401, "account_inactive");
        assert_eq!(app.balance(&player.id).await, "10.00");
        assert_eq!(app.last_seq().await, seq, "no transfer after the deactivation");

        // Reactivated, the old token stays dead: it belongs to an ended session.
        set_user(&app, &boss, &cashier, json!({ "active": true })).await;
        app.cage(&cashier, "deposits", &deposit, None)
            .await
            .assert_error(401, "session_revoked");
        let fresh = app.login(&cashier.username, &cashier.password).await;
        app.post("/api/v1/cage/deposits", Some(&fresh), &deposit, None)
            .await
            .expect(201);
    }
);

both_backends!(
    async fn a_demoted_pit_boss_cannot_create_pit_bosses(app: TestApp) {
        let boss = app.create_user(Role::Pitboss).await;
        let demoted = app.create_user(Role::Pitboss).await;
        set_user(&app, &boss, &demoted, json!({ "role": "dealer" })).await;
        let new_boss = json!({ "username": "sneaky-boss", "role": "pitboss", "password": "long-enough-password" });
        app.post("/api/v1/users", Some(&demoted.token), &new_boss, None)
            .await
            .assert_error(401, "session_revoked");
        // Logged in again, the account has the rights of its role now.
        let token = app.login(&demoted.username, &demoted.password).await;
        app.post("/api/v1/users", Some(&token), &new_boss, None)
            .await
            .assert_error(403, "forbidden");
        let me = app.get("/api/v1/me", Some(&token)).await.expect(200);
        assert_eq!(me["role"], "dealer");
        let events = app.events("role_changed").await;
        assert!(events.iter().any(|e| e["subject"] == demoted.id.as_str()), "{events:?}");
    }
);

both_backends!(
    async fn logout_ends_every_session_of_the_caller_on_every_instance(app: TestApp) {
        let other = app
            .spawn_another_with(|s| s.jwt_secret = app.state.settings.jwt_secret.clone())
            .await;
        let player = app.create_user(Role::Player).await;
        let second = app.login(&player.username, &player.password).await;
        other.get("/api/v1/me", Some(&second)).await.expect(200);

        let out = app
            .post("/api/v1/auth/logout", Some(&player.token), &json!({}), None)
            .await;
        assert_eq!(out.status, 204, "{}", out.text);
        for token in [&player.token, &second] {
            app.get("/api/v1/me", Some(token))
                .await
                .assert_error(401, "session_revoked");
            other
                .get("/api/v1/me", Some(token))
                .await
                .assert_error(401, "session_revoked");
        }
        // Logging out again with the dead token is refused, not repeated.
        app.post("/api/v1/auth/logout", Some(&player.token), &json!({}), None)
            .await
            .assert_error(401, "session_revoked");
        let fresh = other.login(&player.username, &player.password).await;
        app.get("/api/v1/me", Some(&fresh)).await.expect(200);
        let events = app.events("logged_out").await;
        assert_eq!(
            events.iter().filter(|e| e["subject"] == player.id.as_str()).count(),
            1,
            "{events:?}"
        );
    }
);

both_backends!(
    async fn a_pit_boss_ends_the_sessions_of_any_account(app: TestApp) {
        let boss = app.create_user(Role::Pitboss).await;
        let cashier = app.create_user(Role::Cashier).await;
        let player = app.create_user(Role::Player).await;

        let path = format!("/api/v1/users/{}/logout", player.id);
        app.post(&path, Some(&cashier.token), &json!({}), None)
            .await
            .assert_error(403, "forbidden");
        app.get("/api/v1/me", Some(&player.token)).await.expect(200);

        let ended = app.post(&path, Some(&boss.token), &json!({}), None).await;
        assert_eq!(ended.status, 204, "{}", ended.text);
        app.get("/api/v1/me", Some(&player.token))
            .await
            .assert_error(401, "session_revoked");
        app.get("/api/v1/me", Some(&cashier.token)).await.expect(200);
        app.post("/api/v1/users/no-such-user/logout", Some(&boss.token), &json!({}), None)
            .await
            .assert_error(404, "not_found");

        let events = app.events("sessions_ended").await;
        assert_eq!(events.len(), 1, "{events:?}");
        assert_eq!(events[0]["actor_id"], boss.id.as_str());
        assert_eq!(events[0]["subject"], player.id.as_str());
    }
);

both_backends!(
    async fn changing_a_password_ends_every_session(app: TestApp) {
        let player = app.create_user(Role::Player).await;
        let path = "/api/v1/me/password";
        let wrong = json!({ "current_password": "not-my-password", "new_password": "a-brand-new-password" });
        app.put(path, Some(&player.token), &wrong, None)
            .await
            .assert_error(403, "forbidden");
        let short = json!({ "current_password": player.password, "new_password": "short" });
        app.put(path, Some(&player.token), &short, None)
            .await
            .assert_error(400, "invalid_password");
        app.get("/api/v1/me", Some(&player.token)).await.expect(200);

        let right = json!({ "current_password": player.password, "new_password": "a-brand-new-password" });
        let changed = app.put(path, Some(&player.token), &right, None).await;
        assert_eq!(changed.status, 204, "{}", changed.text);
        app.get("/api/v1/me", Some(&player.token))
            .await
            .assert_error(401, "session_revoked");
        app.try_login(&player.username, &player.password)
            .await
            .assert_error(401, "unauthenticated");
        app.login(&player.username, "a-brand-new-password").await;
        let events = app.events("password_changed").await;
        assert_eq!(events.len(), 1, "{events:?}");
        // The wrong current password counted as a failed login.
        let failed = app.events("login_failed").await;
        assert!(
            failed.iter().any(|e| e["subject"] == player.username.as_str()),
            "{failed:?}"
        );
    }
);

both_backends!(
    async fn a_token_key_rotates_without_logging_everyone_out(app: TestApp) {
        let old_secret = app.state.settings.jwt_secret.clone();
        let new_secret = b"the-next-token-secret-of-this-casino-0123456789".to_vec();
        let player = app.create_user(Role::Player).await;

        // Rotating: new tokens are signed with the new key; the old still pass.
        let rotating = app
            .spawn_another_with(|s| {
                s.jwt_secret = new_secret.clone();
                s.jwt_previous_secrets = vec![old_secret.clone()];
            })
            .await;
        rotating.get("/api/v1/me", Some(&player.token)).await.expect(200);
        let new_token = rotating.login(&player.username, &player.password).await;
        rotating.get("/api/v1/me", Some(&new_token)).await.expect(200);
        // The instance not yet rotated does not know the new key.
        app.get("/api/v1/me", Some(&new_token))
            .await
            .assert_error(401, "unauthenticated");

        // Retired: the old key's tokens are refused, the new ones still pass.
        let retired = app.spawn_another_with(|s| s.jwt_secret = new_secret.clone()).await;
        let refused = retired.get("/api/v1/me", Some(&player.token)).await;
        refused.assert_error(401, "unauthenticated");
        assert!(refused.text.contains("retired"), "{}", refused.text);
        retired.get("/api/v1/me", Some(&new_token)).await.expect(200);

        // The rotation is on record once, naming both keys by id only.
        let rotations: Vec<Value> = app
            .events("token_key_rotated")
            .await
            .into_iter()
            .map(|e| serde_json::from_str(e["details"].as_str().unwrap()).unwrap())
            .collect();
        let new_id = djego::auth::key_id(&new_secret);
        let old_id = djego::auth::key_id(&old_secret);
        let to_new: Vec<&Value> = rotations.iter().filter(|d| d["key_id"] == new_id.as_str()).collect();
        assert_eq!(to_new.len(), 1, "{rotations:?}");
        assert_eq!(to_new[0]["previous_key_id"], old_id.as_str());
        assert_eq!(to_new[0]["accepted_key_ids"], json!([new_id, old_id]));
        let text = serde_json::to_string(&rotations).unwrap();
        assert!(
            !text.contains(std::str::from_utf8(&new_secret).unwrap()),
            "no secret in the log"
        );
    }
);

both_backends!(
    async fn a_reset_password_must_be_replaced_before_anything_else(app: TestApp) {
        let boss = app.create_user(Role::Pitboss).await;
        let cashier = app.create_user(Role::Cashier).await;
        let player = app.create_user(Role::Player).await;
        app.fund(&cashier, &player.id, "50.00").await;
        let reset = |id: &str| format!("/api/v1/users/{id}/password");
        let temporary = json!({ "temporary_password": "handed-over-at-the-desk" });

        // Only a pit boss resets, never their own, and only to a valid password.
        app.post(&reset(&player.id), Some(&cashier.token), &temporary, None)
            .await
            .assert_error(403, "forbidden");
        app.post(&reset(&boss.id), Some(&boss.token), &temporary, None)
            .await
            .assert_error(403, "forbidden");
        app.post(
            &reset(&player.id),
            Some(&boss.token),
            &json!({ "temporary_password": "short" }),
            None,
        )
        .await
        .assert_error(400, "invalid_password");
        app.post(&reset("no-such-user"), Some(&boss.token), &temporary, None)
            .await
            .assert_error(404, "not_found");
        app.get("/api/v1/me/wallet", Some(&player.token)).await.expect(200);

        let done = app.post(&reset(&player.id), Some(&boss.token), &temporary, None).await;
        assert_eq!(done.status, 204, "{}", done.text);
        // The sessions the player had are over.
        app.get("/api/v1/me", Some(&player.token))
            .await
            .assert_error(401, "session_revoked");
        app.try_login(&player.username, &player.password)
            .await
            .assert_error(401, "unauthenticated");

        // Signed in with the temporary password, the account can only replace it.
        let login = app
            .try_login(&player.username, "handed-over-at-the-desk")
            .await
            .expect(200);
        assert_eq!(login["must_change_password"], true, "{login}");
        let token = login["access_token"].as_str().unwrap().to_string();
        app.get("/api/v1/me/wallet", Some(&token))
            .await
            .assert_error(403, "password_change_required");
        let table = app.get("/api/v1/tables", Some(&token)).await;
        table.assert_error(403, "password_change_required");
        app.get("/api/v1/me", Some(&token)).await.expect(200);
        let change = json!({ "current_password": "handed-over-at-the-desk", "new_password": "my-own-choice-now" });
        let changed = app.put("/api/v1/me/password", Some(&token), &change, None).await;
        assert_eq!(changed.status, 204, "{}", changed.text);

        let login = app.try_login(&player.username, "my-own-choice-now").await.expect(200);
        assert_eq!(login["must_change_password"], false, "{login}");
        let token = login["access_token"].as_str().unwrap();
        let wallet = app.get("/api/v1/me/wallet", Some(token)).await.expect(200);
        assert_eq!(wallet["balance"], "50.00", "{wallet}");

        // The wager path judges the account in its own transaction: a reset
        // cashier moves no money until the password is theirs again.
        let done = app.post(&reset(&cashier.id), Some(&boss.token), &temporary, None).await;
        assert_eq!(done.status, 204, "{}", done.text);
        let login = app
            .try_login(&cashier.username, "handed-over-at-the-desk")
            .await
            .expect(200);
        let cashier_token = login["access_token"].as_str().unwrap();
        let deposit = json!({ "player_id": player.id, "amount": "5.00" });
        app.post(
            "/api/v1/cage/deposits",
            Some(cashier_token),
            &deposit,
            Some("reset-deposit"),
        )
        .await
        .assert_error(403, "password_change_required");
        assert_eq!(app.balance(&player.id).await, "50.00");

        let resets = app.events("password_reset").await;
        assert_eq!(resets.len(), 2, "{resets:?}");
        let resets: Vec<&Value> = resets
            .iter()
            .filter(|e| e["subject_username"] == player.username.as_str())
            .collect();
        assert_eq!(resets.len(), 1, "{resets:?}");
        assert_eq!(resets[0]["actor_username"], boss.username.as_str(), "{resets:?}");
        assert_eq!(resets[0]["subject_username"], player.username.as_str(), "{resets:?}");
    }
);

both_backends!(
    async fn an_operator_sets_a_password_from_the_command_line(app: TestApp) {
        let player = app.create_user(Role::Player).await;
        let run = |temporary: bool, password: &'static str| {
            let url = app.db.url().to_string();
            let username = player.username.clone();
            async move {
                let mut args = vec!["user".to_string(), "set-password".into(), "--username".into(), username];
                args.extend(["--database-url".to_string(), url]);
                if temporary {
                    args.push("--temporary".into());
                }
                tokio::task::spawn_blocking(move || {
                    std::process::Command::new(env!("CARGO_BIN_EXE_djego"))
                        .args(&args)
                        .env("RUST_LOG", "warn")
                        .env("DJEGO_NEW_PASSWORD", password)
                        .env_remove("DATABASE_URL")
                        .output()
                        .expect("run djego")
                })
                .await
                .unwrap()
            }
        };
        let out = run(true, "given-by-the-operator").await;
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        app.get("/api/v1/me", Some(&player.token))
            .await
            .assert_error(401, "session_revoked");
        let login = app
            .try_login(&player.username, "given-by-the-operator")
            .await
            .expect(200);
        assert_eq!(login["must_change_password"], true, "{login}");

        let out = run(false, "short").await;
        assert!(!out.status.success(), "a short password is refused");
        let out = run(false, "an-operator-chosen-one").await;
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let login = app
            .try_login(&player.username, "an-operator-chosen-one")
            .await
            .expect(200);
        assert_eq!(login["must_change_password"], false, "{login}");
        assert_eq!(app.events("password_reset").await.len(), 1);
    }
);

both_backends!(
    async fn a_live_stream_ends_with_the_session_it_was_opened_with(app: TestApp) {
        let c = crate::prima_carta::casino(&app, crate::prima_carta::TableOptions::default()).await;
        let player = &c.players[0];
        let mut stream = app
            .request(
                reqwest::Method::GET,
                &format!("/api/v1/tables/{}/events", c.table),
                Some(&player.token),
            )
            .send()
            .await
            .expect("the stream opens");
        assert_eq!(stream.status(), 200);
        let mut seen = String::new();
        while !seen.contains("event: state") {
            let chunk = stream
                .chunk()
                .await
                .expect("the stream reads")
                .expect("the stream is open");
            seen.push_str(&String::from_utf8_lossy(&chunk));
        }
        let logout = app
            .post("/api/v1/auth/logout", Some(&player.token), &json!({}), None)
            .await;
        assert_eq!(logout.status, 204, "{}", logout.text);
        // Within one session check (every 5 s), the stream says why and ends.
        let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(12);
        loop {
            let chunk = tokio::time::timeout_at(deadline, stream.chunk())
                .await
                .unwrap_or_else(|_| panic!("the stream outlived its session: {seen}"))
                .expect("the stream reads");
            match chunk {
                Some(bytes) => seen.push_str(&String::from_utf8_lossy(&bytes)),
                None => break,
            }
        }
        assert!(seen.contains("event: ended"), "{seen}");
        assert!(seen.contains("session has ended"), "{seen}");
    }
);

both_backends!(
    async fn an_account_update_that_changes_nothing_ends_no_session(app: TestApp) {
        let boss = app.create_user(Role::Pitboss).await;
        let cashier = app.create_user(Role::Cashier).await;
        let events = app.events("role_changed").await.len();
        set_user(&app, &boss, &cashier, json!({ "role": "cashier", "active": true })).await;
        set_user(&app, &boss, &cashier, json!({})).await;
        app.get("/api/v1/me", Some(&cashier.token)).await.expect(200);
        assert_eq!(
            app.events("role_changed").await.len(),
            events,
            "nothing changed, nothing recorded"
        );
        // A real change still ends the sessions.
        set_user(&app, &boss, &cashier, json!({ "role": "dealer" })).await;
        app.get("/api/v1/me", Some(&cashier.token))
            .await
            .assert_error(401, "session_revoked");
    }
);
