DROP INDEX lobo_rounds_one_active_per_player;
DROP INDEX rounds_one_active_per_table;
CREATE UNIQUE INDEX rounds_one_active_per_table ON rounds (table_id) WHERE status NOT IN ('settled', 'voided');
