//! The house's Fuerza on the phones (390×844) and the dealer's terminal: at a Jasper table,
//! three players seated and two copas paid with a third to decide (set up through the API,
//! round after round until one gets there), carla, a backer, reads the house's prices in words
//! and backs a priced player from the player app; the undecided player's phone offers no bet;
//! the dealer's terminal lists the bet; the third decides, and carla's screen shows the new
//! quote; the dealer settles, and carla's screen says what the bet did.

use crate::accessibility::{assert_none, audit};
use crate::harness::{api, cents, dealer_signed_in_at, demo, login, Browser, Djego, Driver};
use reqwest::Method;
use serde_json::{json, Value};

const PHONE: (u32, u32) = (390, 844);
const TABLE: &str = "Jasper 1";
const SUITS: [&str; 3] = ["crowns", "fruit", "cups"];

async fn call(djego: &Djego, method: Method, path: &str, token: &str, body: Option<Value>) -> Value {
    let (status, answer) = api(djego, method, path, Some(token), body).await;
    assert!((200..300).contains(&status), "{path}: {status} {answer}");
    answer
}

fn suit_name(suit: &str) -> &'static str {
    match suit {
        "crowns" => "Crowns",
        "fruit" => "Fruit",
        "cups" => "Cups",
        other => panic!("no suit {other} here"),
    }
}

/// The suit as the app labels it: its symbol and its name.
fn suit_label(suit: &str) -> String {
    let symbol = match suit {
        "crowns" => "♛",
        "fruit" => "❀",
        "cups" => "☕",
        other => panic!("no suit {other} here"),
    };
    format!("{symbol} {}", suit_name(suit))
}

/// A Jasper Prima Carta table, proposed by the pit boss and approved by a second one (whom the
/// operator made), with the demo dealer assigned and in the box: (the dealer's token, table id).
async fn jasper_table(djego: &Djego) -> (String, String) {
    let admin = login(djego, demo::PIT_BOSS, demo::PASSWORD_PIT_BOSS).await;
    let (status, proposed) = api(
        djego,
        Method::POST,
        "/api/v1/tables",
        Some(&admin),
        Some(json!({ "name": TABLE, "config": {
            "game": "prima_carta", "variant": "jasper", "unit": "1.00", "seat_fee": null, "corte": true,
            "cobre": "carry", "min_bet": "1.00", "max_bet": "100.00", "max_exposure_per_round": "5000.00",
            "strategy_advice": true } })),
    )
    .await;
    assert_eq!(status, 202, "{proposed}");
    djego.operator_creates("second-boss", "pitboss", "second-boss-pass");
    let second = login(djego, "second-boss", "second-boss-pass").await;
    let applied = call(
        djego,
        Method::POST,
        &format!("/api/v1/proposals/{}/approve", proposed["id"].as_str().unwrap()),
        &second,
        Some(json!({})),
    )
    .await;
    let table = applied["result"]["id"].as_str().unwrap().to_owned();
    let (status, signed_in) = api(
        djego,
        Method::POST,
        "/api/v1/auth/login",
        None,
        Some(json!({ "username": "dealer", "password": demo::PASSWORD_DEALER })),
    )
    .await;
    assert_eq!(status, 200, "{signed_in}");
    let dealer_id = signed_in["user_id"].as_str().unwrap().to_owned();
    call(
        djego,
        Method::PUT,
        &format!("/api/v1/tables/{table}/dealers/{dealer_id}"),
        &admin,
        None,
    )
    .await;
    call(
        djego,
        Method::POST,
        &format!("/api/v1/tables/{table}/open"),
        &admin,
        None,
    )
    .await;
    let (dealer, id) = dealer_signed_in_at(djego, TABLE).await;
    assert_eq!(id, table);
    (dealer, table)
}

/// Plays a round the test does not use to its end: every copa left paid, then settled.
async fn finish(djego: &Djego, dealer: &str, id: &str) {
    loop {
        let view = call(djego, Method::GET, &format!("/api/v1/rounds/{id}"), dealer, None).await;
        match view["status"].as_str().unwrap() {
            "copa" => {
                let suit = view["copa_turn"]["suit"].clone();
                call(
                    djego,
                    Method::POST,
                    &format!("/api/v1/rounds/{id}/copa"),
                    dealer,
                    Some(json!({"decision": "pay", "suit": suit})),
                )
                .await;
            }
            "in_play" | "finished" => {
                call(
                    djego,
                    Method::POST,
                    &format!("/api/v1/rounds/{id}/settle"),
                    dealer,
                    Some(json!({})),
                )
                .await;
            }
            _ => return,
        }
    }
}

/// A player pays their copa through the API: the round's view after it.
async fn pay(djego: &Djego, token: &str, id: &str) -> Value {
    call(
        djego,
        Method::POST,
        &format!("/api/v1/rounds/{id}/copa"),
        token,
        Some(json!({"decision": "pay"})),
    )
    .await
}

#[tokio::test(flavor = "multi_thread")]
async fn a_backer_backs_a_seated_player_with_the_house_at_the_quoted_price_on_their_phone() {
    let djego = Djego::start();
    djego.operator_creates("carla", "player", "carla-pass-1234");
    djego.operator_creates("dora", "player", "dora-pass-1234");
    let driver = Driver::start();
    let cashier = login(&djego, "cashier", demo::PASSWORD_CASHIER).await;
    let carla = login(&djego, "carla", "carla-pass-1234").await;
    let dora = login(&djego, "dora", "dora-pass-1234").await;
    let mut carla_id = String::new();
    for token in [&carla, &dora] {
        let id = call(&djego, Method::GET, "/api/v1/me", token, None).await["id"]
            .as_str()
            .unwrap()
            .to_owned();
        call(
            &djego,
            Method::POST,
            "/api/v1/cage/deposits",
            &cashier,
            Some(json!({"player_id": id, "amount": "200.00", "location": "Window 1"})),
        )
        .await;
        if token == &carla {
            carla_id = id;
        }
    }
    let ana = login(&djego, "ana", demo::PASSWORD_PLAYER).await;
    let bruno = login(&djego, "bruno", demo::PASSWORD_PLAYER).await;
    // Who sits where: (suit, username, password, token).
    let seated = [
        (SUITS[0], "ana", demo::PASSWORD_PLAYER, ana.clone()),
        (SUITS[1], "bruno", demo::PASSWORD_PLAYER, bruno.clone()),
        (SUITS[2], "dora", "dora-pass-1234", dora.clone()),
    ];
    let of = |suit: &str| seated.iter().find(|s| s.0 == suit).unwrap().clone();
    let (dealer, table) = jasper_table(&djego).await;

    // Rounds through the API until one has two copas paid, a third to decide and a price.
    let mut found = None;
    for _attempt in 0..25 {
        let round = call(
            &djego,
            Method::POST,
            &format!("/api/v1/tables/{table}/rounds"),
            &dealer,
            None,
        )
        .await;
        let id = round["id"].as_str().unwrap().to_owned();
        for (suit, _, _, token) in &seated {
            call(
                &djego,
                Method::POST,
                &format!("/api/v1/rounds/{id}/seats"),
                token,
                Some(json!({"suit": suit})),
            )
            .await;
        }
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
        let mut view = call(&djego, Method::GET, &format!("/api/v1/rounds/{id}"), &dealer, None).await;
        let mut paid = Vec::new();
        while view["status"] == "copa" && paid.len() < 2 {
            let suit = view["copa_turn"]["suit"].as_str().unwrap().to_owned();
            view = pay(&djego, &of(&suit).3, &id).await;
            paid.push(suit);
        }
        if view["status"] != "copa" || paid.len() < 2 {
            finish(&djego, &dealer, &id).await;
            continue;
        }
        let q = call(
            &djego,
            Method::GET,
            &format!("/api/v1/rounds/{id}/fuerza"),
            &carla,
            None,
        )
        .await;
        assert_eq!(q["version"], 2, "{q}");
        let priced = q["quotes"]
            .as_array()
            .unwrap()
            .iter()
            .find(|x| !x["price"].is_null())
            .map(|x| {
                (
                    x["suit"].as_str().unwrap().to_owned(),
                    x["price"].as_str().unwrap().to_owned(),
                )
            });
        let Some((suit, price)) = priced else {
            finish(&djego, &dealer, &id).await;
            continue;
        };
        let third = view["copa_turn"]["suit"].as_str().unwrap().to_owned();
        assert_eq!(q["undecided"], json!([third]), "{q}");
        found = Some((id, suit, price, third, q));
        break;
    }
    let (id, suit, price, third, q) =
        found.expect("no Jasper round of 25 reached two paid copas with a third to decide and a price");
    let third_player = of(&third);

    let (carla_b, third_b, dealer_b) = tokio::join!(
        driver.browser(PHONE.0, PHONE.1),
        driver.browser(PHONE.0, PHONE.1),
        driver.browser(1024, 768)
    );
    tokio::join!(
        carla_b.sign_in(&djego, "carla", "carla-pass-1234", "/player"),
        third_b.sign_in(&djego, third_player.1, third_player.2, "/player"),
        dealer_b.sign_in(&djego, "dealer", demo::PASSWORD_DEALER, "/dealer"),
    );
    open_table(&carla_b, &id).await;
    open_table(&third_b, &id).await;
    // The dealer is in the box at the Jasper table, so the terminal opens at it.
    dealer_b.wait_text("#live-status", "Live").await;

    // carla reads the prices in words: each paid player by suit, a percentage, a price.
    carla_b.wait_text("#fuerza-title", "House Fuerza").await;
    carla_b.wait_data("#fuerza-version", "version", "2").await;
    carla_b
        .wait_text("#fuerza-version", "Prices after 2 copa decisions")
        .await;
    carla_b
        .wait_text("#fuerza-version", &format!("{} still has to decide", suit_name(&third)))
        .await;
    carla_b.wait_text("#fuerza-note", "counts them as folding").await;
    let quotes = carla_b
        .wait_text("#fuerza-quotes", &format!("pays {price} for 1"))
        .await;
    for x in q["quotes"].as_array().unwrap() {
        let label = suit_label(x["suit"].as_str().unwrap());
        assert!(quotes.contains(&format!("The {label} player")), "{quotes}");
    }
    assert!(quotes.contains("% to win"), "{quotes}");
    assert!(
        !quotes.contains(&carla_id) && !quotes.contains(&id),
        "no ids on the page: {quotes}"
    );
    let mut access = Vec::new();
    audit(&carla_b, "carla, the house's Fuerza prices", &mut access).await;

    // The player still to decide is offered no bet, and told why.
    third_b.wait_text("#fuerza-note", "Decide your own copa first").await;
    assert!(
        !third_b.is_shown("#fuerza-quotes button.fuerza-back").await,
        "a bet offered to the player still to decide"
    );
    audit(&third_b, "the undecided player, Fuerza prices", &mut access).await;

    // carla backs the priced player with 10.00 at the price shown.
    carla_b.type_into("#fuerza-stake", "10.00").await;
    carla_b
        .click(&format!(r#"#fuerza-quotes button.fuerza-back[data-suit="{suit}"]"#))
        .await;
    carla_b
        .wait_text(
            "#fuerza-placed",
            &format!("Backed the {} player: 10.00 at {price}", suit_label(&suit)),
        )
        .await;
    carla_b
        .wait_js(
            "return !!document.querySelector('#fuerza-mine-list li.fuerza-bet[data-status=\"open\"]');",
            "carla's open Fuerza bet listed",
        )
        .await;
    let mine = carla_b.text("#fuerza-mine-list").await;
    assert!(
        mine.contains(&format!(
            "{} player to win the pot: 10.00 at {price}",
            suit_label(&suit)
        )) && mine.contains("open"),
        "{mine}"
    );
    assert!(mine.contains("Placed on the prices after 2 copa decisions"), "{mine}");
    carla_b.wait_text("#wallet-balance", "190.00").await;
    audit(&carla_b, "carla, a Fuerza bet placed", &mut access).await;

    // The dealer's terminal lists it: the backer, the suit, the stake and the price.
    dealer_b
        .wait_js(
            "return !!document.querySelector('#fuerza-table tr.fuerza-bet[data-status=\"open\"]');",
            "the Fuerza bet on the dealer's terminal",
        )
        .await;
    let row = dealer_b.text("#fuerza-table").await;
    assert!(
        row.contains("a backer") && row.contains(suit_name(&suit)) && row.contains("10.00") && row.contains(&price),
        "{row}"
    );
    dealer_b
        .wait_text("#fuerza-quote-line", "Prices after 2 copa decisions")
        .await;
    audit(&dealer_b, "dealer, a Fuerza bet", &mut access).await;

    // carla backs again, but the third decides while her bet is on its way (the page's request is
    // held until then): the house refuses the stale quote, and her screen says the price moved
    // and shows the new quote.
    carla_b
        .run_js(
            "window.__held = new Promise((go) => { window.__release = go; });
             const real = window.fetch;
             window.fetch = async (url, init) => {
               if (String(url).endsWith('/fuerza-bets') && init && init.method === 'POST') {
                 window.__sent = true;
                 await window.__held;
                 window.fetch = real;
               }
               return real(url, init);
             };
             return true;",
        )
        .await;
    carla_b
        .click(&format!(r#"#fuerza-quotes button.fuerza-back[data-suit="{suit}"]"#))
        .await;
    carla_b
        .wait_js("return window.__sent === true;", "carla's second bet sent")
        .await;
    let view = pay(&djego, &third_player.3, &id).await;
    assert_eq!(view["status"], "in_play", "{view}");
    carla_b.run_js("window.__release(); return true;").await;
    carla_b
        .wait_text("#fuerza-alert", "The price moved: a copa decision changed the quote")
        .await;
    carla_b.wait_data("#fuerza-version", "version", "3").await;
    carla_b.wait_text("#wallet-balance", "190.00").await;
    let listed = carla_b
        .run_js("return document.querySelectorAll('#fuerza-mine-list li.fuerza-bet').length;")
        .await;
    assert_eq!(listed, json!(1), "the refused bet is not listed");
    carla_b
        .wait_text(
            "#fuerza-version",
            "Prices after 3 copa decisions: every copa is decided.",
        )
        .await;
    let q3 = call(
        &djego,
        Method::GET,
        &format!("/api/v1/rounds/{id}/fuerza"),
        &carla,
        None,
    )
    .await;
    if let Some(p3) = q3["quotes"]
        .as_array()
        .unwrap()
        .iter()
        .find_map(|x| x["price"].as_str())
    {
        carla_b.wait_text("#fuerza-quotes", &format!("pays {p3} for 1")).await;
    }
    dealer_b
        .wait_text("#fuerza-quote-line", "Prices after 3 copa decisions")
        .await;

    // The dealer settles; carla's screen says what the bet did, in words and money.
    call(
        &djego,
        Method::POST,
        &format!("/api/v1/rounds/{id}/settle"),
        &dealer,
        Some(json!({})),
    )
    .await;
    let mine_now = call(&djego, Method::GET, &format!("/api/v1/rounds/{id}"), &carla, None).await;
    let bet = mine_now["fuerza_bets"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["player_id"] == carla_id.as_str())
        .expect("carla's bet in her view")
        .clone();
    let status = bet["status"].as_str().unwrap();
    let returned = bet["returned"].as_str().unwrap();
    carla_b
        .wait_js(
            &format!("return !!document.querySelector('#fuerza-mine-list li.fuerza-bet[data-status={status:?}]');"),
            &format!("carla's Fuerza bet {status}"),
        )
        .await;
    match status {
        "won" => {
            assert_eq!(cents(returned), 10 * cents(&price), "{bet}");
            carla_b
                .wait_text("#fuerza-mine-list", &format!("won: {returned} came back to you."))
                .await;
        }
        "lost" => {
            assert_eq!(returned, "0.00", "{bet}");
            carla_b
                .wait_text("#fuerza-mine-list", "lost: the 10.00 stake went to the house.")
                .await;
        }
        other => panic!("the bet ended {other}"),
    }
    carla_b
        .wait_text(
            "#fuerza-result",
            &format!("Your Fuerza bets: 10.00 staked, {returned} came back."),
        )
        .await;
    carla_b.wait_text("#fuerza-version", "The round is settled").await;
    let wallet = call(&djego, Method::GET, "/api/v1/me/wallet", &carla, None).await["balance"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_eq!(cents(&wallet), 19_000 + cents(returned));
    carla_b.wait_text("#wallet-balance", &wallet).await;
    dealer_b
        .wait_js(
            &format!("return !!document.querySelector('#fuerza-table tr.fuerza-bet[data-status={status:?}]');"),
            "the settled Fuerza bet on the dealer's terminal",
        )
        .await;
    audit(&carla_b, "carla, a Fuerza bet settled", &mut access).await;
    assert_none(&access);
    for b in [carla_b, third_b, dealer_b] {
        b.close().await;
    }
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
