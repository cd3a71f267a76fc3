//! Pits (docs/floor.md, "Pits"): named groups of tables, each run by its own
//! floor staff, that the table report totals like the floor. Pure: the
//! grouping as a pit boss writes it in; checked pits out.

use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap};
use utoipa::ToSchema;

/// Most pits a floor has.
pub const MAX_PITS: usize = 64;
/// Most tables in one pit.
pub const MAX_TABLES_PER_PIT: usize = 256;
/// Longest pit name, in characters.
pub const MAX_PIT_NAME_CHARS: usize = 64;

/// The pits as JSON carries them (`GET`/`PUT /api/v1/floor/pits`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PitsSpec {
    /// Up to 64 pits, each with a distinct name; a table is in at most one.
    #[schema(max_items = 64)]
    pub pits: Vec<PitSpec>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PitSpec {
    /// 1 to 64 characters, not blank.
    #[schema(example = "Pit 1", min_length = 1, max_length = 64)]
    pub name: String,
    /// The ids of its tables (up to 256).
    #[schema(max_items = 256)]
    pub table_ids: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PitsError {
    #[error("at most {MAX_PITS} pits")]
    TooManyPits,
    #[error("a pit name is 1 to {MAX_PIT_NAME_CHARS} characters, not blank")]
    BadName,
    #[error("two pits are named {0:?}")]
    DuplicateName(String),
    #[error("pit {0:?} has more than {MAX_TABLES_PER_PIT} tables")]
    TooManyTables(String),
    #[error("table {0} is in two pits (or twice in one)")]
    TableInTwoPits(String),
    #[error("no table has the id {0}")]
    UnknownTable(String),
}

/// Checked pits: every name distinct, every table in at most one pit.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Pits {
    spec: PitsSpec,
    pit_of_table: HashMap<String, usize>,
}

impl Pits {
    pub fn new(spec: &PitsSpec) -> Result<Pits, PitsError> {
        if spec.pits.len() > MAX_PITS {
            return Err(PitsError::TooManyPits);
        }
        let mut names: BTreeMap<&str, ()> = BTreeMap::new();
        let mut pit_of_table = HashMap::new();
        for (k, pit) in spec.pits.iter().enumerate() {
            let chars = pit.name.chars().count();
            if chars == 0 || chars > MAX_PIT_NAME_CHARS || pit.name.trim().is_empty() {
                return Err(PitsError::BadName);
            }
            if names.insert(&pit.name, ()).is_some() {
                return Err(PitsError::DuplicateName(pit.name.clone()));
            }
            if pit.table_ids.len() > MAX_TABLES_PER_PIT {
                return Err(PitsError::TooManyTables(pit.name.clone()));
            }
            for table_id in &pit.table_ids {
                if pit_of_table.insert(table_id.clone(), k).is_some() {
                    return Err(PitsError::TableInTwoPits(table_id.clone()));
                }
            }
        }
        Ok(Pits {
            spec: spec.clone(),
            pit_of_table,
        })
    }

    pub fn spec(&self) -> &PitsSpec {
        &self.spec
    }

    /// The name of the pit a table is in, if any.
    pub fn pit_of(&self, table_id: &str) -> Option<&str> {
        self.pit_of_table
            .get(table_id)
            .map(|k| self.spec.pits[*k].name.as_str())
    }

    /// The pits' names, in the order the pit boss gave them.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.spec.pits.iter().map(|p| p.name.as_str())
    }

    /// Every table in a pit.
    pub fn table_ids(&self) -> impl Iterator<Item = &str> {
        self.pit_of_table.keys().map(String::as_str)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn pit(name: &str, tables: &[&str]) -> PitSpec {
        PitSpec {
            name: name.into(),
            table_ids: tables.iter().map(|t| t.to_string()).collect(),
        }
    }

    #[test]
    fn a_table_belongs_to_its_pit_and_to_no_other() {
        let pits = Pits::new(&PitsSpec {
            pits: vec![pit("Pit 1", &["a", "b"]), pit("High limit", &["c"])],
        })
        .unwrap();
        assert_eq!(pits.pit_of("a"), Some("Pit 1"));
        assert_eq!(pits.pit_of("c"), Some("High limit"));
        assert_eq!(pits.pit_of("d"), None);
        assert_eq!(pits.names().collect::<Vec<_>>(), ["Pit 1", "High limit"]);
    }

    #[test]
    fn a_grouping_that_is_not_a_partition_is_refused() {
        let refused = |pits: Vec<PitSpec>| Pits::new(&PitsSpec { pits }).unwrap_err();
        assert_eq!(
            refused(vec![pit("A", &["t"]), pit("B", &["t"])]),
            PitsError::TableInTwoPits("t".into())
        );
        assert_eq!(
            refused(vec![pit("A", &["t", "t"])]),
            PitsError::TableInTwoPits("t".into())
        );
        assert_eq!(
            refused(vec![pit("A", &[]), pit("A", &[])]),
            PitsError::DuplicateName("A".into())
        );
        assert_eq!(refused(vec![pit("  ", &[])]), PitsError::BadName);
        assert_eq!(refused(vec![pit(&"p".repeat(65), &[])]), PitsError::BadName);
        assert_eq!(
            refused((0..65).map(|k| pit(&k.to_string(), &[])).collect()),
            PitsError::TooManyPits
        );
        let many: Vec<String> = (0..257).map(|k| k.to_string()).collect();
        let many: Vec<&str> = many.iter().map(String::as_str).collect();
        assert_eq!(refused(vec![pit("A", &many)]), PitsError::TooManyTables("A".into()));
    }

    proptest! {
        /// Whatever the grouping, an accepted one puts each table in exactly
        /// the pit that lists it.
        #[test]
        fn accepted_pits_partition_their_tables(groups in prop::collection::vec(prop::collection::vec(0u8..20, 0..6), 0..6)) {
            let spec = PitsSpec {
                pits: groups
                    .iter()
                    .enumerate()
                    .map(|(k, tables)| PitSpec {
                        name: format!("pit {k}"),
                        table_ids: tables.iter().map(|t| format!("t{t}")).collect(),
                    })
                    .collect(),
            };
            let listed: Vec<&String> = spec.pits.iter().flat_map(|p| &p.table_ids).collect();
            let distinct: std::collections::BTreeSet<&String> = listed.iter().copied().collect();
            match Pits::new(&spec) {
                Ok(pits) => {
                    prop_assert_eq!(listed.len(), distinct.len());
                    for p in &spec.pits {
                        for t in &p.table_ids {
                            prop_assert_eq!(pits.pit_of(t), Some(p.name.as_str()));
                        }
                    }
                    prop_assert_eq!(pits.table_ids().count(), listed.len());
                }
                Err(e) => {
                    prop_assert!(listed.len() != distinct.len(), "refused a partition: {}", e);
                }
            }
        }
    }
}
