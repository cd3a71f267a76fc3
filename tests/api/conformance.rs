//! The server does what its OpenAPI document says: unsupported methods.

use reqwest::Method;

use crate::helpers::TestApp;

both_backends!(
    async fn an_unsupported_method_on_a_known_path_is_a_405_naming_the_allowed_ones(app: TestApp) {
        let table = uuid::Uuid::new_v4();
        let dealer = uuid::Uuid::new_v4();
        for (method, path, allow) in [
            (Method::TRACE, "/api/v1/me".to_string(), "GET"),
            (Method::DELETE, "/health".to_string(), "GET"),
            (Method::GET, "/api/v1/cage/deposits".to_string(), "POST"),
            (Method::PATCH, format!("/api/v1/tables/{table}"), "GET"),
            (
                Method::TRACE,
                format!("/api/v1/tables/{table}/dealers/{dealer}"),
                "PUT, DELETE",
            ),
            (Method::OPTIONS, "/api/v1/users".to_string(), "GET, POST"),
        ] {
            let r = app.send(app.request(method.clone(), &path, None)).await;
            r.assert_error(405, "method_not_allowed");
            let got = r.headers.get("allow").and_then(|v| v.to_str().ok()).unwrap_or("");
            assert_eq!(got, allow, "Allow of {method} {path}");
        }
        // Unknown paths stay 404, whatever the method.
        for method in [Method::GET, Method::TRACE, Method::DELETE] {
            let r = app.send(app.request(method, "/api/v1/no/such/thing", None)).await;
            r.assert_error(404, "not_found");
            assert!(r.headers.get("allow").is_none());
        }
    }
);
