//! A batch's writes: every row in one statement on PostgreSQL, multi-row statements on SQLite.

use super::*;

/// Rows per multi-row INSERT of bets (14 columns) or keys (6) on SQLite.
const MAX_ROWS_PER_INSERT: usize = 500;

pub(super) fn write(conn: &mut AnyConnection, appender: Appender, writes: Writes, now: i64) -> Result<(), WagerError> {
    match conn {
        AnyConnection::Postgresql(c) => write_pg(c, &appender, &writes, now),
        AnyConnection::Sqlite(c) => write_sqlite(c, &appender, &writes, now),
    }
}

/// Every row of the batch in one statement (see [`WithStatement`]): one round
/// trip inside the ledger's serial section. Each part has fixed text whatever
/// the batch's size (a column per array parameter).
fn write_pg(conn: &mut diesel::PgConnection, appender: &Appender, writes: &Writes, now: i64) -> Result<(), WagerError> {
    let mut statement = WithStatement::default();
    let bets = &writes.bets[..];
    if !bets.is_empty() {
        let text = move |f: fn(&BetRow) -> &str| bets.iter().map(f).collect::<Vec<&str>>();
        let optional = move |f: fn(&BetRow) -> Option<&str>| bets.iter().map(f).collect::<Vec<Option<&str>>>();
        let number = move |f: fn(&BetRow) -> i64| bets.iter().map(f).collect::<Vec<i64>>();
        statement.part(
            "INSERT INTO bets (id, round_id, table_id, player_id, kind, selection, amount_minor, pay_table_id, \
             client_seed, status, returned_minor, decided_by, placed_at_us, settled_at_us) \
             SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], \
             $7::bigint[], $8::text[], $9::text[], $10::text[], $11::bigint[], $12::text[], $13::bigint[], \
             $14::bigint[])",
            move |q| {
                q.bind::<Array<Text>, _>(text(|b| &b.id))
                    .bind::<Array<Text>, _>(text(|b| &b.round_id))
                    .bind::<Array<Text>, _>(text(|b| &b.table_id))
                    .bind::<Array<Text>, _>(text(|b| &b.player_id))
                    .bind::<Array<Text>, _>(text(|b| &b.kind))
                    .bind::<Array<Text>, _>(text(|b| &b.selection))
                    .bind::<Array<BigInt>, _>(number(|b| b.amount_minor))
                    .bind::<Array<Text>, _>(text(|b| &b.pay_table_id))
                    .bind::<Array<Nullable<Text>>, _>(optional(|b| b.client_seed.as_deref()))
                    .bind::<Array<Text>, _>(text(|b| &b.status))
                    .bind::<Array<BigInt>, _>(number(|b| b.returned_minor))
                    .bind::<Array<Nullable<Text>>, _>(optional(|b| b.decided_by.as_deref()))
                    .bind::<Array<BigInt>, _>(number(|b| b.placed_at_us))
                    .bind::<Array<Nullable<BigInt>>, _>(bets.iter().map(|b| b.settled_at_us).collect::<Vec<_>>())
            },
        );
    }
    peg_leg::write_pg(&mut statement, &writes.peg_leg_bets);
    appender.write_parts(&mut statement);
    if !writes.exposure_added.is_empty() {
        let (rounds, players, added) = exposure_columns(writes);
        statement.part(
            "INSERT INTO round_exposures (round_id, player_id, staked_minor) \
             SELECT * FROM unnest($1::text[], $2::text[], $3::bigint[]) \
             ON CONFLICT (round_id, player_id) DO UPDATE \
             SET staked_minor = round_exposures.staked_minor + excluded.staked_minor",
            move |q| {
                q.bind::<Array<Text>, _>(rounds)
                    .bind::<Array<Text>, _>(players)
                    .bind::<Array<BigInt>, _>(added)
            },
        );
    }
    if !writes.totals_added.is_empty() {
        let (rounds, kinds, bets, staked) = totals_columns(writes);
        statement.part(
            "INSERT INTO round_bet_totals (round_id, kind, bets, staked_minor) \
             SELECT * FROM unnest($1::text[], $2::text[], $3::bigint[], $4::bigint[]) \
             ON CONFLICT (round_id, kind) DO UPDATE \
             SET bets = round_bet_totals.bets + excluded.bets, \
                 staked_minor = round_bet_totals.staked_minor + excluded.staked_minor",
            move |q| {
                q.bind::<Array<Text>, _>(rounds)
                    .bind::<Array<Text>, _>(kinds)
                    .bind::<Array<BigInt>, _>(bets)
                    .bind::<Array<BigInt>, _>(staked)
            },
        );
    }
    if !writes.keys.is_empty() {
        let keys = &writes.keys[..];
        let column = move |f: fn(&StoredAnswer) -> &str| keys.iter().map(f).collect::<Vec<&str>>();
        statement.part(
            "INSERT INTO idempotency_keys (created_at_us, user_id, idem_key, request_hash, status_code, \
             response_body) SELECT $1, u, k, h, s, b \
             FROM unnest($2::text[], $3::text[], $4::text[], $5::int[], $6::text[]) AS x(u, k, h, s, b)",
            move |q| {
                q.bind::<BigInt, _>(now)
                    .bind::<Array<Text>, _>(column(|a| &a.0))
                    .bind::<Array<Text>, _>(column(|a| &a.1))
                    .bind::<Array<Text>, _>(column(|a| &a.2))
                    .bind::<Array<Integer>, _>(keys.iter().map(|a| i32::from(a.3)).collect::<Vec<_>>())
                    .bind::<Array<Text>, _>(column(|a| &a.4))
            },
        );
    }
    statement.execute(conn)?;
    Ok(())
}

/// (rounds, players, added stakes) of the batch's exposure changes.
fn exposure_columns(writes: &Writes) -> (Vec<&str>, Vec<&str>, Vec<i64>) {
    let mut columns = (Vec::new(), Vec::new(), Vec::new());
    for ((round, player), stake) in &writes.exposure_added {
        columns.0.push(round.as_str());
        columns.1.push(player.as_str());
        columns.2.push(*stake);
    }
    columns
}

/// (rounds, kinds, bets, stakes) of the batch's changes to the round totals.
fn totals_columns(writes: &Writes) -> (Vec<&str>, Vec<&str>, Vec<i64>, Vec<i64>) {
    let mut columns = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for ((round, kind), (count, stake)) in &writes.totals_added {
        columns.0.push(round.as_str());
        columns.1.push(kind.as_str());
        columns.2.push(*count);
        columns.3.push(*stake);
    }
    columns
}

/// The batch's rows as multi-row VALUES statements (SQLite has no arrays).
fn write_sqlite(
    conn: &mut diesel::SqliteConnection,
    appender: &Appender,
    writes: &Writes,
    now: i64,
) -> Result<(), WagerError> {
    for chunk in writes.bets.chunks(MAX_ROWS_PER_INSERT) {
        diesel::insert_into(crate::store::schema::bets::table)
            .values(chunk)
            .execute(conn)?;
    }
    peg_leg::write_sqlite(conn, &writes.peg_leg_bets, MAX_ROWS_PER_INSERT)?;
    appender.write_sqlite(conn)?;
    if !writes.exposure_added.is_empty() {
        let (rounds, players, added) = exposure_columns(writes);
        let values = (0..rounds.len())
            .map(|i| format!("({}, {}, {})", sql_text(rounds[i]), sql_text(players[i]), added[i]))
            .collect::<Vec<_>>()
            .join(", ");
        diesel::sql_query(format!(
            "INSERT INTO round_exposures (round_id, player_id, staked_minor) VALUES {values} \
             ON CONFLICT (round_id, player_id) DO UPDATE \
             SET staked_minor = round_exposures.staked_minor + excluded.staked_minor"
        ))
        .execute(conn)?;
    }
    if !writes.totals_added.is_empty() {
        let (rounds, kinds, bets, staked) = totals_columns(writes);
        let values = (0..rounds.len())
            .map(|i| {
                format!(
                    "({}, {}, {}, {})",
                    sql_text(rounds[i]),
                    sql_text(kinds[i]),
                    bets[i],
                    staked[i]
                )
            })
            .collect::<Vec<_>>()
            .join(", ");
        diesel::sql_query(format!(
            "INSERT INTO round_bet_totals (round_id, kind, bets, staked_minor) VALUES {values} \
             ON CONFLICT (round_id, kind) DO UPDATE \
             SET bets = round_bet_totals.bets + excluded.bets, \
                 staked_minor = round_bet_totals.staked_minor + excluded.staked_minor"
        ))
        .execute(conn)?;
    }
    let keys: Vec<_> = writes
        .keys
        .iter()
        .map(|(user, key, fingerprint, status, body)| {
            (
                ik::user_id.eq(user),
                ik::idem_key.eq(key),
                ik::request_hash.eq(fingerprint),
                ik::status_code.eq(i32::from(*status)),
                ik::response_body.eq(body),
                ik::created_at_us.eq(now),
            )
        })
        .collect();
    for chunk in keys.chunks(MAX_ROWS_PER_INSERT) {
        diesel::insert_into(ik::table).values(chunk).execute(conn)?;
    }
    Ok(())
}
