// Floor: a gaming day (its report, reconciliation, unfinished rounds, and
// closing it), the table, dealer and player reports for a day or a period,
// their CSV, the server's plots, and the floor's settings (calendar, pits,
// rating rule: console-floor-settings.js).

import {
  isPitBoss, el, fill, get, call, when, field, alertBox, statusBox, value, $, run, failed, showProblem,
  loadPeople, loadTables, tableName, nameOf, rawJson, downloadButton, facts, ctx,
} from "./console-common.js";
import { act, table as grid } from "./api.js";
import { settingsSection, calendarLine } from "./console-floor-settings.js";
import { gameName } from "./games.js";
import { betName } from "./words.js";

/** The games whose unfinished rounds a pit boss voids from the table's page (console-tables.js). */
const VOIDED_AT_TABLES = ["prima_carta", "lobo", "peg_leg"];

const SECTIONS = [
  { name: "day", title: "Gaming day" },
  { name: "tables", title: "Tables" },
  { name: "dealers", title: "Dealers" },
  { name: "players", title: "Players" },
  { name: "plots", title: "Plots" },
  { name: "settings", title: "Settings" },
];
let current = "day";

export function render(panel) {
  const form = el("form", { id: "floor-form", class: "row" },
    field("floor-day", "Gaming day", { type: "date", required: true }),
    el("span", { class: "muted or" }, "or a period (reports and plots):"),
    field("floor-from", "From", { type: "date" }),
    field("floor-to", "To", { type: "date" }),
    el("button", { type: "submit", id: "floor-load" }, "Show"));
  form.addEventListener("submit", (event) => { event.preventDefault(); load(); });
  fill(panel,
    el("h2", {}, "Floor"),
    el("div", { class: "floor-bar" }, form, alertBox("floor-problem"), el("p", { id: "floor-calendar", class: "muted small" })),
    el("div", { class: "subtabs", role: "group", "aria-label": "Floor reports and settings" },
      SECTIONS.map((s) => el("button", {
        type: "button", id: "floor-show-" + s.name, class: "subtab", "aria-pressed": s.name === current ? "true" : "false",
        onclick: () => showSection(s.name),
      }, s.title))),
    SECTIONS.map((s) => el("section", {
      class: "panel floor-section", id: "floor-part-" + s.name, "aria-labelledby": `floor-${s.name}-title`, hidden: s.name !== current,
    }, el("h3", { id: `floor-${s.name}-title` }, s.title))));
  Promise.all([get("/api/v1/floor/calendar"), loadPeople().catch(() => null), loadTables().catch(() => null)])
    .then(([calendar]) => {
      $("floor-day").value = calendar.now.gaming_day;
      $("floor-calendar").textContent = calendarLine(calendar);
      load();
    })
    .catch((e) => failed($("floor-problem"), e));
  settingsSection($("floor-part-settings"), {
    // The bar shows a calendar change pending; the reports follow the calendar once it takes effect.
    calendarChanged: (calendar) => {
      $("floor-calendar").textContent = calendarLine(calendar);
      if (value("floor-day")) load();
    },
  });
}

function showSection(name) {
  current = name;
  for (const s of SECTIONS) {
    $("floor-part-" + s.name).hidden = s.name !== name;
    $("floor-show-" + s.name).setAttribute("aria-pressed", s.name === name ? "true" : "false");
  }
}

function period() {
  const from = value("floor-from"), to = value("floor-to");
  const q = new URLSearchParams();
  if (from || to) { q.set("from", from); q.set("to", to); } else q.set("gaming_day", value("floor-day"));
  return q;
}

function periodName() {
  const from = value("floor-from"), to = value("floor-to");
  return from || to ? `${from}_${to}` : value("floor-day");
}

async function load() {
  showProblem($("floor-problem"), null);
  const day = value("floor-day");
  if (!day) { showProblem($("floor-problem"), { sentence: "Choose a gaming day." }); return; }
  await Promise.all([loadDay(day), loadTablesReport(), loadDealers(), loadPlayers(), loadPlots()]);
}

// ---- the gaming day ------------------------------------------------------------------------

async function loadDay(day) {
  const box = $("floor-part-day");
  const head = el("div", { class: "row spread" },
    el("h3", { id: "floor-day-title" }, `Gaming day ${day}`),
    downloadButton("floor-day-csv", "Download CSV", () => `/api/v1/floor/days/${encodeURIComponent(day)}?format=csv`, () => `djego-day-${day}.csv`));
  const problem = alertBox("floor-day-problem");
  fill(box, head, problem, el("p", { class: "muted" }, "Loading…"));
  try {
    const v = await get(`/api/v1/floor/days/${encodeURIComponent(day)}`);
    fill(box, head, problem, dayView(v));
  } catch (e) {
    fill(box, head, problem);
    failed(problem, e);
  }
}

const STATUS_TEXT = { in_progress: "in progress (before its cut-off)", ended: "ended, not closed", closed: "closed" };

function dayView(v) {
  const r = v.report || {};
  const rec = r.reconciliation || {};
  const close = v.close;
  const parts = [];
  parts.push(facts([
    ["Status", el("span", { id: "floor-day-status", class: v.status === "closed" ? "ok" : "" }, STATUS_TEXT[v.status] || v.status)],
    ["Bounds", `${when(r.from_us)} – ${when(r.to_us)} (${r.timezone || ""})`],
    close ? ["Closed", `by ${nameOf(close.closed_by)} at ${when(close.closed_at_us)}`] : null,
    close ? ["Report hash", el("code", {}, close.report_sha256)] : null,
    close ? ["Intact", close.intact
      ? el("span", { class: "ok" }, `✓ the stored report matches its hash, the close is covered by signed checkpoint ${close.checkpoint} (key ${close.checkpoint_key_id}), and the ledger gives the same report`)
      : el("div", { class: "bad" }, "✗ the closed day is not as it was closed:",
        el("ul", { id: "floor-day-problems" }, (close.problems || []).map((p) => el("li", {}, p))))] : null,
  ]));
  parts.push(el("h4", {}, "Reconciliation"), el("p", { id: "floor-reconciliation", class: rec.reconciled ? "ok" : "bad" },
    rec.reconciled ? "✓ Reconciled to the ledger" : "✗ Does not reconcile to the ledger"),
  facts([
    ["Tables' house win", rec.table_wins], ["House accounts' change", rec.house_change],
    ["Trial balance", rec.trial_balance], ["Last transfer", rec.last_seq !== undefined ? `seq ${rec.last_seq}` : "—"],
  ]));

  parts.push(el("h4", {}, "Unfinished rounds"), el("div", { id: "floor-unfinished" }, unfinished(v)));

  if (isPitBoss() && v.status !== "closed") {
    const problem = alertBox("floor-close-problem");
    const result = statusBox("floor-close-result");
    const button = el("button", {
      type: "button", id: "floor-close", class: "danger",
      onclick: () => run(button, problem, async () => {
        let closed;
        try {
          closed = await act("POST", `/api/v1/floor/days/${encodeURIComponent(v.gaming_day)}/close`, {});
        } catch (e) {
          // Refused for unfinished rounds: show them as they are now, beside the refusal.
          if (e.code === "unfinished_rounds") {
            const fresh = await get(`/api/v1/floor/days/${encodeURIComponent(v.gaming_day)}`).catch(() => null);
            if (fresh && $("floor-unfinished")) fill($("floor-unfinished"), unfinished(fresh));
          }
          throw e;
        }
        await loadDay(v.gaming_day);
        fill($("floor-close-result") || result, el("p", { class: "ok" }, `Gaming day ${closed.gaming_day} is closed; its report is frozen.`));
      }),
    }, "Close the gaming day");
    parts.push(el("div", { class: "subpanel", id: "floor-close-part" },
      el("h4", {}, "Close the day"),
      el("p", { class: "muted small" }, "Freezes the report, hashes it into the chain of events and signs it with a checkpoint; the day never reopens, and nothing can be booked into it after. Refused before the cut-off, while a round is unfinished, when the day does not reconcile, or when the minute meters disagree with its transfers."),
      button, problem, result));
  }

  parts.push(el("h4", {}, "Meters"), grid([
    ["Table", (m) => tableName(m.table_id)],
    ["Stakes in", (m) => el("span", { class: "num" }, m.stakes_in)],
    ["Payouts out", (m) => el("span", { class: "num" }, m.payouts_out)],
    ["Refunds", (m) => el("span", { class: "num" }, m.refunds)],
    ["Rounds", (m) => String(m.rounds)],
    ["Voided", (m) => String(m.voided_rounds)],
  ], r.meters || [], { empty: "Nothing moved at a table." }));
  parts.push(el("h4", {}, "Side bets settled"), grid([
    ["Bet", (b) => el("span", { "data-bet": b.bet }, betName(b.bet))], ["Bets", (b) => String(b.bets)],
    ["Staked", (b) => el("span", { class: "num" }, b.staked)], ["Returned", (b) => el("span", { class: "num" }, b.returned)],
    ["House win", (b) => el("span", { class: "num" }, b.house_win)], ["Theoretical win", (b) => el("span", { class: "num" }, b.theo_win)],
  ], r.bets || [], { empty: "No side bet settled." }));
  parts.push(el("h4", {}, "Corrections"), corrections(r.corrections || [], "No correction that day."));
  parts.push(el("h4", {}, "Later corrections naming this day"), corrections(v.later_corrections || [], "None."));
  parts.push(rawJson("The day as JSON", v, "floor-day-raw"));
  return el("div", { id: "floor-day-view", "data-status": v.status }, parts);
}

/** The day's unfinished rounds, each with a way to its table (where a pit boss voids one). */
function unfinished(v) {
  return grid([
    ["Table", (u) => tableName(u.table_id)],
    ["Game", (u) => gameName(u.game)],
    ["Status", (u) => String(u.status).replace(/_/g, " ")],
    ["Started", (u) => when(u.created_at_us)],
    ["Round id", (u) => el("code", {}, u.round_id)],
    ["", (u) => VOIDED_AT_TABLES.includes(u.game) ? el("button", {
      type: "button", class: "quiet unfinished-table", "data-round-id": u.round_id,
      onclick: () => ctx.goTo("tables", { id: u.table_id }),
    }, "Go to its table") : null],
  ], v.unfinished_rounds || [], { empty: v.status === "closed" ? "None: the day is closed." : "None: every round of the day has ended." });
}

function corrections(list, empty) {
  return grid([
    ["When", (c) => when(c.at_us)],
    ["Player", (c) => nameOf(c.player_id)],
    ["Direction", (c) => c.direction],
    ["Amount", (c) => el("span", { class: "num" }, c.amount)],
    ["Reason", (c) => c.reason],
    ["Corrects", (c) => c.corrects_gaming_day || "—"],
  ], list, { empty });
}

// ---- reports -------------------------------------------------------------------------------

function reportHead(name, path) {
  return el("div", { class: "row spread" },
    el("h3", { id: `floor-${name}-title` }, SECTIONS.find((s) => s.name === name).title),
    downloadButton(`floor-${name}-csv`, "Download CSV",
      () => `${path}?${new URLSearchParams([...period(), ["format", "csv"]])}`, () => `djego-${name}-${periodName()}.csv`));
}

async function report(name, path, draw) {
  const box = $("floor-part-" + name);
  const head = reportHead(name, path);
  const problem = alertBox(`floor-${name}-problem`);
  fill(box, head, problem, el("p", { class: "muted" }, "Loading…"));
  try {
    const r = await get(`${path}?${period()}`);
    fill(box, head, problem, el("p", { class: "muted small" },
      r.gaming_day === r.last_gaming_day ? `Gaming day ${r.gaming_day} (${r.timezone}).` : `Gaming days ${r.gaming_day} to ${r.last_gaming_day} (${r.timezone}).`),
    draw(r));
  } catch (e) {
    fill(box, head, problem);
    failed(problem, e);
  }
}

function flag(line) {
  return line.outside_band ? el("span", { class: "bad" }, "outside") : el("span", { class: "ok" }, "within");
}

const num = (s) => el("span", { class: "num" }, s ?? "—");

function loadTablesReport() {
  return report("tables", "/api/v1/floor/tables", (r) => grid([
    ["Table", (l) => l.table_id ? l.table_name || tableName(l.table_id) : l.pit ? `Pit ${l.pit}` : el("strong", {}, "Floor")],
    ["Shift", (l) => l.shift || el("strong", {}, "whole")],
    ["Rounds", (l) => `${l.rounds}${l.voided_rounds ? ` (+${l.voided_rounds} void)` : ""}`],
    ["Open h", (l) => num(l.open_hours)],
    ["Rounds/h", (l) => num(l.rounds_per_hour)],
    ["Drop", (l) => num(l.drop)],
    ["House win", (l) => num(l.house_win)],
    ["Hold %", (l) => num(l.hold_percent)],
    ["Theo win", (l) => num(l.theo_win)],
    ["Actual − theo", (l) => num(l.actual_minus_theo)],
    ["± 99%", (l) => num(l.band_99)],
    ["Band", flag],
  ], r.lines, { empty: "No table was open or active." }));
}

function loadDealers() {
  return report("dealers", "/api/v1/floor/dealers", (r) => grid([
    ["Dealer", (l) => l.username || nameOf(l.dealer_id)],
    ["Pit", (l) => l.pit ? `In ${l.pit}` : "—"],
    ["Shift", (l) => l.shift || el("strong", {}, "whole")],
    ["Rounds", (l) => String(l.rounds)],
    ["Hours dealt", (l) => num(l.hours_dealt)],
    ["Rounds/h", (l) => num(l.rounds_per_hour)],
    ["Drop", (l) => num(l.drop)],
    ["House win", (l) => num(l.house_win)],
    ["Hold %", (l) => num(l.hold_percent)],
    ["Theo win", (l) => num(l.theo_win)],
    ["Actual − theo", (l) => num(l.actual_minus_theo)],
    ["± 99%", (l) => num(l.band_99)],
    ["Band", flag],
  ], r.lines, { empty: "No dealer dealt." }));
}

function duration(s) {
  const h = Math.floor(s / 3600), m = Math.floor((s % 3600) / 60);
  return h ? `${h} h ${m} min` : `${m} min`;
}

function loadPlayers() {
  return report("players", "/api/v1/floor/players", (r) => el("div", {},
    el("p", { class: "muted small" }, `Sessions end after a pause of ${r.rule.session_gap_minutes} minutes; ${r.rule.points_per_theo_unit} point per unit of theoretical loss.`),
    grid([
      ["Day", (s) => s.gaming_day],
      ["Player", (s) => s.username || nameOf(s.player_id)],
      ["Table", (s) => s.table_name || tableName(s.table_id)],
      ["From", (s) => when(s.started_at_us)],
      ["Played", (s) => duration(s.seconds_played)],
      ["Rounds", (s) => String(s.rounds)],
      ["Staked", (s) => num(s.staked)],
      ["Average bet", (s) => num(s.average_bet)],
      ["Result", (s) => num(s.actual_result)],
      ["Theo loss", (s) => num(s.theo_loss)],
      ["Points", (s) => String(s.points)],
    ], r.sessions, { empty: "No player sessions." })));
}

// ---- plots ------------------------------------------------------------------------------------

const PLOTS = [
  ["hold", "Hold % per table and day"],
  ["actual-minus-theo", "Side bets: actual − theoretical win, with its 99% band"],
  ["rounds-per-hour", "Rounds per hour per table and day"],
];

async function loadPlots() {
  const box = $("floor-part-plots");
  const problem = alertBox("floor-plots-problem");
  const figures = PLOTS.map(([name, caption]) => el("figure", { class: "plot-figure", id: `floor-plot-${name}` },
    el("figcaption", {}, caption), el("p", { class: "muted" }, "Loading…")));
  fill(box, el("h3", { id: "floor-plots-title", class: "visually-hidden" }, "Plots"), problem, el("div", { class: "plots" }, figures));
  await Promise.all(PLOTS.map(async ([name, caption], i) => {
    try {
      const text = await call("GET", `/api/v1/floor/plots/${name}?${period()}`, undefined, { accept: "image/svg+xml" });
      // The page's policy allows images from data: URLs only (no blob:): the SVG becomes one.
      const src = "data:image/svg+xml;charset=utf-8," + encodeURIComponent(typeof text === "string" ? text : String(text));
      fill(figures[i], el("figcaption", {}, caption), el("img", { src, alt: caption, class: "plot-img", "data-figure": name }));
    } catch (e) {
      fill(figures[i], el("figcaption", {}, caption));
      failed(problem, e);
    }
  }));
}

export function shown() {}
