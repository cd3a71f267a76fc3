// External exclusion lists (pit boss and auditor; docs/compliance.md, "Exclusion lists"): a
// state's or a regulator's list of people excluded from gambling, chosen as a CSV file or
// pasted, named and imported; the lists imported, with who imported each, when, its entries and
// the patrons it matched; and the matches, each the list's entry beside the patron's identity on
// file, confirmed (the patron is then excluded as the list says) or rejected with a note by a
// second person. Whoever imported a list is told in words why its matches are not theirs to
// review. Patrons by name, why a match was made in words; never an id or a code. Showing the
// matches opens the identities on file of the patrons they name, and djego records each opening.

import {
  el, fill, get, call, when, field, selectField, alertBox, statusBox, value, $, run, failed, showProblem, nameOf,
  knowNames, ctx,
} from "./console-common.js";
import { act, ApiProblem, capitalise } from "./api.js";
import { documentTypeName, matchBasisName, matchStatusName } from "./words.js";

/** The lists as last read, by id: who imported each tells whether this person may review its matches. */
const lists = new Map();

/** The exclusion-list section of the Compliance tab, drawn into `box`. */
export function exclusionListsSection(box) {
  const importProblem = alertBox("exclusion-import-problem");
  const importButton = el("button", { type: "submit", id: "exclusion-import" }, "Import the list");
  const importForm = el("form", { id: "exclusion-import-form" },
    el("div", { class: "field wide" },
      el("label", { for: "exclusion-name" }, "The list's name: what it is, who issued it and when"),
      el("input", {
        id: "exclusion-name", name: "exclusion-name", maxlength: 200, autocomplete: "off", required: true,
        "aria-describedby": "exclusion-name-hint",
      })),
    el("p", { id: "exclusion-name-hint", class: "muted small" },
      "As its issuer names it, for example: State voluntary exclusion list, Gaming Control Board, November 2026."),
    field("exclusion-file", "Choose the list's CSV file", {
      type: "file", accept: ".csv,text/csv,text/plain", onchange: (event) => readFile(event.currentTarget),
    }),
    el("div", { class: "field wide" },
      el("label", { for: "exclusion-csv" }, "The list as CSV: the file chosen above, or pasted here"),
      el("textarea", {
        id: "exclusion-csv", name: "exclusion-csv", rows: 8, spellcheck: "false", autocomplete: "off",
        "aria-describedby": "exclusion-csv-hint",
      })),
    el("p", { id: "exclusion-csv-hint", class: "muted small" },
      "The first line names the columns: full_name and date_of_birth (written YYYY-MM-DD) always, and "
      + "document_number and ends_on (the exclusion's last day, empty when it is permanent) when the list gives them. "
      + "A line that does not read is refused with its number, and then nothing is imported. One import holds at most "
      + "10,000 people and 64 KiB: import a longer list in parts, each starting with the line of column names."),
    el("div", { class: "row" }, importButton),
    importProblem);
  importForm.addEventListener("submit", (event) => {
    event.preventDefault();
    run(importButton, importProblem, importList);
  });

  const matchesProblem = alertBox("exclusion-matches-problem");
  const showButton = el("button", { type: "submit", id: "exclusion-matches-load" }, "Show");
  const filter = el("form", { id: "exclusion-matches-filter", class: "row" },
    selectField("exclusion-match-status", "Show", [
      ...["pending", "confirmed", "rejected"].map((status) => [status, matchStatusName(status)]), ["", "Every match"],
    ], "pending"),
    showButton);
  filter.addEventListener("submit", (event) => {
    event.preventDefault();
    run(showButton, matchesProblem, async () => { await drawLists(); await drawMatches(); });
  });

  fill(box,
    el("h3", { id: "compliance-exclusions-title" }, "Exclusion lists"),
    el("p", { class: "muted small" },
      "A state's or a regulator's list of people excluded from gambling, matched against every patron's identity on "
      + "file by the name with the date of birth, or by the document number. A match excludes nobody by itself: a second "
      + "person, not the one who imported the list, compares the entry with the patron's identity and confirms it (the "
      + "patron is then excluded from play and deposits as the list says) or rejects it, with a note saying why. Showing "
      + "the matches reads the identities on file of the patrons they name, and each reading is recorded."),
    el("h4", {}, "Import a list"),
    importForm,
    statusBox("exclusion-import-result"),
    el("h4", {}, "Lists imported"),
    alertBox("exclusion-lists-problem"),
    el("div", { id: "exclusion-lists" }, el("p", { class: "muted" }, "Loading the lists…")),
    el("h4", {}, "Matches"),
    filter, matchesProblem,
    statusBox("exclusion-review-result"),
    el("div", { id: "exclusion-matches" }, el("p", { class: "muted" }, "Loading the matches…")));
}

/** Reads the lists, then the matches (which need the lists' importers). */
export async function loadExclusionLists() {
  try {
    await drawLists();
  } catch (e) {
    failed($("exclusion-lists-problem"), e);
  }
  try {
    await drawMatches();
  } catch (e) {
    failed($("exclusion-matches-problem"), e);
  }
}

// ---- importing ---------------------------------------------------------------------------------

/** Puts the chosen file's text in the CSV field, to be read before it is imported. */
async function readFile(input) {
  const problem = $("exclusion-import-problem");
  const file = input.files && input.files[0];
  showProblem(problem, null);
  if (!file) return;
  try {
    const text = await file.text();
    $("exclusion-csv").value = text;
    const lines = text.split(/\r?\n/).filter((l) => l.trim()).length;
    fill($("exclusion-import-result"), el("p", {},
      `Read ${file.name}: ${lines} ${lines === 1 ? "line" : "lines"}, shown below. Name the list, then import it.`));
  } catch (_) {
    showProblem(problem, { sentence: `${file.name} could not be read: choose it again, or paste the list.` });
  }
}

async function importList() {
  const name = value("exclusion-name").trim();
  const csv = value("exclusion-csv");
  if (!name) throw { sentence: "Name the list before importing it: what it is, who issued it and when." };
  if (!csv.trim()) throw { sentence: "Choose the list's CSV file, or paste the list, before importing it." };
  fill($("exclusion-import-result"));
  let summary;
  try {
    // Not retried by itself: an import that landed before the connection dropped would be made twice.
    summary = await call("POST", "/api/v1/exclusion-lists", { name, csv });
  } catch (e) {
    throw importRefusal(e);
  }
  $("exclusion-name").value = "";
  $("exclusion-csv").value = "";
  $("exclusion-file").value = "";
  fill($("exclusion-import-result"), el("p", { class: "ok" }, importWords(summary)));
  await loadExclusionLists();
}

const count = (n, one, many) => `${n} ${n === 1 ? one : many}`;

function importWords(s) {
  const ended = s.ended
    ? `; ${count(s.ended, "entry", "entries")} whose exclusion had already ended ${s.ended === 1 ? "was" : "were"} left out`
    : "";
  const matched = s.matches === 0
    ? "It matches no patron with an identity on file."
    : `It matches ${count(s.matches, "patron", "patrons")} with an identity on file: ${s.matches === 1 ? "the match waits" : "each match waits"} `
      + "below for a second person to review it.";
  return `Imported “${s.name}”: ${count(s.entries, "person", "people")} excluded${ended}. ${matched}`;
}

/** A refused import in words. */
function importRefusal(e) {
  if (!(e instanceof ApiProblem)) return e;
  const said = (sentence) => ({ sentence, code: e.code, status: e.status });
  switch (e.code) {
    case "invalid_exclusion_list":
      return said(`Nothing was imported. ${capitalise(e.message)}`);
    case "payload_too_large":
      return said("Nothing was imported: the list is larger than one import takes. Import it in parts, each starting with "
        + "the line of column names.");
    default:
      return e;
  }
}

// ---- the lists ---------------------------------------------------------------------------------

async function drawLists() {
  const found = await get("/api/v1/exclusion-lists?limit=500");
  lists.clear();
  for (const l of found) lists.set(l.id, l);
  await knowNames(found.map((l) => l.imported_by));
  const box = $("exclusion-lists");
  box.dataset.count = String(found.length);
  const head = [["List", ""], ["Imported by", ""], ["When", ""], ["People on it", "num"], ["Patrons matched", "num"],
    ["Waiting for review", "num"]];
  fill(box, found.length === 0
    ? el("p", { class: "empty" }, "No list imported yet.")
    : el("table", { id: "exclusion-lists-table" },
      el("caption", {}, "The lists imported, newest first"),
      el("thead", {}, el("tr", {}, head.map(([h, c]) => el("th", { scope: "col", class: c || null }, h)))),
      el("tbody", {}, found.map((l) => el("tr", {
        class: "exclusion-list", "data-name": l.name, "data-matches": String(l.matches), "data-pending": String(l.pending),
      },
      el("th", { scope: "row" }, l.name),
      el("td", {}, nameOf(l.imported_by)),
      el("td", { class: "small" }, when(l.imported_at_us)),
      el("td", { class: "num" }, String(l.entries)),
      el("td", { class: "num" }, String(l.matches)),
      el("td", { class: "num" }, String(l.pending)))))));
}

// ---- the matches -------------------------------------------------------------------------------

async function drawMatches() {
  const status = value("exclusion-match-status");
  const q = new URLSearchParams({ limit: "200" });
  if (status) q.set("status", status);
  const found = await get("/api/v1/exclusion-lists/matches?" + q);
  await knowNames(found.map((m) => m.reviewed_by));
  const box = $("exclusion-matches");
  box.dataset.count = String(found.length);
  const none = {
    pending: "No match is waiting for review.", confirmed: "No confirmed match.", rejected: "No rejected match.",
  }[status] || "No match yet.";
  fill(box, found.length === 0 ? el("p", { class: "empty", id: "exclusion-matches-empty" }, none) : found.map(matchView));
}

/** A patron as the staff name them: "Bruno Costa (bruno)", or the username alone. */
function patronName(p) {
  if (!p) return "a patron";
  return p.display_name && p.display_name !== p.username ? `${p.display_name} (${p.username})` : p.username;
}

/** How long a confirmed match excludes, as the list's entry says. */
function exclusionWords(listed) {
  return listed.ends_on ? `until the end of ${listed.ends_on}` : "permanently";
}

function matchView(m) {
  const patron = patronName(m.patron);
  const listed = m.listed || {};
  const i = m.identity;
  const list = lists.get(m.list_id);
  const notOnFile = () => el("span", { class: "muted" }, "not on file");
  const row = (label, onList, onFile) => el("tr", {},
    el("th", { scope: "row" }, label), el("td", {}, onList), el("td", {}, onFile));
  const reviewer = m.reviewed_by ? ` by ${nameOf(m.reviewed_by)}` : "";
  const outcome = {
    confirmed: `: ${patron} is excluded as the list says`,
    rejected: `: ${patron} is not the person listed`,
  }[m.status] || "";
  return el("article", {
    class: "exclusion-match card-box", "data-status": m.status, "data-patron": m.patron ? m.patron.username : "",
  },
  el("h5", {}, `${patron}, on “${m.list_name}”`),
  el("p", { class: "exclusion-why" },
    `Matched on ${matchBasisName(m.basis)}, by line ${m.line} of the list`,
    list ? `, which ${nameOf(list.imported_by)} imported at ${when(list.imported_at_us)}` : "",
    `. The list excludes this person ${exclusionWords(listed)}.`),
  el("table", { class: "exclusion-compare" },
    el("caption", {}, `The list's entry beside ${patron}'s identity on file`),
    el("thead", {}, el("tr", {},
      el("th", { scope: "col" }, "Of the person"), el("th", { scope: "col" }, "On the list"), el("th", { scope: "col" }, "On file"))),
    el("tbody", {},
      row("Full name", listed.full_name, i ? i.full_name : notOnFile()),
      row("Date of birth", listed.date_of_birth, i ? i.date_of_birth : notOnFile()),
      row("Document", listed.document_number || el("span", { class: "muted" }, "not given"),
        i ? `${documentTypeName(i.document_type)} ${i.document_number}, issued by ${i.document_issuer}` : notOnFile()))),
  el("p", { class: "exclusion-status" + (m.status === "pending" ? "" : " ok") }, `${matchStatusName(m.status)}${reviewer}${outcome}.`),
  m.review_note ? el("p", {}, el("strong", {}, "Note: "), m.review_note) : null,
  m.status === "pending" ? reviewForm(m, patron, list) : null);
}

/** Whoever imported the list is told why they do not review it; anyone else confirms or rejects it with a note. */
function reviewForm(m, patron, list) {
  if (list && ctx.session && list.imported_by === ctx.session.user_id) {
    return el("p", { class: "exclusion-own" },
      `You imported “${m.list_name}”, so you cannot review its matches: a second person, another pit boss or an `
      + `auditor, compares the entry with ${patron}'s identity and confirms or rejects it.`);
  }
  const noteId = "exclusion-note-" + m.id;
  const problem = el("p", { role: "alert", class: "exclusion-review-problem", hidden: true });
  const noteNeeded = (decision) => {
    const note = value(noteId).trim();
    if (!note) throw { sentence: `Write a note saying why before you ${decision} this match.` };
    return note;
  };
  const review = (decision, button) => run(button, problem, async () => {
    const note = noteNeeded(decision);
    let outcome;
    try {
      outcome = await act("POST", `/api/v1/exclusion-lists/matches/${encodeURIComponent(m.id)}/review`, { decision, note });
    } catch (e) {
      throw reviewRefusal(e, m);
    }
    fill($("exclusion-review-result"), el("p", { class: "ok" }, outcome.status === "confirmed"
      ? `Confirmed: ${patron} is excluded from play and deposits ${exclusionWords(m.listed || {})}, as “${m.list_name}” says.`
      : `Rejected: ${patron} is not the person on “${m.list_name}”. The match is kept with your note.`));
    await loadExclusionLists();
  });

  // Confirming excludes the patron for good or for the list's time, and nothing shortens it: asked twice.
  const sureText = el("span", {});
  const yes = el("button", { type: "button", class: "danger exclusion-confirm-yes", onclick: () => review("confirm", yes) },
    `Yes, exclude ${patron}`);
  const notYet = el("button", { type: "button", class: "quiet exclusion-confirm-cancel", onclick: () => { sure.hidden = true; } },
    "Not yet");
  const sure = el("p", { class: "exclusion-sure", hidden: true }, sureText, " ", yes, " ", notYet);
  const confirm = el("button", {
    type: "button", class: "danger exclusion-confirm",
    onclick: () => run(confirm, problem, async () => {
      noteNeeded("confirm");
      sureText.textContent = `Exclude ${patron} from play and deposits ${exclusionWords(m.listed || {})}? `
        + "It cannot be undone or shortened.";
      sure.hidden = false;
      yes.focus();
    }),
  }, "Confirm: the same person");
  const reject = el("button", { type: "button", class: "quiet exclusion-reject", onclick: () => review("reject", reject) },
    "Reject: not the same person");
  return el("div", { class: "exclusion-review" },
    el("div", { class: "field wide" },
      el("label", { for: noteId }, `Note (required): why ${patron} is, or is not, the person on the list`),
      el("textarea", { id: noteId, class: "exclusion-note", rows: 2, maxlength: 2000 })),
    el("div", { class: "row" }, confirm, reject),
    sure, problem);
}

/** A refused review in words. */
function reviewRefusal(e, m) {
  if (!(e instanceof ApiProblem)) return e;
  const said = (sentence) => ({ sentence, code: e.code, status: e.status });
  if (e.status === 403) {
    return said(`You imported “${m.list_name}”, so you cannot review its matches: a second person, another pit boss `
      + "or an auditor, does.");
  }
  switch (e.code) {
    case "match_reviewed":
      return said("This match was already reviewed: show the matches again to see how.");
    case "invalid_exclusion_list":
      return said("Write a note saying why, in at most 2000 characters.");
    case "not_found":
      return said("This match is no longer listed: show the matches again.");
    default:
      return e;
  }
}
