-- Peg Leg (docs/peg-leg.md): a Prima Carta deck dealt card by card in one
-- pass, the first card's suit the key suit; players bet on the key suit's
-- final count at prices quoted after every card, and may surrender a bet for
-- its cash-out value. The round's server seed is sealed like every round's
-- and revealed when it is settled or voided.

-- Tables may now deal Peg Leg. The game column is rebuilt rather than its
-- check altered: SQLite cannot alter a check, and both databases can add,
-- copy, drop and rename a column inside one transaction.
ALTER TABLE casino_tables ADD COLUMN game_new TEXT NOT NULL DEFAULT 'prima_carta'
    CHECK (game_new IN ('prima_carta', 'lobo', 'peg_leg'));
UPDATE casino_tables SET game_new = game;
ALTER TABLE casino_tables DROP COLUMN game;
ALTER TABLE casino_tables RENAME COLUMN game_new TO game;

CREATE TABLE peg_leg_rounds (
    id TEXT PRIMARY KEY NOT NULL,
    table_id TEXT NOT NULL REFERENCES casino_tables (id),
    -- The round's number at its table, from 1.
    number BIGINT NOT NULL,
    -- seeding: client seeds accepted, no card dealt; dealing: cards are being
    -- dealt and bets taken between them; settled; voided.
    status TEXT NOT NULL CHECK (status IN ('seeding', 'dealing', 'settled', 'voided')),
    config TEXT NOT NULL,
    commitment TEXT NOT NULL,
    server_seed_sealed TEXT NOT NULL,
    client_seed TEXT,
    revealed_server_seed TEXT,
    cards_dealt INTEGER NOT NULL CHECK (cards_dealt BETWEEN 0 AND 50),
    -- When bets after the last card stop being taken (a timed window), or null
    -- (open until the dealer deals the next card).
    window_closes_at_us BIGINT,
    final_count INTEGER,
    version BIGINT NOT NULL,
    created_by TEXT NOT NULL REFERENCES users (id),
    created_at_us BIGINT NOT NULL,
    updated_at_us BIGINT NOT NULL,
    UNIQUE (table_id, number)
);
-- At most one unfinished Peg Leg round per table.
CREATE UNIQUE INDEX peg_leg_rounds_one_active_per_table ON peg_leg_rounds (table_id)
    WHERE status IN ('seeding', 'dealing');
CREATE INDEX peg_leg_rounds_by_table ON peg_leg_rounds (table_id, created_at_us);

-- The client seeds players gave before the first card; combined when it is dealt.
CREATE TABLE peg_leg_client_seeds (
    round_id TEXT NOT NULL REFERENCES peg_leg_rounds (id),
    player_id TEXT NOT NULL REFERENCES users (id),
    client_seed TEXT NOT NULL,
    submitted_at_us BIGINT NOT NULL,
    PRIMARY KEY (round_id, player_id)
);

-- Every quote: the prices after one card, what they were computed from, and
-- the distribution a surrender is valued on.
CREATE TABLE peg_leg_quotes (
    id TEXT PRIMARY KEY NOT NULL,
    round_id TEXT NOT NULL REFERENCES peg_leg_rounds (id),
    cards_dealt INTEGER NOT NULL,
    quote TEXT NOT NULL,
    distribution TEXT NOT NULL,
    -- The simulation's RNG seed (decimal), when the quote was simulated.
    simulation_seed TEXT,
    created_at_us BIGINT NOT NULL,
    UNIQUE (round_id, cards_dealt)
);

CREATE TABLE peg_leg_bets (
    id TEXT PRIMARY KEY NOT NULL,
    round_id TEXT NOT NULL REFERENCES peg_leg_rounds (id),
    player_id TEXT NOT NULL REFERENCES users (id),
    count INTEGER NOT NULL CHECK (count BETWEEN 1 AND 10),
    stake_minor BIGINT NOT NULL CHECK (stake_minor > 0),
    multiplier_cents BIGINT NOT NULL CHECK (multiplier_cents >= 100),
    quote_id TEXT NOT NULL REFERENCES peg_leg_quotes (id),
    status TEXT NOT NULL CHECK (status IN ('open', 'surrendered', 'won', 'lost', 'refunded')),
    surrender_quote_id TEXT REFERENCES peg_leg_quotes (id),
    -- What the player got back: the surrender value, the win, 0 for a loss, the stake on a void.
    returned_minor BIGINT,
    placed_at_us BIGINT NOT NULL,
    closed_at_us BIGINT
);
CREATE INDEX peg_leg_bets_by_round ON peg_leg_bets (round_id, player_id);
CREATE INDEX peg_leg_bets_by_player ON peg_leg_bets (player_id, placed_at_us);
CREATE INDEX peg_leg_client_seeds_by_player ON peg_leg_client_seeds (player_id);
