ALTER TABLE ledger_head DROP COLUMN closed_until_us;
