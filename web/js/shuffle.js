// shuffle-v1 in the browser: re-derive a round's deck and check its shuffle transcript.
//
// A third implementation of docs/shuffle.md, beside djego's Rust and docs/verify/verify_round.py.
// It ports the shuffle part of verify_round.py function for function (names in camelCase), with
// the same checks, in the same order, with the same names, details and first mismatches, so the
// page and `python3 docs/verify/verify_round.py` agree on every transcript. Only the shuffle is
// checked here: a version-2 transcript's play, bets and transfers are the Python's and Rust's job.
//
// Plain ES module: no build step, no dependency, nothing fetched. SHA-256 and HMAC come from
// globalThis.crypto.subtle (browsers in a secure context such as http://127.0.0.1, Node >= 20);
// ChaCha20 is written out here.

export const ALGORITHM = "shuffle-v1";
export const GAMES = ["prima_carta", "lobo"];
export const SUITS = ["crowns", "locks", "fruit", "swords", "cups"];

// --- bytes and hex ------------------------------------------------------------------------------

const HEX = /^[0-9a-fA-F]*$/;

export function hexToBytes(hex) {
  if (typeof hex !== "string" || hex.length % 2 !== 0 || !HEX.test(hex)) {
    throw new TypeError("not an even number of hex digits");
  }
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return out;
}

export function bytesToHex(bytes) {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

// A JavaScript string is UTF-16 and may hold a lone surrogate, which TextEncoder would silently
// turn into U+FFFD. Python refuses to encode one; so do we, with Python's words, so that a
// transcript whose round_id holds one fails here exactly as it fails in verify_round.py.
export function utf8(text) {
  const chars = Array.from(text); // code points, as Python counts positions
  const isLone = (ch) => ch.length === 1 && ch.charCodeAt(0) >= 0xd800 && ch.charCodeAt(0) <= 0xdfff;
  const start = chars.findIndex(isLone);
  if (start >= 0) {
    let end = start;
    while (end + 1 < chars.length && isLone(chars[end + 1])) end++;
    const what = start === end
      ? "character " + pyRepr(chars[start]) + " in position " + start
      : "characters in position " + start + "-" + end;
    const error = new Error("'utf-8' codec can't encode " + what + ": surrogates not allowed");
    error.name = "UnicodeEncodeError";
    throw error;
  }
  return new TextEncoder().encode(text);
}

function subtle() {
  const s = globalThis.crypto && globalThis.crypto.subtle;
  if (!s) {
    // Browsers hide crypto.subtle outside secure contexts (https, localhost, 127.0.0.1).
    throw new Error("Web Crypto (crypto.subtle) is unavailable: open the page over https or on localhost");
  }
  return s;
}

// --- ChaCha20 (original construction: 64-bit block counter, 64-bit nonce) -----------------------

// A 64-bit value (a Number up to 2^53, or a BigInt) as its low and high 32-bit words. The
// shuffle only ever needs small counters; BigInt is accepted for the RFC vector whose counter
// uses the high word.
function splitU64(value) {
  if (typeof value === "bigint") {
    const mask = BigInt(0xffffffff);
    return [Number(value & mask), Number((value >> BigInt(32)) & mask)];
  }
  return [value % 0x100000000, Math.floor(value / 0x100000000) % 0x100000000];
}

function rotl(v, n) {
  return (v << n) | (v >>> (32 - n));
}

// Uint32Array stores wrap every sum and XOR to 32 bits, as `& MASK32` does in the Python.
function quarter(s, a, b, c, d) {
  s[a] += s[b]; s[d] = rotl(s[d] ^ s[a], 16);
  s[c] += s[d]; s[b] = rotl(s[b] ^ s[c], 12);
  s[a] += s[b]; s[d] = rotl(s[d] ^ s[a], 8);
  s[c] += s[d]; s[b] = rotl(s[b] ^ s[c], 7);
}

/** The 16 output words of one ChaCha20 block (key: 32 bytes) as a Uint32Array. */
export function chacha20Block(key, counter, nonce = 0) {
  const state = new Uint32Array(16);
  state.set([0x61707865, 0x3320646e, 0x79622d32, 0x6b206574]); // "expand 32-byte k"
  const view = new DataView(key.buffer, key.byteOffset, 32);
  for (let i = 0; i < 8; i++) state[4 + i] = view.getUint32(4 * i, true); // little-endian words
  state.set(splitU64(counter), 12); // word 12 low, word 13 high half of the block counter
  state.set(splitU64(nonce), 14);
  const w = state.slice();
  for (let round = 0; round < 10; round++) { // 20 rounds = 10 double rounds
    quarter(w, 0, 4, 8, 12); quarter(w, 1, 5, 9, 13);
    quarter(w, 2, 6, 10, 14); quarter(w, 3, 7, 11, 15);
    quarter(w, 0, 5, 10, 15); quarter(w, 1, 6, 11, 12);
    quarter(w, 2, 7, 8, 13); quarter(w, 3, 4, 9, 14);
  }
  for (let i = 0; i < 16; i++) w[i] += state[i];
  return w;
}

/** shuffle-v1's random source: ChaCha20 keystream words, counter 0, nonce 0. */
export class Shuffler {
  constructor(deckSeed) {
    this.key = deckSeed;
    this.counter = 0;
    this.buffer = new Uint32Array(0);
    this.index = 0; // next unread word of `buffer`
  }

  /** An independent Shuffler at the same point of the stream. */
  copy() {
    const other = new Shuffler(this.key);
    other.counter = this.counter;
    other.buffer = this.buffer.slice();
    other.index = this.index;
    return other;
  }

  nextU32() {
    if (this.index >= this.buffer.length) {
      this.buffer = chacha20Block(this.key, this.counter);
      this.counter += 1;
      this.index = 0;
    }
    return this.buffer[this.index++];
  }

  // Rejection keeps every residue equally likely. 2^32 - n and its remainder are exact in a
  // double (below 2^53), so this is bit for bit the Rust and the Python; no BigInt needed.
  uniform(n) {
    const threshold = (0x100000000 - n) % n;
    for (;;) {
      const x = this.nextU32();
      if (x >= threshold) return x % n;
    }
  }

  /** Fisher–Yates in place, from the last position down to 1; position 0 is dealt first. */
  shuffle(items) {
    for (let i = items.length - 1; i > 0; i--) {
      const j = this.uniform(i + 1);
      [items[i], items[j]] = [items[j], items[i]];
    }
  }
}

// --- shuffle-v1 ------------------------------------------------------------------------------------

/** Lowercase hex SHA-256 of `data` (bytes). */
export async function sha256Hex(data) {
  return bytesToHex(new Uint8Array(await subtle().digest("SHA-256", data)));
}

/** HMAC-SHA256(key, message), both bytes, as a Uint8Array of 32 bytes. */
export async function hmacSha256(key, message) {
  const k = await subtle().importKey("raw", key, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  return new Uint8Array(await subtle().sign("HMAC", k, message));
}

/** Prima Carta's client seed: SHA-256 of the seeds sorted bytewise, duplicates kept, "\n"-joined. */
export async function combinedClientSeed(seeds) {
  // Valid seeds are printable ASCII, where UTF-16 code unit order is byte order.
  const ordered = [...seeds].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return sha256Hex(new TextEncoder().encode(ordered.join("\n")));
}

/** The client_seed entering the HMAC: Prima Carta combines the seeds, Lobo takes its one seed or "". */
export async function clientSeedFor(game, seeds) {
  if (game === "prima_carta") return combinedClientSeed(seeds);
  return seeds.length ? seeds[0] : "";
}

/** HMAC-SHA256 keyed with the raw server seed over "djego/shuffle-v1/<game>/<round_id>/<client_seed>". */
export async function deckSeed(serverSeed, game, roundId, clientSeed) {
  const message = "djego/shuffle-v1/" + game + "/" + roundId + "/" + clientSeed;
  return hmacSha256(serverSeed, utf8(message));
}

/** The unshuffled deck: ids suit * 10 + rank - 1, ascending; Lobo's easier modes drop ranks. */
export function orderedDeck(maxRank) {
  const deck = [];
  for (let suit = 0; suit < 5; suit++) {
    for (let rank = 1; rank <= maxRank; rank++) deck.push(suit * 10 + (rank - 1));
  }
  return deck;
}

export function suitOf(card) {
  return Math.floor(card / 10);
}

export function rankOf(card) {
  return (card % 10) + 1;
}

/**
 * The deck a round deals: `clientSeed` is the combined client_seed (Prima Carta: 64 hex digits;
 * Lobo: the seed itself or ""). Returns { deck, stream }, the stream positioned just after the
 * shuffle, where a reshuffle continues.
 */
export async function deriveDeck(serverSeedHex, game, roundId, clientSeed, maxRank = 10) {
  const stream = new Shuffler(await deckSeed(hexToBytes(serverSeedHex), game, roundId, clientSeed));
  const deck = orderedDeck(maxRank);
  stream.shuffle(deck);
  return { deck, stream };
}

/** A version-1 transcript (no reshuffle yet) and the stream just after the deck shuffle. */
export async function shuffleTranscript(serverSeed, game, roundId, clientSeeds, maxRank = 10) {
  const clientSeed = await clientSeedFor(game, clientSeeds);
  const stream = new Shuffler(await deckSeed(serverSeed, game, roundId, clientSeed));
  const deck = orderedDeck(maxRank);
  stream.shuffle(deck);
  const transcript = {
    algorithm: ALGORITHM, game, round_id: roundId, server_seed: bytesToHex(serverSeed),
    commitment: await sha256Hex(serverSeed), client_seeds: [...clientSeeds], client_seed: clientSeed,
    deck, reshuffles: [],
  };
  return { transcript, stream };
}

/** null if `seed` is a valid client seed, else why not (checked in the Python's order). */
export function clientSeedProblem(seed) {
  if (typeof seed !== "string") return "not a string";
  let i = 0;
  for (const ch of seed) { // code points, as Python indexes them
    if (!(ch >= " " && ch <= "~")) return "character " + i + " is not printable ASCII";
    i++;
  }
  if (seed.length === 0) return "empty";
  if (seed.length > 64) return "longer than 64 characters";
  return null;
}

/** The first index where `a` and `b` differ, the shorter length if one is a prefix, else null. */
export function firstDifference(a, b) {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return i;
  return a.length === b.length ? null : n;
}

// JSON integers only: Python's is_id_list refuses booleans and floats. (JSON.parse cannot tell
// 1.0 from 1, so a deck written with "1.0" is read here as 1; djego never writes one.)
export function isIdList(value) {
  return Array.isArray(value) && value.every((x) => typeof x === "number" && Number.isInteger(x));
}

// --- the checks -----------------------------------------------------------------------------------

function isObject(value) {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

// Python's dict.get: own keys only, so "constructor" or "__proto__" are plain absent keys.
function getter(t) {
  return (key, fallback = null) => (Object.prototype.hasOwnProperty.call(t, key) ? t[key] : fallback);
}

/**
 * The version-1 checks of a shuffle transcript, port of verify_round.py's shuffle_checks:
 * { checks: [{ name, passed, first_mismatch, detail, first_difference? }], stream } where stream
 * is the RNG just after the deck shuffle (null unless the deck verified), for a reshuffle.
 * `first_difference` ({ index, expected, found }, a card id or null past an end) is added to a
 * failed deck or reshuffle check, to name the card as well as the position.
 */
export async function shuffleChecks(t) {
  const checks = [];
  let stream = null;
  const add = (name, passed, detail, first = null, extra = null) => {
    const check = { name, passed, first_mismatch: first, detail };
    if (extra) check.first_difference = extra;
    checks.push(check);
  };
  const difference = (expected, found, index) =>
    index === null ? null : { index, expected: index < expected.length ? expected[index] : null,
      found: index < found.length ? found[index] : null };

  if (!isObject(t)) t = {};
  const get = getter(t);

  const algorithm = get("algorithm");
  add("algorithm", algorithm === ALGORITHM, pyRepr(algorithm));

  const game = GAMES.includes(get("game")) ? get("game") : null;
  add("game", game !== null, pyRepr(get("game")));

  const seedHex = get("server_seed");
  let serverSeed = null;
  if (typeof seedHex === "string" && seedHex.length === 64 && HEX.test(seedHex)) {
    serverSeed = hexToBytes(seedHex);
  }
  add("server_seed", serverSeed !== null, serverSeed ? "64 hex digits" : "not 64 hex digits");

  if (serverSeed === null) {
    add("commitment", false, "not checked: the server seed is invalid");
  } else {
    const expected = await sha256Hex(serverSeed);
    const claimed = get("commitment");
    // Case-insensitive, but ASCII only (as Python's isascii() guards its lower()).
    const ok = typeof claimed === "string" && /^[\x00-\x7f]*$/.test(claimed) && claimed.toLowerCase() === expected;
    add("commitment", ok, "sha256(server_seed) = " + expected);
  }

  const seeds = get("client_seeds", []);
  let clientSeeds = null;
  if (!Array.isArray(seeds)) {
    add("client_seeds", false, "not a list");
  } else {
    const bad = seeds.map((s, i) => [i, clientSeedProblem(s)]).find(([, problem]) => problem);
    if (bad) {
      add("client_seeds", false, "client seed " + bad[0] + ": " + bad[1], bad[0]);
    } else if (game === "lobo" && seeds.length > 1) {
      add("client_seeds", false, "lobo takes at most one client seed", 1);
    } else {
      add("client_seeds", true, seeds.length + " valid");
      clientSeeds = seeds;
    }
  }

  let expectedClientSeed = null;
  if (game !== null && clientSeeds !== null) expectedClientSeed = await clientSeedFor(game, clientSeeds);
  if (expectedClientSeed === null) {
    add("client_seed", false, "not checked: the game or the client seeds are invalid");
  } else {
    add("client_seed", get("client_seed") === expectedClientSeed, pyRepr(expectedClientSeed));
  }

  const deck = isIdList(get("deck")) ? get("deck") : null;
  const roundId = get("round_id");
  let shuffler = null;
  let maxRank = null;
  if (game === "prima_carta") maxRank = 10;
  else if (game === "lobo" && deck !== null) maxRank = { 50: 10, 45: 9, 40: 8 }[deck.length] ?? null;
  if (serverSeed !== null && expectedClientSeed !== null && maxRank !== null && deck !== null
      && typeof roundId === "string") {
    shuffler = new Shuffler(await deckSeed(serverSeed, game, roundId, expectedClientSeed));
    const expected = orderedDeck(maxRank);
    shuffler.shuffle(expected);
    const diff = firstDifference(expected, deck);
    add("deck", diff === null, expected.length + " cards", diff, difference(expected, deck, diff));
    if (diff === null) stream = shuffler.copy();
  } else {
    add("deck", false, "not checked: an input above is invalid");
  }

  // Each reshuffle continues the stream, even after a failed deck, as djego's verifier does.
  let reshuffles = get("reshuffles", []);
  if (!Array.isArray(reshuffles)) reshuffles = [null];
  reshuffles.forEach((r, k) => {
    const name = "reshuffle[" + k + "]";
    const before = isObject(r) ? getter(r)("before") : null;
    const after = isObject(r) ? getter(r)("after") : null;
    if (shuffler === null || !isIdList(before) || !isIdList(after)) {
      add(name, false, "not checked");
      if (shuffler !== null && isIdList(before)) shuffler.shuffle([...before]); // keep the stream in step
      return;
    }
    const expected = [...before];
    shuffler.shuffle(expected);
    const seen = new Set();
    let bad = null;
    for (let i = 0; i < before.length; i++) {
      const card = before[i];
      const inMode = card >= 0 && card < 50 && (card % 10) + 1 <= maxRank;
      if (!inMode || seen.has(card)) { bad = i; break; }
      seen.add(card);
    }
    if (bad !== null) {
      add(name, false, "before[" + bad + "] is not a card of this deck or is repeated");
    } else {
      const diff = firstDifference(expected, after);
      add(name, diff === null, expected.length + " cards", diff, difference(expected, after, diff));
    }
  });

  return { checks, stream };
}

// --- documents ------------------------------------------------------------------------------------

/**
 * The shuffle part of a document, as verify_round.py finds it: a response from the API
 * (recall, verification) is read through its `transcript` object; a Peg Leg recall through its
 * `shuffle`; a document with a `version`
 * other than 1 is a version-2 round whose `shuffle` is checked (a missing or non-object
 * `shuffle` checks as {}); anything else is a version-1 shuffle transcript itself.
 * Returns { version: 1 | 2, shuffle }.
 */
export function shufflePartOf(document) {
  if (isPegLegRecall(document)) return { version: 2, shuffle: document.shuffle };
  let t = document;
  if (isObject(t) && isObject(getter(t)("transcript"))) t = t.transcript;
  const version = isObject(t) ? getter(t)("version") : null;
  if (version !== null && version !== 1) {
    const shuffle = getter(t)("shuffle");
    return { version: 2, shuffle: isObject(shuffle) ? shuffle : {} };
  }
  return { version: 1, shuffle: t };
}

/** A saved Peg Leg recall (its `quotes` and `shuffle`), as verify_round.py's is_peg_leg_recall. */
export function isPegLegRecall(document) {
  return isObject(document) && Array.isArray(getter(document)("quotes")) && isObject(getter(document)("shuffle"));
}

/** A saved Lobo contest recall (its `contest` and `entrants`), as verify_round.py's is_contest_recall. */
export function isContestRecall(document) {
  return isObject(document) && isObject(getter(document)("contest")) && Array.isArray(getter(document)("entrants"));
}

/**
 * Every entrant's deck of a contest recall, each an ordinary Lobo shuffle transcript: their
 * checks named `entry[n].…` as the Python names them. Whether each deck is the entrant's own
 * (round id `<contest id>/<n>`) and the plays and money are djego's and the Python's to check.
 */
async function contestShuffles(recall) {
  const checks = [];
  for (const entrant of recall.entrants) {
    const n = isObject(entrant) ? getter(entrant)("entry_number") : null;
    const shuffle = isObject(entrant) ? getter(entrant)("shuffle") : null;
    const { checks: own } = await shuffleChecks(isObject(shuffle) ? shuffle : {});
    for (const c of own) checks.push({ ...c, name: `entry[${n}].${c.name}` });
  }
  // A contest voided before anyone entered has no deck to check, as for the other verifiers.
  return { ok: checks.every((c) => c.passed), version: 2, contest: true, checks };
}

/**
 * The items of a file's text, as verify_round.py's load reads them: one JSON document or, if the
 * text is not one, JSON Lines; a JSON list gives its elements. Pass each to verifyShuffle.
 */
export function splitDocuments(text) {
  let documents;
  try {
    documents = [JSON.parse(text)];
  } catch {
    documents = text.split(/\r\n|\r|\n/).filter((line) => line.trim()).map((line) => JSON.parse(line));
  }
  return documents.flatMap((d) => (Array.isArray(d) ? d : [d]));
}

/**
 * Checks the shuffle of one document (a transcript of version 1 or 2, or an API response holding
 * one): { ok, version, checks } with the checks of shuffleChecks. `ok` is true when every shuffle
 * check passes; for a version-2 round that is the shuffle only, not the play or the money.
 * Malformed input never throws: like the Python, it gives one failed "transcript" check.
 */
export async function verifyShuffle(document) {
  subtle(); // an unusable environment is the page's problem, not the transcript's: throw
  if (isContestRecall(document)) return contestShuffles(document);
  let version = 1;
  try {
    const part = shufflePartOf(document);
    version = part.version;
    const { checks } = await shuffleChecks(part.shuffle);
    return { ok: checks.every((c) => c.passed), version, checks };
  } catch (e) {
    const detail = "cannot read the transcript: " + (e && e.name ? e.name : "Error") + ": " + (e && e.message);
    return { ok: false, version, checks: [{ name: "transcript", passed: false, first_mismatch: null, detail }] };
  }
}

// --- Python's repr, for the details that quote a value ---------------------------------------------

// Python's str.isprintable(): false for control, format, surrogate, private-use, unassigned
// characters and separators other than the space.
const NOT_PRINTABLE = /^[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}\p{Zs}]$/u;

function reprString(s) {
  const quote = s.includes("'") && !s.includes('"') ? '"' : "'";
  let out = quote;
  for (const ch of s) {
    const code = ch.codePointAt(0);
    if (ch === quote || ch === "\\") out += "\\" + ch;
    else if (ch === "\t") out += "\\t";
    else if (ch === "\n") out += "\\n";
    else if (ch === "\r") out += "\\r";
    else if (ch === " " || !NOT_PRINTABLE.test(ch)) out += ch;
    else if (code <= 0xff) out += "\\x" + code.toString(16).padStart(2, "0");
    else if (code <= 0xffff) out += "\\u" + code.toString(16).padStart(4, "0");
    else out += "\\U" + code.toString(16).padStart(8, "0");
  }
  return out + quote;
}

// JSON.parse gives a Number for both 3 and 3.0; an integral one is shown as Python shows an int.
function reprNumber(x) {
  if (!Number.isFinite(x)) return Number.isNaN(x) ? "nan" : x > 0 ? "inf" : "-inf";
  if (Number.isInteger(x)) return BigInt(x).toString();
  const [mantissa, exp] = x.toExponential().split("e");
  const e = Number(exp);
  if (e < -4 || e >= 16) return mantissa + "e" + (e < 0 ? "-" : "+") + String(Math.abs(e)).padStart(2, "0");
  return String(x); // JavaScript writes these the way Python does
}

/** Python's repr() of a JSON value, as the Python verifier's details print it. */
export function pyRepr(value) {
  if (value === null || value === undefined) return "None";
  if (value === true) return "True";
  if (value === false) return "False";
  if (typeof value === "string") return reprString(value);
  if (typeof value === "number") return reprNumber(value);
  if (Array.isArray(value)) return "[" + value.map(pyRepr).join(", ") + "]";
  return "{" + Object.entries(value).map(([k, v]) => reprString(k) + ": " + pyRepr(v)).join(", ") + "}";
}
