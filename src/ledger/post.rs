//! The ledger's one write path.

use diesel::prelude::*;
use diesel::sql_types::{Array, BigInt, Nullable, Text};
use serde::Serialize;
use std::collections::HashMap;
use utoipa::ToSchema;

use super::accounts::AccountId;
use super::chain::transfer_hash;
use crate::domain::{format_minor, Amount};
use crate::store::pg_with::WithStatement;
use crate::store::schema::{accounts as acc, ledger_head, transfers};
use crate::store::{new_id, now_us, AnyConnection};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum TransferKind {
    Deposit,
    Withdrawal,
    Correction,
    Spiga,
    SeatFee,
    Copa,
    Corte,
    CorteHeld,
    Cobre,
    CobreCarried,
    PotPayout,
    BetStake,
    BetCollected,
    BetReturned,
    BetPayout,
    BetRefund,
    LoboEscrow,
    LoboFee,
    LoboLoss,
    LoboWin,
    LoboRelease,
    /// A contest entry: wallet → the contest's pot.
    ContestEntry,
    /// The house's rake on a settled contest: pot → house revenue.
    ContestRake,
    /// A contest's prize: pot → a winner's wallet.
    ContestPrize,
    /// A confidence bet's stake: wallet → the round's escrow (the offerer's at the offer, the
    /// taker's at the acceptance).
    ConfidenceStake,
    /// A confidence bet won: the round's escrow → the winner's wallet (both stakes less the
    /// commission).
    ConfidencePayout,
    /// The house's commission on a confidence bet: the round's escrow → house revenue.
    ConfidenceCommission,
    /// A confidence stake handed back untouched: an offer withdrawn, declined or expired, a bet
    /// its terms void, or a voided round.
    ConfidenceRefund,
    /// A Seguro's contribution, when the backed player pays the copa: the round's escrow → the
    /// backed player's wallet.
    SeguroContribution,
    /// A Seguro's share of the winnings: the backed player's wallet → the round's escrow, then
    /// paid to the backer as a `confidence_payout`.
    SeguroShare,
    Refund,
}

impl TransferKind {
    pub fn as_str(self) -> &'static str {
        match self {
            TransferKind::Deposit => "deposit",
            TransferKind::Withdrawal => "withdrawal",
            TransferKind::Correction => "correction",
            TransferKind::Spiga => "spiga",
            TransferKind::SeatFee => "seat_fee",
            TransferKind::Copa => "copa",
            TransferKind::Corte => "corte",
            TransferKind::CorteHeld => "corte_held",
            TransferKind::Cobre => "cobre",
            TransferKind::CobreCarried => "cobre_carried",
            TransferKind::PotPayout => "pot_payout",
            TransferKind::BetStake => "bet_stake",
            TransferKind::BetCollected => "bet_collected",
            TransferKind::BetReturned => "bet_returned",
            TransferKind::BetPayout => "bet_payout",
            TransferKind::BetRefund => "bet_refund",
            TransferKind::LoboEscrow => "lobo_escrow",
            TransferKind::LoboFee => "lobo_fee",
            TransferKind::LoboLoss => "lobo_loss",
            TransferKind::LoboWin => "lobo_win",
            TransferKind::LoboRelease => "lobo_release",
            TransferKind::ContestEntry => "contest_entry",
            TransferKind::ContestRake => "contest_rake",
            TransferKind::ContestPrize => "contest_prize",
            TransferKind::ConfidenceStake => "confidence_stake",
            TransferKind::ConfidencePayout => "confidence_payout",
            TransferKind::ConfidenceCommission => "confidence_commission",
            TransferKind::ConfidenceRefund => "confidence_refund",
            TransferKind::SeguroContribution => "seguro_contribution",
            TransferKind::SeguroShare => "seguro_share",
            TransferKind::Refund => "refund",
        }
    }
}

/// What a transfer refers to.
#[derive(Clone, Debug, Default)]
pub struct Refs {
    pub user_id: Option<String>,
    pub table_id: Option<String>,
    pub round_id: Option<String>,
    pub bet_id: Option<String>,
}

/// A transfer to be posted: `amount` leaves `debit` and enters `credit`.
#[derive(Clone, Debug)]
pub struct TransferSpec {
    pub debit: AccountId,
    pub credit: AccountId,
    pub amount: Amount,
    pub kind: TransferKind,
    pub refs: Refs,
    pub idempotency_key: Option<String>,
    pub memo: Option<String>,
}

impl TransferSpec {
    pub fn new(debit: AccountId, credit: AccountId, amount: Amount, kind: TransferKind) -> TransferSpec {
        TransferSpec {
            debit,
            credit,
            amount,
            kind,
            refs: Refs::default(),
            idempotency_key: None,
            memo: None,
        }
    }
    pub fn refs(mut self, refs: Refs) -> TransferSpec {
        self.refs = refs;
        self
    }
    pub fn memo(mut self, memo: impl Into<String>) -> TransferSpec {
        self.memo = Some(memo.into());
        self
    }
    pub fn idempotency_key(mut self, key: Option<&str>) -> TransferSpec {
        self.idempotency_key = key.map(str::to_string);
        self
    }
}

/// A posted, immutable transfer.
#[derive(Queryable, Selectable, Insertable, Serialize, ToSchema, Debug, Clone, PartialEq)]
#[diesel(table_name = transfers)]
pub struct Transfer {
    /// Position in the ledger's single total order, from 1.
    pub seq: i64,
    pub id: String,
    pub debit_account: String,
    pub credit_account: String,
    pub amount_minor: i64,
    pub kind: String,
    pub user_id: Option<String>,
    pub table_id: Option<String>,
    pub round_id: Option<String>,
    pub bet_id: Option<String>,
    pub idempotency_key: Option<String>,
    pub memo: Option<String>,
    pub created_at_us: i64,
    pub prev_hash: String,
    pub hash: String,
}

impl Transfer {
    pub fn amount(&self) -> String {
        format_minor(self.amount_minor)
    }
}

#[derive(Debug, thiserror::Error)]
pub enum LedgerError {
    #[error("insufficient funds in {account}: balance {balance}, needs {needed}")]
    InsufficientFunds {
        account: String,
        balance: String,
        needed: String,
    },
    #[error("account {0} does not exist")]
    UnknownAccount(String),
    #[error("a transfer cannot move money from an account to itself ({0})")]
    SameAccount(String),
    /// The transfer would be stamped before the end of the latest closed gaming day: this
    /// instance's clock is behind the one that closed it.
    #[error(
        "nothing can be booked into a closed gaming day: this transfer's instant, {}, is before {}, the end \
         of the latest closed gaming day (this server's clock may be behind)",
        instant_text(*at_us),
        instant_text(*closed_until_us)
    )]
    GamingDayClosed { at_us: i64, closed_until_us: i64 },
    #[error(transparent)]
    Db(#[from] diesel::result::Error),
}

fn instant_text(us: i64) -> String {
    chrono::DateTime::from_timestamp_micros(us)
        .map(|t| t.to_rfc3339_opts(chrono::SecondsFormat::Micros, true))
        .unwrap_or_else(|| format!("{us} µs"))
}

/// Why a player's payment (transfers out of their wallet) was refused.
#[derive(Debug, thiserror::Error)]
pub enum PaymentRefused {
    /// The wallet holds too little; `balance_minor` is what it holds now, before any of
    /// the transfers.
    #[error("the wallet holds {}", format_minor(*balance_minor))]
    Short { balance_minor: i64 },
    #[error("the player has no wallet")]
    NoWallet,
    #[error(transparent)]
    Ledger(#[from] LedgerError),
}

/// [`post`] for transfers that take money from `player_id`'s wallet: a wallet too short
/// or missing is told apart from other failures, so each service can say what was needed.
pub fn post_paid_by(
    conn: &mut AnyConnection,
    player_id: &str,
    specs: &[TransferSpec],
) -> Result<Vec<Transfer>, PaymentRefused> {
    match post(conn, specs) {
        Ok(posted) => Ok(posted),
        // The wallet as it stands, not as the first transfer would have left it.
        Err(LedgerError::InsufficientFunds { .. }) => Err(PaymentRefused::Short {
            balance_minor: super::accounts::balance_minor(conn, &AccountId::wallet(player_id))
                .map_err(LedgerError::Db)?,
        }),
        Err(LedgerError::UnknownAccount(_)) => Err(PaymentRefused::NoWallet),
        Err(other) => Err(other.into()),
    }
}

/// Posts `specs` in order, atomically with the caller's transaction.
///
/// Takes the ledger head's row lock first (PostgreSQL), so concurrent writers
/// from any instance append one after another: balances read here are current
/// and the chain has a single order. Accounts must exist (see
/// [`accounts::ensure`]). All transfers in one call pass or none do.
pub fn post(conn: &mut AnyConnection, specs: &[TransferSpec]) -> Result<Vec<Transfer>, LedgerError> {
    if specs.is_empty() {
        return Ok(Vec::new());
    }
    let mut appender = Appender::lock_head(conn)?;
    appender.load_accounts(conn, specs.iter().flat_map(|s| [&s.debit, &s.credit]))?;
    appender.append(specs)?;
    appender.write(conn)
}

/// The ledger head as the lock reads it.
#[derive(QueryableByName)]
struct Head {
    #[diesel(sql_type = BigInt)]
    seq: i64,
    #[diesel(sql_type = Text)]
    hash: String,
    #[diesel(sql_type = BigInt)]
    closed_until_us: i64,
}

/// The ledger's tail while a transaction holds the head lock: the running
/// `seq`, hash and balances of the accounts loaded so far, and the transfers
/// appended in memory. Many requests' transfers can be appended — each
/// request's all or nothing — and then written with a few set-based
/// statements: this is what lets the wager path commit many requests in one
/// transaction.
pub struct Appender {
    seq: i64,
    prev_hash: String,
    now_us: i64,
    /// The end of the latest closed gaming day: nothing is stamped before it.
    closed_until_us: i64,
    balances: HashMap<AccountId, (i64, bool)>,
    /// Accounts whose balance changed, in first-touched order.
    touched: Vec<AccountId>,
    posted: Vec<Transfer>,
}

impl Appender {
    /// Takes the ledger head's row lock (PostgreSQL; SQLite's writers are
    /// already one at a time) and reads the head, with where the ledger is
    /// closed: a day close takes the same lock to move that, so a transfer
    /// commits either before the close reads the day or after it, refused.
    pub fn lock_head(conn: &mut AnyConnection) -> Result<Appender, LedgerError> {
        let (seq, prev_hash, closed_until_us) = match conn {
            AnyConnection::Postgresql(c) => {
                let head: Head =
                    diesel::sql_query("SELECT seq, hash, closed_until_us FROM ledger_head WHERE id = 1 FOR UPDATE")
                        .get_result(c)?;
                (head.seq, head.hash, head.closed_until_us)
            }
            AnyConnection::Sqlite(c) => ledger_head::table
                .find(1)
                .select((ledger_head::seq, ledger_head::hash, ledger_head::closed_until_us))
                .first(c)?,
        };
        Ok(Appender {
            seq,
            prev_hash,
            now_us: now_us(),
            closed_until_us,
            balances: HashMap::new(),
            touched: Vec::new(),
            posted: Vec::new(),
        })
    }

    /// Takes an account's balance that the caller read under the head lock
    /// (with its other reads, in one statement of its own).
    pub fn loaded(&mut self, id: AccountId, balance_minor: i64, may_go_negative: bool) {
        self.balances.entry(id).or_insert((balance_minor, may_go_negative));
    }

    /// Reads the current balances of `ids` (one query); ids that name no
    /// account stay unknown, and a transfer touching one fails alone.
    pub fn load_accounts<'a>(
        &mut self,
        conn: &mut AnyConnection,
        ids: impl IntoIterator<Item = &'a AccountId>,
    ) -> Result<(), LedgerError> {
        let mut wanted: Vec<&str> = ids
            .into_iter()
            .filter(|id| !self.balances.contains_key(*id))
            .map(AccountId::as_str)
            .collect();
        wanted.sort_unstable();
        wanted.dedup();
        for chunk in wanted.chunks(MAX_IDS_PER_QUERY) {
            let rows: Vec<(String, i64, bool)> = acc::table
                .filter(acc::id.eq_any(chunk))
                .select((acc::id, acc::balance_minor, acc::may_go_negative))
                .load(conn)?;
            for (id, balance, may_go_negative) in rows {
                self.balances
                    .insert(AccountId::from_stored(id), (balance, may_go_negative));
            }
        }
        Ok(())
    }

    /// The instant every transfer appended here is stamped with.
    /// The sequence number of the last transfer appended: the head's, before this writer
    /// appends any.
    pub fn head_seq(&self) -> i64 {
        self.seq
    }

    pub fn now_us(&self) -> i64 {
        self.now_us
    }

    /// The id of the last transfer appended, if any. Its writer's transaction
    /// commits all or nothing, so finding this one row committed says the
    /// whole transaction was.
    pub fn last_transfer_id(&self) -> Option<&str> {
        self.posted.last().map(|t| t.id.as_str())
    }

    /// An account's running balance, if it was loaded and exists.
    pub fn balance_minor(&self, id: &AccountId) -> Option<i64> {
        self.balances.get(id).map(|(b, _)| *b)
    }

    /// Appends one request's transfers in order, or none of them: each is
    /// checked against the running balances (no wallet, escrow or pot below
    /// zero). Returns the posted transfers.
    pub fn append(&mut self, specs: &[TransferSpec]) -> Result<&[Transfer], LedgerError> {
        if !specs.is_empty() && self.now_us < self.closed_until_us {
            return Err(LedgerError::GamingDayClosed {
                at_us: self.now_us,
                closed_until_us: self.closed_until_us,
            });
        }
        // Check the whole request on a scratch copy of the balances it touches.
        let mut scratch: Vec<(AccountId, i64, bool)> = Vec::new();
        for spec in specs {
            if spec.debit == spec.credit {
                return Err(LedgerError::SameAccount(spec.debit.to_string()));
            }
            for id in [&spec.debit, &spec.credit] {
                if !scratch.iter().any(|(s, _, _)| s == id) {
                    let (balance, may_go_negative) = *self
                        .balances
                        .get(id)
                        .ok_or_else(|| LedgerError::UnknownAccount(id.to_string()))?;
                    scratch.push((id.clone(), balance, may_go_negative));
                }
            }
        }
        let index = |scratch: &[(AccountId, i64, bool)], id: &AccountId| {
            scratch.iter().position(|(s, _, _)| s == id).expect("collected above")
        };
        for spec in specs {
            let amount = spec.amount.minor();
            let d = index(&scratch, &spec.debit);
            let (_, debit_balance, may_go_negative) = &scratch[d];
            if !may_go_negative && *debit_balance < amount {
                return Err(LedgerError::InsufficientFunds {
                    account: spec.debit.to_string(),
                    balance: format_minor(*debit_balance),
                    needed: format_minor(amount),
                });
            }
            scratch[d].1 -= amount;
            let c = index(&scratch, &spec.credit);
            scratch[c].1 += amount;
        }

        // Every check passed: apply.
        for (id, balance, may_go_negative) in scratch {
            if !self.touched.contains(&id) {
                self.touched.push(id.clone());
            }
            self.balances.insert(id, (balance, may_go_negative));
        }
        let first = self.posted.len();
        for spec in specs {
            self.seq += 1;
            let mut t = Transfer {
                seq: self.seq,
                id: new_id(),
                debit_account: spec.debit.to_string(),
                credit_account: spec.credit.to_string(),
                amount_minor: spec.amount.minor(),
                kind: spec.kind.as_str().to_string(),
                user_id: spec.refs.user_id.clone(),
                table_id: spec.refs.table_id.clone(),
                round_id: spec.refs.round_id.clone(),
                bet_id: spec.refs.bet_id.clone(),
                idempotency_key: spec.idempotency_key.clone(),
                memo: spec.memo.clone(),
                created_at_us: self.now_us,
                prev_hash: std::mem::take(&mut self.prev_hash),
                hash: String::new(),
            };
            t.hash = transfer_hash(&t.prev_hash, &t);
            self.prev_hash = t.hash.clone();
            self.posted.push(t);
        }
        Ok(&self.posted[first..])
    }

    /// Writes what was appended: the transfers, every changed balance and
    /// the new head (on PostgreSQL one statement, see [`Appender::write_parts`]).
    pub fn write(self, conn: &mut AnyConnection) -> Result<Vec<Transfer>, LedgerError> {
        if self.posted.is_empty() {
            return Ok(self.posted);
        }
        match conn {
            AnyConnection::Postgresql(c) => {
                let mut statement = WithStatement::default();
                self.write_parts(&mut statement);
                statement.execute(c)?;
            }
            AnyConnection::Sqlite(c) => self.write_sqlite(c)?,
        }
        Ok(self.posted)
    }

    /// Writes what was appended on SQLite: multi-row inserts of the transfers,
    /// one statement for the changed balances, and the head.
    pub fn write_sqlite(&self, c: &mut diesel::SqliteConnection) -> QueryResult<()> {
        if self.posted.is_empty() {
            return Ok(());
        }
        for chunk in self.posted.chunks(MAX_ROWS_PER_INSERT) {
            diesel::insert_into(transfers::table).values(chunk).execute(c)?;
        }
        for chunk in self.touched.chunks(MAX_IDS_PER_QUERY) {
            diesel::sql_query(balance_update_sql(chunk, &self.balances)).execute(c)?;
        }
        diesel::update(ledger_head::table.find(1))
            .set((ledger_head::seq.eq(self.seq), ledger_head::hash.eq(&self.prev_hash)))
            .execute(c)?;
        Ok(())
    }

    /// Adds what was appended to a PostgreSQL statement as three parts: the
    /// transfers, every changed balance and the new head, each of fixed text
    /// whatever the number of rows (columns as arrays; a multi-row VALUES list
    /// makes the server parse and plan every row). A caller with rows of its
    /// own to write in the same transaction adds them to the same statement.
    pub fn write_parts<'a>(&'a self, statement: &mut WithStatement<'a>) {
        if self.posted.is_empty() {
            return;
        }
        let rows = &self.posted[..];
        let texts = move |field: fn(&Transfer) -> &str| rows.iter().map(field).collect::<Vec<&str>>();
        let optional =
            move |field: fn(&Transfer) -> &Option<String>| rows.iter().map(|t| field(t).as_deref()).collect::<Vec<_>>();
        statement.part(
            "INSERT INTO transfers (seq, id, debit_account, credit_account, amount_minor, kind, user_id, table_id, \
             round_id, bet_id, idempotency_key, memo, created_at_us, prev_hash, hash) \
             SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::bigint[], $6::text[], \
             $7::text[], $8::text[], $9::text[], $10::text[], $11::text[], $12::text[], $13::bigint[], $14::text[], \
             $15::text[])",
            move |q| {
                q.bind::<Array<BigInt>, _>(rows.iter().map(|t| t.seq).collect::<Vec<_>>())
                    .bind::<Array<Text>, _>(texts(|t| &t.id))
                    .bind::<Array<Text>, _>(texts(|t| &t.debit_account))
                    .bind::<Array<Text>, _>(texts(|t| &t.credit_account))
                    .bind::<Array<BigInt>, _>(rows.iter().map(|t| t.amount_minor).collect::<Vec<_>>())
                    .bind::<Array<Text>, _>(texts(|t| &t.kind))
                    .bind::<Array<Nullable<Text>>, _>(optional(|t| &t.user_id))
                    .bind::<Array<Nullable<Text>>, _>(optional(|t| &t.table_id))
                    .bind::<Array<Nullable<Text>>, _>(optional(|t| &t.round_id))
                    .bind::<Array<Nullable<Text>>, _>(optional(|t| &t.bet_id))
                    .bind::<Array<Nullable<Text>>, _>(optional(|t| &t.idempotency_key))
                    .bind::<Array<Nullable<Text>>, _>(optional(|t| &t.memo))
                    .bind::<Array<BigInt>, _>(rows.iter().map(|t| t.created_at_us).collect::<Vec<_>>())
                    .bind::<Array<Text>, _>(texts(|t| &t.prev_hash))
                    .bind::<Array<Text>, _>(texts(|t| &t.hash))
            },
        );
        let balances: Vec<i64> = self.touched.iter().map(|id| self.balances[id].0).collect();
        let ids: Vec<&str> = self.touched.iter().map(AccountId::as_str).collect();
        statement.part(
            "UPDATE accounts AS a SET balance_minor = u.balance_minor \
             FROM unnest($1::text[], $2::bigint[]) AS u(id, balance_minor) WHERE a.id = u.id",
            move |q| q.bind::<Array<Text>, _>(ids).bind::<Array<BigInt>, _>(balances),
        );
        let (seq, hash) = (self.seq, self.prev_hash.as_str());
        statement.part("UPDATE ledger_head SET seq = $1, hash = $2 WHERE id = 1", move |q| {
            q.bind::<BigInt, _>(seq).bind::<Text, _>(hash)
        });
    }
}

/// Refuses a write stamped at `at_us` that would fall before the end of the
/// latest closed gaming day: for the rows a day's report counts besides its
/// transfers (a round opened or ended), which take no ledger lock. One read of
/// the head's row.
pub fn refuse_if_closed(conn: &mut AnyConnection, at_us: i64) -> Result<(), LedgerError> {
    let closed_until_us: i64 = ledger_head::table
        .find(1)
        .select(ledger_head::closed_until_us)
        .first(conn)?;
    if at_us < closed_until_us {
        return Err(LedgerError::GamingDayClosed { at_us, closed_until_us });
    }
    Ok(())
}

/// Takes the ledger head's row lock for the rest of the transaction, as every
/// writer does first (PostgreSQL; SQLite's writers are already one at a time):
/// from here until the commit no transfer commits.
pub fn lock_head_row(conn: &mut AnyConnection) -> QueryResult<()> {
    crate::store::lock_for_update(conn, "SELECT id FROM ledger_head WHERE id = 1 FOR UPDATE")
}

/// Moves where the ledger is closed forward to `until_us` (never back). The
/// caller holds the head's lock ([`lock_head_row`]) in its transaction.
pub fn close_until(conn: &mut AnyConnection, until_us: i64) -> QueryResult<()> {
    diesel::update(
        ledger_head::table
            .find(1)
            .filter(ledger_head::closed_until_us.lt(until_us)),
    )
    .set(ledger_head::closed_until_us.eq(until_us))
    .execute(conn)?;
    Ok(())
}

/// Rows per multi-row INSERT on SQLite (15 columns each: well under both databases'
/// bound-parameter limits).
const MAX_ROWS_PER_INSERT: usize = 500;
/// Ids per `IN (…)` list or `CASE` update.
const MAX_IDS_PER_QUERY: usize = 1000;

/// `UPDATE accounts SET balance_minor = CASE id WHEN … END WHERE id IN (…)`:
/// one statement for every balance a batch changed, on SQLite.
fn balance_update_sql(ids: &[AccountId], balances: &HashMap<AccountId, (i64, bool)>) -> String {
    let mut cases = String::new();
    let mut list = String::new();
    for (i, id) in ids.iter().enumerate() {
        let literal = sql_text(id.as_str());
        let balance = balances[id].0;
        cases.push_str(&format!(" WHEN {literal} THEN {balance}"));
        if i > 0 {
            list.push_str(", ");
        }
        list.push_str(&literal);
    }
    format!("UPDATE accounts SET balance_minor = CASE id{cases} END WHERE id IN ({list})")
}

/// A SQL string literal. Only for values that are ours (account ids are built
/// from kinds and UUIDs), never free text: quotes are doubled, and NUL, which
/// neither database accepts in text, is refused earlier by the id's origin.
pub(crate) fn sql_text(value: &str) -> String {
    debug_assert!(!value.contains('\0'));
    format!("'{}'", value.replace('\'', "''"))
}
