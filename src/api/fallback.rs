//! What answers a request no route took: 405 with `Allow` when the path is
//! one of the API's and only the method is wrong, 404 otherwise; both in the
//! one error shape. The paths and their methods are read from the OpenAPI
//! document, so the answer agrees with what the document declares.

use actix_web::dev::ResourceDef;
use actix_web::http::{header, StatusCode};
use actix_web::{HttpRequest, HttpResponse};
use std::sync::LazyLock;
use utoipa::OpenApi;

use super::error::ApiError;

/// Each documented path with the methods it answers, as an `Allow` value.
static DOCUMENTED: LazyLock<Vec<(ResourceDef, Vec<&'static str>)>> = LazyLock::new(|| {
    let doc = serde_json::to_value(super::ApiDoc::openapi()).expect("the document serializes");
    let mut out = Vec::new();
    for (path, item) in doc["paths"].as_object().into_iter().flatten() {
        let methods: Vec<&'static str> = [
            ("get", "GET"),
            ("put", "PUT"),
            ("post", "POST"),
            ("delete", "DELETE"),
            ("options", "OPTIONS"),
            ("head", "HEAD"),
            ("patch", "PATCH"),
            ("trace", "TRACE"),
        ]
        .into_iter()
        .filter(|(key, _)| item.get(*key).is_some())
        .map(|(_, name)| name)
        .collect();
        out.push((ResourceDef::new(path.as_str()), methods));
    }
    out
});

/// The methods a documented path answers, or `None` when no documented path matches.
pub fn allowed_methods(path: &str) -> Option<Vec<&'static str>> {
    let mut methods: Vec<&'static str> = Vec::new();
    let mut matched = false;
    for (def, ms) in DOCUMENTED.iter() {
        if def.is_match(path) {
            matched = true;
            for m in ms {
                if !methods.contains(m) {
                    methods.push(m);
                }
            }
        }
    }
    matched.then_some(methods)
}

pub async fn not_routed(req: HttpRequest) -> HttpResponse {
    not_routed_response(&req)
}

pub fn not_routed_response(req: &HttpRequest) -> HttpResponse {
    match allowed_methods(req.path()) {
        Some(methods) => {
            let mut response = HttpResponse::from_error(ApiError::new(
                StatusCode::METHOD_NOT_ALLOWED,
                "method_not_allowed",
                format!("{} is not allowed here; allowed: {}", req.method(), methods.join(", ")),
            ));
            if let Ok(value) = header::HeaderValue::from_str(&methods.join(", ")) {
                response.headers_mut().insert(header::ALLOW, value);
            }
            response
        }
        None => HttpResponse::from_error(ApiError::new(StatusCode::NOT_FOUND, "not_found", "no such endpoint")),
    }
}
