//! Peg Leg over HTTP: a dealer deals a round card by card while players bet, bet again and
//! surrender between cards at the quoted prices; every payout reconciles in the ledger; stale
//! quotes, closed windows and the limits are refused and move nothing; nothing of an undealt
//! card is shown before settlement; a void refunds the open bets; the live stream carries the
//! round; the recall verifies.

use serde_json::{json, Value};

use djego::domain::Role;

use crate::helpers::{TestApp, TestUser};
use crate::lobo::{read_until, same_casino, watch_table};

pub(crate) fn minor(text: &str) -> i64 {
    let neg = text.starts_with('-');
    let t = text.trim_start_matches('-');
    let (a, b) = t.split_once('.').unwrap_or((t, "00"));
    let v = a.parse::<i64>().unwrap() * 100 + b.parse::<i64>().unwrap();
    if neg {
        -v
    } else {
        v
    }
}

pub(crate) fn s(v: &Value) -> &str {
    v.as_str().unwrap_or_else(|| panic!("not a string: {v}"))
}

pub(crate) struct Casino {
    pub table: String,
    pub pitboss: TestUser,
    pub dealer: TestUser,
    pub players: Vec<TestUser>,
}

/// A Peg Leg table (pit boss creates it through the API, assigns a dealer, opens it) and
/// `players` players funded with 1,000.00 each.
pub(crate) async fn casino(app: &TestApp, players: usize, window_ms: u32) -> Casino {
    let pitboss = app.create_user(Role::Pitboss).await;
    let dealer = app.create_user(Role::Dealer).await;
    let cashier = app.create_user(Role::Cashier).await;
    let name = format!("Peg Leg {}", &uuid::Uuid::new_v4().simple().to_string()[..8]);
    let config = json!({ "game": "peg_leg", "min_bet": "1.00", "max_bet": "50.00",
        "max_exposure_per_round": "120.00", "betting_window_ms": window_ms });
    let table = app
        .create_table(&pitboss, &json!({ "name": name, "config": config }))
        .await;
    assert_eq!(table["config"]["target_rtp_bp"], 9500, "the default target: {table}");
    let table = s(&table["id"]).to_string();
    app.put(
        &format!("/api/v1/tables/{table}/dealers/{}", dealer.id),
        Some(&pitboss.token),
        &json!({}),
        None,
    )
    .await
    .expect(200);
    app.post(
        &format!("/api/v1/tables/{table}/open"),
        Some(&pitboss.token),
        &json!({}),
        None,
    )
    .await
    .expect(200);
    let mut funded = Vec::new();
    for _ in 0..players {
        let p = app.create_user(Role::Player).await;
        app.fund(&cashier, &p.id, "1000.00").await;
        funded.push(p);
    }
    Casino {
        table,
        pitboss,
        dealer,
        players: funded,
    }
}

pub(crate) async fn open_round(app: &TestApp, c: &Casino) -> Value {
    app.post(
        &format!("/api/v1/tables/{}/peg-leg-rounds", c.table),
        Some(&c.dealer.token),
        &json!({}),
        None,
    )
    .await
    .expect(201)
}

pub(crate) async fn deal(app: &TestApp, c: &Casino, round: &str) -> crate::helpers::TestResponse {
    app.post(
        &format!("/api/v1/peg-leg-rounds/{round}/deal"),
        Some(&c.dealer.token),
        &json!({}),
        None,
    )
    .await
}

pub(crate) async fn bet(
    app: &TestApp,
    player: &TestUser,
    round: &str,
    quote: &str,
    count: u64,
    stake: &str,
) -> crate::helpers::TestResponse {
    app.post(
        &format!("/api/v1/peg-leg-rounds/{round}/bets"),
        Some(&player.token),
        &json!({ "quote_id": quote, "count": count, "stake": stake }),
        None,
    )
    .await
}

pub(crate) async fn surrender(
    app: &TestApp,
    player: &TestUser,
    round: &str,
    bet: &str,
    quote: &str,
) -> crate::helpers::TestResponse {
    app.post(
        &format!("/api/v1/peg-leg-rounds/{round}/bets/{bet}/surrender"),
        Some(&player.token),
        &json!({ "quote_id": quote }),
        None,
    )
    .await
}

/// The offered count with the highest probability, and its multiplier in minor units.
pub(crate) fn likeliest(quote: &Value) -> (u64, i64) {
    quote["counts"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["multiplier"].is_string())
        .max_by(|a, b| {
            a["probability"]
                .as_f64()
                .unwrap()
                .total_cmp(&b["probability"].as_f64().unwrap())
        })
        .map(|c| (c["count"].as_u64().unwrap(), minor(s(&c["multiplier"]))))
        .expect("some count is offered after the first card")
}

/// Any offered count other than `not`.
pub(crate) fn another(quote: &Value, not: u64) -> u64 {
    quote["counts"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["multiplier"].is_string() && c["count"].as_u64() != Some(not))
        .map(|c| c["count"].as_u64().unwrap())
        .next()
        .expect("two counts are offered after the first card")
}

both_backends!(
    async fn a_round_dealt_card_by_card_settles_bets_rebets_and_surrenders_to_the_cent(app: TestApp) {
        let c = casino(&app, 2, 0).await;
        let (a, b) = (&c.players[0], &c.players[1]);
        let round = open_round(&app, &c).await;
        let id = s(&round["id"]).to_string();
        assert_eq!(round["status"], "seeding");
        assert_eq!(
            s(&round["commitment"]).len(),
            64,
            "the commitment is published at once: {round}"
        );
        assert!(round["server_seed"].is_null() && round["cards"].as_array().unwrap().is_empty());
        app.post(
            &format!("/api/v1/peg-leg-rounds/{id}/client-seed"),
            Some(&a.token),
            &json!({ "client_seed": "a's own seed" }),
            None,
        )
        .await
        .expect(200);

        assert_eq!(round["number"], 1, "the table's first round: {round}");
        // The player finds the round among their own once they have given a seed.
        let mine = app.get("/api/v1/me/rounds", Some(&a.token)).await.expect(200);
        assert_eq!(mine["open"][0]["round_id"], id.as_str(), "{mine}");
        assert_eq!(mine["open"][0]["game"], "peg_leg");

        // The first card sets the key suit and brings the first quote.
        let first = deal(&app, &c, &id).await.expect(200);
        let view = &first["round"];
        assert_eq!(view["status"], "dealing");
        assert_eq!(view["cards_dealt"], 1);
        assert_eq!(view["key_count"], 1, "the first card is its suit's foundation: {view}");
        assert!(view["client_seed"].is_string());
        let q1 = view["quote"].clone();
        assert_eq!(q1["cards_dealt"], 1);
        assert!(q1["counts"][0]["multiplier"].is_null(), "a count of 0 is never offered");
        let (count_a, mult_a) = likeliest(&q1);
        let count_b = another(&q1, count_a);

        let bet_a = bet(&app, a, &id, s(&q1["id"]), count_a, "10.00").await.expect(201);
        assert_eq!(minor(s(&bet_a["multiplier"])), mult_a, "placed at the quoted price");
        assert_eq!(bet_a["status"], "open");
        let bet_b = bet(&app, b, &id, s(&q1["id"]), count_b, "5.00").await.expect(201);
        let mut staked = [1000, 500];

        // The second card: the first quote is stale; a rebet at the new price.
        let second = deal(&app, &c, &id).await.expect(200);
        let q2 = second["round"]["quote"].clone();
        assert_ne!(q1["id"], q2["id"]);
        let stale = bet(&app, a, &id, s(&q1["id"]), count_a, "10.00").await;
        stale.assert_error(409, "stale_quote");
        assert_eq!(stale.json()["error"]["details"]["current_quote_id"], q2["id"]);
        let (count_a2, _) = likeliest(&q2);
        bet(&app, a, &id, s(&q2["id"]), count_a2, "7.50").await.expect(201);
        staked[0] += 750;

        // B sees their own bet's cash-out value and surrenders at it after card 5.
        for _ in 0..3 {
            deal(&app, &c, &id).await.expect(200);
        }
        let now = app
            .get(&format!("/api/v1/peg-leg-rounds/{id}"), Some(&b.token))
            .await
            .expect(200);
        let mine = now["bets"]
            .as_array()
            .unwrap()
            .iter()
            .find(|x| x["id"] == bet_b["id"])
            .expect("B's bet in B's view")
            .clone();
        assert_eq!(mine["player"], b.id.as_str());
        let offered = minor(s(&mine["cash_out"]));
        let before = minor(&app.balance(&b.id).await);
        let surrendered = surrender(&app, b, &id, s(&bet_b["id"]), s(&now["quote"]["id"]))
            .await
            .expect(200);
        assert_eq!(surrendered["status"], "surrendered");
        assert_eq!(minor(s(&surrendered["returned"])), offered, "paid what was shown");
        assert_eq!(minor(&app.balance(&b.id).await), before + offered);
        surrender(&app, b, &id, s(&bet_b["id"]), s(&now["quote"]["id"]))
            .await
            .assert_error(409, "bet_closed");
        // Another player's view names A's bets by pseudonym only.
        assert!(
            now["bets"]
                .as_array()
                .unwrap()
                .iter()
                .all(|x| x["player"] != a.id.as_str()),
            "{now}"
        );

        // The rest of the pass; the fiftieth card settles.
        let mut last = Value::Null;
        for _ in 5..50 {
            last = deal(&app, &c, &id).await.expect(200);
        }
        let settled = &last["round"];
        assert_eq!(settled["status"], "settled", "{settled}");
        assert_eq!(settled["cards_dealt"], 50);
        assert!(settled["quote"].is_null());
        assert!(settled["server_seed"].is_string(), "the seed is revealed at settlement");
        let final_count = settled["final_count"].as_u64().expect("a final count");
        assert_eq!(settled["key_count"].as_u64(), Some(final_count));
        deal(&app, &c, &id).await.assert_error(409, "wrong_round_state");

        // The cage reads a settled round, as every role does; its recall stays with the
        // bettors, the dealers, the pit boss and the auditor.
        let cashier = app.create_user(Role::Cashier).await;
        let seen = app
            .get(&format!("/api/v1/peg-leg-rounds/{id}"), Some(&cashier.token))
            .await
            .expect(200);
        assert_eq!(seen["status"], "settled", "{seen}");
        app.get(
            &format!("/api/v1/tables/{}/peg-leg-rounds", c.table),
            Some(&cashier.token),
        )
        .await
        .expect(200);
        app.get(&format!("/api/v1/peg-leg-rounds/{id}/recall"), Some(&cashier.token))
            .await
            .assert_error(403, "forbidden");

        let mine = app.get("/api/v1/me/rounds", Some(&b.token)).await.expect(200);
        assert!(mine["open"].as_array().unwrap().is_empty(), "{mine}");
        assert_eq!(mine["recent"][0]["round_id"], id.as_str());
        assert_eq!(mine["recent"][0]["status"], "settled");

        // Every bet paid by the rules, every coin accounted for.
        let mut returned = [0i64, offered];
        for x in settled["bets"].as_array().unwrap() {
            if x["status"] == "surrendered" {
                continue;
            }
            let win = x["count"].as_u64() == Some(final_count);
            assert_eq!(x["status"], if win { "won" } else { "lost" }, "{x}");
            let expected = if win {
                minor(s(&x["stake"])) * minor(s(&x["multiplier"])) / 100
            } else {
                0
            };
            assert_eq!(minor(s(&x["returned"])), expected, "{x}");
            returned[0] += expected;
        }
        assert_eq!(minor(&app.balance(&a.id).await), 100_000 - staked[0] + returned[0]);
        assert_eq!(minor(&app.balance(&b.id).await), 100_000 - staked[1] + returned[1]);

        // The recall: 49 quotes, every bet, and the server's verification of all of it.
        let recall = app
            .get(&format!("/api/v1/peg-leg-rounds/{id}/recall"), Some(&a.token))
            .await
            .expect(200);
        assert_eq!(recall["verification"]["passed"], true, "{}", recall["verification"]);
        assert_eq!(recall["quotes"].as_array().unwrap().len(), 49);
        assert_eq!(recall["bets"].as_array().unwrap().len(), 3);
        assert_eq!(recall["shuffle"]["game"], "prima_carta");
        assert_eq!(recall["shuffle"]["round_id"], id.as_str());
        let deck: Vec<u64> = recall["shuffle"]["deck"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_u64().unwrap())
            .collect();
        let shown: Vec<u64> = settled["cards"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["card"].as_u64().unwrap())
            .collect();
        assert_eq!(deck, shown, "the cards dealt are the committed deck's, in order");
        // The recall saved as it comes verifies offline, and a changed payout does not.
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("recall.json");
        std::fs::write(&file, recall.to_string()).unwrap();
        let offline = std::process::Command::new(env!("CARGO_BIN_EXE_djego"))
            .args(["verify", "round", file.to_str().unwrap()])
            .output()
            .unwrap();
        let said = String::from_utf8_lossy(&offline.stdout);
        assert!(offline.status.success(), "{said}");
        assert!(said.contains("quote[49]") && said.contains("final_count"), "{said}");
        let mut tampered = recall.clone();
        let paid = tampered["bets"][0]["returned_minor"].as_i64().unwrap();
        tampered["bets"][0]["returned_minor"] = json!(paid + 100);
        std::fs::write(&file, tampered.to_string()).unwrap();
        let offline = std::process::Command::new(env!("CARGO_BIN_EXE_djego"))
            .args(["verify", "round", file.to_str().unwrap()])
            .output()
            .unwrap();
        assert_eq!(
            offline.status.code(),
            Some(1),
            "{}",
            String::from_utf8_lossy(&offline.stdout)
        );

        // The auditor's observed RTP: what the bets returned against what their prices promised.
        let auditor = app.auditor().await;
        let rtp = app
            .get(&format!("/api/v1/tables/{}/peg-leg-rtp", c.table), Some(&auditor.token))
            .await
            .expect(200);
        assert_eq!(rtp["bets"], 3, "{rtp}");
        assert_eq!(rtp["rounds"], 1);
        assert_eq!(minor(s(&rtp["staked"])), staked[0] + staked[1]);
        assert_eq!(minor(s(&rtp["returned"])), returned[0] + returned[1]);
        let expected = rtp["expected_rtp"].as_f64().unwrap();
        assert!(
            expected > 0.5 && expected <= 0.95,
            "every price returns at most the target: {rtp}"
        );
        app.get(&format!("/api/v1/tables/{}/peg-leg-rtp", c.table), Some(&a.token))
            .await
            .assert_error(403, "forbidden");
        // Someone who did not bet may not recall it.
        let outsider = app.create_user(Role::Player).await;
        app.get(&format!("/api/v1/peg-leg-rounds/{id}/recall"), Some(&outsider.token))
            .await
            .assert_error(403, "forbidden");
    }
);

both_backends!(
    async fn nothing_undealt_is_shown_and_bad_bets_are_refused_moving_nothing(app: TestApp) {
        let c = casino(&app, 2, 0).await;
        let (a, b) = (&c.players[0], &c.players[1]);
        let round = open_round(&app, &c).await;
        let id = s(&round["id"]).to_string();
        // One open round per table; a player cannot open or deal; a dealer not assigned cannot.
        app.post(
            &format!("/api/v1/tables/{}/peg-leg-rounds", c.table),
            Some(&c.dealer.token),
            &json!({}),
            None,
        )
        .await
        .assert_error(409, "round_in_progress");
        app.post(
            &format!("/api/v1/peg-leg-rounds/{id}/deal"),
            Some(&a.token),
            &json!({}),
            None,
        )
        .await
        .assert_error(403, "forbidden");
        let stranger = app.create_user(Role::Dealer).await;
        app.post(
            &format!("/api/v1/peg-leg-rounds/{id}/deal"),
            Some(&stranger.token),
            &json!({}),
            None,
        )
        .await
        .assert_error(403, "forbidden");
        // No bets before the first card; the recall waits for the end.
        bet(&app, a, &id, "00000000-0000-0000-0000-000000000000", 3, "5.00")
            .await
            .assert_error(409, "wrong_round_state");
        app.get(&format!("/api/v1/peg-leg-rounds/{id}/recall"), Some(&c.pitboss.token))
            .await
            .assert_error(409, "wrong_round_state");

        let dealt = deal(&app, &c, &id).await.expect(200);
        let q = dealt["round"]["quote"].clone();
        let quote = s(&q["id"]);
        // Seeds close with the first card.
        app.post(
            &format!("/api/v1/peg-leg-rounds/{id}/client-seed"),
            Some(&b.token),
            &json!({ "client_seed": "late" }),
            None,
        )
        .await
        .assert_error(409, "wrong_round_state");

        let poor = app.create_user(Role::Player).await;
        let cashier = app.create_user(Role::Cashier).await;
        app.fund(&cashier, &poor.id, "2.00").await;
        let seq = app.last_seq().await;
        let (count, _) = likeliest(&q);
        bet(&app, a, &id, quote, 0, "5.00")
            .await
            .assert_error(422, "count_not_offered");
        bet(&app, a, &id, quote, 11, "5.00")
            .await
            .assert_error(422, "count_not_offered");
        bet(&app, a, &id, quote, count, "0.50")
            .await
            .assert_error(422, "bet_out_of_range");
        bet(&app, a, &id, quote, count, "50.01")
            .await
            .assert_error(422, "bet_out_of_range");
        bet(&app, a, &id, quote, count, "-5.00")
            .await
            .assert_error(400, "invalid_body");
        bet(&app, &poor, &id, quote, count, "5.00")
            .await
            .assert_error(422, "insufficient_funds");
        assert_eq!(app.last_seq().await, seq, "no refused bet moved money");

        // The exposure limit counts every bet of the round: 50 + 50 + 20 = 120, then no more.
        for stake in ["50.00", "50.00", "20.00"] {
            bet(&app, a, &id, quote, count, stake).await.expect(201);
        }
        bet(&app, a, &id, quote, count, "1.00")
            .await
            .assert_error(422, "exposure_limit");

        // A retried bet (same Idempotency-Key) is placed once.
        let body = json!({ "quote_id": quote, "count": count, "stake": "3.00" });
        let path = format!("/api/v1/peg-leg-rounds/{id}/bets");
        let first = app
            .post(&path, Some(&b.token), &body, Some("peg-leg-retry"))
            .await
            .expect(201);
        let again = app
            .post(&path, Some(&b.token), &body, Some("peg-leg-retry"))
            .await
            .expect(201);
        assert_eq!(first["id"], again["id"]);
        assert_eq!(app.balance(&b.id).await, "997.00");

        // Nothing of an undealt card in any view, for anyone.
        for token in [&a.token, &c.dealer.token, &c.pitboss.token] {
            let view = app
                .get(&format!("/api/v1/peg-leg-rounds/{id}"), Some(token))
                .await
                .expect(200);
            assert!(view["server_seed"].is_null(), "{view}");
            assert_eq!(view["cards"].as_array().unwrap().len(), 1);
            let text = view.to_string();
            assert!(
                !text.contains("\"deck\"") && !text.contains("server_seed_sealed"),
                "{text}"
            );
        }
        let listed = app
            .get(&format!("/api/v1/tables/{}/peg-leg-rounds", c.table), Some(&b.token))
            .await
            .expect(200);
        assert_eq!(listed.as_array().unwrap().len(), 1);
        app.get(
            &format!("/api/v1/tables/{}/peg-leg-rounds?limit=0", c.table),
            Some(&b.token),
        )
        .await
        .assert_error(400, "invalid_limit");
        assert!(listed[0]["server_seed"].is_null());

        // A void refunds every open bet; the seed is revealed and the recall verifies.
        app.post(
            &format!("/api/v1/peg-leg-rounds/{id}/void"),
            Some(&c.dealer.token),
            &json!({ "reason": "a dealer may not" }),
            None,
        )
        .await
        .assert_error(403, "forbidden");
        // A void gives its reason, as every game's does.
        app.post(
            &format!("/api/v1/peg-leg-rounds/{id}/void"),
            Some(&c.pitboss.token),
            &json!({}),
            None,
        )
        .await
        .assert_error(400, "invalid_body");
        app.post(
            &format!("/api/v1/peg-leg-rounds/{id}/void"),
            Some(&c.pitboss.token),
            &json!({ "reason": " " }),
            None,
        )
        .await
        .assert_error(400, "invalid_reason");
        let voided = app
            .post(
                &format!("/api/v1/peg-leg-rounds/{id}/void"),
                Some(&c.pitboss.token),
                &json!({ "reason": "the shoe was dropped" }),
                None,
            )
            .await
            .expect(200);
        assert_eq!(voided["status"], "voided");
        assert!(voided["bets"]
            .as_array()
            .unwrap()
            .iter()
            .all(|x| x["status"] == "refunded"));
        assert_eq!(app.balance(&a.id).await, "1000.00");
        assert_eq!(app.balance(&b.id).await, "1000.00");
        let events = app.events("round_voided").await;
        assert_eq!(events.len(), 1);
        let details: Value = serde_json::from_str(s(&events[0]["details"])).unwrap();
        assert_eq!(details["reason"], "the shoe was dropped", "{details}");
        let recall = app
            .get(&format!("/api/v1/peg-leg-rounds/{id}/recall"), Some(&c.pitboss.token))
            .await
            .expect(200);
        assert_eq!(recall["verification"]["passed"], true, "{}", recall["verification"]);
        // The table takes a new round once this one is over.
        open_round(&app, &c).await;
    }
);

both_backends!(
    async fn a_timed_window_holds_the_next_card_and_then_closes_betting(app: TestApp) {
        let c = casino(&app, 1, 1_000).await;
        let a = &c.players[0];
        let id = s(&open_round(&app, &c).await["id"]).to_string();
        let dealt = deal(&app, &c, &id).await.expect(200);
        let q = dealt["round"]["quote"].clone();
        assert!(q["expires_at_us"].is_i64(), "{q}");
        let (count, _) = likeliest(&q);
        let placed = bet(&app, a, &id, s(&q["id"]), count, "2.00").await.expect(201);
        let early = deal(&app, &c, &id).await;
        early.assert_error(409, "betting_window_open");
        assert!(early.json()["error"]["details"]["window_closes_at_us"].is_i64());
        tokio::time::sleep(std::time::Duration::from_millis(1_100)).await;
        bet(&app, a, &id, s(&q["id"]), count, "2.00")
            .await
            .assert_error(409, "betting_window_closed");
        surrender(&app, a, &id, s(&placed["id"]), s(&q["id"]))
            .await
            .assert_error(409, "betting_window_closed");
        deal(&app, &c, &id).await.expect(200);
    }
);

both_backends!(
    async fn the_tables_live_stream_carries_every_card_without_an_undealt_one(app: TestApp) {
        let c = casino(&app, 1, 0).await;
        // On PostgreSQL the watcher is on another instance: the change crosses over.
        let other = match app.backend {
            crate::helpers::Backend::Postgres => Some(same_casino(&app, |_| {}).await),
            crate::helpers::Backend::Sqlite => None,
        };
        let watcher = other.as_ref().unwrap_or(&app);
        let (mut stream, mut seen) = watch_table(watcher, &c.table, &c.pitboss.token).await;
        let id = s(&open_round(&app, &c).await["id"]).to_string();
        read_until(&mut stream, &mut seen, |t| {
            t.contains("event: peg_leg_round") && t.contains(&id)
        })
        .await;
        deal(&app, &c, &id).await.expect(200);
        deal(&app, &c, &id).await.expect(200);
        read_until(&mut stream, &mut seen, |t| t.contains("\"cards_dealt\":2")).await;
        assert!(
            !seen.contains("\"server_seed\":\"") && !seen.contains("\"deck\""),
            "{seen}"
        );
        assert!(seen.contains("\"quote\":{"), "quotes are published: {seen}");
    }
);

both_backends!(
    async fn a_bet_racing_the_next_card_is_on_the_price_it_saw_or_refused(app: TestApp) {
        let c = casino(&app, 8, 0).await;
        let id = s(&open_round(&app, &c).await["id"]).to_string();
        let q1 = deal(&app, &c, &id).await.expect(200)["round"]["quote"].clone();
        let (count, _) = likeliest(&q1);
        let mut requests = vec![(
            format!("/api/v1/peg-leg-rounds/{id}/deal"),
            c.dealer.token.clone(),
            json!({}),
            None,
        )];
        for p in &c.players {
            requests.push((
                format!("/api/v1/peg-leg-rounds/{id}/bets"),
                p.token.clone(),
                json!({ "quote_id": q1["id"], "count": count, "stake": "4.00" }),
                None,
            ));
        }
        let answers = app.post_all_at_once(requests).await;
        assert_eq!(answers[0].0, 200, "the card is dealt: {}", answers[0].1);
        let accepted = answers[1..].iter().filter(|(status, _)| *status == 201).count();
        for (status, body) in &answers[1..] {
            assert!(
                *status == 201 || (*status == 409 && body.contains("stale_quote")),
                "a bet is placed or refused as stale: {status} {body}"
            );
        }
        // Every bet taken on the first quote was committed before the second card.
        let pitboss = &c.pitboss;
        app.post(
            &format!("/api/v1/peg-leg-rounds/{id}/void"),
            Some(&pitboss.token),
            &json!({ "reason": "the test is over" }),
            None,
        )
        .await
        .expect(200);
        let recall = app
            .get(&format!("/api/v1/peg-leg-rounds/{id}/recall"), Some(&pitboss.token))
            .await
            .expect(200);
        let second_card_at = recall["quotes"][1]["created_at_us"].as_i64().unwrap();
        let bets = recall["bets"].as_array().unwrap();
        assert_eq!(bets.len(), accepted);
        let view = app
            .get(&format!("/api/v1/peg-leg-rounds/{id}"), Some(&pitboss.token))
            .await
            .expect(200);
        for placed in view["bets"].as_array().unwrap() {
            assert_eq!(placed["quote_id"], q1["id"]);
            assert!(
                placed["placed_at_us"].as_i64().unwrap() < second_card_at,
                "{placed} after {second_card_at}"
            );
        }
        assert_eq!(recall["verification"]["passed"], true);
    }
);

/// The committer's count of Peg Leg bets answered `outcome`, from `/metrics` (shared by every
/// app in this process, so only its growth is read).
async fn peg_leg_bets_answered(app: &TestApp, outcome: &str) -> u64 {
    let metrics = app.get("/metrics", None).await;
    assert_eq!(metrics.status, 200);
    let text = metrics.text;
    let wanted = format!("djego_wagers_total{{outcome=\"{outcome}\",wager=\"peg_leg_bet\"}}");
    text.lines()
        .find_map(|l| l.strip_prefix(&wanted))
        .map_or(0, |n| n.trim().parse().unwrap())
}

both_backends!(
    async fn a_burst_of_peg_leg_bets_goes_through_the_wager_path_judged_bet_by_bet(app: TestApp) {
        // Exposure limit 120.00 per player and round; one player can afford only 30.00.
        let c = casino(&app, 4, 0).await;
        let poor = app.create_user(Role::Player).await;
        let cashier = app.create_user(Role::Cashier).await;
        app.fund(&cashier, &poor.id, "30.00").await;
        let round = open_round(&app, &c).await;
        let id = s(&round["id"]).to_string();
        let quote = deal(&app, &c, &id).await.expect(200)["round"]["quote"].clone();
        let (count, multiplier) = likeliest(&quote);
        let (committed_before, refused_before) = (
            peg_leg_bets_answered(&app, "committed").await,
            peg_leg_bets_answered(&app, "refused").await,
        );

        // Every player fires 8 bets of 25.00 at once: 4 fit under the limit, the poor one 1.
        let path = format!("/api/v1/peg-leg-rounds/{id}/bets");
        let players: Vec<&TestUser> = c.players.iter().chain(std::iter::once(&poor)).collect();
        let mut requests = Vec::new();
        for (p, player) in players.iter().enumerate() {
            for i in 0..8 {
                let body = json!({ "quote_id": s(&quote["id"]), "count": count, "stake": "25.00" });
                requests.push((path.clone(), player.token.clone(), body, Some(format!("peg-{p}-{i}"))));
            }
        }
        let results = app.post_all_at_once(requests).await;
        let mut placed = 0;
        for (p, player) in players.iter().enumerate() {
            let mine = &results[p * 8..p * 8 + 8];
            let accepted: Vec<Value> = mine
                .iter()
                .filter(|(st, _)| *st == 201)
                .map(|(_, t)| serde_json::from_str(t).unwrap())
                .collect();
            let refused: Vec<String> = mine
                .iter()
                .filter(|(st, _)| *st != 201)
                .map(|(st, t)| format!("{st} {}", serde_json::from_str::<Value>(t).unwrap()["error"]["code"]))
                .collect();
            let (expected, why) = if player.id == poor.id {
                (1, "\"insufficient_funds\"")
            } else {
                (4, "\"exposure_limit\"")
            };
            assert_eq!(accepted.len(), expected, "{mine:?}");
            assert!(refused.iter().all(|r| r == &format!("422 {why}")), "{refused:?}");
            for bet in &accepted {
                assert_eq!(bet["player"], player.id.as_str(), "the player's own view: {bet}");
                assert_eq!(minor(s(&bet["multiplier"])), multiplier, "at the quoted price: {bet}");
                assert_eq!(bet["status"], "open");
                assert!(bet["cash_out"].is_string(), "with its cash-out value: {bet}");
            }
            let staked = 2500 * expected as i64;
            let left = if player.id == poor.id { 3000 } else { 100_000 };
            assert_eq!(minor(&app.balance(&player.id).await), left - staked);
            placed += expected;
        }
        // Every one of them was answered by the committer.
        assert!(peg_leg_bets_answered(&app, "committed").await >= committed_before + placed as u64);
        assert!(peg_leg_bets_answered(&app, "refused").await >= refused_before + (40 - placed) as u64);

        // The round shows exactly the bets placed, its escrow exactly their stakes.
        let view = app
            .get(&format!("/api/v1/peg-leg-rounds/{id}"), Some(&c.pitboss.token))
            .await
            .expect(200);
        assert_eq!(view["bets"].as_array().unwrap().len(), placed, "{view}");

        // A twin of a placed bet gets the first answer; a stale quote is refused by the path.
        let body = json!({ "quote_id": s(&quote["id"]), "count": count, "stake": "1.00" });
        let first = app.post(&path, Some(&c.players[0].token), &body, Some("again")).await;
        let second = app.post(&path, Some(&c.players[0].token), &body, Some("again")).await;
        assert_eq!((first.status, &first.text), (second.status, &second.text));
        deal(&app, &c, &id).await.expect(200);
        let stale = app.post(&path, Some(&poor.token), &body, None).await;
        stale.assert_error(409, "stale_quote");
    }
);
