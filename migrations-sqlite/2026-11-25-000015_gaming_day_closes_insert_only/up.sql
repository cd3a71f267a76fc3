-- A closed gaming day is never reopened or rewritten (the PostgreSQL half of
-- this migration is in migrations-postgres/).
CREATE TRIGGER gaming_day_closes_refuse_update BEFORE UPDATE ON gaming_day_closes
    BEGIN SELECT RAISE(ABORT, 'gaming_day_closes is insert-only: UPDATE refused'); END;
CREATE TRIGGER gaming_day_closes_refuse_delete BEFORE DELETE ON gaming_day_closes
    BEGIN SELECT RAISE(ABORT, 'gaming_day_closes is insert-only: DELETE refused'); END;
