-- A round's booking (a `round_booked` significant event whose subject is the round's id) is
-- looked up by subject whenever a transcript or recall carries its ledger proof
-- (docs/transcript.md, "The ledger proof").
CREATE INDEX significant_events_by_subject ON significant_events (subject, kind);
