// What the player app's screens share: the sentences a player reads for each
// refusal, running an action from a button, and a bet's selection in words.
// Cards come from cards.js, money from money.js and the side bets' names from
// words.js, as on every page.

import { ApiProblem } from "./api.js";
import { suitLabel } from "./cards.js";

// ---- sentences ---------------------------------------------------------------------------------

/** The id a 409 `round_in_progress` names ("…: <id>; finish it first"), if any. */
export function roundNamedIn(problem) {
  if (!problem || problem.code !== "round_in_progress") return null;
  const m = /:\s*([A-Za-z0-9_-]{6,});/.exec(problem.message || "");
  return m ? m[1] : null;
}

/**
 * What to tell the player about a refusal, in a sentence of its own. The
 * server's messages are sentences already; these codes get clearer words.
 */
export function sentenceFor(e) {
  if (!(e instanceof ApiProblem)) return e && e.sentence ? e.sentence : String((e && e.message) || e);
  const msg = e.message || "";
  switch (e.code) {
    case "insufficient_funds": {
      const m = /balance (-?[\d.]+), needs (-?[\d.]+)/.exec(msg);
      if (m) return `Not enough money in the wallet for that: it holds ${m[1]} and this needs ${m[2]}.`;
      const holds = /the wallet holds (-?[\d.]+)/.exec(msg);
      if (holds) return `Not enough money in the wallet for that: ${msg.replace(/\.$/, "")}.`;
      return "Not enough money in the wallet for that" + (msg ? `: ${msg.replace(/\.$/, "")}.` : ".");
    }
    case "betting_closed":
      return "Betting is closed for this round.";
    case "excluded_from_play":
      return capitalFirst(msg.replace("the player is", "you are").replace("the player has excluded themself", "you have excluded yourself")) + ".";
    case "play_limit_reached":
      return capitalFirst(msg.replace("the player's", "your").replace("limit they set", "limit you set")) + ".";
    case "wrong_round_state":
      if (/take a seat|round is (closed|copa|in_play|finished|settled|voided)/.test(msg) && /seat|bet/.test(msg)) {
        return "Betting is closed for this round.";
      }
      return e.sentence;
    case "round_in_progress":
      return /Lobo/.test(msg)
        ? "You already have a Lobo round in play at this table: finish it first (resume it below)."
        : "This table already has a round in progress.";
    case "stale_play":
      return "The round moved on since this screen last showed it; it has been reloaded — look again and choose.";
    case "hints_off":
      return "This table does not offer hints.";
    case "illegal_play":
      return "That play is not allowed: " + msg.replace(/\.$/, "") + ".";
    case "pay_table_mismatch":
      return "The pays of this round are not the ones shown; they have been reloaded — check them and bet again.";
    case "suit_taken":
      return "That suit is taken: choose another.";
    case "already_seated":
      return "You already hold a seat in this round.";
    case "table_full":
      return "All five suits are taken.";
    case "table_closed":
      return "This table is closed.";
    case "stale_quote":
      return "The prices moved: a new card was dealt before this reached the table. The new prices and cash-out values are shown — look again.";
    case "count_not_offered":
      return "That count is not offered at the current prices: choose one the ladder offers.";
    case "betting_window_closed":
      return "Betting on this card has closed: wait for the next card.";
    case "not_your_turn":
      return "It is not your turn to decide: " + msg.replace(/\.$/, "") + ".";
    case "idempotency_key_reused":
      return "That action was already sent with other details; reload and try again.";
    default:
      return e.sentence;
  }
}

/** Shows a refusal in a role="alert" node (or clears it with null). */
export function say(node, e) {
  if (!e) { node.textContent = ""; node.hidden = true; return; }
  node.hidden = false;
  node.textContent = sentenceFor(e);
}

/**
 * Runs an action from a button: disabled meanwhile, the alert cleared first,
 * the refusal shown after, and "Retrying…" while the network is down.
 * `work(onRetry)` gets the callback to pass to api.js `act`.
 */
export async function attempt(button, alertNode, work, onError) {
  button.disabled = true;
  button.setAttribute("aria-busy", "true");
  if (alertNode) say(alertNode, null);
  const onRetry = (n) => {
    if (alertNode) { alertNode.hidden = false; alertNode.textContent = `The connection dropped; retrying safely (attempt ${n + 1})…`; }
  };
  try {
    const answer = await work(onRetry);
    if (alertNode) say(alertNode, null);
    return answer;
  } catch (e) {
    if (alertNode) say(alertNode, e);
    if (onError) onError(e);
    return undefined;
  } finally {
    button.disabled = false;
    button.removeAttribute("aria-busy");
  }
}

/** "betting" → "Betting open", etc. */
export function roundStatusText(status) {
  return {
    betting: "Betting open",
    closed: "Betting closed — waiting for the deal",
    copa: "Copa",
    in_play: "Repasso being dealt",
    finished: "Finished — waiting for the dealer to settle",
    settled: "Settled",
    voided: "Voided",
  }[status] || status;
}

/** The selection of a bet as words. */
export function selectionText(selection) {
  if (!selection || selection === "none") return "—";
  if (selection.suit) return suitLabel(selection.suit);
  if (selection.number !== undefined) return `N = ${selection.number}`;
  return JSON.stringify(selection);
}

function capitalFirst(text) {
  return text ? text[0].toUpperCase() + text.slice(1) : text;
}
