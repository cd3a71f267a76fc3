DROP TABLE peg_leg_bets;
DROP TABLE peg_leg_quotes;
DROP TABLE peg_leg_client_seeds;
DROP TABLE peg_leg_rounds;
DELETE FROM casino_tables WHERE game = 'peg_leg';
ALTER TABLE casino_tables ADD COLUMN game_old TEXT NOT NULL DEFAULT 'prima_carta'
    CHECK (game_old IN ('prima_carta', 'lobo'));
UPDATE casino_tables SET game_old = game;
ALTER TABLE casino_tables DROP COLUMN game;
ALTER TABLE casino_tables RENAME COLUMN game_old TO game;
