// Proposals: the changes waiting for a second pit boss, and those decided.
// A pit boss other than the proposer approves or rejects; the proposer may
// withdraw their own; the auditor reads. And the approval rule itself: which
// corrections need a second person and how long a proposal waits; a pit boss
// proposes a new one (a proposal like the others).

import {
  ctx, isPitBoss, el, fill, get, when, alertBox, statusBox, $, run, failed, loadPeople, loadTables, nameOf, shortId,
  PROPOSAL_KIND, proposalSubject, selectField, rawJson, field, value, amount, proposalNotice,
} from "./console-common.js";
import { act, showProblem, ApiProblem, ROLE_NAMES } from "./api.js";
import { gameName } from "./games.js";
import { optionsLine as pegLegOptions } from "./peg-leg.js";

let highlight = null;

export function render(panel, what) {
  highlight = what && what.id;
  const status = selectField("proposals-status", "Show", [
    ["pending", "Pending"], ["", "All"], ["applied", "Applied"], ["rejected", "Rejected"], ["expired", "Expired"],
  ], "pending");
  status.querySelector("select").addEventListener("change", () => refresh());
  fill(panel,
    el("h2", {}, "Proposals"),
    el("section", { class: "panel", "aria-labelledby": "proposals-title" },
      el("h3", { id: "proposals-title" }, "Changes that need a second pit boss"),
      el("p", { class: "muted small" },
        "Installing a pay table, changing a table's options, creating a Lobo table with a house-rule override, "
        + "a cage correction above the approval rule's limit and changing that rule are proposed by one person and "
        + "apply only when a pit boss who did not propose them approves, before they expire."),
      el("div", { class: "row" }, status,
        el("button", { type: "button", id: "proposals-refresh", class: "quiet", onclick: () => refresh() }, "Refresh")),
      alertBox("proposals-problem"),
      el("div", { id: "proposals-list", "aria-live": "polite" }, el("p", { class: "muted" }, "Loading…"))),
    approvalRuleSection());
  refresh();
}

export function shown(what) {
  highlight = what && what.id;
  refresh();
}

function requestSummary(p) {
  const r = p.request || {};
  switch (p.kind) {
    case "install_pay_table": return p.result && p.result.name
      ? `Pay table ${p.result.name} v${p.result.version} (${String(p.result.fingerprint || "").slice(0, 8)})`
      : `Pay table ${shortId(r.pay_table_id)}`;
    case "change_table_options": return summariseConfig(r);
    case "create_table": return `${r.name || ""}: ${summariseConfig(r.config || {})}`;
    case "correction": return `${r.direction} ${r.amount} to ${nameOf(r.player_id)}: “${r.reason}”`
      + (r.corrects_gaming_day ? ` (corrects ${r.corrects_gaming_day})` : "");
    case "change_approval_rule": return proposedText(r);
    case "create_staff_account": return `${r.username} (${r.display_name}) as ${ROLE_NAMES[r.role] || r.role}`;
    case "change_staff_account": return [
      r.role ? `role ${ROLE_NAMES[r.role] || r.role}` : null,
      r.active === true ? "reactivated" : r.active === false ? "deactivated" : null,
    ].filter(Boolean).join(", ") + ` for ${nameOf(p.subject)}`;
    case "reset_staff_password": return `a temporary password for ${r.username || nameOf(p.subject)} (not shown)`;
    case "change_calendar": return `${r.timezone}, days from ${r.day_starts_at}, shifts ${(r.shifts || []).map((x) => `${x.name} ${x.starts_at}`).join(", ")}`;
    case "change_compliance_rules": return `log from ${r.log_threshold}, identity and a report past ${r.report_threshold} a day; `
      + `${r.near_threshold_count} transactions within ${r.near_threshold_percent}% under a threshold in ${r.window_hours} hours raise an alert, `
      + `as does cash in and out with under ${r.minimal_play_percent}% of it staked; `
      + `casino: ${[r.casino_name, r.casino_address, r.casino_tax_id].filter((x) => x && x.trim()).join(", ") || "not named"}`;
    default: return "";
  }
}

function summariseConfig(c) {
  const name = gameName(c.game);
  if (c.game === "prima_carta") return `${name} ${c.variant}, unit ${c.unit}, side bets ${c.min_bet}–${c.max_bet}`;
  if (c.game === "lobo") {
    const rule = c.house_rule ? `, fee ${c.house_rule.fee_per_round_hundredths}/100 u, ante ${c.house_rule.ante_per_wolf_point_hundredths}/100 u/pt` : "";
    return `${name} ${c.mode}, unit ${c.min_unit}–${c.max_unit}, cap ${c.loss_cap_points}${rule}${c.house_rule_override ? ", override" : ""}`;
  }
  if (c.game === "peg_leg") return `${name}, ${pegLegOptions(c)}`;
  return c.game ? name : "";
}

async function payTableName(id) {
  try {
    const p = await get(`/api/v1/pay-tables/${encodeURIComponent(id)}`);
    return `${p.name} v${p.version} (${p.fingerprint.slice(0, 8)})`;
  } catch (_) {
    return shortId(id);
  }
}

async function refresh() {
  const box = $("proposals-list");
  const problem = $("proposals-problem");
  showProblem(problem, null);
  try {
    const status = $("proposals-status").value;
    const [list] = await Promise.all([
      get("/api/v1/proposals?limit=100" + (status ? "&status=" + status : "")),
      loadPeople().catch(() => null),
      loadTables().catch(() => null),
    ]);
    loadApprovalRule();
    const items = await Promise.all(list.map(async (p) => {
      const extra = p.kind === "install_pay_table" && p.request && p.request.pay_table_id
        ? `Pay table ${await payTableName(p.request.pay_table_id)}` : null;
      return proposalCard(p, extra);
    }));
    fill(box, items.length ? items : el("p", { class: "empty" }, status ? `No ${status} proposals.` : "No proposals."));
    if (highlight) {
      const mine = box.querySelector(`article.proposal[data-proposal-id="${CSS.escape(highlight)}"]`);
      if (mine) { mine.classList.add("highlight"); mine.scrollIntoView({ block: "nearest" }); }
    }
  } catch (e) {
    failed(problem, e);
  }
}

function statusClass(s) {
  return s === "applied" ? "ok" : s === "pending" ? "pending" : "muted";
}

function proposalCard(p, extra) {
  const problem = alertBox("proposal-problem-" + p.id);
  problem.classList.add("proposal-problem");
  const mine = ctx.session && p.proposed_by === ctx.session.user_id;
  const buttons = [];
  if (p.status === "pending" && isPitBoss()) {
    if (!mine) {
      const approve = el("button", {
        type: "button", class: "proposal-approve", "data-proposal-id": p.id,
        onclick: () => run(approve, problem, async () => {
          const done = await act("POST", `/api/v1/proposals/${encodeURIComponent(p.id)}/approve`);
          highlight = done.id;
          await refreshKeepingDecided(done);
        }),
      }, "Approve");
      buttons.push(approve);
    }
    const reject = el("button", {
      type: "button", class: "quiet proposal-reject", "data-proposal-id": p.id,
      onclick: () => run(reject, problem, async () => {
        const done = await act("POST", `/api/v1/proposals/${encodeURIComponent(p.id)}/reject`);
        highlight = done.id;
        await refreshKeepingDecided(done);
      }),
    }, mine ? "Withdraw" : "Reject");
    buttons.push(reject);
  }
  return el("article", { class: "proposal card-box", "data-proposal-id": p.id, "data-status": p.status, "data-kind": p.kind },
    el("h4", {}, PROPOSAL_KIND[p.kind] || p.kind, " — ", proposalSubject(p), " ",
      el("span", { class: "proposal-status " + statusClass(p.status) }, p.status)),
    el("p", {}, extra || requestSummary(p)),
    el("p", { class: "muted small" },
      `Proposed by ${nameOf(p.proposed_by)} at ${when(p.proposed_at_us)}; expires ${when(p.expires_at_us)}.`,
      p.decided_by ? ` Decided by ${nameOf(p.decided_by)} at ${when(p.decided_at_us)}.` : "",
      ` Id ${p.id}.`),
    mine && p.status === "pending" ? el("p", { class: "muted small" }, "You proposed this: another pit boss must approve it.") : null,
    el("div", { class: "row" }, buttons),
    problem,
    rawJson("The request as JSON", p.request),
    p.result ? rawJson("What the change answered", p.result) : null);
}

/** After a decision the pending list would drop the proposal: show it decided at the top. */
async function refreshKeepingDecided(done) {
  await refresh();
  const box = $("proposals-list");
  if (!box.querySelector(`article.proposal[data-proposal-id="${CSS.escape(done.id)}"]`)) {
    const card = proposalCard(done);
    card.classList.add("highlight");
    if (box.querySelector("p.empty")) fill(box);
    box.prepend(card);
  }
}

// ---- the approval rule --------------------------------------------------------------------------

function ruleText(r) {
  return `Cage corrections above ${r.correction_limit}, or past ${r.correction_shift_total} in a shift or `
    + `${r.correction_day_total} in a gaming day, wait for a pit boss's approval; `
    + `a proposal not approved within ${r.expires_after_minutes} minutes expires; `
    + `a new pit boss approves nothing in their first ${r.approver_wait_days} days.`;
}

function proposedText(r) {
  return `Corrections above ${r.correction_limit}, or past ${r.correction_shift_total} a shift or `
    + `${r.correction_day_total} a day, would wait for a pit boss's approval; `
    + `proposals would expire after ${r.expires_after_minutes} minutes; `
    + `new pit bosses would wait ${r.approver_wait_days} days before approving.`;
}

/** The server's sentence with the rule's field names as the form says them. */
function ruleSentence(m) {
  const s = String(m || "")
    .replace(/\bexpires_after_minutes\b/g, "a proposal's lifetime in minutes")
    .replace(/\bapprover_wait_days\b/g, "a new pit boss's wait in days")
    .replace(/\bcorrection_limit\b/g, "the correction limit");
  return /[.!?]$/.test(s) ? s : s + ".";
}

function approvalRuleSection() {
  const parts = [
    el("h3", { id: "approval-rule-title" }, "The approval rule"),
    el("p", { class: "muted small" },
      "Which cage corrections need a second person, and how long a proposal waits. A new rule is itself a proposal: it applies when a second pit boss approves it."),
    alertBox("approval-rule-load-problem"),
    el("p", { id: "approval-rule-in-force", "aria-live": "polite" }, el("span", { class: "muted" }, "Loading…")),
    el("div", { id: "approval-rule-pending", "aria-live": "polite" }),
  ];
  if (isPitBoss()) {
    const problem = alertBox("approval-rule-problem");
    const propose = el("button", { type: "submit", id: "approval-rule-propose" }, "Propose this rule");
    const form = el("form", { id: "approval-rule-form", novalidate: true },
      el("h4", {}, "Propose a new rule"),
      el("div", { class: "row" },
        field("approval-limit", "Correction limit (an amount)", { inputmode: "decimal", autocomplete: "off", placeholder: "100.00" }),
        field("approval-shift-total", "Corrections without approval, per shift (an amount)", { inputmode: "decimal", autocomplete: "off", placeholder: "300.00" }),
        field("approval-day-total", "Corrections without approval, per gaming day (an amount)", { inputmode: "decimal", autocomplete: "off", placeholder: "1000.00" })),
      el("div", { class: "row" },
        field("approval-expires", "Proposals expire after (minutes, 1 to 10080)", { inputmode: "numeric", autocomplete: "off", placeholder: "60" }),
        field("approval-wait", "A new pit boss approves after (days, 0 to 365)", { inputmode: "numeric", autocomplete: "off", placeholder: "7" }),
        propose),
      problem,
      statusBox("approval-rule-result"));
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      run(propose, problem, async () => {
        fill($("approval-rule-result"));
        const minutes = value("approval-expires").trim();
        if (!/^[0-9]{1,6}$/.test(minutes)) throw { sentence: "The lifetime of a proposal is a whole number of minutes, 1 to 10080." };
        const wait = value("approval-wait").trim();
        if (!/^[0-9]{1,3}$/.test(wait)) throw { sentence: "A new pit boss's wait is a whole number of days, 0 to 365." };
        const rule = {
          correction_limit: amount("approval-limit"),
          correction_shift_total: amount("approval-shift-total"),
          correction_day_total: amount("approval-day-total"),
          expires_after_minutes: Number(minutes),
          approver_wait_days: Number(wait),
        };
        let p;
        try {
          p = await act("PUT", "/api/v1/approval-rule", rule);
        } catch (e) {
          if (e instanceof ApiProblem && e.code === "invalid_body" && /amount/.test(e.message)) {
            throw { sentence: "The correction limit must be an amount greater than zero, such as 250.00." };
          }
          if (e instanceof ApiProblem && e.code === "invalid_approval_rule") {
            throw { sentence: "Not proposed: " + ruleSentence(e.message) };
          }
          throw e;
        }
        const asked = p.request || rule;
        fill($("approval-rule-result"), proposalNotice(p, `a new approval rule: ${proposedText(asked)}`));
        await refresh();
      });
    });
    parts.push(form);
  }
  return el("section", { class: "panel", id: "approval-rule", "aria-labelledby": "approval-rule-title" }, parts);
}

/** The rule in force and any change of it waiting for a second pit boss, read again. */
async function loadApprovalRule() {
  const problem = $("approval-rule-load-problem");
  if (!problem) return;
  try {
    const [rule, pending] = await Promise.all([
      get("/api/v1/approval-rule"),
      get("/api/v1/proposals?status=pending&limit=500"),
    ]);
    showProblem(problem, null);
    fill($("approval-rule-in-force"), el("strong", {}, "In force: "), ruleText(rule));
    const mine = pending.filter((p) => p.kind === "change_approval_rule");
    fill($("approval-rule-pending"), mine.length ? [
      el("h4", {}, mine.length === 1 ? "A change waiting for a second pit boss" : "Changes waiting for a second pit boss"),
      el("ul", { class: "plain" }, mine.map((p) => el("li", { class: "approval-rule-proposal", "data-proposal-id": p.id, "data-status": p.status },
        el("span", { class: "proposal-status pending" }, p.status), " ",
        proposedText(p.request || {}),
        el("span", { class: "muted small" },
          ` Proposed by ${nameOf(p.proposed_by)} at ${when(p.proposed_at_us)}; expires ${when(p.expires_at_us)}.`))))
    ] : el("p", { class: "muted small" }, "No change of the rule is waiting."));
    if (!$("approval-limit") || $("approval-limit").value !== "" || $("approval-expires").value !== "") return;
    $("approval-limit").value = rule.correction_limit;
    $("approval-shift-total").value = rule.correction_shift_total;
    $("approval-day-total").value = rule.correction_day_total;
    $("approval-expires").value = String(rule.expires_after_minutes);
    $("approval-wait").value = String(rule.approver_wait_days);
  } catch (e) {
    failed(problem, e);
  }
}
