-- The meters are derived: clearing them again is all a rollback needs.
DELETE FROM floor_money_minutes;
DELETE FROM floor_bet_minutes;
UPDATE floor_meter_mark SET through_seq = 0;
