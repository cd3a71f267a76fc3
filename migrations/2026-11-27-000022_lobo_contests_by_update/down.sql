DROP INDEX lobo_contests_by_update;
