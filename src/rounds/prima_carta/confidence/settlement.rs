//! Settling a round's confidence bets (docs/confidence-bets.md): at the round's settlement by the
//! terms and the commission, at a Seguro's copa decision, and on a void.

use super::*;

/// The round's facts that settle confidence bets.
pub fn outcome_of(
    result: &crate::games::prima_carta::RoundResult,
    facts: &crate::games::prima_carta::DealFacts,
) -> Outcome {
    Outcome {
        first_card: facts.first_card,
        winner: result.winner,
        first_to_complete: facts.first_to_complete,
        first_pass_count: facts.first_pass_count,
    }
}

/// Both stakes of a taken bet back to their holders (a Seguro's backed player staked none).
fn refund_both(row: &RoundRow, bet: &BetRow, memo: &str) -> Result<Vec<TransferSpec>> {
    [Side::For, Side::Against]
        .into_iter()
        .filter(|side| bet.stake_minor(*side) > 0)
        .map(|side| {
            let holder = bet.holder_of_taken(side)?;
            Ok(TransferSpec::new(
                AccountId::escrow(&row.id),
                AccountId::wallet(holder),
                amount(bet.stake_minor(side))?,
                TransferKind::ConfidenceRefund,
            )
            .refs(refs(row, holder, &bet.id))
            .memo(memo))
        })
        .collect()
}

/// Settles every accepted bet of a settled round, and expires any offer still open.
/// `winnings_minor` is what the pot paid its winner (a Seguro's share is of that).
pub fn settle_round(
    conn: &mut AnyConnection,
    row: &RoundRow,
    commission: Commission,
    outcome: &Outcome,
    winnings_minor: i64,
) -> Result<()> {
    close_window(conn, row, Window::BeforeDeal)?;
    close_window(conn, row, Window::Copa)?;
    let accepted: Vec<BetRow> = of_round(conn, &row.id)?
        .into_iter()
        .filter(|b| b.status() == BetStatus::Accepted)
        .collect();
    let copa = copa_of(row);
    let escrow = AccountId::escrow(&row.id);
    let mut specs = Vec::new();
    for bet in &accepted {
        let terms = bet.terms()?;
        let settlement = match terms {
            // The contribution went to the backed player when they paid the copa; one who never
            // decided (the copa ended first) gets none, and the bet is void.
            Terms::Seguro { suit, .. } if !copa.paid.contains(&suit) => Settlement::Void,
            Terms::Seguro { suit, share_bp } if outcome.winner == suit => {
                rules::seguro_share(winnings_minor, share_bp, bet.for_stake_minor, commission)
            }
            Terms::Seguro { .. } => Settlement::Won {
                winner: Side::Against,
                paid_minor: 0,
                commission_minor: 0,
            },
            _ => rules::settle(
                terms.verdict(outcome),
                bet.for_stake_minor,
                bet.against_stake_minor,
                commission,
            ),
        };
        let (status, winner_side, paid, fee) = match settlement {
            Settlement::Void => {
                specs.extend(refund_both(
                    row,
                    bet,
                    &format!("confidence bet void under its terms: {}", terms.describe()),
                )?);
                (BetStatus::Void, None, 0, 0)
            }
            Settlement::Won {
                winner,
                paid_minor,
                commission_minor,
            } => {
                let holder = bet.holder_of_taken(winner)?;
                let share = paid_minor + commission_minor;
                if let (Terms::Seguro { .. }, true) = (terms, share > 0) {
                    // The backed player pays the share out of what the pot paid them.
                    let backed = bet.holder_of_taken(Side::Against)?;
                    specs.push(
                        TransferSpec::new(
                            AccountId::wallet(backed),
                            escrow.clone(),
                            amount(share)?,
                            TransferKind::SeguroShare,
                        )
                        .refs(refs(row, backed, &bet.id))
                        .memo(format!("Seguro share of the winnings: {}", terms.describe())),
                    );
                }
                if paid_minor > 0 {
                    specs.push(
                        TransferSpec::new(
                            escrow.clone(),
                            AccountId::wallet(holder),
                            amount(paid_minor)?,
                            TransferKind::ConfidencePayout,
                        )
                        .refs(refs(row, holder, &bet.id))
                        .memo(format!("confidence bet won: {}", terms.describe())),
                    );
                }
                if commission_minor > 0 {
                    specs.push(
                        TransferSpec::new(
                            escrow.clone(),
                            AccountId::house_revenue(),
                            amount(commission_minor)?,
                            TransferKind::ConfidenceCommission,
                        )
                        .refs(refs(row, holder, &bet.id)),
                    );
                }
                (BetStatus::Settled, Some(winner.as_str()), paid_minor, commission_minor)
            }
        };
        diesel::update(cb::table.filter(cb::id.eq(&bet.id)))
            .set((
                cb::status.eq(status.as_str()),
                cb::winner_side.eq(winner_side),
                cb::paid_minor.eq(paid),
                cb::commission_minor.eq(fee),
                cb::updated_at_us.eq(now_us()),
            ))
            .execute(conn)?;
    }
    ledger::post(conn, &specs)?;
    Ok(())
}

/// A seated player's copa decision, before its copa is paid: an open Seguro offered to them
/// expires; a taken one hands them its contribution when they pay (so it can pay the copa), or
/// goes back to the backer, void, when they fold.
pub fn on_copa_decision(conn: &mut AnyConnection, row: &RoundRow, suit: crate::cards::Suit, pay: bool) -> Result<()> {
    let seguros: Vec<(BetRow, Terms)> = of_round(conn, &row.id)?
        .into_iter()
        .filter_map(|b| b.terms().ok().map(|t| (b, t)))
        .filter(|(_, t)| matches!(t, Terms::Seguro { suit: s, .. } if *s == suit))
        .collect();
    for (bet, terms) in seguros {
        match bet.status() {
            BetStatus::Offered => {
                if close_offer(conn, &bet, BetStatus::Expired, None)? {
                    refund_offerer(conn, row, &bet, "expired: the backed player decided")?;
                }
            }
            BetStatus::Accepted => {
                let backed = bet.holder_of_taken(Side::Against)?.to_owned();
                if pay {
                    ledger::post(
                        conn,
                        &[TransferSpec::new(
                            AccountId::escrow(&row.id),
                            AccountId::wallet(&backed),
                            amount(bet.for_stake_minor)?,
                            TransferKind::SeguroContribution,
                        )
                        .refs(refs(row, &backed, &bet.id))
                        .memo(format!("Seguro contribution to the copa: {}", terms.describe()))],
                    )?;
                } else {
                    ledger::post(conn, &refund_both(row, &bet, "Seguro void: the backed player folded")?)?;
                    diesel::update(cb::table.filter(cb::id.eq(&bet.id)))
                        .set((cb::status.eq(BetStatus::Void.as_str()), cb::updated_at_us.eq(now_us())))
                        .execute(conn)?;
                }
            }
            _ => {}
        }
    }
    Ok(())
}

/// A voided round: every stake held for a confidence bet or offer goes back.
pub fn refund_round(conn: &mut AnyConnection, row: &RoundRow) -> Result<()> {
    close_window(conn, row, Window::BeforeDeal)?;
    close_window(conn, row, Window::Copa)?;
    let accepted: Vec<BetRow> = of_round(conn, &row.id)?
        .into_iter()
        .filter(|b| b.status() == BetStatus::Accepted)
        .collect();
    let mut specs = Vec::new();
    for bet in &accepted {
        specs.extend(refund_both(row, bet, "void: confidence stake refunded")?);
        diesel::update(cb::table.filter(cb::id.eq(&bet.id)))
            .set((
                cb::status.eq(BetStatus::Refunded.as_str()),
                cb::updated_at_us.eq(now_us()),
            ))
            .execute(conn)?;
    }
    ledger::post(conn, &specs)?;
    Ok(())
}
