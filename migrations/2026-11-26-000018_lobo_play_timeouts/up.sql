-- Lobo rounds in play, by when they last changed: the timeout sweep
-- (docs/lobo.md) finds the silent ones without reading finished rounds.
CREATE INDEX lobo_rounds_in_play ON rounds (updated_at_us) WHERE game = 'lobo' AND status = 'in_play';
