// A Peg Leg table at the dealer terminal (docs/peg-leg.md, "Rounds over HTTP"):
// the dealer opens a round and deals it card by card; each card is shown with
// what it did to the key suit and the running count, the prices in force after
// it, the betting window's time left where the table has one, the bets arriving
// live, and the settled result. dealer.js chooses the table, signs the dealer
// in and reads the live stream; this module shows the round and deals it.

import { $, get, act, el, fill, showProblem, ApiProblem } from "./api.js";
import { suitLabel, cardElement } from "./cards.js";
import { step, sentenceOf } from "./dealer-common.js";
import {
  statusWords, cardText, keyLine, ladderTable, bettorLabels, totals, money, rtpText, windowText,
} from "./peg-leg.js";

let table = null;
let round = null;
let seedsOpen;
let ticker = null; // the betting window's countdown

const over = (r) => r && (r.status === "settled" || r.status === "voided");
const RANK = { seeding: 0, dealing: 1, settled: 2, voided: 2 };

/** How far a view of the round has come: views arriving out of order never step back. */
function progress(r) {
  const closed = (r.bets || []).filter((b) => b.status !== "open").length;
  return [RANK[r.status] ?? 0, r.cards_dealt, (r.bets || []).length, closed];
}

function newer(a, b) {
  const x = progress(a);
  const y = progress(b);
  for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return x[i] > y[i];
  return true;
}

/** Shows a Peg Leg table's rounds; `t` is the table. */
export function openPegLeg(t) {
  table = t;
  round = null;
  seedsOpen = undefined;
  clearProblem();
  render();
  reloadPegLeg();
}

export function closePegLeg() {
  table = null;
  round = null;
  stopTicker();
}

/** The table's live events: its state on connecting, then each change of a round. */
export function pegLegEvent(name, data) {
  if (!table) return;
  if (name === "state") {
    if (data && data.id) accept(data);
    else if (data === null && !round) render();
  } else if (name === "peg_leg_round") {
    accept(data);
  } else if (name === "resync") {
    reloadPegLeg();
  }
}

/** Loads the table's newest round (one in progress is resumed). */
export async function reloadPegLeg() {
  const t = table;
  if (!t) return;
  try {
    const list = await get(`/api/v1/tables/${encodeURIComponent(t.id)}/peg-leg-rounds?limit=1`);
    if (table && table.id === t.id) {
      if (list[0]) accept(list[0]);
      else render();
    }
  } catch (e) {
    showProblem($("peg-round-problem"), { sentence: "The round could not be loaded: " + sentenceOf(e) });
  }
}

function accept(view) {
  if (!view || !table || view.table_id !== table.id) return;
  if (round) {
    if (view.id !== round.id && view.number < round.number) return;
    if (view.id === round.id && !newer(view, round)) return;
  }
  if (!round || round.id !== view.id) {
    clearProblem();
    seedsOpen = undefined;
  }
  round = view;
  render();
}

function clearProblem() {
  showProblem($("peg-round-problem"), null);
}

// ---- actions ---------------------------------------------------------------------------------

async function openRound(button) {
  const t = table;
  await step(button, $("peg-round-problem"), "opening the round", $("peg-action-progress"), async (onRetry) => {
    const view = await act("POST", `/api/v1/tables/${encodeURIComponent(t.id)}/peg-leg-rounds`, undefined, { onRetry });
    accept(view);
  }, (e) => {
    if (!(e instanceof ApiProblem)) return null;
    if (e.code === "round_in_progress") {
      reloadPegLeg();
      return "This table already has a round in progress: deal it to the end (or ask a pit boss to void it) before opening another.";
    }
    if (e.code === "table_closed") return "The table is closed: a pit boss must open it before a new round.";
    return null;
  });
}

async function dealNext(button) {
  const r = round;
  if (!r) return;
  await step(button, $("peg-round-problem"), "dealing", $("peg-action-progress"), async (onRetry) => {
    const dealt = await act("POST", `/api/v1/peg-leg-rounds/${encodeURIComponent(r.id)}/deal`, undefined, { onRetry });
    accept(dealt.round);
  }, (e) => {
    if (!(e instanceof ApiProblem)) return null;
    if (e.code === "betting_window_open") {
      return "Bets are still being taken after the last card: the next card can be dealt when the window closes.";
    }
    if (e.code === "wrong_round_state") {
      reloadPegLeg();
      return `This round cannot be dealt now (${e.message}). The page now shows where the round stands.`;
    }
    return null;
  });
  render();
}

// ---- the betting window ------------------------------------------------------------------------

function stopTicker() {
  if (ticker) clearInterval(ticker);
  ticker = null;
}

/** Seconds until the window closes (0 when closed or untimed), by this device's clock. */
function windowLeft(r) {
  if (!r || r.status !== "dealing" || !r.window_closes_at_us) return 0;
  return Math.max(0, Math.ceil((Number(r.window_closes_at_us) / 1000 - Date.now()) / 1000));
}

function renderWindow() {
  const node = $("peg-window");
  const r = round;
  const timed = r && r.status === "dealing" && r.config && r.config.betting_window_ms > 0;
  node.hidden = !timed;
  if (!timed) { stopTicker(); return; }
  const left = windowLeft(r);
  node.dataset.open = left > 0 ? "true" : "false";
  node.textContent = left > 0
    ? `Bets close in ${left} s: the next card waits until then.`
    : "Betting on this card has closed: deal the next card.";
  const next = $("peg-next-card");
  if (!next.hidden && next.getAttribute("aria-busy") !== "true") next.disabled = left > 0;
  if (left > 0 && !ticker) ticker = setInterval(renderWindow, 500);
  if (left === 0) stopTicker();
}

// ---- rendering -----------------------------------------------------------------------------------

function render() {
  const r = round;
  const status = $("peg-round-status");
  const openButton = $("peg-open-round");
  const next = $("peg-next-card");
  $("peg-result-panel").hidden = true;
  if (!r) {
    $("peg-round-title").textContent = "No round yet";
    status.dataset.status = "none";
    delete status.dataset.roundId;
    delete status.dataset.cardsDealt;
    status.textContent = "No round is open at this table. Open one when the players are ready.";
    $("peg-key").textContent = "";
    $("peg-commitment").hidden = true;
    openButton.hidden = false;
    openButton.textContent = "Open a round";
    next.hidden = true;
    $("peg-quote-panel").hidden = false;
    fill($("peg-quote"), el("p", { class: "empty" }, "No prices yet: the first card sets the key suit."));
    fill($("peg-bets"), el("p", { class: "empty", id: "peg-bet-count", "data-count": "0" }, "No bets yet."));
    fill($("peg-cards"), el("p", { class: "empty" }, "No card dealt yet."));
    renderWindow();
    return;
  }
  $("peg-round-title").textContent = `Round ${r.number}`;
  status.dataset.status = r.status;
  status.dataset.roundId = r.id;
  status.dataset.cardsDealt = String(r.cards_dealt);
  fill(status, el("span", { class: `badge status-${r.status}` }, r.status), " ", statusWords(r.status), ".");
  $("peg-key").textContent = keyLine(r);
  $("peg-key").dataset.keySuit = r.key_suit || "";
  $("peg-key").dataset.keyCount = String(r.key_count);
  renderCommitment(r);

  openButton.hidden = !over(r);
  openButton.textContent = "Open a new round";
  next.hidden = over(r);
  next.textContent = r.cards_dealt === 0 ? "Deal the first card" : `Deal card ${r.cards_dealt + 1} of 50`;
  next.disabled = false;

  renderQuote(r);
  renderBets(r);
  renderCards(r);
  renderWindow();
  if (over(r)) renderResult(r);
}

function renderCommitment(r) {
  const box = $("peg-commitment");
  box.hidden = false;
  const short = `${r.commitment.slice(0, 8)}…${r.commitment.slice(-8)}`;
  const details = el("details", { id: "peg-seeds", open: seedsOpen ?? r.status === "seeding" },
    el("summary", { onclick: () => { seedsOpen = !details.open; } },
      "Commitment: ", el("code", { class: "short" }, short),
      r.server_seed ? " · seed revealed" : r.client_seed ? " · client seed fixed" : ""),
    el("p", {}, "Commitment, published before the first card: ", el("code", { id: "peg-commitment-full" }, r.commitment)),
    r.client_seed ? el("p", {}, "Client seed: ", el("code", {}, r.client_seed)) : null,
    r.server_seed ? el("p", {}, "Server seed: ", el("code", {}, r.server_seed)) : null);
  fill(box, details);
}

function renderQuote(r) {
  const q = r.quote;
  $("peg-quote-panel").hidden = over(r);
  if (!q) {
    fill($("peg-quote"), el("p", { class: "empty" },
      r.status === "seeding" ? "No prices yet: the first card sets the key suit."
        : over(r) ? "The round is over: no more prices." : "No prices in force."));
    return;
  }
  fill($("peg-quote"),
    el("p", { class: "small muted", id: "peg-quote-facts", "data-quote-id": q.id },
      `After card ${q.cards_dealt}, ${q.method === "exact" ? "priced exactly" : "priced by simulation"}; `
      + `every price returns at most ${rtpText(q.target_rtp_bp)}. Bets are taken ${windowText(r.config.betting_window_ms)}.`),
    ladderTable(q, { id: "peg-ladder", caption: `Prices in force after card ${q.cards_dealt}`, mark: (c) => c.count === r.key_count }));
}

function renderBets(r) {
  const bets = r.bets || [];
  if (bets.length === 0) {
    fill($("peg-bets"), el("p", { class: "empty", id: "peg-bet-count", "data-count": "0" },
      over(r) ? "No bets on this round." : "No bets yet."));
    return;
  }
  const who = bettorLabels(bets);
  const sum = totals(bets);
  const open = bets.filter((b) => b.status === "open").length;
  fill($("peg-bets"),
    el("p", { id: "peg-bet-count", "data-count": String(bets.length) },
      `${bets.length} bet${bets.length === 1 ? "" : "s"} by ${who.size} player${who.size === 1 ? "" : "s"}, ${money(sum.staked)} staked`,
      open && !over(r) ? `; ${open} open.` : "."),
    el("table", { id: "peg-bets-table" },
      el("caption", { class: "sr-only" }, "Bets, first placed first"),
      el("thead", {}, el("tr", {},
        el("th", { scope: "col" }, "Player"), el("th", { scope: "col", class: "num" }, "Count"),
        el("th", { scope: "col", class: "num" }, "Stake"), el("th", { scope: "col", class: "num" }, "Pays"),
        el("th", { scope: "col" }, "Now"))),
      el("tbody", {}, bets.map((b) => el("tr", { class: `peg-bet ${b.status}`, "data-bet-id": b.id, "data-status": b.status },
        el("td", {}, who.get(b.player)),
        el("td", { class: "num" }, String(b.count)),
        el("td", { class: "num" }, b.stake),
        el("td", { class: "num" }, `×${b.multiplier}`),
        el("td", {}, betNow(b)))))));
}

function betNow(b) {
  switch (b.status) {
    case "open": return b.cash_out ? `open (cash-out ${b.cash_out})` : "open";
    case "surrendered": return `surrendered for ${b.returned}`;
    case "won": return el("span", { class: "ok" }, `won ${b.returned}`);
    case "lost": return "lost";
    case "refunded": return `refunded ${b.returned}`;
    default: return b.status;
  }
}

function renderCards(r) {
  const cards = r.cards || [];
  if (cards.length === 0) {
    fill($("peg-cards"), el("p", { class: "empty" },
      r.status === "voided" ? "No card was dealt." : "No card dealt yet: the first card's suit is the key suit."));
    return;
  }
  const newestFirst = [...cards].reverse();
  fill($("peg-cards"),
    el("p", { id: "peg-last-card", class: "last-card", "data-index": String(cards.length) },
      "Last card: ", cardElement(cards[cards.length - 1].card), " ", cardText(cards[cards.length - 1], r.key_suit)),
    el("div", { class: "card-log" },
      el("table", { id: "peg-cards-table" },
        el("caption", {}, `The ${cards.length} card${cards.length === 1 ? "" : "s"} dealt, newest first · key suit ${suitLabel(r.key_suit)}`),
        el("thead", {}, el("tr", {},
          el("th", { scope: "col", class: "num" }, "No."), el("th", { scope: "col" }, "Card"),
          el("th", { scope: "col" }, "What it did"), el("th", { scope: "col", class: "num" }, "Key count"))),
        el("tbody", {}, newestFirst.map((c) => el("tr", { class: "peg-card", "data-index": String(c.index + 1), "data-key-count": String(c.key_count) },
          el("td", { class: "num" }, String(c.index + 1)),
          el("td", {}, cardElement(c.card, { class: "mini" })),
          el("td", {}, cardText(c, r.key_suit)),
          el("td", { class: "num" }, String(c.key_count))))))));
}

function renderResult(r) {
  $("peg-result-panel").hidden = false;
  const bets = r.bets || [];
  const sum = totals(bets);
  const kept = sum.staked - sum.returned;
  const won = bets.filter((b) => b.status === "won").length;
  const surrendered = bets.filter((b) => b.status === "surrendered").length;
  fill($("peg-result"),
    r.status === "voided"
      ? el("p", { id: "peg-result-line", class: "winner-line" }, "A pit boss voided this round: every open bet was refunded; surrendered bets stand.")
      : el("p", { id: "peg-result-line", class: "winner-line", "data-final-count": String(r.final_count) },
        el("strong", {}, `The key suit ${suitLabel(r.key_suit)} ends with ${r.final_count} card${r.final_count === 1 ? "" : "s"}.`)),
    el("p", { id: "peg-result-money", class: "paid" },
      bets.length
        ? `${bets.length} bet${bets.length === 1 ? "" : "s"}, ${money(sum.staked)} staked: ${won} won, ${surrendered} surrendered; `
          + `${money(sum.returned)} went back to the players and the house ${kept >= 0n ? "kept" : "paid out"} ${money(kept >= 0n ? kept : -kept)}.`
        : "No bets on this round."));
}

/** Wires the buttons (once). */
export function wirePegLeg() {
  $("peg-open-round").addEventListener("click", () => openRound($("peg-open-round")));
  $("peg-next-card").addEventListener("click", () => dealNext($("peg-next-card")));
}
