#!/usr/bin/env python3
"""Independent verifier for djego shuffle-v1 round transcripts.

Pure Python 3 standard library (hashlib, hmac, json); ChaCha20 is implemented
here from its definition. Usage:

    python3 verify_round.py transcript.json [more.json ...]
    python3 verify_round.py --json transcripts.json      # machine-readable output
    python3 verify_round.py --self-test                  # check this script itself

A file may hold one transcript (a JSON object) or a list of them. The checks,
their names and their order are those of djego's `cards::transcript::verify`
(see docs/shuffle.md, "How to verify"). Exit status 0 only if every transcript
verifies.
"""

import hashlib
import hmac
import json
import sys

ALGORITHM = "shuffle-v1"
GAMES = ("prima_carta", "lobo")
HEX_DIGITS = set("0123456789abcdefABCDEF")
MASK32 = 0xFFFFFFFF


# --- ChaCha20 (original construction: 64-bit block counter, 64-bit nonce) -----

def _rotl(v, n):
    return ((v << n) & MASK32) | (v >> (32 - n))


def _quarter(s, a, b, c, d):
    s[a] = (s[a] + s[b]) & MASK32; s[d] = _rotl(s[d] ^ s[a], 16)
    s[c] = (s[c] + s[d]) & MASK32; s[b] = _rotl(s[b] ^ s[c], 12)
    s[a] = (s[a] + s[b]) & MASK32; s[d] = _rotl(s[d] ^ s[a], 8)
    s[c] = (s[c] + s[d]) & MASK32; s[b] = _rotl(s[b] ^ s[c], 7)


def chacha20_block(key, counter, nonce=0):
    """The 16 output words of one ChaCha20 block (key: 32 bytes)."""
    state = [0x61707865, 0x3320646E, 0x79622D32, 0x6B206574]
    state += [int.from_bytes(key[i:i + 4], "little") for i in range(0, 32, 4)]
    state += [counter & MASK32, (counter >> 32) & MASK32, nonce & MASK32, (nonce >> 32) & MASK32]
    w = list(state)
    for _ in range(10):  # 20 rounds = 10 double rounds
        _quarter(w, 0, 4, 8, 12); _quarter(w, 1, 5, 9, 13)
        _quarter(w, 2, 6, 10, 14); _quarter(w, 3, 7, 11, 15)
        _quarter(w, 0, 5, 10, 15); _quarter(w, 1, 6, 11, 12)
        _quarter(w, 2, 7, 8, 13); _quarter(w, 3, 4, 9, 14)
    return [(w[i] + state[i]) & MASK32 for i in range(16)]


class Shuffler:
    """shuffle-v1's random source: ChaCha20 keystream words, counter 0, nonce 0."""

    def __init__(self, deck_seed):
        self.key = deck_seed
        self.counter = 0
        self.buffer = []

    def next_u32(self):
        if not self.buffer:
            self.buffer = chacha20_block(self.key, self.counter)
            self.counter += 1
        return self.buffer.pop(0)

    def uniform(self, n):
        threshold = (2**32 - n) % n
        while True:
            x = self.next_u32()
            if x >= threshold:
                return x % n

    def shuffle(self, items):
        for i in range(len(items) - 1, 0, -1):
            j = self.uniform(i + 1)
            items[i], items[j] = items[j], items[i]


# --- shuffle-v1 ----------------------------------------------------------------

def sha256_hex(data):
    return hashlib.sha256(data).hexdigest()


def combined_client_seed(seeds):
    ordered = sorted(s.encode("ascii") for s in seeds)
    return sha256_hex(b"\n".join(ordered))


def deck_seed(server_seed, game, round_id, client_seed):
    message = "djego/shuffle-v1/" + game + "/" + round_id + "/" + client_seed
    return hmac.new(server_seed, message.encode("utf-8"), hashlib.sha256).digest()


def ordered_deck(max_rank):
    return [suit * 10 + (rank - 1) for suit in range(5) for rank in range(1, max_rank + 1)]


def client_seed_problem(seed):
    """None if `seed` is a valid client seed, else why not."""
    if not isinstance(seed, str):
        return "not a string"
    for i, ch in enumerate(seed):
        if not (" " <= ch <= "~"):
            return "character %d is not printable ASCII" % i
    if len(seed) == 0:
        return "empty"
    if len(seed) > 64:
        return "longer than 64 characters"
    return None


def first_difference(a, b):
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return i
    return None if len(a) == len(b) else min(len(a), len(b))


def is_id_list(value):
    return isinstance(value, list) and all(isinstance(x, int) and not isinstance(x, bool) for x in value)


def verify(t):
    """The checks of one transcript: a list of (name, passed, first_mismatch, detail)."""
    checks = []

    def add(name, passed, detail, first=None):
        checks.append({"name": name, "passed": passed, "first_mismatch": first, "detail": detail})

    if not isinstance(t, dict):
        t = {}
    get = t.get

    algorithm = get("algorithm")
    add("algorithm", algorithm == ALGORITHM, repr(algorithm))

    game = get("game") if get("game") in GAMES else None
    add("game", game is not None, repr(get("game")))

    seed_hex = get("server_seed")
    server_seed = None
    if isinstance(seed_hex, str) and len(seed_hex) == 64 and set(seed_hex) <= HEX_DIGITS:
        server_seed = bytes.fromhex(seed_hex)
    add("server_seed", server_seed is not None, "64 hex digits" if server_seed else "not 64 hex digits")

    if server_seed is None:
        add("commitment", False, "not checked: the server seed is invalid")
    else:
        expected = sha256_hex(server_seed)
        claimed = get("commitment")
        ok = isinstance(claimed, str) and claimed.isascii() and claimed.lower() == expected
        add("commitment", ok, "sha256(server_seed) = " + expected)

    seeds = get("client_seeds", [])
    client_seeds = None
    if not isinstance(seeds, list):
        add("client_seeds", False, "not a list")
    else:
        bad = next(((i, p) for i, p in ((i, client_seed_problem(s)) for i, s in enumerate(seeds)) if p), None)
        if bad is not None:
            add("client_seeds", False, "client seed %d: %s" % bad, bad[0])
        elif game == "lobo" and len(seeds) > 1:
            add("client_seeds", False, "lobo takes at most one client seed", 1)
        else:
            add("client_seeds", True, "%d valid" % len(seeds))
            client_seeds = seeds

    expected_client_seed = None
    if game is not None and client_seeds is not None:
        if game == "prima_carta":
            expected_client_seed = combined_client_seed(client_seeds)
        else:
            expected_client_seed = client_seeds[0] if client_seeds else ""
    if expected_client_seed is None:
        add("client_seed", False, "not checked: the game or the client seeds are invalid")
    else:
        add("client_seed", get("client_seed") == expected_client_seed, repr(expected_client_seed))

    deck = get("deck")
    deck = deck if is_id_list(deck) else None
    round_id = get("round_id")
    shuffler = None
    max_rank = None
    if game == "prima_carta":
        max_rank = 10
    elif game == "lobo" and deck is not None:
        max_rank = {50: 10, 45: 9, 40: 8}.get(len(deck))
    if server_seed is not None and expected_client_seed is not None and max_rank is not None \
            and deck is not None and isinstance(round_id, str):
        shuffler = Shuffler(deck_seed(server_seed, game, round_id, expected_client_seed))
        expected = ordered_deck(max_rank)
        shuffler.shuffle(expected)
        diff = first_difference(expected, deck)
        add("deck", diff is None, "%d cards" % len(expected), diff)
    else:
        add("deck", False, "not checked: an input above is invalid")

    reshuffles = get("reshuffles", [])
    if not isinstance(reshuffles, list):
        reshuffles = [None]
    for k, r in enumerate(reshuffles):
        name = "reshuffle[%d]" % k
        before = r.get("before") if isinstance(r, dict) else None
        after = r.get("after") if isinstance(r, dict) else None
        if shuffler is None or not is_id_list(before) or not is_id_list(after):
            add(name, False, "not checked")
            if shuffler is not None and is_id_list(before):
                shuffler.shuffle(list(before))  # keep the stream where djego's verifier has it
            continue
        expected = list(before)
        shuffler.shuffle(expected)
        seen = set()
        bad = None
        for i, card in enumerate(before):
            in_mode = 0 <= card < 50 and card % 10 + 1 <= max_rank
            if not in_mode or card in seen:
                bad = i
                break
            seen.add(card)
        if bad is not None:
            add(name, False, "before[%d] is not a card of this deck or is repeated" % bad)
        else:
            diff = first_difference(expected, after)
            add(name, diff is None, "%d cards" % len(expected), diff)

    return {"passed": all(c["passed"] for c in checks), "checks": checks}


class _Words(Shuffler):
    """A Shuffler reading a fixed list of words, to test uniform's rejection rule."""

    def __init__(self, words):
        self.words = list(words)

    def next_u32(self):
        return self.words.pop(0)


def self_test():
    """Published ChaCha20 vectors, the rejection rule, and djego's fixed vectors."""
    def stream_hex(key, counter):
        return b"".join(w.to_bytes(4, "little") for w in chacha20_block(key, counter)).hex()
    # RFC 7539 / 8439 A.1 test vectors #1 and #2 (zero key and nonce, counters 0 and 1).
    assert stream_hex(bytes(32), 0).startswith("76b8e0ada0f13d90405d6ae55386bd28")
    assert stream_hex(bytes(32), 1).startswith("9f07e7be5551387a98ba977c732d080d")
    # RFC 7539 2.3.2 in the 64-bit-counter layout: counter high word = nonce word 0.
    key = bytes(range(32))
    state_counter = 1 | (0x09000000 << 32)
    words = chacha20_block(key, state_counter, 0x4a000000)
    assert b"".join(w.to_bytes(4, "little") for w in words).hex().startswith("10f1e7e4d13b5915500fdd1fa32071c4")
    # uniform(3): t = 1, so a 0 is rejected; uniform(50): t = 46.
    assert _Words([0, 0, 5]).uniform(3) == 2
    w = _Words([45, 46, 7]); assert w.uniform(50) == 46 and w.words == [7]
    assert _Words([0]).uniform(1) == 0
    assert combined_client_seed([]) == sha256_hex(b"")
    assert combined_client_seed(["b", "a", "B"]) == sha256_hex(b"B\na\nb")
    import os
    vectors = os.path.join(os.path.dirname(os.path.abspath(__file__)), "test_vectors.json")
    for t in load(vectors):
        report = verify(t)
        assert report["passed"], report
    print("self-test passed")
    return 0


def load(path):
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    return data if isinstance(data, list) else [data]


def main(argv):
    if "--self-test" in argv:
        return self_test()
    as_json = "--json" in argv
    paths = [a for a in argv if a != "--json"]
    if not paths:
        print(__doc__)
        return 2
    reports = []
    for path in paths:
        try:
            transcripts = load(path)
        except (OSError, ValueError) as e:
            print("%s: cannot read a JSON transcript: %s" % (path, e), file=sys.stderr)
            return 2
        for t in transcripts:
            reports.append(verify(t))
    if as_json:
        print(json.dumps(reports))
    else:
        for n, report in enumerate(reports):
            print("transcript %d" % n)
            for c in report["checks"]:
                at = "" if c["first_mismatch"] is None else " (first mismatch at %d)" % c["first_mismatch"]
                print("  %s %s%s: %s" % ("PASS" if c["passed"] else "FAIL", c["name"], at, c["detail"]))
            print("  " + ("VERIFIED" if report["passed"] else "NOT VERIFIED"))
    return 0 if all(r["passed"] for r in reports) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
