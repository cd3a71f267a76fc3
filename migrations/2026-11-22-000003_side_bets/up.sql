-- Pay tables are immutable once stored; a table uses one at a time.
CREATE TABLE pay_tables (
    id TEXT PRIMARY KEY NOT NULL,
    name TEXT NOT NULL,
    version BIGINT NOT NULL,
    fingerprint TEXT NOT NULL UNIQUE,
    spec TEXT NOT NULL,
    certificate TEXT NOT NULL,
    created_by TEXT,
    created_at_us BIGINT NOT NULL,
    UNIQUE (name, version)
);

CREATE TABLE table_pay_tables (
    table_id TEXT PRIMARY KEY NOT NULL REFERENCES casino_tables (id),
    pay_table_id TEXT NOT NULL REFERENCES pay_tables (id),
    installed_by TEXT NOT NULL,
    installed_at_us BIGINT NOT NULL
);

CREATE TABLE bets (
    id TEXT PRIMARY KEY NOT NULL,
    round_id TEXT NOT NULL REFERENCES rounds (id),
    table_id TEXT NOT NULL REFERENCES casino_tables (id),
    player_id TEXT NOT NULL REFERENCES users (id),
    kind TEXT NOT NULL,
    selection TEXT NOT NULL,
    amount_minor BIGINT NOT NULL CHECK (amount_minor > 0),
    pay_table_id TEXT NOT NULL REFERENCES pay_tables (id),
    client_seed TEXT,
    status TEXT NOT NULL CHECK (status IN ('open', 'won', 'lost', 'pushed', 'refunded')),
    returned_minor BIGINT NOT NULL,
    decided_by TEXT,
    placed_at_us BIGINT NOT NULL,
    settled_at_us BIGINT
);
CREATE INDEX bets_by_round ON bets (round_id);
CREATE INDEX bets_by_player ON bets (player_id, placed_at_us);
CREATE INDEX bets_by_table_time ON bets (table_id, placed_at_us);
