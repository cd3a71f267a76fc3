//! What the OpenAPI document promises and the server enforces, in one place:
//! the grammar of amounts, free-text fields and the `Idempotency-Key` header,
//! the names clients may send, the shape of live events, the error responses
//! every operation of a kind can give, and a last pass over the generated
//! document so that a client generated from it is neither looser nor stricter
//! than the server.
//!
//! The rule the document follows: a request the schema allows is never
//! refused with 400 (that would be a gap in the schema); 400 means the request
//! breaks the documented grammar. A well-formed request can still be refused
//! by the state of things (404 unknown, 409 conflict, 422 a rule across
//! fields or the ledger, such as insufficient funds).

use std::borrow::Cow;

use serde_json::{json, Map, Value};
use utoipa::openapi::{OpenApi, RefOr, Schema};
use utoipa::{IntoParams, Modify, PartialSchema, ToSchema};

use super::error::ApiError;
use crate::bets::BetKind;
use crate::cards::Suit;
use crate::games::lobo::PlayKind;

/// A positive amount with at most two decimals, at most 1000000000.00: what
/// `Amount::parse` accepts (leading zeros are allowed, as there).
pub const AMOUNT_PATTERN: &str =
    r"^(0*[1-9][0-9]{0,8}(\.[0-9]{1,2})?|0*1000000000(\.0{1,2})?|0+\.(0[1-9]|[1-9][0-9]?))$";

/// Unicode White_Space, the characters Rust's `str::trim` removes, as a
/// regular-expression class body.
const WHITE_SPACE: &str = r"\t-\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000";

/// A reason (corrections, voids): at most 500 characters, of which at least
/// 3 once surrounding white space is trimmed (it is stored trimmed).
pub const REASON_MIN_CHARS: usize = 3;
pub const REASON_MAX_CHARS: usize = 500;
/// A table's name: 1 to 64 characters, not all white space.
pub const TABLE_NAME_MAX_CHARS: usize = 64;
/// A cage memo: at most 200 characters.
pub const MEMO_MAX_CHARS: usize = 200;

fn schema_from(value: Value) -> RefOr<Schema> {
    serde_json::from_value(value).expect("a hand-written schema is a valid schema")
}

/// The schema of money sent to djego.
pub struct Amount;

impl PartialSchema for Amount {
    fn schema() -> RefOr<Schema> {
        schema_from(json!({
            "type": "string",
            "pattern": AMOUNT_PATTERN,
            "description": "A positive decimal string with at most two decimals, at most 1000000000.00, \
                            such as \"12.50\". Never a JSON number: floats never touch money.",
            "examples": ["12.50"],
        }))
    }
}

impl ToSchema for Amount {
    fn name() -> Cow<'static, str> {
        Cow::Borrowed("Amount")
    }
}

/// A pay `a` of a pay table, meaning a:1.
pub struct Pays;

impl PartialSchema for Pays {
    fn schema() -> RefOr<Schema> {
        schema_from(json!({
            "type": "string",
            "pattern": r"^([1-9][0-9]{0,4}(\.[0-9]{1,2})?|100000(\.0{1,2})?|0\.(0[1-9]|[1-9][0-9]?))$",
            "description": "a:1 as a decimal string: more than 0, at most 100000, at most two decimals.",
            "examples": ["14"],
        }))
    }
}

impl ToSchema for Pays {
    fn name() -> Cow<'static, str> {
        Cow::Borrowed("Pays")
    }
}

/// Why a correction or a void is made.
pub struct Reason;

impl PartialSchema for Reason {
    fn schema() -> RefOr<Schema> {
        schema_from(json!({
            "type": "string",
            "maxLength": REASON_MAX_CHARS,
            // Two characters that are not white space with at least one between:
            // 3 or more characters once trimmed; no NUL anywhere.
            "pattern": format!(r"^[^\u0000]*[^{WHITE_SPACE}\u0000][^\u0000]+[^{WHITE_SPACE}\u0000][^\u0000]*$"),
            "description": "At most 500 characters, at least 3 of them once surrounding white space is \
                            trimmed (it is stored trimmed).",
            "examples": ["miscounted chips at the cage"],
        }))
    }
}

impl ToSchema for Reason {
    fn name() -> Cow<'static, str> {
        Cow::Borrowed("Reason")
    }
}

/// Checks a reason and returns it trimmed.
pub fn check_reason(text: &str, what: &str) -> Result<String, ApiError> {
    let reason = text.trim();
    if text.chars().count() > REASON_MAX_CHARS || reason.chars().count() < REASON_MIN_CHARS {
        return Err(ApiError::bad_request(
            "invalid_reason",
            format!(
                "{what} needs a reason of at most {REASON_MAX_CHARS} characters, \
                 at least {REASON_MIN_CHARS} of them besides surrounding white space"
            ),
        ));
    }
    Ok(reason.to_string())
}

/// A table's name.
pub struct TableName;

impl PartialSchema for TableName {
    fn schema() -> RefOr<Schema> {
        schema_from(json!({
            "type": "string",
            "minLength": 1,
            "maxLength": TABLE_NAME_MAX_CHARS,
            // Somewhere a character that is not white space; no NUL anywhere.
            "pattern": format!(r"^[^\u0000]*[^{WHITE_SPACE}\u0000][^\u0000]*$"),
            "description": "1 to 64 characters, not all white space; stored trimmed, unique.",
            "examples": ["Prima Carta 2"],
        }))
    }
}

impl ToSchema for TableName {
    fn name() -> Cow<'static, str> {
        Cow::Borrowed("TableName")
    }
}

pub fn check_table_name(name: &str) -> Result<(), ApiError> {
    if name.trim().is_empty() || name.chars().count() > TABLE_NAME_MAX_CHARS {
        return Err(ApiError::bad_request(
            "invalid_name",
            format!("table name must be 1 to {TABLE_NAME_MAX_CHARS} characters, not all white space"),
        ));
    }
    Ok(())
}

pub fn check_memo(memo: &Option<String>) -> Result<(), ApiError> {
    match memo {
        Some(m) if m.chars().count() > MEMO_MAX_CHARS => Err(ApiError::bad_request(
            "invalid_memo",
            format!("memo must be at most {MEMO_MAX_CHARS} characters"),
        )),
        _ => Ok(()),
    }
}

fn names_schema(names: Vec<&str>, description: &str) -> RefOr<Schema> {
    schema_from(json!({ "type": "string", "enum": names, "description": description }))
}

/// A suit's name.
pub struct SuitName;

impl PartialSchema for SuitName {
    fn schema() -> RefOr<Schema> {
        names_schema(
            Suit::ALL.iter().map(|s| s.name()).collect(),
            "A suit of the Postas deck.",
        )
    }
}

impl ToSchema for SuitName {
    fn name() -> Cow<'static, str> {
        Cow::Borrowed("Suit")
    }
}

/// A side bet's kind.
pub struct BetKindName;

impl PartialSchema for BetKindName {
    fn schema() -> RefOr<Schema> {
        names_schema(BetKind::ALL.iter().map(|k| k.name()).collect(), "A house side bet.")
    }
}

impl ToSchema for BetKindName {
    fn name() -> Cow<'static, str> {
        Cow::Borrowed("BetKind")
    }
}

/// A confidence bet's kind (docs/confidence-bets.md).
pub struct ConfidenceKindName;

impl PartialSchema for ConfidenceKindName {
    fn schema() -> RefOr<Schema> {
        names_schema(
            crate::games::prima_carta::confidence::KINDS.to_vec(),
            "A confidence bet between players: prima, fuerza, seguro, wins, first_to_complete or first_pass_count.",
        )
    }
}

impl ToSchema for ConfidenceKindName {
    fn name() -> Cow<'static, str> {
        Cow::Borrowed("ConfidenceKind")
    }
}

/// A side of a confidence bet.
pub struct SideName;

impl PartialSchema for SideName {
    fn schema() -> RefOr<Schema> {
        names_schema(
            vec!["for", "against"],
            "For the bet's proposition (wins when it comes true) or against it.",
        )
    }
}

impl ToSchema for SideName {
    fn name() -> Cow<'static, str> {
        Cow::Borrowed("Side")
    }
}

/// A Lobo play's kind.
pub struct PlayKindName;

impl PartialSchema for PlayKindName {
    fn schema() -> RefOr<Schema> {
        let names: Vec<Value> = PlayKind::ALL
            .iter()
            .map(|k| serde_json::to_value(k).expect("play kinds serialize"))
            .collect();
        schema_from(json!({ "type": "string", "enum": names, "description": "A kind of Lobo play." }))
    }
}

impl ToSchema for PlayKindName {
    fn name() -> Cow<'static, str> {
        Cow::Borrowed("PlayKind")
    }
}

/// A card's id: suit index × 10 + rank − 1.
pub struct CardId;

impl PartialSchema for CardId {
    fn schema() -> RefOr<Schema> {
        schema_from(json!({
            "type": "integer",
            "minimum": 0,
            "maximum": crate::cards::Card::DECK_SIZE - 1,
            "description": "A card of the 50-card deck: suit index (crowns 0, locks 1, fruit 2, swords 3, cups 4) \
                            × 10 + rank − 1.",
        }))
    }
}

impl ToSchema for CardId {
    fn name() -> Cow<'static, str> {
        Cow::Borrowed("CardId")
    }
}

/// What a side bet is on: a suit, a Cartas number, or nothing.
pub struct BetSelection;

impl PartialSchema for BetSelection {
    fn schema() -> RefOr<Schema> {
        schema_from(json!({
            "description": "What the bet is on: `{\"suit\": …}` for Prima, Escúcha and Máximo, \
                            `{\"number\": …}` for Cartas, the string \"none\" for the others.",
            "oneOf": [
                {
                    "type": "object",
                    "required": ["suit"],
                    "properties": { "suit": { "$ref": "#/components/schemas/Suit" } },
                    "additionalProperties": false,
                },
                {
                    "type": "object",
                    "required": ["number"],
                    "properties": { "number": { "type": "integer", "minimum": 0, "maximum": 255 } },
                    "additionalProperties": false,
                },
                { "type": "string", "enum": ["none"] },
            ],
        }))
    }
}

impl ToSchema for BetSelection {
    fn name() -> Cow<'static, str> {
        Cow::Borrowed("BetSelection")
    }

    fn schemas(schemas: &mut Vec<(String, RefOr<Schema>)>) {
        schemas.push((SuitName::name().into_owned(), SuitName::schema()));
    }
}

/// One Server-Sent Event of a table's live stream (each event, not the stream).
pub struct TableEvent;

impl PartialSchema for TableEvent {
    fn schema() -> RefOr<Schema> {
        let json_data = |schema: Value| json!({ "type": "string", "contentMediaType": "application/json", "contentSchema": schema });
        let event = |names: Value, data: Value| {
            json!({
                "type": "object",
                "required": ["event", "data"],
                "properties": { "event": { "type": "string", "enum": names }, "data": data, "id": { "type": "string" } },
            })
        };
        let game_events = json!([
            "pass_started",
            "reshuffled",
            "card_dealt",
            "prima",
            "played_up",
            "suit_completed",
            "pass_ended",
            "corte",
            "copa_paid",
            "folded",
            "won",
            "cobre"
        ]);
        schema_from(json!({
            "description": "One event of the stream; its `data` is JSON. First `state`: the current Prima Carta \
                            round's public view, `null` when there is none; at a Peg Leg table its latest round as watchers see it \
                            (or `null`); at a Lobo table `{\"table\": …, \"rounds_in_play\": […], \"contests\": […]}` \
                            (each round in play as its player sees it, newest first, at most 500; each contest still \
                            taking entries or in play as any watcher sees it, newest first, at most 50). \
                            Then `table` when the table changes, each game event of a round (`data` is the \
                            event, with its `type`) followed by `round` (the round's public view); at a \
                            Lobo table, `lobo_round` (the round as its player sees it, never a face-down \
                            card) when a round starts, at each play and when it ends, and `lobo_contest` (the \
                            contest as any watcher sees it: never an entrant's cards or id) at each change of a \
                            contest; at a Peg Leg table, `peg_leg_round` (the round as watchers see it) at each \
                            change; and `resync` when the watcher fell behind and should reload the state. A stream \
                            ends with `ended` (its `reason`) when the session it was opened with ends: \
                            logout, deactivation, a role or password change. Comments \
                            (`: keep-alive`) keep the connection open.",
            "oneOf": [
                event(json!(["state"]), json_data(json!({ "oneOf": [
                    { "type": "null" },
                    { "$ref": "#/components/schemas/RoundView" },
                    {
                        "type": "object",
                        "required": ["table", "rounds_in_play", "contests"],
                        "properties": {
                            "table": { "$ref": "#/components/schemas/Table" },
                            "rounds_in_play": {
                                "type": "array",
                                "items": { "$ref": "#/components/schemas/LoboView" },
                            },
                            "contests": {
                                "type": "array",
                                "items": { "$ref": "#/components/schemas/ContestView" },
                            },
                        },
                    },
                    { "$ref": "#/components/schemas/PegLegRoundView" },
                ] }))),
                event(json!(["lobo_contest"]), json_data(json!({ "$ref": "#/components/schemas/ContestView" }))),
                event(json!(["peg_leg_round"]), json_data(json!({ "$ref": "#/components/schemas/PegLegRoundView" }))),
                event(json!(["round"]), json_data(json!({ "$ref": "#/components/schemas/RoundView" }))),
                event(json!(["lobo_round"]), json_data(json!({ "$ref": "#/components/schemas/LoboView" }))),
                event(json!(["table"]), json_data(json!({ "$ref": "#/components/schemas/Table" }))),
                event(json!(["resync", "ended"]), json_data(json!({
                    "type": "object",
                    "required": ["reason"],
                    "properties": { "reason": { "type": "string" } },
                }))),
                event(game_events, json_data(json!({
                    "type": "object",
                    "required": ["type"],
                    "properties": { "type": { "type": "string" } },
                }))),
            ],
        }))
    }
}

impl ToSchema for TableEvent {
    fn name() -> Cow<'static, str> {
        Cow::Borrowed("TableEvent")
    }
}

/// The `Idempotency-Key` header of money-moving requests.
#[derive(IntoParams)]
#[into_params(parameter_in = Header)]
#[allow(dead_code)] // documents a header the handlers read from the request
pub struct IdempotencyKeyHeader {
    /// Makes retries safe: a retry with the same key and body returns the
    /// first answer and moves nothing; the same key with another body is a 409.
    #[param(
        rename = "Idempotency-Key",
        min_length = 1,
        max_length = 128,
        pattern = r"^[!-~]{1,128}$"
    )]
    idempotency_key: Option<String>,
}

/// The error responses shared by operations, by status.
const SHARED_RESPONSES: [(&str, &str, &str); 10] = [
    ("400", "BadRequest", "The request breaks the documented grammar: malformed JSON, an unknown or missing field, a value out of its range, a bad query or header."),
    ("401", "Unauthenticated", "No valid `Authorization: Bearer` token."),
    ("403", "Forbidden", "The caller's role, or their relation to the resource, does not allow this."),
    ("404", "NotFound", "No such resource (or none the caller may see)."),
    ("409", "Conflict", "The resource's state does not allow this now (e.g. betting closed, a stale play, an Idempotency-Key reused with another body)."),
    ("413", "PayloadTooLarge", "The body is larger than the server accepts (64 KiB by default)."),
    ("415", "UnsupportedMediaType", "The body is not `Content-Type: application/json`."),
    ("422", "Unprocessable", "Well-formed but refused by a rule across fields or by the ledger (e.g. limits, insufficient funds, an illegal play)."),
    ("429", "TooManyRequests", "Too many attempts; try again later."),
    ("503", "Unavailable", "The database cannot be reached; retry later."),
];

/// The last pass over the generated document (see the module's comment).
pub struct Conformance;

impl Modify for Conformance {
    fn modify(&self, openapi: &mut OpenApi) {
        let mut doc = serde_json::to_value(&*openapi).expect("the document serializes");
        add_shared_responses(&mut doc);
        close_tagged_unions(&mut doc);
        parameters_are_never_null(&mut doc);
        strings_exclude_nul(&mut doc);
        *openapi = serde_json::from_value(doc).expect("the amended document is still a document");
    }
}

const METHODS: [&str; 8] = ["get", "put", "post", "delete", "options", "head", "patch", "trace"];

fn is_error_body(response: &Value) -> bool {
    response.pointer("/content/application~1json/schema/$ref") == Some(&json!("#/components/schemas/ErrorBody"))
}

/// Declares, on every operation, the errors its shape implies (401 when it
/// needs a token; 400, 413 and 415 when it takes a body; 400 when it takes a
/// query or a header; 409 when it takes an Idempotency-Key; 503 when it reads
/// the database), and points every
/// undescribed error at the shared declaration of its status.
fn add_shared_responses(doc: &mut Value) {
    let components = doc["components"].as_object_mut().expect("components");
    let responses = components
        .entry("responses")
        .or_insert_with(|| json!({}))
        .as_object_mut()
        .expect("responses is an object");
    for (_, name, description) in SHARED_RESPONSES {
        responses.insert(
            name.to_string(),
            json!({
                "description": description,
                "content": { "application/json": { "schema": { "$ref": "#/components/schemas/ErrorBody" } } },
            }),
        );
    }
    let shared = |status: &str| {
        SHARED_RESPONSES
            .iter()
            .find(|(s, _, _)| *s == status)
            .map(|(_, name, _)| json!({ "$ref": format!("#/components/responses/{name}") }))
    };
    let Some(paths) = doc["paths"].as_object_mut() else {
        return;
    };
    for (path, item) in paths.iter_mut() {
        for method in METHODS {
            let Some(op) = item.get_mut(method).and_then(Value::as_object_mut) else {
                continue;
            };
            let secured = op
                .get("security")
                .and_then(Value::as_array)
                .is_some_and(|s| !s.is_empty());
            let has_body = op.contains_key("requestBody");
            let has_params = op
                .get("parameters")
                .and_then(Value::as_array)
                .is_some_and(|ps| ps.iter().any(|p| p["in"] == "query" || p["in"] == "header"));
            let mut implied = Vec::new();
            if secured {
                implied.push("401");
            }
            if has_body {
                implied.extend(["400", "413", "415"]);
            }
            if has_params {
                implied.push("400");
            }
            // A key reused with another request is a 409 on every operation that takes one.
            let takes_idempotency_key = op
                .get("parameters")
                .and_then(Value::as_array)
                .is_some_and(|ps| ps.iter().any(|p| p["in"] == "header" && p["name"] == "Idempotency-Key"));
            if takes_idempotency_key {
                implied.push("409");
            }
            if path.starts_with("/api/") {
                implied.push("503");
            }
            let responses = op
                .entry("responses")
                .or_insert_with(|| json!({}))
                .as_object_mut()
                .expect("responses is an object");
            for status in implied {
                if !responses.contains_key(status) {
                    responses.insert(status.to_string(), shared(status).expect("a shared response"));
                }
            }
            for (status, response) in responses.iter_mut() {
                let undescribed = response.get("description").and_then(Value::as_str) == Some("");
                if undescribed && is_error_body(response) {
                    if let Some(r) = shared(status) {
                        *response = r;
                    }
                }
            }
        }
    }
}

/// utoipa writes an internally tagged enum as `oneOf` of `allOf [variant,
/// {tag}]`; when the variant forbids other properties, no value can satisfy
/// both halves. Each such branch becomes one object: the tag and the
/// variant's own properties, nothing else.
fn close_tagged_unions(doc: &mut Value) {
    let schemas = doc["components"]["schemas"].as_object().cloned().unwrap_or_default();
    let Some(targets) = doc["components"]["schemas"].as_object_mut() else {
        return;
    };
    for (_, schema) in targets.iter_mut() {
        let Some(branches) = schema.get_mut("oneOf").and_then(Value::as_array_mut) else {
            continue;
        };
        for branch in branches.iter_mut() {
            let Some([variant, tag]) = branch.get("allOf").and_then(Value::as_array).map(Vec::as_slice) else {
                continue;
            };
            let Some(name) = variant["$ref"]
                .as_str()
                .and_then(|r| r.strip_prefix("#/components/schemas/"))
            else {
                continue;
            };
            let Some(variant) = schemas.get(name) else { continue };
            let mut properties = tag["properties"].as_object().cloned().unwrap_or_default();
            properties.extend(variant["properties"].as_object().cloned().unwrap_or_default());
            let mut required: Vec<Value> = tag["required"].as_array().cloned().unwrap_or_default();
            required.extend(variant["required"].as_array().cloned().unwrap_or_default());
            let mut merged = Map::new();
            merged.insert("type".into(), json!("object"));
            if let Some(d) = variant.get("description") {
                merged.insert("description".into(), d.clone());
            }
            merged.insert("required".into(), Value::Array(required));
            merged.insert("properties".into(), Value::Object(properties));
            if let Some(closed) = variant.get("additionalProperties") {
                merged.insert("additionalProperties".into(), closed.clone());
            }
            *branch = Value::Object(merged);
        }
    }
}

/// The pattern that says a string holds no NUL character: djego refuses a NUL
/// in any string of a path, a query or a body (400 `invalid_characters`,
/// `api/input_gate.rs`).
pub const NO_NUL_PATTERN: &str = "^[^\\u0000]*$";

/// States the NUL rule on every string schema that does not already say what
/// it holds (a pattern of its own, or a list of values): a client, or a
/// generator of test requests, reading the document learns it there.
fn strings_exclude_nul(doc: &mut Value) {
    match doc {
        Value::Object(map) => {
            let is_string = match map.get("type") {
                Some(Value::String(t)) => t == "string",
                Some(Value::Array(types)) => types.iter().any(|t| t == "string"),
                _ => false,
            };
            let constrained = ["pattern", "enum", "const"].iter().any(|k| map.contains_key(*k));
            if is_string && !constrained {
                map.insert("pattern".into(), Value::String(NO_NUL_PATTERN.into()));
            }
            // An object that takes members it does not list: their names hold no NUL either.
            let open_object = map.get("type") == Some(&Value::String("object".into()))
                && map.get("additionalProperties") != Some(&Value::Bool(false))
                && !map.contains_key("propertyNames");
            if open_object {
                map.insert(
                    "propertyNames".into(),
                    json!({ "type": "string", "pattern": NO_NUL_PATTERN }),
                );
            }
            for (key, value) in map.iter_mut() {
                // Examples are data, not schemas.
                if key != "example" && key != "examples" {
                    strings_exclude_nul(value);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(strings_exclude_nul),
        _ => {}
    }
}

/// A query parameter or a header is absent or a string: never JSON `null`.
fn parameters_are_never_null(doc: &mut Value) {
    let Some(paths) = doc["paths"].as_object_mut() else {
        return;
    };
    for (_, item) in paths.iter_mut() {
        for method in METHODS {
            let Some(params) = item
                .get_mut(method)
                .and_then(|op| op.get_mut("parameters"))
                .and_then(Value::as_array_mut)
            else {
                continue;
            };
            for p in params {
                let Some(schema) = p.get_mut("schema") else { continue };
                if let Some(types) = schema.get("type").and_then(Value::as_array) {
                    let kept: Vec<Value> = types.iter().filter(|t| *t != "null").cloned().collect();
                    if kept.len() == 1 {
                        schema["type"] = kept[0].clone();
                    }
                }
                if let Some(one_of) = schema.get("oneOf").and_then(Value::as_array) {
                    let kept: Vec<Value> = one_of.iter().filter(|s| s["type"] != "null").cloned().collect();
                    if kept.len() == 1 {
                        *schema = kept[0].clone();
                    }
                }
            }
        }
    }
}
