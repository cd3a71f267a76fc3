-- Where the ledger is closed: no transfer may be stamped before the end of the latest closed gaming
-- day (docs/floor.md). On the head row, which every ledger write already locks and reads, and which a
-- day close locks to move it. The SQLite half of this migration is in migrations-sqlite/.
ALTER TABLE ledger_head ADD COLUMN closed_until_us BIGINT NOT NULL DEFAULT 0;
UPDATE ledger_head
SET closed_until_us = COALESCE((SELECT MAX((report::json ->> 'to_us')::bigint) FROM gaming_day_closes), 0);
