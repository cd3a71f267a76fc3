-- Rounds of every game. The server seed is stored only encrypted (AEAD with
-- the configured key, the round id as associated data) until the round is
-- settled or voided; the deck is never stored: it is recomputed from the seed.
CREATE TABLE rounds (
    id TEXT PRIMARY KEY NOT NULL,
    table_id TEXT NOT NULL REFERENCES casino_tables (id),
    game TEXT NOT NULL CHECK (game IN ('prima_carta', 'lobo')),
    number BIGINT NOT NULL,
    status TEXT NOT NULL,
    config TEXT NOT NULL,
    commitment TEXT NOT NULL,
    server_seed_sealed TEXT NOT NULL,
    client_seed TEXT,
    revealed_server_seed TEXT,
    decisions TEXT NOT NULL,
    result TEXT,
    version BIGINT NOT NULL,
    created_by TEXT NOT NULL,
    created_at_us BIGINT NOT NULL,
    updated_at_us BIGINT NOT NULL,
    UNIQUE (table_id, number)
);
-- At most one unfinished round per table, on both databases.
CREATE UNIQUE INDEX rounds_one_active_per_table ON rounds (table_id) WHERE status NOT IN ('settled', 'voided');
CREATE INDEX rounds_by_table ON rounds (table_id, number);

CREATE TABLE seats (
    round_id TEXT NOT NULL REFERENCES rounds (id),
    suit TEXT NOT NULL,
    player_id TEXT NOT NULL REFERENCES users (id),
    client_seed TEXT,
    seated_at_us BIGINT NOT NULL,
    PRIMARY KEY (round_id, suit),
    UNIQUE (round_id, player_id)
);
CREATE INDEX seats_by_player ON seats (player_id);
