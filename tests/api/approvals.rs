//! Two-person control (docs/floor.md): changes of the house's edge or money
//! are proposed by one person and apply only when a second pit boss approves
//! them before they expire; every step is a significant event.

use djego::domain::Role;
use serde_json::{json, Value};

use crate::helpers::{TestApp, TestUser};
use crate::prima_carta::{casino, minor, money, s, table_config, Casino, TableOptions};

fn approve_path(proposal: &Value) -> String {
    format!("/api/v1/proposals/{}/approve", s(&proposal["id"]))
}

fn reject_path(proposal: &Value) -> String {
    format!("/api/v1/proposals/{}/reject", s(&proposal["id"]))
}

async fn closed_casino(app: &TestApp) -> Casino {
    let c = casino(app, TableOptions::default()).await;
    app.post(
        &format!("/api/v1/tables/{}/close", c.table),
        Some(&c.pitboss.token),
        &json!({}),
        None,
    )
    .await
    .expect(200);
    c
}

async fn propose_max_bet(app: &TestApp, c: &Casino, max_bet: &str) -> Value {
    let mut config = table_config(&TableOptions::default());
    config["max_bet"] = json!(max_bet);
    app.put(
        &format!("/api/v1/tables/{}/config", c.table),
        Some(&c.pitboss.token),
        &config,
        None,
    )
    .await
    .expect(202)
}

async fn max_bet(app: &TestApp, c: &Casino) -> Value {
    app.get(&format!("/api/v1/tables/{}", c.table), Some(&c.dealer.token))
        .await
        .expect(200)["config"]["max_bet"]
        .clone()
}

async fn correction(app: &TestApp, c: &Casino, amount: &str) -> crate::helpers::TestResponse {
    let body = json!({ "player_id": c.players[0].id, "amount": amount, "direction": "credit", "reason": "short-paid at the cage" });
    app.post("/api/v1/cage/corrections", Some(&c.cashier.token), &body, None)
        .await
}

both_backends!(
    async fn a_table_change_waits_for_a_second_pit_boss(app: TestApp) {
        let c = closed_casino(&app).await;
        let second = app.create_user(Role::Pitboss).await;
        let proposal = propose_max_bet(&app, &c, "50.00").await;
        assert_eq!(proposal["status"], "pending");
        assert_eq!(proposal["kind"], "change_table_options");
        assert_eq!(proposal["subject"], c.table.as_str());
        assert_eq!(max_bet(&app, &c).await, "100.00", "nothing changes on a proposal");

        // Not by its proposer, not by a cashier.
        app.post(&approve_path(&proposal), Some(&c.pitboss.token), &json!({}), None)
            .await
            .assert_error(403, "forbidden");
        app.post(&approve_path(&proposal), Some(&c.cashier.token), &json!({}), None)
            .await
            .assert_error(403, "forbidden");
        assert_eq!(max_bet(&app, &c).await, "100.00");

        let applied = app
            .post(&approve_path(&proposal), Some(&second.token), &json!({}), None)
            .await
            .expect(200);
        assert_eq!(applied["status"], "applied");
        assert_eq!(applied["decided_by"], second.id.as_str());
        assert_eq!(applied["result"]["config"]["max_bet"], "50.00", "{applied}");
        assert_eq!(max_bet(&app, &c).await, "50.00");
        app.post(&approve_path(&proposal), Some(&second.token), &json!({}), None)
            .await
            .assert_error(409, "proposal_decided");

        // Every step is on record, with both people (the table's own creation was the first).
        let of_options = |events: Vec<Value>| -> Vec<Value> {
            events
                .into_iter()
                .filter(|e| s(&e["details"]).contains("change_table_options"))
                .collect()
        };
        let proposed = of_options(app.events("change_proposed").await);
        assert_eq!(proposed.len(), 1, "{proposed:?}");
        assert_eq!(proposed[0]["actor_id"], c.pitboss.id.as_str());
        let approved = of_options(app.events("change_approved").await);
        assert_eq!(approved.len(), 1, "{approved:?}");
        assert_eq!(approved[0]["actor_id"], second.id.as_str());
        let details: Value = serde_json::from_str(s(&approved[0]["details"])).unwrap();
        assert_eq!(details["proposed_by"], c.pitboss.id.as_str());
        let reconfigured = app.events("table_reconfigured").await;
        assert_eq!(reconfigured[0]["actor_id"], second.id.as_str());

        // Rejected by a second pit boss, or withdrawn by its proposer: it never applies.
        let refused = propose_max_bet(&app, &c, "20.00").await;
        let rejected = app
            .post(&reject_path(&refused), Some(&second.token), &json!({}), None)
            .await
            .expect(200);
        assert_eq!(rejected["status"], "rejected");
        app.post(&approve_path(&refused), Some(&second.token), &json!({}), None)
            .await
            .assert_error(409, "proposal_decided");
        let withdrawn = propose_max_bet(&app, &c, "30.00").await;
        app.post(&reject_path(&withdrawn), Some(&c.pitboss.token), &json!({}), None)
            .await
            .expect(200);
        app.post(&reject_path(&withdrawn), Some(&c.players[0].token), &json!({}), None)
            .await
            .assert_error(403, "forbidden");
        app.post(&reject_path(&withdrawn), Some(&second.token), &json!({}), None)
            .await
            .assert_error(409, "proposal_decided");
        assert_eq!(max_bet(&app, &c).await, "50.00");
        assert_eq!(app.events("change_rejected").await.len(), 2);

        // A proposal expires: past its time it cannot be approved.
        let late = propose_max_bet(&app, &c, "40.00").await;
        let id = s(&late["id"]).to_owned();
        app.state
            .db
            .write(|conn| -> Result<usize, djego::store::StoreError> {
                use diesel::RunQueryDsl;
                Ok(
                    diesel::sql_query(format!("UPDATE proposals SET expires_at_us = 0 WHERE id = '{id}'"))
                        .execute(conn)?,
                )
            })
            .unwrap();
        app.post(&approve_path(&late), Some(&second.token), &json!({}), None)
            .await
            .assert_error(409, "proposal_expired");
        assert_eq!(max_bet(&app, &c).await, "50.00");
        let auditor = app.auditor().await.token.clone();
        let expired = app
            .get("/api/v1/proposals?status=expired", Some(&auditor))
            .await
            .expect(200);
        assert_eq!(expired.as_array().unwrap().len(), 1, "{expired}");
        assert_eq!(expired[0]["id"], id.as_str());
        let pending = app
            .get("/api/v1/proposals?status=pending", Some(&auditor))
            .await
            .expect(200);
        assert_eq!(pending, json!([]));
        app.get("/api/v1/proposals", Some(&c.players[0].token))
            .await
            .assert_error(403, "forbidden");
    }
);

both_backends!(
    async fn pay_tables_house_rule_overrides_and_the_rule_itself_need_two_pit_bosses(app: TestApp) {
        let c = casino(&app, TableOptions::default()).await;
        let path = format!("/api/v1/tables/{}/pay-table", c.table);
        let before = app.get(&path, Some(&c.dealer.token)).await.expect(200)["id"].clone();
        let mut house = serde_json::to_value(djego::bets::PayTable::house_table()).unwrap();
        house["name"] = json!("djego-house-proposed");
        let proposal = app.put(&path, Some(&c.pitboss.token), &house, None).await.expect(202);
        assert_eq!(proposal["kind"], "install_pay_table");
        // Certified and stored already, installed not yet.
        let stored = s(&proposal["request"]["pay_table_id"]).to_owned();
        let certified = app
            .get(&format!("/api/v1/pay-tables/{stored}"), Some(&c.dealer.token))
            .await
            .expect(200);
        assert_eq!(certified["certificate"]["pass"], true);
        assert_eq!(app.get(&path, Some(&c.dealer.token)).await.expect(200)["id"], before);
        let applied = app.approve(&proposal).await;
        assert_eq!(applied["result"]["id"], stored.as_str());
        assert_eq!(
            app.get(&path, Some(&c.dealer.token)).await.expect(200)["id"],
            stored.as_str()
        );

        // A Lobo table whose house rule is not proven: created only on approval.
        let mut lobo = serde_json::to_value(djego::tables::TableConfig::demo_lobo()).unwrap();
        lobo["house_rule_override"] = json!(true);
        lobo["house_rule"] = json!({ "fee_per_round_hundredths": 0, "ante_per_wolf_point_hundredths": 0 });
        let body = json!({ "name": "Lobo without an edge", "config": lobo });
        let table = app
            .two_person(reqwest::Method::POST, "/api/v1/tables", &c.pitboss, &body)
            .await;
        assert_eq!(table["name"], "Lobo without an edge", "{table}");
        assert_eq!(table["config"]["house_rule_override"], true);
        // Without the override too: every new table waits for a second pit boss.
        lobo["house_rule_override"] = json!(false);
        lobo.as_object_mut().unwrap().remove("house_rule");
        let proposed = app
            .post(
                "/api/v1/tables",
                Some(&c.pitboss.token),
                &json!({ "name": "Lobo proven", "config": lobo }),
                None,
            )
            .await
            .expect(202);
        assert_eq!(proposed["kind"], "create_table", "{proposed}");
        let listed = app.get("/api/v1/tables", Some(&c.pitboss.token)).await.expect(200);
        assert!(
            listed.as_array().unwrap().iter().all(|t| t["name"] != "Lobo proven"),
            "no table before the approval: {listed}"
        );
        let applied = app.approve(&proposed).await;
        assert_eq!(applied["result"]["name"], "Lobo proven");
        assert_eq!(applied["result"]["status"], "closed");

        // The rule: a correction above its limit waits for a pit boss.
        let rule = app
            .get("/api/v1/approval-rule", Some(&c.cashier.token))
            .await
            .expect(200);
        assert_eq!(
            rule,
            json!({ "correction_limit": "100.00", "correction_shift_total": "300.00",
                "correction_day_total": "1000.00", "expires_after_minutes": 60, "approver_wait_days": 7 })
        );
        let balance = minor(&app.balance(&c.players[0].id).await);
        correction(&app, &c, "5.00").await.expect(201);
        let pending = correction(&app, &c, "150.00").await.expect(202);
        assert_eq!(pending["kind"], "correction");
        assert_eq!(pending["proposed_by"], c.cashier.id.as_str());
        assert_eq!(
            app.balance(&c.players[0].id).await,
            money(balance + 500),
            "the large one waits"
        );
        let applied = app.approve(&pending).await;
        assert_eq!(applied["result"]["transfer"]["amount"], "150.00", "{applied}");
        assert_eq!(app.balance(&c.players[0].id).await, money(balance + 15_500));
        // The cashier who proposed it may read it; another cashier may not.
        let own = app
            .get(
                &format!("/api/v1/proposals/{}", s(&pending["id"])),
                Some(&c.cashier.token),
            )
            .await
            .expect(200);
        assert_eq!(own["status"], "applied");
        let other = app.create_user(Role::Cashier).await;
        app.get(&format!("/api/v1/proposals/{}", s(&pending["id"])), Some(&other.token))
            .await
            .assert_error(403, "forbidden");

        // Changing the rule is itself a two-person change.
        let stricter = json!({ "correction_limit": "10.00", "correction_shift_total": "300.00",
            "correction_day_total": "1000.00", "expires_after_minutes": 30, "approver_wait_days": 7 });
        app.put("/api/v1/approval-rule", Some(&c.cashier.token), &stricter, None)
            .await
            .assert_error(403, "forbidden");
        let bad = json!({ "correction_limit": "10.00", "expires_after_minutes": 0 });
        app.put("/api/v1/approval-rule", Some(&c.pitboss.token), &bad, None)
            .await
            .assert_error(422, "invalid_approval_rule");
        app.two_person(reqwest::Method::PUT, "/api/v1/approval-rule", &c.pitboss, &stricter)
            .await;
        assert_eq!(
            app.get("/api/v1/approval-rule", Some(&c.dealer.token))
                .await
                .expect(200),
            stricter
        );
        assert_eq!(app.events("approval_rule_changed").await.len(), 1);
        correction(&app, &c, "20.00").await.expect(202);
        app.assert_ledger_sound().await;
    }
);

both_backends!(
    async fn a_proposal_approved_by_many_at_once_applies_once(app: TestApp) {
        let c = casino(&app, TableOptions::default()).await;
        let proposal = correction(&app, &c, "250.00").await.expect(202);
        let balance = minor(&app.balance(&c.players[0].id).await);
        let mut bosses: Vec<TestUser> = Vec::new();
        for _ in 0..6 {
            bosses.push(app.create_user(Role::Pitboss).await);
        }
        let requests = bosses
            .iter()
            .map(|b| (approve_path(&proposal), b.token.clone(), json!({}), None))
            .collect();
        let results = app.post_all_at_once(requests).await;
        let applied = results.iter().filter(|(st, _)| *st == 200).count();
        assert_eq!(applied, 1, "{results:?}");
        assert!(
            results
                .iter()
                .all(|(st, t)| *st == 200 || (*st == 409 && t.contains("proposal_decided"))),
            "{results:?}"
        );
        assert_eq!(app.balance(&c.players[0].id).await, money(balance + 25_000));
        assert_eq!(app.events("correction").await.len(), 1);
        app.assert_ledger_sound().await;
    }
);

both_backends!(
    async fn an_older_proposal_cannot_undo_a_newer_change(app: TestApp) {
        let c = closed_casino(&app).await;
        let second = app.create_user(Role::Pitboss).await;
        // Two proposals on the same table; the newer applies first.
        let older = propose_max_bet(&app, &c, "60.00").await;
        let newer = propose_max_bet(&app, &c, "70.00").await;
        app.post(&approve_path(&newer), Some(&second.token), &json!({}), None)
            .await
            .expect(200);
        assert_eq!(max_bet(&app, &c).await, "70.00");
        // The older one is stale: approving it would silently put 60.00 back.
        app.post(&approve_path(&older), Some(&second.token), &json!({}), None)
            .await
            .assert_error(409, "proposal_stale");
        assert_eq!(max_bet(&app, &c).await, "70.00");
        let pending = app
            .get(&format!("/api/v1/proposals/{}", s(&older["id"])), Some(&second.token))
            .await
            .expect(200);
        assert_eq!(
            pending["status"], "pending",
            "refused, not decided: its proposer may withdraw it"
        );

        // A proposal made on a closed table, the table opened and closed again: stale as well,
        // whatever was dealt meanwhile.
        let proposal = propose_max_bet(&app, &c, "80.00").await;
        for action in ["open", "close"] {
            app.post(
                &format!("/api/v1/tables/{}/{action}", c.table),
                Some(&c.pitboss.token),
                &json!({}),
                None,
            )
            .await
            .expect(200);
        }
        app.post(&approve_path(&proposal), Some(&second.token), &json!({}), None)
            .await
            .assert_error(409, "proposal_stale");
        assert_eq!(max_bet(&app, &c).await, "70.00");

        // An approval rule proposed, then another applied: the first is stale too.
        let rule = |minutes: u32| json!({ "correction_limit": "100.00", "expires_after_minutes": minutes });
        let first = app
            .put("/api/v1/approval-rule", Some(&c.pitboss.token), &rule(60), None)
            .await
            .expect(202);
        let then = app
            .put("/api/v1/approval-rule", Some(&c.pitboss.token), &rule(90), None)
            .await
            .expect(202);
        app.post(&approve_path(&then), Some(&second.token), &json!({}), None)
            .await
            .expect(200);
        app.post(&approve_path(&first), Some(&second.token), &json!({}), None)
            .await
            .assert_error(409, "proposal_stale");

        // A proposal nothing has changed since still applies.
        let fresh = propose_max_bet(&app, &c, "90.00").await;
        app.post(&approve_path(&fresh), Some(&second.token), &json!({}), None)
            .await
            .expect(200);
        assert_eq!(max_bet(&app, &c).await, "90.00");
    }
);

/// Signs in with a temporary password and replaces it, as the account's holder would; returns a
/// token that may act.
async fn take_over(app: &TestApp, username: &str, temporary: &str) -> String {
    let token = app.login(username, temporary).await;
    let change = json!({ "current_password": temporary, "new_password": "now-it-is-mine-alone" });
    let changed = app.put("/api/v1/me/password", Some(&token), &change, None).await;
    assert_eq!(changed.status, 204, "{}", changed.text);
    app.login(username, "now-it-is-mine-alone").await
}

both_backends!(
    async fn one_pit_boss_cannot_make_borrow_or_promote_a_second_account_to_approve_with(app: TestApp) {
        let c = casino(&app, TableOptions::default()).await;
        let boss = &c.pitboss;
        let mine = app
            .put(
                "/api/v1/approval-rule",
                Some(&boss.token),
                &json!({ "correction_limit": "1.00", "expires_after_minutes": 60 }),
                None,
            )
            .await
            .expect(202);

        // A second pit-boss account is only proposed; nobody can sign in as it yet.
        let sneaky = json!({ "username": "sneaky-boss", "role": "pitboss", "password": "long-enough-password" });
        let made = app
            .post("/api/v1/users", Some(&boss.token), &sneaky, None)
            .await
            .expect(202);
        assert_eq!(made["kind"], "create_staff_account", "{made}");
        assert_eq!(
            made["request"],
            json!({ "username": "sneaky-boss", "display_name": "sneaky-boss", "role": "pitboss" })
        );
        assert!(
            !made.to_string().contains("argon2"),
            "no password hash is shown: {made}"
        );
        app.try_login("sneaky-boss", "long-enough-password")
            .await
            .assert_error(401, "unauthenticated");
        // Nor an auditor's.
        let auditor = json!({ "username": "sneaky-auditor", "role": "auditor", "password": "long-enough-password" });
        app.post("/api/v1/users", Some(&boss.token), &auditor, None)
            .await
            .expect(202);

        // Another pit boss's password: only proposed; their own still works, the new one does not.
        let other = app.create_user(Role::Pitboss).await;
        let reset = json!({ "temporary_password": "i-know-this-one" });
        let path = format!("/api/v1/users/{}/password", other.id);
        let proposed_reset = app.post(&path, Some(&boss.token), &reset, None).await.expect(202);
        assert_eq!(proposed_reset["kind"], "reset_staff_password");
        app.login(&other.username, &other.password).await;
        app.try_login(&other.username, "i-know-this-one")
            .await
            .assert_error(401, "unauthenticated");

        // A dealer the pit boss made alone is not promoted alone; nor is a deactivated pit boss
        // reactivated alone.
        let dealer = app
            .post(
                "/api/v1/users",
                Some(&boss.token),
                &json!({ "username": "new-dealer", "role": "dealer", "password": "long-enough-password" }),
                None,
            )
            .await
            .expect(201);
        let promote = app
            .put(
                &format!("/api/v1/users/{}", s(&dealer["id"])),
                Some(&boss.token),
                &json!({ "role": "pitboss" }),
                None,
            )
            .await
            .expect(202);
        assert_eq!(promote["kind"], "change_staff_account");
        let dealer_token = app.login("new-dealer", "long-enough-password").await;
        let me = app.get("/api/v1/me", Some(&dealer_token)).await.expect(200);
        assert_eq!(me["role"], "dealer", "{me}");
        app.put(
            &format!("/api/v1/users/{}", other.id),
            Some(&boss.token),
            &json!({ "active": false }),
            None,
        )
        .await
        .expect(200);
        let reactivate = app
            .put(
                &format!("/api/v1/users/{}", other.id),
                Some(&boss.token),
                &json!({ "active": true }),
                None,
            )
            .await
            .expect(202);
        app.try_login(&other.username, &other.password)
            .await
            .assert_error(401, "unauthenticated");

        // A second, pre-existing pit boss approves the account: it is made, the proposer's.
        let second = app.create_user(Role::Pitboss).await;
        let applied = app
            .post(&approve_path(&made), Some(&second.token), &json!({}), None)
            .await
            .expect(200);
        assert_eq!(applied["result"]["role"], "pitboss", "{applied}");
        let sneaky_token = app.login("sneaky-boss", "long-enough-password").await;
        // It cannot approve its maker's proposal, however long it waits...
        let refused = app
            .post(&approve_path(&mine), Some(&sneaky_token), &json!({}), None)
            .await;
        refused.assert_error(403, "forbidden");
        assert!(refused.text.contains("made"), "{}", refused.text);
        // ...and approves nobody's in its first week.
        let stranger = app.create_user(Role::Pitboss).await;
        let theirs = app
            .put(
                "/api/v1/approval-rule",
                Some(&stranger.token),
                &json!({ "correction_limit": "2.00", "expires_after_minutes": 60 }),
                None,
            )
            .await
            .expect(202);
        let too_new = app
            .post(&approve_path(&theirs), Some(&sneaky_token), &json!({}), None)
            .await;
        too_new.assert_error(403, "forbidden");
        assert!(too_new.text.contains("first 7 days"), "{}", too_new.text);
        // A promotion and a reactivation approved are the proposer's too.
        app.post(&approve_path(&promote), Some(&second.token), &json!({}), None)
            .await
            .expect(200);
        app.post(&approve_path(&reactivate), Some(&second.token), &json!({}), None)
            .await
            .expect(200);
        app.login(&other.username, &other.password).await;
        let promoted = app.login("new-dealer", "long-enough-password").await;
        app.post(&approve_path(&mine), Some(&promoted), &json!({}), None)
            .await
            .assert_error(403, "forbidden");
        // The reset, approved: stale, since the account changed (it was reactivated) after it was
        // proposed; proposed again and approved, it applies.
        app.post(&approve_path(&proposed_reset), Some(&second.token), &json!({}), None)
            .await
            .assert_error(409, "proposal_stale");
        let again = app.post(&path, Some(&boss.token), &reset, None).await.expect(202);
        app.post(&approve_path(&again), Some(&second.token), &json!({}), None)
            .await
            .expect(200);
        let borrowed = take_over(&app, &other.username, "i-know-this-one").await;
        // Whoever reset it knows it: the borrowed account cannot approve its resetter's proposal.
        app.post(&approve_path(&mine), Some(&borrowed), &json!({}), None)
            .await
            .assert_error(403, "forbidden");
        // The rule stands as it was: nothing of the pit boss's own applied.
        let rule = app
            .get("/api/v1/approval-rule", Some(&c.cashier.token))
            .await
            .expect(200);
        assert_eq!(rule["correction_limit"], "100.00");
        assert_eq!(
            app.get(&format!("/api/v1/proposals/{}", s(&mine["id"])), Some(&second.token))
                .await
                .expect(200)["status"],
            "pending"
        );
    }
);

both_backends!(
    async fn a_cashier_whose_password_a_pit_boss_reset_cannot_propose_for_that_pit_boss(app: TestApp) {
        let c = casino(&app, TableOptions::default()).await;
        // The pit boss resets the cashier's password alone (a cashier's is theirs to reset)...
        let path = format!("/api/v1/users/{}/password", c.cashier.id);
        let reset = app
            .post(
                &path,
                Some(&c.pitboss.token),
                &json!({ "temporary_password": "i-know-this-one" }),
                None,
            )
            .await;
        assert_eq!(reset.status, 204, "{}", reset.text);
        let cashier = take_over(&app, &c.cashier.username, "i-know-this-one").await;
        // ...so a correction proposed from that account is not theirs to approve.
        let body = json!({ "player_id": c.players[0].id, "amount": "150.00", "direction": "credit", "reason": "short-paid at the cage" });
        let proposal = app
            .post("/api/v1/cage/corrections", Some(&cashier), &body, None)
            .await
            .expect(202);
        let refused = app
            .post(&approve_path(&proposal), Some(&c.pitboss.token), &json!({}), None)
            .await;
        refused.assert_error(403, "forbidden");
        // Another pit boss may.
        let applied = app.approve(&proposal).await;
        assert_eq!(applied["result"]["transfer"]["amount"], "150.00", "{applied}");
        app.assert_ledger_sound().await;
    }
);

both_backends!(
    async fn corrections_sent_at_once_cannot_pass_the_running_totals(app: TestApp) {
        let c = casino(&app, TableOptions::default()).await;
        let before = minor(&app.balance(&c.players[0].id).await);
        // Five corrections at the per-correction limit, at once: the shift's total (300.00) lets
        // three through; the other two wait for a pit boss.
        let body = json!({ "player_id": c.players[0].id, "amount": "100.00", "direction": "credit", "reason": "short-paid at the cage" });
        let answers = app
            .post_all_at_once(
                (0..5)
                    .map(|_| {
                        (
                            "/api/v1/cage/corrections".to_string(),
                            c.cashier.token.clone(),
                            body.clone(),
                            None,
                        )
                    })
                    .collect(),
            )
            .await;
        let made = answers.iter().filter(|(status, _)| *status == 201).count();
        let proposed = answers.iter().filter(|(status, _)| *status == 202).count();
        assert_eq!((made, proposed), (3, 2), "{answers:?}");
        assert_eq!(app.balance(&c.players[0].id).await, money(before + 30_000));
        // Debits count as much as credits; even a cent now waits, from another cashier too.
        let other = app.create_user(Role::Cashier).await;
        let cent =
            json!({ "player_id": c.players[0].id, "amount": "0.01", "direction": "debit", "reason": "a cent over" });
        app.post("/api/v1/cage/corrections", Some(&other.token), &cent, None)
            .await
            .expect(202);
        // An approved correction does not count against the totals it passed.
        let pending: Vec<Value> = answers
            .iter()
            .filter(|(status, _)| *status == 202)
            .map(|(_, body)| serde_json::from_str(body).unwrap())
            .collect();
        for p in &pending {
            app.approve(p).await;
        }
        assert_eq!(app.balance(&c.players[0].id).await, money(before + 50_000));
        let events = app.events("correction").await;
        assert_eq!(events.len(), 5, "{events:?}");
        let approved = events
            .iter()
            .map(|e| serde_json::from_str::<Value>(s(&e["details"])).unwrap())
            .filter(|d| d["approved_by"].is_string())
            .count();
        assert_eq!(approved, 2, "{events:?}");
        app.assert_ledger_sound().await;
    }
);
