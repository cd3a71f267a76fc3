//! What a Peg Leg round shows: its quote, its cards dealt, its bets (others' by pseudonym),
//! and never an undealt card.

use super::*;

/// One count's price in a quote.
#[derive(Serialize, ToSchema, Debug, Clone)]
pub struct CountPriceView {
    pub count: u8,
    /// What a winning bet returns per unit staked, stake included; absent when not offered.
    #[schema(value_type = Option<String>, example = "4.35")]
    pub multiplier: Option<String>,
    /// The probability of the count given the cards dealt (estimated when simulated).
    pub probability: f64,
    /// When exact: the probability as a reduced fraction "p/q".
    pub exact: Option<String>,
}

/// The prices after one card: bets name its id.
#[derive(Serialize, ToSchema, Debug, Clone)]
pub struct QuoteView {
    pub id: String,
    pub cards_dealt: u8,
    /// exact or simulated.
    pub method: String,
    pub target_rtp_bp: u32,
    /// Counts 0..=10 in order.
    pub counts: Vec<CountPriceView>,
    /// When the quote stops taking bets (a timed window); absent: until the next card.
    pub expires_at_us: Option<i64>,
}

pub(super) fn multiplier_text(cents: u64) -> String {
    format_minor(cents as i64)
}

pub(super) fn quote_view(row: &QuoteRow, quote: &Quote, expires_at_us: Option<i64>) -> QuoteView {
    QuoteView {
        id: row.id.clone(),
        cards_dealt: quote.cards_dealt,
        method: match quote.method {
            Method::Exact { .. } => "exact".into(),
            Method::Simulated { .. } => "simulated".into(),
        },
        target_rtp_bp: quote.target_rtp_bp,
        counts: quote
            .counts
            .iter()
            .map(|c| CountPriceView {
                count: c.count,
                multiplier: c.multiplier_cents.map(multiplier_text),
                probability: c.probability,
                exact: c.exact.clone(),
            })
            .collect(),
        expires_at_us,
    }
}

#[derive(Serialize, ToSchema, Debug, Clone)]
pub struct PegLegBetView {
    pub id: String,
    /// The bettor: their id for themselves and staff, a pseudonym otherwise.
    pub player: String,
    pub count: u8,
    #[schema(value_type = String, example = "5.00")]
    pub stake: String,
    #[schema(value_type = String, example = "4.35")]
    pub multiplier: String,
    pub quote_id: String,
    pub status: BetStatus,
    /// While the bet is open: what surrendering it under the current quote pays.
    #[schema(value_type = Option<String>)]
    pub cash_out: Option<String>,
    /// What the player got back (win, surrender, refund; 0.00 for a loss).
    #[schema(value_type = Option<String>)]
    pub returned: Option<String>,
    pub surrender_quote_id: Option<String>,
    pub placed_at_us: i64,
}

/// A card as dealt, with what it did.
#[derive(Serialize, ToSchema, Debug, Clone)]
pub struct DealtCardView {
    pub index: u8,
    #[schema(value_type = crate::api::contract::CardId)]
    pub card: Card,
    pub key_count: u8,
    /// The Prima Carta engine's events for this card and its play-up.
    #[schema(value_type = Vec<Object>)]
    pub events: Vec<crate::games::prima_carta::Event>,
}

impl From<&CardStep> for DealtCardView {
    fn from(s: &CardStep) -> DealtCardView {
        DealtCardView {
            index: s.index,
            card: s.card,
            key_count: s.key_count,
            events: s.events.clone(),
        }
    }
}

/// What anyone at the table may see of a round: the cards dealt, the key suit's count,
/// the quote in force and the bets (pseudonymous but the caller's own). Nothing of an
/// undealt card: the server seed appears only once the round is over.
#[derive(Serialize, ToSchema, Debug, Clone)]
pub struct PegLegRoundView {
    pub id: String,
    pub table_id: String,
    /// The round's number at its table, from 1.
    pub number: i64,
    pub status: PegLegStatus,
    /// SHA-256 of the server seed, published when the round opened.
    pub commitment: String,
    /// The combined client seed, fixed by the first card.
    pub client_seed: Option<String>,
    pub cards_dealt: u8,
    /// Every card dealt so far, in order.
    pub cards: Vec<DealtCardView>,
    #[schema(value_type = Option<String>)]
    pub key_suit: Option<Suit>,
    pub key_count: u8,
    /// The count once no order of the undealt cards can change it.
    pub settled_count: Option<u8>,
    pub final_count: Option<u8>,
    pub quote: Option<QuoteView>,
    /// Until when bets after the last card are taken (a timed window).
    pub window_closes_at_us: Option<i64>,
    pub bets: Vec<PegLegBetView>,
    /// Revealed once the round is settled or voided.
    pub server_seed: Option<String>,
    pub config: PegLegConfig,
    pub created_at_us: i64,
    pub updated_at_us: i64,
}

/// The pass as far as it is dealt. Before the first card nothing is derived from the seed.
pub(super) fn pass_so_far(vault: &SeedVault, row: &PegLegRoundRow) -> Result<(PegLegPass, Vec<CardStep>)> {
    let mut pass = PegLegPass::new();
    let mut steps = Vec::new();
    let dealt = row.cards_dealt();
    if dealt == 0 {
        return Ok((pass, steps));
    }
    let client_seed = row
        .client_seed
        .as_deref()
        .ok_or_else(|| PegLegRoundError::Corrupt("cards dealt without a client seed".into()))?;
    let deck = deck_of(&open_seed(vault, row)?, &row.id, client_seed);
    for card in &deck[..dealt] {
        steps.push(pass.deal(*card).map_err(|e| PegLegRoundError::Corrupt(e.to_string()))?);
    }
    Ok((pass, steps))
}

pub fn view(
    conn: &mut AnyConnection,
    vault: &SeedVault,
    row: &PegLegRoundRow,
    viewer: &Viewer,
) -> Result<PegLegRoundView> {
    let status = row.status()?;
    let (pass, steps) = pass_so_far(vault, row)?;
    let current = if status == PegLegStatus::Dealing {
        current_quote(conn, row)?
    } else {
        None
    };
    let quote = match &current {
        Some(q) => Some((q, q.quote()?)),
        None => None,
    };
    let mut names = Pseudonyms::default();
    let bets = bets(conn, &row.id)?
        .iter()
        .map(|bet| bet_view(bet, quote.as_ref().map(|(_, q)| q), viewer, &mut names))
        .collect::<Result<Vec<_>>>()?;
    Ok(PegLegRoundView {
        id: row.id.clone(),
        table_id: row.table_id.clone(),
        number: row.number,
        status,
        commitment: row.commitment.clone(),
        client_seed: row.client_seed.clone(),
        cards_dealt: row.cards_dealt() as u8,
        cards: steps.iter().map(DealtCardView::from).collect(),
        key_suit: pass.key_suit(),
        key_count: pass.key_count(),
        settled_count: pass.settled_count(),
        final_count: row.final_count.map(|c| c as u8),
        quote: quote.map(|(row_q, q)| quote_view(row_q, &q, row.window_closes_at_us)),
        window_closes_at_us: row.window_closes_at_us,
        bets,
        server_seed: if status.is_over() {
            row.revealed_server_seed.clone()
        } else {
            None
        },
        config: row.config()?,
        created_at_us: row.created_at_us,
        updated_at_us: row.updated_at_us,
    })
}

/// One bet as `viewer` sees it, its cash-out value under the quote in force.
pub fn bet_view_of(
    conn: &mut AnyConnection,
    row: &PegLegRoundRow,
    bet_id: &str,
    viewer: &Viewer,
) -> Result<PegLegBetView> {
    let bet = find_bet(conn, bet_id)?;
    let quote = match current_quote(conn, row)? {
        Some(q) if row.status()? == PegLegStatus::Dealing => Some(q.quote()?),
        _ => None,
    };
    bet_view(&bet, quote.as_ref(), viewer, &mut Pseudonyms::default())
}

/// One bet as `viewer` sees it, its cash-out value under `quote` (the quote in force).
pub fn bet_view(bet: &BetRow, quote: Option<&Quote>, viewer: &Viewer, names: &mut Pseudonyms) -> Result<PegLegBetView> {
    let status = BetStatus::parse(&bet.status)?;
    let shown = viewer.sees_identities || bet.player_id == viewer.user_id;
    Ok(PegLegBetView {
        id: bet.id.clone(),
        player: if shown {
            bet.player_id.clone()
        } else {
            names.of(&bet.player_id)
        },
        count: bet.count as u8,
        stake: format_minor(bet.stake_minor),
        multiplier: format_minor(bet.multiplier_cents),
        quote_id: bet.quote_id.clone(),
        status,
        cash_out: match (status, quote) {
            (BetStatus::Open, Some(q)) => Some(format_minor(cash_out_minor(
                q,
                bet.count,
                bet.stake_minor,
                bet.multiplier_cents,
            ))),
            _ => None,
        },
        returned: bet.returned_minor.map(format_minor),
        surrender_quote_id: bet.surrender_quote_id.clone(),
        placed_at_us: bet.placed_at_us,
    })
}
