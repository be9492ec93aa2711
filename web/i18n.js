// Every string the player reads comes from here: English, German and French.
// `t(key, params)` looks the key up in the current language (falling back to English) and fills
// in `{name}` placeholders. A key whose value is an object is picked by `params.n`: its `zero`
// form when n is 0 (every language has one, as French counts 0 in the `one` category), else the
// form of n's plural category (`one`, `other`, from Intl.PluralRules).

import en from './i18n/en.js';
import de from './i18n/de.js';
import fr from './i18n/fr.js';
import { local } from './storage.js';

export const LANGUAGES = { en, de, fr };
export const LANGUAGE_NAMES = { en: 'English', de: 'Deutsch', fr: 'Français' };

const STORAGE_KEY = 'fugitive:lang';
let current = pick();
const listeners = new Set();

function pick() {
  const stored = local.get(STORAGE_KEY);
  if (stored && LANGUAGES[stored]) return stored;
  const browser = typeof navigator === 'undefined' ? {} : navigator;
  for (const tag of browser.languages ?? [browser.language ?? 'en']) {
    const base = String(tag).slice(0, 2).toLowerCase();
    if (LANGUAGES[base]) return base;
  }
  return 'en';
}

export function language() {
  return current;
}

export function setLanguage(lang) {
  if (!LANGUAGES[lang] || lang === current) return;
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
  return key in en;
}

export function t(key, params = {}) {
  let text = LANGUAGES[current][key] ?? en[key];
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
