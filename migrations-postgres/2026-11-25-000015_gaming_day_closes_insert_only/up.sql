-- A closed gaming day is never reopened or rewritten, whoever asks (the
-- SQLite half of this migration is in migrations-sqlite/).
CREATE TRIGGER gaming_day_closes_insert_only BEFORE UPDATE OR DELETE OR TRUNCATE ON gaming_day_closes
    FOR EACH STATEMENT EXECUTE FUNCTION djego_refuse_change();
