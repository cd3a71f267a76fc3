//! A confidence bet between players on their phones (390×844): carla, a backer, offers ana a
//! Prima on ana's suit from the player app; ana takes it on hers; the dealer's terminal lists
//! it; the round is dealt and settled through the API, and both phones say what the bet did.

use crate::accessibility::{assert_none, audit};
use crate::harness::{api, cents, demo, login, open_prima_round, Browser, Djego, Driver};
use reqwest::Method;
use serde_json::{json, Value};

const PHONE: (u32, u32) = (390, 844);
const TABLE: &str = "Prima Carta 1";

async fn call(djego: &Djego, method: Method, path: &str, token: &str, body: Option<Value>) -> Value {
    let (status, answer) = api(djego, method, path, Some(token), body).await;
    assert!((200..300).contains(&status), "{path}: {status} {answer}");
    answer
}

async fn open_table(b: &Browser, round: &str) {
    b.click(&format!(
        r#"article.table-card[data-table-name="{TABLE}"] button.open-table"#
    ))
    .await;
    b.wait_text("#live-status", "Live").await;
    b.wait_js(
        &format!("return document.getElementById('prima-round').dataset.roundId === {round:?};"),
        "the round on the player's page",
    )
    .await;
}

async fn bet_shows(b: &Browser, status: &str) {
    b.wait_js(
        &format!("return !!document.querySelector('#confidence-list li[data-status={status:?}]');"),
        &format!("a bet {status} in the player's list"),
    )
    .await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_backer_offers_a_prima_and_the_seated_player_takes_it_on_their_phones() {
    let djego = Djego::start();
    djego.operator_creates("carla", "player", "carla-pass-1234");
    let driver = Driver::start();
    let cashier = login(&djego, "cashier", demo::PASSWORD_CASHIER).await;
    let carla = login(&djego, "carla", "carla-pass-1234").await;
    let carla_id = call(&djego, Method::GET, "/api/v1/me", &carla, None).await["id"]
        .as_str()
        .unwrap()
        .to_owned();
    call(
        &djego,
        Method::POST,
        "/api/v1/cage/deposits",
        &cashier,
        Some(json!({"player_id": carla_id, "amount": "100.00", "location": "Window 1"})),
    )
    .await;
    let (dealer, _table, round) = open_prima_round(&djego).await;
    let id = round["id"].as_str().unwrap().to_owned();
    let ana = login(&djego, "ana", demo::PASSWORD_PLAYER).await;
    let bruno = login(&djego, "bruno", demo::PASSWORD_PLAYER).await;
    for (token, suit) in [(&ana, "crowns"), (&bruno, "swords")] {
        call(
            &djego,
            Method::POST,
            &format!("/api/v1/rounds/{id}/seats"),
            token,
            Some(json!({"suit": suit})),
        )
        .await;
    }

    let (ana_b, carla_b, dealer_b) = tokio::join!(
        driver.browser(PHONE.0, PHONE.1),
        driver.browser(PHONE.0, PHONE.1),
        driver.browser(1024, 768)
    );
    tokio::join!(
        ana_b.sign_in(&djego, "ana", demo::PASSWORD_PLAYER, "/player"),
        carla_b.sign_in(&djego, "carla", "carla-pass-1234", "/player"),
        dealer_b.sign_in(&djego, "dealer", demo::PASSWORD_DEALER, "/dealer"),
    );
    open_table(&ana_b, &id).await;
    open_table(&carla_b, &id).await;
    // The dealer is in the box at the table, so the terminal opens at it.
    dealer_b.wait_text("#live-status", "Live").await;

    // carla offers a Prima on Crowns at 4:1 (her 5.00 against 20.00), void on the 1.
    carla_b.wait_text("#confidence-title", "Bets between players").await;
    carla_b
        .wait_text(
            "#confidence-terms",
            "The house takes 5% of the winner's gain, at most 25.00 a bet.",
        )
        .await;
    carla_b.choose("#confidence-kind", "Prima").await;
    carla_b.choose("#confidence-suit", "Crowns").await;
    carla_b.wait_text("#confidence-side-note", "You back the bet").await;
    carla_b.type_into("#confidence-stake", "5.00").await;
    carla_b.type_into("#confidence-taker-stake", "20.00").await;
    carla_b.click("#confidence-button").await;
    carla_b
        .wait_text("#confidence-placed", "Offered: Crowns gets the first card")
        .await;
    bet_shows(&carla_b, "offered").await;
    carla_b.wait_text("#wallet-balance", "95.00").await;
    let mut access = Vec::new();
    audit(&carla_b, "carla, a bet offered", &mut access).await;

    // ana sees it made to her, in words, and takes it.
    bet_shows(&ana_b, "offered").await;
    let text = ana_b.text("#confidence-list").await;
    assert!(
        text.contains("Crowns gets the first card (void if it is their 1)"),
        "{text}"
    );
    assert!(text.contains("Offered by a backer to you"), "{text}");
    assert!(
        text.contains("Taking it stakes 20.00 that it does not happen, to win 5.00"),
        "{text}"
    );
    assert!(!text.contains(&carla_id), "no account id on the page: {text}");
    audit(&ana_b, "ana, a bet offered to her", &mut access).await;
    ana_b.click("#confidence-list button[data-action=\"accept\"]").await;
    bet_shows(&ana_b, "accepted").await;
    bet_shows(&carla_b, "accepted").await;
    let text = carla_b.text("#confidence-list").await;
    assert!(text.contains("taken by the Crowns player"), "{text}");
    assert!(text.contains("You stake 5.00 that it happens, to win 20.00"), "{text}");

    // The dealer's terminal lists it with the seated player's side and the stakes.
    dealer_b
        .wait_js(
            "return !!document.querySelector('#confidence-table tr.confidence-bet[data-status=\"accepted\"]');",
            "the bet on the dealer's terminal",
        )
        .await;
    let row = dealer_b.text("#confidence-table").await;
    assert!(
        row.contains("Crowns gets the first card") && row.contains("a backer 5.00") && row.contains("20.00"),
        "{row}"
    );
    audit(&dealer_b, "dealer, a bet between players", &mut access).await;

    // Dealt, decided and settled through the API.
    for action in ["close", "deal"] {
        call(
            &djego,
            Method::POST,
            &format!("/api/v1/rounds/{id}/{action}"),
            &dealer,
            Some(json!({})),
        )
        .await;
    }
    loop {
        let view = call(&djego, Method::GET, &format!("/api/v1/rounds/{id}"), &dealer, None).await;
        if view["status"] != "copa" {
            break;
        }
        let suit = view["copa_turn"]["suit"].clone();
        call(
            &djego,
            Method::POST,
            &format!("/api/v1/rounds/{id}/copa"),
            &dealer,
            Some(json!({"decision": "pay", "suit": suit})),
        )
        .await;
    }
    call(
        &djego,
        Method::POST,
        &format!("/api/v1/rounds/{id}/settle"),
        &dealer,
        Some(json!({})),
    )
    .await;
    let bets = call(
        &djego,
        Method::GET,
        &format!("/api/v1/rounds/{id}/confidence-bets"),
        &carla,
        None,
    )
    .await;
    let bet = &bets[0];
    let status = bet["status"].as_str().unwrap();
    bet_shows(&carla_b, status).await;
    bet_shows(&ana_b, status).await;
    let carla_wallet = call(&djego, Method::GET, "/api/v1/me/wallet", &carla, None).await["balance"]
        .as_str()
        .unwrap()
        .to_owned();
    carla_b.wait_text("#wallet-balance", &carla_wallet).await;
    match status {
        "settled" => {
            let net = cents(&carla_wallet) - 10_000;
            let words = if bet["winner_side"] == "for" {
                "You won:"
            } else {
                "You lost your 5.00 stake."
            };
            carla_b.wait_text("#confidence-list", words).await;
            let sign = if net >= 0 { "+" } else { "−" };
            carla_b
                .wait_text(
                    "#confidence-result",
                    &format!(
                        "Your bets between players: {sign}{}.{:02} net.",
                        net.abs() / 100,
                        net.abs() % 100
                    ),
                )
                .await;
        }
        "void" => {
            assert_eq!(carla_wallet, "100.00");
            carla_b.wait_text("#confidence-list", "void under its terms").await;
        }
        other => panic!("the bet ended {other}"),
    }
    assert_none(&access);
    for b in [ana_b, carla_b, dealer_b] {
        b.close().await;
    }
}
