//! The house's Fuerza over HTTP on both backends: quoted only at Jasper tables and only after
//! a copa is paid; no price while one paid player stands alone against the undecided; a bet on
//! a stale quote or a stale price refused; a seated player still to decide refused; bets at
//! the last quote after the copa; settlement to the cent; the recall replayed by both
//! verifiers, which refuse a doctored quote and a doctored price.

use rust_decimal::Decimal;
use serde_json::{json, Value};
use std::str::FromStr;

use crate::helpers::{TestApp, TestUser};
use crate::prima_carta::{casino, create_round, dealer_action, minor, recall, s, seat, TableOptions};

async fn bet(app: &TestApp, p: &TestUser, round: &str, body: Value) -> crate::helpers::TestResponse {
    app.post(
        &format!("/api/v1/rounds/{round}/fuerza-bets"),
        Some(&p.token),
        &body,
        None,
    )
    .await
}

async fn quotes(app: &TestApp, p: &TestUser, round: &str) -> Value {
    app.get(&format!("/api/v1/rounds/{round}/fuerza"), Some(&p.token))
        .await
        .expect(200)
}

/// A quote's priced suits: (suit, price).
fn priced(q: &Value) -> Vec<(String, String)> {
    q["quotes"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|x| !x["price"].is_null())
        .map(|x| (s(&x["suit"]).to_owned(), s(&x["price"]).to_owned()))
        .collect()
}

async fn decide(app: &TestApp, p: &TestUser, round: &str, pay: bool) -> Value {
    app.post(
        &format!("/api/v1/rounds/{round}/copa"),
        Some(&p.token),
        &json!({"decision": if pay { "pay" } else { "fold" }}),
        None,
    )
    .await
    .expect(200)
}

both_backends!(
    async fn the_house_fuerza_is_quoted_bet_settled_and_replayed(app: TestApp) {
        // At a classic table the round's view carries no Fuerza and a bet is refused.
        let classic = casino(&app, TableOptions::default()).await;
        let round = create_round(&app, &classic).await;
        assert!(round["fuerza"].is_null(), "{round}");
        let q = quotes(&app, &classic.players[0], s(&round["id"])).await;
        assert_eq!(q["open"], false, "{q}");
        assert!(s(&q["reason"]).contains("Jasper"), "{q}");

        let c = casino(
            &app,
            TableOptions {
                variant: "jasper",
                players: 5,
                max_exposure: "5000.00",
                ..Default::default()
            },
        )
        .await;
        crate::floor::calendar_with_cut_off_in(&app, &c.pitboss, 12 * 3600).await;
        let seated = [&c.players[0], &c.players[1], &c.players[2]];
        let [backer, second] = [&c.players[3], &c.players[4]];
        let suits = ["crowns", "fruit", "cups"];
        let player_of = |suit: &str| seated[suits.iter().position(|x| *x == suit).unwrap()];
        let mut played = false;
        for _attempt in 0..20 {
            let round = create_round(&app, &c).await;
            let id = s(&round["id"]).to_string();
            for (p, suit) in seated.iter().zip(suits) {
                seat(&app, p, &id, suit, None).await.expect(201);
            }
            let q = quotes(&app, backer, &id).await;
            assert_eq!(q["open"], false, "{q}");
            bet(
                &app,
                backer,
                &id,
                json!({"suit": "crowns", "stake": "5.00", "quote_version": 1, "price": "2.00"}),
            )
            .await
            .assert_error(409, "fuerza_not_quoted");
            dealer_action(&app, &c, &id, "close").await.expect(200);
            let view = dealer_action(&app, &c, &id, "deal").await.expect(200);
            if view["status"] != "copa" {
                continue; // a suit completed in the first pass
            }
            assert_eq!(quotes(&app, backer, &id).await["open"], false, "nobody has paid yet");
            // The first payer alone: everyone else may still fold, so the house offers no price.
            let first = s(&view["copa_turn"]["suit"]).to_owned();
            let view = decide(&app, player_of(&first), &id, true).await;
            if view["status"] != "copa" {
                continue;
            }
            let q1 = quotes(&app, backer, &id).await;
            assert_eq!(q1["open"], true, "{q1}");
            assert_eq!(q1["version"], 1);
            assert_eq!(q1["quotes"][0]["wins"], q1["samples"], "{q1}");
            assert!(priced(&q1).is_empty(), "{q1}");
            bet(
                &app,
                backer,
                &id,
                json!({"suit": first, "stake": "5.00", "quote_version": 1, "price": "1.01"}),
            )
            .await
            .assert_error(409, "no_price");
            // A second payer: both priced on the chance that holds whatever the third does.
            let second_suit = s(&view["copa_turn"]["suit"]).to_owned();
            let third = suits
                .iter()
                .find(|x| **x != first && **x != second_suit)
                .unwrap()
                .to_string();
            let view = decide(&app, player_of(&second_suit), &id, true).await;
            assert_eq!(view["status"], "copa", "{view}");
            let q2 = quotes(&app, backer, &id).await;
            assert_eq!(q2["version"], 2);
            assert_eq!(q2["undecided"], json!([third]), "{q2}");
            for x in q2["quotes"].as_array().unwrap() {
                assert!(x["wins_if_all_pay"].as_u64() <= x["wins"].as_u64(), "{x}");
            }
            let wins: u64 = q2["quotes"]
                .as_array()
                .unwrap()
                .iter()
                .map(|x| x["wins"].as_u64().unwrap())
                .sum();
            assert_eq!(
                wins,
                q2["samples"].as_u64().unwrap(),
                "one of the two payers wins each draw"
            );
            let Some((suit2, price2)) = priced(&q2).into_iter().next() else {
                continue;
            };
            // The third, still to decide, may not bet; a stale version or price is refused.
            bet(
                &app,
                player_of(&third),
                &id,
                json!({"suit": suit2, "stake": "5.00", "quote_version": 2, "price": price2}),
            )
            .await
            .assert_error(403, "forbidden");
            bet(
                &app,
                backer,
                &id,
                json!({"suit": suit2, "stake": "5.00", "quote_version": 1, "price": price2}),
            )
            .await
            .assert_error(409, "stale_quote");
            bet(
                &app,
                backer,
                &id,
                json!({"suit": suit2, "stake": "5.00", "quote_version": 2, "price": "99.99"}),
            )
            .await
            .assert_error(409, "stale_quote");
            // A price past any quote's is refused the same way (schemathesis found a 400 here).
            bet(
                &app,
                backer,
                &id,
                json!({"suit": suit2, "stake": "5.00", "quote_version": 2, "price": "0000000426580649.31"}),
            )
            .await
            .assert_error(409, "stale_quote");
            bet(
                &app,
                backer,
                &id,
                json!({"suit": suit2, "stake": "500.00", "quote_version": 2, "price": price2}),
            )
            .await
            .assert_error(422, "bet_out_of_range");
            let before = minor(&app.balance(&backer.id).await);
            let placed = bet(
                &app,
                backer,
                &id,
                json!({"suit": suit2, "stake": "10.00", "quote_version": 2.0, "price": price2}),
            )
            .await
            .expect(201);
            assert_eq!(placed["status"], "open");
            assert_eq!(minor(&app.balance(&backer.id).await), before - 1000);
            // The third pays: the copa is over; the quote is exact and a bet at version 2 is stale.
            let view = decide(&app, player_of(&third), &id, true).await;
            assert_eq!(view["status"], "in_play", "{view}");
            assert!(view["fuerza"]["open"] == true, "{view}");
            bet(
                &app,
                second,
                &id,
                json!({"suit": suit2, "stake": "10.00", "quote_version": 2, "price": price2}),
            )
            .await
            .assert_error(409, "stale_quote");
            let q3 = quotes(&app, second, &id).await;
            assert_eq!(q3["version"], 3);
            for x in q3["quotes"].as_array().unwrap() {
                assert_eq!(x["wins"], x["wins_if_all_pay"], "{x}");
            }
            let mut placed3 = None;
            for (suit3, price3) in priced(&q3) {
                let r = bet(
                    &app,
                    second,
                    &id,
                    json!({"suit": suit3, "stake": "7.00", "quote_version": 3, "price": price3}),
                )
                .await
                .expect(201);
                placed3 = Some(r);
                break;
            }
            let second_before = minor(&app.balance(&second.id).await);
            dealer_action(&app, &c, &id, "settle").await.expect(200);
            let rec = recall(&app, &id).await;
            let winner = s(&rec["round"]["result"]["result"]["winner"]).to_owned();
            let price_minor = |p: &str| minor(p);
            let expect_back = |suit: &str, stake: i64, price: &str| {
                if suit == winner {
                    stake * price_minor(price) / 100
                } else {
                    0
                }
            };
            assert_eq!(
                minor(&app.balance(&backer.id).await),
                before - 1000 + expect_back(&suit2, 1000, &price2),
                "the backer's Fuerza paid at its price"
            );
            if let Some(p3) = &placed3 {
                assert_eq!(
                    minor(&app.balance(&second.id).await),
                    second_before + expect_back(s(&p3["suit"]), 700, s(&p3["price"]))
                );
            }
            let bets = rec["round"]["fuerza_bets"].as_array().unwrap();
            let mut theo = Decimal::ZERO;
            for b in bets {
                let won = b["suit"] == winner.as_str();
                assert_eq!(b["status"], if won { "won" } else { "lost" }, "{b}");
                // The house expects stake × (1 − price × chance) on each, the chance as quoted.
                let stake = Decimal::from(minor(s(&b["stake"])));
                let price = Decimal::from_str(s(&b["price"])).unwrap();
                let chance = Decimal::from(b["quote_wins"].as_u64().unwrap())
                    / Decimal::from(b["quote_samples"].as_u64().unwrap());
                theo += stake - stake * price * chance;
            }
            let report = app
                .get("/api/v1/floor/tables", Some(&c.pitboss.token))
                .await
                .expect(200);
            let line = crate::floor::day_line(&report, Some(&c.table));
            assert_eq!(
                s(&line["theo_win"]),
                crate::floor::cents(theo),
                "the Fuerza's theoretical win: {line}"
            );
            assert_eq!(line["covered_win"], line["house_win"], "{line}");
            // Both verifiers draw the quotes again and settle them; doctored ones fail.
            let report = djego::transcript::verify_document(&rec);
            assert!(report.passed, "{}", report.to_text());
            let (ok, reports) = crate::transcripts::python_verdict(&rec.to_string()).await;
            assert!(ok, "verify_round.py refuses the recall: {reports:?}");
            let mut doctored = rec.clone();
            let w = doctored["transcript"]["fuerza_bets"][0]["quote"]["wins"]
                .as_u64()
                .unwrap();
            doctored["transcript"]["fuerza_bets"][0]["quote"]["wins"] = json!(w * 3 / 4);
            crate::confidence_bets::both_verifiers_fail(&doctored, "fuerza_bets").await;
            let mut doctored = rec.clone();
            doctored["transcript"]["fuerza_bets"][0]["quote"]["price"] = json!("9.99");
            crate::confidence_bets::both_verifiers_fail(&doctored, "fuerza_bets").await;
            // The bettor finds the round among theirs.
            let mine = app.get("/api/v1/me/rounds", Some(&backer.token)).await.expect(200);
            assert!(mine.to_string().contains(&id), "{mine}");
            played = true;
            break;
        }
        // (After the loop, so the ledger's soundness is checked when the body ends.)
        assert!(
            played,
            "no Jasper round of twenty reached two paid copas with a third to decide and a price"
        );
    }
);
