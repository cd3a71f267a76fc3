DROP INDEX rounds_by_creation;
DROP TABLE gaming_day_closes;
