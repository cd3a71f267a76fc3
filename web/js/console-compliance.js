// Compliance (auditor; docs/compliance.md): the structuring alerts the cage's
// cash raised, each dismissed or escalated with a note, and the
// suspicious-activity records escalations made; the currency transaction
// reports, each read whole (identity, totals, transactions, what a filing
// lacks) and marked filed once filed with the authority, and a day's reports
// exported; the multiple-transaction log of a gaming day, and its CSV; and the
// external exclusion lists (console-exclusion-lists.js), the one section the
// pit boss sees here.
// People are named, patterns and directions said in words; ids never shown.
// Reading the log or a report opens patrons' identities, and djego records
// every such reading: the log is read when asked for, not on arrival.

import {
  el, fill, get, when, field, selectField, alertBox, statusBox, value, $, run, failed, showProblem,
  loadPeople, nameOf, knowNames, downloadButton, facts, person, ctx,
} from "./console-common.js";
import { exclusionListsSection, loadExclusionLists } from "./console-exclusion-lists.js";
import { act, ApiProblem, capitalise, table as grid } from "./api.js";
import {
  directionName, patternName, alertStatusName, documentTypeName, missingName, listWords,
} from "./words.js";

/** The sections, and the roles each is for (the API decides anyway). */
const ALL_SECTIONS = [
  { name: "alerts", title: "Alerts", roles: ["auditor"], draw: alertsSection },
  { name: "reports", title: "Reports", roles: ["auditor"], draw: reportsSection },
  { name: "log", title: "Cash log", roles: ["auditor"], draw: logSection },
  { name: "exclusions", title: "Exclusion lists", roles: ["auditor", "pitboss"], draw: exclusionListsSection },
];

/** The sections of the role signed in (set on render). */
let SECTIONS = [];

/** The compliance rules in force (thresholds for the sentences), once read. */
let rules = null;
/** The present gaming day, "YYYY-MM-DD". */
let today = "";
/** Whether the day and the rules were asked for (the sections wait for them). */
let ready = false;
/** Sections loaded once shown. */
const loaded = new Set();

export function render(panel, what) {
  SECTIONS = ALL_SECTIONS.filter((s) => s.roles.includes(ctx.role));
  fill(panel,
    el("h2", {}, "Compliance"),
    // One section alone needs no buttons to choose it.
    SECTIONS.length > 1 ? el("div", { class: "subtabs", role: "group", "aria-label": "Compliance sections" },
      SECTIONS.map((s) => el("button", {
        type: "button", id: "compliance-show-" + s.name, class: "subtab", "aria-pressed": "false",
        onclick: () => showSection(s.name),
      }, s.title))) : null,
    alertBox("compliance-problem"),
    SECTIONS.map((s) => el("section", {
      class: "panel compliance-section", id: "compliance-" + s.name, "aria-labelledby": `compliance-${s.name}-title`, hidden: true,
    })));
  for (const s of SECTIONS) s.draw($("compliance-" + s.name));
  showSection(SECTIONS[0].name);
  const auditing = SECTIONS.some((s) => s.name === "log");
  Promise.all([
    auditing ? get("/api/v1/floor/calendar").then((c) => { today = c.now.gaming_day; }) : null,
    auditing ? get("/api/v1/compliance/rules").then((r) => { rules = r; }) : null,
    loadPeople().catch(() => null),
  ]).catch((e) => failed($("compliance-problem"), e)).then(() => {
    ready = true;
    for (const id of ["cash-log-day", "reports-export-day"]) if ($(id) && !$(id).value) $(id).value = today;
    explainThresholds();
    shown(what);
  });
}

export function shown(what) {
  if (what && what.report && SECTIONS.some((s) => s.name === "reports")) {
    showSection("reports");
    openReport(what.report);
    return;
  }
  const visible = SECTIONS.find((s) => !$("compliance-" + s.name).hidden);
  showSection(visible ? visible.name : SECTIONS[0].name);
}

function showSection(name) {
  for (const s of SECTIONS) {
    $("compliance-" + s.name).hidden = s.name !== name;
    const button = $("compliance-show-" + s.name);
    if (button) button.setAttribute("aria-pressed", s.name === name ? "true" : "false");
  }
  // Each section loads the first time it is shown, once the day and the rules are known.
  if (!ready || loaded.has(name)) return;
  loaded.add(name);
  if (name === "alerts") { loadAlerts(); loadSuspicious(); }
  if (name === "reports") loadReports();
  if (name === "log") loadLog();
  if (name === "exclusions") loadExclusionLists();
}

/** The rules' numbers in the sections' explanations. */
function explainThresholds() {
  if (!rules || !$("cash-log-explained")) return;
  $("cash-log-explained").textContent = `Every deposit and withdrawal of ${rules.log_threshold} or more in a gaming day, `
    + "with when, who handled it and where. Showing it reads the identities on file of the patrons it names, and each reading is recorded.";
  $("reports-explained").textContent = `A patron whose deposits, or whose withdrawals, add up to more than ${rules.report_threshold} `
    + "in a gaming day gets a report for that day. djego files nothing itself: file the report with the authority, then mark it filed "
    + "here, and it is kept as filed.";
}

/** A person from the roster entry an answer carries: "Bruno Costa (bruno)", or the username alone. */
function personName(r) {
  if (!r) return "—";
  const known = person(r.id);
  const display = r.display_name || (known && known.display_name);
  return display && display !== r.username ? `${display} (${r.username})` : r.username;
}

/** A day field's value, or a sentence asking for one. */
function dayOf(id) {
  const day = value(id);
  if (!day) throw { sentence: "Choose a gaming day." };
  return day;
}

// ---- the multiple-transaction log ------------------------------------------------------------------

function logSection(box) {
  const problem = alertBox("cash-log-problem");
  const button = el("button", { type: "submit", id: "cash-log-load" }, "Show");
  const form = el("form", { id: "cash-log-form", class: "row" },
    field("cash-log-day", "Gaming day", { type: "date", required: true }),
    button,
    downloadButton("cash-log-csv", "Download CSV",
      () => `/api/v1/compliance/cash-log?gaming_day=${encodeURIComponent(dayOf("cash-log-day"))}&format=csv`,
      () => `djego-cash-log-${value("cash-log-day")}.csv`));
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    run(button, problem, () => drawLog(dayOf("cash-log-day")));
  });
  fill(box,
    el("h3", { id: "compliance-log-title" }, "Multiple-transaction log"),
    el("p", { id: "cash-log-explained", class: "muted small" }),
    form, problem,
    el("div", { id: "cash-log-list" }));
}

async function loadLog() {
  const day = value("cash-log-day") || today;
  if (!day) return;
  $("cash-log-day").value = day;
  try {
    await drawLog(day);
  } catch (e) {
    failed($("cash-log-problem"), e);
  }
}

async function drawLog(day) {
  fill($("cash-log-list"), el("p", { class: "muted" }, "Loading the log…"));
  const lines = await get(`/api/v1/compliance/cash-log?gaming_day=${encodeURIComponent(day)}`);
  const threshold = rules ? `of ${rules.log_threshold} or more ` : "";
  fill($("cash-log-list"), grid([
    ["Time", (l) => el("span", { class: "small" }, when(l.at_us))],
    ["Patron", (l) => personName(l.patron)],
    ["Name on file", (l) => l.patron_name || el("span", { class: "muted" }, "none on file")],
    ["Direction", (l) => el("span", { "data-direction": l.direction }, directionName(l.direction))],
    ["Amount", (l) => el("span", { class: "num" }, l.amount)],
    ["Cashier", (l) => personName(l.cashier)],
    ["Location", (l) => l.location || el("span", { class: "muted" }, "not given")],
  ], lines, {
    caption: `Gaming day ${day}: ${lines.length} ${lines.length === 1 ? "transaction" : "transactions"}, oldest first`,
    empty: `No deposit or withdrawal ${threshold}on gaming day ${day}.`,
  }));
  $("cash-log-list").dataset.count = String(lines.length);
}

// ---- currency transaction reports ------------------------------------------------------------------

function reportsSection(box) {
  const problem = alertBox("reports-problem");
  const button = el("button", { type: "submit", id: "reports-load" }, "Show");
  const form = el("form", { id: "reports-filter", class: "row" },
    field("reports-day", "Gaming day (optional)", { type: "date" }),
    selectField("reports-filed", "Which", [["", "Every report"], ["false", "Not filed yet"], ["true", "Filed"]], ""),
    button);
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    run(button, problem, drawReports);
  });
  fill(box,
    el("h3", { id: "compliance-reports-title" }, "Currency transaction reports"),
    el("p", { id: "reports-explained", class: "muted small" }),
    form, problem,
    el("div", { id: "reports-list" }, el("p", { class: "muted" }, "Loading the reports…")),
    el("div", { id: "report-view" }),
    el("h4", {}, "Export a gaming day's reports"),
    el("p", { class: "muted small" }, "Every report of the day, whole, identities included (each reading is recorded)."),
    el("div", { class: "row" },
      field("reports-export-day", "Gaming day", { type: "date", required: true }),
      downloadButton("reports-export-csv", "Download CSV",
        () => `/api/v1/compliance/reports/export?gaming_day=${encodeURIComponent(dayOf("reports-export-day"))}&format=csv`,
        () => `djego-reports-${value("reports-export-day")}.csv`),
      downloadButton("reports-export-json", "Download JSON",
        () => `/api/v1/compliance/reports/export?gaming_day=${encodeURIComponent(dayOf("reports-export-day"))}&format=json`,
        () => `djego-reports-${value("reports-export-day")}.json`, "application/json")));
}

async function loadReports() {
  try {
    await drawReports();
  } catch (e) {
    failed($("reports-problem"), e);
  }
}

function filingWords(f) {
  if (!f) return "not filed yet";
  return `filed by ${nameOf(f.filed_by)} at ${when(f.filed_at_us)}${f.reference ? `, reference ${f.reference}` : ""}`;
}

async function drawReports() {
  const q = new URLSearchParams({ limit: "200" });
  if (value("reports-day")) q.set("gaming_day", value("reports-day"));
  if (value("reports-filed")) q.set("filed", value("reports-filed"));
  const list = await get("/api/v1/compliance/reports?" + q);
  await knowNames(list.map((r) => r.filing && r.filing.filed_by));
  fill($("reports-list"), list.length === 0
    ? el("p", { class: "empty" }, "No report matches.")
    : el("table", { id: "reports-table" },
      el("caption", {}, "Newest gaming day first"),
      el("thead", {}, el("tr", {}, ["Gaming day", "Patron", "Cash in", "Cash out", "Filing", ""].map((h, i) =>
        el("th", { scope: "col", class: i === 2 || i === 3 ? "num" : "" }, h)))),
      el("tbody", {}, list.map((r) => el("tr", { class: "report-row", "data-patron": r.patron.username, "data-filed": r.filing ? "true" : "false" },
        el("td", {}, r.gaming_day),
        el("td", {}, personName(r.patron)),
        el("td", { class: "num" }, r.cash_in_total),
        el("td", { class: "num" }, r.cash_out_total),
        el("td", { class: r.filing ? "ok" : "" }, capitalise(filingWords(r.filing)).replace(/\.$/, "")),
        el("td", {}, el("button", {
          type: "button", class: "quiet report-open", "data-patron": r.patron.username,
          "aria-label": `Open the report of ${r.patron.username} for gaming day ${r.gaming_day}`,
          onclick: (event) => openReport(r.id, event.currentTarget),
        }, "Open")))))));
}

async function openReport(id, button) {
  const box = $("report-view");
  const problem = $("reports-problem");
  const work = async () => {
    fill(box, el("p", { class: "muted" }, "Loading the report…"));
    const doc = await get(`/api/v1/compliance/reports/${encodeURIComponent(id)}`);
    await drawReport(doc);
    box.scrollIntoView({ block: "start" });
  };
  if (button) return run(button, problem, work);
  try { await work(); } catch (e) { fill(box); failed(problem, e); }
}

function yesNo(over) {
  return over ? el("span", { class: "bad" }, "yes: over the threshold") : "no";
}

/** Where what a filing lacks is set, after its words. */
const MISSING_HOW = {
  identity: "a cashier records it at the cage",
  casino_name: "set in the cash-compliance rules (a pit boss proposes them, a second approves)",
  casino_address: "set in the cash-compliance rules",
  casino_tax_id: "set in the cash-compliance rules",
};

async function drawReport(doc) {
  const box = $("report-view");
  const filed = !!doc.filing;
  await knowNames([doc.player_id, doc.filing && doc.filing.filed_by]);
  const patron = person(doc.player_id);
  const patronName = patron && patron.display_name && patron.display_name !== doc.patron
    ? `${patron.display_name} (${doc.patron})` : doc.patron;
  const i = doc.identity;
  const notSet = el("span", { class: "bad" }, "not set");
  const transactions = [
    ...(doc.cash_in.transactions || []).map((t) => ({ ...t, direction: "deposit" })),
    ...(doc.cash_out.transactions || []).map((t) => ({ ...t, direction: "withdrawal" })),
  ].sort((a, b) => a.at_us - b.at_us);
  const missing = doc.missing || [];

  const problem = alertBox("report-file-problem");
  const result = statusBox("report-file-result");
  let filing = null;
  if (!filed) {
    const fileButton = el("button", { type: "submit", id: "report-file" }, "Mark filed");
    filing = el("form", { id: "report-file-form", class: "row" },
      field("report-reference", "Filing reference (optional, as the authority gave it)", { maxlength: 100, autocomplete: "off" }),
      fileButton);
    filing.addEventListener("submit", (event) => {
      event.preventDefault();
      run(fileButton, problem, async () => {
        const reference = value("report-reference").trim();
        let after;
        try {
          after = await act("POST", `/api/v1/compliance/reports/${encodeURIComponent(doc.id)}/filing`, { reference: reference || null });
        } catch (e) {
          throw filingRefusal(e, doc);
        }
        await drawReport(after);
        fill($("report-file-result"), el("p", { class: "ok" }, `Marked filed: the report of ${doc.patron} for gaming day ${doc.gaming_day} is kept as filed.`));
        drawReports().catch((e) => failed($("reports-problem"), e));
      });
    });
  }

  fill(box, el("article", { class: "report card-box", id: "report-document", "data-filed": filed ? "true" : "false", "data-patron": doc.patron },
    el("h4", {}, `Currency transaction report: ${patronName}, gaming day ${doc.gaming_day}`),
    el("p", { id: "report-status", class: filed ? "ok" : "" },
      filed ? capitalise(filingWords(doc.filing)) : "Not filed yet: it reads as the day's cash stands now, until it is marked filed."),
    facts([
      ["Gaming day", `${doc.gaming_day}, from ${when(doc.day_from_us)} until ${when(doc.day_to_us)}`],
      ["Casino", doc.casino.name || notSet],
      ["Casino's address", doc.casino.address || notSet.cloneNode(true)],
      ["Casino's tax number", doc.casino.tax_id || notSet.cloneNode(true)],
      ["Patron", patronName],
      ["Report threshold", `more than ${doc.report_threshold} in a gaming day`],
    ], { id: "report-facts" }),
    el("h5", {}, "Identity"),
    i ? facts([
      ["Full name", i.full_name],
      ["Date of birth", i.date_of_birth],
      ["Address", i.address],
      ["Document", `${documentTypeName(i.document_type)} ${i.document_number}, issued by ${i.document_issuer}`],
      ["Occupation", i.occupation || "not given"],
    ], { id: "report-identity" }) : el("p", { id: "report-identity", class: "bad" }, "No identity on file."),
    el("h5", {}, "Totals"),
    el("table", { id: "report-totals" },
      el("thead", {}, el("tr", {}, ["", "Total", "Over the threshold"].map((h, n) => el("th", { scope: "col", class: n === 1 ? "num" : "" }, h)))),
      el("tbody", {},
        el("tr", {}, el("th", { scope: "row" }, "Cash in (deposits)"), el("td", { class: "num" }, doc.cash_in.total), el("td", {}, yesNo(doc.cash_in.over_threshold))),
        el("tr", {}, el("th", { scope: "row" }, "Cash out (withdrawals)"), el("td", { class: "num" }, doc.cash_out.total), el("td", {}, yesNo(doc.cash_out.over_threshold))))),
    el("h5", {}, "Transactions"),
    el("div", { id: "report-transactions" }, grid([
      ["Time", (t) => el("span", { class: "small" }, when(t.at_us))],
      ["Direction", (t) => directionName(t.direction)],
      ["Amount", (t) => el("span", { class: "num" }, t.amount)],
      ["Cashier", (t) => t.cashier],
      ["Location", (t) => t.location || el("span", { class: "muted" }, "not given")],
    ], transactions, { empty: "No transactions." })),
    el("h5", {}, "What a filing needs"),
    missing.length === 0
      ? el("p", { id: "report-missing", class: "ok" }, "Nothing is missing.")
      : el("div", { id: "report-missing" },
        el("p", { class: "bad" }, `It cannot be marked filed until it has ${listWords(missing.map(missingName))}:`),
        el("ul", {}, missing.map((m) => el("li", { "data-missing": m }, capitalise(missingName(m)).replace(/\.$/, ""),
          MISSING_HOW[m] ? el("span", { class: "muted" }, `: ${MISSING_HOW[m]}`) : null)))),
    filing, problem, result));
}

/** A refused filing in words. */
function filingRefusal(e, doc) {
  if (!(e instanceof ApiProblem)) return e;
  const said = (sentence) => ({ sentence, code: e.code, status: e.status });
  switch (e.code) {
    case "gaming_day_not_over":
      return said(`Not marked filed: a report covers the whole of gaming day ${doc.gaming_day}, so it is filed once that day is over `
        + `(after ${when(doc.day_to_us)}).`);
    case "report_incomplete": {
      const missing = (e.details && e.details.missing) || doc.missing || [];
      return said(`Not marked filed: the report lacks ${listWords(missing.map(missingName)) || "a field a filing needs"}.`);
    }
    case "report_filed":
      return said("This report was already marked filed.");
    case "invalid_reference":
      return said("Not marked filed: a reference is 1 to 100 characters, with no line breaks or control characters.");
    default:
      return e;
  }
}

// ---- structuring alerts and suspicious activity ------------------------------------------------------

function alertsSection(box) {
  const problem = alertBox("alerts-problem");
  const button = el("button", { type: "submit", id: "alerts-load" }, "Show");
  const form = el("form", { id: "alerts-filter", class: "row" },
    selectField("alerts-status", "Show", [["open", "Open alerts"], ["escalated", "Escalated"], ["dismissed", "Dismissed"], ["", "Every alert"]], "open"),
    button);
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    run(button, problem, drawAlerts);
  });
  fill(box,
    el("h3", { id: "compliance-alerts-title" }, "Structuring alerts"),
    el("p", { class: "muted small" },
      "Raised as the cage's cash comes in and goes out. Review each: dismiss it, or escalate it to a suspicious-activity record, "
      + "with a note saying why. Neither the patron nor the cage is ever told."),
    form, problem,
    statusBox("alerts-result"),
    el("div", { id: "alerts-list" }, el("p", { class: "muted" }, "Loading the alerts…")),
    el("h4", {}, "Suspicious-activity records"),
    el("p", { class: "muted small" }, "Made by escalating an alert, the note as its narrative; only auditors see them."),
    alertBox("suspicious-problem"),
    el("div", { id: "suspicious-list" }, el("p", { class: "muted" }, "Loading the records…")));
}

async function loadAlerts() {
  try {
    await drawAlerts();
  } catch (e) {
    failed($("alerts-problem"), e);
  }
}

async function drawAlerts() {
  const q = new URLSearchParams({ limit: "200" });
  const status = value("alerts-status");
  if (status) q.set("status", status);
  const list = await get("/api/v1/compliance/alerts?" + q);
  await knowNames(list.flatMap((a) => [a.reviewed_by, ...((a.evidence && a.evidence.transactions) || []).map((t) => t.cashier_id)]));
  const box = $("alerts-list");
  box.dataset.count = String(list.length);
  const which = { open: "open alert", escalated: "escalated alert", dismissed: "dismissed alert", "": "alert" }[status] || "alert";
  fill(box, list.length === 0
    ? el("p", { class: "empty", id: "alerts-empty" }, `No ${which}.`)
    : list.map(alertView));
}

function alertView(a) {
  const evidence = a.evidence || {};
  const noteId = "alert-note-" + a.id;
  const problem = el("p", { role: "alert", class: "alert-problem", hidden: true });
  const review = (decision, button) => run(button, problem, async () => {
    const note = value(noteId).trim();
    if (!note) throw { sentence: `Write a note saying why before you ${decision === "escalate" ? "escalate" : "dismiss"} this alert.` };
    let outcome;
    try {
      outcome = await act("POST", `/api/v1/compliance/alerts/${encodeURIComponent(a.id)}/review`, { decision, note });
    } catch (e) {
      if (e instanceof ApiProblem && e.code === "alert_reviewed") throw { sentence: "This alert was already reviewed.", code: e.code };
      if (e instanceof ApiProblem && e.code === "invalid_review") throw { sentence: "Write a note saying why, in at most 2000 characters.", code: e.code };
      throw e;
    }
    fill($("alerts-result"), el("p", { class: "ok" }, outcome.status === "escalated"
      ? `Escalated: a suspicious-activity record about ${a.patron.username} was made, with your note as its narrative.`
      : `Dismissed: the alert about ${a.patron.username} is closed with your note.`));
    await Promise.all([drawAlerts(), drawSuspicious()]);
  });
  const open = a.status === "open";
  let form = null;
  if (open) {
    const dismiss = el("button", { type: "button", class: "quiet alert-dismiss", onclick: () => review("dismiss", dismiss) }, "Dismiss");
    const escalate = el("button", { type: "button", class: "danger alert-escalate", onclick: () => review("escalate", escalate) }, "Escalate");
    form = el("div", { class: "alert-review" },
      el("div", { class: "field wide" },
        el("label", { for: noteId }, "Note (required): why you dismiss or escalate it"),
        el("textarea", { id: noteId, class: "alert-note", rows: 2, maxlength: 2000 })),
      el("div", { class: "row" }, dismiss, escalate),
      problem);
  }
  return el("article", {
    class: "alert-item card-box", "data-pattern": a.pattern, "data-status": a.status, "data-patron": a.patron.username,
  },
  el("h4", {}, `${patternName(a.pattern)}: ${personName(a.patron)}`),
  el("p", { class: "muted small" }, `Raised ${when(a.raised_at_us)}, gaming day ${a.gaming_day}. `, alertStatusName(a.status),
    a.reviewed_by ? ` by ${nameOf(a.reviewed_by)} at ${when(a.reviewed_at_us)}` : "", "."),
  a.review_note ? el("p", {}, el("strong", {}, "Note: "), a.review_note) : null,
  el("p", { class: "alert-summary" }, capitalise(evidence.summary || "")),
  grid([
    ["Time", (t) => el("span", { class: "small" }, when(t.at_us))],
    ["Direction", (t) => directionName(t.direction)],
    ["Amount", (t) => el("span", { class: "num" }, t.amount_minor)],
    ["Cashier", (t) => nameOf(t.cashier_id)],
    ["Location", (t) => t.location || el("span", { class: "muted" }, "not given")],
    ["Outcome", (t) => t.transfer_id ? "made" : el("span", { class: "bad" }, "refused: identity not on file")],
  ], evidence.transactions || [], { caption: "The transactions", empty: "No transactions." }),
  form);
}

async function loadSuspicious() {
  try {
    await drawSuspicious();
  } catch (e) {
    failed($("suspicious-problem"), e);
  }
}

async function drawSuspicious() {
  const [records, escalated] = await Promise.all([
    get("/api/v1/compliance/suspicious-activity?limit=200"),
    get("/api/v1/compliance/alerts?status=escalated&limit=500").catch(() => []),
  ]);
  const alerts = new Map(escalated.map((a) => [a.id, a]));
  await knowNames(records.map((r) => r.created_by));
  const box = $("suspicious-list");
  box.dataset.count = String(records.length);
  fill(box, grid([
    ["Recorded", (r) => el("span", { class: "small" }, when(r.created_at_us))],
    ["Patron", (r) => personName(r.patron)],
    ["From the alert", (r) => {
      const a = alerts.get(r.alert_id);
      return a ? `${patternName(a.pattern)}, gaming day ${a.gaming_day}` : "an escalated alert";
    }],
    ["Narrative", (r) => r.narrative],
    ["By", (r) => nameOf(r.created_by)],
  ], records, { caption: "Newest first", empty: "No suspicious-activity record." }));
}
