DROP TABLE confidence_bets;
