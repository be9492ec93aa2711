// The page as it loads (issue 28), read from Chromium's own network log (DevTools protocol): a
// first visit is compressed, small and asks for every module at once; a repeat visit sends only
// the page's revalidation (the API's data aside); only the reader's language is loaded. These are
// the checks of Lighthouse's audits that are not timings (text compression, cache policy, SEO,
// best practices; accessibility is axe-core's `checkAxe`), made here so that CI needs no
// Lighthouse run; `scripts/lighthouse.sh` runs Lighthouse itself and writes BENCHMARKS.md.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openTable, closeTable, newPlayer, createRoom, checkAxe, chooseLanguage } from './harness.mjs';

let server;
let browser;

before(async () => ({ server, browser } = await openTable()));
after(() => closeTable({ server, browser }));

const KIB = 1024;
const YEAR = 31536000;

/// Records every request of `page` as the network saw it: URL, status, bytes on the wire,
/// whether the browser's cache answered it, and the response headers.
async function recordNetwork(page) {
  const cdp = await page.context().newCDPSession(page);
  const byId = new Map();
  const entry = (id) => byId.get(id) ?? byId.set(id, { cached: false, bytes: 0 }).get(id);
  cdp.on('Network.requestWillBeSent', ({ requestId, request }) => (entry(requestId).url = request.url));
  cdp.on('Network.requestServedFromCache', ({ requestId }) => (entry(requestId).cached = true));
  cdp.on('Network.responseReceived', ({ requestId, response }) => {
    const e = entry(requestId);
    e.status = response.status;
    e.headers = Object.fromEntries(Object.entries(response.headers).map(([k, v]) => [k.toLowerCase(), v]));
    if (response.fromDiskCache || response.fromServiceWorker || response.fromPrefetchCache) e.cached = true;
  });
  // The status on the wire: a revalidated response is reported above as the cached 200.
  cdp.on('Network.responseReceivedExtraInfo', ({ requestId, statusCode }) => (entry(requestId).wire = statusCode));
  cdp.on('Network.loadingFinished', ({ requestId, encodedDataLength }) => (entry(requestId).bytes = encodedDataLength));
  await cdp.send('Network.enable');
  return {
    /// What reached the server, without the API and the socket.
    sent: () =>
      [...byId.values()].filter((e) => e.url?.startsWith(server.url) && !e.cached && !/\/(api|ws)\//.test(e.url)),
    all: () => [...byId.values()].filter((e) => e.url?.startsWith(server.url)),
  };
}

/// Opens `path` in a new tab of `context` and waits until the page is drawn and quiet.
async function visit(context, path, ready) {
  const page = await context.newPage();
  page.errors = [];
  page.on('pageerror', (e) => page.errors.push(e.message));
  page.on('console', (m) => m.type() === 'error' && page.errors.push(m.text()));
  const network = await recordNetwork(page);
  await page.goto(server.url + path, { waitUntil: 'networkidle' });
  await page.getByTestId(ready).first().waitFor();
  return { page, network };
}

const pathOf = (url) => new URL(url).pathname;

test('a first visit: compressed, every static file versioned and immutable, under 100 KiB, modules asked for at once', async () => {
  const player = await newPlayer(browser);
  const { page, network } = await visit(player.context(), '/', 'play-computer');
  const sent = network.sent();
  const files = sent.filter((e) => pathOf(e.url) !== '/');
  assert.ok(files.length >= 2, `${files.length} files`);
  for (const e of sent) {
    assert.equal(e.status, 200, e.url);
    assert.equal(e.headers['content-encoding'], 'br', `${e.url} is compressed (Lighthouse: text compression)`);
    assert.match(e.headers.vary, /Accept-Encoding/, e.url);
  }
  // Lighthouse: an efficient cache policy. The page itself is revalidated, so that a new
  // version of the client is seen at once.
  for (const e of files) {
    assert.match(e.url, /\?v=[0-9a-f]{16}$/, `${e.url} is versioned`);
    assert.match(e.headers['cache-control'], new RegExp(`max-age=${YEAR}.*immutable`), e.url);
  }
  const index = sent.find((e) => pathOf(e.url) === '/');
  assert.equal(index.headers['cache-control'], 'no-cache');
  assert.ok(index.headers.etag, 'the page has an ETag');
  const total = network.all().reduce((sum, e) => sum + e.bytes, 0);
  console.log(`first load: ${(total / KIB).toFixed(1)} KiB in ${network.all().length} requests`);
  assert.ok(total <= 100 * KIB, `first load transferred ${(total / KIB).toFixed(1)} KiB`);
  // Every module the page runs, the entry too, was named in the page (modulepreload), none
  // found later.
  const preloaded = await page.$$eval('link[rel=modulepreload]', (links) => links.map((l) => l.href));
  const modules = files.filter((e) => e.url.includes('.js?')).map((e) => e.url);
  // The entry's and the landing page's modules, joined by the server into one file.
  assert.ok(modules.some((url) => pathOf(url) === '/landing.joined.js'));
  assert.deepEqual(
    modules.filter((url) => !preloaded.includes(url)),
    [],
  );
  assert.deepEqual(page.errors, []);
  await player.context().close();
});

test('no module is asked for before the page’s first contentful paint', async () => {
  // Lighthouse's simulation counts every request started before the observed first
  // contentful paint in its FCP: the lobby's FCP went from 0.64 to 0.85–0.90 s in the runs
  // where a frame's task had started the modules before that frame's paint was presented.
  const player = await newPlayer(browser);
  for (let visits = 0; visits < 3; visits++) {
    for (const [path, ready] of [
      ['/', 'play-computer'],
      ['/lobby', 'seek-form'],
    ]) {
      const { page } = await visit(player.context(), path, ready);
      const { fcp, modules } = await page.evaluate(() => ({
        fcp: performance.getEntriesByName('first-contentful-paint')[0]?.startTime,
        modules: performance
          .getEntriesByType('resource')
          .filter((r) => /\.js\?v=/.test(r.name))
          .map((r) => [new URL(r.name).pathname, r.startTime]),
      }));
      assert.ok(fcp > 0, `${path}: a first contentful paint`);
      assert.ok(modules.length > 0, `${path}: modules`);
      for (const [module, at] of modules) {
        assert.ok(
          at >= fcp,
          `${path}: ${module} asked for at ${at} ms, before the first contentful paint at ${fcp} ms`,
        );
      }
      assert.deepEqual(page.errors, [], path);
      await page.close();
    }
  }
  await player.context().close();
});

test('a repeat visit sends only the revalidation of the page, which the server answers 304', async () => {
  const player = await newPlayer(browser);
  const context = player.context();
  await visit(context, '/', 'play-computer');
  const { page, network } = await visit(context, '/', 'play-computer');
  const sent = network.sent().map((e) => `${pathOf(e.url)} ${e.wire}`);
  assert.deepEqual(sent, ['/ 304']);
  assert.deepEqual(page.errors, []);
  await context.close();
});

/// A room against the computer with the seat `role`, made through the API as the landing page
/// makes it; a browser opens its seat link (`links.seat`) as its player's first visit does.
async function roomAgainstComputer(role) {
  const res = await fetch(`${server.url}/api/rooms`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ role, opponent: { bot: 'easy' } }),
  });
  assert.equal(res.status, 201, await res.clone().text());
  return res.json();
}

test('the table’s first visit, as either player: compressed, versioned, under 100 KiB; a repeat visit revalidates the page alone', async () => {
  for (const role of ['fugitive', 'marshal']) {
    const { room, links } = await roomAgainstComputer(role);
    const player = await newPlayer(browser, { viewport: { width: 412, height: 823 } });
    const context = player.context();
    // When the table opens its socket, by the page's own clock: it has loaded what it needs to
    // draw the socket's first state.
    await context.addInitScript(() => {
      const Socket = window.WebSocket;
      window.WebSocket = class extends Socket {
        constructor(...args) {
          window.connectedAt ??= performance.now();
          super(...args);
        }
      };
    });
    const { page, network } = await visit(context, links.seat, 'room');
    await page.locator(`[data-testid=room][data-viewer=${role}]`).waitFor();
    // The modules loaded before that: the table's, joined by the server into one file, and the
    // strings; each more file is another round trip on a slow HTTP/1.1 link.
    const early = await page.evaluate(() =>
      performance
        .getEntriesByType('resource')
        .filter((e) => e.responseEnd < window.connectedAt && new URL(e.name).pathname.endsWith('.js'))
        .map((e) => new URL(e.name).pathname),
    );
    assert.deepEqual(early.sort(), ['/i18n/en.js', '/room.joined.js'], role);
    const sent = network.sent();
    for (const e of sent) {
      assert.equal(e.status, 200, e.url);
      assert.equal(e.headers['content-encoding'], 'br', `${e.url} is compressed`);
      if (pathOf(e.url) !== `/room/${room}`) {
        assert.match(e.url, /\?v=[0-9a-f]{16}$/, `${e.url} is versioned`);
        assert.match(e.headers['cache-control'], new RegExp(`max-age=${YEAR}.*immutable`), e.url);
      }
    }
    const total = network.all().reduce((sum, e) => sum + e.bytes, 0);
    console.log(`${role}'s table, first visit: ${(total / KIB).toFixed(1)} KiB in ${network.all().length} requests`);
    assert.ok(total <= 100 * KIB, `${role}: first visit transferred ${(total / KIB).toFixed(1)} KiB`);
    assert.deepEqual(page.errors, [], role);
    await page.close();
    // Again, in the same browser: the page's revalidation only (the socket aside).
    const again = await visit(context, links.seat, 'room');
    await again.page.locator(`[data-testid=room][data-viewer=${role}]`).waitFor();
    const revalidated = again.network.sent().map((e) => `${pathOf(e.url)} ${e.wire}`);
    assert.deepEqual(revalidated, [`/room/${room} 304`], role);
    assert.deepEqual(again.page.errors, [], role);
    await context.close();
  }
});

test('a repeat visit of the lobby and of a replay revalidates the page alone', async () => {
  const { room, links } = await roomAgainstComputer('fugitive');
  const player = await newPlayer(browser);
  const context = player.context();
  const table = await visit(context, links.seat, 'resign');
  await table.page.getByTestId('resign').click();
  await table.page.getByTestId('resign-yes').click();
  await table.page.getByTestId('over-line').waitFor();
  for (const [path, ready] of [
    ['/lobby', 'seek-form'],
    [`/room/${room}/game/1`, 'replay-outcome'],
  ]) {
    await visit(context, path, ready);
    const { page, network } = await visit(context, path, ready);
    const sent = network.sent().map((e) => `${pathOf(e.url)} ${e.wire}`);
    assert.deepEqual(sent, [`${path} 304`], path);
    assert.deepEqual(page.errors, [], path);
  }
  await context.close();
});

test('only the reader’s language is loaded, and the page is described in it', async () => {
  for (const [locale, lang, other] of [
    ['de-DE', 'de', 'fr'],
    ['fr-FR', 'fr', 'de'],
  ]) {
    const player = await newPlayer(browser, { locale });
    const { page, network } = await visit(player.context(), '/', 'play-computer');
    const languages = network
      .all()
      .map((e) => pathOf(e.url))
      .filter((p) => p.startsWith('/i18n/'));
    assert.deepEqual(languages, [`/i18n/${lang}.js`], locale);
    assert.equal(await page.getAttribute('html', 'lang'), lang);
    const description = await page.getAttribute('meta[name=description]', 'content');
    assert.ok(description.length > 50, description);
    // A switch loads the other language then.
    await chooseLanguage(page, other);
    assert.notEqual(await page.getAttribute('meta[name=description]', 'content'), description);
    assert.deepEqual(page.errors, []);
    await player.context().close();
  }
});

test('the SEO and best-practice checks of Lighthouse hold on the landing page and the table', async () => {
  const player = await newPlayer(browser, { viewport: { width: 412, height: 823 } });
  await createRoom(player, server.url, 'fugitive');
  for (const [path, ready] of [
    ['/', 'play-computer'],
    [new URL(player.url()).pathname, 'room'],
  ]) {
    const { page, network } = await visit(player.context(), path, ready);
    const seo = await page.evaluate(() => ({
      title: document.title,
      description: document.querySelector('meta[name=description]')?.content ?? '',
      lang: document.documentElement.lang,
      viewport: document.querySelector('meta[name=viewport]')?.content ?? '',
      charset: document.characterSet,
      doctype: document.doctype?.name,
      robots: document.querySelector('meta[name=robots]')?.content ?? '',
    }));
    assert.ok(seo.title.length > 0 && seo.description.length > 50, JSON.stringify(seo));
    assert.match(seo.lang, /^(en|de|fr)$/);
    assert.match(seo.viewport, /width=device-width/);
    assert.equal(seo.charset, 'UTF-8');
    assert.equal(seo.doctype, 'html');
    assert.doesNotMatch(seo.robots, /noindex/);
    const index = network.all().find((e) => pathOf(e.url) === path);
    assert.equal(index.status, 200, path);
    // Best practices: a CSP without 'unsafe-inline', no error in the console, no plain-text
    // page without a charset.
    assert.doesNotMatch(index.headers['content-security-policy'], /unsafe-inline/);
    assert.match(index.headers['content-type'], /charset=utf-8/);
    assert.deepEqual(page.errors, [], path);
    await checkAxe(page, `page ${path}`);
    await page.close();
  }
  await player.context().close();
});

/// The texts and boxes of the landing page's first screen: what the server draws into the page.
const firstScreen = (page) =>
  page.$$eval('.intro h1, .intro .tagline, .intro a.button, .starts button.start, header.top', (elements) =>
    elements.map((e) => {
      const box = e.getBoundingClientRect();
      // The header's words are the same, but the script adds the sound icon and the languages.
      const text = e.tagName === 'HEADER' ? '' : e.textContent.replace(/\s+/g, ' ').trim();
      // And the same look: a button greyed until the script comes looks broken.
      const style = getComputedStyle(e);
      const look = [style.color, style.backgroundColor, style.borderColor, style.opacity].join(' ');
      return [e.className || e.tagName, text, look, ...[box.x, box.y, box.width, box.height].map(Math.round)];
    }),
  );

test('the landing page’s first screen, drawn by the server before any script, is the one landing.js draws', async () => {
  for (const locale of ['en-GB', 'de-DE', 'fr-FR']) {
    const viewport = { width: 412, height: 823 };
    const drawn = await browser.newContext({ locale, viewport, javaScriptEnabled: false });
    const before = await drawn.newPage();
    await before.goto(server.url + '/');
    const server_drawn = await firstScreen(before);
    assert.equal(server_drawn.length, 8, JSON.stringify(server_drawn));
    // Its buttons do nothing until the script has drawn them again, and say so to a screen
    // reader; they are not greyed (`disabled`), and the script's are not marked.
    assert.deepEqual(
      await before.$$eval('button.start', (b) => b.map((e) => [e.disabled, e.getAttribute('aria-disabled')])),
      [
        [false, 'true'],
        [false, 'true'],
      ],
    );
    await drawn.close();
    const player = await newPlayer(browser, { locale, viewport });
    const { page } = await visit(player.context(), '/', 'play-computer');
    // The same words in the same places, and the same look: nothing moves or changes colour
    // when the script takes over.
    assert.deepEqual(await firstScreen(page), server_drawn, locale);
    assert.deepEqual(await page.$$eval('button.start[aria-disabled]', (b) => b.length), 0);
    assert.deepEqual(page.errors, []);
    await player.context().close();
  }
});

/// The texts, boxes and looks of the lobby's first screen, before its socket has said anything.
const lobbyScreen = (page) =>
  page.$$eval('.lobby h1, .lobby p, .lobby h2, .lobby label, .lobby select, .lobby button, .lobby a', (elements) =>
    elements.map((e) => {
      const box = e.getBoundingClientRect();
      const style = getComputedStyle(e);
      const look = [style.color, style.backgroundColor, style.opacity, e.disabled ?? '', e.value ?? ''].join(' ');
      // What is read on the screen: a list shows its chosen option.
      const words = (el) =>
        el.tagName === 'SELECT'
          ? el.selectedOptions[0].text
          : [...el.childNodes].map((n) => (n.nodeType === Node.TEXT_NODE ? n.textContent : words(n))).join('');
      const text = words(e).replace(/\s+/g, ' ').trim();
      return [e.tagName, text, look, ...[box.x, box.y, box.width, box.height].map(Math.round)];
    }),
  );

test('the lobby’s first screen, drawn by the server before any script, is the one lobby.js draws first', async () => {
  for (const locale of ['en-GB', 'de-DE', 'fr-FR']) {
    const viewport = { width: 412, height: 823 };
    const drawn = await browser.newContext({ locale, viewport, javaScriptEnabled: false });
    const before = await drawn.newPage();
    await before.goto(server.url + '/lobby');
    const server_drawn = await lobbyScreen(before);
    assert.equal(server_drawn.length, 17, JSON.stringify(server_drawn));
    await drawn.close();
    const player = await newPlayer(browser, { locale, viewport });
    const page = await player.context().newPage();
    page.errors = [];
    page.on('pageerror', (e) => page.errors.push(e.message));
    // No profile, so no socket: the lobby stays as lobby.js first draws it.
    await page.route('**/api/profile', () => {});
    await page.goto(server.url + '/lobby');
    await page.getByTestId('lobby').waitFor();
    // The same words in the same places with the same look: nothing moves when the script draws.
    assert.deepEqual(await lobbyScreen(page), server_drawn, locale);
    assert.deepEqual(page.errors, []);
    await player.context().close();
  }
});
