// "My limits": the player's own protection — what they deposited, staked and lost over the
// last day, week and month, their limits on money and on a session's length (a raise waits 24
// hours and a confirmation), and a time-out or self-exclusion, asked twice before it starts.

import { $, act, el, fill, get, table, when } from "./api.js";
import { attempt, say } from "./player-common.js";
import { refreshWallet } from "./player-wallet.js";

const KIND_WORDS = { deposit: "Deposits", loss: "Losses", stake: "Stakes" };
const PERIOD_WORDS = { day: "24 hours", week: "7 days", month: "30 days" };
const BREAK_WORDS = { time_out: "Time-out", self_exclusion: "Self-exclusion" };

let started = false;

export function openLimits() {
  if (!started) {
    started = true;
    $("limit-form").addEventListener("submit", (e) => { e.preventDefault(); setLimit(); });
    $("break-form").addEventListener("submit", (e) => { e.preventDefault(); askBreak(); });
    $("break-cancel").addEventListener("click", () => { $("break-confirm-line").hidden = true; });
    $("break-confirm").addEventListener("click", takeBreak);
    $("reality-form").addEventListener("submit", (e) => { e.preventDefault(); setRealityCheck(); });
    $("session-limit-form").addEventListener("submit", (e) => { e.preventDefault(); setSessionLimit(); });
  }
  loadSession();
  return loadProtection();
}

// --- Reality checks ------------------------------------------------------

let checkTimer = null;

function sessionWords(s) {
  if (!s.in_session) return "You are not in a session: no play in the last " + `${s.session_gap_minutes} minutes.`;
  const net = s.net.startsWith("-") ? `down ${s.net.slice(1)}` : `up ${s.net}`;
  const stops = s.play_stops_at_us === null ? "" : ` Your session length stops your bets at ${when(s.play_stops_at_us)}.`;
  return `You have played for ${s.minutes_played} minutes since ${when(s.started_at_us)}: staked ${s.staked}, won back ${s.returned}, ${net}.${stops}`;
}

function everyWords(minutes) {
  return minutes === null ? "You see no reality check." : `You see a reality check every ${minutes} minutes of play.`;
}

async function loadSession() {
  try {
    const s = await get("/api/v1/me/session");
    $("session-line").textContent = `${sessionWords(s)} ${everyWords(s.reality_check_minutes)}`;
    $("reality-minutes").value = s.reality_check_minutes === null ? "" : String(s.reality_check_minutes);
    schedule(s);
  } catch (e) {
    say($("reality-alert"), e);
  }
}

async function setRealityCheck() {
  const v = $("reality-minutes").value;
  const s = await attempt($("reality-button"), $("reality-alert"), (onRetry) =>
    act("PUT", "/api/v1/me/reality-check", { minutes: v === "" ? null : Number(v) }, { onRetry }));
  if (!s) return;
  $("session-line").textContent = `${sessionWords(s)} ${everyWords(s.reality_check_minutes)}`;
  schedule(s);
}

// Shows the check when it is due by the service's clock, not the device's: the
// check waited for is due once, in the same session, the service names a later
// one as next. A device clock running ahead only makes the page ask again (every
// 5 seconds), never show a check early or twice. While no session runs, looks
// again in a minute.
function schedule(s, atLeastMs = 1_000) {
  clearTimeout(checkTimer);
  if (s.reality_check_minutes === null) return;
  const wait = s.next_check_at_us === null ? 60_000 : Math.max(atLeastMs, s.next_check_at_us / 1000 - Date.now());
  checkTimer = setTimeout(async () => {
    try {
      const now = await get("/api/v1/me/session");
      const sameSession = now.in_session && now.started_at_us === s.started_at_us;
      const due = sameSession && s.next_check_at_us !== null && now.next_check_at_us > s.next_check_at_us;
      if (due) showCheck(now);
      const early = sameSession && !due && now.next_check_at_us === s.next_check_at_us;
      schedule(now, early ? 5_000 : 1_000);
    } catch { /* signed out: no more checks */ }
  }, wait);
}

function showCheck(s) {
  const dialog = $("reality-check");
  $("reality-check-text").textContent = sessionWords(s);
  $("reality-keep").onclick = () => dialog.close();
  $("reality-stop").onclick = () => { dialog.close(); location.hash = "limits"; };
  if (!dialog.open) dialog.showModal();
}

/** Starts the reality checks for a signed-in player, whatever tab they open first. */
export function startRealityChecks() {
  get("/api/v1/me/session").then(schedule).catch(() => {});
}

function until(us) {
  return us === null || us === undefined ? "for good" : `until ${when(us)}`;
}

async function loadProtection() {
  try {
    const p = await get("/api/v1/me/protection");
    const status = $("protection-status");
    if (p.excluded) {
      status.className = "bad";
      status.textContent = `${BREAK_WORDS[p.excluded.kind]}: your play and deposits are stopped ${until(p.excluded.ends_at_us)}. You can still cash out.`;
    } else {
      status.className = "ok";
      status.textContent = "Your play is open.";
    }
    fill($("protection-totals"), table([
      ["Over the last", (t) => PERIOD_WORDS[t.period]],
      ["Deposited", (t) => t.deposited],
      ["Staked", (t) => t.staked],
      ["Lost", (t) => (t.lost.startsWith("-") ? `none (ahead ${t.lost.slice(1)})` : t.lost)],
    ], p.totals, { caption: "Deposits, stakes and losses" }));
    const set = p.limits.filter((l) => l.amount !== null || l.pending);
    fill($("limit-list"), set.length ? table([
      ["Limit on", (l) => `${KIND_WORDS[l.kind]} over ${PERIOD_WORDS[l.period]}`],
      ["Now", (l) => el("span", { "data-limit": `${l.kind}-${l.period}` }, l.amount === null ? "no limit" : l.amount)],
      ["Waiting", (l) => pendingCell(l)],
    ], set, { caption: "Your limits" }) : el("p", { class: "empty" }, "You have set no limit."));
    showSessionLimit(p.session_limit);
    fill($("exclusion-list"), p.exclusions.length ? table([
      ["What", (x) => BREAK_WORDS[x.kind]],
      ["From", (x) => when(x.starts_at_us)],
      ["Until", (x) => (x.ends_at_us === null ? "for good" : when(x.ends_at_us))],
      ["", (x) => (x.in_force ? "in force" : "over")],
    ], p.exclusions, { caption: "Time-outs and self-exclusions" }) : el("p", { class: "empty" }, "No time-out or self-exclusion."));
    return p;
  } catch (e) {
    say($("limit-alert"), e);
    return null;
  }
}

function pendingCell(l) {
  if (!l.pending) return "";
  const to = l.pending.amount === null ? "no limit" : l.pending.amount;
  const from = l.pending.confirmable_from_us;
  if (Date.now() * 1000 < from) return `${to}, which you may confirm from ${when(from)}`;
  const button = el("button", { type: "button", class: "quiet" }, `Confirm ${to}`);
  button.addEventListener("click", () => attempt(button, $("limit-alert"), async (onRetry) => {
    await act("POST", `/api/v1/me/limits/${l.kind}/${l.period}/confirm`, undefined, { onRetry });
    await loadProtection();
  }));
  return el("span", {}, `${to} `, button);
}

async function setLimit() {
  const kind = $("limit-kind").value;
  const period = $("limit-period").value;
  const text = $("limit-amount").value.trim();
  $("limit-result").textContent = "";
  const view = await attempt($("limit-button"), $("limit-alert"), (onRetry) =>
    act("PUT", `/api/v1/me/limits/${kind}/${period}`, { amount: text === "" ? null : text }, { onRetry }));
  if (!view) return;
  const what = `${KIND_WORDS[view.kind]} over ${PERIOD_WORDS[view.period]}`;
  $("limit-result").textContent = view.pending
    ? `${what}: ${view.pending.amount === null ? "no limit" : view.pending.amount} waits 24 hours; confirm it here from ${when(view.pending.confirmable_from_us)}. Until then ${view.amount === null ? "no limit" : view.amount} applies.`
    : `${what}: ${view.amount === null ? "no limit" : view.amount}, from now.`;
  await loadProtection();
}

// --- Session length -------------------------------------------------------

function lengthWords(minutes) {
  if (minutes === null) return "no limit";
  if (minutes % 60 === 0) return minutes === 60 ? "an hour" : `${minutes / 60} hours`;
  return `${minutes} minutes`;
}

function showSessionLimit(limit) {
  const line = $("session-limit-line");
  const now = limit.minutes === null
    ? "Your sessions have no length limit."
    : `Your sessions end after ${lengthWords(limit.minutes)}.`;
  $("session-limit-minutes").value = limit.minutes === null ? "" : String(limit.minutes);
  if (!limit.pending) {
    fill(line, now);
    return;
  }
  const to = lengthWords(limit.pending.minutes);
  const from = limit.pending.confirmable_from_us;
  if (Date.now() * 1000 < from) {
    fill(line, `${now} You asked for ${to}, which you may confirm from ${when(from)}.`);
    return;
  }
  const button = el("button", { type: "button", class: "quiet", id: "session-limit-confirm" }, `Confirm ${to}`);
  button.addEventListener("click", () => attempt(button, $("session-limit-alert"), async (onRetry) => {
    await act("POST", "/api/v1/me/session-limit/confirm", undefined, { onRetry });
    await loadProtection();
    await loadSession();
  }));
  fill(line, `${now} You asked for ${to}: `, button);
}

async function setSessionLimit() {
  const v = $("session-limit-minutes").value;
  const limit = await attempt($("session-limit-button"), $("session-limit-alert"), (onRetry) =>
    act("PUT", "/api/v1/me/session-limit", { minutes: v === "" ? null : Number(v) }, { onRetry }));
  if (!limit) return;
  showSessionLimit(limit);
  await loadSession();
}

function breakBody() {
  const v = $("break-length").value;
  if (v === "permanent") return { path: "self-exclusion", body: { permanent: true } };
  const [unit, n] = v.split(":");
  return unit === "days"
    ? { path: "time-out", body: { days: Number(n) } }
    : { path: "self-exclusion", body: { months: Number(n) } };
}

function askBreak() {
  const choice = $("break-length").selectedOptions[0].textContent;
  $("break-confirm-text").textContent = `Stop your play and deposits for ${choice}? It cannot be undone.`;
  $("break-confirm-line").hidden = false;
  $("break-confirm").focus();
}

async function takeBreak() {
  const { path, body } = breakBody();
  const taken = await attempt($("break-confirm"), $("break-alert"), (onRetry) =>
    act("POST", `/api/v1/me/${path}`, body, { onRetry }));
  if (!taken) return;
  $("break-confirm-line").hidden = true;
  await loadProtection();
  await refreshWallet();
}
