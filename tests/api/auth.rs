//! Login, the login rate limit, and token checking (issue #2).

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
        assert_eq!(limited.len(), 2, "{limited:?}");
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
        let other = TokenKeys::new(b"another-secret-another-secret-another-secret", 600);
        bad.push((
            "wrong signature",
            other.issue(&player.id, Role::Pitboss, &player.username, now_s()).0,
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
        let keys = TokenKeys::new(&secret, 3600);
        let (expired, exp) = keys.issue(&player.id, Role::Player, &player.username, now_s() - 7200);
        assert!(exp < now_s());
        bad.push(("expired", expired));
        // Expired by one second.
        let short = TokenKeys::new(&secret, 1);
        bad.push((
            "just expired",
            short.issue(&player.id, Role::Player, &player.username, now_s() - 2).0,
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
        let (fresh, _) = keys.issue(&player.id, Role::Player, &player.username, now_s());
        app.get("/api/v1/me", Some(&fresh)).await.expect(200);
    }
);
