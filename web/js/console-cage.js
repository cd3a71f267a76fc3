// Cage: find a player, see their wallet and its history; the cashier
// deposits, withdraws and corrects (with a reason; above the approval rule's
// limit a correction is only proposed). The pit boss and the auditor read.
// Cash compliance (docs/compliance.md): each deposit and withdrawal carries
// where it happened; the patron's cash today is shown against the report
// threshold, and a movement that would pass it without the patron's identity
// on file is refused, said in words, and retried once the cashier records the
// identity from the document the patron shows. The patron's own protection
// (a time-out, a self-exclusion, deposit limits) is shown beside it, so a
// refused deposit can be explained before it is tried.

import {
  isCashier, isAuditor, el, fill, get, when, field, selectField, alertBox, statusBox, value, amount, $, run, failed,
  loadPeople, peopleList, nameOf, tableName, loadTables, shortId, proposalNotice, AMOUNT_PATTERN,
  knowNames, idsInText, namesInText, showProblem,
} from "./console-common.js";
import { act, ApiProblem, capitalise } from "./api.js";
import { cents, money } from "./money.js";
import { transferName, accountWords, DOCUMENT_TYPES, IDENTITY_FIELD_WORDS } from "./words.js";

/** Where this tab's cashier works ("Window 2"), kept for the tab's session. */
const LOCATION_KEY = "djego.cage.location";

const PAGE = 25;
let current = null; // the player shown
let shownTransfers = 0;

export function render(panel, what) {
  fill(panel,
    el("h2", {}, "Cage"),
    el("div", { class: "columns cage" },
      el("section", { class: "panel", "aria-labelledby": "cage-find-title" },
        el("h3", { id: "cage-find-title" }, "Find a player"),
        field("cage-search", "Username or name", { type: "search", autocomplete: "off" }),
        alertBox("cage-players-problem"),
        el("ul", { id: "cage-players", class: "plain picker" }, el("li", { class: "muted" }, "Loading the players…"))),
      el("section", { class: "panel", id: "cage-wallet", "aria-labelledby": "cage-wallet-title" },
        el("h3", { id: "cage-wallet-title" }, "Wallet"),
        el("p", { class: "muted" }, "Choose a player to see their wallet."))));
  $("cage-search").addEventListener("input", () => drawPlayers());
  Promise.all([loadPeople(), loadTables().catch(() => null)]).then(() => {
    drawPlayers();
    if (what && what.id) open(what.id);
  }).catch((e) => failed($("cage-players-problem"), e));
}

export function shown(what) {
  if (what && what.id) open(what.id);
}

function players() {
  return peopleList().filter((u) => u.role === "player").sort((a, b) => a.username.localeCompare(b.username));
}

function drawPlayers() {
  const q = value("cage-search").trim().toLowerCase();
  const list = players().filter((u) => !q || u.username.includes(q) || (u.display_name || "").toLowerCase().includes(q));
  fill($("cage-players"), list.length === 0 ? el("li", { class: "empty" }, "No player matches.") : list.slice(0, 50).map((u) =>
    el("li", {}, el("button", {
      type: "button", class: "link cage-player", "data-user-id": u.id, "data-username": u.username,
      "aria-pressed": current && current.id === u.id ? "true" : "false",
      onclick: () => open(u.id),
    }, u.username, u.display_name && u.display_name !== u.username ? el("span", { class: "muted" }, ` — ${u.display_name}`) : null,
    u.active ? null : el("span", { class: "bad" }, " (deactivated)")))));
}

async function open(id) {
  const u = players().find((p) => p.id === id);
  if (!u) return;
  current = u;
  drawPlayers();
  const box = $("cage-wallet");
  box.dataset.userId = u.id;
  box.dataset.username = u.username;
  fill(box,
    el("div", { class: "row spread" },
      el("h3", { id: "cage-wallet-title" }, `Wallet of ${u.username}`, u.display_name && u.display_name !== u.username ? el("span", { class: "muted" }, ` (${u.display_name})`) : null),
      el("p", { class: "balance-line" }, "Balance ", el("strong", { id: "cage-balance", class: "balance" }, "…"))),
    alertBox("cage-wallet-problem"),
    el("div", { id: "cage-protection", "aria-live": "polite" }),
    seesCashToday() ? el("div", { id: "cage-today", class: "cage-today", "aria-live": "polite" }, el("p", { class: "muted" }, "Loading today's cash…")) : null,
    isCashier() ? cashierForms(u) : el("p", { class: "muted small" }, "Only a cashier moves money at the cage."),
    el("h4", {}, "History"),
    el("div", { id: "cage-history" }, el("p", { class: "muted" }, "Loading…")),
    el("button", { type: "button", id: "cage-more", class: "quiet", hidden: true, onclick: () => more() }, "Show older"));
  await Promise.all([balance(), history(), cashToday(), protection()]);
}

const PERIOD_SPAN = { day: "24 hours", week: "7 days", month: "30 days" };

/**
 * The patron's own protection as the cage needs it: whether they may deposit
 * at all, and what each deposit limit leaves (GET /api/v1/players/{id}/protection).
 */
async function protection() {
  const u = current;
  try {
    const p = await get(`/api/v1/players/${encodeURIComponent(u.id)}/protection`);
    if (current !== u || !$("cage-protection")) return;
    const lines = [];
    if (p.excluded) {
      const what = p.excluded.kind === "time_out" ? "On a time-out" : "Self-excluded";
      const until = p.excluded.ends_at_us === null ? "for good" : `until ${when(p.excluded.ends_at_us)}`;
      lines.push(el("p", { id: "cage-protection-line", class: "bad" },
        `${what} ${until}: no deposit and no play. Withdrawals stay open.`));
    }
    for (const l of p.limits.filter((x) => x.kind === "deposit" && x.amount !== null)) {
      const used = p.totals.find((t) => t.period === l.period);
      const rest = cents(l.amount) - cents(used ? used.deposited : "0");
      const left = rest > 0n ? rest : 0n;
      lines.push(el("p", { class: "cage-deposit-limit" },
        `The patron limits their deposits to ${l.amount} over ${PERIOD_SPAN[l.period]}: ${money(left)} left.`));
    }
    fill($("cage-protection"), lines);
  } catch (e) {
    if (current !== u) return;
    failed($("cage-wallet-problem"), e);
  }
}

/** The cashier and the auditor read a patron's cash today (the pit boss does not). */
const seesCashToday = () => isCashier() || isAuditor();

/**
 * The patron's deposits and withdrawals this gaming day, and how far each may
 * go before their identity is needed (GET /api/v1/cage/patrons/{id}/today).
 */
async function cashToday() {
  if (!seesCashToday()) return;
  const u = current;
  try {
    const t = await get(`/api/v1/cage/patrons/${encodeURIComponent(u.id)}/today`);
    if (current !== u || !$("cage-today")) return; // another patron was chosen meanwhile
    const box = $("cage-today");
    box.dataset.identity = t.identity_on_file ? "on-file" : "needed";
    fill(box,
      el("p", { id: "cage-today-totals" },
        el("strong", {}, "Today"), ` (gaming day ${t.gaming_day}): deposits `, el("strong", {}, t.deposits),
        ", withdrawals ", el("strong", {}, t.withdrawals), "."),
      el("p", { id: "cage-identity-line", class: t.identity_on_file ? "ok" : "" },
        t.identity_on_file
          ? "Identity on file."
          : `${t.deposits_before_identity} more in deposits (${t.withdrawals_before_identity} in withdrawals) today before identity is needed.`,
        isCashier() ? " " : null,
        isCashier() ? el("button", {
          type: "button", id: "identity-open", class: "quiet",
          onclick: () => openIdentity(u, null),
        }, t.identity_on_file ? "Record a new identity document…" : "Record the identity now…") : null),
      el("p", { class: "muted small" },
        `A deposit or withdrawal of ${t.log_threshold} or more goes into the multiple-transaction log; past ${t.report_threshold} `
        + "in a gaming day, in either direction, the patron's identity must be on file and a currency transaction report is made."));
  } catch (e) {
    if (current !== u || !$("cage-today")) return;
    fill($("cage-today"));
    failed($("cage-wallet-problem"), e);
  }
}

async function balance() {
  try {
    const w = await get(`/api/v1/wallets/${encodeURIComponent(current.id)}`);
    $("cage-balance").textContent = w.balance;
  } catch (e) {
    failed($("cage-wallet-problem"), e);
  }
}

let transfers = [];

async function history() {
  transfers = [];
  shownTransfers = 0;
  await more();
}

async function more() {
  try {
    const page = await get(`/api/v1/wallets/${encodeURIComponent(current.id)}/transactions?limit=${PAGE}&offset=${shownTransfers}`);
    transfers.push(...page);
    shownTransfers += page.length;
    // A memo djego wrote names the cashier by id ("deposit by <id>"): by username here.
    await knowNames(page.flatMap((t) => idsInText(t.memo)));
    drawHistory();
    $("cage-more").hidden = page.length < PAGE;
  } catch (e) {
    failed($("cage-wallet-problem"), e);
  }
}

function account(a) {
  if (!a) return "—";
  const [kind, id] = a.split(":");
  if (kind === "wallet") return "wallet of " + nameOf(id);
  if (kind === "cobre") return "cobre of " + tableName(id);
  if (kind === "escrow" || kind === "pot") return `${kind} of round ${shortId(id)}`;
  return accountWords(a);
}

function drawHistory() {
  const mine = "wallet:" + current.id;
  const rows = transfers.map((t) => {
    const into = t.credit_account === mine;
    return el("tr", { "data-transfer-id": t.id, "data-seq": t.seq },
      el("td", { class: "small" }, when(t.created_at_us)),
      el("td", { "data-kind": t.kind }, transferName(t.kind)),
      el("td", { class: "num " + (into ? "ok" : "") }, (into ? "+" : "−") + t.amount),
      el("td", {}, into ? "from " + account(t.debit_account) : "to " + account(t.credit_account)),
      el("td", { class: "small" }, [t.table_id ? tableName(t.table_id) : "", t.round_id ? ` round ${shortId(t.round_id)}` : ""].join("")),
      el("td", { class: "small" }, namesInText(t.memo)),
      el("td", { class: "num muted small" }, String(t.seq)));
  });
  fill($("cage-history"), transfers.length === 0 ? el("p", { class: "empty" }, "No transfers yet.") : el("table", { id: "cage-history-table" },
    el("caption", {}, "Newest first"),
    el("thead", {}, el("tr", {}, ["When", "Kind", "Amount", "Counterpart", "Table / round", "Memo", "Seq"].map((h, i) =>
      el("th", { scope: "col", class: i === 2 || i === 6 ? "num" : "" }, h)))),
    el("tbody", {}, rows)));
}

/** A refusal for want of identity, in words, from its details. */
function identityNeeded(u, direction, amountText, d) {
  const what = direction === "withdrawal" ? "withdrawal" : "deposit";
  const plural = direction === "withdrawal" ? "withdrawals" : "deposits";
  const again = direction === "withdrawal" ? "pay out" : "deposit";
  const figures = d && d.day_total_after
    ? `this ${what} of ${amountText} would bring ${u.username}'s ${plural} this gaming day from ${d.day_total_before} to ${d.day_total_after}, `
      + `over ${d.report_threshold}. `
    : `this ${what} would bring ${u.username}'s ${plural} this gaming day over the report threshold. `;
  return "Identity needed first: " + figures
    + `Record the patron's identity below (full name, date of birth, address and an identity document), then ${again} again.`;
}

/** The movement refused for want of identity, to retry once it is recorded: {direction, body}. */
let pending = null;
/** Moves cash for the patron shown (set by `cashierForms`). */
let moveCash = null;

function cashierForms(u) {
  pending = null;
  const problem = alertBox("cage-problem");
  const result = statusBox("cage-result");
  const amountAttrs = { inputmode: "decimal", pattern: AMOUNT_PATTERN, required: true, autocomplete: "off", size: 10 };
  const receipt = async (r, what) => {
    $("cage-balance").textContent = r.balance;
    fill(result, el("p", { class: "ok" }, `${what} ${r.transfer.amount}: the balance is now ${r.balance}.`));
    await Promise.all([history(), cashToday()]);
  };
  const place = () => {
    const where = value("cage-location").trim();
    sessionStorage.setItem(LOCATION_KEY, where);
    return where || null;
  };

  /** Moves cash; a refusal for want of identity opens the identity form and says what is needed. */
  const move = async (direction, body, form) => {
    let r;
    try {
      r = await act("POST", direction === "withdrawal" ? "/api/v1/cage/withdrawals" : "/api/v1/cage/deposits", body);
    } catch (e) {
      if (e instanceof ApiProblem && e.code === "identity_required") {
        pending = { direction, body };
        openIdentity(u, pending);
        throw { sentence: identityNeeded(u, direction, body.amount, e.details), code: e.code, status: e.status };
      }
      throw e;
    }
    pending = null;
    if (form) form.reset();
    closeIdentity();
    await receipt(r, direction === "withdrawal" ? "Paid out" : "Deposited");
  };
  moveCash = move;

  const location = field("cage-location", "Location (cage window or place, e.g. Window 2)", {
    maxlength: 60, autocomplete: "off", value: sessionStorage.getItem(LOCATION_KEY) || "",
  });
  location.querySelector("input").addEventListener("input", (event) => sessionStorage.setItem(LOCATION_KEY, event.target.value.trim()));

  const depositButton = el("button", { type: "submit", id: "deposit-button" }, "Deposit");
  const deposit = el("form", { id: "deposit-form", class: "cage-form" },
    el("h4", {}, "Cash in"),
    el("div", { class: "row" },
      field("deposit-amount", "Amount", amountAttrs),
      field("deposit-memo", "Memo (optional)", { maxlength: 200, autocomplete: "off" }),
      depositButton));
  deposit.addEventListener("submit", (event) => {
    event.preventDefault();
    run(depositButton, problem, async () => {
      fill(result);
      await move("deposit", { player_id: u.id, amount: amount("deposit-amount"), memo: value("deposit-memo").trim() || null, location: place() }, deposit);
    });
  });

  const withdrawButton = el("button", { type: "submit", id: "withdraw-button" }, "Withdraw");
  const withdraw = el("form", { id: "withdraw-form", class: "cage-form" },
    el("h4", {}, "Cash out"),
    el("div", { class: "row" },
      field("withdraw-amount", "Amount", amountAttrs),
      field("withdraw-memo", "Memo (optional)", { maxlength: 200, autocomplete: "off" }),
      withdrawButton));
  withdraw.addEventListener("submit", (event) => {
    event.preventDefault();
    run(withdrawButton, problem, async () => {
      fill(result);
      await move("withdrawal", { player_id: u.id, amount: amount("withdraw-amount"), memo: value("withdraw-memo").trim() || null, location: place() }, withdraw);
    });
  });

  const correctButton = el("button", { type: "submit", id: "correction-button" }, "Correct");
  const rule = el("p", { id: "cage-rule", class: "muted small" }, "");
  get("/api/v1/approval-rule").then((r) => {
    rule.textContent = `A correction above ${r.correction_limit}, or one past ${r.correction_shift_total} of corrections this shift `
      + `or ${r.correction_day_total} this gaming day, waits for a pit boss's approval (it expires after ${r.expires_after_minutes} minutes).`;
  }).catch(() => {});
  const correction = el("form", { id: "correction-form", class: "cage-form" },
    el("div", { class: "row" },
      selectField("correction-direction", "Direction", [["credit", "Credit the wallet"], ["debit", "Debit the wallet"]], "credit"),
      field("correction-amount", "Amount", amountAttrs),
      field("correction-day", "Corrects an earlier gaming day (optional)", { type: "date" })),
    el("div", { class: "field" },
      el("label", { for: "correction-reason" }, "Reason (required, recorded)"),
      el("textarea", { id: "correction-reason", required: true, minlength: 3, maxlength: 500, rows: 2 })),
    rule,
    correctButton);
  correction.addEventListener("submit", (event) => {
    event.preventDefault();
    run(correctButton, problem, async () => {
      fill(result);
      const reason = value("correction-reason").trim();
      if (reason.length < 3) throw { sentence: "Give the reason for the correction (at least 3 characters)." };
      const day = value("correction-day");
      const answer = await act("POST", "/api/v1/cage/corrections", {
        player_id: u.id,
        direction: value("correction-direction"),
        amount: amount("correction-amount"),
        reason,
        corrects_gaming_day: day || null,
      });
      correction.reset();
      if (answer && answer.kind === "correction" && answer.status) {
        fill(result, proposalNotice(answer, `a ${answer.request.direction} of ${answer.request.amount} to ${u.username}`));
      } else {
        await receipt(answer, "Corrected");
      }
    });
  });

  return el("div", { class: "subpanel" },
    problem, result,
    el("div", { class: "row cage-location" }, location),
    el("div", { class: "cage-forms" }, deposit, withdraw),
    identityBox(u),
    el("details", { id: "correction-details", class: "cage-correction" },
      el("summary", { id: "correction-open" }, "Correction, with a reason…"),
      correction));
}

// ---- a patron's identity ---------------------------------------------------------------------

/** A refusal of an identity ("date_of_birth must be in the past") with its fields in words. */
function identityRefusal(e) {
  if (!(e instanceof ApiProblem) || e.code !== "invalid_identity") return e;
  let m = String(e.message || "");
  for (const [code, words] of Object.entries(IDENTITY_FIELD_WORDS)) m = m.split(code).join(words);
  return { sentence: "The identity was not recorded: " + capitalise(m).replace(/^./, (c) => c.toLowerCase()), code: e.code, status: e.status };
}

/** The form a cashier fills from the patron's identity document (hidden until asked for). */
function identityBox(u) {
  const problem = alertBox("identity-problem");
  const save = el("button", { type: "submit", id: "identity-save" }, "Record the identity");
  const form = el("form", { id: "identity-form", class: "cage-form identity-form" },
    el("p", { class: "muted small" },
      "As on the document the patron shows you. It is kept sealed; only cashiers and auditors may read it, and every reading is recorded."),
    el("div", { class: "grid" },
      field("identity-full-name", "Full name, as on the document", { required: true, maxlength: 200, autocomplete: "off" }),
      field("identity-date-of-birth", "Date of birth", { type: "date", required: true }),
      field("identity-address", "Permanent address (street, city, region, postal code, country)", { required: true, maxlength: 300, autocomplete: "off" }),
      selectField("identity-document-type", "Document", DOCUMENT_TYPES, "passport"),
      field("identity-document-number", "Document number", { required: true, maxlength: 60, autocomplete: "off" }),
      field("identity-document-issuer", "Issued by (country, or state and country)", { required: true, maxlength: 200, autocomplete: "off" }),
      field("identity-occupation", "Occupation (optional)", { maxlength: 200, autocomplete: "off" })),
    el("div", { class: "row" },
      save,
      el("button", { type: "button", id: "identity-cancel", class: "quiet", onclick: () => closeIdentity() }, "Not now")));
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    run(save, problem, async () => {
      const occupation = value("identity-occupation").trim();
      const identity = {
        full_name: value("identity-full-name").trim(),
        date_of_birth: value("identity-date-of-birth"),
        address: value("identity-address").trim(),
        document_type: value("identity-document-type"),
        document_number: value("identity-document-number").trim(),
        document_issuer: value("identity-document-issuer").trim(),
      };
      if (occupation) identity.occupation = occupation;
      try {
        await act("PUT", `/api/v1/players/${encodeURIComponent(u.id)}/identity`, identity);
      } catch (e) {
        throw identityRefusal(e);
      }
      form.reset();
      identityRecorded(u);
      await cashToday();
    });
  });
  return el("section", { id: "identity-box", class: "identity-box", "aria-labelledby": "identity-title", hidden: true },
    el("h4", { id: "identity-title" }, `Identity of ${u.username}`),
    form, problem,
    el("div", { id: "identity-result", role: "status", class: "result" }));
}

/** Shows the identity form, saying what it is for when a movement waits for it. */
function openIdentity(u, waiting) {
  const box = $("identity-box");
  if (!box) return;
  box.hidden = false;
  $("identity-form").hidden = false;
  fill($("identity-result"));
  showProblem($("identity-problem"), null);
  if (!waiting) {
    showProblem($("cage-problem"), null);
    $("identity-full-name").focus();
    box.scrollIntoView({ block: "nearest" });
  } else {
    // The refusal is said in the cage's alert; the form follows it.
    setTimeout(() => $("identity-full-name") && $("identity-full-name").focus(), 0);
  }
}

function closeIdentity() {
  const box = $("identity-box");
  if (!box) return;
  box.hidden = true;
  fill($("identity-result"));
  showProblem($("identity-problem"), null);
}

/** The identity is on file: the movement that waited for it may be made again. */
function identityRecorded(u) {
  $("identity-form").hidden = true;
  showProblem($("cage-problem"), null);
  const waiting = pending;
  if (!waiting) {
    fill($("identity-result"),
      el("p", { class: "ok" }, `Identity recorded for ${u.username}.`),
      el("button", { type: "button", id: "identity-done", class: "quiet", onclick: () => closeIdentity() }, "Close"));
    return;
  }
  const what = waiting.direction === "withdrawal" ? `Pay out ${waiting.body.amount} now` : `Deposit ${waiting.body.amount} now`;
  const retryProblem = alertBox("identity-retry-problem");
  const retry = el("button", {
    type: "button", id: "identity-retry",
    onclick: () => run(retry, retryProblem, async () => {
      const form = waiting.direction === "withdrawal" ? $("withdraw-form") : $("deposit-form");
      await moveCash(waiting.direction, waiting.body, form);
    }),
  }, what);
  fill($("identity-result"),
    el("p", { class: "ok" }, `Identity recorded for ${u.username}. The ${waiting.direction} of ${waiting.body.amount} may be made now.`),
    el("div", { class: "row" }, retry,
      el("button", { type: "button", id: "identity-done", class: "quiet", onclick: () => { pending = null; closeIdentity(); } }, "Not now")),
    retryProblem);
  retry.focus();
}
