-- The house's Fuerza at a Jasper Prima Carta round (docs/confidence-bets.md): a bet with the
-- house that a seated player who paid the copa wins the main game, at the price of the quote
-- it names. The quote is the count of wins over `quote_samples` orders of the first pass's
-- discard pile drawn after `quote_decisions` copa decisions; anyone draws it again. The stake
-- is held in the round's escrow until the round is settled.
CREATE TABLE fuerza_bets (
    id TEXT PRIMARY KEY NOT NULL,
    round_id TEXT NOT NULL REFERENCES rounds (id),
    player_id TEXT NOT NULL REFERENCES users (id),
    suit TEXT NOT NULL CHECK (suit IN ('crowns', 'locks', 'fruit', 'swords', 'cups')),
    stake_minor BIGINT NOT NULL CHECK (stake_minor > 0),
    quote_decisions INTEGER NOT NULL CHECK (quote_decisions >= 1),
    quote_samples INTEGER NOT NULL CHECK (quote_samples > 0),
    quote_wins INTEGER NOT NULL CHECK (quote_wins > 0 AND quote_wins <= quote_samples),
    quote_wins_if_all_pay INTEGER NOT NULL CHECK (quote_wins_if_all_pay >= 0 AND quote_wins_if_all_pay <= quote_wins),
    price_hundredths INTEGER NOT NULL CHECK (price_hundredths >= 101),
    status TEXT NOT NULL CHECK (status IN ('open', 'won', 'lost', 'refunded')),
    returned_minor BIGINT NOT NULL CHECK (returned_minor >= 0),
    placed_at_us BIGINT NOT NULL,
    settled_at_us BIGINT
);
CREATE INDEX fuerza_bets_by_round ON fuerza_bets (round_id, placed_at_us);
CREATE INDEX fuerza_bets_by_player ON fuerza_bets (player_id, placed_at_us);
