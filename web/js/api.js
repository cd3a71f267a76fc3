// The one way the pages talk to djego: its public API, with the caller's
// token, errors turned into sentences, and money-moving calls retried safely
// after a network drop by reusing their Idempotency-Key.

const SESSION_KEY = "djego.session";

/** The signed-in account of this tab: {token, role, user_id, username, expires_at, must_change_password}. */
export function session() {
  try {
    const s = JSON.parse(sessionStorage.getItem(SESSION_KEY) || "null");
    if (s && s.expires_at * 1000 > Date.now()) return s;
  } catch (_) { /* a damaged entry is no session */ }
  return null;
}

function saveSession(s) {
  sessionStorage.setItem(SESSION_KEY, JSON.stringify(s));
}

export function forgetSession() {
  sessionStorage.removeItem(SESSION_KEY);
}

/** The page each role works at. */
export const HOME = { player: "/player", dealer: "/dealer", cashier: "/console", pitboss: "/console", auditor: "/console" };

/** Each role as people say it. */
export const ROLE_NAMES = { player: "player", dealer: "dealer", cashier: "cashier", pitboss: "pit boss", auditor: "auditor" };

/** Sends the browser to sign in, saying why. */
export function signInAgain(reason) {
  forgetSession();
  const q = reason ? "?reason=" + encodeURIComponent(reason) : "";
  location.assign("/" + q);
}

/**
 * The session for a page meant for `roles`, or a trip to the sign-in page.
 * An account whose password must change first is sent there.
 */
export function requireSession(roles) {
  const s = session();
  if (!s) { signInAgain("Please sign in."); return null; }
  if (s.must_change_password) { location.assign("/?change=1"); return null; }
  if (roles && !roles.includes(s.role)) { location.assign(HOME[s.role] || "/"); return null; }
  return s;
}

/** An answer djego gave that is not a success, in its one error shape. */
export class ApiProblem extends Error {
  constructor(status, code, message, details) {
    super(message);
    this.status = status;
    this.code = code;
    /** What the error shape's `details` adds (a refusal's figures), or null. */
    this.details = details ?? null;
  }
  /** What to tell a person. */
  get sentence() {
    return SENTENCES[this.code] ? SENTENCES[this.code](this.message) : capitalise(this.message);
  }
}

/** djego could not be reached at all (server down, network gone). */
export class NetworkProblem extends Error {
  get sentence() {
    return "djego cannot be reached. Check the connection; nothing was lost, try again.";
  }
}

const SENTENCES = {
  forbidden: () => "Your role may not do that.",
  rate_limited: () => "Too many attempts: wait a moment, then try again.",
  insufficient_funds: () => "Not enough money in the wallet for that.",
  password_change_required: () => "Choose a new password before going on.",
};

/** A server message as a sentence: capital first letter, a full stop at the end. */
export function capitalise(m) {
  m = String(m || "Something went wrong");
  const s = m.charAt(0).toUpperCase() + m.slice(1);
  return /[.!?]$/.test(s) ? s : s + ".";
}

/** A fresh key for one intended action; reuse it for every retry of that action. */
export function newIdempotencyKey() {
  return "ui-" + crypto.randomUUID();
}

/**
 * One call to the API. Resolves to the parsed body (or text for non-JSON),
 * rejects with ApiProblem or NetworkProblem. A 401 sends the page to sign in.
 */
export async function call(method, path, body, { idempotencyKey, accept } = {}) {
  const s = session();
  const headers = {};
  if (s) headers["authorization"] = "Bearer " + s.token;
  if (body !== undefined) headers["content-type"] = "application/json";
  if (idempotencyKey) headers["idempotency-key"] = idempotencyKey;
  if (accept) headers["accept"] = accept;
  let response;
  try {
    response = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  } catch (e) {
    throw new NetworkProblem(String(e));
  }
  const type = response.headers.get("content-type") || "";
  // JSON Lines (a transcript export) are text: many documents, one per line.
  const isJson = type.includes("json") && !type.includes("ndjson");
  const payload = isJson ? await response.json().catch(() => null) : await response.text();
  if (response.ok) return payload;
  const error = payload && payload.error ? payload.error : { code: "http_" + response.status, message: response.statusText };
  const problem = new ApiProblem(response.status, error.code, error.message, error.details);
  if (response.status === 401 && path !== "/api/v1/auth/login") signInAgain(problem.sentence);
  if (error.code === "password_change_required") location.assign("/?change=1");
  throw problem;
}

export const get = (path) => call("GET", path);

/**
 * A call that changes state, safe to retry: one Idempotency-Key for the
 * action, and up to `attempts` tries while the network is down (djego returns
 * the first answer again if the first try did land). `onRetry(n)` lets the
 * page say it is retrying.
 */
export async function act(method, path, body, { attempts = 4, onRetry, idempotencyKey } = {}) {
  const key = idempotencyKey || newIdempotencyKey();
  for (let n = 1; ; n++) {
    try {
      return await call(method, path, body, { idempotencyKey: key });
    } catch (e) {
      if (!(e instanceof NetworkProblem) || n >= attempts) throw e;
      if (onRetry) onRetry(n);
      await new Promise((r) => setTimeout(r, 500 * 2 ** (n - 1)));
    }
  }
}

export async function signIn(username, password) {
  const answer = await call("POST", "/api/v1/auth/login", { username, password });
  const s = {
    token: answer.access_token,
    role: answer.role,
    user_id: answer.user_id,
    username,
    expires_at: answer.expires_at,
    must_change_password: !!answer.must_change_password,
  };
  saveSession(s);
  return s;
}

export async function signOut() {
  try { await call("POST", "/api/v1/auth/logout"); } catch (_) { /* signing out locally is enough */ }
  forgetSession();
  location.assign("/");
}

// ---- small DOM helpers -------------------------------------------------

/** The element with this id. */
export const $ = (id) => document.getElementById(id);

/** `el("button", {class: "x", onclick: f}, "text", child…)` */
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith("on") && typeof v === "function") node.addEventListener(k.slice(2), v);
    else if (k === "class") node.className = v;
    else if (k === "text") node.textContent = v;
    else node.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children.flat()) {
    if (c === undefined || c === null || c === false) continue;
    node.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return node;
}

/** Replaces a container's content. */
export function fill(node, ...children) {
  node.replaceChildren(...children.flat().filter((c) => c !== undefined && c !== null && c !== false));
  return node;
}

/** Shows a problem (or clears it with null) in an element with role="alert". */
export function showProblem(node, problem) {
  if (!problem) { node.textContent = ""; node.hidden = true; return; }
  node.hidden = false;
  node.textContent = problem.sentence || String(problem.message || problem);
}

/** Runs an action from a button: disables it, shows what failed, re-enables. */
export async function busy(button, alertNode, work) {
  button.disabled = true;
  button.setAttribute("aria-busy", "true");
  if (alertNode) showProblem(alertNode, null);
  try {
    return await work();
  } catch (e) {
    if (alertNode) showProblem(alertNode, e);
    else throw e;
  } finally {
    button.disabled = false;
    button.removeAttribute("aria-busy");
  }
}

/** A table of rows: `columns` = [[heading, row => value], …]. */
export function table(columns, rows, { caption, empty = "Nothing yet." } = {}) {
  if (!rows || rows.length === 0) return el("p", { class: "empty" }, empty);
  return el("table", {},
    caption ? el("caption", {}, caption) : null,
    el("thead", {}, el("tr", {}, columns.map(([h]) => el("th", { scope: "col" }, h)))),
    el("tbody", {}, rows.map((r) => el("tr", {}, columns.map(([, f]) => el("td", {}, f(r)))))));
}

/** A time from microseconds since the epoch, in the browser's zone. */
export function when(us) {
  if (us === undefined || us === null) return "";
  return new Date(Number(us) / 1000).toLocaleString();
}

/** The header every signed-in page shows: who, and a way out. */
export function header(s, title) {
  return el("header", { class: "bar" },
    el("h1", {}, title),
    el("span", { class: "who" }, `${s.username} (${ROLE_NAMES[s.role] || s.role})`),
    el("a", { href: "/?change=1", class: "quiet", id: "change-password-link" }, "Change password"),
    el("button", { type: "button", class: "quiet", onclick: signOut }, "Sign out"));
}
