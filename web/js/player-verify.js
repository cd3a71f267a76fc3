// Checking a round's shuffle in the browser (web/js/shuffle.js), and showing
// what the checks found: ✓ with every check, or ✗ with the first difference.
// Used by the player app and by /verify (which needs no account).

import { el, fill, get, ApiProblem } from "./api.js";
import { verifyShuffle } from "./shuffle.js";
import { cardName } from "./cards.js";
import { sentenceFor } from "./player-common.js";

function cardOrEnd(id) {
  return id === null || id === undefined ? "the end of the deck" : `${id} (${cardName(id)})`;
}

/** The first difference a failed check names, in words. */
export function differenceText(check) {
  const d = check.first_difference;
  if (d) {
    return `${check.name}: at position ${d.index} the shuffle gives ${cardOrEnd(d.expected)}, the transcript has ${cardOrEnd(d.found)}.`;
  }
  if (check.first_mismatch !== null && check.first_mismatch !== undefined) {
    return `${check.name}: first mismatch at ${check.first_mismatch} — ${check.detail}.`;
  }
  return `${check.name}: ${check.detail}.`;
}

/** The checks of one verifyShuffle answer as a verdict and a list. */
export function renderVerification(result, { title } = {}) {
  const failed = result.checks.filter((c) => !c.passed);
  const first = failed[0];
  const verdict = result.ok
    ? el("p", { class: "verdict ok", "data-ok": "true" },
      "✓ The shuffle verifies: the deck is the one the committed server seed and the client seed give.")
    : el("p", { class: "verdict bad", "data-ok": "false" },
      "✗ The shuffle does not verify. ",
      first ? el("span", { class: "first-difference" }, "First difference — " + differenceText(first)) : null);
  return el("div", { class: "verification" },
    title ? el("h3", {}, title) : null,
    verdict,
    el("ul", { class: "checks" }, result.checks.map((c) =>
      el("li", { class: c.passed ? "check passed" : "check failed", "data-check": c.name },
        el("span", { class: c.passed ? "ok" : "bad", role: "img", "aria-label": c.passed ? "passed" : "failed" }, c.passed ? "✓" : "✗"), " ",
        el("strong", {}, c.name), " — ", c.detail,
        !c.passed && c.first_difference ? el("div", { class: "small" }, differenceText(c)) : null))),
    result.version === 2
      ? el("p", { class: "muted small" },
        "This checks the shuffle only. It does not check the pay table (that it is one djego could certify), the play, the bets, any transfer, nor the proof the download carries that its transfers are all in the casino's signed ledger: ",
        el("code", {}, "djego verify round --public-key KEY FILE"), " and ", el("code", {}, "docs/verify/verify_round.py --public-key KEY FILE"),
        " check them, KEY being the casino's published checkpoint key.")
      : null);
}

/**
 * Where a player gets a round's transcript: the recall (own rounds), or, for
 * a Prima Carta round they cannot recall, the verification anyone can read.
 */
export async function fetchTranscript(game, roundId) {
  const id = encodeURIComponent(roundId);
  if (game === "lobo") return get(`/api/v1/lobo-rounds/${id}/recall`);
  if (game === "peg_leg") return get(`/api/v1/peg-leg-rounds/${id}/recall`);
  try {
    return await get(`/api/v1/rounds/${id}/recall`);
  } catch (e) {
    if (e instanceof ApiProblem && e.status === 403) return get(`/api/v1/rounds/${id}/verification`);
    throw e;
  }
}

/**
 * "Verify in the browser" and "Download transcript" for one settled round.
 * With `prefix` the controls get ids (`<prefix>-verify`, `<prefix>-verify-result`,
 * `<prefix>-download`); every panel also carries data-round-id.
 */
export function verifyPanel(game, roundId, { prefix } = {}) {
  const ids = (s) => (prefix ? `${prefix}-${s}` : undefined);
  const result = el("div", { class: "verify-result", id: ids("verify-result"), role: "status", "aria-live": "polite", "data-round-id": roundId });
  const alert = el("p", { class: "verify-alert", id: ids("verify-alert"), role: "alert", hidden: true });
  const download = el("a", { class: "download-transcript button-link", id: ids("download"), "data-round-id": roundId, hidden: true },
    "Download transcript");
  let fetched = null;

  async function transcript() {
    if (!fetched) {
      const answer = await fetchTranscript(game, roundId);
      fetched = answer;
      const blob = new Blob([JSON.stringify(answer, null, 2) + "\n"], { type: "application/json" });
      download.href = URL.createObjectURL(blob);
      download.download = `djego-${game}-round-${roundId}.json`;
      download.hidden = false;
      fetchButton.hidden = true;
    }
    return fetched;
  }

  const button = el("button", {
    type: "button", class: "verify-round", id: ids("verify"), "data-round-id": roundId,
    onclick: async () => {
      button.disabled = true;
      alert.hidden = true;
      fill(result, el("p", { class: "muted" }, "Checking the shuffle…"));
      try {
        const answer = await transcript();
        // A Peg Leg recall holds its shuffle transcript as `shuffle`; the quotes and bets are djego's to replay.
        const pegLeg = game === "peg_leg" && answer.shuffle && Array.isArray(answer.quotes);
        const doc = answer.transcript ? answer : pegLeg ? answer.shuffle : null;
        if (!doc) throw new Error("The round has no transcript yet: it is shown once the round is settled.");
        fill(result, renderVerification(await verifyShuffle(doc)), pegLeg ? el("p", { class: "muted small" },
          "This checks the shuffle. Every quote, bet and transfer is checked by ",
          el("code", {}, "djego verify round FILE"), " on the downloaded recall.") : null);
        result.scrollIntoView({ block: "nearest" });
      } catch (e) {
        fill(result);
        alert.hidden = false;
        alert.textContent = sentenceFor(e);
      } finally {
        button.disabled = false;
      }
    },
  }, "Verify in the browser");

  // The download link is offered as soon as the transcript is at hand.
  const fetchButton = el("button", {
    type: "button", class: "quiet get-transcript", id: ids("get-transcript"), "data-round-id": roundId,
    onclick: async () => {
      fetchButton.disabled = true;
      try { await transcript(); } catch (e) { alert.hidden = false; alert.textContent = sentenceFor(e); }
      finally { fetchButton.disabled = false; }
    },
  }, "Get the transcript");

  return el("div", { class: "verify-panel", "data-round-id": roundId },
    el("div", { class: "row" }, button, fetchButton, download),
    alert, result);
}
