//! A player's own limits and breaks, as a player on a phone uses them: a loss limit in force at
//! once, a raise that waits 24 hours, a time-out asked twice before it starts, all in words.

use crate::harness::{demo, Djego, Driver};

#[tokio::test(flavor = "multi_thread")]
async fn a_player_sets_a_limit_and_takes_a_time_out_from_the_phone() {
    let djego = Djego::start();
    let driver = Driver::start();
    let b = driver.browser(390, 844).await;
    b.sign_in(&djego, "bruno", demo::PASSWORD_PLAYER, "/player").await;
    b.click("#tab-limits").await;
    b.wait_text("#protection-status", "Your play is open").await;
    b.wait_text("#protection-totals", "24 hours").await;

    // Losses over 24 hours to 20.00: in force at once.
    b.type_into("#limit-amount", "20.00").await;
    b.click("#limit-button").await;
    b.wait_text("#limit-result", "Losses over 24 hours: 20.00, from now")
        .await;
    b.wait_text("[data-limit='loss-day']", "20.00").await;
    // A raise waits.
    b.type_into("#limit-amount", "50.00").await;
    b.click("#limit-button").await;
    b.wait_text("#limit-result", "50.00 waits 24 hours").await;
    b.wait_text("#limit-list", "which you may confirm from").await;
    b.wait_text("[data-limit='loss-day']", "20.00").await;

    // A reality check every 30 minutes of play, with the session in words.
    b.wait_text("#session-line", "You see no reality check").await;
    b.choose("#reality-minutes", "every 30 minutes").await;
    b.click("#reality-button").await;
    b.wait_text("#session-line", "You see a reality check every 30 minutes of play")
        .await;

    // A time-out, asked twice.
    b.choose("#break-length", "24 hours (time-out)").await;
    b.click("#break-button").await;
    b.wait_text("#break-confirm-text", "It cannot be undone").await;
    b.click("#break-confirm").await;
    b.wait_text(
        "#protection-status",
        "Time-out: your play and deposits are stopped until",
    )
    .await;
    b.wait_text("#exclusion-list", "in force").await;

    // Words, never codes.
    let text = b.page_text().await;
    for code in ["excluded_from_play", "loss-day", "time_out"] {
        assert!(!text.contains(code), "{code} shown to a person:\n{text}");
    }
    b.close().await;
}
