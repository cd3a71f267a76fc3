// What the dealer terminal's games share: running one action from a button,
// and a refusal or a lost connection as a sentence.

import { showProblem, capitalise, ApiProblem, NetworkProblem } from "./api.js";

/**
 * Runs one action from a button: disables it, says when it is retrying after
 * a network drop (the same Idempotency-Key is reused), shows any refusal as
 * a sentence in `alertNode`.
 */
export async function step(button, alertNode, doing, progress, work, explain) {
  button.disabled = true;
  button.setAttribute("aria-busy", "true");
  showProblem(alertNode, null);
  const onRetry = (n) => {
    progress.textContent = `djego did not answer while ${doing} — retrying safely (try ${n + 1} of 4)…`;
    progress.dataset.retrying = "true";
  };
  try {
    await work(onRetry);
  } catch (e) {
    const own = explain ? explain(e) : null;
    showProblem(alertNode, { sentence: own || sentenceOf(e) });
  } finally {
    progress.textContent = "";
    delete progress.dataset.retrying;
    button.disabled = false;
    button.removeAttribute("aria-busy");
  }
}

export function sentenceOf(e) {
  if (e instanceof NetworkProblem) {
    return "djego cannot be reached. Check the connection and try again: an action that did land is never done twice.";
  }
  if (e instanceof ApiProblem) {
    if (e.status === 403) return capitalise(e.message);
    return e.sentence;
  }
  return (e && (e.sentence || e.message)) || String(e);
}
