-- The floor's minute meters (docs/floor.md, "How fast the reports are"): per
-- table and minute, the sums the table report adds up, derived from the
-- ledger's transfers up to `floor_meter_mark.through_seq` and from the side
-- bets those transfers settled. Nothing here is original: every row can be
-- recomputed from the ledger and the bets, and the day close checks the
-- report they give against the one read from every row.

-- How far into the ledger (by `transfers.seq`) the meters have read.
CREATE TABLE floor_meter_mark (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    through_seq BIGINT NOT NULL
);
INSERT INTO floor_meter_mark (id, through_seq) VALUES (1, 0);

-- A table's money in a minute (by each transfer's `created_at_us`), as one
-- step read it: a step appends a row for each minute it saw, with the mark it
-- moved to; a minute's figures are the sum of its rows. Insert-only.
CREATE TABLE floor_money_minutes (
    table_id TEXT NOT NULL,
    minute_us BIGINT NOT NULL,
    through_seq BIGINT NOT NULL,
    transfers BIGINT NOT NULL,
    drop_minor BIGINT NOT NULL,
    win_minor BIGINT NOT NULL,
    fees_minor BIGINT NOT NULL,
    PRIMARY KEY (table_id, minute_us, through_seq)
);
CREATE INDEX floor_money_minutes_by_minute ON floor_money_minutes (minute_us);

-- A table's side bets settled in a minute (by `bets.settled_at_us`), per
-- certified bet of a pay table, as one step read them (as above); the sums of
-- squares (exact while under 2^53) give the observed RTP's standard error, per
-- bet and per round.
CREATE TABLE floor_bet_minutes (
    table_id TEXT NOT NULL,
    minute_us BIGINT NOT NULL,
    through_seq BIGINT NOT NULL,
    pay_table_id TEXT NOT NULL,
    bet TEXT NOT NULL,
    bets BIGINT NOT NULL,
    rounds BIGINT NOT NULL,
    staked_minor BIGINT NOT NULL,
    returned_minor BIGINT NOT NULL,
    staked_sq DOUBLE PRECISION NOT NULL,
    round_staked_sq DOUBLE PRECISION NOT NULL,
    round_cross DOUBLE PRECISION NOT NULL,
    round_returned_sq DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (table_id, minute_us, through_seq, pay_table_id, bet)
);
CREATE INDEX floor_bet_minutes_by_minute ON floor_bet_minutes (minute_us);
