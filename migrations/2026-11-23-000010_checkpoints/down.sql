DROP TABLE checkpoints;
DROP TABLE event_chain;
