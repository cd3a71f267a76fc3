//! Bad input: always a 4xx in the error shape, never a panic, never a write.

use crate::helpers::assert_error_shape;
use djego::domain::Role;
use reqwest::Method;
use serde_json::json;

both_backends!(
    async fn malformed_json_is_a_400(app: TestApp) {
        for body in [
            "{\"username\": \"a\",",
            "not json at all",
            "{\"username\": \"a\" \"password\": \"b\"}",
            "",
        ] {
            let r = app
                .send(
                    app.request(Method::POST, "/api/v1/auth/login", None)
                        .header("content-type", "application/json")
                        .body(body.to_string()),
                )
                .await;
            assert_eq!(r.status, 400, "body {body:?}: {}", r.text);
            let code = r.json()["error"]["code"].as_str().unwrap().to_string();
            assert!(
                code == "malformed_json" || code == "invalid_body",
                "body {body:?}: {}",
                r.text
            );
        }
        let r = app
            .send(
                app.request(Method::POST, "/api/v1/auth/login", None)
                    .header("content-type", "application/json")
                    .body("{\"username\": \"a\","),
            )
            .await;
        r.assert_error(400, "malformed_json");
    }
);

both_backends!(
    async fn unknown_and_missing_fields_and_wrong_types_are_400(app: TestApp) {
        let r = app
            .post(
                "/api/v1/auth/login",
                None,
                &json!({ "username": "a", "password": "b", "extra": 1 }),
                None,
            )
            .await;
        r.assert_error(400, "invalid_body");
        assert!(r.text.contains("extra"), "names the field: {}", r.text);
        app.post("/api/v1/auth/login", None, &json!({ "username": "a" }), None)
            .await
            .assert_error(400, "invalid_body");
        app.post(
            "/api/v1/auth/login",
            None,
            &json!({ "username": 5, "password": "b" }),
            None,
        )
        .await
        .assert_error(400, "invalid_body");
        app.post("/api/v1/auth/login", None, &json!("a string"), None)
            .await
            .assert_error(400, "invalid_body");

        // The same on an authenticated, money-moving endpoint: and nothing moves.
        let cashier = app.create_user(Role::Cashier).await;
        let player = app.create_user(Role::Player).await;
        let before = app.last_seq().await;
        app.cage(
            &cashier,
            "deposits",
            &json!({ "player_id": player.id, "amount": "5.00", "bonus": "1.00" }),
            None,
        )
        .await
        .assert_error(400, "invalid_body");
        app.cage(&cashier, "deposits", &json!({ "amount": "5.00" }), None)
            .await
            .assert_error(400, "invalid_body");
        assert_eq!(app.last_seq().await, before);
        assert_eq!(app.balance(&player.id).await, "0.00");

        // Query strings too.
        let auditor = app.auditor().await.token.clone();
        app.get("/api/v1/audit/events?limit=abc", Some(&auditor))
            .await
            .assert_error(400, "invalid_query");
        app.get("/api/v1/audit/events?colour=red", Some(&auditor))
            .await
            .assert_error(400, "invalid_query");
        app.get("/api/v1/audit/events?limit=0", Some(&auditor))
            .await
            .assert_error(400, "invalid_limit");
        app.get("/api/v1/audit/events?limit=501", Some(&auditor))
            .await
            .assert_error(400, "invalid_limit");
        app.get("/api/v1/audit/events?offset=-1", Some(&auditor))
            .await
            .assert_error(400, "invalid_offset");
        app.get("/api/v1/users?role=emperor", Some(&auditor))
            .await
            .assert_error(400, "invalid_query");
    }
);

both_backends!(
    async fn wrong_content_type_is_a_415(app: TestApp) {
        let body = json!({ "username": "a", "password": "b" }).to_string();
        for ct in [Some("text/plain"), Some("application/x-www-form-urlencoded"), None] {
            let mut req = app.request(Method::POST, "/api/v1/auth/login", None).body(body.clone());
            if let Some(ct) = ct {
                req = req.header("content-type", ct);
            }
            let r = app.send(req).await;
            assert_eq!(r.status, 415, "content type {ct:?}: {}", r.text);
            r.assert_error(415, "unsupported_media_type");
        }
    }
);

both_backends!(
    async fn a_payload_over_64_kib_is_a_413(app: TestApp) {
        let big = "x".repeat(70 * 1024);
        let r = app
            .post(
                "/api/v1/auth/login",
                None,
                &json!({ "username": "a", "password": big }),
                None,
            )
            .await;
        r.assert_error(413, "payload_too_large");
        // Also on a money-moving endpoint, with nothing moved.
        let cashier = app.create_user(Role::Cashier).await;
        let player = app.create_user(Role::Player).await;
        let r = app
            .cage(
                &cashier,
                "deposits",
                &json!({ "player_id": player.id, "amount": "1.00", "memo": big }),
                None,
            )
            .await;
        r.assert_error(413, "payload_too_large");
        assert_eq!(app.balance(&player.id).await, "0.00");
        // Just under the limit is parsed (and then refused on its merits).
        let under = "y".repeat(60 * 1024);
        app.cage(
            &cashier,
            "deposits",
            &json!({ "player_id": player.id, "amount": "1.00", "memo": under }),
            None,
        )
        .await
        .assert_error(400, "invalid_memo");
        // An over-long login is refused before any password work.
        app.post(
            "/api/v1/auth/login",
            None,
            &json!({ "username": "a", "password": "z".repeat(300) }),
            None,
        )
        .await
        .assert_error(400, "invalid_body");
    }
);

both_backends!(
    async fn the_screens_are_served_under_a_self_only_policy(app: TestApp) {
        for (path, kind) in [
            ("/", "text/html"),
            ("/player", "text/html"),
            ("/dealer", "text/html"),
            ("/console", "text/html"),
            ("/verify", "text/html"),
            ("/js/api.js", "javascript"),
            ("/css/djego.css", "text/css"),
        ] {
            let r = app.get(path, None).await;
            assert_eq!(r.status, 200, "{path}: {}", r.text);
            let header = |name: &str| r.headers[name].to_str().unwrap().to_string();
            assert!(
                header("content-type").contains(kind),
                "{path}: {}",
                header("content-type")
            );
            let policy = header("content-security-policy");
            assert!(
                policy.contains("default-src 'self'") && policy.contains("frame-ancestors 'none'"),
                "{policy}"
            );
            assert!(!policy.contains("unsafe-inline"), "{policy}");
            assert_eq!(header("x-content-type-options"), "nosniff");
            // Revalidation by the file's hash.
            let again = app
                .send(
                    app.request(reqwest::Method::GET, path, None)
                        .header("if-none-match", header("etag")),
                )
                .await;
            assert_eq!(again.status, 304, "{path}");
        }
    }
);

both_backends!(
    async fn unknown_routes_are_404_in_the_error_shape(app: TestApp) {
        for path in [
            "/api/v1/nope",
            "/nope",
            "/api/v2/me",
            "/api/v1/wallets",
            "/js/nope.js",
            "/js/..%2FCargo.toml",
            "/css/../Cargo.toml",
        ] {
            let r = app.get(path, None).await;
            r.assert_error(404, "not_found");
        }
        let r = app.post("/api/v1/nothing/here", None, &json!({}), None).await;
        r.assert_error(404, "not_found");
        // Unknown wallet / user ids are 404s too.
        let auditor = app.auditor().await.token.clone();
        app.get("/api/v1/wallets/no-such-player", Some(&auditor))
            .await
            .assert_error(404, "not_found");
    }
);

both_backends!(
    async fn a_nul_character_anywhere_is_a_400_and_changes_nothing(app: TestApp) {
        let boss = app.create_user(Role::Pitboss).await;
        let cashier = app.create_user(Role::Cashier).await;
        let player = app.create_user(Role::Player).await;
        app.fund(&cashier, &player.id, "10.00").await;
        let seq = app.last_seq().await;

        let login = app
            .post(
                "/api/v1/auth/login",
                None,
                &json!({ "username": "admin\u{0}", "password": "whatever-password" }),
                None,
            )
            .await;
        login.assert_error(400, "invalid_characters");
        let memo = app
            .post(
                "/api/v1/cage/deposits",
                Some(&cashier.token),
                &json!({ "player_id": player.id, "amount": "5.00", "memo": "cash\u{0}" }),
                None,
            )
            .await;
        memo.assert_error(400, "invalid_characters");
        let name = app
            .post(
                "/api/v1/users",
                Some(&boss.token),
                &json!({ "username": "nul-user", "display_name": "Nul\u{0}", "role": "player", "password": "long-enough-password" }),
                None,
            )
            .await;
        name.assert_error(400, "invalid_characters");
        for path in [
            "/api/v1/tables/%00".to_string(),
            format!("/api/v1/wallets/{}%00", player.id),
            "/api/v1/audit/events?kind=login%00failed".to_string(),
        ] {
            app.get(&path, Some(&boss.token))
                .await
                .assert_error(400, "invalid_characters");
        }
        // An escaped backslash followed by "u0000" is text, not a NUL.
        let text = app
            .post(
                "/api/v1/cage/deposits",
                Some(&cashier.token),
                &json!({ "player_id": player.id, "amount": "5.00", "memo": "a \\u0000 b" }),
                None,
            )
            .await;
        text.expect(201);
        assert_eq!(app.last_seq().await, seq + 1, "only the last deposit moved money");
    }
);

both_backends!(
    async fn an_amount_padded_with_any_space_is_a_400_and_moves_nothing(app: TestApp) {
        let cashier = app.create_user(Role::Cashier).await;
        let player = app.create_user(Role::Player).await;
        for amount in [
            " 5.00",
            "5.00 ",
            "\t5.00",
            "5.00\n",
            "\u{a0}5.00",
            "5.00\u{a0}",
            "\u{2003}5.00",
        ] {
            let r = app
                .post(
                    "/api/v1/cage/deposits",
                    Some(&cashier.token),
                    &json!({ "player_id": player.id, "amount": amount }),
                    None,
                )
                .await;
            assert_eq!(r.status, 400, "{amount:?}: {}", r.text);
            assert_error_shape(&r.json(), "invalid_body");
            assert!(r.text.contains("decimal string"), "{}", r.text);
        }
        assert_eq!(app.balance(&player.id).await, "0.00");
        assert_eq!(app.last_seq().await, 0);
    }
);

both_backends!(
    async fn a_json_array_is_not_read_as_an_object(app: TestApp) {
        let boss = app.create_user(Role::Pitboss).await;
        let dealer = app.create_user(Role::Dealer).await;
        // serde would read these positionally as a login and as an update.
        let login = app
            .post("/api/v1/auth/login", None, &json!(["admin", "whatever-password"]), None)
            .await;
        login.assert_error(400, "invalid_body");
        let update = app
            .put(
                &format!("/api/v1/users/{}", dealer.id),
                Some(&boss.token),
                &json!([null, false]),
                None,
            )
            .await;
        update.assert_error(400, "invalid_body");
        app.get("/api/v1/me", Some(&dealer.token)).await.expect(200);
    }
);

both_backends!(
    async fn without_a_token_every_protected_operation_is_a_401_before_its_input_is_read(app: TestApp) {
        use djego::api::ApiDoc;
        use utoipa::OpenApi;
        let doc = serde_json::to_value(ApiDoc::openapi()).unwrap();
        let bad_bodies: [(&str, &str); 5] = [
            ("application/json", "{\"amount\": "),
            ("text/plain", "hello"),
            ("application/json", "[1, 2]"),
            ("application/json", "{\"memo\": \"a\\u0000b\"}"),
            ("application/json", "{\"no_such_field\": 1}"),
        ];
        let mut checked = 0;
        for (path, item) in doc["paths"].as_object().unwrap() {
            for (method, operation) in item.as_object().unwrap() {
                let needs_token = operation["security"]
                    .as_array()
                    .is_some_and(|s| !s.is_empty() && s.iter().all(|r| r.as_object().is_some_and(|r| !r.is_empty())));
                if !needs_token {
                    continue;
                }
                // Ids that name nothing, and a query nothing accepts.
                let mut concrete = String::new();
                for part in path.split('/').filter(|p| !p.is_empty()) {
                    concrete.push('/');
                    concrete.push_str(if part.starts_with('{') {
                        "0195d3c4-0000-7000-8000-000000000000"
                    } else {
                        part
                    });
                }
                concrete.push_str("?limit=many&no_such_parameter=1");
                let method = Method::from_bytes(method.to_ascii_uppercase().as_bytes()).unwrap();
                for (content_type, body) in bad_bodies {
                    for token in [None, Some("not-a-token")] {
                        let r = app
                            .send(
                                app.request(method.clone(), &concrete, token)
                                    .header("content-type", content_type)
                                    .body(body.to_string()),
                            )
                            .await;
                        assert_eq!(
                            r.status, 401,
                            "{method} {concrete} with {content_type} {body:?} and token {token:?}: {}",
                            r.text
                        );
                        r.assert_error(401, "unauthenticated");
                        checked += 1;
                    }
                }
            }
        }
        assert!(
            checked > 500,
            "only {checked} requests: the document lists the protected operations"
        );
    }
);
