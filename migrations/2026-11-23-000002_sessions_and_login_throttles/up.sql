-- A token carries the account's session version when it was issued; bumping
-- the version (logout, forced logout, role change, deactivation, password
-- change) revokes every token issued before, on every instance at once.
ALTER TABLE users ADD COLUMN session_version BIGINT NOT NULL DEFAULT 0;

-- Login attempts are counted per (account, client address), per client
-- address and per account, each in a fixed window that starts at its first
-- attempt (docs/security.md). A slot is taken before a password is checked,
-- atomically, so a burst cannot check more passwords than the limit.
CREATE TABLE login_throttles (
    scope TEXT NOT NULL CHECK (scope IN ('account_address', 'address', 'account')),
    -- '' where the scope does not count by it.
    username TEXT NOT NULL,
    address TEXT NOT NULL,
    window_start_us BIGINT NOT NULL,
    attempts INTEGER NOT NULL CHECK (attempts >= 0),
    refusal_logged BOOLEAN NOT NULL,
    PRIMARY KEY (scope, username, address)
);
CREATE INDEX login_throttles_by_window ON login_throttles (window_start_us);

DROP INDEX login_failures_by_username;
DROP TABLE login_failures;
