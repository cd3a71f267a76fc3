//! The committed OpenAPI document (openapi/openapi.json) is the one the code
//! generates. When this fails, regenerate it and commit the result:
//!
//!     cargo run -- openapi > openapi/openapi.json

const REGENERATE: &str = "cargo run -- openapi > openapi/openapi.json";

#[test]
fn committed_openapi_document_matches_the_code() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("openapi/openapi.json");
    let generated = djego::api::openapi_json();
    let committed = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) => panic!(
            "cannot read {}: {e}\nGenerate it with:\n    {REGENERATE}",
            path.display()
        ),
    };
    if committed == generated {
        return;
    }
    // Point at the first difference to make the drift easy to see.
    let first = committed
        .lines()
        .zip(generated.lines())
        .enumerate()
        .find(|(_, (a, b))| a != b)
        .map(|(i, (a, b))| {
            format!(
                "first difference at line {}:\n  committed: {a}\n  generated: {b}",
                i + 1
            )
        })
        .unwrap_or_else(|| {
            format!(
                "one document is a prefix of the other ({} vs {} lines)",
                committed.lines().count(),
                generated.lines().count()
            )
        });
    panic!(
        "openapi/openapi.json is out of date with the code (the API changed).\n{first}\n\
         Regenerate and commit it:\n    {REGENERATE}"
    );
}

#[test]
fn the_document_is_valid_json_with_every_operation_documented() {
    let doc: serde_json::Value = serde_json::from_str(&djego::api::openapi_json()).expect("valid JSON");
    assert!(doc["openapi"].as_str().unwrap_or("").starts_with("3."));
    let paths = doc["paths"].as_object().expect("paths");
    assert!(!paths.is_empty());
    for (path, ops) in paths {
        for (method, op) in ops.as_object().unwrap() {
            if !["get", "post", "put", "patch", "delete"].contains(&method.as_str()) {
                continue;
            }
            let responses = op["responses"]
                .as_object()
                .unwrap_or_else(|| panic!("{method} {path}: no responses"));
            assert!(!responses.is_empty(), "{method} {path}: no responses");
            assert!(
                op["tags"].as_array().is_some_and(|t| !t.is_empty()),
                "{method} {path}: no tag"
            );
            // Protected endpoints declare the bearer scheme; the public ones are named here.
            const PUBLIC: [&str; 2] = ["/api/v1/auth/login", "/api/v1/rounds/{round_id}/verification"];
            if path.starts_with("/api/v1/") && !PUBLIC.contains(&path.as_str()) {
                assert!(op.get("security").is_some(), "{method} {path}: no security requirement");
            }
        }
    }
}

/// What every operation of a kind can answer is declared: 401 when it needs a
/// token, 400/413/415 when it takes a body, 503 when it reads the database;
/// and no union is left that no value can satisfy.
#[test]
fn the_errors_an_operation_can_give_are_declared() {
    let doc: serde_json::Value = serde_json::from_str(&djego::api::openapi_json()).expect("valid JSON");
    for (path, ops) in doc["paths"].as_object().expect("paths") {
        for (method, op) in ops.as_object().unwrap() {
            let responses = op["responses"].as_object().expect("responses");
            let declares = |status: &str| {
                assert!(
                    responses.contains_key(status),
                    "{method} {path} does not declare {status}"
                )
            };
            if op.get("security").is_some() {
                declares("401");
            }
            if op.get("requestBody").is_some() {
                declares("400");
                declares("413");
                declares("415");
            }
            if path.starts_with("/api/") {
                declares("503");
            }
        }
    }
    for (name, schema) in doc["components"]["schemas"].as_object().expect("schemas") {
        for branch in schema["oneOf"].as_array().into_iter().flatten() {
            assert!(
                branch.get("allOf").is_none(),
                "{name}: a oneOf branch built with allOf ({branch})"
            );
        }
    }
    let events = &doc["paths"]["/api/v1/tables/{table_id}/events"]["get"]["responses"]["200"]["content"];
    assert!(
        events.get("text/event-stream").is_some(),
        "the live events are text/event-stream: {events}"
    );
}

#[test]
fn every_operation_has_an_id_of_its_own() {
    let doc: serde_json::Value = serde_json::from_str(&djego::api::openapi_json()).expect("JSON");
    let mut seen = std::collections::BTreeMap::<String, String>::new();
    let mut twice = Vec::new();
    for (path, ops) in doc["paths"].as_object().expect("paths") {
        for (method, op) in ops.as_object().expect("operations") {
            let Some(id) = op.get("operationId").and_then(|v| v.as_str()) else {
                continue;
            };
            let here = format!("{} {path}", method.to_uppercase());
            if let Some(first) = seen.insert(id.to_owned(), here.clone()) {
                twice.push(format!("{id}: {first} and {here}"));
            }
        }
    }
    // OpenAPI requires it, and client generators name their functions after it.
    assert!(twice.is_empty(), "operationIds used twice:\n{}", twice.join("\n"));
}
