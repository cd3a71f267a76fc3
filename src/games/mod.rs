pub mod prima_carta;
