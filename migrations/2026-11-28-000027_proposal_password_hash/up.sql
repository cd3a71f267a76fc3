-- A proposed account's or password reset's argon2 hash, never shown: proposals are listed to every
-- pit boss and auditor, and this column is read only to apply the change once approved.
ALTER TABLE proposals ADD COLUMN password_hash TEXT;
