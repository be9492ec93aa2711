// Every string exists in English, German and French, with the same placeholders and plural forms.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';

const en = (await import('../i18n/en.js')).default;
const others = { de: (await import('../i18n/de.js')).default, fr: (await import('../i18n/fr.js')).default };

const placeholders = (text) => [...String(text).matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();
const forms = (value) => (typeof value === 'object' ? Object.values(value) : [value]);

for (const [lang, strings] of Object.entries(others)) {
  test(`${lang} has exactly the English keys`, () => {
    assert.deepEqual(Object.keys(strings).sort(), Object.keys(en).sort());
  });

  test(`${lang} uses the same placeholders and plural shape as English`, () => {
    for (const [key, value] of Object.entries(en)) {
      const other = strings[key];
      assert.equal(typeof other, typeof value, `${key}: plural shape`);
      const want = [...new Set(forms(value).flatMap(placeholders))].sort();
      const got = [...new Set(forms(other).flatMap(placeholders))].sort();
      // A singular form may spell the number out ("1 card"), so compare the union of forms.
      assert.deepEqual(
        got.filter((p) => p !== 'n'),
        want.filter((p) => p !== 'n'),
        `${key}: placeholders`,
      );
    }
  });

  test(`${lang} strings are not copies of the English ones`, () => {
    // Proper nouns and symbols may stay the same; whole sentences may not.
    const same = Object.keys(en).filter(
      (k) => typeof en[k] === 'string' && en[k] === strings[k] && en[k].includes(' '),
    );
    assert.deepEqual(same, []);
  });
}

test('every key the client uses exists in English', async () => {
  const dir = new URL('..', import.meta.url);
  // The client's modules, those of its folders (panels/, i18n/) too.
  const files = (await readdir(dir, { recursive: true })).filter(
    (f) => f.endsWith('.js') && !/^(node_modules|tests|test-results)\//.test(f),
  );
  const used = new Set();
  for (const file of files) {
    const source = await readFile(new URL(file, dir), 'utf8');
    for (const m of source.matchAll(/\bt\('([\w.]+)'/g)) used.add(m[1]);
    for (const m of source.matchAll(/\?\s*'([a-z]+\.[\w.]+)'\s*:\s*'([a-z]+\.[\w.]+)'/g)) {
      used.add(m[1]);
      used.add(m[2]);
    }
  }
  const missing = [...used].filter((key) => !(key in en));
  assert.deepEqual(missing, []);
});
