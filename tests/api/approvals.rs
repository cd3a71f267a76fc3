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

        // Every step is on record, with both people.
        let proposed = app.events("change_proposed").await;
        assert_eq!(proposed.len(), 1, "{proposed:?}");
        assert_eq!(proposed[0]["actor_id"], c.pitboss.id.as_str());
        let approved = app.events("change_approved").await;
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
        // Without the override, a table is created at once.
        lobo["house_rule_override"] = json!(false);
        lobo.as_object_mut().unwrap().remove("house_rule");
        app.post(
            "/api/v1/tables",
            Some(&c.pitboss.token),
            &json!({ "name": "Lobo proven", "config": lobo }),
            None,
        )
        .await
        .expect(201);

        // The rule: a correction above its limit waits for a pit boss.
        let rule = app
            .get("/api/v1/approval-rule", Some(&c.cashier.token))
            .await
            .expect(200);
        assert_eq!(
            rule,
            json!({ "correction_limit": "100.00", "expires_after_minutes": 60 })
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
        let stricter = json!({ "correction_limit": "10.00", "expires_after_minutes": 30 });
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
