//! One Prima Carta round across three windows: the dealer on the dealer
//! terminal (1024×768), ana and bruno each on the player app on a phone
//! (390×844). Every action is taken on its person's own page; the API is read
//! (never written) only to check what the pages show and where the money went.

use crate::accessibility::{assert_none, audit};
use crate::harness::{api, cents, demo, login, Browser, Djego, Driver, STEP_TIMEOUT_MS};
use reqwest::Method;
use serde_json::Value;
use std::time::{Duration, Instant};

const PHONE: (u32, u32) = (390, 844);
const TABLE: &str = "Prima Carta 1";

/// A GET that must succeed.
async fn read(djego: &Djego, path: &str, token: &str) -> Value {
    let (status, body) = api(djego, Method::GET, path, Some(token), None).await;
    assert_eq!(status, 200, "GET {path}: {body}");
    body
}

fn money(c: i64) -> String {
    format!("{}{}.{:02}", if c < 0 { "-" } else { "" }, c.abs() / 100, c.abs() % 100)
}

/// The round the dealer's page shows: (status, version), from #round-status.
async fn dealer_shows(b: &Browser) -> (String, i64) {
    let v = b
        .run_js("const n = document.getElementById('round-status'); return [n.dataset.status || '', n.dataset.version || '-1'];")
        .await;
    (
        v[0].as_str().unwrap_or_default().to_string(),
        v[1].as_str().unwrap_or("-1").parse().unwrap_or(-1),
    )
}

/// Waits until the dealer's page shows a version of the round newer than `version`.
async fn dealer_moves_past(b: &Browser, version: i64) {
    b.wait_js(
        &format!("return Number(document.getElementById('round-status').dataset.version || -1) > {version};"),
        &format!("the dealer's page to move past version {version}"),
    )
    .await;
}

/// Waits until a player's page shows the round at `version` (or later) with `status`.
async fn player_shows(b: &Browser, round: &str, status: &str, version: i64) {
    b.wait_js(
        &format!(
            "const n = document.getElementById('prima-round'); \
             return n.dataset.roundId === {round:?} && n.dataset.status === {status:?} \
                 && Number(n.dataset.version) >= {version};"
        ),
        &format!("the player's page to show the round {status} at version {version}"),
    )
    .await;
}

/// Waits until the page's wallet shows `balance`.
async fn wallet_shows(b: &Browser, balance: &str) {
    b.wait_data("#wallet-balance", "balance", balance).await;
    assert_eq!(b.text("#wallet-balance").await, balance);
}

/// A player: their window, their token (for reading), their suit.
struct Player<'a> {
    name: &'static str,
    b: &'a Browser,
    token: String,
    suit: &'static str,
    suit_name: &'static str,
}

impl Player<'_> {
    async fn balance(&self, djego: &Djego) -> String {
        read(djego, "/api/v1/me/wallet", &self.token).await["balance"]
            .as_str()
            .unwrap()
            .to_string()
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_dealer_and_two_players_play_a_round_with_side_bets_each_on_their_own_page() {
    let djego = Djego::start();
    let driver = Driver::start();
    let (dealer, ana_b, bruno_b) = tokio::join!(
        driver.browser(1024, 768),
        driver.browser(PHONE.0, PHONE.1),
        driver.browser(PHONE.0, PHONE.1)
    );

    // Everyone signs in, each on their own page.
    tokio::join!(
        dealer.sign_in(&djego, "dealer", demo::PASSWORD_DEALER, "/dealer"),
        ana_b.sign_in(&djego, "ana", demo::PASSWORD_PLAYER, "/player"),
        bruno_b.sign_in(&djego, "bruno", demo::PASSWORD_PLAYER, "/player"),
    );
    let ana = Player {
        name: "ana",
        b: &ana_b,
        token: login(&djego, "ana", demo::PASSWORD_PLAYER).await,
        suit: "crowns",
        suit_name: "Crowns",
    };
    let bruno = Player {
        name: "bruno",
        b: &bruno_b,
        token: login(&djego, "bruno", demo::PASSWORD_PLAYER).await,
        suit: "swords",
        suit_name: "Swords",
    };
    let players = [&ana, &bruno];

    // The dealer picks the table, signs in at it and opens a round.
    dealer
        .click(&format!(r#"button.table-pick[data-table-name="{TABLE}"]"#))
        .await;
    dealer.wait_text("#live-status", "Live").await;
    dealer.click("#dealer-sign-in").await;
    dealer.wait_data("#dealer-now", "dealing", "me").await;
    dealer.click("#open-round").await;
    dealer.wait_data("#round-status", "status", "betting").await;
    let round = dealer.data("#round-status", "round-id").await;
    assert!(!round.is_empty(), "the dealer's page names the round");

    // Both players open the table on their phones and see the round open.
    for p in players {
        p.b.wait_text("#wallet-balance", "1000.00").await;
        p.b.click(&format!(
            r#"article.table-card[data-table-name="{TABLE}"] button.open-table"#
        ))
        .await;
        p.b.wait_text("#live-status", "Live").await;
        player_shows(p.b, &round, "betting", 0).await;
    }

    // Each takes a seat with their own suit: the spiga and the held corte leave the wallet.
    for p in players {
        p.b.choose("#seat-suit", p.suit_name).await;
        p.b.click("#seat-button").await;
        p.b.wait_text("#seat-mine", &format!("{} in this round.", p.suit_name))
            .await;
        assert!(p.b.text("#seat-mine").await.starts_with("You hold"));
        let balance = p.balance(&djego).await;
        assert_eq!(balance, "998.00", "{}: 1.00 spiga + 1.00 corte held", p.name);
        wallet_shows(p.b, &balance).await;
    }

    // Side bets, each with its pays shown before it is placed.
    let pay_table = {
        let tables = read(&djego, "/api/v1/tables", &ana.token).await;
        let id = tables.as_array().unwrap().iter().find(|t| t["name"] == TABLE).unwrap()["id"]
            .as_str()
            .unwrap()
            .to_string();
        read(&djego, &format!("/api/v1/tables/{id}/pay-table"), &ana.token).await
    };
    let spec = &pay_table["spec"];
    let bets = [
        (
            &ana,
            "prima",
            "Prima",
            Some("Crowns"),
            "5.00",
            spec["prima"]["pays"].as_str().unwrap(),
        ),
        (
            &bruno,
            "conto_medio",
            "Conto Medio",
            None,
            "3.00",
            spec["conto_medio"].as_str().unwrap(),
        ),
    ];
    for (p, kind, kind_name, on, stake, pays) in bets {
        p.b.choose("#bet-kind", kind_name).await;
        if let Some(suit) = on {
            p.b.choose("#bet-suit", suit).await;
        }
        p.b.type_into("#bet-amount", stake).await;
        let win = cents(stake) * cents(pays) / 100;
        p.b.wait_text("#bet-pays", &format!("Pays {pays}:1")).await;
        p.b.wait_text(
            "#bet-pays",
            &format!(
                "A win on {stake} pays {}, returning {}.",
                money(win),
                money(cents(stake) + win)
            ),
        )
        .await;
        p.b.click("#bet-button").await;
        p.b.wait_text("#bet-placed", &format!("Placed: {kind_name}")).await;
        p.b.wait_text("#my-bets-table", stake).await;
        let placed = read(&djego, &format!("/api/v1/rounds/{round}/bets"), &p.token).await;
        let mine: Vec<&Value> = placed
            .as_array()
            .unwrap()
            .iter()
            .filter(|b| b["kind"] == kind)
            .collect();
        assert_eq!(mine.len(), 1, "{}'s {kind} bet: {placed}", p.name);
        assert_eq!(mine[0]["amount"], stake);
        wallet_shows(p.b, &p.balance(&djego).await).await;
    }

    // Every page shows both seats and both bets, live.
    for p in players {
        for other in players {
            let who = if other.name == p.name { "you" } else { "a player" };
            p.b.wait_text(
                &format!(r#"#prima-seats li.seat.taken[data-suit="{}"]"#, other.suit),
                who,
            )
            .await;
        }
        p.b.wait_data("#prima-bet-totals", "count", "2").await;
        p.b.wait_text("#prima-bet-totals", "2 side bets on this round, 8.00 staked")
            .await;
    }
    for p in players {
        dealer
            .wait_text(&format!(r#"tr.seat[data-suit="{}"]"#, p.suit), p.suit_name)
            .await;
    }
    dealer.wait_data("#seat-count", "count", "2").await;
    dealer.wait_data("#bet-count", "count", "2").await;
    dealer.wait_text("#bet-count", "2 side bets, 8.00 staked").await;
    dealer.wait_text(r#"tr.bet-total[data-kind="prima"]"#, "5.00").await;
    dealer
        .wait_text(r#"tr.bet-total[data-kind="conto_medio"]"#, "3.00")
        .await;
    dealer.screenshot("round-dealer-betting").await;
    // Each state worth showing also passes the accessibility audit (accessibility.rs).
    let mut access = Vec::new();
    audit(&dealer, "dealer, betting with seats and bets", &mut access).await;
    audit(&ana_b, "ana, betting with seats and bets", &mut access).await;

    // The dealer closes betting and deals; the players' pages follow.
    dealer.click("#close-betting").await;
    dealer.wait_data("#round-status", "status", "closed").await;
    for p in players {
        p.b.wait_js(
            "return document.getElementById('bet-panel').hidden;",
            "the bet panel to close",
        )
        .await;
    }
    let (_, version) = dealer_shows(&dealer).await;
    dealer.click("#deal").await;
    dealer_moves_past(&dealer, version).await;

    // Each copa decision is made by the player in turn, on their own page,
    // following the advice it shows; then the dealer settles.
    let deadline = Instant::now() + Duration::from_millis(3 * STEP_TIMEOUT_MS);
    let mut decisions = Vec::new();
    loop {
        assert!(
            Instant::now() < deadline,
            "the round never settled:\n{}",
            dealer.page_text().await
        );
        let (status, version) = dealer_shows(&dealer).await;
        match status.as_str() {
            "copa" => {
                let view = read(&djego, &format!("/api/v1/rounds/{round}"), &ana.token).await;
                if view["version"].as_i64() != Some(version) {
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    continue;
                }
                let turn = &view["copa_turn"];
                let suit = turn["suit"].as_str().unwrap();
                let (deciding, waiting) = if suit == ana.suit {
                    (&ana, &bruno)
                } else {
                    (&bruno, &ana)
                };
                dealer.wait_data("#copa-turn-suit", "suit", suit).await;
                player_shows(deciding.b, &round, "copa", version).await;
                player_shows(waiting.b, &round, "copa", version).await;
                // Only the player in turn is asked, with the cost and the basic strategy's advice.
                deciding
                    .b
                    .wait_text(
                        "#copa-pay",
                        &format!("Pay the copa ({})", turn["copa"].as_str().unwrap()),
                    )
                    .await;
                assert!(
                    !waiting.b.is_shown("#copa-panel").await,
                    "{} is not asked",
                    waiting.name
                );
                waiting
                    .b
                    .wait_text("#prima-copa-line", &format!("{} decides", deciding.suit_name))
                    .await;
                deciding.b.find("#copa-advice-value").await;
                let advice = deciding.b.data("#copa-advice-value", "advice").await;
                let asked = read(&djego, &format!("/api/v1/rounds/{round}/advice"), &deciding.token).await;
                assert_eq!(asked["advice"], advice.as_str(), "the page shows the API's advice");
                if decisions.is_empty() {
                    deciding
                        .b
                        .run_js("document.getElementById('copa-panel').scrollIntoView(); return true;")
                        .await;
                    deciding.b.screenshot("round-player-copa").await;
                    audit(deciding.b, "a player at the copa", &mut access).await;
                    audit(&dealer, "dealer at the copa", &mut access).await;
                }
                deciding
                    .b
                    .click(if advice == "pay" { "#copa-pay" } else { "#copa-fold" })
                    .await;
                decisions.push((deciding.name, advice));
                dealer_moves_past(&dealer, version).await;
            }
            "in_play" | "finished" => {
                dealer.click("#settle").await;
                dealer_moves_past(&dealer, version).await;
            }
            "settled" => break,
            _ => tokio::time::sleep(Duration::from_millis(100)).await,
        }
    }
    assert!(!decisions.is_empty(), "two seats after the deal always reach a copa");

    // The dealer's page shows what djego paid.
    dealer.wait_text("#round-status", "Settled").await;
    let view = read(&djego, &format!("/api/v1/rounds/{round}"), &ana.token).await;
    assert_eq!(view["status"], "settled", "{view}");
    let stored = &view["result"];
    let result = &stored["result"];
    let winner = result["winner"].as_str().unwrap();
    let paid = stored["winner_paid"].as_str().unwrap();
    dealer.wait_data("#result-winner", "suit", winner).await;
    assert_eq!(dealer.text("#winner-paid").await, paid);
    dealer
        .wait_text(&format!(r#"tr.payout[data-suit="{winner}"]"#), paid)
        .await;
    dealer
        .run_js("document.getElementById('result-panel').scrollIntoView(); return true;")
        .await;
    dealer.screenshot("round-dealer-settled").await;
    audit(&dealer, "dealer, settled", &mut access).await;

    // Each player's page shows the result and the wallet the ledger holds, and the money adds up:
    // 1000.00 − spiga and copas − corte (when theirs was the Prima) + the pot (when they won)
    // − stakes + what the bets returned.
    let unit = cents(view["unit"].as_str().unwrap());
    let mut bets_to_house = 0;
    for p in players {
        player_shows(p.b, &round, "settled", view["version"].as_i64().unwrap()).await;
        p.b.find("#prima-result").await;
        let winner_line = if winner == p.suit {
            format!("You won the pot: {paid}.")
        } else {
            format!("The winner was paid {paid}.")
        };
        p.b.wait_text("#prima-winner", &winner_line).await;

        // Each as the player sees it: the winner's own id only to the winner.
        let recall = read(&djego, &format!("/api/v1/rounds/{round}/recall"), &p.token).await;
        let own = read(&djego, &format!("/api/v1/rounds/{round}"), &p.token).await;
        assert_eq!(
            recall["round"]["result"], own["result"],
            "the recall and the view agree"
        );
        let c = result["contributions"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["suit"] == p.suit)
            .unwrap();
        let paid_in = (c["spiga_units"].as_i64().unwrap() + c["copa_units"].as_i64().unwrap()) * unit;
        let corte = if result["corte_payer"] == p.suit {
            result["corte_units"].as_i64().unwrap() * unit
        } else {
            0
        };
        let won = if winner == p.suit { cents(paid) } else { 0 };
        let all_bets = read(&djego, &format!("/api/v1/rounds/{round}/bets"), &p.token).await;
        let me = read(&djego, "/api/v1/me/wallet", &p.token).await["player_id"]
            .as_str()
            .unwrap()
            .to_string();
        let my_bets: Vec<&Value> = all_bets
            .as_array()
            .unwrap()
            .iter()
            .filter(|b| b["player_id"] == me.as_str())
            .collect();
        assert_eq!(my_bets.len(), 1, "{}: {all_bets}", p.name);
        let staked: i64 = my_bets.iter().map(|b| cents(b["amount"].as_str().unwrap())).sum();
        let returned: i64 = my_bets.iter().map(|b| cents(b["returned"].as_str().unwrap())).sum();
        bets_to_house += staked - returned;
        for b in &my_bets {
            assert!(
                ["won", "lost", "pushed"].contains(&b["status"].as_str().unwrap()),
                "{b}"
            );
        }
        p.b.wait_text(
            "#prima-bets-result",
            &format!(
                "Your side bets: {} staked, {} returned.",
                money(staked),
                money(returned)
            ),
        )
        .await;

        let balance = p.balance(&djego).await;
        let expected = 100_000 - paid_in - corte + won - staked + returned;
        assert_eq!(
            cents(&balance),
            expected,
            "{}: 1000.00 − {} paid in − {} corte + {} won − {} staked + {} returned = {} (the API says {balance}); {view}",
            p.name,
            money(paid_in),
            money(corte),
            money(won),
            money(staked),
            money(returned),
            money(expected)
        );
        // The transcript's transfers to and from this player's wallet say the same.
        let transcript = &recall["transcript"];
        let pseudonym = transcript["players"]
            .as_array()
            .unwrap()
            .iter()
            .find(|x| x["you"] == true)
            .unwrap()["pseudonym"]
            .as_str()
            .unwrap()
            .to_string();
        let wallet = format!("wallet:{pseudonym}");
        let net: i64 = transcript["transfers"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| {
                let amount = cents(t["amount"].as_str().unwrap());
                (if t["to"] == wallet.as_str() { amount } else { 0 })
                    - (if t["from"] == wallet.as_str() { amount } else { 0 })
            })
            .sum();
        assert_eq!(
            100_000 + net,
            cents(&balance),
            "{}'s transfers in the transcript",
            p.name
        );
        wallet_shows(p.b, &balance).await;
    }
    // Together, the two wallets moved by what the dealers' tips (the corte), the cobre and the
    // house's side of the bets took, plus any cobre carried in from earlier rounds.
    let mut outside = bets_to_house;
    if !result["corte_payer"].is_null() {
        outside += result["corte_units"].as_i64().unwrap() * unit;
    }
    if !result["cobre"].is_null() {
        outside += result["cobre"]["units"].as_i64().unwrap() * unit;
    }
    assert_eq!(
        cents(&ana.balance(&djego).await) + cents(&bruno.balance(&djego).await) - 200_000,
        cents(stored["carried_cobre_in"].as_str().unwrap()) - outside,
        "the money adds up across the table: {view}"
    );
    ana_b
        .run_js("document.getElementById('prima-result').scrollIntoView(); return true;")
        .await;
    ana_b.screenshot("round-player-result").await;
    audit(&ana_b, "ana, settled", &mut access).await;

    // ana checks the round's shuffle in her browser.
    ana_b.click("#prima-verify").await;
    ana_b.wait_text("#prima-verify-result", "✓ The shuffle verifies").await;
    let checks = ana_b.text("#prima-verify-result").await;
    assert!(
        checks.contains("commitment") && checks.contains("deck") && !checks.contains('✗'),
        "{checks}"
    );
    audit(&ana_b, "ana, round verified", &mut access).await;
    assert_none(&access);

    tokio::join!(dealer.close(), ana_b.close(), bruno_b.close());
}
