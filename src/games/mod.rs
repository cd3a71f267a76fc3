pub mod lobo;
pub mod prima_carta;
