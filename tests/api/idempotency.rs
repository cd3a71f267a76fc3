//! A retried request is never told the opposite of what happened: twins of a
//! seat, a dealer's action or a pit boss's table change, fired at once or one
//! after the other with the same Idempotency-Key, all get the first answer.
//! (Bets and cage movements: tests/api/wagers.rs.)

use crate::helpers::TestApp;
use serde_json::{json, Value};

use crate::prima_carta::{casino, create_round, s, seat, table_config, TableOptions};

/// `n` copies of one request with one key, fired at once.
async fn twins(app: &TestApp, n: usize, path: &str, token: &str, body: Value, key: &str) -> Vec<(u16, String)> {
    let requests = (0..n)
        .map(|_| (path.to_string(), token.to_string(), body.clone(), Some(key.to_string())))
        .collect();
    app.post_all_at_once(requests).await
}

fn all_alike(results: &[(u16, String)], status: u16) {
    assert!(
        results.iter().all(|(st, t)| *st == status && t == &results[0].1),
        "every twin gets the first answer ({status}): {results:?}"
    );
}

both_backends!(
    async fn twins_of_a_seat_all_get_the_first_answer(app: TestApp) {
        let c = casino(&app, TableOptions::default()).await;
        let round = create_round(&app, &c).await;
        let round_id = s(&round["id"]);
        let path = format!("/api/v1/rounds/{round_id}/seats");
        let body = json!({ "suit": "cups", "client_seed": "one seat" });
        let results = twins(&app, 30, &path, &c.players[0].token, body, "one-seat").await;
        all_alike(&results, 201);
        let view: Value = serde_json::from_str(&results[0].1).unwrap();
        assert_eq!(view["seats"].as_array().unwrap().len(), 1, "{view}");
    }
);

both_backends!(
    async fn a_dealer_retrying_open_close_deal_or_void_gets_the_first_answer(app: TestApp) {
        let c = casino(&app, TableOptions::default()).await;
        // The pit boss's void of another round, retried.
        let voided = create_round(&app, &c).await;
        let void = format!("/api/v1/rounds/{}/void", s(&voided["id"]));
        let body = json!({ "reason": "dealer misdeal" });
        let results = twins(&app, 10, &void, &c.pitboss.token, body.clone(), "void-1").await;
        all_alike(&results, 200);
        let events = app.events("round_voided").await;
        assert_eq!(events.len(), 1, "one void, however many retries: {events:?}");
        // The same key for another request is refused.
        app.post(
            &void,
            Some(&c.pitboss.token),
            &json!({ "reason": "another reason" }),
            Some("void-1"),
        )
        .await
        .assert_error(409, "idempotency_key_reused");

        // Opening a round, retried: the same round, not a conflict with itself.
        let open = format!("/api/v1/tables/{}/rounds", c.table);
        let results = twins(&app, 10, &open, &c.dealer.token, json!({}), "round-2").await;
        all_alike(&results, 201);
        let round: Value = serde_json::from_str(&results[0].1).unwrap();
        app.post(&open, Some(&c.dealer.token), &json!({}), None)
            .await
            .assert_error(409, "round_in_progress");
        let round_id = s(&round["id"]).to_string();
        seat(&app, &c.players[0], &round_id, "cups", None).await.expect(201);
        seat(&app, &c.players[1], &round_id, "swords", None).await.expect(201);

        let close = format!("/api/v1/rounds/{round_id}/close");
        let results = twins(&app, 10, &close, &c.dealer.token, json!({}), "close-1").await;
        all_alike(&results, 200);
        // A retry after the fact, as a terminal does after a timeout.
        let again = app
            .post(&close, Some(&c.dealer.token), &json!({}), Some("close-1"))
            .await;
        assert_eq!((again.status, &again.text), (200, &results[0].1));
        // Without a key, a second close is what it is: a conflict.
        app.post(&close, Some(&c.dealer.token), &json!({}), None)
            .await
            .assert_error(409, "wrong_round_state");

        let deal = format!("/api/v1/rounds/{round_id}/deal");
        let results = twins(&app, 10, &deal, &c.dealer.token, json!({}), "deal-1").await;
        all_alike(&results, 200);
        let dealt: Value = serde_json::from_str(&results[0].1).unwrap();
        assert_ne!(dealt["status"], "betting_closed", "{dealt}");
    }
);

both_backends!(
    async fn a_pit_boss_retrying_a_table_change_gets_the_first_answer(app: TestApp) {
        let c = casino(&app, TableOptions::default()).await;
        let table = &c.table;
        let close = format!("/api/v1/tables/{table}/close");
        let results = twins(&app, 10, &close, &c.pitboss.token, json!({}), "close-table").await;
        all_alike(&results, 200);

        let mut config = table_config(&TableOptions::default());
        config["max_bet"] = json!("50.00");
        let put = format!("/api/v1/tables/{table}/config");
        let builders = (0..10)
            .map(|_| {
                app.request(reqwest::Method::PUT, &put, Some(&c.pitboss.token))
                    .header("Idempotency-Key", "config-1")
                    .json(&config)
            })
            .collect();
        let results = app.send_all_at_once(builders).await;
        all_alike(&results, 202);
        let proposed: Vec<Value> = app
            .events("change_proposed")
            .await
            .into_iter()
            .filter(|e| e["details"].as_str().unwrap().contains("change_table_options"))
            .collect();
        assert_eq!(proposed.len(), 1, "one proposal, however many retries: {proposed:?}");
        let proposal: Value = serde_json::from_str(&results[0].1).unwrap();
        let second = app.create_user(djego::domain::Role::Pitboss).await;
        let approve = format!("/api/v1/proposals/{}/approve", proposal["id"].as_str().unwrap());
        let results = twins(&app, 10, &approve, &second.token, json!({}), "approve-1").await;
        all_alike(&results, 200);
        let reconfigured = app.events("table_reconfigured").await;
        assert_eq!(
            reconfigured.len(),
            1,
            "one change, however many retries: {reconfigured:?}"
        );

        let open = format!("/api/v1/tables/{table}/open");
        let results = twins(&app, 10, &open, &c.pitboss.token, json!({}), "open-table").await;
        all_alike(&results, 200);
        let opened: Value = serde_json::from_str(&results[0].1).unwrap();
        assert_eq!(opened["status"], "open");
    }
);
