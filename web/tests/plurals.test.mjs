// Every plural string, in every language, read with 0, 1, 2 and 5: the number it states is the
// number it was given (French puts 0 in the "one" category, so "1 carte" must never be its form),
// and a count is never worded as if it were another count ("One face-down hideout…" for none).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { t, setLanguage, strings, useStrings, LANGUAGE_NAMES, PARTS } from '../i18n.js';

// Every language's strings with every part, loaded (the page loads only the reader's, and a part
// with its page); setLanguage is then at once.
for (const part of PARTS) await useStrings(part);
for (const lang of Object.keys(LANGUAGE_NAMES)) await setLanguage(lang);
const LANGUAGES = Object.fromEntries(
  await Promise.all(Object.keys(LANGUAGE_NAMES).map(async (lang) => [lang, await strings(lang)])),
);

const en = LANGUAGES.en;
const PLURALS = Object.keys(en).filter((key) => typeof en[key] === 'object');

// Words that state 0 or 1 without digits.
const WORDS = {
  en: { 0: ['no', 'none', 'zero', 'empty'], 1: ['one', 'a', 'an'] },
  de: { 0: ['kein', 'keine', 'keinen', 'keiner', 'leer'], 1: ['ein', 'eine', 'einen', 'einer', 'eines'] },
  fr: { 0: ['aucun', 'aucune', 'vide'], 1: ['un', 'une'] },
};

/// The string for `n`, every other placeholder filled with something that is not a number.
function read(lang, key, n) {
  setLanguage(lang);
  return t(key, { n, position: 'P', card: 'C', sprints: 'S', from: 'F', to: 'T', h: 'H' });
}

const mentions = (lang, text, n) =>
  new RegExp(`(^|\\D)${n}(\\D|$)`).test(text) ||
  (WORDS[lang][n] ?? []).some((w) => new RegExp(`(^|[^\\p{L}])${w}([^\\p{L}]|$)`, 'iu').test(text));

test('there are plural strings to check', () => {
  assert.ok(PLURALS.length >= 10, PLURALS.join(', '));
});

for (const lang of Object.keys(LANGUAGES)) {
  test(`${lang}: every plural string states the right number for 0, 1, 2 and 5`, () => {
    const problems = [];
    for (const key of PLURALS) {
      // A count: the English string puts {n} in its words (not only picks a grammatical form).
      const counts = /\{n\}/.test(en[key].other);
      const one = read(lang, key, 1);
      for (const n of [0, 1, 2, 5]) {
        const text = read(lang, key, n);
        const digits = [...text.matchAll(/\d+/g)].map((m) => Number(m[0]));
        if (digits.some((d) => d !== n)) problems.push(`${key} with ${n}: "${text}" states ${digits}`);
        if (counts && !mentions(lang, text, n)) problems.push(`${key} with ${n}: "${text}" does not say ${n}`);
        if (counts && n !== 1 && text === one) problems.push(`${key} with ${n}: "${text}" reads as for 1`);
        if (text.includes('{')) problems.push(`${key} with ${n}: "${text}" has an unfilled placeholder`);
      }
    }
    assert.deepEqual(problems, []);
  });
}

test('a Stakeout that finds nothing says so in every language', () => {
  const said = Object.fromEntries(Object.keys(LANGUAGES).map((lang) => [lang, read(lang, 'log.stakeout', 0)]));
  assert.match(said.en, /^No face-down hideout/);
  assert.match(said.de, /^Kein /);
  assert.match(said.fr, /^Aucune cachette/);
});
