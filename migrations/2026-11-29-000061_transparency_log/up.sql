-- The transparency log (docs/ledger.md, "The transparency log"): the complete subtrees of the
-- Merkle trees over the transfers (`tree` = 'transfers') and over the chained significant events
-- ('events'), appended when a checkpoint adds leaves. The node at `level` and `idx` covers leaves
-- [idx·2^level, (idx+1)·2^level); `hash` is 64 hex digits. Insert-only, like the ledger (the
-- next migration's triggers).
CREATE TABLE merkle_nodes (
    tree TEXT NOT NULL,
    level INTEGER NOT NULL,
    idx BIGINT NOT NULL,
    hash TEXT NOT NULL,
    PRIMARY KEY (tree, level, idx)
);

-- A version-2 checkpoint also signs both trees' roots (their sizes are `ledger_seq` and
-- `events_seq`); version 1 ones, signed before, keep NULL roots.
ALTER TABLE checkpoints ADD COLUMN version INTEGER NOT NULL DEFAULT 1;
ALTER TABLE checkpoints ADD COLUMN transfers_root TEXT;
ALTER TABLE checkpoints ADD COLUMN events_root TEXT;
