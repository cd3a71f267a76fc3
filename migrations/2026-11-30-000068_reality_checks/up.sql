-- Reality checks (docs/protection.md): how often a player asked to be shown their session — time
-- played, staked, won back and net — in the player app. NULL: off.
CREATE TABLE player_reality_checks (
    player_id TEXT PRIMARY KEY NOT NULL REFERENCES users (id),
    interval_minutes INTEGER CHECK (interval_minutes IS NULL OR interval_minutes BETWEEN 10 AND 240),
    updated_at_us BIGINT NOT NULL
);
