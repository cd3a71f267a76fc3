//! The screens as people use them: headless Chromium (Debian's package)
//! driven through ChromeDriver against a real `djego serve --demo`.
//! `cargo test --test browser` (needs /usr/bin/chromium and
//! /usr/bin/chromedriver; `.ci/run` installs them).

mod harness;

mod accessibility;
mod account;
mod compliance;
mod confidence;
mod console;
mod dealer;
mod fuerza;
mod peg_leg;
mod player;
mod protection;
mod round;
