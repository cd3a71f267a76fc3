DROP TABLE lobo_contest_entries;
DROP TABLE lobo_contests;
