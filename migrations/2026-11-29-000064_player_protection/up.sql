-- Player protection (docs/protection.md): the limits a player sets on their deposits, losses and
-- stakes over a rolling day, week or month, and the time-outs and self-exclusions they take.
--
-- A limit in force is `amount_minor`; a raise (or a removal) the player asked for waits in
-- `pending_*` for its cooling-off and the player's confirmation. A lowering replaces
-- `amount_minor` at once and drops any pending raise.
CREATE TABLE player_limits (
    player_id TEXT NOT NULL REFERENCES users (id),
    kind TEXT NOT NULL CHECK (kind IN ('deposit', 'loss', 'stake')),
    period TEXT NOT NULL CHECK (period IN ('day', 'week', 'month')),
    amount_minor BIGINT CHECK (amount_minor IS NULL OR amount_minor >= 0),
    pending_amount_minor BIGINT CHECK (pending_amount_minor IS NULL OR pending_amount_minor >= 0),
    pending_asked_at_us BIGINT,
    updated_at_us BIGINT NOT NULL,
    PRIMARY KEY (player_id, kind, period)
);

-- A time-out or a self-exclusion: from `starts_at_us` to `ends_at_us` (NULL: permanent).
-- Insert-only (the next migrations' triggers): no one shortens one, not even the service.
CREATE TABLE player_exclusions (
    id TEXT PRIMARY KEY NOT NULL,
    player_id TEXT NOT NULL REFERENCES users (id),
    kind TEXT NOT NULL CHECK (kind IN ('time_out', 'self_exclusion')),
    starts_at_us BIGINT NOT NULL,
    ends_at_us BIGINT CHECK (ends_at_us IS NULL OR ends_at_us > starts_at_us),
    created_at_us BIGINT NOT NULL
);
CREATE INDEX player_exclusions_by_player ON player_exclusions (player_id, starts_at_us);
