// The house's Fuerza at a Jasper Prima Carta round (docs/confidence-bets.md): after the first
// pass, the house quotes each seated player who has paid the copa — the chance they win the pot
// and a price (decimal odds, the stake included). A player backs one at the price of the quote
// shown; the quote changes with every copa decision, and a bet on a quote that has moved is
// refused, so the new quote is shown again. My own Fuerza bets are listed with what they did.
//
// The round view (live stream or made for me) carries the quote (`fuerza`, null at a classic
// table) and every Fuerza bet on the round (`fuerza_bets`); only a view made for me says which
// bets are mine, so that view is read whenever the round's bets change.

import { $, el, fill, get, act, session, capitalise, ApiProblem } from "./api.js";
import { suitName, suitLabel } from "./cards.js";
import { cents, money } from "./money.js";
import { attempt, sentenceFor } from "./player-common.js";
import { refreshWallet } from "./player-wallet.js";

let round = null;
let isMine = () => false; // whether I hold a suit in the round shown
let fresh = null;         // a quote read after a refusal: { round, version (the round's), quote }
let myBets = [];
let betsFor = null;       // the round and bets my list was read for
let quotesKey = null;     // what the quote list shows now (rebuilt only when it changes)
let wired = false;

const STATUS_WORDS = { open: "open", won: "won", lost: "lost", refunded: "refunded" };

/** A seated player as the app names them: "the ♛ Crowns player", or "you (♛ Crowns)". */
function seatName(suit) {
  return isMine(suit) ? `you (${suitLabel(suit)})` : `the ${suitLabel(suit)} player`;
}

/** "0.3512" → "35.1%". */
function percent(chance) {
  const n = Number(chance);
  if (!Number.isFinite(n)) return "—";
  return `${(Math.round(n * 1000) / 10).toFixed(1)}%`;
}

/** "Cups", "Cups and Fruit", "Cups, Fruit and Locks". */
function suitList(suits) {
  const names = suits.map(suitName);
  return names.length <= 1 ? names.join("") : `${names.slice(0, -1).join(", ")} and ${names[names.length - 1]}`;
}

const plural = (n, one, many) => `${n} ${n === 1 ? one : many}`;

/** The quote shown: the round's, or one read since a refusal while the round has not moved. */
function quote() {
  if (!round) return null;
  if (fresh && fresh.round === round.id && fresh.version === round.version) return fresh.quote;
  return round.fuerza || null;
}

/** Why the house quotes nothing now, in words. */
function closedText(q) {
  const reason = String(q.reason || "");
  if (/completed in the first pass/.test(reason)) {
    return "A suit completed in the first pass: there is no copa, so the house quotes no Fuerza on this round.";
  }
  if (/no seated player has paid/.test(reason)) {
    return "No seated player has paid the copa yet: the house quotes each player once they pay.";
  }
  if (/only at Jasper/.test(reason)) return "The house quotes a Fuerza only at Jasper tables.";
  switch (round.status) {
    case "betting":
    case "closed":
      return "The house quotes a Fuerza after the first pass, on each seated player who pays the copa.";
    case "finished":
      return "The pot is decided: the house takes no more Fuerza bets; they are paid when the dealer settles.";
    case "settled":
      return "The round is settled: the house's Fuerza bets are paid.";
    case "voided":
      return "The round was voided: every Fuerza stake was given back.";
    default:
      return reason ? capitalise(reason) : "The house takes no Fuerza bets now.";
  }
}

/** The seat I hold that is still to decide its copa, or null. */
function myUndecided(q) {
  return ((q && q.undecided) || []).find((s) => isMine(s)) || null;
}

function renderQuotes() {
  const q = quote();
  const key = JSON.stringify([round && round.id, round && round.status, q, myUndecided(q)]);
  if (key === quotesKey) return;
  quotesKey = key;
  const version = $("fuerza-version");
  const form = $("fuerza-form");
  if (!q || !q.open) {
    version.textContent = q ? closedText(q) : "";
    version.dataset.open = "false";
    delete version.dataset.version;
    fill($("fuerza-quotes"));
    $("fuerza-note").textContent = "";
    $("fuerza-placed").textContent = ""; // the bet is listed below, with what it did
    form.hidden = true;
    return;
  }
  const undecided = q.undecided || [];
  version.dataset.open = "true";
  version.dataset.version = String(q.version);
  version.textContent = `Prices after ${plural(q.version, "copa decision", "copa decisions")}` +
    (undecided.length
      ? `; ${suitList(undecided)} still ${undecided.length === 1 ? "has" : "have"} to decide.`
      : ": every copa is decided.");
  const waiting = myUndecided(q);
  const priced = q.quotes.filter((x) => x.price);
  $("fuerza-note").textContent = waiting
    ? "Decide your own copa first: a seated player backs a Fuerza only once their decision is made."
    : undecided.length
      ? `While ${suitList(undecided)} ${undecided.length === 1 ? "decides" : "decide"}, each chance counts ${undecided.length === 1 ? "them" : "those players"} as folding (the chance that holds whatever they do).`
      : "";
  form.hidden = !!waiting || priced.length === 0;
  fill($("fuerza-quotes"), el("ul", { class: "fuerza-quotes", id: "fuerza-quote-list", "aria-label": "The house's Fuerza prices" },
    q.quotes.map((x) => el("li", { class: "fuerza-quote", "data-suit": x.suit, "data-price": x.price || "" },
      el("strong", {}, capitalFirst(seatName(x.suit))), ": ",
      el("span", { class: "fuerza-chance" }, `${percent(x.chance)} to win`),
      undecided.length && x.chance_if_all_pay !== x.chance
        ? el("span", { class: "muted small" }, ` (${percent(x.chance_if_all_pay)} if ${suitList(undecided)} ${undecided.length === 1 ? "pays" : "pay"})`)
        : null,
      el("br"),
      x.price
        ? el("span", { class: "fuerza-price" }, `pays ${x.price} for 1 (your stake included)`)
        : el("span", { class: "fuerza-price muted" }, "no price on this quote"),
      x.price && !waiting
        ? el("div", {}, el("button", {
          type: "button", class: "fuerza-back", "data-suit": x.suit, "data-price": x.price,
          "aria-label": `Back ${suitName(x.suit)} at ${x.price}`,
          onclick: (ev) => back(x.suit, ev.currentTarget),
        }, `Back ${suitName(x.suit)}`))
        : null))));
}

function capitalFirst(text) {
  return text ? text[0].toUpperCase() + text.slice(1) : text;
}

/** A refusal of a Fuerza bet in words. */
function refusalText(e) {
  if (!(e instanceof ApiProblem)) return sentenceFor(e);
  switch (e.code) {
    case "stale_quote":
      return "The price moved: a copa decision changed the quote before your bet reached the table. The new prices are shown — look again.";
    case "no_price":
      return "The house offers no price on that player now: the prices shown are the current ones.";
    case "fuerza_not_quoted":
      return "The house takes no Fuerza bets on this round now.";
    case "forbidden":
      return /decide/.test(e.message || "")
        ? "Decide your own copa first: a seated player backs a Fuerza only once their decision is made."
        : e.sentence;
    case "bet_out_of_range":
      return capitalise(e.message);
    default:
      return sentenceFor(e);
  }
}

/** Reads the quote now (after a refusal: the stream brings it too, this is sooner). */
async function refreshQuote() {
  if (!round) return;
  const id = round.id;
  const version = round.version;
  try {
    const q = await get(`/api/v1/rounds/${encodeURIComponent(id)}/fuerza`);
    if (!round || round.id !== id) return;
    fresh = { round: id, version, quote: q };
    renderQuotes();
  } catch (_) { /* the next change of the round brings it */ }
}

async function back(suit, button) {
  const q = quote();
  const line = q && q.open ? q.quotes.find((x) => x.suit === suit) : null;
  if (!line || !line.price) return;
  const alertNode = $("fuerza-alert");
  const stake = $("fuerza-stake").value.trim();
  if (!/^[0-9]+(\.[0-9]{1,2})?$/.test(stake) || !cents(stake)) {
    alertNode.hidden = false;
    alertNode.textContent = "Give a stake in money, like 10.00.";
    $("fuerza-stake").focus();
    return;
  }
  const body = { suit, stake, quote_version: q.version, price: line.price };
  const id = round.id;
  $("fuerza-placed").textContent = "";
  await attempt(button, alertNode, async (onRetry) => {
    const b = await act("POST", `/api/v1/rounds/${encodeURIComponent(id)}/fuerza-bets`, body, { onRetry });
    $("fuerza-placed").textContent =
      `Backed ${seatName(b.suit)}: ${b.stake} at ${b.price}; it returns ${b.returns_if_won} if they win the pot.`;
    if (round && round.id === id && !myBets.some((x) => x.id === b.id)) {
      myBets = [...myBets, b];
      renderMine();
    }
    loadMine(true);
  }, (e) => {
    alertNode.hidden = false;
    alertNode.textContent = refusalText(e);
    if (e instanceof ApiProblem && ["stale_quote", "no_price", "fuerza_not_quoted"].includes(e.code)) refreshQuote();
  });
  refreshWallet();
}

function betText(b) {
  const head = `${capitalFirst(seatName(b.suit))} to win the pot: ${b.stake} at ${b.price}`;
  const status = STATUS_WORDS[b.status] || b.status;
  switch (b.status) {
    case "open": return [head, ` · ${status}`, `. It returns ${b.returns_if_won} if they win.`];
    case "won": return [head, ` · ${status}`, `: ${b.returned} came back to you.`];
    case "lost": return [head, ` · ${status}`, `: the ${b.stake} stake went to the house.`];
    case "refunded": return [head, ` · ${status}`, `: the round was voided, ${b.returned} came back to you.`];
    default: return [head, ` · ${status}.`];
  }
}

function renderMine() {
  $("fuerza-mine").hidden = myBets.length === 0;
  if (!myBets.length) { fill($("fuerza-mine-list")); $("fuerza-result").textContent = ""; return; }
  fill($("fuerza-mine-list"), el("ul", { class: "fuerza-bets", "aria-label": "Your Fuerza bets" }, myBets.map((b) => {
    const [head, status, rest] = betText(b);
    return el("li", { class: "fuerza-bet", "data-bet-id": b.id, "data-status": b.status },
      el("strong", {}, head),
      el("span", { class: b.status === "won" ? "ok" : b.status === "lost" ? "bad" : "" }, status),
      rest || "",
      el("br"),
      el("span", { class: "muted small" }, `Placed on the prices after ${plural(b.quote_version, "copa decision", "copa decisions")}.`));
  })));
  const settled = myBets.filter((b) => b.status !== "open");
  if (settled.length && settled.length === myBets.length) {
    const staked = myBets.reduce((a, b) => a + (cents(b.stake) || 0n), 0n);
    const back = myBets.reduce((a, b) => a + (cents(b.returned) || 0n), 0n);
    $("fuerza-result").textContent = `Your Fuerza bets: ${money(staked)} staked, ${money(back)} came back.`;
  } else {
    $("fuerza-result").textContent = "";
  }
}

/** Reads the view of the round made for me when its Fuerza bets changed: it says which are mine. */
async function loadMine(force) {
  if (!round) return;
  const key = `${round.id}/${(round.fuerza_bets || []).map((b) => `${b.id}:${b.status}`).join(",")}`;
  if (!force && betsFor === key) return;
  betsFor = key;
  if (!force && !(round.fuerza_bets || []).length) { myBets = []; renderMine(); return; }
  const id = round.id;
  const me = (session() || {}).user_id;
  try {
    const view = await get(`/api/v1/rounds/${encodeURIComponent(id)}`);
    if (!round || round.id !== id) return;
    myBets = (view.fuerza_bets || []).filter((b) => b.player_id && b.player_id === me);
    renderMine();
  } catch (_) { betsFor = null; /* read again at the next change */ }
}

function wire() {
  if (wired) return;
  wired = true;
  // Enter in the stake field backs the one priced player, if there is only one.
  $("fuerza-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const buttons = $("fuerza-quotes").querySelectorAll("button.fuerza-back");
    if (buttons.length === 1) buttons[0].click();
  });
}

/** Shows the house's Fuerza on the round (null: no round); `mine(suit)` says whether I hold it. */
export function showFuerza(r, mine) {
  wire();
  isMine = mine;
  const newRound = !round || !r || round.id !== r.id;
  round = r || null;
  if (newRound) {
    fresh = null;
    myBets = [];
    betsFor = null;
    quotesKey = null;
    $("fuerza-placed").textContent = "";
    $("fuerza-alert").hidden = true;
    $("fuerza-alert").textContent = "";
    renderMine();
  }
  const shown = !!round && round.fuerza !== null && round.fuerza !== undefined;
  $("fuerza-panel").hidden = !shown;
  if (!shown) return;
  if (!$("fuerza-stake").value) $("fuerza-stake").value = round.rules.min_bet || "";
  $("fuerza-limits").textContent = `From ${round.rules.min_bet} to ${round.rules.max_bet} a bet.`;
  renderQuotes();
  loadMine(false);
}
