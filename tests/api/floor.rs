//! The floor calendar: gaming days and shifts (docs/floor.md).

use djego::domain::Role;
use rust_decimal::Decimal;
use serde_json::{json, Value};
use std::str::FromStr;

use crate::helpers::{TestApp, TestUser};
use crate::prima_carta::{
    account_net, casino, create_round, dealer_action, minor, money, play_copa, recall, s, seat, Casino, TableOptions,
    SUITS,
};

const PATH: &str = "/api/v1/floor/calendar";

fn lisbon() -> Value {
    json!({
        "timezone": "Europe/Lisbon",
        "day_starts_at": "06:00",
        "shifts": [
            { "name": "day", "starts_at": "06:00" },
            { "name": "swing", "starts_at": "14:00" },
            { "name": "graveyard", "starts_at": "22:00" },
        ],
    })
}

/// The present instant lies in the gaming day and the shift the view names.
fn assert_now_consistent(view: &Value) {
    let now = &view["now"];
    let at = now["at_us"].as_i64().unwrap();
    let bounds = |from: &str, to: &str| (now[from].as_i64().unwrap(), now[to].as_i64().unwrap());
    let (day_start, day_end) = bounds("day_starts_at_us", "day_ends_at_us");
    let (shift_start, shift_end) = bounds("shift_starts_at_us", "shift_ends_at_us");
    assert!(day_start <= at && at < day_end, "{now}");
    assert!(
        day_start <= shift_start && shift_start <= at && at < shift_end && shift_end <= day_end,
        "{now}"
    );
    let hours = (day_end - day_start) as f64 / 3.6e9;
    assert!((23.0..=25.0).contains(&hours), "{hours} hours");
    let shifts: Vec<&str> = view["shifts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert!(shifts.contains(&now["shift"].as_str().unwrap()), "{view}");
}

both_backends! {
    async fn the_default_calendar_is_utc_from_six_in_three_shifts(app: TestApp) {
        let dealer = app.create_user(Role::Dealer).await;
        let view = app.get(PATH, Some(&dealer.token)).await.expect(200);
        assert_eq!(view["timezone"], "UTC");
        assert_eq!(view["day_starts_at"], "06:00:00");
        assert_eq!(view["shifts"], json!([
            { "name": "day", "starts_at": "06:00:00" },
            { "name": "swing", "starts_at": "14:00:00" },
            { "name": "graveyard", "starts_at": "22:00:00" },
        ]));
        assert_now_consistent(&view);
        let at = chrono::DateTime::from_timestamp_micros(view["now"]["at_us"].as_i64().unwrap()).unwrap();
        let expected_day = (at - chrono::Duration::hours(6)).date_naive().to_string();
        assert_eq!(view["now"]["gaming_day"], expected_day.as_str());
    }
}

both_backends! {
    async fn a_pit_boss_sets_the_calendar_and_it_takes_effect_from_the_next_gaming_day(app: TestApp) {
        let pitboss = app.create_user(Role::Pitboss).await;
        let before = app.get(PATH, Some(&pitboss.token)).await.expect(200);
        assert_eq!(before["pending"], Value::Null);
        assert_eq!(before["in_force_since_us"], Value::Null);
        let proposed = app.put(PATH, Some(&pitboss.token), &lisbon(), Some("calendar-1")).await.expect(202);
        assert_eq!(proposed["kind"], "change_calendar", "{proposed}");
        // The same key and body replay the proposal, not a second one.
        let replayed = app.put(PATH, Some(&pitboss.token), &lisbon(), Some("calendar-1")).await.expect(202);
        assert_eq!(replayed["id"], proposed["id"]);
        let applied = app.approve(&proposed).await;
        let set = applied["result"].clone();
        // The present day, under the calendar in force, is untouched; Lisbon waits for the next one.
        assert_eq!(set["timezone"], "UTC");
        assert_now_consistent(&set);
        assert_eq!(set["now"]["gaming_day"], before["now"]["gaming_day"]);
        assert_eq!(set["now"]["day_ends_at_us"], before["now"]["day_ends_at_us"]);
        let pending = &set["pending"];
        assert_eq!(pending["timezone"], "Europe/Lisbon", "{set}");
        assert_eq!(pending["effective_from_us"], set["now"]["day_ends_at_us"], "{set}");
        assert_eq!(pending["shifts"], json!([
            { "name": "day", "starts_at": "06:00:00" },
            { "name": "swing", "starts_at": "14:00:00" },
            { "name": "graveyard", "starts_at": "22:00:00" },
        ]));
        let today = chrono::NaiveDate::parse_from_str(s(&set["now"]["gaming_day"]), "%Y-%m-%d").unwrap();
        assert_eq!(s(&pending["first_gaming_day"]), today.succ_opt().unwrap().to_string(), "{set}");
        // The calendar is read back by anyone.
        let player = app.create_user(Role::Player).await;
        let read = app.get(PATH, Some(&player.token)).await.expect(200);
        assert_eq!((read["timezone"].clone(), read["shifts"].clone(), read["pending"].clone()), (set["timezone"].clone(), set["shifts"].clone(), set["pending"].clone()));
        let events = app.events("floor_calendar_changed").await;
        assert_eq!(events.len(), 1, "{events:?}");
        assert_eq!(events[0]["actor_id"], applied["decided_by"], "the approver applies it");
        let details: Value = serde_json::from_str(events[0]["details"].as_str().unwrap()).unwrap();
        assert_eq!((details["old"]["timezone"].as_str(), details["new"]["timezone"].as_str()), (Some("UTC"), Some("Europe/Lisbon")));
        assert_eq!(details["effective_from_us"], pending["effective_from_us"]);
        assert_eq!(details["replaces_pending"], false);

        // A second change before the first takes effect replaces it.
        let mut new_york = lisbon();
        new_york["timezone"] = json!("America/New_York");
        let second = app.set_calendar(&pitboss, &new_york).await;
        assert_eq!(second["pending"]["timezone"], "America/New_York");
        assert_eq!(second["pending"]["effective_from_us"], pending["effective_from_us"]);
        let events = app.events("floor_calendar_changed").await;
        let details: Value = serde_json::from_str(events[0]["details"].as_str().unwrap()).unwrap();
        assert_eq!((details["old"]["timezone"].as_str(), details["replaces_pending"].as_bool()), (Some("Europe/Lisbon"), Some(true)));
        // And the calendar in force again cancels it.
        let utc = json!({ "timezone": "UTC", "day_starts_at": "06:00", "shifts": [
            { "name": "day", "starts_at": "06:00" }, { "name": "swing", "starts_at": "14:00" }, { "name": "graveyard", "starts_at": "22:00" },
        ] });
        let back = app.set_calendar(&pitboss, &utc).await;
        assert_eq!(back["pending"], Value::Null, "{back}");
    }
}

both_backends! {
    async fn a_calendar_change_never_moves_a_begun_or_closed_gaming_day(app: TestApp) {
        let c = casino(&app, TableOptions::default()).await;
        let calendar = calendar_with_cut_off_in(&app, &c.pitboss, 8).await;
        let day = s(&calendar["now"]["gaming_day"]).to_owned();
        let day_ends_at_us = calendar["now"]["day_ends_at_us"].as_i64().unwrap();
        round_with_bets(&app, &c, 1).await;
        sleep_past(day_ends_at_us).await;
        let closed = app.post(&format!("/api/v1/floor/days/{day}/close"), Some(&c.pitboss.token), &json!({}), None).await.expect(201);
        let present = app.get(PATH, Some(&c.pitboss.token)).await.expect(200);
        assert_ne!(present["now"]["gaming_day"], day.as_str());
        assert_eq!(present["now"]["day_starts_at_us"], day_ends_at_us);

        // The cut-off moved 35 minutes later: before, the present fell back into the closed day.
        let cut_off = chrono::DateTime::from_timestamp_micros(day_ends_at_us).unwrap() + chrono::Duration::minutes(35);
        let later = cut_off.format("%H:%M:%S").to_string();
        let moved = json!({ "timezone": "UTC", "day_starts_at": later, "shifts": [{ "name": "all", "starts_at": later }] });
        let set = app.set_calendar(&c.pitboss, &moved).await;
        assert_eq!(set["now"]["gaming_day"], present["now"]["gaming_day"], "{set}");
        assert_eq!((&set["now"]["day_starts_at_us"], &set["now"]["day_ends_at_us"]), (&present["now"]["day_starts_at_us"], &present["now"]["day_ends_at_us"]), "{set}");
        // It takes effect when the present day ends: the 35 minutes go to the first day under it.
        assert_eq!(set["pending"]["effective_from_us"], present["now"]["day_ends_at_us"], "{set}");

        // Play and cash now land in the present day, not the closed one.
        round_with_bets(&app, &c, 2).await;
        app.fund(&c.cashier, &c.players[0].id, "77.00").await;
        let view = app.get(&format!("/api/v1/floor/days/{day}"), Some(&c.pitboss.token)).await.expect(200);
        assert_eq!(view["close"]["intact"], true, "{view}");
        assert_eq!(view["report"], closed["report"]);
        let today = app.get(&format!("/api/v1/floor/tables?gaming_day={}", s(&present["now"]["gaming_day"])), Some(&c.pitboss.token)).await.expect(200);
        assert_eq!(day_line(&today, Some(&c.table))["rounds"], 1, "{today}");
        let closed_day = app.get(&format!("/api/v1/floor/tables?gaming_day={day}"), Some(&c.pitboss.token)).await.expect(200);
        assert_eq!(closed_day["to_us"], day_ends_at_us);
        assert_eq!(day_line(&closed_day, Some(&c.table))["rounds"], 1, "{closed_day}");
    }
}

both_backends! {
    async fn a_bad_calendar_is_refused_and_changes_nothing(app: TestApp) {
        let pitboss = app.create_user(Role::Pitboss).await;
        let with = |field: &str, value: Value| {
            let mut body = lisbon();
            body[field] = value;
            body
        };
        for body in [
            with("timezone", json!("Mars/Olympus")),
            with("day_starts_at", json!("6:00")),
            with("day_starts_at", json!("24:00")),
            with("shifts", json!([])),
            with("shifts", json!([{ "name": "day", "starts_at": "07:00" }])),
            with("shifts", json!([{ "name": "a", "starts_at": "06:00" }, { "name": "b", "starts_at": "05:00" }, { "name": "c", "starts_at": "12:00" }])),
            with("shifts", json!([{ "name": "a", "starts_at": "06:00" }, { "name": "a", "starts_at": "12:00" }])),
        ] {
            app.put(PATH, Some(&pitboss.token), &body, None).await.assert_error(422, "invalid_calendar");
        }
        for body in [with("timezone", json!(5)), with("extra", json!(true)), json!({ "timezone": "UTC" })] {
            let status = app.put(PATH, Some(&pitboss.token), &body, None).await.status;
            assert!(status == 400 || status == 422, "{body}: {status}");
        }
        let view = app.get(PATH, Some(&pitboss.token)).await.expect(200);
        assert_eq!(view["timezone"], "UTC");
        assert!(app.events("floor_calendar_changed").await.is_empty());
    }
}

// ---------------------------------------------------------------------------
// Table performance
// ---------------------------------------------------------------------------

/// A UTC calendar of one shift whose cut-off is `seconds_ahead` from now.
fn cut_off_in(seconds_ahead: i64) -> Value {
    let at = chrono::Utc::now() + chrono::Duration::seconds(seconds_ahead);
    let starts = at.format("%H:%M:%S").to_string();
    json!({ "timezone": "UTC", "day_starts_at": starts, "shifts": [{ "name": "all", "starts_at": starts }] })
}

/// A calendar of one shift whose cut-off is `seconds_ahead` from now (UTC), in force since
/// before anything happened (a change through the API would wait for the next gaming day).
pub(crate) async fn calendar_with_cut_off_in(app: &TestApp, pitboss: &TestUser, seconds_ahead: i64) -> Value {
    app.install_calendar(&cut_off_in(seconds_ahead));
    app.get(PATH, Some(&pitboss.token)).await.expect(200)
}

/// A settled round with two seats and side bets; returns the bets placed as (kind, number, amount in minor units).
async fn round_with_bets(app: &TestApp, c: &Casino, salt: u64) -> (String, Vec<(String, Option<i64>, i64)>) {
    let round = create_round(app, c).await;
    let id = s(&round["id"]).to_string();
    for (i, p) in c.players.iter().enumerate() {
        seat(app, p, &id, SUITS[(i + salt as usize) % 5], None)
            .await
            .expect(201);
    }
    let bets = [
        json!({ "kind": "prima", "suit": "crowns", "amount": "2.00" }),
        json!({ "kind": "conto_alto", "amount": "3.50" }),
        json!({ "kind": "maximo", "suit": "cups", "amount": "1.25" }),
    ];
    let mut placed = Vec::new();
    for (k, body) in bets.iter().enumerate() {
        let p = &c.players[k % c.players.len()];
        app.post(&format!("/api/v1/rounds/{id}/bets"), Some(&p.token), body, None)
            .await
            .expect(201);
        placed.push((
            s(&body["kind"]).to_owned(),
            body["number"].as_i64(),
            minor(s(&body["amount"])),
        ));
    }
    dealer_action(app, c, &id, "close").await.expect(200);
    let dealt = dealer_action(app, c, &id, "deal").await.expect(200);
    play_copa(app, c, &id, dealt, salt).await;
    dealer_action(app, c, &id, "settle").await.expect(200);
    (id, placed)
}

/// Σ stake × (1 − RTP) from the table's certificate, in minor units, exact.
async fn side_bet_theo_minor(app: &TestApp, c: &Casino, bets: &[(String, Option<i64>, i64)]) -> Decimal {
    let view = app
        .get(&format!("/api/v1/tables/{}/pay-table", c.table), Some(&c.pitboss.token))
        .await
        .expect(200);
    let certified = view["certificate"]["bets"].as_array().unwrap();
    bets.iter()
        .map(|(kind, number, stake)| {
            let cert = certified
                .iter()
                .find(|b| b["kind"] == kind.as_str() && b["number"].as_i64() == *number)
                .unwrap_or_else(|| panic!("{kind} certified"));
            // Exact where the certificate is; an estimate (from the simulated distribution of N) otherwise.
            let rtp = match cert["rtp"]["kind"].as_str() {
                Some("exact") => Decimal::from_str(s(&cert["rtp"]["decimal"])).unwrap(),
                _ => rust_decimal::prelude::FromPrimitive::from_f64(cert["rtp"]["value"].as_f64().unwrap()).unwrap(),
            };
            Decimal::from(*stake) * (Decimal::ONE - rtp)
        })
        .sum()
}

/// Minor units rounded half to even to the cent, as money.
pub(crate) fn cents(minor: Decimal) -> String {
    let whole = minor.round_dp_with_strategy(0, rust_decimal::RoundingStrategy::MidpointNearestEven);
    money(whole.try_into().unwrap())
}

/// Players' money into the rounds, from their recalls: every transfer from a
/// wallet, less the refunds back to one.
async fn drop_of(app: &TestApp, rounds: &[String]) -> i64 {
    let mut drop = 0;
    for id in rounds {
        for t in recall(app, id).await["transfers"].as_array().unwrap() {
            let amount = minor(s(&t["amount"]));
            let (from, to) = (s(&t["debit_account"]), s(&t["credit_account"]));
            if from.starts_with("wallet:") && !to.starts_with("wallet:") {
                drop += amount;
            } else if to.starts_with("wallet:") && ["refund", "bet_refund"].contains(&s(&t["kind"])) {
                drop -= amount;
            }
        }
    }
    drop
}

fn house_net(accounts: (i64, i64)) -> i64 {
    accounts.0 + accounts.1
}

async fn house_accounts(app: &TestApp) -> (i64, i64) {
    (
        account_net(app, "house:revenue").await,
        account_net(app, "house:bankroll").await,
    )
}

pub(crate) fn day_line<'a>(report: &'a Value, table: Option<&str>) -> &'a Value {
    report["lines"]
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["table_id"].as_str() == table && l["shift"].is_null())
        .unwrap_or_else(|| panic!("no day line for {table:?} in {report}"))
}

both_backends! {
    async fn a_days_table_performance_reconciles_to_the_ledger(app: TestApp) {
        let c = casino(&app, TableOptions { seat_fee: Some("0.25"), ..Default::default() }).await;
        calendar_with_cut_off_in(&app, &c.pitboss, 12 * 3600).await;
        let house_before = house_accounts(&app).await;
        let (mut rounds, mut bets) = (Vec::new(), Vec::new());
        for salt in 0..3 {
            let (id, placed) = round_with_bets(&app, &c, salt).await;
            rounds.push(id);
            bets.extend(placed);
        }
        let house_win = house_net(house_accounts(&app).await) - house_net(house_before);
        let asked_at_us = chrono::Utc::now().timestamp_micros();
        let report = app.get("/api/v1/floor/tables", Some(&c.pitboss.token)).await.expect(200);
        let answered_at_us = chrono::Utc::now().timestamp_micros();
        let line = day_line(&report, Some(&c.table));
        // Open since the table_opened event, to the present: 3 rounds over that time.
        let opened = app.events("table_opened").await;
        let opened_at_us = opened.iter().find(|e| e["subject"] == c.table.as_str()).unwrap()["at_us"].as_i64().unwrap();
        let per_hour = Decimal::from_str(s(&line["rounds_per_hour"])).unwrap();
        let rate = |until_us: i64| Decimal::from(3 * 3_600_000_000i64) / Decimal::from(until_us - opened_at_us);
        assert!(rate(answered_at_us) - Decimal::new(1, 1) <= per_hour && per_hour <= rate(asked_at_us) + Decimal::new(1, 1), "{line}");
        assert_eq!((line["rounds"].as_i64(), line["voided_rounds"].as_i64()), (Some(3), Some(0)), "{line}");
        assert_eq!(minor(s(&line["house_win"])), house_win, "{line}");
        let drop = drop_of(&app, &rounds).await;
        assert_eq!(minor(s(&line["drop"])), drop, "{line}");
        let fees = 3 * 2 * c.seat_fee;
        let theo = side_bet_theo_minor(&app, &c, &bets).await + Decimal::from(fees);
        assert_eq!(s(&line["theo_win"]), cents(theo), "{line}");
        let hold = (Decimal::from(house_win) * Decimal::from(100) / Decimal::from(drop)).round_dp(2);
        assert_eq!(Decimal::from_str(s(&line["hold_percent"])).unwrap(), hold);
        // The floor's line is this table's: nothing else happened today.
        assert_eq!(day_line(&report, None)["house_win"], line["house_win"]);
        // The same as CSV.
        let csv = app.get("/api/v1/floor/tables?format=csv", Some(&app.auditor().await.token.clone())).await;
        assert_eq!(csv.status, 200);
        assert!(csv.text.starts_with("gaming_day,table_id,table_name,game,pit,shift,rounds,"), "{}", csv.text);
        // Rounds per hour is of the time open until the present, so it moves between two reads.
        let rows = without_rounds_per_hour(&csv.text);
        let row = rows.lines().find(|l| l.contains(&c.table) && l.split(',').nth(5) == Some("")).unwrap();
        let expected = format!(",3,0,{},,{},{},", s(&line["open_hours"]), s(&line["drop"]), s(&line["house_win"]));
        assert!(row.contains(&expected), "{row}");
        // And from the command line, on the database itself.
        let day = s(&report["gaming_day"]);
        let o = crate::checkpoints::djego(&["report", "tables", "--database-url", app.db.url(), "--gaming-day", day, "--csv"]).await;
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let by_day = app.get(&format!("/api/v1/floor/tables?format=csv&gaming_day={day}"), Some(&c.pitboss.token)).await;
        assert_eq!(without_rounds_per_hour(&String::from_utf8_lossy(&o.stdout)), without_rounds_per_hour(&by_day.text));
    }
}

both_backends! {
    async fn lobo_counts_its_proven_edge_in_the_table_report_and_ratings(app: TestApp) {
        let pitboss = app.create_user(Role::Pitboss).await;
        calendar_with_cut_off_in(&app, &pitboss, 12 * 3600).await;
        let table = crate::lobo::lobo_table(&app, false);
        let player = crate::lobo::funded_player(&app, "300.00").await;
        let house_before = house_accounts(&app).await;
        for _ in 0..3 {
            let round = crate::lobo::start(&app, &player, &table, json!({ "unit": "2.00" })).await.expect(201);
            if round["status"] == "in_play" {
                crate::lobo::fold_at_once(&app, &player, s(&round["id"])).await.expect(200);
            }
        }
        let house_win = house_net(house_accounts(&app).await) - house_net(house_before);
        let report = app.get("/api/v1/floor/tables", Some(&pitboss.token)).await.expect(200);
        let line = day_line(&report, Some(&table));
        assert_eq!(minor(s(&line["house_win"])), house_win, "{line}");
        // The drop is what was at risk: the fees and what the house took of the escrow, not the
        // loss cap held and handed back untouched.
        let at_risk = kind_into(&app, "house:revenue", "lobo_fee").await + kind_into(&app, "house:bankroll", "lobo_loss").await;
        assert_eq!(minor(s(&line["drop"])), at_risk, "{line}");
        // The fees and the play are both covered by the theoretical win.
        assert_eq!(line["covered_win"], line["house_win"], "{line}");
        // By hand: each round's fee at unit 2.00, less 2.00 × the bound at the table's cap of 40.
        let bound = djego::games::lobo::upper_bound(djego::games::lobo::Mode::Easy, Some(40)).unwrap();
        let bound_points = Decimal::from_str(&bound.value_points.to_string()).unwrap();
        let theo = Decimal::from(3) * (Decimal::from(2 * crate::lobo::demo_fee_minor()) - Decimal::from(200) * bound_points);
        assert_eq!(s(&line["theo_win"]), cents(theo), "{line}");
        assert_eq!(s(&line["actual_minus_theo"]), cents(Decimal::from(house_win) - theo), "{line}");
        // Under 30 rounds the spread is each round's bound: half of 2.00 × (40 + 4 × 8) points.
        let sd = (3.0f64).sqrt() * 200.0 * 72.0 / 2.0;
        assert_eq!(s(&line["theo_sd"]), cents(Decimal::try_from(sd).unwrap()), "{line}");
        // The player's rating carries the same theoretical loss.
        let ratings = app.get("/api/v1/floor/players", Some(&player.token)).await.expect(200);
        let sessions = sessions_of(&ratings, &player.id);
        assert_eq!(sessions.len(), 1, "{ratings}");
        assert_eq!(s(&sessions[0]["theo_loss"]), cents(theo), "{ratings}");
        assert_eq!(Decimal::from(sessions[0]["points"].as_i64().unwrap()), (theo / Decimal::from(100)).floor());
    }
}

/// Σ of the transfers of `kind` into `account`, from the auditor's ledger.
async fn kind_into(app: &TestApp, account: &str, kind: &str) -> i64 {
    let token = app.auditor().await.token.clone();
    let list = app
        .get(
            &format!("/api/v1/audit/ledger?account={account}&limit=500"),
            Some(&token),
        )
        .await
        .expect(200);
    list.as_array()
        .unwrap()
        .iter()
        .filter(|t| t["kind"] == kind && t["credit_account"] == account)
        .map(|t| minor(s(&t["amount"])))
        .sum()
}

/// The probability of `count` in a Peg Leg quote as the API shows it: its exact fraction when
/// the quote is exact, the simulation's estimate otherwise.
fn quoted_probability(quote: &Value, count: u64) -> Decimal {
    let line = &quote["counts"][count as usize];
    match line["exact"].as_str() {
        Some(fraction) => {
            let (p, q) = fraction.split_once('/').unwrap();
            Decimal::from_str(p).unwrap() / Decimal::from_str(q).unwrap()
        }
        None => Decimal::from_f64_retain(line["probability"].as_f64().unwrap()).unwrap(),
    }
}

both_backends! {
    async fn peg_leg_counts_its_quoted_edge_in_the_table_report_and_ratings(app: TestApp) {
        use crate::peg_leg::{bet, deal, likeliest, open_round, surrender};
        use rust_decimal::prelude::ToPrimitive;
        let c = crate::peg_leg::casino(&app, 1, 0).await;
        calendar_with_cut_off_in(&app, &c.pitboss, 12 * 3600).await;
        let player = &c.players[0];
        let house_before = house_accounts(&app).await;
        let round = open_round(&app, &c).await;
        let id = s(&round["id"]).to_string();
        // A bet after the first card, surrendered after the fifth; a second bet after the
        // second card, held to the end.
        let q1 = deal(&app, &c, &id).await.expect(200)["round"]["quote"].clone();
        let (count1, _) = likeliest(&q1);
        let bet1 = bet(&app, player, &id, s(&q1["id"]), count1, "10.00").await.expect(201);
        let q2 = deal(&app, &c, &id).await.expect(200)["round"]["quote"].clone();
        let (count2, _) = likeliest(&q2);
        let bet2 = bet(&app, player, &id, s(&q2["id"]), count2, "5.00").await.expect(201);
        let mut q5 = Value::Null;
        for _ in 0..3 {
            q5 = deal(&app, &c, &id).await.expect(200)["round"]["quote"].clone();
        }
        let surrendered = surrender(&app, player, &id, s(&bet1["id"]), s(&q5["id"])).await.expect(200);
        let cash_out = minor(s(&surrendered["returned"]));
        let mut last = Value::Null;
        for _ in 5..50 {
            last = deal(&app, &c, &id).await.expect(200);
        }
        assert_eq!(last["round"]["status"], "settled");
        let house_win = house_net(house_accounts(&app).await) - house_net(house_before);

        // By hand, from the quotes the player saw: stake × (1 − m × p) for each bet, and the
        // surrender's own edge, stake × m × p_now − the cash-out.
        let m = |b: &Value| Decimal::from_str(s(&b["multiplier"])).unwrap();
        let (m1, m2) = (m(&bet1), m(&bet2));
        let (p1, p2, p1_now) = (
            quoted_probability(&q1, count1),
            quoted_probability(&q2, count2),
            quoted_probability(&q5, count1),
        );
        let (stake1, stake2) = (Decimal::from(1000), Decimal::from(500));
        let theo = stake1 * (Decimal::ONE - m1 * p1) + stake1 * m1 * p1_now - Decimal::from(cash_out)
            + stake2 * (Decimal::ONE - m2 * p2);
        let sd = |stake: Decimal, m: Decimal, p: Decimal| {
            let p = p.to_f64().unwrap();
            stake.to_f64().unwrap() * m.to_f64().unwrap() * (p * (1.0 - p)).sqrt()
        };
        let sd_bound = sd(stake1, m1, p1) + sd(stake2, m2, p2);

        let report = app.get("/api/v1/floor/tables", Some(&c.pitboss.token)).await.expect(200);
        let line = day_line(&report, Some(&c.table));
        assert_eq!(line["rounds"], 1, "{line}");
        assert_eq!(minor(s(&line["house_win"])), house_win, "{line}");
        assert_eq!(minor(s(&line["drop"])), 1500, "the stakes were at risk: {line}");
        // Every coin the house won on the bets is covered by their theoretical win.
        assert_eq!(line["covered_win"], line["house_win"], "{line}");
        assert_eq!(s(&line["theo_win"]), cents(theo), "{line}");
        assert_eq!(s(&line["actual_minus_theo"]), cents(Decimal::from(house_win) - theo), "{line}");
        assert_eq!(s(&line["theo_sd"]), cents(Decimal::try_from(sd_bound).unwrap()), "{line}");
        // The player's rating carries the same theoretical loss.
        let ratings = app.get("/api/v1/floor/players", Some(&player.token)).await.expect(200);
        let sessions = sessions_of(&ratings, &player.id);
        assert_eq!(sessions.len(), 1, "{ratings}");
        assert_eq!(s(&sessions[0]["theo_loss"]), cents(theo), "{ratings}");
        assert_eq!(minor(s(&sessions[0]["staked"])), 1500, "{ratings}");
    }
}

/// The lines without the figures that move with the clock (a table open today is open until now).
fn without_clock(lines: &[djego::floor::PerformanceLine]) -> Vec<djego::floor::PerformanceLine> {
    lines
        .iter()
        .cloned()
        .map(|l| djego::floor::PerformanceLine {
            open_hours: String::new(),
            rounds_per_hour: None,
            ..l
        })
        .collect()
}

fn meter_mark(app: &TestApp) -> (i64, i64, i64) {
    use diesel::prelude::*;
    use djego::store::schema::{floor_meter_mark as fm, floor_money_minutes as fmm, ledger_head as lh};
    app.state
        .db
        .read(|conn| -> Result<_, djego::store::StoreError> {
            let mark: i64 = fm::table.find(1).select(fm::through_seq).first(conn)?;
            let head: i64 = lh::table.find(1).select(lh::seq).first(conn)?;
            let minutes: i64 = fmm::table.count().get_result(conn)?;
            Ok((mark, head, minutes))
        })
        .unwrap()
}

/// The table report from the meters and from every row, in one snapshot.
fn reports_both_ways(app: &TestApp) -> (djego::floor::DayReport, djego::floor::DayReport) {
    app.state
        .db
        .read(|conn| -> Result<_, djego::floor::FloorError> {
            let period = djego::floor::period_or_today(conn, None)?;
            Ok((
                djego::floor::day_report(conn, period)?,
                djego::floor::day_report_from_ledger(conn, period)?,
            ))
        })
        .unwrap()
}

both_backends! {
    async fn meters_stepped_by_many_at_once_count_every_transfer_once(app: TestApp) {
        // Steps sum outside their write and append only if the mark has not moved: several
        // instances (here threads) stepping at once must not count a transfer twice.
        let c = casino(&app, TableOptions { seat_fee: Some("0.25"), ..Default::default() }).await;
        for salt in 0..3 {
            round_with_bets(&app, &c, salt).await;
            let steppers: Vec<_> = (0..6)
                .map(|_| {
                    let db = app.state.db.clone();
                    std::thread::spawn(move || djego::floor::meters::catch_up(&db).unwrap())
                })
                .collect();
            let head = meter_mark(&app).1;
            for stepper in steppers {
                assert_eq!(stepper.join().unwrap(), head, "every stepper reports the head it reached");
            }
            let (mark, head, _) = meter_mark(&app);
            assert_eq!(mark, head);
            let (metered, from_ledger) = reports_both_ways(&app);
            assert_eq!(without_clock(&metered.lines), without_clock(&from_ledger.lines));
        }
    }
}

both_backends! {
    async fn the_table_report_from_the_meters_is_the_report_from_every_row(app: TestApp) {
        let c = casino(&app, TableOptions { seat_fee: Some("0.25"), ..Default::default() }).await;
        // The day starts 12 hours and 7 seconds from now, and a second shift 30 seconds from now:
        // both inside a minute (unless they fall on one), whose rows are read one by one. (At one
        // second, a loaded machine dealt into the second shift and the metered report showed an
        // empty line for it that the ledger's did not, once in three full runs: not yet explained.)
        let now = chrono::Utc::now();
        let at = |seconds: i64| (now + chrono::Duration::seconds(seconds)).format("%H:%M:%S").to_string();
        let body = json!({ "timezone": "UTC", "day_starts_at": at(12 * 3600 + 7),
            "shifts": [{ "name": "early", "starts_at": at(12 * 3600 + 7) }, { "name": "late", "starts_at": at(30) }] });
        app.set_calendar(&c.pitboss, &body).await;
        // Rounds the meters have read, then a round after their mark.
        for salt in 0..2 {
            round_with_bets(&app, &c, salt).await;
        }
        let through = djego::floor::meters::catch_up(&app.state.db).unwrap();
        let (mark, head, minutes) = meter_mark(&app);
        assert_eq!((mark, through), (head, head));
        assert!(minutes > 0, "the meters hold the rounds' minutes");
        round_with_bets(&app, &c, 2).await;
        let (metered, from_ledger) = reports_both_ways(&app);
        assert_eq!(without_clock(&metered.lines), without_clock(&from_ledger.lines));
        let line = from_ledger.lines.iter().find(|l| l.table_id.as_deref() == Some(c.table.as_str()) && l.shift.is_none()).unwrap();
        assert_eq!(line.rounds, 3, "{line:?}");
        assert_ne!(line.theo_sd, "0.00", "{line:?}");
        // The table report over HTTP catches the meters up first, and reads the same.
        let report = app.get("/api/v1/floor/tables", Some(&c.pitboss.token)).await.expect(200);
        let served: Vec<djego::floor::PerformanceLine> = serde_json::from_value(report["lines"].clone()).unwrap();
        assert_eq!(without_clock(&served), without_clock(&from_ledger.lines));
        let (mark, head, _) = meter_mark(&app);
        assert_eq!(mark, head);
        // Caught up, or caught up twice, or not at all: the same.
        djego::floor::meters::catch_up(&app.state.db).unwrap();
        let (metered, from_ledger) = reports_both_ways(&app);
        assert_eq!(without_clock(&metered.lines), without_clock(&from_ledger.lines));
    }
}

/// The table report's CSV with its `rounds_per_hour` column emptied.
fn without_rounds_per_hour(csv: &str) -> String {
    let column = csv
        .lines()
        .next()
        .unwrap()
        .split(',')
        .position(|c| c == "rounds_per_hour")
        .unwrap();
    csv.lines()
        .map(|line| {
            // Quoted fields hold no comma in these tests (names are "Centrale xxxxxxxx").
            let mut fields: Vec<&str> = line.split(',').collect();
            fields[column] = "";
            fields.join(",") + "\n"
        })
        .collect()
}

both_backends! {
    async fn play_either_side_of_the_cut_off_belongs_to_two_gaming_days(app: TestApp) {
        let c = casino(&app, TableOptions::default()).await;
        let calendar = calendar_with_cut_off_in(&app, &c.pitboss, 6).await;
        let first_day = s(&calendar["now"]["gaming_day"]).to_owned();
        let day_ends_at_us = calendar["now"]["day_ends_at_us"].as_i64().unwrap();
        let house_before = house_accounts(&app).await;
        round_with_bets(&app, &c, 1).await;
        let house_between = house_accounts(&app).await;
        let wait_us = day_ends_at_us - chrono::Utc::now().timestamp_micros();
        assert!(wait_us > 0, "the first round ended after the cut-off; the machine is too slow for this test");
        tokio::time::sleep(std::time::Duration::from_micros(wait_us as u64 + 50_000)).await;
        round_with_bets(&app, &c, 2).await;
        let house_after = house_accounts(&app).await;
        let second_day = app.get(PATH, Some(&c.pitboss.token)).await.expect(200)["now"]["gaming_day"].clone();
        assert_ne!(second_day.as_str(), Some(first_day.as_str()));
        for (day, before, after) in [(first_day.as_str(), house_before, house_between), (s(&second_day), house_between, house_after)] {
            let report = app
                .get(&format!("/api/v1/floor/tables?gaming_day={day}"), Some(&c.pitboss.token))
                .await
                .expect(200);
            let line = day_line(&report, Some(&c.table));
            assert_eq!(line["rounds"], 1, "{day}: {line}");
            assert_eq!(minor(s(&line["house_win"])), house_net(after) - house_net(before), "{day}: {line}");
        }
        // The two days as one period.
        let (first, second) = (first_day.as_str(), s(&second_day));
        let both = app
            .get(&format!("/api/v1/floor/tables?from={first}&to={second}"), Some(&c.pitboss.token))
            .await
            .expect(200);
        assert_eq!((both["gaming_day"].as_str(), both["last_gaming_day"].as_str()), (Some(first), Some(second)));
        let line = day_line(&both, Some(&c.table));
        assert_eq!(line["rounds"], 2, "{line}");
        assert_eq!(minor(s(&line["house_win"])), house_net(house_after) - house_net(house_before), "{line}");
        let csv = app.get(&format!("/api/v1/floor/tables?from={first}&to={second}&format=csv"), Some(&c.pitboss.token)).await;
        assert!(csv.text.lines().nth(1).unwrap().starts_with(&format!("{first}/{second},")), "{}", csv.text);
        let args = ["report", "tables", "--database-url", app.db.url(), "--from", first, "--to", second, "--csv"];
        let o = crate::checkpoints::djego(&args).await;
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        assert_eq!(without_rounds_per_hour(&String::from_utf8_lossy(&o.stdout)), without_rounds_per_hour(&csv.text));
    }
}

both_backends! {
    async fn the_report_refuses_what_it_cannot_read(app: TestApp) {
        let pitboss = app.create_user(Role::Pitboss).await;
        for query in [
            "gaming_day=2026-13-01",
            "gaming_day=2026-1-01",
            "gaming_day=yesterday",
            "format=xml",
            "from=2026-11-01&to=11/02/2026",
        ] {
            for report in ["tables", "dealers"] {
                let r = app.get(&format!("/api/v1/floor/{report}?{query}"), Some(&pitboss.token)).await;
                assert_eq!(r.status, 400, "{report} {query}: {}", r.text);
            }
        }
        // Well-formed dates that do not make a period.
        for query in [
            "from=2026-11-02&to=2026-11-01",
            "from=2025-01-01&to=2026-01-02",
            "from=2026-11-01",
            "gaming_day=2026-11-01&from=2026-11-01&to=2026-11-02",
        ] {
            for report in ["tables", "dealers"] {
                let r = app.get(&format!("/api/v1/floor/{report}?{query}"), Some(&pitboss.token)).await;
                r.assert_error(422, "invalid_period");
            }
        }
        for query in ["gaming_day=2020-01-01", "from=2020-01-01&to=2020-12-31"] {
            for report in ["tables", "dealers"] {
                let empty = app.get(&format!("/api/v1/floor/{report}?{query}"), Some(&pitboss.token)).await.expect(200);
                assert_eq!(empty["lines"], json!([]), "{report} {query}");
            }
        }
    }
}

// ---------------------------------------------------------------------------
// Player ratings
// ---------------------------------------------------------------------------

const RULE: &str = "/api/v1/floor/rating-rule";

fn sessions_of<'a>(report: &'a Value, player: &str) -> Vec<&'a Value> {
    report["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["player_id"] == player)
        .collect()
}

both_backends! {
    async fn player_ratings_reconcile_to_each_wallet(app: TestApp) {
        let c = casino(&app, TableOptions { seat_fee: Some("0.25"), ..Default::default() }).await;
        calendar_with_cut_off_in(&app, &c.pitboss, 12 * 3600).await;
        let rule = json!({ "session_gap_minutes": 30, "points_per_theo_unit": "10" });
        app.put(RULE, Some(&c.pitboss.token), &rule, None).await.expect(200);
        let mut wallets_before = Vec::new();
        for p in &c.players {
            wallets_before.push(account_net(&app, &format!("wallet:{}", p.id)).await);
        }
        let (mut rounds, mut bets) = (Vec::new(), Vec::new());
        for salt in 0..2 {
            let (id, placed) = round_with_bets(&app, &c, salt).await;
            rounds.push(id);
            bets.push(placed);
        }
        let report = app.get("/api/v1/floor/players", Some(&c.pitboss.token)).await.expect(200);
        assert_eq!(report["rule"], rule);
        for (i, p) in c.players.iter().enumerate() {
            let mine = sessions_of(&report, &p.id);
            assert_eq!(mine.len(), 1, "{report}");
            let session = mine[0];
            assert_eq!((session["table_id"].as_str(), session["rounds"].as_i64()), (Some(c.table.as_str()), Some(2)));
            assert_eq!(session["username"], p.username.as_str());
            let result = account_net(&app, &format!("wallet:{}", p.id)).await - wallets_before[i];
            assert_eq!(minor(s(&session["actual_result"])), result, "{session}");
            let staked = staked_by(&app, &rounds, &p.id).await;
            assert_eq!(minor(s(&session["staked"])), staked, "{session}");
            // round_with_bets places bet k for player k mod n.
            let mine: Vec<_> = bets
                .iter()
                .flat_map(|placed| placed.iter().enumerate().filter(|(k, _)| k % c.players.len() == i).map(|(_, b)| b.clone()))
                .collect();
            let theo = side_bet_theo_minor(&app, &c, &mine).await + Decimal::from(2 * c.seat_fee);
            assert_eq!(s(&session["theo_loss"]), cents(theo), "{session}");
            let points = (theo / Decimal::from(100) * Decimal::from(10)).floor();
            assert_eq!(Decimal::from(session["points"].as_i64().unwrap()), points, "{session}");
            assert!(session["started_at_us"].as_i64() <= session["ended_at_us"].as_i64());
        }

        // A player sees their own sessions, and only theirs.
        let ana = &c.players[0];
        let own = app.get("/api/v1/floor/players", Some(&ana.token)).await.expect(200);
        assert_eq!(own["sessions"], json!(sessions_of(&report, &ana.id)));
        let named = app.get(&format!("/api/v1/floor/players?player_id={}", ana.id), Some(&ana.token)).await.expect(200);
        assert_eq!(named["sessions"], own["sessions"]);
        let other = &c.players[1].id;
        app.get(&format!("/api/v1/floor/players?player_id={other}"), Some(&ana.token)).await.assert_error(403, "forbidden");
        app.get("/api/v1/floor/players", Some(&c.dealer.token)).await.assert_error(403, "forbidden");
        // The auditor's CSV and the command line's are the same.
        let day = s(&report["gaming_day"]);
        let csv = app.get(&format!("/api/v1/floor/players?format=csv&gaming_day={day}"), Some(&app.auditor().await.token.clone())).await;
        assert_eq!(csv.status, 200);
        assert!(csv.text.starts_with("gaming_day,player_id,username,table_id,"), "{}", csv.text);
        assert_eq!(csv.text.lines().count(), 1 + report["sessions"].as_array().unwrap().len());
        let o = crate::checkpoints::djego(&["report", "players", "--database-url", app.db.url(), "--gaming-day", day, "--csv"]).await;
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        assert_eq!(String::from_utf8_lossy(&o.stdout), csv.text);
        // Ratings are computed when read: a new rule applies to the day already played.
        let short = json!({ "session_gap_minutes": 1, "points_per_theo_unit": "1" });
        app.put(RULE, Some(&c.pitboss.token), &short, None).await.expect(200);
        let again = app.get("/api/v1/floor/players", Some(&c.pitboss.token)).await.expect(200);
        for (before, after) in report["sessions"].as_array().unwrap().iter().zip(again["sessions"].as_array().unwrap()) {
            let theo = Decimal::from_str(s(&before["theo_loss"])).unwrap();
            assert_eq!(Decimal::from(after["points"].as_i64().unwrap()), theo.floor(), "{after}");
            assert_eq!(before["theo_loss"], after["theo_loss"]);
        }
    }
}

/// What a player put into the rounds, from their recalls: transfers from their
/// wallet, less the refunds back to it.
async fn staked_by(app: &TestApp, rounds: &[String], player: &str) -> i64 {
    let wallet = format!("wallet:{player}");
    let mut staked = 0;
    for id in rounds {
        for t in recall(app, id).await["transfers"].as_array().unwrap() {
            let amount = minor(s(&t["amount"]));
            if t["debit_account"] == wallet.as_str() {
                staked += amount;
            } else if t["credit_account"] == wallet.as_str() && ["refund", "bet_refund"].contains(&s(&t["kind"])) {
                staked -= amount;
            }
        }
    }
    staked
}

both_backends! {
    async fn the_rating_rule_is_set_by_a_pit_boss_and_recorded(app: TestApp) {
        let pitboss = app.create_user(Role::Pitboss).await;
        let player = app.create_user(Role::Player).await;
        let default = app.get(RULE, Some(&player.token)).await.expect(200);
        assert_eq!(default, json!({ "session_gap_minutes": 30, "points_per_theo_unit": "1" }));
        for body in [
            json!({ "session_gap_minutes": 0, "points_per_theo_unit": "1" }),
            json!({ "session_gap_minutes": 1441, "points_per_theo_unit": "1" }),
            json!({ "session_gap_minutes": 30, "points_per_theo_unit": "-1" }),
            json!({ "session_gap_minutes": 30, "points_per_theo_unit": "0.00001" }),
            json!({ "session_gap_minutes": 30, "points_per_theo_unit": "abc" }),
        ] {
            app.put(RULE, Some(&pitboss.token), &body, None).await.assert_error(422, "invalid_rating_rule");
        }
        let rule = json!({ "session_gap_minutes": 45, "points_per_theo_unit": "2.50" });
        app.put(RULE, Some(&player.token), &rule, None).await.assert_error(403, "forbidden");
        assert!(app.events("floor_rating_rule_changed").await.is_empty());
        let set = app.put(RULE, Some(&pitboss.token), &rule, Some("rule-1")).await.expect(200);
        assert_eq!(set, json!({ "session_gap_minutes": 45, "points_per_theo_unit": "2.5" }));
        assert_eq!(app.get(RULE, Some(&player.token)).await.expect(200), set);
        let events = app.events("floor_rating_rule_changed").await;
        assert_eq!(events.len(), 1, "{events:?}");
        assert_eq!(events[0]["actor_id"], pitboss.id.as_str());
        let details: Value = serde_json::from_str(events[0]["details"].as_str().unwrap()).unwrap();
        assert_eq!((details["old"]["session_gap_minutes"].as_i64(), details["new"]["session_gap_minutes"].as_i64()), (Some(30), Some(45)));
    }
}

// ---------------------------------------------------------------------------
// Dealer tracking
// ---------------------------------------------------------------------------

fn box_path(c: &Casino, action: &str) -> String {
    format!("/api/v1/tables/{}/dealer{action}", c.table)
}

/// A second dealer, assigned to the casino's table by its pit boss.
async fn second_dealer(app: &TestApp, c: &Casino) -> TestUser {
    let dealer = app.create_user(Role::Dealer).await;
    app.put(
        &format!("/api/v1/tables/{}/dealers/{}", c.table, dealer.id),
        Some(&c.pitboss.token),
        &json!({}),
        None,
    )
    .await
    .expect(200);
    dealer
}

both_backends! {
    async fn dealers_sign_in_and_out_and_relieve_each_other(app: TestApp) {
        let c = casino(&app, TableOptions::default()).await;
        let bea = second_dealer(&app, &c).await;
        let player = &c.players[0];
        let nobody = app.get(&box_path(&c, ""), Some(&player.token)).await.expect(200);
        assert_eq!(nobody["dealer"], Value::Null);
        let signed = app.post(&box_path(&c, "/sign-in"), Some(&c.dealer.token), &json!({}), Some("in-1")).await.expect(200);
        assert_eq!(signed["dealer"]["dealer_id"], c.dealer.id.as_str());
        // The same key replays; signing in again changes nothing.
        app.post(&box_path(&c, "/sign-in"), Some(&c.dealer.token), &json!({}), Some("in-1")).await.expect(200);
        app.post(&box_path(&c, "/sign-in"), Some(&c.dealer.token), &json!({}), None).await.expect(200);
        let shown = app.get(&box_path(&c, ""), Some(&player.token)).await.expect(200);
        assert_eq!((shown["dealer"]["username"].as_str(), shown["dealer"]["since_us"].clone()), (Some(c.dealer.username.as_str()), signed["dealer"]["since_us"].clone()));
        // Bea relieves: the first dealer is signed out as its own event.
        app.post(&box_path(&c, "/sign-in"), Some(&bea.token), &json!({}), None).await.expect(200);
        assert_eq!(app.get(&box_path(&c, ""), Some(&player.token)).await.expect(200)["dealer"]["dealer_id"], bea.id.as_str());
        let out = app.events("dealer_signed_out").await;
        assert_eq!(out.len(), 1, "{out:?}");
        assert!(out[0]["details"].as_str().unwrap().contains(&c.dealer.id), "{out:?}");
        assert_eq!(app.events("dealer_signed_in").await.len(), 2);
        // Who may do what.
        app.post(&box_path(&c, "/sign-out"), Some(&c.dealer.token), &json!({}), None).await.assert_error(409, "not_signed_in");
        app.post(&box_path(&c, "/sign-in"), Some(&c.dealer.token), &json!({ "dealer_id": bea.id }), None).await.assert_error(403, "forbidden");
        app.post(&box_path(&c, "/sign-in"), Some(&player.token), &json!({}), None).await.assert_error(403, "forbidden");
        app.post(&box_path(&c, "/sign-in"), Some(&c.pitboss.token), &json!({}), None).await.assert_error(422, "dealer_required");
        let stranger = app.create_user(Role::Dealer).await;
        app.post(&box_path(&c, "/sign-in"), Some(&stranger.token), &json!({}), None).await.assert_error(422, "not_assigned");
        let missing = format!("/api/v1/tables/{}/dealer/sign-in", uuid::Uuid::new_v4());
        app.post(&missing, Some(&c.dealer.token), &json!({}), None).await.assert_error(404, "not_found");
        assert_eq!(app.events("dealer_signed_in").await.len(), 2, "refusals record nothing");
        // The pit boss signs Bea out; a closed table takes no dealer.
        let off = app.post(&box_path(&c, "/sign-out"), Some(&c.pitboss.token), &json!({ "dealer_id": bea.id }), None).await.expect(200);
        assert_eq!(off["dealer"], Value::Null);
        app.post(&format!("/api/v1/tables/{}/close", c.table), Some(&c.pitboss.token), &json!({}), None).await.expect(200);
        app.post(&box_path(&c, "/sign-in"), Some(&bea.token), &json!({}), None).await.assert_error(409, "table_closed");
    }
}

fn dealer_day_line<'a>(report: &'a Value, dealer: &str) -> &'a Value {
    report["lines"]
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["dealer_id"] == dealer && l["shift"].is_null() && l["pit"].is_null())
        .unwrap_or_else(|| panic!("no day line for {dealer} in {report}"))
}

both_backends! {
    async fn each_dealers_figures_are_the_play_while_they_dealt(app: TestApp) {
        let c = casino(&app, TableOptions { seat_fee: Some("0.25"), ..Default::default() }).await;
        calendar_with_cut_off_in(&app, &c.pitboss, 12 * 3600).await;
        let bea = second_dealer(&app, &c).await;
        app.post(&box_path(&c, "/sign-in"), Some(&c.dealer.token), &json!({}), None).await.expect(200);
        let start = house_accounts(&app).await;
        for salt in 0..2 {
            round_with_bets(&app, &c, salt).await;
        }
        let relief = house_accounts(&app).await;
        app.post(&box_path(&c, "/sign-in"), Some(&bea.token), &json!({}), None).await.expect(200);
        round_with_bets(&app, &c, 2).await;
        let end = house_accounts(&app).await;
        // A round dealt with nobody in the box is the table's, not a dealer's.
        app.post(&box_path(&c, "/sign-out"), Some(&bea.token), &json!({}), None).await.expect(200);
        round_with_bets(&app, &c, 3).await;

        let report = app.get("/api/v1/floor/dealers", Some(&c.pitboss.token)).await.expect(200);
        let (ana_line, bea_line) = (dealer_day_line(&report, &c.dealer.id), dealer_day_line(&report, &bea.id));
        assert_eq!((ana_line["rounds"].as_i64(), bea_line["rounds"].as_i64()), (Some(2), Some(1)), "{report}");
        assert_eq!(minor(s(&ana_line["house_win"])), house_net(relief) - house_net(start), "{ana_line}");
        assert_eq!(minor(s(&bea_line["house_win"])), house_net(end) - house_net(relief), "{bea_line}");
        assert_eq!(ana_line["username"], c.dealer.username.as_str());
        assert!(Decimal::from_str(s(&ana_line["rounds_per_hour"])).unwrap() > Decimal::ZERO, "{ana_line}");
        let tables = app.get("/api/v1/floor/tables", Some(&c.pitboss.token)).await.expect(200);
        assert_eq!(day_line(&tables, Some(&c.table))["rounds"], 4);
        // The auditor reads the same as CSV, and so does the command line.
        let auditor = app.auditor().await.token.clone();
        let day = s(&report["gaming_day"]);
        let csv = app.get(&format!("/api/v1/floor/dealers?format=csv&gaming_day={day}"), Some(&auditor)).await;
        assert_eq!(csv.status, 200);
        assert!(csv.text.starts_with("gaming_day,dealer_id,username,pit,shift,rounds,"), "{}", csv.text);
        assert!(csv.text.lines().any(|l| l.contains(&bea.id) && l.contains(",,,1,0,")), "{}", csv.text);
        let o = crate::checkpoints::djego(&["report", "dealers", "--database-url", app.db.url(), "--gaming-day", day, "--csv"]).await;
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let cli = String::from_utf8_lossy(&o.stdout);
        assert_eq!(cli.lines().count(), csv.text.lines().count(), "{cli}");
        app.get("/api/v1/floor/dealers", Some(&c.dealer.token)).await.assert_error(403, "forbidden");

        // With the table in a pit, each dealer has a line for their play in
        // it, after their own lines: here all of it, as they dealt nowhere else.
        let pits = json!({ "pits": [{ "name": "Main pit", "table_ids": [c.table] }] });
        app.put("/api/v1/floor/pits", Some(&c.pitboss.token), &pits, None).await.expect(200);
        let report = app.get("/api/v1/floor/dealers", Some(&c.pitboss.token)).await.expect(200);
        let lines = report["lines"].as_array().unwrap();
        for dealer in [&c.dealer, &bea] {
            let own = dealer_day_line(&report, &dealer.id);
            let in_pit: Vec<&Value> = lines.iter().filter(|l| l["dealer_id"] == dealer.id.as_str() && !l["pit"].is_null()).collect();
            assert_eq!(in_pit.len(), 1, "{report}");
            let (pit, own) = (in_pit[0].as_object().unwrap().clone(), own.as_object().unwrap().clone());
            assert_eq!((pit["pit"].as_str(), pit["shift"].clone(), pit["username"].as_str()), (Some("Main pit"), Value::Null, Some(dealer.username.as_str())));
            for figure in ["rounds", "hours_dealt", "drop", "house_win", "theo_win", "band_99"] {
                assert_eq!(pit[figure], own[figure], "{figure}: {report}");
            }
            let last = lines.iter().rposition(|l| l["dealer_id"] == dealer.id.as_str()).unwrap();
            assert_eq!(lines[last]["pit"], "Main pit", "the pit's line comes last: {report}");
        }
        let csv = app.get(&format!("/api/v1/floor/dealers?format=csv&gaming_day={day}"), Some(&auditor)).await;
        assert!(csv.text.lines().any(|l| l.contains(&bea.id) && l.contains(",Main pit,,1,0,")), "{}", csv.text);
    }
}

// ---------------------------------------------------------------------------
// Pits and the day close.

both_backends! {
    async fn a_pit_totals_its_tables_like_the_floor(app: TestApp) {
        let c = casino(&app, TableOptions::default()).await;
        let other = casino(&app, TableOptions::default()).await;
        calendar_with_cut_off_in(&app, &c.pitboss, 12 * 3600).await;
        round_with_bets(&app, &c, 1).await;
        round_with_bets(&app, &other, 2).await;
        let path = "/api/v1/floor/pits";
        assert_eq!(app.get(path, Some(&c.dealer.token)).await.expect(200), json!({ "pits": [] }));

        // A table in two pits, an unknown table, a blank name: refused, nothing recorded.
        for (bad, why) in [
            (json!({ "pits": [{ "name": "A", "table_ids": [c.table] }, { "name": "B", "table_ids": [c.table] }] }), "two pits"),
            (json!({ "pits": [{ "name": "A", "table_ids": ["no-such-table"] }] }), "no-such-table"),
            (json!({ "pits": [{ "name": " ", "table_ids": [] }] }), "not blank"),
        ] {
            let r = app.put(path, Some(&c.pitboss.token), &bad, None).await;
            r.assert_error(422, "invalid_pits");
            assert!(r.text.contains(why), "{}", r.text);
        }
        let pits = json!({ "pits": [{ "name": "Main pit", "table_ids": [c.table, other.table] }] });
        app.put(path, Some(&c.dealer.token), &pits, None).await.assert_error(403, "forbidden");
        assert!(app.events("floor_pits_changed").await.is_empty());
        assert_eq!(app.put(path, Some(&c.pitboss.token), &pits, None).await.expect(200), pits);
        let events = app.events("floor_pits_changed").await;
        assert_eq!(events.len(), 1, "{events:?}");
        assert_eq!(events[0]["actor_id"], c.pitboss.id.as_str());

        let report = app.get("/api/v1/floor/tables", Some(&c.pitboss.token)).await.expect(200);
        let lines = report["lines"].as_array().unwrap();
        let pit = lines
            .iter()
            .find(|l| l["pit"] == "Main pit" && l["table_id"].is_null() && l["shift"].is_null())
            .unwrap_or_else(|| panic!("no pit line in {report}"));
        let (a, b) = (day_line(&report, Some(&c.table)), day_line(&report, Some(&other.table)));
        assert_eq!((a["pit"].as_str(), b["pit"].as_str()), (Some("Main pit"), Some("Main pit")));
        assert_eq!(pit["rounds"], 2, "{pit}");
        for figure in ["drop", "house_win", "covered_win"] {
            assert_eq!(minor(s(&pit[figure])), minor(s(&a[figure])) + minor(s(&b[figure])), "{figure}: {pit}");
        }
        // Plotted day by day, per table, over HTTP and from the command line.
        let plot = app.get("/api/v1/floor/plots/hold", Some(&c.pitboss.token)).await;
        assert_eq!(plot.status, 200, "{}", plot.text);
        assert_eq!(plot.headers["content-type"], "image/svg+xml");
        assert!(plot.text.starts_with("<svg") && plot.text.contains(s(&a["table_name"])), "{}", plot.text);
        app.get("/api/v1/floor/plots/hold", Some(&c.dealer.token)).await.assert_error(403, "forbidden");
        app.get("/api/v1/floor/plots/win", Some(&c.pitboss.token)).await.assert_error(400, "invalid_path");
        let dir = tempfile::tempdir().unwrap();
        let dir_arg = dir.path().to_str().unwrap();
        let day = s(&report["gaming_day"]);
        let o = crate::checkpoints::djego(&["report", "plots", "--database-url", app.db.url(), "--gaming-day", day, "--dir", dir_arg]).await;
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        for name in ["hold", "actual-minus-theo", "rounds-per-hour"] {
            let svg = std::fs::read_to_string(dir.path().join(format!("{name}.svg"))).unwrap();
            assert!(svg.contains(s(&b["table_name"])), "{name}.svg names the table");
        }
        // The pit's lines come before the floor's, which they equal here (every table is in the pit).
        let floor_at = lines.iter().position(|l| l["table_id"].is_null() && l["pit"].is_null()).unwrap();
        let pit_at = lines.iter().position(|l| l["pit"] == "Main pit" && l["table_id"].is_null()).unwrap();
        assert!(pit_at < floor_at);
        assert_eq!(day_line(&report, None)["house_win"], pit["house_win"]);
    }
}

/// A sectioned CSV as (name, header, rows), for fields without quotes: every
/// row of a section, its header first, starts with the section's name.
fn csv_sections(text: &str) -> Vec<(String, Vec<String>, Vec<Vec<String>>)> {
    text.split("\n\n")
        .map(|block| {
            let mut lines = block
                .lines()
                .map(|l| l.split(',').map(str::to_owned).collect::<Vec<_>>());
            let header = lines.next().expect("a header");
            let rows: Vec<Vec<String>> = lines
                .map(|row| {
                    assert_eq!(row[0], header[0], "a row of section {}", header[0]);
                    row[1..].to_vec()
                })
                .collect();
            (header[0].clone(), header[1..].to_vec(), rows)
        })
        .collect()
}

/// Waits until just after `day_ends_at_us`.
async fn sleep_past(day_ends_at_us: i64) {
    let wait_us = day_ends_at_us - chrono::Utc::now().timestamp_micros();
    assert!(
        wait_us > 0,
        "the day's play ended after its cut-off; the machine is too slow for this test"
    );
    tokio::time::sleep(std::time::Duration::from_micros(wait_us as u64 + 50_000)).await;
}

both_backends! {
    async fn a_closed_gaming_day_is_frozen_reconciled_and_corrected_only_later(app: TestApp) {
        let c = casino(&app, TableOptions { seat_fee: Some("0.25"), ..Default::default() }).await;
        let calendar = calendar_with_cut_off_in(&app, &c.pitboss, 8).await;
        let day = s(&calendar["now"]["gaming_day"]).to_owned();
        let day_ends_at_us = calendar["now"]["day_ends_at_us"].as_i64().unwrap();
        let (close, view) = (format!("/api/v1/floor/days/{day}/close"), format!("/api/v1/floor/days/{day}"));
        app.post(&box_path(&c, "/sign-in"), Some(&c.dealer.token), &json!({}), None).await.expect(200);
        let house_before = house_accounts(&app).await;
        let (_, bets) = round_with_bets(&app, &c, 3).await;
        // A round left open at the cut-off.
        let open = s(&create_round(&app, &c).await["id"]).to_owned();
        let house_at_cut_off = house_accounts(&app).await;
        app.post(&close, Some(&c.pitboss.token), &json!({}), None).await.assert_error(409, "day_not_over");
        sleep_past(day_ends_at_us).await;

        let refused = app.post(&close, Some(&c.pitboss.token), &json!({}), None).await;
        refused.assert_error(409, "unfinished_rounds");
        assert!(refused.text.contains(&open), "the refusal names the round: {}", refused.text);
        let ended = app.get(&view, Some(&c.pitboss.token)).await.expect(200);
        assert_eq!(ended["status"], "ended");
        assert_eq!(ended["unfinished_rounds"][0]["round_id"], open.as_str(), "{ended}");
        assert!(ended["close"].is_null());
        app.post(&format!("/api/v1/rounds/{open}/void"), Some(&c.pitboss.token), &json!({ "reason": "left open at the cut-off" }), None)
            .await
            .expect(200);
        app.post(&close, Some(&c.dealer.token), &json!({}), None).await.assert_error(403, "forbidden");

        let closed = app.post(&close, Some(&c.pitboss.token), &json!({}), Some("close-once")).await.expect(201);
        assert_eq!(closed["status"], "closed", "{closed}");
        assert_eq!(closed["close"]["closed_by"], c.pitboss.id.as_str());
        assert_eq!(closed["close"]["intact"], true);
        let report = &closed["report"];
        let r = &report["reconciliation"];
        assert_eq!(r["reconciled"], true, "{r}");
        assert_eq!(r["meters_agree"], true, "the minute meters read as the ledger: {r}");
        assert_eq!(r["trial_balance"], "0.00");
        let house_win = house_net(house_at_cut_off) - house_net(house_before);
        assert_eq!(minor(s(&r["table_wins"])), house_win, "{r}");
        assert_eq!(r["house_change"], r["table_wins"]);
        assert_eq!(r["last_seq"], app.last_seq().await, "nothing moved after the play of the day: {r}");
        let floor_line = report["tables"].as_array().unwrap().iter().find(|l| l["table_id"].is_null() && l["pit"].is_null() && l["shift"].is_null()).unwrap();
        assert_eq!(floor_line["house_win"], r["table_wins"]);
        let meters = report["meters"].as_array().unwrap();
        assert_eq!(meters.len(), 1, "{meters:?}");
        assert_eq!((meters[0]["rounds"].as_i64(), meters[0]["voided_rounds"].as_i64()), (Some(1), Some(0)), "the void came after the cut-off: {meters:?}");
        let staked: i64 = report["bets"].as_array().unwrap().iter().map(|b| minor(s(&b["staked"]))).sum();
        assert_eq!(staked, bets.iter().map(|(.., stake)| stake).sum::<i64>());
        let dealt = report["dealers"].as_array().unwrap().iter().find(|l| l["dealer_id"] == c.dealer.id.as_str() && l["shift"].is_null());
        assert_eq!(dealt.unwrap_or_else(|| panic!("no line for the dealer: {report}"))["rounds"], 1);

        // On record, with the report's hash; closing again is refused, and the retry of the first is its answer.
        let events = app.events("gaming_day_closed").await;
        assert_eq!(events.len(), 1, "{events:?}");
        let details: Value = serde_json::from_str(s(&events[0]["details"])).unwrap();
        assert_eq!(details["report_sha256"], closed["close"]["report_sha256"]);
        assert_eq!(events[0]["subject"], day.as_str());
        app.post(&close, Some(&c.pitboss.token), &json!({}), None).await.assert_error(409, "day_closed");
        assert_eq!(app.post(&close, Some(&c.pitboss.token), &json!({}), Some("close-once")).await.expect(201), closed);

        // A correction belongs to the present day and names the closed one; the closed report does not move.
        let correction = |corrects: &str| json!({ "player_id": c.players[0].id, "amount": "1.50", "direction": "credit", "reason": "a payout missed on the closed day", "corrects_gaming_day": corrects });
        let today = s(&app.get(PATH, Some(&c.pitboss.token)).await.expect(200)["now"]["gaming_day"]).to_owned();
        app.post("/api/v1/cage/corrections", Some(&c.cashier.token), &correction(&today), None).await.assert_error(422, "invalid_corrected_day");
        app.post("/api/v1/cage/corrections", Some(&c.cashier.token), &correction("2026-13-01"), None).await.assert_error(400, "invalid_gaming_day");
        let corrected = app.post("/api/v1/cage/corrections", Some(&c.cashier.token), &correction(&day), None).await.expect(201);
        app.set_calendar(&c.pitboss, &lisbon()).await;
        let after = app.get(&view, Some(&app.auditor().await.token.clone())).await.expect(200);
        assert_eq!(after["report"], closed["report"], "a closed day's report never changes");
        assert_eq!(after["close"]["intact"], true);
        let later = after["later_corrections"].as_array().unwrap();
        assert_eq!(later.len(), 1, "{after}");
        assert_eq!(later[0]["transfer_id"], corrected["transfer"]["id"]);
        assert_eq!(later[0]["corrects_gaming_day"], day.as_str());

        // The same view as CSV for a spreadsheet: one section per part, the frozen report's figures.
        let csv = app.get(&format!("{view}?format=csv"), Some(&c.pitboss.token)).await;
        assert_eq!(csv.status, 200, "{}", csv.text);
        assert_eq!(csv.headers["content-type"], "text/csv");
        let sections = csv_sections(&csv.text);
        let names: Vec<&str> = sections.iter().map(|(name, _, _)| name.as_str()).collect();
        assert_eq!(names, ["day", "tables", "dealers", "meters", "bets", "corrections", "reconciliation", "unfinished_rounds", "later_corrections"]);
        let field = |section: &str, row: usize, column: &str| -> String {
            let (_, header, rows) = sections.iter().find(|(name, ..)| name == section).unwrap();
            let at = header.iter().position(|h| h == column).unwrap_or_else(|| panic!("no {column} in {section}"));
            rows[row][at].clone()
        };
        assert_eq!(field("day", 0, "status"), "closed");
        assert_eq!(field("day", 0, "report_sha256"), s(&closed["close"]["report_sha256"]));
        assert_eq!(field("reconciliation", 0, "table_wins"), s(&r["table_wins"]));
        assert_eq!(field("reconciliation", 0, "reconciled"), "true");
        assert_eq!(field("reconciliation", 0, "meters_agree"), "true");
        assert_eq!(field("later_corrections", 0, "transfer_id"), s(&corrected["transfer"]["id"]));
        let tables = &sections[1];
        assert_eq!(tables.2.len(), report["tables"].as_array().unwrap().len());
        let floor_row = tables.2.iter().find(|row| row[1].is_empty() && row[4].is_empty() && row[5].is_empty()).unwrap();
        assert_eq!(floor_row[tables.1.iter().position(|h| h == "house_win").unwrap()], s(&r["table_wins"]));
        let staked_csv: i64 = (0..report["bets"].as_array().unwrap().len()).map(|i| minor(&field("bets", i, "staked"))).sum();
        assert_eq!(staked_csv, staked);
        app.get(&format!("{view}?format=xml"), Some(&c.pitboss.token)).await.assert_error(400, "invalid_format");
        let o = crate::checkpoints::djego(&["report", "day", "--database-url", app.db.url(), "--gaming-day", day.as_str(), "--csv"]).await;
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        assert_eq!(String::from_utf8(o.stdout).unwrap(), csv.text, "the command prints what the API serves");

        // The stored row is insert-only; rewritten behind djego's back, it no longer matches its hash.
        let direct = app.state.db.write(|conn| -> Result<usize, djego::store::StoreError> {
            use diesel::RunQueryDsl;
            Ok(diesel::sql_query("UPDATE gaming_day_closes SET report = '{}'").execute(conn)?)
        });
        assert!(direct.is_err(), "an UPDATE of a closed day must be refused");
        let args = ["report", "day", "--database-url", app.db.url(), "--gaming-day", day.as_str()];
        let o = crate::checkpoints::djego(&args).await;
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let printed: Value = serde_json::from_slice(&o.stdout).unwrap();
        assert_eq!(printed["report"], closed["report"]);
        let rewritten = report.to_string().replace(&format!("\"{}\"", s(&r["table_wins"])), "\"0.00\"");
        app.tamper(&[format!("UPDATE gaming_day_closes SET report = '{}'", rewritten.replace('\'', "''"))]);
        assert_eq!(app.get(&view, Some(&c.pitboss.token)).await.expect(200)["close"]["intact"], false);
        let o = crate::checkpoints::djego(&args).await;
        assert!(!o.status.success(), "a tampered day fails the command");
    }
}

/// A day of play at a table with a seat fee, closed: the casino, the day and the close's answer.
async fn a_closed_day(app: &TestApp) -> (Casino, String, Value) {
    let c = casino(
        app,
        TableOptions {
            seat_fee: Some("0.25"),
            ..Default::default()
        },
    )
    .await;
    let calendar = calendar_with_cut_off_in(app, &c.pitboss, 8).await;
    let day = s(&calendar["now"]["gaming_day"]).to_owned();
    round_with_bets(app, &c, 4).await;
    sleep_past(calendar["now"]["day_ends_at_us"].as_i64().unwrap()).await;
    let closed = app
        .post(
            &format!("/api/v1/floor/days/{day}/close"),
            Some(&c.pitboss.token),
            &json!({}),
            None,
        )
        .await
        .expect(201);
    (c, day, closed)
}

fn sha256_hex(text: &str) -> String {
    use sha2::Digest;
    hex::encode(sha2::Sha256::digest(text.as_bytes()))
}

/// `text` as a SQL string literal.
fn sql(text: &str) -> String {
    format!("'{}'", text.replace('\'', "''"))
}

both_backends! {
    #[no_ledger_check]
    async fn a_closed_day_rewritten_with_its_hash_and_its_event_is_caught(app: TestApp) {
        let (c, day, closed) = a_closed_day(&app).await;
        let close = &closed["close"];
        assert_eq!((close["intact"].as_bool(), close["problems"].as_array().map(Vec::len)), (Some(true), Some(0)), "{close}");
        assert!(close["checkpoint"].is_i64(), "the close is signed at once: {close}");
        let view_path = format!("/api/v1/floor/days/{day}");
        let args = ["report", "day", "--database-url", app.db.url(), "--gaming-day", day.as_str(), "--verify"];
        let o = crate::checkpoints::djego(&args).await;
        let stderr = String::from_utf8_lossy(&o.stderr).into_owned();
        assert!(o.status.success(), "{stderr}");
        assert!(stderr.contains(&format!("gaming day {day}: intact")), "{stderr}");

        // Someone who owns the database rewrites the report with 100.00 less won, its hash, and
        // the hash the day-close event records: stored report, hash and event agree again.
        let wins = s(&closed["report"]["reconciliation"]["table_wins"]).to_owned();
        let forged_wins = money(minor(&wins) - 10_000);
        let text = closed["report"].to_string().replace(&format!("\"{wins}\""), &format!("\"{forged_wins}\""));
        let sha = sha256_hex(&text);
        let event = &app.events("gaming_day_closed").await[0];
        let mut details: Value = serde_json::from_str(s(&event["details"])).unwrap();
        details["report_sha256"] = json!(sha);
        details["table_wins"] = json!(forged_wins);
        app.tamper(&[
            format!("UPDATE gaming_day_closes SET report = {}, report_sha256 = '{sha}' WHERE gaming_day = '{day}'", sql(&text)),
            format!("UPDATE significant_events SET details = {} WHERE id = '{}'", sql(&details.to_string()), s(&event["id"])),
        ]);

        // The signed checkpoint no longer covers the event, and the ledger says what was won.
        let view = app.get(&view_path, Some(&c.pitboss.token)).await.expect(200);
        assert_eq!(view["close"]["intact"], false, "{view}");
        let problems: Vec<&str> = view["close"]["problems"].as_array().unwrap().iter().map(s).collect();
        assert!(problems.iter().any(|p| p.contains("no signed checkpoint that verifies covers the gaming_day_closed event")), "{problems:?}");
        let differs = format!("frozen \"{forged_wins}\", from the ledger now \"{wins}\"");
        assert!(problems.iter().any(|p| p.contains("report.reconciliation.table_wins") && p.contains(&differs)), "{problems:?}");
        for verify in [&args[..], &args[..args.len() - 1]] {
            let o = crate::checkpoints::djego(verify).await;
            let stderr = String::from_utf8_lossy(&o.stderr).into_owned();
            assert!(!o.status.success(), "a rewritten day fails the command: {stderr}");
            assert!(stderr.contains("NOT INTACT") && stderr.contains(&differs), "{stderr}");
        }
    }
}

both_backends! {
    #[no_ledger_check]
    async fn a_transfer_changed_behind_djegos_back_stops_the_close(app: TestApp) {
        let c = casino(&app, TableOptions { seat_fee: Some("0.25"), ..Default::default() }).await;
        // A cut-off on a whole minute, so the minute of the play is the meters' to answer for.
        let cut_off_s = (chrono::Utc::now().timestamp() + 10).div_euclid(60) * 60 + 60;
        let at = chrono::DateTime::from_timestamp(cut_off_s, 0).unwrap().format("%H:%M:%S").to_string();
        app.install_calendar(&json!({ "timezone": "UTC", "day_starts_at": at, "shifts": [{ "name": "all", "starts_at": at }] }));
        let calendar = app.get(PATH, Some(&c.pitboss.token)).await.expect(200);
        let day = s(&calendar["now"]["gaming_day"]).to_owned();
        assert_eq!(calendar["now"]["day_ends_at_us"], cut_off_s * 1_000_000, "{calendar}");
        round_with_bets(&app, &c, 5).await;
        // The table report brings the minute meters up to the ledger first.
        let report = app.get(&format!("/api/v1/floor/tables?gaming_day={day}"), Some(&c.pitboss.token)).await.expect(200);
        let metered_win = s(&day_line(&report, Some(&c.table))["house_win"]).to_owned();
        // Then a seat fee is made 100.00 larger in the database.
        app.tamper(&["UPDATE transfers SET amount_minor = amount_minor + 10000 WHERE seq = (SELECT MIN(seq) FROM transfers WHERE kind = 'seat_fee')".to_owned()]);
        sleep_past(calendar["now"]["day_ends_at_us"].as_i64().unwrap()).await;
        let refused = app.post(&format!("/api/v1/floor/days/{day}/close"), Some(&c.pitboss.token), &json!({}), None).await;
        refused.assert_error(409, "meters_disagree");
        let body = refused.json();
        let differences: Vec<&str> = body["error"]["details"]["differences"].as_array().unwrap().iter().map(s).collect();
        let ledger_win = money(minor(&metered_win) + 10_000);
        let line = format!("tables[table_id=\"{}\", pit=null, shift=null].house_win: ledger \"{ledger_win}\", meters \"{metered_win}\"", c.table);
        assert!(differences.contains(&line.as_str()), "{differences:?}");
        assert_eq!(app.get(&format!("/api/v1/floor/days/{day}"), Some(&c.pitboss.token)).await.expect(200)["status"], "ended");
    }
}

both_backends! {
    #[no_ledger_check]
    async fn a_transfer_of_a_closed_day_changed_behind_djegos_back_is_caught(app: TestApp) {
        let (c, day, closed) = a_closed_day(&app).await;
        let wins = s(&closed["report"]["reconciliation"]["table_wins"]).to_owned();
        app.tamper(&["UPDATE transfers SET amount_minor = amount_minor + 10000 WHERE seq = (SELECT MIN(seq) FROM transfers WHERE kind = 'seat_fee')".to_owned()]);
        let view = app.get(&format!("/api/v1/floor/days/{day}"), Some(&c.pitboss.token)).await.expect(200);
        assert_eq!(view["close"]["intact"], false, "{view}");
        assert_eq!(view["report"], closed["report"], "the frozen report is what was closed");
        let problems: Vec<&str> = view["close"]["problems"].as_array().unwrap().iter().map(s).collect();
        let differs = format!("report.reconciliation.table_wins: frozen \"{wins}\", from the ledger now \"{}\"", money(minor(&wins) + 10_000));
        assert!(problems.iter().any(|p| p.contains(&differs)), "{problems:?}");
        let args = ["report", "day", "--database-url", app.db.url(), "--gaming-day", day.as_str(), "--verify"];
        let o = crate::checkpoints::djego(&args).await;
        let stderr = String::from_utf8_lossy(&o.stderr).into_owned();
        assert!(!o.status.success(), "{stderr}");
        assert!(stderr.contains(&differs) && stderr.contains("FAIL: transfer"), "the ledger's chain no longer checks: {stderr}");
    }
}
