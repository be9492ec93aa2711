// Every string exists in English, German and French, with the same placeholders and plural forms,
// in the first visit's table (`i18n/{lang}.js`) and in each part a page loads for itself
// (`i18n/{part}/{lang}.js`, i18n.js `useStrings`); and every key a module uses is in a table that
// module has loaded: the first visit's, or a part it (or a module it imports) asks for.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { PARTS } from '../i18n.js';
import { importsOf } from './modules.test.mjs';

const DIR = new URL('..', import.meta.url);
const LANGUAGES = ['en', 'de', 'fr'];
const load = async (table, lang) => (await import(`../i18n/${table ? `${table}/` : ''}${lang}.js`)).default;
/// `{ '': { en, de, fr }, lobby: { en, de, fr }, … }`: '' is the first visit's table.
const TABLES = {};
for (const table of ['', ...PARTS]) {
  TABLES[table] = Object.fromEntries(await Promise.all(LANGUAGES.map(async (l) => [l, await load(table, l)])));
}
const name = (table) => (table ? `part ${table}` : 'the first visit’s table');

const placeholders = (text) => [...String(text).matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();
const forms = (value) => (typeof value === 'object' ? Object.values(value) : [value]);

for (const [table, { en, ...others }] of Object.entries(TABLES)) {
  for (const [lang, strings] of Object.entries(others)) {
    test(`${name(table)}: ${lang} has exactly the English keys`, () => {
      assert.deepEqual(Object.keys(strings).sort(), Object.keys(en).sort());
    });

    test(`${name(table)}: ${lang} uses the same placeholders and plural shape as English`, () => {
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

    test(`${name(table)}: ${lang} strings are not copies of the English ones`, () => {
      // Proper nouns and symbols may stay the same; whole sentences may not.
      const same = Object.keys(en).filter(
        (k) => typeof en[k] === 'string' && en[k] === strings[k] && en[k].includes(' '),
      );
      assert.deepEqual(same, []);
    });
  }
}

test('the parts are the folders of i18n/, and no key is in two tables', async () => {
  const folders = (await readdir(new URL('i18n/', DIR), { withFileTypes: true }))
    .filter((e) => e.isDirectory())
    .map((e) => e.name);
  assert.deepEqual(folders.sort(), [...PARTS].sort());
  const seen = new Map();
  for (const [table, { en }] of Object.entries(TABLES)) {
    for (const key of Object.keys(en)) {
      assert.ok(!seen.has(key), `${key} is in ${name(seen.get(key))} and in ${name(table)}`);
      seen.set(key, table);
    }
  }
});

/// The client's modules (those of its folders too, not i18n/ itself) and their sources.
async function modules() {
  const files = (await readdir(DIR, { recursive: true })).filter(
    (f) => f.endsWith('.js') && !/^(node_modules|tests|test-results|i18n)\//.test(f),
  );
  return new Map(await Promise.all(files.map(async (f) => [f, await readFile(new URL(f, DIR), 'utf8')])));
}

/// The keys a source names literally: `t('key'` and `cond ? 'a.b' : 'c.d'`.
function keysOf(source) {
  const used = new Set();
  for (const m of source.matchAll(/\bt\('([\w.]+)'/g)) used.add(m[1]);
  for (const m of source.matchAll(/\?\s*'([a-z]+\.[\w.]+)'\s*:\s*'([a-z]+\.[\w.]+)'/g)) {
    used.add(m[1]);
    used.add(m[2]);
  }
  return used;
}

const staticImports = (file, source) =>
  importsOf(file, source.replace(/\bimport\s*\(\s*['"][^'"]+['"]\s*\)/g, '')).map((f) => path.normalize(f));

test('every key a module uses is in the first visit’s table or in a part that module loads', async () => {
  const sources = await modules();
  /// The parts a module has once it runs: those it and its static imports ask for at their top.
  const partsOf = (file, seen = new Set()) => {
    if (seen.has(file)) return new Set();
    seen.add(file);
    const source = sources.get(file) ?? '';
    const own = [...source.matchAll(/^await useStrings\('(\w+)'\);$/gm)].map((m) => m[1]);
    return new Set([...own, ...staticImports(file, source).flatMap((f) => [...partsOf(f, seen)])]);
  };
  const missing = [];
  for (const [file, source] of sources) {
    const tables = ['', ...partsOf(file)];
    for (const key of keysOf(source)) {
      if (!tables.some((table) => key in TABLES[table].en)) missing.push(`${file}: ${key}`);
    }
  }
  assert.deepEqual(missing, []);
});

test('the modules of a first visit (app.js, the landing page, the table) ask for no part', async () => {
  const sources = await modules();
  const seen = new Set(['app.js', 'landing.js', 'room.js']);
  const todo = [...seen];
  while (todo.length) {
    const file = todo.pop();
    assert.doesNotMatch(sources.get(file), /^await useStrings\(/m, `${file} loads a part on a first visit`);
    for (const next of staticImports(file, sources.get(file))) if (!seen.has(next) && seen.add(next)) todo.push(next);
  }
  assert.ok(seen.has('i18n.js') && seen.has('table.js'), [...seen].join(' '));
});
