-- An account whose password a pit boss reset must choose its own before any
-- other request: its sessions may only read the account, change the password
-- and log out while this is set.
ALTER TABLE users ADD COLUMN must_change_password BOOLEAN NOT NULL DEFAULT FALSE;
