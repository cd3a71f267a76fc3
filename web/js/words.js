// The words people read for djego's codes: side bets, ledger transfers and
// significant events, in one place for every page. The API speaks in codes
// ("conto_alto", "lobo_fee", "dealer_signed_in"); a page never shows one.
// A code this file does not know yet is humanised ("some_code" → "Some
// code"), never shown raw and never as "undefined".

import { suitName } from "./cards.js";

/** "some_code" → "Some code"; "" for nothing. */
export function humanise(code) {
  const s = String(code ?? "").replace(/_/g, " ").replace(/\s+/g, " ").trim();
  return s ? s.charAt(0).toUpperCase() + s.slice(1) : "";
}

/** A sentence's word inside a sentence: "Bet staked" → "bet staked" (a name like "Prima" keeps its capital). */
const inSentence = (words, keepCapital) => (keepCapital ? words : words.charAt(0).toLowerCase() + words.slice(1));

// ---- side bets (Prima Carta) ----------------------------------------------------------------------

/** The side bets in the order the pay table lists them (src/bets/kind.rs). */
export const BET_KINDS = ["prima", "escucha", "maximo", "conto_alto", "conto_bajo", "conto_medio", "cartas", "comeco"];
export const BET_NAMES = {
  prima: "Prima",
  escucha: "Escúcha",
  maximo: "Máximo",
  conto_alto: "Conto Alto",
  conto_bajo: "Conto Bajo",
  conto_medio: "Conto Medio",
  cartas: "Cartas",
  comeco: "Começo",
};
/** What each bet wins on, to follow "wins if …". */
export const BET_RULES = {
  prima: "the first card dealt is of your suit",
  escucha: "your suit is the first to complete all ten cards",
  maximo: "your suit's foundation has the highest rank",
  conto_alto: "the first pass counts 17 cards or more",
  conto_bajo: "the first pass counts 10 or 11 cards",
  conto_medio: "the first pass counts 14 or 15 cards",
  cartas: "the first pass counts exactly your number",
  comeco: "the first pass count falls on a paying line",
};
/** The bets on a suit. */
export const SUIT_BETS = ["prima", "escucha", "maximo"];

/**
 * A bet as people name it: "conto_alto" → "Conto Alto"; a certified bet with
 * its number ("cartas 13", as the floor and the certificate name it) →
 * "Cartas 13"; `number` adds one the same way.
 */
export function betName(kind, number) {
  const m = /^([a-z_]+)\s+(\d+)$/.exec(String(kind ?? ""));
  const code = m ? m[1] : kind;
  const n = m ? m[2] : number;
  const name = BET_NAMES[code] || humanise(code);
  return n === undefined || n === null || n === "" ? name : `${name} ${n}`;
}

// ---- ledger transfers ------------------------------------------------------------------------------

/** Every transfer kind (TransferKind::as_str in src/ledger/post.rs), as a player or the staff read it. */
export const TRANSFER_WORDS = {
  deposit: "Deposit at the cage",
  withdrawal: "Withdrawal at the cage",
  correction: "Correction",
  spiga: "Spiga",
  seat_fee: "Seat fee",
  copa: "Copa",
  corte: "Corte",
  corte_held: "Corte held",
  cobre: "Cobre",
  cobre_carried: "Cobre carried in",
  pot_payout: "Pot won",
  // A side bet's and a Peg Leg bet's alike: the memo names a Peg Leg bet.
  bet_stake: "Bet staked",
  bet_collected: "Bet lost",
  bet_returned: "Bet stake back",
  bet_payout: "Bet won",
  bet_refund: "Bet refunded",
  lobo_escrow: "Lobo loss cap held",
  lobo_fee: "Lobo house charge",
  lobo_loss: "Lobo lost",
  lobo_win: "Lobo won",
  lobo_release: "Lobo loss cap released",
  contest_entry: "Lobo contest entry",
  contest_rake: "Lobo contest rake",
  contest_prize: "Lobo contest prize",
  confidence_stake: "Confidence bet staked",
  confidence_payout: "Confidence bet won",
  confidence_commission: "Confidence bet commission",
  confidence_refund: "Confidence stake back",
  seguro_contribution: "Seguro toward your copa",
  seguro_share: "Seguro share of winnings",
  refund: "Refund",
};

export function transferName(kind) {
  return TRANSFER_WORDS[kind] || humanise(kind);
}

/** A token that is an account's (or any record's) id: a UUID. */
const ID = /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/i;

/** Hundredths of a unit as a decimal: 472 → "4.72". */
const hundredths = (n) => {
  const v = Number(n);
  return `${Math.floor(v / 100)}.${String(v % 100).padStart(2, "0")}`;
};

/**
 * A transfer's memo as a player reads it beside the transfer's words, or null
 * when it adds nothing. djego writes some memos for its own records ("deposit
 * by <cashier id>", "house rule fee=472,ante=0", "copa of 3 cards for swords"):
 * these become words, and a memo naming an id is never shown — a player never
 * sees a staff account's id.
 */
export function memoWords(memo) {
  const text = String(memo ?? "").trim();
  if (!text) return null;
  let m;
  if (/^(deposit|withdrawal) by \S+$/.test(text)) return null; // the transfer's words say it: at the cage
  if ((m = /^house rule fee=(\d+),ante=(\d+)$/.exec(text))) {
    const parts = [];
    if (Number(m[1])) parts.push(`a fee of ${hundredths(m[1])} units a round`);
    if (Number(m[2])) parts.push(`an ante of ${hundredths(m[2])} units a point of the Wolf's`);
    return parts.length ? `the house rule: ${parts.join(" and ")}` : null;
  }
  if ((m = /^spiga for ([a-z]+)$/.exec(text))) return `for ${suitName(m[1])}`;
  if ((m = /^Fuerza on ([a-z]+) at (\d+\.\d\d)$/.exec(text))) return `the house's Fuerza on ${suitName(m[1])}, at ${m[2]}`;
  if ((m = /^copa of (\d+) cards? for ([a-z]+)$/.exec(text))) return `${m[1]} card${m[1] === "1" ? "" : "s"}, for ${suitName(m[2])}`;
  if ((m = /^void: refund of ([a-z_]+)$/.exec(text))) return `the round was voided: ${inSentence(transferName(m[1]))} given back`;
  if ((m = /^([a-z_]+) bet$/.exec(text)) && BET_NAMES[m[1]]) return `${BET_NAMES[m[1]]} bet`;
  if (text === "escrow released") return null; // the transfer's words say it
  if (text === "void: escrow returned") return "the round was voided: the loss cap given back";
  if (text === "void: house rule's charge returned") return "the round was voided: the house charge given back";
  if (ID.test(text)) return null;
  return text;
}

/** The house's and the cage's ledger accounts (src/ledger/accounts.rs), as the staff read them. */
export const ACCOUNT_WORDS = {
  cage: "the cage",
  "house:bankroll": "the house's bankroll",
  "house:revenue": "the house's revenue",
  "house:tips": "the dealers' tips",
};

/** A ledger account without an owner in words ("house:revenue" → "the house's revenue"). */
export function accountWords(account) {
  return ACCOUNT_WORDS[account] || String(account ?? "").replace(/[:_]/g, " ");
}

// ---- significant events ----------------------------------------------------------------------------

/** Every significant event's kind (EventKind::as_str in src/significant_events.rs). */
export const EVENT_WORDS = {
  admin_bootstrapped: "First administrator created",
  user_created: "Account created",
  role_changed: "Role changed",
  login_failed: "Sign-in failed",
  login_rate_limited: "Sign-in attempts limited",
  login_unlocked: "Sign-in unlocked",
  logged_out: "Signed out",
  sessions_ended: "Sessions ended",
  password_changed: "Password changed",
  password_reset: "Password reset",
  token_key_rotated: "Token key rotated",
  table_created: "Table created",
  table_reconfigured: "Table options changed",
  table_opened: "Table opened",
  table_closed: "Table closed",
  dealer_assigned: "Dealer assigned",
  pay_table_installed: "Pay table installed",
  round_voided: "Round voided",
  round_timed_out: "Round folded after no play",
  round_booked: "Round booked into the signed ledger",
  contest_created: "Lobo contest created",
  contest_entrant_stopped: "Contest entrant stopped",
  seed_revealed: "Seed revealed",
  correction: "Cage correction",
  house_rule_override: "House rule overridden",
  checkpoint_taken: "Checkpoint signed",
  floor_calendar_changed: "Floor calendar changed",
  floor_rating_rule_changed: "Rating rule changed",
  dealer_signed_in: "Dealer signed in",
  dealer_signed_out: "Dealer signed out",
  floor_pits_changed: "Pits changed",
  gaming_day_closed: "Gaming day closed",
  change_proposed: "Change proposed",
  change_approved: "Change approved",
  change_rejected: "Change rejected",
  approval_rule_changed: "Approval rule changed",
  player_limit_set: "Play limit set",
  player_excluded: "Player took a time-out or self-exclusion",
  reality_check_set: "Player chose how often to see their session",
  compliance_rules_changed: "Cash-compliance rules changed",
  patron_identity_recorded: "Patron's identity recorded",
  patron_identity_read: "Patron's identity read",
  currency_transaction_report_filed: "Currency transaction report marked filed",
  compliance_alert_reviewed: "Compliance alert reviewed",
  exclusion_list_imported: "Exclusion list imported",
  exclusion_list_match_reviewed: "Exclusion list match reviewed",
};

export const EVENT_KINDS = Object.keys(EVENT_WORDS);

export function eventName(kind) {
  return EVENT_WORDS[kind] || humanise(kind);
}

/** An event detail's key as a label: "dealer_id" → "Dealer", "rounds_folded" → "Rounds folded". */
export function detailLabel(key) {
  return humanise(String(key ?? "").replace(/_id$/, ""));
}

// ---- cash-transaction compliance (docs/compliance.md) ----------------------------------------------

/** Which way cash moves at the cage (CashDirection in src/compliance/mod.rs). */
export const DIRECTION_WORDS = { deposit: "Deposit", withdrawal: "Withdrawal" };

export function directionName(direction) {
  return DIRECTION_WORDS[direction] || humanise(direction);
}

/** The structuring patterns an alert names (Pattern::as_str in src/compliance/patterns.rs). */
export const PATTERN_WORDS = {
  near_threshold: "Several transactions just under a threshold",
  split_transactions: "Cash split across cashiers, places or days",
  minimal_play: "Cash in and out with little play",
};

export function patternName(pattern) {
  return PATTERN_WORDS[pattern] || humanise(pattern);
}

/** An alert's state (AlertStatus in src/compliance/alerts.rs). */
export const ALERT_STATUS_WORDS = { open: "Open", dismissed: "Dismissed", escalated: "Escalated" };

export function alertStatusName(status) {
  return ALERT_STATUS_WORDS[status] || humanise(status);
}

/** The identity documents a cashier examines (DocumentType in src/compliance/identity.rs), in the form's order. */
export const DOCUMENT_TYPES = [
  ["passport", "Passport"],
  ["driving_licence", "Driving licence"],
  ["national_identity_card", "National identity card"],
  ["other", "Other"],
];

export function documentTypeName(type) {
  const found = DOCUMENT_TYPES.find(([code]) => code === type);
  return found ? found[1] : humanise(type);
}

/** Why an identity was read (Purpose in src/compliance/identity.rs), to follow "read for". */
export const IDENTITY_PURPOSE_WORDS = {
  identity: "a look at the identity itself",
  cash_log: "the multiple-transaction log",
  report: "a currency transaction report",
  exclusion_list: "matching an exclusion list",
};

/**
 * What a currency transaction report lacks before it can be filed (its `missing`
 * array: the casino's facts by field name, and "identity").
 */
export const REPORT_MISSING_WORDS = {
  identity: "the patron's identity",
  casino_name: "the casino's legal name",
  casino_address: "the casino's address",
  casino_tax_id: "the casino's tax identification number",
};

export function missingName(field) {
  return REPORT_MISSING_WORDS[field] || humanise(field).toLowerCase();
}

/** The fields of a patron's identity, as a refusal names them ("date_of_birth must be in the past"). */
export const IDENTITY_FIELD_WORDS = {
  full_name: "the full name",
  date_of_birth: "the date of birth",
  address: "the address",
  document_type: "the document type",
  document_number: "the document number",
  document_issuer: "who issued the document",
  occupation: "the occupation",
};

/** How an exclusion list's entry matched a patron (Basis in src/compliance/exclusion_lists.rs), to follow "matched on". */
export const MATCH_BASIS_WORDS = {
  name_and_date_of_birth: "the name and date of birth",
  document: "the document number",
  both: "the name and date of birth, and the document number",
};

export function matchBasisName(basis) {
  return MATCH_BASIS_WORDS[basis] || humanise(basis).toLowerCase();
}

/** An exclusion list match's state (MatchStatus in src/compliance/exclusion_lists.rs). */
export const MATCH_STATUS_WORDS = { pending: "Waiting for review", confirmed: "Confirmed", rejected: "Rejected" };

export function matchStatusName(status) {
  return MATCH_STATUS_WORDS[status] || humanise(status);
}

/** A list in words: ["a", "b", "c"] → "a, b and c". */
export function listWords(items) {
  const list = [...(items || [])].filter(Boolean);
  if (list.length <= 1) return list.join("");
  return `${list.slice(0, -1).join(", ")} and ${list[list.length - 1]}`;
}
