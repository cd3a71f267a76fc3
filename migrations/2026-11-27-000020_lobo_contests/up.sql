-- Three-round Lobo contests (docs/lobo.md §9): players pay an entry into a pot,
-- each plays three rounds from one deck committed before anyone entered, and the
-- pot less the house's rake goes to the best total. The deck's server seed is
-- sealed here like a round's and revealed when the contest is settled or voided.
CREATE TABLE lobo_contests (
    id TEXT PRIMARY KEY NOT NULL,
    table_id TEXT NOT NULL REFERENCES casino_tables (id),
    status TEXT NOT NULL CHECK (status IN ('entry', 'in_play', 'settled', 'voided')),
    config TEXT NOT NULL,
    commitment TEXT NOT NULL,
    server_seed_sealed TEXT NOT NULL,
    client_seed TEXT,
    revealed_server_seed TEXT,
    result TEXT,
    entry_closes_at_us BIGINT NOT NULL,
    play_closes_at_us BIGINT,
    version BIGINT NOT NULL,
    created_by TEXT NOT NULL REFERENCES users (id),
    created_at_us BIGINT NOT NULL,
    updated_at_us BIGINT NOT NULL
);
CREATE INDEX lobo_contests_by_table ON lobo_contests (table_id, created_at_us);
-- The sweep's question: contests whose entry window or play time has run out.
CREATE INDEX lobo_contests_going ON lobo_contests (status, entry_closes_at_us) WHERE status IN ('entry', 'in_play');

-- One row per entrant: their client seed, their plays of all three rounds (one
-- JSON list, replayed from the deck) and, once their play is over, their total.
CREATE TABLE lobo_contest_entries (
    contest_id TEXT NOT NULL REFERENCES lobo_contests (id),
    player_id TEXT NOT NULL REFERENCES users (id),
    entry_number INTEGER NOT NULL,
    client_seed TEXT,
    plays TEXT NOT NULL,
    finished BOOLEAN NOT NULL,
    stopped BOOLEAN NOT NULL,
    total BIGINT,
    entered_at_us BIGINT NOT NULL,
    updated_at_us BIGINT NOT NULL,
    PRIMARY KEY (contest_id, player_id),
    UNIQUE (contest_id, entry_number)
);
CREATE INDEX lobo_contest_entries_by_player ON lobo_contest_entries (player_id, entered_at_us);
