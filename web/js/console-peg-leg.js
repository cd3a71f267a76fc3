// Peg Leg in the console (docs/peg-leg.md): a table's options as fields and
// in words, its recent rounds with the pit boss's void of a round in play, and
// the recall of a settled or voided round: its cards with the key suit's
// count, every quote, every bet, every transfer, and both verifications (the
// server's replay and this browser's shuffle check). console-tables.js and
// console-audit.js show these.

import {
  el, field, nameOf, knowNames, tableName, facts, cards, rawJson, jsonDownloadButton, shortId, AMOUNT_PATTERN, value, amount,
} from "./console-common.js";
import { table as grid } from "./api.js";
import { suitLabel, cardElement } from "./cards.js";
import { verifyShuffle } from "./shuffle.js";
import { gameName } from "./games.js";
import { transferName, accountWords } from "./words.js";
import { optionsLine, rtpText, cardText, multiplierText, chanceText, totals, money } from "./peg-leg.js";

export { optionsLine };

// ---- options --------------------------------------------------------------------------------------

/** The option fields of a Peg Leg table, ids prefixed (`new-…` to create, `cfg-…` to change). */
export function pegLegConfigFields(prefix, c = {}) {
  const amountAttrs = (v) => ({ value: v || "", inputmode: "decimal", pattern: AMOUNT_PATTERN, required: true, autocomplete: "off" });
  return el("fieldset", { id: `${prefix}-peg-leg`, class: "options" },
    el("legend", {}, `${gameName("peg_leg")} options`),
    el("div", { class: "grid" },
      field(`${prefix}-min-bet`, "Smallest bet", amountAttrs(c.min_bet || "1.00")),
      field(`${prefix}-max-bet`, "Largest bet", amountAttrs(c.max_bet || "100.00")),
      field(`${prefix}-max-exposure`, "Most one player stakes on a round (every bet and rebet)", amountAttrs(c.max_exposure_per_round || "500.00")),
      field(`${prefix}-target-rtp`, "Target return of every price, basis points (9500 = 95.00%; 8000–9950)",
        { type: "number", min: 8000, max: 9950, step: 1, value: c.target_rtp_bp ?? 9500, required: true }),
      field(`${prefix}-window`, "Betting window after each card, milliseconds (0: until the next card; 1000–120000)",
        { type: "number", min: 0, max: 120000, step: 1, value: c.betting_window_ms ?? 0, required: true })));
}

export function readPegLegConfig(prefix) {
  return {
    game: "peg_leg",
    min_bet: amount(`${prefix}-min-bet`),
    max_bet: amount(`${prefix}-max-bet`),
    max_exposure_per_round: amount(`${prefix}-max-exposure`),
    target_rtp_bp: Number(value(`${prefix}-target-rtp`)),
    betting_window_ms: Number(value(`${prefix}-window`)),
  };
}

// ---- rounds ---------------------------------------------------------------------------------------

const STATUS = { seeding: "open, taking seeds", dealing: "dealing", settled: "settled", voided: "voided" };

/** The bettors of a round, by name (staff see who each is). */
function bettors(r) {
  const names = [...new Set((r.bets || []).map((b) => nameOf(b.player)))];
  return names.join(", ");
}

/**
 * A Peg Leg table's recent rounds into `box`, with the recall of each one over and, for a pit
 * boss, the void of one in play (`voidForm` and `recallColumn` are console-tables.js's).
 */
export function pegLegRounds(t, box, list, { voidForm, recallColumn }) {
  box.append(grid([
    ["No.", (r) => el("span", { title: "Round " + r.id }, String(r.number))],
    ["Status", (r) => el("span", { class: "round-status", "data-round-id": r.id, "data-status": r.status }, STATUS[r.status] || r.status)],
    ["Cards", (r) => `${r.cards_dealt} of 50`],
    ["Key suit", (r) => r.key_suit
      ? `${suitLabel(r.key_suit)}: ${r.final_count ?? r.key_count}${r.final_count !== null && r.final_count !== undefined ? " (final)" : ""}`
      : "—"],
    ["Bets", (r) => {
      const bets = r.bets || [];
      if (!bets.length) return "—";
      const sum = totals(bets);
      return el("span", { class: "peg-bets", "data-count": String(bets.length), title: bettors(r) },
        `${bets.length} bet${bets.length === 1 ? "" : "s"}, ${money(sum.staked)} staked`
        + (r.status === "settled" || r.status === "voided" ? `, ${money(sum.returned)} returned` : ""),
        el("span", { class: "muted small" }, ` (${bettors(r)})`));
    }],
    recallColumn(t),
  ], list, { caption: "The last rounds, newest first", empty: "No rounds yet." }));
  box.append(voidForm(t, list.filter((r) => r.status === "seeding" || r.status === "dealing"), {
    note: "Until the last card: every open bet's stake goes back to its player; a surrendered bet stands, as it was paid. The seed is revealed. A significant event.",
    none: "No round here can be voided now: only one not yet dealt to the end.",
    path: (id) => `/api/v1/peg-leg-rounds/${encodeURIComponent(id)}/void`,
    done: "every open bet was refunded",
  }));
  return box;
}

// ---- recall ---------------------------------------------------------------------------------------

const minor = (m) => (m === null || m === undefined ? "—" : money(BigInt(m)));

function quoteMethod(q) {
  const m = q.method || {};
  return m.kind === "exact" ? `exact (${m.states} states searched)` : `simulated (${m.samples} samples, δ ${m.delta})`;
}

/** A Peg Leg recall as the console reads it. */
export async function pegLegRecallView(doc, id) {
  const round = doc.round || {};
  const shuffle = doc.shuffle || {};
  await knowNames((doc.parties || []).map((p) => p.player_id));
  const pseudonyms = new Map((doc.parties || []).map((p) => [p.pseudonym, p.player_id ? nameOf(p.player_id) : p.pseudonym]));
  const who = (p) => pseudonyms.get(p) || nameOf(p);
  const accountOf = (a) => {
    const [kind, rest] = String(a).split(":");
    return kind === "wallet" ? `wallet of ${who(rest)}` : accountWords(a);
  };
  let browserCheck = null;
  try { browserCheck = await verifyShuffle(shuffle); } catch (_) { browserCheck = null; }
  const v = doc.verification || { checks: [] };
  const failed = (v.checks || []).filter((c) => !c.passed);
  const quoteCard = new Map((doc.quotes || []).map((q) => [q.id, q.cards_dealt]));

  const summary = facts([
    ["Game", gameName("peg_leg")],
    ["Round", el("code", { id: "recall-round-id" }, round.id || id)],
    ["Table", `${tableName(round.table_id)}, round no. ${round.number ?? "?"}`],
    ["Status", el("span", { id: "recall-status" }, round.status || "—")],
    ["Key suit", round.key_suit ? suitLabel(round.key_suit) : "—"],
    ["Final count", round.final_count ?? "—"],
    ["Target return", rtpText(round.config && round.config.target_rtp_bp)],
  ], { id: "recall-summary" });

  const seeds = el("div", { class: "recall-part", id: "recall-seeds" },
    el("h4", {}, "Seeds"),
    facts([
      ["Algorithm", shuffle.algorithm],
      ["Server seed (revealed)", el("code", {}, shuffle.server_seed || "—")],
      ["Commitment (published first)", el("code", {}, shuffle.commitment || "—")],
      ["Client seeds", (shuffle.client_seeds || []).length ? el("code", {}, shuffle.client_seeds.join(", ")) : "none"],
      ["Client seed used", el("code", {}, shuffle.client_seed || "—")],
    ]),
    browserCheck ? el("p", { id: "recall-shuffle-check", class: browserCheck.ok ? "ok" : "bad" },
      browserCheck.ok ? "✓ This browser re-derived the deck from the seeds: the shuffle checks."
        : "✗ This browser's shuffle check failed: " + browserCheck.checks.filter((c) => !c.passed).map((c) => `${c.name}: ${c.detail}`).join("; "))
      : null,
    el("details", { id: "recall-server-check", open: !v.passed },
      el("summary", { class: v.passed ? "ok" : "bad" },
        v.passed ? `✓ djego replayed the round: all ${(v.checks || []).length} checks pass (the deck, the pass, every quote repriced, every bet's money).`
          : `✗ djego's replay fails: ${failed.map((c) => c.name).join(", ")}.`),
      el("ul", { class: "checks small" }, (v.checks || []).map((c) => el("li", {},
        c.passed ? "✓" : "✗", ` ${c.name}`, c.detail ? el("span", { class: "muted" }, ` — ${c.detail}`) : "")))));

  const dealt = el("div", { class: "recall-part", id: "recall-play" },
    el("h4", {}, `The pass: ${round.cards_dealt ?? 0} of 50 cards dealt`),
    grid([
      ["No.", (c) => String(c.index + 1)],
      ["Card", (c) => cardElement(c.card, { class: "small" })],
      ["What it did", (c) => cardText(c, round.key_suit)],
      ["Key count", (c) => String(c.key_count)],
    ], round.cards || [], { caption: "Cards, in the order dealt", empty: "No card was dealt." }));

  const deck = el("div", { class: "recall-part", id: "recall-deck" },
    el("h4", {}, `Deck (${(shuffle.deck || []).length} cards, dealt from the left)`),
    cards(shuffle.deck || [], { numbered: true }));

  const quotes = el("div", { class: "recall-part", id: "recall-quotes" },
    el("h4", {}, `Quotes (${(doc.quotes || []).length}): every price, as made after each card`),
    (doc.quotes || []).map((q) => el("details", { class: "quote", "data-quote-id": q.id },
      el("summary", {}, `After card ${q.cards_dealt}: ${quoteMethod(q.quote || {})}`),
      grid([
        ["Count", (c) => String(c.count)],
        ["Pays", (c) => multiplierText(c.multiplier_cents === null || c.multiplier_cents === undefined ? null : money(BigInt(c.multiplier_cents)))],
        ["Chance", (c) => chanceText(c.probability) + (c.exact ? ` (${c.exact})` : "")],
        ["Bounds", (c) => `${Number(c.lower).toPrecision(4)} – ${Number(c.upper).toPrecision(4)}`],
      ], ((q.quote || {}).counts || []).filter((c) => c.count >= 1 || c.multiplier_cents), { empty: "No prices." }),
      q.simulation_seed ? el("p", { class: "muted small" }, `Simulation seed ${q.simulation_seed}.`) : null)));

  const bets = el("div", { class: "recall-part", id: "recall-bets" },
    el("h4", {}, "Bets"),
    grid([
      ["Player", (b) => who(b.player)],
      ["Count", (b) => String(b.count)],
      ["Stake", (b) => el("span", { class: "num" }, minor(b.stake_minor))],
      ["Pays", (b) => `×${minor(b.multiplier_cents)}`],
      ["Placed after card", (b) => String(quoteCard.get(b.quote_id) ?? "?")],
      ["Result", (b) => el("span", { class: b.status === "won" ? "ok" : "" },
        b.status === "surrendered" ? `surrendered after card ${quoteCard.get(b.surrender_quote_id) ?? "?"}` : b.status)],
      ["Returned", (b) => el("span", { class: "num" }, minor(b.returned_minor))],
    ], doc.bets || [], { empty: "No bets on this round." }));

  const transfers = el("div", { class: "recall-part", id: "recall-money" },
    el("h4", {}, "Money: every transfer of the round"),
    grid([
      ["Seq", (x) => String(x.seq)],
      ["Kind", (x) => transferName(x.kind)],
      ["From", (x) => accountOf(x.from)],
      ["To", (x) => accountOf(x.to)],
      ["Amount", (x) => el("span", { class: "num" }, x.amount)],
      ["Hash", (x) => el("code", { title: x.hash }, shortId(x.hash))],
    ], doc.transfers || [], { empty: "No transfers." }));

  return el("article", { class: "recall", id: "recall-view", "data-round-id": round.id || id, "data-game": "peg_leg" },
    el("div", { class: "row spread" },
      el("h4", {}, `Recall of ${gameName("peg_leg")} round no. ${round.number ?? ""}`),
      jsonDownloadButton("recall-download", "Download the recall (JSON)", `djego-peg-leg-round-${round.id || id}.json`, doc)),
    el("p", { class: "muted small" }, "Replay it offline: ", el("code", {}, "djego verify round FILE"), "."),
    el("div", { class: "columns halves" }, el("div", {}, summary, dealt), el("div", {}, seeds, deck)),
    quotes, bets, transfers,
    rawJson("The recall as JSON", doc, "recall-raw"));
}
