-- Two-person control (docs/floor.md, "Two-person control"): a change that
-- moves the house's edge or money is proposed by one person and applied
-- only when a second pit boss approves it before it expires. `request` is the
-- change as JSON; `result` the applied change's answer. A proposal is pending
-- until applied or rejected; a pending one past `expires_at_us` is expired.
CREATE TABLE proposals (
    id TEXT PRIMARY KEY NOT NULL,
    kind TEXT NOT NULL,
    subject TEXT,
    request TEXT NOT NULL,
    proposed_by TEXT NOT NULL REFERENCES users (id),
    proposed_at_us BIGINT NOT NULL,
    expires_at_us BIGINT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('pending', 'applied', 'rejected')),
    decided_by TEXT REFERENCES users (id),
    decided_at_us BIGINT,
    result TEXT
);
CREATE INDEX proposals_by_time ON proposals (proposed_at_us);
