//! `Idempotency-Key` for requests that change state (docs/ledger.md): a retry
//! with the same key and body returns the first result and changes nothing;
//! the same key with another body is a 409. The stored result is written in the same
//! transaction as the money, so they cannot disagree.

use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse};
use diesel::prelude::*;
use serde::Serialize;
use sha2::{Digest, Sha256};

use super::error::ApiError;
use super::state::AppState;
use crate::auth::ClaimedCaller;
use crate::store::schema::idempotency_keys as ik;
use crate::store::{now_us, on_backend, AnyConnection};
use crate::wagers::{Committed, IdempotencyKey, Wager, WagerRequest};

pub const HEADER: &str = "Idempotency-Key";
const MAX_KEY_LEN: usize = 128;

/// A request's key (if any) and the fingerprint of what it asks.
#[derive(Clone, Debug)]
pub struct IdempotentRequest {
    pub key: Option<String>,
    fingerprint: String,
}

impl IdempotentRequest {
    pub fn from_request(req: &HttpRequest, body: &impl Serialize) -> Result<IdempotentRequest, ApiError> {
        let key = match req.headers().get(HEADER) {
            None => None,
            Some(v) => {
                let k = v.to_str().map_err(|_| invalid_key())?.trim().to_string();
                if k.is_empty() || k.len() > MAX_KEY_LEN || !k.chars().all(|c| c.is_ascii_graphic()) {
                    return Err(invalid_key());
                }
                Some(k)
            }
        };
        let mut h = Sha256::new();
        h.update(req.method().as_str());
        h.update(b" ");
        h.update(req.path());
        h.update(b"\n");
        h.update(serde_json::to_vec(body).unwrap_or_default());
        Ok(IdempotentRequest {
            key,
            fingerprint: hex::encode(h.finalize()),
        })
    }
}

/// Queues a wager with the caller's key to this instance's committer and
/// waits for its commit; the wager path stores and replays the answer itself.
pub async fn commit_wager(
    state: &AppState,
    caller: ClaimedCaller,
    request: IdempotentRequest,
    wager: Wager,
) -> Result<Committed, ApiError> {
    let idempotency = request.key.map(|key| IdempotencyKey {
        key,
        fingerprint: request.fingerprint,
    });
    // A wager still queued when this gives up is dropped by the committer.
    Ok(state
        .within_db_timeout(state.committer.submit(WagerRequest {
            caller,
            idempotency,
            wager,
        }))
        .await??)
}

/// Answers with a committed wager's stored response.
pub fn committed_response(committed: &Committed) -> HttpResponse {
    HttpResponse::build(StatusCode::from_u16(committed.status).unwrap_or(StatusCode::OK))
        .content_type("application/json")
        .body(committed.body.clone())
}

fn invalid_key() -> ApiError {
    ApiError::bad_request(
        "invalid_idempotency_key",
        "Idempotency-Key must be 1 to 128 visible ASCII characters",
    )
}

/// Runs `op` in a write transaction unless this caller already used the key;
/// returns the response to send (`status` on first run, the stored one after).
///
/// The key is claimed first thing in the transaction. A twin that arrives
/// while the first is in flight waits on that claim (PostgreSQL's unique
/// index; SQLite's single writer) and then replays the first's answer, so it
/// is never judged against the state the first one left. A failed request
/// stores nothing: its claim rolls back with it, and a retry runs afresh.
pub async fn run<T, F>(
    state: &AppState,
    caller_id: &str,
    request: IdempotentRequest,
    status: StatusCode,
    op: F,
) -> Result<HttpResponse, ApiError>
where
    T: Serialize + Send + 'static,
    F: FnOnce(&mut AnyConnection, Option<&str>) -> Result<T, ApiError> + Send + 'static,
{
    run_answer(state, caller_id, request, move |conn, key| Ok((status, op(conn, key)?))).await
}

/// [`run`] for a request whose success status depends on what it did (a
/// change made at once, or proposed for approval).
pub async fn run_answer<T, F>(
    state: &AppState,
    caller_id: &str,
    request: IdempotentRequest,
    op: F,
) -> Result<HttpResponse, ApiError>
where
    T: Serialize + Send + 'static,
    F: FnOnce(&mut AnyConnection, Option<&str>) -> Result<(StatusCode, T), ApiError> + Send + 'static,
{
    let caller_id = caller_id.to_string();
    state
        .blocking(move |s| {
            s.db.write(|conn| -> Result<(u16, String), ApiError> {
                if let Some(key) = &request.key {
                    if !claim(conn, &caller_id, key, &request.fingerprint)? {
                        let row = stored(conn, &caller_id, key)?.ok_or_else(|| {
                            ApiError::internal("an Idempotency-Key claim vanished before it could be replayed")
                        })?;
                        return replay(row, &request.fingerprint);
                    }
                }
                let (status, value) = op(conn, request.key.as_deref())?;
                let body = serde_json::to_string(&value).map_err(|e| ApiError::internal(e.to_string()))?;
                if let Some(key) = &request.key {
                    diesel::update(ik::table.find((&caller_id, key)))
                        .set((ik::status_code.eq(status.as_u16() as i32), ik::response_body.eq(&body)))
                        .execute(conn)?;
                }
                Ok((status.as_u16(), body))
            })
        })
        .await
        .map(|(code, body)| {
            HttpResponse::build(StatusCode::from_u16(code).unwrap_or(StatusCode::OK))
                .content_type("application/json")
                .body(body)
        })
}

/// Claims `(caller, key)` for this transaction; false when a committed
/// request already holds it. On PostgreSQL the insert waits for an
/// uncommitted twin's claim to commit or roll back.
fn claim(conn: &mut AnyConnection, caller_id: &str, key: &str, fingerprint: &str) -> QueryResult<bool> {
    let inserted = on_backend!(conn, |conn| diesel::insert_into(ik::table)
        .values((
            ik::user_id.eq(caller_id),
            ik::idem_key.eq(key),
            ik::request_hash.eq(fingerprint),
            // Filled in before commit; never seen by another transaction.
            ik::status_code.eq(0),
            ik::response_body.eq(""),
            ik::created_at_us.eq(now_us()),
        ))
        .on_conflict_do_nothing()
        .execute(conn))?;
    Ok(inserted == 1)
}

type StoredRow = (String, i32, String);

fn stored(conn: &mut AnyConnection, caller_id: &str, key: &str) -> QueryResult<Option<StoredRow>> {
    ik::table
        .find((caller_id, key))
        .select((ik::request_hash, ik::status_code, ik::response_body))
        .first(conn)
        .optional()
}

fn replay((hash, code, body): StoredRow, fingerprint: &str) -> Result<(u16, String), ApiError> {
    if hash == fingerprint {
        Ok((code as u16, body))
    } else {
        Err(ApiError::conflict(
            "idempotency_key_reused",
            "this Idempotency-Key was already used with a different request",
        ))
    }
}
