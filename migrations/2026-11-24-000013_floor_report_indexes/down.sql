DROP INDEX bets_by_settlement;
DROP INDEX rounds_by_update;
