//! The in-browser verifier (web/js/shuffle.js) agrees with the Python
//! verifier and with `djego verify round` on every variant of the test
//! vectors and on tampered copies: tests/web/shuffle_vectors.mjs, run by
//! Node (≥ 20, for WebCrypto) with this build's binary.

/// Runs a script under tests/web/ with Node from the repository's root; asserts it succeeded and
/// returns what it printed.
fn node(script: &str) -> String {
    let root = env!("CARGO_MANIFEST_DIR");
    let out = std::process::Command::new("node")
        .arg(format!("{root}/tests/web/{script}"))
        .current_dir(root)
        .env("DJEGO_BIN", env!("CARGO_BIN_EXE_djego"))
        .output()
        .expect("node runs (Node.js 20 or later; .ci/run installs it)");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

#[test]
fn the_browser_verifier_agrees_with_both_other_verifiers() {
    let stdout = node("shuffle_vectors.mjs");
    assert!(stdout.contains("all ") && stdout.contains(" cases passed"), "{stdout}");
}

/// tests/web/words.mjs: web/js/words.js has words for every bet, transfer and
/// significant event the source names, and a wallet memo never shows an id.
#[test]
fn every_code_the_pages_show_has_words() {
    let stdout = node("words.mjs");
    assert!(stdout.contains("all ") && stdout.contains(" checks passed"), "{stdout}");
}
