//! House side bets on live Prima Carta rounds (docs/side-bets.md): pay tables installed
//! on tables, placing bets into escrow, settling them on the deal's facts,
//! refunds on a void, and the observed RTP auditors compare with theory.

use diesel::prelude::*;
use rust_decimal::prelude::ToPrimitive;
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::api::error::ApiError;
use crate::bets::{self, BetKind, BetResult, PayTable, Selection};
use crate::domain::{format_minor, minor_to_decimal, Amount, MINOR_DIGITS};
use crate::games::prima_carta::DealFacts;
use crate::ledger::{self, AccountId, Refs, TransferKind, TransferSpec};
use crate::math::observed_rtp::SettledBet;
use crate::math::{self, Certificate, RtpBounds};
use crate::rounds::record::RoundRow;
use crate::significant_events::{self, EventKind};
use crate::store::schema::{bets as b, pay_tables as pt, table_pay_tables as tpt};
use crate::store::{new_id, now_us, AnyConnection};

#[derive(Queryable, Selectable, Debug, Clone)]
#[diesel(table_name = pt)]
pub struct PayTableRow {
    pub id: String,
    pub name: String,
    pub version: i64,
    pub fingerprint: String,
    pub spec: String,
    pub certificate: String,
    pub created_by: Option<String>,
    pub created_at_us: i64,
}

impl PayTableRow {
    pub fn pay_table(&self) -> Result<PayTable, ApiError> {
        PayTable::from_json(&self.spec).map_err(|e| ApiError::internal(format!("stored pay table: {}", e.0)))
    }
    pub fn certificate(&self) -> Result<Certificate, ApiError> {
        serde_json::from_str(&self.certificate).map_err(|e| ApiError::internal(format!("stored certificate: {e}")))
    }
}

/// A stored pay table as shown over the API.
#[derive(Serialize, ToSchema)]
pub struct PayTableView {
    pub id: String,
    pub name: String,
    pub version: i64,
    pub fingerprint: String,
    #[schema(value_type = crate::bets::PayTableSpec)]
    pub spec: serde_json::Value,
    /// The certificate it was installed with: every bet's outcomes, RTP and house edge.
    #[schema(value_type = crate::math::Certificate)]
    pub certificate: serde_json::Value,
    pub created_at_us: i64,
}

impl From<&PayTableRow> for PayTableView {
    fn from(r: &PayTableRow) -> PayTableView {
        PayTableView {
            id: r.id.clone(),
            name: r.name.clone(),
            version: r.version,
            fingerprint: r.fingerprint.clone(),
            spec: serde_json::from_str(&r.spec).unwrap_or_default(),
            certificate: serde_json::from_str(&r.certificate).unwrap_or_default(),
            created_at_us: r.created_at_us,
        }
    }
}

/// Certifies a pay table on the cached distribution of N; refuses (422,
/// naming the bet and its RTP) one outside the bounds.
pub fn certify(table: &PayTable) -> Result<Certificate, ApiError> {
    let certificate = math::certify_pay_table(table, math::cached_n_distribution(), RtpBounds::default());
    if certificate.pass {
        return Ok(certificate);
    }
    // Name every failing bet, so one round of fixes gets the table through.
    let failures: Vec<String> = certificate.failures().into_iter().map(|f| f.message).collect();
    Err(ApiError::unprocessable(
        "pay_table_not_certified",
        if failures.is_empty() {
            "pay table failed certification".to_string()
        } else {
            failures.join("; ")
        },
    ))
}

/// Stores a certified pay table (once per fingerprint) and returns its row.
pub fn store_certified(
    conn: &mut AnyConnection,
    table: &PayTable,
    actor: Option<&str>,
) -> Result<PayTableRow, ApiError> {
    let certificate = certify(table)?;
    let fingerprint = table.fingerprint();
    if let Some(row) = pt::table
        .filter(pt::fingerprint.eq(&fingerprint))
        .select(PayTableRow::as_select())
        .first(conn)
        .optional()?
    {
        return Ok(row);
    }
    let id = new_id();
    diesel::insert_into(pt::table)
        .values((
            pt::id.eq(&id),
            pt::name.eq(table.name()),
            pt::version.eq(table.version() as i64),
            pt::fingerprint.eq(&fingerprint),
            pt::spec.eq(table.to_json_pretty()),
            pt::certificate.eq(certificate.to_json_pretty()),
            pt::created_by.eq(actor),
            pt::created_at_us.eq(now_us()),
        ))
        .execute(conn)
        .map_err(|e| match e {
            diesel::result::Error::DatabaseError(diesel::result::DatabaseErrorKind::UniqueViolation, _) => {
                ApiError::conflict(
                    "pay_table_exists",
                    format!(
                        "a different pay table named {} version {} exists; raise the version",
                        table.name(),
                        table.version()
                    ),
                )
            }
            other => other.into(),
        })?;
    pt::table
        .find(&id)
        .select(PayTableRow::as_select())
        .first(conn)
        .map_err(Into::into)
}

/// The pay table every Prima Carta table uses until a pit boss installs another.
pub fn builtin(conn: &mut AnyConnection) -> Result<PayTableRow, ApiError> {
    store_certified(conn, &PayTable::house_table(), None)
}

/// Installs a stored (so certified) pay table at a table; a significant event.
pub fn install_stored(
    conn: &mut AnyConnection,
    table_id: &str,
    pay_table_id: &str,
    actor: &str,
) -> Result<PayTableRow, ApiError> {
    let row: PayTableRow = pt::table
        .find(pay_table_id)
        .select(PayTableRow::as_select())
        .first(conn)
        .optional()?
        .ok_or_else(|| ApiError::not_found("pay table"))?;
    diesel::delete(tpt::table.find(table_id)).execute(conn)?;
    diesel::insert_into(tpt::table)
        .values((
            tpt::table_id.eq(table_id),
            tpt::pay_table_id.eq(&row.id),
            tpt::installed_by.eq(actor),
            tpt::installed_at_us.eq(now_us()),
        ))
        .execute(conn)?;
    significant_events::record(
        conn,
        EventKind::PayTableInstalled,
        Some(actor),
        Some(table_id),
        serde_json::json!({ "pay_table_id": row.id, "name": row.name, "version": row.version, "fingerprint": row.fingerprint }),
    )?;
    Ok(row)
}

pub fn for_table(conn: &mut AnyConnection, table_id: &str) -> Result<PayTableRow, ApiError> {
    let installed: Option<String> = tpt::table
        .find(table_id)
        .select(tpt::pay_table_id)
        .first(conn)
        .optional()?;
    match installed {
        Some(id) => Ok(pt::table.find(id).select(PayTableRow::as_select()).first(conn)?),
        None => builtin(conn),
    }
}

/// A stored pay table by id or by fingerprint; 404 when neither matches.
pub fn find_by_id_or_fingerprint(conn: &mut AnyConnection, wanted: &str) -> Result<PayTableRow, ApiError> {
    pt::table
        .filter(pt::id.eq(wanted).or(pt::fingerprint.eq(wanted)))
        .select(PayTableRow::as_select())
        .first(conn)
        .optional()?
        .ok_or_else(|| ApiError::not_found("pay table"))
}

pub fn find_pay_table(conn: &mut AnyConnection, id: &str) -> Result<PayTableRow, ApiError> {
    pt::table
        .find(id)
        .select(PayTableRow::as_select())
        .first(conn)
        .optional()?
        .ok_or_else(|| ApiError::not_found("pay table"))
}

pub fn list_pay_tables(conn: &mut AnyConnection) -> Result<Vec<PayTableRow>, ApiError> {
    Ok(pt::table
        .select(PayTableRow::as_select())
        .order((pt::name.asc(), pt::version.asc()))
        .load(conn)?)
}

/// A bet as stored. Bets are placed by the wager path (`wagers`).
#[derive(Queryable, Selectable, Insertable, Debug, Clone)]
#[diesel(table_name = b)]
pub struct BetRow {
    pub id: String,
    pub round_id: String,
    pub table_id: String,
    pub player_id: String,
    pub kind: String,
    pub selection: String,
    pub amount_minor: i64,
    pub pay_table_id: String,
    pub client_seed: Option<String>,
    pub status: String,
    pub returned_minor: i64,
    pub decided_by: Option<String>,
    pub placed_at_us: i64,
    pub settled_at_us: Option<i64>,
}

#[derive(Serialize, ToSchema, Debug, Clone)]
pub struct BetView {
    pub id: String,
    pub round_id: String,
    pub table_id: String,
    pub player_id: String,
    pub kind: String,
    #[schema(value_type = crate::api::contract::BetSelection)]
    pub selection: serde_json::Value,
    pub amount: String,
    pub pay_table_id: String,
    /// open, won, lost, pushed or refunded.
    pub status: String,
    /// What the bet returned to the wallet (stake included); "0.00" while open or lost.
    pub returned: String,
    /// The pay applied (a:1) when the bet won.
    #[schema(value_type = Option<crate::api::contract::Pays>)]
    pub pays: Option<serde_json::Value>,
    /// The fact of the deal that decided the bet: `fact` (first_card,
    /// first_to_complete, highest_foundation or first_pass_count) and its values.
    #[schema(value_type = Option<Object>)]
    pub decided_by: Option<serde_json::Value>,
    pub placed_at_us: i64,
    pub settled_at_us: Option<i64>,
}

impl From<&BetRow> for BetView {
    fn from(r: &BetRow) -> BetView {
        // Stored as the whole settlement: {"result", "pays"?, "decided_by"}.
        let settlement: Option<serde_json::Value> = r.decided_by.as_deref().and_then(|d| serde_json::from_str(d).ok());
        BetView {
            id: r.id.clone(),
            round_id: r.round_id.clone(),
            table_id: r.table_id.clone(),
            player_id: r.player_id.clone(),
            kind: r.kind.clone(),
            selection: serde_json::from_str(&r.selection).unwrap_or_default(),
            amount: format_minor(r.amount_minor),
            pay_table_id: r.pay_table_id.clone(),
            status: r.status.clone(),
            returned: format_minor(r.returned_minor),
            pays: settlement.as_ref().and_then(|s| s.get("pays").cloned()),
            decided_by: settlement.and_then(|mut s| s.get_mut("decided_by").map(serde_json::Value::take)),
            placed_at_us: r.placed_at_us,
            settled_at_us: r.settled_at_us,
        }
    }
}

/// What a bet's transfers refer to.
pub(crate) fn refs(row: &RoundRow, player_id: &str, bet_id: &str) -> Refs {
    refs_of(&row.table_id, &row.id, player_id, bet_id)
}

/// [`refs`] from the ids alone.
pub(crate) fn refs_of(table_id: &str, round_id: &str, player_id: &str, bet_id: &str) -> Refs {
    Refs {
        user_id: Some(player_id.to_string()),
        table_id: Some(table_id.to_string()),
        round_id: Some(round_id.to_string()),
        bet_id: Some(bet_id.to_string()),
    }
}
pub fn round_bets(conn: &mut AnyConnection, round_id: &str) -> QueryResult<Vec<BetRow>> {
    b::table
        .filter(b::round_id.eq(round_id))
        .select(BetRow::as_select())
        .order((b::placed_at_us.asc(), b::id.asc()))
        .load(conn)
}

pub fn player_bets(conn: &mut AnyConnection, player_id: &str, limit: i64) -> QueryResult<Vec<BetRow>> {
    b::table
        .filter(b::player_id.eq(player_id))
        .select(BetRow::as_select())
        .order((b::placed_at_us.desc(), b::id.desc()))
        .limit(limit)
        .load(conn)
}

pub fn client_seeds(conn: &mut AnyConnection, round_id: &str) -> QueryResult<Vec<String>> {
    Ok(b::table
        .filter(b::round_id.eq(round_id))
        .select(b::client_seed)
        .load::<Option<String>>(conn)?
        .into_iter()
        .flatten()
        .collect())
}

/// Settles every open bet of the round on the deal's facts, in one batch of
/// transfers: a lost stake goes to the house bankroll; a won or pushed stake
/// returns to the wallet, and winnings come from the bankroll.
pub fn settle_round(conn: &mut AnyConnection, row: &RoundRow, facts: &DealFacts) -> Result<(), ApiError> {
    let open: Vec<BetRow> = round_bets(conn, &row.id)?
        .into_iter()
        .filter(|b| b.status == "open")
        .collect();
    let mut specs = Vec::new();
    let now = now_us();
    for bet in &open {
        let kind = BetKind::parse(&bet.kind).ok_or_else(|| ApiError::internal("stored bet kind"))?;
        let selection: Selection =
            serde_json::from_str(&bet.selection).map_err(|e| ApiError::internal(e.to_string()))?;
        let pay_table = find_pay_table(conn, &bet.pay_table_id)?.pay_table()?;
        let settlement =
            bets::settle(kind, &selection, &pay_table, facts).map_err(|e| ApiError::internal(e.describe()))?;
        let stake = minor_to_decimal(bet.amount_minor);
        let returned = bets::returned_amount(stake, &settlement.result);
        let returned_minor = decimal_to_minor(returned)?;
        let stake_amount = Amount::from_minor(bet.amount_minor).map_err(|e| ApiError::internal(e.to_string()))?;
        let escrow = AccountId::escrow(&row.id);
        let wallet = AccountId::wallet(&bet.player_id);
        let r = refs(row, &bet.player_id, &bet.id);
        let status = match settlement.result {
            BetResult::Lost => {
                specs.push(
                    TransferSpec::new(
                        escrow,
                        AccountId::house_bankroll(),
                        stake_amount,
                        TransferKind::BetCollected,
                    )
                    .refs(r),
                );
                "lost"
            }
            BetResult::Pushed => {
                specs.push(TransferSpec::new(escrow, wallet, stake_amount, TransferKind::BetReturned).refs(r));
                "pushed"
            }
            BetResult::Won { .. } => {
                specs.push(
                    TransferSpec::new(escrow, wallet.clone(), stake_amount, TransferKind::BetReturned).refs(r.clone()),
                );
                let winnings = returned_minor - bet.amount_minor;
                if winnings > 0 {
                    let amount = Amount::from_minor(winnings).map_err(|e| ApiError::internal(e.to_string()))?;
                    specs.push(
                        TransferSpec::new(AccountId::house_bankroll(), wallet, amount, TransferKind::BetPayout).refs(r),
                    );
                }
                "won"
            }
        };
        diesel::update(b::table.find(&bet.id))
            .set((
                b::status.eq(status),
                b::returned_minor.eq(if status == "lost" { 0 } else { returned_minor }),
                b::decided_by.eq(serde_json::to_string(&settlement).ok()),
                b::settled_at_us.eq(now),
            ))
            .execute(conn)?;
    }
    ledger::post(conn, &specs)?;
    Ok(())
}

/// A voided round returns every open stake.
pub fn refund_round(conn: &mut AnyConnection, row: &RoundRow) -> Result<(), ApiError> {
    let open: Vec<BetRow> = round_bets(conn, &row.id)?
        .into_iter()
        .filter(|b| b.status == "open")
        .collect();
    let mut specs = Vec::new();
    for bet in &open {
        let amount = Amount::from_minor(bet.amount_minor).map_err(|e| ApiError::internal(e.to_string()))?;
        specs.push(
            TransferSpec::new(
                AccountId::escrow(&row.id),
                AccountId::wallet(&bet.player_id),
                amount,
                TransferKind::BetRefund,
            )
            .refs(refs(row, &bet.player_id, &bet.id)),
        );
        diesel::update(b::table.find(&bet.id))
            .set((
                b::status.eq("refunded"),
                b::returned_minor.eq(bet.amount_minor),
                b::settled_at_us.eq(now_us()),
            ))
            .execute(conn)?;
    }
    ledger::post(conn, &specs)?;
    Ok(())
}

fn decimal_to_minor(value: Decimal) -> Result<i64, ApiError> {
    let scaled = (value * Decimal::from(10i64.pow(MINOR_DIGITS))).trunc();
    scaled.to_i64().ok_or_else(|| ApiError::internal("amount out of range"))
}

/// Bet totals by kind for a round's public view (not who bet).
#[derive(Serialize, ToSchema, Debug, Clone)]
pub struct BetTotal {
    pub kind: String,
    pub bets: i64,
    pub staked: String,
}

/// A round's bet totals by kind, from the running totals the wager path keeps
/// (one row per kind, however many bets the round holds).
pub fn round_totals(conn: &mut AnyConnection, round_id: &str) -> QueryResult<Vec<BetTotal>> {
    use crate::store::schema::round_bet_totals as t;
    let rows: Vec<(String, i64, i64)> = t::table
        .filter(t::round_id.eq(round_id))
        .select((t::kind, t::bets, t::staked_minor))
        .load(conn)?;
    Ok(BetKind::ALL
        .iter()
        .filter_map(|kind| rows.iter().find(|(k, _, _)| k == kind.name()))
        .map(|(kind, bets, staked)| BetTotal {
            kind: kind.clone(),
            bets: *bets,
            staked: format_minor(*staked),
        })
        .collect())
}

#[derive(Deserialize, Debug, Clone, Default)]
pub struct RtpQuery {
    pub table_id: Option<String>,
    pub kind: Option<String>,
    pub from_us: Option<i64>,
    pub to_us: Option<i64>,
}

/// Observed against theoretical RTP for one group of settled bets.
#[derive(Serialize, ToSchema, Debug, Clone)]
pub struct RtpLine {
    pub kind: String,
    pub table_id: String,
    pub pay_table_id: String,
    pub bets: i64,
    pub staked: String,
    pub returned: String,
    /// returned / staked, as a fraction (e.g. 0.9612).
    pub observed_rtp: f64,
    /// The certified RTP of this bet under the pay table it was placed under.
    pub theoretical_rtp: f64,
    /// Standard error of the observed RTP: the larger of the error for
    /// independent bets and the error with bets clustered by round (bets on
    /// one round share its deal); docs/math.md.
    pub standard_error: f64,
    /// The error if every bet were independent (certified σ per unit).
    pub independent_error: f64,
    /// The error with each round a cluster.
    pub clustered_error: f64,
    /// Settled rounds these bets were on.
    pub rounds: i64,
    /// |observed − theoretical| exceeds 2.576 standard errors (the 99% band).
    pub outside_99_band: bool,
}

pub fn observed_rtp(conn: &mut AnyConnection, q: &RtpQuery) -> Result<Vec<RtpLine>, ApiError> {
    let mut query = b::table
        .select(BetRow::as_select())
        .filter(b::status.eq_any(["won", "lost", "pushed"]))
        .into_boxed();
    if let Some(t) = &q.table_id {
        query = query.filter(b::table_id.eq(t.clone()));
    }
    if let Some(k) = &q.kind {
        query = query.filter(b::kind.eq(k.clone()));
    }
    if let Some(f) = q.from_us {
        query = query.filter(b::placed_at_us.ge(f));
    }
    if let Some(t) = q.to_us {
        query = query.filter(b::placed_at_us.lt(t));
    }
    let rows: Vec<BetRow> = query.load(conn)?;
    // Group by (kind incl. Cartas number, table, pay table).
    type Group<'a> = std::collections::BTreeMap<(String, Option<u8>, String, String), Vec<&'a BetRow>>;
    let mut groups: Group = Default::default();
    for r in &rows {
        let number = match serde_json::from_str::<Selection>(&r.selection) {
            Ok(Selection::Number(n)) => Some(n),
            _ => None,
        };
        groups
            .entry((r.kind.clone(), number, r.table_id.clone(), r.pay_table_id.clone()))
            .or_default()
            .push(r);
    }
    let mut lines = Vec::new();
    for ((kind, number, table_id, pay_table_id), bets) in groups {
        let certificate = find_pay_table(conn, &pay_table_id)?.certificate()?;
        let Some(cert) = certificate
            .bets
            .iter()
            .find(|c| c.kind.name() == kind && c.number == number)
        else {
            continue;
        };
        let label = cert.bet.clone();
        let settled: Vec<SettledBet<'_>> = bets
            .iter()
            .map(|b| SettledBet {
                round_id: &b.round_id,
                staked_minor: b.amount_minor,
                returned_minor: b.returned_minor,
            })
            .collect();
        let Some(o) = crate::math::observed_rtp::observed_rtp(&settled, cert.std_dev_per_unit) else {
            continue;
        };
        let rounds = settled
            .iter()
            .map(|b| b.round_id)
            .collect::<std::collections::HashSet<_>>()
            .len();
        let theoretical = cert.rtp.value();
        lines.push(RtpLine {
            kind: label,
            table_id,
            pay_table_id,
            bets: bets.len() as i64,
            staked: format_minor(o.staked_minor),
            returned: format_minor(o.returned_minor),
            observed_rtp: o.observed,
            theoretical_rtp: theoretical,
            standard_error: o.standard_error(),
            independent_error: o.independent_error,
            clustered_error: o.clustered_error,
            rounds: rounds as i64,
            outside_99_band: o.outside_99_band(theoretical),
        });
    }
    Ok(lines)
}
