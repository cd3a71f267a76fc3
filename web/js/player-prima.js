// A Prima Carta table for a player (docs/prima-carta.md, docs/side-bets.md):
// the round watched live, a seat with a suit, side bets with their pays, the
// copa with the basic strategy's advice, and the result with what I won.

import { $, el, fill, get, act, session, table as grid } from "./api.js";
import { watchTable, liveStatusText } from "./live.js";
import { SUITS, suitName, suitLabel, cardElement, cardName } from "./cards.js";
import { cents, money } from "./money.js";
import {
  say, attempt, roundStatusText, selectionText,
} from "./player-common.js";
import { BET_KINDS, BET_NAMES, BET_RULES, SUIT_BETS, betName } from "./words.js";
import { refreshWallet } from "./player-wallet.js";
import { payTableById, payTableTable, paysText, rtpText, certified } from "./player-paytable.js";
import { verifyPanel } from "./player-verify.js";
import { showConfidence } from "./player-confidence.js";

let table = null;
let watcher = null;
let round = null;      // the round view shown
let payTable = null;   // the round's PayTableView
let myBets = [];
let adviceFor = null;  // "<round>/<version>" the advice shown is for
let lastStatus = null;
let amountFor = null;  // the round whose stake field got its default
let wired = false;
let me = null;
// The suit I hold and in which round: learnt from a view made for me (my seat carries my id);
// the live stream's views name no one.
let mine = { round: null, suit: null };
let askedOwnView = null; // the round whose view made for me was last asked for

const HOW = {
  first_pass_completion: "completed in the first pass",
  last_live: "was the last one left in",
  repasso_completion: "completed in the repasso",
  cinco_tallest: "had the tallest stack (Cinco)",
};

// ---- events in words -----------------------------------------------------------------------------

function eventText(e) {
  switch (e.type) {
    case "pass_started": return `Pass ${e.pass} starts: ${e.deck_count} cards to deal.`;
    case "dealt": return `${cardName(e.card)} dealt to ${e.to === "discard" ? "the discards" : e.to === "foundation" ? "its foundation" : `its stack (${e.stack_count})`}.`;
    case "prima": return `The Prima is ${suitName(e.suit)}.`;
    case "played_up": return `${cardName(e.card)} played up from the discards (${e.stack_count}).`;
    case "suit_completed": return `${suitName(e.suit)} completed in pass ${e.pass}.`;
    case "pass_ended": return `Pass ${e.pass} ended: ${e.promoted} played, ${e.discard_count} in the discards.`;
    case "corte": return `${suitName(e.suit)} pays the corte (${e.units} unit${e.units === 1 ? "" : "s"}).`;
    case "copa_paid": return `${suitName(e.suit)} paid the copa (${e.units} unit${e.units === 1 ? "" : "s"}).`;
    case "folded": return `${suitName(e.suit)} folded.`;
    case "won": return `${suitName(e.suit)} won: it ${HOW[e.how] || e.how}.`;
    case "cobre": return `A cobre of ${e.units} unit${e.units === 1 ? "" : "s"} formed (${e.disposition}).`;
    case "reshuffled": return "The discards were reshuffled for the repasso.";
    default: return e.type || JSON.stringify(e);
  }
}

// ---- the round -----------------------------------------------------------------------------------

/**
 * Sets a select's options ([value, text] pairs), rebuilding them only when
 * they change: a live update must not close a list the player has open, nor
 * replace the option being picked. The chosen value is kept when still offered.
 */
function setOptions(select, pairs) {
  const same = select.options.length === pairs.length &&
    pairs.every(([v, t], i) => select.options[i].value === v && select.options[i].textContent === t);
  if (same) return;
  const current = select.value;
  fill(select, pairs.map(([v, t]) => el("option", { value: v }, t)));
  if (current && pairs.some(([v]) => v === current)) select.value = current;
}

function learnSeat(r) {
  const seat = r && r.seats.find((s) => s.player_id === me);
  if (seat) mine = { round: r.id, suit: seat.suit };
}

function mySeat() {
  if (!round) return null;
  return round.seats.find((s) => s.player_id === me || (mine.round === round.id && s.suit === mine.suit)) || null;
}

/** Whether `suit` is the one I hold in the round shown. */
function isMine(suit) {
  const seat = mySeat();
  return !!seat && seat.suit === suit;
}

/**
 * A round seen first on the live stream, with seats taken, may hold mine (taken on another
 * device, or before this page opened): ask once for the view made for me.
 */
function askOwnView(r) {
  if (!r || !r.id || !r.seats.length || mine.round === r.id || askedOwnView === r.id) return;
  askedOwnView = r.id;
  get(`/api/v1/rounds/${encodeURIComponent(r.id)}`)
    .then((v) => { if (round && v && v.id === round.id) setRound(v); })
    .catch(() => { /* the next change brings it again */ });
}

function renderRoundInfo() {
  if (!round) {
    fill($("prima-round-info"), "No round at this table yet: the dealer opens one.");
    fill($("prima-seats"));
    fill($("prima-bet-totals"));
    fill($("prima-stacks"));
    $("prima-copa-line").textContent = "";
    for (const k of ["roundId", "status", "version"]) delete $("prima-round").dataset[k];
    return;
  }
  $("prima-round").dataset.roundId = round.id;
  $("prima-round").dataset.status = round.status;
  $("prima-round").dataset.version = String(round.version);
  fill($("prima-round-info"),
    el("strong", { id: "prima-round-status", "data-status": round.status }, `Round ${round.number}: ${roundStatusText(round.status)}`),
    el("br"),
    el("span", { class: "small" }, `Unit ${round.unit} · ${round.rules.variant} · commitment `,
      el("code", { title: "SHA-256 of the sealed server seed" }, round.commitment.slice(0, 16) + "…")));
  const folded = new Set((round.table && round.table.folded) || []);
  const bySuit = new Map(round.seats.map((s) => [s.suit, s]));
  fill($("prima-seats"), el("ul", { class: "seats", "aria-label": "Seats" }, SUITS.map((suit) => {
    const seat = bySuit.get(suit);
    const own = !!seat && isMine(suit);
    const who = !seat ? "free" : own ? "you" : "a player";
    return el("li", { class: `seat${seat ? " taken" : ""}${own ? " mine" : ""}`, "data-suit": suit },
      el("span", { class: "suit-name" }, suitLabel(suit)), " ",
      el("span", { class: "muted" }, who), folded.has(suit) ? el("span", { class: "bad" }, " folded") : null);
  })));
  renderBetTotals();
  renderStacks();
  const turn = round.copa_turn;
  if (turn && round.status === "copa") {
    $("prima-copa-line").textContent = isMine(turn.suit)
      ? `Your copa turn: pay ${turn.copa} or fold.`
      : `Copa: ${suitName(turn.suit)} decides (pay ${turn.copa} for ${turn.stack_count} cards, or fold).`;
  } else {
    $("prima-copa-line").textContent = "";
  }
}

/** Every side bet on the round, by kind (everyone's, as the table sees them). */
function renderBetTotals() {
  const totals = round.bet_totals || [];
  const count = totals.reduce((n, t) => n + Number(t.bets), 0);
  const staked = totals.reduce((c, t) => c + (cents(t.staked) || 0n), 0n);
  const node = $("prima-bet-totals");
  node.dataset.count = String(count);
  node.dataset.staked = money(staked);
  if (!count) { node.textContent = "No side bets on this round yet."; return; }
  node.textContent = `${count} side bet${count === 1 ? "" : "s"} on this round, ${money(staked)} staked: ` +
    totals.map((t) => `${betName(t.kind)} ${t.staked}${Number(t.bets) > 1 ? ` (${t.bets} bets)` : ""}`).join(", ") + ".";
}

function renderStacks() {
  const t = round && round.table;
  if (!t) { fill($("prima-stacks"), round && round.status === "betting" ? el("p", { class: "muted" }, "No card dealt yet.") : null); return; }
  const stacks = Array.isArray(t.stacks) ? t.stacks : SUITS.map((s) => ({ suit: s, ...(t.stacks[s] || {}) }));
  fill($("prima-stacks"),
    el("table", { class: "stacks", id: "prima-stack-table" },
      el("caption", {}, `Pass ${t.pass}${t.deck_remaining ? ` · ${t.deck_remaining} left to deal` : ""}${t.prima ? ` · Prima: ${suitLabel(t.prima)}` : ""}`),
      el("thead", {}, el("tr", {},
        el("th", { scope: "col" }, "Suit"), el("th", { scope: "col" }, "Foundation"), el("th", { scope: "col" }, "Top"),
        el("th", { scope: "col", class: "num" }, "Cards"))),
      el("tbody", {}, stacks.map((st) => el("tr", { "data-suit": st.suit, class: t.prima === st.suit ? "prima" : "" },
        el("th", { scope: "row" }, suitLabel(st.suit)),
        el("td", {}, st.foundation !== null && st.foundation !== undefined ? cardElement(st.foundation) : "—"),
        el("td", {}, st.top !== null && st.top !== undefined ? cardElement(st.top) : "—"),
        el("td", { class: "num" }, String(st.count ?? 0)))))),
    el("p", { class: "small" }, `Discards: ${t.discard_count}`,
      t.discard_top !== null && t.discard_top !== undefined ? [", top ", cardElement(t.discard_top)] : null));
}

function renderEvents() {
  const events = (round && round.events) || [];
  fill($("prima-events"), events.length ? events.map((e) => el("li", {}, eventText(e))) : el("li", { class: "muted" }, "Nothing dealt yet."));
}

// ---- seat ----------------------------------------------------------------------------------------

function seatCostText() {
  const r = round.rules;
  const unit = cents(r.unit);
  const fee = r.seat_fee ? cents(r.seat_fee) : 0n;
  const corte = r.corte ? unit : 0n;
  const parts = [`${money(unit)} for the spiga (into the pot)`];
  if (fee) parts.push(`${money(fee)} seat fee`);
  if (corte) parts.push(`${money(corte)} held for the corte (back at the deal unless yours is the Prima suit)`);
  return `A seat takes ${money(unit + fee + corte)} from the wallet: ${parts.join(", ")}. A copa later costs one unit (${money(unit)}) per card in your stack.`;
}

function renderSeat() {
  const betting = round && round.status === "betting";
  const seat = mySeat();
  $("seat-panel").hidden = !round || (!betting && !seat);
  if (!round) return;
  $("seat-form").hidden = !betting || !!seat;
  $("seat-mine").hidden = !seat;
  $("seat-title").textContent = seat ? "Your seat" : "Take a seat";
  if (seat) $("seat-mine").textContent = `You hold ${suitLabel(seat.suit)} in this round.`;
  if (betting && !seat) {
    const taken = new Set(round.seats.map((s) => s.suit));
    setOptions($("seat-suit"), SUITS.filter((s) => !taken.has(s)).map((s) => [s, suitLabel(s)]));
    $("seat-cost").textContent = seatCostText();
  }
}

async function takeSeat(event) {
  event.preventDefault();
  const body = { suit: $("seat-suit").value };
  if ($("seat-seed").value) body.client_seed = $("seat-seed").value;
  const id = round.id;
  await attempt($("seat-button"), $("seat-alert"), async (onRetry) => {
    const v = await act("POST", `/api/v1/rounds/${encodeURIComponent(id)}/seats`, body, { onRetry });
    setRound(v);
  });
  refreshWallet();
}

// ---- side bets -----------------------------------------------------------------------------------

function betKindOptions() {
  const spec = payTable && payTable.spec;
  const kinds = BET_KINDS.filter((k) => k !== "cartas" || (spec && spec.cartas.length));
  setOptions($("bet-kind"), kinds.map((k) => [k, BET_NAMES[k]]));
  setOptions($("bet-suit"), SUITS.map((s) => [s, suitLabel(s)]));
  const numbers = spec ? spec.cartas.map((c) => c.number) : [];
  setOptions($("bet-number"), numbers.map((x) => [String(x), `N = ${x}`]));
}

/** The win on `stake` at `pays`:1, rounded down to the cent (docs/side-bets.md). */
function winOn(stakeText, pays) {
  const stake = cents(stakeText);
  const p = cents(pays);
  if (stake === null || p === null || stake <= 0n) return null;
  return (stake * p) / 100n;
}

function renderBetPays() {
  const kind = $("bet-kind").value;
  $("bet-suit-field").hidden = !SUIT_BETS.includes(kind);
  $("bet-number-field").hidden = kind !== "cartas";
  if (!payTable) { $("bet-pays").textContent = "Loading the pays…"; return; }
  const spec = payTable.spec;
  const number = kind === "cartas" ? Number($("bet-number").value) : null;
  const entry = certified(payTable, kind, number);
  let main = null;
  if (kind === "prima" || kind === "escucha" || kind === "maximo") main = spec[kind].pays;
  else if (kind === "cartas") { const l = spec.cartas.find((c) => c.number === number); main = l ? l.pays : null; }
  else if (kind !== "comeco") main = spec[kind];
  const win = main ? winOn($("bet-amount").value, main) : null;
  const stake = cents($("bet-amount").value);
  fill($("bet-pays"),
    el("strong", {}, betName(kind)), ` wins if ${BET_RULES[kind]}.`, el("br"),
    "Pays ", paysText(spec, kind, number), ".",
    el("br"), el("span", {}, "Certified RTP: ", el("span", { id: "bet-rtp" }, rtpText(entry)), "."),
    win !== null ? [el("br"), el("span", {}, `A win on ${money(stake)} pays ${money(win)}, returning ${money(stake + win)}.`)] : null);
}

async function loadPayTable() {
  if (!round || !round.pay_table_id) { payTable = null; fill($("prima-paytable")); return; }
  try {
    payTable = await payTableById(round.pay_table_id);
    fill($("prima-paytable"), payTableTable(payTable, { id: "prima-paytable-table" }));
    betKindOptions();
    renderBetPays();
  } catch (e) {
    fill($("prima-paytable"), el("p", { role: "alert" }, e.sentence || String(e)));
  }
}

function renderBetPanel() {
  const betting = round && round.status === "betting";
  $("bet-panel").hidden = !betting;
  if (!betting) return;
  const r = round.rules;
  $("bet-limits").textContent = `From ${r.min_bet} to ${r.max_bet} a bet; at most ${r.max_exposure_per_round} on one round.`;
  // The stake starts at the minimum once per round; after that it is the player's.
  if (amountFor !== round.id) {
    amountFor = round.id;
    if (!$("bet-amount").value) $("bet-amount").value = r.min_bet;
  }
  betKindOptions();
  renderBetPays();
}

async function placeBet(event) {
  event.preventDefault();
  const kind = $("bet-kind").value;
  const body = { kind, amount: $("bet-amount").value.trim() };
  if (SUIT_BETS.includes(kind)) body.suit = $("bet-suit").value;
  if (kind === "cartas") body.number = Number($("bet-number").value);
  if (round.pay_table_id) body.pay_table = round.pay_table_id;
  const id = round.id;
  await attempt($("bet-button"), $("bet-alert"), async (onRetry) => {
    const bet = await act("POST", `/api/v1/rounds/${encodeURIComponent(id)}/bets`, body, { onRetry });
    $("bet-alert").hidden = true;
    $("bet-placed").textContent = `Placed: ${betName(bet.kind)} ${selectionText(bet.selection)}, ${bet.amount}.`;
    await loadMyBets();
  }, async (e) => {
    if (e.code === "pay_table_mismatch") {
      const fresh = await get(`/api/v1/rounds/${encodeURIComponent(id)}`).catch(() => null);
      if (fresh) setRound(fresh);
      loadPayTable();
    }
  });
  refreshWallet();
}

async function loadMyBets() {
  if (!round) return;
  const id = round.id;
  try {
    const bets = await get(`/api/v1/rounds/${encodeURIComponent(id)}/bets`);
    if (!round || round.id !== id) return;
    myBets = bets.filter((b) => b.player_id === me);
    renderMyBets();
    if (round.result) renderResult();
  } catch (_) { /* shown again at the next change */ }
}

function renderMyBets() {
  $("my-bets-panel").hidden = myBets.length === 0;
  fill($("my-bets"), grid([
    ["Bet", (b) => betName(b.kind)],
    ["On", (b) => selectionText(b.selection)],
    ["Stake", (b) => b.amount],
    ["Status", (b) => el("span", { class: b.status === "won" ? "ok" : b.status === "lost" ? "bad" : "" }, b.status)],
    ["Returned", (b) => b.returned],
  ], myBets, { empty: "No bets of yours on this round." }));
  const t = $("my-bets").querySelector("table");
  if (t) t.id = "my-bets-table";
}

// ---- copa ----------------------------------------------------------------------------------------

function renderCopa() {
  const turn = round && round.status === "copa" ? round.copa_turn : null;
  const myTurn = !!turn && isMine(turn.suit);
  $("copa-panel").hidden = !myTurn;
  if (!myTurn) { adviceFor = null; return; }
  $("copa-cost").textContent = `Your ${suitLabel(turn.suit)} stack holds ${turn.stack_count} card${turn.stack_count === 1 ? "" : "s"}: ` +
    `paying the copa costs ${turn.copa} and keeps you in; folding costs nothing more but gives up the pot.`;
  $("copa-pay").textContent = `Pay the copa (${turn.copa})`;
  const key = `${round.id}/${round.version}`;
  if (round.rules.strategy_advice && adviceFor !== key) {
    adviceFor = key;
    $("copa-advice").textContent = "Asking the basic strategy…";
    get(`/api/v1/rounds/${encodeURIComponent(round.id)}/advice`).then((a) => {
      fill($("copa-advice"), "Basic strategy: ",
        el("strong", { id: "copa-advice-value", "data-advice": a.advice, class: a.advice === "pay" ? "ok" : "bad" },
          a.advice === "pay" ? "pay the copa" : "fold"), ".");
    }).catch((e) => { $("copa-advice").textContent = e.sentence || ""; });
  } else if (!round.rules.strategy_advice) {
    $("copa-advice").textContent = "This table does not offer the basic strategy's advice.";
  }
}

async function decide(decision, button) {
  const id = round.id;
  await attempt(button, $("copa-alert"), async (onRetry) => {
    const v = await act("POST", `/api/v1/rounds/${encodeURIComponent(id)}/copa`, { decision }, { onRetry });
    setRound(v);
  });
  refreshWallet();
}

// ---- result --------------------------------------------------------------------------------------

function renderResult() {
  const over = round && ["finished", "settled", "voided", "in_play"].includes(round.status);
  $("prima-result").hidden = !over;
  if (!over) return;
  const parts = [];
  const won = (round.events || []).find((e) => e.type === "won");
  if (round.status === "voided") parts.push(el("p", { class: "bad" }, "The round was voided: every stake was refunded."));
  if (won) parts.push(el("p", {}, el("strong", {}, `${suitLabel(won.suit)} won`), `: it ${HOW[won.how] || won.how}.`));
  if (round.status === "in_play") parts.push(el("p", { class: "muted" }, "The repasso is being dealt: the winner is known when the dealer settles."));
  if (round.status === "finished") parts.push(el("p", { class: "muted" }, "Waiting for the dealer to settle the round."));
  const r = round.result;
  if (r) {
    const mineWon = isMine(r.result.winner);
    parts.push(el("p", { id: "prima-winner", class: mineWon ? "ok" : "" },
      mineWon ? `You won the pot: ${r.winner_paid}.` : `The winner was paid ${r.winner_paid}.`,
      cents(r.carried_cobre_in) ? ` (${r.carried_cobre_in} of it a cobre carried in.)` : ""));
    const facts = r.facts || {};
    if (facts.first_pass_count !== undefined) {
      parts.push(el("p", { class: "small" }, `First pass count N = ${facts.first_pass_count}` +
        (facts.first_to_complete ? `; first to complete: ${suitName(facts.first_to_complete)}` : "") + "."));
    }
  }
  if (myBets.length && round.status === "settled") {
    const staked = myBets.reduce((a, b) => a + (cents(b.amount) || 0n), 0n);
    const back = myBets.reduce((a, b) => a + (cents(b.returned) || 0n), 0n);
    parts.push(el("p", { id: "prima-bets-result" }, `Your side bets: ${money(staked)} staked, ${money(back)} returned.`));
  }
  fill($("prima-result-body"), parts);
  if (round.status === "settled" || round.status === "voided") {
    if ($("prima-verify-slot").dataset.roundId !== round.id) {
      $("prima-verify-slot").dataset.roundId = round.id;
      fill($("prima-verify-slot"), verifyPanel("prima_carta", round.id, { prefix: "prima" }));
    }
  } else {
    delete $("prima-verify-slot").dataset.roundId;
    fill($("prima-verify-slot"));
  }
}

// ---- wiring --------------------------------------------------------------------------------------

function setRound(r) {
  const newRound = !round || !r || round.id !== r.id;
  learnSeat(r); // a seat once taken stays, so even an older view made for me tells it
  if (r && round && r.id === round.id && r.version < round.version) return; // an older view arriving late
  round = r || null;
  if (newRound) {
    myBets = [];
    adviceFor = null;
    lastStatus = null;
    say($("seat-alert"), null);
    say($("bet-alert"), null);
    say($("copa-alert"), null);
    $("bet-placed").textContent = "";
    renderMyBets();
    loadPayTable();
    if (round) loadMyBets();
  }
  renderRoundInfo();
  renderSeat();
  renderBetPanel();
  renderCopa();
  renderResult();
  renderEvents();
  showConfidence(round, isMine);
  if (round && lastStatus !== null && lastStatus !== round.status) {
    refreshWallet();
    if (round.status === "settled" || round.status === "voided") loadMyBets();
  }
  if (round) lastStatus = round.status;
}

async function resync() {
  try {
    const list = await get(`/api/v1/tables/${encodeURIComponent(table.id)}/rounds?limit=1`);
    const latest = list[0] || null;
    if (latest && !["settled", "voided"].includes(latest.status)) setRound(latest);
    else if (latest && round && latest.id === round.id) setRound(latest);
  } catch (_) { /* the next event brings it */ }
}

function wire() {
  if (wired) return;
  wired = true;
  $("seat-form").addEventListener("submit", takeSeat);
  $("bet-form").addEventListener("submit", placeBet);
  $("bet-kind").addEventListener("change", renderBetPays);
  $("bet-number").addEventListener("change", renderBetPays);
  $("bet-amount").addEventListener("input", renderBetPays);
  $("copa-pay").addEventListener("click", () => decide("pay", $("copa-pay")));
  $("copa-fold").addEventListener("click", () => decide("fold", $("copa-fold")));
  // A line under the bet button says what was placed.
  $("bet-button").after(el("p", { id: "bet-placed", class: "ok", role: "status" }));
}

/** Watches a Prima Carta table. */
export function openPrima(t, _go) {
  wire();
  closePrima();
  me = (session() || {}).user_id;
  mine = { round: null, suit: null };
  askedOwnView = null;
  table = t;
  round = null;
  payTable = null;
  $("prima-title").textContent = t.name;
  setRound(null);
  watcher = watchTable(t.id, (name, data) => {
    if (name === "state") {
      if (data && data.id) { setRound(data); askOwnView(data); }
      else if (data === null) setRound(null);
    } else if (name === "round") {
      if (data && data.id) { setRound(data); askOwnView(data); }
    } else if (name === "table") {
      if (data && data.id === t.id) table = data;
    } else if (name === "resync") {
      resync();
    }
  }, (status) => {
    const node = $("live-status");
    node.textContent = liveStatusText(status);
    node.className = `status ${status}`;
    node.dataset.status = status;
  });
}

export function closePrima() {
  if (watcher) { watcher.stop(); watcher = null; }
}
