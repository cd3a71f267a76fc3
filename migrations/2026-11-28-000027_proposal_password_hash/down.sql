ALTER TABLE proposals DROP COLUMN password_hash;
