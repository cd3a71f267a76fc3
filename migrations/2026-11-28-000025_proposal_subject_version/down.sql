ALTER TABLE proposals DROP COLUMN subject_version;
