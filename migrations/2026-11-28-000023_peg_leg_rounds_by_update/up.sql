-- The auditor's export reads finished Peg Leg rounds by when they ended, as it reads rounds and contests.
CREATE INDEX peg_leg_rounds_by_update ON peg_leg_rounds (updated_at_us);
