// Checks web/js/shuffle.js (the browser's shuffle-v1 verifier) against djego's fixed vectors and
// against docs/verify/verify_round.py on every case: the same verdict (the Python's exit status)
// and, check by check, the same names, verdicts, first mismatches and details.
//
//   node tests/web/shuffle_vectors.mjs
//
// Needs node >= 20 and python3. Prints one line per case; exits 1 if any case fails.

import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

import {
  Shuffler, bytesToHex, chacha20Block, clientSeedFor, combinedClientSeed, deckSeed, deriveDeck,
  hexToBytes, orderedDeck, sha256Hex, splitDocuments, verifyShuffle,
} from "../../web/js/shuffle.js";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const VERIFIER = join(ROOT, "docs/verify/verify_round.py");
const VECTORS = JSON.parse(readFileSync(join(ROOT, "docs/verify/test_vectors.json"), "utf8"));
const TMP = mkdtempSync(join(tmpdir(), "djego-shuffle-js-"));

let failures = 0;
let count = 0;

async function check(name, body) {
  count++;
  try {
    const note = await body();
    console.log("ok    " + name + (note ? " — " + note : ""));
  } catch (e) {
    failures++;
    console.log("FAIL  " + name + ": " + (e && e.message ? e.message : e));
  }
}

function assert(condition, message) {
  if (!condition) throw new Error(message);
}

function assertEqual(actual, expected, what) {
  const a = JSON.stringify(actual);
  const b = JSON.stringify(expected);
  assert(a === b, what + ": expected " + b + ", got " + a);
}

const clone = (value) => JSON.parse(JSON.stringify(value));

// --- the Python verifier ----------------------------------------------------------------------------

let fileNumber = 0;

/** Runs verify_round.py --json on `text`: { status, reports } (reports null unless it ran). */
function python(text) {
  const path = join(TMP, "case-" + ++fileNumber + ".json");
  writeFileSync(path, text);
  const run = spawnSync("python3", [VERIFIER, "--json", path], { encoding: "utf8" });
  if (run.error) throw run.error;
  if (run.status === 2) throw new Error("verify_round.py could not read the case: " + run.stderr.trim());
  return { status: run.status, reports: JSON.parse(run.stdout) };
}

/**
 * With DJEGO_BIN set (the Rust test sets it to the built binary), the exit status of
 * `djego verify round FILE` on a one-transcript case: 0 verified, 1 not.
 */
function djegoStatus(text) {
  if (!process.env.DJEGO_BIN) return null;
  const path = join(TMP, "djego-" + ++fileNumber + ".json");
  writeFileSync(path, text);
  const run = spawnSync(process.env.DJEGO_BIN, ["verify", "round", path], { encoding: "utf8" });
  if (run.error) throw run.error;
  return run.status;
}

const comparable = (c) => ({ name: c.name, passed: c.passed, first_mismatch: c.first_mismatch, detail: c.detail });

/**
 * Verifies a file's text with both verifiers and asserts they agree: each transcript's shuffle
 * checks equal the Python's (all of them for version 1; the leading shuffle checks of version 2),
 * and the JS verdict equals the Python's exit status. With `shuffleOnly`, the case is one where
 * only the non-shuffle part is wrong: the JS passes its shuffle, the Python fails elsewhere.
 */
async function bothVerify(text, { shuffleOnly = false } = {}) {
  const js = [];
  for (const item of splitDocuments(text)) js.push(await verifyShuffle(item));
  const py = python(text);
  assert(py.reports.length === js.length, "python read " + py.reports.length + " transcripts, js " + js.length);
  js.forEach((result, i) => {
    // A version-2 document the Python cannot read (its shape) has no shuffle checks to compare:
    // the page checks the shuffle only, so then only the verdicts must agree.
    const unreadable = py.reports[i].checks.length === 1 && py.reports[i].checks[0].name === "transcript";
    if (result.version === 2 && unreadable) return;
    const mine = result.checks.map(comparable);
    // A contest's shuffle checks are its entrants' (entry[n].…, before each entrant's deal and
    // plays); a transcript's lead its checks.
    const shuffleOf = (c) => !result.contest || (/^entry\[/.test(c.name) && !/\.(deal|plays)$/.test(c.name));
    const theirs = py.reports[i].checks.filter(shuffleOf).slice(0, mine.length).map(comparable);
    const k = mine.findIndex((c, j) => JSON.stringify(c) !== JSON.stringify(theirs[j]));
    assert(k < 0, `transcript ${i}, check ${k}: js ${JSON.stringify(mine[k])} but python ${JSON.stringify(theirs[k] ?? null)}`);
  });
  const jsOk = js.every((r) => r.ok);
  const pyOk = py.status === 0;
  // The Rust verifier agrees with the Python on every whole file it reads as one transcript.
  if (js.length === 1) {
    const status = djegoStatus(text);
    assert(status === null || (status === 0) === pyOk,
      "djego verify round exits " + status + " but python " + py.status);
  }
  if (shuffleOnly) {
    assert(jsOk && !pyOk, "expected the shuffle to pass and the round to fail, js ok " + jsOk + ", python exit " + py.status);
  } else {
    assert(jsOk === pyOk, "js ok " + jsOk + " but python exit status " + py.status);
  }
  return { js, py, jsOk, pyOk };
}

const verdict = ({ jsOk, py }) => (jsOk ? "verified" : "not verified") + ", python exit " + py.status;

/** The first failed check's name, first mismatch and first difference. */
function firstFailure(result) {
  const c = result.checks.find((x) => !x.passed);
  return c ? { name: c.name, first_mismatch: c.first_mismatch, first_difference: c.first_difference ?? null } : null;
}

function failedNames(result) {
  return result.checks.filter((c) => !c.passed).map((c) => c.name);
}

// --- building blocks --------------------------------------------------------------------------------

function stream(words) {
  return bytesToHex(new Uint8Array(new Uint32Array(words).buffer)); // little-endian on every Node platform
}

await check("chacha20: RFC 8439 A.1 #1 and #2, zero key, blocks 0 and 1", () => {
  assert(stream(chacha20Block(new Uint8Array(32), 0)).startsWith("76b8e0ada0f13d90405d6ae55386bd28"), "block 0");
  assert(stream(chacha20Block(new Uint8Array(32), 1)).startsWith("9f07e7be5551387a98ba977c732d080d"), "block 1");
});

await check("chacha20: RFC 8439 2.3.2, counter 0x0900000000000001, word 13 is the counter's high half", () => {
  const key = Uint8Array.from({ length: 32 }, (_, i) => i);
  const counter = BigInt(1) | (BigInt(0x09000000) << BigInt(32));
  const words = chacha20Block(key, counter, 0x4a000000);
  assert(stream(words).startsWith("10f1e7e4d13b5915500fdd1fa32071c4"), "keystream " + stream(words));
});

class Words extends Shuffler {
  constructor(words) { super(new Uint8Array(32)); this.words = [...words]; }
  nextU32() { return this.words.shift(); }
}

await check("uniform: rejection below (2^32 - n) mod n, and uniform(1) draws a word", () => {
  assertEqual(new Words([0, 0, 5]).uniform(3), 2, "uniform(3) rejects 0");
  const w = new Words([45, 46, 7]);
  assertEqual(w.uniform(50), 46, "uniform(50) rejects 45 (t = 46)");
  assertEqual(w.words, [7], "words left");
  const one = new Words([0, 9]);
  assertEqual(one.uniform(1), 0, "uniform(1)");
  assertEqual(one.words, [9], "uniform(1) drew one word");
  assertEqual(new Words([0xffffffff]).uniform(0x80000001), 0x7ffffffe, "uniform near 2^31");
});

await check("client seeds: sorted bytewise, duplicates kept, empty = SHA-256 of nothing", async () => {
  assertEqual(await combinedClientSeed([]), await sha256Hex(new Uint8Array(0)), "no seeds");
  assertEqual(await combinedClientSeed([]), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855", "empty hash");
  assertEqual(await combinedClientSeed(["b", "a", "B"]), await sha256Hex(new TextEncoder().encode("B\na\nb")), "order");
  assertEqual(await combinedClientSeed(["x", "x"]), await sha256Hex(new TextEncoder().encode("x\nx")), "duplicates");
  assertEqual(await combinedClientSeed(["lucky 7", "Zebra", "alice"]),
    "c6ec2ff930096d4c44fae54496760be23341f07160c1211b2d5668d5b569419c", "vector 3");
  assertEqual(await clientSeedFor("lobo", []), "", "lobo without a seed");
  assertEqual(await clientSeedFor("lobo", ["wolf"]), "wolf", "lobo seed verbatim");
});

await check("worked example (docs/shuffle.md section 2): deck seed and the first ten words", async () => {
  const seed = hexToBytes(VECTORS[1].server_seed);
  const key = await deckSeed(seed, "prima_carta", "1002", VECTORS[1].client_seed);
  assertEqual(bytesToHex(key), "09d484f31993e34226b698bfc0e68c7844b147828962a66fb474d65340baede5", "deck seed");
  const s = new Shuffler(key);
  const words = Array.from({ length: 10 }, () => "0x" + s.nextU32().toString(16).padStart(8, "0"));
  assertEqual(words.join(" "), "0xc7e55087 0xf5d543cd 0x6cc9f889 0xcf065706 0xeedd6ff8 0xbae9fe3f 0xe01145fa 0xf448d05e 0xd3ac03ba 0x58cec45e", "words");
  const v1 = await deckSeed(seed, "prima_carta", "1001", VECTORS[0].client_seed);
  assertEqual(bytesToHex(v1), "41638eb533b9648edf60810897370f5b0a66cc5cba553c6b1f084891d9aa5397", "vector 1 deck seed");
});

await check("ordered decks: 50, 45 (no 10s), 40 (no 9s or 10s), ascending", () => {
  assertEqual(orderedDeck(10), Array.from({ length: 50 }, (_, i) => i), "50");
  assertEqual(orderedDeck(9), Array.from({ length: 50 }, (_, i) => i).filter((i) => i % 10 <= 8), "45");
  assertEqual(orderedDeck(8), Array.from({ length: 50 }, (_, i) => i).filter((i) => i % 10 <= 7), "40");
});

// --- the fixed vectors ------------------------------------------------------------------------------

const MAX_RANK = { 50: 10, 45: 9, 40: 8 };

for (const [n, v] of VECTORS.entries()) {
  const label = `vector ${n + 1} (${v.game}, ${v.round_id}, ${v.deck.length} cards, ${v.client_seeds.length} seeds${v.reshuffles.length ? ", reshuffle" : ""})`;
  await check(label + ": derives its commitment, client seed, deck and reshuffles", async () => {
    assertEqual(await sha256Hex(hexToBytes(v.server_seed)), v.commitment, "commitment");
    assertEqual(await clientSeedFor(v.game, v.client_seeds), v.client_seed, "client_seed");
    const { deck, stream: rng } = await deriveDeck(v.server_seed, v.game, v.round_id, v.client_seed, MAX_RANK[v.deck.length]);
    assertEqual(deck, v.deck, "deck");
    for (const r of v.reshuffles) {
      const pile = [...r.before];
      rng.shuffle(pile);
      assertEqual(pile, r.after, "reshuffle");
    }
  });
  await check(label + ": verifies, as in the Python", async () => {
    const both = await bothVerify(JSON.stringify(v));
    assert(both.jsOk, "not verified: " + JSON.stringify(firstFailure(both.js[0])));
    return verdict(both);
  });
}

await check("reshuffle vector (docs/shuffle.md section 3) continues vector 3's stream", async () => {
  const v = VECTORS[2];
  const { stream: rng } = await deriveDeck(v.server_seed, v.game, v.round_id, v.client_seed);
  const pile = v.deck.slice(20);
  rng.shuffle(pile);
  assertEqual(pile, [14, 37, 48, 28, 40, 17, 15, 35, 30, 20, 34, 46, 11, 24, 33, 26, 42, 41, 27, 31, 25, 44, 9, 32, 8, 38, 7, 3, 10, 4], "after");
});

await check("test_vectors.json whole (a JSON list), as `djego verify round` reads it", async () => {
  const both = await bothVerify(readFileSync(join(ROOT, "docs/verify/test_vectors.json"), "utf8"));
  assert(both.jsOk && both.js.length === VECTORS.length, "all " + VECTORS.length + " verify");
  return verdict(both);
});

await check("the vectors as JSON Lines (the audit export's format)", async () => {
  const both = await bothVerify(VECTORS.map((v) => JSON.stringify(v)).join("\n") + "\n");
  assert(both.jsOk && both.js.length === VECTORS.length, "all verify");
  return verdict(both);
});

await check("a verification response: the transcript read through `transcript`", async () => {
  const both = await bothVerify(JSON.stringify({ round_id: "1002", transcript: VECTORS[1] }));
  assert(both.jsOk, "verified");
  return verdict(both);
});

// --- tampered version-1 transcripts -----------------------------------------------------------------

/** A tampered copy must fail in both, the first failure being `expected`. */
async function tampered(name, base, edit, expected, alsoFailed = null) {
  await check(name, async () => {
    const t = clone(base);
    edit(t);
    const both = await bothVerify(JSON.stringify(t));
    assert(!both.jsOk, "verified a tampered transcript");
    const first = firstFailure(both.js[0]);
    for (const key of Object.keys(expected)) assertEqual(first[key], expected[key], "first failure " + key);
    if (alsoFailed) assertEqual(failedNames(both.js[0]), alsoFailed, "failed checks");
    const at = first.first_difference ? ` at ${first.first_difference.index}: expected ${first.first_difference.expected}, found ${first.first_difference.found}` : first.first_mismatch !== null ? ` at ${first.first_mismatch}` : "";
    return `${failedNames(both.js[0]).join(", ")} failed${at}; ${verdict(both)}`;
  });
}

const [V1, V2, V3, V4, V5, V6] = VECTORS;
const swap = (list, i, j) => { [list[i], list[j]] = [list[j], list[i]]; };

await tampered("vector 2, cards 3 and 7 swapped", V2, (t) => swap(t.deck, 3, 7),
  { name: "deck", first_mismatch: 3, first_difference: { index: 3, expected: 34, found: 41 } }, ["deck"]);
await tampered("vector 2, cards 45 and 48 swapped", V2, (t) => swap(t.deck, 45, 48),
  { name: "deck", first_mismatch: 45, first_difference: { index: 45, expected: 26, found: 10 } }, ["deck"]);
await tampered("vector 6 (lobo easy), last two cards swapped", V6, (t) => swap(t.deck, 38, 39),
  { name: "deck", first_mismatch: 38, first_difference: { index: 38, expected: 42, found: 37 } }, ["deck"]);
await tampered("vector 1, a wrong server seed (commitment kept)", V1, (t) => { t.server_seed = V3.server_seed; },
  { name: "commitment" }, ["commitment", "deck"]);
await tampered("vector 1, a wrong server seed with its own commitment", V1,
  (t) => { t.server_seed = V3.server_seed; t.commitment = V3.commitment; }, { name: "deck", first_mismatch: 0 }, ["deck"]);
await tampered("vector 2, deck one card short", V2, (t) => t.deck.pop(),
  { name: "deck", first_mismatch: 49, first_difference: { index: 49, expected: 43, found: null } });
await tampered("vector 2, a client seed added after the deal", V2, (t) => t.client_seeds.push("bob"),
  { name: "client_seed" }, ["client_seed", "deck"]);
await tampered("vector 2, client_seed claimed in upper case", V2, (t) => { t.client_seed = t.client_seed.toUpperCase(); },
  { name: "client_seed" }, ["client_seed"]);
await tampered("vector 3, reshuffle `after` with two cards swapped", V3, (t) => swap(t.reshuffles[0].after, 5, 6),
  { name: "reshuffle[0]", first_mismatch: 5, first_difference: { index: 5, expected: 17, found: 15 } }, ["reshuffle[0]"]);
await tampered("vector 3, reshuffle `before` repeats a card", V3, (t) => { t.reshuffles[0].before[4] = 20; },
  { name: "reshuffle[0]", first_mismatch: null }, ["reshuffle[0]"]);
await tampered("vector 3, deck tampered, two reshuffles (the stream still advances)", V3, (t) => {
  swap(t.deck, 0, 1);
  t.reshuffles.push({ before: [1, 2, 3], after: [1, 2, 3] }, { before: "x", after: [] });
}, { name: "deck", first_mismatch: 0 }, ["deck", "reshuffle[1]", "reshuffle[2]"]);
await tampered("vector 4 (lobo), two client seeds", V4, (t) => t.client_seeds.push("sheep"),
  { name: "client_seeds", first_mismatch: 1 }, ["client_seeds", "client_seed", "deck"]);
await tampered("vector 5 (lobo ordinary), a 44-card deck", V5, (t) => t.deck.pop(),
  { name: "deck", first_mismatch: null }, ["deck"]);
await tampered("vector 2, a client seed with a non-ASCII character", V2, (t) => { t.client_seeds = ["ok", "caf\u00e9"]; },
  { name: "client_seeds", first_mismatch: 1 });
await tampered("vector 2, an empty and an over-long client seed", V2, (t) => { t.client_seeds = ["", "x".repeat(65)]; },
  { name: "client_seeds", first_mismatch: 0 });
await tampered("vector 2, wrong algorithm and game", V2, (t) => { t.algorithm = "shuffle-v2"; t.game = "poker"; },
  { name: "algorithm" }, ["algorithm", "game", "client_seed", "deck"]);
await tampered("vector 2, server seed of 63 hex digits", V2, (t) => { t.server_seed = t.server_seed.slice(1); },
  { name: "server_seed" }, ["server_seed", "commitment", "deck"]);
await tampered("vector 2, commitment with a non-ASCII lookalike (KELVIN SIGN)", V2,
  (t) => { t.commitment = t.commitment.replace(/^../, "\u212a"); }, { name: "commitment" });
await tampered("vector 2, deck holds a boolean and a string", V2, (t) => { t.deck[0] = true; t.deck[1] = "18"; },
  { name: "deck" }, ["deck"]);
await tampered("vector 2, reshuffles not a list, round_id a number", V2, (t) => { t.reshuffles = { before: [] }; t.round_id = 1002; },
  { name: "deck" }, ["deck", "reshuffle[0]"]);
await tampered("vector 2, round_id with a lone surrogate (Python cannot encode it)", V2, (t) => { t.round_id = "10\ud80002"; },
  { name: "transcript" }, ["transcript"]);
await tampered("vector 2, game quoted with both quote marks", V2, (t) => { t.game = "it's \"x\"\n\\"; },
  { name: "game" });
await tampered("vector 2, every field missing", V2, (t) => { for (const k of Object.keys(t)) delete t[k]; },
  { name: "algorithm" });

for (const junk of ["\"x\"", "null", "5", "[[1, 2]]", "{\"version\": 2}", "{\"version\": 2, \"shuffle\": [1]}"]) {
  await check("junk document " + junk, async () => {
    const both = await bothVerify(junk);
    assert(!both.jsOk, "verified junk");
    return verdict(both);
  });
}

await check("vector 2, commitment and server seed in upper case still verify", async () => {
  const t = clone(V2);
  t.server_seed = t.server_seed.toUpperCase();
  t.commitment = t.commitment.toUpperCase();
  const both = await bothVerify(JSON.stringify(t));
  assert(both.jsOk, "verified");
  return verdict(both);
});

// --- whole rounds (version 2) -----------------------------------------------------------------------
//
// No transcript JSON is committed (src/transcript/sample.rs makes them in Rust, which needs
// cargo), so these are the honest rounds of verify_round.py's own self-test, built from the rules
// by its honest_prima_carta and honest_lobo: every Prima Carta variant, Jasper reshuffles, a
// voided round, the three Lobo modes. The Python verifies each whole; the JS checks its shuffle.

const BUILD = String.raw`
import json, random, sys
sys.path.insert(0, sys.argv[1])
import verify_round as v
rng = random.Random(7)
prima_rules = {"variant": "classic", "unit": "1.00", "seat_fee": "0.25", "corte": True, "cobre": "carry",
               "min_bet": "1.00", "max_bet": "100.00", "max_exposure_per_round": "500.00", "strategy_advice": True}
variants = ["classic", "cinco", "jasper"]
rounds = []
for n in range(24):
    rules = dict(prima_rules, variant=variants[n % 3], cobre=["off", "carry", "house"][n % 2 + n % 3 // 2],
                 seat_fee=None if n % 4 else "0.25", corte=n % 5 != 0)
    seated = sorted(rng.sample(range(5), rng.randint(2, 5)))
    bets = [("P%d" % (len(seated) + 1), kind, rng.randrange(5) if kind in v.SUIT_BETS else None,
             rng.choice([12, 13, 16]) if kind == "cartas" else None, rng.choice([5, 100, 125, 333]))
            for kind in v.BET_KINDS]
    rounds.append(v.honest_prima_carta(bytes([n]) * 32, "r-%d" % n, rules, seated, lambda s, k: rng.random() < 0.6,
                                       bets, voided=n == 23, carried_cents=150 if n % 6 == 1 else 0))
for n, mode in enumerate(("easy", "ordinary", "hard")):
    rules = {"mode": mode, "unit": "0.33", "loss_cap_points": 20,
             "house_rule": {"fee_per_round_hundredths": 904, "ante_per_wolf_point_hundredths": 5}, "hints": True}
    rounds.append(v.honest_lobo(bytes([100 + n]) * 32, "lobo-%d" % n, rules, v.simple_lobo_choice))
for n in range(2):
    rounds.append(v.honest_contest(bytes([120 + n]) * 32, "contest-%d" % n, ["a", "", "zed"][: n + 2],
                                   v.simple_lobo_choice))
print(json.dumps(rounds))
`;

const built = spawnSync("python3", ["-c", BUILD, dirname(VERIFIER)], { encoding: "utf8" });
let ROUNDS = [];
await check("build honest version-2 rounds with verify_round.py", () => {
  assert(built.status === 0, "python failed: " + built.stderr);
  ROUNDS = JSON.parse(built.stdout);
  return ROUNDS.length + " rounds";
});

function describe(r) {
  if (r.contest) return `${r.contest.id} (a Lobo contest, ${r.contest.status}, ${r.entrants.length} entrants)`;
  const s = r.shuffle;
  const what = r.game === "lobo" ? "lobo " + r.rules.mode : "prima_carta " + r.rules.variant;
  return `${r.round_id} (${what}, ${r.status}, ${s.deck.length} cards, ${s.client_seeds.length} seeds, ${s.reshuffles.length} reshuffles)`;
}

for (const r of ROUNDS) {
  await check("round " + describe(r) + " verifies, as in the Python", async () => verdict(await bothVerify(JSON.stringify(r))));
}

const jasper = ROUNDS.find((r) => r.shuffle && r.shuffle.reshuffles.length > 0);
const lobo = ROUNDS.find((r) => r.game === "lobo");
const contest = ROUNDS.find((r) => r.contest);
await check("a Jasper round with a reshuffle is among them", () => { assert(jasper, "none"); return jasper.round_id; });

if (jasper) {
  await check("a recall response of a Jasper round (`transcript` with events)", async () =>
    verdict(await bothVerify(JSON.stringify({ round: { id: jasper.round_id }, transcript: jasper }))));

  await check("every round as JSON Lines (the audit export)", async () => {
    const both = await bothVerify(ROUNDS.map((r) => JSON.stringify(r)).join("\n"));
    assert(both.js.length === ROUNDS.length, "read every line");
    return verdict(both);
  });

  const roundTamper = async (name, base, edit, firstName, firstMismatch, wrap = (t) => t) => {
    await check(name, async () => {
      const t = clone(base);
      edit(t);
      const both = await bothVerify(JSON.stringify(wrap(t)));
      const first = firstFailure(both.js[0]);
      assertEqual(first && first.name, firstName, "first failed check");
      if (firstMismatch !== undefined) assertEqual(first.first_mismatch, firstMismatch, "first mismatch");
      const pyFailed = both.py.reports[0].checks.filter((c) => !c.passed).map((c) => c.name);
      return `${failedNames(both.js[0]).join(", ")} failed (python: ${pyFailed.join(", ")}); ${verdict(both)}`;
    });
  };
  await roundTamper("Jasper round, two deck cards swapped", jasper, (t) => swap(t.shuffle.deck, 10, 11), "deck", 10);
  await roundTamper("Jasper round, reshuffle `after` tampered", jasper, (t) => swap(t.shuffle.reshuffles[0].after, 0, 1), "reshuffle[0]", 0);
  await roundTamper("Jasper round, a wrong server seed", jasper, (t) => { t.shuffle.server_seed = V1.server_seed; }, "commitment");
  await roundTamper("Lobo round, a client seed added", lobo, (t) => t.shuffle.client_seeds.push("late"), "client_seed");
  await roundTamper("Lobo round in a recall response, cards swapped", lobo,
    (t) => swap(t.shuffle.deck, 0, 5), "deck", 0, (t) => ({ transcript: t }));

  await roundTamper("Lobo contest, two cards of the second entrant's deck swapped", contest,
    (t) => swap(t.entrants[1].shuffle.deck, 3, 4), "entry[2].deck", 3);
  await roundTamper("Lobo contest, the first entrant's server seed replaced", contest,
    (t) => { t.entrants[0].shuffle.server_seed = V1.server_seed; }, "entry[1].commitment");

  await check("scope: a contest whose prize is wrong passes its shuffles, fails in the Python", async () => {
    const t = clone(contest);
    const prize = t.transfers.find((x) => x.kind === "contest_prize");
    prize.amount = prize.amount === "0.01" ? "0.02" : "0.01";
    const both = await bothVerify(JSON.stringify(t), { shuffleOnly: true });
    const pyFailed = both.py.reports[0].checks.filter((c) => !c.passed).map((c) => c.name);
    assertEqual(pyFailed, ["transfers"], "python's failed checks");
    return "js shuffles ok, python fails " + pyFailed.join(", ");
  });

  await check("scope: a round whose money is wrong passes the shuffle, fails in the Python", async () => {
    const t = clone(jasper);
    t.transfers[0].amount = "0.99";
    const both = await bothVerify(JSON.stringify(t), { shuffleOnly: true });
    const pyFailed = both.py.reports[0].checks.filter((c) => !c.passed).map((c) => c.name);
    assertEqual(pyFailed, ["transfers"], "python's failed checks");
    return "js shuffle ok, python fails " + pyFailed.join(", ");
  });

  await check("scope: a Jasper round whose reshuffle was dropped passes the shuffle, fails the Python's replay", async () => {
    const t = clone(jasper);
    t.shuffle.reshuffles = [];
    const both = await bothVerify(JSON.stringify(t), { shuffleOnly: true });
    const pyFailed = both.py.reports[0].checks.filter((c) => !c.passed).map((c) => c.name);
    assert(pyFailed.length && pyFailed.every((n) => !/^(algorithm|game|server_seed|commitment|client_seeds?|deck|reshuffle\[)/.test(n)),
      "python fails outside the shuffle: " + pyFailed);
    return "js shuffle ok, python fails " + pyFailed.join(", ");
  });
}

rmSync(TMP, { recursive: true, force: true });
console.log(failures ? `${failures} of ${count} cases FAILED` : `all ${count} cases passed`);
process.exit(failures ? 1 : 0);
