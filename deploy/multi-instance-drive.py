#!/usr/bin/env python3
"""API driver for deploy/multi-instance-test.sh (Python standard library only).

    multi-instance-drive.py drive      STATE_DIR GROUP   run SCENARIOS[GROUP] (cage, then games)
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

Adding a scenario. A scenario is a function `scenario_x(ctx)` listed in a
SCENARIOS group. It moves money only through `ctx.post_money(...)` (or
records what it caused with `ctx.acknowledge(...)`), so that reconcile knows
each wallet's expected movements. Game rounds acknowledge each keyed player
request (replayed by reconcile) and, once settled, the round's transfers as
read from the auditor's recall after checking them against those requests
(an acknowledgement without a key, not replayed). Groups run as separate
`drive` invocations, sharing STATE_DIR/drive-state.json, so the shell script
can restart a killed instance in between.
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
        self.approver_password = env["approver_password"]
        self.lock = threading.Lock()
        self.tokens = {}
        self.credentials = {}
        self.players = []  # [{id, username}]
        self.acks = []  # acknowledged requests, see acknowledge()
        self.rejected = []  # definitive refusals: {key, status, code}
        self.stats = {"requests": 0, "attempts": 0, "retried": 0, "committed_before_retry": 0}
        self.killed = []  # names of instances this run killed
        self.upstreams = []  # (path, port) of answered game requests
        self.transcripts = []  # shuffle transcripts of settled rounds

    # ---- persistence between `drive` and `reconcile`
    def save(self):
        path = os.path.join(self.state_dir, "drive-state.json")
        with open(path, "w") as f:
            json.dump({"credentials": self.credentials, "players": self.players, "acks": self.acks,
                       "rejected": self.rejected, "stats": self.stats, "killed": self.killed,
                       "transcripts": self.transcripts}, f)

    def load(self):
        with open(os.path.join(self.state_dir, "drive-state.json")) as f:
            s = json.load(f)
        self.credentials, self.players, self.acks = s["credentials"], s["players"], s["acks"]
        self.rejected, self.stats, self.killed = s["rejected"], s["stats"], s["killed"]
        self.transcripts = s.get("transcripts", [])
        names = self.credentials.get("_names", {})
        self.cashier, self.auditor, self.dealer = names.get("cashier"), names.get("auditor"), names.get("dealer")

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
    ctx.login("approver", ctx.approver_password)
    suffix = uuid.uuid4().hex[:6]
    for role in ("cashier", "auditor"):
        name, password = f"{role}-{suffix}", uuid.uuid4().hex
        r = http("POST", ctx.lb + "/api/v1/users", {"username": name, "role": role, "password": password},
                 ctx.token("admin"))
        if role == "auditor":
            # An auditor's account waits for a second pit boss.
            check(r.status == 202, f"propose {role}: {r.status} {r.body}")
            r = approve(ctx, r.json())
        check(r.status in (200, 201), f"create {role}: {r.status} {r.body}")
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


# ----------------------------------------------------------- game scenarios
#
# Tables and rounds. Player actions (seats, side bets, copa decisions, Lobo
# starts and plays) carry Idempotency-Keys and are retried like money: each
# 2xx is recorded with acknowledge() and replayed by reconcile. Dealer
# actions (create, close, deal, settle) have no key: after a lost answer the
# driver reads the round back to learn whether the attempt committed. Once a
# round is settled, its transfers (from the auditor's recall) are checked
# against what each acknowledged request said (stakes, copas, payouts) and
# recorded as one non-replayable acknowledgement, so reconcile accounts for
# every wallet movement a round caused.

PC_CONFIG = {"game": "prima_carta", "variant": "classic", "unit": "1.00", "seat_fee": "0.50", "corte": True,
             "cobre": "carry", "min_bet": "1.00", "max_bet": "100.00", "max_exposure_per_round": "500.00",
             "strategy_advice": True}
LOBO_CONFIG = {"game": "lobo", "mode": "easy", "min_unit": "1.00", "max_unit": "10.00",
               "loss_cap_points": 40, "hints": True}
SUITS = ("crowns", "locks", "fruit", "swords", "cups")
PC_ROUNDS, PC_ROUNDS_MAX = 4, 8   # more rounds (bounded) until the relay is proven
LOBO_ROUNDS_PER_PLAYER = 2
# Players at the one Lobo table playing at the same time. 1 (default): one
# after another. MI_LOBO_CONCURRENCY=3 can reproduce (timing-dependent) a deadlock in
# src/rounds/lobo.rs (start_round locks the table row FOR UPDATE, then the
# ledger head; a settling play holds the ledger head, then updates its round a
# second time, whose foreign-key check needs FOR KEY SHARE on that table row):
# PostgreSQL aborts one with "deadlock detected", answered 500.
LOBO_CONCURRENCY = int(os.environ.get("MI_LOBO_CONCURRENCY", "1"))
SSE_WAIT = 15.0


def port_of(url_or_addr):
    return (url_or_addr or "?").rsplit(":", 1)[-1]


def approve(ctx, proposal):
    """The second pit boss approves a proposal; returns the answer (the applied proposal)."""
    return http("POST", ctx.lb + f"/api/v1/proposals/{proposal['id']}/approve", {}, ctx.token("approver"))


def call(ctx, method, path, user, body=None, key=None):
    """A request through the load balancer, retried (same key) while the answer
    is not definitive. Returns the final Response."""
    headers = {"Idempotency-Key": key} if key else {}
    for attempt in range(1, MAX_ATTEMPTS + 1):
        r = http(method, ctx.lb + path, body, ctx.token(user), headers)
        if r.status not in TRANSIENT:
            break
        time.sleep(min(0.1 * 2 ** attempt, 2.0))
    check(r.status not in TRANSIENT, f"{method} {path}: no definitive answer ({r.status} {r.error or r.body[:200]})")
    if 200 <= r.status < 300:
        ctx.upstreams.append((path, port_of(r.upstream)))
    return r


def keyed(ctx, path, body, user, want):
    """A player's keyed POST; a 2xx is acknowledged (replayed by reconcile)."""
    key = f"mi-{uuid.uuid4()}"
    r = call(ctx, "POST", path, user, body, key)
    check(r.status == want, f"POST {path} as {user}: {r.status} {r.body[:300]}")
    ctx.acknowledge(path, body, user, key, r, {}, [])
    return r.json()


def fund(ctx, players, amount):
    for p in players:
        r = ctx.post_money("/api/v1/cage/deposits", {"player_id": p["id"], "amount": amount}, ctx.cashier)
        check(r.status == 201, f"deposit for {p['username']}: {r.status} {r.body}")


def new_players(ctx, n, tag):
    made = []
    for i in range(n):
        name, password = f"{tag}{i}-{uuid.uuid4().hex[:6]}", uuid.uuid4().hex
        r = call(ctx, "POST", "/api/v1/users", ctx.cashier, {"username": name, "role": "player", "password": password})
        check(r.status == 201, f"create player: {r.status} {r.body}")
        ctx.login(name, password)
        p = {"id": r.json()["id"], "username": name}
        ctx.players.append(p)
        made.append(p)
    return made


def dealer_step(ctx, rid, action, done):
    """POSTs a dealer action on a round (no key). After a lost answer, or a
    409 because an earlier attempt did commit, the round's status tells."""
    path = f"/api/v1/rounds/{rid}/{action}"
    for _ in range(MAX_ATTEMPTS):
        r = http("POST", ctx.lb + path, None, ctx.token(ctx.dealer))
        if r.status == 200:
            ctx.upstreams.append((path, port_of(r.upstream)))
            return r.json()
        if r.status in TRANSIENT or r.status == 409:
            view = call(ctx, "GET", f"/api/v1/rounds/{rid}", ctx.dealer).json()
            if view["status"] in done:
                ctx.stats["dealer_steps_committed_before_retry"] = ctx.stats.get("dealer_steps_committed_before_retry", 0) + 1
                return view
            check(r.status in TRANSIENT, f"{action}: {r.status} {r.body[:300]}")
            time.sleep(0.3)
            continue
        raise CheckFailed(f"{action}: {r.status} {r.body[:300]}")
    raise CheckFailed(f"{action}: no definitive answer")


class SseListener:
    """Follows GET /api/v1/tables/{id}/events on ONE instance, directly (not
    through nginx), recording every event with the time it arrived."""

    def __init__(self, inst, table_id, token):
        self.inst, self.table_id, self.token = inst, table_id, token
        self.events = []   # [(name, data)]
        self.cond = threading.Condition()
        self.error = None
        self.sock = None
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def run(self):
        import http.client
        host, port = self.inst["url"].split("//")[1].split(":")
        try:
            conn = http.client.HTTPConnection(host, int(port), timeout=120)
            conn.request("GET", f"/api/v1/tables/{self.table_id}/events",
                         headers={"Authorization": f"Bearer {self.token}", "Accept": "text/event-stream"})
            self.sock = conn.sock
            resp = conn.getresponse()
            if resp.status != 200:
                raise RuntimeError(f"SSE status {resp.status}")
            name, data = None, []
            for _ in range(1_000_000):  # bounded
                line = resp.readline()
                if not line:
                    break
                line = line.decode().rstrip("\r\n")
                if line.startswith(":"):
                    continue
                if line == "":
                    if name or data:
                        with self.cond:
                            self.events.append((name or "message", "\n".join(data)))
                            self.cond.notify_all()
                    name, data = None, []
                elif line.startswith("event:"):
                    name = line[6:].strip()
                elif line.startswith("data:"):
                    data.append(line[5:].lstrip())
        except Exception as e:  # closed by stop(), or a failure the waits report
            self.error = f"{type(e).__name__}: {e}"
        with self.cond:
            self.cond.notify_all()

    def wait_for(self, predicate, what, timeout=SSE_WAIT):
        deadline = time.monotonic() + timeout
        with self.cond:
            while True:
                for name, data in self.events:
                    if predicate(name, data):
                        return
                left = deadline - time.monotonic()
                check(left > 0 and self.thread.is_alive(),
                      f"SSE on {self.inst['name']}: no {what} within {timeout:.0f}s "
                      f"({len(self.events)} events; error {self.error})")
                self.cond.wait(min(left, 0.5))

    def stop(self):
        try:
            self.sock.shutdown(socket.SHUT_RDWR)
        except Exception:
            pass
        self.thread.join(5)


def round_event(status, rid):
    def match(name, data):
        if name != "round":
            return False
        v = json.loads(data)
        return v.get("id") == rid and v.get("status") == status
    return match


def scenario_tables(ctx):
    """Tables: the pit boss creates and opens a Prima Carta and a Lobo table and assigns a dealer.

    Through the load balancer; every instance then reads both tables as open."""
    suffix = uuid.uuid4().hex[:6]
    ctx.dealer = f"dealer-{suffix}"
    password = uuid.uuid4().hex
    r = call(ctx, "POST", "/api/v1/users", "admin", {"username": ctx.dealer, "role": "dealer", "password": password})
    check(r.status == 201, f"create dealer: {r.status} {r.body}")
    dealer_id = r.json()["id"]
    ctx.login(ctx.dealer, password)
    ctx.credentials["_names"]["dealer"] = ctx.dealer
    ids = {}
    for name, config in (("pc", PC_CONFIG), ("lobo", LOBO_CONFIG)):
        r = call(ctx, "POST", "/api/v1/tables", "admin", {"name": f"mi-{name}-{suffix}", "config": config})
        check(r.status == 202, f"propose {name} table: {r.status} {r.body}")
        r = approve(ctx, r.json())
        check(r.status == 200, f"create {name} table: {r.status} {r.body}")
        ids[name] = r.json()["result"]["id"]
        r = call(ctx, "PUT", f"/api/v1/tables/{ids[name]}/dealers/{dealer_id}", "admin")
        check(r.status == 200, f"assign dealer: {r.status} {r.body}")
        r = call(ctx, "POST", f"/api/v1/tables/{ids[name]}/open", "admin")
        check(r.status == 200, f"open {name} table: {r.status} {r.body}")
    ctx.credentials["_tables"] = ids
    for inst in ctx.instances:
        for name, tid in ids.items():
            r = http("GET", f"{inst['url']}/api/v1/tables/{tid}", token=ctx.token(ctx.dealer))
            check(r.status == 200 and r.json()["status"] == "open" and dealer_id in r.json()["dealer_ids"],
                  f"{inst['name']} table {name}: {r.status} {r.body[:200]}")
    log(f"dealer {ctx.dealer} created; Prima Carta table {ids['pc'][:8]} and Lobo table {ids['lobo'][:8]} "
        f"created, dealer assigned, opened; all {len(ctx.instances)} instances read them open")


def check_round_money(ctx, rid, recall, seat_of, bets, copas):
    """Compares a settled round's transfers with what each request acknowledged;
    returns {player_id: signed wallet change}."""
    unit, fee = Decimal(PC_CONFIG["unit"]), Decimal(PC_CONFIG["seat_fee"])
    deltas, by_kind = {}, {}
    for t in recall["transfers"]:
        check(t["round_id"] == rid, f"recall of {rid} lists a transfer of round {t['round_id']}")
        amount = Decimal(t["amount"])
        for account, sign in ((t["debit_account"], -1), (t["credit_account"], 1)):
            if account.startswith("wallet:"):
                player = account[len("wallet:"):]
                deltas[player] = deltas.get(player, Decimal(0)) + sign * amount
                key = (player, t["kind"], t.get("bet_id"))
                by_kind[key] = by_kind.get(key, Decimal(0)) + sign * amount
    def total(player, kinds, bet_id=None):
        return sum((v for (p, k, b), v in by_kind.items() if p == player and k in kinds and b == bet_id), Decimal(0))
    for player in seat_of:  # spiga + seat fee + corte held, paid when seated
        got = total(player, ("spiga", "seat_fee", "corte_held"))
        check(got == -(unit + fee + unit), f"round {rid[:8]}: seat cost of {player[:8]} is {-got}, want {unit + fee + unit}")
        check(total(player, ("copa",)) == -sum(copas.get(player, []), Decimal(0)),
              f"round {rid[:8]}: copas of {player[:8]} differ from the acknowledged decisions")
    settled_bets = {b["id"]: b for b in recall["bets"]}
    for bet in bets:
        check(total(bet["player_id"], ("bet_stake",), bet["id"]) == -Decimal(bet["amount"]),
              f"bet {bet['id'][:8]}: stake transfer differs from the acknowledged {bet['amount']}")
        b = settled_bets[bet["id"]]
        check(b["status"] != "open", f"bet {bet['id'][:8]} still open after settlement")
        back = total(bet["player_id"], ("bet_payout", "bet_returned", "bet_refund"), bet["id"])
        check(back == Decimal(b["returned"]), f"bet {bet['id'][:8]}: {back} paid back, the bet says {b['returned']}")
    result = recall["round"]["result"]
    winner = result["winner_player_id"]
    check(total(winner, ("pot_payout", "cobre_carried")) == Decimal(result["winner_paid"]),
          f"round {rid[:8]}: winner received {total(winner, ('pot_payout', 'cobre_carried'))}, result says {result['winner_paid']}")
    return {p: str(d) for p, d in deltas.items()}


def play_prima_round(ctx, n, table_id, players, sse, kill=None):
    """One complete round; `kill` (an instance) is SIGKILLed once the round is dealt."""
    rng = random.Random(4242 + n)
    r = call(ctx, "POST", f"/api/v1/tables/{table_id}/rounds", ctx.dealer)
    check(r.status == 201, f"create round: {r.status} {r.body[:300]}")
    view = r.json()
    rid = view["id"]
    handled = {"create": port_of(r.upstream)}
    suits = rng.sample(SUITS, len(players))
    seat_of = {}
    for p, suit in zip(players, suits):
        body = {"suit": suit, "client_seed": f"{p['username']}-{n}"}
        keyed(ctx, f"/api/v1/rounds/{rid}/seats", body, p["username"], 201)
        seat_of[p["id"]] = suit
    bets = []
    kinds = [("prima", {"suit": rng.choice(SUITS)}), ("escucha", {"suit": rng.choice(SUITS)}),
             ("maximo", {"suit": rng.choice(SUITS)}), ("conto_medio", {}), ("conto_alto", {}),
             ("conto_bajo", {}), ("cartas", {"number": 13}), ("comeco", {})]
    for i, p in enumerate(players):
        for kind, sel in rng.sample(kinds, 3):
            body = dict(kind=kind, amount=f"{rng.randint(1, 5)}.00", **sel)
            bets.append(keyed(ctx, f"/api/v1/rounds/{rid}/bets", body, p["username"], 201))
    dealer_step(ctx, rid, "close", ("closed", "copa", "finished", "settled"))
    view = dealer_step(ctx, rid, "deal", ("copa", "finished", "settled"))
    handled["deal"] = ctx.upstreams[-1][1]
    by_id = {p["id"]: p for p in players}
    killed = None
    if kill is not None:
        os.kill(kill["pid"], signal.SIGKILL)
        ctx.killed.append(kill["name"])
        killed = kill
    copas = {}
    for _ in range(100):  # bounded: a round has at most a few dozen copa turns
        if view["status"] != "copa":
            break
        turn = view["copa_turn"]
        player = by_id[turn["player_id"]]["username"]
        advice = call(ctx, "GET", f"/api/v1/rounds/{rid}/advice", player)
        check(advice.status == 200, f"advice: {advice.status} {advice.body[:200]}")
        decision = advice.json()["advice"] if rng.random() < 0.8 else rng.choice(("pay", "fold"))
        view = keyed(ctx, f"/api/v1/rounds/{rid}/copa", {"decision": decision}, player, 200)
        if decision == "pay":
            copas.setdefault(turn["player_id"], []).append(Decimal(turn["copa"]))
    # `in_play`: the copa left two or more players and the dealer deals the repasso at settlement.
    check(view["status"] in ("finished", "in_play"), f"round {rid[:8]} ended in {view['status']}")
    view = dealer_step(ctx, rid, "settle", ("settled",))
    handled["settle"] = ctx.upstreams[-1][1]
    check(view["status"] == "settled", f"settle gave {view['status']}")
    recall = call(ctx, "GET", f"/api/v1/rounds/{rid}/recall", ctx.auditor)
    check(recall.status == 200, f"recall: {recall.status} {recall.body[:200]}")
    recall = recall.json()
    deltas = check_round_money(ctx, rid, recall, seat_of, bets, copas)
    ctx.acknowledge(f"/api/v1/rounds/{rid}/recall", None, ctx.auditor, None, Response(200, "", {}),
                    deltas, recall["transfers"])
    ctx.transcripts.append(recall["transcript"])
    # The instance-1 watcher: every card dealt and the settled round, whichever instance handled them.
    sse.wait_for(round_event("settled", rid), f"settled round event for round {view['number']}")
    return {"id": rid, "number": view["number"], "handled": handled, "killed": killed, "copas": sum(len(v) for v in copas.values()),
            "bets": len(bets), "winner": recall["round"]["result"]["result"].get("winner"), "events": len(recall["round"]["events"]),
            "game_events": recall["round"]["events"], "transfers": len(recall["transfers"])}


def scenario_prima_carta_rounds(ctx):
    """Prima Carta: complete rounds with 3 players and side bets via nginx; SSE on instance-1 directly.

    An instance other than the watcher's is SIGKILLed while a round is in its
    copa turns; the round continues through the survivors. The watcher must see
    each round's cards and its settlement, also when other instances handled them."""
    table_id = ctx.credentials["_tables"]["pc"]
    players = new_players(ctx, 3, "pc")
    fund(ctx, players, "300.00")
    watcher, victim = ctx.instances[0], ctx.instances[2]
    sse = SseListener(watcher, table_id, ctx.token(ctx.auditor))
    sse.wait_for(lambda n, d: n == "state", "initial state event")
    watcher_port = port_of(watcher["url"])
    rounds = []
    try:
        for n in range(PC_ROUNDS_MAX):
            # Enough once some round was dealt, and some settled, by another instance than the watcher's.
            if (n >= PC_ROUNDS and any(r["handled"]["settle"] != watcher_port for r in rounds)
                    and any(r["handled"]["deal"] != watcher_port for r in rounds)):
                break
            rounds.append(play_prima_round(ctx, n, table_id, players, sse, kill=victim if n == 1 else None))
    finally:
        time.sleep(0.5)
        sse.stop()
    by_port = {port_of(i["url"]): i["name"] for i in ctx.instances}
    events = sse.events
    names = {}
    for nm, _ in events:
        names[nm] = names.get(nm, 0) + 1
    card_events = [json.loads(d) for nm, d in events if nm == "card_dealt"]
    check(card_events, "the watcher saw no card_dealt event")
    for r in rounds:
        check(any(nm == "round" and json.loads(d)["id"] == r["id"] and json.loads(d)["status"] == "settled" for nm, d in events),
              f"no settled event for round {r['number']}")
    remote = [r for r in rounds if r["handled"]["settle"] != watcher_port]
    check(remote, f"every settle was handled by {watcher['name']}: the relay is not exercised")
    remote_deal = [r for r in rounds if r["handled"]["deal"] != watcher_port]
    check(remote_deal, f"every deal was handled by {watcher['name']}")
    # The game events the watcher got, in order, are exactly the rounds' events
    # (as recalled), each once: none lost or repeated by the relay.
    got = [json.loads(d) for nm, d in events if nm not in ("state", "round", "table", "resync")]
    want = [e for r in rounds for e in r["game_events"]]
    check(not any(nm == "resync" for nm, _ in events), "the watcher was told to resync")
    if got != want:
        first = next((i for i, (a, b) in enumerate(zip(got, want)) if a != b), min(len(got), len(want)))
        raise CheckFailed(f"watcher's game events differ from the recalls: {len(got)} vs {len(want)}, first difference "
                          f"at {first}: got {got[first] if first < len(got) else None}, want {want[first] if first < len(want) else None}")
    handled = {}
    for _, port in ctx.upstreams:
        handled[by_port.get(port, port)] = handled.get(by_port.get(port, port), 0) + 1
    for r in rounds:
        log(f"round {r['number']} ({r['id'][:8]}): 3 seats, {r['bets']} side bets, {r['copas']} copas paid, "
            f"winner {r['winner']}, {r['transfers']} transfers; dealt on {by_port[r['handled']['deal']]}, "
            f"settled on {by_port[r['handled']['settle']]}" + (f"; {r['killed']['name']} SIGKILLed after the deal"
                                                                 if r["killed"] else ""))
    log(f"SSE watcher on {watcher['name']} (direct, not via nginx) got {len(events)} events {dict(sorted(names.items()))}; "
        f"a settled event for each of the {len(rounds)} rounds, {len(remote)} of them settled by another instance "
        f"and relayed over LISTEN/NOTIFY, {len(remote_deal)} dealt elsewhere")
    log(f"requests answered per instance so far in the game phase: {dict(sorted(handled.items()))}")


def scenario_lobo_rounds(ctx):
    """Lobo: rounds against the house played to the end (legal plays from the view, or a fold).

    Three players through the load balancer (one instance is still down);
    each round's escrow, and the wallet's change against the round's result."""
    table_id = ctx.credentials["_tables"]["lobo"]
    players = new_players(ctx, 3, "lobo")
    fund(ctx, players, "300.00")
    cap = LOBO_CONFIG["loss_cap_points"]
    results = []

    def play(p, n):
        rng = random.Random(f"{p['id']}-{n}")
        unit = Decimal(rng.choice(("1.00", "2.00", "2.50")))
        view = keyed(ctx, f"/api/v1/tables/{table_id}/lobo-rounds", {"unit": str(unit), "client_seed": f"{p['username']}-{n}"},
                     p["username"], 201)
        rid = view["id"]
        fold_at = rng.choice((0, 3, 1000))
        for _ in range(200):  # bounded; a Lobo round has far fewer plays
            if view["status"] != "in_play":
                break
            legal = view["table"]["legal_plays"]
            check(legal, f"Lobo round {rid[:8]} in play with no legal play")
            if view["plays_made"] >= fold_at or len(legal) == 1:
                view = keyed(ctx, f"/api/v1/lobo-rounds/{rid}/fold", {"expected_plays": view["plays_made"]}, p["username"], 200)
            else:
                choice = rng.choice([x for x in legal if x["kind"] != "fold"])
                body = dict(choice, expected_plays=view["plays_made"])
                view = keyed(ctx, f"/api/v1/lobo-rounds/{rid}/plays", body, p["username"], 200)
        check(view["status"] == "settled", f"Lobo round {rid[:8]} ended in {view['status']}")
        recall = call(ctx, "GET", f"/api/v1/lobo-rounds/{rid}/recall", ctx.auditor)
        check(recall.status == 200, f"Lobo recall: {recall.status} {recall.body[:200]}")
        recall = recall.json()
        check(recall["verification"]["passed"] is True, f"server verification of {rid[:8]}: {recall['verification']}")
        # The recall's transcript names the player by a pseudonym; the ledger's own
        # transfers of the round, with their ids, are the wallet's.
        history = call(ctx, "GET", f"/api/v1/wallets/{p['id']}/transactions?limit=500", ctx.auditor)
        check(history.status == 200, f"wallet history: {history.status} {history.body[:200]}")
        transfers = [t for t in history.json() if t.get("round_id") == rid]
        delta, escrow = Decimal(0), Decimal(0)
        wallet = f"wallet:{p['id']}"
        for t in transfers:
            a = Decimal(t["amount"])
            if t["credit_account"] == wallet:
                delta += a
            if t["debit_account"] == wallet:
                delta -= a
                if t["kind"] == "lobo_escrow":
                    escrow += a
        result = recall["result"]
        check(escrow == unit * cap, f"Lobo {rid[:8]}: escrow {escrow}, want {unit * cap}")
        check(delta == Decimal(result["player_net"]), f"Lobo {rid[:8]}: wallet moved {delta}, result says {result['player_net']}")
        ctx.acknowledge(f"/api/v1/lobo-rounds/{rid}/recall", None, ctx.auditor, None, Response(200, "", {}),
                        {p["id"]: str(delta)}, transfers)
        with ctx.lock:
            ctx.transcripts.append(recall["transcript"])
            results.append((p["username"], rid, len(recall["plays"]), result["reason"], result["player_net"]))

    def player_rounds(p):
        for n in range(LOBO_ROUNDS_PER_PLAYER):
            play(p, n)

    with concurrent.futures.ThreadPoolExecutor(max(1, LOBO_CONCURRENCY)) as pool:
        for f in [pool.submit(player_rounds, p) for p in players]:
            f.result()
    reasons = {}
    for _, _, _, reason, _ in results:
        reasons[reason] = reasons.get(reason, 0) + 1
    log(f"{len(results)} Lobo rounds by {len(players)} players ({LOBO_CONCURRENCY} at a time), settled: {reasons}; "
        f"plays per round {[x[2] for x in results]}; escrow = unit x {cap}; wallet change = player_net for each")


def scenario_transcripts(ctx):
    """Shuffle transcripts: every settled round's recall verifies with docs/verify/verify_round.py."""
    path = os.path.join(ctx.state_dir, "transcripts.json")
    with open(path, "w") as f:
        json.dump(ctx.transcripts, f)
    script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "docs", "verify", "verify_round.py")
    import subprocess
    out = subprocess.run([sys.executable, script, path], capture_output=True, text=True, timeout=600)
    check(out.returncode == 0, f"verify_round.py exit {out.returncode}: {out.stdout[-800:]} {out.stderr[-800:]}")
    games = {}
    for t in ctx.transcripts:
        games[t.get("game", "?")] = games.get(t.get("game", "?"), 0) + 1
    log(f"docs/verify/verify_round.py: {len(ctx.transcripts)} transcripts {games} verify (exit 0)")


# Scenarios run in this order, by group: `cage` (accounts and money, with an
# instance SIGKILLed under load), then, after the shell script restarts the
# killed instance, `games` (tables, rounds, SSE across instances, a second kill).
SCENARIOS = {
    "cage": [
        scenario_accounts,
        scenario_cage_basics,
        scenario_concurrent_twins,
        scenario_lost_answer,
        scenario_load_with_instance_kill,
    ],
    "games": [
        scenario_tables,
        scenario_prima_carta_rounds,
        scenario_lobo_rounds,
        scenario_transcripts,
    ],
}

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
    cage_expected = Decimal(0)
    for a in ctx.acks:
        if a["path"].startswith("/api/v1/cage/"):
            cage_expected -= sum((Decimal(d) for d in a["wallet_deltas"].values()), Decimal(0))
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
    check(Decimal(cage["balance"]) == cage_expected, f"cage {cage['balance']} vs acknowledged cage movements {cage_expected}")
    rounds = sum(1 for a in ctx.acks if a["key"] is None)
    log(f"{len(ctx.players)} wallets equal their acknowledged movements: deposits, withdrawals and the "
        f"checked transfers of {rounds} settled rounds (sum {wallet_sum}); cage {cage['balance']} = minus net deposits")

    upstreams = {}
    replayable = [a for a in ctx.acks if a["key"] is not None]
    for a in replayable:
        r = http("POST", ctx.lb + a["path"], a["body"], ctx.token(a["as_user"]), {"Idempotency-Key": a["key"]})
        check((r.status, r.body) == (a["status"], a["response"]),
              f"replay of {a['key']} gave {r.status} {r.body[:200]}, first answer was {a['status']}")
        upstreams[r.upstream] = upstreams.get(r.upstream, 0) + 1
    r = http("GET", ctx.lb + "/api/v1/audit/ledger/verify", token=auditor, timeout=60)
    check(r.status == 200 and r.json()["head_seq"] == v["head_seq"], "replays moved money")
    log(f"replayed all {len(replayable)} acknowledged keyed requests (cage, seats, bets, copas, Lobo) with their keys: identical status and body, "
        f"ledger head unchanged at seq {v['head_seq']} (answered by {len(upstreams)} instances)")
    refused = {}
    for x in ctx.rejected:
        refused[f"{x['status']} {x['code']}"] = refused.get(f"{x['status']} {x['code']}", 0) + 1
    log(f"definitive refusals (moved nothing): {refused or 'none'}")


def main():
    if not ((len(sys.argv) == 4 and sys.argv[1] == "drive" and sys.argv[3] in SCENARIOS)
            or (len(sys.argv) == 3 and sys.argv[1] == "reconcile")):
        print(__doc__)
        return 2
    ctx = Ctx(sys.argv[2])
    try:
        if sys.argv[1] == "drive":
            if os.path.exists(os.path.join(ctx.state_dir, "drive-state.json")):
                ctx.load()
            for scenario in SCENARIOS[sys.argv[3]]:
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
