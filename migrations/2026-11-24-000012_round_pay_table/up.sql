-- The pay table a Prima Carta round was created under (docs/side-bets.md):
-- every bet on the round uses it, so a pit boss swapping the table's pay table
-- changes the pays from the next round on. Rounds created before this table
-- existed have no row; their bets use the table's current pay table.
CREATE TABLE round_pay_tables (
    round_id TEXT PRIMARY KEY NOT NULL REFERENCES rounds (id),
    pay_table_id TEXT NOT NULL REFERENCES pay_tables (id)
);
