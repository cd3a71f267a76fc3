//! A person's own account from any page: changing one's password from the
//! header's link ends every other session and keeps them signed in here.

use crate::harness::{demo, Djego, Driver};
use std::time::{Duration, Instant};

#[tokio::test(flavor = "multi_thread")]
async fn a_player_changes_their_password_from_the_header() {
    let djego = Djego::start();
    let driver = Driver::start();
    let b = driver.browser(390, 844).await;
    b.sign_in(&djego, "bruno", demo::PASSWORD_PLAYER, "/player").await;
    // Another session of bruno's, which the change must end.
    let other = reqwest::Client::new()
        .post(djego.url("/api/v1/auth/login"))
        .json(&serde_json::json!({ "username": "bruno", "password": demo::PASSWORD_PLAYER }))
        .send()
        .await
        .unwrap()
        .json::<serde_json::Value>()
        .await
        .unwrap()["access_token"]
        .as_str()
        .unwrap()
        .to_string();

    b.click("#change-password-link").await;
    b.wait_text("#change-why", "signs you out everywhere else").await;
    b.type_into("#current", demo::PASSWORD_PLAYER).await;
    b.type_into("#new-password", "brunos-own-new-password").await;
    b.type_into("#again", "brunos-other-new-password").await;
    b.click("#change-button").await;
    b.wait_text("#change-problem", "differ").await;
    b.type_into("#again", "brunos-own-new-password").await;
    b.click("#change-button").await;
    let deadline = Instant::now() + Duration::from_secs(15);
    while b.client.current_url().await.unwrap().path() != "/player" {
        assert!(
            Instant::now() < deadline,
            "not back on /player:\n{}",
            b.page_text().await
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    b.find("#wallet-balance").await;

    let status = |password: &'static str| {
        let url = djego.url("/api/v1/auth/login");
        async move {
            reqwest::Client::new()
                .post(url)
                .json(&serde_json::json!({ "username": "bruno", "password": password }))
                .send()
                .await
                .unwrap()
                .status()
                .as_u16()
        }
    };
    assert_eq!(status(demo::PASSWORD_PLAYER).await, 401);
    assert_eq!(status("brunos-own-new-password").await, 200);
    let me = reqwest::Client::new()
        .get(djego.url("/api/v1/me"))
        .bearer_auth(&other)
        .send()
        .await
        .unwrap()
        .status()
        .as_u16();
    assert_eq!(me, 401, "the other session ended");
    b.close().await;
}
