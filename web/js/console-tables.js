// Tables: the list, each named by its game as the game registry says; for
// one table its status, options (a change is a proposal), pay table with its
// certificate (installing another is a proposal), dealers, and its recent
// rounds (void a Prima Carta round before the deal, a Lobo round while it is
// in play, a Peg Leg round before its last card: console-peg-leg.js).
// The pit boss acts; the auditor reads.

import {
  ctx, isPitBoss, el, fill, get, showProblem, when, field, selectField, checkField, alertBox, statusBox,
  value, checked, amount, $, run, failed, explain, loadPeople, nameOf, knowNames, peopleList, loadTables, pct,
  proposalNotice, AMOUNT_PATTERN, rawJson,
} from "./console-common.js";
import { betName } from "./words.js";
import { suitLabel } from "./cards.js";
import { act, table as grid } from "./api.js";
import { watchTable, liveStatusText } from "./live.js";
import { games, gameName } from "./games.js";
import { pegLegConfigFields, readPegLegConfig, pegLegRounds, optionsLine as pegLegOptions } from "./console-peg-leg.js";

let panel = null;
let selectedId = null;
let watcher = null; // the live stream of the selected table
let watchedId = null;

export function render(node, what) {
  panel = node;
  fill(panel,
    el("h2", {}, "Tables"),
    el("section", { class: "panel", id: "tables-section", "aria-labelledby": "tables-title" },
      el("div", { class: "row spread" },
        el("h3", { id: "tables-title" }, "Every table"),
        el("button", { type: "button", id: "tables-refresh", class: "quiet", onclick: () => refreshAll() }, "Refresh")),
      alertBox("tables-problem"),
      el("div", { id: "tables-list" }, el("p", { class: "muted" }, "Loading the tables…"))),
    el("section", { class: "panel", id: "table-detail", "aria-labelledby": "table-detail-title", hidden: true }),
    isPitBoss() ? createTableSection() : null);
  refreshAll().then(() => { if (what && what.id) select(what.id); });
}

export function shown(what) {
  if (what && what.id) select(what.id);
}

async function refreshAll() {
  await refreshList();
  if (selectedId) await select(selectedId);
}

// ---- the list --------------------------------------------------------------------

/** Where each game's recent rounds are listed; a game not here has no rounds listed by the console. */
const ROUNDS_PATH = { prima_carta: "/rounds", lobo: "/lobo-rounds", peg_leg: "/peg-leg-rounds" };

/** The games whose tables the console creates and changes: it knows their options' fields. */
const FORMS = ["prima_carta", "lobo", "peg_leg"];

function optionsSummary(c) {
  if (c.game === "peg_leg") return pegLegOptions(c);
  if (c.game === "prima_carta") {
    return `${c.variant}, unit ${c.unit}${c.seat_fee ? ", seat fee " + c.seat_fee : ""}, corte ${c.corte ? "on" : "off"}, `
      + `cobre ${c.cobre}, side bets ${c.min_bet}–${c.max_bet} (≤ ${c.max_exposure_per_round} a round)`;
  }
  const rule = c.house_rule
    ? `, fee ${(c.house_rule.fee_per_round_hundredths / 100).toFixed(2)} u + ${(c.house_rule.ante_per_wolf_point_hundredths / 100).toFixed(2)} u/pt`
    : "";
  return `${c.mode}, unit ${c.min_unit}–${c.max_unit}, loss cap ${c.loss_cap_points} pts${rule}${c.hints ? ", hints" : ""}`
    + (c.house_rule_override ? ", OVERRIDE" : "");
}

async function refreshList() {
  const box = $("tables-list");
  const problem = $("tables-problem");
  showProblem(problem, null);
  try {
    const [list] = await Promise.all([loadTables(), loadPeople().catch(() => null)]);
    const dealing = await Promise.all(list.map((t) =>
      get(`/api/v1/tables/${encodeURIComponent(t.id)}/dealer`).catch(() => null)));
    const rows = list.map((t, i) => ({ t, now: dealing[i] && dealing[i].dealer }));
    fill(box, grid([
      ["Table", (r) => el("button", {
        type: "button", class: "link table-select", "data-table-id": r.t.id, "data-table-name": r.t.name,
        "aria-pressed": r.t.id === selectedId ? "true" : "false",
        onclick: () => select(r.t.id, { scroll: true }),
      }, r.t.name)],
      ["Game", (r) => gameName(r.t.config.game)],
      ["Status", (r) => el("span", { class: r.t.status === "open" ? "ok" : "muted" }, r.t.status)],
      ["Options", (r) => el("span", { class: "small" }, optionsSummary(r.t.config))],
      ["Dealers", (r) => r.t.dealer_ids.map(nameOf).join(", ") || "—"],
      ["Dealing now", (r) => r.now ? `${r.now.username} since ${when(r.now.since_us)}` : "nobody"],
    ], rows, { caption: `${list.length} table${list.length === 1 ? "" : "s"}`, empty: "No tables yet." }));
  } catch (e) {
    failed(problem, e);
  }
}

// ---- one table ---------------------------------------------------------------------

async function select(id, { scroll = false } = {}) {
  selectedId = id;
  for (const b of panel.querySelectorAll("button.table-select")) {
    b.setAttribute("aria-pressed", b.dataset.tableId === id ? "true" : "false");
  }
  const box = $("table-detail");
  box.hidden = false;
  box.dataset.tableId = id;
  const problem = alertBox("table-detail-problem");
  if (box.dataset.shown !== id) fill(box, el("h3", { id: "table-detail-title" }, "Loading the table…"), problem);
  try {
    const path = `/api/v1/tables/${encodeURIComponent(id)}`;
    const [t, dealer] = await Promise.all([get(path), get(path + "/dealer"), loadPeople().catch(() => null)]);
    const prima = t.config.game === "prima_carta";
    const listed = ROUNDS_PATH[t.config.game];
    const [payTable, rounds] = await Promise.all([
      prima ? get(path + "/pay-table").catch((e) => e) : null,
      listed ? get(`${path}${listed}?limit=10`).catch((e) => e) : null,
    ]);
    await knowNames(playersOf(rounds));
    const status = statusPart(t);
    fill(box,
      el("div", { class: "row spread" },
        el("h3", { id: "table-detail-title" }, t.name, " ",
          el("span", { id: "table-status-text", class: "status " + (t.status === "open" ? "live" : "") }, t.status)),
        el("div", { class: "row" }, status.button,
          el("button", { type: "button", id: "table-refresh", class: "quiet", onclick: () => select(id) }, "Refresh this table"))),
      el("p", { class: "muted small" }, `${gameName(t.config.game)} · created ${when(t.created_at_us)} · id `, el("code", {}, t.id), " ",
        el("span", { id: "table-live", role: "status", class: "status " + (watchedId === id && lastStatus ? lastStatus : "connecting") },
          liveStatusText(watchedId === id && lastStatus ? lastStatus : "connecting"))),
      problem, status.problem,
      el("div", { class: "columns detail" },
        el("div", {}, prima ? payTablePart(t, payTable) : optionsPart(t)),
        el("div", {}, dealersPart(t, dealer), roundsPart(t, rounds), prima ? optionsPart(t) : null)));
    box.dataset.status = t.status;
    box.dataset.shown = id;
    // Lobo tables are not followed: each player's rounds there would re-read the list all the time.
    if (prima || t.config.game === "peg_leg") watch(t);
    else { stopWatching(); $("table-live").remove(); }
    if (scroll) box.scrollIntoView({ block: "start" });
  } catch (e) {
    failed(problem, e);
  }
}

/** Opening or closing the table (pit boss): a button, and where its refusal shows. */
function statusPart(t) {
  const problem = alertBox("table-status-problem");
  const button = isPitBoss()
    ? el("button", {
      type: "button", id: t.status === "open" ? "table-close" : "table-open",
      class: t.status === "open" ? "danger" : "",
      onclick: () => run(button, problem, async () => {
        await act("POST", `/api/v1/tables/${encodeURIComponent(t.id)}/${t.status === "open" ? "close" : "open"}`);
        await refreshAll();
      }),
    }, t.status === "open" ? "Close the table" : "Open the table")
    : null;
  return { button, problem };
}

// ---- live: the selected table's rounds follow its events ----------------------------------

let lastStatus = null;
let pending = null;

function stopWatching() {
  if (watcher) watcher.stop();
  watcher = null;
  watchedId = null;
  lastStatus = null;
}

function watch(t) {
  if (watchedId === t.id) return;
  stopWatching();
  watchedId = t.id;
  watcher = watchTable(t.id, () => {
    // Each event may change the rounds: re-read them, at most twice a second.
    clearTimeout(pending);
    pending = setTimeout(() => refreshRounds(t), 500);
  }, (status) => {
    lastStatus = status;
    const live = $("table-live");
    if (live) {
      live.className = "status " + status;
      live.textContent = liveStatusText(status);
    }
  });
}

/** Re-reads the rounds of the selected table, keeping what was typed in the void form. */
async function refreshRounds(t) {
  const old = $("table-rounds");
  if (!old || selectedId !== t.id) return;
  try {
    const rounds = await get(`/api/v1/tables/${encodeURIComponent(t.id)}${ROUNDS_PATH[t.config.game]}?limit=10`);
    await knowNames(playersOf(rounds));
    if (!$("table-rounds") || selectedId !== t.id) return;
    const reason = $("void-reason") ? $("void-reason").value : "";
    const chosen = $("void-round") ? $("void-round").value : "";
    const focused = document.activeElement && document.activeElement.id;
    const kept = ["void-result", "void-problem"].map((id) => $(id)).filter(Boolean);
    const fresh = roundsPart(t, rounds);
    old.replaceWith(fresh);
    for (const node of kept) if ($(node.id)) $(node.id).replaceWith(node);
    if ($("void-reason")) $("void-reason").value = reason;
    if ($("void-round") && [...$("void-round").options].some((o) => o.value === chosen)) $("void-round").value = chosen;
    if (focused && $(focused)) $(focused).focus();
  } catch (_) { /* the next event tries again */ }
}

// ---- dealers -----------------------------------------------------------------------------

function dealersPart(t, now) {
  const problem = alertBox("dealers-problem");
  const path = `/api/v1/tables/${encodeURIComponent(t.id)}`;
  const inBox = now && now.dealer;
  const pit = isPitBoss();
  const signOut = pit && inBox ? el("button", {
    type: "button", id: "dealer-sign-out", class: "quiet",
    onclick: () => run(signOut, problem, async () => {
      await act("POST", path + "/dealer/sign-out", { dealer_id: inBox.dealer_id });
      await refreshAll();
    }),
  }, "Sign them out") : null;
  const assigned = el("ul", { id: "dealers-assigned", class: "plain" },
    t.dealer_ids.length === 0 ? el("li", { class: "muted" }, "No dealer is assigned.") : null,
    t.dealer_ids.map((d) => {
      const signIn = pit && t.status === "open" && !(inBox && inBox.dealer_id === d) ? el("button", {
        type: "button", class: "quiet dealer-sign-in", "data-dealer-id": d,
        onclick: () => run(signIn, problem, async () => {
          await act("POST", path + "/dealer/sign-in", { dealer_id: d });
          await refreshAll();
        }),
      }, "Sign in here") : null;
      const remove = pit ? el("button", {
        type: "button", class: "quiet dealer-remove", "data-dealer-id": d,
        onclick: () => run(remove, problem, async () => {
          await act("DELETE", `${path}/dealers/${encodeURIComponent(d)}`);
          await refreshAll();
        }),
      }, "Remove") : null;
      return el("li", { "data-dealer-id": d }, el("span", { class: "who" }, nameOf(d)), " ", signIn, remove);
    }));
  let assign = null;
  if (pit) {
    const dealers = peopleList().filter((u) => u.role === "dealer").filter((u) => u.active && !t.dealer_ids.includes(u.id));
    const button = el("button", {
      type: "button", id: "dealer-assign",
      onclick: () => run(button, problem, async () => {
        const d = value("dealer-assign-select");
        if (!d) throw { sentence: "Choose a dealer to assign." };
        await act("PUT", `${path}/dealers/${encodeURIComponent(d)}`);
        await refreshAll();
      }),
    }, "Assign");
    assign = el("div", { class: "row" },
      selectField("dealer-assign-select", "Assign a dealer",
        dealers.length ? dealers.map((u) => [u.id, `${u.username} (${u.display_name})`]) : [["", "no other dealer"]]),
      button);
  }
  return el("div", { class: "subpanel", id: "table-dealers" },
    el("h4", {}, "Dealers"),
    el("p", { id: "dealer-now" },
      inBox ? ["Dealing now: ", el("strong", {}, inBox.username), ` since ${when(inBox.since_us)}. `] : "Nobody is dealing now. ",
      signOut),
    assigned, assign, problem);
}

// ---- pay table ---------------------------------------------------------------------------

function paysOf(spec, bet) {
  if (!spec) return "";
  switch (bet.kind) {
    case "prima": case "escucha": return `${spec[bet.kind].pays}:1 (on an Ace ${spec[bet.kind].ace_pays}:1)`;
    case "maximo": return `${spec.maximo.pays}:1, a tie with one other ${spec.maximo.pair_tie === "push" ? "pushes" : "loses"}`;
    case "conto_alto": case "conto_bajo": case "conto_medio": return `${spec[bet.kind]}:1`;
    case "cartas": {
      const line = (spec.cartas || []).find((c) => c.number === bet.number);
      return line ? `${line.pays}:1` : "";
    }
    case "comeco": return (spec.comeco || [])
      .map((l) => `${l.n_from === l.n_to ? l.n_from : l.n_from + "–" + l.n_to}: ${l.pays}:1`).join(", ");
    default: return "";
  }
}

function rtpText(rtp) {
  if (!rtp) return "—";
  if (rtp.kind === "estimate") {
    return [`${pct(rtp.value)} `, el("span", { class: "muted small ci" }, `(95%: ${pct(rtp.low_95)}–${pct(rtp.high_95)})`)];
  }
  return [`${pct(rtp.value)} `, el("span", { class: "muted small" }, "exact")];
}

/** A pay table with its certificate, bet by bet. */
export function payTableView(view, id) {
  const cert = view.certificate || {};
  const bets = cert.bets || [];
  return el("div", { class: "pay-table", id, "data-pay-table-id": view.id, "data-fingerprint": view.fingerprint },
    el("p", {},
      el("strong", { class: "pay-table-name" }, `${view.name} v${view.version}`), " ",
      cert.pass ? el("span", { class: "ok" }, "✓ certified") : el("span", { class: "bad" }, "✗ not certified"),
      cert.bounds ? el("span", { class: "muted" }, ` (bounds ${pct(cert.bounds.min_rtp, 2)}–${pct(cert.bounds.max_rtp, 2)})`) : null),
    el("p", { class: "muted small" }, "Fingerprint ", el("code", {}, view.fingerprint),
      cert.n_distribution ? ` · N from ${cert.n_distribution.deals.toLocaleString()} deals, seed ${cert.n_distribution.seed}` : ""),
    grid([
      ["Bet", (b) => betName(b.kind, b.number)],
      ["Pays", (b) => paysOf(view.spec, b)],
      ["RTP", (b) => rtpText(b.rtp)],
      ["House edge", (b) => pct(b.house_edge)],
      ["σ per unit", (b) => Number(b.std_dev_per_unit).toFixed(3)],
      ["Certified", (b) => b.pass ? el("span", { class: "ok" }, "✓") : el("span", { class: "bad" }, "✗ outside the bounds")],
    ], bets, { caption: "The certificate", empty: "No certificate." }),
    rawJson("The pay table as JSON", view.spec));
}

function payTablePart(t, current) {
  const box = el("div", { class: "subpanel", id: "table-pay-table" }, el("h4", {}, "Pay table"));
  if (current instanceof Error || (current && current.sentence)) {
    box.append(el("p", { role: "alert" }, explain(current).sentence || String(current)));
  } else {
    box.append(payTableView(current, "pay-table-current"));
  }
  if (!isPitBoss()) return box;

  const problem = alertBox("pay-table-problem");
  const result = statusBox("pay-table-result");
  const stored = el("select", { id: "pay-table-stored" }, el("option", { value: "" }, "Loading the stored pay tables…"));
  let storedList = [];
  get("/api/v1/pay-tables").then((list) => {
    storedList = list;
    fill(stored, list.map((p) => el("option", { value: p.id, selected: current && p.id === current.id },
      `${p.name} v${p.version} (${p.fingerprint.slice(0, 8)})`)));
  }).catch((e) => failed(problem, e));
  const load = el("button", {
    type: "button", id: "pay-table-load", class: "quiet",
    onclick: () => {
      const p = storedList.find((x) => x.id === stored.value);
      if (p) $("pay-table-spec").value = JSON.stringify(p.spec, null, 2);
    },
  }, "Put it in the editor");
  const install = el("button", {
    type: "button", id: "pay-table-install",
    onclick: () => run(install, problem, async () => {
      fill(result);
      let spec;
      try {
        spec = JSON.parse(value("pay-table-spec"));
      } catch (e) {
        throw { sentence: "The pay table is not valid JSON: " + e.message + "." };
      }
      const proposal = await act("PUT", `/api/v1/tables/${encodeURIComponent(t.id)}/pay-table`, spec);
      fill(result, proposalNotice(proposal, `install the pay table ${spec.name} v${spec.version} at ${t.name}`));
    }),
  }, "Propose this pay table");
  box.append(
    el("h5", {}, "Install another pay table"),
    el("p", { class: "muted small" },
      "A pay table is certified when proposed (one with a bet outside the RTP bounds is refused) and installed for the rounds created after a second pit boss approves it. Format: docs/side-bets.md."),
    el("div", { class: "row" },
      el("div", { class: "field" }, el("label", { for: "pay-table-stored" }, "Start from a stored pay table"), stored),
      load),
    el("div", { class: "field wide" },
      el("label", { for: "pay-table-spec" }, "Pay table (JSON)"),
      el("textarea", { id: "pay-table-spec", rows: 14, spellcheck: "false", autocomplete: "off" },
        current && current.spec ? JSON.stringify(current.spec, null, 2) : "")),
    install, problem, result);
  return box;
}

// ---- options -------------------------------------------------------------------------------

/** The option fields of a table config, ids prefixed (`new-…` to create, `cfg-…` to change). */
export function configFields(prefix, game, c = {}) {
  if (game === "peg_leg") return pegLegConfigFields(prefix, c);
  const amountAttrs = (v, required = true) => ({ value: v || "", inputmode: "decimal", pattern: AMOUNT_PATTERN, required, autocomplete: "off" });
  if (game === "prima_carta") {
    return el("fieldset", { id: `${prefix}-prima`, class: "options" },
      el("legend", {}, `${gameName("prima_carta")} options`),
      el("div", { class: "grid" },
        selectField(`${prefix}-variant`, "Variant", [["classic", "Classic"], ["cinco", "Cinco"], ["jasper", "Jasper"]], c.variant || "classic"),
        field(`${prefix}-unit`, "Unit (a spiga; a copa per card)", amountAttrs(c.unit || "1.00")),
        field(`${prefix}-seat-fee`, "Seat fee a round (empty: none)", amountAttrs(c.seat_fee || "", false)),
        selectField(`${prefix}-cobre`, "Cobre", [["off", "Off"], ["carry", "Carried to the next pot"], ["house", "Paid to the house"]], c.cobre || "carry"),
        field(`${prefix}-min-bet`, "Smallest side bet", amountAttrs(c.min_bet || "1.00")),
        field(`${prefix}-max-bet`, "Largest side bet", amountAttrs(c.max_bet || "100.00")),
        field(`${prefix}-max-exposure`, "Most side bets one player stakes a round", amountAttrs(c.max_exposure_per_round || "500.00"))),
      checkField(`${prefix}-corte`, "Corte: the Prima suit's owner pays one unit to the dealers' tips", c.corte ?? true),
      checkField(`${prefix}-strategy-advice`, "Seated players may ask for the basic strategy's advice", c.strategy_advice ?? true));
  }
  const rule = c.house_rule || null;
  return el("fieldset", { id: `${prefix}-lobo`, class: "options" },
    el("legend", {}, `${gameName("lobo")} options`),
    el("div", { class: "grid" },
      selectField(`${prefix}-mode`, "Mode", [["hard", "Hard (ranks 1–10)"], ["ordinary", "Ordinary (no 10s)"], ["easy", "Easy (no 9s or 10s)"]], c.mode || "easy"),
      field(`${prefix}-min-unit`, "Smallest unit", amountAttrs(c.min_unit || "1.00")),
      field(`${prefix}-max-unit`, "Largest unit", amountAttrs(c.max_unit || "10.00")),
      field(`${prefix}-loss-cap`, "Loss cap (points, 1–1000)", { type: "number", min: 1, max: 1000, step: 1, value: c.loss_cap_points || 40, required: true }),
      field(`${prefix}-play-timeout`, "Seconds a round waits for a play, then folds (30–86400)", { type: "number", min: 30, max: 86400, step: 1, value: c.play_timeout_seconds || 600, required: true })),
    checkField(`${prefix}-hints`, "Players may ask for the solver's best play", c.hints ?? true),
    checkField(`${prefix}-default-rule`, "The mode's default house rule (proven to favour the house)", !rule),
    el("div", { class: "grid" },
      field(`${prefix}-fee`, "Fee a round, hundredths of a unit (500 = 5.00 units)", { type: "number", min: 0, max: 100000, step: 1, value: rule ? rule.fee_per_round_hundredths : 500 }),
      field(`${prefix}-ante`, "Ante per point of the Wolf's hand, hundredths of a unit", { type: "number", min: 0, max: 10000, step: 1, value: rule ? rule.ante_per_wolf_point_hundredths : 0 })),
    checkField(`${prefix}-override`, "Override: allow a house rule not proven to favour the house (a significant event)", c.house_rule_override));
}

export function readConfig(prefix, game) {
  if (game === "peg_leg") return readPegLegConfig(prefix);
  if (game === "prima_carta") {
    const seatFee = amount(`${prefix}-seat-fee`);
    return {
      game,
      variant: value(`${prefix}-variant`),
      unit: amount(`${prefix}-unit`),
      seat_fee: seatFee === "" ? null : seatFee,
      corte: checked(`${prefix}-corte`),
      cobre: value(`${prefix}-cobre`),
      min_bet: amount(`${prefix}-min-bet`),
      max_bet: amount(`${prefix}-max-bet`),
      max_exposure_per_round: amount(`${prefix}-max-exposure`),
      strategy_advice: checked(`${prefix}-strategy-advice`),
    };
  }
  const config = {
    game,
    mode: value(`${prefix}-mode`),
    min_unit: amount(`${prefix}-min-unit`),
    max_unit: amount(`${prefix}-max-unit`),
    loss_cap_points: Number(value(`${prefix}-loss-cap`)),
    play_timeout_seconds: Number(value(`${prefix}-play-timeout`)),
    hints: checked(`${prefix}-hints`),
    house_rule_override: checked(`${prefix}-override`),
  };
  if (!checked(`${prefix}-default-rule`)) {
    config.house_rule = {
      fee_per_round_hundredths: Number(value(`${prefix}-fee`)),
      ante_per_wolf_point_hundredths: Number(value(`${prefix}-ante`)),
    };
  }
  return config;
}

function optionsPart(t) {
  const box = el("div", { class: "subpanel", id: "table-options" }, el("h4", {}, "Options"),
    el("p", { id: "table-options-summary" }, optionsSummary(t.config)));
  if (!isPitBoss()) return box;
  const problem = alertBox("config-problem");
  const result = statusBox("config-result");
  const propose = el("button", {
    type: "submit", id: "config-propose",
  }, "Propose these options");
  const form = el("form", { id: "config-form", class: "config" },
    el("p", { class: "muted small" },
      t.status === "open"
        ? "Options change only on a closed table: close it first. A change applies when a second pit boss approves it."
        : "A change applies when a second pit boss approves it; the game cannot change."),
    configFields("cfg", t.config.game, t.config),
    propose, problem, result);
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    run(propose, problem, async () => {
      fill(result);
      const proposal = await act("PUT", `/api/v1/tables/${encodeURIComponent(t.id)}/config`, readConfig("cfg", t.config.game));
      fill(result, proposalNotice(proposal, `new options for ${t.name}`));
    });
  });
  box.append(el("details", { id: "config-details" }, el("summary", {}, "Change the options…"), form));
  return box;
}

// ---- rounds --------------------------------------------------------------------------------

/** The accounts a list of rounds names (seats, a Lobo round's player, Peg Leg bettors), for `knowNames`. */
function playersOf(rounds) {
  if (!Array.isArray(rounds)) return [];
  return rounds.flatMap((r) => [r.player_id, ...(r.seats || []).map((s) => s.player_id), ...(r.bets || []).map((b) => b.player)]);
}

function roundsPart(t, rounds) {
  const box = el("div", { class: "subpanel", id: "table-rounds" }, el("h4", {}, "Recent rounds"));
  if (rounds instanceof Error || (rounds && rounds.sentence)) {
    box.append(el("p", { class: "muted" }, explain(rounds).sentence || String(rounds)));
    return box;
  }
  if (rounds === null) {
    box.append(el("p", { class: "muted" }, `The console does not list ${gameName(t.config.game)} rounds.`));
    return box;
  }
  if (t.config.game === "lobo") return loboRounds(t, box, rounds || []);
  if (t.config.game === "peg_leg") return pegLegRounds(t, box, rounds || [], { voidForm, recallColumn });
  const list = rounds || [];
  box.append(grid([
    ["No.", (r) => el("span", { title: "Round " + r.id }, String(r.number))],
    ["Status", (r) => el("span", { class: "round-status", "data-round-id": r.id, "data-status": r.status }, r.status.replace(/_/g, " "))],
    ["Seats", (r) => (r.seats || []).map((s) => `${suitLabel(s.suit)}: ${nameOf(s.player_id)}`).join(", ") || "—"],
    ["Side bets", (r) => {
      const totals = r.bet_totals || [];
      const count = totals.reduce((n, b) => n + Number(b.bets), 0);
      return count ? el("span", { title: totals.map((b) => `${b.bets}× ${betName(b.kind)}: ${b.staked}`).join("; ") }, `${count} bet${count === 1 ? "" : "s"}`) : "—";
    }],
    recallColumn(t),
  ], list, { caption: "The last rounds, newest first", empty: "No rounds yet." }));

  box.append(voidForm(t, list.filter((r) => r.status === "betting" || r.status === "closed"), {
    note: "Only before any card is dealt: every stake is refunded. A significant event.",
    none: "No round here can be voided now: only one still taking bets, before the deal.",
    path: (id) => `/api/v1/rounds/${encodeURIComponent(id)}/void`,
    done: "every stake was refunded",
  }));
  return box;
}

/** The pit boss's form to void one of `voidable`, with the reason every game's void records (nothing for other roles). */
function voidForm(t, voidable, { note, none, path, done }) {
  if (!isPitBoss()) return "";
  const problem = alertBox("void-problem");
  const result = statusBox("void-result");
  const button = el("button", { type: "submit", id: "void-button", class: "danger" }, "Void the round");
  const form = el("form", { id: "void-form" },
    el("h5", {}, "Void a round"),
    el("p", { class: "muted small" }, note),
    el("div", { class: "row" },
      selectField("void-round", "Round", voidable.length
        ? voidable.map((r) => [r.id, `No. ${r.number} (${r.status.replace(/_/g, " ")})`])
        : [["", "no round can be voided now"]]),
      field("void-reason", "Why (recorded)", { required: true, minlength: 3, maxlength: 500, autocomplete: "off" }),
      button),
    problem, result);
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    run(button, problem, async () => {
      const id = value("void-round");
      if (!id) throw { sentence: none };
      const round = await act("POST", path(id), { reason: value("void-reason").trim() });
      await select(t.id);
      fill($("void-result"), el("p", { class: "ok" }, `Round no. ${round.number} is ${round.status}: ${done}.`));
    });
  });
  return form;
}

/** A rounds grid's last column: Recall, once a round is over, opens it in the audit tab. */
function recallColumn(t) {
  return ["", (r) => ["settled", "voided"].includes(r.status)
    ? el("button", {
      type: "button", class: "quiet round-recall", "data-round-id": r.id,
      onclick: () => ctx.goTo("audit", { recall: r.id, game: t.config.game }),
    }, "Recall")
    : null];
}

/** A Lobo table's rounds: each player's own against the house. */
function loboRounds(t, box, list) {
  box.append(grid([
    ["No.", (r) => el("span", { title: "Round " + r.id }, String(r.number))],
    ["Status", (r) => el("span", { class: "round-status", "data-round-id": r.id, "data-status": r.status }, r.status.replace(/_/g, " "))],
    ["Player", (r) => nameOf(r.player_id)],
    ["Unit", (r) => r.unit],
    ["Result", (r) => r.result
      ? `${r.result.player_won ? "player won" : "house won"} (${r.result.reason.replaceAll("_", " ")}): ${r.result.player_won ? r.result.won : r.result.lost}`
      : "—"],
    recallColumn(t),
  ], list, { caption: "The last rounds, newest first", empty: "No rounds yet." }));
  box.append(voidForm(t, list.filter((r) => r.status === "in_play"), {
    note: `Only while the player is still playing: the held loss cap and the house's charge go back to the player. A significant event. A round left without a play for ${t.config.play_timeout_seconds || 600} s is folded by itself.`,
    none: "No round here can be voided now: only one still in play.",
    path: (id) => `/api/v1/lobo-rounds/${encodeURIComponent(id)}/void`,
    done: "the loss cap held and the house's charge were returned",
  }));
  return box;
}

// ---- create ----------------------------------------------------------------------------------

function createTableSection() {
  const problem = alertBox("create-table-problem");
  const result = statusBox("create-table-result");
  // Every game the registry deals at a table of its own, that the console has the options' fields of.
  const listed = games().filter((g) => g.game === g.table_game && FORMS.includes(g.game)).map((g) => [g.game, g.name]);
  const offered = listed.length ? listed : FORMS.map((g) => [g, gameName(g)]);
  const optionsBox = el("div", { id: "new-options" }, configFields("new", offered[0][0]));
  const game = selectField("new-table-game", "Game", offered, offered[0][0]);
  game.querySelector("select").addEventListener("change", (e) => fill(optionsBox, configFields("new", e.target.value)));
  const button = el("button", { type: "submit", id: "create-table-button" }, "Create the table");
  const form = el("form", { id: "create-table" },
    el("div", { class: "row" },
      field("new-table-name", "Name", { required: true, maxlength: 64, autocomplete: "off" }),
      game),
    optionsBox,
    el("p", { class: "muted small" }, "A table is created closed. A Lobo table with the override is only proposed: a second pit boss must approve it."),
    button, problem, result);
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    run(button, problem, async () => {
      fill(result);
      const g = value("new-table-game");
      const answer = await act("POST", "/api/v1/tables", { name: value("new-table-name").trim(), config: readConfig("new", g) });
      if (answer && answer.kind && answer.status) {
        fill(result, proposalNotice(answer, `create the table ${value("new-table-name").trim()}`));
      } else {
        fill(result, el("p", { class: "ok" }, `Created ${answer.name} (closed). `,
          el("button", { type: "button", class: "quiet", onclick: () => select(answer.id, { scroll: true }) }, "Show it")));
        await refreshList();
      }
    });
  });
  return el("section", { class: "panel", id: "create-table-section", "aria-labelledby": "create-table-title" },
    el("details", {},
      el("summary", {}, el("h3", { id: "create-table-title", class: "inline" }, "Create a table")),
      form));
}
