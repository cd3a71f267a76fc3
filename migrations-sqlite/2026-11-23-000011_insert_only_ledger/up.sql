-- The ledger, the significant-events log, their event chain and the
-- checkpoints are insert-only: any UPDATE or DELETE is refused. The service
-- never needs one; whoever can write the database file can still drop these
-- triggers, which the signed checkpoints catch (docs/ledger.md). The
-- PostgreSQL half of this migration is in migrations-postgres/.
CREATE TRIGGER transfers_refuse_update BEFORE UPDATE ON transfers
    BEGIN SELECT RAISE(ABORT, 'transfers is insert-only: UPDATE refused'); END;
CREATE TRIGGER transfers_refuse_delete BEFORE DELETE ON transfers
    BEGIN SELECT RAISE(ABORT, 'transfers is insert-only: DELETE refused'); END;
CREATE TRIGGER significant_events_refuse_update BEFORE UPDATE ON significant_events
    BEGIN SELECT RAISE(ABORT, 'significant_events is insert-only: UPDATE refused'); END;
CREATE TRIGGER significant_events_refuse_delete BEFORE DELETE ON significant_events
    BEGIN SELECT RAISE(ABORT, 'significant_events is insert-only: DELETE refused'); END;
CREATE TRIGGER event_chain_refuse_update BEFORE UPDATE ON event_chain
    BEGIN SELECT RAISE(ABORT, 'event_chain is insert-only: UPDATE refused'); END;
CREATE TRIGGER event_chain_refuse_delete BEFORE DELETE ON event_chain
    BEGIN SELECT RAISE(ABORT, 'event_chain is insert-only: DELETE refused'); END;
CREATE TRIGGER checkpoints_refuse_update BEFORE UPDATE ON checkpoints
    BEGIN SELECT RAISE(ABORT, 'checkpoints is insert-only: UPDATE refused'); END;
CREATE TRIGGER checkpoints_refuse_delete BEFORE DELETE ON checkpoints
    BEGIN SELECT RAISE(ABORT, 'checkpoints is insert-only: DELETE refused'); END;
