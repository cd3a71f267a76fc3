//! The in-browser verifier (web/js/shuffle.js) agrees with the Python
//! verifier and with `djego verify round` on every variant of the test
//! vectors and on tampered copies: tests/web/shuffle_vectors.mjs, run by
//! Node (≥ 20, for WebCrypto) with this build's binary.

#[test]
fn the_browser_verifier_agrees_with_both_other_verifiers() {
    let root = env!("CARGO_MANIFEST_DIR");
    let out = std::process::Command::new("node")
        .arg(format!("{root}/tests/web/shuffle_vectors.mjs"))
        .current_dir(root)
        .env("DJEGO_BIN", env!("CARGO_BIN_EXE_djego"))
        .output()
        .expect("node runs (Node.js 20 or later; .ci/run installs it)");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("all ") && stdout.contains(" cases passed"), "{stdout}");
}
