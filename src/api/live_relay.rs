//! Live events across instances (docs/operations.md, "Live events across instances"): an
//! instance that changed a table or a round announces it (`NOTIFY`, PostgreSQL only), and every
//! instance's relay reloads what was announced and publishes it to its own watchers, for every
//! game.

use super::error::ApiError;
use super::state::AppState;

/// `NOTIFY`s the other instances (PostgreSQL only), off the request's thread.
pub fn announce(state: &AppState, table_id: &str, round_id: Option<&str>) {
    if state.db.backend() != crate::store::Backend::Postgres {
        return;
    }
    let sql = state.live.announcement_sql(table_id, round_id);
    let db = state.db.clone();
    actix_web::rt::task::spawn_blocking(move || send_announcement(&db, sql));
}

/// [`announce`] from a thread outside the HTTP server's runtime, waiting for it.
pub fn announce_now(state: &AppState, table_id: &str, round_id: Option<&str>) {
    if state.db.backend() == crate::store::Backend::Postgres {
        send_announcement(&state.db, state.live.announcement_sql(table_id, round_id));
    }
}

fn send_announcement(db: &crate::store::Database, sql: String) {
    use diesel::RunQueryDsl;
    if let Ok(mut conn) = db.conn() {
        if let Err(e) = diesel::sql_query(sql).execute(&mut *conn) {
            tracing::warn!(error = %e, "could not announce a live change");
        }
    }
}

/// Publishes to this instance's watchers a change another instance announced.
pub fn relay_remote(state: &AppState, announcement: crate::live::Announcement) {
    let reloaded = (|| -> Result<(), ApiError> {
        let mut conn = state.db.conn()?;
        match &announcement.round_id {
            Some(round_id) => {
                let Some(row) = crate::rounds::record::find(&mut conn, round_id)? else {
                    // Peg Leg rounds and Lobo contests are stored apart.
                    if let Ok(row) = crate::rounds::peg_leg::find(&mut conn, round_id) {
                        let view = super::peg_leg::watcher_view(&mut conn, state, &row)?;
                        super::peg_leg::publish_locally(state, &view);
                    } else {
                        let row = crate::rounds::lobo_contests::find(&mut conn, round_id)?;
                        let view = crate::rounds::lobo_contests::watcher_view(&mut conn, &state.vault, &row)?;
                        super::lobo_contests::publish_locally(state, &view);
                    }
                    return Ok(());
                };
                if row.game == "lobo" {
                    super::lobo::publish_locally(state, &super::lobo::round_view(&state.vault, &row)?);
                } else {
                    let view = super::prima_carta::watcher_view(&mut conn, state, &row)?;
                    super::prima_carta::publish_locally(state, &view);
                }
            }
            None => {
                let table = super::tables::load_table(&mut conn, &announcement.table_id)?;
                state.live.publish(&table.id, "table", &table);
            }
        }
        Ok(())
    })();
    if let Err(e) = reloaded {
        tracing::warn!(error = %e, "could not relay a live change");
    }
}
