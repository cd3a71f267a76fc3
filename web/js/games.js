// The games djego runs, as its game registry describes them (GET /api/v1/games):
// every page names games and tells what a table is played for from this list,
// never from a list of its own, so a game added to the registry is named right
// everywhere. Load it once (`loadGames`) before rendering names.

import { get } from "./api.js";

const byId = new Map();
let loading = null;

/** Reads the registry once per page; a failed read is tried again at the next call. */
export function loadGames() {
  if (!loading) {
    loading = get("/api/v1/games").then((list) => {
      for (const g of list) byId.set(g.game, g);
      return list;
    }).catch((e) => { loading = null; throw e; });
  }
  return loading;
}

/** Every game the registry lists, in its order ({game, name, summary, table_game, started_by}). */
export function games() {
  return [...byId.values()];
}

/** The registry's entry for a game id, or null. */
export function game(id) {
  return byId.get(id) || null;
}

/** A game's name as people read it ("Peg Leg"); before the registry answers, its id in words. */
export function gameName(id) {
  const g = byId.get(id);
  if (g) return g.name;
  const words = String(id || "a game").replace(/_/g, " ");
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** The game a table deals: the registry's entry whose id is the table's `config.game`. */
export function gameOfTable(t) {
  return byId.get(t && t.config && t.config.game) || null;
}

/** Whether a table's rounds are started by its dealer (so the dealer terminal deals there). */
export function dealtByDealer(t) {
  const g = gameOfTable(t);
  return !!g && g.started_by === "dealer";
}
