// The player app: the wallet on top, the tables (named and described by the
// game registry, with their pays and terms), a Prima Carta table watched live,
// a Lobo round against the house, a Peg Leg round bet on card by card, the
// player's rounds — open ones to resume, settled ones to verify in the browser —
// and their own limits, time-outs and self-exclusion.

import { $, requireSession, header, el, fill, get, when } from "./api.js";
import { money } from "./money.js";
import { say, roundStatusText } from "./player-common.js";
import { startWallet } from "./player-wallet.js";
import { payTableTable } from "./player-paytable.js";
import { verifyPanel } from "./player-verify.js";
import { openPrima, closePrima } from "./player-prima.js";
import { openLobo, closeLobo } from "./player-lobo.js";
import { openPegLeg, closePegLeg } from "./player-peg-leg.js";
import { openLimits, startRealityChecks } from "./player-limits.js";
import { loadGames, gameName, gameOfTable } from "./games.js";
import { termsList as pegLegTerms } from "./peg-leg.js";
const s = requireSession(["player"]);

/** Tables by id, for names and options everywhere. */
export const tables = new Map();

const VIEWS = ["view-tables", "view-rounds", "view-limits", "view-prima", "view-lobo", "view-peg-leg"];

function show(view) {
  for (const v of VIEWS) $(v).hidden = v !== view;
  $("tab-tables").setAttribute("aria-selected", String(view !== "view-rounds" && view !== "view-limits"));
  $("tab-rounds").setAttribute("aria-selected", String(view === "view-rounds"));
  $("tab-limits").setAttribute("aria-selected", String(view === "view-limits"));
  if (view !== "view-prima") closePrima();
  if (view !== "view-lobo") closeLobo();
  if (view !== "view-peg-leg") closePegLeg();
}

/** Goes to a place of the app, remembered in the address (#tables, #rounds, #table=ID[&round=ID]). */
export function go(hash) {
  if (location.hash === "#" + hash) route();
  else location.hash = hash;
}

async function route() {
  const h = location.hash.replace(/^#/, "");
  const params = new URLSearchParams(h.includes("=") ? h : "");
  say($("page-alert"), null);
  if (params.get("table")) {
    const id = params.get("table");
    let t = tables.get(id);
    try {
      if (!t) { t = await get(`/api/v1/tables/${encodeURIComponent(id)}`); tables.set(id, t); }
    } catch (e) { say($("page-alert"), e); show("view-tables"); return; }
    if (t.config.game === "lobo") {
      show("view-lobo");
      openLobo(t, params.get("round"), go);
    } else if (t.config.game === "peg_leg") {
      show("view-peg-leg");
      openPegLeg(t);
    } else {
      show("view-prima");
      openPrima(t, go);
    }
    return;
  }
  if (h === "rounds") { show("view-rounds"); loadRounds(); return; }
  if (h === "limits") { show("view-limits"); openLimits(); return; }
  show("view-tables");
  loadTables();
}

// ---- the tables ----------------------------------------------------------------------------------

function loboTerms(c) {
  const rule = c.house_rule || { fee_per_round_hundredths: 0, ante_per_wolf_point_hundredths: 0 };
  const fee = money(BigInt(rule.fee_per_round_hundredths));
  const ante = money(BigInt(rule.ante_per_wolf_point_hundredths));
  return el("dl", { class: "terms" },
    el("dt", {}, "Mode"), el("dd", {}, c.mode),
    el("dt", {}, "Unit"), el("dd", {}, `${c.min_unit} to ${c.max_unit} per point`),
    el("dt", {}, "Fee"), el("dd", {}, `${fee} units per round` +
      (rule.ante_per_wolf_point_hundredths ? ` + ${ante} units per point of the Wolf's opening hand` : "")),
    el("dt", {}, "Loss cap"), el("dd", {}, `${c.loss_cap_points} points (held from the wallet while the round is played)`),
    el("dt", {}, "Hints"), el("dd", {}, c.hints ? "offered" : "not offered"));
}

function primaTerms(c) {
  return el("dl", { class: "terms" },
    el("dt", {}, "Variant"), el("dd", {}, c.variant),
    el("dt", {}, "Unit"), el("dd", {}, `${c.unit} (the spiga; a copa is one unit per card)`),
    el("dt", {}, "Seat fee"), el("dd", {}, c.seat_fee || "none"),
    el("dt", {}, "Side bets"), el("dd", {}, `${c.min_bet} to ${c.max_bet}, at most ${c.max_exposure_per_round} a round`),
    el("dt", {}, "Advice"), el("dd", {}, c.strategy_advice ? "basic strategy offered at the copa" : "not offered"));
}

async function loadTables() {
  try {
    const list = await get("/api/v1/tables");
    list.forEach((t) => tables.set(t.id, t));
    fill($("table-list"), list.length ? list.map(tableCard) : el("p", { class: "empty" }, "No tables yet."));
  } catch (e) {
    say($("page-alert"), e);
  }
}

/** A table's terms in words, by its game. */
function termsOf(c) {
  if (c.game === "lobo") return loboTerms(c);
  if (c.game === "peg_leg") return pegLegTerms(c);
  if (c.game === "prima_carta") return primaTerms(c);
  return null;
}

function tableCard(t) {
  const c = t.config;
  const lobo = c.game === "lobo";
  const prima = c.game === "prima_carta";
  const open = t.status === "open";
  const g = gameOfTable(t);
  const payTable = el("div", { class: "paytable-slot", "data-table-id": t.id });
  const card = el("article", { class: "panel table-card", "data-table-id": t.id, "data-table-name": t.name, "data-game": c.game },
    el("h3", {}, t.name, " ", el("span", { class: open ? "status live" : "status" }, open ? "open" : "closed")),
    el("p", { class: "muted table-game" }, el("strong", {}, gameName(c.game)), g ? `: ${g.summary.replace(/\.$/, "")}.` : ""),
    termsOf(c),
    !prima ? null : el("details", {
      class: "paytable-details", "data-table-id": t.id,
      ontoggle: (ev) => { if (ev.target.open && !payTable.dataset.loaded) loadPayTable(t, payTable); },
    }, el("summary", {}, "Pays and certified RTP"), payTable),
    el("button", {
      type: "button", class: "open-table", "data-table-id": t.id, disabled: !open,
      onclick: () => go(`table=${encodeURIComponent(t.id)}`),
    }, lobo ? `Play ${gameName(c.game)}` : "Go to the table"));
  return card;
}

async function loadPayTable(t, slot) {
  fill(slot, el("p", { class: "muted" }, "Loading the pay table…"));
  try {
    const view = await get(`/api/v1/tables/${encodeURIComponent(t.id)}/pay-table`);
    slot.dataset.loaded = "1";
    fill(slot, payTableTable(view, { id: `paytable-${t.id}` }));
  } catch (e) {
    fill(slot, el("p", { role: "alert" }, e.sentence || String(e)));
  }
}

// ---- my rounds -----------------------------------------------------------------------------------

function tableName(id) {
  const t = tables.get(id);
  return t ? t.name : id;
}

// The games this app plays; a Lobo contest is listed, not resumed or checked here.
const PLAYED_HERE = new Set(["prima_carta", "lobo", "peg_leg"]);

// Contests are not numbered: a contest is named by its game alone.
function roundName(r) {
  return r.number == null ? gameName(r.game) : `${gameName(r.game)} round ${r.number}`;
}

// Each game's own words for its statuses; the rest are Prima Carta's (settled and voided are every game's).
const STATUS_TEXT = {
  lobo: { in_play: "In play" },
  lobo_contest: { entry: "Entry open", in_play: "Three rounds being played" },
  peg_leg: { seeding: "Taking client seeds", dealing: "Cards being dealt" },
};

function statusText(r) {
  return (STATUS_TEXT[r.game] || {})[r.status] || roundStatusText(r.status);
}

async function loadRounds() {
  say($("rounds-alert"), null);
  try {
    if (tables.size === 0) (await get("/api/v1/tables")).forEach((t) => tables.set(t.id, t));
    const mine = await get("/api/v1/me/rounds");
    fill($("open-rounds"), mine.open.length ? el("ul", { class: "round-list" }, mine.open.map((r) =>
      el("li", { class: "my-round open", "data-round-id": r.round_id },
        el("span", {}, `${tableName(r.table_id)} — ${roundName(r)}: ${statusText(r)}`),
        PLAYED_HERE.has(r.game) ? el("button", {
          type: "button", class: "resume-round", "data-round-id": r.round_id,
          onclick: () => go(`table=${encodeURIComponent(r.table_id)}` + (r.game === "lobo" ? `&round=${encodeURIComponent(r.round_id)}` : "")),
        }, "Resume") : null))) : el("p", { class: "empty" }, "None: every round of yours is over."));
    fill($("recent-rounds"), mine.recent.length ? el("ul", { class: "round-list" }, mine.recent.map((r) =>
      el("li", { class: "my-round recent", "data-round-id": r.round_id },
        el("div", {}, el("strong", {}, `${tableName(r.table_id)} — ${roundName(r)}`),
          " ", el("span", { class: "muted" }, `${statusText(r)}, ${when(r.updated_at_us)}`)),
        // The browser checks a Prima Carta, Lobo or Peg Leg round's shuffle; a contest's recall is checked
        // by djego verify round and verify_round.py.
        (r.status === "settled" || r.status === "voided") && PLAYED_HERE.has(r.game) ? verifyPanel(r.game, r.round_id) : null))) :
      el("p", { class: "empty" }, "No round of yours is over yet."));
  } catch (e) {
    say($("rounds-alert"), e);
  }
}

// ---- start ---------------------------------------------------------------------------------------

if (s) {
  fill($("header-slot"), header(s, "djego"));
  $("tab-tables").addEventListener("click", () => go("tables"));
  $("tab-rounds").addEventListener("click", () => go("rounds"));
  $("tab-limits").addEventListener("click", () => go("limits"));
  $("rounds-refresh").addEventListener("click", loadRounds);
  for (const b of document.querySelectorAll(".back-to-tables")) b.addEventListener("click", () => go("tables"));
  window.addEventListener("hashchange", route);
  startWallet(s);
  startRealityChecks();
  // Games are named by the registry; without it the app still works, naming them by id.
  loadGames().catch(() => null).then(route);
}
