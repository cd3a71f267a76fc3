//! /health, /ready, /metrics, the OpenAPI document and its browsable UI.

use crate::helpers::{Backend, TestApp, TestDb};

both_backends!(
    async fn health_and_ready_answer(app: TestApp) {
        let health = app.get("/health", None).await.expect(200);
        assert_eq!(health["status"], "ok");
        assert_eq!(health["version"], env!("CARGO_PKG_VERSION"));
        let ready = app.get("/ready", None).await.expect(200);
        assert_eq!(ready["status"], "ready");
        let expected = match app.backend {
            Backend::Sqlite => "sqlite",
            Backend::Postgres => "postgres",
        };
        assert_eq!(ready["database"], expected);
    }
);

both_backends!(
    async fn metrics_count_requests_by_route(app: TestApp) {
        app.get("/health", None).await.expect(200);
        app.get("/api/v1/me", None).await.assert_error(401, "unauthenticated");
        let r = app.get("/metrics", None).await;
        assert_eq!(r.status, 200);
        let ct = r
            .headers
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .unwrap_or("");
        assert!(ct.starts_with("text/plain"), "content type {ct}");
        assert!(r.text.contains("djego_http_requests_total"), "{}", r.text);
        assert!(r.text.contains("djego_http_request_duration_seconds"), "{}", r.text);
        assert!(r.text.contains("route=\"/health\""), "{}", r.text);
        assert!(r.text.contains("route=\"/api/v1/me\""), "{}", r.text);
        // Raw paths never become labels.
        app.get("/api/v1/wallets/some-random-id-123", None).await;
        let r = app.get("/metrics", None).await;
        assert!(!r.text.contains("some-random-id-123"), "raw path leaked into labels");
        assert!(r.text.contains("route=\"/api/v1/wallets/{player_id}\""), "{}", r.text);
    }
);

both_backends!(
    async fn the_openapi_document_and_docs_ui_are_served(app: TestApp) {
        let doc = app.get("/api-docs/openapi.json", None).await.expect(200);
        assert!(
            doc["openapi"].as_str().unwrap_or("").starts_with("3."),
            "{}",
            doc["openapi"]
        );
        let paths = doc["paths"].as_object().expect("paths");
        for p in [
            "/api/v1/auth/login",
            "/api/v1/me",
            "/api/v1/users",
            "/api/v1/cage/deposits",
            "/api/v1/cage/withdrawals",
            "/api/v1/cage/corrections",
            "/api/v1/wallets/{player_id}",
            "/api/v1/audit/ledger/verify",
            "/health",
            "/ready",
            "/metrics",
        ] {
            assert!(paths.contains_key(p), "{p} missing from the served document");
        }
        // The served document is the one the code generates (and openapi/ keeps).
        let generated: serde_json::Value = serde_json::from_str(&djego::api::openapi_json()).unwrap();
        assert_eq!(doc, generated);

        let r = app.get("/docs/", None).await;
        assert_eq!(r.status, 200, "{}", r.text);
        let ct = r
            .headers
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .unwrap_or("");
        assert!(ct.starts_with("text/html"), "content type {ct}");
        assert!(r.text.to_ascii_lowercase().contains("<html"), "{}", r.text);
        let r = app.get("/docs", None).await;
        assert!((300..400).contains(&r.status), "/docs redirects: {}", r.status);
        assert_eq!(r.headers.get("location").and_then(|v| v.to_str().ok()), Some("/docs/"));
    }
);

/// /ready is 503 in the error shape when the database is gone: here the
/// PostgreSQL database is dropped under the running app (PostgreSQL only:
/// an embedded SQLite file cannot be taken away from connections already open).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ready_is_503_when_the_postgres_database_is_gone() {
    let app = TestApp::spawn(Backend::Postgres).await;
    app.get("/ready", None).await.expect(200);
    let TestDb::Postgres(pg) = &*app.db else { unreachable!() };
    // Drop the database behind the app's back (forcing its sessions closed).
    pg.drop_now();
    let started = std::time::Instant::now();
    let r = app.get("/ready", None).await;
    r.assert_error(503, "database_unavailable");
    assert!(started.elapsed() < std::time::Duration::from_secs(30));
    // Liveness is not readiness: /health still answers.
    app.get("/health", None).await.expect(200);
}

/// The Kubernetes readiness probe's timeout in seconds, read from the manifest.
fn readiness_probe_timeout_s() -> u64 {
    let manifest = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/deploy/k8s/deployment.yaml"))
        .expect("the deployment manifest");
    let probe = manifest.split("readinessProbe:").nth(1).expect("a readiness probe");
    probe
        .lines()
        .find_map(|l| l.trim().strip_prefix("timeoutSeconds:"))
        .expect("a readiness timeout")
        .trim()
        .parse()
        .expect("a number of seconds")
}

// With every pooled connection taken (an outage as the pool sees it), /ready
// answers 503 before the orchestrator's probe gives up on it.
both_backends!(
    async fn ready_answers_503_within_the_probe_timeout_when_no_connection_comes(app: TestApp) {
        let probe_timeout_ms = readiness_probe_timeout_s() * 1_000;
        assert!(
            djego::api::health::READY_TIMEOUT_MS * 2 <= probe_timeout_ms,
            "readiness waits {} ms for the database; the probe gives up after {probe_timeout_ms} ms",
            djego::api::health::READY_TIMEOUT_MS
        );
        let app = TestApp::spawn_with(app.backend, |s| s.db_max_connections = 2).await;
        let held: Vec<_> = (0..2).map(|_| app.database().conn().expect("a connection")).collect();
        let started = std::time::Instant::now();
        app.get("/ready", None).await.assert_error(503, "database_unavailable");
        assert!(
            started.elapsed() < std::time::Duration::from_millis(probe_timeout_ms),
            "/ready took {:?}",
            started.elapsed()
        );
        drop(held);
        app.get("/ready", None).await.expect(200);
    }
);
