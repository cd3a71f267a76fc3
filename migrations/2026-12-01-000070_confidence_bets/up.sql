-- Confidence bets between players at a Prima Carta round (docs/confidence-bets.md): an offer
-- with its terms and both stakes; the offerer's stake is held in the round's escrow from the
-- offer, the taker's from the acceptance; settlement pays the winner both stakes less the
-- house's commission. `terms` is the JSON of the terms (kind, suit, ...).
CREATE TABLE confidence_bets (
    id TEXT PRIMARY KEY NOT NULL,
    round_id TEXT NOT NULL REFERENCES rounds (id),
    terms TEXT NOT NULL,
    offer_window TEXT NOT NULL CHECK (offer_window IN ('before_deal', 'copa')),
    offered_by TEXT NOT NULL REFERENCES users (id),
    offerer_side TEXT NOT NULL CHECK (offerer_side IN ('for', 'against')),
    offered_to TEXT REFERENCES users (id),
    for_stake_minor BIGINT NOT NULL CHECK (for_stake_minor > 0),
    -- A Seguro's backed player stakes nothing at acceptance.
    against_stake_minor BIGINT NOT NULL CHECK (against_stake_minor >= 0),
    status TEXT NOT NULL CHECK (status IN ('offered', 'accepted', 'withdrawn', 'declined', 'expired',
                                           'settled', 'void', 'refunded')),
    accepted_by TEXT REFERENCES users (id),
    winner_side TEXT CHECK (winner_side IN ('for', 'against')),
    paid_minor BIGINT NOT NULL CHECK (paid_minor >= 0),
    commission_minor BIGINT NOT NULL CHECK (commission_minor >= 0),
    offered_at_us BIGINT NOT NULL,
    updated_at_us BIGINT NOT NULL,
    CHECK (offered_to IS NULL OR offered_to <> offered_by),
    CHECK (accepted_by IS NULL OR accepted_by <> offered_by)
);
CREATE INDEX confidence_bets_by_round ON confidence_bets (round_id, offered_at_us);
CREATE INDEX confidence_bets_by_player ON confidence_bets (offered_by, offered_at_us);
CREATE INDEX confidence_bets_by_taker ON confidence_bets (accepted_by, offered_at_us);
