-- Closed gaming days (docs/floor.md, "Closing a gaming day"): the report as
-- frozen at close, its SHA-256 (also in the `gaming_day_closed` significant
-- event, which the signed checkpoints chain), and the last ledger transfer of
-- the day. Insert-only: the next migration's triggers refuse UPDATE and DELETE.
CREATE TABLE gaming_day_closes (
    gaming_day TEXT PRIMARY KEY NOT NULL,
    closed_at_us BIGINT NOT NULL,
    closed_by TEXT NOT NULL REFERENCES users (id),
    report TEXT NOT NULL,
    report_sha256 TEXT NOT NULL,
    last_seq BIGINT NOT NULL,
    last_hash TEXT NOT NULL
);
-- Unfinished rounds of a day are found by when they were created.
CREATE INDEX rounds_by_creation ON rounds (created_at_us);
