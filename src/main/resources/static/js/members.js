// Group members by client id: member ids are long and alike (Kafka's `<client.id>-<UUID>`), so the page shows
// "consumer-1 (…a3f2)" — the client id and the end of the member id, enough to tell two members of one client id
// apart — and keeps the full id for a tooltip. PURE: no DOM.

/** How many trailing characters of the member id tell members of one client id apart. */
const SUFFIX_CHARS = 4;

/** "consumer-1 (…a3f2)"; the member id itself when the client id is unknown or empty. */
export function memberLabel(memberId, clientId) {
  if (!memberId) return '';
  if (!clientId) return memberId;
  return `${clientId} (…${memberId.slice(-SUFFIX_CHARS)})`;
}

/**
 * `text` cut into strings and {memberId, label} parts, one for each place it names a member of `members`
 * (member id -> client id, an object or a Map). Longer ids win where two overlap.
 */
export function memberParts(text, members) {
  const entries = members instanceof Map ? [...members] : Object.entries(members || {});
  const found = [];
  for (const [memberId, clientId] of entries) {
    if (!memberId) continue;
    for (let at = text.indexOf(memberId); at >= 0; at = text.indexOf(memberId, at + memberId.length)) {
      found.push({ at, memberId, label: memberLabel(memberId, clientId) });
    }
  }
  found.sort((a, b) => a.at - b.at || b.memberId.length - a.memberId.length);
  const parts = [];
  let next = 0;
  for (const f of found) {
    if (f.at < next) continue; // overlaps one already taken
    if (f.at > next) parts.push(text.slice(next, f.at));
    parts.push({ memberId: f.memberId, label: f.label });
    next = f.at + f.memberId.length;
  }
  if (next < text.length) parts.push(text.slice(next));
  return parts;
}

/** Member id -> client id of every member of the given groups (rows of the snapshot's `groups`). */
export function clientIdsOfGroups(groups) {
  const ids = new Map();
  for (const g of groups) for (const m of g.members || []) if (m.client_id) ids.set(m.member_id, m.client_id);
  return ids;
}
