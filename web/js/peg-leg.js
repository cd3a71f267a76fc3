// Peg Leg in words, as every page says it (docs/peg-leg.md): a table's terms,
// a round's status, each card dealt with what it did to the key suit, the price
// ladder of a quote, what a stake returns, and the bettors as the table knows
// them (pseudonyms P1, P2…, never account ids). Money stays in integer cents.

import { el } from "./api.js";
import { cardName, suitName, suitLabel, suitOfCard } from "./cards.js";
import { cents, money } from "./money.js";

/** A round's status as people say it. */
export const STATUS_WORDS = {
  seeding: "Open: client seeds are taken until the first card",
  dealing: "Dealing card by card: bets are taken between cards",
  settled: "Settled: every bet is paid",
  voided: "Voided: every open bet was refunded",
};

export const statusWords = (status) => STATUS_WORDS[status] || String(status || "");

/** Basis points as a percentage, exactly: 9500 → "95.00%". */
export function rtpText(bp) {
  const n = Math.trunc(Number(bp));
  if (!Number.isFinite(n)) return "—";
  return `${Math.trunc(n / 100)}.${String(n % 100).padStart(2, "0")}%`;
}

/** How long bets are taken after each card. */
export function windowText(ms) {
  const n = Number(ms || 0);
  return n === 0 ? "until the dealer deals the next card" : `for ${n / 1000} s after each card`;
}

/** A Peg Leg table's options as [term, words] pairs. */
export function terms(c) {
  return [
    ["Bets", `${c.min_bet} to ${c.max_bet} a bet; at most ${c.max_exposure_per_round} staked by one player on a round`],
    ["Target return", `${rtpText(c.target_rtp_bp)} of every stake, at every price`],
    ["Betting", `bets and surrenders are taken ${windowText(c.betting_window_ms)}`],
  ];
}

/** The options in one line. */
export function optionsLine(c) {
  return `bets ${c.min_bet}–${c.max_bet} (≤ ${c.max_exposure_per_round} a player a round), target RTP ${rtpText(c.target_rtp_bp)}, `
    + `bets taken ${windowText(c.betting_window_ms)}`;
}

/** The options as a definition list. */
export function termsList(c, attrs = {}) {
  return el("dl", { class: "terms", ...attrs }, terms(c).flatMap(([k, v]) => [el("dt", {}, k), el("dd", {}, v)]));
}

// ---- cards -------------------------------------------------------------------------------------

const plural = (n, one, many) => `${n} ${n === 1 ? one : many}`;

function eventText(e, keySuit) {
  const key = (suit) => (suit === keySuit ? " (the key suit)" : "");
  switch (e.type) {
    case "dealt": {
      const suit = suitOfCard(e.card);
      if (e.to === "foundation") return `${cardName(e.card)} starts the ${suitName(suit)} stack${key(suit)}`;
      if (e.to === "stack") return `${cardName(e.card)} goes onto its stack (${e.stack_count})${key(suit)}`;
      return `${cardName(e.card)} goes to the discards`;
    }
    case "prima": return `${suitName(e.suit)} is the key suit`;
    case "played_up": return `${cardName(e.card)} plays up from the discards (${e.stack_count})${key(suitOfCard(e.card))}`;
    case "suit_completed": return `${suitName(e.suit)} is complete${key(e.suit)}`;
    case "pass_ended": return "the pass ends";
    default: return null;
  }
}

/** What one dealt card did, in a sentence. */
export function cardText(dealt, keySuit) {
  const events = dealt.events || [];
  // The first card's foundation already says it is the key suit's.
  const founds = (suit) => events.some((e) => e.type === "dealt" && e.to === "foundation" && suitOfCard(e.card) === suit);
  const parts = events.filter((e) => !(e.type === "prima" && founds(e.suit) && e.suit === keySuit))
    .map((e) => eventText(e, keySuit)).filter(Boolean);
  const s = parts.join("; ");
  return s ? s.charAt(0).toUpperCase() + s.slice(1) + "." : cardName(dealt.card) + ".";
}

/** "⚔ Swords: 3 cards" with the settled count when it is. */
export function keyLine(r) {
  if (!r.key_suit) return "No card dealt yet: the first card's suit is the key suit.";
  const settled = r.settled_count !== null && r.settled_count !== undefined;
  return `Key suit ${suitLabel(r.key_suit)}: ${plural(r.key_count, "card", "cards")} on its stack`
    + (r.final_count !== null && r.final_count !== undefined ? `; final count ${r.final_count}`
      : settled ? `; settled at ${r.settled_count} (no undealt card can change it)` : "")
    + ` · ${r.cards_dealt} of 50 cards dealt`;
}

// ---- prices --------------------------------------------------------------------------------------

/** "×4.35", or "not offered". */
export const multiplierText = (m) => (m ? `×${m}` : "not offered");

/** The counts a quote prices that can happen at all (the count is never 0: the first card counts). */
export function ladder(quote) {
  return (quote && quote.counts ? quote.counts : []).filter((c) => c.count >= 1 || c.multiplier);
}

/** The counts a bet may be placed on now. */
export function offered(quote) {
  return ladder(quote).filter((c) => c.multiplier);
}

/** What a winning stake returns, stake included, rounded down to the cent as djego pays it; null if unreadable. */
export function winReturn(stakeText, multiplier) {
  const stake = cents(stakeText);
  const m = cents(multiplier);
  if (stake === null || m === null || stake <= 0n) return null;
  return money((stake * m) / 100n);
}

/** A probability for people (statistics, never money). */
export function chanceText(p) {
  const x = Number(p);
  if (!Number.isFinite(x) || x <= 0) return "0%";
  if (x < 0.001) return "< 0.1%";
  return `${(x * 100).toFixed(1)}%`;
}

/** The price ladder as a table: count, multiplier (or not offered) and chance. */
export function ladderTable(quote, { id, caption, mark } = {}) {
  return el("table", { id, class: "ladder", "data-quote-id": quote.id },
    el("caption", {}, caption || `Prices after card ${quote.cards_dealt} (${quote.method})`),
    el("thead", {}, el("tr", {},
      el("th", { scope: "col", class: "num" }, "Count"),
      el("th", { scope: "col", class: "num" }, "Pays"),
      el("th", { scope: "col", class: "num" }, "Chance"))),
    el("tbody", {}, ladder(quote).map((c) => el("tr", {
      class: `price${c.multiplier ? "" : " not-offered"}${mark && mark(c) ? " marked" : ""}`,
      "data-count": String(c.count),
      "data-multiplier": c.multiplier || "",
    },
    el("th", { scope: "row", class: "num" }, String(c.count)),
    el("td", { class: "num" }, multiplierText(c.multiplier)),
    el("td", { class: "num" }, chanceText(c.probability))))));
}

// ---- bets ------------------------------------------------------------------------------------------

/**
 * The bettors' labels: P1, P2… in the order they first bet, the order djego gives its
 * pseudonyms in, whether the view carries pseudonyms or (for staff) account ids, which are
 * never shown.
 */
export function bettorLabels(bets) {
  const labels = new Map();
  for (const b of bets || []) if (!labels.has(b.player)) labels.set(b.player, `P${labels.size + 1}`);
  return labels;
}

/** A bet's status as people say it. */
export const BET_STATUS = {
  open: "open",
  surrendered: "surrendered",
  won: "won",
  lost: "lost",
  refunded: "refunded",
};

/** Totals of a list of bets, in cents: staked and returned. */
export function totals(bets) {
  let staked = 0n;
  let returned = 0n;
  for (const b of bets || []) {
    staked += cents(b.stake) || 0n;
    returned += cents(b.returned) || 0n;
  }
  return { staked, returned, count: (bets || []).length };
}

export { money, cents };
