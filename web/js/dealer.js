// The dealer terminal: one table at a time, of a game its dealer starts
// (the game registry's `started_by`). The dealer signs in at the table and
// opens rounds. At Prima Carta: watches seats and side bets arrive live,
// closes betting, deals the first pass, records copa decisions given by
// voice, settles, and sees the result; at Peg Leg, dealer-peg-leg.js deals
// card by card. Everything goes through the public API; the table's live
// stream (live.js) keeps the page current, and a round already in progress is
// picked up again after a reload.

import {
  $, requireSession, get, act, el, fill, showProblem, header, capitalise, ApiProblem,
} from "./api.js";
import { watchTable, liveStatusText } from "./live.js";
import { SUITS, suitName, suitSymbol, suitLabel, suitOfCard, cardName, cardElement } from "./cards.js";
import { cents, money } from "./money.js";
import { loadGames, gameName, gameOfTable, dealtByDealer } from "./games.js";
import { step, sentenceOf } from "./dealer-common.js";
import { openPegLeg, closePegLeg, pegLegEvent, wirePegLeg } from "./dealer-peg-leg.js";
import { optionsLine as pegLegOptions } from "./peg-leg.js";
import { betName } from "./words.js";
import { learnNames, usernameOf, isAccountId } from "./roster.js";

const TABLE_KEY = "djego.dealer.table";

/** `units` table units of `unit` each, as a decimal string. */
const timesUnit = (unit, units) => money(cents(unit) * BigInt(units || 0));

// ---- words ----------------------------------------------------------------

const HOW = {
  first_pass_completion: "completed its stack in the first pass",
  last_live: "was the last player left in at the copa",
  repasso_completion: "completed its stack first in the repasso",
  cinco_tallest: "had the tallest stack after the pass (Cinco)",
};

const STATUS_TEXT = {
  betting: "Betting is open: seats and side bets arrive live.",
  closed: "Betting is closed. Deal the first pass.",
  copa: "Copa: each player pays or folds in turn.",
  in_play: "Two or more players stayed in: settle to deal the repasso and pay.",
  finished: "The main game is decided: settle to pay the pot and the side bets.",
  settled: "Settled: the pot and every side bet are paid.",
  voided: "A pit boss voided this round; every stake was refunded.",
};

const timeOf = (us) => new Date(Number(us) / 1000).toLocaleTimeString();

// ---- who sits where ---------------------------------------------------------
// Players by username. The table's live stream names each seat by the round's pseudonym
// (P1, P2…) only; the round as staff read it (GET /rounds/{id}) adds the seat's `player_id`,
// and the roster names that account. So the terminal learns, per round, each suit's account once and
// names it; until then (or if the roster cannot say) the pseudonym. Never an account id.

const seatAccount = new Map(); // round id → Map(suit → account id)
const seatPseudonym = new Map(); // round id → Map(suit → pseudonym)
const learning = new Set(); // rounds whose staff view is being read

function seatsOf(map, roundId) {
  if (!map.has(roundId)) map.set(roundId, new Map());
  return map.get(roundId);
}

/** Notes who sits where in a round view; asks for what is missing, then shows the names. */
function learnSeats(view) {
  const accounts = seatsOf(seatAccount, view.id);
  const pseudonyms = seatsOf(seatPseudonym, view.id);
  for (const seat of view.seats || []) {
    if (isAccountId(seat.player_id)) accounts.set(seat.suit, seat.player_id);
    if (seat.player) pseudonyms.set(seat.suit, seat.player);
  }
  const unseen = (view.seats || []).some((seat) => !accounts.has(seat.suit));
  const unnamed = [...accounts.values()].filter((id) => usernameOf(id) === null);
  if (unseen) readSeats(view.id, view.version);
  else if (unnamed.length) learnNames(unnamed).then(() => renderIfShown(view.id));
}

/** Reads the round as staff see it (accounts by id) and learns the usernames. */
async function readSeats(roundId, version) {
  if (learning.has(roundId)) return;
  learning.add(roundId);
  let staff = null;
  try {
    staff = await get(`/api/v1/rounds/${encodeURIComponent(roundId)}`);
    const accounts = seatsOf(seatAccount, roundId);
    for (const seat of staff.seats || []) if (isAccountId(seat.player_id)) accounts.set(seat.suit, seat.player_id);
    await learnNames([...accounts.values()]);
  } catch (_) {
    // The pseudonyms stay; the next view of the round asks again.
  } finally {
    learning.delete(roundId);
  }
  // A seat taken while this was being read: read again (at most once per newer version).
  const now = state.round;
  if (staff && now && now.id === roundId && now.version > Math.max(version, staff.version)) readSeats(roundId, now.version);
  renderIfShown(roundId);
}

function renderIfShown(roundId) {
  if (state.round && state.round.id === roundId && state.table && !isPegLeg(state.table)) renderRound();
}

/** The player at `suit` in round `r`, as the dealer says it: the username, else the pseudonym (`given`). */
function playerName(r, suit, given) {
  const id = seatsOf(seatAccount, r.id).get(suit);
  const pseudonym = given && !isAccountId(given) ? given : seatsOf(seatPseudonym, r.id).get(suit);
  return (id && usernameOf(id)) || pseudonym || "?";
}

const playerCell = (r, suit, given) => el("span", { class: "player-name" }, playerName(r, suit, given));

// ---- page state -------------------------------------------------------------

const session = requireSession(["dealer"]);
const state = {
  tables: [],
  table: null, // the table being dealt
  box: null, // who deals there now (TableDealer.dealer)
  round: null, // the newest round's public view
  watcher: null,
  stream: "connecting",
  dropped: false, // the stream was lost since the last state
};

if (session) boot();

async function boot() {
  $("header-slot").replaceWith(header(session, "Dealer terminal"));
  $("change-table").addEventListener("click", leaveTable);
  $("dealer-sign-in").addEventListener("click", () => signAt("sign-in"));
  $("dealer-sign-out").addEventListener("click", () => signAt("sign-out"));
  $("open-round").addEventListener("click", () => openRound($("open-round")));
  $("new-round").addEventListener("click", () => openRound($("new-round")));
  $("close-betting").addEventListener("click", () => roundStep($("close-betting"), "close", "closing betting"));
  $("deal").addEventListener("click", () => roundStep($("deal"), "deal", "dealing"));
  $("settle").addEventListener("click", () => roundStep($("settle"), "settle", "settling"));
  $("copa-pay").addEventListener("click", () => copa("pay"));
  $("copa-fold").addEventListener("click", () => copa("fold"));
  wirePegLeg();
  // The games' names come from the registry; without it the page still works, naming games by id.
  await loadGames().catch(() => null);
  await loadTables();
}

// ---- tables ---------------------------------------------------------------

// The games this terminal deals; a table of another game its dealer starts is listed, not dealt here.
const DEALT_HERE = new Set(["prima_carta", "peg_leg"]);
const dealsHere = (t) => dealtByDealer(t) && DEALT_HERE.has(t.config.game);
const isPegLeg = (t) => !!t && t.config && t.config.game === "peg_leg";
const assignedTo = (t) => (t.dealer_ids || []).includes(session.user_id);

/**
 * Lists the tables. On opening the page (`resume`), goes straight to the table chosen in this
 * tab or, failing that, the one this dealer is signed in at; not when the dealer asked for the list.
 */
async function loadTables(resume = true) {
  showProblem($("page-problem"), null);
  let tables;
  try {
    tables = await get("/api/v1/tables");
  } catch (e) {
    showProblem($("page-problem"), { sentence: "The tables could not be loaded: " + sentenceOf(e) });
    $("table-list").removeAttribute("aria-busy");
    fill($("table-list"), el("button", { type: "button", id: "reload-tables", onclick: () => loadTables(resume) }, "Try again"));
    return;
  }
  state.tables = tables;
  // Who deals at each table dealt here (to find where this dealer is signed in).
  const boxes = await Promise.all(tables.map((t) => (dealsHere(t)
    ? get(`/api/v1/tables/${encodeURIComponent(t.id)}/dealer`).then((d) => d.dealer).catch(() => null)
    : Promise.resolve(null))));
  tables.forEach((t, i) => { t._box = boxes[i]; });
  renderTableList();
  if (!resume) return;

  const wanted = sessionStorage.getItem(TABLE_KEY);
  const stored = tables.find((t) => t.id === wanted && dealsHere(t));
  const mine = tables.find((t) => dealsHere(t) && t._box && t._box.dealer_id === session.user_id);
  const pick = stored || mine;
  if (pick) chooseTable(pick);
}

function renderTableList() {
  const list = $("table-list");
  list.removeAttribute("aria-busy");
  if (state.tables.length === 0) {
    fill(list, el("p", { class: "empty" }, "There are no tables."));
    return;
  }
  const dealt = state.tables.filter(dealsHere);
  const others = state.tables.filter((t) => !dealsHere(t));
  fill(list,
    dealt.map((t) => {
      const assigned = assignedTo(t);
      const box = t._box;
      const dealing = box ? (box.dealer_id === session.user_id ? "you are dealing here" : `${box.username} is dealing`) : "no dealer signed in";
      return el("div", { class: "table-item", role: "listitem" },
        el("button", {
          type: "button",
          class: "table-pick big",
          "data-table-id": t.id,
          "data-table-name": t.name,
          disabled: !assigned,
          onclick: () => chooseTable(t),
        }, t.name),
        el("span", { class: "table-facts" },
          `${tableFacts(t)} · `,
          el("span", { class: t.status === "open" ? "ok" : "bad" }, t.status === "open" ? "open" : "closed"),
          " · ",
          assigned ? el("span", { class: "ok" }, "assigned to you") : el("span", { class: "muted" }, "not assigned to you"),
          ` · ${dealing}`));
    }),
    others.map((t) => el("div", { class: "table-item undealt", role: "listitem", "data-table-id": t.id, "data-table-name": t.name },
      el("span", { class: "table-name" }, t.name),
      el("span", { class: "table-facts muted" }, undealtFacts(t)))));
}

/** A table dealt here, in a line: its game and what it is played for. */
function tableFacts(t) {
  const c = t.config;
  if (c.game === "prima_carta") return `${gameName(c.game)} (${c.variant}), unit ${c.unit}`;
  if (c.game === "peg_leg") return `${gameName(c.game)}, ${pegLegOptions(c)}`;
  return gameName(c.game);
}

/** A table not dealt here: its game as the registry describes it. */
function undealtFacts(t) {
  const g = gameOfTable(t);
  if (!g) return `${gameName(t.config.game)}: not dealt from this terminal.`;
  const how = g.summary.replace(/\.$/, "");
  return g.started_by === "dealer" ? `${g.name}: ${how}. Not dealt from this terminal.` : `${g.name}: ${how}.`;
}

function chooseTable(t) {
  if (state.watcher) state.watcher.stop();
  state.table = t;
  state.round = null;
  state.box = t._box || null;
  sessionStorage.setItem(TABLE_KEY, t.id);
  $("tables-panel").hidden = true;
  $("table-view").hidden = false;
  $("prima-view").hidden = isPegLeg(t);
  $("peg-view").hidden = !isPegLeg(t);
  showProblem($("table-problem"), null);
  showProblem($("round-problem"), null);
  renderTable();
  refreshBox();
  if (isPegLeg(t)) {
    openPegLeg(t);
  } else {
    closePegLeg();
    renderRound();
    reloadRound();
  }
  state.watcher = watchTable(t.id, onLiveEvent, onLiveStatus);
}

function leaveTable() {
  if (state.watcher) state.watcher.stop();
  state.watcher = null;
  state.table = null;
  state.round = null;
  closePegLeg();
  sessionStorage.removeItem(TABLE_KEY);
  $("table-view").hidden = true;
  $("tables-panel").hidden = false;
  fill($("table-list"), el("p", { class: "muted" }, "Loading the tables…"));
  loadTables(false);
}

function renderTable() {
  const t = state.table;
  $("table-name").textContent = t.name;
  const c = t.config;
  const bits = isPegLeg(t)
    ? [gameName(c.game), pegLegOptions(c)]
    : [`${gameName(c.game)}, ${c.variant}`, `unit ${c.unit}`, c.corte ? "corte on" : "corte off", `cobre ${c.cobre}`];
  if (c.seat_fee) bits.push(`seat fee ${c.seat_fee}`);
  fill($("table-info"),
    bits.join(" · "), " · ",
    el("span", { class: t.status === "open" ? "ok" : "bad", id: "table-open" }, t.status === "open" ? "table open" : "table closed"),
    assignedTo(t) ? "" : el("span", { class: "bad" }, " · you are not assigned to this table"));
  renderBox();
}

async function refreshBox() {
  const t = state.table;
  if (!t) return;
  try {
    const d = await get(`/api/v1/tables/${encodeURIComponent(t.id)}/dealer`);
    if (state.table && state.table.id === t.id) {
      state.box = d.dealer || null;
      renderBox();
    }
  } catch (e) {
    showProblem($("table-problem"), { sentence: "Who is dealing could not be loaded: " + sentenceOf(e) });
  }
}

function renderBox() {
  const box = state.box;
  const me = box && box.dealer_id === session.user_id;
  const node = $("dealer-now");
  node.dataset.dealing = me ? "me" : box ? "other" : "nobody";
  if (!box) {
    fill(node, el("strong", {}, "No dealer is signed in at this table."), " Sign in before dealing.");
  } else if (me) {
    fill(node, el("strong", { class: "ok" }, `You (${box.username}) are dealing here`), `, since ${timeOf(box.since_us)}.`);
  } else {
    fill(node, el("strong", {}, `${box.username} is dealing here`), `, since ${timeOf(box.since_us)}. Signing in relieves them.`);
  }
  $("dealer-sign-in").hidden = !!me;
  $("dealer-sign-out").hidden = !me;
}

async function signAt(which) {
  const t = state.table;
  const button = which === "sign-in" ? $("dealer-sign-in") : $("dealer-sign-out");
  await step(button, $("table-problem"), which === "sign-in" ? "signing in" : "signing out", $("table-progress"), async (onRetry) => {
    const d = await act("POST", `/api/v1/tables/${encodeURIComponent(t.id)}/dealer/${which}`, {}, { onRetry });
    state.box = d.dealer || null;
    renderBox();
  }, (e) => {
    if (e instanceof ApiProblem && which === "sign-out" && e.status === 409) {
      refreshBox();
      return "You are not signed in at this table.";
    }
    if (e instanceof ApiProblem && which === "sign-in" && e.code === "table_closed") {
      return "The table is closed: a pit boss must open it before anyone deals here.";
    }
    return null;
  });
}

// ---- the live stream ------------------------------------------------------

function onLiveStatus(status) {
  state.stream = status;
  const node = $("live-status");
  node.className = `status ${status}`;
  node.dataset.status = status;
  if (status === "reconnecting") state.dropped = true;
  node.textContent = liveStatusText(status);
}

function onLiveEvent(name, data) {
  if (!state.table) return;
  if (isPegLeg(state.table)) {
    if (name === "table") tableChanged(data);
    else pegLegEvent(name, data);
    if (name === "state") backInSync();
    return;
  }
  switch (name) {
    case "state":
      if (data && data.table && !data.id) return; // a Lobo table's state
      acceptRound(data, true);
      backInSync();
      break;
    case "round":
      acceptRound(data, false);
      break;
    case "table":
      tableChanged(data);
      break;
    case "resync":
      reloadRound();
      break;
    default:
      // A game event: the `round` snapshot that follows it carries it too.
      break;
  }
}

/** The first state after a dropped connection: say so, and re-read who deals here. */
function backInSync() {
  if (state.dropped) {
    $("live-status").textContent = "Live — back in sync";
    refreshBox();
  }
  state.dropped = false;
}

function tableChanged(data) {
  if (data && data.id === state.table.id) {
    data._box = state.box;
    state.table = data;
    renderTable();
  }
}

/** Loads the table's newest round (a round in progress is resumed). */
async function reloadRound() {
  const t = state.table;
  if (!t) return;
  try {
    const rounds = await get(`/api/v1/tables/${encodeURIComponent(t.id)}/rounds?limit=1`);
    if (state.table && state.table.id === t.id) acceptRound(rounds[0] || null, true);
  } catch (e) {
    showProblem($("round-problem"), { sentence: "The round could not be loaded: " + sentenceOf(e) });
  }
}

/** Takes a round view unless it is older than the one shown. */
function acceptRound(view, authoritative) {
  const current = state.round;
  if (!view) {
    if (authoritative && !current) renderRound();
    return;
  }
  if (!state.table || view.table_id !== state.table.id) return;
  if (current) {
    if (view.id === current.id && view.version < current.version) return;
    if (view.id !== current.id && view.number < current.number) return;
  }
  if (!current || current.id !== view.id) {
    clearProblems();
    state.seedsOpen = undefined;
  }
  state.round = view;
  learnSeats(view);
  renderRound();
}

function clearProblems() {
  state.refusal = null;
  showProblem($("round-problem"), null);
  showProblem($("copa-problem"), null);
}

// ---- actions ----------------------------------------------------------------

async function openRound(button) {
  const t = state.table;
  await step(button, $("round-problem"), "opening the round", $("action-progress"), async (onRetry) => {
    const view = await act("POST", `/api/v1/tables/${encodeURIComponent(t.id)}/rounds`, undefined, { onRetry });
    acceptRound(view, true);
  }, (e) => {
    if (!(e instanceof ApiProblem)) return null;
    if (e.code === "round_in_progress") {
      reloadRound();
      return "This table already has a round in progress: finish it (or ask a pit boss to void it) before opening another.";
    }
    if (e.code === "table_closed") return "The table is closed: a pit boss must open it before a new round.";
    return null;
  });
}

const WRONG_STATE = {
  close: "Betting is no longer open for this round",
  deal: "This round cannot be dealt now",
  settle: "This round cannot be settled yet",
};

async function roundStep(button, action, doing) {
  const round = state.round;
  if (!round) return;
  await step(button, $("round-problem"), doing, $("action-progress"), async (onRetry) => {
    const view = await act("POST", `/api/v1/rounds/${encodeURIComponent(round.id)}/${action}`, undefined, { onRetry });
    acceptRound(view, true);
  }, (e) => {
    if (!(e instanceof ApiProblem)) return null;
    if (e.code === "not_enough_players") {
      state.refusal = e.code;
      return `Betting stays open: ${e.message.replace(/\.$/, "")}. At least two players must be seated before betting closes.`;
    }
    if (e.code === "wrong_round_state") {
      reloadRound();
      return `${WRONG_STATE[action]} (${e.message}). The page now shows where the round stands.`;
    }
    return null;
  });
}

async function copa(decision) {
  const round = state.round;
  const turn = round && round.copa_turn;
  if (!turn) return;
  const button = decision === "pay" ? $("copa-pay") : $("copa-fold");
  await step(button, $("copa-problem"), "recording the copa", $("action-progress"), async (onRetry) => {
    const view = await act("POST", `/api/v1/rounds/${encodeURIComponent(round.id)}/copa`,
      { decision, suit: turn.suit }, { onRetry });
    acceptRound(view, true);
  }, (e) => {
    if (!(e instanceof ApiProblem)) return null;
    if (e.code === "insufficient_funds") {
      return `The copa is ${turn.copa}; ${suitName(turn.suit)}'s wallet cannot pay it, so the player must fold.`;
    }
    if (e.code === "not_your_turn" || e.code === "wrong_round_state") {
      reloadRound();
      return `${capitalise(e.message)} The page now shows whose turn it is.`;
    }
    return null;
  });
}

// ---- rendering the round --------------------------------------------------

function decisionsOf(round) {
  const d = {};
  for (const e of round.events || []) {
    if (e.type === "copa_paid") d[e.suit] = { paid: e.units };
    if (e.type === "folded") d[e.suit] = { folded: true };
  }
  return d;
}

function renderRound() {
  const r = state.round;
  const statusNode = $("round-status");
  const actions = { "open-round": false, "close-betting": false, deal: false, settle: false, "new-round": false };
  $("copa-panel").hidden = true;
  $("result-panel").hidden = true;

  if (!r) {
    $("round-title").textContent = "No round yet";
    statusNode.dataset.status = "none";
    delete statusNode.dataset.roundId;
    delete statusNode.dataset.version;
    statusNode.textContent = "No round is open at this table. Open one when the players are ready.";
    $("round-commitment").hidden = true;
    actions["open-round"] = true;
    $("open-round").textContent = "Open a round";
    fill($("seats"), el("p", { class: "empty" }, "No one is seated yet."));
    fill($("bets"), el("p", { class: "empty" }, "No side bets yet."));
    fill($("confidence-bets"), el("p", { class: "empty" }, "No bets between players yet."));
    $("fuerza-panel").hidden = true;
    fill($("fuerza-bets"), el("p", { class: "empty" }, "No Fuerza bets yet."));
    fill($("layout"), el("p", { class: "empty" }, "No cards dealt yet."));
    fill($("event-log"));
    $("event-log").hidden = true;
    $("events-empty").hidden = false;
    for (const [id, shown] of Object.entries(actions)) $(id).hidden = !shown;
    return;
  }

  $("round-title").textContent = `Round ${r.number}`;
  statusNode.dataset.status = r.status;
  statusNode.dataset.roundId = r.id;
  statusNode.dataset.version = String(r.version);
  if (state.refusal === "not_enough_players" && (r.seats.length >= 2 || r.status !== "betting")) clearProblems();
  fill(statusNode, el("span", { class: `badge status-${r.status}` }, r.status.replace("_", " ")), " ", STATUS_TEXT[r.status] || "");

  const commit = $("round-commitment");
  commit.hidden = false;
  // The commitment in full while betting is open (when it matters); one line afterwards.
  const short = `${r.commitment.slice(0, 8)}…${r.commitment.slice(-8)}`;
  const details = el("details", { id: "round-seeds", open: state.seedsOpen ?? r.status === "betting" },
    el("summary", { onclick: () => { state.seedsOpen = !details.open; } },
      `Commitment (${r.algorithm}): `, el("code", { class: "short" }, short),
      r.server_seed ? " · seeds revealed" : r.client_seed ? " · client seed fixed" : ""),
    el("p", {}, "Commitment, published before any bet: ", el("code", { id: "commitment" }, r.commitment)),
    r.client_seed ? el("p", {}, "Client seed: ", el("code", { id: "client-seed" }, r.client_seed)) : null,
    r.server_seed ? el("p", {}, "Server seed: ", el("code", { id: "server-seed" }, r.server_seed)) : null);
  fill(commit, details);

  const seated = r.seats.length;
  switch (r.status) {
    case "betting":
      actions["close-betting"] = true;
      $("close-betting").textContent = `Close betting (${seated} seated)`;
      break;
    case "closed":
      actions.deal = true;
      break;
    case "in_play":
      actions.settle = true;
      $("settle").textContent = "Deal the repasso and settle";
      break;
    case "finished":
      actions.settle = true;
      $("settle").textContent = "Settle and pay";
      break;
    case "settled":
      actions["new-round"] = true;
      break;
    case "voided":
      actions["open-round"] = true;
      $("open-round").textContent = "Open a new round";
      break;
    default:
      break;
  }
  for (const [id, shown] of Object.entries(actions)) $(id).hidden = !shown;

  renderCopa(r);
  renderSeats(r);
  renderBets(r);
  renderConfidence(r);
  renderFuerza(r);
  renderLayout(r);
  renderEvents(r);
  if (r.status === "settled") renderResult(r);
}

/** The seated suits in copa order, starting at `from`. */
function cycleFrom(from, suits) {
  const start = SUITS.indexOf(from);
  const order = [];
  for (let i = 0; i < SUITS.length; i++) {
    const s = SUITS[(start + i) % SUITS.length];
    if (suits.includes(s)) order.push(s);
  }
  return order;
}

function renderCopa(r) {
  const turn = r.copa_turn;
  if (r.status !== "copa" || !turn) return;
  $("copa-panel").hidden = false;
  $("copa-panel").dataset.suit = turn.suit;
  const decided = decisionsOf(r);
  const waiting = cycleFrom(turn.suit, r.seats.map((s) => s.suit)).filter((s) => s !== turn.suit && !decided[s]);
  fill($("copa-turn"),
    el("strong", { id: "copa-turn-suit", "data-suit": turn.suit }, suitLabel(turn.suit)),
    ` (${playerName(r, turn.suit, turn.player)}) decides: the copa is ${turn.copa} for ${turn.stack_count} card${turn.stack_count === 1 ? "" : "s"}.`);
  $("copa-allowed").textContent =
    "Pay or fold. Record what the player says, or let them decide on their own device." +
    (waiting.length ? ` Then: ${waiting.map(suitName).join(", ")}.` : " Last to decide.");
  $("copa-pay").textContent = `${suitName(turn.suit)} pays ${turn.copa}`;
  $("copa-fold").textContent = `${suitName(turn.suit)} folds`;
  $("copa-pay").dataset.suit = turn.suit;
  $("copa-fold").dataset.suit = turn.suit;
}

function renderSeats(r) {
  if (r.seats.length === 0) {
    fill($("seats"), el("p", { class: "empty", id: "seat-count", "data-count": "0" }, "No one is seated yet."));
    return;
  }
  const decided = decisionsOf(r);
  const stacks = r.table ? r.table.stacks : null;
  const result = r.result ? r.result.result : null;
  const ordered = [...r.seats].sort((a, b) => SUITS.indexOf(a.suit) - SUITS.indexOf(b.suit));
  const rows = ordered.map((seat) => {
    const stack = stacks ? stacks[SUITS.indexOf(seat.suit)] : null;
    let where = "seated";
    let cls = "";
    if (result && result.winner === seat.suit) { where = "won"; cls = "ok"; }
    else if (r.copa_turn && r.copa_turn.suit === seat.suit) { where = "deciding the copa"; cls = "turn"; }
    else if (decided[seat.suit] && decided[seat.suit].folded) { where = "folded"; cls = "muted"; }
    else if (decided[seat.suit]) { where = `paid the copa (${decided[seat.suit].paid} units)`; }
    else if (result) { where = "lost"; cls = "muted"; }
    else if (["copa", "in_play", "finished"].includes(r.status)) where = "in";
    return el("tr", { class: `seat ${cls}`.trim(), "data-suit": seat.suit, "data-player": seat.player },
      el("td", {}, el("span", { class: `suit-mark suit-${seat.suit}`, "aria-hidden": "true" }, suitSymbol(seat.suit)), " ", suitName(seat.suit)),
      el("td", {}, playerCell(r, seat.suit, seat.player)),
      el("td", { class: "num" }, stack ? String(stack.count) : "—"),
      el("td", { class: "seat-state" }, where));
  });
  fill($("seats"),
    el("p", { id: "seat-count", "data-count": String(r.seats.length) },
      `${r.seats.length} seated`,
      r.status === "betting" ? (r.seats.length >= 2 ? " — betting can close." : " — at least two are needed to close betting.") : "."),
    el("table", { id: "seats-table" },
      el("thead", {}, el("tr", {},
        el("th", { scope: "col" }, "Suit"), el("th", { scope: "col" }, "Player"),
        el("th", { scope: "col", class: "num" }, "Stack"), el("th", { scope: "col" }, "Now"))),
      el("tbody", {}, rows)));
}

function renderBets(r) {
  const totals = r.bet_totals || [];
  if (totals.length === 0) {
    fill($("bets"), el("p", { class: "empty", id: "bet-count", "data-count": "0" },
      r.status === "betting" ? "No side bets yet." : "No side bets on this round."));
    return;
  }
  const count = totals.reduce((n, t) => n + Number(t.bets), 0);
  const staked = money(totals.reduce((m, t) => m + cents(t.staked), 0n));
  fill($("bets"),
    el("p", { id: "bet-count", "data-count": String(count) }, `${count} side bet${count === 1 ? "" : "s"}, ${staked} staked.`),
    el("table", { id: "bets-table" },
      el("thead", {}, el("tr", {},
        el("th", { scope: "col" }, "Bet"), el("th", { scope: "col", class: "num" }, "Bets"),
        el("th", { scope: "col", class: "num" }, "Staked"))),
      el("tbody", {}, totals.map((t) => el("tr", { class: "bet-total", "data-kind": t.kind },
        el("td", {}, betName(t.kind)),
        el("td", { class: "num" }, String(t.bets)),
        el("td", { class: "num" }, t.staked))))));
}

const CONFIDENCE_STATUS = {
  offered: "open", accepted: "taken", withdrawn: "withdrawn", declined: "declined", expired: "expired",
  settled: "settled", void: "void (stakes back)", refunded: "refunded",
};

/** A confidence bet's proposition in words. */
function confidenceTerms(t) {
  switch (t.kind) {
    case "prima": return `${suitName(t.suit)} gets the first card${t.ace_voids ? " (void on its 1)" : ""}`;
    case "fuerza": return `Fuerza: ${suitName(t.suit)} wins the pot`;
    case "seguro": return `Seguro: part of ${suitName(t.suit)}'s copa for ${t.share_bp / 100}% of its winnings`;
    case "wins": return `${suitName(t.suit)} wins the pot`;
    case "first_to_complete": return `${suitName(t.suit)} completes first`;
    case "first_pass_count": return `first pass leaves ${t.min}–${t.max} cards`;
    default: return "a bet";
  }
}

/** The bets players made with each other on this round: who backs, who lays, the stakes. */
function renderConfidence(r) {
  const bets = r.confidence_bets || [];
  if (bets.length === 0) {
    fill($("confidence-bets"), el("p", { class: "empty", id: "confidence-count", "data-count": "0" },
      "No bets between players on this round."));
    return;
  }
  // A party by name: a seated player's, else "a backer" (the stream names no one else).
  const party = (p) => {
    if (!p) return "—";
    const seat = r.seats.find((s) => s.player === p.player);
    return seat ? playerCell(r, seat.suit, seat.player) : "a backer";
  };
  const holder = (b, side) => (side === b.offerer_side ? b.offered_by : b.accepted_by);
  const taken = bets.filter((b) => !["withdrawn", "declined", "expired"].includes(b.status));
  fill($("confidence-bets"),
    el("p", { id: "confidence-count", "data-count": String(taken.length) },
      `${taken.length} taken or open of ${bets.length} offered.`),
    el("table", { id: "confidence-table" },
      el("thead", {}, el("tr", {},
        el("th", { scope: "col" }, "Bet"), el("th", { scope: "col" }, "For"), el("th", { scope: "col" }, "Against"),
        el("th", { scope: "col" }, "Now"))),
      el("tbody", {}, bets.map((b) => el("tr", { class: "confidence-bet", "data-status": b.status },
        el("td", {}, confidenceTerms(b.terms)),
        el("td", {}, party(holder(b, "for")), ` ${b.for_stake}`),
        el("td", {}, party(holder(b, "against")), ` ${b.against_stake}`),
        el("td", {}, CONFIDENCE_STATUS[b.status] || b.status,
          b.status === "settled" ? ` · ${b.winner_side} won ${b.paid}` : ""))))));
}

const FUERZA_STATUS = { open: "open", won: "won", lost: "lost", refunded: "refunded (round voided)" };

/** "0.3512" → "35.1%". */
const percent = (chance) => `${(Math.round(Number(chance) * 1000) / 10).toFixed(1)}%`;

/** The house's Fuerza quote now, in one line: each priced player's chance and price. */
function fuerzaQuoteText(q) {
  if (!q.open) return "The house quotes no Fuerza now.";
  const lines = q.quotes.map((x) => `${suitName(x.suit)} ${percent(x.chance)}${x.price ? ` at ${x.price}` : " (no price)"}`);
  const undecided = (q.undecided || []).map(suitName);
  return `Prices after ${q.version} copa decision${q.version === 1 ? "" : "s"}: ${lines.join(", ")}` +
    (undecided.length ? `; ${undecided.join(", ")} still to decide.` : ".");
}

/** The bets players made with the house on a seated player (Jasper tables): who, on whom, the stake and price. */
function renderFuerza(r) {
  const bets = r.fuerza_bets || [];
  const panel = $("fuerza-panel");
  panel.hidden = (r.fuerza === null || r.fuerza === undefined) && bets.length === 0;
  if (panel.hidden) return;
  $("fuerza-quote-line").textContent = r.fuerza ? fuerzaQuoteText(r.fuerza) : "";
  if (bets.length === 0) {
    fill($("fuerza-bets"), el("p", { class: "empty", id: "fuerza-count", "data-count": "0" },
      "No Fuerza bets on this round."));
    return;
  }
  // A bettor by name: a seated player's, else the round's pseudonym for a backer.
  const bettor = (b) => {
    const seat = r.seats.find((s) => s.player === b.player);
    return seat ? playerCell(r, seat.suit, seat.player) : `a backer (${b.player})`;
  };
  const staked = bets.reduce((m, b) => m + (cents(b.stake) || 0n), 0n);
  fill($("fuerza-bets"),
    el("p", { id: "fuerza-count", "data-count": String(bets.length) },
      `${bets.length} Fuerza bet${bets.length === 1 ? "" : "s"}, ${money(staked)} staked.`),
    el("table", { id: "fuerza-table" },
      el("thead", {}, el("tr", {},
        el("th", { scope: "col" }, "Bettor"), el("th", { scope: "col" }, "On"),
        el("th", { scope: "col", class: "num" }, "Stake"), el("th", { scope: "col", class: "num" }, "Price"),
        el("th", { scope: "col" }, "Now"))),
      el("tbody", {}, bets.map((b) => el("tr", { class: "fuerza-bet", "data-status": b.status, "data-suit": b.suit },
        el("td", {}, bettor(b)),
        el("td", {}, suitLabel(b.suit)),
        el("td", { class: "num" }, b.stake),
        el("td", { class: "num" }, b.price),
        el("td", {}, FUERZA_STATUS[b.status] || b.status,
          b.status === "won" || b.status === "refunded" ? ` · ${b.returned} paid back` : ""))))));
}

function renderLayout(r) {
  const t = r.table;
  if (!t) {
    const why = {
      betting: "No cards dealt yet.",
      closed: "Betting is closed; the cards are dealt when you deal the first pass.",
      in_play: "The first pass is in the events. The repasso is dealt, and shown, when you settle.",
      finished: "The main game is decided; the cards are shown once the round is settled.",
      voided: "No cards were dealt.",
    }[r.status] || "No cards to show.";
    fill($("layout"), el("p", { class: "empty" }, why));
    return;
  }
  const seatedSuits = r.seats.map((s) => s.suit);
  const folded = t.folded || [];
  fill($("layout"),
    el("p", { id: "layout-summary" },
      `Pass ${t.pass}`,
      t.prima ? [" · Prima: ", el("strong", {}, suitLabel(t.prima))] : null,
      ` · ${t.deck_remaining} card${t.deck_remaining === 1 ? "" : "s"} left in the pass`),
    el("div", { class: "stacks" }, t.stacks.map((s) => {
      const owner = seatedSuits.includes(s.suit) ? (folded.includes(s.suit) ? "folded" : "seated") : "unowned";
      return el("div", { class: `stack ${owner}`, "data-suit": s.suit },
        el("h3", {}, suitLabel(s.suit), t.prima === s.suit ? el("span", { class: "prima-mark" }, " Prima") : null),
        el("div", { class: "cards" },
          s.foundation !== null && s.foundation !== undefined ? cardElement(s.foundation, { class: "foundation" }) : cardElement(null),
          s.top !== null && s.top !== undefined && s.top !== s.foundation ? cardElement(s.top, { class: "top" }) : null),
        el("p", { class: "stack-count" }, `${s.count} card${s.count === 1 ? "" : "s"}`, s.count === 10 ? " — complete" : ""),
        el("p", { class: "muted owner" }, owner));
    })),
    el("div", { class: "discard", id: "discard" },
      el("span", {}, `Discard pile: ${t.discard_count} card${t.discard_count === 1 ? "" : "s"}`),
      t.discard_top !== null && t.discard_top !== undefined ? [" — top ", cardElement(t.discard_top)] : null));
}

function eventText(e) {
  switch (e.type) {
    case "pass_started": return `Pass ${e.pass} starts: ${e.deck_count} cards to deal.`;
    case "reshuffled": return "The discards were reshuffled before the repasso (Jasper).";
    case "dealt": {
      const where = { foundation: `starts the ${suitName(suitOfCard(e.card))} stack`, stack: `goes onto its stack (${e.stack_count})`, discard: "goes to the discard pile" }[e.to] || e.to;
      return `${cardName(e.card)} ${where}.`;
    }
    case "prima": return `The Prima is ${suitName(e.suit)}.`;
    case "played_up": return `${cardName(e.card)} plays up from the discards (${e.stack_count}).`;
    case "suit_completed": return `${suitName(e.suit)} is complete (pass ${e.pass}).`;
    case "pass_ended": return `Pass ${e.pass} ends: ${e.promoted} promoted, ${e.discard_count} in the discards.`;
    case "corte": return `Corte: ${suitName(e.suit)} pays ${e.units} unit${e.units === 1 ? "" : "s"} to the dealers' tips.`;
    case "copa_paid": return `${suitName(e.suit)} pays the copa: ${e.units} unit${e.units === 1 ? "" : "s"}.`;
    case "folded": return `${suitName(e.suit)} folds.`;
    case "won": return `${suitName(e.suit)} wins: it ${HOW[e.how] || e.how}.`;
    case "cobre": return `Cobre: ${e.units} unit${e.units === 1 ? "" : "s"} of the folded spigas (${e.disposition}).`;
    default: return e.type;
  }
}

function renderEvents(r) {
  const events = r.events || [];
  const shown = events.slice(-12).reverse();
  const log = $("event-log");
  log.setAttribute("start", String(events.length));
  log.hidden = shown.length === 0;
  $("events-empty").hidden = shown.length > 0;
  fill(log, shown.map((e) => el("li", { "data-type": e.type }, eventText(e))));
}

function renderResult(r) {
  const stored = r.result;
  $("result-panel").hidden = false;
  if (!stored) {
    fill($("result"), el("p", {}, "The round is settled; its result is loading."));
    return;
  }
  const res = stored.result;
  const unit = r.unit;
  const playerOf = (suit) => (r.seats.find((s) => s.suit === suit) || {}).player;
  const rows = (res.contributions || []).map((c) => {
    const paidIn = c.spiga_units + c.copa_units;
    const won = c.suit === res.winner;
    return el("tr", { class: `payout ${won ? "winner" : ""}`.trim(), "data-suit": c.suit },
      el("td", {}, suitLabel(c.suit)),
      el("td", {}, playerCell(r, c.suit, playerOf(c.suit))),
      el("td", { class: "num" }, timesUnit(unit, paidIn)),
      el("td", { class: "num" }, won ? el("strong", { class: "ok" }, stored.winner_paid) : "0.00"),
      el("td", {}, won ? "won" : (res.folded || []).includes(c.suit) ? "folded" : "lost"));
  });
  const cobre = res.cobre;
  const facts = stored.facts || {};
  fill($("result"),
    el("p", { id: "result-winner", class: "winner-line", "data-suit": res.winner },
      el("strong", {}, `${suitLabel(res.winner)} wins`),
      ` (${playerName(r, res.winner, stored.winner)}): it ${HOW[res.how] || res.how}`,
      res.passes > 1 ? ` after ${res.passes} passes.` : "."),
    el("p", { id: "result-paid", class: "paid" },
      "Paid to the winner: ", el("strong", { id: "winner-paid" }, stored.winner_paid),
      ` — the pot of ${res.pot_units} unit${res.pot_units === 1 ? "" : "s"} (${timesUnit(unit, res.pot_units)})`,
      cobre ? ` less the cobre of ${timesUnit(unit, cobre.units)} (${cobre.disposition === "carry" ? "carried to the next pot" : "to the house"})` : "",
      cents(stored.carried_cobre_in || "0") > 0n ? `, plus ${stored.carried_cobre_in} of cobre carried in` : "",
      "."),
    el("table", { id: "payouts" },
      el("caption", {}, "Payouts"),
      el("thead", {}, el("tr", {},
        el("th", { scope: "col" }, "Suit"), el("th", { scope: "col" }, "Player"),
        el("th", { scope: "col", class: "num" }, "Paid in"), el("th", { scope: "col", class: "num" }, "Paid out"),
        el("th", { scope: "col" }, "Result"))),
      el("tbody", {}, rows)),
    res.corte_payer
      ? el("p", { id: "result-corte" }, `Corte: ${suitName(res.corte_payer)} paid ${timesUnit(unit, res.corte_units)} to the dealers' tips.`)
      : null,
    el("p", { id: "result-bets" },
      (r.bet_totals || []).length
        ? `Side bets: ${(r.bet_totals || []).reduce((n, t) => n + Number(t.bets), 0)} settled into the players' wallets, ` +
          `${money((r.bet_totals || []).reduce((m, t) => m + cents(t.staked), 0n))} staked. `
        : "No side bets. ",
      facts.first_card !== undefined ? ["The deal: first card ", cardElement(facts.first_card, { class: "mini" }), ", "] : null,
      facts.first_to_complete ? `first to complete ${suitName(facts.first_to_complete)}, ` : "",
      facts.first_pass_count !== undefined ? `N = ${facts.first_pass_count}.` : ""),
    el("p", { class: "muted" },
      "Server seed revealed: ", el("code", {}, r.server_seed || "—"), " · ",
      el("a", { href: `/verify?round=${encodeURIComponent(r.id)}`, id: "verify-link" }, "check this round's shuffle")));
}
