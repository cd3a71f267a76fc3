// What every tab of the console shares: who is signed in, the directory of
// accounts and tables (ids shown as names), form fields, sentences for the
// server's refusals, rows of cards, downloads and proposals.

import { $, get, call, el, fill, busy, showProblem, when, capitalise, ApiProblem } from "./api.js";
import { cardElement } from "./cards.js";
import { learnNames, usernameOf } from "./roster.js";

/** The console's state: the session and what the role may do. Set by console.js. */
export const ctx = {
  session: null,
  role: null,
  /** Switches to a tab, optionally with something to show there (console.js). */
  goTo: (_tab, _what) => {},
};

export const isPitBoss = () => ctx.role === "pitboss";
export const isCashier = () => ctx.role === "cashier";
export const isAuditor = () => ctx.role === "auditor";

// ---- directory: ids as names ----------------------------------------------

const people = new Map();
const tableNames = new Map();
let peopleLoaded = null;

/** Every account the role may list (a cashier: the players), by id; cached until `refreshPeople`. */
export function loadPeople() {
  if (!peopleLoaded) {
    peopleLoaded = (async () => {
      for (let offset = 0; ; offset += 500) {
        const page = await get(`/api/v1/users?limit=500&offset=${offset}`);
        for (const u of page) people.set(u.id, u);
        if (page.length < 500) break;
      }
      return people;
    })().catch((e) => { peopleLoaded = null; throw e; });
  }
  return peopleLoaded;
}

export function refreshPeople() {
  peopleLoaded = null;
  return loadPeople();
}

export function rememberPerson(user) {
  if (user && user.id) people.set(user.id, user);
}

/** Every account loaded so far. */
export function peopleList() {
  return [...people.values()];
}

export function person(id) {
  return people.get(id) || null;
}

/**
 * A user id as a person reads it: the username, from the accounts listed or
 * the roster (`knowNames` first for ids the role cannot list: a cashier lists
 * players only), or a short id for an account djego does not name.
 */
export function nameOf(id) {
  if (!id) return "—";
  if (ctx.session && id === ctx.session.user_id) return ctx.session.username + " (you)";
  const u = people.get(id);
  return u ? u.username : usernameOf(id) || shortId(id);
}

/** Makes `nameOf` know the usernames of `ids` not listed yet, through the staff roster (batched, cached). */
export function knowNames(ids) {
  return learnNames([...ids].filter((id) => id && !people.has(id)));
}

// An account id inside a text djego wrote (a memo such as "deposit by <id>").
const ID_IN_TEXT = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;

/** The ids a text names, for `knowNames`. */
export function idsInText(text) {
  return String(text || "").match(ID_IN_TEXT) || [];
}

/** A text with each id it names replaced by the account's username (`knowNames` first). */
export function namesInText(text) {
  return String(text || "").replace(ID_IN_TEXT, (id) => nameOf(id));
}

export function shortId(id) {
  return id && id.length > 12 ? id.slice(0, 8) + "…" : String(id || "");
}

export async function loadTables() {
  const list = await get("/api/v1/tables");
  for (const t of list) tableNames.set(t.id, t.name);
  return list;
}

export function tableName(id) {
  return tableNames.get(id) || shortId(id);
}

// ---- form fields ---------------------------------------------------------------

/** A labelled input: `field("deposit-amount", "Amount", {inputmode: "decimal"})`. */
export function field(id, label, attrs = {}) {
  return el("div", { class: "field" },
    el("label", { for: id }, label),
    el("input", { id, name: id, ...attrs }));
}

/** A labelled select of [value, text] pairs. */
export function selectField(id, label, options, selected, attrs = {}) {
  return el("div", { class: "field" },
    el("label", { for: id }, label),
    el("select", { id, name: id, ...attrs },
      options.map(([value, text]) => el("option", { value, selected: String(value) === String(selected) }, text))));
}

/** A labelled checkbox, label after the box. */
export function checkField(id, label, checked) {
  return el("div", { class: "field check" },
    el("input", { id, name: id, type: "checkbox", checked: !!checked }),
    el("label", { for: id }, label));
}

export function alertBox(id) {
  return el("p", { id, role: "alert", hidden: true });
}

export function statusBox(id) {
  return el("div", { id, role: "status", class: "result" });
}

export const value = (id) => document.getElementById(id).value;
export const checked = (id) => document.getElementById(id).checked;

/** A positive decimal amount as the API takes it (at most two decimals). */
export const AMOUNT_PATTERN = "[0-9]{1,10}([.][0-9]{1,2})?";

/** Trims an amount typed by a person; the server judges it. */
export function amount(id) {
  return value(id).trim();
}

// ---- sentences -------------------------------------------------------------------

const period = (m) => {
  const s = String(m || "");
  return /[.!?]$/.test(s) ? s : s + ".";
};

/** Our own wording for refusals where the server's message needs a frame. */
const WORDING = {
  pay_table_not_certified: (m) => "This pay table is not certified, so it cannot be installed: " + period(m),
  invalid_pay_table: (m) => "This is not a valid pay table: " + period(m),
  table_closed: () => "The table is closed.",
  proposal_expired: () => "This proposal has expired: it can no longer be approved.",
  proposal_decided: () => "This proposal was already decided.",
  username_taken: (m) => capitalise(m) + " Choose another username.",
  name_taken: () => "A table with this name exists already.",
  not_a_player: () => "Only players hold wallets.",
  self_change: (m) => capitalise(m),
};

/** The problem with our wording where we have one (for `showProblem`). */
export function explain(e) {
  if (e instanceof ApiProblem && WORDING[e.code]) {
    return { sentence: WORDING[e.code](e.message), code: e.code, status: e.status };
  }
  return e;
}

/** `busy` with our wording of the refusal, and the refusal brought into view. */
export async function run(button, alertNode, work) {
  const answer = await busy(button, alertNode, async () => {
    try {
      return await work();
    } catch (e) {
      throw explain(e);
    }
  });
  if (alertNode && !alertNode.hidden && alertNode.textContent && alertNode.isConnected) {
    alertNode.scrollIntoView({ block: "nearest" });
  }
  return answer;
}

/** Shows a problem loading a section in its alert. */
export function failed(alertNode, e) {
  showProblem(alertNode, explain(e));
}

// ---- numbers -------------------------------------------------------------------

/** A fraction (0.9612) as a percentage, for statistics only (never money). */
export function pct(f, digits = 3) {
  if (f === null || f === undefined || Number.isNaN(Number(f))) return "—";
  return (Number(f) * 100).toFixed(digits) + "%";
}


// ---- cards ----------------------------------------------------------------------

/** A row of cards as small tiles, in order, with their positions when `numbered`. */
export function cards(ids, { numbered = false } = {}) {
  return el("div", { class: "cards" + (numbered ? " numbered" : "") },
    (ids || []).map((id, i) => numbered
      ? el("span", { class: "pos" }, el("span", { class: "muted idx" }, String(i)), cardElement(id, { class: "small" }))
      : cardElement(id, { class: "small" })));
}

// ---- downloads --------------------------------------------------------------------

/** Offers `text` as a file download (a Blob URL on a link: navigation, not an image). */
export function download(filename, text, type = "application/json") {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const a = el("a", { href: url, download: filename, class: "visually-hidden" }, filename);
  document.body.append(a);
  a.click();
  setTimeout(() => { URL.revokeObjectURL(url); a.remove(); }, 1000);
}

/** A button that fetches `path` with the session's token and downloads the answer. */
export function downloadButton(id, text, pathOf, filenameOf, type = "text/csv") {
  const problem = alertBox(id + "-problem");
  const button = el("button", {
    type: "button", id, class: "quiet",
    onclick: () => run(button, problem, async () => {
      const body = await call("GET", pathOf(), undefined, { accept: type });
      download(filenameOf(), typeof body === "string" ? body : JSON.stringify(body, null, 2), type);
    }),
  }, text);
  return el("span", { class: "download" }, button, problem);
}

/** A link-like button downloading a document already in hand as JSON. */
export function jsonDownloadButton(id, text, filename, doc) {
  return el("button", {
    type: "button", id, class: "quiet",
    onclick: () => download(filename, JSON.stringify(doc, null, 2)),
  }, text);
}

/** JSON shown as preformatted text inside a disclosure. */
export function rawJson(summary, doc, id) {
  return el("details", { class: "raw" },
    el("summary", {}, summary),
    el("pre", { id, class: "mono json" }, JSON.stringify(doc, null, 2)));
}

// ---- proposals ---------------------------------------------------------------------

export const PROPOSAL_KIND = {
  install_pay_table: "Install a pay table",
  change_table_options: "Change a table's options",
  create_table: "Create a table",
  correction: "Cage correction",
  change_approval_rule: "Change the approval rule",
  create_staff_account: "Create a pit boss's or auditor's account",
  change_staff_account: "Give a pit boss's or auditor's powers",
  reset_staff_password: "Reset a pit boss's or auditor's password",
  change_calendar: "Change the floor calendar",
  change_compliance_rules: "Change the cash-compliance rules",
};

export function proposalSubject(p) {
  if (p.kind === "create_table" && p.request && p.request.name) return p.request.name;
  if (p.kind === "change_approval_rule") return "the approval rule";
  if (p.kind === "change_calendar") return "the floor calendar";
  if (p.kind === "change_compliance_rules") return "the cash-compliance rules";
  if (p.kind === "create_staff_account" && p.request) return p.request.username;
  if (p.kind === "reset_staff_password" && p.request && p.request.username) return p.request.username;
  if (!p.subject) return "—";
  if (p.kind === "correction") return nameOf(p.subject);
  return tableName(p.subject);
}

/** What a 202 answer means, shown where the change was asked for. */
export function proposalNotice(p, what) {
  return el("div", { class: "proposal-notice", "data-proposal-id": p.id, "data-status": p.status },
    el("p", {},
      el("strong", {}, p.kind === "correction" ? "Proposed, waiting for a pit boss's approval: " : "Proposed, waiting for a second pit boss: "),
      what || PROPOSAL_KIND[p.kind] || p.kind, ". "),
    el("p", { class: "muted" },
      `Proposal ${shortId(p.id)} · ${p.status} · proposed by ${nameOf(p.proposed_by)} at ${when(p.proposed_at_us)}`
      + ` · expires ${when(p.expires_at_us)}.`),
    ctx.role === "pitboss" || ctx.role === "auditor"
      ? el("button", { type: "button", class: "quiet", onclick: () => ctx.goTo("proposals", { id: p.id }) }, "See it under Proposals")
      : null);
}

/** A key/value list. */
export function facts(pairs, attrs = {}) {
  return el("dl", { class: "facts", ...attrs },
    pairs.filter(Boolean).flatMap(([k, v]) => [el("dt", {}, k), el("dd", {}, v === null || v === undefined || v === "" ? "—" : v)]));
}

export { $, el, fill, get, call, busy, showProblem, when };
