-- The transparency log's stored nodes are insert-only, like the ledger. The PostgreSQL half of
-- this migration is in migrations-postgres/.
CREATE TRIGGER merkle_nodes_refuse_update BEFORE UPDATE ON merkle_nodes
    BEGIN SELECT RAISE(ABORT, 'merkle_nodes is insert-only: UPDATE refused'); END;
CREATE TRIGGER merkle_nodes_refuse_delete BEFORE DELETE ON merkle_nodes
    BEGIN SELECT RAISE(ABORT, 'merkle_nodes is insert-only: DELETE refused'); END;
