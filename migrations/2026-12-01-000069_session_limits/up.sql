-- Session limits (docs/protection.md): how long a player allows a session of play to run before
-- their stakes are refused until a pause ends it. NULL: none. A longer limit (or a removal)
-- waits in `pending_*` for its cooling-off and the player's confirmation, as the money limits do.
CREATE TABLE player_session_limits (
    player_id TEXT PRIMARY KEY NOT NULL REFERENCES users (id),
    minutes INTEGER CHECK (minutes IS NULL OR minutes BETWEEN 10 AND 1440),
    pending_minutes INTEGER CHECK (pending_minutes IS NULL OR pending_minutes BETWEEN 10 AND 1440),
    pending_asked_at_us BIGINT,
    updated_at_us BIGINT NOT NULL
);
