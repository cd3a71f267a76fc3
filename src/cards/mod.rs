mod card;
pub use card::*;
pub mod shuffle;
pub mod transcript;
pub mod certify;
#[cfg(test)]
mod python_verifier_tests;
#[cfg(test)]
mod test_vectors;
