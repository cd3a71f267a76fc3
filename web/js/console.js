// The pit, cage and audit console: one page, a tab per kind of work, and
// each role sees only the tabs its role may use (the API decides anyway).

import { requireSession, header, fill } from "./api.js";
import { ctx } from "./console-common.js";
import * as tables from "./console-tables.js";
import * as proposals from "./console-proposals.js";
import * as users from "./console-users.js";
import * as cage from "./console-cage.js";
import * as audit from "./console-audit.js";
import * as floor from "./console-floor.js";
import * as compliance from "./console-compliance.js";
import { loadGames } from "./games.js";

/** Which roles see which tab (openapi.json's descriptions; docs/security.md). */
const TABS = [
  { name: "tables", module: tables, roles: ["pitboss", "auditor"] },
  { name: "proposals", module: proposals, roles: ["pitboss", "auditor"] },
  { name: "users", module: users, roles: ["pitboss", "auditor", "cashier"] },
  { name: "cage", module: cage, roles: ["cashier", "pitboss", "auditor"] },
  { name: "audit", module: audit, roles: ["auditor", "pitboss"] },
  { name: "floor", module: floor, roles: ["pitboss", "auditor"] },
  { name: "compliance", module: compliance, roles: ["auditor", "pitboss"] },
];

const session = requireSession(["pitboss", "cashier", "auditor"]);

if (session) start(session);

async function start(s) {
  ctx.session = s;
  ctx.role = s.role;
  document.body.dataset.role = ctx.role;
  fill(document.getElementById("console-header"), header(s, "djego console"));

  const mine = TABS.filter((t) => t.roles.includes(ctx.role));
  const rendered = new Set();
  const tablist = document.getElementById("console-tabs");

  function show(name, what) {
    const tab = mine.find((t) => t.name === name) || mine[0];
    for (const t of mine) {
      const button = document.getElementById("tab-" + t.name);
      const panel = document.getElementById("panel-" + t.name);
      const on = t === tab;
      button.setAttribute("aria-selected", on ? "true" : "false");
      button.tabIndex = on ? 0 : -1;
      panel.hidden = !on;
    }
    if (!rendered.has(tab.name)) {
      rendered.add(tab.name);
      tab.module.render(document.getElementById("panel-" + tab.name), what);
    } else if (tab.module.shown) {
      tab.module.shown(what);
    }
    if (location.hash !== "#" + tab.name) history.replaceState(null, "", "#" + tab.name);
    document.title = `djego — ${tab.name} — console`;
  }
  ctx.goTo = show;

  for (const t of mine) {
    const button = document.getElementById("tab-" + t.name);
    button.hidden = false;
    button.addEventListener("click", () => show(t.name));
    // Arrow keys move between tabs, as a tab list should.
    button.addEventListener("keydown", (event) => {
      const i = mine.indexOf(t);
      let next = null;
      if (event.key === "ArrowRight") next = mine[(i + 1) % mine.length];
      if (event.key === "ArrowLeft") next = mine[(i - 1 + mine.length) % mine.length];
      if (event.key === "Home") next = mine[0];
      if (event.key === "End") next = mine[mine.length - 1];
      if (next) {
        event.preventDefault();
        show(next.name);
        document.getElementById("tab-" + next.name).focus();
      }
    });
  }
  // Every tab names games as the registry does; without it they are named by id.
  await loadGames().catch(() => null);
  tablist.hidden = false;
  document.getElementById("console-loading").remove();
  window.addEventListener("hashchange", () => show(location.hash.slice(1)));
  show(location.hash.slice(1) || mine[0].name);
}
