//! The dealer terminal (web/dealer.html) at 1024×768: the dealer signs in at
//! "Prima Carta 1", opens a round, watches two players sit and a side bet
//! arrive live (placed through the API), is refused closing with one seat,
//! closes, deals, records the copa decisions given by voice, settles, and
//! sees the payouts; and a round in progress when the page loads is resumed.

use crate::harness::{api, cents, demo, login, open_prima_round, table_id, Browser, Djego, Driver, STEP_TIMEOUT_MS};
use reqwest::Method;
use serde_json::{json, Value};
use std::time::{Duration, Instant};

fn suit_name(suit: &str) -> String {
    let mut name = suit.to_string();
    name[..1].make_ascii_uppercase();
    name
}

/// The round the page shows: (status, version), from #round-status's data attributes.
async fn shown_round(b: &Browser) -> (String, String) {
    let v = b
        .run_js(
            "const n = document.getElementById('round-status'); \
             return [n.dataset.status || '', n.dataset.version || ''];",
        )
        .await;
    (
        v[0].as_str().unwrap_or_default().to_string(),
        v[1].as_str().unwrap_or_default().to_string(),
    )
}

/// From the deal to the settlement, as the dealer: every copa decision asked
/// of the dealer is recorded by voice ("pays"), then the round is settled.
/// Returns how many decisions the dealer recorded.
async fn play_out(b: &Browser) -> usize {
    let deadline = Instant::now() + Duration::from_millis(2 * STEP_TIMEOUT_MS);
    let mut voiced = 0;
    loop {
        assert!(
            Instant::now() < deadline,
            "the round never settled:\n{}",
            b.page_text().await
        );
        let (status, version) = shown_round(b).await;
        match status.as_str() {
            "settled" => return voiced,
            "copa" => {
                b.click("#copa-pay").await;
                voiced += 1;
            }
            "in_play" | "finished" => b.click("#settle").await,
            _ => {
                tokio::time::sleep(Duration::from_millis(100)).await;
                continue;
            }
        }
        // Wait for the answer (or the live stream) to show the next version.
        while shown_round(b).await.1 == version {
            assert!(
                Instant::now() < deadline,
                "the step never showed:\n{}",
                b.page_text().await
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
}

/// What a player's wallet holds, in cents.
async fn balance(djego: &Djego, token: &str) -> i64 {
    let (status, wallet) = api(djego, Method::GET, "/api/v1/me/wallet", Some(token), None).await;
    assert_eq!(status, 200, "{wallet}");
    cents(wallet["balance"].as_str().unwrap())
}

#[tokio::test(flavor = "multi_thread")]
async fn the_dealer_runs_a_round_while_seats_and_a_side_bet_arrive_live() {
    let djego = Djego::start();
    let driver = Driver::start();
    let b = driver.browser(1024, 768).await;

    // The tables: Prima Carta is dealt here; Lobo, as the game registry says, needs no dealer.
    b.sign_in(&djego, "dealer", demo::PASSWORD_DEALER, "/dealer").await;
    b.wait_text("#table-list", "Lobo: Played by each player alone against the house")
        .await;
    b.wait_text("#table-list", "no dealer needed").await;
    b.wait_text("#table-list", "assigned to you").await;
    b.click(r#"button.table-pick[data-table-name="Prima Carta 1"]"#).await;
    b.wait_text("#live-status", "Live").await;
    b.wait_text("#dealer-now", "No dealer is signed in").await;

    // Signs in at the table: the API says who deals there now.
    b.click("#dealer-sign-in").await;
    b.wait_text("#dealer-now", "are dealing here").await;
    b.wait_text("#round-status", "No round is open").await;
    let dealer = login(&djego, "dealer", demo::PASSWORD_DEALER).await;
    let table = table_id(&djego, &dealer, "Prima Carta 1").await;
    let (status, boxed) = api(
        &djego,
        Method::GET,
        &format!("/api/v1/tables/{table}/dealer"),
        Some(&dealer),
        None,
    )
    .await;
    assert_eq!(status, 200, "{boxed}");
    assert_eq!(boxed["dealer"]["username"], "dealer", "{boxed}");
    b.screenshot("dealer-table").await;

    // Opens a round: its commitment is shown.
    b.click("#open-round").await;
    b.wait_text("#round-status", "Betting is open").await;
    let round = b
        .run_js("return document.getElementById('round-status').dataset.roundId;")
        .await
        .as_str()
        .unwrap()
        .to_string();
    let (status, view) = api(
        &djego,
        Method::GET,
        &format!("/api/v1/rounds/{round}"),
        Some(&dealer),
        None,
    )
    .await;
    assert_eq!(status, 200, "{view}");
    assert_eq!(b.text("#commitment").await, view["commitment"].as_str().unwrap());
    // Everything from here on must arrive without a reload.
    b.run_js("window.__sameDealerPage = true; return true;").await;

    // One player sits (through the API): the seat shows live.
    let ana = login(&djego, "ana", demo::PASSWORD_PLAYER).await;
    let bruno = login(&djego, "bruno", demo::PASSWORD_PLAYER).await;
    let (status, body) = api(
        &djego,
        Method::POST,
        &format!("/api/v1/rounds/{round}/seats"),
        Some(&ana),
        Some(json!({ "suit": "crowns" })),
    )
    .await;
    assert_eq!(status, 201, "{body}");
    b.wait_text(r#"tr.seat[data-suit="crowns"]"#, "Crowns").await;
    b.wait_text("#seat-count", "1 seated").await;

    // Closing with one seat is refused, in a sentence; betting stays open.
    b.click("#close-betting").await;
    b.wait_text("#round-problem", "a round needs at least 2 seated players; 1 seated")
        .await;
    b.wait_text("#round-status", "Betting is open").await;

    // The second player sits and the first places a side bet: both show live.
    let (status, body) = api(
        &djego,
        Method::POST,
        &format!("/api/v1/rounds/{round}/seats"),
        Some(&bruno),
        Some(json!({ "suit": "swords" })),
    )
    .await;
    assert_eq!(status, 201, "{body}");
    let (status, bet) = api(
        &djego,
        Method::POST,
        &format!("/api/v1/rounds/{round}/bets"),
        Some(&ana),
        Some(json!({ "kind": "prima", "suit": "crowns", "amount": "5.00" })),
    )
    .await;
    assert_eq!(status, 201, "{bet}");
    b.wait_text(r#"tr.seat[data-suit="swords"]"#, "Swords").await;
    b.wait_text("#seat-count", "2 seated").await;
    // Each seat names its player by username (the roster's), never by account id.
    b.wait_text(r#"tr.seat[data-suit="crowns"]"#, "ana").await;
    b.wait_text(r#"tr.seat[data-suit="swords"]"#, "bruno").await;
    b.wait_text("#bet-count", "1 side bet, 5.00 staked").await;
    b.wait_text(r#"tr.bet-total[data-kind="prima"]"#, "5.00").await;
    assert_eq!(
        b.run_js("return window.__sameDealerPage === true;").await,
        Value::Bool(true),
        "the page reloaded"
    );
    // The refusal is gone once two are seated.
    assert_eq!(
        b.run_js("return document.getElementById('round-problem').hidden;")
            .await,
        Value::Bool(true)
    );
    b.screenshot("dealer-betting").await;

    // Closes, deals, records the copa decisions by voice, settles.
    b.click("#close-betting").await;
    b.wait_text("#round-status", "Deal the first pass").await;
    b.click("#deal").await;
    play_out(&b).await;
    b.wait_text("#round-status", "Settled").await;
    b.wait_text("#result", "Paid to the winner").await;
    assert_eq!(
        b.run_js("return window.__sameDealerPage === true;").await,
        Value::Bool(true),
        "the page reloaded"
    );

    // The page shows what djego paid.
    let (status, view) = api(
        &djego,
        Method::GET,
        &format!("/api/v1/rounds/{round}"),
        Some(&ana),
        None,
    )
    .await;
    assert_eq!(status, 200, "{view}");
    assert_eq!(view["status"], "settled", "{view}");
    let stored = &view["result"];
    let result = &stored["result"];
    let paid = stored["winner_paid"].as_str().unwrap();
    let winner = result["winner"].as_str().unwrap();
    assert_eq!(b.text("#winner-paid").await, paid);
    b.wait_text("#result-winner", &format!("{} wins", suit_name(winner)))
        .await;
    b.wait_text(&format!(r#"tr.payout[data-suit="{winner}"]"#), paid).await;
    let winner_name = if winner == "crowns" { "ana" } else { "bruno" };
    b.wait_text("#result-winner", &format!("({winner_name})")).await;
    b.wait_text(&format!(r#"tr.payout[data-suit="{winner}"]"#), winner_name)
        .await;
    let shown = b.page_text().await;
    for token in [&ana, &bruno] {
        let (status, w) = api(&djego, Method::GET, "/api/v1/me/wallet", Some(token), None).await;
        assert_eq!(status, 200, "{w}");
        let id = w["player_id"].as_str().unwrap();
        assert!(
            !shown.contains(id) && !shown.contains(&id[id.len() - 6..]),
            "the page shows {id}:\n{shown}"
        );
    }
    assert!(b.find("#new-round").await.is_enabled().await.unwrap());

    // Money moved exactly as the result says: spiga and copa into the pot, the
    // corte from the Prima suit's owner, the pot to the winner, the side bet settled.
    let (status, bets) = api(
        &djego,
        Method::GET,
        &format!("/api/v1/rounds/{round}/bets"),
        Some(&ana),
        None,
    )
    .await;
    assert_eq!(status, 200, "{bets}");
    let bet = &bets.as_array().unwrap()[0];
    assert!(bet["status"] == "won" || bet["status"] == "lost", "{bet}");
    for (token, suit, side_bet) in [
        (&ana, "crowns", cents(bet["returned"].as_str().unwrap()) - 500),
        (&bruno, "swords", 0),
    ] {
        let c = result["contributions"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["suit"] == suit)
            .unwrap();
        let paid_in = (c["spiga_units"].as_i64().unwrap() + c["copa_units"].as_i64().unwrap()) * 100;
        let corte = if result["corte_payer"] == suit { 100 } else { 0 };
        let won = if winner == suit { cents(paid) } else { 0 };
        assert_eq!(
            balance(&djego, token).await,
            100_000 - paid_in - corte + won + side_bet,
            "{suit}'s wallet after {view}"
        );
    }

    b.run_js("document.getElementById('round-panel').scrollIntoView(); return true;")
        .await;
    b.screenshot("dealer-settled").await;
    b.close().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_round_in_progress_when_the_page_loads_is_resumed() {
    let djego = Djego::start();
    let driver = Driver::start();

    // Before the page is open: the dealer signs in at the table, opens a
    // round, two players sit, and the dealer closes and deals (all through the API).
    let (dealer, _, view) = open_prima_round(&djego).await;
    let ana = login(&djego, "ana", demo::PASSWORD_PLAYER).await;
    let bruno = login(&djego, "bruno", demo::PASSWORD_PLAYER).await;
    let round = view["id"].as_str().unwrap().to_string();
    for (token, suit) in [(&ana, "locks"), (&bruno, "cups")] {
        let (status, body) = api(
            &djego,
            Method::POST,
            &format!("/api/v1/rounds/{round}/seats"),
            Some(token),
            Some(json!({ "suit": suit })),
        )
        .await;
        assert_eq!(status, 201, "{body}");
    }
    let (status, body) = api(
        &djego,
        Method::POST,
        &format!("/api/v1/rounds/{round}/close"),
        Some(&dealer),
        None,
    )
    .await;
    assert_eq!(status, 200, "{body}");
    let (status, dealt) = api(
        &djego,
        Method::POST,
        &format!("/api/v1/rounds/{round}/deal"),
        Some(&dealer),
        None,
    )
    .await;
    assert_eq!(status, 200, "{dealt}");

    // The page opens straight at the table the dealer deals at, on that round.
    let b = driver.browser(1024, 768).await;
    b.sign_in(&djego, "dealer", demo::PASSWORD_DEALER, "/dealer").await;
    b.wait_text("#dealer-now", "are dealing here").await;
    b.wait_text("#round-title", "Round 1").await;
    b.wait_text("#live-status", "Live").await;

    if dealt["status"] == "copa" {
        // The copa is pending: the page says whose turn it is and what it costs.
        let turn = &dealt["copa_turn"];
        let suit = turn["suit"].as_str().unwrap();
        b.wait_text("#copa-turn", &suit_name(suit)).await;
        b.wait_text("#copa-turn", turn["copa"].as_str().unwrap()).await;
        b.wait_text("#copa-pay", &format!("{} pays", suit_name(suit))).await;
        // The player in turn is named by username.
        b.wait_text("#copa-turn", if suit == "locks" { "(ana)" } else { "(bruno)" })
            .await;
        // The player in turn folds on their own device: the page follows live.
        let token = if suit == "locks" { &ana } else { &bruno };
        let (status, body) = api(
            &djego,
            Method::POST,
            &format!("/api/v1/rounds/{round}/copa"),
            Some(token),
            Some(json!({ "decision": "fold" })),
        )
        .await;
        assert_eq!(status, 200, "{body}");
        b.wait_text(&format!(r#"tr.seat[data-suit="{suit}"]"#), "folded").await;
    }
    // Two seats: after the deal and at most one fold, the main game is decided.
    b.wait_text("#round-status", "settle to pay").await;

    // A reload on the way changes nothing: the same round comes back.
    b.open(&djego.url("/dealer")).await;
    b.wait_text("#round-status", "settle to pay").await;
    b.click("#settle").await;
    b.wait_text("#round-status", "Settled").await;
    let (status, view) = api(
        &djego,
        Method::GET,
        &format!("/api/v1/rounds/{round}"),
        Some(&dealer),
        None,
    )
    .await;
    assert_eq!(status, 200, "{view}");
    let winner = view["result"]["result"]["winner"].as_str().unwrap();
    b.wait_text("#result-winner", &format!("{} wins", suit_name(winner)))
        .await;
    b.wait_text("#winner-paid", view["result"]["winner_paid"].as_str().unwrap())
        .await;

    // And the next round opens from the result.
    b.click("#new-round").await;
    b.wait_text("#round-title", "Round 2").await;
    b.wait_text("#round-status", "Betting is open").await;
    b.close().await;
}
