-- The drop no longer counts the escrow a game hands back untouched (Lobo's
-- `lobo_release`), so the minute meters summed under the old rule are wrong for
-- Lobo tables. They are derived, never original: clear them and let the next
-- catch-up step rebuild them from the ledger. Closed gaming days keep the report
-- frozen when they were closed.
DELETE FROM floor_money_minutes;
DELETE FROM floor_bet_minutes;
UPDATE floor_meter_mark SET through_seq = 0;
