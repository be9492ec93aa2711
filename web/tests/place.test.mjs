// Issue 25, "Done when", in English, German and French: two players, each in a browser of their
// own, pair through an open seek (a third browser watches it come and go live) and through a
// quick-pairing button, play each rated game to its end, see their new ratings and find both
// games on their profile pages; a transfer link moves a profile into a fresh browser. An aborted
// game says so; "notify me" registers the service worker, whose notification speaks the
// reader's language and names the room a click opens (a click itself needs a person). Axe-clean.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openTable, closeTable, newPlayer, readTable, checkAxe } from './harness.mjs';

let server;
let browser;

before(async () => ({ server, browser } = await openTable()));
after(() => closeTable({ server, browser }));

async function openLobby(page) {
  await page.goto(`${server.url}/lobby`);
  await page.locator('[data-testid=lobby][data-connected=true]').waitFor();
  await page.getByTestId('seek-post').and(page.locator(':enabled')).waitFor();
}

async function profileOf(page) {
  await page.goto(server.url);
  await page.locator('[data-testid=profile][data-profile]').waitFor();
  return page.getByTestId('profile').getAttribute('data-profile');
}

const roomOf = (page) => new URL(page.url()).pathname.split('/').pop();

/// Both players are in one room: the Marshal resigns, and both see their new ratings.
async function playToTheEnd(ada, bob) {
  await ada.getByTestId('room').waitFor();
  await bob.getByTestId('room').waitFor();
  assert.equal(roomOf(ada), roomOf(bob));
  const marshal = (await readTable(ada)).viewer === 'marshal' ? ada : bob;
  await marshal.getByTestId('resign').click();
  await marshal.getByTestId('resign-yes').click();
  for (const page of [ada, bob]) {
    await page.getByTestId('rating-change').waitFor();
    await page.getByTestId('rating-change-fugitive').waitFor();
    await page.getByTestId('rating-change-marshal').waitFor();
  }
  return roomOf(ada);
}

const LOCALES = [
  ['en-US', 'Aborted'],
  ['de-DE', 'abgebrochen'],
  ['fr-FR', 'annulée'],
];

for (const [locale] of LOCALES) {
  test(`two players pair by a seek and by quick pairing, play rated games and find them (${locale})`, async () => {
    const watcher = await newPlayer(browser, { locale });
    const ada = await newPlayer(browser, { locale });
    const bob = await newPlayer(browser, { locale });
    const adaId = await profileOf(ada);
    const bobId = await profileOf(bob);
    await watcher.goto(`${server.url}/lobby`);
    await watcher.getByTestId('no-seeks').waitFor();

    // An open seek: it appears on the watcher's page, one click seats both, it disappears.
    await openLobby(ada);
    await openLobby(bob);
    await ada.getByTestId('seek-clock').selectOption('300');
    await ada.getByTestId('seek-post').click();
    const row = watcher.locator('[data-seek]');
    await row.waitFor();
    const id = await row.getAttribute('data-seek');
    await checkAxe(watcher, `lobby with a seek ${locale}`);
    await bob.locator(`[data-seek="${id}"]`).getByTestId('seek-accept').click();
    const bySeek = await playToTheEnd(ada, bob);
    await watcher.getByTestId('no-seeks').waitFor();
    await checkAxe(ada, `game over with a rating change ${locale}`);

    // Quick pairing.
    await openLobby(ada);
    await openLobby(bob);
    await ada.getByTestId('pool-base_5min').click();
    await ada.getByTestId('pool-waiting').waitFor();
    await bob.getByTestId('pool-base_5min').click();
    const byPool = await playToTheEnd(ada, bob);
    assert.notEqual(byPool, bySeek);

    // Both games, rated, on both profile pages.
    for (const [page, profile] of [
      [ada, adaId],
      [bob, bobId],
    ]) {
      await page.goto(`${server.url}/@/${profile}`);
      await page.getByTestId('profile-page').waitFor();
      await page
        .locator('[data-testid^=rated-game-]')
        .filter({ has: page.getByTestId('rated-game-replay') })
        .nth(1)
        .waitFor();
      const links = await page.getByTestId('rated-game-replay').evaluateAll((as) => as.map((a) => a.pathname));
      assert.deepEqual(links.sort(), [`/room/${byPool}/game/1`, `/room/${bySeek}/game/1`].sort());
    }
    await checkAxe(bob, `profile page with two games ${locale}`);

    // A transfer link moves Ada's profile, with her games, into a fresh browser.
    await profileOf(ada);
    await ada.locator('.profile-move summary').click();
    await ada.getByTestId('profile-transfer-make').click();
    const link = await ada.getByTestId('profile-transfer-link').getAttribute('href');
    const fresh = await newPlayer(browser, { locale });
    await fresh.goto(link);
    await fresh.getByTestId('profile-notice').waitFor();
    assert.equal(await fresh.getByTestId('profile').getAttribute('data-profile'), adaId);
    await fresh.getByTestId(`my-game-${bySeek}`).waitFor();
    await checkAxe(fresh, `profile moved ${locale}`);
    for (const page of [watcher, ada, bob, fresh]) assert.deepEqual(page.errors, []);
  });
}

/// A room with a one-second turn clock made by `page`'s profile through the API (the page's
/// options offer no clock that short): its seat link and invitation.
async function quickRoom(page) {
  await profileOf(page);
  const made = await page.evaluate(async () => {
    const res = await fetch('/api/rooms', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ role: 'fugitive', turn_clock_secs: 1 }),
    });
    return res.json();
  });
  return { seat: made.links.seat ?? `/room/${made.room}#seat=${made.token}`, invite: made.links.invite };
}

for (const [locale, word] of LOCALES) {
  test(`a game whose Fugitive never moved says it was aborted, not lost on time (${locale})`, async () => {
    const ada = await newPlayer(browser, { locale });
    const bob = await newPlayer(browser, { locale });
    const { seat, invite } = await quickRoom(ada);
    await bob.goto(new URL(invite, server.url).href);
    await bob.getByTestId('room').waitFor();
    await ada.goto(new URL(seat, server.url).href);
    // Nobody moves: the Fugitive's clock runs out before his first move.
    for (const page of [ada, bob]) {
      const line = page.getByTestId('over-line');
      await line.waitFor();
      assert.match(await line.textContent(), new RegExp(word, 'i'));
    }
    await checkAxe(bob, `aborted game ${locale}`);
    for (const page of [ada, bob]) assert.deepEqual(page.errors, []);
  });
}

test('"notify me" registers the service worker, whose notification speaks the reader’s language and names the room to open', async () => {
  const page = await newPlayer(browser, { locale: 'de-DE' });
  await page.context().grantPermissions(['notifications'], { origin: server.url });
  await profileOf(page);
  const manifest = await page.evaluate(async () => {
    const href = document.querySelector('link[rel=manifest]').href;
    const res = await fetch(href);
    return { type: res.headers.get('content-type'), body: await res.json() };
  });
  assert.equal(manifest.type, 'application/manifest+json');
  assert.equal(manifest.body.start_url, '/');

  await page.locator('.profile-notify summary').click();
  await page.getByTestId('push-toggle').click();
  // A headless browser reaches no push service: the subscription itself may fail here, after the
  // worker was registered and the words kept.
  await page
    .getByTestId('push-state')
    .filter({ hasText: /benachrichtigt dich|nicht einschalten/ })
    .waitFor();
  await checkAxe(page, 'notifications');
  const worker = page.context().serviceWorkers()[0] ?? (await page.context().waitForEvent('serviceworker'));
  const room = '0b6b6c39-5b7a-4f0e-9a8e-54f0c1b0e001';
  const shown = await worker.evaluate(async (room) => {
    const payload = JSON.stringify({ kind: 'turn', room, url: `/room/${room}` });
    const event = new PushEvent('push', { data: payload });
    const waits = [];
    event.waitUntil = (p) => waits.push(p);
    self.dispatchEvent(event);
    await Promise.all(waits);
    const [notification] = await self.registration.getNotifications({ tag: room });
    return { title: notification.title, body: notification.body, url: notification.data.url };
  }, room);
  assert.deepEqual(shown, { title: 'Benachrichtigungen', body: 'Du bist am Zug.', url: `${server.url}/room/${room}` });
  assert.deepEqual(page.errors, []);
});
