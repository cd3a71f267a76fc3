-- The significant-events log's hash chain and the signed checkpoints
-- (docs/ledger.md, "Checkpoints"). Both tables are insert-only, like
-- `transfers` and `significant_events`: the next migration's triggers refuse
-- UPDATE and DELETE on all four.

-- Events are chained when a checkpoint is taken ("sealed"), not when they are
-- recorded, so recording an event takes no global lock. `seq` is the event's
-- position in the chain, from 1.
CREATE TABLE event_chain (
    seq BIGINT PRIMARY KEY NOT NULL,
    event_id TEXT NOT NULL UNIQUE REFERENCES significant_events (id),
    prev_hash TEXT NOT NULL,
    hash TEXT NOT NULL
);

-- A signed statement of the ledger's head and the event chain's head at one
-- moment. The signing key is never stored in the database; its public half is
-- copied into every checkpoint so that an exported file is self-describing.
CREATE TABLE checkpoints (
    seq BIGINT PRIMARY KEY NOT NULL,
    taken_at_us BIGINT NOT NULL,
    ledger_seq BIGINT NOT NULL,
    ledger_hash TEXT NOT NULL,
    events_seq BIGINT NOT NULL,
    events_hash TEXT NOT NULL,
    key_id TEXT NOT NULL,
    public_key TEXT NOT NULL,
    signature TEXT NOT NULL
);
