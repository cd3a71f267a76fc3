// Lobo against the house (docs/lobo.md): the terms before starting, the
// player's hand and the Wolf's as the round view gives them, cards picked as
// toggle buttons, the play they make, the solver's hint, folding and the result.

import { $, el, fill, get, act } from "./api.js";
import { cardName, cardText, rankOfCard, suitOfCard, cardElement } from "./cards.js";
import { cents, money } from "./money.js";
import { say, attempt, roundNamedIn, sentenceFor } from "./player-common.js";
import { refreshWallet } from "./player-wallet.js";
import { verifyPanel } from "./player-verify.js";
import { gameName } from "./games.js";

let table = null;   // the Lobo table (GET /api/v1/tables/{id})
let view = null;    // the round (LoboView)
let selected = new Set(); // "p:<id>" / "w:<id>"
let hinted = null;  // the hint's play, while it is for the position shown
let navigate = () => {};
let resumeId = null;
let wired = false;
let generation = 0; // a newer openLobo makes older loads stale

const KIND_WORDS = { perfect: "Perfect", sum: "Sum", split: "Split", over: "Over", fold: "Fold" };

function rule() {
  return (table && table.config.house_rule) || { fee_per_round_hundredths: 0, ante_per_wolf_point_hundredths: 0 };
}

const points = (cards) => cards.reduce((n, c) => n + rankOfCard(c), 0);
const ranks = (cards) => cards.map(rankOfCard).join(" + ");

/** The play in words: "Perfect: your 7⚔ takes the Wolf's 7♛; the cub comes to you." */
export function playText(p) {
  const mine = p.player_cards.map(cardText).join(" + ");
  const wolf = p.wolf_cards.map(cardText).join(" + ");
  switch (p.kind) {
    case "perfect": return `Perfect: your ${mine} takes the Wolf's ${wolf}; the cub comes to you.`;
    case "sum": return `Sum: your ${mine} (${points(p.player_cards)}) take the Wolf's ${wolf}; the cub comes to you.`;
    case "split": return `Split: your ${mine} takes the Wolf's ${wolf} (${ranks(p.wolf_cards)}); the cub goes to the Wolf.`;
    case "over": {
      const d = points(p.player_cards) - points(p.wolf_cards);
      return `Over by ${d}: your ${mine} takes the Wolf's ${wolf}; the Wolf is dealt ${d} card${d === 1 ? "" : "s"}.`;
    }
    case "fold": return "Fold.";
    default: return p.kind;
  }
}

function sameSet(a, b) {
  if (a.length !== b.length) return false;
  const s = new Set(a);
  return b.every((x) => s.has(x));
}

function selection() {
  const player = [], wolf = [];
  for (const k of selected) {
    const id = Number(k.slice(2));
    (k[0] === "p" ? player : wolf).push(id);
  }
  return { player, wolf };
}

function matchingPlay() {
  if (!view) return null;
  const { player, wolf } = selection();
  if (!player.length || !wolf.length) return null;
  return view.table.legal_plays.find((p) => p.kind !== "fold" && sameSet(p.player_cards, player) && sameSet(p.wolf_cards, wolf)) || null;
}

function foldCost() {
  const wolfPoints = points(view.table.wolf_hand);
  const paid = Math.min(wolfPoints, view.loss_cap_points);
  const unit = cents(view.unit);
  return { wolfPoints, paid, amount: unit === null ? null : money(unit * BigInt(paid)) };
}

// ---- starting ------------------------------------------------------------------------------------

/** What starting at `unit` holds and charges, in integer cents (docs/lobo.md §7). */
function startTerms(unitText) {
  const unit = cents(unitText);
  const c = table.config;
  if (unit === null || unit <= 0n) return null;
  const escrow = unit * BigInt(c.loss_cap_points);
  const r = rule();
  const feeHundredths = unit * BigInt(r.fee_per_round_hundredths);
  const fee = (feeHundredths + 99n) / 100n; // rounded up to the cent
  return { escrow, fee, ante: r.ante_per_wolf_point_hundredths, unit };
}

function showTerms() {
  const t = startTerms($("lobo-unit").value);
  if (!t) { $("lobo-terms").textContent = `Choose a unit from ${table.config.min_unit} to ${table.config.max_unit}.`; return; }
  const ante = t.ante
    ? ` plus ${money((t.unit * BigInt(t.ante) + 99n) / 100n)} per point of the Wolf's opening hand (known at the deal)`
    : "";
  fill($("lobo-terms"),
    el("span", {}, "Starting charges the house fee of ", el("strong", { id: "lobo-fee" }, money(t.fee)), ante,
      ", and holds ", el("strong", { id: "lobo-escrow" }, money(t.escrow)),
      ` (the loss cap of ${table.config.loss_cap_points} points × ${money(t.unit)}) until the round ends: `,
      "what you lose is taken from it and the rest comes back."));
}

async function start(event) {
  event.preventDefault();
  $("lobo-resume-line").hidden = true;
  const body = { unit: $("lobo-unit").value.trim() };
  const seed = $("lobo-seed").value;
  if (seed) body.client_seed = seed;
  await attempt($("lobo-start"), $("lobo-start-alert"), async (onRetry) => {
    const v = await act("POST", `/api/v1/tables/${encodeURIComponent(table.id)}/lobo-rounds`, body, { onRetry });
    show(v);
    navigate(`table=${encodeURIComponent(table.id)}&round=${encodeURIComponent(v.id)}`);
  }, (e) => {
    const open = roundNamedIn(e);
    if (e.code === "round_in_progress") {
      resumeId = open;
      $("lobo-resume-line").hidden = false;
    }
  });
  refreshWallet();
}

// ---- the round -----------------------------------------------------------------------------------

function cardButton(id, hand) {
  const key = `${hand[0]}:${id}`;
  const on = selected.has(key);
  const hint = hinted && (hand === "player" ? hinted.player_cards : hinted.wolf_cards).includes(id);
  const over = !view || view.status !== "in_play";
  return el("button", {
    type: "button",
    class: `card suit-${suitOfCard(id)}${on ? " selected" : ""}${hint ? " hinted" : ""}`,
    "data-card-id": id,
    "data-hand": hand,
    "aria-pressed": String(on),
    "aria-label": `${cardName(id)}${hand === "wolf" ? ", the Wolf's" : ", yours"}${hint ? " (the hint's)" : ""}`,
    disabled: over,
    onclick: () => {
      if (selected.has(key)) selected.delete(key); else selected.add(key);
      renderCards();
    },
  }, cardText(id));
}

function renderCards() {
  const tv = view.table;
  fill($("lobo-wolf"), tv.wolf_hand.length ? tv.wolf_hand.map((id) => cardButton(id, "wolf")) : el("p", { class: "muted" }, "Empty."));
  fill($("lobo-hand"), tv.player_hand.length ? tv.player_hand.map((id) => cardButton(id, "player")) : el("p", { class: "muted" }, "Empty."));
  $("lobo-wolf-points").textContent = `(${points(tv.wolf_hand)} points)`;
  $("lobo-hand-points").textContent = `(${points(tv.player_hand)} points)`;
  const play = matchingPlay();
  const live = view.status === "in_play";
  $("lobo-play").disabled = !live || !play;
  $("lobo-play").textContent = play ? `Play: ${KIND_WORDS[play.kind]}` : "Play";
  const { player, wolf } = selection();
  let words;
  if (!live) words = "";
  else if (play) words = playText(play);
  else if (!player.length && !wolf.length) {
    const n = tv.legal_plays.filter((p) => p.kind !== "fold").length;
    words = n ? `Pick one or more of your cards and one or more of the Wolf's (${n} capture${n === 1 ? "" : "s"} possible).`
      : "No capture is possible: you can only fold.";
  } else if (!player.length) words = "Now pick your card(s).";
  else if (!wolf.length) words = "Now pick the Wolf's card(s).";
  else words = "No legal play takes exactly these cards.";
  $("lobo-selection").textContent = words;
  $("lobo-selection").className = play || !(player.length && wolf.length) ? "" : "bad";
  $("lobo-fold").classList.toggle("hinted", !!(hinted && hinted.kind === "fold"));
}

function render() {
  const tv = view.table;
  const live = view.status === "in_play";
  $("lobo-start-panel").hidden = true;
  $("lobo-round").hidden = false;
  $("lobo-round").dataset.roundId = view.id;
  $("lobo-round").dataset.status = view.status;
  $("lobo-round").dataset.plays = String(view.plays_made);
  $("lobo-round-title").textContent = `Round ${view.number}`;
  fill($("lobo-round-info"),
    `Unit ${view.unit} · held ${view.escrow} · charged ${view.charge} · ${tv.mode} mode · commitment `,
    el("code", { title: "SHA-256 of the sealed server seed" }, view.commitment.slice(0, 16) + "…"),
    live && view.play_deadline_us
      ? el("span", { id: "lobo-deadline" },
        ` · folds for you if you make no play by ${new Date(view.play_deadline_us / 1000).toLocaleTimeString()}`)
      : null);
  fill($("lobo-cub"),
    tv.cub !== null && tv.cub !== undefined
      ? [el("span", {}, "Cub: "), cardElement(tv.cub, { id: "lobo-cub-card" }),
        el("span", { class: "muted" }, ` ${tv.cards_left} card${tv.cards_left === 1 ? "" : "s"} left, ${tv.face_down_left} face down`)]
      : el("span", { class: "muted" }, "The deck has run out: no cub."));
  renderCards();
  $("lobo-actions").hidden = !live;
  $("lobo-hint").hidden = !table.config.hints;
  if (live) {
    const f = foldCost();
    $("lobo-fold").textContent = `Fold (pay ${f.paid} point${f.paid === 1 ? "" : "s"} = ${f.amount})`;
    $("lobo-fold").setAttribute("aria-label",
      `Fold: the Wolf's hand is worth ${f.wolfPoints} points${f.paid < f.wolfPoints ? `, capped at ${f.paid}` : ""}; you pay ${f.amount}`);
  }
  fill($("lobo-plays"), tv.plays.length ? tv.plays.map((p) => el("li", {}, playText(p))) : el("li", { class: "muted" }, "None yet."));
  if (!live && view.result) renderResult();
  else if (view.status === "voided") renderVoid();
  else $("lobo-result").hidden = true;
}

function renderVoid() {
  fill($("lobo-result-body"),
    el("p", { id: "lobo-outcome" },
      `A pit boss voided this round: the ${view.escrow} held and the ${view.charge} charged came back to your wallet.`),
    view.server_seed ? el("p", { class: "muted small" }, "Server seed, revealed: ", el("code", {}, view.server_seed)) : null);
  showOver();
}

function renderResult() {
  const r = view.result;
  const reasons = {
    wolf_emptied: "You emptied the Wolf's hand.",
    folded: "You folded.",
    no_legal_play: "No capture was left.",
  };
  const net = cents(r.player_net);
  fill($("lobo-result-body"),
    el("p", { id: "lobo-outcome", class: r.player_won ? "ok" : "bad" },
      r.player_won ? `You won ${r.points} points: ${r.won}.` : `You lost ${r.paid_points} point${r.paid_points === 1 ? "" : "s"}: ${r.lost}.`,
      " ", r.timed_out ? "You made no play in time, so the round folded for you." : reasons[r.reason] || r.reason),
    el("dl", { class: "terms" },
      el("dt", {}, "Won"), el("dd", {}, r.won),
      el("dt", {}, "Lost"), el("dd", {}, r.lost),
      el("dt", {}, "Held, back to you"), el("dd", {}, r.released),
      el("dt", {}, "House fee"), el("dd", {}, view.charge),
      el("dt", {}, "Net, fee included"), el("dd", { id: "lobo-net", class: net !== null && net >= 0n ? "ok" : "bad" }, r.player_net)),
    view.server_seed ? el("p", { class: "muted small" }, "Server seed, revealed: ", el("code", {}, view.server_seed)) : null);
  showOver();
}

/** Shows the ended round's panel, with the check of its shuffle. */
function showOver() {
  $("lobo-result").hidden = false;
  if ($("lobo-verify-slot").dataset.roundId !== view.id) {
    $("lobo-verify-slot").dataset.roundId = view.id;
    fill($("lobo-verify-slot"), verifyPanel("lobo", view.id, { prefix: "lobo" }));
  }
}

function show(v) {
  const changed = !view || view.id !== v.id || view.plays_made !== v.plays_made;
  view = v;
  if (changed) {
    selected = new Set();
    hinted = null;
    $("lobo-hint-text").hidden = true;
    $("lobo-hint-text").textContent = "";
    delete $("lobo-hint-text").dataset.kind;
  }
  render();
}

async function reload() {
  const v = await get(`/api/v1/lobo-rounds/${encodeURIComponent(view.id)}`);
  show(v);
}

async function sendPlay() {
  const play = matchingPlay();
  if (!play) return;
  await attempt($("lobo-play"), $("lobo-alert"), async (onRetry) => {
    const v = await act("POST", `/api/v1/lobo-rounds/${encodeURIComponent(view.id)}/plays`, {
      kind: play.kind, player_cards: play.player_cards, wolf_cards: play.wolf_cards, expected_plays: view.plays_made,
    }, { onRetry });
    show(v);
  }, async (e) => { if (e.code === "stale_play") await reload().catch(() => {}); });
  refreshWallet();
}

async function fold() {
  await attempt($("lobo-fold"), $("lobo-alert"), async (onRetry) => {
    const v = await act("POST", `/api/v1/lobo-rounds/${encodeURIComponent(view.id)}/fold`, { expected_plays: view.plays_made }, { onRetry });
    show(v);
  }, async (e) => { if (e.code === "stale_play") await reload().catch(() => {}); });
  refreshWallet();
}

async function hint() {
  await attempt($("lobo-hint"), $("lobo-alert"), async () => {
    $("lobo-hint-text").hidden = false;
    $("lobo-hint-text").textContent = "Thinking…";
    delete $("lobo-hint-text").dataset.kind;
    const h = await get(`/api/v1/lobo-rounds/${encodeURIComponent(view.id)}/hint`);
    if (h.plays_made !== view.plays_made) { await reload(); return; }
    hinted = h.play;
    const value = typeof h.value_points === "number" ? ` Expected ${h.value_points >= 0 ? "+" : ""}${h.value_points.toFixed(2)} points from here.` : "";
    const what = h.play.kind === "fold" ? `Fold (pay ${foldCost().amount}).` : playText(h.play) + " The suggested cards are outlined.";
    fill($("lobo-hint-text"), el("strong", {}, "Hint: "), what, value, " ", el("span", { class: "muted small" }, `(${h.label})`),
      h.play.kind === "fold" ? null
        : el("div", {}, el("button", { type: "button", id: "lobo-hint-apply", class: "quiet", onclick: applyHint }, "Pick these cards")));
    $("lobo-hint-text").dataset.kind = h.play.kind;
    renderCards();
  }, () => { $("lobo-hint-text").hidden = true; });
}

function applyHint() {
  if (!hinted) return;
  selected = new Set([...hinted.player_cards.map((id) => `p:${id}`), ...hinted.wolf_cards.map((id) => `w:${id}`)]);
  renderCards();
  $("lobo-play").focus();
}

function wire() {
  if (wired) return;
  wired = true;
  $("lobo-start-form").addEventListener("submit", start);
  $("lobo-unit").addEventListener("input", showTerms);
  $("lobo-play").addEventListener("click", sendPlay);
  $("lobo-fold").addEventListener("click", fold);
  $("lobo-hint").addEventListener("click", hint);
  $("lobo-clear").addEventListener("click", () => { selected = new Set(); renderCards(); });
  $("lobo-again").addEventListener("click", () => navigate(`table=${encodeURIComponent(table.id)}`));
  $("lobo-resume").addEventListener("click", async () => {
    let id = resumeId;
    if (!id) {
      const mine = await get("/api/v1/me/rounds").catch(() => null);
      const open = mine && mine.open.find((r) => r.table_id === table.id && r.game === "lobo");
      id = open && open.round_id;
    }
    if (id) navigate(`table=${encodeURIComponent(table.id)}&round=${encodeURIComponent(id)}`);
  });
}

function showStart() {
  view = null;
  selected = new Set();
  hinted = null;
  $("lobo-round").hidden = true;
  $("lobo-result").hidden = true;
  $("lobo-start-panel").hidden = false;
  $("lobo-resume-line").hidden = true;
  say($("lobo-start-alert"), null);
  if (!$("lobo-unit").value) $("lobo-unit").value = table.config.min_unit;
  showTerms();
}

/** A share of the amount at risk, as people read it. */
const percent = (x) => `${x.toFixed(1)}%`;

/** The table's price in words: the fee, the house's proven edge, what the best player loses. */
async function showHouseEdge(t, mine) {
  const out = $("lobo-house-edge");
  out.textContent = "";
  let e;
  try {
    e = await get(`/api/v1/tables/${encodeURIComponent(t.id)}/lobo-house-edge`);
  } catch (err) {
    return; // the terms above still state the fee
  }
  if (mine !== generation) return;
  const units = (x) => x.toFixed(2);
  const edge = e.proven_house_edge_percent === null
    ? "This table's fee is not proven to favour the house (a pit boss opened it by override)."
    : `The house's edge is at least ${percent(e.proven_house_edge_percent)} of what you put at risk against any player, however skilled (proven at 99.9% confidence).`;
  const best = e.perfect_player_loss_units
    ? ` The best possible player loses between ${units(e.perfect_player_loss_units[0])} and ${units(e.perfect_player_loss_units[1])} units a round, fee included `
      + `(${percent(e.perfect_player_loss_percent[0])} to ${percent(e.perfect_player_loss_percent[1])} of the ${units(e.amount_at_risk_units)} units at risk on average); weaker play loses more.`
    : "";
  fill(out, [el("p", {}, `Fee ${units(e.charge_units)} units a round. ${edge}${best}`),
    el("details", {}, el("summary", {}, "How this is proven"), el("p", {}, e.basis))]);
}

/** Shows a Lobo table: the round `roundId`, else the player's open round here, else the start form. */
export async function openLobo(t, roundId, go) {
  wire();
  const mine = ++generation;
  navigate = go;
  table = t;
  $("lobo-title").textContent = t.name;
  const c = t.config;
  $("lobo-table-terms").textContent =
    `${gameName("lobo")} against the house, ${c.mode} mode · unit ${c.min_unit}–${c.max_unit} · loss cap ${c.loss_cap_points} points · ` +
    `fee ${money(BigInt(rule().fee_per_round_hundredths))} units a round` +
    (rule().ante_per_wolf_point_hundredths ? ` + ${money(BigInt(rule().ante_per_wolf_point_hundredths))} per Wolf point` : "") +
    ` · hints ${c.hints ? "offered" : "off"}`;
  say($("lobo-alert"), null);
  showHouseEdge(t, mine);
  $("lobo-unit").value = "";
  try {
    let id = roundId;
    if (!id) {
      const rounds = await get("/api/v1/me/rounds");
      const open = rounds.open.find((r) => r.table_id === t.id && r.game === "lobo");
      id = open && open.round_id;
    }
    if (mine !== generation) return;
    if (id) {
      const v = await get(`/api/v1/lobo-rounds/${encodeURIComponent(id)}`);
      if (mine !== generation) return;
      view = null;
      show(v);
    } else {
      showStart();
    }
  } catch (e) {
    showStart();
    $("lobo-start-alert").hidden = false;
    $("lobo-start-alert").textContent = sentenceFor(e);
  }
}

export function closeLobo() {
  generation++;
}
