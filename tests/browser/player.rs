//! The player app (web/player.html) and the public verifier (web/verify.html)
//! on a phone-sized window: ana plays a Lobo round to the end and verifies its
//! shuffle in the browser; anyone verifies a transcript file (and sees a
//! tampered copy fail) without an account; a side bet the wallet cannot cover
//! is refused with a sentence and moves nothing; the wallet's history speaks in
//! words and never names a cashier's account.

use crate::harness::{
    api, cents, dealer_signed_in_at, demo, login, open_prima_round, settled_lobo_round, table_id, Djego, Driver,
    STEP_TIMEOUT_MS,
};
use reqwest::Method;
use serde_json::{json, Value};
use std::time::{Duration, Instant};

const PHONE: (u32, u32) = (390, 844);

/// The caller's wallet as the API gives it: (player id, balance).
async fn wallet(djego: &Djego, token: &str) -> (String, String) {
    let (status, w) = api(djego, Method::GET, "/api/v1/me/wallet", Some(token), None).await;
    assert_eq!(status, 200, "{w}");
    (
        w["player_id"].as_str().unwrap().to_string(),
        w["balance"].as_str().unwrap().to_string(),
    )
}

/// The Lobo round is over (its result shown).
const LOBO_OVER: &str = "return !document.getElementById('lobo-result').hidden";

#[tokio::test(flavor = "multi_thread")]
async fn ana_plays_lobo_to_the_end_and_verifies_the_shuffle_in_the_browser() {
    let djego = Djego::start();
    let driver = Driver::start();
    let b = driver.browser(PHONE.0, PHONE.1).await;
    b.sign_in(&djego, "ana", demo::PASSWORD_PLAYER, "/player").await;

    // The wallet on top, with its history.
    b.wait_text("#wallet-balance", "1000.00").await;
    b.click("#wallet-history-toggle").await;
    b.wait_text("#wallet-history-table", "Deposit at the cage").await;
    b.screenshot("player-wallet").await;
    b.click("#wallet-history-toggle").await;

    // Lobo 1: the fee and the escrowed loss cap are shown before starting.
    b.click(r#"article.table-card[data-table-name="Lobo 1"] button.open-table"#)
        .await;
    b.find("#lobo-start").await;
    let fee = djego::games::lobo::default_house_rule(djego::games::lobo::Mode::Easy).fee_per_round_hundredths;
    b.wait_text("#lobo-fee", &format!("{}.{:02}", fee / 100, fee % 100))
        .await;
    b.wait_text("#lobo-escrow", "40.00").await;
    b.click("#lobo-start").await;
    b.find("#lobo-round").await;
    if b.run_js(LOBO_OVER).await != json!(true) {
        // The player is told when the round folds by itself without a play.
        b.wait_text("#lobo-deadline", "folds for you if you make no play by")
            .await;
    }

    // Follow the hint for a few plays (each one outlines its cards), then fold if the round goes on.
    for turn in 0..4 {
        if b.run_js(LOBO_OVER).await == json!(true) {
            break;
        }
        let plays = b
            .run_js("return document.getElementById('lobo-round').dataset.plays")
            .await;
        b.click("#lobo-hint").await;
        b.wait_text("#lobo-hint-text", "Hint:").await;
        let kind = b
            .run_js("return document.getElementById('lobo-hint-text').dataset.kind")
            .await;
        if kind == json!("fold") {
            b.click("#lobo-fold").await;
        } else {
            let hinted = b
                .run_js("return document.querySelectorAll('button.card.hinted').length")
                .await;
            assert!(hinted.as_u64().unwrap() >= 2, "the hint outlines its cards");
            b.click("#lobo-hint-apply").await;
            let pressed = b
                .run_js("return document.querySelectorAll('button.card[aria-pressed=\"true\"]').length")
                .await;
            assert_eq!(pressed, hinted, "picking the hint presses exactly its cards");
            if turn == 0 {
                b.screenshot("player-lobo").await;
            }
            b.click("#lobo-play").await;
        }
        let moved = format!(
            "return document.getElementById('lobo-round').dataset.plays !== {plays} || !document.getElementById('lobo-result').hidden"
        );
        b.wait_js(&moved, "the play to land").await;
    }
    if b.run_js(LOBO_OVER).await != json!(true) {
        b.wait_text("#lobo-fold", "Fold (pay").await;
        b.click("#lobo-fold").await;
    }
    b.wait_js(LOBO_OVER, "the Lobo result").await;
    b.wait_text("#lobo-outcome", "You").await;

    // The wallet shows what the API says, and the round's net moved it.
    let ana = login(&djego, "ana", demo::PASSWORD_PLAYER).await;
    let (_, balance) = wallet(&djego, &ana).await;
    let deadline = Instant::now() + Duration::from_millis(STEP_TIMEOUT_MS);
    while b.text("#wallet-balance").await != balance {
        assert!(Instant::now() < deadline, "the wallet never showed {balance}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let net = b.text("#lobo-net").await;
    assert_eq!(cents(&balance), 100_000 + cents(&net), "1000.00 {net} = {balance}");
    assert_ne!(balance, "1000.00", "the house fee at least was charged");

    // Verify in the browser: ✓ with the checks, and the transcript to download.
    b.click("#lobo-verify").await;
    b.wait_text("#lobo-verify-result", "✓ The shuffle verifies").await;
    let checks = b.text("#lobo-verify-result").await;
    for check in ["algorithm", "commitment", "client_seed", "deck"] {
        assert!(checks.contains(check), "the {check} check is listed: {checks}");
    }
    assert!(!checks.contains('✗'), "{checks}");
    let href = b.run_js("return document.getElementById('lobo-download').href").await;
    assert!(href.as_str().unwrap().starts_with("blob:"), "{href}");
    b.screenshot("player-verified").await;

    // A Peg Leg round ana gave a seed to is among her rounds, named as Peg Leg, and resumed from
    // there; the Lobo round is among the recent ones.
    let (dealer, peg_leg) = dealer_signed_in_at(&djego, "Peg Leg 1").await;
    let (status, round) = api(
        &djego,
        Method::POST,
        &format!("/api/v1/tables/{peg_leg}/peg-leg-rounds"),
        Some(&dealer),
        None,
    )
    .await;
    assert_eq!(status, 201, "{round}");
    let round_id = round["id"].as_str().unwrap();
    let (status, body) = api(
        &djego,
        Method::POST,
        &format!("/api/v1/peg-leg-rounds/{round_id}/client-seed"),
        Some(&ana),
        Some(json!({ "client_seed": "ana's seed" })),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    b.click("#tab-rounds").await;
    b.wait_text("#open-rounds", "Peg Leg 1 — Peg Leg round 1: Taking client seeds")
        .await;
    b.wait_text("#recent-rounds", "Lobo 1 — Lobo round").await;
    b.click(&format!(
        r#"#open-rounds button.resume-round[data-round-id="{round_id}"]"#
    ))
    .await;
    b.wait_data("#peg-round", "round-id", round_id).await;
    b.wait_data("#peg-round", "status", "seeding").await;
    b.close().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn anyone_verifies_a_transcript_file_without_an_account_and_a_tampered_copy_fails() {
    let djego = Djego::start();
    let driver = Driver::start();

    // A settled Lobo round's recall, saved as a file, and a copy with two cards swapped.
    let ana = login(&djego, "ana", demo::PASSWORD_PLAYER).await;
    let lobo = table_id(&djego, &ana, "Lobo 1").await;
    let (status, round) = api(
        &djego,
        Method::POST,
        &format!("/api/v1/tables/{lobo}/lobo-rounds"),
        Some(&ana),
        Some(json!({ "unit": "1.00", "client_seed": "verify-page" })),
    )
    .await;
    assert_eq!(status, 201, "{round}");
    let id = round["id"].as_str().unwrap().to_string();
    if round["status"] == "in_play" {
        let (status, folded) = api(
            &djego,
            Method::POST,
            &format!("/api/v1/lobo-rounds/{id}/fold"),
            Some(&ana),
            Some(json!({ "expected_plays": 0 })),
        )
        .await;
        assert_eq!(status, 200, "{folded}");
    }
    let (status, recall) = api(
        &djego,
        Method::GET,
        &format!("/api/v1/lobo-rounds/{id}/recall"),
        Some(&ana),
        None,
    )
    .await;
    assert_eq!(status, 200, "{recall}");
    let dir = tempfile::tempdir().unwrap();
    let good = dir.path().join("round.json");
    std::fs::write(&good, serde_json::to_string_pretty(&recall).unwrap()).unwrap();
    let mut tampered = recall.clone();
    let deck = tampered["transcript"]["shuffle"]["deck"]
        .as_array_mut()
        .expect("the transcript's deck");
    deck.swap(3, 4);
    let bad = dir.path().join("tampered.json");
    std::fs::write(&bad, serde_json::to_string_pretty(&tampered).unwrap()).unwrap();

    // No sign-in: /verify straight away.
    let b = driver.browser(PHONE.0, PHONE.1).await;
    b.open(&djego.url("/verify")).await;
    b.find("#transcript-file")
        .await
        .send_keys(good.to_str().unwrap())
        .await
        .unwrap();
    b.wait_text("#verify-result", "✓ The shuffle verifies").await;
    let shown = b.text("#verify-result").await;
    assert!(shown.contains("deck") && !shown.contains('✗'), "{shown}");
    assert_eq!(
        b.run_js("return sessionStorage.getItem('djego.session')").await,
        Value::Null
    );
    assert_eq!(
        b.client.current_url().await.unwrap().path(),
        "/verify",
        "no trip to the sign-in page"
    );
    b.screenshot("verify-page").await;

    b.click("#verify-clear").await;
    b.find("#transcript-file")
        .await
        .send_keys(bad.to_str().unwrap())
        .await
        .unwrap();
    b.wait_text("#verify-result", "✗ The shuffle does not verify").await;
    let shown = b.text("#verify-result").await;
    assert!(
        shown.contains("First difference") && shown.contains("at position 3"),
        "{shown}"
    );
    b.close().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_side_bet_larger_than_the_wallet_is_refused_and_moves_nothing() {
    let djego = Djego::start();
    let driver = Driver::start();

    // The dealer opens a Prima Carta round; the cashier pays ana out down to 50.00.
    let (_, _, round) = open_prima_round(&djego).await;
    let round_id = round["id"].as_str().unwrap().to_string();
    let ana = login(&djego, "ana", demo::PASSWORD_PLAYER).await;
    let (ana_id, _) = wallet(&djego, &ana).await;
    let cashier = login(&djego, "cashier", demo::PASSWORD_CASHIER).await;
    let (status, paid) = api(
        &djego,
        Method::POST,
        "/api/v1/cage/withdrawals",
        Some(&cashier),
        Some(json!({ "player_id": ana_id, "amount": "950.00" })),
    )
    .await;
    assert_eq!(status, 201, "{paid}");

    let b = driver.browser(PHONE.0, PHONE.1).await;
    b.sign_in(&djego, "ana", demo::PASSWORD_PLAYER, "/player").await;
    b.wait_text("#wallet-balance", "50.00").await;
    b.click(r#"article.table-card[data-table-name="Prima Carta 1"] button.open-table"#)
        .await;
    b.wait_text("#live-status", "Live").await;
    b.wait_text("#prima-round-info", "Betting open").await;
    b.find("#bet-panel").await;
    b.choose("#bet-kind", "Conto Alto").await;
    b.type_into("#bet-amount", "60.00").await;
    b.wait_text("#bet-pays", "6.75:1").await;
    b.click("#bet-button").await;
    b.wait_text(
        "#bet-alert",
        "Not enough money in the wallet for that: it holds 50.00 and this needs 60.00.",
    )
    .await;

    // Nothing moved: the page and the API agree on 50.00, and ana has no bet on the round.
    assert_eq!(b.text("#wallet-balance").await, "50.00");
    assert_eq!(wallet(&djego, &ana).await.1, "50.00");
    let (status, bets) = api(
        &djego,
        Method::GET,
        &format!("/api/v1/rounds/{round_id}/bets"),
        Some(&ana),
        None,
    )
    .await;
    assert_eq!(status, 200, "{bets}");
    assert_eq!(bets, json!([]));
    b.run_js("document.getElementById('bet-panel').scrollIntoView(); return true")
        .await;
    b.screenshot("player-prima-carta").await;
    b.close().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn the_wallet_history_speaks_in_words_and_never_names_the_cashier() {
    let djego = Djego::start();
    let driver = Driver::start();
    // The cashier deposits without a memo (djego writes one naming the cashier's account),
    // and ana plays a Lobo round: its house charge is a transfer of its own.
    let ana = login(&djego, "ana", demo::PASSWORD_PLAYER).await;
    let (ana_id, _) = wallet(&djego, &ana).await;
    let cashier = login(&djego, "cashier", demo::PASSWORD_CASHIER).await;
    let (status, receipt) = api(
        &djego,
        Method::POST,
        "/api/v1/cage/deposits",
        Some(&cashier),
        Some(json!({ "player_id": ana_id, "amount": "25.00" })),
    )
    .await;
    assert_eq!(status, 201, "{receipt}");
    let memo = receipt["transfer"]["memo"].as_str().unwrap_or_default().to_string();
    let cashier_id = memo.rsplit(' ').next().unwrap_or_default().to_string();
    assert!(
        cashier_id.len() > 20 && memo.starts_with("deposit by "),
        "the memo names the cashier: {memo}"
    );
    settled_lobo_round(&djego, &ana).await;

    let b = driver.browser(PHONE.0, PHONE.1).await;
    b.sign_in(&djego, "ana", demo::PASSWORD_PLAYER, "/player").await;
    b.click("#wallet-history-toggle").await;
    b.wait_text("#wallet-history-table", "Deposit at the cage").await;
    b.wait_text("#wallet-history-table", "Lobo house charge").await;
    b.wait_text("#wallet-history-table", "+25.00").await;
    let shown = b.text("#wallet-history-table").await;
    for code in [
        cashier_id.as_str(),
        &cashier_id[..8],
        "deposit by",
        "fee=",
        "lobo_fee",
        "lobo_escrow",
        "undefined",
    ] {
        assert!(!shown.contains(code), "the wallet shows {code:?}:\n{shown}");
    }
    b.screenshot("player-wallet-words").await;
    b.close().await;
}
