pub mod lobo;
pub mod peg_leg;
pub mod prima_carta;
