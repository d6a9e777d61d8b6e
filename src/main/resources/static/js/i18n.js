// The page scripts' messages: one catalogue with the templates' (messages.properties, messages_zh.properties),
// keys under "js.". The page embeds the catalogue of its language in <script id="i18n-catalogue">
// (web.DashboardCatalogue); the JavaScript unit-test page loads it from /dashboard/messages (loadCatalogue) before
// it imports a suite. A key the catalogue lacks shows as the key itself, so a missing message is visible, not
// silently English; the server already falls back to English for a key messages_zh.properties lacks.
//
// PURE at import time (no DOM access until the first t()), so node and the test page can import it.

let catalogue = null; // {lang, messages}

function current() {
  if (catalogue === null) {
    const node = typeof document !== 'undefined' ? document.getElementById('i18n-catalogue') : null;
    try {
      catalogue = node ? JSON.parse(node.textContent) : null;
    } catch (e) {
      catalogue = null;
    }
    if (!catalogue || typeof catalogue.messages !== 'object') catalogue = { lang: 'en', messages: {} };
  }
  return catalogue;
}

/** The page's language: "en" or "zh". */
export function lang() {
  return current().lang === 'zh' ? 'zh' : 'en';
}

/** Whether the catalogue has `key` (for texts with an English fallback from the server, like events). */
export function has(key) {
  return Object.prototype.hasOwnProperty.call(current().messages, key);
}

/** The message `key` ("js." may be left off) with {0}, {1}, … filled from args. */
export function t(key, ...args) {
  const full = key.startsWith('js.') ? key : 'js.' + key;
  const pattern = current().messages[full];
  if (pattern === undefined) return full;
  return pattern.replace(/\{(\d+)\}/g, (match, i) => (Number(i) < args.length ? String(args[i]) : match));
}

/** English `one` or `other` by count (Chinese has one form: both keys hold the same words). */
export function tn(count, key, ...args) {
  return t(`${key}.${count === 1 ? 'one' : 'other'}`, count, ...args);
}

/** Replaces the catalogue (the test page; a page never switches without a reload). */
export function setCatalogue(next) {
  catalogue = next && typeof next.messages === 'object' ? next : { lang: 'en', messages: {} };
}

/** Fetches the catalogue of `language` from the serving broker and uses it. */
export async function loadCatalogue(language = 'en') {
  const response = await fetch(`/dashboard/messages?lang=${encodeURIComponent(language)}`);
  if (!response.ok) throw new Error(`/dashboard/messages answered ${response.status}`);
  setCatalogue(await response.json());
}
