DROP TABLE player_session_limits;
