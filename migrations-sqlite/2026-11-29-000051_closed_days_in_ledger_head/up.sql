-- Where the ledger is closed: no transfer may be stamped before the end of the latest closed gaming
-- day (docs/floor.md). On the head row, which every ledger write already reads, and which a day close
-- moves. The PostgreSQL half of this migration is in migrations-postgres/.
ALTER TABLE ledger_head ADD COLUMN closed_until_us BIGINT NOT NULL DEFAULT 0;
UPDATE ledger_head
SET closed_until_us = COALESCE((SELECT MAX(CAST(json_extract(report, '$.to_us') AS INTEGER)) FROM gaming_day_closes), 0);
