//! The server does what its OpenAPI document says: unsupported methods, the
//! grammar of texts and numbers the document states, dealers that are not
//! assigned, and the document it serves.

use djego::domain::Role;
use reqwest::Method;
use serde_json::{json, Value};

use crate::helpers::{TestApp, TestUser};

fn lobo_config() -> Value {
    json!({
        "game": "lobo", "mode": "easy", "min_unit": "1.00", "max_unit": "10.00",
        "loss_cap_points": 40, "hints": true
    })
}

/// A table of `config`, proposed by `pitboss` and approved by a second pit boss.
async fn approved_table(app: &TestApp, pitboss: &TestUser, config: Value) -> Value {
    let name = format!("Conformance {}", &uuid::Uuid::new_v4().simple().to_string()[..8]);
    app.create_table(pitboss, &json!({ "name": name, "config": config }))
        .await
}

async fn create_table(app: &TestApp, pitboss: &TestUser, config: Value) -> crate::helpers::TestResponse {
    let name = format!("Conformance {}", &uuid::Uuid::new_v4().simple().to_string()[..8]);
    app.post(
        "/api/v1/tables",
        Some(&pitboss.token),
        &json!({ "name": name, "config": config }),
        None,
    )
    .await
}

both_backends!(
    async fn an_unsupported_method_on_a_known_path_is_a_405_naming_the_allowed_ones(app: TestApp) {
        let table = uuid::Uuid::new_v4();
        let dealer = uuid::Uuid::new_v4();
        for (method, path, allow) in [
            (Method::TRACE, "/api/v1/me".to_string(), "GET"),
            (Method::DELETE, "/health".to_string(), "GET"),
            (Method::GET, "/api/v1/cage/deposits".to_string(), "POST"),
            (Method::PATCH, format!("/api/v1/tables/{table}"), "GET"),
            (
                Method::TRACE,
                format!("/api/v1/tables/{table}/dealers/{dealer}"),
                "PUT, DELETE",
            ),
            (Method::OPTIONS, "/api/v1/users".to_string(), "GET, POST"),
        ] {
            let r = app.send(app.request(method.clone(), &path, None)).await;
            r.assert_error(405, "method_not_allowed");
            let got = r.headers.get("allow").and_then(|v| v.to_str().ok()).unwrap_or("");
            assert_eq!(got, allow, "Allow of {method} {path}");
        }
        // Unknown paths stay 404, whatever the method.
        for method in [Method::GET, Method::TRACE, Method::DELETE] {
            let r = app.send(app.request(method, "/api/v1/no/such/thing", None)).await;
            r.assert_error(404, "not_found");
            assert!(r.headers.get("allow").is_none());
        }
    }
);

both_backends!(
    async fn removing_a_dealer_who_is_not_assigned_is_a_404(app: TestApp) {
        let pitboss = app.create_user(Role::Pitboss).await;
        let dealer = app.create_user(Role::Dealer).await;
        let table = approved_table(&app, &pitboss, lobo_config()).await;
        let path = format!("/api/v1/tables/{}/dealers/{}", table["id"].as_str().unwrap(), dealer.id);
        app.send(app.request(Method::DELETE, &path, Some(&pitboss.token)))
            .await
            .assert_error(404, "not_found");
        let assigned = app.put(&path, Some(&pitboss.token), &json!({}), None).await.expect(200);
        assert_eq!(assigned["dealer_ids"], json!([dealer.id]));
        let removed = app
            .send(app.request(Method::DELETE, &path, Some(&pitboss.token)))
            .await
            .expect(200);
        assert_eq!(removed["dealer_ids"], json!([]));
        app.send(app.request(Method::DELETE, &path, Some(&pitboss.token)))
            .await
            .assert_error(404, "not_found");
        // Nor is a dealer removed from a table that does not exist.
        let nowhere = format!("/api/v1/tables/{}/dealers/{}", uuid::Uuid::new_v4(), dealer.id);
        app.send(app.request(Method::DELETE, &nowhere, Some(&pitboss.token)))
            .await
            .assert_error(404, "not_found");
    }
);

// JSON Schema's `integer` admits 40.0 (it is the number 40); a fraction is still refused.
both_backends!(
    async fn an_integer_written_with_a_fraction_point_is_that_integer(app: TestApp) {
        let pitboss = app.create_user(Role::Pitboss).await;
        let mut config = lobo_config();
        config["loss_cap_points"] = json!(40.0);
        config["house_rule"] = json!({ "fee_per_round_hundredths": 904.0, "ante_per_wolf_point_hundredths": 0 });
        let table = approved_table(&app, &pitboss, config.clone()).await;
        assert_eq!(table["config"]["loss_cap_points"], json!(40));
        assert_eq!(table["config"]["house_rule"]["fee_per_round_hundredths"], json!(904));
        config["loss_cap_points"] = json!(40.5);
        create_table(&app, &pitboss, config.clone())
            .await
            .assert_error(400, "invalid_body");
        config["loss_cap_points"] = json!(-1.0);
        create_table(&app, &pitboss, config)
            .await
            .assert_error(400, "invalid_body");
        // `house_rule: null` is the mode's default, as documented.
        let mut config = lobo_config();
        config["house_rule"] = Value::Null;
        let table = approved_table(&app, &pitboss, config).await;
        let easy = djego::games::lobo::default_house_rule(djego::games::lobo::Mode::Easy);
        assert_eq!(
            table["config"]["house_rule"]["fee_per_round_hundredths"],
            json!(easy.fee_per_round_hundredths)
        );
    }
);

// Lengths are counted in characters, as JSON Schema counts them, never in bytes.
both_backends!(
    async fn lengths_are_counted_in_characters(app: TestApp) {
        let cashier = app.create_user(Role::Cashier).await;
        let player = app.create_user(Role::Player).await;
        let correction = |reason: String| json!({ "player_id": player.id, "amount": "1.00", "direction": "credit", "reason": reason });
        // Two characters (three bytes) are too few; three two-byte characters are enough.
        app.cage(&cashier, "corrections", &correction("éa".into()), None)
            .await
            .assert_error(400, "invalid_reason");
        app.cage(&cashier, "corrections", &correction("  ab \n".into()), None)
            .await
            .assert_error(400, "invalid_reason");
        // At most 500 characters in all, white space included.
        app.cage(
            &cashier,
            "corrections",
            &correction(format!("abc{}", " ".repeat(600))),
            None,
        )
        .await
        .assert_error(400, "invalid_reason");
        let ok = app
            .cage(&cashier, "corrections", &correction(" ééé ".into()), None)
            .await
            .expect(201);
        assert_eq!(ok["transfer"]["memo"], "ééé", "{ok}");
        assert_eq!(app.balance(&player.id).await, "1.00");
        // A 40-character login name of two-byte characters is a wrong login, not a malformed request.
        app.try_login(&"é".repeat(40), &"ü".repeat(200))
            .await
            .assert_error(401, "unauthenticated");
        app.try_login(&"é".repeat(65), "x")
            .await
            .assert_error(400, "invalid_body");
    }
);

both_backends!(
    async fn the_served_document_is_the_committed_one(app: TestApp) {
        let served = app.get("/api-docs/openapi.json", None).await.expect(200);
        let generated: Value = serde_json::from_str(&djego::api::openapi_json()).unwrap();
        assert_eq!(served, generated);
    }
);
