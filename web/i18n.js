// Every string the player reads comes from here: English, German and French, each table loaded
// only when it is the reader's language (the page preloads the one the browser asks for; a
// switch loads the next before it changes anything). `strings(lang)` loads one table.
// `t(key, params)` looks the key up in the current language (falling back to English) and fills
// in `{name}` placeholders. A key whose value is an object is picked by `params.n`: its `zero`
// form when n is 0 (every language has one, as French counts 0 in the `one` category), else the
// form of n's plural category (`one`, `other`, from Intl.PluralRules).

import { local } from './storage.js';

export const LANGUAGE_NAMES = { en: 'English', de: 'Deutsch', fr: 'Français' };

const STORAGE_KEY = 'fugitive:lang';
/// The tables loaded so far, by language.
const loaded = {};
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

/// The strings of `lang`, loaded once.
export async function strings(lang) {
  loaded[lang] ??= (await import(`./i18n/${lang}.js`)).default;
  return loaded[lang];
}

export function language() {
  return current;
}

/// Switches to `lang` once its strings are loaded: at once (before it returns) when they are.
export function setLanguage(lang) {
  if (!LANGUAGE_NAMES[lang]) return Promise.resolve();
  wanted = lang;
  if (loaded[lang]) {
    switchTo(lang);
    return Promise.resolve();
  }
  return strings(lang).then(() => {
    if (wanted === lang) switchTo(lang);
  });
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
