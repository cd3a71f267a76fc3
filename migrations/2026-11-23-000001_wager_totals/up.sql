-- Running totals that make a bet on a live round cost the same whatever the
-- round already holds: a player's stake so far on the round (for the exposure
-- limit) and the round's public totals by bet kind (for its live view). Both
-- are written in the same transaction as the bets they count, and
-- `djego verify ledger` recomputes them from the bets.
CREATE TABLE round_exposures (
    round_id TEXT NOT NULL REFERENCES rounds (id),
    player_id TEXT NOT NULL REFERENCES users (id),
    staked_minor BIGINT NOT NULL CHECK (staked_minor >= 0),
    PRIMARY KEY (round_id, player_id)
);

CREATE TABLE round_bet_totals (
    round_id TEXT NOT NULL REFERENCES rounds (id),
    kind TEXT NOT NULL,
    bets BIGINT NOT NULL CHECK (bets >= 0),
    staked_minor BIGINT NOT NULL CHECK (staked_minor >= 0),
    PRIMARY KEY (round_id, kind)
);

INSERT INTO round_exposures (round_id, player_id, staked_minor)
    SELECT round_id, player_id, SUM(amount_minor) FROM bets GROUP BY round_id, player_id;
INSERT INTO round_bet_totals (round_id, kind, bets, staked_minor)
    SELECT round_id, kind, COUNT(*), SUM(amount_minor) FROM bets GROUP BY round_id, kind;
