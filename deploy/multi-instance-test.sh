#!/usr/bin/env bash
# Several djego instances on one PostgreSQL behind nginx, on this machine.
#
#   deploy/multi-instance-test.sh
#
# Creates a fresh database, builds the release binary, runs `djego migrate`
# from three processes at once (the migrations run once), starts three
# instances on loopback ports sharing that database and freshly generated
# secrets, puts nginx (deploy/nginx/nginx.conf with loopback addresses) in
# front, and drives the API through it with deploy/multi-instance-drive.py:
# accounts, deposits and withdrawals with Idempotency-Keys, concurrent load
# during which one instance is killed; after restarting it, tables, complete
# Prima Carta rounds with side bets (an SSE watcher connected directly to one
# instance must see every round, whichever instance handled it; another
# instance is killed mid-round and the round goes on) and Lobo rounds; then
# reconciliation of the ledger against every acknowledged request and round,
# and every round's shuffle transcript through docs/verify/verify_round.py.
# Cleans up on exit.
#
# Needs: PostgreSQL reachable with trust (or PGPASSWORD) auth for a role that
# may create databases; cargo; curl; python3. Installs nginx with apt-get if
# it is missing. Listens on 127.0.0.1 only.
#
# Environment (all optional):
#   PGHOST=127.0.0.1 PGPORT=5432 PGUSER=postgres   the PostgreSQL to use
#   LB_PORT=18080  INSTANCE_PORTS="18081 18082 18083"
#   DJEGO_BIN=path     use this binary instead of building target/release/djego
#   KEEP_WORKDIR=1     keep the work directory (logs) even when the run passes
#   STRICT_STARTUP=1   fail when an instance exits during the concurrent first start
#                      instead of restarting it as a supervisor would

set -Eeuo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
export PGHOST=${PGHOST:-127.0.0.1} PGPORT=${PGPORT:-5432} PGUSER=${PGUSER:-postgres}
LB_PORT=${LB_PORT:-18080}
read -r -a INSTANCE_PORTS <<< "${INSTANCE_PORTS:-18081 18082 18083}"
DB_NAME="djego_mi_$$_$(date +%s)"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/djego-multi.XXXXXX")
PRIVATE="$WORK/private"        # generated credentials and tokens (mode 0700)
BIN=${DJEGO_BIN:-$ROOT/target/release/djego}
declare -a INSTANCE_PIDS=()
declare -a STARTUP_EXITS=()     # instances that exited during a concurrent first start
NGINX_PID=""
DB_CREATED=""
PASSED=""

say()  { printf '\n== %s\n' "$*"; }
info() { printf '  %s\n' "$*"; }
die()  { printf 'FAILED: %s\n' "$*" >&2; exit 1; }

# ------------------------------------------------------------------ cleanup

stop_pid() {  # stop_pid PID: TERM, wait up to 10 s, then KILL
    local pid=$1 i
    [[ -n "$pid" ]] && kill -0 "$pid" 2>/dev/null || return 0
    kill -TERM "$pid" 2>/dev/null || true
    for ((i = 0; i < 50; i++)); do
        kill -0 "$pid" 2>/dev/null || return 0
        sleep 0.2
    done
    kill -KILL "$pid" 2>/dev/null || true
}

cleanup() {
    local status=$?
    trap - EXIT INT TERM
    set +e
    [[ -n "$NGINX_PID" ]] && stop_pid "$NGINX_PID"
    for pid in "${INSTANCE_PIDS[@]}"; do stop_pid "$pid"; done
    wait 2>/dev/null
    if [[ -n "$DB_CREATED" ]]; then
        dropdb --if-exists --force "$DB_NAME" && info "dropped database $DB_NAME"
    fi
    if [[ -n "$PASSED" && -z "${KEEP_WORKDIR:-}" ]]; then
        rm -rf "$WORK"
    else
        info "logs kept in $WORK"
        if [[ -z "$PASSED" ]]; then
            for f in "$WORK"/instance-*.log "$WORK"/nginx/error.log; do
                [[ -f "$f" ]] && { echo "--- tail of $f"; tail -n 15 "$f"; }
            done
        fi
    fi
    exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# -------------------------------------------------------------------- steps

wait_http() {  # wait_http URL SECONDS [PID]: until URL answers 200
    local url=$1 seconds=$2 pid=${3:-} i
    for ((i = 0; i < seconds * 5; i++)); do
        curl -fsS -o /dev/null --max-time 2 "$url" 2>/dev/null && return 0
        if [[ -n "$pid" ]] && ! kill -0 "$pid" 2>/dev/null; then return 1; fi
        sleep 0.2
    done
    return 1
}

port_free() {
    python3 - "$1" <<'EOF'
import socket, sys
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
try:
    s.bind(("127.0.0.1", int(sys.argv[1])))
except OSError:
    sys.exit(1)
EOF
}

preflight() {
    say "preflight"
    local tool
    for tool in curl python3 psql createdb dropdb pg_isready; do
        command -v "$tool" >/dev/null || die "$tool is required"
    done
    pg_isready -q || die "PostgreSQL at $PGHOST:$PGPORT is not accepting connections"
    for port in "$LB_PORT" "${INSTANCE_PORTS[@]}"; do
        port_free "$port" || die "port 127.0.0.1:$port is in use"
    done
    mkdir -m 0700 "$PRIVATE"
    chmod 0755 "$WORK"
    info "PostgreSQL $(psql -XAtc 'SHOW server_version') at $PGHOST:$PGPORT as $PGUSER; work directory $WORK"
}

ensure_nginx() {
    say "nginx"
    if ! command -v nginx >/dev/null && [[ ! -x /usr/sbin/nginx ]]; then
        info "nginx is missing: installing it with apt-get"
        local sudo=""
        [[ $(id -u) -eq 0 ]] || sudo="sudo"
        $sudo apt-get update -qq
        # The package's service is not needed (and must not take port 80):
        # this script runs its own nginx in the foreground.
        DEBIAN_FRONTEND=noninteractive RUNLEVEL=1 $sudo apt-get install -y -qq --no-install-recommends nginx-light \
            || DEBIAN_FRONTEND=noninteractive RUNLEVEL=1 $sudo apt-get install -y -qq --no-install-recommends nginx
    fi
    NGINX=$(command -v nginx || echo /usr/sbin/nginx)
    info "$("$NGINX" -v 2>&1)"
}

build_binary() {
    say "djego binary"
    if [[ -z "${DJEGO_BIN:-}" ]]; then
        if ! (cd "$ROOT" && cargo build --release --locked --bin djego) > "$WORK/build.log" 2>&1; then
            tail -n 20 "$WORK/build.log"
            die "cargo build --release --locked failed"
        fi
        info "$(tail -n 1 "$WORK/build.log" | sed 's/^ *//')"
    fi
    [[ -x "$BIN" ]] || die "no binary at $BIN"
    # Run a private copy, so a rebuild in the tree during the run changes nothing.
    cp "$BIN" "$WORK/djego"
    info "$("$WORK/djego" --version), copied from $BIN"
    BIN="$WORK/djego"
}

create_database() {
    say "database"
    createdb "$DB_NAME"
    DB_CREATED=1
    export DATABASE_URL="postgres://$PGUSER@$PGHOST:$PGPORT/$DB_NAME"
    info "created $DB_NAME"
}

generate_secrets() {
    say "secrets (generated for this run, shared by every instance)"
    DJEGO_JWT_SECRET=$(python3 -c 'import secrets; print(secrets.token_hex(32))')
    DJEGO_SEED_KEY=$(python3 -c 'import secrets; print(secrets.token_hex(32))')
    DJEGO_CHECKPOINT_KEY=$(python3 -c 'import secrets; print(secrets.token_hex(32))')
    DJEGO_ADMIN_PASSWORD=$(python3 -c 'import secrets; print(secrets.token_urlsafe(18))')
    export DJEGO_JWT_SECRET DJEGO_SEED_KEY DJEGO_CHECKPOINT_KEY DJEGO_ADMIN_PASSWORD
    info "DJEGO_JWT_SECRET, DJEGO_SEED_KEY, DJEGO_CHECKPOINT_KEY, DJEGO_ADMIN_PASSWORD set in the environment only"
}

migrate_concurrently() {
    say "djego migrate from three processes at once"
    local pids=() i applied=0 appliers=0 n
    for i in 1 2 3; do
        "$BIN" migrate > "$WORK/migrate-$i.log" 2>&1 &
        pids+=($!)
    done
    for i in 1 2 3; do
        wait "${pids[$((i - 1))]}" || die "migrate process $i failed: $(cat "$WORK/migrate-$i.log")"
        n=$(sed -n 's/^applied \([0-9]*\) migration(s)$/\1/p' "$WORK/migrate-$i.log")
        [[ -n "$n" ]] || die "migrate process $i: unexpected output $(cat "$WORK/migrate-$i.log")"
        info "process $i: applied $n migration(s)"
        applied=$((applied + n))
        [[ "$n" -gt 0 ]] && appliers=$((appliers + 1))
    done
    # The binary embeds its migrations; the database records each applied one.
    n=$(psql -XAtd "$DB_NAME" -c 'SELECT count(*) FROM __diesel_schema_migrations')
    [[ "$n" -gt 0 && "$applied" -eq "$n" && "$appliers" -eq 1 ]] \
        || die "migrations: $applied applied by $appliers processes, $n recorded (want all by one process, once)"
    info "one process applied all $n migration(s) under the advisory lock; the others found none pending"
}

start_instance() {  # start_instance INDEX (0-based): starts it and records its pid
    local i=$1 port=${INSTANCE_PORTS[$1]}
    DJEGO_BIND="127.0.0.1:$port" DJEGO_WORKERS=2 DJEGO_DB_MAX_CONNECTIONS=8 DJEGO_LOG_FORMAT=json \
        RUST_LOG=${RUST_LOG:-info} \
        "$BIN" serve >> "$WORK/instance-$((i + 1)).log" 2>&1 &
    INSTANCE_PIDS[$i]=$!
    disown "$!"   # the kill scenario kills it on purpose: no job-control notice
}

start_instances() {
    say "three djego instances on one database, started together"
    local i attempt
    for i in "${!INSTANCE_PORTS[@]}"; do start_instance "$i"; done
    for i in "${!INSTANCE_PORTS[@]}"; do
        for attempt in 1 2 3; do
            wait_http "http://127.0.0.1:${INSTANCE_PORTS[$i]}/ready" 60 "${INSTANCE_PIDS[$i]}" && break
            kill -0 "${INSTANCE_PIDS[$i]}" 2>/dev/null \
                && die "instance $((i + 1)) did not become ready: $(tail -n 5 "$WORK/instance-$((i + 1)).log")"
            # It exited during start-up. A supervisor (systemd Restart=on-failure,
            # compose restart:, Kubernetes) restarts it; so does this script, at
            # most twice, and reports it, unless STRICT_STARTUP=1.
            wait "${INSTANCE_PIDS[$i]}" 2>/dev/null || true
            STARTUP_EXITS+=("instance $((i + 1)): $(tail -n 1 "$WORK/instance-$((i + 1)).log")")
            info "instance $((i + 1)) exited during start-up: $(tail -n 1 "$WORK/instance-$((i + 1)).log")"
            [[ -z "${STRICT_STARTUP:-}" && $attempt -lt 3 ]] || die "instance $((i + 1)) could not start"
            info "restarting instance $((i + 1)), as its supervisor would"
            start_instance "$i"
        done
        info "instance $((i + 1)): pid ${INSTANCE_PIDS[$i]}, http://127.0.0.1:${INSTANCE_PORTS[$i]} ready" \
             "($(curl -fsS "http://127.0.0.1:${INSTANCE_PORTS[$i]}/ready"))"
    done
    local admins
    admins=$(psql -XAtd "$DB_NAME" -c "SELECT count(*) FROM users WHERE username = 'admin'")
    [[ "$admins" -eq 1 ]] || die "expected one bootstrapped admin, found $admins"
    info "one pit boss 'admin' bootstrapped from DJEGO_ADMIN_PASSWORD"
    # A second pit boss, made by the operator on the command line: through the service one pit
    # boss alone cannot make another, and new tables and staff accounts wait for a second.
    export APPROVER_PASSWORD
    APPROVER_PASSWORD=$(python3 -c 'import secrets; print(secrets.token_hex(16))')
    DJEGO_NEW_PASSWORD="$APPROVER_PASSWORD" "$BIN" user create --username approver --role pitboss \
        > "$WORK/user-create.log" 2>&1 || die "djego user create approver: $(cat "$WORK/user-create.log")"
    info "a second pit boss 'approver' made with djego user create"
}

render_nginx_conf() {  # deploy/nginx/nginx.conf with loopback upstreams and private paths
    mkdir -p "$WORK/nginx/tmp"
    [[ $(id -u) -eq 0 ]] && chown nobody "$WORK/nginx/tmp"
    python3 - "$ROOT/deploy/nginx/nginx.conf" "$WORK/nginx" "$LB_PORT" "${INSTANCE_PORTS[@]}" <<'EOF'
import re, sys
src, out, lb_port, ports = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
text = open(src).read()
servers = "".join(f"        server 127.0.0.1:{p} max_fails=2 fail_timeout=10s;\n" for p in ports)
text, n = re.subn(r"(?:^[ \t]*server djego-\d+:8080[^\n]*\n)+", servers, text, flags=re.M)
assert n == 1, "upstream servers not found"
replacements = [
    ("pid /tmp/nginx.pid;", f"pid {out}/nginx.pid;"),
    ("error_log /dev/stderr warn;", f"error_log {out}/error.log warn;"),
    ("access_log /dev/stdout djego;",
     f"access_log {out}/access.log djego;\n"
     + "".join(f"    {d}_temp_path {out}/tmp/{d};\n" for d in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"))),
    ("listen 8080;", f"listen 127.0.0.1:{lb_port};\n"
     "        # test only: which instance answered (the driver counts them)\n"
     "        add_header X-Djego-Upstream $upstream_addr always;"),
]
for old, new in replacements:
    assert text.count(old) == 1, old
    text = text.replace(old, new)
open(f"{out}/nginx.conf", "w").write(text)
EOF
}

start_load_balancer() {
    say "nginx on 127.0.0.1:$LB_PORT (deploy/nginx/nginx.conf, loopback upstreams)"
    render_nginx_conf
    "$NGINX" -t -q -p "$WORK/nginx" -c "$WORK/nginx/nginx.conf" -g 'daemon off;' \
        || die "nginx rejected the configuration"
    "$NGINX" -p "$WORK/nginx" -c "$WORK/nginx/nginx.conf" -g 'daemon off;' &
    NGINX_PID=$!
    disown "$!"
    wait_http "http://127.0.0.1:$LB_PORT/lb-health" 20 "$NGINX_PID" || die "nginx did not start"
    wait_http "http://127.0.0.1:$LB_PORT/ready" 20 "$NGINX_PID" || die "nginx does not reach djego"
    info "nginx pid $NGINX_PID; /ready through it: $(curl -fsS "http://127.0.0.1:$LB_PORT/ready")"
}

smoke_with_curl() {
    say "smoke test with curl through the load balancer"
    local lb="http://127.0.0.1:$LB_PORT" code
    curl -fsS "$lb/health" >/dev/null
    code=$(curl -s -o /dev/null -w '%{http_code}' "$lb/api/v1/me")
    [[ "$code" == 401 ]] || die "unauthenticated /api/v1/me gave $code"
    code=$(curl -s -o /dev/null -w '%{http_code}' "$lb/metrics")
    [[ "$code" == 404 ]] || die "/metrics through the load balancer gave $code (should be internal only)"
    curl -fsS -X POST "$lb/api/v1/auth/login" -H 'Content-Type: application/json' \
        --data "$(python3 -c 'import json,os; print(json.dumps({"username": "admin", "password": os.environ["DJEGO_ADMIN_PASSWORD"]}))')" \
        -o "$PRIVATE/admin-login.json"
    python3 -c 'import json,sys; b=json.load(open(sys.argv[1])); assert b["role"] == "pitboss"' "$PRIVATE/admin-login.json"
    info "/health 200, /api/v1/me without token 401, /metrics hidden (404), admin login 200 (pitboss)"
}

write_env_json() {
    python3 - "$PRIVATE/env.json" "$LB_PORT" "${INSTANCE_PORTS[*]}" "${INSTANCE_PIDS[*]}" <<'EOF'
import json, os, sys
path, lb_port, ports, pids = sys.argv[1], sys.argv[2], sys.argv[3].split(), sys.argv[4].split()
instances = [{"name": f"instance-{i + 1}", "url": f"http://127.0.0.1:{p}", "pid": int(pid)}
             for i, (p, pid) in enumerate(zip(ports, pids))]
with open(path, "w") as f:
    json.dump({"lb": f"http://127.0.0.1:{lb_port}", "instances": instances,
               "admin_password": os.environ["DJEGO_ADMIN_PASSWORD"],
               "approver_password": os.environ["APPROVER_PASSWORD"]}, f)
os.chmod(path, 0o600)
EOF
}

drive_api() {
    say "API scenarios through the load balancer (deploy/multi-instance-drive.py)"
    write_env_json
    python3 "$ROOT/deploy/multi-instance-drive.py" drive "$PRIVATE" cage || die "a scenario failed"
}

drive_games() {
    say "game scenarios through the load balancer: tables, Prima Carta with SSE across instances, Lobo"
    python3 "$ROOT/deploy/multi-instance-drive.py" drive "$PRIVATE" games || die "a game scenario failed"
}

wait_for_lb_to_use() {  # wait_for_lb_to_use PORT: until nginx sends a request there again
    local port=$1 i
    for ((i = 0; i < 100; i++)); do
        if curl -fsS -o /dev/null -D - --max-time 2 "http://127.0.0.1:$LB_PORT/ready" 2>/dev/null \
            | grep -qi "^X-Djego-Upstream: .*:$port"; then
            info "nginx routes to 127.0.0.1:$port again (after $i probes)"
            return 0
        fi
        sleep 0.2
    done
    die "nginx did not route to 127.0.0.1:$port again within 20 s"
}

restart_dead_instances() {
    say "restart instances that were killed"
    local i restarted=0
    for i in "${!INSTANCE_PORTS[@]}"; do
        if ! kill -0 "${INSTANCE_PIDS[$i]}" 2>/dev/null; then
            wait "${INSTANCE_PIDS[$i]}" 2>/dev/null || true
            start_instance "$i"
            wait_http "http://127.0.0.1:${INSTANCE_PORTS[$i]}/ready" 60 "${INSTANCE_PIDS[$i]}" \
                || die "instance $((i + 1)) did not come back"
            info "instance $((i + 1)) back as pid ${INSTANCE_PIDS[$i]} (no migrations pending, admin not re-created)"
            wait_for_lb_to_use "${INSTANCE_PORTS[$i]}"
            restarted=$((restarted + 1))
        fi
    done
    [[ $restarted -gt 0 ]] || info "none"
    write_env_json
}

reconcile_api() {
    say "reconciliation through the load balancer"
    python3 "$ROOT/deploy/multi-instance-drive.py" reconcile "$PRIVATE" || die "reconciliation failed"
}

verify_offline() {
    say "offline checks against the database"
    "$BIN" verify ledger > "$WORK/verify-ledger.json" || die "djego verify ledger failed: $(cat "$WORK/verify-ledger.json")"
    info "djego verify ledger: $(python3 -c 'import json, sys; r = json.load(open(sys.argv[1]))
print("ok=%s, %s transfers, head seq %s, stored total %s" % (r["ok"], r["transfers_checked"], r["head_seq"], r["stored_total"]))' "$WORK/verify-ledger.json")"
    local dup
    # One request may post several transfers of different kinds (a seat: spiga,
    # seat fee, corte held); none may post the same kind twice.
    dup=$(psql -XAtd "$DB_NAME" -c "SELECT count(*) FROM (SELECT idempotency_key, kind FROM transfers
          WHERE idempotency_key IS NOT NULL GROUP BY idempotency_key, kind HAVING count(*) > 1) d")
    [[ "$dup" -eq 0 ]] || die "$dup idempotency keys have more than one transfer of one kind"
    info "no Idempotency-Key produced two transfers of one kind; $(psql -XAtd "$DB_NAME" -c 'SELECT count(*) FROM idempotency_keys') keys stored"
    for i in "${!INSTANCE_PORTS[@]}"; do
        info "instance $((i + 1)) /metrics: $(curl -fsS "http://127.0.0.1:${INSTANCE_PORTS[$i]}/metrics" \
            | awk '/^djego_http_requests_total\{/ && /route="\/api\/v1\/cage\/(deposits|withdrawals)"/ {s += $NF} END {print s + 0}') cage requests answered since it (re)started"
    done
}

# The run: each step is a function above; add new ones to this list.
STEPS=(
    preflight
    ensure_nginx
    build_binary
    create_database
    generate_secrets
    migrate_concurrently
    start_instances
    start_load_balancer
    smoke_with_curl
    drive_api
    restart_dead_instances
    drive_games
    restart_dead_instances
    reconcile_api
    verify_offline
)

for step in "${STEPS[@]}"; do "$step"; done
PASSED=1
say "PASSED: ${#INSTANCE_PORTS[@]} instances, one database, nothing acknowledged was lost"
if [[ ${#STARTUP_EXITS[@]} -gt 0 ]]; then
    info "NOTE: ${#STARTUP_EXITS[@]} instance start(s) failed when all instances started together on a fresh"
    info "database and succeeded when restarted (the first-run bootstrap of house accounts and the"
    info "admin user races between instances):"
    for line in "${STARTUP_EXITS[@]}"; do info "  $line"; done
fi
