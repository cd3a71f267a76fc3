// TEMPORARY (not committed): runs tests/api/lobo.rs alone while other suites are being edited.
#[macro_use]
#[path = "api/helpers.rs"]
mod helpers;
#[path = "api/lobo.rs"]
mod lobo;
