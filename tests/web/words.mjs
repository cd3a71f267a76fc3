// Checks web/js/words.js, the words every page shows for djego's codes: each
// bet kind, transfer kind, significant event, and exclusion-list match basis
// and state the Rust source names has words of its own (read from src/, so a
// new kind without words fails here), an unknown code is humanised, and a
// wallet memo never shows an account id.
//
//   node tests/web/words.mjs
//
// Prints one line per check; exits 1 if any fails.

import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

import {
  BET_NAMES, TRANSFER_WORDS, EVENT_WORDS, betName, transferName, eventName, memoWords, humanise, detailLabel, accountWords,
  MATCH_BASIS_WORDS, MATCH_STATUS_WORDS, matchBasisName, matchStatusName,
} from "../../web/js/words.js";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
let failures = 0;
let count = 0;

function check(name, ok, detail = "") {
  count++;
  if (ok) console.log(`ok   ${name}`);
  else { failures++; console.log(`FAIL ${name}${detail ? ": " + detail : ""}`); }
}

/** The strings an `as_str`/`name` match of `file` returns: `Enum::Variant => "code"`. */
function codesIn(file, enumName) {
  const text = readFileSync(join(ROOT, file), "utf8");
  const re = new RegExp(`${enumName}::\\w+\\s*=>\\s*"([a-z_]+)"`, "g");
  return [...new Set([...text.matchAll(re)].map((m) => m[1]))];
}

const bets = codesIn("src/bets/kind.rs", "BetKind");
const transfers = codesIn("src/ledger/post.rs", "TransferKind");
const events = codesIn("src/significant_events.rs", "EventKind");
check("the Rust source names the kinds", bets.length >= 8 && transfers.length >= 25 && events.length >= 35,
  `${bets.length} bets, ${transfers.length} transfers, ${events.length} events`);
for (const k of bets) check(`bet ${k} has a name`, BET_NAMES[k] && betName(k) === BET_NAMES[k], betName(k));
for (const k of transfers) check(`transfer ${k} has words`, TRANSFER_WORDS[k] && transferName(k) === TRANSFER_WORDS[k], transferName(k));
for (const k of events) check(`event ${k} has words`, EVENT_WORDS[k] && eventName(k) === EVENT_WORDS[k], eventName(k));
const bases = codesIn("src/compliance/exclusion_lists.rs", "Basis");
const matchStatuses = codesIn("src/compliance/exclusion_lists.rs", "MatchStatus");
check("the Rust source names how a list matches and a match's states", bases.length >= 3 && matchStatuses.length >= 3,
  `${bases.length} bases, ${matchStatuses.length} states`);
for (const k of bases) check(`match basis ${k} has words`, MATCH_BASIS_WORDS[k] && matchBasisName(k) === MATCH_BASIS_WORDS[k], matchBasisName(k));
for (const k of matchStatuses) check(`match status ${k} has words`, MATCH_STATUS_WORDS[k] && matchStatusName(k) === MATCH_STATUS_WORDS[k],
  matchStatusName(k));

check("a certified bet with its number", betName("cartas 13") === "Cartas 13", betName("cartas 13"));
check("a bet with a number given", betName("cartas", 12) === "Cartas 12", betName("cartas", 12));
check("Conto Alto", betName("conto_alto") === "Conto Alto", betName("conto_alto"));
check("an unknown code is humanised", transferName("some_new_kind") === "Some new kind" && eventName("x_y") === "X y"
  && betName("new_bet") === "New bet", transferName("some_new_kind"));
check("nothing is never undefined", humanise(undefined) === "" && !String(transferName(undefined)).includes("undefined")
  && !String(betName(null)).includes("undefined"));
check("a detail's key", detailLabel("dealer_id") === "Dealer" && detailLabel("rounds_folded") === "Rounds folded");

const cashier = "01a21fc8-3b1c-7a2e-9d4f-0123456789ab";
check("a cage memo naming the cashier says nothing", memoWords(`deposit by ${cashier}`) === null);
check("a withdrawal's too", memoWords(`withdrawal by ${cashier}`) === null);
check("a memo with an id is never shown", memoWords(`paid out for ${cashier}`) === null);
check("the Lobo house rule in words", memoWords("house rule fee=472,ante=0") === "the house rule: a fee of 4.72 units a round",
  memoWords("house rule fee=472,ante=0"));
check("an ante too", memoWords("house rule fee=0,ante=5") === "the house rule: an ante of 0.05 units a point of the Wolf's",
  memoWords("house rule fee=0,ante=5"));
check("a copa's memo", memoWords("copa of 3 cards for swords") === "3 cards, for Swords", memoWords("copa of 3 cards for swords"));
check("a spiga's memo", memoWords("spiga for cups") === "for Cups", memoWords("spiga for cups"));
check("a Fuerza stake's memo", memoWords("Fuerza on cups at 1.89") === "the house's Fuerza on Cups, at 1.89", memoWords("Fuerza on cups at 1.89"));
check("a side bet's memo", memoWords("conto_alto bet") === "Conto Alto bet", memoWords("conto_alto bet"));
check("a void's refund", memoWords("void: refund of bet_stake") === "the round was voided: bet staked given back",
  memoWords("void: refund of bet_stake"));
check("a cashier's own memo stays", memoWords("birthday chips") === "birthday chips");
check("a released loss cap's memo adds nothing", memoWords("escrow released") === null);
check("the house's accounts", accountWords("house:revenue") === "the house's revenue" && accountWords("cage") === "the cage");
check("no memo", memoWords(null) === null && memoWords("  ") === null);

if (failures) {
  console.log(`${failures} of ${count} checks failed`);
  process.exit(1);
}
console.log(`all ${count} checks passed`);
