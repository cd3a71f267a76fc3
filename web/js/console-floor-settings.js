// Floor settings (the Floor tab's "Settings"): the floor calendar (time zone,
// gaming-day cut-off, shifts), the pits (named groups of tables) and the
// rating rule. A pit boss edits them; everyone else reads what is in force.
// Each change is a significant event; after a save the page reads the rule
// back from the server and shows that, not what was typed. A calendar change
// waits for the next gaming day: the page shows it as pending until then.

import {
  isPitBoss, el, fill, get, when, field, alertBox, statusBox, value, $, run, failed,
  loadTables, tableName, facts, ctx, proposalNotice,
} from "./console-common.js";
import { act, ApiProblem } from "./api.js";

const MAX_SHIFTS = 8;

/** A server message inside our sentence: as it is, ending with a full stop. */
const period = (m) => {
  const s = String(m || "").trim();
  return /[.!?]$/.test(s) ? s : s + ".";
};

/** "06:00:00" as a person writes it, "06:00"; times with seconds stay as they are. */
export function hhmm(t) {
  return typeof t === "string" && /^\d\d:\d\d:00$/.test(t) ? t.slice(0, 5) : String(t ?? "");
}

/** The calendar in one line (the Floor tab's bar). */
export function calendarLine(c) {
  return `Calendar: ${c.timezone}, gaming days start at ${hhmm(c.day_starts_at)}; shifts `
    + c.shifts.map((s) => `${s.name} ${hhmm(s.starts_at)}`).join(", ")
    + `. Now: gaming day ${c.now.gaming_day}, shift ${c.now.shift}.`
    + (c.pending ? ` A new calendar takes effect ${when(c.pending.effective_from_us)}, from gaming day ${c.pending.first_gaming_day}.` : "");
}

let onCalendar = () => {};
let tables = [];
/** What the pit boss is editing, apart from what is in force. */
let calendarDraft = null;
let pitsDraft = null;

/**
 * Builds the section into `box`. `calendarChanged(calendar)` is told of each
 * calendar read back after a save (the tab's bar shows it).
 */
export function settingsSection(box, { calendarChanged } = {}) {
  onCalendar = calendarChanged || (() => {});
  const boss = isPitBoss();
  fill(box,
    el("h3", { id: "floor-settings-title" }, "Floor settings"),
    el("p", { class: "muted small" }, boss
      ? "A calendar change takes effect from the next gaming day, so a day that has begun, or is closed, never changes its bounds. The pits and the rating rule are rules for reading history: the reports apply the ones in force to past days too (a closed day keeps its own). Each change is recorded as a significant event with the old and the new rule."
      : "What is in force. A pit boss changes these; each change is recorded as a significant event with the old and the new rule."),
    el("div", { class: "settings" },
      el("div", { class: "subpanel", id: "calendar-part" },
        el("div", { class: "row spread" },
          el("h4", { id: "calendar-title" }, "Calendar: gaming days and shifts"),
          historyButton("calendar-history", "floor_calendar_changed")),
        alertBox("calendar-load-problem"),
        el("div", { id: "calendar-in-force", "aria-live": "polite" }, el("p", { class: "muted" }, "Loading…")),
        boss ? el("div", { id: "calendar-edit" }) : null),
      el("div", { class: "subpanel", id: "pits-part" },
        el("div", { class: "row spread" },
          el("h4", { id: "pits-title" }, "Pits"),
          historyButton("pits-history", "floor_pits_changed")),
        alertBox("pits-load-problem"),
        el("div", { id: "pits-in-force", "aria-live": "polite" }, el("p", { class: "muted" }, "Loading…")),
        boss ? el("div", { id: "pits-edit" }) : null),
      el("div", { class: "subpanel", id: "rating-part" },
        el("div", { class: "row spread" },
          el("h4", { id: "rating-title" }, "Rating rule"),
          historyButton("rating-history", "floor_rating_rule_changed")),
        alertBox("rating-load-problem"),
        el("div", { id: "rating-rule-in-force", "aria-live": "polite" }, el("p", { class: "muted" }, "Loading…")),
        boss ? el("div", { id: "rating-edit" }) : null)));
  loadCalendar();
  loadPits();
  loadRatingRule();
}

/** A way to the significant events of one kind, in the Audit tab. */
function historyButton(id, kind) {
  return el("button", {
    type: "button", id, class: "quiet",
    onclick: () => ctx.goTo("audit", { events: kind }),
  }, "See its changes");
}

// ---- the calendar ---------------------------------------------------------------------------

async function loadCalendar() {
  try {
    const c = await get("/api/v1/floor/calendar");
    showCalendar(c);
    onCalendar(c);
    if (isPitBoss()) editCalendar(c);
  } catch (e) {
    failed($("calendar-load-problem"), e);
  }
}

function showCalendar(c) {
  fill($("calendar-in-force"),
    el("p", { class: "in-force-label" }, "In force:"),
    facts([
      ["Time zone", el("span", { id: "calendar-in-force-timezone" }, c.timezone)],
      ["Gaming days start", el("span", { id: "calendar-in-force-day-starts" }, hhmm(c.day_starts_at))],
      ["Shifts", el("ol", { class: "shifts-in-force", id: "calendar-in-force-shifts" },
        c.shifts.map((s, i) => el("li", { "data-shift": s.name },
          `${s.name} from ${hhmm(s.starts_at)}`,
          el("span", { class: "muted" }, ` to ${hhmm((c.shifts[i + 1] || { starts_at: c.day_starts_at }).starts_at)}`))))],
      ["Now", `gaming day ${c.now.gaming_day}, shift ${c.now.shift} (until ${when(c.now.shift_ends_at_us)}; the day ends ${when(c.now.day_ends_at_us)})`],
    ]),
    c.pending ? el("div", { id: "calendar-pending" },
      el("p", { class: "in-force-label" },
        `From ${when(c.pending.effective_from_us)}, gaming day ${c.pending.first_gaming_day} on (the first day under it runs from then to its own cut-off):`),
      facts([
        ["Time zone", el("span", { id: "calendar-pending-timezone" }, c.pending.timezone)],
        ["Gaming days start", el("span", { id: "calendar-pending-day-starts" }, hhmm(c.pending.day_starts_at))],
        ["Shifts", el("ol", { class: "shifts-in-force", id: "calendar-pending-shifts" },
          c.pending.shifts.map((s) => el("li", { "data-shift": s.name }, `${s.name} from ${hhmm(s.starts_at)}`)))],
      ])) : null);
}

function editCalendar(c) {
  // A change replaces the one pending, if any: start from what will be in force next.
  const next = c.pending || c;
  calendarDraft = {
    timezone: next.timezone,
    day_starts_at: hhmm(next.day_starts_at),
    shifts: next.shifts.map((s) => ({ name: s.name, starts_at: hhmm(s.starts_at) })),
  };
  const zones = typeof Intl.supportedValuesOf === "function" ? Intl.supportedValuesOf("timeZone") : [];
  const problem = alertBox("calendar-problem");
  const result = statusBox("calendar-result");
  const save = el("button", { type: "submit", id: "calendar-save" }, "Save the calendar");
  const form = el("form", { id: "calendar-form", novalidate: true },
    el("h5", {}, "Change it"),
    el("div", { class: "row" },
      el("div", { class: "field" },
        el("label", { for: "calendar-timezone" }, "Time zone (IANA name)"),
        el("input", {
          id: "calendar-timezone", name: "calendar-timezone", list: "calendar-timezones", value: calendarDraft.timezone,
          autocomplete: "off", spellcheck: "false", placeholder: "Europe/Lisbon",
          oninput: (e) => { calendarDraft.timezone = e.target.value; },
        }),
        el("datalist", { id: "calendar-timezones" }, ["UTC", ...zones.filter((z) => z !== "UTC")].map((z) => el("option", { value: z })))),
      field("calendar-day-starts", "Gaming days start at (the cut-off)", {
        value: calendarDraft.day_starts_at, placeholder: "HH:MM", autocomplete: "off", inputmode: "numeric", class: "time-input",
        "aria-describedby": "calendar-day-starts-hint",
        oninput: (e) => { calendarDraft.day_starts_at = e.target.value; },
      })),
    el("p", { id: "calendar-day-starts-hint", class: "muted small" },
      "Local time, HH:MM. The first shift starts with the day; each next shift starts later, counting from the cut-off (a 02:00 shift after a 22:00 one belongs to the same gaming day)."),
    el("fieldset", { class: "options" },
      el("legend", {}, "Shifts, in order from the day's start"),
      el("ol", { id: "calendar-shifts", class: "plain shift-rows" }),
      el("button", { type: "button", id: "calendar-add-shift", class: "quiet", onclick: addShift }, "Add a shift")),
    el("div", { class: "row" }, save,
      el("button", { type: "button", id: "calendar-reset", class: "quiet", onclick: () => loadCalendar() }, "Undo my edits")),
    problem, result);
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    run(save, problem, async () => {
      fill(result);
      const spec = calendarSpec();
      let proposal;
      try {
        proposal = await act("PUT", "/api/v1/floor/calendar", spec);
      } catch (e) {
        if (e instanceof ApiProblem && e.code === "invalid_calendar") {
          throw { sentence: "Not proposed: " + calendarSentence(e.message) + " The calendar in force is unchanged, and so is any change pending." };
        }
        throw e;
      }
      fill($("calendar-result"), proposalNotice(proposal,
        "a new calendar: once a second pit boss approves it, it takes effect from the next gaming day not yet begun"));
    });
  });
  fill($("calendar-edit"), form);
  drawShifts();
}

function calendarSpec() {
  const dayStarts = calendarDraft.day_starts_at.trim();
  return {
    timezone: calendarDraft.timezone.trim(),
    day_starts_at: dayStarts,
    shifts: calendarDraft.shifts.map((s, i) => ({ name: s.name.trim(), starts_at: i === 0 ? dayStarts : s.starts_at.trim() })),
  };
}

/**
 * The server's sentence with shifts numbered as the form numbers them (from 1;
 * the server counts from 0) and its field names as a person says them.
 */
export function calendarSentence(message) {
  const m = String(message || "")
    .replace(/shifts\[(\d+)\]\.starts_at/g, (_, n) => `shift ${Number(n) + 1}'s start`)
    .replace(/\bshift (\d+)\b(?!'s)/g, (_, n) => `shift ${Number(n) + 1}`)
    .replace(/\bday_starts_at\b/g, "the gaming day's start");
  return period(m);
}

function drawShifts() {
  const list = $("calendar-shifts");
  const n = calendarDraft.shifts.length;
  fill(list, calendarDraft.shifts.map((s, i) => el("li", { class: "shift-row", "data-index": String(i) },
    field(`shift-name-${i}`, `Shift ${i + 1}: name`, {
      value: s.name, autocomplete: "off", maxlength: "32", class: "shift-name", "data-index": String(i),
      oninput: (e) => { calendarDraft.shifts[i].name = e.target.value; },
    }),
    i === 0
      ? el("p", { class: "muted small first-start" }, "starts when the gaming day does")
      : field(`shift-start-${i}`, `Shift ${i + 1}: starts at`, {
        value: s.starts_at, placeholder: "HH:MM", autocomplete: "off", inputmode: "numeric", class: "shift-start time-input", "data-index": String(i),
        oninput: (e) => { calendarDraft.shifts[i].starts_at = e.target.value; },
      }),
    el("button", {
      type: "button", class: "quiet shift-remove", "data-index": String(i), disabled: n <= 1,
      onclick: () => removeShift(i),
    }, `Remove shift ${i + 1}`))));
  $("calendar-add-shift").disabled = n >= MAX_SHIFTS;
}

function addShift() {
  if (calendarDraft.shifts.length >= MAX_SHIFTS) return;
  calendarDraft.shifts.push({ name: "", starts_at: "" });
  drawShifts();
  $(`shift-name-${calendarDraft.shifts.length - 1}`).focus();
}

function removeShift(i) {
  calendarDraft.shifts.splice(i, 1);
  drawShifts();
  const next = $(`shift-name-${Math.min(i, calendarDraft.shifts.length - 1)}`);
  if (next) next.focus();
}

// ---- the pits -------------------------------------------------------------------------------

async function loadPits() {
  try {
    const [p, list] = await Promise.all([get("/api/v1/floor/pits"), loadTables()]);
    tables = [...list].sort((a, b) => a.name.localeCompare(b.name));
    showPits(p);
    if (isPitBoss()) editPits(p);
  } catch (e) {
    failed($("pits-load-problem"), e);
  }
}

function showPits(p) {
  const pits = p.pits || [];
  const loose = tables.filter((t) => !pits.some((x) => x.table_ids.includes(t.id)));
  fill($("pits-in-force"),
    el("p", { class: "in-force-label" }, "In force:"),
    pits.length
      ? el("ul", { class: "plain pits-in-force", id: "pits-in-force-list" }, pits.map((x) => el("li", { "data-pit-name": x.name },
        el("span", { class: "who" }, x.name),
        x.table_ids.length ? x.table_ids.map(tableName).join(", ") : el("span", { class: "muted" }, "no tables"))))
      : el("p", { id: "pits-in-force-list", class: "empty" }, "No pits: each table counts on its own and in the floor's lines."),
    pits.length && loose.length
      ? el("p", { class: "muted small" }, `In no pit: ${loose.map((t) => t.name).join(", ")}.`) : null);
}

function editPits(p) {
  pitsDraft = (p.pits || []).map((x) => ({ name: x.name, table_ids: [...x.table_ids] }));
  const problem = alertBox("pits-problem");
  const result = statusBox("pits-result");
  const save = el("button", { type: "submit", id: "pits-save" }, "Save the pits");
  const form = el("form", { id: "pits-form", novalidate: true },
    el("h5", {}, "Change them"),
    el("p", { class: "muted small" }, "Each table is in at most one pit. Removing every pit leaves each table on its own."),
    el("div", { id: "pits-editor" }),
    el("div", { class: "row" },
      el("button", { type: "button", id: "pits-add", class: "quiet", onclick: addPit }, "Add a pit"),
      save,
      el("button", { type: "button", id: "pits-reset", class: "quiet", onclick: () => loadPits() }, "Undo my edits")),
    problem, result);
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    run(save, problem, async () => {
      fill(result);
      const spec = { pits: pitsDraft.map((x) => ({ name: x.name.trim(), table_ids: x.table_ids })) };
      try {
        await act("PUT", "/api/v1/floor/pits", spec);
      } catch (e) {
        if (e instanceof ApiProblem && e.code === "invalid_pits") {
          throw { sentence: "Not saved: " + pitsSentence(e.message) + " The pits in force are unchanged." };
        }
        throw e;
      }
      const now = await get("/api/v1/floor/pits");
      showPits(now);
      editPits(now);
      fill($("pits-result"), el("p", { class: "ok" },
        `Saved: the pits above are in force, recorded as the significant event floor_pits_changed.`));
    });
  });
  fill($("pits-edit"), form);
  drawPits();
}

/** The server's sentence with table ids as the tables' names. */
function pitsSentence(message) {
  return period(String(message || "").replace(/\btable ([0-9a-fA-F-]{36})\b/g, (_, id) => `table ${tableName(id)}`));
}

function drawPits() {
  const box = $("pits-editor");
  const pitOf = (tableId, except) => pitsDraft.findIndex((x, j) => j !== except && x.table_ids.includes(tableId));
  fill(box, pitsDraft.length ? pitsDraft.map((x, i) => {
    const known = new Set(tables.map((t) => t.id));
    const choices = [...tables.map((t) => ({ id: t.id, name: t.name })),
      ...x.table_ids.filter((id) => !known.has(id)).map((id) => ({ id, name: tableName(id) }))];
    return el("fieldset", { class: "options pit-edit", "data-index": String(i) },
      el("legend", { id: `pit-${i}-legend` }, pitLegend(i)),
      field(`pit-name-${i}`, "Name", {
        value: x.name, autocomplete: "off", maxlength: "64", class: "pit-name", "data-index": String(i),
        oninput: (e) => { pitsDraft[i].name = e.target.value; $(`pit-${i}-legend`).textContent = pitLegend(i); },
      }),
      el("p", { class: "small pit-tables-label", id: `pit-${i}-tables-label` }, "Its tables:"),
      el("ul", { class: "plain pit-tables", "aria-labelledby": `pit-${i}-tables-label` }, choices.map((t) => {
        const other = pitOf(t.id, i);
        const id = `pit-${i}-table-${t.id}`;
        return el("li", {},
          el("div", { class: "field check" },
            el("input", {
              type: "checkbox", id, class: "pit-table", "data-pit-index": String(i), "data-table-id": t.id, "data-table-name": t.name,
              checked: x.table_ids.includes(t.id),
              onchange: (e) => {
                const ids = pitsDraft[i].table_ids.filter((v) => v !== t.id);
                if (e.target.checked) ids.push(t.id);
                pitsDraft[i].table_ids = ids;
                drawPits();
                $(id).focus();
              },
            }),
            el("label", { for: id }, t.name,
              other >= 0 ? el("span", { class: "muted" }, ` (also in ${pitsDraft[other].name.trim() || `pit ${other + 1}`})`) : null)));
      })),
      el("button", {
        type: "button", class: "quiet pit-remove", "data-index": String(i),
        onclick: () => {
          pitsDraft.splice(i, 1);
          drawPits();
          $("pits-add").focus();
        },
      }, `Remove pit ${i + 1}`));
  }) : el("p", { class: "empty" }, "No pits in this draft."));
}

function pitLegend(i) {
  const name = pitsDraft[i].name.trim();
  return `Pit ${i + 1}${name ? `: ${name}` : ""}`;
}

function addPit() {
  pitsDraft.push({ name: "", table_ids: [] });
  drawPits();
  $(`pit-name-${pitsDraft.length - 1}`).focus();
}

// ---- the rating rule ------------------------------------------------------------------------

async function loadRatingRule() {
  try {
    const r = await get("/api/v1/floor/rating-rule");
    showRatingRule(r);
    if (isPitBoss()) editRatingRule(r);
  } catch (e) {
    failed($("rating-load-problem"), e);
  }
}

function showRatingRule(r) {
  fill($("rating-rule-in-force"),
    el("p", { class: "in-force-label" }, "In force:"),
    el("p", { id: "rating-rule-text" },
      `A pause of more than ${r.session_gap_minutes} minutes ends a player's session; `
      + `each unit of theoretical loss earns ${r.points_per_theo_unit} ${r.points_per_theo_unit === "1" ? "point" : "points"} (whole points, rounded down per session).`));
}

function editRatingRule(r) {
  const problem = alertBox("rating-problem");
  const result = statusBox("rating-result");
  const save = el("button", { type: "submit", id: "rating-save" }, "Save the rating rule");
  const form = el("form", { id: "rating-form", novalidate: true },
    el("h5", {}, "Change it"),
    el("div", { class: "row" },
      field("rating-gap", "Session gap (minutes, 1 to 1440)", {
        value: String(r.session_gap_minutes), inputmode: "numeric", autocomplete: "off",
      }),
      field("rating-points", "Points per unit of theoretical loss (0 to 1000)", {
        value: r.points_per_theo_unit, inputmode: "decimal", autocomplete: "off",
      }),
      save),
    problem, result);
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    run(save, problem, async () => {
      fill(result);
      const gap = value("rating-gap").trim();
      if (!/^[0-9]{1,5}$/.test(gap)) throw { sentence: "The session gap is a whole number of minutes, 1 to 1440." };
      const spec = { session_gap_minutes: Number(gap), points_per_theo_unit: value("rating-points").trim() };
      try {
        await act("PUT", "/api/v1/floor/rating-rule", spec);
      } catch (e) {
        if (e instanceof ApiProblem && e.code === "invalid_rating_rule") {
          throw { sentence: "Not saved: " + period(e.message) + " The rule in force is unchanged." };
        }
        throw e;
      }
      const now = await get("/api/v1/floor/rating-rule");
      showRatingRule(now);
      editRatingRule(now);
      fill($("rating-result"), el("p", { class: "ok" },
        "Saved: the rule above is in force, recorded as the significant event floor_rating_rule_changed; ratings are read with it, past days too."));
    });
  });
  fill($("rating-edit"), form);
}
