// The web client's modules form a graph without circles (docs/architecture.md): every `import`
// of a module of our own, read from the sources, and no module reachable from itself.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const WEB_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/// Every `.js` file of the client (not the tests, not node_modules), relative to `web/`.
async function sources(dir = WEB_DIR) {
  const found = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    if (['node_modules', 'tests', 'test-results'].includes(entry.name) || entry.name.startsWith('.')) continue;
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) found.push(...(await sources(full)));
    else if (entry.name.endsWith('.js')) found.push(path.relative(WEB_DIR, full));
  }
  return found;
}

/// The modules a source imports (static `import … from './x.js'`, `export … from`, and
/// dynamic `import('./x.js')`), relative to `web/`.
export function importsOf(file, text) {
  const found = new Set();
  const patterns = [
    /\bfrom\s*['"](\.[^'"]+)['"]/g,
    /\bimport\s*\(\s*['"](\.[^'"]+)['"]\s*\)/g,
    /^\s*import\s*['"](\.[^'"]+)['"]/gm,
  ];
  for (const pattern of patterns) {
    for (const match of text.matchAll(pattern)) found.add(path.normalize(path.join(path.dirname(file), match[1])));
  }
  return [...found];
}

/// The circles of a graph (`Map` of module → imported modules): each strongly connected
/// component of more than one module, or a module that imports itself.
export function circles(graph) {
  let counter = 0;
  const index = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const found = [];
  function visit(v) {
    index.set(v, counter);
    low.set(v, counter);
    counter += 1;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v), low.get(w)));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v), index.get(w)));
      }
    }
    if (low.get(v) === index.get(v)) {
      const component = [];
      let w;
      do {
        w = stack.pop();
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || (graph.get(v) ?? []).includes(v)) found.push(component.sort());
    }
  }
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

test('the web client has no import circle', async () => {
  const graph = new Map();
  for (const file of await sources())
    graph.set(file, importsOf(file, await readFile(path.join(WEB_DIR, file), 'utf8')));
  assert.deepEqual(circles(graph), []);
});

test('every import names a file that exists', async () => {
  const files = new Set(await sources());
  for (const file of files) {
    for (const target of importsOf(file, await readFile(path.join(WEB_DIR, file), 'utf8'))) {
      assert.ok(files.has(target), `${file} imports ${target}, which is not a module of the client`);
    }
  }
});

test('the checker finds a circle', () => {
  const graph = new Map([
    ['a.js', ['b.js']],
    ['b.js', ['a.js']],
    ['c.js', []],
  ]);
  assert.deepEqual(circles(graph), [['a.js', 'b.js']]);
  assert.deepEqual(importsOf('panels/x.js', "import { h } from '../dom.js';\nconst m = import('./y.js');"), [
    'dom.js',
    'panels/y.js',
  ]);
});

/// `VIEWS` of crates/fugitive-server/src/web.rs: the paths the server serves as the page, each
/// with the module whose graph and strings that page preloads.
export function serverViews(source) {
  const table = source.match(/const VIEWS: \[\(&str, &str\); \d+\] = \[([^]*?)\];/);
  assert.ok(table, 'web.rs has its VIEWS table');
  return [...table[1].matchAll(/\(\s*"([^"]+)"\s*,\s*"([^"]+)"\s*\)/g)].map((m) => [m[1], m[2]]);
}

test('the server preloads, path by path, the module the client draws that path with', async () => {
  const { ROUTES, viewOf } = await import('../routes.js');
  const web = await readFile(path.join(WEB_DIR, '../crates/fugitive-server/src/web.rs'), 'utf8');
  const views = serverViews(web);
  // The same paths with the same modules: a path the client draws but the server does not
  // serve as the page (or serves without that module's preloads) is not allowed.
  assert.deepEqual(
    [...views].sort(),
    [...ROUTES].sort(),
    'VIEWS of crates/fugitive-server/src/web.rs and ROUTES of web/routes.js disagree',
  );
  // Each path, with values of its `{name}`s, is drawn by its module.
  const sample = { room: '0f8fad5b-d9cb-469f-a165-70867728950e', game: '3', profile: 'a1b2c3d4e5f6' };
  for (const [route, module] of ROUTES) {
    const pathname = route.replace(/\{([a-z]+)\}/g, (_, name) => sample[name]);
    assert.equal(viewOf(pathname)?.module, module, pathname);
  }
  assert.equal(viewOf('/room/not-a-room'), null);
  // app.js imports each view's module (and How to play's), nothing else, by its path.
  const app = await readFile(path.join(WEB_DIR, 'app.js'), 'utf8');
  const imported = [...app.matchAll(/\bimport\(\s*'\.\/([^']+)'\s*\)/g)].map((m) => m[1]);
  assert.deepEqual(
    [...new Set(imported)].filter((m) => m !== 'howto.js').sort(),
    [...new Set(ROUTES.map(([, module]) => module))].sort(),
  );
});

test('the check of the routes finds a path the server does not know', () => {
  const web = 'const VIEWS: [(&str, &str); 2] = [\n    ("/", "landing.js"),\n    ("/lobby", "lobby.js"),\n];';
  assert.deepEqual(serverViews(web), [
    ['/', 'landing.js'],
    ['/lobby', 'lobby.js'],
  ]);
  assert.notDeepEqual(serverViews(web), [
    ['/', 'landing.js'],
    ['/lobby', 'lobby.js'],
    ['/tutorial', 'tutorial.js'],
  ]);
});
