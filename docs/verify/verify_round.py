#!/usr/bin/env python3
"""Independent verifier for djego round transcripts (docs/transcript.md).

Pure Python 3 standard library; ChaCha20 is implemented here from its
definition, and Prima Carta (every variant and the side-bet deal-out), the
side bets and Lobo are written from the rules in docs/, sharing no code with
djego. A version-2 transcript is replayed whole: the shuffle, the play, the
outcome, every bet's return and every ledger transfer, and every pay table is
certifiable: each bet's RTP, recomputed exactly (closed forms, and the published first-pass
distribution in first_pass_distribution.json beside this script), lies within the certified
bounds. A Fuerza bet's quote (its wins over 65,536 orders of the first pass's discard pile) is checked
statistically, against 4,000 orders drawn here; `djego verify round` redraws it exactly. A transcript
is read strictly (every field written, null only where the format allows, no unknown field, `players`
exactly P1, P2, ... in order of first appearance); a version-1 shuffle transcript gets the shuffle checks
only. A saved Lobo contest recall is checked
whole too: the seed against the commitment, the entrants' seeds combined, each
entrant's deck (the shuffle of round id `<contest id>/<n>` under the contest's
seeds) and three rounds replayed to their total, and the pot's transfers. A saved Peg Leg
recall is checked whole as well: the shuffle, the pass card by card (the key suit's count), the
final count, every bet's price and return and every transfer; of each quote, what follows from
its recorded probabilities (every multiplier, a simulated quote's bounds against Chernoff's),
the probabilities themselves taken on trust (docs/transcript.md, "Peg Leg recalls"). A document
that carries a ledger proof (a transcript or recall fetched on its own) is also checked against the
casino's signed ledger: each transfer's Merkle path to the signed root, the round's booking counting
exactly these transfers, the head's Ed25519 signature (implemented here too); with `--public-key`
the proof is required and must be signed by that key (docs/transcript.md, "The ledger proof"). Usage:

    python3 verify_round.py round.json [more.json ...]
    python3 verify_round.py --json rounds.jsonl          # machine-readable output
    python3 verify_round.py --public-key HEX round.json   # require a ledger proof signed by this key
    python3 verify_round.py --self-test                  # check this script itself

A file may hold a transcript, a saved recall or verification response (its
`transcript` is read), a saved contest or Peg Leg recall, a JSON list of them, or JSON
Lines (the auditor's export). The checks, their names and their order are those of djego's
`djego verify round`. Exit status 0 only if every transcript verifies.
"""

import decimal
import functools
import hashlib
import hmac
import json
import math
import random
import sys
import unicodedata
from fractions import Fraction

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

    def copy(self):
        """An independent Shuffler at the same point of the stream."""
        other = Shuffler(self.key)
        other.counter = self.counter
        other.buffer = list(self.buffer)
        return other

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
    """The checks of one version-1 transcript: {"passed", "checks": [{name, passed, first_mismatch, detail}]}."""
    checks, _ = shuffle_checks(t)
    return {"passed": all(c["passed"] for c in checks), "checks": checks}


def shuffle_checks(t):
    """The version-1 checks of a shuffle transcript, and the RNG stream just after the deck
    shuffle (None unless the deck verified), for Jasper's reshuffle."""
    checks = []
    stream = None

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
        if diff is None:
            stream = shuffler.copy()
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

    return checks, stream


# --- Cards, suits, money ----------------------------------------------------------

SUITS = ("crowns", "locks", "fruit", "swords", "cups")
CARD_COUNT = 50


def suit_of(card):
    return card // 10


def rank_of(card):
    return card % 10 + 1


def is_int(value):
    return isinstance(value, int) and not isinstance(value, bool)


def parse_suit(name):
    """The suit index of a lower-case suit name, or None."""
    return SUITS.index(name) if isinstance(name, str) and name in SUITS else None


def parse_cents(text, positive=True):
    """Money as a decimal string ("12.50", "7", "1.5") -> whole cents, or None."""
    if not isinstance(text, str):
        return None
    whole, dot, frac = text.partition(".")
    if not whole.isdigit() or not whole.isascii() or (dot and not (frac.isdigit() and frac.isascii())):
        return None
    if len(frac) > 2 or (dot and not frac):
        return None
    cents = int(whole) * 100 + int((frac + "00")[:2])
    if positive and cents <= 0:
        return None
    return cents


def money(cents):
    return "%d.%02d" % (cents // 100, cents % 100)


def same(a, b):
    """JSON equality that does not take true for 1 nor 1.0 for 1."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if is_int(a) and is_int(b):
        return a == b
    if isinstance(a, list):
        return isinstance(b, list) and len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    return type(a) is type(b) and a == b


def show(value):
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return text if len(text) <= 200 else text[:197] + "..."


class RuleError(Exception):
    """A transcript breaks a rule of the game (or cannot be read): the detail of a failed check."""


# --- Prima Carta (docs/prima-carta.md) --------------------------------------------

class Layout:
    """Five stacks, the discard pile and the deck of the current pass, with the play-up rules."""

    def __init__(self, deck):
        self.deck = list(deck)
        self.next = 0
        self.count = [0] * 5
        self.top = [None] * 5
        self.foundation = [None] * 5
        self.discard = []              # index 0 is the card discarded first
        self.passes = 0
        self.promoted = 0
        self.prima = None
        self.foundation_order = []
        self.completion_order = []
        self.events = []

    def playable(self, card):
        """A card plays when its suit has no stack yet, or when its rank follows the top's
        (1 follows 10) and the stack is not complete."""
        s = suit_of(card)
        if self.top[s] is None:
            return True
        return self.count[s] < 10 and rank_of(self.top[s]) % 10 + 1 == rank_of(card)

    def promote(self, card):
        s = suit_of(card)
        if self.foundation[s] is None:
            self.foundation[s] = card
            self.foundation_order.append(s)
        self.top[s] = card
        self.count[s] += 1
        self.promoted += 1
        return self.count[s]

    def start_pass(self, reshuffle=None):
        """The first pass deals the deck; every later pass turns the discard pile over (the
        card discarded first is dealt first), shuffled first when `reshuffle` is given."""
        if self.passes > 0:
            deck = self.discard
            self.discard = []
            if reshuffle is not None:
                before = list(deck)
                reshuffle(deck)
                self.events.append({"type": "reshuffled", "before": before, "after": list(deck)})
            self.deck = deck
            self.next = 0
        self.passes += 1
        self.promoted = 0
        self.events.append({"type": "pass_started", "pass": self.passes, "deck_count": len(self.deck)})

    def completed(self, s, stop):
        """After a promotion: records a completed suit; True when the pass must stop there."""
        if self.count[s] == 10:
            self.completion_order.append(s)
            self.events.append({"type": "suit_completed", "pass": self.passes, "suit": SUITS[s]})
            return stop(s)
        return False

    def run_pass(self, stop):
        """Deals the rest of the pass; before each card and after the last, the top discard
        plays up while it can. Returns the suit that stopped the pass, or None at its end."""
        while True:
            while self.discard and self.playable(self.discard[-1]):
                card = self.discard.pop()
                n = self.promote(card)
                self.events.append({"type": "played_up", "pass": self.passes, "card": card, "stack_count": n})
                if self.completed(suit_of(card), stop):
                    return suit_of(card)
            if self.next >= len(self.deck):
                break
            card = self.deck[self.next]
            self.next += 1
            first_card = self.prima is None
            if first_card:
                self.prima = suit_of(card)
            if self.playable(card):
                to = "foundation" if self.count[suit_of(card)] == 0 else "stack"
                n = self.promote(card)
                self.events.append({"type": "dealt", "pass": self.passes, "card": card, "to": to, "stack_count": n})
                if first_card:
                    self.events.append({"type": "prima", "suit": SUITS[suit_of(card)]})
                if self.completed(suit_of(card), stop):
                    return suit_of(card)
            else:
                self.discard.append(card)
                self.events.append({"type": "dealt", "pass": self.passes, "card": card, "to": "discard",
                                    "stack_count": self.count[suit_of(card)]})
        self.events.append({"type": "pass_ended", "pass": self.passes, "promoted": self.promoted,
                            "discard_count": len(self.discard)})
        if self.promoted == 0 and len(self.completion_order) < 5:
            raise RuleError("pass %d promoted no card" % self.passes)
        return None

    def run_repassos(self, stop, reshuffle=None):
        """Passes after the current one until `stop` accepts a completed suit; only the first
        of them is reshuffled (Jasper)."""
        for _ in range(CARD_COUNT + 1):
            self.start_pass(reshuffle)
            reshuffle = None
            winner = self.run_pass(stop)
            if winner is not None:
                return winner
        raise RuleError("no suit completed after 50 repassos")


def copa_order(prima, seated):
    """From the Prima suit (or the next owned suit after it) round Crowns -> Cups."""
    return [(prima + i) % 5 for i in range(5) if (prima + i) % 5 in seated]


def play_prima_carta(deck, rules, seated, decisions, reshuffle):
    """The round replayed: (outcome without facts, events, reshuffles). `seated`: suit indexes;
    `decisions`: (suit, pay) in order; `reshuffle(cards)` shuffles in place (Jasper only)."""
    variant, corte, cobre_rule = rules["variant"], rules["corte"], rules["cobre"]
    layout = Layout(deck)
    layout.start_pass()
    early_end = variant != "cinco"
    stopped = layout.run_pass(lambda s: early_end and s in seated)
    prima = layout.prima
    if corte and prima in seated:
        layout.events.append({"type": "corte", "suit": SUITS[prima], "units": 1})
    folded = []
    copas = {}

    def refuse_more(given):
        if len(decisions) > given:
            raise RuleError("decision %d (%s): no copa decision is pending"
                            % (given, SUITS[decisions[given][0]]), given)

    if stopped is not None:
        refuse_more(0)
        winner, how = stopped, "first_pass_completion"
    elif variant == "cinco":
        refuse_more(0)
        winner = None
        for s in layout.foundation_order:  # tallest owned stack; ties to the earlier foundation
            if s in seated and (winner is None or layout.count[s] > layout.count[winner]):
                winner = s
        how = "cinco_tallest"
    else:
        order = copa_order(prima, seated)
        given = 0
        for suit in order:
            if len([s for s in order if s not in folded]) == 1:
                break
            if given >= len(decisions):
                raise RuleError("the round is not finished: %s's copa decision is missing" % SUITS[suit], given)
            d_suit, pay = decisions[given]
            if d_suit != suit:
                raise RuleError("decision %d: it is %s's turn, not %s's" % (given, SUITS[suit], SUITS[d_suit]), given)
            given += 1
            if pay:
                copas[suit] = layout.count[suit]
                layout.events.append({"type": "copa_paid", "suit": SUITS[suit], "units": layout.count[suit]})
            else:
                folded.append(suit)
                layout.events.append({"type": "folded", "suit": SUITS[suit]})
        refuse_more(given)
        live = [s for s in order if s not in folded]
        if len(live) == 1:
            winner, how = live[0], "last_live"
        else:
            winner = layout.run_repassos(lambda s: s in live, reshuffle if variant == "jasper" else None)
            how = "repasso_completion"

    pot = len(seated) + sum(copas.values())
    triggered_by = None
    for s in layout.completion_order:  # a folded suit completing before the winner
        if s == winner:
            break
        if s in folded:
            triggered_by = s
            break
    cobre = None
    if cobre_rule != "off" and triggered_by is not None:
        cobre = {"triggered_by": SUITS[triggered_by], "folded_suits": [SUITS[s] for s in folded],
                 "units": len(folded), "disposition": cobre_rule}
    layout.events.append({"type": "won", "suit": SUITS[winner], "how": how})
    if cobre is not None:
        layout.events.append(dict({"type": "cobre"}, **cobre))
    outcome = {
        "winner": SUITS[winner],
        "how": how,
        "prima": SUITS[prima],
        "passes": layout.passes,
        "folded": [SUITS[s] for s in folded],
        "pot_units": pot,
        "winner_takes_units": pot - (cobre["units"] if cobre else 0),
        "corte_payer": SUITS[prima] if corte and prima in seated else None,
        "cobre": cobre,
    }
    reshuffles = [{"before": e["before"], "after": e["after"]} for e in layout.events if e["type"] == "reshuffled"]
    return outcome, layout.events, reshuffles, copas


def deal_out(deck, variant, reshuffle):
    """The full deal-out the side bets settle on: the whole first pass, then (when no suit
    completed in it) passes until the first suit completes, Jasper reshuffling once.
    Returns (facts, events)."""
    layout = Layout(deck)
    layout.start_pass()
    layout.run_pass(lambda s: False)
    if len(layout.foundation_order) != 5:
        raise RuleError("a suit has no foundation after the first pass")
    counts = list(layout.count)
    facts = {
        "first_card": deck[0],
        "foundations": list(layout.foundation),
        "foundation_order": [SUITS[s] for s in layout.foundation_order],
        "first_pass_counts": {SUITS[s]: counts[s] for s in range(5)},
        "first_pass_count": sum(counts),
    }
    if layout.completion_order:
        first = layout.completion_order[0]
    else:
        first = layout.run_repassos(lambda s: True, reshuffle if variant == "jasper" else None)
    facts["first_to_complete"] = SUITS[first]
    return facts, layout.events


# --- Side bets (docs/side-bets.md) -------------------------------------------------

BET_KINDS = ("prima", "escucha", "maximo", "conto_alto", "conto_bajo", "conto_medio", "cartas", "comeco")
SUIT_BETS = ("prima", "escucha", "maximo")


def parse_pays(text):
    """A pay "a" of "a:1" as a Fraction: > 0, at most 100000, at most two decimal places."""
    if not isinstance(text, str):
        return None
    whole, dot, frac = text.partition(".")
    if not (whole.isdigit() and whole.isascii()) or (dot and not (frac.isdigit() and frac.isascii())):
        return None
    value = Fraction(text)
    if value <= 0 or value > 100000 or (value * 100).denominator != 1:
        return None
    return value


def check_pay_table(spec):
    """None if `spec` is a valid pay table (the checks of docs/side-bets.md), else why not."""
    if not isinstance(spec, dict):
        return "the spec is not an object"
    keys = ["name", "version", "prima", "escucha", "maximo", "conto_alto", "conto_bajo", "conto_medio",
            "cartas", "comeco"]
    if set(spec) != set(keys):
        return "the spec's fields are not " + ", ".join(keys)
    name = spec["name"]
    if not isinstance(name, str) or not 1 <= len(name) <= 64 or any(unicodedata.category(c) == "Cc" for c in name):
        return "name must be 1 to 64 printable characters"
    if not is_int(spec["version"]) or not 1 <= spec["version"] <= 2**32 - 1:
        return "version must be at least 1"
    for bet, fields in (("prima", ("pays", "ace_pays")), ("escucha", ("pays", "ace_pays")),
                        ("maximo", ("pays", "pair_tie"))):
        part = spec[bet]
        if not isinstance(part, dict) or set(part) != set(fields):
            return "%s must have %s" % (bet, " and ".join(fields))
        if parse_pays(part[fields[0]]) is None or (fields[1] == "ace_pays" and parse_pays(part["ace_pays"]) is None):
            return "%s: a pay is not > 0, at most 100000 with at most two decimals" % bet
    if spec["maximo"]["pair_tie"] not in ("lose", "push"):
        return "maximo.pair_tie must be lose or push"
    for bet in ("conto_alto", "conto_bajo", "conto_medio"):
        if parse_pays(spec[bet]) is None:
            return "%s: the pay is not > 0, at most 100000 with at most two decimals" % bet
    if not isinstance(spec["cartas"], list):
        return "cartas is not a list"
    numbers = set()
    for line in spec["cartas"]:
        if not isinstance(line, dict) or set(line) != {"number", "pays"} or not is_int(line["number"]):
            return "a cartas line is not {number, pays}"
        if not 10 <= line["number"] <= 20 or line["number"] in numbers:
            return "cartas number %d is outside 10..=20 or listed twice" % line["number"]
        numbers.add(line["number"])
        if parse_pays(line["pays"]) is None:
            return "cartas %d: bad pay" % line["number"]
    if not isinstance(spec["comeco"], list) or not spec["comeco"]:
        return "comeco needs at least one line"
    covered = set()
    for line in spec["comeco"]:
        if not isinstance(line, dict) or set(line) != {"n_from", "n_to", "pays"} \
                or not is_int(line["n_from"]) or not is_int(line["n_to"]):
            return "a comeco line is not {n_from, n_to, pays}"
        if line["n_from"] < 10 or line["n_to"] > 50 or line["n_from"] > line["n_to"]:
            return "comeco line %d..=%d must lie in 10..=50" % (line["n_from"], line["n_to"])
        span = set(range(line["n_from"], line["n_to"] + 1))
        if span & covered:
            return "comeco lines overlap at N = %d" % min(span & covered)
        covered |= span
        if parse_pays(line["pays"]) is None:
            return "comeco %d..=%d: bad pay" % (line["n_from"], line["n_to"])
    return None


SPEC_ORDER = (("name", None), ("version", None), ("prima", ("pays", "ace_pays")), ("escucha", ("pays", "ace_pays")),
              ("maximo", ("pays", "pair_tie")), ("conto_alto", None), ("conto_bajo", None), ("conto_medio", None),
              ("cartas", ("number", "pays")), ("comeco", ("n_from", "n_to", "pays")))
PAY_FIELDS = ("pays", "ace_pays", "conto_alto", "conto_bajo", "conto_medio")


def canonical_spec(spec):
    """A valid spec in its canonical form: keys in the order of docs/side-bets.md, each pay as its decimal
    (object key order carries no meaning in JSON; the fingerprint is defined over this form)."""
    def pay(text):
        return str(decimal.Decimal(text))
    out = {}
    for key, fields in SPEC_ORDER:
        value = spec[key]
        if fields is None:
            out[key] = pay(value) if key in PAY_FIELDS else value
        elif isinstance(value, list):
            out[key] = [{f: pay(line[f]) if f == "pays" else line[f] for f in fields} for line in value]
        else:
            out[key] = {f: pay(value[f]) if f in PAY_FIELDS else value[f] for f in fields}
    return out


def fingerprint(spec):
    """Hex SHA-256 of the spec's canonical form serialised compactly (no spaces)."""
    text = json.dumps(canonical_spec(spec), separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


# --- certified pay tables (docs/math.md, "What the verifiers check of a pay table") ---------------

DISTRIBUTION_FILE = "first_pass_distribution.json"
_DISTRIBUTION = []


def certification_data():
    """The published first-pass distribution of N and the certified RTP bounds, read once from
    first_pass_distribution.json beside this script."""
    if not _DISTRIBUTION:
        import os
        path = os.path.join(os.path.dirname(os.path.abspath(__file__)), DISTRIBUTION_FILE)
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
        counts = data["counts"]
        if not all(is_int(c) and c >= 0 for c in counts) or sum(counts) != data["deals"] or data["deals"] <= 0 \
                or len(counts) != data["n_max"] - data["n_min"] + 1:
            raise ValueError("%s is not a consistent distribution" % DISTRIBUTION_FILE)
        bounds = data["certified_rtp_bounds"]
        _DISTRIBUTION.append({"n_min": data["n_min"], "counts": counts, "deals": data["deals"],
                              "min": Fraction(bounds["min"]), "max": Fraction(bounds["max"]),
                              "min_text": bounds["min"], "max_text": bounds["max"]})
    return _DISTRIBUTION[0]


def maximo_counts():
    """Of the 10^5 equally likely foundation-rank vectors (the chosen suit first): (the chosen suit has
    the highest rank alone or tied with two or more others, it ties with exactly one other)."""
    win = pair = 0
    for top in range(10):  # ranks 0..9 stand for 1..10; the other four at most `top`, `top` of them below it
        pair += 4 * top ** 3
        win += (top + 1) ** 4 - 4 * top ** 3
    return win, pair


def bet_rtps(spec):
    """(name, exact RTP) of every bet of a valid pay table, in certificate order: closed forms for Prima,
    Escucha and Maximo, and sum(count * return at N) / deals over the published distribution otherwise."""
    data = certification_data()
    pays = lambda text: Fraction(text)

    def over_n(paying):
        total = Fraction(0)
        for i, count in enumerate(data["counts"]):
            a = paying(data["n_min"] + i)
            if a is not None:
                total += count * (1 + a)
        return total / data["deals"]

    def comeco(n):
        for line in spec["comeco"]:
            if line["n_from"] <= n <= line["n_to"]:
                return pays(line["pays"])
        return None

    win, pair = maximo_counts()
    maximo = Fraction(win, 100000) * (1 + pays(spec["maximo"]["pays"]))
    if spec["maximo"]["pair_tie"] == "push":
        maximo += Fraction(pair, 100000)
    rtps = [("prima", Fraction(9, 50) * (1 + pays(spec["prima"]["pays"]))
             + Fraction(1, 50) * (1 + pays(spec["prima"]["ace_pays"]))),
            ("escucha", Fraction(9, 50) * (1 + pays(spec["escucha"]["pays"]))
             + Fraction(1, 50) * (1 + pays(spec["escucha"]["ace_pays"]))),
            ("maximo", maximo),
            ("conto_alto", over_n(lambda n: pays(spec["conto_alto"]) if n >= 17 else None)),
            ("conto_bajo", over_n(lambda n: pays(spec["conto_bajo"]) if n <= 11 else None)),
            ("conto_medio", over_n(lambda n: pays(spec["conto_medio"]) if n in (14, 15) else None))]
    for line in sorted(spec["cartas"], key=lambda l: l["number"]):
        x, a = line["number"], pays(line["pays"])
        rtps.append(("cartas %d" % x, over_n(lambda n: a if n == x else None)))
    rtps.append(("comeco", over_n(comeco)))
    return rtps


def percent_text(value, places):
    """A Fraction in percent with `places` decimals, rounded half away from zero."""
    scaled = value * 100 * 10 ** places
    n = (abs(scaled.numerator) * 2 + scaled.denominator) // (2 * scaled.denominator)
    digits = str(n).rjust(places + 1, "0")
    return ("-" if scaled < 0 else "") + (digits[:-places] + "." + digits[-places:] if places else digits)


def uncertified_bet(spec):
    """None if every bet's RTP lies within the certified bounds, else why not, in plain words."""
    data = certification_data()
    for name, rtp in bet_rtps(spec):
        if not data["min"] <= rtp <= data["max"]:
            bound = lambda text: format((decimal.Decimal(text) * 100).normalize(), "f")
            return ("%s returns %s%% of the stakes (its RTP), outside the certified bounds %s%%\u2013%s%%"
                    % (name, percent_text(rtp, 3), bound(data["min_text"]), bound(data["max_text"])))
    return None


def settle_bet(kind, suit, number, spec, facts):
    """("won", pays) | ("lost", None) | ("pushed", None), on the deal-out's facts."""
    n = facts["first_pass_count"]
    pays = Fraction(0)
    if kind == "prima":
        card = facts["first_card"]
        pays = parse_pays(spec["prima"]["ace_pays" if rank_of(card) == 1 else "pays"])
        won = suit_of(card) == suit
    elif kind == "escucha":
        winner = SUITS.index(facts["first_to_complete"])
        pays = parse_pays(spec["escucha"]["ace_pays" if rank_of(facts["foundations"][winner]) == 1 else "pays"])
        won = winner == suit
    elif kind == "maximo":
        ranks = [rank_of(c) for c in facts["foundations"]]
        holders = [s for s in range(5) if ranks[s] == max(ranks)]
        if suit not in holders:
            return ("lost", None)
        if len(holders) == 2:
            return ("pushed", None) if spec["maximo"]["pair_tie"] == "push" else ("lost", None)
        return ("won", parse_pays(spec["maximo"]["pays"]))
    elif kind in ("conto_alto", "conto_bajo", "conto_medio"):
        pays = parse_pays(spec[kind])
        won = {"conto_alto": n >= 17, "conto_bajo": n in (10, 11), "conto_medio": n in (14, 15)}[kind]
    elif kind == "cartas":
        pays = next(parse_pays(l["pays"]) for l in spec["cartas"] if l["number"] == number)
        won = n == number
    else:  # comeco
        line = next((l for l in spec["comeco"] if l["n_from"] <= n <= l["n_to"]), None)
        if line is None:
            return ("lost", None)
        return ("won", parse_pays(line["pays"]))
    return ("won", pays) if won else ("lost", None)


def returned_cents(stake_cents, result):
    """A win returns the stake plus stake x pays, the winnings rounded toward zero to the cent;
    a push the stake; a loss nothing."""
    status, pays = result
    if status == "won":
        return stake_cents + math.floor(stake_cents * pays)
    return stake_cents if status == "pushed" else 0


# --- Lobo (docs/lobo.md) ---------------------------------------------------------

LOBO_MODES = {"hard": 10, "ordinary": 9, "easy": 8}
PLAY_KINDS = ("perfect", "sum", "split", "over", "fold")


def kind_of(player, wolf):
    """The one kind a pair of card sets makes, or None."""
    ps, ws = sum(rank_of(c) for c in player), sum(rank_of(c) for c in wolf)
    if not player and not wolf:
        return "fold"
    if len(player) == 1 and len(wolf) == 1:
        if ps == ws:
            return "perfect"
        return "over" if ps > ws else None
    if len(player) >= 2 and len(wolf) == 1:
        return "sum" if ps == ws else None
    if len(player) == 1 and len(wolf) >= 2:
        return "split" if ps == ws else None
    return None


def has_capture(player, wolf):
    """True when some capture (not Fold) is legal: a Perfect or Over, a Sum, or a Split."""
    pr = [rank_of(c) for c in player]
    wr = [rank_of(c) for c in wolf]
    if any(p >= w for p in pr for w in wr):
        return True
    sums = {0: 0}  # subset sums of the player's hand -> most cards used
    for r in pr:
        for total, used in list(sums.items()):
            sums[total + r] = max(sums.get(total + r, 0), used + 1)
    if any(sums.get(w, 0) >= 2 for w in wr):
        return True
    wolf_sums = {0: 0}
    for r in wr:
        for total, used in list(wolf_sums.items()):
            wolf_sums[total + r] = max(wolf_sums.get(total + r, 0), used + 1)
    return any(wolf_sums.get(p, 0) >= 2 for p in pr)


def lobo_round(deck, plays, first=0):
    """Deals a Lobo round from `deck` (the Wolf's hand, the player's, then the cub) and plays
    plays[first:] until the round ends. Returns (end reason or None while in play, the player's
    hand, the Wolf's, the Wolf's opening points, the cards dealt from `deck`, the plays used)."""
    wolf, player = sorted(deck[0:4]), sorted(deck[4:8])
    opening = sum(rank_of(c) for c in wolf)
    nxt = 8

    def settle_end():
        if not wolf:
            return "wolf_emptied"
        return None if has_capture(player, wolf) else "no_legal_play"

    end = settle_end()
    i = first
    while end is None and i < len(plays):
        kind, pcards, wcards = plays[i]
        where = "play %d" % i
        pcards, wcards = sorted(pcards), sorted(wcards)
        for cards in (pcards, wcards):
            if len(set(cards)) != len(cards):
                raise RuleError("%s: a card is named twice" % where, i)
        for c in pcards:
            if c not in player:
                raise RuleError("%s: card %d is not in the player's hand" % (where, c), i)
        for c in wcards:
            if c not in wolf:
                raise RuleError("%s: card %d is not in the Wolf's hand" % (where, c), i)
        actual = kind_of(pcards, wcards)
        if actual is None:
            raise RuleError("%s: no capture takes %s with %s" % (where, wcards, pcards), i)
        if actual != kind:
            raise RuleError("%s: stated %s, the cards make %s" % (where, kind, actual), i)
        i += 1
        if kind == "fold":
            end = "folded"
            continue
        player = [c for c in player if c not in pcards]
        wolf = [c for c in wolf if c not in wcards]
        if kind in ("perfect", "sum", "split"):
            if nxt < len(deck):
                (player if kind != "split" else wolf).append(deck[nxt])
                nxt += 1
        else:  # over: the Wolf is dealt the rank difference, cub first
            for _ in range(rank_of(pcards[0]) - rank_of(wcards[0])):
                if nxt < len(deck):
                    wolf.append(deck[nxt])
                    nxt += 1
        player.sort()
        wolf.sort()
        end = settle_end()
    return end, player, wolf, opening, nxt, i - first


def play_lobo(deck, plays, voided=False):
    """Replays a Lobo round. `plays`: (kind, player_cards, wolf_cards). Returns the outcome; for a
    voided round (voided only while in play, so its plays stop short of the end), the opening only."""
    end, player, wolf, opening, _, used = lobo_round(deck, plays)
    if used < len(plays):
        raise RuleError("play %d: the round is already over" % used, used)
    if voided:
        if end is not None:
            raise RuleError("a voided Lobo round was over before its void", len(plays))
        return {"wolf_opening_points": opening}
    if end is None:
        raise RuleError("the round is not over after the last play", len(plays))
    won = end == "wolf_emptied"
    points = sum(rank_of(c) for c in (player if won else wolf))
    return {"player_won": won, "points": points, "reason": end, "wolf_opening_points": opening}


CONTEST_ROUNDS = 3


def play_three_rounds(deck, plays):
    """Replays one contest entrant's three rounds (docs/lobo.md §9): one list of plays; each
    round dealt, as any round is, from the cards the round before left undealt (its cub first);
    a round that finds fewer than two hands' worth left is not dealt, and none after it. A round
    won scores +the player's points, one lost -the Wolf's. Returns the total so far and, while a
    round is in play, its (player's hand, Wolf's hand); None once every round is over."""
    total, first, rest = 0, 0, list(deck)
    for _ in range(CONTEST_ROUNDS):
        if len(rest) < 8:
            break
        end, player, wolf, _, dealt, used = lobo_round(rest, plays, first)
        first += used
        if end is None:
            return total, (player, wolf)
        won = end == "wolf_emptied"
        points = sum(rank_of(c) for c in (player if won else wolf))
        total += points if won else -points
        rest = rest[dealt:]
    if first < len(plays):
        raise RuleError("play %d: the entrant's rounds are already over" % first, first)
    return total, None


def split_pot(fee_cents, totals, rake_bps):
    """The rake (the pot's basis points, rounded down to the cent) and each entrant's prize: the
    rest of the pot split equally among the best totals, the odd cents one each to the earliest."""
    pot = fee_cents * len(totals)
    rake = pot * rake_bps // 10000
    pool = pot - rake
    prizes = [0] * len(totals)
    if totals:
        best = max(totals)
        winners = [i for i, t in enumerate(totals) if t == best]
        share, odd = divmod(pool, len(winners))
        for k, i in enumerate(winners):
            prizes[i] = share + (1 if k < odd else 0)
    return rake, prizes


# --- Version 2: the whole round (docs/transcript.md) -------------------------------

PRIMA_RULES = ("variant", "unit", "seat_fee", "corte", "cobre", "min_bet", "max_bet", "max_exposure_per_round",
               "strategy_advice", "confidence_commission_bp", "confidence_commission_cap")
LOBO_RULES = ("mode", "unit", "loss_cap_points", "house_rule", "hints")


def unknown_field(r, known):
    for key in r:
        if key not in known:
            raise RuleError("unknown field `%s` in rules" % key)


def parse_prima_rules(r):
    if not isinstance(r, dict):
        raise RuleError("rules is not an object")
    unknown_field(r, PRIMA_RULES)
    if r.get("variant") not in ("classic", "cinco", "jasper"):
        raise RuleError("variant %s is not classic, cinco or jasper" % show(r.get("variant")))
    if r.get("cobre") not in ("off", "carry", "house"):
        raise RuleError("cobre %s is not off, carry or house" % show(r.get("cobre")))
    for flag in ("corte", "strategy_advice"):
        if not isinstance(r.get(flag), bool):
            raise RuleError("%s is not true or false" % flag)
    rules = {"variant": r["variant"], "cobre": r["cobre"], "corte": r["corte"]}
    for field in ("unit", "min_bet", "max_bet", "max_exposure_per_round"):
        rules[field] = parse_cents(r.get(field))
        if rules[field] is None:
            raise RuleError("%s %s is not a positive amount" % (field, show(r.get(field))))
    rules["seat_fee"] = None
    if r.get("seat_fee") is not None:
        rules["seat_fee"] = parse_cents(r["seat_fee"])
        if rules["seat_fee"] is None:
            raise RuleError("seat_fee %s is not a positive amount" % show(r["seat_fee"]))
    # The commission on confidence bets (docs/confidence-bets.md); a table's options written before
    # it existed take the defaults, 5% capped at 25.00.
    bp = r.get("confidence_commission_bp", 500)
    if not is_int(bp) or not 0 <= bp <= 2500:
        raise RuleError("confidence_commission_bp %s is not 0 to 2500" % show(bp))
    cap = parse_cents(r.get("confidence_commission_cap", "25.00"))
    if cap is None:
        raise RuleError("confidence_commission_cap %s is not a positive amount" % show(r.get("confidence_commission_cap")))
    rules["confidence_commission_bp"], rules["confidence_commission_cap"] = bp, cap
    return rules


def parse_lobo_rules(r):
    if not isinstance(r, dict):
        raise RuleError("rules is not an object")
    unknown_field(r, LOBO_RULES)
    if r.get("mode") not in LOBO_MODES:
        raise RuleError("mode %s is not hard, ordinary or easy" % show(r.get("mode")))
    unit = parse_cents(r.get("unit"))
    if unit is None:
        raise RuleError("unit %s is not a positive amount" % show(r.get("unit")))
    cap = r.get("loss_cap_points")
    if not is_int(cap) or not 1 <= cap <= 1000:
        raise RuleError("loss_cap_points %s is not in 1..=1000" % show(cap))
    rule = r.get("house_rule")
    if not isinstance(rule, dict):
        raise RuleError("house_rule is not an object")
    fee, ante = rule.get("fee_per_round_hundredths"), rule.get("ante_per_wolf_point_hundredths")
    if not all(is_int(v) and 0 <= v < 2**32 for v in (fee, ante)):
        raise RuleError("house_rule's fee and ante are not whole hundredths")
    if not isinstance(r.get("hints"), bool):
        raise RuleError("hints is not true or false")
    return {"mode": r["mode"], "unit": unit, "cap": cap, "fee": fee, "ante": ante}


def parse_list(t, field, absent_ok=True):
    value = t.get(field)
    if value is None and absent_ok:
        return []
    if not isinstance(value, list):
        raise RuleError("%s is not a list" % field)
    return value


def parse_player(value, where):
    if not isinstance(value, str) or not value:
        raise RuleError("%s: the player is not a pseudonym" % where)
    return value


def parse_prima_seats(t, settled):
    seats = []
    for i, seat in enumerate(parse_list(t, "seats", absent_ok=False)):
        if not isinstance(seat, dict):
            raise RuleError("seat %d is not an object" % i)
        suit = parse_suit(seat.get("suit"))
        if suit is None:
            raise RuleError("seat %d: unknown suit %s" % (i, show(seat.get("suit"))))
        if seats and suit <= seats[-1][0]:
            raise RuleError("seat %d: %s repeats a suit or breaks suit order" % (i, SUITS[suit]))
        seats.append((suit, parse_player(seat.get("player"), "seat %d" % i)))
    if settled and not 2 <= len(seats) <= 5:
        raise RuleError("%d seats; a dealt round has 2 to 5" % len(seats))
    return seats


def parse_decisions(t):
    decisions = []
    for i, d in enumerate(parse_list(t, "decisions")):
        suit = parse_suit(d.get("suit")) if isinstance(d, dict) else None
        if suit is None or not isinstance(d.get("pay"), bool):
            raise RuleError("decision %d is not {suit, pay}" % i)
        decisions.append((suit, d["pay"]))
    return decisions


def parse_plays(t, max_rank):
    plays = []
    for i, p in enumerate(parse_list(t, "plays")):
        if not isinstance(p, dict) or p.get("kind") not in PLAY_KINDS:
            raise RuleError("play %d: not a play of kind perfect, sum, split, over or fold" % i)
        cards = []
        for field in ("player_cards", "wolf_cards"):
            ids = p.get(field, [])
            if not is_id_list(ids) or any(not (0 <= c < CARD_COUNT and rank_of(c) <= max_rank) for c in ids):
                raise RuleError("play %d: %s are not card ids of this deck" % (i, field))
            cards.append(ids)
        plays.append((p["kind"], cards[0], cards[1]))
    return plays


def lobo_player(t):
    seats = parse_list(t, "seats", absent_ok=False)
    if len(seats) != 1:
        raise RuleError("a Lobo round has one player, not %d seats" % len(seats))
    seat = seats[0]
    return parse_player(seat.get("player") if isinstance(seat, dict) else seat, "seat 0")


def compare_fields(expected, claimed, fields, prefix=""):
    """The first field whose value differs, or None."""
    if not isinstance(claimed, dict):
        return (prefix.rstrip(".") or "outcome") + " is not an object"
    for field in fields:
        if field not in claimed:
            return "%s%s is missing" % (prefix, field)
        if not same(expected[field], claimed[field]):
            return "%s%s is %s, the replay gives %s" % (prefix, field, show(claimed[field]), show(expected[field]))
    for field in claimed:
        if field not in fields and not (prefix == "" and field == "facts"):
            return "%s%s is not a field of the outcome" % (prefix, field)
    return None


def compare_facts(expected, claimed):
    if isinstance(claimed, dict) and not isinstance(claimed.get("foundations"), dict):
        return "facts.foundations is %s, not an object suit -> card" % show(claimed.get("foundations"))
    if isinstance(claimed, dict):
        # the replay holds the foundations as a list in suit order
        f = claimed["foundations"]
        claimed = dict(claimed, foundations=[f.get(s) for s in SUITS] if set(f) == set(SUITS) else f)
    return compare_fields(expected, claimed, ["first_card", "foundations", "foundation_order", "first_pass_counts",
                                              "first_pass_count", "first_to_complete"], "facts.")


def compare_lists(expected, claimed, what):
    """(detail, index of the first difference) or (None, None)."""
    if not isinstance(claimed, list):
        return "%s is not a list" % what, None
    for i, (e, c) in enumerate(zip(expected, claimed)):
        if not same(e, c):
            return "%s[%d] is %s, the replay gives %s" % (what, i, show(c), show(e)), i
    if len(expected) != len(claimed):
        i = min(len(expected), len(claimed))
        return "%d %s, the replay gives %d" % (len(claimed), what, len(expected)), i
    return None, None


# --- reading a transcript strictly (docs/transcript.md, "Reading a transcript strictly") ---------

# Each field: (type, presence). Presence "req": present and not null; "null": present, may be null;
# "opt": may be left out, never null. A field not listed is an unknown field.
U8_LIST = ("list", "u8")
SHUFFLE_SHAPE = {"algorithm": ("str", "req"), "game": ("str", "req"), "round_id": ("str", "req"),
                 "server_seed": ("str", "req"), "commitment": ("str", "req"),
                 "client_seeds": (("list", "str"), "opt"), "client_seed": ("str", "req"), "deck": (U8_LIST, "req"),
                 "reshuffles": (("list", ("obj", {"before": (U8_LIST, "req"), "after": (U8_LIST, "req")}, True)), "opt")}
TRANSFER_SHAPE = ("obj", {"seq": ("int", "req"), "kind": ("str", "req"), "from": ("str", "req"),
                          "to": ("str", "req"), "amount": ("str", "req"), "hash": ("str", "req")})
LEDGER_PROOF_SHAPE = ("obj", {
    "checkpoint": (("obj", {"seq": ("int", "req"), "taken_at_us": ("int", "req"), "ledger_seq": ("int", "req"),
                            "ledger_hash": ("str", "req"), "events_seq": ("int", "req"), "events_hash": ("str", "req"),
                            "transfers_root": ("str", "req"), "events_root": ("str", "req"), "key_id": ("str", "req"),
                            "public_key": ("str", "req"), "signature": ("str", "req")}), "req"),
    "wallets": (("list", ("obj", {"player": ("str", "req"), "tag": ("str", "req")})), "req"),
    "transfers": (("list", ("obj", {"seq": ("int", "req"), "bet_id": ("str", "null"),
                                    "path": (("list", "str"), "req")})), "req"),
    "booking": (("obj", {"seq": ("int", "req"), "leaf": ("str", "req"), "path": (("list", "str"), "req")}), "req"),
})
TRANSCRIPT_SHAPE = {
    "transcript": ("str", "req"), "version": ("u32", "req"), "game": ("str", "req"), "round_id": ("str", "req"),
    "table_id": ("str", "req"), "number": ("int", "req"), "status": ("str", "req"),
    "shuffle": (("obj", SHUFFLE_SHAPE, True), "req"), "rules": ("any", "req"),
    "pay_tables": (("list", ("obj", {"fingerprint": ("str", "req"), "id": ("str", "req"), "spec": ("any", "req")})),
                   "req"),
    "players": (("list", ("obj", {"pseudonym": ("str", "req"), "you": ("bool", "req"), "player_id": ("str", "opt")})),
                "req"),
    "seats": (("list", ("obj", {"suit": ("str", "opt"), "player": ("str", "req")})), "req"),
    "decisions": (("list", ("obj", {"suit": ("str", "req"), "pay": ("bool", "req")})), "req"),
    "plays": (("list", ("obj", {"kind": ("str", "req"), "player_cards": (U8_LIST, "req"),
                                "wolf_cards": (U8_LIST, "req")}, True)), "req"),
    "bets": (("list", ("obj", {"player": ("str", "req"), "kind": ("str", "req"), "suit": ("str", "null"),
                               "number": ("int", "null"), "amount": ("str", "req"), "pay_table": ("str", "req"),
                               "status": ("str", "req"), "returned": ("str", "req")})), "req"),
    "confidence_bets": (("list", ("obj", {"terms": ("any", "req"), "offered_by": ("str", "req"),
                                          "offerer_side": ("str", "req"), "accepted_by": ("str", "opt"),
                                          "for_stake": ("str", "req"), "against_stake": ("str", "req"),
                                          "status": ("str", "req"), "paid": ("str", "req"),
                                          "commission": ("str", "req")})), "opt"),
    "fuerza_bets": (("list", ("obj", {"player": ("str", "req"), "suit": ("str", "req"), "stake": ("str", "req"),
                                      "quote": (("obj", {"algorithm": ("str", "req"), "decisions": ("u32", "req"),
                                                         "samples": ("u32", "req"), "wins": ("u32", "req"),
                                                         "wins_if_all_pay": ("u32", "req"),
                                                         "price": ("str", "req")}), "req"),
                                      "status": ("str", "req"), "returned": ("str", "req")})), "opt"),
    "carried_cobre_in": ("str", "opt"), "outcome": ("any", "null"),
    "events": (("list", "any"), "opt"), "deal_out_events": (("list", "any"), "opt"),
    "transfers": (("list", TRANSFER_SHAPE), "req"),
    "ledger_proof": (LEDGER_PROOF_SHAPE, "opt"),
}
TYPE_NAMES = {"str": "a string", "int": "an integer", "u32": "a whole number 0..=4294967295", "bool": "true or false",
              "u8": "a whole number 0..=255"}


def shape_problem(value, shape, where):
    """None if `value` has the shape, else what is wrong and where. An object shape's third element, when
    true, lets unknown fields through (the shuffle transcript of version 1 and a Lobo play are read so)."""
    if shape == "any":
        return None
    if isinstance(shape, str):
        ok = {"str": isinstance(value, str), "bool": isinstance(value, bool), "int": is_int(value),
              "u32": is_int(value) and 0 <= value < 2 ** 32, "u8": is_int(value) and 0 <= value < 256}[shape]
        return None if ok else "%s is %s, not %s" % (where, show(value), TYPE_NAMES[shape])
    if shape[0] == "list":
        if not isinstance(value, list):
            return "%s is not a list" % where
        for i, item in enumerate(value):
            problem = shape_problem(item, shape[1], "%s[%d]" % (where, i))
            if problem:
                return problem
        return None
    fields, open_ = shape[1], len(shape) > 2 and shape[2]
    if not isinstance(value, dict):
        return "%s is not an object" % where
    for key in value:
        if key not in fields and not open_:
            return "unknown field `%s` in %s" % (key, where)
    for key, (kind, presence) in fields.items():
        if key not in value:
            if presence != "opt":
                return "missing field `%s` in %s" % (key, where)
            continue
        if value[key] is None:
            if presence != "null":
                return "null where a value is required: %s.%s" % (where, key)
            continue
        problem = shape_problem(value[key], kind, "%s.%s" % (where, key))
        if problem:
            return problem
    return None


def players_problem(t):
    """None if `players` is exactly P1, P2, ... in order of first appearance (the seats in order, then the
    bettors by first bet, then the confidence bets' parties, then the Fuerza bettors), each once, at most one
    marked `you`; else why not."""
    named = []
    confidence = [who for c in t.get("confidence_bets", []) for who in (c["offered_by"], c.get("accepted_by"))
                  if who is not None]
    fuerza = [bet["player"] for bet in t.get("fuerza_bets", [])]
    for who in [seat["player"] for seat in t["seats"]] + [bet["player"] for bet in t["bets"]] + confidence + fuerza:
        if who not in named:
            named.append(who)
    listed = [p["pseudonym"] for p in t["players"]]
    if listed != named or named != ["P%d" % (i + 1) for i in range(len(named))]:
        return ("players lists [%s]; the seats and bets name [%s], which must be P1, P2, \u2026 in order of first "
                "appearance" % (", ".join(listed), ", ".join(named)))
    if sum(1 for p in t["players"] if p["you"]) > 1:
        return "more than one player is marked as you"
    return None


def verify_v2(t):
    """The checks of one version-2 round transcript."""
    problem = shape_problem(t, ("obj", TRANSCRIPT_SHAPE), "the transcript")
    if problem:
        return {"passed": False, "checks": [{"name": "transcript", "passed": False, "first_mismatch": None,
                                             "detail": "not a readable transcript: " + problem}]}
    checks = []

    def add(name, passed, detail, first=None):
        checks.append({"name": name, "passed": passed, "first_mismatch": first, "detail": detail})

    def attempt(name, needs, run):
        """Runs check `name` when every input in `needs` (why -> ok) is there; `run` returns
        its passing detail or raises RuleError."""
        missing = [why for why, ok in needs if not ok]
        if missing:
            add(name, False, "not checked: " + missing[0])
            return False
        try:
            add(name, True, run())
            return True
        except RuleError as e:
            add(name, False, str(e.args[0]) if e.args else name, e.args[1] if len(e.args) > 1 else None)
            return False
        except (KeyError, TypeError, ValueError, IndexError, AttributeError) as e:  # malformed input
            add(name, False, "cannot read the transcript: %s" % e)
            return False

    shuffle = t.get("shuffle")
    shuffle = shuffle if isinstance(shuffle, dict) else {}
    shuffle_list, stream = shuffle_checks(shuffle)
    checks.extend(shuffle_list)
    deck = shuffle.get("deck") if stream is not None else None
    s = {}  # what the checks established

    def check_round():
        if t.get("transcript") != "djego-round":
            raise RuleError("transcript is %s, not \"djego-round\"" % show(t.get("transcript")))
        if not same(t.get("version"), 2):
            raise RuleError("version is %s, not 2" % show(t.get("version")))
        game = t.get("game")
        if game not in GAMES:
            raise RuleError("game %s is not prima_carta or lobo" % show(game))
        if game != shuffle.get("game"):
            raise RuleError("game %s differs from shuffle.game %s" % (show(game), show(shuffle.get("game"))))
        if not isinstance(t.get("round_id"), str) or t.get("round_id") != shuffle.get("round_id"):
            raise RuleError("round_id %s differs from shuffle.round_id %s"
                            % (show(t.get("round_id")), show(shuffle.get("round_id"))))
        status = t.get("status")
        if status not in ("settled", "voided"):
            raise RuleError("status %s is not settled or voided" % show(status))
        problem = players_problem(t)
        if problem:
            raise RuleError(problem)
        s["game"], s["settled"] = game, status == "settled"
        return "%s round %s, %s" % (game, t["round_id"], status)

    round_ok = attempt("round", [], check_round)
    header = ("the round header is invalid", round_ok)
    prima = round_ok and s["game"] == "prima_carta"

    def check_rules():
        s["rules"] = (parse_prima_rules if prima else parse_lobo_rules)(t.get("rules"))
        return ", ".join("%s %s" % kv for kv in sorted(s["rules"].items()))

    rules_ok = attempt("rules", [header], check_rules)

    def check_pay_tables():
        tables = parse_list(t, "pay_tables")
        if not prima:
            if tables:
                raise RuleError("a Lobo round has no pay tables")
            return "none"
        s["tables"] = {}
        for i, entry in enumerate(tables):
            if not isinstance(entry, dict) or not isinstance(entry.get("fingerprint"), str):
                raise RuleError("pay table %d has no fingerprint" % i, i)
            problem = check_pay_table(entry.get("spec"))
            if problem:
                raise RuleError("pay table %d: %s" % (i, problem), i)
            if fingerprint(entry["spec"]) != entry["fingerprint"]:
                raise RuleError("pay table %d: the fingerprint is not sha256 of its spec, %s"
                                % (i, fingerprint(entry["spec"])), i)
            why = uncertified_bet(entry["spec"])
            if why:
                raise RuleError("pay table %d (%s): not a certifiable pay table: %s" % (i, entry.get("id"), why))
            s["tables"][entry["fingerprint"]] = entry["spec"]
        for i, bet in enumerate(parse_list(t, "bets")):
            named = bet.get("pay_table") if isinstance(bet, dict) else None
            if not isinstance(named, str) or named not in s["tables"]:
                raise RuleError("bet %d names pay table %s, not in the list" % (i, show(named)), i)
        return "%d pay tables" % len(tables)

    tables_ok = attempt("pay_tables", [header], check_pay_tables)
    deck_needs = [header, ("the deck did not verify", deck is not None), ("the rules are invalid", rules_ok)]

    def check_play():
        if shuffle.get("reshuffles") is not None and not isinstance(shuffle.get("reshuffles"), list):
            raise RuleError("shuffle.reshuffles is not a list")
        reshuffles = shuffle.get("reshuffles") or []
        if not prima:
            rules = s["rules"]
            if len(deck) != 5 * LOBO_MODES[rules["mode"]]:
                raise RuleError("a %d-card deck is not the %s deck" % (len(deck), rules["mode"]))
            if reshuffles:
                raise RuleError("a Lobo round has no reshuffle")
            s["player"] = lobo_player(t)
            s["result"] = play_lobo(deck, parse_plays(t, LOBO_MODES[rules["mode"]]), voided=not s["settled"])
            r = s["result"]
            if not s["settled"]:
                return "%d plays, voided in play" % len(t.get("plays") or [])
            return "%d plays, %s %d points (%s)" % (len(t.get("plays") or []), "won" if r["player_won"] else "lost",
                                                     r["points"], r["reason"])
        s["seats"] = parse_prima_seats(t, s["settled"])
        decisions = parse_decisions(t)
        if not s["settled"]:
            if decisions or reshuffles:
                raise RuleError("a voided round was never dealt, yet has decisions or reshuffles")
            s["replay"] = None
            return "voided before any card was dealt"
        jasper = stream.copy()
        s["replay"] = play_prima_carta(deck, s["rules"], [suit for suit, _ in s["seats"]], decisions,
                                       jasper.shuffle)
        # Jasper reshuffles at most once, the same pile with the same stream, whether the main game's repasso
        # or the side bets' deal-out needs it (a round won at the copa still deals out for its side bets).
        expected = s["replay"][2]
        if not expected:
            s["facts"], s["deal_out_events"] = deal_out(deck, s["rules"]["variant"], stream.copy().shuffle)
            expected = [{"before": e["before"], "after": e["after"]}
                        for e in s["deal_out_events"] if e["type"] == "reshuffled"]
        detail, i = compare_lists(expected, reshuffles, "shuffle.reshuffles")
        if detail:
            raise RuleError(detail, i)
        o = s["replay"][0]
        return "%s wins (%s) after %d passes, %d decisions" % (o["winner"], o["how"], o["passes"], len(decisions))

    play_ok = attempt("play", deck_needs, check_play)
    play_needs = [("the play did not verify", play_ok)]

    if "events" in t:
        def check_events():
            expected = s["replay"][1] if prima and s["replay"] else []
            detail, i = compare_lists(expected, t["events"], "events")
            if detail:
                raise RuleError(detail, i)
            return "%d events" % len(expected)
        attempt("events", play_needs, check_events)

    def compute_deal_out():
        if prima and s["settled"] and "facts" not in s:
            s["facts"], s["deal_out_events"] = deal_out(deck, s["rules"]["variant"], stream.copy().shuffle)

    if "deal_out_events" in t:
        def check_deal_out_events():
            compute_deal_out()
            expected = s.get("deal_out_events", [])
            detail, i = compare_lists(expected, t["deal_out_events"], "deal_out_events")
            if detail:
                raise RuleError(detail, i)
            return "%d events" % len(expected)
        attempt("deal_out_events", deck_needs, check_deal_out_events)

    def check_outcome():
        claimed = t.get("outcome")
        if not s["settled"]:
            if claimed is not None:
                raise RuleError("a voided round has no outcome")
            return "null (voided)"
        if prima:
            compute_deal_out()
            expected = s["replay"][0]
            diff = compare_fields(expected, claimed, ["winner", "how", "prima", "passes", "folded", "pot_units",
                                                      "winner_takes_units", "corte_payer", "cobre"])
            diff = diff or (compare_facts(s["facts"], claimed.get("facts")) if "facts" in claimed
                            else "facts is missing")
            if diff:
                raise RuleError(diff)
            return "%s wins %d units" % (expected["winner"], expected["winner_takes_units"])
        r = dict(s["result"])
        r["paid_points"] = r["points"] if r["player_won"] else min(r["points"], s["rules"]["cap"])
        diff = compare_fields(r, claimed, ["player_won", "points", "paid_points", "reason", "wolf_opening_points"])
        if diff:
            raise RuleError(diff)
        return "%s %d points" % ("won" if r["player_won"] else "lost", r["paid_points"])

    attempt("outcome", play_needs, check_outcome)

    def check_bets():
        bets = parse_list(t, "bets")
        if not prima:
            if bets or t.get("confidence_bets") or t.get("fuerza_bets"):
                raise RuleError("a Lobo round has no side bets, no confidence bets and no Fuerza bets")
            return "none"
        if s["settled"]:
            compute_deal_out()
        s["bets"] = []
        for i, bet in enumerate(bets):
            where = "bet %d" % i
            if not isinstance(bet, dict):
                raise RuleError(where + " is not an object", i)
            player = parse_player(bet.get("player"), where)
            kind = bet.get("kind")
            if kind not in BET_KINDS:
                raise RuleError("%s: unknown kind %s" % (where, show(kind)), i)
            spec = s["tables"][bet["pay_table"]]
            suit, number = bet.get("suit"), bet.get("number")
            if kind in SUIT_BETS:
                if parse_suit(suit) is None or number is not None:
                    raise RuleError("%s: a %s bet takes a suit, not %s/%s" % (where, kind, show(suit), show(number)), i)
                suit = parse_suit(suit)
            elif kind == "cartas":
                offered = [line["number"] for line in spec["cartas"]]
                if suit is not None or not is_int(number) or number not in offered:
                    raise RuleError("%s: Cartas on %s is not offered by its pay table" % (where, show(number)), i)
            elif suit is not None or number is not None:
                raise RuleError("%s: a %s bet takes no selection" % (where, kind), i)
            stake = parse_cents(bet.get("amount"))
            if stake is None:
                raise RuleError("%s: amount %s is not a positive amount" % (where, show(bet.get("amount"))), i)
            if s["settled"]:
                result = settle_bet(kind, suit, number, spec, s["facts"])
            else:
                result = ("refunded", None)
            status = result[0]
            returned = stake if status == "refunded" else returned_cents(stake, result)
            if bet.get("status") != status:
                raise RuleError("%s: status %s, the facts give %s" % (where, show(bet.get("status")), status), i)
            if parse_cents(bet.get("returned"), positive=False) != returned:
                raise RuleError("%s: returned %s, the rules give %s" % (where, show(bet.get("returned")),
                                                                        money(returned)), i)
            s["bets"].append((player, stake, status, returned))
        return "%d bets" % len(bets)

    bets_ok = attempt("bets", [header, ("the pay tables did not verify", tables_ok),
                               ("the deck did not verify", deck is not None or not s.get("settled", True)),
                               ("the rules are invalid", rules_ok)], check_bets)

    def check_confidence():
        s["confidence"] = []
        bets = t.get("confidence_bets", [])
        if not prima:
            if bets:
                raise RuleError("a Lobo round has no confidence bets")
            return "none"
        if s["settled"]:
            compute_deal_out()
        taken = paid = 0
        for i, bet in enumerate(bets):
            legs, was_taken, was_paid = confidence_legs(bet, "confidence bet %d" % i, s, t)
            s["confidence"].extend(legs)
            taken += was_taken
            paid += was_paid
        return "%d confidence bet(s): %d taken, %d paid as the terms give" % (len(bets), taken, paid)

    confidence_ok = attempt("confidence_bets", [header, ("the rules are invalid", rules_ok)] + play_needs,
                            check_confidence) if prima else True

    def check_fuerza():
        s["fuerza"], detail = fuerza_legs(t, s, deck)
        return detail

    fuerza_ok = attempt("fuerza_bets", [header, ("the rules are invalid", rules_ok)] + play_needs,
                        check_fuerza) if prima else True

    def check_transfers():
        expected = expected_transfers(t, s) if prima else expected_lobo_transfers(s)
        claimed = parse_list(t, "transfers")
        remaining = list(expected)
        for i, tr in enumerate(claimed):
            key = None
            if isinstance(tr, dict):
                key = (tr.get("kind"), tr.get("from"), tr.get("to"), parse_cents(tr.get("amount")))
            if key in remaining:
                remaining.remove(key)
            else:
                raise RuleError("transfer %d %s is not one the round implies" % (i, show(tr)), i)
        if remaining:
            kind, frm, to, cents = remaining[0]
            raise RuleError("missing transfer: %s %s -> %s %s" % (kind, frm, to, money(cents)))
        return "%d transfers" % len(expected)

    attempt("transfers", play_needs + [("the bets did not verify", bets_ok),
                                       ("the confidence bets did not verify", confidence_ok),
                                       ("the Fuerza bets did not verify", fuerza_ok)], check_transfers)
    return {"passed": all(c["passed"] for c in checks), "checks": checks}


CONFIDENCE_TERMS = {"prima": ("suit", "ace_voids"), "fuerza": ("suit",), "seguro": ("suit", "share_bp"),
                    "wins": ("suit",), "first_to_complete": ("suit",), "first_pass_count": ("min", "max")}


def confidence_verdict(terms, s):
    """"for", "against", or None when the terms void the bet, on the settled round's facts."""
    kind, facts = terms["kind"], s["facts"]
    if kind == "prima":
        card = facts["first_card"]
        if terms["ace_voids"] and suit_of(card) == terms["suit"] and rank_of(card) == 1:
            return None
        holds = suit_of(card) == terms["suit"]
    elif kind in ("fuerza", "seguro", "wins"):
        holds = SUITS.index(s["replay"][0]["winner"]) == terms["suit"]
    elif kind == "first_to_complete":
        holds = SUITS.index(facts["first_to_complete"]) == terms["suit"]
    else:
        holds = terms["min"] <= facts["first_pass_count"] <= terms["max"]
    return "for" if holds else "against"


def parse_confidence_terms(terms, where):
    if not isinstance(terms, dict) or terms.get("kind") not in CONFIDENCE_TERMS:
        raise RuleError("%s: terms %s are not of a known kind" % (where, show(terms)))
    fields = CONFIDENCE_TERMS[terms["kind"]]
    for key in terms:
        if key != "kind" and key not in fields:
            raise RuleError("%s: unknown field `%s` in the terms" % (where, key))
    parsed = {"kind": terms["kind"]}
    for key in fields:
        if key not in terms:
            raise RuleError("%s: missing field `%s` in the terms" % (where, key))
        value = terms[key]
        if key == "suit":
            value = parse_suit(value)
            ok = value is not None
        elif key == "ace_voids":
            ok = isinstance(value, bool)
        else:
            ok = is_int(value)
        if not ok:
            raise RuleError("%s: terms.%s is %s" % (where, key, show(terms[key])))
        parsed[key] = value
    if terms["kind"] == "seguro" and not 1 <= parsed["share_bp"] <= 10000:
        raise RuleError("%s: a Seguro's share of the winnings is 1 to 10000 basis points" % where)
    if terms["kind"] == "first_pass_count":
        if not 10 <= parsed["min"] <= parsed["max"] <= 50:
            raise RuleError("%s: first_pass_count needs 10 <= min <= max <= 50" % where)
        if (parsed["min"], parsed["max"]) == (10, 50):
            raise RuleError("%s: the range covers every possible count: the bet could not lose" % where)
    return parsed


def confidence_legs(bet, where, s, t):
    """The transfers one confidence bet implies, after checking its parties, status, payout and commission
    (docs/confidence-bets.md); with whether it was taken and whether it was settled."""
    terms = parse_confidence_terms(bet["terms"], where)
    seguro = terms["kind"] == "seguro"
    known = [p["pseudonym"] for p in t["players"]]
    offerer, taker = bet["offered_by"], bet.get("accepted_by")
    for who in (offerer, taker):
        if who is not None and who not in known:
            raise RuleError("%s: %s is not among the round's players" % (where, who))
    side = bet["offerer_side"]
    if side not in ("for", "against"):
        raise RuleError("%s: offerer_side %s is not for or against" % (where, show(side)))
    stakes = {"for": parse_cents(bet["for_stake"]),
              "against": parse_cents(bet["against_stake"], positive=not seguro)}
    if stakes["for"] is None or stakes["against"] is None:
        raise RuleError("%s: a stake is not a positive amount" % where)
    if seguro and stakes["against"] != 0:
        raise RuleError("%s: a Seguro's backed player stakes nothing" % where)
    if seguro and side != "for":
        raise RuleError("%s: a Seguro is offered by its backer" % where)
    other = "against" if side == "for" else "for"
    legs = []

    def move(kind, frm, to, cents):
        if cents > 0:
            legs.append((kind, frm, to, cents))
    offerer_wallet = "wallet:" + offerer
    move("confidence_stake", offerer_wallet, "escrow", stakes[side])
    status = bet["status"]
    given = (parse_cents(bet["paid"], positive=False), parse_cents(bet["commission"], positive=False))
    if taker is None:
        if status not in ("withdrawn", "declined", "expired"):
            raise RuleError("%s: an offer nobody took cannot be %s" % (where, status))
        if given != (0, 0):
            raise RuleError("%s: an offer nobody took pays nothing" % where)
        move("confidence_refund", "escrow", offerer_wallet, stakes[side])
        return legs, 0, 0
    if taker == offerer:
        raise RuleError("%s: the offerer took their own offer" % where)
    names = {side: offerer, other: taker}
    holder = {x: "wallet:" + names[x] for x in ("for", "against")}
    move("confidence_stake", holder[other], "escrow", stakes[other])
    decided = {d["suit"]: d["pay"] for d in t["decisions"]}
    if terms["kind"] in ("prima", "fuerza", "seguro"):
        owner = dict(s["seats"]).get(terms["suit"])
        if owner != names["against"]:
            raise RuleError("%s: the side against a %s is %s's seated player" % (where, terms["kind"],
                                                                               SUITS[terms["suit"]]))
        if terms["kind"] == "fuerza" and decided.get(SUITS[terms["suit"]]) is not True:
            raise RuleError("%s: a Fuerza is made only with a player who paid the copa; %s did not"
                            % (where, SUITS[terms["suit"]]))

    def refund_both():
        for x in ("for", "against"):
            move("confidence_refund", "escrow", holder[x], stakes[x])
    paid = commission = 0
    rules = s["rules"]

    def commission_on(gain):
        return min(gain * rules["confidence_commission_bp"] // 10000, rules["confidence_commission_cap"])
    if not s["settled"]:
        expected = "refunded"
        refund_both()
    elif seguro:
        suit = terms["suit"]
        backer_suit = next((x for x, p in s["seats"] if p == names["for"]), None)
        if backer_suit is None or backer_suit == suit or decided.get(SUITS[backer_suit]) is not True:
            raise RuleError("%s: a Seguro's backer is a seated player who paid their own copa" % where)
        if decided.get(SUITS[suit]) is True:
            move("seguro_contribution", "escrow", holder["against"], stakes["for"])
            expected = "settled"
            if SUITS.index(s["replay"][0]["winner"]) == suit:
                carried = t.get("carried_cobre_in")
                carried = 0 if carried is None else parse_cents(carried, positive=False)
                winnings = s["replay"][0]["winner_takes_units"] * rules["unit"] + carried
                share = winnings * terms["share_bp"] // 10000
                commission = commission_on(max(share - stakes["for"], 0))
                paid = share - commission
                move("seguro_share", holder["against"], "escrow", share)
                move("confidence_payout", "escrow", holder["for"], paid)
                move("confidence_commission", "escrow", "house:revenue", commission)
        else:  # folded, or never asked: the contribution goes back
            expected = "void"
            refund_both()
    else:
        verdict = confidence_verdict(terms, s)
        if verdict is None:
            expected = "void"
            refund_both()
        else:
            commission = commission_on(stakes["against" if verdict == "for" else "for"])
            paid = stakes["for"] + stakes["against"] - commission
            expected = "settled"
            move("confidence_payout", "escrow", holder[verdict], paid)
            move("confidence_commission", "escrow", "house:revenue", commission)
    if status != expected:
        raise RuleError("%s: it is %s; the round makes it %s" % (where, status, expected))
    if given != (paid, commission):
        raise RuleError("%s: it shows %s paid and %s commission; the terms give %s and %s"
                        % (where, show(bet["paid"]), show(bet["commission"]), money(paid), money(commission)))
    return legs, 1, 1 if expected == "settled" else 0


# --- The house's Fuerza (docs/confidence-bets.md, src/games/prima_carta/fuerza.rs) ------------------

FUERZA_ALGORITHM = "fuerza-quote-v1"
FUERZA_SAMPLES = 1 << 16  # the orders of the pile djego draws per quote
FUERZA_DRAWS = 4000       # the orders drawn here, independently, to check a quote's counts


def fuerza_price(wins, samples):
    """The price in hundredths the house offers on `wins` in `samples`: 95% of the fair odds, rounded
    down; None under a 2% chance or below 1.01."""
    if wins == 0 or wins * 50 < samples:
        return None
    price = 9500 * samples // (100 * wins)
    return price if price >= 101 else None


def fuerza_position(deck):
    """The table after the whole first pass (no early stop), where every quote starts: (each stack's
    count, the card each stack wants next, the discard pile from the card discarded first); None when a
    suit completed in it."""
    layout = Layout(deck)
    layout.start_pass()
    layout.run_pass(lambda s: False)
    if layout.completion_order or len(layout.foundation_order) != 5:
        return None
    # The wanted card is the same suit's next rank (1 follows 10).
    return tuple(layout.count), tuple(s * 10 + rank_of(layout.top[s]) % 10 for s in range(5)), tuple(layout.discard)


def repasso_first(position, deck, stop, watch):
    """Deals `deck` (the pile in some order), then pass after pass the new discards turned over (the
    card discarded first dealt first), until a suit in `stop` completes: returns it and the first suit in
    `watch` to complete (it, or one before it); None if none can. Position::first_completion in
    src/games/prima_carta/fuerza.rs; the deal of Layout.run_repassos, without its events, for speed."""
    count, want = list(position[0]), list(position[1])
    watched = None
    for _ in range(CARD_COUNT + 1):  # every pass promotes a card, so fifty passes end any deal
        discard = []
        for card in deck:
            # Discarding the card and then playing up the discard top plays it if it plays, then
            # plays up as the rules do before the next card (and after the last).
            discard.append(card)
            while discard:
                top = discard[-1]
                s = top // 10
                if want[s] != top:
                    break
                discard.pop()
                count[s] += 1
                if count[s] < 10:
                    want[s] = s * 10 + (top % 10 + 1) % 10
                    continue
                want[s] = -1  # complete: a stack of 10 takes nothing
                if watched is None and s in watch:
                    watched = s
                if s in stop:
                    return s, s if watched is None else watched
        if not discard:
            return None
        deck = discard
    return None


@functools.lru_cache(maxsize=64)  # drawn once per quote, however many bets and documents share it
def fuerza_estimate(position, paid, undecided, seed):
    """Per suit, in how many of FUERZA_DRAWS uniform orders of the pile (Python's generator, seeded with
    `seed`) it wins against the suits in `paid`, and against those and the `undecided`: (wins,
    wins_if_all_pay), as dicts by suit index. The arguments are tuples and a string."""
    rng = random.Random(seed)  # a string seed: the same draws on every run and platform
    stop, watch = set(paid), set(paid) | set(undecided)
    wins, wins_if_all_pay = dict.fromkeys(range(5), 0), dict.fromkeys(range(5), 0)
    pile = list(position[2])
    for _ in range(FUERZA_DRAWS):
        rng.shuffle(pile)
        first = repasso_first(position, pile, stop, watch)
        if first is not None:
            wins[first[0]] += 1
            wins_if_all_pay[first[1]] += 1
    return wins, wins_if_all_pay


def fuerza_count_problem(claimed, samples, drawn):
    """Why `claimed` wins in `samples` (djego's quote) cannot be the chance that gave `drawn` in
    FUERZA_DRAWS independent draws, or None. A statistical check at about 5 standard errors of the
    difference (the chance clamped away from 0 and 1), plus one draw's worth: djego's verifier redraws
    the quote bit for bit with its ChaCha8 generator, which this script does not re-implement."""
    q = min(max(claimed / samples, 0.001), 0.999)
    tolerance = 5 * math.sqrt(q * (1 - q) * (1 / FUERZA_DRAWS + 1 / samples)) + 1 / FUERZA_DRAWS
    if abs(claimed / samples - drawn / FUERZA_DRAWS) <= tolerance:
        return None
    return "%d in %d, where %d independent draws of the pile's order give %d (%.4f against %.4f)" % (
        claimed, samples, FUERZA_DRAWS, drawn, claimed / samples, drawn / FUERZA_DRAWS)


def fuerza_legs(t, s, deck):
    """The transfers the Fuerza bets imply (the same (kind, from, to, cents) as expected_transfers),
    after checking each bet's quote against the round's first pass and copa decisions and settling it on
    the replayed winner; with the check's detail."""
    bets = t.get("fuerza_bets", [])
    if not bets:
        return [], "no Fuerza bets"
    if s["rules"]["variant"] != "jasper":
        raise RuleError("the house quotes a Fuerza only at Jasper tables")
    if not s["settled"]:
        raise RuleError("a voided round dealt no card, so nothing was quoted")
    winner = SUITS.index(s["replay"][0]["winner"])
    position = fuerza_position(deck)
    if position is None:
        raise RuleError("a suit completed in the first pass: no copa, no Fuerza")
    seated = [suit for suit, _ in s["seats"]]
    made = parse_decisions(t)
    known = [p["pseudonym"] for p in t["players"]]
    legs = []
    won = 0
    for i, bet in enumerate(bets):
        where = "Fuerza bet %d" % i
        if bet["player"] not in known:
            raise RuleError("%s: %s is not among the round's players" % (where, bet["player"]))
        backed = parse_suit(bet["suit"])
        if backed is None:
            raise RuleError("%s: unknown suit %s" % (where, show(bet["suit"])))
        stake = parse_cents(bet["stake"])
        if stake is None:
            raise RuleError("%s: stake %s is not a positive amount" % (where, show(bet["stake"])))
        q = bet["quote"]
        if q["algorithm"] != FUERZA_ALGORITHM or q["samples"] != FUERZA_SAMPLES:
            raise RuleError("%s: the quote is %s over %d draws; djego quotes %s over %d"
                            % (where, q["algorithm"], q["samples"], FUERZA_ALGORITHM, FUERZA_SAMPLES))
        k = q["decisions"]
        if not 1 <= k <= len(made):
            raise RuleError("%s: quoted after %d copa decisions; the round has %d" % (where, k, len(made)))
        paid = [suit for suit, pay in made[:k] if pay]
        undecided = [suit for suit in seated if suit not in {d for d, _ in made[:k]}]
        if len(paid) + len(undecided) < 2:
            raise RuleError("%s: after %d decisions the copa was over with one player left" % (where, k))
        if backed not in paid:
            raise RuleError("%s: %s had not paid the copa after %d decisions" % (where, SUITS[backed], k))
        if not 0 <= q["wins_if_all_pay"] <= q["wins"] <= q["samples"]:
            raise RuleError("%s: the quote counts %d and %d wins in %d draws, which cannot be"
                            % (where, q["wins"], q["wins_if_all_pay"], q["samples"]))
        seed = "%s/%s/%d" % (FUERZA_ALGORITHM, t["round_id"], k)  # the same draws for every bet at this quote
        drawn = fuerza_estimate(position, tuple(paid), tuple(undecided), seed)
        for name, counts in zip(("wins", "wins_if_all_pay"), drawn):
            problem = fuerza_count_problem(q[name], q["samples"], counts[backed])
            if problem:
                raise RuleError("%s: the quote's %s is %s" % (where, name, problem))
        price = fuerza_price(q["wins"], q["samples"])
        if price is None:
            raise RuleError("%s: the house offers no price on %s at this quote" % (where, SUITS[backed]))
        if q["price"] != money(price):
            raise RuleError("%s: the price is %s; the quote gives %s" % (where, q["price"], money(price)))
        wallet = "wallet:" + bet["player"]
        legs.append(("bet_stake", wallet, "escrow", stake))
        if winner == backed:
            won += 1
            status, returned = "won", stake * price // 100
            legs.append(("bet_returned", "escrow", wallet, stake))
            if returned > stake:
                legs.append(("bet_payout", "house:bankroll", wallet, returned - stake))
        else:
            status, returned = "lost", 0
            legs.append(("bet_collected", "escrow", "house:bankroll", stake))
        if bet["status"] != status:
            raise RuleError("%s: status %s but %s won: %s" % (where, show(bet["status"]), SUITS[winner], status))
        if parse_cents(bet["returned"], positive=False) != returned:
            raise RuleError("%s: returned %s but the price pays %s" % (where, show(bet["returned"]), money(returned)))
    return legs, "%d Fuerza bet(s) checked against %d draws of our own and settled (%d won, %d lost)" % (
        len(bets), FUERZA_DRAWS, won, len(bets) - won)


def expected_transfers(t, s):
    """Prima Carta: the (kind, from, to, cents) the round implies (docs/transcript.md), its confidence
    and Fuerza bets' included."""
    return seat_and_bet_transfers(t, s) + s.get("confidence", []) + s.get("fuerza", [])


def seat_and_bet_transfers(t, s):
    rules, u = s["rules"], s["rules"]["unit"]
    out = []
    pot, escrow = "pot", "escrow"
    for suit, player in s["seats"]:
        wallet = "wallet:" + player
        out.append(("spiga", wallet, pot, u))
        if rules["seat_fee"]:
            out.append(("seat_fee", wallet, "house:revenue", rules["seat_fee"]))
        if rules["corte"]:
            out.append(("corte_held", wallet, escrow, u))
    for player, stake, _, _ in s["bets"]:
        out.append(("bet_stake", "wallet:" + player, escrow, stake))
    if not s["settled"]:
        for kind, frm, to, cents in list(out):
            out.append(("bet_refund" if kind == "bet_stake" else "refund", to, frm, cents))
        return out
    outcome, _, _, copas = s["replay"]
    owner = dict(s["seats"])
    if rules["corte"]:
        for suit, player in s["seats"]:
            if SUITS[suit] == outcome["corte_payer"]:
                out.append(("corte", escrow, "house:tips", u))
            else:
                out.append(("refund", escrow, "wallet:" + player, u))
    for suit, k in copas.items():
        if k > 0:
            out.append(("copa", "wallet:" + owner[suit], pot, k * u))
    winner = "wallet:" + owner[SUITS.index(outcome["winner"])]
    if outcome["winner_takes_units"] > 0:
        out.append(("pot_payout", pot, winner, outcome["winner_takes_units"] * u))
    carried = t.get("carried_cobre_in")
    carried = 0 if carried is None else parse_cents(carried, positive=False)
    if carried is None:
        raise RuleError("carried_cobre_in %s is not an amount" % show(t.get("carried_cobre_in")))
    if carried > 0:
        out.append(("cobre_carried", "cobre", winner, carried))
    cobre = outcome["cobre"]
    if cobre is not None:
        out.append(("cobre", pot, "house:revenue" if cobre["disposition"] == "house" else "cobre", cobre["units"] * u))
    for player, stake, status, returned in s["bets"]:
        wallet = "wallet:" + player
        if status == "lost":
            out.append(("bet_collected", escrow, "house:bankroll", stake))
        else:
            out.append(("bet_returned", escrow, wallet, stake))
            if returned > stake:
                out.append(("bet_payout", "house:bankroll", wallet, returned - stake))
    return out


def lobo_charge_cents(unit_cents, fee, ante, wolf_opening_points):
    """The house rule's charge: unit x (fee + ante x W0) / 100, rounded up to the cent."""
    return -(-unit_cents * (fee + ante * wolf_opening_points) // 100)


def expected_lobo_transfers(s):
    rules, r = s["rules"], s["result"]
    u, cap, wallet = rules["unit"], rules["cap"], "wallet:" + s["player"]
    out = [("lobo_escrow", wallet, "escrow", cap * u)]
    charge = lobo_charge_cents(u, rules["fee"], rules["ante"], r["wolf_opening_points"])
    if charge > 0:
        out.append(("lobo_fee", wallet, "house:revenue", charge))
    if "player_won" not in r:  # voided: the escrow and the charge go back
        out.append(("refund", "escrow", wallet, cap * u))
        if charge > 0:
            out.append(("refund", "house:revenue", wallet, charge))
        return out
    if r["player_won"]:
        win, loss, release = r["points"] * u, 0, cap * u
    else:
        loss = min(r["points"], cap) * u
        win, release = 0, cap * u - loss
    for kind, frm, to, cents in (("lobo_win", "house:bankroll", wallet, win), ("lobo_loss", "escrow", "house:bankroll", loss),
                                 ("lobo_release", "escrow", wallet, release)):
        if cents > 0:
            out.append((kind, frm, to, cents))
    return out


def is_contest_recall(t):
    """A saved Lobo contest recall (a `contest` and its `entrants`), rather than a round's transcript."""
    return isinstance(t, dict) and isinstance(t.get("contest"), dict) and isinstance(t.get("entrants"), list)


def verify_document(t, pinned=None):
    """A Lobo contest recall, a Peg Leg recall, a version-2 round transcript, or (without
    `version`, or version 1) a shuffle transcript. The first three end with their ledger proof's
    check when they carry one, or when keys are `pinned` (a list of public keys in hex): then the
    proof is required and its head must be signed by one of them."""
    try:
        if is_contest_recall(t):
            return with_ledger_proof(verify_contest(t), t, t["contest"].get("id"), t["contest"].get("table_id"),
                                     pinned)
        if is_peg_leg_recall(t):
            rnd = t["round"] if isinstance(t["round"], dict) else {}
            return with_ledger_proof(verify_peg_leg(t), t, rnd.get("id"), rnd.get("table_id"), pinned)
        if isinstance(t, dict) and t.get("version") is not None and not same(t.get("version"), 1):
            report = verify_v2(t)
            if report["checks"] and report["checks"][0]["name"] == "transcript":
                return report  # not a readable transcript
            return with_ledger_proof(report, t, t["round_id"], t["table_id"], pinned)
        return verify(t)
    except Exception as e:  # never crash on a malformed document: report it
        name = "recall" if is_contest_recall(t) else "document" if is_peg_leg_recall(t) else "transcript"
        check = {"name": name, "passed": False, "first_mismatch": None,
                 "detail": "cannot read the %s: %s: %s" % (name, type(e).__name__, e)}
        return {"passed": False, "checks": [check]}


# --- Lobo contests (docs/lobo.md §9) -------------------------------------------------

def verify_contest(recall):
    """A saved contest recall (GET /api/v1/lobo-contests/{id}/recall), from its own contents: the
    terms, the seed against the commitment, the entrants numbered in entry order, their seeds
    combined into the contest's client seed, then per entrant n the shuffle checks of their
    transcript (entry[n].deck and so on), that it is their own deck (round id `<contest id>/<n>`,
    the contest's seeds), and their plays replayed to their total; last the transfers."""
    checks = []

    def add(name, passed, detail, first=None):
        checks.append({"name": name, "passed": passed, "first_mismatch": first, "detail": detail})

    contest = recall["contest"]
    entrants = recall["entrants"]
    if not isinstance(contest.get("id"), str) or not all(isinstance(en, dict) for en in entrants):
        raise RuleError("the contest has no id, or an entrant is not an object")

    mode, bps, fee = contest.get("mode"), contest.get("rake_basis_points"), parse_cents(contest.get("entry_fee"))
    terms = mode in LOBO_MODES and is_int(bps) and 0 <= bps <= 2000 and fee is not None
    add("terms", terms, "%s mode, entry fee %s, rake %s basis points" % (show(mode), show(contest.get("entry_fee")),
                                                                         show(bps)))

    seed_hex, commitment = contest.get("server_seed"), contest.get("commitment")
    if not isinstance(seed_hex, str):
        add("seed", False, "no server seed revealed")
    elif len(seed_hex) != 64 or not set(seed_hex) <= HEX_DIGITS:
        add("seed", False, "the revealed server seed is not 64 hex digits")
    else:
        ok = isinstance(commitment, str) and commitment.lower() == sha256_hex(bytes.fromhex(seed_hex))
        add("seed", ok, "sha256(server seed) = " + sha256_hex(bytes.fromhex(seed_hex)))

    numbers = [en.get("entry_number") for en in entrants]
    wrong = next((i for i, n in enumerate(numbers) if not same(n, i + 1)), None)
    add("entrants", wrong is None, "%d entrant(s), numbered 1 to %d in entry order" % (len(numbers), len(numbers))
        if wrong is None else "entrant %d in entry order is numbered %s" % (wrong + 1, show(numbers[wrong])), wrong)

    # Each entrant's seed ("" for none) joins the combination, sorted bytewise, as a Prima Carta
    # round's seeds do; a contest voided before entry closed fixed none and uses the combination.
    seeds = [en.get("client_seed") for en in entrants]
    seeds = [s for s in seeds if s != ""]
    problem = next((p for p in map(client_seed_problem, seeds) if p), None)
    combined = None if problem else combined_client_seed(seeds)
    fixed = contest.get("client_seed")
    if problem:
        add("entrant_seeds", False, "an entrant's seed is invalid: " + problem)
    else:
        add("entrant_seeds", fixed is None or fixed == combined,
            "%d entrant seed(s) combine to the client seed %s" % (len(seeds), combined))

    settled = contest.get("status") == "settled"
    totals = []
    for en in entrants:
        n = en.get("entry_number")
        shuffle = en.get("shuffle")
        shuffled, stream = shuffle_checks(shuffle)
        checks.extend(dict(c, name="entry[%s].%s" % (n, c["name"])) for c in shuffled)
        deck_ok = stream is not None  # the deck recomputed, as djego replays from it

        # A transcript that verifies alone may still be another entrant's deck or another
        # contest's: it must be this entrant's, from this contest's seeds.
        t = shuffle if isinstance(shuffle, dict) else {}
        round_id = "%s/%s" % (contest["id"], n)
        name = "entry[%s].deal" % n
        same_seed = isinstance(seed_hex, str) and isinstance(t.get("server_seed"), str) \
            and seed_hex.lower() == t["server_seed"].lower()
        same_commitment = isinstance(commitment, str) and isinstance(t.get("commitment"), str) \
            and commitment.lower() == t["commitment"].lower()
        if t.get("round_id") != round_id:
            add(name, False, "round id %s, where entrant %s is dealt %r" % (show(t.get("round_id")), n, round_id))
        elif not same_seed or not same_commitment:
            add(name, False, "not the contest's server seed and commitment")
        elif combined is None or t.get("client_seed") != combined:
            add(name, False, "not the entrants' combined client seed")
        else:
            add(name, True, "round id %r, the contest's seeds" % round_id)

        name = "entry[%s].plays" % n
        if not deck_ok or not terms:
            add(name, False, "not replayed: the entrant's deck or the terms did not verify")
            continue
        deck = t["deck"]
        try:
            if len(deck) != 5 * LOBO_MODES[mode]:
                raise RuleError("a %d-card deck is not a %s deck" % (len(deck), mode))
            total, in_play = play_three_rounds(deck, parse_plays(en, LOBO_MODES[mode]))
        except RuleError as e:
            add(name, False, "the plays do not replay: %s" % e)
            continue
        if settled and in_play is not None:
            add(name, False, "settled with rounds still in play")
        elif not same(en.get("total"), total):
            add(name, False, "replayed total %d where the recall says %s" % (total, show(en.get("total"))))
        else:
            totals.append(total)
            add(name, True, "%d plays replay to a total of %d" % (len(en.get("plays") or []), total))

    # The money: the entries in, then the rake and prizes (settled) or the refunds (voided) out.
    if not terms:
        add("transfers", False, "not checked: the terms did not read")
        return {"passed": False, "checks": checks}
    players = [en.get("player") for en in entrants]
    expected = [("contest_entry", "wallet:%s" % p, "pot", fee) for p in players]
    if settled:
        rake, prizes = split_pot(fee, totals, bps)
        if rake > 0:
            expected.append(("contest_rake", "pot", "house:revenue", rake))
        expected += [("contest_prize", "pot", "wallet:%s" % p, prize) for p, prize in zip(players, prizes) if prize > 0]
    else:
        expected += [("refund", "pot", "wallet:%s" % p, fee) for p in players]
    transfers = recall.get("transfers")
    if not isinstance(transfers, list) or not all(isinstance(tr, dict) for tr in transfers):
        raise RuleError("transfers is not a list of transfers")
    actual = []
    for tr in transfers:
        cents = parse_cents(tr.get("amount"))
        actual.append((tr.get("kind"), tr.get("from"), tr.get("to"), -1 if cents is None else cents))
    key = lambda x: tuple(show(v) for v in x)
    add("transfers", sorted(expected, key=key) == sorted(actual, key=key),
        "%d transfers; the pot ends at 0.00" % len(actual) if sorted(expected, key=key) == sorted(actual, key=key)
        else "expected %s, the recall shows %s" % (sorted(expected, key=key), sorted(actual, key=key)))
    return {"passed": all(c["passed"] for c in checks), "checks": checks}


# --- Peg Leg (docs/peg-leg.md) -----------------------------------------------------------

PEG_LEG_COUNTS = 11
PEG_LEG_MIN_MULTIPLIER, PEG_LEG_MAX_MULTIPLIER = 101, 100000   # hundredths, djego's pricing defaults
PEG_LEG_SAMPLES, PEG_LEG_DELTA = 30000, 1e-9                    # a simulated quote's samples and delta


def is_peg_leg_recall(t):
    """A saved Peg Leg recall (its `quotes` and its `shuffle`)."""
    return isinstance(t, dict) and isinstance(t.get("quotes"), list) and isinstance(t.get("shuffle"), dict)


def peg_leg_pass(cards):
    """The first pass dealt card by card (docs/peg-leg.md): each card onto its suit's stack when it
    plays, else onto the discard pile, then the pile's top played up while it can. The key suit is
    the first card's; returns its count after each card."""
    layout = Layout([])
    counts = []
    for card in cards:
        if layout.playable(card):
            layout.promote(card)
        else:
            layout.discard.append(card)
        while layout.discard and layout.playable(layout.discard[-1]):
            layout.promote(layout.discard.pop())
        counts.append(layout.count[suit_of(cards[0])])
    return counts


def peg_leg_offered(cents):
    cents = min(cents, PEG_LEG_MAX_MULTIPLIER)
    return cents if cents >= PEG_LEG_MIN_MULTIPLIER else None


def _kl(a, p):
    term = lambda x, y: 0.0 if x <= 0.0 else x * math.log(x / y)
    return term(a, p) + term(1.0 - a, 1.0 - p)


def kl_upper(k, n, log_inv_delta):
    """The largest p >= k/n with n * KL(k/n || p) <= log_inv_delta (Chernoff's bound), by bisection."""
    a = k / n
    if k >= n:
        return 1.0
    lo, hi = a, 1.0
    for _ in range(100):
        mid = 0.5 * (lo + hi)
        if n * _kl(a, mid) > log_inv_delta:
            hi = mid
        else:
            lo = mid
    return min(hi * (1.0 + 1e-9) + 1e-15, 1.0)


def kl_lower(k, n, log_inv_delta):
    return 0.0 if k == 0 else 1.0 - kl_upper(n - k, n, log_inv_delta)


def check_peg_leg_quote(q, counts_after, key_suit, target_bp):
    """What can be checked of a recorded quote without redoing its search or its samples: (what was
    checked, the exact probabilities or None when simulated); raises RuleError naming the first
    claim that does not hold. `counts_after[n - 1]` is the key suit's replayed count after n cards."""
    n = q.get("cards_dealt")
    quote = q.get("quote")
    if not is_int(n) or not 1 <= n <= len(counts_after) or not isinstance(quote, dict):
        raise RuleError("made after card %s, which was not dealt" % show(n))
    key_count = counts_after[n - 1]
    if not same(quote.get("cards_dealt"), n) or not same(quote.get("key_count"), key_count) \
            or quote.get("key_suit") != SUITS[key_suit]:
        raise RuleError("its position (cards dealt, key suit, key count) is not the pass's after card %d" % n)
    if not same(quote.get("target_rtp_bp"), target_bp):
        raise RuleError("its target RTP is not the table's")
    method = quote.get("method") or {}
    counts = quote.get("counts")
    if not isinstance(counts, list) or len(counts) != PEG_LEG_COUNTS \
            or not all(isinstance(c, dict) and same(c.get("count"), k) for k, c in enumerate(counts)):
        raise RuleError("it does not price the counts 0 to 10 in order")
    for k, c in enumerate(counts):
        m = c.get("multiplier_cents")
        if m is not None and not is_int(m):
            raise RuleError("count %d: its multiplier is not a whole number of hundredths" % k)
    if method.get("kind") == "exact":
        fractions = []
        for k, c in enumerate(counts):
            text = c.get("exact")
            if text is None:
                fractions.append(Fraction(0))
                continue
            num, slash, den = text.partition("/") if isinstance(text, str) else ("", "", "")
            if not (slash and num.isdigit() and den.isdigit() and num.isascii() and den.isascii() and int(den) > 0):
                raise RuleError("count %d: %s is not a fraction" % (k, show(text)))
            fractions.append(Fraction(int(num), int(den)))
        if sum(fractions) != 1:
            raise RuleError("its exact probabilities add up to %s, not 1" % sum(fractions))
        for k, (p, c) in enumerate(zip(fractions, counts)):
            if p and k < key_count:
                raise RuleError("count %d is below the key suit's count %d, yet possible" % (k, key_count))
            prob = c.get("probability")
            if not isinstance(prob, (int, float)) or isinstance(prob, bool) or abs(prob - float(p)) > 1e-12:
                raise RuleError("count %d: probability %s is not %s" % (k, show(prob), p))
            # The largest 0.01 step m with p * m <= target, in integers.
            want = peg_leg_offered(target_bp * p.denominator // (100 * p.numerator)) if p else None
            if c.get("multiplier_cents") != want:
                raise RuleError("count %d: multiplier %s, where %s gives %s" % (k, show(c.get("multiplier_cents")), p,
                                                                                 show(want)))
        return "exact probabilities add up to 1; every multiplier follows from them", fractions
    if method.get("kind") != "simulated" or not same(method.get("samples"), PEG_LEG_SAMPLES) \
            or not same(method.get("delta"), PEG_LEG_DELTA):
        raise RuleError("its method %s is neither exact nor djego's simulation" % show(method))
    samples = PEG_LEG_SAMPLES
    log_inv = math.log(2.0 * PEG_LEG_COUNTS / PEG_LEG_DELTA)
    for k, c in enumerate(counts):
        prob, lower, upper = c.get("probability"), c.get("lower"), c.get("upper")
        if not all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in (prob, lower, upper)):
            raise RuleError("count %d: its probability or bounds are not numbers" % k)
        hits = round(prob * samples)
        if float(hits) / float(samples) != prob or not 0 <= lower <= prob <= upper <= 1:
            raise RuleError("count %d: probability %s is not a share of %d samples within its bounds" %
                            (k, show(prob), samples))
        if upper == 0:
            # Not estimated: below the count, or (on trust) past a frozen card.
            if hits:
                raise RuleError("count %d: seen %d times, yet priced as impossible" % (k, hits))
        else:
            if k < key_count:
                raise RuleError("count %d is below the key suit's count %d, yet estimated" % (k, key_count))
            # Bounds no narrower than Chernoff's (up to the rounding of the logarithms).
            if upper < kl_upper(hits, samples, log_inv) * (1 - 1e-12) or \
                    lower > kl_lower(hits, samples, log_inv) * (1 + 1e-12):
                raise RuleError("count %d: the bounds [%r, %r] are narrower than %d hits in %d samples allow" %
                                (k, lower, upper, hits, samples))
        want = None
        # Only a count seen in the samples is offered: one never seen is impossible or too rare to
        # price (its bound is the samples' resolution, not its probability).
        if upper > 0 and hits > 0:
            want = peg_leg_offered(int(math.floor(target_bp / 100.0 / upper * (1.0 - 1e-12))))
        if c.get("multiplier_cents") != want:
            raise RuleError("count %d: multiplier %s, where the upper bound %r gives %s" %
                            (k, show(c.get("multiplier_cents")), upper, show(want)))
    return "bounds as wide as %d samples allow; every multiplier follows from its upper bound" % samples, None


def peg_leg_surrender(quote, exact, count, stake, multiplier):
    """What surrendering a bet pays under a checked quote, in cents, rounded down: target x stake x
    multiplier x P(count), by the exact fraction or, when simulated, by the lower bound in floating
    point, exactly as djego computes it."""
    target = quote["target_rtp_bp"]
    if exact is not None:
        p = exact[count]
        return stake * multiplier * target * p.numerator // (1000000 * p.denominator)
    lower = quote["counts"][count]["lower"]
    value = float(stake) * float(multiplier) / 100.0 * float(target) / 10000.0 * lower * (1.0 - 1e-12)
    return max(int(math.floor(value)), 0)


def peg_leg_bet_legs(wallet, bet, returned):
    """The ledger transfers a bet moved, as djego posts them."""
    stake, status = bet["stake_minor"], bet["status"]
    legs = [("bet_stake", wallet, "escrow", stake)]
    if status == "refunded":
        legs.append(("bet_refund", "escrow", wallet, stake))
    elif status == "lost":
        legs.append(("bet_collected", "escrow", "house:bankroll", stake))
    elif status == "won":
        legs.append(("bet_returned", "escrow", wallet, stake))
        if returned > stake:
            legs.append(("bet_payout", "house:bankroll", wallet, returned - stake))
    elif status == "surrendered":
        if min(returned, stake) > 0:
            legs.append(("bet_returned", "escrow", wallet, min(returned, stake)))
        if stake > returned:
            legs.append(("bet_collected", "escrow", "house:bankroll", stake - returned))
        if returned > stake:
            legs.append(("bet_payout", "house:bankroll", wallet, returned - stake))
    return legs


def verify_peg_leg(recall):
    """A saved Peg Leg recall (GET /api/v1/peg-leg-rounds/{id}/recall), from its own contents and the
    rules: the shuffle, the pass card by card with the key suit's count, the final count, what can
    be checked of every quote without redoing its search or samples, every bet's price and return,
    and every transfer. Check names and order are djego's."""
    checks = []

    def add(name, passed, detail, first=None):
        checks.append({"name": name, "passed": passed, "first_mismatch": first, "detail": detail})

    rnd, shuffle = recall["round"], recall["shuffle"]
    quotes, bets = recall["quotes"], recall.get("bets")
    parties, transfers = recall.get("parties"), recall.get("transfers")
    config = rnd.get("config") if isinstance(rnd, dict) else None
    for what, value in (("bets", bets), ("parties", parties), ("transfers", transfers), ("quotes", quotes)):
        if not isinstance(value, list) or not all(isinstance(x, dict) for x in value):
            raise RuleError("%s is not a list of objects" % what)
    if not isinstance(config, dict) or not is_int(config.get("target_rtp_bp")) or not is_int(rnd.get("cards_dealt")) \
            or not isinstance(rnd.get("cards"), list) or not all(isinstance(c, dict) for c in rnd["cards"]):
        raise RuleError("the round's config, cards dealt or cards do not read")
    shuffled, stream = shuffle_checks(shuffle)
    checks.extend(shuffled)
    if stream is None:
        add("pass", False, "not replayed: the deck did not verify")
        return {"passed": False, "checks": checks}
    deck = shuffle["deck"]
    dealt = max(0, min(rnd["cards_dealt"], len(deck)))
    counts_after = peg_leg_pass(deck[:dealt])
    shown = [(c.get("card"), c.get("key_count")) for c in rnd["cards"]]
    replayed = list(zip(deck[:dealt], counts_after))
    if shown == replayed:
        add("cards", True, "the %d card(s) shown are the deck's first, with the key suit's count after each" % dealt)
    elif [c for c, _ in shown] == deck[:dealt]:
        add("cards", False, "the key suit's count shown after a card is not the pass's")
    else:
        add("cards", False, "the cards shown are not the deck's first cards")
    status = rnd.get("status")
    final = counts_after[-1] if dealt == CARD_COUNT else None
    if status == "settled":
        add("final_count", final is not None and same(rnd.get("final_count"), final),
            "the key suit ends with %s card(s)" % final if final is not None and same(rnd.get("final_count"), final)
            else "replayed %s, recorded %s" % (show(final), show(rnd.get("final_count"))))

    target = config["target_rtp_bp"]
    good = {}
    for q in quotes:
        name = "quote[%s]" % q.get("cards_dealt")
        try:
            detail, exact = check_peg_leg_quote(q, counts_after, suit_of(deck[0]), target)
        except RuleError as e:
            add(name, False, str(e))
            continue
        good[q.get("id")] = (q, exact)
        add(name, True, detail)

    settled_count = final if status == "settled" else None
    returns = []
    for bet in bets:
        name = "bet[%s]" % bet.get("id")
        placed, _ = good.get(bet.get("quote_id"), (None, None))
        if placed is None:
            add(name, False, "placed on a quote that does not verify")
            continue
        stake, count, m = bet.get("stake_minor"), bet.get("count"), bet.get("multiplier_cents")
        if not is_int(stake) or stake <= 0:
            add(name, False, "its stake is not positive")
            continue
        offered = placed["quote"]["counts"][count]["multiplier_cents"] \
            if is_int(count) and 0 <= count < PEG_LEG_COUNTS else None
        if offered is None or not same(m, offered):
            add(name, False, "its multiplier is not the quote's for its count")
            continue
        expected = None
        kind = bet.get("status")
        if kind in ("won", "lost") and settled_count is not None and (settled_count == count) == (kind == "won"):
            expected = stake * m // 100 if kind == "won" else 0
        elif kind == "refunded" and status == "voided":
            expected = stake
        elif kind == "surrendered":
            at, exact = good.get(bet.get("surrender_quote_id"), (None, None))
            if at is not None and at["cards_dealt"] >= placed["cards_dealt"]:
                expected = peg_leg_surrender(at["quote"], exact, count, stake, m)
        if expected is None:
            add(name, False, "its outcome does not follow from the round")
            continue
        if same(bet.get("returned_minor"), expected):
            add(name, True, "returned %s" % money(expected))
            returns.append((bet, expected))
        else:
            add(name, False, "returned %s, the rules give %s" % (show(bet.get("returned_minor")), money(expected)))
            returns.append((bet, expected))

    # The money: exactly the transfers the bets and their returns imply.
    if len(returns) < len(bets):
        add("transfers", False, "not checked: a bet does not verify")
        return {"passed": all(c["passed"] for c in checks), "checks": checks}
    expected = []
    for bet, returned in returns:
        player = bet.get("player")
        party = next((p for p in parties if p.get("pseudonym") == player), None) or \
            next((p for p in parties if p.get("player_id") == player), None)
        if party is None:
            add("transfers", False, "bet %s's player %s is not among the round's parties" % (bet.get("id"), show(player)))
            return {"passed": False, "checks": checks}
        expected += peg_leg_bet_legs("wallet:%s" % party.get("pseudonym"), bet, returned)
    given = []
    for tr in transfers:
        cents = parse_cents(tr.get("amount"))
        given.append((show(tr.get("kind")), show(tr.get("from")), show(tr.get("to")), -1 if cents is None else cents))
    expected = sorted((show(k), show(a), show(b), c) for k, a, b, c in expected)
    given.sort()
    missing = [x for x in expected if expected.count(x) > given.count(x)]
    extra = [x for x in given if given.count(x) > expected.count(x)]
    describe = lambda leg: "%s %s -> %s %s" % (json.loads(leg[0]), json.loads(leg[1]), json.loads(leg[2]),
                                               money(leg[3]) if leg[3] >= 0 else "(unreadable)")
    if not missing and not extra:
        add("transfers", True, "%d transfers as the bets imply; the escrow ends at 0.00" % len(given))
    else:
        add("transfers", False, ("missing: " + describe(missing[0])) if missing else ("unexpected: " + describe(extra[0])))
    return {"passed": all(c["passed"] for c in checks), "checks": checks}


# --- Honest transcripts built from the rules (for the self-test) --------------------

HOUSE_PAY_TABLE = {
    "name": "djego-house", "version": 1,
    "prima": {"pays": "4", "ace_pays": "2"}, "escucha": {"pays": "4", "ace_pays": "2"},
    "maximo": {"pays": "4", "pair_tie": "lose"},
    "conto_alto": "6.75", "conto_bajo": "8", "conto_medio": "2",
    "cartas": [{"number": 12, "pays": "5.40"}, {"number": 13, "pays": "4.10"}, {"number": 16, "pays": "8.50"}],
    "comeco": [{"n_from": a, "n_to": b, "pays": p} for a, b, p in
               ((10, 10, "6"), (11, 11, "1"), (17, 17, "1"), (18, 18, "3"), (19, 19, "5"), (20, 20, "10"),
                (21, 21, "20"), (22, 22, "30"), (23, 50, "50"))],
}


def shuffle_transcript(server_seed, game, round_id, client_seeds, max_rank=10):
    """A version-1 transcript (no reshuffle yet) and the stream just after the deck shuffle."""
    client_seed = combined_client_seed(client_seeds) if game == "prima_carta" else \
        (client_seeds[0] if client_seeds else "")
    shuffler = Shuffler(deck_seed(server_seed, game, round_id, client_seed))
    deck = ordered_deck(max_rank)
    shuffler.shuffle(deck)
    return {"algorithm": ALGORITHM, "game": game, "round_id": round_id, "server_seed": server_seed.hex(),
            "commitment": sha256_hex(server_seed), "client_seeds": list(client_seeds), "client_seed": client_seed,
            "deck": deck, "reshuffles": []}, shuffler


def honest_prima_carta(server_seed, round_id, rules, seated, pay, bets, voided=False, carried_cents=0):
    """A settled (or voided) Prima Carta round. `seated`: suit indexes; `pay(suit, stack)` the copa
    decision; `bets`: (player, kind, suit index or None, number or None, stake cents)."""
    shuffle, stream = shuffle_transcript(server_seed, "prima_carta", round_id, ["table"])
    deck = shuffle["deck"]
    seats = [(suit, "P%d" % (i + 1)) for i, suit in enumerate(sorted(seated))]
    names = [p for _, p in seats] + [b[0] for b in bets]
    parsed = parse_prima_rules(rules)
    decisions = []
    if not voided:
        layout = Layout(deck)
        layout.start_pass()
        if layout.run_pass(lambda s: parsed["variant"] != "cinco" and s in seated) is None \
                and parsed["variant"] != "cinco":
            live = list(copa_order(layout.prima, seated))
            for suit in copa_order(layout.prima, seated):
                if len(live) == 1:
                    break
                decisions.append((suit, pay(suit, layout.count[suit])))
                if not decisions[-1][1]:
                    live.remove(suit)
    t = {"transcript": "djego-round", "version": 2, "game": "prima_carta", "round_id": round_id,
         "table_id": "table-1", "number": 1, "status": "voided" if voided else "settled",
         "shuffle": shuffle, "rules": rules,
         "pay_tables": [{"fingerprint": fingerprint(HOUSE_PAY_TABLE), "id": "pt-1", "spec": HOUSE_PAY_TABLE}],
         "players": [{"pseudonym": p, "you": False} for p in dict.fromkeys(names)],
         "seats": [{"suit": SUITS[s], "player": p} for s, p in seats],
         "decisions": [{"suit": SUITS[s], "pay": p} for s, p in decisions], "plays": [],
         "carried_cobre_in": money(carried_cents), "outcome": None, "events": [], "deal_out_events": []}
    s = {"settled": not voided, "rules": parsed, "seats": seats, "replay": None, "bets": []}
    if not voided:
        s["replay"] = play_prima_carta(deck, parsed, list(seated), decisions, stream.copy().shuffle)
        facts, t["deal_out_events"] = deal_out(deck, parsed["variant"], stream.copy().shuffle)
        t["outcome"] = dict(s["replay"][0], facts=dict(facts, foundations=dict(zip(SUITS, facts["foundations"]))))
        t["events"] = s["replay"][1]
        # The main game's reshuffle, else the deal-out's (a Jasper round won at the copa).
        shuffle["reshuffles"] = s["replay"][2] or [{"before": e["before"], "after": e["after"]}
                                                   for e in t["deal_out_events"] if e["type"] == "reshuffled"]
    t["bets"] = []
    for player, kind, suit, number, stake in bets:
        result = settle_bet(kind, suit, number, HOUSE_PAY_TABLE, facts) if not voided else ("refunded", None)
        returned = stake if voided else returned_cents(stake, result)
        s["bets"].append((player, stake, result[0], returned))
        t["bets"].append({"player": player, "kind": kind, "suit": None if suit is None else SUITS[suit],
                          "number": number, "amount": money(stake), "pay_table": fingerprint(HOUSE_PAY_TABLE),
                          "status": result[0], "returned": money(returned)})
    transfers = expected_transfers(t, s)
    t["transfers"] = [{"seq": i + 1, "kind": k, "from": a, "to": b, "amount": money(c), "hash": "0" * 64}
                      for i, (k, a, b, c) in enumerate(transfers)]
    return t


def with_fuerza_bets(t, bets):
    """A copy of an honest Jasper round with Fuerza bets: `bets` are (player, decisions, stake cents),
    each on the first suit that had paid the copa and has a price, quoted from independent draws (not
    djego's: this script has no ChaCha8); a bet the round cannot take is left out."""
    t = json.loads(json.dumps(t))
    position = fuerza_position(t["shuffle"]["deck"])
    made = [(SUITS.index(d["suit"]), d["pay"]) for d in t["decisions"]]
    seated = [SUITS.index(seat["suit"]) for seat in t["seats"]]
    t["fuerza_bets"] = []
    for player, k, stake in bets:
        if position is None or not 1 <= k <= len(made):
            continue
        paid = [suit for suit, pay in made[:k] if pay]
        undecided = [suit for suit in seated if suit not in {d for d, _ in made[:k]}]
        if len(paid) + len(undecided) < 2:
            continue
        wins, wins_if_all_pay = fuerza_estimate(position, tuple(paid), tuple(undecided),
                                                "honest/%s/%d" % (t["round_id"], k))
        scaled = {suit: (wins[suit] * FUERZA_SAMPLES // FUERZA_DRAWS,
                         wins_if_all_pay[suit] * FUERZA_SAMPLES // FUERZA_DRAWS) for suit in paid}
        priced = [suit for suit in paid if fuerza_price(scaled[suit][0], FUERZA_SAMPLES)]
        if not priced:
            continue
        suit = priced[0]
        price = fuerza_price(scaled[suit][0], FUERZA_SAMPLES)
        won = t["outcome"]["winner"] == SUITS[suit]
        returned = stake * price // 100 if won else 0
        t["fuerza_bets"].append({"player": player, "suit": SUITS[suit], "stake": money(stake),
                                 "quote": {"algorithm": FUERZA_ALGORITHM, "decisions": k, "samples": FUERZA_SAMPLES,
                                           "wins": scaled[suit][0], "wins_if_all_pay": scaled[suit][1],
                                           "price": money(price)},
                                 "status": "won" if won else "lost", "returned": money(returned)})
        if player not in [p["pseudonym"] for p in t["players"]]:
            t["players"].append({"pseudonym": player, "you": False})
        wallet = "wallet:" + player
        legs = [("bet_stake", wallet, "escrow", stake)]
        if won:
            legs.append(("bet_returned", "escrow", wallet, stake))
            legs += [("bet_payout", "house:bankroll", wallet, returned - stake)] if returned > stake else []
        else:
            legs.append(("bet_collected", "escrow", "house:bankroll", stake))
        t["transfers"] += [{"seq": len(t["transfers"]) + 1, "kind": kind, "from": a, "to": b, "amount": money(c),
                            "hash": "0" * 64} for kind, a, b, c in legs]
    return t


def honest_lobo(server_seed, round_id, rules, choose):
    """A settled Lobo round; `choose(player, wolf)` picks the play (kind, player_cards, wolf_cards)."""
    parsed = parse_lobo_rules(rules)
    shuffle, _ = shuffle_transcript(server_seed, "lobo", round_id, [], LOBO_MODES[parsed["mode"]])
    deck = shuffle["deck"]
    plays = []
    while True:
        try:
            result = play_lobo(deck, plays)
            break
        except RuleError:  # not over yet: the next play
            state = lobo_hands(deck, plays)
            plays.append(choose(*state))
    s = {"rules": parsed, "result": result, "player": "P1"}
    outcome = dict(result, paid_points=result["points"] if result["player_won"] else min(result["points"], parsed["cap"]))
    transfers = expected_lobo_transfers(s)
    return {"transcript": "djego-round", "version": 2, "game": "lobo", "round_id": round_id, "table_id": "t",
            "number": 1, "status": "settled", "shuffle": shuffle, "rules": rules, "pay_tables": [],
            "players": [{"pseudonym": "P1", "you": True}], "seats": [{"player": "P1"}],
            "decisions": [],
            "plays": [{"kind": k, "player_cards": sorted(p), "wolf_cards": sorted(w)} for k, p, w in plays],
            "bets": [], "outcome": outcome,
            "transfers": [{"seq": i + 1, "kind": k, "from": a, "to": b, "amount": money(c), "hash": "0" * 64}
                          for i, (k, a, b, c) in enumerate(transfers)]}


def honest_contest(server_seed, contest_id, entrant_seeds, choose, fee="10.00", rake_bps=500):
    """A settled easy-mode contest's recall: entrant n (seed entrant_seeds[n - 1], "" for none)
    plays their own deck, round id `<contest_id>/<n>`, by `choose(player, wolf)`."""
    combined = combined_client_seed([s for s in entrant_seeds if s])
    entrants = []
    for n, seed in enumerate(entrant_seeds, 1):
        shuffle, _ = shuffle_transcript(server_seed, "lobo", "%s/%d" % (contest_id, n), [combined], LOBO_MODES["easy"])
        plays = []
        total, in_play = play_three_rounds(shuffle["deck"], plays)
        while in_play is not None:
            plays.append(choose(*in_play))
            total, in_play = play_three_rounds(shuffle["deck"], plays)
        entrants.append({"entry_number": n, "player": "P%d" % n, "client_seed": seed, "shuffle": shuffle,
                         "plays": [{"kind": k, "player_cards": sorted(p), "wolf_cards": sorted(w)} for k, p, w in plays],
                         "total": total})
    fee_cents = parse_cents(fee)
    rake, prizes = split_pot(fee_cents, [en["total"] for en in entrants], rake_bps)
    moves = [("contest_entry", "wallet:" + en["player"], "pot", fee_cents) for en in entrants]
    moves += [("contest_rake", "pot", "house:revenue", rake)] if rake else []
    moves += [("contest_prize", "pot", "wallet:" + en["player"], p) for en, p in zip(entrants, prizes) if p]
    contest = {"id": contest_id, "status": "settled", "mode": "easy", "entry_fee": fee, "rake_basis_points": rake_bps,
               "commitment": sha256_hex(server_seed), "client_seed": combined, "server_seed": server_seed.hex()}
    return {"contest": contest, "entrants": entrants,
            "transfers": [{"seq": i + 1, "kind": k, "from": a, "to": b, "amount": money(c), "hash": ""}
                          for i, (k, a, b, c) in enumerate(moves)]}


def peg_leg_exact_quote(deck, n, target_bp=9500):
    """The exact quote after card n of `deck`, by every order of the undealt cards (a handful of
    cards left only), priced as djego prices: for the self-test."""
    import itertools
    rest = deck[n:]
    tally = [0] * PEG_LEG_COUNTS
    for order in itertools.permutations(rest):
        tally[peg_leg_pass(deck[:n] + list(order))[-1]] += 1
    total = sum(tally)
    counts = []
    for k, orders in enumerate(tally):
        p = Fraction(orders, total)
        counts.append({"count": k, "probability": orders / total, "exact": "%d/%d" % (p.numerator, p.denominator)
                       if orders else None, "lower": 0.0, "upper": 0.0,
                       "multiplier_cents": peg_leg_offered(target_bp * p.denominator // (100 * p.numerator))
                       if orders else None})
    return {"cards_dealt": n, "key_suit": SUITS[suit_of(deck[0])], "key_count": peg_leg_pass(deck[:n])[-1],
            "target_rtp_bp": target_bp, "method": {"kind": "exact", "states": total}, "counts": counts}


def honest_peg_leg(server_seed, round_id, first_quote=44):
    """A settled Peg Leg round's recall with exact quotes after cards `first_quote`..49 and three
    bets by two players (P1 holds one and surrenders one, P2 holds one), recalled as djego recalls
    it; None when no quote offers two counts."""
    shuffle, _ = shuffle_transcript(server_seed, "prima_carta", round_id, [])
    deck = shuffle["deck"]
    counts_after = peg_leg_pass(deck)
    first = peg_leg_exact_quote(deck, first_quote)
    offered = [c["count"] for c in first["counts"] if c["multiplier_cents"]]
    if len(offered) < 2:
        return None
    quotes = [{"id": "q%d" % n, "cards_dealt": n, "simulation_seed": None, "created_at_us": n,
               "quote": first if n == first_quote else peg_leg_exact_quote(deck, n)}
              for n in range(first_quote, CARD_COUNT)]
    final = counts_after[-1]
    surrender_at = quotes[2]
    bets = []
    for i, (player, count, stake) in enumerate((("P1", offered[0], 1000), ("P1", offered[1], 750),
                                                ("P2", offered[-1], 333))):
        m = quotes[0]["quote"]["counts"][count]["multiplier_cents"]
        bet = {"id": "bet-%d" % (i + 1), "player": player, "count": count, "stake_minor": stake,
               "multiplier_cents": m, "quote_id": quotes[0]["id"], "status": "won" if count == final else "lost",
               "surrender_quote_id": None, "returned_minor": stake * m // 100 if count == final else 0}
        if i == 1:
            exact = [Fraction(c["exact"]) if c["exact"] else Fraction(0) for c in surrender_at["quote"]["counts"]]
            bet.update(status="surrendered", surrender_quote_id=surrender_at["id"],
                       returned_minor=peg_leg_surrender(surrender_at["quote"], exact, count, stake, m))
        bets.append(bet)
    legs = [leg for bet in bets for leg in peg_leg_bet_legs("wallet:" + bet["player"], bet, bet["returned_minor"])]
    cards = [{"index": i, "card": c, "key_count": k, "events": []} for i, (c, k) in enumerate(zip(deck, counts_after))]
    config = {"min_bet": "1.00", "max_bet": "50.00", "max_exposure_per_round": "120.00", "target_rtp_bp": 9500,
              "betting_window_ms": 0}
    rnd = {"id": round_id, "table_id": "t", "number": 1, "status": "settled", "commitment": shuffle["commitment"],
           "client_seed": shuffle["client_seed"], "cards_dealt": CARD_COUNT, "cards": cards,
           "key_suit": SUITS[suit_of(deck[0])], "key_count": final, "settled_count": final, "final_count": final,
           "quote": None, "window_closes_at_us": None, "bets": [], "server_seed": server_seed.hex(),
           "config": config, "created_at_us": 0, "updated_at_us": 0}
    return {"round": rnd, "shuffle": shuffle, "quotes": quotes, "bets": bets,
            "parties": [{"pseudonym": "P1", "you": False}, {"pseudonym": "P2", "you": False}],
            "transfers": [{"seq": i + 1, "kind": k, "from": a, "to": b, "amount": money(c), "hash": ""}
                          for i, (k, a, b, c) in enumerate(legs)],
            "verification": {"passed": True, "checks": []}}


def lobo_hands(deck, plays):
    """The player's and the Wolf's hands after `plays` (a round still in play)."""
    wolf, player, nxt = sorted(deck[0:4]), sorted(deck[4:8]), 8
    for kind, pcards, wcards in plays:
        player = [c for c in player if c not in pcards]
        wolf = [c for c in wolf if c not in wcards]
        dealt = 1 if kind != "over" else rank_of(pcards[0]) - rank_of(wcards[0])
        for _ in range(dealt):
            if nxt < len(deck):
                (player if kind in ("perfect", "sum") else wolf).append(deck[nxt])
                nxt += 1
    return sorted(player), sorted(wolf)


def simple_lobo_choice(player, wolf):
    """Perfect, else the smallest Over, else a two-card Sum, else a Split, else fold."""
    for p in player:
        for w in wolf:
            if rank_of(p) == rank_of(w):
                return ("perfect", [p], [w])
    overs = sorted((rank_of(p) - rank_of(w), p, w) for p in player for w in wolf if rank_of(p) > rank_of(w))
    if overs and overs[0][0] <= 2:
        return ("over", [overs[0][1]], [overs[0][2]])
    for i, a in enumerate(player):
        for b in player[i + 1:]:
            for w in wolf:
                if rank_of(a) + rank_of(b) == rank_of(w):
                    return ("sum", [a, b], [w])
    for p in player:
        for i, a in enumerate(wolf):
            for b in wolf[i + 1:]:
                if rank_of(a) + rank_of(b) == rank_of(p):
                    return ("split", [p], [a, b])
    return ("fold", [], [])


def _rule_tests():
    """Small hand-made cases of the rules."""
    # An ordered deck: every card follows the one before, so Crowns completes first, at card 10.
    deck = ordered_deck(10)
    rules = {"variant": "classic", "corte": True, "cobre": "off"}
    outcome, events, reshuffles, copas = play_prima_carta(deck, rules, [0, 3], [], None)
    assert outcome["winner"] == "crowns" and outcome["how"] == "first_pass_completion" and outcome["passes"] == 1
    assert outcome["corte_payer"] == "crowns" and outcome["pot_units"] == 2 and not copas
    assert [e["type"] for e in events[-3:]] == ["suit_completed", "corte", "won"]
    assert events[1] == {"type": "dealt", "pass": 1, "card": 0, "to": "foundation", "stack_count": 1}
    assert events[2] == {"type": "prima", "suit": "crowns"}
    try:
        play_prima_carta(deck, rules, [0, 3], [(0, True)], None)
        raise AssertionError("a copa after an early end is refused")
    except RuleError as e:
        assert "no copa decision is pending" in str(e)
    facts, _ = deal_out(deck, "classic", None)
    assert facts["first_pass_count"] == 50 and facts["first_to_complete"] == "crowns"
    assert facts["foundations"] == [0, 10, 20, 30, 40] and facts["first_card"] == 0
    # The Ace follows the 10; the play-up before each card and after the last.
    deck = [9, 0, 2, 1] + [c for c in ordered_deck(10) if c not in (9, 0, 2, 1)]
    layout = Layout(deck)
    layout.start_pass()
    layout.run_pass(lambda s: False)
    assert layout.foundation[0] == 9 and layout.count[0] == 10
    assert {"type": "played_up", "pass": 1, "card": 2, "stack_count": 4} in layout.events
    # Copa order from an unowned Prima (Fruit): Swords, Cups, Locks.
    assert copa_order(2, [1, 3, 4]) == [3, 4, 1]
    # Side bets: the rounding of winnings toward zero to the cent.
    assert returned_cents(125, ("won", Fraction("5.40"))) == 800
    assert returned_cents(5, ("won", Fraction("0.5"))) == 7
    assert returned_cents(333, ("won", Fraction(4))) == 1665
    assert returned_cents(1000, ("pushed", None)) == 1000 and returned_cents(1000, ("lost", None)) == 0
    ordered_facts = {"first_card": 0, "foundations": [0, 10, 20, 30, 40], "first_pass_count": 50,
                     "first_to_complete": "crowns"}
    spec = HOUSE_PAY_TABLE
    assert settle_bet("prima", 0, None, spec, ordered_facts) == ("won", 2)  # an Ace first: ace_pays
    assert settle_bet("maximo", 1, None, spec, ordered_facts) == ("won", 4)  # five-way tie wins
    assert settle_bet("comeco", None, None, spec, ordered_facts) == ("won", 50)
    assert settle_bet("cartas", None, 12, spec, ordered_facts) == ("lost", None)
    pair = dict(ordered_facts, foundations=[9, 19, 20, 30, 40])
    assert settle_bet("maximo", 0, None, spec, pair) == ("lost", None)
    assert settle_bet("maximo", 0, None, dict(spec, maximo={"pays": "4", "pair_tie": "push"}), pair) == ("pushed", None)
    # The fingerprint is over the canonical form: key order in the document carries no meaning.
    reordered = dict(reversed(list(dict(spec, name="ñ").items())))
    assert list(reordered)[0] == "comeco" and fingerprint(reordered) == fingerprint(dict(spec, name="ñ"))
    assert json.dumps(canonical_spec(reordered), ensure_ascii=False, separators=(",", ":")).startswith('{"name":"ñ",')
    # The house table is certifiable; Conto Alto at 50:1 returns 6.37 times the stakes and is not.
    assert uncertified_bet(spec) is None
    assert uncertified_bet(dict(spec, conto_alto="50")).startswith("conto_alto returns 636.549%")
    assert check_pay_table(spec) is None and check_pay_table(dict(spec, conto_alto="8.001")) is not None
    # Lobo: Wolf 3,5,7,8 (Crowns); player 3,2,1,4 (Locks); cub Fruit 6.
    wolf, player = [2, 4, 6, 7], [12, 11, 10, 13]
    lobo_deck = wolf + player + [25] + [c for c in ordered_deck(8) if c not in wolf + player + [25]]
    assert lobo_hands(lobo_deck, [("perfect", [12], [2])]) == ([10, 11, 13, 25], [4, 6, 7])
    try:
        play_lobo(lobo_deck, [("over", [12], [2])])
        raise AssertionError("a Perfect stated as an Over is refused")
    except RuleError as e:
        assert "stated over, the cards make perfect" in str(e)
    result = play_lobo(lobo_deck, [("perfect", [12], [2]), ("fold", [], [])])
    assert result == {"player_won": False, "points": 5 + 7 + 8, "reason": "folded", "wolf_opening_points": 23}
    try:
        play_lobo(lobo_deck, [("fold", [], []), ("fold", [], [])])
        raise AssertionError("a play after the end is refused")
    except RuleError as e:
        assert "already over" in str(e)
    assert has_capture([10, 11], [2]) and not has_capture([10], [5, 6]) and has_capture([14], [0, 2])
    # The house rule's charge rounds up to the cent.
    assert lobo_charge_cents(100, 904, 0, 18) == 904 and lobo_charge_cents(33, 904, 0, 18) == 299
    assert lobo_charge_cents(100, 0, 0, 18) == 0 and lobo_charge_cents(1, 0, 1, 3) == 1


def _round_tests():
    """Honest rounds verify; doctored ones fail at the right check."""
    rng = random.Random(7)
    prima_rules = {"variant": "classic", "unit": "1.00", "seat_fee": "0.25", "corte": True, "cobre": "carry",
                   "min_bet": "1.00", "max_bet": "100.00", "max_exposure_per_round": "500.00",
                   "strategy_advice": True}
    variants = ["classic", "cinco", "jasper"]
    reports = []
    for n in range(24):
        rules = dict(prima_rules, variant=variants[n % 3], cobre=["off", "carry", "house"][n % 2 + n % 3 // 2],
                     seat_fee=None if n % 4 else "0.25", corte=n % 5 != 0)
        seated = sorted(rng.sample(range(5), rng.randint(2, 5)))
        bets = [("P%d" % (len(seated) + 1), kind, rng.randrange(5) if kind in SUIT_BETS else None,
                 rng.choice([12, 13, 16]) if kind == "cartas" else None, rng.choice([5, 100, 125, 333]))
                for kind in BET_KINDS]
        t = honest_prima_carta(bytes([n]) * 32, "r-%d" % n, rules, seated, lambda s, k: rng.random() < 0.6,
                               bets, voided=n == 23, carried_cents=150 if n % 6 == 1 else 0)
        reports.append((t, verify_document(t)))
    for n, mode in enumerate(("easy", "ordinary", "hard")):
        rules = {"mode": mode, "unit": "0.33", "loss_cap_points": 20,
                 "house_rule": {"fee_per_round_hundredths": 904, "ante_per_wolf_point_hundredths": 5}, "hints": True}
        t = honest_lobo(bytes([100 + n]) * 32, "lobo-%d" % n, rules, simple_lobo_choice)
        reports.append((t, verify_document(t)))
    for t, report in reports:
        assert report["passed"], [c for c in report["checks"] if not c["passed"]]
    assert any(t["shuffle"]["reshuffles"] for t, _ in reports), "some Jasper round reshuffles"

    def failed(t):
        return [c["name"] for c in verify_document(t)["checks"] if not c["passed"]]
    prima = next(t for t, _ in reports if t["game"] == "prima_carta" and t["decisions"] and t["bets"])
    doctored = json.loads(json.dumps(prima))
    doctored["decisions"][0]["pay"] = not doctored["decisions"][0]["pay"]
    assert failed(doctored)
    doctored["decisions"][0]["suit"] = next(s for s in SUITS if s != doctored["decisions"][0]["suit"])
    assert failed(doctored)[0] == "play"
    doctored = json.loads(json.dumps(prima))
    doctored["bets"][0]["returned"] = money(parse_cents(doctored["bets"][0]["returned"], False) + 1)
    assert failed(doctored) == ["bets", "transfers"]
    doctored = json.loads(json.dumps(prima))
    doctored["transfers"][0]["amount"] = "0.99"
    assert failed(doctored) == ["transfers"]
    doctored = json.loads(json.dumps(prima))
    doctored["outcome"]["facts"]["first_pass_count"] += 1
    assert failed(doctored) == ["outcome"]
    doctored = json.loads(json.dumps(prima))
    doctored["events"][3]["card"] = 99
    assert failed(doctored) == ["events"]
    doctored = json.loads(json.dumps(prima))
    doctored["pay_tables"][0]["spec"]["conto_alto"] = "9"
    assert failed(doctored) == ["pay_tables", "bets", "transfers"]
    doctored = json.loads(json.dumps(prima))
    doctored["seats"][0]["suit"] = "hearts"
    assert failed(doctored) == ["play", "events", "outcome", "confidence_bets", "fuerza_bets", "transfers"]
    lobo = reports[-1][0]
    doctored = json.loads(json.dumps(lobo))
    doctored["plays"] = doctored["plays"][:-1]
    assert failed(doctored) == ["play", "outcome", "transfers"]
    # Voided by a pit boss before its last play: the escrow and the charge go back.
    voided = dict(json.loads(json.dumps(lobo)), status="voided", outcome=None)
    voided["plays"] = voided["plays"][:-1]
    refunds = [dict(tr, kind="refund", **{"from": tr["to"], "to": tr["from"]})
               for tr in voided["transfers"] if tr["kind"] in ("lobo_escrow", "lobo_fee")]
    voided["transfers"] = [tr for tr in voided["transfers"] if tr["kind"] in ("lobo_escrow", "lobo_fee")] + refunds
    assert not failed(voided), failed(voided)
    assert failed(dict(voided, plays=lobo["plays"])) == ["play", "outcome", "transfers"]
    assert failed(dict(voided, transfers=voided["transfers"][:-1])) == ["transfers"]
    _fuerza_tests([t for t, _ in reports if t["game"] == "prima_carta"], lobo)
    _contest_tests()
    _peg_leg_tests()
    for junk in (None, [], "x", {"version": 2}, {"version": 2, "shuffle": prima["shuffle"], "seats": 5},
                 dict(prima, decisions=[{"suit": "cups"}] * 3), dict(prima, bets=[1]), dict(lobo, plays=[{"kind": 3}])):
        assert not verify_document(junk)["passed"]


def _fuerza_tests(prima_rounds, lobo):
    """The fast repasso deals as the full replay does; prices as djego's; honest Fuerza bets verify
    and doctored ones fail at the right check."""
    # As the Rust engine's tests: an even chance pays 1.90, 1 in 3 2.85, 1 in 7 6.65, all rounded down;
    # a sure thing and a chance under 2% get no price.
    for wins, samples, price in ((500, 1000, 190), (1000, 3000, 285), (1000, 7000, 665), (3, 7, 221),
                                 (1000, 1000, None), (19, 1000, None), (20, 1000, 4750), (0, 1000, None)):
        assert fuerza_price(wins, samples) == price, (wins, samples)
    # The fast repasso against the replay of whole Jasper rounds: the same pile, and the same winner
    # for the same reshuffle, whoever folded.
    rng = random.Random(11)
    rules = {"variant": "jasper", "corte": False, "cobre": "off"}
    compared = 0
    for _ in range(300):
        deck = list(range(CARD_COUNT))
        rng.shuffle(deck)
        position = fuerza_position(deck)
        if position is None:
            continue
        seated = sorted(rng.sample(range(5), rng.randint(2, 5)))
        decisions, live = [], copa_order(suit_of(deck[0]), seated)
        for suit in copa_order(suit_of(deck[0]), seated):
            if len(live) == 1:
                break
            decisions.append((suit, rng.random() < 0.7))
            if not decisions[-1][1]:
                live.remove(suit)
        reshuffle = random.Random(rng.random()).shuffle  # a known order, recorded in the reshuffle's `after`
        outcome, _, reshuffles, _ = play_prima_carta(deck, rules, seated, decisions, reshuffle)
        if outcome["how"] != "repasso_completion":
            continue
        after = reshuffles[0]["after"]
        assert reshuffles[0]["before"] == list(position[2])
        assert repasso_first(position, after, set(live), set(live))[0] == SUITS.index(outcome["winner"])
        # The first of all seated to complete is the same whoever is live.
        assert repasso_first(position, after, set(live), set(seated))[1] == \
            repasso_first(position, after, set(seated), set(seated))[0]
        compared += 1
    assert compared > 100, compared

    def failed(t):
        return [c["name"] for c in verify_document(t)["checks"] if not c["passed"]]

    def names(t):
        return [c["name"] for c in verify_document(t)["checks"]]
    plain = prima_rounds[0]
    assert names(plain)[-3:] == ["confidence_bets", "fuerza_bets", "transfers"], names(plain)
    jasper = [t for t in prima_rounds if t["rules"]["variant"] == "jasper" and t["status"] == "settled"]
    honest = []
    for t in jasper:  # two rounds are enough: each quote takes a moment to draw
        t = with_fuerza_bets(t, [("P%d" % (len(t["players"]) + 1), 2, 1000), ("P1", len(t["decisions"]), 333)])
        if t["fuerza_bets"]:
            honest.append(t)
        if len(honest) == 2:
            break
    assert len(honest) == 2 and any(len(t["fuerza_bets"]) == 2 for t in honest)
    assert any(b["status"] == "won" for t in honest for b in t["fuerza_bets"])
    for t in honest:
        assert not failed(t), [c for c in verify_document(t)["checks"] if not c["passed"]]
    t = next(t for t in honest if len(t["fuerza_bets"]) == 2)
    bet = t["fuerza_bets"][0]

    def doctored(change, quote=False):
        d = json.loads(json.dumps(t))
        change(d["fuerza_bets"][0]["quote"] if quote else d["fuerza_bets"][0])
        return d
    price = parse_cents(bet["quote"]["price"])
    assert failed(doctored(lambda q: q.update(price=money(price + 1)), quote=True)) == ["fuerza_bets", "transfers"]
    # Counts far from the chance, with the price they would give.
    for name in ("wins", "wins_if_all_pay"):
        def off(q):
            q[name] = (q[name] + 6554) % FUERZA_SAMPLES
            q["wins"] = max(q["wins"], q["wins_if_all_pay"])
            q["price"] = money(fuerza_price(q["wins"], FUERZA_SAMPLES) or 101)
        d = doctored(off, quote=True)
        assert failed(d) == ["fuerza_bets", "transfers"], d["fuerza_bets"][0]
        assert "quote's %s is" % name in verify_document(d)["checks"][-2]["detail"]
    for change in (lambda q: q.update(wins_if_all_pay=q["wins"] + 1), lambda q: q.update(decisions=0),
                   lambda q: q.update(decisions=len(t["decisions"]) + 1), lambda q: q.update(samples=65535),
                   lambda q: q.update(algorithm="fuerza-quote-v2")):
        assert failed(doctored(change, quote=True)) == ["fuerza_bets", "transfers"]
    k = bet["quote"]["decisions"]
    unpaid = next(s for s in SUITS if {"suit": s, "pay": True} not in t["decisions"][:k])
    for change in (lambda b: b.update(status="lost" if b["status"] == "won" else "won"),
                   lambda b: b.update(returned=money(parse_cents(b["returned"], False) + 1)),
                   lambda b: b.update(suit=unpaid), lambda b: b.update(suit="hearts"), lambda b: b.update(stake="0")):
        assert failed(doctored(change)) == ["fuerza_bets", "transfers"]
    assert failed(doctored(lambda q: q.update(odds="2.00"), quote=True)) == ["transcript"]
    assert failed(dict(t, transfers=t["transfers"][:-1])) == ["transfers"]
    # Only a settled Jasper round quotes a Fuerza; a Lobo round has none.
    voided = next(r for r in prima_rounds if r["status"] == "voided")
    classic = next(r for r in prima_rounds if r["rules"]["variant"] == "classic" and r["decisions"])
    for r in (voided, classic):
        assert failed(dict(r, fuerza_bets=[dict(bet, player="P1")])) == ["fuerza_bets", "transfers"]
    assert failed(dict(lobo, fuerza_bets=[dict(bet, player="P1")])) == ["bets", "transfers"]


def _contest_tests():
    """An honest contest recall verifies; one showing an entrant another's deck, a deck card
    swapped, seeds that do not combine or a prize moved fails at the right check."""
    contest_id = "0190f3a2-0000-7000-8000-000000007c1d"
    honest = honest_contest(bytes([42]) * 32, contest_id, ["north", "", "south"], simple_lobo_choice)
    assert any(en["plays"][0]["kind"] != "fold" for en in honest["entrants"]), "some capture is played"

    def failed(recall):
        return [c["name"] for c in verify_document(recall)["checks"] if not c["passed"]]
    assert not failed(honest), failed(honest)
    names = [c["name"] for c in verify_document(honest)["checks"]]
    assert names[:4] == ["terms", "seed", "entrants", "entrant_seeds"] and names[-1] == "transfers"
    assert names[4:13] == ["entry[1].%s" % n for n in ("algorithm", "game", "server_seed", "commitment", "client_seeds",
                                                        "client_seed", "deck", "deal", "plays")], names
    # Entrant 2 shown entrant 1's deck: a transcript that verifies alone, not theirs.
    doctored = json.loads(json.dumps(honest))
    doctored["entrants"][1]["shuffle"] = doctored["entrants"][0]["shuffle"]
    assert "entry[2].deal" in failed(doctored) and "entry[2].deck" not in failed(doctored)
    doctored = json.loads(json.dumps(honest))
    deck = doctored["entrants"][0]["shuffle"]["deck"]
    deck[10], deck[30] = deck[30], deck[10]
    assert failed(doctored)[:2] == ["entry[1].deck", "entry[1].plays"], failed(doctored)
    doctored = json.loads(json.dumps(honest))
    doctored["entrants"][2]["client_seed"] = "west"
    assert failed(doctored)[0] == "entrant_seeds"
    doctored = json.loads(json.dumps(honest))
    doctored["contest"]["server_seed"] = "00" * 32
    assert failed(doctored)[0] == "seed"
    doctored = json.loads(json.dumps(honest))
    doctored["entrants"][0]["entry_number"] = 2
    assert failed(doctored)[0] == "entrants"
    doctored = json.loads(json.dumps(honest))
    doctored["entrants"][1]["total"] += 1
    assert failed(doctored)[0] == "entry[2].plays"
    doctored = json.loads(json.dumps(honest))
    prize = next(tr for tr in doctored["transfers"] if tr["kind"] == "contest_prize")
    prize["to"] = "wallet:P9"
    assert failed(doctored) == ["transfers"]
    for junk in ({"contest": {}, "entrants": []}, {"contest": {"id": contest_id}, "entrants": [1]},
                 dict(honest, transfers=None)):
        assert not verify_document(junk)["passed"]


def _peg_leg_tests():
    """An honest Peg Leg recall verifies; a doctored quote, bet or transfer fails at the right check."""
    honest = honest_peg_leg(bytes([96]) * 32, "peg-36")  # a seed whose quote after card 44 offers two counts
    assert honest is not None

    def failed(recall):
        return [c["name"] for c in verify_document(recall)["checks"] if not c["passed"]]
    assert not failed(honest), [c for c in verify_document(honest)["checks"] if not c["passed"]]
    names = [c["name"] for c in verify_document(honest)["checks"]]
    assert names[7:9] == ["cards", "final_count"] and names[-1] == "transfers", names
    assert names[9:15] == ["quote[%d]" % n for n in range(44, 50)], names
    copy = lambda: json.loads(json.dumps(honest))
    doctored = copy()
    doctored["transfers"][0]["amount"] = money(parse_cents(doctored["transfers"][0]["amount"]) + 1)
    assert failed(doctored) == ["transfers"]
    doctored = copy()
    back = next(tr for tr in doctored["transfers"] if tr["to"].startswith("wallet:"))
    back["to"] = "wallet:P9"
    assert failed(doctored) == ["transfers"]
    assert failed(dict(copy(), transfers=[])) == ["transfers"]
    doctored = copy()
    gone = doctored["bets"].pop()
    doctored["transfers"] = [tr for tr in doctored["transfers"]
                             if not (tr["kind"] == "bet_stake" and tr["from"] == "wallet:" + gone["player"]
                                     and parse_cents(tr["amount"]) == gone["stake_minor"])]
    assert failed(doctored) == ["transfers"], failed(doctored)
    doctored = copy()
    doctored["bets"][1]["returned_minor"] += 1
    assert failed(doctored) == ["bet[bet-2]"], failed(doctored)
    doctored = copy()
    doctored["bets"][0]["multiplier_cents"] += 1
    assert failed(doctored) == ["bet[bet-1]", "transfers"], failed(doctored)
    doctored = copy()
    counts = doctored["quotes"][0]["quote"]["counts"]
    k = next(c["count"] for c in counts if c["multiplier_cents"])
    counts[k]["multiplier_cents"] += 1
    assert failed(doctored)[0] == "quote[44]", failed(doctored)
    doctored = copy()
    doctored["round"]["cards"][20]["key_count"] += 1
    assert failed(doctored) == ["cards"]
    doctored = copy()
    doctored["round"]["final_count"] = doctored["round"]["final_count"] % 10 + 1
    assert failed(doctored) == ["final_count"]
    doctored = copy()
    doctored["round"]["status"] = "voided"
    assert "bet[bet-1]" in failed(doctored)
    # A simulated quote: the multipliers follow from bounds as wide as Chernoff's, no narrower.
    deck = honest["shuffle"]["deck"]
    counts_after = peg_leg_pass(deck)
    log_inv = math.log(2.0 * PEG_LEG_COUNTS / PEG_LEG_DELTA)
    hits = [0] * PEG_LEG_COUNTS
    hits[counts_after[0]], hits[-1] = 20000, 10000
    counts = []
    for k, h in enumerate(hits):
        upper = kl_upper(h, PEG_LEG_SAMPLES, log_inv) if k >= counts_after[0] else 0.0
        lower = kl_lower(h, PEG_LEG_SAMPLES, log_inv) if k >= counts_after[0] else 0.0
        m = peg_leg_offered(int(math.floor(9500 / 100.0 / upper * (1.0 - 1e-12)))) if upper > 0 and h else None
        counts.append({"count": k, "probability": h / PEG_LEG_SAMPLES, "exact": None, "lower": lower, "upper": upper,
                       "multiplier_cents": m})
    quote = {"cards_dealt": 1, "key_suit": SUITS[suit_of(deck[0])], "key_count": counts_after[0],
             "target_rtp_bp": 9500, "method": {"kind": "simulated", "samples": PEG_LEG_SAMPLES, "delta": PEG_LEG_DELTA},
             "counts": counts}
    simulated = {"id": "s1", "cards_dealt": 1, "quote": quote}
    check_peg_leg_quote(simulated, counts_after, suit_of(deck[0]), 9500)
    # A count never seen is not offered, however low its bound's price would be.
    unseen = json.loads(json.dumps(simulated))
    k = next(c["count"] for c in unseen["quote"]["counts"] if c["upper"] > 0 and not c["probability"])
    unseen["quote"]["counts"][k]["multiplier_cents"] = 100000
    try:
        check_peg_leg_quote(unseen, counts_after, suit_of(deck[0]), 9500)
        raise AssertionError("a count never seen in the samples is not offered")
    except RuleError as e:
        assert "multiplier" in str(e)
    narrower = json.loads(json.dumps(simulated))
    narrower["quote"]["counts"][-1]["upper"] *= 0.999
    try:
        check_peg_leg_quote(narrower, counts_after, suit_of(deck[0]), 9500)
        raise AssertionError("a bound narrower than Chernoff's is refused")
    except RuleError as e:
        assert "narrower" in str(e)
    for junk in (dict(honest, bets=None), dict(honest, round={}), dict(honest, transfers=[1])):
        assert failed(junk) == ["document"], failed(junk)


# ---------------------------------------------------------------------------------------------
# The transparency log (docs/ledger.md, "The transparency log"): Ed25519 signatures checked
# from RFC 8032's definition, and Merkle inclusion and consistency proofs as Certificate
# Transparency defines them. Standard library only; shares no code with djego.
# ---------------------------------------------------------------------------------------------

_ED_P = 2 ** 255 - 19
_ED_L = 2 ** 252 + 27742317777372353535851937790883648493
_ED_D = -121665 * pow(121666, _ED_P - 2, _ED_P) % _ED_P
_ED_SQRT_M1 = pow(2, (_ED_P - 1) // 4, _ED_P)


def _ed_add(a, b):
    """Adds two points in extended coordinates (X, Y, Z, T) on edwards25519."""
    p = _ED_P
    x1, y1, z1, t1 = a
    x2, y2, z2, t2 = b
    aa = (y1 - x1) * (y2 - x2) % p
    bb = (y1 + x1) * (y2 + x2) % p
    cc = t1 * 2 * _ED_D * t2 % p
    dd = z1 * 2 * z2 % p
    e, f, g, h = bb - aa, dd - cc, dd + cc, bb + aa
    return (e * f % p, g * h % p, f * g % p, e * h % p)


def _ed_mul(s, point):
    q = (0, 1, 1, 0)
    while s > 0:
        if s & 1:
            q = _ed_add(q, point)
        point = _ed_add(point, point)
        s >>= 1
    return q


def _ed_equal(a, b):
    p = _ED_P
    return (a[0] * b[2] - b[0] * a[2]) % p == 0 and (a[1] * b[2] - b[1] * a[2]) % p == 0


def _ed_decompress(data):
    """The point a 32-byte encoding names, or None when it names none (or not canonically)."""
    if len(data) != 32:
        return None
    y = int.from_bytes(data, "little")
    sign = y >> 255
    y &= (1 << 255) - 1
    if y >= _ED_P:
        return None
    p = _ED_P
    x2 = (y * y - 1) * pow(_ED_D * y * y + 1, p - 2, p) % p
    if x2 == 0:
        if sign:
            return None
        x = 0
    else:
        x = pow(x2, (p + 3) // 8, p)
        if (x * x - x2) % p != 0:
            x = x * _ED_SQRT_M1 % p
        if (x * x - x2) % p != 0:
            return None
        if (x & 1) != sign:
            x = p - x
    return (x, y, 1, x * y % p)


_ED_B = _ed_decompress((4 * pow(5, _ED_P - 2, _ED_P) % _ED_P).to_bytes(32, "little"))
_ED_IDENTITY = (0, 1, 1, 0)


def ed25519_verify(public_key, message, signature):
    """RFC 8032 5.1.7: whether `signature` (64 bytes) signs `message` under `public_key` (32
    bytes). Strict as djego's own check: non-canonical encodings, S >= L and small-order keys or
    R are refused."""
    if len(public_key) != 32 or len(signature) != 64:
        return False
    a = _ed_decompress(public_key)
    r = _ed_decompress(signature[:32])
    if a is None or r is None:
        return False
    if _ed_equal(_ed_mul(8, a), _ED_IDENTITY) or _ed_equal(_ed_mul(8, r), _ED_IDENTITY):
        return False
    s = int.from_bytes(signature[32:], "little")
    if s >= _ED_L:
        return False
    k = int.from_bytes(hashlib.sha512(signature[:32] + public_key + message).digest(), "little") % _ED_L
    return _ed_equal(_ed_mul(s, _ED_B), _ed_add(r, _ed_mul(k, a)))


def key_id(public_key_hex):
    """The first 16 hex digits of SHA-256 of the 32 public-key bytes."""
    return hashlib.sha256(bytes.fromhex(public_key_hex)).hexdigest()[:16]


def merkle_leaf_hash(data):
    return hashlib.sha256(b"\x00" + data).digest()


def merkle_node_hash(left, right):
    return hashlib.sha256(b"\x01" + left + right).digest()


def merkle_verify_inclusion(leaf, index, size, proof, root):
    """Whether `proof` (a list of 32-byte hashes) puts the leaf hash `leaf` at `index` in the tree
    of `size` leaves whose root is `root`."""
    if not (is_int(index) and is_int(size)) or index < 0 or index >= size:
        return False
    fn, sn, r = index, size - 1, leaf
    for p in proof:
        if sn == 0:
            return False
        if fn & 1 or fn == sn:
            r = merkle_node_hash(p, r)
            while not fn & 1 and fn != 0:
                fn >>= 1
                sn >>= 1
        else:
            r = merkle_node_hash(r, p)
        fn >>= 1
        sn >>= 1
    return sn == 0 and r == root


def merkle_verify_consistency(old_size, new_size, old_root, new_root, proof):
    """Whether `proof` shows the tree of `old_size` leaves (root `old_root`) is a prefix of the
    tree of `new_size` leaves (root `new_root`)."""
    if not (is_int(old_size) and is_int(new_size)) or old_size < 0 or old_size > new_size:
        return False
    if old_size == new_size:
        return not proof and old_root == new_root
    if old_size == 0:
        return not proof and old_root == hashlib.sha256(b"").digest()
    if not proof:
        return False
    path = ([old_root] if old_size & (old_size - 1) == 0 else []) + list(proof)
    fn, sn = old_size - 1, new_size - 1
    while fn & 1:
        fn >>= 1
        sn >>= 1
    fr = sr = path[0]
    for c in path[1:]:
        if sn == 0:
            return False
        if fn & 1 or fn == sn:
            fr = merkle_node_hash(c, fr)
            sr = merkle_node_hash(c, sr)
            while not fn & 1 and fn != 0:
                fn >>= 1
                sn >>= 1
        else:
            sr = merkle_node_hash(sr, c)
        fn >>= 1
        sn >>= 1
    return fr == old_root and sr == new_root and sn == 0


def checkpoint_message(c):
    """The bytes a checkpoint signs, rebuilt from its fields (never from `signed_message`)."""
    fields = [c["seq"], c["taken_at_us"], c["ledger_seq"], c["ledger_hash"], c["events_seq"], c["events_hash"]]
    if c.get("version", 1) == 2:
        fields = ["djego-checkpoint-v2"] + fields + [c["transfers_root"], c["events_root"]]
    else:
        fields = ["djego-checkpoint-v1"] + fields
    return json.dumps(fields, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def checkpoint_problem(c, pinned=None):
    """Why a checkpoint's signature does not check (None when it does): under the pinned key when
    one is given, else under the key it carries."""
    try:
        public = bytes.fromhex(c["public_key"])
        signature = bytes.fromhex(c["signature"])
        message = checkpoint_message(c)
    except (KeyError, TypeError, ValueError) as e:
        return "checkpoint is malformed: %s" % e
    if key_id(c["public_key"]) != c.get("key_id"):
        return "key id %s is not the id of its public key" % c.get("key_id")
    if pinned is not None and c["public_key"].lower() != pinned.lower():
        return "signed by key %s, not by the pinned key %s" % (key_id(c["public_key"]), key_id(pinned))
    if not ed25519_verify(public, message, signature):
        return "the signature does not verify under key %s" % key_id(c["public_key"])
    return None


# --- A round's ledger proof (docs/transcript.md, "The ledger proof") -------------------

BOOKING_KIND = "round_booked"


def transfer_leaf_data(seq, kind, debit, credit, amount_cents, round_id, bet_id, chain_hash):
    """A transfer's leaf data in the transfers tree (docs/ledger.md, "The transparency log")."""
    fields = ["djego-transfer-leaf-v1", seq, kind, debit, credit, amount_cents, round_id, bet_id, chain_hash]
    return json.dumps(fields, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def _hash_of(text):
    """32 bytes from 64 hex digits, or None."""
    if not isinstance(text, str) or len(text) != 64 or not set(text) <= HEX_DIGITS:
        return None
    return bytes.fromhex(text)


def _included(leaf, seq, size, path, root):
    if not (1 <= seq <= size):
        return False
    hashes = [_hash_of(h) for h in path]
    return None not in hashes and merkle_verify_inclusion(leaf, seq - 1, size, hashes, root)


def _leaf_account(shown, round_id, table_id, tags):
    """The account as the round's leaves name it, from the name the document shows."""
    if shown in ("pot", "escrow"):
        return "%s:%s" % (shown, round_id)
    if shown == "cobre":
        return "cobre:" + table_id
    if shown.startswith("wallet:"):
        player = shown[len("wallet:"):]
        if player not in tags:
            raise RuleError("no wallet tag for " + player)
        return "wallet#" + tags[player]
    return shown


def ledger_proof_problem(round_id, table_id, transfers, proof, pinned=None):
    """(None, what was proved) when `proof` shows that `transfers` (as the document names them)
    are all of the round's transfers and in the ledger under the signed head it carries;
    (why not, None) otherwise."""
    head = dict(proof["checkpoint"], version=2)
    problems = [checkpoint_problem(head, key) for key in (pinned or [None])]
    if all(problems):
        return problems[0], None
    roots = {}
    for field in ("transfers_root", "events_root"):
        roots[field] = _hash_of(head[field])
        if roots[field] is None:
            return "the checkpoint's %s is not 64 hex digits" % field, None
    if len(proof["transfers"]) != len(transfers):
        return "the proof covers %d transfers but the document shows %d" % (len(proof["transfers"]),
                                                                             len(transfers)), None
    tags = {}
    for w in proof["wallets"]:
        if len(w["tag"]) != 32 or not set(w["tag"]) <= set("0123456789abcdef"):
            return "the wallet tag of %s is not 32 lowercase hex digits" % w["player"], None
        if w["player"] in tags:
            return "%s has two wallet tags" % w["player"], None
        tags[w["player"]] = w["tag"]
    leaves, previous = [], 0
    for i, (entry, p) in enumerate(zip(transfers, proof["transfers"])):
        seq = entry["seq"]
        if p["seq"] != seq:
            return "transfer %d: the proof is for transfer %d, not %d" % (i, p["seq"], seq), None
        if seq <= previous:
            return "transfer %d: transfer %d is out of ledger order" % (i, seq), None
        previous = seq
        cents = parse_cents(entry["amount"])
        if cents is None:
            return "transfer %d: amount %s is not an amount" % (i, show(entry["amount"])), None
        try:
            debit = _leaf_account(entry["from"], round_id, table_id, tags)
            credit = _leaf_account(entry["to"], round_id, table_id, tags)
        except RuleError as e:
            return "transfer %d: %s" % (i, e.args[0]), None
        leaf = merkle_leaf_hash(transfer_leaf_data(seq, entry["kind"], debit, credit, cents, round_id, p["bet_id"],
                                                   entry["hash"]))
        if not _included(leaf, seq, head["ledger_seq"], p["path"], roots["transfers_root"]):
            return ("transfer %d (seq %d) is not in the ledger that checkpoint %d signs: its path does not lead "
                    "from this transfer to the signed root of %d transfers" % (i, seq, head["seq"],
                                                                              head["ledger_seq"])), None
        leaves.append(leaf)
    booking = proof["booking"]
    try:
        fields = json.loads(booking["leaf"])
    except ValueError:
        return "the round's booking: its leaf is not a JSON array", None
    if not isinstance(fields, list) or len(fields) != 8:
        return "the round's booking: its leaf does not have the eight fields of an event", None
    if fields[0] != "djego-event-v1" or not same(fields[1], booking["seq"]):
        return "the round's booking: its leaf is not the event it claims to be", None
    if fields[4] != BOOKING_KIND or fields[6] != round_id:
        return "the round's booking: the event is not this round's booking", None
    try:
        details = json.loads(fields[7]) if isinstance(fields[7], str) else None
    except ValueError:
        details = None
    shape = ("obj", {"game": ("str", "req"), "round_id": ("str", "req"), "transfers": ("int", "req"),
                     "transfers_root": ("str", "req")})
    if details is None or shape_problem(details, shape, "details") or details["transfers"] < 0:
        return "the round's booking: its details do not read", None
    if details["round_id"] != round_id:
        return "the round's booking: the event is not this round's booking", None
    if details["transfers"] != len(transfers):
        return "the round's booking commits to %d transfers, the document shows %d" % (details["transfers"],
                                                                                       len(transfers)), None
    if details["transfers_root"] != merkle_root(leaves).hex():
        return "the round's booking commits to other transfers than the document shows", None
    if not _included(merkle_leaf_hash(booking["leaf"].encode("utf-8")), booking["seq"], head["events_seq"],
                     booking["path"], roots["events_root"]):
        return "the round's booking (event %d) is not in the events log that checkpoint %d signs" % (
            booking["seq"], head["seq"]), None
    key = "the pinned key %s" % head["key_id"] if pinned else "key %s, not pinned" % head["key_id"]
    return None, ("all %d of the round's transfers are in the ledger signed by checkpoint %d (%s), as the "
                  "round's booking commits" % (len(transfers), head["seq"], key))


def with_ledger_proof(report, t, round_id, table_id, pinned=None):
    """`report` with the document's `ledger_proof` check last: when it carries a proof, or when a
    key is pinned (then a document without one fails)."""
    def done(passed, detail):
        report["checks"].append({"name": "ledger_proof", "passed": passed, "first_mismatch": None,
                                 "detail": detail})
        report["passed"] = report["passed"] and passed
        return report
    if "ledger_proof" not in t:
        if pinned:
            return done(False, "not included: nothing shows these transfers are in the signed ledger (a round's "
                               "transcript or recall fetched on its own carries the proof)")
        return report
    proof = t["ledger_proof"]
    problem = shape_problem(proof, LEDGER_PROOF_SHAPE, "ledger_proof")
    if problem:
        return done(False, "the ledger proof does not read: " + problem)
    transfers = t.get("transfers")
    if not isinstance(round_id, str) or not isinstance(table_id, str) or \
            shape_problem(transfers, ("list", TRANSFER_SHAPE), "transfers"):
        return done(False, "not checked: the document's round, table or transfers do not read")
    problem, detail = ledger_proof_problem(round_id, table_id, transfers, proof, pinned)
    return done(problem is None, problem or detail)


def merkle_root(leaves):
    """The root of the tree over `leaves` (leaf hashes), by the standard's definition."""
    if not leaves:
        return hashlib.sha256(b"").digest()
    if len(leaves) == 1:
        return leaves[0]
    k = 1 << ((len(leaves) - 1).bit_length() - 1)
    return merkle_node_hash(merkle_root(leaves[:k]), merkle_root(leaves[k:]))


_merkle_root = merkle_root


def _merkle_path(m, leaves):
    if len(leaves) <= 1:
        return []
    k = 1 << ((len(leaves) - 1).bit_length() - 1)
    if m < k:
        return _merkle_path(m, leaves[:k]) + [_merkle_root(leaves[k:])]
    return _merkle_path(m - k, leaves[k:]) + [_merkle_root(leaves[:k])]


def _merkle_subproof(m, leaves, whole):
    n = len(leaves)
    if m == n:
        return [] if whole else [_merkle_root(leaves)]
    k = 1 << ((n - 1).bit_length() - 1)
    if m <= k:
        return _merkle_subproof(m, leaves[:k], whole) + [_merkle_root(leaves[k:])]
    return _merkle_subproof(m - k, leaves[k:], False) + [_merkle_root(leaves[:k])]


# RFC 8032 7.1, tests 1 to 3: (public key, message, signature).
ED25519_VECTORS = [
    ("d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a", "",
     "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b"),
    ("3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c", "72",
     "92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00"),
    ("fc51cd8e6218a1a38da47ed00230f0580816ed13ba3303ac5deb911548908025", "af82",
     "6291d657deec24024827e69c3abe01a30ce548a284743a445e3680d7db5ac3ac18ff9b538d16f290ae67f760984dc6594a7c15e9716ed28dc027beceea1ec40a"),
]


def _transparency_tests():
    """RFC 8032's vectors (and every single-bit change to them refused), and every inclusion and
    consistency proof of trees up to 24 leaves against the definition, tampering refused."""
    for public, message, signature in ED25519_VECTORS:
        public, message, signature = bytes.fromhex(public), bytes.fromhex(message), bytes.fromhex(signature)
        assert ed25519_verify(public, message, signature)
        for bit in (0, 7, 255, 256, 300, 511):
            bad = bytearray(signature)
            bad[bit // 8] ^= 1 << (bit % 8)
            assert not ed25519_verify(public, message, bytes(bad)), bit
        assert not ed25519_verify(public, message + b"x", signature)
    other = bytes.fromhex(ED25519_VECTORS[1][0])
    assert not ed25519_verify(other, b"", bytes.fromhex(ED25519_VECTORS[0][2]))
    # S + L encodes the same scalar: refused as non-canonical.
    sig = bytes.fromhex(ED25519_VECTORS[0][2])
    s = int.from_bytes(sig[32:], "little") + _ED_L
    assert not ed25519_verify(bytes.fromhex(ED25519_VECTORS[0][0]), b"", sig[:32] + s.to_bytes(32, "little"))
    assert merkle_leaf_hash(b"") == bytes.fromhex("6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d")
    leaves = [merkle_leaf_hash(("leaf %d" % i).encode()) for i in range(24)]
    for size in range(1, 25):
        root = _merkle_root(leaves[:size])
        for index in range(size):
            proof = _merkle_path(index, leaves[:size])
            assert merkle_verify_inclusion(leaves[index], index, size, proof, root), (index, size)
            assert not merkle_verify_inclusion(leaves[(index + 1) % 24], index, size, proof, root)
            for k in range(len(proof)):
                bad = list(proof)
                bad[k] = bytes([bad[k][0] ^ 1]) + bad[k][1:]
                assert not merkle_verify_inclusion(leaves[index], index, size, bad, root)
        for old in range(0, size + 1):
            old_root = _merkle_root(leaves[:old])
            proof = _merkle_subproof(old, leaves[:size], True) if 0 < old < size else []
            assert merkle_verify_consistency(old, size, old_root, root, proof), (old, size)
            if 0 < old < size:
                rewritten = _merkle_root([merkle_leaf_hash(b"rewritten")] + leaves[1:old])
                assert not merkle_verify_consistency(old, size, rewritten, root, proof)
                for k in range(len(proof)):
                    bad = list(proof)
                    bad[k] = bytes([bad[k][0] ^ 1]) + bad[k][1:]
                    assert not merkle_verify_consistency(old, size, old_root, root, bad)


class _Words(Shuffler):
    """A Shuffler reading a fixed list of words, to test uniform's rejection rule."""

    def __init__(self, words):
        self.words = list(words)

    def next_u32(self):
        return self.words.pop(0)


def self_test():
    """Published ChaCha20 vectors, the rejection rule, djego's fixed vectors, hand-made cases of
    the rules, and honest and doctored round transcripts."""
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
    _rule_tests()
    _round_tests()
    _transparency_tests()
    print("self-test passed")
    return 0


def load(path):
    """Every transcript in a file: one JSON document (a transcript, a list of them, or a response
    whose `transcript` field holds one) or JSON Lines (one such document per line)."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    try:
        documents = [json.loads(text)]
    except ValueError:
        documents = [json.loads(line) for line in text.splitlines() if line.strip()]
    transcripts = []
    for document in documents:
        for item in document if isinstance(document, list) else [document]:
            if isinstance(item, dict) and isinstance(item.get("transcript"), dict):
                item = item["transcript"]
            transcripts.append(item)
    return transcripts


def main(argv):
    if "--self-test" in argv:
        return self_test()
    as_json = "--json" in argv
    pinned, paths, args = [], [], iter(argv)
    for a in args:
        if a == "--public-key":
            key = next(args, "")
            if _hash_of(key) is None:
                print("--public-key takes the casino's checkpoint public key, 64 hex digits", file=sys.stderr)
                return 2
            pinned.append(key)
        elif a != "--json":
            paths.append(a)
    if not paths:
        print(__doc__)
        return 2
    reports = []
    for path in paths:
        try:
            transcripts = load(path)
        except (OSError, ValueError, RecursionError) as e:
            print("%s: cannot read a JSON transcript: %s" % (path, e), file=sys.stderr)
            return 2
        for t in transcripts:
            reports.append(verify_document(t, pinned or None))
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
