//! One gate in front of every handler, for rules that hold for every
//! request, so that no handler has to remember them:
//! - no NUL character: a NUL in the path, the query or any JSON string is a
//!   400. PostgreSQL cannot store NUL in text and SQLite would store it
//!   silently; refusing it here keeps the two databases alike;
//! - a JSON body is an object: serde would read a struct from an array by
//!   position (`["admin", "pw"]` as a login), which no client means.

use actix_web::body::MessageBody;
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::middleware::Next;
use actix_web::web::BytesMut;
use actix_web::HttpMessage;
use futures_util::StreamExt;

use super::error::ApiError;

fn nul_refused(where_: &str) -> actix_web::Error {
    ApiError::bad_request(
        "invalid_characters",
        format!("the {where_} contains a NUL character, which djego never accepts"),
    )
    .into()
}

/// True when `json` holds the escape `\u0000` (JSON's only way to carry a
/// NUL: a raw control byte is not valid JSON). An escape starts at a
/// backslash preceded by an even run of backslashes.
fn json_has_nul_escape(json: &[u8]) -> bool {
    let mut backslashes = 0usize;
    for (i, &b) in json.iter().enumerate() {
        if b == b'\\' {
            backslashes += 1;
            continue;
        }
        if backslashes % 2 == 1 && b == b'u' && json[i + 1..].starts_with(b"0000") {
            return true;
        }
        backslashes = 0;
    }
    false
}

fn uri_has_nul(uri: &str) -> bool {
    uri.as_bytes()
        .windows(3)
        .any(|w| w[0] == b'%' && w[1] == b'0' && w[2] == b'0')
}

/// Checks the URI, then reads the body (up to `limit_bytes`; a longer one is
/// refused with 413 here, as the JSON extractor would) and hands it on.
pub async fn refuse(
    limit_bytes: usize,
    mut req: ServiceRequest,
    next: Next<impl MessageBody>,
) -> Result<ServiceResponse<impl MessageBody>, actix_web::Error> {
    if req.uri().path_and_query().is_some_and(|pq| uri_has_nul(pq.as_str())) {
        return Err(nul_refused("address"));
    }
    let mut payload = req.take_payload();
    let mut body = BytesMut::new();
    while let Some(chunk) = payload.next().await {
        let chunk = chunk?;
        if body.len() + chunk.len() > limit_bytes {
            return Err(ApiError::new(
                actix_web::http::StatusCode::PAYLOAD_TOO_LARGE,
                "payload_too_large",
                format!("the body is larger than {limit_bytes} bytes"),
            )
            .into());
        }
        body.extend_from_slice(&chunk);
    }
    if json_has_nul_escape(&body) {
        return Err(nul_refused("body"));
    }
    if body.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'[') {
        return Err(ApiError::bad_request("invalid_body", "the body must be a JSON object").into());
    }
    req.set_payload(actix_web::dev::Payload::from(body.freeze()));
    next.call(req).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_nul_escape_and_only_it() {
        assert!(json_has_nul_escape(br#"{"a":"x\u0000y"}"#));
        assert!(json_has_nul_escape(br#"{"a":"\\\u0000"}"#));
        assert!(
            !json_has_nul_escape(br#"{"a":"\\u0000"}"#),
            "an escaped backslash, then text"
        );
        assert!(!json_has_nul_escape(br#"{"a":"\u0001"}"#));
        assert!(!json_has_nul_escape(br#"{"a":"u0000"}"#));
        assert!(!json_has_nul_escape(b""));
    }

    #[test]
    fn finds_an_encoded_nul_in_a_uri() {
        assert!(uri_has_nul("/api/v1/tables/%00"));
        assert!(uri_has_nul("/api/v1/audit/events?kind=a%00b"));
        assert!(!uri_has_nul("/api/v1/audit/events?kind=a%2000"));
        assert!(!uri_has_nul("/api/v1/tables/%20x"));
    }
}
