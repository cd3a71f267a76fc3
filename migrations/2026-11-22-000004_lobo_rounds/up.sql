-- Lobo is one player against the house: a Lobo table plays many rounds at once,
-- one per player. "One unfinished round per table" stays for Prima Carta; Lobo
-- allows one unfinished round per player per table.
DROP INDEX rounds_one_active_per_table;
CREATE UNIQUE INDEX rounds_one_active_per_table ON rounds (table_id) WHERE game = 'prima_carta' AND status NOT IN ('settled', 'voided');
CREATE UNIQUE INDEX lobo_rounds_one_active_per_player ON rounds (table_id, created_by) WHERE game = 'lobo' AND status NOT IN ('settled', 'voided');
