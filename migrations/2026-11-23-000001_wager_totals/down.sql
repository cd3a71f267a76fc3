DROP TABLE round_bet_totals;
DROP TABLE round_exposures;
