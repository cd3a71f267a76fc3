DROP TABLE floor_bet_minutes;
DROP TABLE floor_money_minutes;
DROP TABLE floor_meter_mark;
