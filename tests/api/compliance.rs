//! Cash-transaction compliance through HTTP: a patron whose cash in passes the report
//! threshold across three cashiers in one gaming day is stopped for identity, then reported
//! with the right totals; runs just under a threshold, pieces split across cashiers and cash
//! through the wallet without play raise alerts for the auditor, whose escalation the patron
//! never sees; identities are sealed at rest and every read is recorded; the thresholds change
//! only with a second pit boss. (Filing a report waits for its gaming day's end:
//! tests/compliance_clock.rs.)

use diesel::prelude::*;
use serde_json::{json, Value};

use djego::domain::Role;
use djego::store::StoreError;

use crate::helpers::{TestApp, TestResponse, TestUser};

pub(crate) fn identity(name: &str) -> Value {
    json!({
        "full_name": name,
        "date_of_birth": "1980-04-12",
        "address": "12 Rua das Flores, Lisboa 1100-001, Portugal",
        "document_type": "passport",
        "document_number": "P1234567",
        "document_issuer": "Portugal",
    })
}

pub(crate) async fn cash(
    app: &TestApp,
    cashier: &TestUser,
    op: &str,
    player: &TestUser,
    amount: &str,
    location: &str,
) -> TestResponse {
    app.cage(
        cashier,
        op,
        &json!({ "player_id": player.id, "amount": amount, "location": location }),
        None,
    )
    .await
}

pub(crate) async fn record_identity(app: &TestApp, cashier: &TestUser, player: &TestUser, name: &str) {
    let recorded = app
        .put(
            &format!("/api/v1/players/{}/identity", player.id),
            Some(&cashier.token),
            &identity(name),
            None,
        )
        .await
        .expect(200);
    assert_eq!(recorded["on_file"], true, "{recorded}");
}

async fn alerts(app: &TestApp, status: &str) -> Vec<Value> {
    let auditor = app.auditor().await.token.clone();
    app.get(&format!("/api/v1/compliance/alerts?status={status}"), Some(&auditor))
        .await
        .expect(200)
        .as_array()
        .expect("a list")
        .clone()
}

fn patterns_of(alerts: &[Value], player: &TestUser) -> Vec<String> {
    let mut out: Vec<String> = alerts
        .iter()
        .filter(|a| a["patron"]["id"] == player.id.as_str())
        .map(|a| a["pattern"].as_str().unwrap().to_owned())
        .collect();
    out.sort();
    out
}

both_backends!(
    async fn three_cashiers_past_the_report_threshold_stop_for_identity_then_report(app: TestApp) {
        let cashiers = [
            app.create_user(Role::Cashier).await,
            app.create_user(Role::Cashier).await,
            app.create_user(Role::Cashier).await,
        ];
        let patron = app.create_user(Role::Player).await;
        cash(&app, &cashiers[0], "deposits", &patron, "4000.00", "Window 1")
            .await
            .expect(201);
        cash(&app, &cashiers[1], "deposits", &patron, "4000.00", "Window 2")
            .await
            .expect(201);
        let prompt = app
            .get(
                &format!("/api/v1/cage/patrons/{}/today", patron.id),
                Some(&cashiers[2].token),
            )
            .await
            .expect(200);
        assert_eq!(
            (
                &prompt["deposits"],
                &prompt["deposits_before_identity"],
                &prompt["identity_on_file"]
            ),
            (&json!("8000.00"), &json!("2000.00"), &json!(false)),
            "{prompt}"
        );

        // The third cashier's 4,000.00 would bring the day to 12,000.00: identity first.
        let stopped = cash(&app, &cashiers[2], "deposits", &patron, "4000.00", "Window 3").await;
        stopped.assert_error(409, "identity_required");
        let details = &stopped.json()["error"]["details"];
        assert_eq!(details["day_total_before"], "8000.00", "{details}");
        assert_eq!(details["day_total_after"], "12000.00", "{details}");
        assert_eq!(details["report_threshold"], "10000.00", "{details}");
        assert!(
            details["missing"].as_array().unwrap().contains(&json!("date_of_birth")),
            "{details}"
        );
        assert_eq!(app.balance(&patron.id).await, "8000.00", "nothing moved");
        let auditor = app.auditor().await.token.clone();
        let none: Vec<Value> = app
            .get("/api/v1/compliance/reports", Some(&auditor))
            .await
            .expect(200)
            .as_array()
            .unwrap()
            .clone();
        assert!(none.is_empty(), "no report before the threshold is passed: {none:?}");

        record_identity(&app, &cashiers[2], &patron, "Ana Beatriz Souza").await;
        cash(&app, &cashiers[2], "deposits", &patron, "4000.00", "Window 3")
            .await
            .expect(201);
        assert_eq!(app.balance(&patron.id).await, "12000.00");

        let reports = app.get("/api/v1/compliance/reports", Some(&auditor)).await.expect(200);
        let reports = reports.as_array().unwrap();
        assert_eq!(reports.len(), 1, "{reports:?}");
        let summary = &reports[0];
        assert_eq!(
            (
                &summary["cash_in_total"],
                &summary["cash_out_total"],
                &summary["patron"]["id"]
            ),
            (&json!("12000.00"), &json!("0.00"), &json!(patron.id)),
            "{summary}"
        );
        assert!(summary["filing"].is_null());
        let id = summary["id"].as_str().unwrap();
        let document = app
            .get(&format!("/api/v1/compliance/reports/{id}"), Some(&auditor))
            .await
            .expect(200);
        assert_eq!(document["identity"]["full_name"], "Ana Beatriz Souza", "{document}");
        assert_eq!(document["cash_in"]["total"], "12000.00");
        assert_eq!(document["cash_in"]["over_threshold"], true);
        assert_eq!(document["cash_out"]["over_threshold"], false);
        let pieces = document["cash_in"]["transactions"].as_array().unwrap();
        let cashiers_seen: Vec<&str> = pieces.iter().map(|t| t["cashier"].as_str().unwrap()).collect();
        let names: Vec<&str> = cashiers.iter().map(|c| c.username.as_str()).collect();
        assert_eq!(cashiers_seen, names, "each piece names its cashier");
        assert_eq!(pieces[2]["location"], "Window 3");
        assert_eq!(
            document["missing"],
            json!(["casino_name", "casino_address", "casino_tax_id"]),
            "the casino's facts are not set yet: {document}"
        );
        // Filing waits for the day's end (and the casino's facts).
        app.post(
            &format!("/api/v1/compliance/reports/{id}/filing"),
            Some(&auditor),
            &json!({ "reference": "BSA-1" }),
            None,
        )
        .await
        .assert_error(409, "gaming_day_not_over");

        let day = document["gaming_day"].as_str().unwrap();
        let csv = app
            .send(app.request(
                reqwest::Method::GET,
                &format!("/api/v1/compliance/reports/export?gaming_day={day}&format=csv"),
                Some(&auditor),
            ))
            .await;
        assert_eq!(csv.status, 200);
        let mut rows = csv::Reader::from_reader(csv.text.as_bytes());
        let headers = rows.headers().unwrap().clone();
        let records: Vec<csv::StringRecord> = rows.records().map(|r| r.unwrap()).collect();
        assert_eq!(records.len(), 1);
        let field = |name: &str| records[0][headers.iter().position(|h| h == name).unwrap()].to_owned();
        assert_eq!(field("full_name"), "Ana Beatriz Souza");
        assert_eq!(field("cash_in_total"), "12000.00");
        assert_eq!(field("transactions"), "3");
        let json_export = app
            .get(
                &format!("/api/v1/compliance/reports/export?gaming_day={day}"),
                Some(&auditor),
            )
            .await
            .expect(200);
        assert_eq!(json_export.as_array().unwrap().len(), 1);

        // The multiple-transaction log: each 4,000.00 is at or above 3,000.00.
        let log = app
            .get(&format!("/api/v1/compliance/cash-log?gaming_day={day}"), Some(&auditor))
            .await
            .expect(200);
        let log = log.as_array().unwrap();
        assert_eq!(log.len(), 3, "{log:?}");
        assert!(log
            .iter()
            .all(|l| l["patron_name"] == "Ana Beatriz Souza" && l["amount"] == "4000.00"));
        assert_eq!(log[0]["cashier"]["username"], cashiers[0].username.as_str());

        // Three cashiers in pieces past the threshold (the refused one counts): an alert.
        let open = alerts(&app, "open").await;
        assert_eq!(patterns_of(&open, &patron), ["split_transactions"], "{open:?}");
        let evidence = &open[0]["evidence"]["transactions"];
        assert_eq!(evidence.as_array().unwrap().len(), 3, "{evidence}");
        assert!(
            evidence[2]["transfer_id"].is_null(),
            "the refused attempt is evidence: {evidence}"
        );

        // Every read of the identity is recorded, with its reader; the event never carries it.
        let reads = app.events("patron_identity_read").await;
        let auditor_id = app.auditor().await.id.clone();
        assert!(reads.len() >= 3, "the report, the export and the log: {reads:?}");
        assert!(reads
            .iter()
            .all(|e| e["actor_id"] == auditor_id.as_str() && e["subject"] == patron.id.as_str()));
        assert!(!serde_json::to_string(&reads).unwrap().contains("Souza"));
        // At rest, sealed: the row says nothing of the patron.
        let sealed: String = app
            .database()
            .read(|conn| {
                use djego::store::schema::patron_identities as pi;
                pi::table
                    .find(&patron.id)
                    .select(pi::sealed)
                    .first(conn)
                    .map_err(StoreError::from)
            })
            .unwrap();
        assert!(!sealed.contains("Souza") && !hex::decode(&sealed).unwrap().windows(5).any(|w| w == b"Souza"));
    }
);

both_backends!(
    async fn a_withdrawal_past_the_report_threshold_needs_identity_too(app: TestApp) {
        let cashier = app.create_user(Role::Cashier).await;
        let patron = app.create_user(Role::Player).await;
        record_identity(&app, &cashier, &patron, "Rui Costa").await;
        cash(&app, &cashier, "deposits", &patron, "20000.00", "Window 1")
            .await
            .expect(201);
        let other = app.create_user(Role::Player).await;
        // Without identity, a single withdrawal past the threshold is stopped.
        app.database()
            .write(|conn| -> Result<_, StoreError> {
                use djego::store::schema::patron_identities as pi;
                Ok(diesel::delete(pi::table.find(&patron.id)).execute(conn)?)
            })
            .unwrap();
        cash(&app, &cashier, "withdrawals", &patron, "10000.01", "Window 1")
            .await
            .assert_error(409, "identity_required");
        cash(&app, &cashier, "withdrawals", &patron, "10000.00", "Window 1")
            .await
            .expect(201);
        cash(&app, &cashier, "withdrawals", &patron, "0.01", "Window 1")
            .await
            .assert_error(409, "identity_required");
        // Identity is asked of the cage, not of the patron: the patron cannot read it.
        app.get(&format!("/api/v1/players/{}/identity", patron.id), Some(&patron.token))
            .await
            .assert_error(403, "forbidden");
        app.get(&format!("/api/v1/players/{}/identity", other.id), Some(&cashier.token))
            .await
            .assert_error(404, "not_found");
    }
);

both_backends!(
    async fn runs_just_under_a_threshold_raise_alerts_whose_escalation_the_patron_never_sees(app: TestApp) {
        let cashier = app.create_user(Role::Cashier).await;
        let patron = app.create_user(Role::Player).await;
        record_identity(&app, &cashier, &patron, "Marta Alves").await;
        for _ in 0..2 {
            cash(&app, &cashier, "deposits", &patron, "9500.00", "Window 1")
                .await
                .expect(201);
        }
        assert!(
            patterns_of(&alerts(&app, "open").await, &patron).is_empty(),
            "two are not a run"
        );
        cash(&app, &cashier, "deposits", &patron, "9500.00", "Window 1")
            .await
            .expect(201);
        let open = alerts(&app, "open").await;
        assert_eq!(patterns_of(&open, &patron), ["near_threshold"], "{open:?}");
        let alert = open.iter().find(|a| a["patron"]["id"] == patron.id.as_str()).unwrap();
        assert_eq!(
            alert["evidence"]["transactions"].as_array().unwrap().len(),
            3,
            "{alert}"
        );
        // A fourth does not raise the same pattern twice in a day.
        cash(&app, &cashier, "deposits", &patron, "9500.00", "Window 1")
            .await
            .expect(201);
        assert_eq!(patterns_of(&alerts(&app, "open").await, &patron).len(), 1);

        // Just under the log threshold, too, for a patron never asked for identity.
        let quiet = app.create_user(Role::Player).await;
        for _ in 0..3 {
            cash(&app, &cashier, "deposits", &quiet, "2900.00", "Window 2")
                .await
                .expect(201);
        }
        assert_eq!(patterns_of(&alerts(&app, "open").await, &quiet), ["near_threshold"]);

        // Only the auditor sees the queue.
        for who in [&patron.token, &cashier.token] {
            app.get("/api/v1/compliance/alerts", Some(who))
                .await
                .assert_error(403, "forbidden");
            app.get("/api/v1/compliance/suspicious-activity", Some(who))
                .await
                .assert_error(403, "forbidden");
        }
        let auditor = app.auditor().await.token.clone();
        let path = format!("/api/v1/compliance/alerts/{}/review", alert["id"].as_str().unwrap());
        app.post(
            &path,
            Some(&auditor),
            &json!({ "decision": "escalate", "note": "  " }),
            None,
        )
        .await
        .assert_error(422, "invalid_review");
        let reviewed = app
            .post(
                &path,
                Some(&auditor),
                &json!({ "decision": "escalate", "note": "Four deposits of 9,500.00 in one day." }),
                None,
            )
            .await
            .expect(200);
        assert_eq!(reviewed["status"], "escalated");
        assert_eq!(reviewed["suspicious_activity"]["patron"]["id"], patron.id.as_str());
        app.post(
            &path,
            Some(&auditor),
            &json!({ "decision": "dismiss", "note": "again" }),
            None,
        )
        .await
        .assert_error(409, "alert_reviewed");
        let records = app
            .get("/api/v1/compliance/suspicious-activity", Some(&auditor))
            .await
            .expect(200);
        assert_eq!(records.as_array().unwrap().len(), 1, "{records}");
        // Nothing the patron can read mentions it.
        for path in ["/api/v1/me", "/api/v1/me/protection", "/api/v1/me/wallet"] {
            let mine = app.get(path, Some(&patron.token)).await;
            assert!(
                !mine.text.contains("suspicious") && !mine.text.contains("escalat") && !mine.text.contains("alert"),
                "{path}: {}",
                mine.text
            );
        }
        assert_eq!(alerts(&app, "escalated").await.len(), 1);
        // The cash log and the records are kept as written.
        for statement in [
            "UPDATE cash_transactions SET amount_minor = 1",
            "DELETE FROM cash_transactions",
            "UPDATE suspicious_activity_reports SET narrative = 'nothing'",
            "DELETE FROM suspicious_activity_reports",
        ] {
            let changed = app
                .database()
                .write(|conn| -> Result<usize, StoreError> { Ok(diesel::sql_query(statement).execute(conn)?) });
            assert!(changed.is_err(), "the table refuses {statement}: {changed:?}");
        }
    }
);

both_backends!(
    async fn cash_through_the_wallet_with_little_play_is_an_alert(app: TestApp) {
        let cashier = app.create_user(Role::Cashier).await;
        let patron = app.create_user(Role::Player).await;
        cash(&app, &cashier, "deposits", &patron, "5000.00", "Window 1")
            .await
            .expect(201);
        cash(&app, &cashier, "withdrawals", &patron, "4900.00", "Window 2")
            .await
            .expect(201);
        assert_eq!(patterns_of(&alerts(&app, "open").await, &patron), ["minimal_play"]);
        // A small cash-out is no pattern.
        let small = app.create_user(Role::Player).await;
        cash(&app, &cashier, "deposits", &small, "5000.00", "Window 1")
            .await
            .expect(201);
        cash(&app, &cashier, "withdrawals", &small, "100.00", "Window 1")
            .await
            .expect(201);
        assert!(patterns_of(&alerts(&app, "open").await, &small).is_empty());
    }
);

both_backends!(
    async fn the_thresholds_change_only_with_a_second_pit_boss(app: TestApp) {
        let pitboss = app.create_user(Role::Pitboss).await;
        let cashier = app.create_user(Role::Cashier).await;
        let patron = app.create_user(Role::Player).await;
        let rules = app
            .get("/api/v1/compliance/rules", Some(&cashier.token))
            .await
            .expect(200);
        assert_eq!(
            (&rules["log_threshold"], &rules["report_threshold"]),
            (&json!("3000.00"), &json!("10000.00"))
        );
        let mut lower = rules.clone();
        lower["report_threshold"] = json!("1000.00");
        lower["log_threshold"] = json!("500.00");
        lower["casino_name"] = json!("Casino Postas");
        // A cashier proposes nothing; a pit boss alone changes nothing.
        app.put("/api/v1/compliance/rules", Some(&cashier.token), &lower, None)
            .await
            .assert_error(403, "forbidden");
        let mut bad = lower.clone();
        bad["log_threshold"] = json!("2000.00");
        app.put("/api/v1/compliance/rules", Some(&pitboss.token), &bad, None)
            .await
            .assert_error(422, "invalid_compliance_rules");
        let proposed = app
            .put("/api/v1/compliance/rules", Some(&pitboss.token), &lower, None)
            .await
            .expect(202);
        assert_eq!(proposed["kind"], "change_compliance_rules");
        cash(&app, &cashier, "deposits", &patron, "1500.00", "Window 1")
            .await
            .expect(201);
        // The proposer cannot approve their own proposal.
        app.post(
            &format!("/api/v1/proposals/{}/approve", proposed["id"].as_str().unwrap()),
            Some(&pitboss.token),
            &json!({}),
            None,
        )
        .await
        .assert_error(403, "forbidden");
        let applied = app.approve(&proposed).await;
        assert_eq!(applied["status"], "applied", "{applied}");
        let now = app
            .get("/api/v1/compliance/rules", Some(&cashier.token))
            .await
            .expect(200);
        assert_eq!(now["report_threshold"], "1000.00");
        assert_eq!(now["casino_name"], "Casino Postas");
        // Under the new rules the next deposit already passes the report threshold.
        cash(&app, &cashier, "deposits", &patron, "1.00", "Window 1")
            .await
            .assert_error(409, "identity_required");
        assert_eq!(app.events("compliance_rules_changed").await.len(), 1);
    }
);

both_backends!(
    async fn an_exclusion_list_is_matched_against_patrons_and_a_second_person_reviews_each_match(app: TestApp) {
        let cashier = app.create_user(Role::Cashier).await;
        let pitboss = app.create_user(Role::Pitboss).await;
        let auditor = app.auditor().await.token.clone();
        let listed = app.create_user(Role::Player).await;
        let mut jose = identity("José  O'Neil");
        jose["date_of_birth"] = json!("1970-01-31");
        app.put(
            &format!("/api/v1/players/{}/identity", listed.id),
            Some(&cashier.token),
            &jose,
            None,
        )
        .await
        .expect(200);
        record_identity(&app, &cashier, &app.create_user(Role::Player).await, "Maria Lopes").await;

        let csv = "full_name,date_of_birth,document_number,ends_on\n\
                   jose o'neil,1970-01-31,,\n\
                   Maria Lopes,1980-04-12,,2020-01-01\n\
                   Carla Dias,1985-03-03,D999,2099-12-31\n";
        app.post(
            "/api/v1/exclusion-lists",
            Some(&cashier.token),
            &json!({ "name": "State list", "csv": csv }),
            None,
        )
        .await
        .assert_error(403, "forbidden");
        app.post(
            "/api/v1/exclusion-lists",
            Some(&pitboss.token),
            &json!({ "name": "State list", "csv": "name,born\nA,1970-01-01\n" }),
            None,
        )
        .await
        .assert_error(422, "invalid_exclusion_list");
        let imported = app
            .post(
                "/api/v1/exclusion-lists",
                Some(&pitboss.token),
                &json!({ "name": "State voluntary exclusion list", "csv": csv }),
                None,
            )
            .await
            .expect(201);
        assert_eq!(
            (&imported["entries"], &imported["ended"], &imported["matches"]),
            (&json!(2), &json!(1), &json!(1)),
            "accents, case, spacing and punctuation do not hide José; Maria's ended: {imported}"
        );
        let lists = app.get("/api/v1/exclusion-lists", Some(&auditor)).await.expect(200);
        assert_eq!(
            (&lists[0]["entries"], &lists[0]["matches"], &lists[0]["pending"]),
            (&json!(2), &json!(1), &json!(1)),
            "the list counts its matches: {lists}"
        );

        let pending = app
            .get("/api/v1/exclusion-lists/matches?status=pending", Some(&pitboss.token))
            .await
            .expect(200);
        let pending = pending.as_array().unwrap();
        assert_eq!(pending.len(), 1, "{pending:?}");
        let m = &pending[0];
        assert_eq!(m["patron"]["id"], listed.id.as_str());
        assert_eq!(m["basis"], "name_and_date_of_birth");
        assert_eq!(m["listed"]["full_name"], "jose o'neil");
        assert_eq!(m["identity"]["full_name"], "José  O'Neil");
        let path = format!("/api/v1/exclusion-lists/matches/{}/review", m["id"].as_str().unwrap());
        // The importer does not review their own list's matches.
        app.post(
            &path,
            Some(&pitboss.token),
            &json!({ "decision": "confirm", "note": "same person" }),
            None,
        )
        .await
        .assert_error(403, "forbidden");
        // Nothing is excluded until a second person confirms.
        cash(&app, &cashier, "deposits", &listed, "10.00", "Window 1")
            .await
            .expect(201);
        let confirmed = app
            .post(
                &path,
                Some(&auditor),
                &json!({ "decision": "confirm", "note": "Name, birth date and photograph agree." }),
                None,
            )
            .await
            .expect(200);
        assert_eq!(confirmed["status"], "confirmed");
        cash(&app, &cashier, "deposits", &listed, "10.00", "Window 1")
            .await
            .assert_error(403, "excluded_from_play");
        let standing = app.get("/api/v1/me/protection", Some(&listed.token)).await.expect(200);
        assert!(
            standing["excluded"]["ends_at_us"].is_null(),
            "permanent, as listed: {standing}"
        );
        app.post(
            &path,
            Some(&auditor),
            &json!({ "decision": "reject", "note": "again" }),
            None,
        )
        .await
        .assert_error(409, "match_reviewed");

        // A patron identified after the import is matched then (by name and birth date, and by
        // document number written another way).
        let carla = app.create_user(Role::Player).await;
        let mut dias = identity("Carla Dias");
        dias["date_of_birth"] = json!("1985-03-03");
        dias["document_number"] = json!("d-999");
        app.put(
            &format!("/api/v1/players/{}/identity", carla.id),
            Some(&cashier.token),
            &dias,
            None,
        )
        .await
        .expect(200);
        let pending = app
            .get("/api/v1/exclusion-lists/matches?status=pending", Some(&auditor))
            .await
            .expect(200);
        let pending = pending.as_array().unwrap();
        assert_eq!(pending.len(), 1, "{pending:?}");
        assert_eq!(pending[0]["patron"]["id"], carla.id.as_str());
        assert_eq!(pending[0]["basis"], "both");
        let path = format!(
            "/api/v1/exclusion-lists/matches/{}/review",
            pending[0]["id"].as_str().unwrap()
        );
        let rejected = app
            .post(
                &path,
                Some(&auditor),
                &json!({ "decision": "reject", "note": "A different Carla Dias: photograph differs." }),
                None,
            )
            .await
            .expect(200);
        assert_eq!(rejected["status"], "rejected");
        cash(&app, &cashier, "deposits", &carla, "10.00", "Window 1")
            .await
            .expect(201);
        // Every match the list made, at the import and since, reviewed: none waits.
        let lists = app.get("/api/v1/exclusion-lists", Some(&auditor)).await.expect(200);
        assert_eq!(
            (&lists[0]["matches"], &lists[0]["pending"]),
            (&json!(2), &json!(0)),
            "{lists}"
        );
        assert_eq!(app.events("exclusion_list_imported").await.len(), 1);
        assert_eq!(app.events("exclusion_list_match_reviewed").await.len(), 2);
    }
);
