//! A gaming day that lives through a change of clocks and through its
//! cut-off, played through HTTP on both databases: several tables, dealers
//! relieving each other and players betting, then every report of the day
//! reconciled to the ledger to the cent, its theoretical win computed by hand,
//! and the day closed.
//!
//! The instants are real ones (Lisbon's next changes of clocks), reached by
//! moving this program's clock forward (`djego::store::clock`). The clock is
//! the whole process's, so this program holds one test, which plays the next
//! change on SQLite and the one after it (the other way round) on PostgreSQL.

#[path = "api/helpers.rs"]
#[macro_use]
#[allow(unused_macros)]
mod helpers;

use chrono::{DateTime, Duration, NaiveDate, NaiveTime, Offset, TimeZone, Utc};
use chrono_tz::Europe::Lisbon;
use rust_decimal::prelude::FromPrimitive;
use rust_decimal::Decimal;
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::str::FromStr;

use djego::domain::Role;
use djego::store::clock;
use helpers::{Backend, TestApp, TestUser};

const HOUR_US: i64 = 3_600_000_000;
const MINUTE_US: i64 = 60_000_000;

fn minor(text: &str) -> i64 {
    let amount = Decimal::from_str(text).unwrap_or_else(|e| panic!("{text}: {e}"));
    (amount * Decimal::from(100)).try_into().unwrap()
}

fn money(m: i64) -> String {
    let sign = if m < 0 { "-" } else { "" };
    format!("{sign}{}.{:02}", m.abs() / 100, m.abs() % 100)
}

fn s(v: &Value) -> &str {
    v.as_str().unwrap_or_else(|| panic!("not a string: {v}"))
}

/// The first instant after `after` at which Lisbon's offset from UTC changes.
fn next_change_of_clocks(after: DateTime<Utc>) -> DateTime<Utc> {
    let offset = |t: DateTime<Utc>| Lisbon.offset_from_utc_datetime(&t.naive_utc()).fix();
    let mut t = after;
    let step = Duration::hours(1);
    while offset(t + step) == offset(t) {
        t += step;
        assert!(
            t - after < Duration::days(400),
            "Lisbon changes its clocks twice a year"
        );
    }
    // Changes fall on a whole hour of UTC: the hour after t.
    let hour = t.timestamp() - t.timestamp().rem_euclid(3600) + 3600;
    DateTime::from_timestamp(hour, 0).unwrap()
}

/// Moves the clock forward to `at_us` (it is never past it here).
fn clock_to(at_us: i64) {
    let now = clock::now_us();
    assert!(at_us >= now, "the clock only moves forward");
    clock::move_forward_for_tests(at_us - now);
}

/// The gaming day starting at 06:00 local on `date`, as UTC microseconds.
fn lisbon_six(date: NaiveDate) -> i64 {
    let local = date.and_time(NaiveTime::from_hms_opt(6, 0, 0).unwrap());
    Lisbon.from_local_datetime(&local).single().unwrap().timestamp_micros()
}

struct Floor {
    pitboss: TestUser,
    dealers: [TestUser; 2],
    players: Vec<TestUser>,
    tables: [String; 2],
}

async fn floor(app: &TestApp) -> Floor {
    let pitboss = app.create_user(Role::Pitboss).await;
    let cashier = app.create_user(Role::Cashier).await;
    let dealers = [app.create_user(Role::Dealer).await, app.create_user(Role::Dealer).await];
    let calendar = json!({
        "timezone": "Europe/Lisbon",
        "day_starts_at": "06:00",
        "shifts": [
            { "name": "day", "starts_at": "06:00" },
            { "name": "swing", "starts_at": "14:00" },
            { "name": "night", "starts_at": "22:00" },
        ],
    });
    // A change takes effect from the next gaming day: Lisbon's days follow today's.
    let set = app.set_calendar(&pitboss, &calendar).await;
    assert_eq!(set["pending"]["timezone"], "Europe/Lisbon", "{set}");
    assert_eq!(
        set["pending"]["effective_from_us"], set["now"]["day_ends_at_us"],
        "{set}"
    );
    let mut tables = Vec::new();
    for name in ["Centrale A", "Centrale B"] {
        let config = json!({
            "game": "prima_carta", "variant": "cinco", "unit": "1.00", "seat_fee": "0.25",
            "corte": false, "cobre": "off", "min_bet": "1.00", "max_bet": "100.00",
            "max_exposure_per_round": "500.00", "strategy_advice": false
        });
        let dealers: Vec<&TestUser> = dealers.iter().collect();
        let id = app.open_table(&pitboss, &dealers, &name, config).await;
        tables.push(id);
    }
    let mut players = Vec::new();
    for _ in 0..3 {
        let p = app.create_user(Role::Player).await;
        app.fund(&cashier, &p.id, "500.00").await;
        players.push(p);
    }
    Floor {
        pitboss,
        dealers,
        players,
        tables: tables.try_into().unwrap(),
    }
}

async fn sign_in(app: &TestApp, table: &str, dealer: &TestUser) {
    app.post(
        &format!("/api/v1/tables/{table}/dealer/sign-in"),
        Some(&dealer.token),
        &json!({}),
        None,
    )
    .await
    .expect(200);
}

/// A settled Cinco round at `table` dealt by `dealer`: two players seated,
/// three side bets. Returns the round and its bets (kind, stake in minor units).
async fn round(app: &TestApp, f: &Floor, table: &str, dealer: &TestUser, salt: usize) -> (String, Vec<(String, i64)>) {
    let round = app
        .post(
            &format!("/api/v1/tables/{table}/rounds"),
            Some(&dealer.token),
            &json!({}),
            None,
        )
        .await
        .expect(201);
    let id = s(&round["id"]).to_owned();
    let suits = ["crowns", "locks", "fruit", "swords", "cups"];
    for k in 0..2 {
        let p = &f.players[(salt + k) % f.players.len()];
        app.post(
            &format!("/api/v1/rounds/{id}/seats"),
            Some(&p.token),
            &json!({ "suit": suits[(salt + 2 * k) % 5] }),
            None,
        )
        .await
        .expect(201);
    }
    let bets = [
        json!({ "kind": "prima", "suit": suits[salt % 5], "amount": "2.00" }),
        json!({ "kind": "conto_alto", "amount": "3.50" }),
        json!({ "kind": "maximo", "suit": "cups", "amount": "1.25" }),
    ];
    let mut placed = Vec::new();
    for (k, bet) in bets.iter().enumerate() {
        let p = &f.players[(salt + k) % f.players.len()];
        app.post(&format!("/api/v1/rounds/{id}/bets"), Some(&p.token), bet, None)
            .await
            .expect(201);
        placed.push((s(&bet["kind"]).to_owned(), minor(s(&bet["amount"]))));
    }
    for action in ["close", "deal", "settle"] {
        app.post(
            &format!("/api/v1/rounds/{id}/{action}"),
            Some(&dealer.token),
            &json!({}),
            None,
        )
        .await
        .expect(200);
    }
    (id, placed)
}

/// Every transfer of the ledger from `from_us` to `to_us` (the auditor's view).
async fn ledger(app: &TestApp, from_us: i64, to_us: i64) -> Vec<Value> {
    let token = app.auditor().await.token.clone();
    let mut all = Vec::new();
    loop {
        let page = app
            .get(
                &format!(
                    "/api/v1/audit/ledger?from_us={from_us}&to_us={to_us}&limit=500&offset={}",
                    all.len()
                ),
                Some(&token),
            )
            .await
            .expect(200);
        let page = page.as_array().unwrap().clone();
        let done = page.len() < 500;
        all.extend(page);
        if done {
            return all;
        }
    }
}

/// What the ledger says of each table, and (None) of all `transfers`: (house win, drop, fees).
fn from_the_ledger(transfers: &[Value]) -> BTreeMap<Option<String>, (i64, i64, i64)> {
    let house = ["house:bankroll", "house:revenue"];
    let mut out: BTreeMap<Option<String>, (i64, i64, i64)> = BTreeMap::new();
    for t in transfers {
        let amount = minor(s(&t["amount"]));
        let (from, to, kind) = (s(&t["debit_account"]), s(&t["credit_account"]), s(&t["kind"]));
        let win = i64::from(house.contains(&to)) * amount - i64::from(house.contains(&from)) * amount;
        let drop = if from.starts_with("wallet:") && !to.starts_with("wallet:") {
            amount
        } else if to.starts_with("wallet:") && ["refund", "bet_refund"].contains(&kind) {
            -amount
        } else {
            0
        };
        let fee = if kind == "seat_fee" { amount } else { 0 };
        for key in [t["table_id"].as_str().map(str::to_owned), None] {
            let e = out.entry(key).or_default();
            e.0 += win;
            e.1 += drop;
            e.2 += fee;
        }
    }
    out
}

/// Σ stake × (1 − certified RTP) over `bets`, in minor units, from the table's certificate.
async fn theo_minor(app: &TestApp, f: &Floor, table: &str, bets: &[(String, i64)]) -> Decimal {
    let view = app
        .get(&format!("/api/v1/tables/{table}/pay-table"), Some(&f.pitboss.token))
        .await
        .expect(200);
    let certified = view["certificate"]["bets"].as_array().unwrap();
    bets.iter()
        .map(|(kind, stake)| {
            let cert = certified.iter().find(|b| b["kind"] == kind.as_str()).unwrap();
            let rtp = match cert["rtp"]["kind"].as_str() {
                Some("exact") => Decimal::from_str(s(&cert["rtp"]["decimal"])).unwrap(),
                _ => Decimal::from_f64(cert["rtp"]["value"].as_f64().unwrap()).unwrap(),
            };
            Decimal::from(*stake) * (Decimal::ONE - rtp)
        })
        .sum()
}

fn cents(minor: Decimal) -> String {
    let whole = minor.round_dp_with_strategy(0, rust_decimal::RoundingStrategy::MidpointNearestEven);
    money(whole.try_into().unwrap())
}

fn line<'a>(report: &'a Value, key: &str, id: Option<&str>) -> &'a Value {
    report["lines"]
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l[key].as_str() == id && l["shift"].is_null() && l["pit"].is_null())
        .unwrap_or_else(|| panic!("no day line for {id:?} in {report}"))
}

/// One gaming day around `change`, played and reported on `backend`.
async fn a_day_across(backend: Backend, change: DateTime<Utc>) {
    let change_us = change.timestamp_micros();
    let local = |us: i64| {
        Lisbon
            .from_utc_datetime(&DateTime::from_timestamp_micros(us).unwrap().naive_utc())
            .naive_local()
    };
    // The gaming day the change falls in (it is at 01:00 UTC, before 06:00 local).
    let day = local(change_us).date() - Duration::days(1);
    let (day_from_us, day_to_us) = (lisbon_six(day), lisbon_six(day + Duration::days(1)));
    let skipped_us = (local(change_us + MINUTE_US) - local(change_us - MINUTE_US))
        .num_microseconds()
        .unwrap()
        - 2 * MINUTE_US;
    assert_eq!(
        day_to_us - day_from_us,
        24 * HOUR_US - skipped_us,
        "a 23 or 25 hour day"
    );
    assert_ne!(skipped_us, 0);

    // The floor is set up the day before `day`, so that Lisbon's calendar is in force by then.
    clock_to(day_from_us - 30 * HOUR_US);
    let app = TestApp::spawn(backend).await;
    let f = floor(&app).await;
    // Two hours before the change, in the night shift of `day`.
    clock_to(change_us - 2 * HOUR_US);
    let calendar = app
        .get("/api/v1/floor/calendar", Some(&f.pitboss.token))
        .await
        .expect(200);
    assert_eq!(
        (calendar["timezone"].as_str(), calendar["pending"].is_null()),
        (Some("Europe/Lisbon"), true),
        "{calendar}"
    );
    assert_eq!(calendar["now"]["day_starts_at_us"], day_from_us, "{calendar}");
    let [x, y] = &f.dealers;
    let [a, b] = [f.tables[0].as_str(), f.tables[1].as_str()];
    sign_in(&app, a, x).await;
    sign_in(&app, b, y).await;
    let mut rounds: Vec<(&str, &TestUser, bool, String, Vec<(String, i64)>)> = Vec::new();
    let (r, bets) = round(&app, &f, a, x, 0).await;
    rounds.push((a, x, true, r, bets));
    let (r, bets) = round(&app, &f, b, y, 1).await;
    rounds.push((b, y, true, r, bets));

    // Half an hour after the change: y relieves x at A (and leaves B).
    clock_to(change_us + 30 * MINUTE_US);
    sign_in(&app, a, y).await;
    let (r, bets) = round(&app, &f, a, y, 2).await;
    rounds.push((a, y, true, r, bets));

    // Just before the cut-off x deals at B; just after it, y at A on the next day.
    clock_to(day_to_us - 5 * MINUTE_US);
    sign_in(&app, b, x).await;
    let (r, bets) = round(&app, &f, b, x, 3).await;
    rounds.push((b, x, true, r, bets));
    clock_to(day_to_us + 5 * MINUTE_US);
    let (r, bets) = round(&app, &f, a, y, 4).await;
    rounds.push((a, y, false, r, bets));

    // The table report of the day, against the ledger.
    let auditor = app.auditor().await.token.clone();
    let report = app
        .get(&format!("/api/v1/floor/tables?gaming_day={day}"), Some(&auditor))
        .await
        .expect(200);
    assert_eq!(
        (report["from_us"].as_i64(), report["to_us"].as_i64()),
        (Some(day_from_us), Some(day_to_us)),
        "{report}"
    );
    let transfers = ledger(&app, day_from_us, day_to_us).await;
    let tables_only: Vec<Value> = transfers
        .iter()
        .filter(|t| t["table_id"].is_string())
        .cloned()
        .collect();
    let by_table = from_the_ledger(&tables_only);
    let mut floor_theo = Decimal::ZERO;
    for table in [a, b] {
        let l = line(&report, "table_id", Some(table));
        let (win, drop, fees) = by_table[&Some(table.to_owned())];
        assert_eq!(minor(s(&l["house_win"])), win, "{l}");
        assert_eq!(minor(s(&l["drop"])), drop, "{l}");
        let played: Vec<&(&str, &TestUser, bool, String, Vec<(String, i64)>)> =
            rounds.iter().filter(|r| r.0 == table && r.2).collect();
        assert_eq!(l["rounds"].as_i64(), Some(played.len() as i64), "{l}");
        let bets: Vec<(String, i64)> = played.iter().flat_map(|r| r.4.clone()).collect();
        let theo = theo_minor(&app, &f, table, &bets).await + Decimal::from(fees);
        assert_eq!(s(&l["theo_win"]), cents(theo), "{l}");
        floor_theo += theo;
        // Every round of the day was dealt in its night shift, across the change.
        let night = report["lines"]
            .as_array()
            .unwrap()
            .iter()
            .find(|n| n["table_id"] == table && n["shift"] == "night")
            .unwrap();
        assert_eq!(night["house_win"], l["house_win"], "{night}");
    }
    let floor_line = line(&report, "table_id", None);
    let (win, drop, _) = by_table[&None];
    assert_eq!(minor(s(&floor_line["house_win"])), win);
    assert_eq!(minor(s(&floor_line["drop"])), drop);
    assert_eq!(s(&floor_line["theo_win"]), cents(floor_theo));

    // The next gaming day holds the round after the cut-off, and nothing else.
    let next = app
        .get(
            &format!("/api/v1/floor/tables?gaming_day={}", day + Duration::days(1)),
            Some(&auditor),
        )
        .await
        .expect(200);
    assert_eq!(line(&next, "table_id", Some(a))["rounds"].as_i64(), Some(1), "{next}");
    assert_eq!(line(&next, "table_id", None)["rounds"].as_i64(), Some(1), "{next}");

    // Dealers: each counted for the rounds they dealt, and together the floor.
    let dealers = app
        .get(&format!("/api/v1/floor/dealers?gaming_day={day}"), Some(&auditor))
        .await
        .expect(200);
    let mut dealers_win = 0;
    for d in [x, y] {
        let l = line(&dealers, "dealer_id", Some(&d.id));
        let dealt: Vec<&String> = rounds.iter().filter(|r| r.1.id == d.id && r.2).map(|r| &r.3).collect();
        assert_eq!(l["rounds"].as_i64(), Some(dealt.len() as i64), "{l}");
        let win: i64 = tables_only
            .iter()
            .filter(|t| t["round_id"].as_str().is_some_and(|r| dealt.iter().any(|d| *d == r)))
            .map(|t| from_the_ledger(std::slice::from_ref(t))[&None].0)
            .sum();
        assert_eq!(minor(s(&l["house_win"])), win, "{l}");
        dealers_win += win;
    }
    assert_eq!(dealers_win, by_table[&None].0, "every round had a dealer in the box");

    // Ratings: each player's results add up to their wallet's change that day.
    let ratings = app
        .get(
            &format!("/api/v1/floor/players?gaming_day={day}"),
            Some(&f.pitboss.token),
        )
        .await
        .expect(200);
    for p in &f.players {
        let wallet = format!("wallet:{}", p.id);
        let rated: i64 = ratings["sessions"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|x| x["player_id"] == p.id.as_str())
            .map(|x| minor(s(&x["actual_result"])))
            .sum();
        let at_tables: i64 = tables_only
            .iter()
            .map(|t| {
                let amount = minor(s(&t["amount"]));
                i64::from(t["credit_account"] == wallet.as_str()) * amount
                    - i64::from(t["debit_account"] == wallet.as_str()) * amount
            })
            .sum();
        assert_eq!(rated, at_tables, "{}", p.username);
    }

    // Over the two days: each session in its own day, and their results add up to the wallets' changes.
    let next_day = day + Duration::days(1);
    let two_days = app
        .get(
            &format!("/api/v1/floor/players?from={day}&to={next_day}"),
            Some(&f.pitboss.token),
        )
        .await
        .expect(200);
    assert_eq!(two_days["last_gaming_day"], next_day.to_string().as_str());
    let sessions = two_days["sessions"].as_array().unwrap();
    let days: Vec<&str> = sessions.iter().map(|x| s(&x["gaming_day"])).collect();
    assert!(days.windows(2).all(|w| w[0] <= w[1]), "{days:?}");
    assert_eq!(
        days.iter().filter(|d| **d == day.to_string()).count(),
        ratings["sessions"].as_array().unwrap().len()
    );
    assert!(days.contains(&next_day.to_string().as_str()), "{days:?}");
    let both_days = ledger(&app, day_from_us, lisbon_six(next_day + Duration::days(1))).await;
    for p in &f.players {
        let wallet = format!("wallet:{}", p.id);
        let rated: i64 = sessions
            .iter()
            .filter(|x| x["player_id"] == p.id.as_str())
            .map(|x| minor(s(&x["actual_result"])))
            .sum();
        let at_tables: i64 = both_days
            .iter()
            .filter(|t| t["table_id"].is_string())
            .map(|t| {
                let amount = minor(s(&t["amount"]));
                i64::from(t["credit_account"] == wallet.as_str()) * amount
                    - i64::from(t["debit_account"] == wallet.as_str()) * amount
            })
            .sum();
        assert_eq!(rated, at_tables, "{} over two days", p.username);
    }
    app.get(&format!("/api/v1/floor/players?from={day}"), Some(&f.pitboss.token))
        .await
        .assert_error(422, "invalid_period");

    // Closed: reconciled, frozen, hashed.
    let closed = app
        .post(
            &format!("/api/v1/floor/days/{day}/close"),
            Some(&f.pitboss.token),
            &json!({}),
            None,
        )
        .await
        .expect(201);
    assert_eq!(closed["status"], "closed", "{closed}");
    let reconciliation = &closed["report"]["reconciliation"];
    assert_eq!(reconciliation["reconciled"], true, "{reconciliation}");
    assert_eq!(minor(s(&reconciliation["table_wins"])), by_table[&None].0);
    let house_change = from_the_ledger(&transfers)[&None].0;
    assert_eq!(minor(s(&reconciliation["house_change"])), house_change);
    assert_eq!(closed["close"]["intact"], true);
    app.assert_ledger_sound().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_gaming_day_across_a_change_of_clocks_and_its_cut_off_reconciles_on_both_databases() {
    // Far enough ahead that the real clock cannot pass the instants while the test runs.
    let first = next_change_of_clocks(Utc::now() + Duration::days(2));
    let second = next_change_of_clocks(first + Duration::days(2));
    a_day_across(Backend::Sqlite, first).await;
    a_day_across(Backend::Postgres, second).await;
}
