-- The auditor's export reads finished contests by when they ended, as it reads rounds.
CREATE INDEX lobo_contests_by_update ON lobo_contests (updated_at_us);
