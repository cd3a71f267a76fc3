CREATE TABLE login_failures (
    id TEXT PRIMARY KEY NOT NULL,
    username TEXT NOT NULL,
    at_us BIGINT NOT NULL
);
CREATE INDEX login_failures_by_username ON login_failures (username, at_us);
DROP TABLE login_throttles;
ALTER TABLE users DROP COLUMN session_version;
