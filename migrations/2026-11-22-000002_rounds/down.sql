DROP TABLE seats;
DROP INDEX rounds_by_table;
DROP INDEX rounds_one_active_per_table;
DROP TABLE rounds;
