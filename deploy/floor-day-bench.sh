#!/usr/bin/env bash
# How fast the table report of a busy gaming day answers on PostgreSQL
# (docs/floor.md, "How fast the reports are").
#
#   deploy/floor-day-bench.sh [BETS] [REPEATS]      (defaults: 1000000 and 5)
#
# It makes a scratch database on the server at BENCH_DATABASE_URL (default
# postgres://postgres@127.0.0.1:5432/postgres), seeds the demo casino with the
# djego binary at DJEGO (default target/release/djego), and writes one gaming
# day (2026-11-20, the default calendar: UTC, from 06:00) of BETS settled side
# bets, 50 to a round, over 20 Prima Carta tables, with the ledger transfers the
# service writes for them: a stake for every bet, its collection or return,
# and a payout for every fifth bet, which wins 5 to 1. The rows have the
# service's shape but are written by SQL, so their hash chain is not valid: the
# database measures reading, and is dropped at the end.
#
# The ledger's head is set to the last transfer written, as the service keeps
# it, and `djego meters catch-up` reads the day into the floor's minute meters
# once, timed (the service does this every 10 seconds as the day is played).
# Then, REPEATS times, alternated: the anchor (one SQL statement counting and
# summing the same transfers and bets, the least a report read from every row
# must read) and `djego report tables --gaming-day 2026-11-20`, which reads the
# meters. It prints each time, and min / median / max of both and of their
# ratio.
set -euo pipefail
cd "$(dirname "$0")/.."

bets="${1:-1000000}"
repeats="${2:-5}"
admin_url="${BENCH_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/postgres}"
djego="${DJEGO:-target/release/djego}"
[ -x "$djego" ] || { echo "no djego binary at $djego: cargo build --release, or set DJEGO" >&2; exit 2; }
[ "$bets" -ge 50 ] || { echo "BETS must be at least 50 (one round)" >&2; exit 2; }

db="djego_floor_bench_$$"
db_url="${admin_url%/*}/$db"
work="$(mktemp -d)"
server=""
cleanup() {
    [ -n "$server" ] && kill "$server" 2>/dev/null || true
    psql -q "$admin_url" -c "DROP DATABASE IF EXISTS $db WITH (FORCE)" >/dev/null 2>&1 || true
    rm -rf "$work"
}
trap cleanup EXIT
psql -q "$admin_url" -c "CREATE DATABASE $db" >/dev/null

export DJEGO_JWT_SECRET="floor-bench-secret-of-at-least-32-bytes"
export DJEGO_SEED_KEY="$(printf '%064d' 1)"
export DJEGO_CHECKPOINT_KEY="$(printf '%064d' 2)"
export DJEGO_CHECKPOINT_INTERVAL_SECONDS=0
export DJEGO_ADMIN_PASSWORD="floor-bench-admin-pass"
"$djego" demo --database-url "$db_url" >/dev/null

# Opening a round stores the house pay table, which the bets are certified under.
port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
RUST_LOG=warn "$djego" serve --database-url "$db_url" --bind "127.0.0.1:$port" >"$work/serve.log" 2>&1 &
server=$!
base="http://127.0.0.1:$port"
for _ in $(seq 1 50); do curl -sf "$base/ready" >/dev/null && break; sleep 0.2; done
token="$(curl -sf -X POST "$base/api/v1/auth/login" -H 'content-type: application/json' \
    -d '{"username":"dealer","password":"demo-dealer-pass"}' | python3 -c 'import sys,json;print(json.load(sys.stdin)["access_token"])')"
table="$(psql -At "$db_url" -c "SELECT id FROM casino_tables WHERE name = 'Prima Carta 1'")"
curl -sf -X POST "$base/api/v1/tables/$table/rounds" -H "authorization: Bearer $token" \
    -H 'content-type: application/json' -d '{}' >/dev/null
kill "$server"; wait "$server" 2>/dev/null || true; server=""

rounds=$(( bets / 50 ))
day_from_us=$(( $(date -u -d '2026-11-20 06:00' +%s) * 1000000 ))
day_to_us=$(( day_from_us + 86400 * 1000000 ))
gap_us=$(( 86400 * 1000000 / rounds ))
echo "generating $bets bets in $rounds rounds over 20 tables…" >&2
psql -q -v ON_ERROR_STOP=1 "$db_url" <<SQL
BEGIN;
INSERT INTO casino_tables (id, name, game, status, config, created_at_us)
SELECT 'bench-table-' || g, 'Bench ' || g, 'prima_carta', 'open',
       (SELECT config FROM casino_tables WHERE name = 'Prima Carta 1'), 0
FROM generate_series(1, 20) g;
INSERT INTO rounds (id, table_id, game, number, status, config, commitment, server_seed_sealed, decisions,
                    version, created_by, created_at_us, updated_at_us)
SELECT 'bench-round-' || g, 'bench-table-' || (g % 20 + 1), 'prima_carta', g, 'settled', '{}', '-', '-', '[]', 1,
       (SELECT id FROM users WHERE username = 'admin'),
       $day_from_us + g::bigint * $gap_us, $day_from_us + g::bigint * $gap_us + 3000000
FROM generate_series(0, $rounds - 1) g;
INSERT INTO accounts (id, kind, owner_id, balance_minor, may_go_negative, created_at_us)
SELECT 'escrow:' || id, 'escrow', id, 0, false, 0 FROM rounds WHERE id LIKE 'bench-round-%';
INSERT INTO bets (id, round_id, table_id, player_id, kind, selection, amount_minor, pay_table_id, status,
                  returned_minor, placed_at_us, settled_at_us)
SELECT 'bench-bet-' || g, 'bench-round-' || (g / 50), 'bench-table-' || ((g / 50) % 20 + 1),
       (SELECT id FROM users WHERE username = (ARRAY['ana', 'bruno'])[g % 2 + 1]),
       (ARRAY['prima', 'conto_alto', 'maximo', 'cartas'])[g % 4 + 1],
       (ARRAY['{"suit":"cups"}', '"none"', '{"suit":"crowns"}', '{"number":12}'])[g % 4 + 1],
       100, (SELECT pay_table_id FROM round_pay_tables LIMIT 1),
       CASE WHEN g % 5 = 0 THEN 'won' ELSE 'lost' END, CASE WHEN g % 5 = 0 THEN 600 ELSE 0 END,
       $day_from_us + (g / 50)::bigint * $gap_us + 1000000, $day_from_us + (g / 50)::bigint * $gap_us + 3000000
FROM generate_series(0, $rounds * 50 - 1) g;
INSERT INTO transfers (seq, id, debit_account, credit_account, amount_minor, kind, table_id, round_id, bet_id,
                       created_at_us, prev_hash, hash)
SELECT 1000 + 3 * n, 'bench-stake-' || n, 'wallet:' || player_id, 'escrow:' || round_id, amount_minor, 'bet_stake',
       table_id, round_id, id, placed_at_us, '-', '-'
FROM bets, LATERAL (SELECT substr(id, 11)::bigint AS n) i WHERE id LIKE 'bench-bet-%';
INSERT INTO transfers (seq, id, debit_account, credit_account, amount_minor, kind, table_id, round_id, bet_id,
                       created_at_us, prev_hash, hash)
SELECT 1001 + 3 * n, 'bench-settle-' || n, 'escrow:' || round_id,
       CASE WHEN status = 'won' THEN 'wallet:' || player_id ELSE 'house:bankroll' END, amount_minor,
       CASE WHEN status = 'won' THEN 'bet_returned' ELSE 'bet_collected' END,
       table_id, round_id, id, settled_at_us, '-', '-'
FROM bets, LATERAL (SELECT substr(id, 11)::bigint AS n) i WHERE id LIKE 'bench-bet-%';
INSERT INTO transfers (seq, id, debit_account, credit_account, amount_minor, kind, table_id, round_id, bet_id,
                       created_at_us, prev_hash, hash)
SELECT 1002 + 3 * n, 'bench-payout-' || n, 'house:bankroll', 'wallet:' || player_id, returned_minor - amount_minor,
       'bet_payout', table_id, round_id, id, settled_at_us, '-', '-'
FROM bets, LATERAL (SELECT substr(id, 11)::bigint AS n) i WHERE id LIKE 'bench-bet-%' AND status = 'won';
UPDATE ledger_head SET seq = (SELECT max(seq) FROM transfers) WHERE id = 1;
COMMIT;
ANALYZE;
SQL

t=$(date +%s%N)
"$djego" meters catch-up --database-url "$db_url" >/dev/null
echo "djego meters catch-up of the whole day: $(( ($(date +%s%N) - t) / 1000000 )) ms"

anchor_sql="SELECT (SELECT count(*) || ' ' || sum(amount_minor) FROM transfers
                    WHERE created_at_us >= $day_from_us AND created_at_us < $day_to_us AND table_id IS NOT NULL),
                   (SELECT count(*) || ' ' || sum(amount_minor) FROM bets
                    WHERE settled_at_us >= $day_from_us AND settled_at_us < $day_to_us)"
ms() { echo $(( ($(date +%s%N) - $1) / 1000000 )); }
anchors=(); reports=()
for r in $(seq 1 "$repeats"); do
    t=$(date +%s%N); psql -At "$db_url" -c "$anchor_sql" >/dev/null; a=$(ms "$t")
    t=$(date +%s%N); "$djego" report tables --gaming-day 2026-11-20 --database-url "$db_url" >"$work/report.json"; d=$(ms "$t")
    anchors+=("$a"); reports+=("$d")
    echo "run $r: anchor ${a} ms, djego report tables ${d} ms"
done
python3 - "$work/report.json" "$bets" "${anchors[*]}" "${reports[*]}" <<'PY'
import json, statistics, sys
report = json.load(open(sys.argv[1]))
floor = next(l for l in report["lines"] if l["table_id"] is None and l["shift"] is None and l["pit"] is None)
anchors = [int(x) for x in sys.argv[3].split()]
reports = [int(x) for x in sys.argv[4].split()]
ratios = [d / max(a, 1) for a, d in zip(anchors, reports)]
def mmm(xs, f="{:.0f}"):
    return " / ".join(f.format(x) for x in (min(xs), statistics.median(xs), max(xs)))
print(f"bets: {sys.argv[2]}; the floor's day: {floor['rounds']} rounds, drop {floor['drop']}, theo_win {floor['theo_win']}")
print(f"anchor ms min/median/max: {mmm(anchors)}")
print(f"djego report tables ms min/median/max: {mmm(reports)}")
print(f"ratio report/anchor min/median/max: {mmm(ratios, '{:.1f}')}")
PY
