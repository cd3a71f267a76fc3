-- The ledger, the significant-events log, their event chain and the
-- checkpoints are insert-only: any UPDATE, DELETE or TRUNCATE is refused,
-- whoever sends it. The service never needs one; an attacker who owns the
-- database can still drop these triggers, which the signed checkpoints catch
-- (docs/ledger.md). The SQLite half of this migration is in migrations-sqlite/.
CREATE FUNCTION djego_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION '% is insert-only: % refused', TG_TABLE_NAME, TG_OP;
END
$$;

-- Statement triggers: they refuse the statement even when it matches no row.
CREATE TRIGGER transfers_insert_only BEFORE UPDATE OR DELETE OR TRUNCATE ON transfers
    FOR EACH STATEMENT EXECUTE FUNCTION djego_refuse_change();
CREATE TRIGGER significant_events_insert_only BEFORE UPDATE OR DELETE OR TRUNCATE ON significant_events
    FOR EACH STATEMENT EXECUTE FUNCTION djego_refuse_change();
CREATE TRIGGER event_chain_insert_only BEFORE UPDATE OR DELETE OR TRUNCATE ON event_chain
    FOR EACH STATEMENT EXECUTE FUNCTION djego_refuse_change();
CREATE TRIGGER checkpoints_insert_only BEFORE UPDATE OR DELETE OR TRUNCATE ON checkpoints
    FOR EACH STATEMENT EXECUTE FUNCTION djego_refuse_change();
