DROP TABLE fuerza_bets;
