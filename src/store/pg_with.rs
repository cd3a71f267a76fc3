//! One PostgreSQL statement made of several data-modifying `WITH` parts.
//!
//! A batch on the wager path writes seven kinds of row while it holds the
//! ledger head; as seven statements that is seven round trips inside the
//! ledger's serial section. As the parts of one `WITH … SELECT 1` it is one.
//! PostgreSQL runs every data-modifying part exactly once, on the same
//! snapshot, and checks foreign keys at the end of the statement, so parts
//! may insert rows that other parts' rows name.

use diesel::pg::Pg;
use diesel::prelude::*;
use diesel::query_builder::{BoxedSqlQuery, SqlQuery};

pub type Query<'f> = BoxedSqlQuery<'f, Pg, SqlQuery>;

/// A statement under construction: each part is written with its own
/// placeholders `$1…$n` and its binds, and is renumbered as it is added.
pub struct WithStatement<'f> {
    parts: Vec<String>,
    params: usize,
    binds: Vec<Box<dyn FnOnce(Query<'f>) -> Query<'f> + 'f>>,
}

impl<'f> Default for WithStatement<'f> {
    fn default() -> Self {
        WithStatement {
            parts: Vec::new(),
            params: 0,
            binds: Vec::new(),
        }
    }
}

impl<'f> WithStatement<'f> {
    /// Adds `sql` (one data-modifying statement whose placeholders are
    /// `$1…$n`) as a part; `bind` must bind exactly those n values in order.
    pub fn part(&mut self, sql: &str, bind: impl FnOnce(Query<'f>) -> Query<'f> + 'f) {
        let (renumbered, highest) = renumber(sql, self.params);
        self.parts.push(format!("w{} AS ({renumbered})", self.parts.len()));
        self.params += highest;
        self.binds.push(Box::new(bind));
    }

    /// Runs every part as one statement (nothing when there are none).
    pub fn execute(self, conn: &mut PgConnection) -> QueryResult<()> {
        if self.parts.is_empty() {
            return Ok(());
        }
        let text = format!("WITH {} SELECT 1", self.parts.join(", "));
        let mut query = diesel::sql_query(text).into_boxed::<Pg>();
        for bind in self.binds {
            query = bind(query);
        }
        query.execute(conn).map(|_| ())
    }
}

/// `sql` with every placeholder `$k` shifted to `$(k + offset)`, and the
/// highest k it held.
fn renumber(sql: &str, offset: usize) -> (String, usize) {
    let mut out = String::with_capacity(sql.len() + 16);
    let mut highest = 0;
    let mut chars = sql.char_indices().peekable();
    while let Some((_, c)) = chars.next() {
        out.push(c);
        if c != '$' {
            continue;
        }
        let mut digits = String::new();
        while let Some((_, d)) = chars.peek().filter(|(_, d)| d.is_ascii_digit()) {
            digits.push(*d);
            chars.next();
        }
        if let Ok(k) = digits.parse::<usize>() {
            highest = highest.max(k);
            out.push_str(&(k + offset).to_string());
        } else {
            out.push_str(&digits);
        }
    }
    (out, highest)
}

#[cfg(test)]
mod tests {
    use super::renumber;

    #[test]
    fn placeholders_are_shifted_past_the_parts_before() {
        assert_eq!(
            renumber(
                "INSERT INTO t SELECT * FROM unnest($1::text[], $2::bigint[], $10::text[])",
                12
            ),
            (
                "INSERT INTO t SELECT * FROM unnest($13::text[], $14::bigint[], $22::text[])".to_string(),
                10
            )
        );
        assert_eq!(renumber("UPDATE h SET seq = $1, hash = $2 WHERE id = 1", 0).1, 2);
        assert_eq!(renumber("SELECT 'a$b'", 3), ("SELECT 'a$b'".to_string(), 0));
    }
}
