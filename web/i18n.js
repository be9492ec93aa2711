// Every string the player reads comes from here: English, German and French, each table loaded
// only when it is the reader's language (the page preloads the one the browser asks for; a
// switch loads the next before it changes anything). The first visit's table (`i18n/{lang}.js`)
// holds the strings of the landing page and the table; a page the first visit does not show
// (the lobby, puzzles, the tutorial, a replay and its analysis, a profile and the leaderboard,
// How to play) keeps its own in `i18n/{part}/{lang}.js`, which its module loads at its top with
// `await useStrings(part)`, and which every later switch loads too. `strings(lang)` loads one
// table. `t(key, params)` looks the key up in the current language (falling back to English)
// and fills in `{name}` placeholders. A key whose value is an object is picked by `params.n`:
// its `zero` form when n is 0 (every language has one, as French counts 0 in the `one`
// category), else the form of n's plural category (`one`, `other`, from Intl.PluralRules).

import { local } from './storage.js';

export const LANGUAGE_NAMES = { en: 'English', de: 'Deutsch', fr: 'Français' };
/// The parts of the strings that a first visit does not load (`i18n/{part}/{lang}.js`).
export const PARTS = ['analysis', 'howto', 'lobby', 'profile', 'puzzles', 'replay', 'tutorial'];

const STORAGE_KEY = 'fugitive:lang';
/// The strings loaded so far, by language: the first visit's table and the parts in use.
const loaded = {};
/// The loads of the first visit's tables under way or done, by language: two callers at once
/// (a switch and a page's `useStrings`) share one table, which the parts are merged into.
const loading = {};
/// The parts loaded so far, by language: `{ de: Set { 'lobby' } }`.
const loadedParts = {};
/// The parts the pages opened so far use: loaded in every language switched to.
const parts = new Set();
let current = pick();
// The language last asked for: a slower load of an earlier choice does not override it.
let wanted = current;
await strings(current);
const listeners = new Set();

function pick() {
  const stored = local.get(STORAGE_KEY);
  if (stored && LANGUAGE_NAMES[stored]) return stored;
  const browser = typeof navigator === 'undefined' ? {} : navigator;
  for (const tag of browser.languages ?? [browser.language ?? 'en']) {
    const base = String(tag).slice(0, 2).toLowerCase();
    if (LANGUAGE_NAMES[base]) return base;
  }
  return 'en';
}

/// The strings of `lang`, loaded once (again after a failed load).
export function strings(lang) {
  loading[lang] ??= import(`./i18n/${lang}.js`).then(
    (module) => (loaded[lang] = { ...module.default }),
    (error) => {
      delete loading[lang];
      throw error;
    },
  );
  return loading[lang];
}

/// Loads the strings of `part` (`i18n/{part}/{lang}.js`) in the current language, and from now
/// on in every language before a switch to it. Resolves once the current language has them.
export async function useStrings(part) {
  if (!PARTS.includes(part)) throw new Error(`no strings part ${part}`);
  parts.add(part);
  await Promise.all([...new Set([current, wanted])].map((lang) => ready(lang)));
}

/// Whether `lang` has its table and every part in use.
function complete(lang) {
  return Boolean(loaded[lang]) && [...parts].every((part) => loadedParts[lang]?.has(part));
}

/// Loads `lang`'s table and every part in use that it lacks.
async function ready(lang) {
  const table = await strings(lang);
  const missing = [...parts].filter((part) => !loadedParts[lang]?.has(part));
  const tables = await Promise.all(missing.map((part) => import(`./i18n/${part}/${lang}.js`)));
  loadedParts[lang] ??= new Set();
  missing.forEach((part, i) => {
    Object.assign(table, tables[i].default);
    loadedParts[lang].add(part);
  });
}

export function language() {
  return current;
}

/// Switches to `lang` once its strings are loaded: at once (before it returns) when they are.
export function setLanguage(lang) {
  if (!LANGUAGE_NAMES[lang]) return Promise.resolve();
  wanted = lang;
  if (complete(lang)) {
    switchTo(lang);
    return Promise.resolve();
  }
  return (async () => {
    // A page opened meanwhile may have added a part: loaded before the switch too.
    while (!complete(lang)) await ready(lang);
    if (wanted === lang) switchTo(lang);
  })();
}

function switchTo(lang) {
  if (lang === current) return;
  current = lang;
  // In private mode the choice lasts for this page only.
  local.set(STORAGE_KEY, lang);
  if (typeof document !== 'undefined') document.documentElement.lang = lang;
  for (const listener of listeners) listener(lang);
}

export function onLanguageChange(listener) {
  listeners.add(listener);
}

/// Whether `key` is a known string.
export function has(key) {
  return key in loaded[current];
}

export function t(key, params = {}) {
  let text = loaded[current][key] ?? loaded.en?.[key];
  if (text === undefined) {
    console.warn(`missing string: ${key}`);
    return key;
  }
  if (typeof text === 'object') {
    const n = params.n ?? 0;
    text =
      n === 0 && text.zero !== undefined ? text.zero : (text[new Intl.PluralRules(current).select(n)] ?? text.other);
  }
  return text.replace(/\{(\w+)\}/g, (_, name) => (name in params ? String(params[name]) : `{${name}}`));
}

/// A list of numbers in words of the current language: "5, 17 and 30".
export function list(items) {
  return new Intl.ListFormat(current, { style: 'long', type: 'conjunction' }).format(items.map(String));
}
