// A Prima Carta pay table as a player reads it: each bet, what it pays, and
// the RTP its certificate states (docs/side-bets.md, docs/math.md).

import { el, get } from "./api.js";
import { BET_KINDS, BET_NAMES, BET_RULES } from "./words.js";

const cache = new Map();

/** A stored pay table (PayTableView) by id, read once. */
export async function payTableById(id) {
  if (!cache.has(id)) cache.set(id, get(`/api/v1/pay-tables/${encodeURIComponent(id)}`).catch((e) => { cache.delete(id); throw e; }));
  return cache.get(id);
}

/** The certificate's entry for a bet kind (and Cartas number). */
export function certified(view, kind, number = null) {
  const bets = (view && view.certificate && view.certificate.bets) || [];
  return bets.find((b) => b.kind === kind && (number === null ? b.number === null || b.number === undefined : b.number === number)) || null;
}

/** "96.730%" (exact) or "96.730% (95%: 96.686–96.775%)" (estimated). */
export function rtpText(entry) {
  if (!entry || !entry.rtp) return "not certified";
  const r = entry.rtp;
  const pct = (x) => (Number(x) * 100).toFixed(3) + "%";
  if (r.kind === "exact") return pct(r.decimal !== undefined ? r.decimal : r.value) + " (exact)";
  if (r.low_95 !== undefined && r.high_95 !== undefined) return `${pct(r.value)} (95% CI ${pct(r.low_95)}–${pct(r.high_95)})`;
  return pct(r.value);
}

/** What a bet of `kind` pays under `spec`, in words ("4:1; 2:1 on an Ace"). */
export function paysText(spec, kind, number = null) {
  if (!spec) return "";
  switch (kind) {
    case "prima":
      return `${spec.prima.pays}:1; ${spec.prima.ace_pays}:1 when the first card is a 1`;
    case "escucha":
      return `${spec.escucha.pays}:1; ${spec.escucha.ace_pays}:1 when that suit's foundation is a 1`;
    case "maximo":
      return `${spec.maximo.pays}:1; tied with exactly one other suit: ${spec.maximo.pair_tie === "push" ? "stake returned" : "lose"}`;
    case "conto_alto":
    case "conto_bajo":
    case "conto_medio":
      return `${spec[kind]}:1`;
    case "cartas": {
      if (number !== null) {
        const line = spec.cartas.find((c) => c.number === number);
        return line ? `${line.pays}:1 on N = ${number}` : "not offered on that number";
      }
      return spec.cartas.length ? spec.cartas.map((c) => `${c.number} pays ${c.pays}:1`).join(", ") : "not offered";
    }
    case "comeco":
      return spec.comeco
        .map((l) => `${l.n_from === l.n_to ? "N " + l.n_from : `N ${l.n_from}–${l.n_to}`}: ${l.pays}:1`)
        .join(", ") + "; any other N loses";
    default:
      return "";
  }
}

/** The table of bets, pays and certified RTPs of a pay table (PayTableView). */
export function payTableTable(view, { id } = {}) {
  const spec = view.spec;
  const rows = [];
  for (const kind of BET_KINDS) {
    if (kind === "cartas") {
      for (const line of spec.cartas) {
        rows.push([`${BET_NAMES.cartas} ${line.number}`, `wins if the first pass counts exactly ${line.number}`,
          `${line.pays}:1`, rtpText(certified(view, "cartas", line.number)), kind]);
      }
      continue;
    }
    rows.push([BET_NAMES[kind], `wins if ${BET_RULES[kind]}`, paysText(spec, kind), rtpText(certified(view, kind)), kind]);
  }
  return el("table", { class: "paytable", id },
    el("caption", {}, `${view.name} v${view.version} — certified ${view.certificate && view.certificate.pass ? "✓" : ""}`),
    el("thead", {}, el("tr", {},
      el("th", { scope: "col" }, "Bet"), el("th", { scope: "col" }, "Pays"), el("th", { scope: "col" }, "Certified RTP"))),
    el("tbody", {}, rows.map(([name, rule, pays, rtp, kind]) =>
      el("tr", { "data-bet-kind": kind },
        el("th", { scope: "row" }, name, el("br"), el("span", { class: "muted small" }, rule)),
        el("td", {}, pays),
        el("td", { class: "rtp" }, rtp)))));
}
