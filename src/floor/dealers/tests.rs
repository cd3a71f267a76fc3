use super::*;
use proptest::prelude::*;

use BoxEvent::*;

#[test]
fn a_relief_a_break_and_a_closing() {
    let events = [
        SignedIn {
            table_id: "t1",
            dealer_id: "ana",
            at_us: 0,
        },
        // Bea relieves Ana at t1; Ana goes to t2.
        SignedIn {
            table_id: "t1",
            dealer_id: "bea",
            at_us: 100,
        },
        SignedIn {
            table_id: "t2",
            dealer_id: "ana",
            at_us: 110,
        },
        // Ana takes t1 back from Bea: she leaves t2 empty.
        SignedIn {
            table_id: "t1",
            dealer_id: "ana",
            at_us: 200,
        },
        // A sign-out of a dealer who is not in changes nothing.
        SignedOut {
            table_id: "t1",
            dealer_id: "bea",
            at_us: 250,
        },
        // A break, then back, then the table closes.
        SignedOut {
            table_id: "t1",
            dealer_id: "ana",
            at_us: 300,
        },
        SignedIn {
            table_id: "t1",
            dealer_id: "ana",
            at_us: 320,
        },
        TableClosed {
            table_id: "t1",
            at_us: 400,
        },
        SignedIn {
            table_id: "t2",
            dealer_id: "bea",
            at_us: 500,
        },
    ];
    let spell = |table_id, dealer_id, from_us, to_us| DealerSpell {
        table_id,
        dealer_id,
        from_us,
        to_us,
    };
    let got = spells(&events, 1000);
    assert_eq!(
        got,
        [
            spell("t1", "ana", 0, 100),
            spell("t1", "bea", 100, 200),
            spell("t1", "ana", 200, 300),
            spell("t1", "ana", 320, 400),
            spell("t2", "ana", 110, 200),
            spell("t2", "bea", 500, 1000),
        ]
    );
    assert_eq!(dealer_at(&got, "t1", 0), Some("ana"));
    assert_eq!(dealer_at(&got, "t1", 199), Some("bea"));
    assert_eq!(dealer_at(&got, "t1", 310), None);
    assert_eq!(dealer_at(&got, "t1", 400), None);
    assert_eq!(dealer_at(&got, "t2", 150), Some("ana"));
    assert_eq!(dealer_at(&got, "t2", 999), Some("bea"));
    assert_eq!(dealer_at(&got, "t0", 50), None);
}

fn event() -> impl Strategy<Value = (u8, usize, usize)> {
    (0u8..3, 0usize..3, 0usize..3)
}

proptest! {
    /// However the events come: no two spells overlap at a table, no dealer
    /// is in two boxes at once, and `dealer_at` names the one spell covering
    /// an instant.
    #[test]
    fn one_dealer_per_box_and_one_box_per_dealer(list in proptest::collection::vec(event(), 0..40)) {
        let tables = ["t1", "t2", "t3"];
        let dealers = ["ana", "bea", "cid"];
        let events: Vec<BoxEvent> = list
            .iter()
            .enumerate()
            .map(|(i, &(kind, t, d))| {
                let at_us = i as i64 * 10;
                match kind {
                    0 => SignedIn { table_id: tables[t], dealer_id: dealers[d], at_us },
                    1 => SignedOut { table_id: tables[t], dealer_id: dealers[d], at_us },
                    _ => TableClosed { table_id: tables[t], at_us },
                }
            })
            .collect();
        let until = list.len() as i64 * 10 + 5;
        let got = spells(&events, until);
        for (i, a) in got.iter().enumerate() {
            prop_assert!(a.from_us < a.to_us && a.to_us <= until);
            for b in &got[i + 1..] {
                let overlap = a.from_us < b.to_us && b.from_us < a.to_us;
                prop_assert!(!(overlap && a.table_id == b.table_id), "{a:?} {b:?}");
                prop_assert!(!(overlap && a.dealer_id == b.dealer_id), "{a:?} {b:?}");
            }
        }
        for table in tables {
            for at in 0..until {
                let covering: Vec<&DealerSpell> = got.iter().filter(|s| s.table_id == table && s.from_us <= at && at < s.to_us).collect();
                prop_assert_eq!(dealer_at(&got, table, at), covering.first().map(|s| s.dealer_id));
            }
        }
    }
}
