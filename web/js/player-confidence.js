// Confidence bets between players at a Prima Carta round (docs/confidence-bets.md): the offers
// and bets of the round from my side of them, with Take, Decline and Withdraw where I may, and a
// form to offer one. The live stream names nobody, so the list is read as a view made for me
// whenever the round changes.

import { $, el, fill, get, act } from "./api.js";
import { SUITS, suitName, suitLabel } from "./cards.js";
import { cents, money } from "./money.js";
import { attempt, say } from "./player-common.js";
import { refreshWallet } from "./player-wallet.js";
import { showFuerza } from "./player-fuerza.js";

let round = null;
let isMine = () => false; // whether I hold a suit in the round shown
let bets = [];
let loadedFor = null; // the round, version and bets the list was read for
let wired = false;

const KINDS = {
  prima: { name: "Prima", rule: "the suit gets the first card", window: "betting" },
  wins: { name: "Wins the pot", rule: "the suit wins the pot", window: "betting" },
  first_to_complete: { name: "First to complete", rule: "the suit is the first to complete its ten cards", window: "betting" },
  first_pass_count: { name: "First-pass count", rule: "the first pass leaves that many cards in the stacks", window: "betting" },
  fuerza: { name: "Fuerza", rule: "the suit, whose player paid the copa, wins the pot", window: "copa" },
  seguro: { name: "Seguro", rule: "pay part of a player's copa for a share of what they win", window: "copa" },
};

const STATUS_WORDS = {
  offered: "open",
  accepted: "taken: stands until the round ends",
  withdrawn: "withdrawn",
  declined: "declined",
  expired: "expired unanswered",
  settled: "settled",
  void: "void under its terms: stakes returned",
  refunded: "round voided: stakes returned",
};

/** The proposition in words. */
function termsText(t) {
  switch (t.kind) {
    case "prima": return `${suitName(t.suit)} gets the first card${t.ace_voids ? " (void if it is their 1)" : ""}`;
    case "fuerza": return `${suitName(t.suit)} wins the pot (Fuerza)`;
    case "seguro": return `Seguro: part of ${suitName(t.suit)}'s copa for ${t.share_bp / 100}% of what ${suitName(t.suit)} wins`;
    case "wins": return `${suitName(t.suit)} wins the pot`;
    case "first_to_complete": return `${suitName(t.suit)} is the first suit to complete`;
    case "first_pass_count": return t.min === t.max
      ? `the first pass leaves ${t.min} cards`
      : `the first pass leaves ${t.min} to ${t.max} cards`;
    default: return "a bet";
  }
}

/** A party in words: "you", "the Crowns player", or "a backer". */
function partyText(p) {
  if (!p) return "";
  if (p.you) return "you";
  const seat = round && round.seats.find((s) => s.player === p.player);
  return seat ? `the ${suitName(seat.suit)} player` : "a backer";
}

/** My side of a bet, or null when I am not a party. */
function mySide(b) {
  if (b.offered_by.you) return b.offerer_side;
  if (b.accepted_by && b.accepted_by.you) return b.offerer_side === "for" ? "against" : "for";
  return null;
}

function stakeOf(b, side) {
  return side === "for" ? b.for_stake : b.against_stake;
}

/** One line on what a bet means for me. */
function whatItMeans(b) {
  const side = mySide(b);
  const mayTake = !side && b.status === "offered" && (!b.offered_to || b.offered_to.you);
  const viewSide = side || (mayTake ? (b.offerer_side === "for" ? "against" : "for") : null);
  if (!viewSide) {
    return `${partyText(b.offered_by)} ${b.offerer_side === "for" ? "backs" : "lays"} it: ${stakeOf(b, b.offerer_side)} against ${stakeOf(b, b.offerer_side === "for" ? "against" : "for")}.`;
  }
  const mine = stakeOf(b, viewSide);
  const theirs = stakeOf(b, viewSide === "for" ? "against" : "for");
  if (b.terms.kind === "seguro") {
    if (b.status === "settled") {
      return viewSide === "for"
        ? (b.winner_side === "for" ? `They won: ${b.paid} of their winnings paid to you.` : "They lost: your contribution went into their copa.")
        : (b.winner_side === "for" ? `You won: ${money((cents(b.paid) || 0n) + (cents(b.commission) || 0n))} of your winnings went to your backer.` : "You kept the contribution toward your copa.");
    }
    return viewSide === "for"
      ? `You put ${b.for_stake} toward their copa, for ${b.terms.share_bp / 100}% of what they win; back if they fold.`
      : `${b.for_stake} toward your copa when you pay it, for ${b.terms.share_bp / 100}% of what you win.`;
  }
  const verb = viewSide === "for" ? "that it happens" : "that it does not happen";
  if (b.status === "settled") {
    return b.winner_side === viewSide
      ? `You won: ${b.paid} paid to you (${b.commission} commission).`
      : `You lost your ${mine} stake.`;
  }
  return `${side ? "You stake" : "Taking it stakes"} ${mine} ${verb}, to win ${theirs} (less the table's commission).`;
}

function actionButton(label, action, b, cls) {
  return el("button", {
    type: "button", class: cls || "", "data-action": action, "data-bet-id": b.id,
    onclick: (ev) => answer(action, b.id, ev.currentTarget),
  }, label);
}

function renderList() {
  const line = resultLine();
  $("confidence-result").hidden = !line;
  $("confidence-result").textContent = line || "";
  const list = $("confidence-list");
  if (!bets.length) {
    fill(list, el("p", { class: "empty" }, "No bets between players on this round yet."));
    return;
  }
  fill(list, el("ul", { class: "confidence-bets", "aria-label": "Bets between players" }, bets.map((b) => {
    const side = mySide(b);
    const open = b.status === "offered";
    const buttons = [];
    if (open && b.offered_by.you) buttons.push(actionButton("Withdraw", "withdraw", b, "quiet"));
    if (open && !side && (!b.offered_to || b.offered_to.you)) buttons.push(actionButton("Take it", "accept", b));
    if (open && b.offered_to && b.offered_to.you) buttons.push(actionButton("Decline", "decline", b, "quiet"));
    const to = b.offered_to ? ` to ${partyText(b.offered_to)}` : b.accepted_by ? "" : " to anyone";
    return el("li", { class: `confidence-bet${side ? " mine" : ""}`, "data-bet-id": b.id, "data-status": b.status },
      el("strong", {}, termsText(b.terms)), el("br"),
      el("span", { class: "small" }, `Offered by ${partyText(b.offered_by)}${to}`,
        b.accepted_by ? `, taken by ${partyText(b.accepted_by)}` : "", ` · ${STATUS_WORDS[b.status] || b.status}`),
      el("br"),
      el("span", { class: "confidence-meaning" }, whatItMeans(b)),
      buttons.length ? el("div", { class: "row" }, buttons) : null);
  })));
}

async function answer(action, id, button) {
  await attempt(button, $("confidence-alert"), async (onRetry) => {
    await act("POST", `/api/v1/confidence-bets/${encodeURIComponent(id)}/${action}`, {}, { onRetry });
    await load(true);
  });
  refreshWallet();
}

async function load(force) {
  if (!round) return;
  // An offer or an answer changes the round's bets, not its version: the stream's list says it.
  const key = `${round.id}/${round.version}/${(round.confidence_bets || []).map((b) => `${b.id}:${b.status}`).join(",")}`;
  if (!force && loadedFor === key) return;
  loadedFor = key;
  const id = round.id;
  try {
    const list = await get(`/api/v1/rounds/${encodeURIComponent(id)}/confidence-bets`);
    if (!round || round.id !== id) return;
    bets = list;
    renderList();
  } catch (_) { /* read again at the next change */ }
}

function windowNow() {
  if (!round) return null;
  return round.status === "betting" ? "betting" : round.status === "copa" ? "copa" : null;
}

function renderForm() {
  const now = windowNow();
  $("confidence-form").hidden = !now;
  if (!now) return;
  const kinds = Object.entries(KINDS).filter(([, k]) => k.window === now);
  const select = $("confidence-kind");
  const pairs = kinds.map(([v, k]) => [v, `${k.name}: ${k.rule}`]);
  const same = select.options.length === pairs.length && pairs.every(([v], i) => select.options[i].value === v);
  if (!same) fill(select, pairs.map(([v, t]) => el("option", { value: v }, t)));
  renderFields();
}

function renderFields() {
  const kind = $("confidence-kind").value;
  const seated = round ? round.seats.map((s) => s.suit) : [];
  const suits = kind === "prima" || kind === "fuerza" ? SUITS.filter((s) => seated.includes(s)) : SUITS;
  const select = $("confidence-suit");
  const current = select.value;
  const same = select.options.length === suits.length && suits.every((s, i) => select.options[i].value === s);
  if (!same) {
    fill(select, suits.map((s) => el("option", { value: s }, suitLabel(s))));
    if (suits.includes(current)) select.value = current;
  }
  $("confidence-suit-field").hidden = kind === "first_pass_count";
  $("confidence-count-field").hidden = kind !== "first_pass_count";
  $("confidence-ace-field").hidden = kind !== "prima";
  $("confidence-share-field").hidden = kind !== "seguro";
  $("confidence-taker-field").hidden = kind === "seguro";
  $("confidence-taker-stake").required = kind !== "seguro";
  const fixed = kind === "prima" || kind === "fuerza" || kind === "seguro";
  $("confidence-side-field").hidden = fixed;
  if (fixed) {
    const own = isMine(select.value);
    $("confidence-side-note").textContent = kind === "seguro"
      ? "Your stake is what you pay toward their copa; they stake nothing, and pay you your share only if they win."
      : own
        ? "You hold this suit: you lay the bet (you win if it does not happen)."
        : "You back the bet (you win if it happens); it goes to the suit's player.";
  } else {
    $("confidence-side-note").textContent = "";
  }
}

async function offer(event) {
  event.preventDefault();
  const kind = $("confidence-kind").value;
  const body = { kind, stake: $("confidence-stake").value.trim() };
  if (kind === "seguro") body.share_bp = Math.round(Number($("confidence-share").value) * 100);
  else body.taker_stake = $("confidence-taker-stake").value.trim();
  if (kind === "first_pass_count") {
    body.min = Number($("confidence-min").value);
    body.max = Number($("confidence-max").value);
  } else {
    body.suit = $("confidence-suit").value;
  }
  if (kind === "prima") body.ace_voids = $("confidence-ace").checked;
  if (!["prima", "fuerza", "seguro"].includes(kind)) body.side = $("confidence-side").value;
  const id = round.id;
  await attempt($("confidence-button"), $("confidence-alert"), async (onRetry) => {
    const b = await act("POST", `/api/v1/rounds/${encodeURIComponent(id)}/confidence-bets`, body, { onRetry });
    $("confidence-placed").textContent = b.terms.kind === "seguro"
      ? `Offered: ${termsText(b.terms)}, your ${b.for_stake}.`
      : `Offered: ${termsText(b.terms)}, your ${stakeOf(b, b.offerer_side)} against ${stakeOf(b, b.offerer_side === "for" ? "against" : "for")}.`;
    await load(true);
  });
  refreshWallet();
}

/** A one-line total of my confidence bets once the round is over, or null. */
function resultLine() {
  if (!round || !["settled", "voided"].includes(round.status)) return null;
  let net = 0n;
  let any = false;
  for (const b of bets) {
    const side = mySide(b);
    if (!side || !b.accepted_by) continue;
    any = true;
    if (b.status !== "settled") continue;
    if (b.terms.kind === "seguro") {
      // The backer's contribution became the backed player's; a share came back if they won.
      const contribution = cents(b.for_stake) || 0n;
      const share = (cents(b.paid) || 0n) + (cents(b.commission) || 0n);
      net += side === "for" ? (cents(b.paid) || 0n) - contribution : contribution - (b.winner_side === "for" ? share : 0n);
    } else {
      net += b.winner_side === side ? (cents(b.paid) || 0n) - (cents(stakeOf(b, side)) || 0n) : -(cents(stakeOf(b, side)) || 0n);
    }
  }
  if (!any) return null;
  return `Your bets between players: ${net >= 0n ? "+" : "−"}${money(net >= 0n ? net : -net)} net.`;
}

function wire() {
  if (wired) return;
  wired = true;
  $("confidence-form").addEventListener("submit", offer);
  $("confidence-kind").addEventListener("change", renderFields);
  $("confidence-suit").addEventListener("change", renderFields);
}

/** Shows the round's bets between players (null: no round); `mine(suit)` says whether I hold it. */
export function showConfidence(r, mine) {
  wire();
  isMine = mine;
  const newRound = !round || !r || round.id !== r.id;
  round = r || null;
  if (newRound) {
    bets = [];
    loadedFor = null;
    say($("confidence-alert"), null);
    $("confidence-placed").textContent = "";
  }
  $("confidence-panel").hidden = !round;
  // The house's Fuerza sits next to the bets between players (shown at Jasper tables only).
  showFuerza(round, mine);
  if (!round) return;
  const bp = Number(round.rules.confidence_commission_bp || 0);
  $("confidence-terms").textContent = "Bets you make with other players, held by the house until the round ends. " +
    (bp > 0
      ? `The house takes ${bp / 100}% of the winner's gain, at most ${round.rules.confidence_commission_cap} a bet.`
      : "The house takes no commission at this table.");
  renderForm();
  renderList();
  load(false);
}
