//! Confidence bets between players over HTTP on both backends: every kind offered, accepted,
//! declined, withdrawn and expired, a Fuerza after the first pass, the refusals (own offer, a
//! linked account, a side a seated player may not hold, a closed window, limits, funds), one
//! acceptance of an offer raced by two players, settlement to the cent with the commission a
//! second pit boss approved, a voided round refunding every stake, and the recall replayed by
//! both verifiers, which refuse doctored terms and a doctored commission.

use serde_json::{json, Value};
use std::collections::BTreeMap;

use djego::domain::Role;

use crate::helpers::{TestApp, TestUser};
use crate::prima_carta::{
    casino, create_round, dealer_action, minor, recall, s, seat, table_config, Casino, TableOptions, SUITS,
};

async fn offer(app: &TestApp, p: &TestUser, round: &str, body: Value) -> crate::helpers::TestResponse {
    app.post(
        &format!("/api/v1/rounds/{round}/confidence-bets"),
        Some(&p.token),
        &body,
        None,
    )
    .await
}

async fn answer(app: &TestApp, p: &TestUser, bet: &str, what: &str) -> crate::helpers::TestResponse {
    app.post(
        &format!("/api/v1/confidence-bets/{bet}/{what}"),
        Some(&p.token),
        &json!({}),
        None,
    )
    .await
}

/// A player's net from confidence-bet transfers, as the auditor's ledger shows them.
fn confidence_net(transfers: &[Value], player: &str) -> i64 {
    let wallet = format!("wallet:{player}");
    transfers
        .iter()
        .filter(|t| s(&t["kind"]).starts_with("confidence_") || s(&t["kind"]).starts_with("seguro_"))
        .map(|t| {
            let amount = minor(s(&t["amount"]));
            if t["credit_account"] == wallet.as_str() {
                amount
            } else if t["debit_account"] == wallet.as_str() {
                -amount
            } else {
                0
            }
        })
        .sum()
}

/// Which side wins, or None when void, worked out here from the recall's facts.
fn verdict(terms: &Value, facts: &Value, winner: &str) -> Option<&'static str> {
    let first = facts["first_card"].as_u64().unwrap();
    let (first_suit, first_rank) = (SUITS[(first / 10) as usize], first % 10 + 1);
    let holds = match s(&terms["kind"]) {
        "prima" => {
            if terms["ace_voids"] == true && first_suit == terms["suit"] && first_rank == 1 {
                return None;
            }
            first_suit == terms["suit"]
        }
        "fuerza" | "wins" => terms["suit"] == winner,
        "first_to_complete" => terms["suit"] == facts["first_to_complete"],
        "first_pass_count" => {
            let n = facts["first_pass_count"].as_u64().unwrap();
            terms["min"].as_u64().unwrap() <= n && n <= terms["max"].as_u64().unwrap()
        }
        other => panic!("unknown kind {other}"),
    };
    Some(if holds { "for" } else { "against" })
}

/// Every accepted bet of a settled recall paid exactly as its terms and the commission say;
/// returns each player's expected net from confidence bets.
fn expected_nets(rec: &Value, bp: i64, cap: i64) -> BTreeMap<String, i64> {
    let facts = &rec["round"]["result"]["facts"];
    let winner = s(&rec["round"]["result"]["result"]["winner"]);
    let mut net: BTreeMap<String, i64> = BTreeMap::new();
    for bet in rec["round"]["confidence_bets"].as_array().unwrap() {
        let status = s(&bet["status"]);
        if bet["accepted_by"].is_null() {
            assert!(["withdrawn", "declined", "expired"].contains(&status), "{bet}");
            continue;
        }
        let stakes = [
            ("for", minor(s(&bet["for_stake"]))),
            ("against", minor(s(&bet["against_stake"]))),
        ];
        let offerer_side = s(&bet["offerer_side"]);
        let holder = |side: &str| {
            let who = if side == offerer_side {
                &bet["offered_by"]
            } else {
                &bet["accepted_by"]
            };
            s(&who["player_id"]).to_owned()
        };
        for (side, stake) in stakes {
            *net.entry(holder(side)).or_default() -= stake;
        }
        if bet["terms"]["kind"] == "seguro" {
            // Paid copas only here: the contribution reached the backed player's wallet.
            assert_eq!(status, "settled", "{bet}");
            let contribution = stakes[0].1;
            *net.entry(holder("against")).or_default() += contribution;
            if bet["terms"]["suit"] == winner {
                let winnings = minor(s(&rec["round"]["result"]["winner_paid"]));
                let share = winnings * bet["terms"]["share_bp"].as_i64().unwrap() / 10_000;
                let commission = ((share - contribution).max(0) * bp / 10_000).min(cap);
                assert_eq!(minor(s(&bet["paid"])), share - commission, "{bet}");
                assert_eq!(minor(s(&bet["commission"])), commission, "{bet}");
                *net.entry(holder("against")).or_default() -= share;
                *net.entry(holder("for")).or_default() += share - commission;
            } else {
                assert_eq!(bet["paid"], "0.00", "{bet}");
            }
            continue;
        }
        match verdict(&bet["terms"], facts, winner) {
            None => {
                assert_eq!(status, "void", "{bet}");
                for (side, stake) in stakes {
                    *net.entry(holder(side)).or_default() += stake;
                }
            }
            Some(side) => {
                assert_eq!(status, "settled", "{bet}");
                assert_eq!(bet["winner_side"], side, "{bet}");
                let gain = stakes.iter().find(|(x, _)| *x != side).unwrap().1;
                let commission = (gain * bp / 10_000).min(cap);
                assert_eq!(minor(s(&bet["commission"])), commission, "{bet}");
                let paid = stakes[0].1 + stakes[1].1 - commission;
                assert_eq!(minor(s(&bet["paid"])), paid, "{bet}");
                *net.entry(holder(side)).or_default() += paid;
            }
        }
    }
    net
}

async fn staff_recall(app: &TestApp, round: &str) -> Value {
    recall(app, round).await
}

async fn both_verifiers_pass(rec: &Value) {
    let report = djego::transcript::verify_document(rec);
    assert!(report.passed, "{}", report.to_text());
    let names: Vec<&str> = report.checks.iter().map(|c| c.name.as_ref()).collect();
    assert!(names.contains(&"confidence_bets"), "{names:?}");
    let (ok, reports) = crate::transcripts::python_verdict(&rec.to_string()).await;
    assert!(ok, "verify_round.py refuses the recall: {reports:?}");
    let python: Vec<&str> = reports[0]["checks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert_eq!(python, names);
}

pub(crate) async fn both_verifiers_fail(doc: &Value, check: &str) {
    let report = djego::transcript::verify_document(doc);
    let failing: Vec<&str> = report
        .checks
        .iter()
        .filter(|c| !c.passed)
        .map(|c| c.name.as_ref())
        .collect();
    assert!(failing.contains(&check), "Rust verifier: {}", report.to_text());
    let (ok, reports) = crate::transcripts::python_verdict(&doc.to_string()).await;
    assert!(!ok);
    let python: Vec<&str> = reports[0]["checks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["passed"] == false)
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert!(python.contains(&check), "Python verifier: {reports:?}");
}

/// The pit boss sets the table's commission through two-person control.
async fn set_commission(app: &TestApp, c: &Casino, bp: u32, cap: &str) {
    app.post(
        &format!("/api/v1/tables/{}/close", c.table),
        Some(&c.pitboss.token),
        &json!({}),
        None,
    )
    .await
    .expect(200);
    // One pit boss alone only proposes: nothing changes until a second approves.
    let mut config = table_config(&TableOptions::default());
    config["confidence_commission_bp"] = json!(0);
    let proposed = app
        .send(
            app.request(
                reqwest::Method::PUT,
                &format!("/api/v1/tables/{}/config", c.table),
                Some(&c.pitboss.token),
            )
            .json(&config),
        )
        .await
        .expect(202);
    assert_eq!(proposed["status"], "pending", "{proposed}");
    let table = app
        .get(&format!("/api/v1/tables/{}", c.table), Some(&c.pitboss.token))
        .await
        .expect(200);
    assert_eq!(table["config"]["confidence_commission_bp"], 500, "{table}");
    config["confidence_commission_bp"] = json!(bp);
    config["confidence_commission_cap"] = json!(cap);
    app.two_person(
        reqwest::Method::PUT,
        &format!("/api/v1/tables/{}/config", c.table),
        &c.pitboss,
        &config,
    )
    .await;
    app.post(
        &format!("/api/v1/tables/{}/open", c.table),
        Some(&c.pitboss.token),
        &json!({}),
        None,
    )
    .await
    .expect(200);
}

both_backends!(
    async fn confidence_bets_are_offered_taken_settled_and_replayed(app: TestApp) {
        let c = casino(
            &app,
            TableOptions {
                players: 6,
                ..Default::default()
            },
        )
        .await;
        // With a second pit boss's approval the commission is 10%, capped at 1.50.
        set_commission(&app, &c, 1000, "1.50").await;
        let (bp, cap) = (1000, 150);
        let [a, b, backer, d, e, f] = [
            &c.players[0],
            &c.players[1],
            &c.players[2],
            &c.players[3],
            &c.players[4],
            &c.players[5],
        ];
        // f and the backer are one person with two accounts.
        crate::compliance::record_identity(&app, &c.cashier, backer, "Rui Costa").await;
        crate::compliance::record_identity(&app, &c.cashier, f, "Rui Costa").await;
        let broke = app.create_user(Role::Player).await;

        let mut fuerza_seen = false;
        for attempt in 0..12 {
            let round = create_round(&app, &c).await;
            let id = s(&round["id"]).to_string();
            let (sa, sb) = (SUITS[attempt % 5], SUITS[(attempt + 1) % 5]);
            seat(&app, a, &id, sa, None).await.expect(201);
            seat(&app, b, &id, sb, None).await.expect(201);
            let before = crate::prima_carta::balances(&app, &c).await;

            // A backer's Prima goes to the suit's seated player; 4:1 with the 1 excluded.
            let prima = offer(
                &app,
                backer,
                &id,
                json!({"kind": "prima", "suit": sa, "ace_voids": true,
                "stake": "5.00", "taker_stake": "20.00"}),
            )
            .await
            .expect(201);
            assert_eq!(prima["offerer_side"], "for");
            assert_eq!(prima["offered_to"]["player"], "P1", "{prima}");
            assert_eq!(prima["status"], "offered");
            // Nobody else may take it, the backer least of all, nor the backer's second account.
            answer(&app, backer, s(&prima["id"]), "accept")
                .await
                .assert_error(403, "forbidden");
            answer(&app, d, s(&prima["id"]), "accept")
                .await
                .assert_error(403, "forbidden");
            let taken = answer(&app, a, s(&prima["id"]), "accept").await.expect(200);
            assert_eq!(taken["status"], "accepted");
            answer(&app, a, s(&prima["id"]), "accept")
                .await
                .assert_error(409, "offer_not_open");

            // The seated player lays a Prima open to any backer; two backers race for it, one wins.
            let laid = offer(
                &app,
                a,
                &id,
                json!({"kind": "prima", "suit": sa, "stake": "8.00",
                "taker_stake": "2.00"}),
            )
            .await
            .expect(201);
            assert_eq!(laid["offerer_side"], "against");
            let race = app
                .send_all_at_once(
                    [d, e]
                        .iter()
                        .map(|p| {
                            app.request(
                                reqwest::Method::POST,
                                &format!("/api/v1/confidence-bets/{}/accept", s(&laid["id"])),
                                Some(&p.token),
                            )
                            .json(&json!({}))
                        })
                        .collect(),
                )
                .await;
            let mut codes: Vec<u16> = race.iter().map(|r| r.0).collect();
            codes.sort();
            assert_eq!(codes, vec![200, 409], "{race:?}");

            // The linked account cannot take the backer's open offer; another player can.
            let count = offer(
                &app,
                backer,
                &id,
                json!({"kind": "first_pass_count", "min": 14, "max": 15,
                "side": "against", "stake": "3.00", "taker_stake": "6.00"}),
            )
            .await
            .expect(201);
            answer(&app, f, s(&count["id"]), "accept")
                .await
                .assert_error(403, "forbidden");
            answer(&app, d, s(&count["id"]), "accept").await.expect(200);

            // Declined, withdrawn, and left to expire.
            let wins = offer(
                &app,
                d,
                &id,
                json!({"kind": "wins", "suit": sb, "side": "for", "stake": "10.00",
                "taker_stake": "10.00", "to_player_id": e.id}),
            )
            .await
            .expect(201);
            answer(&app, d, s(&wins["id"]), "decline")
                .await
                .assert_error(403, "forbidden");
            let declined = answer(&app, e, s(&wins["id"]), "decline").await.expect(200);
            assert_eq!(declined["status"], "declined");
            let complete = offer(
                &app,
                e,
                &id,
                json!({"kind": "first_to_complete", "suit": "cups", "side": "for",
                "stake": "2.00", "taker_stake": "8.00"}),
            )
            .await
            .expect(201);
            answer(&app, d, s(&complete["id"]), "withdraw")
                .await
                .assert_error(403, "forbidden");
            assert_eq!(
                answer(&app, e, s(&complete["id"]), "withdraw").await.expect(200)["status"],
                "withdrawn"
            );
            let left = offer(
                &app,
                e,
                &id,
                json!({"kind": "wins", "suit": sa, "side": "for", "stake": "4.00",
                "taker_stake": "4.00"}),
            )
            .await
            .expect(201);
            // The other seated player may bet against another's suit, never for it.
            answer(&app, b, s(&left["id"]), "accept").await.expect(200);
            // Nor may a seated player be offered the side against their own suit.
            let own = offer(
                &app,
                e,
                &id,
                json!({"kind": "wins", "suit": sb, "side": "for", "stake": "1.00",
                "taker_stake": "1.00", "to_player_id": b.id}),
            )
            .await;
            own.assert_error(403, "forbidden");
            let lapse = offer(
                &app,
                d,
                &id,
                json!({"kind": "wins", "suit": sb, "side": "against", "stake": "1.00",
                "taker_stake": "1.00"}),
            )
            .await
            .expect(201);

            // Refusals that move nothing.
            offer(
                &app,
                a,
                &id,
                json!({"kind": "wins", "suit": sa, "side": "against", "stake": "1.00",
                "taker_stake": "1.00"}),
            )
            .await
            .assert_error(403, "forbidden");
            offer(
                &app,
                backer,
                &id,
                json!({"kind": "fuerza", "suit": sa, "stake": "1.00",
                "taker_stake": "1.00"}),
            )
            .await
            .assert_error(409, "offer_window_closed");
            offer(
                &app,
                backer,
                &id,
                json!({"kind": "wins", "suit": sa, "side": "for", "stake": "0.50",
                "taker_stake": "1.00"}),
            )
            .await
            .assert_error(422, "bet_out_of_range");
            offer(
                &app,
                backer,
                &id,
                json!({"kind": "first_pass_count", "min": 9, "max": 12, "side": "for",
                "stake": "1.00", "taker_stake": "1.00"}),
            )
            .await
            .assert_error(422, "invalid_terms");
            offer(
                &app,
                backer,
                &id,
                json!({"kind": "prima", "suit": sa, "min": 12, "stake": "1.00",
                "taker_stake": "1.00"}),
            )
            .await
            .assert_error(422, "invalid_terms");
            offer(
                &app,
                backer,
                &id,
                json!({"kind": "raffle", "stake": "1.00", "taker_stake": "1.00"}),
            )
            .await
            .assert_error(400, "unknown_bet_kind");
            offer(
                &app,
                &broke,
                &id,
                json!({"kind": "wins", "suit": sa, "side": "for", "stake": "1.00",
                "taker_stake": "1.00"}),
            )
            .await
            .assert_error(422, "insufficient_funds");
            offer(
                &app,
                &c.dealer,
                &id,
                json!({"kind": "wins", "suit": sa, "side": "for", "stake": "1.00",
                "taker_stake": "1.00"}),
            )
            .await
            .assert_error(403, "forbidden");

            // The live view carries the offers with pseudonyms only.
            let public = app
                .get(&format!("/api/v1/rounds/{id}"), Some(&d.token))
                .await
                .expect(200);
            let listed = public["confidence_bets"].as_array().unwrap();
            assert_eq!(listed.len(), 7, "{public}");
            assert!(listed
                .iter()
                .all(|v| v["offered_by"]["player_id"].is_null() || v["offered_by"]["you"] == true));

            dealer_action(&app, &c, &id, "close").await.expect(200);
            let view = app
                .get(&format!("/api/v1/rounds/{id}/confidence-bets"), Some(&d.token))
                .await
                .expect(200);
            let status_of =
                |bet: &Value| view.as_array().unwrap().iter().find(|v| v["id"] == bet["id"]).unwrap()["status"].clone();
            assert_eq!(status_of(&lapse), "expired");
            assert_eq!(status_of(&prima), "accepted");
            answer(&app, e, s(&lapse["id"]), "accept")
                .await
                .assert_error(409, "offer_not_open");

            let mut view = dealer_action(&app, &c, &id, "deal").await.expect(200);
            if view["status"] == "copa" {
                // The first to decide pays; then a Fuerza on them, taken, and one left to expire.
                let turn = s(&view["copa_turn"]["suit"]).to_string();
                let (payer, other) = if turn == sa { (a, b) } else { (b, a) };
                offer(
                    &app,
                    d,
                    &id,
                    json!({"kind": "fuerza", "suit": turn, "stake": "5.00", "taker_stake": "5.00"}),
                )
                .await
                .assert_error(403, "forbidden");
                view = app
                    .post(
                        &format!("/api/v1/rounds/{id}/copa"),
                        Some(&payer.token),
                        &json!({"decision": "pay"}),
                        None,
                    )
                    .await
                    .expect(200);
                if view["status"] == "copa" {
                    fuerza_seen = true;
                    // A seated player cannot back another's Fuerza.
                    offer(
                        &app,
                        other,
                        &id,
                        json!({"kind": "fuerza", "suit": turn, "stake": "5.00", "taker_stake": "5.00"}),
                    )
                    .await
                    .assert_error(403, "forbidden");
                    let fuerza = offer(
                        &app,
                        d,
                        &id,
                        json!({"kind": "fuerza", "suit": turn, "stake": "5.00",
                        "taker_stake": "5.00"}),
                    )
                    .await
                    .expect(201);
                    answer(&app, payer, s(&fuerza["id"]), "accept").await.expect(200);
                    let open = offer(
                        &app,
                        payer,
                        &id,
                        json!({"kind": "fuerza", "suit": turn, "stake": "3.00",
                        "taker_stake": "3.00"}),
                    )
                    .await
                    .expect(201);
                    // Seguro: the player who paid backs the one still to decide with 2.00 of their
                    // copa for half their winnings; the backed player stakes nothing now.
                    let other_suit = if turn == sa { sb } else { sa };
                    offer(
                        &app,
                        payer,
                        &id,
                        json!({"kind": "seguro", "suit": other_suit, "stake": "2.00", "taker_stake": "1.00"}),
                    )
                    .await
                    .assert_error(422, "invalid_terms");
                    offer(
                        &app,
                        d,
                        &id,
                        json!({"kind": "seguro", "suit": other_suit, "stake": "2.00"}),
                    )
                    .await
                    .assert_error(403, "forbidden");
                    offer(
                        &app,
                        other,
                        &id,
                        json!({"kind": "seguro", "suit": other_suit, "stake": "2.00"}),
                    )
                    .await
                    .assert_error(403, "forbidden");
                    offer(
                        &app,
                        payer,
                        &id,
                        json!({"kind": "seguro", "suit": turn, "stake": "2.00"}),
                    )
                    .await
                    .assert_error(403, "forbidden");
                    let backing = offer(
                        &app,
                        payer,
                        &id,
                        json!({"kind": "seguro", "suit": other_suit, "stake": "2.00",
                        "share_bp": 5000}),
                    )
                    .await
                    .expect(201);
                    assert_eq!(backing["against_stake"], "0.00");
                    let before_copa = minor(&app.balance(&other.id).await);
                    answer(&app, other, s(&backing["id"]), "accept").await.expect(200);
                    assert_eq!(
                        minor(&app.balance(&other.id).await),
                        before_copa,
                        "the backed stakes nothing"
                    );
                    view = app
                        .post(
                            &format!("/api/v1/rounds/{id}/copa"),
                            Some(&other.token),
                            &json!({"decision": "pay"}),
                            None,
                        )
                        .await
                        .expect(200);
                    answer(&app, d, s(&open["id"]), "accept")
                        .await
                        .assert_error(409, "offer_not_open");
                }
            }
            assert!(view["status"] == "finished" || view["status"] == "in_play", "{view}");
            dealer_action(&app, &c, &id, "settle").await.expect(200);

            let rec = staff_recall(&app, &id).await;
            let nets = expected_nets(&rec, bp, cap);
            let transfers = rec["transfers"].as_array().unwrap();
            for p in &c.players {
                assert_eq!(
                    confidence_net(transfers, &p.id),
                    nets.get(&p.id).copied().unwrap_or(0),
                    "{}",
                    p.username
                );
            }
            let commissions: i64 = rec["round"]["confidence_bets"]
                .as_array()
                .unwrap()
                .iter()
                .map(|b| minor(s(&b["commission"])))
                .sum();
            let booked: i64 = transfers
                .iter()
                .filter(|t| t["kind"] == "confidence_commission")
                .map(|t| minor(s(&t["amount"])))
                .sum();
            assert_eq!(commissions, booked);
            // Players who bet but never sat still own the net the bets give them.
            let after = crate::prima_carta::balances(&app, &c).await;
            for p in [backer, d, e, f] {
                assert_eq!(
                    after[&p.id] - before[&p.id],
                    nets.get(&p.id).copied().unwrap_or(0),
                    "{}",
                    p.username
                );
            }
            both_verifiers_pass(&rec).await;

            // Doctored terms or a doctored commission fail in both verifiers.
            let mut doctored = rec.clone();
            let terms = &mut doctored["transcript"]["confidence_bets"][0]["terms"];
            terms["suit"] = json!(SUITS.iter().find(|x| **x != sa).unwrap());
            both_verifiers_fail(&doctored, "confidence_bets").await;
            let mut doctored = rec.clone();
            let settled = doctored["transcript"]["confidence_bets"]
                .as_array_mut()
                .unwrap()
                .iter_mut()
                .find(|b| b["status"] == "settled")
                .expect("a settled bet");
            settled["commission"] = json!("0.00");
            both_verifiers_fail(&doctored, "confidence_bets").await;
            if fuerza_seen {
                break;
            }
        }
        assert!(fuerza_seen, "no round of twelve reached a second copa decision");
    }
);

both_backends!(
    async fn a_voided_round_refunds_every_confidence_stake(app: TestApp) {
        let c = casino(
            &app,
            TableOptions {
                players: 4,
                ..Default::default()
            },
        )
        .await;
        let [a, b, backer, d] = [&c.players[0], &c.players[1], &c.players[2], &c.players[3]];
        let round = create_round(&app, &c).await;
        let id = s(&round["id"]).to_string();
        seat(&app, a, &id, "crowns", None).await.expect(201);
        seat(&app, b, &id, "cups", None).await.expect(201);
        let before = crate::prima_carta::balances(&app, &c).await;
        let prima = offer(
            &app,
            backer,
            &id,
            json!({"kind": "prima", "suit": "crowns", "stake": "5.00",
            "taker_stake": "20.00"}),
        )
        .await
        .expect(201);
        answer(&app, a, s(&prima["id"]), "accept").await.expect(200);
        let open = offer(
            &app,
            d,
            &id,
            json!({"kind": "first_pass_count", "min": 17.0, "max": 50, "side": "for",
            "stake": "7.00", "taker_stake": "3.00"}),
        )
        .await
        .expect(201);
        assert_eq!(minor(&app.balance(&d.id).await), before[&d.id] - 700);
        app.post(
            &format!("/api/v1/rounds/{id}/void"),
            Some(&c.pitboss.token),
            &json!({"reason": "table fault"}),
            None,
        )
        .await
        .expect(200);
        let view = app
            .get(&format!("/api/v1/rounds/{id}/confidence-bets"), Some(&c.pitboss.token))
            .await
            .expect(200);
        let status =
            |bet: &Value| view.as_array().unwrap().iter().find(|v| v["id"] == bet["id"]).unwrap()["status"].clone();
        assert_eq!(status(&prima), "refunded");
        assert_eq!(status(&open), "expired");
        for p in [backer, d] {
            assert_eq!(minor(&app.balance(&p.id).await), before[&p.id], "{}", p.username);
        }
        answer(&app, backer, s(&open["id"]), "accept")
            .await
            .assert_error(409, "offer_not_open");
        // A backer who only bet finds the round among theirs, and may read its recall.
        let mine = app.get("/api/v1/me/rounds", Some(&backer.token)).await.expect(200);
        assert!(mine.to_string().contains(&id), "{mine}");
        app.get(&format!("/api/v1/rounds/{id}/recall"), Some(&backer.token))
            .await
            .expect(200);
        let rec = staff_recall(&app, &id).await;
        both_verifiers_pass(&rec).await;
        let mut doctored = rec.clone();
        doctored["transcript"]["confidence_bets"][0]["status"] = json!("settled");
        both_verifiers_fail(&doctored, "confidence_bets").await;
    }
);
