-- The transparency log's stored nodes are insert-only, like the ledger: UPDATE, DELETE and
-- TRUNCATE are refused. The SQLite half of this migration is in migrations-sqlite/.
CREATE TRIGGER merkle_nodes_insert_only BEFORE UPDATE OR DELETE OR TRUNCATE ON merkle_nodes
    FOR EACH STATEMENT EXECUTE FUNCTION djego_refuse_change();
