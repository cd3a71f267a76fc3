//! Nothing is booked into a closed gaming day, even by an instance whose clock runs behind the
//! one that closed it: every writer of money and of rounds — the cage's deposits, withdrawals
//! and corrections, and each game's rounds opened, bet on, played, settled and voided — is
//! refused with 409 `gaming_day_closed`, and the closed day still reads intact.
//!
//! Two instances share one database, through HTTP on both databases: this program's, whose
//! clock it moves past the cut-off of the day after the present one (`djego::store::clock`),
//! closes that day; a `djego serve` it starts keeps the system's clock, still before its end. The clock
//! is the whole process's, so this program holds one test, which runs on SQLite and then on
//! PostgreSQL.

#[path = "api/helpers.rs"]
#[macro_use]
#[allow(unused_macros)]
mod helpers;

// The HTTP tests' drivers (a casino, a round of every game), without their tests.
macro_rules! both_backends {
    ($($test:tt)*) => {};
}
#[allow(dead_code, unused_imports)]
#[path = "api/game_registry.rs"]
mod game_registry;
#[allow(dead_code, unused_imports)]
#[path = "api/lobo.rs"]
mod lobo;
#[allow(dead_code, unused_imports)]
#[path = "api/prima_carta.rs"]
mod prima_carta;
#[allow(dead_code, unused_imports)]
#[path = "api/transcripts.rs"]
mod transcripts;

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};

use serde_json::json;

use djego::game_registry::Game;
use djego::store::clock;
use helpers::{Backend, TestApp, TestResponse};
use prima_carta::s;

/// A `djego serve` on the app's database, with the app's keys and the system's clock.
struct Behind {
    child: Child,
    address: String,
    _dir: tempfile::TempDir,
}

impl Drop for Behind {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn serve_behind(app: &TestApp) -> Behind {
    let settings = &app.state.settings;
    let dir = tempfile::tempdir().expect("a working directory");
    let mut child = Command::new(env!("CARGO_BIN_EXE_djego"))
        .args(["serve", "--bind", "127.0.0.1:0"])
        .current_dir(dir.path())
        .env("DATABASE_URL", app.db.url())
        .env(
            "DJEGO_JWT_SECRET",
            String::from_utf8(settings.jwt_secret.clone()).expect("a text secret"),
        )
        .env("DJEGO_SEED_KEY", hex::encode(settings.seed_key))
        .env("DJEGO_CHECKPOINT_KEY", settings.checkpoint_key.to_hex())
        .env("DJEGO_CHECKPOINT_INTERVAL_SECONDS", "0")
        .env("DJEGO_WORKERS", "2")
        .env("DJEGO_DB_MAX_CONNECTIONS", "4")
        .env("RUST_LOG", "warn")
        .stdout(Stdio::piped())
        .spawn()
        .expect("start djego serve");
    let mut lines = BufReader::new(child.stdout.take().expect("stdout"));
    let address = loop {
        let mut line = String::new();
        assert!(
            lines.read_line(&mut line).expect("read stdout") > 0,
            "djego serve ended before listening"
        );
        if let Some(rest) = line.strip_prefix("djego listening on ") {
            break rest.split_whitespace().next().expect("an address").to_string();
        }
    };
    // Its standard output must keep draining, or a full pipe would stop it.
    std::thread::spawn(move || for _ in lines.lines() {});
    Behind {
        child,
        address,
        _dir: dir,
    }
}

/// Moves this process's clock forward to `at_us`.
fn clock_to(at_us: i64) {
    let now = clock::now_us();
    assert!(at_us >= now, "the clock only moves forward");
    clock::move_forward_for_tests(at_us - now);
}

/// The present gaming day and shift, as the calendar says.
async fn present(app: &TestApp, token: &str) -> serde_json::Value {
    app.get("/api/v1/floor/calendar", Some(token)).await.expect(200)["now"].clone()
}

#[track_caller]
fn refused(r: TestResponse, what: &str) {
    assert_eq!(
        (r.status, r.json()["error"]["code"].as_str().map(str::to_owned)),
        (409, Some("gaming_day_closed".to_owned())),
        "{what}: {}",
        r.text
    );
}

async fn a_clock_behind_books_nothing_into_a_closed_day(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut f = game_registry::floor(&app).await;
    let other = lobo::funded_player(&app, "200.00").await;
    // The copa of a Prima Carta round asks each seated player.
    f.pc.players.push(other.clone());
    let pitboss = f.pitboss().clone();
    let (dealer, cashier, player) = (f.pc.dealer.clone(), f.pc.cashier.clone(), f.player.clone());

    // This instance's clock goes past the end of the gaming day after the present one, which
    // closes: whatever the hour, the system's clock is still before that day's end.
    clock_to(present(&app, &pitboss.token).await["day_ends_at_us"].as_i64().unwrap() + 60_000_000);
    let next = present(&app, &pitboss.token).await;
    let day = s(&next["gaming_day"]).to_owned();
    let day_ends_at_us = next["day_ends_at_us"].as_i64().unwrap();
    clock_to(day_ends_at_us + 60_000_000);
    let closed = app
        .post(
            &format!("/api/v1/floor/days/{day}/close"),
            Some(&pitboss.token),
            &json!({}),
            None,
        )
        .await
        .expect(201);

    // Another instance, its clock still before the closed day's end.
    let server = serve_behind(&app);
    let behind = app.through(&server.address);
    assert!(chrono::Utc::now().timestamp_micros() < day_ends_at_us);

    // Rounds opened there: every game's.
    for (path, what) in [
        (
            format!("/api/v1/tables/{}/rounds", f.pc.table),
            "a Prima Carta round opened",
        ),
        (
            format!("/api/v1/tables/{}/peg-leg-rounds", f.peg_leg_table),
            "a Peg Leg round opened",
        ),
    ] {
        refused(behind.post(&path, Some(&dealer.token), &json!({}), None).await, what);
    }
    refused(
        lobo::start(&behind, &other, &f.lobo_table, json!({ "unit": "1.00" })).await,
        "a Lobo round started",
    );
    let terms = json!({ "entry_fee": "2.50", "rake_basis_points": 500, "min_players": 2,
        "max_players": 4, "entry_seconds": 600, "play_seconds": 600 });
    refused(
        behind
            .post(
                &format!("/api/v1/tables/{}/lobo-contests", f.lobo_table),
                Some(&pitboss.token),
                &terms,
                None,
            )
            .await,
        "a Lobo contest created",
    );

    // The cage.
    let cash = json!({ "player_id": player.id, "amount": "77.00" });
    refused(behind.cage(&cashier, "deposits", &cash, None).await, "a deposit");
    refused(behind.cage(&cashier, "withdrawals", &cash, None).await, "a withdrawal");
    let correction = json!({ "player_id": player.id, "amount": "1.00", "direction": "credit",
        "reason": "a clock behind" });
    refused(
        behind.cage(&cashier, "corrections", &correction, None).await,
        "a correction",
    );

    // Rounds going, opened here; each played and ended there.
    let mut going = Vec::new();
    for game in Game::ALL {
        going.push((game, game_registry::round_left_going(&app, &f, game).await));
    }
    let id_of = |game: Game| going.iter().find(|(g, _)| *g == game).unwrap().1.clone();
    let reason = json!({ "reason": "a clock behind" });

    let pc = id_of(Game::PrimaCarta);
    refused(
        prima_carta::seat(&behind, &other, &pc, "cups", None).await,
        "a Prima Carta seat (spiga)",
    );
    prima_carta::seat(&app, &other, &pc, "cups", None).await.expect(201);
    refused(
        behind
            .post(
                &format!("/api/v1/rounds/{pc}/bets"),
                Some(&player.token),
                &json!({ "kind": "prima", "suit": "crowns", "amount": "2.00" }),
                None,
            )
            .await,
        "a side bet",
    );
    refused(
        behind
            .post(
                &format!("/api/v1/rounds/{pc}/void"),
                Some(&pitboss.token),
                &reason,
                None,
            )
            .await,
        "a Prima Carta void",
    );
    refused(
        prima_carta::dealer_action(&behind, &f.pc, &pc, "close").await,
        "Prima Carta's betting closed",
    );
    prima_carta::dealer_action(&app, &f.pc, &pc, "close").await.expect(200);
    let dealt = prima_carta::dealer_action(&app, &f.pc, &pc, "deal").await.expect(200);
    prima_carta::play_copa(&app, &f.pc, &pc, dealt, 1).await;
    refused(
        prima_carta::dealer_action(&behind, &f.pc, &pc, "settle").await,
        "a Prima Carta settlement",
    );
    prima_carta::dealer_action(&app, &f.pc, &pc, "settle").await.expect(200);

    let peg = id_of(Game::PegLeg);
    let view = app
        .get(&format!("/api/v1/peg-leg-rounds/{peg}"), Some(&player.token))
        .await
        .expect(200);
    let quote = &view["quote"];
    let count = quote["counts"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["multiplier"].is_string())
        .unwrap_or_else(|| panic!("a count offered: {view}"))["count"]
        .clone();
    refused(
        behind
            .post(
                &format!("/api/v1/peg-leg-rounds/{peg}/bets"),
                Some(&other.token),
                &json!({ "quote_id": quote["id"], "count": count, "stake": "2.00" }),
                None,
            )
            .await,
        "a Peg Leg bet",
    );
    let bet = s(&view["bets"][0]["id"]).to_owned();
    refused(
        behind
            .post(
                &format!("/api/v1/peg-leg-rounds/{peg}/bets/{bet}/surrender"),
                Some(&player.token),
                &json!({ "quote_id": quote["id"] }),
                None,
            )
            .await,
        "a Peg Leg surrender",
    );
    refused(
        behind
            .post(
                &format!("/api/v1/peg-leg-rounds/{peg}/deal"),
                Some(&dealer.token),
                &json!({}),
                None,
            )
            .await,
        "a Peg Leg card (the last one settles)",
    );
    refused(
        behind
            .post(
                &format!("/api/v1/peg-leg-rounds/{peg}/void"),
                Some(&pitboss.token),
                &reason,
                None,
            )
            .await,
        "a Peg Leg void",
    );

    let lobo_round = id_of(Game::Lobo);
    refused(
        lobo::fold_at_once(&behind, &player, &lobo_round).await,
        "a Lobo fold (it settles)",
    );
    refused(
        behind
            .post(
                &format!("/api/v1/lobo-rounds/{lobo_round}/void"),
                Some(&pitboss.token),
                &reason,
                None,
            )
            .await,
        "a Lobo void",
    );

    let contest = id_of(Game::LoboContest);
    refused(
        behind
            .post(
                &format!("/api/v1/lobo-contests/{contest}/entries"),
                Some(&other.token),
                &json!({}),
                None,
            )
            .await,
        "a Lobo contest entry",
    );
    refused(
        behind
            .post(
                &format!("/api/v1/lobo-contests/{contest}/void"),
                Some(&pitboss.token),
                &reason,
                None,
            )
            .await,
        "a Lobo contest void",
    );

    // Here, after the cut-off, the same writers work.
    for game in [Game::PegLeg, Game::Lobo, Game::LoboContest] {
        game_registry::void(&app, &f, game, &id_of(game)).await;
    }
    app.cage(&cashier, "deposits", &cash, None).await.expect(201);

    // The closed day is as it was closed, read by either instance.
    for instance in [&app, &behind] {
        let view = instance
            .get(&format!("/api/v1/floor/days/{day}"), Some(&pitboss.token))
            .await
            .expect(200);
        assert_eq!(view["close"]["intact"], true, "{view}");
        assert_eq!(view["report"], closed["report"]);
    }
    app.assert_ledger_sound().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_instance_whose_clock_is_behind_books_nothing_into_a_closed_day_on_both_databases() {
    a_clock_behind_books_nothing_into_a_closed_day(Backend::Sqlite).await;
    a_clock_behind_books_nothing_into_a_closed_day(Backend::Postgres).await;
}
