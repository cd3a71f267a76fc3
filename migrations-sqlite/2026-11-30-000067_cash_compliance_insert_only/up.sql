-- The cage's cash transactions and the suspicious-activity records are never changed or removed.
-- The PostgreSQL half of this migration is in migrations-postgres/.
CREATE TRIGGER cash_transactions_refuse_update BEFORE UPDATE ON cash_transactions
    BEGIN SELECT RAISE(ABORT, 'cash_transactions is insert-only: UPDATE refused'); END;
CREATE TRIGGER cash_transactions_refuse_delete BEFORE DELETE ON cash_transactions
    BEGIN SELECT RAISE(ABORT, 'cash_transactions is insert-only: DELETE refused'); END;
CREATE TRIGGER suspicious_activity_reports_refuse_update BEFORE UPDATE ON suspicious_activity_reports
    BEGIN SELECT RAISE(ABORT, 'suspicious_activity_reports is insert-only: UPDATE refused'); END;
CREATE TRIGGER suspicious_activity_reports_refuse_delete BEFORE DELETE ON suspicious_activity_reports
    BEGIN SELECT RAISE(ABORT, 'suspicious_activity_reports is insert-only: DELETE refused'); END;
