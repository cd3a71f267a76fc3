//! Pay tables as data. A `PayTable` can only hold a valid table (it is built by
//! `PayTable::new` or deserialized through the same checks) and has no
//! mutators: installing a different table means installing a new version.
//!
//! Every pay `a` means "a:1": a win returns the stake plus `a` times the stake.

use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::fmt;
use utoipa::ToSchema;

/// The pays of a suit bet whose pay drops when an Ace is involved (Prima: the
/// first card is an Ace; Escúcha: the completing suit's foundation is an Ace).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct AcePays {
    #[schema(value_type = crate::api::contract::Pays)]
    pub pays: Decimal,
    #[schema(value_type = crate::api::contract::Pays)]
    pub ace_pays: Decimal,
}

/// Máximo when the selected suit's foundation ties for highest with exactly one other.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum PairTieRule {
    Lose,
    Push,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct MaximoPays {
    #[schema(value_type = crate::api::contract::Pays)]
    pub pays: Decimal,
    pub pair_tie: PairTieRule,
}

/// Cartas on one number.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CartasLine {
    /// 10 to 20, each number at most once (422 otherwise).
    #[serde(deserialize_with = "crate::domain::whole::integer")]
    #[schema(minimum = 10, maximum = 20)]
    pub number: u8,
    #[schema(value_type = crate::api::contract::Pays)]
    pub pays: Decimal,
}

/// One line of the Começo table: N in `n_from..=n_to` pays `pays`. N on no line loses.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ComecoLine {
    /// 10 to 50, at most `n_to`; lines may not overlap (422 otherwise).
    #[serde(deserialize_with = "crate::domain::whole::integer")]
    #[schema(minimum = 10, maximum = 50)]
    pub n_from: u8,
    #[serde(deserialize_with = "crate::domain::whole::integer")]
    #[schema(minimum = 10, maximum = 50)]
    pub n_to: u8,
    #[schema(value_type = crate::api::contract::Pays)]
    pub pays: Decimal,
}

/// The raw form of a pay table, as JSON carries it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PayTableSpec {
    /// 1 to 64 characters, none of them a control character.
    #[schema(min_length = 1, max_length = 64, pattern = r"^[^\u0000-\u001f\u007f-\u009f]*$")]
    pub name: String,
    #[serde(deserialize_with = "crate::domain::whole::integer")]
    #[schema(minimum = 1, maximum = 4294967295_u64)]
    pub version: u32,
    pub prima: AcePays,
    pub escucha: AcePays,
    pub maximo: MaximoPays,
    #[schema(value_type = crate::api::contract::Pays)]
    pub conto_alto: Decimal,
    #[schema(value_type = crate::api::contract::Pays)]
    pub conto_bajo: Decimal,
    #[schema(value_type = crate::api::contract::Pays)]
    pub conto_medio: Decimal,
    /// Offered Cartas numbers (10..=20), each with its pay; empty: Cartas not offered.
    pub cartas: Vec<CartasLine>,
    /// At least one line.
    #[schema(min_items = 1)]
    pub comeco: Vec<ComecoLine>,
}

/// Cartas numbers may be offered in this range.
pub const CARTAS_NUMBERS: std::ops::RangeInclusive<u8> = 10..=20;
/// Largest pay accepted (a:1).
pub const MAX_PAYS: Decimal = Decimal::from_parts(100_000, 0, 0, false, 0);
/// Most decimal places a pay may have.
pub const MAX_PAY_SCALE: u32 = 2;

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PayTableError(pub String);

impl fmt::Display for PayTableError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "invalid pay table: {}", self.0)
    }
}

impl std::error::Error for PayTableError {}

/// A validated, immutable pay table.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "PayTableSpec", into = "PayTableSpec")]
pub struct PayTable {
    spec: PayTableSpec,
}

impl From<PayTable> for PayTableSpec {
    fn from(t: PayTable) -> PayTableSpec {
        t.spec
    }
}

impl TryFrom<PayTableSpec> for PayTable {
    type Error = PayTableError;
    fn try_from(spec: PayTableSpec) -> Result<PayTable, PayTableError> {
        PayTable::new(spec)
    }
}

fn check_pay(what: &str, a: Decimal) -> Result<(), PayTableError> {
    if a <= Decimal::ZERO || a > MAX_PAYS {
        return Err(PayTableError(format!(
            "{what} pays {a}:1, must be > 0 and at most {MAX_PAYS}"
        )));
    }
    if a.normalize().scale() > MAX_PAY_SCALE {
        return Err(PayTableError(format!(
            "{what} pays {a}:1, at most {MAX_PAY_SCALE} decimal places"
        )));
    }
    Ok(())
}

impl PayTable {
    pub fn new(spec: PayTableSpec) -> Result<PayTable, PayTableError> {
        let name_len = spec.name.chars().count();
        if name_len == 0 || name_len > 64 || spec.name.chars().any(|c| c.is_control()) {
            return Err(PayTableError("name must be 1 to 64 printable characters".into()));
        }
        if spec.version == 0 {
            return Err(PayTableError("version must be at least 1".into()));
        }
        check_pay("prima", spec.prima.pays)?;
        check_pay("prima (ace)", spec.prima.ace_pays)?;
        check_pay("escucha", spec.escucha.pays)?;
        check_pay("escucha (ace foundation)", spec.escucha.ace_pays)?;
        check_pay("maximo", spec.maximo.pays)?;
        check_pay("conto_alto", spec.conto_alto)?;
        check_pay("conto_bajo", spec.conto_bajo)?;
        check_pay("conto_medio", spec.conto_medio)?;
        let mut seen = [false; 21];
        for line in &spec.cartas {
            if !CARTAS_NUMBERS.contains(&line.number) {
                return Err(PayTableError(format!(
                    "cartas number {} is outside 10..=20",
                    line.number
                )));
            }
            if std::mem::replace(&mut seen[line.number as usize], true) {
                return Err(PayTableError(format!("cartas number {} is listed twice", line.number)));
            }
            check_pay(&format!("cartas {}", line.number), line.pays)?;
        }
        if spec.comeco.is_empty() {
            return Err(PayTableError("comeco needs at least one paying line".into()));
        }
        let mut covered = [false; 51];
        for line in &spec.comeco {
            if line.n_from < 10 || line.n_to > 50 || line.n_from > line.n_to {
                return Err(PayTableError(format!(
                    "comeco line {}..={} must lie in 10..=50",
                    line.n_from, line.n_to
                )));
            }
            for n in line.n_from..=line.n_to {
                if std::mem::replace(&mut covered[n as usize], true) {
                    return Err(PayTableError(format!("comeco lines overlap at N = {n}")));
                }
            }
            check_pay(&format!("comeco {}..={}", line.n_from, line.n_to), line.pays)?;
        }
        Ok(PayTable { spec })
    }

    pub fn spec(&self) -> &PayTableSpec {
        &self.spec
    }
    pub fn name(&self) -> &str {
        &self.spec.name
    }
    pub fn version(&self) -> u32 {
        self.spec.version
    }

    /// The pay for Cartas on `n`, if offered.
    pub fn cartas_pays(&self, n: u8) -> Option<Decimal> {
        self.spec.cartas.iter().find(|l| l.number == n).map(|l| l.pays)
    }

    /// Offered Cartas numbers, ascending.
    pub fn cartas_numbers(&self) -> Vec<u8> {
        let mut v: Vec<u8> = self.spec.cartas.iter().map(|l| l.number).collect();
        v.sort_unstable();
        v
    }

    /// The Começo pay when the first-pass count is `n` (None: the bet loses).
    pub fn comeco_pays(&self, n: u8) -> Option<Decimal> {
        self.spec
            .comeco
            .iter()
            .find(|l| (l.n_from..=l.n_to).contains(&n))
            .map(|l| l.pays)
    }

    /// SHA-256 of the canonical JSON, hex: identifies this exact table.
    pub fn fingerprint(&self) -> String {
        let json = serde_json::to_vec(&self.spec).unwrap_or_default();
        hex::encode(Sha256::digest(json))
    }

    pub fn from_json(text: &str) -> Result<PayTable, PayTableError> {
        serde_json::from_str(text).map_err(|e| PayTableError(e.to_string()))
    }

    pub fn to_json_pretty(&self) -> String {
        serde_json::to_string_pretty(&self.spec).unwrap_or_default()
    }

    /// The default table: the source's own figures for Prima, Escúcha, Máximo and
    /// the three Conto bets (docs/side-bets.md), and djego's figures for Cartas and Começo
    /// (docs/side-bets.md says why). NOTE: with the source's Conto Alto (8:1)
    /// and Conto Bajo (14:1) pays this table does not pass certification; see
    /// `house_table` and docs/math.md.
    pub fn default_table() -> PayTable {
        PayTable::new(source_spec()).expect("the default pay table is valid")
    }

    /// The default table with Conto Alto and Conto Bajo re-priced so that every
    /// bet passes certification under the default bounds.
    pub fn house_table() -> PayTable {
        let mut spec = source_spec();
        spec.name = "djego-house".into();
        spec.conto_alto = Decimal::new(HOUSE_CONTO_ALTO_CENTS, 2);
        spec.conto_bajo = Decimal::new(HOUSE_CONTO_BAJO_CENTS, 2);
        PayTable::new(spec).expect("the house pay table is valid")
    }
}

const HOUSE_CONTO_ALTO_CENTS: i64 = 675;
const HOUSE_CONTO_BAJO_CENTS: i64 = 800;

fn d(units: i64) -> Decimal {
    Decimal::from(units)
}

fn dc(cents: i64) -> Decimal {
    Decimal::new(cents, 2)
}

fn source_spec() -> PayTableSpec {
    PayTableSpec {
        name: "djego-default".into(),
        version: 1,
        prima: AcePays {
            pays: d(4),
            ace_pays: d(2),
        },
        escucha: AcePays {
            pays: d(4),
            ace_pays: d(2),
        },
        maximo: MaximoPays {
            pays: d(4),
            pair_tie: PairTieRule::Lose,
        },
        conto_alto: d(8),
        conto_bajo: d(14),
        conto_medio: d(2),
        cartas: vec![
            CartasLine {
                number: 12,
                pays: dc(540),
            },
            CartasLine {
                number: 13,
                pays: dc(410),
            },
            CartasLine {
                number: 16,
                pays: dc(850),
            },
        ],
        comeco: vec![
            ComecoLine {
                n_from: 10,
                n_to: 10,
                pays: d(6),
            },
            ComecoLine {
                n_from: 11,
                n_to: 11,
                pays: d(1),
            },
            ComecoLine {
                n_from: 17,
                n_to: 17,
                pays: d(1),
            },
            ComecoLine {
                n_from: 18,
                n_to: 18,
                pays: d(3),
            },
            ComecoLine {
                n_from: 19,
                n_to: 19,
                pays: d(5),
            },
            ComecoLine {
                n_from: 20,
                n_to: 20,
                pays: d(10),
            },
            ComecoLine {
                n_from: 21,
                n_to: 21,
                pays: d(20),
            },
            ComecoLine {
                n_from: 22,
                n_to: 22,
                pays: d(30),
            },
            ComecoLine {
                n_from: 23,
                n_to: 50,
                pays: d(50),
            },
        ],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_round_trip_and_validation() {
        let t = PayTable::default_table();
        let json = t.to_json_pretty();
        assert!(json.contains("\"pays\": \"4\""));
        let back = PayTable::from_json(&json).unwrap();
        assert_eq!(back, t);
        assert_eq!(back.fingerprint(), t.fingerprint());
        assert_ne!(PayTable::house_table().fingerprint(), t.fingerprint());

        let mut bad = t.spec().clone();
        bad.cartas.push(CartasLine { number: 21, pays: d(3) });
        assert!(PayTable::new(bad).is_err());
        let mut bad = t.spec().clone();
        bad.comeco.push(ComecoLine {
            n_from: 23,
            n_to: 23,
            pays: d(1),
        });
        assert!(PayTable::new(bad).unwrap_err().0.contains("overlap"));
        let mut bad = t.spec().clone();
        bad.prima.pays = Decimal::new(4001, 3);
        assert!(PayTable::new(bad).is_err());
        let mut bad = t.spec().clone();
        bad.conto_medio = Decimal::ZERO;
        assert!(PayTable::new(bad).is_err());
        // deserialization runs the same checks
        let broken = json.replace("\"version\": 1", "\"version\": 0");
        assert!(PayTable::from_json(&broken).is_err());
    }

    #[test]
    fn lookups() {
        let t = PayTable::default_table();
        assert_eq!(t.cartas_numbers(), vec![12, 13, 16]);
        assert_eq!(t.cartas_pays(14), None);
        assert_eq!(t.comeco_pays(10), Some(d(6)));
        assert_eq!(t.comeco_pays(14), None);
        assert_eq!(t.comeco_pays(50), Some(d(50)));
    }
}
