// A Peg Leg table for a player (docs/peg-leg.md, "Rounds over HTTP"): the round
// watched live as the dealer deals it card by card, the key suit's count, the
// price ladder of the quote in force, a bet on a count (again at the new price
// after the next card), surrendering an open bet for the cash-out value shown,
// and the settled result with what each bet returned.
//
// The table's live stream carries everyone's view, where every bettor is a
// pseudonym; each event here re-reads the player's own view of the round, which
// shows their bets under their id with their cash-out values, and the page shows
// that view alone, so a price or a cash-out value shown is the one a bet or a
// surrender sends back.

import { $, el, fill, get, act, session } from "./api.js";
import { watchTable, liveStatusText } from "./live.js";
import { cardElement } from "./cards.js";
import { say, attempt } from "./player-common.js";
import { refreshWallet } from "./player-wallet.js";
import { verifyPanel } from "./player-verify.js";
import {
  statusWords, cardText, keyLine, ladderTable, offered, multiplierText, winReturn, termsList, totals, money, cents,
  BET_STATUS, bettorLabels,
} from "./peg-leg.js";

let table = null;
let watcher = null;
let view = null;        // the player's own view of the round shown
let roundId = null;     // the round the table's stream names
let me = null;
let wired = false;
let stakeFor = null;    // the round whose stake field got its default
let seedGivenFor = null;
let ticker = null;
let loading = null;     // the read in flight, and whether another is wanted after it
let again = false;

const over = (r) => r && (r.status === "settled" || r.status === "voided");
const RANK = { seeding: 0, dealing: 1, settled: 2, voided: 2 };

function progress(r) {
  const closed = (r.bets || []).filter((b) => b.status !== "open").length;
  return [RANK[r.status] ?? 0, r.cards_dealt, (r.bets || []).length, closed];
}

/** Whether `a` has come at least as far as `b` (views arriving out of order never step back). */
function notOlder(a, b) {
  const x = progress(a);
  const y = progress(b);
  for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return x[i] > y[i];
  return true;
}

// ---- reading the round -----------------------------------------------------------------------------

/** Re-reads the player's own view of the round the stream names; reads never overlap. */
function reread() {
  if (!roundId) return;
  if (loading) { again = true; return; }
  loading = (async () => {
    do {
      again = false;
      const id = roundId;
      try {
        const v = await get(`/api/v1/peg-leg-rounds/${encodeURIComponent(id)}`);
        if (table && id === roundId) setView(v);
      } catch (e) {
        say($("peg-bet-alert"), e);
      }
    } while (again && table);
    loading = null;
  })();
}

function setView(v) {
  if (!v || !table || v.table_id !== table.id) return;
  if (view && v.id === view.id && !notOlder(v, view)) return;
  if (view && v.id !== view.id && v.number < view.number) return;
  const fresh = !view || view.id !== v.id;
  const before = view;
  view = v;
  if (fresh) {
    say($("peg-bet-alert"), null);
    say($("peg-surrender-alert"), null);
    say($("peg-seed-alert"), null);
    $("peg-bet-placed").textContent = "";
    $("peg-surrender-done").textContent = "";
    $("peg-seed-given").textContent = "";
  }
  render();
  // The wallet moves when a bet is settled or refunded, not only when this page acts.
  if (before && before.id === v.id && before.status !== v.status) refreshWallet();
}

// ---- rendering -------------------------------------------------------------------------------------

function mine(r) {
  return (r.bets || []).filter((b) => b.player === me);
}

function render() {
  const r = view;
  const info = $("peg-round-info");
  if (!r) {
    fill(info, "No round at this table yet: the dealer opens one.");
    for (const k of ["roundId", "status", "cardsDealt", "quoteId"]) delete $("peg-round").dataset[k];
    $("peg-key-line").textContent = "";
    fill($("peg-last-card"));
    fill($("peg-cards"), el("li", { class: "muted" }, "Nothing dealt yet."));
    for (const id of ["peg-seed-panel", "peg-bet-panel", "peg-my-bets-panel", "peg-result"]) $(id).hidden = true;
    renderWindow();
    return;
  }
  const d = $("peg-round").dataset;
  d.roundId = r.id;
  d.status = r.status;
  d.cardsDealt = String(r.cards_dealt);
  d.quoteId = r.quote ? r.quote.id : "";
  fill(info,
    el("strong", { id: "peg-round-status", "data-status": r.status }, `Round ${r.number}: ${statusWords(r.status)}.`),
    el("br"),
    el("span", { class: "small" }, "Commitment ",
      el("code", { title: "SHA-256 of the sealed server seed" }, r.commitment.slice(0, 16) + "…"),
      `; ${everyone(r)}`));
  $("peg-key-line").textContent = keyLine(r);
  const last = r.cards[r.cards.length - 1];
  fill($("peg-last-card"), last ? ["Last card: ", cardElement(last.card), " ", cardText(last, r.key_suit)] : null);
  fill($("peg-cards"), r.cards.length
    ? r.cards.map((c) => el("li", {}, `${cardText(c, r.key_suit)} Key count ${c.key_count}.`))
    : el("li", { class: "muted" }, "Nothing dealt yet."));
  renderSeed(r);
  renderBetPanel(r);
  renderMyBets(r);
  renderResult(r);
  renderWindow();
}

/** Everyone's bets, as the table sees them. */
function everyone(r) {
  const bets = r.bets || [];
  if (!bets.length) return "no bets yet";
  const players = bettorLabels(bets).size;
  return `${bets.length} bet${bets.length === 1 ? "" : "s"} by ${players} player${players === 1 ? "" : "s"}, ${money(totals(bets).staked)} staked`;
}

function renderSeed(r) {
  const open = r.status === "seeding";
  $("peg-seed-panel").hidden = !open;
  $("peg-seed-button").disabled = seedGivenFor === r.id;
}

/** A select's options, rebuilt only when they change (a live update must not close an open list). */
function setOptions(select, pairs) {
  const same = select.options.length === pairs.length &&
    pairs.every(([v, t], i) => select.options[i].value === v && select.options[i].textContent === t);
  if (same) return;
  const current = select.value;
  fill(select, pairs.map(([v, t]) => el("option", { value: v }, t)));
  if (current && pairs.some(([v]) => v === current)) select.value = current;
}

function renderBetPanel(r) {
  const q = r.status === "dealing" ? r.quote : null;
  $("peg-bet-panel").hidden = !q;
  if (!q) return;
  fill($("peg-ladder-slot"), ladderTable(q, {
    id: "peg-ladder",
    caption: `Prices after card ${q.cards_dealt} of 50`,
    mark: (c) => c.count === r.key_count,
  }));
  const counts = offered(q);
  setOptions($("peg-count"), counts.map((c) => [String(c.count), `${c.count} — pays ${multiplierText(c.multiplier)}`]));
  $("peg-bet-button").disabled = counts.length === 0;
  const c = r.config;
  $("peg-bet-limits").textContent = `From ${c.min_bet} to ${c.max_bet} a bet; at most ${c.max_exposure_per_round} staked by you on this round.`;
  if (stakeFor !== r.id) {
    stakeFor = r.id;
    if (!$("peg-stake").value) $("peg-stake").value = c.min_bet;
  }
  renderPays();
}

function renderPays() {
  const r = view;
  const q = r && r.quote;
  if (!q) return;
  const counts = offered(q);
  if (!counts.length) {
    $("peg-bet-pays").textContent = "No count is offered after this card: wait for the next one.";
    return;
  }
  const chosen = counts.find((c) => String(c.count) === $("peg-count").value) || counts[0];
  const stake = cents($("peg-stake").value);
  const back = winReturn($("peg-stake").value, chosen.multiplier);
  $("peg-bet-pays").textContent = `A count of ${chosen.count} pays ${multiplierText(chosen.multiplier)}`
    + (back ? `: if the key suit ends with ${chosen.count} cards, ${money(stake)} returns ${back}, stake included.` : ".");
}

function renderMyBets(r) {
  const bets = mine(r);
  $("peg-my-bets-panel").hidden = bets.length === 0;
  if (!bets.length) { fill($("peg-my-bets")); return; }
  const canSurrender = r.status === "dealing" && r.quote && windowLeft(r) !== 0;
  fill($("peg-my-bets"), el("table", { id: "peg-my-bets-table" },
    el("caption", {}, "Each bet keeps the price it was placed at"),
    el("thead", {}, el("tr", {},
      el("th", { scope: "col", class: "num" }, "Count"), el("th", { scope: "col", class: "num" }, "Stake"),
      el("th", { scope: "col", class: "num" }, "Pays"), el("th", { scope: "col" }, "Now"))),
    el("tbody", {}, bets.map((b) => el("tr", { class: `my-peg-bet ${b.status}`, "data-bet-id": b.id, "data-status": b.status, "data-count": String(b.count) },
      el("td", { class: "num" }, String(b.count)),
      el("td", { class: "num" }, b.stake),
      el("td", { class: "num" }, `×${b.multiplier}`),
      el("td", {}, b.status === "open" && b.cash_out
        ? el("button", {
          type: "button", class: "quiet surrender", "data-bet-id": b.id, "data-cash-out": b.cash_out,
          disabled: !canSurrender,
          onclick: (ev) => surrender(b, ev.currentTarget),
        }, `Surrender for ${b.cash_out}`)
        : betOutcome(b)))))));
}

function betOutcome(b) {
  switch (b.status) {
    case "won": return el("span", { class: "ok" }, `won: ${b.returned} back`);
    case "lost": return el("span", { class: "bad" }, "lost");
    case "surrendered": return `surrendered for ${b.returned}`;
    case "refunded": return `refunded ${b.returned}`;
    default: return BET_STATUS[b.status] || b.status;
  }
}

function renderResult(r) {
  $("peg-result").hidden = !over(r);
  if (!over(r)) {
    delete $("peg-verify-slot").dataset.roundId;
    fill($("peg-verify-slot"));
    return;
  }
  const bets = mine(r);
  const sum = totals(bets);
  fill($("peg-result-body"),
    r.status === "voided"
      ? el("p", { id: "peg-outcome", class: "bad" }, "The round was voided: every open bet's stake came back; a surrendered bet stands as paid.")
      : el("p", { id: "peg-outcome", "data-final-count": String(r.final_count) },
        el("strong", {}, `The key suit ended with ${r.final_count} card${r.final_count === 1 ? "" : "s"}.`)),
    bets.length
      ? el("p", { id: "peg-my-result", class: sum.returned > sum.staked ? "ok" : "" },
        `Your ${bets.length} bet${bets.length === 1 ? "" : "s"}: ${money(sum.staked)} staked, ${money(sum.returned)} returned.`)
      : el("p", { id: "peg-my-result", class: "muted" }, "You had no bet on this round."));
  if (bets.length && $("peg-verify-slot").dataset.roundId !== r.id) {
    $("peg-verify-slot").dataset.roundId = r.id;
    fill($("peg-verify-slot"), verifyPanel("peg_leg", r.id, { prefix: "peg" }));
  }
}

// ---- the betting window --------------------------------------------------------------------------

/** Seconds left to bet on this card: null when the table takes bets until the next card. */
function windowLeft(r) {
  if (!r || r.status !== "dealing" || !(r.config.betting_window_ms > 0) || !r.window_closes_at_us) return null;
  return Math.max(0, Math.ceil((Number(r.window_closes_at_us) / 1000 - Date.now()) / 1000));
}

function renderWindow() {
  const node = $("peg-window");
  const left = windowLeft(view);
  node.hidden = left === null;
  if (left === null) { clearInterval(ticker); ticker = null; return; }
  node.dataset.open = left > 0 ? "true" : "false";
  node.textContent = left > 0 ? `Bets on this card close in ${left} s.` : "Betting on this card has closed: the next card comes next.";
  $("peg-bet-button").disabled = left === 0;
  for (const b of document.querySelectorAll("#peg-my-bets button.surrender")) b.disabled = left === 0;
  if (left > 0 && !ticker) ticker = setInterval(renderWindow, 500);
  if (left === 0) { clearInterval(ticker); ticker = null; }
}

// ---- actions ---------------------------------------------------------------------------------------

async function giveSeed(event) {
  event.preventDefault();
  const r = view;
  const seed = $("peg-seed").value;
  await attempt($("peg-seed-button"), $("peg-seed-alert"), async (onRetry) => {
    const v = await act("POST", `/api/v1/peg-leg-rounds/${encodeURIComponent(r.id)}/client-seed`, { client_seed: seed }, { onRetry });
    seedGivenFor = r.id;
    $("peg-seed-given").textContent = "Your seed is in: it is mixed into the deck at the first card.";
    setView(v);
  });
  render();
}

async function placeBet(event) {
  event.preventDefault();
  const r = view;
  const q = r && r.quote;
  if (!q) return;
  const count = Number($("peg-count").value);
  const stake = $("peg-stake").value.trim();
  const price = offered(q).find((c) => c.count === count);
  $("peg-bet-placed").textContent = "";
  await attempt($("peg-bet-button"), $("peg-bet-alert"), async (onRetry) => {
    const bet = await act("POST", `/api/v1/peg-leg-rounds/${encodeURIComponent(r.id)}/bets`,
      { quote_id: q.id, count, stake }, { onRetry });
    $("peg-bet-placed").textContent = `Placed: ${bet.stake} on a count of ${bet.count} at ×${bet.multiplier}`
      + (price && price.multiplier === bet.multiplier ? "." : ` (the price shown was ${multiplierText(price && price.multiplier)}).`);
  }, () => reread());
  reread();
  refreshWallet();
}

async function surrender(bet, button) {
  const r = view;
  if (!r || !r.quote) return;
  $("peg-surrender-done").textContent = "";
  await attempt(button, $("peg-surrender-alert"), async (onRetry) => {
    const closed = await act("POST",
      `/api/v1/peg-leg-rounds/${encodeURIComponent(r.id)}/bets/${encodeURIComponent(bet.id)}/surrender`,
      { quote_id: r.quote.id }, { onRetry });
    $("peg-surrender-done").textContent = `Surrendered your bet on ${closed.count} for ${closed.returned}.`;
  }, () => reread());
  reread();
  refreshWallet();
}

// ---- wiring ----------------------------------------------------------------------------------------

function wire() {
  if (wired) return;
  wired = true;
  $("peg-seed-form").addEventListener("submit", giveSeed);
  $("peg-bet-form").addEventListener("submit", placeBet);
  $("peg-count").addEventListener("change", renderPays);
  $("peg-stake").addEventListener("input", renderPays);
}

/** Watches a Peg Leg table. */
export function openPegLeg(t) {
  wire();
  closePegLeg();
  me = (session() || {}).user_id;
  table = t;
  view = null;
  roundId = null;
  stakeFor = null;
  $("peg-title").textContent = t.name;
  fill($("peg-terms"), termsList(t.config, { id: "peg-table-terms" }));
  render();
  watcher = watchTable(t.id, (name, data) => {
    if (name === "state" || name === "peg_leg_round") {
      if (data && data.id && data.table_id === t.id) {
        if (!view || data.number >= view.number) roundId = data.id;
        reread();
      } else if (name === "state" && data === null) {
        view = null;
        render();
      }
    } else if (name === "table") {
      if (data && data.id === t.id) table = data;
    } else if (name === "resync") {
      reread();
    }
  }, (status) => {
    const node = $("peg-live-status");
    node.textContent = liveStatusText(status);
    node.className = `status ${status}`;
    node.dataset.status = status;
  });
}

export function closePegLeg() {
  if (watcher) { watcher.stop(); watcher = null; }
  clearInterval(ticker);
  ticker = null;
  table = null;
}
