-- The cage's cash transactions and the suspicious-activity records are never changed or removed.
-- The SQLite half of this migration is in migrations-sqlite/.
CREATE TRIGGER cash_transactions_insert_only BEFORE UPDATE OR DELETE OR TRUNCATE ON cash_transactions
    FOR EACH STATEMENT EXECUTE FUNCTION djego_refuse_change();
CREATE TRIGGER suspicious_activity_reports_insert_only BEFORE UPDATE OR DELETE OR TRUNCATE
    ON suspicious_activity_reports
    FOR EACH STATEMENT EXECUTE FUNCTION djego_refuse_change();
