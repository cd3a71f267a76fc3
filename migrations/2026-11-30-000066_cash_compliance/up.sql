-- Cash-transaction compliance (docs/compliance.md): patron identity, the cage's cash
-- transactions, currency transaction reports, structuring alerts and suspicious-activity
-- records.

-- A patron's identity, sealed with ChaCha20-Poly1305 under the service's key (the player's id as
-- associated data): a database reader sees that one is on file, never what it says. The two match
-- keys are keyed hashes (blind indexes) of the normalised name with the date of birth, and of the
-- document number, so an exclusion list is matched without opening anything.
CREATE TABLE patron_identities (
    player_id TEXT PRIMARY KEY NOT NULL REFERENCES users (id),
    sealed TEXT NOT NULL,
    name_key TEXT NOT NULL,
    document_key TEXT NOT NULL,
    recorded_by TEXT NOT NULL REFERENCES users (id),
    recorded_at_us BIGINT NOT NULL
);

-- Every deposit and withdrawal at the cage, with who handled it and where: the multiple-
-- transaction log is those at or above its threshold; a gaming day's totals per patron and
-- direction are sums over it; the structuring patterns read it. Insert-only.
CREATE TABLE cash_transactions (
    transfer_id TEXT PRIMARY KEY NOT NULL,
    player_id TEXT NOT NULL REFERENCES users (id),
    direction TEXT NOT NULL CHECK (direction IN ('deposit', 'withdrawal')),
    amount_minor BIGINT NOT NULL CHECK (amount_minor > 0),
    gaming_day TEXT NOT NULL,
    cashier_id TEXT NOT NULL REFERENCES users (id),
    location TEXT,
    at_us BIGINT NOT NULL
);
CREATE INDEX cash_transactions_by_player ON cash_transactions (player_id, at_us);

-- Each patron's running total per gaming day and direction, kept by the same batch that writes
-- the cash transactions it adds up (a batch reads a patron's day in one row, whatever its
-- history).
CREATE TABLE cash_day_totals (
    player_id TEXT NOT NULL REFERENCES users (id),
    gaming_day TEXT NOT NULL,
    direction TEXT NOT NULL CHECK (direction IN ('deposit', 'withdrawal')),
    total_minor BIGINT NOT NULL CHECK (total_minor >= 0),
    -- The day's largest transaction and when: a day holding one past the report threshold
    -- cannot be part of a split (no piece may pass it), so its later transactions need no look-back.
    largest_minor BIGINT NOT NULL,
    largest_at_us BIGINT NOT NULL,
    PRIMARY KEY (player_id, gaming_day, direction)
);
CREATE INDEX cash_transactions_by_day ON cash_transactions (gaming_day, at_us);

-- A currency transaction report: one per patron and gaming day whose cash in or cash out passed
-- the report threshold. Its figures are read from cash_transactions until an auditor files it;
-- filing freezes the document as filed.
CREATE TABLE currency_transaction_reports (
    id TEXT PRIMARY KEY NOT NULL,
    player_id TEXT NOT NULL REFERENCES users (id),
    gaming_day TEXT NOT NULL,
    created_at_us BIGINT NOT NULL,
    filed_by TEXT REFERENCES users (id),
    filed_at_us BIGINT,
    filing_reference TEXT,
    filed_document TEXT,
    UNIQUE (player_id, gaming_day)
);

-- A structuring alert: a pattern seen in a patron's cash transactions, at most one per patron,
-- pattern and gaming day, with its evidence, until an auditor dismisses or escalates it.
CREATE TABLE compliance_alerts (
    id TEXT PRIMARY KEY NOT NULL,
    player_id TEXT NOT NULL REFERENCES users (id),
    pattern TEXT NOT NULL CHECK (pattern IN ('near_threshold', 'split_transactions', 'minimal_play')),
    gaming_day TEXT NOT NULL,
    raised_at_us BIGINT NOT NULL,
    evidence TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('open', 'dismissed', 'escalated')),
    reviewed_by TEXT REFERENCES users (id),
    reviewed_at_us BIGINT,
    review_note TEXT,
    UNIQUE (player_id, pattern, gaming_day)
);
CREATE INDEX compliance_alerts_by_status ON compliance_alerts (status, raised_at_us);

-- A suspicious-activity record, made when an auditor escalates an alert. Insert-only; never
-- shown to the patron.
CREATE TABLE suspicious_activity_reports (
    id TEXT PRIMARY KEY NOT NULL,
    alert_id TEXT NOT NULL UNIQUE REFERENCES compliance_alerts (id),
    player_id TEXT NOT NULL REFERENCES users (id),
    narrative TEXT NOT NULL,
    created_by TEXT NOT NULL REFERENCES users (id),
    created_at_us BIGINT NOT NULL
);

-- An external exclusion list imported (a state's self-exclusion list): who imported it, its
-- digest, and its entries sealed like identities, each with the same two match keys.
CREATE TABLE exclusion_lists (
    id TEXT PRIMARY KEY NOT NULL,
    name TEXT NOT NULL,
    sha256 TEXT NOT NULL,
    entries INTEGER NOT NULL,
    imported_by TEXT NOT NULL REFERENCES users (id),
    imported_at_us BIGINT NOT NULL
);
CREATE TABLE exclusion_list_entries (
    list_id TEXT NOT NULL REFERENCES exclusion_lists (id),
    line INTEGER NOT NULL,
    sealed TEXT NOT NULL,
    name_key TEXT NOT NULL,
    document_key TEXT,
    -- The last day of the exclusion, "YYYY-MM-DD"; NULL for permanent.
    ends_on TEXT,
    PRIMARY KEY (list_id, line)
);
CREATE INDEX exclusion_list_entries_by_name ON exclusion_list_entries (name_key);
CREATE INDEX exclusion_list_entries_by_document ON exclusion_list_entries (document_key);
CREATE INDEX patron_identities_by_name ON patron_identities (name_key);
CREATE INDEX patron_identities_by_document ON patron_identities (document_key);

-- A list entry that matches a patron, waiting for a second person's review: confirmed, it
-- excludes the patron (`exclusion_id`); rejected, it is kept with the reason.
CREATE TABLE exclusion_list_matches (
    id TEXT PRIMARY KEY NOT NULL,
    list_id TEXT NOT NULL,
    line INTEGER NOT NULL,
    player_id TEXT NOT NULL REFERENCES users (id),
    basis TEXT NOT NULL CHECK (basis IN ('name_and_date_of_birth', 'document', 'both')),
    found_at_us BIGINT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('pending', 'confirmed', 'rejected')),
    reviewed_by TEXT REFERENCES users (id),
    reviewed_at_us BIGINT,
    review_note TEXT,
    exclusion_id TEXT REFERENCES player_exclusions (id),
    UNIQUE (list_id, line, player_id),
    FOREIGN KEY (list_id, line) REFERENCES exclusion_list_entries (list_id, line)
);
