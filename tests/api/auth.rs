//! Login, the login limits, and token checking.

use crate::helpers::TestApp;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use djego::auth::TokenKeys;
use djego::domain::Role;
use serde_json::{json, Value};

fn now_s() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs()
}

both_backends!(
    async fn login_succeeds_with_the_right_password(app: TestApp) {
        let player = app.create_user(Role::Player).await;
        let body = app.try_login(&player.username, &player.password).await.expect(200);
        assert_eq!(body["token_type"], "Bearer");
        assert_eq!(body["role"], "player");
        assert_eq!(body["user_id"], player.id.as_str());
        let exp = body["expires_at"].as_u64().expect("expires_at");
        assert!(exp > now_s() && exp <= now_s() + 3600 + 5, "expires_at {exp}");
        // Usernames are case-insensitive.
        let upper = app.try_login(&player.username.to_uppercase(), &player.password).await;
        upper.expect(200);

        let token = body["access_token"].as_str().unwrap();
        let me = app.get("/api/v1/me", Some(token)).await.expect(200);
        assert_eq!(me["id"], player.id.as_str());
        assert_eq!(me["username"], player.username.as_str());
        assert_eq!(me["role"], "player");
        assert!(
            me.get("password_hash").is_none(),
            "the hash never leaves the server: {me}"
        );
    }
);

both_backends!(
    async fn login_fails_with_a_wrong_password_or_unknown_user_alike(app: TestApp) {
        let player = app.create_user(Role::Player).await;
        let wrong = app.try_login(&player.username, "not-the-password").await;
        wrong.assert_error(401, "unauthenticated");
        let unknown = app.try_login("nobody-here", "whatever-password").await;
        unknown.assert_error(401, "unauthenticated");
        // The answer does not reveal whether the account exists.
        assert_eq!(wrong.json()["error"]["message"], unknown.json()["error"]["message"]);
        let empty = app.try_login("", "").await;
        empty.assert_error(401, "unauthenticated");
        // Each failure is a significant event.
        let failed = app.events("login_failed").await;
        let subjects: Vec<&str> = failed.iter().filter_map(|e| e["subject"].as_str()).collect();
        assert!(subjects.contains(&player.username.as_str()), "{failed:?}");
        assert!(subjects.contains(&"nobody-here"), "{failed:?}");
    }
);

both_backends!(
    async fn a_deactivated_account_cannot_log_in(app: TestApp) {
        let boss = app.create_user(Role::Pitboss).await;
        let dealer = app.create_user(Role::Dealer).await;
        app.put(
            &format!("/api/v1/users/{}", dealer.id),
            Some(&boss.token),
            &json!({ "active": false }),
            None,
        )
        .await
        .expect(200);
        app.try_login(&dealer.username, &dealer.password)
            .await
            .assert_error(401, "unauthenticated");
    }
);

both_backends!(
    async fn repeated_failed_logins_are_rate_limited_and_logged(app: TestApp) {
        let player = app.create_user(Role::Player).await;
        for _ in 0..5 {
            app.try_login(&player.username, "wrong-password")
                .await
                .assert_error(401, "unauthenticated");
        }
        // The sixth attempt is refused, even with the right password.
        app.try_login(&player.username, "wrong-password")
            .await
            .assert_error(429, "too_many_attempts");
        app.try_login(&player.username, &player.password)
            .await
            .assert_error(429, "too_many_attempts");
        // Another account is not affected.
        let other = app.create_user(Role::Player).await;
        app.try_login(&other.username, &other.password).await.expect(200);

        let failed: Vec<Value> = app
            .events("login_failed")
            .await
            .into_iter()
            .filter(|e| e["subject"] == player.username.as_str())
            .collect();
        assert_eq!(failed.len(), 5, "{failed:?}");
        let limited: Vec<Value> = app
            .events("login_rate_limited")
            .await
            .into_iter()
            .filter(|e| e["subject"] == player.username.as_str())
            .collect();
        // One event per window, however many attempts are refused.
        assert_eq!(limited.len(), 1, "{limited:?}");
        let details: Value = serde_json::from_str(limited[0]["details"].as_str().unwrap()).unwrap();
        assert_eq!(details["username"], player.username.as_str());

        // The log is for auditors and pit bosses, not players.
        app.get("/api/v1/audit/events?kind=login_failed", Some(&other.token))
            .await
            .assert_error(403, "forbidden");
        let boss = app.create_user(Role::Pitboss).await;
        app.get("/api/v1/audit/events?kind=login_failed", Some(&boss.token))
            .await
            .expect(200);
    }
);

fn b64(value: &Value) -> String {
    URL_SAFE_NO_PAD.encode(serde_json::to_vec(value).unwrap())
}

both_backends!(
    async fn bad_tokens_are_refused(app: TestApp) {
        let player = app.create_user(Role::Player).await;
        let ok = app.get("/api/v1/me", Some(&player.token)).await;
        ok.expect(200);

        let secret = app.state.settings.jwt_secret.clone();
        let claims = json!({
            "sub": player.id, "role": "pitboss", "name": player.username,
            "iat": now_s(), "exp": now_s() + 600,
        });
        let mut bad: Vec<(&str, String)> = Vec::new();

        // Missing, wrong scheme, garbage.
        bad.push(("garbage", "not.a.token".to_string()));
        bad.push(("random bytes", "abc".repeat(40)));
        bad.push(("empty", String::new()));

        // Signed with another secret.
        let other = TokenKeys::new(b"another-secret-another-secret-another-secret", &[], 600);
        bad.push((
            "wrong signature",
            other.issue(&player.id, Role::Pitboss, &player.username, 0, now_s()).0,
        ));

        // A valid token whose payload is edited (role raised), signature kept.
        let parts: Vec<&str> = player.token.split('.').collect();
        assert_eq!(parts.len(), 3);
        bad.push(("edited payload", format!("{}.{}.{}", parts[0], b64(&claims), parts[2])));

        // alg: none, with and without a signature part.
        let none_header = b64(&json!({ "alg": "none", "typ": "JWT" }));
        bad.push(("alg none", format!("{none_header}.{}.", b64(&claims))));
        bad.push(("alg none, no dot", format!("{none_header}.{}", b64(&claims))));
        bad.push((
            "alg none, old signature",
            format!("{none_header}.{}.{}", b64(&claims), parts[2]),
        ));

        // Another algorithm, even with the right secret.
        let hs512 = jsonwebtoken::encode(
            &jsonwebtoken::Header::new(jsonwebtoken::Algorithm::HS512),
            &claims,
            &jsonwebtoken::EncodingKey::from_secret(&secret),
        )
        .unwrap();
        bad.push(("HS512", hs512));

        // Expired: issued with the right key two hours ago, one hour lifetime.
        let keys = TokenKeys::new(&secret, &[], 3600);
        let (expired, exp) = keys.issue(&player.id, Role::Player, &player.username, 0, now_s() - 7200);
        assert!(exp < now_s());
        bad.push(("expired", expired));
        // Expired by one second.
        let short = TokenKeys::new(&secret, &[], 1);
        bad.push((
            "just expired",
            short
                .issue(&player.id, Role::Player, &player.username, 0, now_s() - 2)
                .0,
        ));

        // Without an exp claim, signed correctly.
        let no_exp = jsonwebtoken::encode(
            &jsonwebtoken::Header::new(jsonwebtoken::Algorithm::HS256),
            &json!({ "sub": player.id, "role": "player", "name": player.username, "iat": now_s() }),
            &jsonwebtoken::EncodingKey::from_secret(&secret),
        )
        .unwrap();
        bad.push(("no exp", no_exp));

        for (what, token) in &bad {
            let r = app.get("/api/v1/me", Some(token)).await;
            assert_eq!(r.status, 401, "{what}: {}", r.text);
            r.assert_error(401, "unauthenticated");
        }

        // No header at all, or not a bearer token.
        app.get("/api/v1/me", None).await.assert_error(401, "unauthenticated");
        let basic = app
            .send(
                app.request(reqwest::Method::GET, "/api/v1/me", None)
                    .header("Authorization", "Basic YWRtaW46YWRtaW4="),
            )
            .await;
        basic.assert_error(401, "unauthenticated");
        let raw = app
            .send(
                app.request(reqwest::Method::GET, "/api/v1/me", None)
                    .header("Authorization", player.token.clone()),
            )
            .await;
        raw.assert_error(401, "unauthenticated");

        // A token correctly signed by this server for a fresh time still works:
        // the refusals above are about the token, not the account.
        let (fresh, _) = keys.issue(&player.id, Role::Player, &player.username, 0, now_s());
        app.get("/api/v1/me", Some(&fresh)).await.expect(200);
    }
);

fn login_from(app: &TestApp, username: &str, password: &str, address: &str) -> reqwest::RequestBuilder {
    app.request(reqwest::Method::POST, "/api/v1/auth/login", None)
        .header("X-Forwarded-For", format!("198.51.100.7, {address}"))
        .json(&json!({ "username": username, "password": password }))
}

async fn login_status(app: &TestApp, username: &str, password: &str, address: &str) -> (u16, String) {
    let r = app.send(login_from(app, username, password, address)).await;
    (r.status, r.text)
}

fn trusting_proxy(s: &mut djego::config::Settings) {
    s.trusted_proxies = djego::auth::proxies::TrustedProxies::any();
}

both_backends!(
    async fn a_burst_of_guesses_checks_no_more_passwords_than_the_limit(app: TestApp) {
        let player = app.create_user(Role::Player).await;
        let guesses = (0..40)
            .map(|i| {
                app.request(reqwest::Method::POST, "/api/v1/auth/login", None)
                    .json(&json!({ "username": player.username, "password": format!("guess-{i}") }))
            })
            .collect();
        let results = app.send_all_at_once(guesses).await;
        let checked = results.iter().filter(|(st, _)| *st == 401).count();
        let refused = results.iter().filter(|(st, _)| *st == 429).count();
        assert_eq!((checked, refused), (5, 35), "{results:?}");
        let failed = app.events("login_failed").await;
        assert_eq!(
            failed
                .iter()
                .filter(|e| e["subject"] == player.username.as_str())
                .count(),
            5,
            "exactly five passwords were checked"
        );
        // The right password after the burst is refused too, unchecked.
        app.try_login(&player.username, &player.password)
            .await
            .assert_error(429, "too_many_attempts");
    }
);

both_backends!(
    async fn a_lockout_holds_one_address_and_an_unlock_gives_the_guesser_nothing(app: TestApp) {
        let app = TestApp::spawn_with(app.backend, |s| {
            trusting_proxy(s);
            s.login_policy.per_account.attempts = 8;
        })
        .await;
        let boss = app.create_user(Role::Pitboss).await;
        let cashier = app.create_user(Role::Cashier).await;
        for _ in 0..5 {
            let (st, _) = login_status(&app, &cashier.username, "wrong-password", "203.0.113.1").await;
            assert_eq!(st, 401);
        }
        let locked = app
            .send(login_from(&app, &cashier.username, &cashier.password, "203.0.113.1"))
            .await;
        locked.assert_error(429, "too_many_attempts");
        let retry_after: u64 = locked.headers["retry-after"].to_str().unwrap().parse().unwrap();
        assert!((1..=15 * 60).contains(&retry_after), "Retry-After {retry_after}");

        // The attacker's address is locked out; the cashier at the cage is not.
        let (st, text) = login_status(&app, &cashier.username, &cashier.password, "203.0.113.2").await;
        assert_eq!(st, 200, "{text}");

        // Failures from more addresses spend the account's budget (8 here): it is in backoff now.
        for address in ["203.0.113.3", "203.0.113.4", "203.0.113.5"] {
            let (st, _) = login_status(&app, &cashier.username, "wrong-password", address).await;
            assert_eq!(st, 401);
        }
        // The backoff never holds the cage, where the cashier signed in, nor an address that never failed.
        for address in ["203.0.113.2", "203.0.113.6"] {
            let (st, text) = login_status(&app, &cashier.username, &cashier.password, address).await;
            assert_eq!(st, 200, "{address}: {text}");
        }
        // An address that failed waits; a new one gets one guess.
        let (st, _) = login_status(&app, &cashier.username, "wrong-password", "203.0.113.3").await;
        assert_eq!(st, 429, "a failed address in backoff");
        let (st, _) = login_status(&app, &cashier.username, "wrong-password", "203.0.113.7").await;
        assert_eq!(st, 401, "a new address's one guess");
        let (st, _) = login_status(&app, &cashier.username, "wrong-password", "203.0.113.7").await;
        assert_eq!(st, 429, "and no second");

        // The cashier mistypes at a new terminal and is held there.
        let (st, _) = login_status(&app, &cashier.username, "wrong-password", "198.51.100.20").await;
        assert_eq!(st, 401);
        let (st, _) = login_status(&app, &cashier.username, &cashier.password, "198.51.100.20").await;
        assert_eq!(st, 429);

        // A pit boss lifts it there; a cashier may not, and an address past 64 characters is refused.
        let path = format!("/api/v1/users/{}/unlock?address=198.51.100.20", cashier.id);
        app.post(&path, Some(&cashier.token), &json!({}), None)
            .await
            .assert_error(403, "forbidden");
        app.post(
            &format!("/api/v1/users/{}/unlock?address={}", cashier.id, "9".repeat(65)),
            Some(&boss.token),
            &json!({}),
            None,
        )
        .await
        .assert_error(400, "invalid_address");
        let lifted = app.post(&path, Some(&boss.token), &json!({}), None).await;
        assert_eq!(lifted.status, 204, "{}", lifted.text);
        let (st, text) = login_status(&app, &cashier.username, &cashier.password, "198.51.100.20").await;
        assert_eq!(st, 200, "the unlocked terminal: {text}");
        // The unlock gave the guesser nothing: its addresses are still held, and the
        // account is still in backoff for new ones.
        for address in ["203.0.113.1", "203.0.113.3", "203.0.113.7"] {
            let (st, _) = login_status(&app, &cashier.username, "wrong-password", address).await;
            assert_eq!(st, 429, "{address} after the unlock");
        }
        let (st, _) = login_status(&app, &cashier.username, "wrong-password", "203.0.113.8").await;
        assert_eq!(st, 401);
        let (st, _) = login_status(&app, &cashier.username, "wrong-password", "203.0.113.8").await;
        assert_eq!(st, 429, "one guess per new address, unlock or not");

        let unlocked = app.events("login_unlocked").await;
        assert_eq!(unlocked.len(), 1, "{unlocked:?}");
        let details: Value = serde_json::from_str(unlocked[0]["details"].as_str().unwrap()).unwrap();
        assert_eq!(details["address"], "198.51.100.20", "{details}");
        let failed = app.events("login_failed").await;
        let details: Value = serde_json::from_str(failed[0]["details"].as_str().unwrap()).unwrap();
        assert!(
            details["address"].as_str().unwrap().starts_with("203.0.113."),
            "{details}"
        );
    }
);

/// A client whose connections come from `ip` (any 127.x.y.z reaches the server on loopback).
fn client_from(ip: &str) -> reqwest::Client {
    reqwest::Client::builder()
        .local_address(Some(ip.parse().expect("an address")))
        .build()
        .expect("a client")
}

/// Where the attackers' addresses come from: the TCP peer, or the proxy's header.
#[derive(Clone, Copy)]
enum Via {
    Peer,
    Proxy,
}

/// A login as `username` from `address`: a socket bound to it, or through the trusted
/// proxy at 127.0.0.1 that names it in `X-Forwarded-For`.
fn attempt(app: &TestApp, via: Via, address: &str, username: &str, password: &str) -> reqwest::RequestBuilder {
    let body = json!({ "username": username, "password": password });
    let url = format!("{}/api/v1/auth/login", app.address);
    match via {
        Via::Peer => client_from(address).post(url).json(&body),
        Via::Proxy => app
            .client
            .post(url)
            .header("X-Forwarded-For", format!("10.9.9.9, {address}"))
            .json(&body),
    }
}

/// `attackers` addresses guess at the pit boss's password, all at once, until every one is
/// refused; the pit boss still signs in at their terminal and at an address that never failed,
/// and an unlock by a second pit boss gives the attackers nothing.
async fn siege(app: &TestApp, via: Via, attackers: usize, net: u8) {
    let policy = app.state.settings.login_policy.clone();
    let boss = app.create_user(Role::Pitboss).await;
    let terminal = format!("127.{net}.0.1");
    let st = app
        .send(attempt(app, via, &terminal, &boss.username, &boss.password))
        .await;
    assert_eq!(st.status, 200, "the pit boss signs in at the pit: {}", st.text);
    let addresses: Vec<String> = (0..attackers)
        .map(|i| format!("127.{net}.{}.{}", 1 + i / 200, 10 + i % 200))
        .collect();
    let mut checked = 0;
    let started = std::time::Instant::now();
    for round in 0.. {
        let guesses = addresses
            .iter()
            .map(|a| attempt(app, via, a, &boss.username, &format!("guess-{round}")))
            .collect();
        let results = app.send_all_at_once(guesses).await;
        assert!(results.iter().all(|(st, _)| *st == 401 || *st == 429), "{results:?}");
        let round_checked = results.iter().filter(|(st, _)| *st == 401).count();
        checked += round_checked;
        if round_checked == 0 {
            break;
        }
        assert!(round < 10, "the attack never ran dry");
    }
    // No more passwords were checked than the account's budget plus one per address in backoff,
    // and never more than five from one address.
    let budget = policy.per_account.attempts as usize + attackers;
    assert!(
        checked <= budget.min(attackers * policy.per_account_address.attempts as usize),
        "{checked} passwords checked from {attackers} addresses"
    );
    eprintln!(
        "{attackers} addresses: {checked} passwords checked in {:?}",
        started.elapsed()
    );

    // The pit boss signs in at the pit, and from an address that never failed.
    for address in [terminal.clone(), format!("127.{net}.250.1")] {
        let r = app
            .send(attempt(app, via, &address, &boss.username, &boss.password))
            .await;
        assert_eq!(r.status, 200, "the pit boss at {address}: {}", r.text);
    }
    // Another pit boss unlocks the account; the attackers' addresses are still refused.
    let second = app.create_user(Role::Pitboss).await;
    let lifted = app
        .post(
            &format!("/api/v1/users/{}/unlock", boss.id),
            Some(&second.token),
            &json!({}),
            None,
        )
        .await;
    assert_eq!(lifted.status, 204, "{}", lifted.text);
    let again = addresses
        .iter()
        .map(|a| attempt(app, via, a, &boss.username, "after-the-unlock"))
        .collect();
    let results = app.send_all_at_once(again).await;
    assert!(
        results.iter().all(|(st, _)| *st == 429),
        "the unlock gave the attackers nothing: {results:?}"
    );
    let r = app
        .send(attempt(app, via, &terminal, &boss.username, &boss.password))
        .await;
    assert_eq!(r.status, 200, "the pit boss after the unlock: {}", r.text);
}

both_backends!(
    async fn a_siege_from_many_peers_cannot_keep_the_pit_boss_out(app: TestApp) {
        siege(&app, Via::Peer, 10, 1).await;
        siege(&app, Via::Peer, 100, 2).await;
    }
);

both_backends!(
    async fn a_siege_through_the_proxy_cannot_keep_the_pit_boss_out(app: TestApp) {
        let app = TestApp::spawn_with(app.backend, |s| {
            s.trusted_proxies = djego::auth::proxies::TrustedProxies::parse("127.0.0.1").unwrap();
        })
        .await;
        siege(&app, Via::Proxy, 10, 1).await;
        siege(&app, Via::Proxy, 100, 2).await;
    }
);

both_backends!(
    async fn a_lockout_decays_however_often_it_is_hammered(app: TestApp) {
        let app = TestApp::spawn_with(app.backend, |s| s.login_policy.per_account_address.window_s = 2).await;
        let dealer = app.create_user(Role::Dealer).await;
        let started = std::time::Instant::now();
        for _ in 0..5 {
            app.try_login(&dealer.username, "wrong-password")
                .await
                .assert_error(401, "unauthenticated");
        }
        // Refused attempts during the lockout do not extend it.
        while started.elapsed() < std::time::Duration::from_millis(1_500) {
            app.try_login(&dealer.username, "wrong-password")
                .await
                .assert_error(429, "too_many_attempts");
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        }
        tokio::time::sleep(std::time::Duration::from_millis(2_100).saturating_sub(started.elapsed())).await;
        app.login(&dealer.username, &dealer.password).await;
    }
);

both_backends!(
    async fn a_flood_of_failed_logins_degrades_only_logins(app: TestApp) {
        let app = TestApp::spawn_with(app.backend, |s| {
            trusting_proxy(s);
            s.db_max_connections = 4;
            s.password_check_concurrency = 1;
            // Real argon2 cost, so the checks are slow enough to pile up.
            s.argon2_memory_kib = 19 * 1024;
        })
        .await;
        let cashier = app.create_user(Role::Cashier).await;
        let player = app.create_user(Role::Player).await;
        let mut requests: Vec<reqwest::RequestBuilder> = (0..40)
            .map(|i| login_from(&app, &cashier.username, "wrong-password", &format!("192.0.2.{i}")))
            .collect();
        let others = 20;
        for i in 0..others {
            requests.push(if i % 2 == 0 {
                app.request(reqwest::Method::GET, "/api/v1/me", Some(&player.token))
            } else {
                app.request(reqwest::Method::POST, "/api/v1/cage/deposits", Some(&cashier.token))
                    .json(&json!({ "player_id": player.id, "amount": "1.00" }))
            });
        }
        let results = app.send_all_at_once(requests).await;
        let (logins, rest) = results.split_at(40);
        for (st, text) in logins {
            assert!(
                *st == 401 || (*st == 503 && text.contains("login_busy")),
                "a login answers 401 or 503 login_busy: {st} {text}"
            );
        }
        for (st, text) in rest {
            assert!(
                *st == 200 || *st == 201,
                "others are served during the flood: {st} {text}"
            );
        }
        assert_eq!(app.balance(&player.id).await, "10.00");
    }
);

both_backends!(
    async fn significant_events_name_the_users_they_concern(app: TestApp) {
        let player = app.create_user(Role::Player).await;
        app.post("/api/v1/auth/logout", Some(&player.token), &json!({}), None)
            .await;
        let boss = app.create_user(Role::Pitboss).await;
        let events = app
            .get("/api/v1/audit/events?kind=logged_out", Some(&boss.token))
            .await
            .expect(200);
        let logout = events
            .as_array()
            .unwrap()
            .iter()
            .find(|e| e["actor_id"] == player.id.as_str())
            .unwrap_or_else(|| panic!("no logout of the player in {events}"));
        assert_eq!(logout["actor_username"], player.username.as_str(), "{logout}");
        assert_eq!(logout["subject_username"], player.username.as_str(), "{logout}");
        // A subject that is not a user's id stays unnamed.
        let bad = json!({ "username": player.username, "password": "not the password" });
        app.post("/api/v1/auth/login", None, &bad, None)
            .await
            .assert_error(401, "unauthenticated");
        let failed = app
            .get("/api/v1/audit/events?kind=login_failed", Some(&boss.token))
            .await
            .expect(200);
        let failed = &failed[0];
        assert_eq!(failed["subject"], player.username.as_str(), "{failed}");
        assert!(
            failed["subject_username"].is_null() && failed["actor_username"].is_null(),
            "{failed}"
        );
    }
);
