mod card;
pub use card::*;
pub mod certify;
pub mod per_suit;
#[cfg(test)]
pub(crate) mod python_verifier_tests;
pub mod shuffle;
#[cfg(test)]
mod test_vectors;
pub mod transcript;
