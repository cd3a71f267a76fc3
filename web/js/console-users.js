// Users: the accounts the role may list (pit boss and auditor: everyone; a
// cashier: players), creating accounts (pit boss: any role; cashier:
// players), and for the pit boss: role, deactivation, ending sessions,
// lifting lockouts and resetting a password. What gives a pit boss's or an
// auditor's powers is only proposed: a second pit boss approves it.

import {
  ctx, isPitBoss, isCashier, el, fill, when, field, selectField, alertBox, statusBox, value, $, run, failed,
  refreshPeople, peopleList, rememberPerson, showProblem, proposalNotice,
} from "./console-common.js";
import { act, ApiProblem, ROLE_NAMES as ROLE_NAME } from "./api.js";
const STAFF = ["dealer", "cashier", "pitboss", "auditor"];

let selected = null;

export function render(panel, what) {
  const filters = el("div", { class: "row" },
    field("users-search", "Find by username or name", { type: "search", autocomplete: "off" }),
    isCashier() ? null : selectField("users-role", "Role", [["", "Every role"], ...Object.entries(ROLE_NAME)], ""),
    el("button", { type: "button", id: "users-refresh", class: "quiet", onclick: () => reload() }, "Refresh"));
  fill(panel,
    el("h2", {}, "Users"),
    el("div", { class: "columns users" },
      el("section", { class: "panel", "aria-labelledby": "users-title" },
        el("h3", { id: "users-title" }, isCashier() ? "Players" : "Accounts"),
        filters,
        alertBox("users-problem"),
        el("div", { id: "users-list" }, el("p", { class: "muted" }, "Loading…"))),
      el("div", {},
        el("section", { class: "panel", id: "user-detail", "aria-labelledby": "user-detail-title", hidden: true }),
        isPitBoss() || isCashier() ? createSection() : null)));
  $("users-search").addEventListener("input", () => draw());
  if ($("users-role")) $("users-role").addEventListener("change", () => draw());
  reload().then(() => { if (what && what.id) select(what.id); });
}

export function shown(what) {
  if (what && what.id) select(what.id);
}

async function reload() {
  showProblem($("users-problem"), null);
  try {
    await refreshPeople();
    draw();
    if (selected) select(selected);
  } catch (e) {
    failed($("users-problem"), e);
  }
}

function draw() {
  const q = value("users-search").trim().toLowerCase();
  const role = $("users-role") ? $("users-role").value : "";
  const list = peopleList()
    .filter((u) => !role || u.role === role)
    .filter((u) => !q || u.username.includes(q) || (u.display_name || "").toLowerCase().includes(q))
    .sort((a, b) => a.username.localeCompare(b.username));
  const rows = list.map((u) => el("tr", { "data-user-id": u.id, "data-username": u.username, class: u.id === selected ? "selected" : "" },
    el("td", {}, el("button", {
      type: "button", class: "link user-select", "data-user-id": u.id, "data-username": u.username,
      onclick: () => select(u.id),
    }, u.username)),
    el("td", {}, u.display_name),
    el("td", {}, ROLE_NAME[u.role] || u.role),
    el("td", {}, u.active ? el("span", { class: "ok" }, "active") : el("span", { class: "bad" }, "deactivated")),
    el("td", {}, u.must_change_password ? el("span", { class: "pending" }, "must choose a new one") : ""),
    el("td", { class: "small", title: when(u.created_at_us) }, new Date(u.created_at_us / 1000).toLocaleDateString())));
  fill($("users-list"), list.length === 0 ? el("p", { class: "empty" }, "Nobody matches.") : el("table", { id: "users-table" },
    el("caption", {}, `${list.length} account${list.length === 1 ? "" : "s"}`),
    el("thead", {}, el("tr", {}, ["Username", "Name", "Role", "Account", "Password", "Created"].map((h) => el("th", { scope: "col" }, h)))),
    el("tbody", {}, rows)));
}

function select(id) {
  selected = id;
  draw();
  const u = peopleList().find((x) => x.id === id);
  const box = $("user-detail");
  if (!u) { box.hidden = true; return; }
  box.hidden = false;
  box.dataset.userId = u.id;
  box.dataset.username = u.username;
  const problem = alertBox("user-problem");
  const result = statusBox("user-result");
  const self = ctx.session && u.id === ctx.session.user_id;
  const path = `/api/v1/users/${encodeURIComponent(u.id)}`;
  // A pit boss's or an auditor's powers wait for a second pit boss: the answer is a proposal.
  const proposed = (p, what) => fill($("user-result"), proposalNotice(p, what));
  const done = async (sentence) => {
    await refreshPeople();
    select(u.id);
    fill($("user-result"), el("p", { class: "ok" }, sentence));
  };

  const actions = [];
  if (isPitBoss() && !self) {
    // Role: a player's cannot change, and staff cannot become players.
    if (u.role !== "player") {
      const save = el("button", {
        type: "button", id: "user-role-save",
        onclick: () => run(save, problem, async () => {
          const role = value("user-role");
          const answer = await act("PUT", path, { role });
          if (isProposal(answer)) return proposed(answer, `make ${u.username} ${ROLE_NAME[role]}`);
          await done(`${u.username} is now ${ROLE_NAME[role]}; their sessions ended.`);
        }),
      }, "Change the role");
      actions.push(el("div", { class: "row" },
        selectField("user-role", "Role", STAFF.map((r) => [r, ROLE_NAME[r]]), u.role), save));
    }
    const toggle = el("button", {
      type: "button", id: "user-active-toggle", class: u.active ? "danger" : "",
      onclick: () => run(toggle, problem, async () => {
        const answer = await act("PUT", path, { active: !u.active });
        if (isProposal(answer)) return proposed(answer, `reactivate ${u.username}`);
        await done(u.active ? `${u.username} is deactivated; their sessions ended.` : `${u.username} is active again.`);
      }),
    }, u.active ? "Deactivate" : "Reactivate");
    const logout = el("button", {
      type: "button", id: "user-logout", class: "quiet",
      onclick: () => run(logout, problem, async () => {
        await act("POST", path + "/logout");
        await done(`Every session of ${u.username} has ended.`);
      }),
    }, "End every session");
    const unlock = el("button", {
      type: "button", id: "user-unlock", class: "quiet",
      onclick: () => run(unlock, problem, async () => {
        await act("POST", path + "/unlock");
        await done(`The login lockouts of ${u.username} are lifted.`);
      }),
    }, "Lift login lockouts");
    actions.push(el("div", { class: "row" }, toggle, logout, unlock));

    const reset = el("button", {
      type: "submit", id: "user-reset-password",
    }, "Reset the password");
    const suggest = el("button", {
      type: "button", id: "user-temp-suggest", class: "quiet",
      onclick: () => { $("user-temp-password").value = temporaryPassword(); },
    }, "Suggest one");
    const form = el("form", { id: "user-reset-form", class: "subpanel" },
      el("h4", {}, "Reset the password"),
      el("p", { class: "muted small" },
        `${u.username} signs in with this temporary password and must then choose their own. Every session of theirs ends now.`),
      el("div", { class: "row" },
        field("user-temp-password", "Temporary password (10 to 128 characters)",
          { type: "text", minlength: 10, maxlength: 128, required: true, autocomplete: "off", spellcheck: "false" }),
        suggest, reset));
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      run(reset, problem, async () => {
        const temporary = value("user-temp-password");
        if (temporary.length < 10 || temporary.length > 128) throw { sentence: "A temporary password has 10 to 128 characters." };
        let answer;
        try {
          answer = await act("POST", path + "/password", { temporary_password: temporary });
        } catch (e) {
          if (e instanceof ApiProblem && e.status === 404 && /endpoint/.test(e.message)) {
            throw { sentence: "This djego cannot reset passwords yet: the server has no such endpoint." };
          }
          throw e;
        }
        $("user-temp-password").value = "";
        if (isProposal(answer)) {
          return proposed(answer, `reset the password of ${u.username} (give them the temporary password once it is approved)`);
        }
        await done(`The password of ${u.username} is reset: give them the temporary password; they choose their own at their next sign-in.`);
      });
    });
    actions.push(form);
  } else if (isPitBoss() && self) {
    actions.push(el("p", { class: "muted" }, "This is your own account: another pit boss changes it."));
  }

  fill(box,
    el("h3", { id: "user-detail-title" }, u.username),
    el("dl", { class: "facts" },
      el("dt", {}, "Name"), el("dd", {}, u.display_name),
      el("dt", {}, "Role"), el("dd", { id: "user-detail-role" }, ROLE_NAME[u.role] || u.role),
      el("dt", {}, "Account"), el("dd", { id: "user-detail-active" }, u.active ? "active" : "deactivated"),
      u.must_change_password ? [el("dt", {}, "Password"), el("dd", { id: "user-detail-password" }, "reset: must choose a new one at the next sign-in")] : null,
      el("dt", {}, "Created"), el("dd", {}, when(u.created_at_us)),
      el("dt", {}, "Id"), el("dd", {}, el("code", {}, u.id))),
    u.role === "player" ? el("p", {}, el("button", {
      type: "button", id: "user-open-cage", class: "quiet",
      onclick: () => ctx.goTo("cage", { id: u.id }),
    }, "Open the wallet at the cage")) : null,
    actions, problem, result);
}

/** Whether an answer is a proposal waiting for a second pit boss (a 202) rather than the change made. */
function isProposal(answer) {
  return Boolean(answer && answer.kind && answer.status && answer.proposed_by);
}

/** 16 characters from an alphabet without look-alikes, from the browser's CSPRNG. */
function temporaryPassword() {
  const alphabet = "abcdefghjkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789";
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => alphabet[b % alphabet.length]).join("");
}

function createSection() {
  const problem = alertBox("create-user-problem");
  const result = statusBox("create-user-result");
  const button = el("button", { type: "submit", id: "create-user-button" }, isCashier() ? "Create the player" : "Create the account");
  const form = el("form", { id: "create-user" },
    el("div", { class: "grid" },
      field("new-user-name", "Username (3–32 letters, digits, . _ -)", { required: true, minlength: 3, maxlength: 32, autocomplete: "off", pattern: "[A-Za-z0-9._\\-]{3,32}" }),
      field("new-user-display", "Display name (optional)", { maxlength: 64, autocomplete: "off" }),
      isCashier()
        ? selectField("new-user-role", "Role", [["player", "player"]], "player")
        : selectField("new-user-role", "Role", Object.entries(ROLE_NAME), "player"),
      field("new-user-password", "Password (10–128 characters)", { type: "text", minlength: 10, maxlength: 128, required: true, autocomplete: "off", spellcheck: "false" })),
    button, problem, result);
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    run(button, problem, async () => {
      fill(result);
      const display = value("new-user-display").trim();
      const user = await act("POST", "/api/v1/users", {
        username: value("new-user-name").trim(),
        display_name: display === "" ? null : display,
        role: value("new-user-role"),
        password: value("new-user-password"),
      });
      if (isProposal(user)) {
        form.reset();
        fill(result, proposalNotice(user, `create the account ${user.request.username} (${ROLE_NAME[user.request.role]})`));
        return;
      }
      rememberPerson(user);
      form.reset();
      await refreshPeople();
      draw();
      fill(result, el("p", { class: "ok" }, `Created ${user.username} (${ROLE_NAME[user.role] || user.role}). `,
        el("button", { type: "button", class: "quiet", onclick: () => select(user.id) }, "Show")));
    });
  });
  return el("section", { class: "panel", id: "create-user-section", "aria-labelledby": "create-user-title" },
    el("h3", { id: "create-user-title" }, isCashier() ? "Create a player" : "Create an account"),
    form);
}
