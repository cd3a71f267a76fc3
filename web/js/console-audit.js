// Audit: ledger verification and trial balance (auditor), signed
// checkpoints, the significant-events log, round recall with its transcript,
// the export of a period's transcripts (JSON Lines, their shuffles checked in
// the browser), and observed RTP by bet with its 99% band (auditor).

import {
  isAuditor, el, fill, get, when, field, selectField, alertBox, statusBox, value, $, run, failed, showProblem,
  loadPeople, loadTables, nameOf, knowNames, tableName, shortId, pct, cards, rawJson,
  jsonDownloadButton, downloadButton, download, facts, PROPOSAL_KIND,
} from "./console-common.js";
import { suitName, suitLabel, cardElement } from "./cards.js";
import { act, call, table as grid } from "./api.js";
import { isContestRecall, isPegLegRecall, verifyShuffle, splitDocuments } from "./shuffle.js";
import { gameName } from "./games.js";
import { pegLegRecallView } from "./console-peg-leg.js";
import {
  BET_KINDS, betName, transferName, EVENT_KINDS, eventName, detailLabel, humanise, accountWords, IDENTITY_PURPOSE_WORDS,
  documentTypeName,
} from "./words.js";
import { payTableById } from "./player-paytable.js";

/** Where each game's recall is read, in the order "Find out" tries them. */
const RECALL_PATH = { prima_carta: "/api/v1/rounds", lobo: "/api/v1/lobo-rounds", peg_leg: "/api/v1/peg-leg-rounds" };

const SECTIONS = [
  { name: "ledger", title: "Ledger", auditorOnly: true },
  { name: "events", title: "Significant events" },
  { name: "checkpoints", title: "Checkpoints" },
  { name: "recall", title: "Round recall" },
  { name: "export", title: "Transcripts" },
  { name: "rtp", title: "Observed RTP", auditorOnly: true },
];

let sections = [];

export function render(panel, what) {
  sections = SECTIONS.filter((s) => !s.auditorOnly || isAuditor());
  const nav = el("div", { class: "subtabs", role: "group", "aria-label": "Audit sections" },
    sections.map((s) => el("button", {
      type: "button", id: "audit-show-" + s.name, class: "subtab", "data-section": s.name, "aria-pressed": "false",
      onclick: () => showSection(s.name),
    }, s.title)));
  fill(panel,
    el("h2", {}, "Audit"),
    nav,
    sections.map((s) => el("section", {
      class: "panel audit-section", id: "audit-" + s.name, "aria-labelledby": `audit-${s.name}-title`, hidden: true,
    })));
  Promise.all([loadPeople().catch(() => null), loadTables().catch(() => null)]).then(() => {
    const builders = {
      ledger: ledgerSection, events: eventsSection, checkpoints: checkpointsSection, recall: recallSection,
      export: exportSection, rtp: rtpSection,
    };
    for (const s of sections) builders[s.name]($("audit-" + s.name));
    shown(what);
  });
}

export function shown(what) {
  if (what && what.recall) {
    showSection("recall");
    $("recall-id").value = what.recall;
    if (what.game) $("recall-game").value = what.game;
    loadRecall();
  } else if (what && what.events) {
    // From elsewhere in the console: the significant events of one kind.
    showSection("events");
    $("events-kind").value = what.events;
    $("events-from").value = "";
    $("events-to").value = "";
    eventsOffset = 0;
    loadEvents();
  } else if (!sections.some((s) => !$("audit-" + s.name).hidden)) {
    showSection(sections[0].name);
  }
}

function showSection(name) {
  for (const s of sections) {
    $("audit-" + s.name).hidden = s.name !== name;
    $("audit-show-" + s.name).setAttribute("aria-pressed", s.name === name ? "true" : "false");
  }
}

// ---- ledger: verification and trial balance ------------------------------------------------

function ledgerSection(box) {
  const problem = alertBox("verify-problem");
  const verify = el("button", {
    type: "button", id: "verify-ledger",
    onclick: () => run(verify, problem, async () => {
      fill($("verify-result"), el("p", { class: "muted" }, "Recomputing the chains and every balance…"));
      const v = await get("/api/v1/audit/ledger/verify");
      fill($("verify-result"), verification(v));
    }),
  }, "Verify the ledger");
  const tbProblem = alertBox("trial-balance-problem");
  const tb = el("button", {
    type: "button", id: "trial-balance-load", class: "quiet",
    onclick: () => run(tb, tbProblem, async () => {
      const t = await get("/api/v1/audit/ledger/trial-balance");
      fill($("trial-balance"), trialBalance(t));
    }),
  }, "Show the trial balance");
  fill(box,
    el("h3", { id: "audit-ledger-title" }, "Ledger"),
    el("p", { class: "muted small" },
      "Recomputes the transfers' hash chain and every balance, and the significant-events chain, and checks both against the signed checkpoints stored in the database."),
    verify, problem,
    el("div", { id: "verify-result", role: "status" }),
    el("h4", {}, "Trial balance"),
    tb, tbProblem,
    el("div", { id: "trial-balance" }));
}

function mark(ok) {
  return el("span", { class: ok ? "ok" : "bad" }, ok ? "✓" : "✗");
}

function verification(v) {
  const chain = v.event_chain || {};
  const cps = v.checkpoints || {};
  const ok = v.ok && chain.ok && cps.ok;
  const problems = [];
  if (v.first_broken_link) problems.push(`Transfer ${v.first_broken_link.seq} (${v.first_broken_link.transfer_id}): ${v.first_broken_link.reason}`);
  for (const m of v.balance_mismatches || []) problems.push(`Account ${m.account}: stored ${m.stored}, recomputed ${m.recomputed}`);
  for (const a of v.negative_accounts || []) problems.push(`Account ${a} is negative`);
  for (const r of v.running_total_mismatches || []) problems.push(`Running total: ${r}`);
  if (v.stored_total && v.stored_total !== "0.00") problems.push(`The stored balances sum to ${v.stored_total}, not 0.00`);
  if (chain.first_broken_link) problems.push(`Significant event ${chain.first_broken_link.seq} (${chain.first_broken_link.event_id}): ${chain.first_broken_link.reason}`);
  for (const f of cps.failures || []) problems.push(`Checkpoint ${f.checkpoint}: ${f.reason}`);
  return el("div", { class: "verification", "data-ok": ok ? "true" : "false" },
    el("p", { id: "verify-verdict", class: "verdict " + (ok ? "ok" : "bad") },
      ok ? "✓ The ledger verifies: chains, balances and checkpoints all check." : "✗ The ledger does not verify."),
    problems.length ? el("ul", { id: "verify-failures", class: "bad" }, problems.map((p) => el("li", {}, p))) : null,
    el("table", {},
      el("thead", {}, el("tr", {}, ["", "What", "Checked", "Head"].map((h) => el("th", { scope: "col" }, h)))),
      el("tbody", {},
        el("tr", {}, el("td", {}, mark(v.ok)), el("td", {}, "Transfers: hash chain, balances, trial balance"),
          el("td", {}, `${v.transfers_checked} transfers; balances sum to ${v.stored_total}`),
          el("td", {}, `seq ${v.head_seq} `, el("code", {}, shortHash(v.head_hash)))),
        el("tr", {}, el("td", {}, mark(chain.ok)), el("td", {}, "Significant events: hash chain"),
          el("td", {}, `${chain.events_checked} events; ${chain.events_unsealed} since the last seal`),
          el("td", {}, `seq ${chain.head_seq} `, el("code", {}, shortHash(chain.head_hash)))),
        el("tr", {}, el("td", {}, mark(cps.ok)), el("td", {}, `Signed checkpoints (${cps.source || "database"})`),
          el("td", {}, `${cps.checkpoints_checked} checked`
            + (cps.latest ? `; latest no. ${cps.latest.seq} at ${cps.latest.taken_at} (ledger ${cps.latest.ledger_seq}, events ${cps.latest.events_seq})` : "")),
          el("td", {}, (cps.keys || []).map((k) => el("div", {}, "key ", el("code", {}, k.key_id), ` signed ${k.checkpoints}`)))))),
    (cps.keys || []).length
      ? el("p", { class: "muted small" }, "Compare the signing keys with the keys the casino published; pinned: ",
        (cps.pinned_key_ids || []).length ? cps.pinned_key_ids.join(", ") : "none", ".")
      : null,
    rawJson("The verification as JSON", v, "verify-raw"));
}

function shortHash(h) {
  return h ? h.slice(0, 16) + "…" : "—";
}

function trialBalance(t) {
  return el("div", {},
    el("p", { id: "trial-balance-verdict", class: t.balanced ? "ok" : "bad" },
      t.balanced ? `✓ Balanced: every account sums to ${t.total} (up to transfer ${t.last_seq}).`
        : `✗ Not balanced: the accounts sum to ${t.total} (up to transfer ${t.last_seq}).`),
    grid([
      ["Account", (a) => accountName(a.account)],
      ["Kind", (a) => humanise(a.kind)],
      ["Balance", (a) => el("span", { class: "num" }, a.balance)],
    ], t.accounts, { caption: `${t.accounts.length} accounts`, empty: "No accounts." }));
}

function accountName(a) {
  const [kind, id] = String(a).split(":");
  if (kind === "wallet" && id) return `wallet of ${nameOf(id)}`;
  if (kind === "cobre" && id) return `cobre of ${tableName(id)}`;
  if ((kind === "escrow" || kind === "pot") && id) return `${kind} of round ${shortId(id)}`;
  return accountWords(a);
}

// ---- checkpoints ------------------------------------------------------------------------------

function checkpointsSection(box) {
  const problem = alertBox("checkpoints-problem");
  const result = statusBox("checkpoint-result");
  let list = [];
  const refresh = async () => {
    showProblem(problem, null);
    try {
      list = [];
      for (let offset = 0; ; offset += 500) {
        const page = await get(`/api/v1/audit/checkpoints?limit=500&offset=${offset}`);
        list.push(...page);
        if (page.length < 500) break;
      }
      fill($("checkpoints-list"), grid([
        ["No.", (c) => String(c.seq)],
        ["Taken", (c) => when(c.taken_at_us)],
        ["Ledger head", (c) => [`seq ${c.ledger_seq} `, el("code", {}, shortHash(c.ledger_hash))]],
        ["Events head", (c) => [`seq ${c.events_seq} `, el("code", {}, shortHash(c.events_hash))]],
        ["Key", (c) => el("code", { title: c.public_key }, c.key_id)],
        ["Signature", (c) => el("code", { title: c.signature }, shortHash(c.signature))],
      ], [...list].reverse(), { caption: "Newest first", empty: "No checkpoint yet." }));
    } catch (e) {
      failed(problem, e);
    }
  };
  const take = el("button", {
    type: "button", id: "checkpoint-take",
    onclick: () => run(take, problem, async () => {
      const c = await act("POST", "/api/v1/audit/checkpoints");
      await refresh();
      fill(result, el("p", { class: "ok" }, `Checkpoint no. ${c.seq} signed: ledger at transfer ${c.ledger_seq}, events at ${c.events_seq}, key ${c.key_id}.`));
    }),
  }, "Take a checkpoint now");
  const save = el("button", {
    type: "button", id: "checkpoints-download", class: "quiet",
    onclick: () => download(`djego-checkpoints-${new Date().toISOString().slice(0, 10)}.json`, JSON.stringify(list, null, 2)),
  }, "Download them (JSON)");
  fill(box,
    el("h3", { id: "audit-checkpoints-title" }, "Signed checkpoints"),
    el("p", { class: "muted small" },
      "Each signs the ledger's head and the significant-events chain's head. Keep a copy outside djego: `djego verify ledger --checkpoints FILE` checks the database against it."),
    el("div", { class: "row" }, take, save,
      el("button", { type: "button", id: "checkpoints-refresh", class: "quiet", onclick: refresh }, "Refresh")),
    problem, result,
    el("div", { id: "checkpoints-list" }));
  refresh();
}

// ---- significant events ----------------------------------------------------------------------

const EVENTS_PAGE = 50;
let eventsOffset = 0;

function eventsSection(box) {
  const problem = alertBox("events-problem");
  const form = el("form", { id: "events-filter", class: "row" },
    selectField("events-kind", "Kind", [["", "Every kind"], ...EVENT_KINDS.map((k) => [k, eventName(k)])], ""),
    field("events-from", "From", { type: "datetime-local" }),
    field("events-to", "Until", { type: "datetime-local" }),
    el("button", { type: "submit", id: "events-load" }, "Show"));
  form.addEventListener("submit", (event) => { event.preventDefault(); eventsOffset = 0; loadEvents(); });
  fill(box,
    el("h3", { id: "audit-events-title" }, "Significant events"),
    form, problem,
    el("div", { id: "events-list", class: "events" }),
    el("div", { class: "row" },
      el("button", { type: "button", id: "events-newer", class: "quiet", onclick: () => { eventsOffset = Math.max(0, eventsOffset - EVENTS_PAGE); loadEvents(); } }, "← Newer"),
      el("span", { id: "events-page", class: "muted" }),
      el("button", { type: "button", id: "events-older", class: "quiet", onclick: () => { eventsOffset += EVENTS_PAGE; loadEvents(); } }, "Older →")));
  loadEvents();
}

function micros(id) {
  const v = value(id);
  return v ? String(new Date(v).getTime() * 1000) : null;
}

let eventsAsked = 0;

async function loadEvents() {
  const asked = ++eventsAsked;
  const problem = $("events-problem");
  showProblem(problem, null);
  const q = new URLSearchParams({ limit: String(EVENTS_PAGE), offset: String(eventsOffset) });
  const kind = value("events-kind").trim();
  if (kind) q.set("kind", kind);
  const from = micros("events-from"), to = micros("events-to");
  if (from) q.set("from_us", from);
  if (to) q.set("to_us", to);
  try {
    const list = await get("/api/v1/audit/events?" + q);
    if (asked !== eventsAsked) return; // a later request replaces this one
    // The accounts the details name (a dealer, a player, who proposed), by username.
    const docs = new Map(list.map((e) => [e, parseDetails(e.details)]));
    await knowNames([...docs.values()].flatMap(accountIdsIn));
    await knowNames(list.flatMap((e) => [e.actor_username ? null : e.actor_id, e.subject_username ? null : e.subject]));
    if (asked !== eventsAsked) return;
    fill($("events-list"), grid([
      ["When", (e) => el("span", { class: "small" }, when(e.at_us))],
      ["Kind", (e) => el("span", { "data-kind": e.kind }, eventName(e.kind))],
      ["By", (e) => e.actor_username || (e.actor_id ? nameOf(e.actor_id) : "system")],
      ["Concerning", (e) => e.subject_username || subjectName(e.subject)],
      ["Details", (e) => eventDetails(e.details, docs.get(e))],
    ], list, { caption: "Newest first", empty: "No events match." }));
    $("events-page").textContent = list.length ? `events ${eventsOffset + 1}–${eventsOffset + list.length}` : "";
    $("events-newer").disabled = eventsOffset === 0;
    $("events-older").disabled = list.length < EVENTS_PAGE;
  } catch (e) {
    failed(problem, e);
  }
}

function subjectName(s) {
  if (!s) return "—";
  const t = tableName(s);
  if (t !== shortId(s)) return t;
  const n = nameOf(s);
  if (n !== shortId(s)) return n;
  return s.length > 20 ? el("code", { title: s }, shortId(s)) : s;
}

/** An event's details as an object, or the text as it came when it is not JSON. */
function parseDetails(text) {
  try {
    const doc = JSON.parse(text);
    return doc !== null && typeof doc === "object" && !Array.isArray(doc) ? doc : null;
  } catch (_) {
    return null;
  }
}

// The details' keys that hold an account's id (src/significant_events callers).
const ACCOUNT_KEYS = new Set(["by", "proposed_by", "subject", "dealer_id", "player_id", "user_id", "actor_id", "cashier_id"]);

function accountIdsIn(doc) {
  return doc ? Object.entries(doc).filter(([k, v]) => ACCOUNT_KEYS.has(k) && typeof v === "string").map(([, v]) => v) : [];
}

/** One detail's value in words: accounts and tables by name, bets and kinds in words. */
function detailValue(key, v) {
  if (v === null || v === undefined) return "—";
  if (typeof v === "object") return JSON.stringify(v);
  if (ACCOUNT_KEYS.has(key)) return key === "subject" && tableName(v) !== shortId(v) ? tableName(v) : nameOf(v);
  if (key === "table_id") return tableName(v);
  if (key === "game") return gameName(v);
  if (key === "kind") return PROPOSAL_KIND[v] || transferName(v);
  if (key === "purpose") return IDENTITY_PURPOSE_WORDS[v] || humanise(v).toLowerCase();
  if (key === "document_type") return documentTypeName(v);
  if (key === "decision") return v === "escalate" ? "escalated" : v === "dismiss" ? "dismissed" : humanise(v).toLowerCase();
  if (typeof v === "boolean") return v ? "yes" : "no";
  return String(v);
}

/** Details' keys holding a record's id that people need not read (the event's subject names the patron). */
const RECORD_KEYS = new Set(["alert_id", "report_id"]);

function eventDetails(text, doc) {
  if (!doc) return el("span", { class: "small" }, String(text || ""));
  const line = Object.entries(doc).filter(([k]) => !RECORD_KEYS.has(k)).map(([k, v]) => `${detailLabel(k)}: ${detailValue(k, v)}`).join(" · ");
  if (line.length <= 140) return el("span", { class: "small mono-ish" }, line);
  return el("details", { class: "small" }, el("summary", {}, line.slice(0, 120) + "…"),
    el("pre", { class: "mono json" }, JSON.stringify(doc, null, 2)));
}

// ---- round recall ----------------------------------------------------------------------------

function recallSection(box) {
  const problem = alertBox("recall-problem");
  const button = el("button", { type: "submit", id: "recall-load" }, "Recall");
  const form = el("form", { id: "recall-form", class: "row" },
    field("recall-id", "Round id", { required: true, autocomplete: "off", spellcheck: "false", size: 40 }),
    selectField("recall-game", "Game", [["", "Find out"], ...Object.keys(RECALL_PATH).map((g) => [g, gameName(g)])], ""),
    button);
  form.addEventListener("submit", (event) => { event.preventDefault(); loadRecall(); });
  fill(box,
    el("h3", { id: "audit-recall-title" }, "Round recall"),
    el("p", { class: "muted small" }, "A settled or voided round's whole transcript: seeds, deck, play, bets and money. `djego verify round` and docs/verify/verify_round.py replay the JSON."),
    form, problem,
    el("div", { id: "recall-result" }));
}

async function loadRecall() {
  const problem = $("recall-problem");
  const button = $("recall-load");
  const id = value("recall-id").trim();
  fill($("recall-result"));
  await run(button, problem, async () => {
    if (!id) throw { sentence: "Type the round's id." };
    const game = value("recall-game");
    const enc = encodeURIComponent(id);
    let doc, which;
    // A round id names one game's round: the others answer 404.
    const tried = game ? [game] : Object.keys(RECALL_PATH);
    for (const [i, g] of tried.entries()) {
      try {
        doc = await get(`${RECALL_PATH[g]}/${enc}/recall`);
        which = g;
        break;
      } catch (e) {
        if (e.status !== 404 || i === tried.length - 1) throw e;
      }
    }
    const view = which === "peg_leg" ? await pegLegRecallView(doc, id) : await recallView(doc, which, id);
    fill($("recall-result"), view);
    view.scrollIntoView({ block: "start" });
  });
}

async function recallView(doc, game, id) {
  const t = doc.transcript || {};
  const shuffle = t.shuffle || {};
  await knowNames((t.players || []).map((p) => p.player_id));
  const players = new Map((t.players || []).map((p) => [p.pseudonym, p.player_id ? nameOf(p.player_id) : p.pseudonym]));
  const who = (p) => p ? (players.get(p) && players.get(p) !== p ? `${players.get(p)} (${p})` : p) : "—";
  const accountOf = (a) => {
    const [kind, rest] = String(a).split(":");
    return kind === "wallet" ? `wallet of ${who(rest)}` : accountWords(a);
  };
  let browserCheck = null;
  try { browserCheck = await verifyShuffle(doc); } catch (_) { browserCheck = null; }
  const round = doc.round || {};
  const status = t.status || round.status;

  const summary = facts([
    ["Game", gameName(game)],
    ["Round", el("code", { id: "recall-round-id" }, t.round_id || id)],
    ["Table", `${tableName(t.table_id || round.table_id)}, round no. ${t.number ?? round.number ?? "?"}`],
    ["Status", el("span", { id: "recall-status" }, status || "—")],
    ["Transcript", `version ${t.version ?? 1}`],
  ], { id: "recall-summary" });

  const seeds = el("div", { class: "recall-part", id: "recall-seeds" },
    el("h4", {}, "Seeds"),
    facts([
      ["Algorithm", shuffle.algorithm],
      ["Server seed (revealed)", el("code", {}, shuffle.server_seed || "—")],
      ["Commitment (published first)", el("code", {}, shuffle.commitment || "—")],
      ["Client seeds", (shuffle.client_seeds || []).length ? el("code", {}, shuffle.client_seeds.join(", ")) : "none"],
      ["Client seed used", el("code", {}, shuffle.client_seed === "" ? "\"\" (none)" : shuffle.client_seed || "—")],
    ]),
    browserCheck ? el("p", { id: "recall-shuffle-check", class: browserCheck.ok ? "ok" : "bad" },
      browserCheck.ok ? "✓ This browser re-derived the deck from the seeds: the shuffle checks. It does not check the pay table, the play, the bets or the money; `djego verify round` does."
        : "✗ This browser's shuffle check failed: " + browserCheck.checks.filter((c) => !c.passed).map((c) => `${c.name}: ${c.detail}`).join("; "))
      : null,
    doc.verification ? serverVerification(doc.verification) : null);

  const deck = el("div", { class: "recall-part", id: "recall-deck" },
    el("h4", {}, `Deck (${(shuffle.deck || []).length} cards, dealt from the left)`),
    cards(shuffle.deck || [], { numbered: true }),
    (shuffle.reshuffles || []).map((r, i) => el("div", {},
      el("h5", {}, `Reshuffle ${i + 1}`), cards(r.after || [], { numbered: true }))));

  const play = game === "lobo" ? loboPlay(doc, t, shuffle.deck || []) : primaPlay(t, who);
  const bets = game === "lobo" ? null : el("div", { class: "recall-part", id: "recall-bets" },
    el("h4", {}, "Side bets"),
    grid([
      ["Player", (b) => who(b.player)],
      ["Bet", (b) => betName(b.kind, b.number) + (b.suit ? ` ${suitLabel(b.suit)}` : "")],
      ["Stake", (b) => el("span", { class: "num" }, b.amount)],
      ["Result", (b) => el("span", { class: b.status === "won" ? "ok" : "" }, b.status)],
      ["Returned", (b) => el("span", { class: "num" }, b.returned)],
    ], t.bets || [], { empty: "No side bets on this round." }));
  const money = el("div", { class: "recall-part", id: "recall-money" },
    el("h4", {}, "Money: every transfer of the round"),
    grid([
      ["Seq", (x) => String(x.seq)],
      ["Kind", (x) => transferName(x.kind)],
      ["From", (x) => accountOf(x.from)],
      ["To", (x) => accountOf(x.to)],
      ["Amount", (x) => el("span", { class: "num" }, x.amount)],
      ["Hash", (x) => el("code", { title: x.hash }, shortHash(x.hash))],
    ], t.transfers || [], { empty: "No transfers." }));

  const filename = `djego-round-${t.round_id || id}.json`;
  return el("article", { class: "recall", id: "recall-view", "data-round-id": t.round_id || id, "data-game": game },
    el("div", { class: "row spread" },
      el("h4", {}, `Recall of ${gameName(game)} round no. ${t.number ?? round.number ?? ""}`),
      jsonDownloadButton("recall-download", "Download the recall (JSON)", filename, doc)),
    el("div", { class: "columns halves" }, el("div", {}, summary, play), el("div", {}, seeds, deck)),
    bets, money,
    rawJson("The recall as JSON", doc, "recall-raw"));
}

function serverVerification(v) {
  const checks = v.checks || [];
  const failed = checks.filter((c) => !c.passed);
  return el("details", { id: "recall-server-check", open: !v.passed },
    el("summary", { class: v.passed ? "ok" : "bad" },
      v.passed ? `✓ djego replayed the transcript: all ${checks.length} checks pass.`
        : `✗ djego's replay fails: ${failed.map((c) => c.name).join(", ")}.`),
    el("ul", { class: "checks small" }, checks.map((c) => el("li", {},
      mark(c.passed), ` ${c.name}`, c.detail ? el("span", { class: "muted" }, ` — ${c.detail}`) : ""))));
}

/** The winner: a seat's suit (and its player) or a pseudonym, and how they won. */
function winnerText(o, t, who) {
  const seat = (t.seats || []).find((s) => s.suit === o.winner);
  const name = seat ? `${suitLabel(seat.suit)} — ${who(seat.player)}` : who(o.winner);
  return name + (o.how ? `, by ${String(o.how).replace(/_/g, " ")}` : "");
}

function primaPlay(t, who) {
  const o = t.outcome || null;
  const f = (o && o.facts) || {};
  const foundations = f.foundations ? Object.entries(f.foundations) : [];
  return el("div", { class: "recall-part", id: "recall-play" },
    el("h4", {}, "Play"),
    grid([
      ["Suit", (s) => suitLabel(s.suit)],
      ["Player", (s) => who(s.player)],
    ], t.seats || [], { caption: "Seats", empty: "No seats." }),
    grid([
      ["Turn", (d) => String(d.turn)],
      ["Suit", (d) => suitLabel(d.suit)],
      ["Copa", (d) => d.pay ? "paid" : "folded"],
    ], (t.decisions || []).map((d, i) => ({ ...d, turn: i + 1 })), { caption: "Copa decisions, in order", empty: "No copa decisions." }),
    o ? facts([
      ["Winner", o.winner ? winnerText(o, t, who) : "—"],
      ["Prima", o.prima ? suitLabel(o.prima) : "—"],
      ["Passes", o.passes],
      ["Folded", (o.folded || []).map(suitName).join(", ") || "none"],
      ["Pot", o.pot_units !== undefined ? `${o.pot_units} units; the winner takes ${o.winner_takes_units}` : "—"],
      ["Corte paid by", o.corte_payer ? who(o.corte_payer) : "—"],
      ["Cobre", o.cobre ? `${o.cobre.units} units, ${o.cobre.disposition}` : "none"],
      ["First card", f.first_card !== undefined ? cardElement(f.first_card, { class: "small" }) : "—"],
      ["Foundations", foundations.length ? el("span", { class: "cards inline" }, foundations.map(([, c]) => cardElement(c, { class: "small" }))) : "—"],
      ["First-pass count N", f.first_pass_count],
      ["First to complete", f.first_to_complete ? suitName(f.first_to_complete) : "—"],
    ], { id: "recall-outcome" }) : el("p", { class: "muted" }, "No outcome: the round was voided."),
    t.events ? rawJson(`The game's events (${t.events.length})`, t.events) : null,
    t.deal_out_events ? rawJson(`The full deal-out's events (${t.deal_out_events.length})`, t.deal_out_events) : null);
}

function loboPlay(doc, t, deck) {
  const plays = t.plays || doc.plays || [];
  const o = t.outcome || doc.result || null;
  return el("div", { class: "recall-part", id: "recall-play" },
    el("h4", {}, "Play"),
    deck.length >= 9 ? facts([
      ["Wolf's hand", cards(deck.slice(0, 4))],
      ["Player's hand", cards(deck.slice(4, 8))],
      ["Cub (face up)", cardElement(deck[8], { class: "small" })],
    ], { id: "recall-opening" }) : null,
    grid([
      ["Play", (p) => p.kind],
      ["Player's cards", (p) => (p.player_cards || []).length ? cards(p.player_cards) : "—"],
      ["Wolf's cards", (p) => (p.wolf_cards || []).length ? cards(p.wolf_cards) : "—"],
    ], plays, { caption: "Plays, in order", empty: "No plays." }),
    o ? facts([
      ["Result", o.player_won ? el("span", { class: "ok" }, "the player won") : "the Wolf won"],
      ["Why", o.reason],
      ["Points", o.points],
      ["Points paid", o.paid_points],
      ["Wolf's opening points", o.wolf_opening_points],
      doc.result ? ["Player's net", doc.result.player_net] : null,
      t.rules ? ["Rules", `${t.rules.mode}, unit ${t.rules.unit}, loss cap ${t.rules.loss_cap_points} points`
        + (t.rules.house_rule ? `, fee ${(t.rules.house_rule.fee_per_round_hundredths / 100).toFixed(2)} units + ${(t.rules.house_rule.ante_per_wolf_point_hundredths / 100).toFixed(2)} per Wolf point` : "")] : null,
    ], { id: "recall-outcome" }) : null);
}

// ---- transcripts: a period's rounds as JSON Lines ---------------------------------------------

/** The most transcripts one request returns (the API's limit); the export pages on. */
const EXPORT_PAGE = 5000;
/** The last export: its text, round count and the Blob URL offered for download. */
let exported = null;

/** A Date as a datetime-local field's value (local time, to the minute). */
function localInput(date) {
  const pad = (n) => String(n).padStart(2, "0");
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

function setPeriod(fromMs, toMs) {
  $("export-from").value = localInput(new Date(fromMs));
  $("export-to").value = localInput(new Date(toMs));
}

/** The last 24 hours, up to the end of the present minute (the fields hold minutes). */
function lastDay() {
  const to = Math.ceil((Date.now() + 1) / 60000) * 60000;
  setPeriod(to - 24 * 3600 * 1000, to);
}

/** The present gaming day, by the floor calendar. */
async function thisGamingDay() {
  const c = await get("/api/v1/floor/calendar");
  setPeriod(c.now.day_starts_at_us / 1000, c.now.day_ends_at_us / 1000);
  return c;
}

/**
 * A GET answered with text whatever its type: the transcripts come as
 * application/x-ndjson, which api.js's `call` would read as one JSON document.
 * Errors as `call` gives them.
 */
function exportSection(box) {
  const problem = alertBox("export-problem");
  const button = el("button", { type: "submit", id: "export-load" }, "Export");
  const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  const form = el("form", { id: "export-form", novalidate: true },
    el("div", { class: "row" },
      field("export-from", "From (settled or voided at or after)", { type: "datetime-local", required: true }),
      field("export-to", "Until (before)", { type: "datetime-local", required: true }),
      button),
    el("div", { class: "row", role: "group", "aria-label": "Choose a period" },
      el("button", {
        type: "button", id: "export-this-day", class: "quiet",
        onclick: () => thisGamingDay().catch((e) => failed(problem, e)),
      }, "This gaming day"),
      el("button", { type: "button", id: "export-last-24h", class: "quiet", onclick: lastDay }, "The last 24 hours")),
    el("p", { class: "muted small", id: "export-zone" }, `Times are in this browser's time zone${zone ? ` (${zone})` : ""}.`));
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    run(button, problem, exportRounds);
  });
  fill(box,
    el("h3", { id: "audit-export-title" }, "Export round transcripts"),
    el("p", { class: "muted small" },
      "Every Prima Carta, Lobo and Peg Leg round and Lobo contest settled or voided in a period, in the order they ended, one per line (JSON Lines): seeds, decks, play, bets and money. Replay the file with djego, or check its shuffles here."),
    form, problem,
    el("div", { id: "export-result", "aria-live": "polite" }));
  thisGamingDay().catch(() => lastDay());
}

async function exportRounds() {
  const from = micros("export-from"), to = micros("export-to");
  if (!from || !to) throw { sentence: "Choose when the period starts and when it ends." };
  if (Number(to) <= Number(from)) throw { sentence: "The period must end after it starts." };
  const box = $("export-result");
  forgetExport();
  fill(box, el("p", { class: "muted", role: "status" }, "Loading the transcripts…"));
  let text = "";
  let count = 0;
  for (let offset = 0; ; offset += EXPORT_PAGE) {
    const q = new URLSearchParams({ from_us: from, to_us: to, limit: String(EXPORT_PAGE), offset: String(offset) });
    const page = await call("GET", "/api/v1/audit/transcripts?" + q, undefined, { accept: "application/x-ndjson" });
    const lines = page.split("\n").filter((line) => line.trim()).length;
    text += page && !page.endsWith("\n") ? page + "\n" : page;
    count += lines;
    if (lines < EXPORT_PAGE) break;
    fill(box, el("p", { class: "muted", role: "status" }, `Loading the transcripts… ${count} so far`));
  }
  const stamp = (id) => value(id).replace(/:/g, "");
  const filename = `djego-rounds-${stamp("export-from")}-${stamp("export-to")}.jsonl`;
  const url = count ? URL.createObjectURL(new Blob([text], { type: "application/x-ndjson" })) : null;
  exported = { text, count, url, filename };
  const rounds = `${count} ${count === 1 ? "round" : "rounds"}`;
  if (!count) {
    fill(box, el("p", { id: "export-count", "data-count": "0", class: "empty" },
      `No round was settled or voided from ${when(from)} until ${when(to)}.`));
    return;
  }
  const verifyProblem = alertBox("export-verify-problem");
  const verify = el("button", {
    type: "button", id: "export-verify",
    onclick: () => run(verify, verifyProblem, checkShuffles),
  }, "Check their shuffles in this browser");
  fill(box,
    el("p", { id: "export-count", "data-count": String(count) },
      el("strong", {}, rounds), ` settled or voided from ${when(from)} until ${when(to)}.`),
    el("p", {},
      el("a", { id: "export-download", href: url, download: filename }, `Download ${filename}`),
      el("span", { class: "muted" }, ` (JSON Lines, ${rounds}, ${kilobytes(text)})`)),
    el("p", { id: "export-replay" },
      "To replay every round (shuffle, play and money): ", el("code", {}, `djego verify rounds ${filename}`),
      el("span", { class: "muted" }, " — it prints the failures and the rate.")),
    el("div", { class: "row" }, verify),
    verifyProblem,
    statusBox("export-verify-result"));
}

function kilobytes(text) {
  const n = new TextEncoder().encode(text).length;
  return n < 1024 ? `${n} bytes` : n < 1024 * 1024 ? `${(n / 1024).toFixed(1)} kB` : `${(n / 1024 / 1024).toFixed(1)} MB`;
}

function forgetExport() {
  if (exported && exported.url) URL.revokeObjectURL(exported.url);
  exported = null;
}

/** Re-derives each exported round's deck from its seeds (shuffle.js): all verify, or the first that does not. */
async function checkShuffles() {
  const out = $("export-verify-result");
  let docs;
  try {
    docs = splitDocuments(exported.text);
  } catch (e) {
    throw { sentence: "The export is not JSON Lines: " + (e && e.message ? e.message : String(e)) };
  }
  const total = docs.length;
  for (let i = 0; i < total; i++) {
    if (i % 50 === 0) fill(out, el("p", { class: "muted" }, `Checking the shuffles: ${i} of ${total}…`));
    const check = await verifyShuffle(docs[i]);
    if (!check.ok) {
      const t = docs[i] || {};
      const failedChecks = check.checks.filter((c) => !c.passed).map((c) => `${c.name}: ${c.detail}`).join("; ");
      if (isContestRecall(t)) {
        fill(out,
          el("p", { id: "export-verify-verdict", class: "bad", "data-ok": "false", "data-round-id": t.contest.id || "" },
            `✗ Item ${i + 1} of ${total} does not verify (${i} verified before it): the Lobo contest `,
            el("code", {}, t.contest.id || "?"), ` at ${tableName(t.contest.table_id)} — ${failedChecks}.`));
        return;
      }
      if (isPegLegRecall(t)) {
        const r = t.round || {};
        fill(out,
          el("p", { id: "export-verify-verdict", class: "bad", "data-ok": "false", "data-round-id": r.id || "" },
            `✗ Round ${i + 1} of ${total} does not verify (${i} verified before it): Peg Leg round no. ${r.number ?? "?"} at ${tableName(r.table_id)}, `,
            el("code", {}, r.id || "?"), ` — ${failedChecks}.`));
        return;
      }
      fill(out,
        el("p", { id: "export-verify-verdict", class: "bad", "data-ok": "false", "data-round-id": t.round_id || "" },
          `✗ Round ${i + 1} of ${total} does not verify (${i} verified before it): `,
          gameName(t.game), ` round no. ${t.number ?? "?"} at ${tableName(t.table_id)}, `,
          el("code", {}, t.round_id || "?"), ` — ${failedChecks}.`),
        t.round_id ? el("button", {
          type: "button", id: "export-recall-failed", class: "quiet",
          onclick: () => shown({ recall: t.round_id, game: t.game }),
        }, "Recall that round") : null);
      return;
    }
  }
  fill(out, el("p", { id: "export-verify-verdict", class: "ok", "data-ok": "true" },
    `✓ ${total} of ${total} shuffles verify: this browser re-derived each round's deck (every entrant's of a Lobo contest) from its revealed seed, its commitment and its client seeds.`));
}

// ---- observed RTP ------------------------------------------------------------------------------

function rtpSection(box) {
  const problem = alertBox("rtp-problem");
  const tables = el("select", { id: "rtp-table" }, el("option", { value: "" }, "Every table"));
  loadTables().then((list) => {
    for (const t of list.filter((x) => x.config.game === "prima_carta")) tables.append(el("option", { value: t.id }, t.name));
  }).catch(() => {});
  const button = el("button", { type: "submit", id: "rtp-load" }, "Show");
  const query = () => {
    const q = new URLSearchParams();
    if (value("rtp-table")) q.set("table_id", value("rtp-table"));
    if (value("rtp-kind")) q.set("kind", value("rtp-kind"));
    const from = micros("rtp-from"), to = micros("rtp-to");
    if (from) q.set("from_us", from);
    if (to) q.set("to_us", to);
    return q;
  };
  const form = el("form", { id: "rtp-filter", class: "row" },
    el("div", { class: "field" }, el("label", { for: "rtp-table" }, "Table"), tables),
    selectField("rtp-kind", "Bet", [["", "Every bet"], ...BET_KINDS.map((k) => [k, betName(k)])], ""),
    field("rtp-from", "From", { type: "datetime-local" }),
    field("rtp-to", "Until", { type: "datetime-local" }),
    button,
    downloadButton("rtp-csv", "Download CSV", () => "/api/v1/audit/rtp?" + new URLSearchParams([...query(), ["format", "csv"]]), () => "djego-rtp.csv"));
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    run(button, problem, async () => {
      const lines = await get("/api/v1/audit/rtp?" + query());
      await drawRtp(lines);
    });
  });
  get("/api/v1/audit/rtp").then(drawRtp).catch((e) => failed(problem, e));
  fill(box,
    el("h3", { id: "audit-rtp-title" }, "Observed RTP by bet"),
    el("p", { class: "muted small" },
      "Settled side bets' return against the certified RTP of the pay table they were placed under, with the 99% band (± 2.576 standard errors; bets on one round share its deal)."),
    form, problem,
    el("div", { id: "rtp-plot" }),
    el("div", { id: "rtp-list" }));
}

/** The pay tables of `ids` by id, as "name vN" (the id, short, for one that cannot be read). */
async function payTableNames(ids) {
  const names = new Map();
  await Promise.all([...new Set(ids)].map(async (id) => {
    const view = await payTableById(id).catch(() => null);
    names.set(id, view ? `${view.name} v${view.version}` : null);
  }));
  return names;
}

async function drawRtp(lines) {
  const payTables = await payTableNames(lines.map((l) => l.pay_table_id));
  fill($("rtp-list"), grid([
    ["Bet", (l) => el("span", { "data-kind": l.kind }, betName(l.kind))],
    ["Table", (l) => tableName(l.table_id)],
    ["Pay table", (l) => payTables.get(l.pay_table_id) || el("code", { title: l.pay_table_id }, shortId(l.pay_table_id))],
    ["Bets", (l) => `${l.bets} on ${l.rounds} rounds`],
    ["Staked", (l) => el("span", { class: "num" }, l.staked)],
    ["Returned", (l) => el("span", { class: "num" }, l.returned)],
    ["Observed", (l) => pct(l.observed_rtp, 2)],
    ["Certified", (l) => pct(l.theoretical_rtp, 2)],
    ["99% band", (l) => `± ${pct(2.576 * l.standard_error, 2)}`],
    ["", (l) => l.outside_99_band ? el("span", { class: "bad" }, "outside the band") : el("span", { class: "ok" }, "within")],
  ], lines, { caption: "One line per bet, table and pay table", empty: "No settled side bets in this period." }));
  fill($("rtp-plot"), lines.length ? rtpPlot(lines) : null);
}

const SVG = "http://www.w3.org/2000/svg";
function svg(tag, attrs = {}, text) {
  const n = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) if (v !== undefined && v !== null) n.setAttribute(k, String(v));
  if (text !== undefined) n.textContent = text;
  return n;
}

/** A round step near `raw`: 1, 2, 2.5 or 5 times a power of ten. */
function niceStep(raw) {
  const p = 10 ** Math.floor(Math.log10(raw));
  for (const m of [1, 2, 2.5, 5, 10]) if (m * p >= raw) return m * p;
  return 10 * p;
}

/** Each line: the observed RTP with its 99% band as a bar, the certified RTP as a tick. */
function rtpPlot(lines) {
  const rowH = 26, left = 230, right = 30, top = 30, width = 960;
  const height = top + lines.length * rowH + 40;
  const lows = lines.flatMap((l) => [l.observed_rtp - 2.576 * l.standard_error, l.theoretical_rtp]);
  const highs = lines.flatMap((l) => [l.observed_rtp + 2.576 * l.standard_error, l.theoretical_rtp]);
  let lo = Math.min(...lows), hi = Math.max(...highs);
  if (!(hi > lo)) { lo -= 0.05; hi += 0.05; }
  const pad = (hi - lo) * 0.08;
  lo -= pad; hi += pad;
  const x = (v) => left + ((v - lo) / (hi - lo)) * (width - left - right);
  const root = svg("svg", {
    viewBox: `0 0 ${width} ${height}`, class: "plot", role: "img",
    "aria-labelledby": "rtp-plot-title rtp-plot-desc", id: "rtp-svg",
  });
  root.append(svg("title", { id: "rtp-plot-title" }, "Observed RTP by bet with its 99% band"),
    svg("desc", { id: "rtp-plot-desc" }, "For each bet, a bar from the lower to the upper end of the 99% band around the observed RTP, a dot at the observed RTP and a tick at the certified RTP."));
  // Axis with round ticks, and the break-even line at 100%.
  const step = niceStep((hi - lo) / 6);
  for (let v = Math.ceil(lo / step) * step; v <= hi + 1e-12; v += step) {
    root.append(svg("line", { x1: x(v), x2: x(v), y1: top - 8, y2: height - 30, class: "grid" }),
      svg("text", { x: x(v), y: height - 12, class: "tick", "text-anchor": "middle" }, pct(v, step < 0.01 ? 1 : 0)));
  }
  if (lo < 1 && hi > 1) root.append(svg("line", { x1: x(1), x2: x(1), y1: top - 8, y2: height - 30, class: "even" }));
  lines.forEach((l, i) => {
    const y = top + i * rowH + rowH / 2;
    const band = 2.576 * l.standard_error;
    const cls = l.outside_99_band ? "outside" : "inside";
    root.append(
      svg("text", { x: left - 10, y: y + 5, class: "label", "text-anchor": "end" }, `${betName(l.kind)} · ${tableName(l.table_id)}`),
      svg("line", { x1: x(l.observed_rtp - band), x2: x(l.observed_rtp + band), y1: y, y2: y, class: "band " + cls }),
      svg("line", { x1: x(l.theoretical_rtp), x2: x(l.theoretical_rtp), y1: y - 9, y2: y + 9, class: "theory" }),
      svg("circle", { cx: x(l.observed_rtp), cy: y, r: 5, class: "observed " + cls }));
  });
  root.append(svg("text", { x: left, y: 16, class: "legend" }, "● observed   ─ 99% band   | certified"));
  return el("figure", { class: "plot-figure" }, root, el("figcaption", { class: "muted small" }, "Observed RTP (dot) with its 99% band (bar) against the certified RTP (tick); red: outside the band."));
}
