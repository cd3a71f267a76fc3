//! Peg Leg on the screens: the dealer deals a round card by card on the dealer
//! terminal (1024×768) while ana, on the player app on a phone (390×844), bets,
//! bets again at the new price after the next card and surrenders one bet, each
//! from their own page; the round is dealt to the end, the pages show what the
//! API and the ledger say, and the console lists the round and recalls it.
//! And every page names a Peg Leg table as Peg Leg, the console creates one and
//! voids a round of one in play.

use crate::accessibility::{assert_none, audit};
use crate::harness::{api, cents, demo, login, Browser, Djego, Driver};
use reqwest::Method;
use serde_json::{json, Value};

const PHONE: (u32, u32) = (390, 844);
const TABLE: &str = "Peg Leg 1";

/// A GET that must succeed.
async fn read(djego: &Djego, path: &str, token: &str) -> Value {
    let (status, body) = api(djego, Method::GET, path, Some(token), None).await;
    assert_eq!(status, 200, "GET {path}: {body}");
    body
}

fn money(c: i64) -> String {
    format!("{}{}.{:02}", if c < 0 { "-" } else { "" }, c.abs() / 100, c.abs() % 100)
}

/// The most likely count the round's quote offers: (count, multiplier).
fn likeliest_offered(view: &Value) -> (u64, String) {
    let counts = view["quote"]["counts"].as_array().expect("a quote in force");
    let best = counts
        .iter()
        .filter(|c| c["multiplier"].is_string())
        .max_by(|a, b| {
            a["probability"]
                .as_f64()
                .unwrap()
                .total_cmp(&b["probability"].as_f64().unwrap())
        })
        .expect("some count is offered");
    (
        best["count"].as_u64().unwrap(),
        best["multiplier"].as_str().unwrap().to_string(),
    )
}

/// Waits until the dealer's page shows `cards` cards dealt.
async fn dealer_dealt(b: &Browser, cards: usize) {
    b.wait_data("#peg-round-status", "cards-dealt", &cards.to_string())
        .await;
}

/// Waits until the player's page shows the round with `cards` cards dealt.
async fn player_sees(b: &Browser, round: &str, cards: usize) {
    b.wait_js(
        &format!(
            "const n = document.getElementById('peg-round'); \
             return n.dataset.roundId === {round:?} && n.dataset.cardsDealt === '{cards}';"
        ),
        &format!("the player's page to show card {cards}"),
    )
    .await;
}

/// Text shown anywhere on the page must not leak an unknown name or an account id.
async fn names_nothing_wrong(b: &Browser, what: &str, ids: &[&str]) {
    let text = b.page_text().await;
    assert!(!text.contains("undefined"), "{what} shows \"undefined\":\n{text}");
    for id in ids {
        assert!(!text.contains(id), "{what} shows the account id {id}:\n{text}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_dealer_deals_peg_leg_card_by_card_while_a_player_bets_rebets_and_surrenders() {
    let djego = Djego::start();
    let driver = Driver::start();
    let (dealer, ana_b) = tokio::join!(driver.browser(1024, 768), driver.browser(PHONE.0, PHONE.1));
    tokio::join!(
        dealer.sign_in(&djego, "dealer", demo::PASSWORD_DEALER, "/dealer"),
        ana_b.sign_in(&djego, "ana", demo::PASSWORD_PLAYER, "/player"),
    );
    let ana = login(&djego, "ana", demo::PASSWORD_PLAYER).await;
    let ana_id = read(&djego, "/api/v1/me/wallet", &ana).await["player_id"]
        .as_str()
        .unwrap()
        .to_string();
    let mut access = Vec::new();

    // The dealer picks the Peg Leg table, signs in at it and opens a round.
    let pick = format!(r#"button.table-pick[data-table-name="{TABLE}"]"#);
    dealer.find(&pick).await;
    dealer.click(&pick).await;
    dealer.wait_text("#live-status", "Live").await;
    dealer.wait_text("#table-info", "Peg Leg").await;
    dealer.click("#dealer-sign-in").await;
    dealer.wait_data("#dealer-now", "dealing", "me").await;
    dealer.click("#peg-open-round").await;
    dealer.wait_data("#peg-round-status", "status", "seeding").await;
    let round = dealer.data("#peg-round-status", "round-id").await;
    assert!(!round.is_empty(), "the dealer's page names the round");
    let view = read(&djego, &format!("/api/v1/peg-leg-rounds/{round}"), &ana).await;
    dealer
        .wait_text("#peg-commitment-full", view["commitment"].as_str().unwrap())
        .await;

    // ana opens the table on her phone, sees the round open and gives a client seed.
    ana_b.wait_text("#wallet-balance", "1000.00").await;
    ana_b
        .click(&format!(
            r#"article.table-card[data-table-name="{TABLE}"] button.open-table"#
        ))
        .await;
    ana_b.wait_text("#peg-live-status", "Live").await;
    ana_b.wait_data("#peg-round", "status", "seeding").await;
    ana_b.type_into("#peg-seed", "ana at the rail").await;
    ana_b.click("#peg-seed-button").await;
    ana_b.wait_text("#peg-seed-given", "Your seed is in").await;

    // The first card: the key suit, its count and the prices show on both pages.
    dealer.click("#peg-next-card").await;
    dealer_dealt(&dealer, 1).await;
    player_sees(&ana_b, &round, 1).await;
    let view = read(&djego, &format!("/api/v1/peg-leg-rounds/{round}"), &ana).await;
    assert!(view["client_seed"].is_string(), "ana's seed went into the deck: {view}");
    let key = view["key_suit"].as_str().unwrap();
    dealer.wait_data("#peg-key", "key-suit", key).await;
    dealer.wait_text("#peg-key", "1 card on its stack").await;
    dealer
        .wait_data(r#"#peg-cards-table tr.peg-card[data-index="1"]"#, "key-count", "1")
        .await;
    let quote = view["quote"]["id"].as_str().unwrap();
    dealer.wait_data("#peg-ladder", "quote-id", quote).await;
    ana_b.wait_data("#peg-ladder", "quote-id", quote).await;
    // Every count the quote prices is on the ladder: a price, or "not offered".
    for c in view["quote"]["counts"].as_array().unwrap() {
        let n = c["count"].as_u64().unwrap();
        if n == 0 {
            continue;
        }
        let row = format!(r#"#peg-ladder tr.price[data-count="{n}"]"#);
        let shown = match c["multiplier"].as_str() {
            Some(m) => format!("×{m}"),
            None => "not offered".to_string(),
        };
        ana_b.wait_text(&row, &shown).await;
        dealer.wait_text(&row, &shown).await;
    }

    ana_b
        .run_js("document.getElementById('peg-bet-panel').scrollIntoView(); return true;")
        .await;
    ana_b.screenshot("peg-leg-player-prices").await;

    // ana bets 10.00 on the likeliest count, at the price shown.
    let (first_count, first_price) = likeliest_offered(&view);
    ana_b
        .choose("#peg-count", &format!("{first_count} — pays ×{first_price}"))
        .await;
    ana_b.type_into("#peg-stake", "10.00").await;
    let win = cents("10.00") * cents(&first_price) / 100;
    ana_b
        .wait_text("#peg-bet-pays", &format!("10.00 returns {}", money(win)))
        .await;
    ana_b.click("#peg-bet-button").await;
    ana_b
        .wait_text(
            "#peg-bet-placed",
            &format!("Placed: 10.00 on a count of {first_count} at ×{first_price}."),
        )
        .await;
    ana_b.wait_text("#peg-my-bets-table", "10.00").await;
    ana_b.wait_data("#wallet-balance", "balance", "990.00").await;

    // The bet arrives live on the dealer's page, under a pseudonym, never an account id.
    dealer.wait_data("#peg-bet-count", "count", "1").await;
    dealer
        .wait_text("#peg-bet-count", "1 bet by 1 player, 10.00 staked")
        .await;
    dealer.wait_text("#peg-bets-table", "P1").await;
    names_nothing_wrong(&dealer, "the dealer's page", &[ana_id.as_str()]).await;
    names_nothing_wrong(&ana_b, "ana's page", &[]).await;
    dealer.screenshot("peg-leg-dealer-dealing").await;
    audit(&dealer, "dealer, Peg Leg round with a bet", &mut access).await;
    audit(&ana_b, "ana, Peg Leg round with a bet", &mut access).await;

    // The next card: new prices; ana bets again at the new price.
    dealer.click("#peg-next-card").await;
    dealer_dealt(&dealer, 2).await;
    player_sees(&ana_b, &round, 2).await;
    let view = read(&djego, &format!("/api/v1/peg-leg-rounds/{round}"), &ana).await;
    assert_ne!(view["quote"]["id"].as_str().unwrap(), quote, "a new quote");
    ana_b
        .wait_data("#peg-ladder", "quote-id", view["quote"]["id"].as_str().unwrap())
        .await;
    let (second_count, second_price) = likeliest_offered(&view);
    ana_b
        .choose("#peg-count", &format!("{second_count} — pays ×{second_price}"))
        .await;
    ana_b.type_into("#peg-stake", "5.00").await;
    ana_b.click("#peg-bet-button").await;
    ana_b
        .wait_text(
            "#peg-bet-placed",
            &format!("Placed: 5.00 on a count of {second_count} at ×{second_price}."),
        )
        .await;
    ana_b.wait_data("#wallet-balance", "balance", "985.00").await;
    dealer.wait_data("#peg-bet-count", "count", "2").await;
    dealer.wait_text("#peg-bet-count", "15.00 staked").await;
    ana_b
        .run_js("document.getElementById('peg-my-bets-panel').scrollIntoView(); return true;")
        .await;
    ana_b.screenshot("peg-leg-player-betting").await;

    // ana surrenders her first bet at the cash-out value her page shows, and is paid exactly that.
    let mine = read(&djego, &format!("/api/v1/peg-leg-rounds/{round}"), &ana).await;
    let first = mine["bets"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["player"] == ana_id.as_str() && b["stake"] == "10.00")
        .expect("ana's first bet, under her id in her own view")
        .clone();
    let bet_id = first["id"].as_str().unwrap();
    let button = format!(r#"#peg-my-bets button.surrender[data-bet-id="{bet_id}"]"#);
    ana_b
        .wait_data(&button, "cash-out", first["cash_out"].as_str().unwrap())
        .await;
    let cash_out = ana_b.data(&button, "cash-out").await;
    ana_b.wait_text(&button, &format!("Surrender for {cash_out}")).await;
    audit(&ana_b, "ana, Peg Leg round with two bets", &mut access).await;
    ana_b.click(&button).await;
    ana_b
        .wait_text(
            "#peg-surrender-done",
            &format!("Surrendered your bet on {first_count} for {cash_out}."),
        )
        .await;
    let after = read(&djego, &format!("/api/v1/peg-leg-rounds/{round}"), &ana).await;
    let surrendered = after["bets"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["id"] == bet_id)
        .unwrap();
    assert_eq!(surrendered["status"], "surrendered", "{after}");
    assert_eq!(surrendered["returned"], cash_out.as_str(), "paid the value shown");
    let balance = money(100_000 - 1_500 + cents(&cash_out));
    ana_b.wait_data("#wallet-balance", "balance", &balance).await;
    dealer
        .wait_data(
            &format!(r#"#peg-bets-table tr.peg-bet[data-bet-id="{bet_id}"]"#),
            "status",
            "surrendered",
        )
        .await;

    // The dealer deals the round to the end, card by card.
    for card in 3..=50 {
        dealer.click("#peg-next-card").await;
        dealer_dealt(&dealer, card).await;
    }
    dealer.wait_data("#peg-round-status", "status", "settled").await;
    let settled = read(&djego, &format!("/api/v1/peg-leg-rounds/{round}"), &ana).await;
    assert_eq!(settled["status"], "settled", "{settled}");
    let final_count = settled["final_count"].as_u64().unwrap();
    dealer
        .wait_data("#peg-result-line", "final-count", &final_count.to_string())
        .await;
    dealer
        .wait_text("#peg-result-line", &format!("ends with {final_count} card"))
        .await;
    let bets = settled["bets"].as_array().unwrap();
    let returned: i64 = bets.iter().map(|b| cents(b["returned"].as_str().unwrap())).sum();
    dealer
        .wait_text(
            "#peg-result-money",
            &format!("{} went back to the players", money(returned)),
        )
        .await;
    assert!(dealer.find("#peg-open-round").await.is_enabled().await.unwrap());
    dealer
        .run_js("document.getElementById('peg-round-panel').scrollIntoView(); return true;")
        .await;
    dealer.screenshot("peg-leg-dealer-settled").await;
    audit(&dealer, "dealer, Peg Leg round settled", &mut access).await;

    // ana's page shows the result, each bet's return and the wallet the ledger holds.
    player_sees(&ana_b, &round, 50).await;
    ana_b.wait_data("#peg-round", "status", "settled").await;
    ana_b
        .wait_text("#peg-outcome", &format!("The key suit ended with {final_count} card"))
        .await;
    for b in bets {
        let row = format!(r#"tr.my-peg-bet[data-bet-id="{}"]"#, b["id"].as_str().unwrap());
        ana_b.wait_data(&row, "status", b["status"].as_str().unwrap()).await;
        let held = b["count"].as_u64() == Some(final_count);
        match b["status"].as_str().unwrap() {
            "won" => {
                assert!(held, "{b}");
                ana_b.wait_text(&row, b["returned"].as_str().unwrap()).await;
            }
            "lost" => assert!(!held, "{b}"),
            "surrendered" => assert_eq!(b["id"], bet_id),
            other => panic!("a bet {other} after settlement: {b}"),
        }
    }
    ana_b
        .wait_text(
            "#peg-my-result",
            &format!("Your 2 bets: 15.00 staked, {} returned.", money(returned)),
        )
        .await;
    let wallet = read(&djego, "/api/v1/me/wallet", &ana).await;
    let ledger_balance = wallet["balance"].as_str().unwrap();
    assert_eq!(
        cents(ledger_balance),
        100_000 - 1_500 + returned,
        "1000.00 − 15.00 staked + {} returned",
        money(returned)
    );
    ana_b.wait_data("#wallet-balance", "balance", ledger_balance).await;
    assert_eq!(ana_b.text("#wallet-balance").await, ledger_balance);

    // The recall's transfers to and from ana's wallet add up to the same.
    let recall = read(&djego, &format!("/api/v1/peg-leg-rounds/{round}/recall"), &ana).await;
    assert_eq!(recall["verification"]["passed"], true, "{}", recall["verification"]);
    let pseudonym = recall["parties"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["you"] == true)
        .unwrap()["pseudonym"]
        .as_str()
        .unwrap()
        .to_string();
    let wallet_account = format!("wallet:{pseudonym}");
    let net: i64 = recall["transfers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            let amount = cents(t["amount"].as_str().unwrap());
            (if t["to"] == wallet_account.as_str() { amount } else { 0 })
                - (if t["from"] == wallet_account.as_str() {
                    amount
                } else {
                    0
                })
        })
        .sum();
    assert_eq!(100_000 + net, cents(ledger_balance), "ana's transfers in the recall");

    // ana checks the round's shuffle in her browser.
    ana_b.click("#peg-verify").await;
    ana_b.wait_text("#peg-verify-result", "✓ The shuffle verifies").await;
    ana_b
        .run_js("document.getElementById('peg-result').scrollIntoView(); return true;")
        .await;
    ana_b.screenshot("peg-leg-player-result").await;
    audit(&ana_b, "ana, Peg Leg round settled and verified", &mut access).await;

    // My rounds lists it among the recent rounds, named as Peg Leg.
    ana_b.click("#tab-rounds").await;
    ana_b
        .wait_text(
            &format!(r#"li.my-round.recent[data-round-id="{round}"]"#),
            &format!("{TABLE} — Peg Leg round 1"),
        )
        .await;

    // The console lists the round at its table, and recalls it.
    let console = driver.browser(1280, 900).await;
    console
        .sign_in(&djego, demo::PIT_BOSS, demo::PASSWORD_PIT_BOSS, "/console")
        .await;
    console
        .click(&format!(r#"button.table-select[data-table-name="{TABLE}"]"#))
        .await;
    let status_cell = format!(r#"#table-rounds span.round-status[data-round-id="{round}"]"#);
    console.wait_data(&status_cell, "status", "settled").await;
    console.wait_text("#table-rounds", "50 of 50").await;
    console.wait_text("#table-rounds", "2 bets, 15.00 staked").await;
    console.wait_text("#table-rounds", "ana").await;
    console.wait_text("#table-options-summary", "target RTP 95.00%").await;
    names_nothing_wrong(&console, "the console's Peg Leg table", &[]).await;
    console.screenshot("console-peg-leg-table").await;
    audit(&console, "console, a Peg Leg table with its rounds", &mut access).await;
    console
        .click(&format!(r#"button.round-recall[data-round-id="{round}"]"#))
        .await;
    console.wait_text("#recall-view", "Recall of Peg Leg round no. 1").await;
    assert_eq!(console.text("#recall-status").await, "settled");
    console.wait_text("#recall-shuffle-check", "✓").await;
    console
        .wait_text("#recall-server-check", "✓ djego replayed the round")
        .await;
    console.wait_text("#recall-bets", "surrendered").await;
    console.wait_text("#recall-money", "Bet staked").await;
    console.screenshot("console-peg-leg-recall").await;
    audit(&console, "console, a Peg Leg round recalled", &mut access).await;
    assert_none(&access);

    tokio::join!(dealer.close(), ana_b.close(), console.close());
}

#[tokio::test(flavor = "multi_thread")]
async fn every_page_names_a_peg_leg_table_as_peg_leg_and_the_console_creates_one() {
    let djego = Djego::start();
    let driver = Driver::start();
    let (player, dealer, console) = tokio::join!(
        driver.browser(PHONE.0, PHONE.1),
        driver.browser(1024, 768),
        driver.browser(1280, 900)
    );
    tokio::join!(
        player.sign_in(&djego, "ana", demo::PASSWORD_PLAYER, "/player"),
        dealer.sign_in(&djego, "dealer", demo::PASSWORD_DEALER, "/dealer"),
        console.sign_in(&djego, demo::PIT_BOSS, demo::PASSWORD_PIT_BOSS, "/console"),
    );

    // The player app: the table card says what Peg Leg is, with the table's limits and target return.
    let card = format!(r#"article.table-card[data-table-name="{TABLE}"]"#);
    let text = player.wait_text(&card, "Peg Leg").await;
    assert!(
        text.contains("bet on its final count") && text.contains("1.00 to 100.00 a bet") && text.contains("95.00%"),
        "{text}"
    );
    assert!(
        !text.contains("Prima Carta") && !text.contains("Unit") && !text.contains("undefined"),
        "{text}"
    );
    names_nothing_wrong(&player, "the player's tables", &[]).await;

    // The dealer terminal: Peg Leg 1 is a table dealt here, named as Peg Leg, not as Lobo.
    let pick = format!(r#"button.table-pick[data-table-name="{TABLE}"]"#);
    dealer.find(&pick).await;
    let line = dealer
        .run_js(&format!(
            "return document.querySelector({:?}).closest('.table-item').textContent;",
            pick
        ))
        .await;
    let line = line.as_str().unwrap();
    assert!(
        line.contains("Peg Leg, bets 1.00–100.00") && !line.contains("Lobo"),
        "{line}"
    );
    dealer
        .wait_text(r#".table-item.undealt[data-table-name="Lobo 1"]"#, "Lobo")
        .await;
    names_nothing_wrong(&dealer, "the dealer's tables", &[]).await;

    // The console: the list names the game; the table's options are in words; no Lobo round is asked for.
    console
        .click(&format!(r#"button.table-select[data-table-name="{TABLE}"]"#))
        .await;
    console.wait_text("#table-detail-title", TABLE).await;
    console.wait_text("#table-rounds", "No rounds yet").await;
    let summary = console.text("#table-options-summary").await;
    assert_eq!(
        summary,
        "bets 1.00–100.00 (≤ 500.00 a player a round), target RTP 95.00%, bets taken until the dealer deals the next card"
    );
    let detail = console.text("#table-detail").await;
    assert!(
        !detail.contains("does not deal") && !detail.contains("undefined"),
        "{detail}"
    );
    let list = console.text("#tables-list").await;
    assert!(list.contains("Peg Leg") && !list.contains("undefined"), "{list}");

    // The new-table form offers every game the registry deals at a table of its own.
    console.click("#create-table-section summary").await;
    let offered = console
        .run_js("return [...document.querySelectorAll('#new-table-game option')].map((o) => o.value + '=' + o.textContent);")
        .await;
    assert_eq!(
        offered,
        json!(["prima_carta=Prima Carta", "peg_leg=Peg Leg", "lobo=Lobo"]),
        "the registry's games, by its names"
    );
    console.type_into("#new-table-name", "Peg Leg 2").await;
    console.choose("#new-table-game", "Peg Leg").await;
    console.type_into("#new-min-bet", "2.00").await;
    console.type_into("#new-max-bet", "50.00").await;
    console.type_into("#new-max-exposure", "200.00").await;
    console.type_into("#new-target-rtp", "9000").await;
    console.type_into("#new-window", "5000").await;
    console.click("#create-table-button").await;
    // A new table waits for a second pit boss, named in words with its table's name.
    console
        .wait_text(
            "#create-table-result",
            "Proposed, waiting for a second pit boss: create the table Peg Leg 2",
        )
        .await;
    let proposal = console
        .run_js("return document.querySelector('#create-table-result [data-proposal-id]').dataset.proposalId")
        .await;
    djego.operator_creates("second-boss", "pitboss", "second-boss-pass");
    let second = login(&djego, "second-boss", "second-boss-pass").await;
    let (status, applied) = api(
        &djego,
        Method::POST,
        &format!("/api/v1/proposals/{}/approve", proposal.as_str().unwrap()),
        Some(&second),
        Some(json!({})),
    )
    .await;
    assert_eq!(status, 200, "{applied}");
    console.click("#tables-refresh").await;
    let admin = login(&djego, demo::PIT_BOSS, demo::PASSWORD_PIT_BOSS).await;
    let tables = read(&djego, "/api/v1/tables", &admin).await;
    let created = tables
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "Peg Leg 2")
        .expect("the new table");
    assert_eq!(
        created["config"],
        json!({ "game": "peg_leg", "min_bet": "2.00", "max_bet": "50.00", "max_exposure_per_round": "200.00",
                "target_rtp_bp": 9000, "betting_window_ms": 5000 }),
        "{created}"
    );
    console
        .click(r#"button.table-select[data-table-name="Peg Leg 2"]"#)
        .await;
    console
        .wait_text(
            "#table-options-summary",
            "target RTP 90.00%, bets taken for 5 s after each card",
        )
        .await;
    console.screenshot("console-peg-leg-created").await;

    tokio::join!(player.close(), dealer.close(), console.close());
}

#[tokio::test(flavor = "multi_thread")]
async fn a_pit_boss_voids_a_peg_leg_round_in_play_and_the_open_bet_comes_back() {
    let djego = Djego::start();
    let driver = Driver::start();
    // Through the API: the dealer opens a round and deals a card; ana bets 10.00.
    let (dealer, table) = crate::harness::dealer_signed_in_at(&djego, TABLE).await;
    let (status, opened) = api(
        &djego,
        Method::POST,
        &format!("/api/v1/tables/{table}/peg-leg-rounds"),
        Some(&dealer),
        None,
    )
    .await;
    assert_eq!(status, 201, "{opened}");
    let round = opened["id"].as_str().unwrap().to_string();
    let (status, dealt) = api(
        &djego,
        Method::POST,
        &format!("/api/v1/peg-leg-rounds/{round}/deal"),
        Some(&dealer),
        None,
    )
    .await;
    assert_eq!(status, 200, "{dealt}");
    let ana = login(&djego, "ana", demo::PASSWORD_PLAYER).await;
    let (count, _) = likeliest_offered(&dealt["round"]);
    let (status, bet) = api(
        &djego,
        Method::POST,
        &format!("/api/v1/peg-leg-rounds/{round}/bets"),
        Some(&ana),
        Some(json!({ "quote_id": dealt["round"]["quote"]["id"], "count": count, "stake": "10.00" })),
    )
    .await;
    assert_eq!(status, 201, "{bet}");
    assert_eq!(read(&djego, "/api/v1/me/wallet", &ana).await["balance"], "990.00");

    // ana watches on her phone: the round with her bet, and the page follows the void.
    let player = driver.browser(PHONE.0, PHONE.1).await;
    player.sign_in(&djego, "ana", demo::PASSWORD_PLAYER, "/player").await;
    player.click("#tab-rounds").await;
    player
        .click(&format!(r#"button.resume-round[data-round-id="{round}"]"#))
        .await;
    player.wait_data("#peg-round", "round-id", &round).await;
    player
        .wait_data(
            &format!(r#"tr.my-peg-bet[data-bet-id="{}"]"#, bet["id"].as_str().unwrap()),
            "status",
            "open",
        )
        .await;

    let console = driver.browser(1280, 900).await;
    console
        .sign_in(&djego, demo::PIT_BOSS, demo::PASSWORD_PIT_BOSS, "/console")
        .await;
    console
        .click(&format!(r#"button.table-select[data-table-name="{TABLE}"]"#))
        .await;
    console
        .wait_data(
            &format!(r#"#table-rounds span.round-status[data-round-id="{round}"]"#),
            "status",
            "dealing",
        )
        .await;
    console.choose("#void-round", "No. 1 (dealing)").await;
    console.type_into("#void-reason", "the shoe was dropped").await;
    let mut access = Vec::new();
    audit(&console, "console, a Peg Leg round in play to void", &mut access).await;
    console.click("#void-button").await;
    console.wait_text("#void-result", "every open bet was refunded").await;
    console
        .wait_data(
            &format!(r#"#table-rounds span.round-status[data-round-id="{round}"]"#),
            "status",
            "voided",
        )
        .await;
    assert_eq!(
        read(&djego, "/api/v1/me/wallet", &ana).await["balance"],
        "1000.00",
        "the open bet came back"
    );
    player.wait_data("#peg-round", "status", "voided").await;
    player.wait_text("#peg-outcome", "The round was voided").await;
    player
        .wait_text("#peg-my-result", "Your 1 bet: 10.00 staked, 10.00 returned.")
        .await;
    player.wait_data("#wallet-balance", "balance", "1000.00").await;
    audit(&player, "ana, a Peg Leg round voided", &mut access).await;
    assert_none(&access);
    tokio::join!(player.close(), console.close());
}

#[tokio::test(flavor = "multi_thread")]
async fn a_timed_betting_window_counts_down_and_holds_the_next_card() {
    let djego = Djego::start();
    let driver = Driver::start();
    // Through the API: a pit boss opens a Peg Leg table taking bets for 3 s after each card,
    // with the demo dealer assigned.
    let admin = login(&djego, demo::PIT_BOSS, demo::PASSWORD_PIT_BOSS).await;
    let (status, proposed) = api(
        &djego,
        Method::POST,
        "/api/v1/tables",
        Some(&admin),
        Some(json!({ "name": "Peg Leg timed", "config": {
            "game": "peg_leg", "min_bet": "1.00", "max_bet": "100.00", "max_exposure_per_round": "500.00",
            "target_rtp_bp": 9500, "betting_window_ms": 3000 } })),
    )
    .await;
    assert_eq!(status, 202, "{proposed}");
    // A new table waits for a second pit boss, whom the operator made.
    djego.operator_creates("second-boss", "pitboss", "second-boss-pass");
    let second = login(&djego, "second-boss", "second-boss-pass").await;
    let (status, applied) = api(
        &djego,
        Method::POST,
        &format!("/api/v1/proposals/{}/approve", proposed["id"].as_str().unwrap()),
        Some(&second),
        Some(json!({})),
    )
    .await;
    assert_eq!(status, 200, "{applied}");
    let table = applied["result"]["id"].as_str().unwrap();
    let (status, dealer) = api(
        &djego,
        Method::POST,
        "/api/v1/auth/login",
        None,
        Some(json!({ "username": "dealer", "password": demo::PASSWORD_DEALER })),
    )
    .await;
    assert_eq!(status, 200, "{dealer}");
    let dealer_id = dealer["user_id"].as_str().unwrap();
    for (method, path) in [
        (Method::PUT, format!("/api/v1/tables/{table}/dealers/{dealer_id}")),
        (Method::POST, format!("/api/v1/tables/{table}/open")),
    ] {
        let (status, body) = api(&djego, method, &path, Some(&admin), None).await;
        assert!(status < 300, "{path}: {status} {body}");
    }

    let (dealer, player) = tokio::join!(driver.browser(1024, 768), driver.browser(PHONE.0, PHONE.1));
    tokio::join!(
        dealer.sign_in(&djego, "dealer", demo::PASSWORD_DEALER, "/dealer"),
        player.sign_in(&djego, "ana", demo::PASSWORD_PLAYER, "/player"),
    );
    dealer
        .click(r#"button.table-pick[data-table-name="Peg Leg timed"]"#)
        .await;
    dealer
        .wait_text("#table-info", "bets taken for 3 s after each card")
        .await;
    dealer.click("#dealer-sign-in").await;
    dealer.wait_data("#dealer-now", "dealing", "me").await;
    dealer.click("#peg-open-round").await;
    dealer.wait_data("#peg-round-status", "status", "seeding").await;
    player
        .click(r#"article.table-card[data-table-name="Peg Leg timed"] button.open-table"#)
        .await;
    player.wait_data("#peg-round", "status", "seeding").await;

    // After the first card the window counts down on both pages, and the next card waits for it.
    dealer.click("#peg-next-card").await;
    dealer.wait_data("#peg-round-status", "cards-dealt", "1").await;
    dealer.wait_data("#peg-window", "open", "true").await;
    dealer.wait_text("#peg-window", "Bets close in").await;
    assert!(
        !dealer.find("#peg-next-card").await.is_enabled().await.unwrap(),
        "the next card waits for the window"
    );
    player.wait_data("#peg-window", "open", "true").await;
    player.wait_text("#peg-window", "Bets on this card close in").await;
    let mut access = Vec::new();
    audit(&dealer, "dealer, a Peg Leg betting window open", &mut access).await;

    // Once it closes, betting stops on the phone and the dealer deals the next card.
    dealer.wait_data("#peg-window", "open", "false").await;
    player.wait_data("#peg-window", "open", "false").await;
    player.wait_text("#peg-window", "Betting on this card has closed").await;
    assert!(
        !player.find("#peg-bet-button").await.is_enabled().await.unwrap(),
        "no bet after the window"
    );
    dealer.click("#peg-next-card").await;
    dealer.wait_data("#peg-round-status", "cards-dealt", "2").await;
    dealer.wait_data("#peg-window", "open", "true").await;
    assert_none(&access);
    tokio::join!(dealer.close(), player.close());
}
