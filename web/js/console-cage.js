// Cage: find a player, see their wallet and its history; the cashier
// deposits, withdraws and corrects (with a reason; above the approval rule's
// limit a correction is only proposed). The pit boss and the auditor read.

import {
  isCashier, el, fill, get, when, field, selectField, alertBox, statusBox, value, amount, $, run, failed,
  loadPeople, peopleList, nameOf, tableName, loadTables, shortId, proposalNotice, AMOUNT_PATTERN,
  knowNames, idsInText, namesInText,
} from "./console-common.js";
import { act } from "./api.js";
import { transferName, accountWords } from "./words.js";

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
    isCashier() ? cashierForms(u) : el("p", { class: "muted small" }, "Only a cashier moves money at the cage."),
    el("h4", {}, "History"),
    el("div", { id: "cage-history" }, el("p", { class: "muted" }, "Loading…")),
    el("button", { type: "button", id: "cage-more", class: "quiet", hidden: true, onclick: () => more() }, "Show older"));
  await Promise.all([balance(), history()]);
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

function cashierForms(u) {
  const problem = alertBox("cage-problem");
  const result = statusBox("cage-result");
  const amountAttrs = { inputmode: "decimal", pattern: AMOUNT_PATTERN, required: true, autocomplete: "off", size: 10 };
  const receipt = async (r, what) => {
    $("cage-balance").textContent = r.balance;
    fill(result, el("p", { class: "ok" }, `${what} ${r.transfer.amount}: the balance is now ${r.balance}.`));
    await history();
  };

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
      const r = await act("POST", "/api/v1/cage/deposits", { player_id: u.id, amount: amount("deposit-amount"), memo: value("deposit-memo").trim() || null });
      deposit.reset();
      await receipt(r, "Deposited");
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
      const r = await act("POST", "/api/v1/cage/withdrawals", { player_id: u.id, amount: amount("withdraw-amount"), memo: value("withdraw-memo").trim() || null });
      withdraw.reset();
      await receipt(r, "Paid out");
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
    el("div", { class: "cage-forms" }, deposit, withdraw),
    el("details", { id: "correction-details", class: "cage-correction" },
      el("summary", { id: "correction-open" }, "Correction, with a reason…"),
      correction));
}
