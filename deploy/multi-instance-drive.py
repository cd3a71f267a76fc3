#!/usr/bin/env python3
"""API driver for deploy/multi-instance-test.sh (Python standard library only).

    multi-instance-drive.py drive      STATE_DIR   run every scenario in SCENARIOS
    multi-instance-drive.py reconcile  STATE_DIR   check the ledger against what was acknowledged

The shell script owns the processes (PostgreSQL database, djego instances,
nginx); it writes STATE_DIR/env.json describing them and this driver talks
HTTP to them. Everything goes through the load balancer unless a step says
it addresses one instance directly.

How correctness is judged. Every money-moving request carries an
Idempotency-Key and is retried with the same key and body until it gets a
definitive answer (2xx or 4xx); 502/503/504 and broken connections are not
definitive. Each 2xx is an *acknowledged* movement, recorded with its
transfer ids and its effect on a player's wallet. `reconcile` then requires:

  * the ledger verifies (hash chain, balances) and the trial balance is 0.00;
  * every acknowledged transfer is in the ledger with its amount and kind;
  * every wallet transfer in the ledger was acknowledged (nothing moved
    that a client was not told about, nothing moved twice);
  * every wallet balance equals the sum of its acknowledged movements;
  * replaying every acknowledged request with its key returns the very
    same status and body.

Adding a game. A scenario is a function `scenario_x(ctx)` listed in
SCENARIOS. It moves money only through `ctx.post_money(...)` (or records what
it caused with `ctx.acknowledge(...)`), so that reconcile knows each wallet's
expected movements; table and round endpoints (Prima Carta rounds, side
bets, Lobo rounds, an SSE listener on another instance) fit the same shape.
"""

import concurrent.futures
import json
import os
import random
import signal
import socket
import sys
import threading
import time
import urllib.error
import urllib.request
import uuid
from decimal import Decimal

TRANSIENT = {None, 502, 503, 504}
MAX_ATTEMPTS = 10
CENT = Decimal("0.01")


def log(message):
    print(f"  {message}", flush=True)


class CheckFailed(Exception):
    pass


def check(condition, message):
    if not condition:
        raise CheckFailed(message)


# --------------------------------------------------------------------- HTTP

class Response:
    def __init__(self, status, body, headers, error=None):
        self.status = status
        self.body = body
        self.headers = headers
        self.error = error

    def json(self):
        return json.loads(self.body) if self.body else None

    @property
    def upstream(self):
        """The instance that answered (last address nginx tried), if known."""
        value = (self.headers or {}).get("X-Djego-Upstream") or ""
        return value.split(",")[-1].strip() or None


def http(method, url, body=None, token=None, headers=None, timeout=15):
    data = None
    all_headers = {"Accept": "application/json"}
    if body is not None:
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        all_headers["Content-Type"] = "application/json"
    if token:
        all_headers["Authorization"] = f"Bearer {token}"
    all_headers.update(headers or {})
    request = urllib.request.Request(url, data=data, method=method, headers=all_headers)
    try:
        with urllib.request.urlopen(request, timeout=timeout) as r:
            return Response(r.status, r.read().decode(), dict(r.headers))
    except urllib.error.HTTPError as e:
        return Response(e.code, e.read().decode(errors="replace"), dict(e.headers or {}))
    except Exception as e:  # refused, reset, timed out: no answer at all
        return Response(None, "", {}, error=f"{type(e).__name__}: {e}")


# ------------------------------------------------------------------ context

class Ctx:
    def __init__(self, state_dir):
        self.state_dir = state_dir
        with open(os.path.join(state_dir, "env.json")) as f:
            env = json.load(f)
        self.lb = env["lb"]
        self.instances = env["instances"]  # [{name, url, pid}]
        self.admin_password = env["admin_password"]
        self.lock = threading.Lock()
        self.tokens = {}
        self.credentials = {}
        self.players = []  # [{id, username}]
        self.acks = []  # acknowledged requests, see acknowledge()
        self.rejected = []  # definitive refusals: {key, status, code}
        self.stats = {"requests": 0, "attempts": 0, "retried": 0, "committed_before_retry": 0}
        self.killed = []  # names of instances this run killed

    # ---- persistence between `drive` and `reconcile`
    def save(self):
        path = os.path.join(self.state_dir, "drive-state.json")
        with open(path, "w") as f:
            json.dump({"credentials": self.credentials, "players": self.players, "acks": self.acks,
                       "rejected": self.rejected, "stats": self.stats, "killed": self.killed}, f)

    def load(self):
        with open(os.path.join(self.state_dir, "drive-state.json")) as f:
            s = json.load(f)
        self.credentials, self.players, self.acks = s["credentials"], s["players"], s["acks"]
        self.rejected, self.stats, self.killed = s["rejected"], s["stats"], s["killed"]

    # ---- accounts
    def login(self, username, password, base=None):
        r = http("POST", (base or self.lb) + "/api/v1/auth/login", {"username": username, "password": password})
        check(r.status == 200, f"login {username}: {r.status} {r.body or r.error}")
        body = r.json()
        self.tokens[username] = body["access_token"]
        self.credentials[username] = password
        return body

    def token(self, username):
        if username not in self.tokens:
            self.login(username, self.credentials[username])
        return self.tokens[username]

    # ---- money
    def post_money(self, path, body, as_user, key=None):
        """POSTs a money-moving request with an Idempotency-Key through the load
        balancer, retrying with the same key until the answer is definitive.
        Records a 2xx with acknowledge(); returns the final Response."""
        key = key or f"mi-{uuid.uuid4()}"
        token = self.token(as_user)
        attempts, first_failure_at_us = 0, None
        while True:
            attempts += 1
            sent_at_us = time.time_ns() // 1000
            r = http("POST", self.lb + path, body, token, {"Idempotency-Key": key})
            if r.status not in TRANSIENT or attempts >= MAX_ATTEMPTS:
                break
            if first_failure_at_us is None:
                first_failure_at_us = sent_at_us
            time.sleep(min(0.1 * 2 ** attempts, 2.0))
        with self.lock:
            self.stats["requests"] += 1
            self.stats["attempts"] += attempts
            if attempts > 1:
                self.stats["retried"] += 1
        check(r.status not in TRANSIENT, f"{path} key {key}: no definitive answer after {attempts} attempts "
                                          f"(last: {r.status} {r.error or r.body[:200]})")
        if 200 <= r.status < 300:
            receipt = r.json()
            transfer = receipt["transfer"]
            # A transfer older than the retry that returned it was committed by an
            # earlier attempt whose answer was lost: the retry replayed it.
            if first_failure_at_us is not None and transfer["created_at_us"] < sent_at_us:
                with self.lock:
                    self.stats["committed_before_retry"] += 1
            wallet_delta = Decimal(transfer["amount"])
            player = body["player_id"]
            if transfer["debit_account"] == f"wallet:{player}":
                wallet_delta = -wallet_delta
            self.acknowledge(path, body, as_user, key, r, {player: str(wallet_delta)}, [transfer])
        else:
            err = (r.json() or {}).get("error", {})
            with self.lock:
                self.rejected.append({"key": key, "path": path, "status": r.status, "code": err.get("code")})
        return r

    def acknowledge(self, path, body, as_user, key, response, wallet_deltas, transfers):
        """Records an acknowledged request: its replayable form, its transfers
        ({id, amount, kind, debit_account, credit_account}) and the signed change
        it made to each player's wallet ({player_id: "12.50"})."""
        with self.lock:
            self.acks.append({
                "path": path, "body": body, "as_user": as_user, "key": key,
                "status": response.status, "response": response.body, "upstream": response.upstream,
                "wallet_deltas": wallet_deltas,
                "transfers": [{k: t[k] for k in ("id", "amount", "kind", "debit_account", "credit_account")}
                              for t in transfers],
            })

    def instance(self, name):
        return next(i for i in self.instances if i["name"] == name)


# ---------------------------------------------------------------- scenarios

def scenario_accounts(ctx):
    """Accounts: the bootstrapped admin, staff and players; one token for all instances.

    The admin comes from DJEGO_ADMIN_PASSWORD; users are created through the
    load balancer and listed by every instance."""
    admin = ctx.login("admin", ctx.admin_password)
    check(admin["role"] == "pitboss", f"admin role is {admin['role']}")
    suffix = uuid.uuid4().hex[:6]
    for role in ("cashier", "auditor"):
        name, password = f"{role}-{suffix}", uuid.uuid4().hex
        r = http("POST", ctx.lb + "/api/v1/users", {"username": name, "role": role, "password": password},
                 ctx.token("admin"))
        check(r.status == 201, f"create {role}: {r.status} {r.body}")
        ctx.login(name, password)
    ctx.cashier, ctx.auditor = f"cashier-{suffix}", f"auditor-{suffix}"
    ctx.credentials["_names"] = {"cashier": ctx.cashier, "auditor": ctx.auditor}
    for n in range(6):
        name = f"player{n}-{suffix}"
        r = http("POST", ctx.lb + "/api/v1/users", {"username": name, "role": "player", "password": uuid.uuid4().hex},
                 ctx.token(ctx.cashier))
        check(r.status == 201, f"create player: {r.status} {r.body}")
        ctx.players.append({"id": r.json()["id"], "username": name})
    for inst in ctx.instances:
        r = http("GET", inst["url"] + "/api/v1/me", token=ctx.token(ctx.cashier))
        check(r.status == 200 and r.json()["username"] == ctx.cashier, f"token rejected by {inst['name']}: {r.status}")
        r = http("GET", inst["url"] + "/api/v1/users?role=player&limit=500", token=ctx.token("admin"))
        ids = {u["id"] for u in r.json()}
        check(all(p["id"] in ids for p in ctx.players), f"{inst['name']} does not list every new player")
    log(f"admin logged in; cashier, auditor and {len(ctx.players)} players created; "
        f"one token accepted by all {len(ctx.instances)} instances, each lists every player")


def scenario_cage_basics(ctx):
    """Cage: deposits and withdrawals with keys, replays, key reuse, refusals.

    Balances are read back from other instances; a refusal moves nothing."""
    for p in ctx.players:
        r = ctx.post_money("/api/v1/cage/deposits", {"player_id": p["id"], "amount": "500.00"}, ctx.cashier)
        check(r.status == 201, f"deposit: {r.status} {r.body}")
        r = ctx.post_money("/api/v1/cage/withdrawals", {"player_id": p["id"], "amount": "120.00"}, ctx.cashier)
        check(r.status == 201, f"withdrawal: {r.status} {r.body}")
    for i, p in enumerate(ctx.players):
        inst = ctx.instances[i % len(ctx.instances)]
        r = http("GET", f"{inst['url']}/api/v1/wallets/{p['id']}", token=ctx.token(ctx.cashier))
        check(r.status == 200 and r.json()["balance"] == "380.00", f"{inst['name']} wallet: {r.status} {r.body}")
    first = ctx.acks[0]
    again = http("POST", ctx.lb + first["path"], first["body"], ctx.token(ctx.cashier), {"Idempotency-Key": first["key"]})
    check((again.status, again.body) == (first["status"], first["response"]), "replay differs from the original")
    other = dict(first["body"], amount="1.00")
    r = http("POST", ctx.lb + first["path"], other, ctx.token(ctx.cashier), {"Idempotency-Key": first["key"]})
    check(r.status == 409 and r.json()["error"]["code"] == "idempotency_key_reused", f"key reuse: {r.status} {r.body}")
    p = ctx.players[0]
    r = ctx.post_money("/api/v1/cage/withdrawals", {"player_id": p["id"], "amount": "100000.00"}, ctx.cashier)
    check(r.status == 422 and r.json()["error"]["code"] == "insufficient_funds", f"overdraft: {r.status} {r.body}")
    log(f"{len(ctx.players)} deposits of 500.00 and withdrawals of 120.00; balances read back from each instance; "
        "replay identical; key reused with another body -> 409; overdraft -> 422")


def scenario_concurrent_twins(ctx):
    """One deposit sent at once to every instance with the same key.

    Exactly one transfer; every copy gets the same answer."""
    p = ctx.players[1]
    key = f"twin-{uuid.uuid4()}"
    body = {"player_id": p["id"], "amount": "7.77"}
    token = ctx.token(ctx.cashier)
    targets = [inst["url"] for inst in ctx.instances] * 3
    barrier = threading.Barrier(len(targets))

    def send(url):
        barrier.wait(timeout=10)
        return http("POST", url + "/api/v1/cage/deposits", body, token, {"Idempotency-Key": key})

    with concurrent.futures.ThreadPoolExecutor(len(targets)) as pool:
        results = list(pool.map(send, targets))
    statuses = sorted({r.status for r in results})
    bodies = {r.body for r in results}
    check(statuses == [201] and len(bodies) == 1, f"twins: statuses {statuses}, {len(bodies)} distinct bodies")
    r = results[0]
    transfer = r.json()["transfer"]
    ctx.acknowledge("/api/v1/cage/deposits", body, ctx.cashier, key, r, {p["id"]: "7.77"}, [transfer])
    log(f"{len(targets)} simultaneous copies of one deposit on {len(ctx.instances)} instances -> "
        f"all 201 with one body, transfer {transfer['id'][:8]}")


def scenario_lost_answer(ctx):
    """A client that hangs up before the answer retries with its key.

    The deposit is sent straight to one instance over a raw socket that is
    closed without reading; the retry goes through nginx with the same key."""
    p = ctx.players[2]
    key = f"lost-{uuid.uuid4()}"
    body = {"player_id": p["id"], "amount": "3.33"}
    inst = ctx.instances[-1]
    port = int(inst["url"].rsplit(":", 1)[1])
    payload = json.dumps(body).encode()
    head = (f"POST /api/v1/cage/deposits HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
            f"Authorization: Bearer {ctx.token(ctx.cashier)}\r\nIdempotency-Key: {key}\r\n"
            f"Content-Type: application/json\r\nContent-Length: {len(payload)}\r\nConnection: close\r\n\r\n")
    with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
        s.sendall(head.encode() + payload)
    time.sleep(1.0)
    retry_at_us = time.time_ns() // 1000
    r = ctx.post_money("/api/v1/cage/deposits", body, ctx.cashier, key=key)
    check(r.status == 201, f"retry after hang-up: {r.status} {r.body}")
    transfer = r.json()["transfer"]
    if transfer["created_at_us"] < retry_at_us:
        ctx.stats["committed_before_retry"] += 1
        log(f"the abandoned request was committed by {inst['name']}; the retry through nginx returned "
            f"its stored result (transfer {transfer['id'][:8]}, created before the retry was sent)")
    else:
        log(f"the abandoned request was not committed; the retry executed it once (transfer {transfer['id'][:8]})")


def scenario_load_with_instance_kill(ctx):
    """Concurrent load through nginx while one instance is SIGKILLed.

    Every request still ends definitively; reconcile proves nothing
    acknowledged was lost and nothing moved twice."""
    victim = ctx.instances[1]
    clients, per_client = 16, 25
    total = clients * per_client
    done = [0]
    done_lock = threading.Lock()
    kill_at = int(total * 0.35)
    killed_evt = threading.Event()
    kill_time = [None]
    grace = 0.5  # a response read just before the kill may be timed just after it
    before_kill, after_kill = {}, {}

    def one_request(rng):
        p = rng.choice(ctx.players)
        if rng.random() < 0.6:
            path, amount = "/api/v1/cage/deposits", Decimal(rng.randint(100, 5000)) / 100
        else:
            path, amount = "/api/v1/cage/withdrawals", Decimal(rng.randint(100, 9000)) / 100
        r = ctx.post_money(path, {"player_id": p["id"], "amount": str(amount.quantize(CENT))}, ctx.cashier)
        received = time.monotonic()
        with done_lock:
            done[0] += 1
            if 200 <= r.status < 300:
                late = kill_time[0] is not None and received > kill_time[0] + grace
                bucket = after_kill if late else before_kill
                bucket[r.upstream] = bucket.get(r.upstream, 0) + 1
            if done[0] == kill_at:
                os.kill(victim["pid"], signal.SIGKILL)
                kill_time[0] = time.monotonic()
                ctx.killed.append(victim["name"])
                killed_evt.set()

    def client(seed):
        rng = random.Random(seed)
        for _ in range(per_client):
            one_request(rng)

    stats_before = dict(ctx.stats)
    started = time.time()
    with concurrent.futures.ThreadPoolExecutor(clients) as pool:
        for f in [pool.submit(client, 1000 + c) for c in range(clients)]:
            f.result()
    elapsed = time.time() - started
    check(killed_evt.is_set(), "the instance was never killed")
    by_port = {inst["url"].rsplit(":", 1)[1]: inst["name"] for inst in ctx.instances}

    def named(counts):
        return ", ".join(f"{by_port.get((k or '?').rsplit(':', 1)[-1], k)}={v}" for k, v in sorted(counts.items(), key=str))

    after = after_kill
    victim_addr = next((k for k in before_kill if k and k.endswith(":" + victim["url"].rsplit(":", 1)[1])), None)
    check(len([k for k, v in before_kill.items() if v > 0]) == len(ctx.instances),
          f"before the kill not every instance answered: {before_kill}")
    # Requests inside the victim when it died got no answer (and were retried);
    # nothing can have been acknowledged by it after the kill.
    check(after.get(victim_addr, 0) == 0, f"{victim['name']} acknowledged requests after it was killed")
    log(f"{total} requests from {clients} clients in {elapsed:.1f}s; SIGKILL {victim['name']} "
        f"(pid {victim['pid']}) after {kill_at}")
    log(f"acknowledged per instance until the kill: {named(before_kill)}; after it: {named(after)}")
    retried = ctx.stats["retried"] - stats_before["retried"]
    lost = ctx.stats["committed_before_retry"] - stats_before["committed_before_retry"]
    log(f"requests retried with the same key after 502 or a broken connection: {retried}; of these, {lost} "
        "had been committed by an attempt whose answer was lost, and the retry returned the stored result")


# Scenarios run in this order. Append game scenarios (Prima Carta rounds,
# side bets, Lobo rounds, SSE on another instance) here as their endpoints land.
SCENARIOS = [
    scenario_accounts,
    scenario_cage_basics,
    scenario_concurrent_twins,
    scenario_lost_answer,
    scenario_load_with_instance_kill,
]


# ---------------------------------------------------------------- reconcile

def fetch_ledger(ctx, token):
    transfers, offset = [], 0
    for _ in range(10_000):  # bounded: 5 million transfers at most
        r = http("GET", f"{ctx.lb}/api/v1/audit/ledger?limit=500&offset={offset}", token=token, timeout=30)
        check(r.status == 200, f"ledger page at {offset}: {r.status} {r.body[:200]}")
        page = r.json()
        transfers.extend(page)
        if len(page) < 500:
            return transfers
        offset += 500
    raise CheckFailed("ledger paging did not end")


def reconcile(ctx):
    names = ctx.credentials["_names"]
    auditor = ctx.token(names["auditor"])
    ctx.cashier = names["cashier"]

    r = http("GET", ctx.lb + "/api/v1/audit/ledger/verify", token=auditor, timeout=60)
    check(r.status == 200, f"verify: {r.status} {r.body}")
    v = r.json()
    check(v["ok"] is True, f"ledger verification failed: {r.body}")
    log(f"GET /api/v1/audit/ledger/verify: ok, {v['transfers_checked']} transfers, head seq {v['head_seq']}")

    r = http("GET", ctx.lb + "/api/v1/audit/ledger/trial-balance", token=auditor)
    check(r.status == 200, f"trial balance: {r.status}")
    tb = r.json()
    check(tb["balanced"] is True and Decimal(tb["total"]) == 0 and tb["total"] == "0.00",
          f"trial balance total {tb['total']} balanced={tb['balanced']}")
    log(f"trial balance: total {tb['total']} over {len(tb['accounts'])} accounts")

    ledger = {t["id"]: t for t in fetch_ledger(ctx, auditor)}
    acked = {}
    for a in ctx.acks:
        for t in a["transfers"]:
            acked[t["id"]] = t
            got = ledger.get(t["id"])
            check(got is not None, f"acknowledged transfer {t['id']} (key {a['key']}) is not in the ledger")
            check(all(got[k] == t[k] for k in ("amount", "kind", "debit_account", "credit_account")),
                  f"transfer {t['id']} differs from its acknowledgement")
    wallet_transfers = {i: t for i, t in ledger.items()
                        if t["debit_account"].startswith("wallet:") or t["credit_account"].startswith("wallet:")}
    unacked = sorted(set(wallet_transfers) - set(acked))
    check(not unacked, f"{len(unacked)} wallet transfers nobody was told about, e.g. {unacked[:3]}")
    log(f"all {len(acked)} acknowledged transfers are in the ledger as acknowledged; "
        f"no other wallet transfer exists ({len(wallet_transfers)} in total)")

    expected = {p["id"]: Decimal("0.00") for p in ctx.players}
    for a in ctx.acks:
        for player, delta in a["wallet_deltas"].items():
            expected[player] += Decimal(delta)
    token = ctx.token(ctx.cashier)
    wallet_sum = Decimal(0)
    for i, p in enumerate(ctx.players):
        inst = ctx.instances[i % len(ctx.instances)]  # every instance is up again by now
        r = http("GET", f"{inst['url']}/api/v1/wallets/{p['id']}", token=token)
        check(r.status == 200, f"wallet {p['username']}: {r.status}")
        check(Decimal(r.json()["balance"]) == expected[p["id"]],
              f"wallet {p['username']}: {r.json()['balance']} but acknowledged movements sum to {expected[p['id']]}")
        wallet_sum += expected[p["id"]]
    cage = next(a for a in tb["accounts"] if a["account"] == "cage")
    check(Decimal(cage["balance"]) == -wallet_sum, f"cage {cage['balance']} vs wallets {wallet_sum}")
    log(f"{len(ctx.players)} wallets equal acknowledged deposits minus withdrawals (sum {wallet_sum}); "
        f"cage {cage['balance']}")

    upstreams = {}
    for a in ctx.acks:
        r = http("POST", ctx.lb + a["path"], a["body"], ctx.token(a["as_user"]), {"Idempotency-Key": a["key"]})
        check((r.status, r.body) == (a["status"], a["response"]),
              f"replay of {a['key']} gave {r.status} {r.body[:200]}, first answer was {a['status']}")
        upstreams[r.upstream] = upstreams.get(r.upstream, 0) + 1
    r = http("GET", ctx.lb + "/api/v1/audit/ledger/verify", token=auditor, timeout=60)
    check(r.status == 200 and r.json()["head_seq"] == v["head_seq"], "replays moved money")
    log(f"replayed all {len(ctx.acks)} acknowledged requests with their keys: identical status and body, "
        f"ledger head unchanged at seq {v['head_seq']} (answered by {len(upstreams)} instances)")
    refused = {}
    for x in ctx.rejected:
        refused[f"{x['status']} {x['code']}"] = refused.get(f"{x['status']} {x['code']}", 0) + 1
    log(f"definitive refusals (moved nothing): {refused or 'none'}")


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in ("drive", "reconcile"):
        print(__doc__)
        return 2
    ctx = Ctx(sys.argv[2])
    try:
        if sys.argv[1] == "drive":
            for scenario in SCENARIOS:
                print(f"- {scenario.__name__}: {scenario.__doc__.strip().splitlines()[0]}", flush=True)
                scenario(ctx)
            ctx.save()
        else:
            ctx.load()
            reconcile(ctx)
    except CheckFailed as e:
        print(f"FAILED: {e}", file=sys.stderr, flush=True)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
