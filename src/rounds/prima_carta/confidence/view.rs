//! A round's confidence bets as one viewer sees them.

use super::*;

/// A confidence bet as one viewer sees it: the viewer's own parties by account id, everyone
/// else by the round's pseudonym.
#[derive(Serialize, ToSchema, Debug, Clone)]
pub struct ConfidenceBetView {
    pub id: String,
    pub round_id: String,
    /// `prima`, `fuerza`, `wins`, `first_to_complete` or `first_pass_count`.
    pub kind: String,
    /// The terms as offered (`kind` and its fields).
    #[schema(value_type = Object)]
    pub terms: serde_json::Value,
    /// The terms in words.
    pub description: String,
    pub status: BetStatus,
    /// `before_deal` or `copa`: when the offer may be taken; it expires when that phase ends.
    pub offer_window: String,
    /// Who made the offer, and the side they took (`for` or `against`).
    pub offered_by: PartyView,
    pub offerer_side: String,
    /// The only player who may take it, when the offer names one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub offered_to: Option<PartyView>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub accepted_by: Option<PartyView>,
    /// What the side for and the side against stake.
    pub for_stake: String,
    pub against_stake: String,
    /// Once settled: the side that won, what it was paid and the house's commission.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub winner_side: Option<String>,
    pub paid: String,
    pub commission: String,
    pub offered_at_us: i64,
}

#[derive(Serialize, ToSchema, Debug, Clone, PartialEq, Eq)]
pub struct PartyView {
    /// The round's pseudonym (`P1`, …).
    pub player: String,
    /// The account id: the viewer's own, and everyone's for staff.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub player_id: Option<String>,
    /// True when this party is the viewer.
    pub you: bool,
}

/// The round's bets as `viewer` sees them; `names` already holds the seats' pseudonyms.
pub fn views(bets: &[BetRow], names: &mut Pseudonyms, viewer: &Viewer) -> Vec<ConfidenceBetView> {
    let mut party = |id: &str| PartyView {
        player: names.of(id),
        player_id: viewer.sees(id).then(|| id.to_owned()),
        you: viewer.is(id),
    };
    bets.iter()
        .map(|b| {
            let terms: Option<Terms> = serde_json::from_str(&b.terms).ok();
            ConfidenceBetView {
                id: b.id.clone(),
                round_id: b.round_id.clone(),
                kind: terms.map(|t| t.kind().to_owned()).unwrap_or_default(),
                terms: serde_json::from_str(&b.terms).unwrap_or_default(),
                description: terms.map(|t| t.describe()).unwrap_or_default(),
                status: b.status(),
                offer_window: b.offer_window.clone(),
                offered_by: party(&b.offered_by),
                offerer_side: b.offerer_side.clone(),
                offered_to: b.offered_to.as_deref().map(&mut party),
                accepted_by: b.accepted_by.as_deref().map(&mut party),
                for_stake: format_minor(b.for_stake_minor),
                against_stake: format_minor(b.against_stake_minor),
                winner_side: b.winner_side.clone(),
                paid: format_minor(b.paid_minor),
                commission: format_minor(b.commission_minor),
                offered_at_us: b.offered_at_us,
            }
        })
        .collect()
}
