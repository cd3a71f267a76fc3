-- djego's PostgreSQL privileges: a schema owner and an insert-only service
-- (docs/operations.md, "Database roles").
--
-- The owner owns the schema and runs the migrations; the service, which
-- `djego serve` connects as, reads everything, inserts, and changes rows only
-- of the tables it must. It may never UPDATE, DELETE or TRUNCATE the ledger,
-- the significant-events log, their chain, the checkpoints or the closed
-- gaming days, nor drop or disable their triggers (only a table's owner may).
--
-- Create the roles and the database first, as a superuser:
--
--   CREATE ROLE djego_owner LOGIN PASSWORD '…';
--   CREATE ROLE djego_service LOGIN PASSWORD '…';
--   CREATE DATABASE djego OWNER djego_owner;
--
-- then migrate as the owner, then run this file as the owner, after the
-- migrations of every upgrade too (it can run any number of times):
--
--   DJEGO_MIGRATION_DATABASE_URL=postgres://djego_owner:…@db/djego djego migrate
--   psql "postgres://djego_owner:…@db/djego" -1 -v ON_ERROR_STOP=1 \
--        -v owner=djego_owner -v service=djego_service -f deploy/postgres/roles.sql

GRANT USAGE ON SCHEMA public TO :"service";

-- Read every table and insert into every table.
GRANT SELECT, INSERT ON ALL TABLES IN SCHEMA public TO :"service";
-- Tables that later migrations create start the same way: read and insert only.
ALTER DEFAULT PRIVILEGES FOR ROLE :"owner" IN SCHEMA public
    GRANT SELECT, INSERT ON TABLES TO :"service";

-- The tables whose rows the service changes: balances and the ledger head,
-- accounts (roles, session versions), tables, idempotency keys (a claim is filled in with its
-- answer), login limits and the addresses accounts signed in from, the floor's settings (calendar, rating rule, pits, approval rule) and the
-- mark its minute meters have read the ledger to (the meters themselves are appended only).
GRANT UPDATE ON accounts, ledger_head, users, casino_tables, idempotency_keys, login_throttles,
    login_known_addresses, settings,
    floor_meter_mark
    TO :"service";
-- Each game's rounds and their bets, as the game registry lists them (src/game_registry.rs,
-- `service_updates`; the database roles test checks every game's): Prima Carta's rounds, side
-- bets and their running totals; Peg Leg's rounds and bets; Lobo's rounds; Lobo contests and
-- their entries.
GRANT UPDATE ON rounds, bets, round_exposures, round_bet_totals, confidence_bets, fuerza_bets TO :"service";
GRANT UPDATE ON peg_leg_rounds, peg_leg_bets TO :"service";
GRANT UPDATE ON lobo_contests, lobo_contest_entries TO :"service";
-- A player's own limits on money and on a session's length (lowered at once, raised after the
-- cooling-off) and reality checks (docs/protection.md).
GRANT UPDATE ON player_limits, player_session_limits, player_reality_checks TO :"service";
-- A patron's identity re-captured; their day's cash totals added to; a currency transaction report filed; an alert or a list match reviewed
-- (docs/compliance.md).
GRANT UPDATE ON patron_identities, cash_day_totals, currency_transaction_reports, compliance_alerts, exclusion_list_matches
    TO :"service";
-- A proposal's decision only (approved or rejected): never what was proposed, by whom, or when it expires.
GRANT UPDATE (status, decided_by, decided_at_us, result) ON proposals TO :"service";
-- Dealers unassigned, pay tables replaced at a table, login limits lifted or expired, known
-- addresses forgotten.
GRANT DELETE ON table_dealers, table_pay_tables, login_throttles, login_known_addresses TO :"service";

-- Insert-only, whatever was granted before.
REVOKE UPDATE, DELETE, TRUNCATE ON transfers, significant_events, event_chain, checkpoints, gaming_day_closes, merkle_nodes,
    player_exclusions, cash_transactions, suspicious_activity_reports, exclusion_lists, exclusion_list_entries
    FROM :"service";
-- The migrations' own record is the owner's alone.
REVOKE INSERT, UPDATE, DELETE, TRUNCATE ON __diesel_schema_migrations FROM :"service";
