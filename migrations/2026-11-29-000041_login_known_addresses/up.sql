-- The client addresses each account has signed in from (docs/security.md, "Login limits"). The
-- per-account backoff that a distributed guesser meets never applies to them, so guessing from
-- elsewhere cannot lock the holder out of their own terminal.
CREATE TABLE login_known_addresses (
    username TEXT NOT NULL,
    address TEXT NOT NULL,
    last_success_us BIGINT NOT NULL,
    PRIMARY KEY (username, address)
);
CREATE INDEX login_known_addresses_by_time ON login_known_addresses (last_success_us);
