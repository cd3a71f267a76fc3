-- The floor's day report (docs/floor.md) reads the rounds that ended and the
-- bets settled within a gaming day: by time, not by scanning every row.
CREATE INDEX rounds_by_update ON rounds (updated_at_us);
CREATE INDEX bets_by_settlement ON bets (settled_at_us);
