// /verify: anyone checks a round's shuffle from its transcript, with no
// account, and the transcript never sent to djego — the file is read and
// checked here (only the public list of games is read, to name them).

import { $, el, fill } from "./api.js";
import { isContestRecall, splitDocuments, verifyShuffle } from "./shuffle.js";
import { renderVerification } from "./player-verify.js";
import { loadGames, gameName } from "./games.js";

// Games are named as the registry names them (a public list; the transcript itself is never sent).
loadGames().catch(() => null);

function problem(text) {
  $("verify-alert").hidden = !text;
  $("verify-alert").textContent = text || "";
}

function describe(doc) {
  if (isContestRecall(doc)) return `${gameName("lobo_contest")}${doc.contest.id ? ` (${doc.contest.id})` : ""}: every entrant's deck`;
  const t = doc && typeof doc === "object" && doc.transcript && typeof doc.transcript === "object" ? doc.transcript : doc;
  if (!t || typeof t !== "object") return "Transcript";
  const game = gameName(t.game === "lobo" || (t.shuffle && t.shuffle.game === "lobo") ? "lobo" : "prima_carta");
  const number = t.number !== undefined ? ` round ${t.number}` : "";
  const id = t.round_id || (t.shuffle && t.shuffle.round_id) || "";
  return `${game}${number}${id ? ` (${id})` : ""}`;
}

async function verifyText(text) {
  problem(null);
  if (!text.trim()) { problem("Choose, drop or paste a transcript first."); return; }
  let documents;
  try {
    documents = splitDocuments(text);
  } catch (e) {
    fill($("verify-result"));
    problem("This is not a transcript: the text is not JSON (" + e.message + ").");
    return;
  }
  if (!documents.length) { problem("The file holds no transcript."); return; }
  fill($("verify-result"), el("p", { class: "muted" }, "Checking…"));
  try {
    const results = [];
    for (const doc of documents) results.push([doc, await verifyShuffle(doc)]);
    const ok = results.filter(([, r]) => r.ok).length;
    fill($("verify-result"),
      results.length > 1
        ? el("p", { class: ok === results.length ? "ok" : "bad", id: "verify-summary" },
          `${ok} of ${results.length} transcripts verify.`)
        : null,
      results.map(([doc, r]) => renderVerification(r, { title: describe(doc) })));
    $("result-title").scrollIntoView({ block: "start" });
  } catch (e) {
    fill($("verify-result"));
    problem("The check could not run in this browser: " + e.message);
  }
}

async function readFile(file) {
  if (!file) return;
  try {
    const text = await file.text();
    $("transcript-text").value = text;
    await verifyText(text);
  } catch (e) {
    problem("The file could not be read: " + e.message);
  }
}

$("transcript-file").addEventListener("change", () => readFile($("transcript-file").files[0]));
$("verify-button").addEventListener("click", () => verifyText($("transcript-text").value));
$("verify-clear").addEventListener("click", () => {
  $("transcript-text").value = "";
  $("transcript-file").value = "";
  problem(null);
  fill($("verify-result"), el("p", { class: "muted" }, "Nothing checked yet."));
});

const zone = $("drop-zone");
zone.addEventListener("dragover", (e) => { e.preventDefault(); zone.classList.add("over"); });
zone.addEventListener("dragleave", () => zone.classList.remove("over"));
zone.addEventListener("drop", (e) => {
  e.preventDefault();
  zone.classList.remove("over");
  readFile(e.dataTransfer && e.dataTransfer.files[0]);
});
// A file dropped anywhere on the page is read too, rather than opened by the browser.
document.addEventListener("dragover", (e) => e.preventDefault());
document.addEventListener("drop", (e) => {
  if (e.target === zone || zone.contains(e.target)) return;
  e.preventDefault();
  readFile(e.dataTransfer && e.dataTransfer.files[0]);
});
