DROP TRIGGER checkpoints_insert_only ON checkpoints;
DROP TRIGGER event_chain_insert_only ON event_chain;
DROP TRIGGER significant_events_insert_only ON significant_events;
DROP TRIGGER transfers_insert_only ON transfers;
DROP FUNCTION djego_refuse_change();
