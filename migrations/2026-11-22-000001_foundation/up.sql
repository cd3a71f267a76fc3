-- One migration set for both SQLite and PostgreSQL: only portable types
-- (TEXT, BIGINT, INTEGER, BOOLEAN). Times are microseconds since the Unix
-- epoch (`*_at_us`); money is integer minor units (`*_minor`).

CREATE TABLE users (
    id TEXT PRIMARY KEY NOT NULL,
    username TEXT NOT NULL UNIQUE,
    display_name TEXT NOT NULL,
    role TEXT NOT NULL CHECK (role IN ('player', 'dealer', 'cashier', 'pitboss', 'auditor')),
    password_hash TEXT NOT NULL,
    active BOOLEAN NOT NULL,
    created_at_us BIGINT NOT NULL
);

CREATE TABLE login_failures (
    id TEXT PRIMARY KEY NOT NULL,
    username TEXT NOT NULL,
    at_us BIGINT NOT NULL
);
CREATE INDEX login_failures_by_username ON login_failures (username, at_us);

-- Append-only: the service never updates or deletes a row here.
CREATE TABLE significant_events (
    id TEXT PRIMARY KEY NOT NULL,
    at_us BIGINT NOT NULL,
    kind TEXT NOT NULL,
    actor_id TEXT,
    subject TEXT,
    details TEXT NOT NULL
);
CREATE INDEX significant_events_by_time ON significant_events (at_us, id);
CREATE INDEX significant_events_by_kind ON significant_events (kind, at_us);

CREATE TABLE accounts (
    id TEXT PRIMARY KEY NOT NULL,
    kind TEXT NOT NULL,
    owner_id TEXT,
    balance_minor BIGINT NOT NULL,
    may_go_negative BOOLEAN NOT NULL,
    created_at_us BIGINT NOT NULL,
    CHECK (may_go_negative OR balance_minor >= 0)
);

-- The hash chain's head: one row, locked by every ledger write so that
-- transfers get a single total order across service instances.
CREATE TABLE ledger_head (
    id INTEGER PRIMARY KEY NOT NULL CHECK (id = 1),
    seq BIGINT NOT NULL,
    hash TEXT NOT NULL
);
INSERT INTO ledger_head (id, seq, hash) VALUES (1, 0, '0000000000000000000000000000000000000000000000000000000000000000');

CREATE TABLE transfers (
    seq BIGINT PRIMARY KEY NOT NULL,
    id TEXT NOT NULL UNIQUE,
    debit_account TEXT NOT NULL REFERENCES accounts (id),
    credit_account TEXT NOT NULL REFERENCES accounts (id),
    amount_minor BIGINT NOT NULL CHECK (amount_minor > 0),
    kind TEXT NOT NULL,
    user_id TEXT,
    table_id TEXT,
    round_id TEXT,
    bet_id TEXT,
    idempotency_key TEXT,
    memo TEXT,
    created_at_us BIGINT NOT NULL,
    prev_hash TEXT NOT NULL,
    hash TEXT NOT NULL,
    CHECK (debit_account <> credit_account)
);
CREATE INDEX transfers_by_debit ON transfers (debit_account, seq);
CREATE INDEX transfers_by_credit ON transfers (credit_account, seq);
CREATE INDEX transfers_by_time ON transfers (created_at_us, seq);
CREATE INDEX transfers_by_round ON transfers (round_id, seq);

-- Stored first results of money-moving requests, per caller and key.
CREATE TABLE idempotency_keys (
    user_id TEXT NOT NULL,
    idem_key TEXT NOT NULL,
    request_hash TEXT NOT NULL,
    status_code INTEGER NOT NULL,
    response_body TEXT NOT NULL,
    created_at_us BIGINT NOT NULL,
    PRIMARY KEY (user_id, idem_key)
);

CREATE TABLE casino_tables (
    id TEXT PRIMARY KEY NOT NULL,
    name TEXT NOT NULL UNIQUE,
    game TEXT NOT NULL CHECK (game IN ('prima_carta', 'lobo')),
    status TEXT NOT NULL CHECK (status IN ('closed', 'open')),
    config TEXT NOT NULL,
    created_at_us BIGINT NOT NULL
);

CREATE TABLE table_dealers (
    table_id TEXT NOT NULL REFERENCES casino_tables (id),
    dealer_id TEXT NOT NULL REFERENCES users (id),
    PRIMARY KEY (table_id, dealer_id)
);

CREATE TABLE settings (
    name TEXT PRIMARY KEY NOT NULL,
    value TEXT NOT NULL
);
