// The Postas deck, as every page shows it (docs/prima-carta.md, docs/lobo.md):
// five suits of ten ranks; a card's id is suit × 10 + rank − 1, suits in deck
// order Crowns 0, Locks 1, Fruit 2, Swords 3, Cups 4. One name and one symbol
// per suit (DejaVu Sans, which every browser here has, carries them all).

import { el } from "./api.js";

/** The suits in deck order. */
export const SUITS = ["crowns", "locks", "fruit", "swords", "cups"];
export const SUIT_NAMES = { crowns: "Crowns", locks: "Locks", fruit: "Fruit", swords: "Swords", cups: "Cups" };
export const SUIT_SYMBOLS = { crowns: "♛", locks: "⚷", fruit: "❀", swords: "⚔", cups: "☕" };

/** "Swords" (an unknown suit as given). */
export const suitName = (suit) => SUIT_NAMES[suit] || String(suit ?? "");
/** "⚔" ("" for an unknown suit). */
export const suitSymbol = (suit) => SUIT_SYMBOLS[suit] || "";
/** "⚔ Swords". */
export const suitLabel = (suit) => `${suitSymbol(suit)} ${suitName(suit)}`.trim();

export const suitOfCard = (id) => SUITS[Math.floor(id / 10)];
export const rankOfCard = (id) => (id % 10) + 1;

/** "7 of Swords". */
export function cardName(id) {
  return `${rankOfCard(id)} of ${suitName(suitOfCard(id))}`;
}

/** "7⚔". */
export function cardText(id) {
  return `${rankOfCard(id)}${suitSymbol(suitOfCard(id)) || "?"}`;
}

const present = (id) => id !== null && id !== undefined;

/**
 * A card shown (not chosen): its text with the suit symbol, role="img" and
 * the card's name for screen readers, `data-card-id`, and class
 * `card suit-<suit>` plus `attrs.class`. No card (null) is a blank tile.
 */
export function cardElement(id, attrs = {}) {
  const { class: extra = "", ...rest } = attrs;
  if (!present(id)) {
    return el("span", { class: `card blank ${extra}`.trim(), role: "img", "aria-label": "no card", ...rest }, "—");
  }
  return el("span", {
    class: `card suit-${suitOfCard(id)} ${extra}`.trim(),
    role: "img",
    "aria-label": cardName(id),
    "data-card-id": String(id),
    ...rest,
  }, cardText(id));
}
