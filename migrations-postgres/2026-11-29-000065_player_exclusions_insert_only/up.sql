-- A time-out or a self-exclusion is never shortened or removed: UPDATE, DELETE and TRUNCATE of
-- player_exclusions are refused. The SQLite half of this migration is in migrations-sqlite/.
CREATE TRIGGER player_exclusions_insert_only BEFORE UPDATE OR DELETE OR TRUNCATE ON player_exclusions
    FOR EACH STATEMENT EXECUTE FUNCTION djego_refuse_change();
