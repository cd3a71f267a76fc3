// The staff's roster: the usernames behind account ids a staff screen was
// given (an event's actor, a round's seats, a dealer). One cache for every
// staff page — the console's `nameOf` and the dealer terminal read it — filled
// through `GET /api/v1/roster?ids=…` (staff only, at most 200 ids a request).
// Never used on a player's page: to a player another player is a pseudonym.

import { get } from "./api.js";

/** Most ids one roster request may name (src/api/users.rs). */
const BATCH = 200;

/** id → {id, username, display_name, role}, for the ids the roster named. */
const named = new Map();
/** Ids already asked for (named or not), so an unknown id is asked once. */
const asked = new Set();

/** Whether `s` is an account id (a UUID), not a pseudonym like "P1" or a name. */
export function isAccountId(s) {
  return typeof s === "string" && /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(s);
}

/**
 * Learns the usernames of `ids` not asked for yet, in batches; resolves when
 * they are known. A refusal or a lost connection leaves them unknown (the
 * page shows what it would without a name) and lets a later call ask again.
 */
export async function learnNames(ids) {
  const wanted = [...new Set([...(ids || [])].filter((id) => isAccountId(id) && !asked.has(id)))];
  for (let i = 0; i < wanted.length; i += BATCH) {
    const batch = wanted.slice(i, i + BATCH);
    batch.forEach((id) => asked.add(id));
    try {
      const found = await get(`/api/v1/roster?ids=${encodeURIComponent(batch.join(","))}`);
      for (const u of found || []) named.set(u.id, u);
    } catch (_) {
      batch.forEach((id) => asked.delete(id));
    }
  }
}

/** The roster's entry for an id, if learnt. */
export function rosterEntry(id) {
  return named.get(id) || null;
}

/** The username of an id, or null while it is unknown. */
export function usernameOf(id) {
  const u = named.get(id);
  return u ? u.username : null;
}

/** Remembers a username an answer already carried (a table's dealer, an event's actor). */
export function rememberName(id, username) {
  if (isAccountId(id) && username && !named.has(id)) named.set(id, { id, username });
}
