DROP INDEX peg_leg_rounds_by_update;
