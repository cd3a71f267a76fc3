-- A time-out or a self-exclusion is never shortened or removed. The PostgreSQL half of this
-- migration is in migrations-postgres/.
CREATE TRIGGER player_exclusions_refuse_update BEFORE UPDATE ON player_exclusions
    BEGIN SELECT RAISE(ABORT, 'player_exclusions is insert-only: UPDATE refused'); END;
CREATE TRIGGER player_exclusions_refuse_delete BEFORE DELETE ON player_exclusions
    BEGIN SELECT RAISE(ABORT, 'player_exclusions is insert-only: DELETE refused'); END;
