//! A currency transaction report is filed only once its gaming day is over and it carries
//! every field a filing needs; filing freezes it: through HTTP on both databases, with this
//! program's clock moved forward (`djego::store::clock`). The clock is the whole process's, so
//! this program holds one test, which runs on SQLite and then on PostgreSQL.

#[path = "api/helpers.rs"]
#[macro_use]
#[allow(unused_macros)]
mod helpers;

use serde_json::{json, Value};

use djego::domain::Role;
use djego::store::clock;
use helpers::{Backend, TestApp, TestUser};

/// Past a gaming day.
const A_DAY_AND_A_SECOND_US: i64 = 24 * 3_600_000_000 + 1_000_000;

fn identity(name: &str) -> Value {
    json!({
        "full_name": name,
        "date_of_birth": "1975-09-30",
        "address": "4 Calle Mayor, Madrid 28013, Spain",
        "document_type": "national_identity_card",
        "document_number": "12345678Z",
        "document_issuer": "Spain",
        "occupation": "Engineer",
    })
}

async fn a_report_is_filed_after_its_day(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let patron = app.create_user(Role::Player).await;
    let mut cashier = app.create_user(Role::Cashier).await;
    let mut auditor = app.create_user(Role::Auditor).await;
    let mut pitboss = app.create_user(Role::Pitboss).await;
    app.put(
        &format!("/api/v1/players/{}/identity", patron.id),
        Some(&cashier.token),
        &identity("Lucía Pérez"),
        None,
    )
    .await
    .expect(200);
    for amount in ["6000.00", "6000.00"] {
        app.cage(
            &cashier,
            "deposits",
            &json!({ "player_id": patron.id, "amount": amount, "location": "Window 1" }),
            None,
        )
        .await
        .expect(201);
    }
    let reports = app
        .get("/api/v1/compliance/reports", Some(&auditor.token))
        .await
        .expect(200);
    let id = reports[0]["id"].as_str().expect("a report").to_owned();
    let file = |token: String| {
        let app = &app;
        let path = format!("/api/v1/compliance/reports/{id}/filing");
        async move {
            app.post(&path, Some(&token), &json!({ "reference": "CTR-2026-0042" }), None)
                .await
        }
    };
    file(auditor.token.clone())
        .await
        .assert_error(409, "gaming_day_not_over");

    clock::move_forward_for_tests(A_DAY_AND_A_SECOND_US);
    for u in [&mut cashier, &mut auditor, &mut pitboss] {
        let u: &mut TestUser = u;
        u.token = app.login(&u.username, &u.password).await;
    }
    // Over, but the casino's own facts are not set.
    let incomplete = file(auditor.token.clone()).await;
    incomplete.assert_error(409, "report_incomplete");
    assert_eq!(
        incomplete.json()["error"]["details"]["missing"],
        json!(["casino_name", "casino_address", "casino_tax_id"])
    );
    let mut rules = app
        .get("/api/v1/compliance/rules", Some(&pitboss.token))
        .await
        .expect(200);
    rules["casino_name"] = json!("Casino Postas S.A.");
    rules["casino_address"] = json!("1 Avenida da Liberdade, Lisboa, Portugal");
    rules["casino_tax_id"] = json!("PT500000000");
    app.two_person(reqwest::Method::PUT, "/api/v1/compliance/rules", &pitboss, &rules)
        .await;
    // A cashier files nothing.
    file(cashier.token.clone()).await.assert_error(403, "forbidden");
    let filed = file(auditor.token.clone()).await.expect(200);
    assert_eq!(filed["filing"]["filed_by"], auditor.id.as_str(), "{filed}");
    assert_eq!(filed["filing"]["reference"], "CTR-2026-0042");
    assert_eq!(filed["cash_in"]["total"], "12000.00");
    assert_eq!(filed["casino"]["tax_id"], "PT500000000");
    assert_eq!(filed["identity"]["occupation"], "Engineer");
    file(auditor.token.clone()).await.assert_error(409, "report_filed");

    // Filed is frozen: a later identity does not rewrite it.
    app.put(
        &format!("/api/v1/players/{}/identity", patron.id),
        Some(&cashier.token),
        &identity("Lucía Pérez García"),
        None,
    )
    .await
    .expect(200);
    let again = app
        .get(&format!("/api/v1/compliance/reports/{id}"), Some(&auditor.token))
        .await
        .expect(200);
    assert_eq!(again, filed, "the document as filed");
    let listed = app
        .get("/api/v1/compliance/reports?filed=true", Some(&auditor.token))
        .await
        .expect(200);
    assert_eq!(listed.as_array().unwrap().len(), 1);
    let unfiled = app
        .get("/api/v1/compliance/reports?filed=false", Some(&auditor.token))
        .await
        .expect(200);
    assert!(unfiled.as_array().unwrap().is_empty());
    // A new gaming day starts from nothing: 6,000.00 more needs no new report.
    app.cage(
        &cashier,
        "deposits",
        &json!({ "player_id": patron.id, "amount": "6000.00" }),
        None,
    )
    .await
    .expect(201);
    let all = app
        .get("/api/v1/compliance/reports", Some(&auditor.token))
        .await
        .expect(200);
    assert_eq!(all.as_array().unwrap().len(), 1, "{all}");
    let filings = app
        .get(
            "/api/v1/audit/events?kind=currency_transaction_report_filed",
            Some(&auditor.token),
        )
        .await
        .expect(200);
    assert_eq!(filings.as_array().unwrap().len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_report_is_filed_only_after_its_day_with_every_field_and_stays_as_filed_on_both_databases() {
    a_report_is_filed_after_its_day(Backend::Sqlite).await;
    a_report_is_filed_after_its_day(Backend::Postgres).await;
}
