DROP TABLE player_reality_checks;
