DROP INDEX lobo_rounds_in_play;
