// The wallet strip at the top of the player app: the balance, re-read after
// every action, what changed, and the history of transfers, page by page.

import { $, el, fill, get, table, when } from "./api.js";
import { cents, signed } from "./money.js";
import { say } from "./player-common.js";
import { transferName, memoWords } from "./words.js";

const PAGE = 10;

let account = null;
let playerId = null;
let lastBalance = null;
let offset = 0;

export function startWallet(session) {
  playerId = session.user_id;
  $("wallet-history-toggle").addEventListener("click", () => {
    const open = $("wallet-history").hidden;
    $("wallet-history").hidden = !open;
    $("wallet-history-toggle").setAttribute("aria-expanded", String(open));
    if (open) loadHistory();
  });
  $("history-newer").addEventListener("click", () => { offset = Math.max(0, offset - PAGE); loadHistory(); });
  $("history-older").addEventListener("click", () => { offset += PAGE; loadHistory(); });
  return refreshWallet();
}

/** Re-reads the balance (and the open history page); call it after every action. */
export async function refreshWallet() {
  try {
    const w = await get("/api/v1/me/wallet");
    account = w.account;
    const now = cents(w.balance);
    $("wallet-balance").textContent = w.balance;
    $("wallet-balance").dataset.balance = w.balance;
    if (lastBalance !== null && now !== null && now !== lastBalance) {
      $("wallet-change").textContent = `${signed(now - lastBalance)} just now`;
    }
    lastBalance = now;
    say($("wallet-alert"), null);
    if (!$("wallet-history").hidden) await loadHistory();
    return w;
  } catch (e) {
    say($("wallet-alert"), e);
    return null;
  }
}

async function loadHistory() {
  try {
    const rows = await get(`/api/v1/wallets/${encodeURIComponent(playerId)}/transactions?limit=${PAGE}&offset=${offset}`);
    fill($("wallet-history-table"), table([
      ["When", (t) => when(t.created_at_us)],
      ["What", (t) => {
        // The memo in words, or nothing: djego's own memos name accounts by id, which a player never sees.
        const memo = memoWords(t.memo);
        return el("span", { "data-kind": t.kind }, transferName(t.kind), memo ? el("span", { class: "muted small" }, " — " + memo) : null);
      }],
      ["Amount", (t) => {
        const out = t.debit_account === account;
        const c = cents(t.amount);
        return el("span", { class: out ? "debit" : "credit" }, c === null ? t.amount : signed(out ? -c : c));
      }],
    ], rows, { caption: "Transfers, newest first", empty: offset ? "No older transfers." : "No transfers yet." }));
    $("history-newer").disabled = offset === 0;
    $("history-older").disabled = rows.length < PAGE;
    $("history-page").textContent = rows.length ? `${offset + 1}–${offset + rows.length}` : "";
  } catch (e) {
    say($("wallet-alert"), e);
  }
}
