//! Game math: exact RTPs, the simulated distribution of N, certification,
//! operator tools and plots (docs/math.md).
pub mod basic_strategy;
mod cached;
mod certify;
mod exact;
pub mod fuerza;
mod n_distribution;
pub mod observed_rtp;
pub mod plots;
mod published;
mod simulate;
mod suggest;

pub use cached::*;
pub use certify::*;
pub use exact::{escucha_probabilities, maximo_probabilities, prima_probabilities, rational_to_decimal_string};
pub use n_distribution::*;
pub use published::*;
pub use simulate::*;
pub use suggest::*;
