ALTER TABLE checkpoints DROP COLUMN events_root;
ALTER TABLE checkpoints DROP COLUMN transfers_root;
ALTER TABLE checkpoints DROP COLUMN version;
DROP TABLE merkle_nodes;
