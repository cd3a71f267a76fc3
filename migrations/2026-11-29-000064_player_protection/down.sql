DROP TABLE player_exclusions;
DROP TABLE player_limits;
